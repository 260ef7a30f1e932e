"""Other models' answers: the goodness of fit of a choice model by its
accuracy against the margin, by the reference its cells allow (a parametric bootstrap with
refits on sparse bins, the chi-square on dense ones)."""

import numpy as np
import pytest

from semres.core import choice
from semres.core.seeds import named_seed
from semres.experiments.vlm_shapes import authors
from semres.experiments.vlm_shapes import scenes as sc


def _choices(count, scale, seed, scenes=None):
    """Choices made by an exponential Luce rule with a response bias, on random four-shape
    scenes (or ``scenes``: distances and names)."""
    if scenes is None:
        drawn = sc.sample_scenes(count, 4, "similarity", named_seed(seed, "scenes"))
        scenes = [s.distances for s in drawn], [list(s.names) for s in drawn]
    d, names = scenes
    weights = {n: 1.0 for n in sc.SHAPES} | {"triangle": 3.0}
    p = choice.choice_probs(d, names, scale, 0.0, weights)
    rng = np.random.default_rng(named_seed(seed, "choices"))
    return d, names, np.array([rng.choice(len(q), p=q) for q in p])


def _gof(d, names, c, width, n_boot):
    """The biased rule fitted to the choices, judged by :func:`authors.nearest_gof`."""
    f = choice.fit_choices(d, names, choice=c)
    params = 1 + int(f["floor"] > 0) + len(f["weights"]) - 1
    f.update(authors.nearest_gof(d, names, c, width, n_boot, named_seed(0, "gof"))(f, params))
    return f


def test_a_sparse_margin_table_is_judged_by_refits_not_by_the_chi_square():
    """400 trials in margin bins of 0.05 leave bins that expect fewer than five answers: the
    reference is a parametric bootstrap with refits (its p-value resolves 1/(B + 1)), never
    the chi-square; the model that made the choices passes it."""
    d, names, c = _choices(400, 0.05, 1)
    f = _gof(d, names, c, 0.05, 19)
    assert "parametric bootstrap (19 refits" in f["gof_test"]
    assert f["gof_resolution"] == pytest.approx(1 / 20)
    assert f["misfit"] is not None and not f["misfit"] and f["gof_p"] > 0.05
    again = _gof(d, names, c, 0.05, 19)
    assert again["gof_p"] == f["gof_p"] and again["gof_stat"] == f["gof_stat"]  # named streams
    # without refits a sparse table has no reference, rather than a wrong one
    assert _gof(d, names, c, 0.05, 0)["misfit"] is None


def _dense_design(per_margin=200):
    """Scenes whose margins take eight values, each on many trials: under a broad kernel every
    margin bin expects many correct and wrong answers."""
    shapes = list(sc.SHAPES[:4])
    rows = [np.array([0.2, 0.2 + m, 0.5 + m, 0.6 + m]) for m in np.arange(8) * 0.05 + 0.01
            for _ in range(per_margin)]
    return rows, [shapes] * len(rows)


def test_a_dense_margin_table_keeps_the_chi_square():
    """Bins that each expect at least five correct and wrong answers keep the chi-square
    reference, and no refit is made."""
    d, names, c = _choices(0, 0.3, 2, _dense_design())
    f = _gof(d, names, c, 0.05, 19)
    assert f["gof_test"] == "multinomial deviance, chi-square reference"
    assert f["gof_resolution"] == 0 and f["misfit"] is not None


def test_unanswered_trials_are_left_out_of_the_bins():
    """The fit sees only answered trials, and so do the bins it is judged on: the deviance is
    the one of the answered trials' correct answers against the fit's mean chance per bin."""
    d, names, c = _choices(0, 0.3, 3, _dense_design())
    c = c.copy()
    c[::5] = -1
    f = _gof(d, names, c, 0.05, 0)
    keep = c >= 0
    q = np.array([p[int(np.argmin(x))] for p, x in zip(
        choice.choice_probs(d, names, f["scale"], f["floor"], f["weights"]), d)])[keep]
    m = np.array([np.diff(np.sort(x)[:2])[0] for x in d])[keep]
    ok = np.array([x[k] == np.min(x) for x, k in zip(d, c)])[keep]
    k = np.floor(m / 0.05).astype(int)
    counts = np.array([[ok[k == b].sum(), (~ok[k == b]).sum()] for b in np.unique(k)])
    mean = np.array([q[k == b].mean() for b in np.unique(k)])
    assert f["gof_stat"] == pytest.approx(choice_deviance(counts, np.c_[mean, 1 - mean]))


def choice_deviance(counts, probs):
    """G = 2 sum O ln(O / E), written here without the package."""
    e = probs * counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(2 * np.where(counts > 0, counts * np.log(counts / e), 0.0).sum())
