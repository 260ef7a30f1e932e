"""semres.experiments.llm.language: the sentence encoder's kernel and answers, on synthetic
embeddings whose kernel is known exactly and on the bundled all-MiniLM-L6-v2 (offline)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from semres.core import simulate, spaces
from semres.experiments.llm import kernel_fits, language, settings, trials

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def circle_embeddings(years=range(0, 101), names=("Ann", "Bob", "Cy", "Di", "Ed", "Flo"),
                      omega=0.02):
    """Items and questions on a circle: cos(q_P, s_y) = cos(omega (P - y)), whatever the name."""
    years = np.asarray(list(years))
    ang = omega * years
    vec = np.stack([np.cos(ang), np.sin(ang)], axis=1).astype(np.float32)
    items = np.repeat(vec[None], len(names), axis=0)
    questions = {t: np.stack([vec] * len(q)) for t, q in settings.QUESTIONS.items()}
    return language.YearEmbeddings(tuple(names), years, items, questions,
                                   dict(settings.QUESTIONS), "synthetic")


def test_measure_kernel_recovers_a_known_kernel():
    emb = circle_embeddings()
    prof = language.measure_kernel(emb, None, max_distance=60, block=25)
    d = prof.distance
    np.testing.assert_allclose(prof.mean_cosine(), np.cos(0.02 * d) - 1, atol=1e-6)
    np.testing.assert_allclose(prof.similarity(0.1), np.exp((np.cos(0.02 * d) - 1) / 0.1),
                               rtol=1e-5)
    assert prof.similarity()[0] == pytest.approx(1.0)
    assert np.all(prof.se() < 1e-5)  # every unit sees the same kernel
    with pytest.raises(ValueError, match="temperature"):
        prof.similarity(0.0)
    with pytest.raises(ValueError, match="max_distance"):
        language.measure_kernel(emb, None, max_distance=0)


@pytest.mark.parametrize("task", ["similarity", "identification"])
def test_encoder_mass_matches_the_engine_on_a_stationary_kernel(task):
    """With name-free, stationary embeddings the Luce mass is the engine's (ties included)."""
    emb = circle_embeddings()
    grid = emb.years
    temp = 0.01
    kern = kernel_fits.MeasuredKernel(np.arange(101),
                                      np.exp((np.cos(0.02 * np.arange(101)) - 1) / temp))
    space = spaces.Discrete(np.abs(grid[:, None] - grid[None, :]).astype(float))
    for n in (2, 5):
        tr = trials.draw_trials(task, n, 20_000, 11 + n, years=(0, 100), n_names=len(emb.names))
        mean, se = language.summarise(language.encoder_mass(emb, tr, temperature=temp))
        est = simulate.luce_success(space, kern, task, n, 200_000, 5 + n)
        assert abs(mean - est.mean) < 4 * math.hypot(se, est.stderr), (task, n, mean, est)


def test_invalid_parameters_name_the_argument():
    emb = circle_embeddings()
    tr = trials.draw_trials("similarity", 2, 5, 0, years=(0, 100), n_names=6)
    with pytest.raises(ValueError, match="temperature"):
        language.encoder_mass(emb, tr, temperature=-1)
    bad = trials.draw_trials("similarity", 2, 5, 0, years=(0, 200), n_names=6)
    with pytest.raises(ValueError, match="years"):
        language.encoder_mass(emb, bad)


# --------------------------------------------------------------------------- the real encoder

@pytest.fixture(scope="module")
def minilm_vectors(tmp_path_factory):
    os.environ["SEMRES_BUILD_DIR"] = str(tmp_path_factory.mktemp("build"))
    try:
        text = ["Alice was born in 1650.", "Who was born closest to 1650?",
                "Bernard was born in 1912.", "Alice was born in 1650."]
        one = language.embed_sentences(text, batch_size=1, cache=False)
        batched = language.embed_sentences(text, batch_size=3, cache=True)
        again = language.embed_sentences(text, batch_size=3, cache=True)
    finally:
        os.environ.pop("SEMRES_BUILD_DIR", None)
    return one, batched, again


def test_minilm_embeddings_are_unit_norm_and_padding_free(minilm_vectors):
    one, batched, again = minilm_vectors
    assert one.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(one, axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(one, batched, atol=1e-5)  # padding does not leak into the mean
    np.testing.assert_array_equal(batched, again)
    np.testing.assert_allclose(one[0], one[3], atol=1e-6)
    # a pretrained encoder (not random weights): the question is nearer its matching statement
    assert one[1] @ one[0] > one[1] @ one[2]


def test_unloadable_encoder_is_one_line():
    with pytest.raises(ValueError, match="cannot be loaded") as err:
        language.embed_sentences(["x"], "/nonexistent/encoder", cache=False)
    assert "\n" not in str(err.value)


def test_a_table_reuses_the_sentences_another_embedded(monkeypatch, tmp_path):
    """The n-sweep's table takes the kernel's overlapping items and questions, embedding only
    the rest, and its vectors are those of embedding everything afresh."""
    monkeypatch.setenv("SEMRES_BUILD_DIR", str(tmp_path))
    qs = {"similarity": ("Who was born closest to {year}?",)}
    first = language.year_embeddings(("Alice", "Bernard"), range(1650, 1654), qs)
    asked = []
    real = language.embed_sentences
    monkeypatch.setattr(language, "embed_sentences",
                        lambda s, *a, **k: asked.append(list(s)) or real(s, *a, **k))
    second = language.year_embeddings(("Alice", "Chiara"), range(1652, 1656), qs, reuse=first)
    fresh = language.year_embeddings(("Alice", "Chiara"), range(1652, 1656), qs)
    assert sorted(asked[0]) == sorted(
        ["Alice was born in 1654.", "Alice was born in 1655."]
        + [f"Chiara was born in {y}." for y in range(1652, 1656)]
        + ["Who was born closest to 1654?", "Who was born closest to 1655?"])
    np.testing.assert_allclose(second.items, fresh.items, atol=1e-6)
    np.testing.assert_allclose(second.questions["similarity"], fresh.questions["similarity"],
                               atol=1e-6)
    np.testing.assert_array_equal(second.items[0, :2], first.items[0, 2:])
