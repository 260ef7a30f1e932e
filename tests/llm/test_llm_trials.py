"""semres.experiments.llm.trials: the paper's tests as trials, drawn the same from the same
stream, and the paper's prompt."""

import numpy as np
import pytest

from semres.experiments.llm import settings, trials


def test_draw_trials_semantics_and_determinism():
    a = trials.draw_trials("similarity", 6, 500, 3, years=(1800, 1850), n_names=10)
    b = trials.draw_trials("similarity", 6, 500, 3, years=(1800, 1850), n_names=10)
    np.testing.assert_array_equal(a.years, b.years)
    np.testing.assert_array_equal(a.names, b.names)
    assert all(len(set(row)) == 6 for row in a.names)  # no duplicate names in a prompt
    assert a.years.min() >= 1800 and a.years.max() <= 1850
    dist = np.abs(a.years - a.probe[:, None])
    np.testing.assert_array_equal(a.correct, dist == dist.min(1, keepdims=True))
    ident = trials.draw_trials("identification", 4, 300, 1, years=(1800, 1850), n_names=10)
    assert (ident.correct.sum(1) == 1).all()
    assert (ident.years[ident.correct] == ident.probe).all()
    with pytest.raises(ValueError, match="n must be <="):
        trials.draw_trials("similarity", 11, 10, 0, n_names=10)
    with pytest.raises(ValueError, match="task"):
        trials.draw_trials("recall", 2, 10, 0)
    with pytest.raises(ValueError, match="years"):
        trials.draw_trials("similarity", 2, 10, 0, years=(1900, 1800))


def test_resolution_trials_layout():
    tr = trials.resolution_trials(20, [1500, 1600], [-40, 0, 35], 3, 0, n_names=5)
    assert len(tr) == 2 * 3 * 3
    np.testing.assert_array_equal(tr.years[:, 1] - tr.years[:, 0], 40)
    off = tr.probe - tr.years.mean(1)
    np.testing.assert_array_equal(tr.correct[:, 1], off >= 0)
    np.testing.assert_array_equal(tr.correct.sum(1), 1)


def test_the_prompt_lists_the_people_then_asks():
    text = trials.year_prompt(["Alice", "Bernard"], [1650, 1700], 1690, "similarity", 1)
    assert text.splitlines() == ["Alice was born in 1650.", "Bernard was born in 1700.",
                                 settings.QUESTIONS["similarity"][1].format(year=1690),
                                 "Answer with a single name."]
