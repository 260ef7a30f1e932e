"""Theorem 3 against the number of shapes: the ball fit that flags an n sweep it cannot
describe, two radii compared by a likelihood ratio, and Theorem 3 on the hue circle."""

import numpy as np
import pytest

from semres import report
from semres.core import theory
from semres.experiments.vlm_shapes import nsweep, verdicts
from semres.experiments.vlm_shapes import page_sentences as words


def _sweep_curves(ns, grid):
    b = np.minimum(2 * grid, 1.0)
    return {task: {n: theory.n_item(b, n)[k] for n in ns}
            for k, task in enumerate(("similarity", "identification"))}


def test_the_ball_fit_flags_an_n_sweep_that_theorem_3_cannot_describe():
    ns, grid = [2, 4, 6, 8, 10, 12], np.linspace(0, 1.5, 301)
    curves = _sweep_curves(ns, grid)
    # a model's p_S falling from 0.93 to 0.83: no ball radius gives p_S above 3/4 at n = 2
    p = np.linspace(0.93, 0.83, len(ns))
    f = nsweep.ball_fit(ns, p, np.full(len(ns), 0.01), curves["similarity"], grid)
    assert f["misfit"] and not f["identified"] and f["gof_p"] < 1e-3
    assert verdicts.MISFIT in words.radius_text("similarity", f, 900)
    # rates on Theorem 3's curve at eps = 0.1 fit and identify the radius
    true = np.array([np.interp(0.1, grid, curves["identification"][n]) for n in ns])
    g = nsweep.ball_fit(ns, true, np.full(len(ns), 0.01), curves["identification"], grid)
    assert not g["misfit"] and g["identified"] and g["ci_low"] < 0.1 < g["ci_high"]
    with pytest.raises(ValueError, match="curves"):
        nsweep.ball_fit([2, 3], p[:2], np.full(2, 0.01), curves["similarity"], grid)


def test_two_radii_are_compared_by_a_likelihood_ratio_not_by_overlap():
    ns, grid = [2, 4, 6, 8, 10, 12], np.linspace(0, 1.5, 301)
    curves = _sweep_curves(ns, grid)["identification"]
    rng = np.random.default_rng(0)

    def fit(eps, se):
        p = np.array([np.interp(eps, grid, curves[n]) for n in ns])
        return nsweep.ball_fit(ns, p + rng.normal(0, se, len(ns)), np.full(len(ns), se), curves,
                            grid)

    # radii 0.10 and 0.12 measured to 0.003: different, and the test says so
    apart = words.one_radius("m", fit(0.10, 0.003), fit(0.12, 0.003))
    assert apart["identified"] and apart["ci"][1] < 0 and apart["p_equal"] < 0.05
    assert "different radii" in apart["text"]
    # the same radii measured ten times less precisely: the intervals overlap, which proves
    # nothing; the difference's interval covers 0, and the status is inconclusive, not a pass
    a, b = fit(0.10, 0.03), fit(0.12, 0.03)
    assert a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"]  # they overlap
    vague = words.one_radius("m", a, b)
    lo, hi = vague["ci"]
    assert vague["identified"] and lo < 0 < hi and "not rejected" in vague["text"]
    assert report.status(ci=vague["ci"], compared_with=0.0, tolerance=0.0, new=True) == \
        "inconclusive"
    same = words.one_radius("m", fit(0.10, 0.003), fit(0.10, 0.003))
    assert same["ci"][0] < 0 < same["ci"][1] and same["p_equal"] > 0.05
    bad = nsweep.ball_fit(ns, np.linspace(0.93, 0.83, len(ns)), np.full(len(ns), 0.01),
                       _sweep_curves(ns, grid)["similarity"], grid)
    assert words.one_radius("m", bad, fit(0.1, 0.003))["misfit"]
    assert words.one_radius("m", None, fit(0.1, 0.003))["text"] is None


def test_hue_curves_are_theorem_3_on_the_circle():
    curves = nsweep.hue_curves([2, 4])
    b = np.minimum(2 * nsweep.EPS_GRID, 1.0)
    np.testing.assert_allclose(curves["similarity", 4], theory.n_item(b, 4)[0])
    np.testing.assert_allclose(curves["identification", 2], theory.n_item(b, 2)[1])
