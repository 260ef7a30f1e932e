"""The tiny causal LMs the chapter-5 tests share, trained once per session (:mod:`tiny_lm`)."""

import pytest
import tiny_lm


@pytest.fixture(scope="session")
def tok():
    return tiny_lm.tokenizer()


@pytest.fixture(scope="session")
def trained(tok):
    return tiny_lm.train(tiny_lm.model(len(tok), 0), tok, 2200, 0)


@pytest.fixture(scope="session")
def guesser(tok):
    """Trained on answers drawn at random among the listed names: it learns to name one of
    them, never which."""
    return tiny_lm.train(tiny_lm.model(len(tok), 0), tok, 300, 0, shuffle=True)
