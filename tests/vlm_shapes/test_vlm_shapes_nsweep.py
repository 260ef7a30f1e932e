"""Theorem 3 against the number of shapes: the ball fit that flags an n sweep it cannot
describe, two radii compared by a likelihood ratio, and Theorem 3 on the hue circle."""

import numpy as np
import pytest

from semres import report
from semres.core import theory
from semres.experiments.vlm_shapes import luce, nsweep, verdicts


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
    assert verdicts.radius_status(f) == "misfit"
    # rates on Theorem 3's curve at eps = 0.1 fit and identify the radius
    true = np.array([np.interp(0.1, grid, curves["identification"][n]) for n in ns])
    g = nsweep.ball_fit(ns, true, np.full(len(ns), 0.01), curves["identification"], grid)
    assert not g["misfit"] and g["identified"] and g["ci_low"] < 0.1 < g["ci_high"]
    assert verdicts.radius_status(g) == "identified"
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
    apart = nsweep.radii_difference(fit(0.10, 0.003), fit(0.12, 0.003))
    assert apart["identified"] and apart["ci"][1] < 0 and apart["p_equal"] < 0.05
    assert verdicts.same_radius(apart) == "apart"
    assert apart["mean"] == pytest.approx(0.11, abs=0.01)
    # one radius fitted to both tasks misses by far more than sampling: its size says so
    assert apart["joint"]["misfit"] and apart["joint"]["dispersion"] > 5
    # the same radii measured ten times less precisely: the intervals overlap, which proves
    # nothing; the difference's interval reaches across the margin, so the status is
    # inconclusive, not a pass
    a, b = fit(0.10, 0.03), fit(0.12, 0.03)
    assert a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"]  # they overlap
    vague = nsweep.radii_difference(a, b)
    lo, hi = vague["ci"]
    m = 0.1 * vague["mean"]
    assert vague["identified"] and (lo < -m < hi or lo < m < hi)
    assert verdicts.same_radius(vague) == "unclear"
    assert report.status(ci=vague["ci"], compared_with=0.0, margin=0.1 * vague["mean"],
                         new=True) == "inconclusive"
    same = nsweep.radii_difference(fit(0.10, 0.003), fit(0.10, 0.003))
    assert same["ci"][0] < 0 < same["ci"][1] and same["p_equal"] > 0.05
    assert verdicts.same_radius(same) == "one"
    bad = nsweep.ball_fit(ns, np.linspace(0.93, 0.83, len(ns)), np.full(len(ns), 0.01),
                       _sweep_curves(ns, grid)["similarity"], grid)
    bad_v = nsweep.radii_difference(bad, fit(0.1, 0.003))
    assert bad_v["misfit"] and bad_v["bad"] == ["generalization against n"]
    assert verdicts.same_radius(bad_v) is None or verdicts.two_task_row(
        bad_v, "r", "s")["approximate"]
    assert not nsweep.radii_difference(None, fit(0.1, 0.003))["compared"]


def test_hue_curves_are_theorem_3_on_the_circle():
    curves = nsweep.hue_curves([2, 4])
    b = np.minimum(2 * nsweep.EPS_GRID, 1.0)
    np.testing.assert_allclose(curves["similarity", 4], theory.n_item(b, 4)[0])
    np.testing.assert_allclose(curves["identification", 2], theory.n_item(b, 2)[1])


def _cells(b, delta, trials=400):
    import pandas as pd
    ns = [2, 4, 6, 8, 10, 12]
    return pd.DataFrame([{"task": t, "n": n, "trials": trials,
                          "correct": round(trials * theory.n_item(b, n, delta)[k])}
                         for k, t in enumerate(("similarity", "identification")) for n in ns])


def _row_status(row):
    r = report.Report("06_vlm_shapes")
    return r.result(**row), r.rows[-1]


def test_theorem_3_with_its_floor_finds_a_floor_that_is_there_and_none_that_is_not():
    # p(n) made by a constant kernel with a floor of 0.1: the floor is found, beyond the margin
    tf = nsweep.theorem3_floor("m", _cells(0.2, 0.1), 0, 1)
    assert tf["floor"]["delta_ci"][0] < 0.1 < tf["floor"]["delta_ci"][1]
    status, rec = _row_status(verdicts.floor_row("m", tf["floor"], tf["free"]))
    assert status == "holds" and rec["margin"] == verdicts.FLOOR_MARGIN
    # the floor-free form misses it, and says by how much
    assert tf["free"]["misfit"] and tf["free"]["dispersion"] > 3
    # chapter 7's bound at the fitted floor holds p_S at every n (Theorem 3's kernel is
    # one similarity with that floor)
    assert all(r["p_s_less_bound"] <= 1e-3 for r in tf["bound"]) and len(tf["bound"]) == 6
    # p(n) with no floor: the interval of the floor reaches 0 and does not clear the margin
    tf0 = nsweep.theorem3_floor("m", _cells(0.2, 0.0), 0, 1)
    assert tf0["floor"]["delta_ci"][0] < verdicts.FLOOR_MARGIN
    assert _row_status(verdicts.floor_row("m", tf0["floor"], tf0["free"]))[0] in (
        "does not hold", "inconclusive")


def test_a_misfit_of_rates_says_how_far_it_misses():
    p = np.array([0.9, 0.7, 0.5])
    se = np.full(3, 0.01)
    exact = luce.chi2_fit(p, p, se, 1 / np.array([2, 4, 6]))
    assert exact["dispersion"] == 0 and exact["explained_null"] == 1
    off = luce.chi2_fit(p, p + 0.05, se, 1 / np.array([2, 4, 6]))
    assert off["rms_gap"] == pytest.approx(0.05) and off["rms_sampling"] == pytest.approx(0.01)
    assert off["dispersion"] == pytest.approx(3 * 25 / 2)
    one = {"lam": 0.1, "lam_ci": (0.099, 0.101), "gof_p": 0.3, "misfit": False,
           "identified": True}
    both = {**one, "gof_p": 1e-6, "misfit": True, **off}
    status, rec = _row_status(verdicts.single_scale_row(
        {"similarity": one, "identification": one, "both tasks": both}, 100, "m"))
    assert status == "misfit" and rec["approximate"] and rec["dispersion"] == off["dispersion"]
    # one scale for both tasks: the two tasks' own scales agree within a tenth of their mean
    graded = {"similarity": one, "identification": {**one, "lam": 0.1005},
              "both tasks": {**one}}
    assert _row_status(verdicts.single_scale_row(graded, 100, "m"))[0] == "holds"
    graded["identification"] = {**one, "lam": 0.13}  # 3 px apart, beyond a tenth of 11.5 px
    assert _row_status(verdicts.single_scale_row(graded, 100, "m"))[0] == "does not hold"
    graded["identification"] = {**one, "lam": 0.1, "lam_ci": (0.05, 0.2)}  # too loose to tell
    assert _row_status(verdicts.single_scale_row(graded, 100, "m"))[0] == "inconclusive"
