"""Kernels read off behaviour: the Luce rules on scene geometry, the least-squares fits that
recover the scale that made the data and report their bounds, and the estimators' overlap."""

import numpy as np
import pytest

from semres.experiments.vlm_shapes import luce
from semres.experiments.vlm_shapes import scenes as sc


def test_kernel_fits_recover_the_scale_that_made_the_data():
    """Luce probabilities generated from a known kernel on real scene geometry are fitted back."""
    scenes = sc.sample_scenes(300, 4, "similarity", seed=11)
    d = np.array([s.distances for s in scenes])
    t = np.array([s.target for s in scenes])
    p = luce.luce_exponential(d, t, 0.04, 0.02)
    # the exponential kernel is shift invariant without a floor: two shapes give a logistic
    two = np.array([[0.2, 0.27], [0.5, 0.51]])
    np.testing.assert_allclose(luce.luce_exponential(two, [0, 0], 0.05),
                               1 / (1 + np.exp(-np.array([0.07, 0.01]) / 0.05)))
    fit = luce.fit_exponential(d, t, p + np.random.default_rng(0).normal(0, 0.01, len(p)))
    assert fit["scale"] == pytest.approx(0.04, rel=0.1)
    assert fit["floor"] == pytest.approx(0.02, abs=0.01)
    assert not fit["at_bound"]
    q = luce.luce_margin(d, t, 0.06)
    m = luce.fit_margin(d, t, q)
    assert m["eps"] == pytest.approx(0.06, abs=0.002) and not m["at_bound"]
    margins = np.array([s.margin for s in scenes])
    assert np.all(q[margins > 0.06 + 1e-9] == 1) and np.all(q[margins <= 0.06] <= 0.5)


def test_exponential_floor_can_reach_zero():
    """Data made without a floor fit a floor of exactly 0 (not a pinned lower bound), and that
    is not reported as a censored fit; data with a tiny floor keep it."""
    scenes = sc.sample_scenes(300, [3, 4], "similarity", seed=12)
    d = [s.distances for s in scenes]
    t = [s.target for s in scenes]
    fit = luce.fit_exponential(d, t, luce.luce_exponential(d, t, 0.03))
    assert fit["floor"] == 0 and fit["scale"] == pytest.approx(0.03, rel=1e-3)
    assert not fit["at_bound"]
    tiny = luce.fit_exponential(d, t, luce.luce_exponential(d, t, 0.03, 1e-7))
    assert tiny["floor"] == pytest.approx(1e-7, rel=0.05)


def test_mixed_n_scenes_need_no_padding_tricks():
    """Scenes with 2 to 12 shapes in one call: ragged rows, or rows padded with inf or nan,
    give what each scene gives alone, floor or not (padding must not collect the floor)."""
    scenes = sc.sample_scenes(40, range(2, 13), "similarity", seed=13)
    rows = [s.distances for s in scenes]
    t = [s.target for s in scenes]
    alone = [luce.luce_exponential(r[None], [k], 0.05, 0.01)[0] for r, k in zip(rows, t)]
    padded = np.full((len(rows), 12), np.inf)
    for i, r in enumerate(rows):
        padded[i, :len(r)] = r
    for arg in (rows, padded, np.where(np.isinf(padded), np.nan, padded)):
        np.testing.assert_allclose(luce.luce_exponential(arg, t, 0.05, 0.01), alone)
        np.testing.assert_allclose(luce.luce_margin(arg, t, 0.05),
                                   [luce.luce_margin(r[None], [k], 0.05)[0]
                                    for r, k in zip(rows, t)])
    # the closed form for one scene: (e^{-d_t/s} + f) / sum_j (e^{-d_j/s} + f)
    r, k = rows[0], t[0]
    g = np.exp(-r / 0.05) + 0.01
    assert alone[0] == pytest.approx(g[k] / g.sum())
    # large distances over a small scale: no overflow, the floor alone sets the ratios
    far = np.array([[5.0, 6.0, np.inf]])
    assert luce.luce_exponential(far, [0], 0.01, 1e-3)[0] == pytest.approx(0.5)


def test_fits_report_their_bounds():
    """A curve with no distance dependence pins the scale to the top of its range and the
    margin to the top of its grid (censored); the generated curves above do not."""
    scenes = sc.sample_scenes(200, 4, "similarity", seed=14)
    d = np.array([s.distances for s in scenes])
    t = np.array([s.target for s in scenes])
    flat = np.full(len(d), 0.25)
    fit = luce.fit_exponential(d, t, flat)
    assert fit["at_bound"] and "scale=upper" in fit["bound_params"]
    m = luce.fit_margin(d, t, flat)
    assert m["at_bound"] and m["bound_params"] == "eps=upper"
    sure = luce.fit_margin(d, t, np.ones(len(d)))
    assert sure["at_bound"] and sure["bound_params"] == "eps=lower"
    assert sure["eps"] == 0


def test_the_estimators_agree_only_when_their_intervals_overlap():
    ci = np.array([[0.10, 0.30], [0.20, 0.40]])
    est, agree = luce.estimators(ci, {"ci_low_px": 15.0, "ci_high_px": 25.0},
                                 {"scale_ci": (0.12, 0.18)}, 100)
    assert agree and set(est) == {"least squares", "ML", "ML with weights"}
    est, agree = luce.estimators(ci, {"ci_low_px": 25.0, "ci_high_px": 35.0},
                                 {"scale_ci": (0.12, 0.18)}, 100)
    assert not agree


def test_margin_search_equals_the_loop_over_its_grid():
    """fit_margin's chunked sweep gives, at every grid point, the error of luce_margin itself,
    ragged scenes included."""
    for scenes in (sc.sample_scenes(150, 4, "similarity", seed=31),
                   sc.sample_scenes(90, [2, 3, 7], "similarity", seed=32)):
        d = [s.distances for s in scenes]
        t = np.array([s.target for s in scenes])
        p = np.random.default_rng(0).random(len(scenes))
        grid = np.linspace(0, 0.5, 157)
        want = np.array([np.sum((luce.luce_margin(d, t, e) - p) ** 2) for e in grid])
        fit = luce.fit_margin(d, t, p, grid)
        assert fit["eps"] == grid[np.argmin(want)] and fit["sse"] == want.min()
