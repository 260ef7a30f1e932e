"""semres.experiments.certified.certified: the certified two-item frontier against brute force,
random similarities, the local optimiser and the engine; the gain cap; the optima's shapes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from semres.core import spaces
from semres.core.simulate import luce_success
from semres.experiments.frontier import certified, steps


def _random_similarities(rng, delta, count, levels=5):
    """Random non-increasing step similarities with levels in [delta, 1] (the top one 1)."""
    for _ in range(count):
        g = np.r_[1.0, np.sort(delta + (1 - delta) * rng.random(levels - 1))[::-1]]
        g[-1] = delta if rng.random() < 0.5 else g[-1]
        yield g, rng.dirichlet(np.full(levels, rng.choice([0.3, 1.0, 3.0])))


def test_two_item_value_form_is_the_step_formula():
    # p_S = 1 - sum m_j m_k min / (g_j + g_k) and p_I = sum m / (1 + g): the t-integral's values
    rng = np.random.default_rng(5)
    for g, m in _random_similarities(rng, 0.05, 20):
        cert = certified.two_item_bound(g, m, 0.05)
        pair = np.minimum.outer(g, g) / np.add.outer(g, g)
        assert cert["p_s"] == pytest.approx(1 - m @ pair @ m, abs=1e-13)
        np.testing.assert_allclose((cert["p_s"], cert["p_i"]), steps.step_rates(g, m, 2),
                                   atol=1e-12)


@pytest.mark.parametrize("delta", [0.02, 0.2])
def test_the_bound_holds_for_random_similarities_at_every_identification(delta):
    rng = np.random.default_rng(int(delta * 100))
    for frac in (0.3, 0.85):
        target = 0.5 + frac * (1 / (1 + delta) - 0.5)
        best = certified.best_two_item(target, delta, grid=120)
        for g, m in _random_similarities(rng, delta, 400, levels=int(rng.integers(2, 7))):
            p_s, p_i = steps.step_rates(g, m, 2)
            line = best["upper_bound"] + best["slope"] * (p_i - best["p_i"])
            assert p_s <= line + 1e-12, (g, m, p_s, line)


def test_the_bound_caps_a_brute_force_search_over_three_levels():
    # every 3-level similarity on a grid of levels and masses, by the explicit pair sum
    # (p_S = sum m_j m_k max / (g_j + g_k), checked against the t-integral above)
    delta, target = 0.1, 0.8
    best = certified.best_two_item(target, delta, grid=200)
    a, b = np.meshgrid(np.linspace(0, 1, 61), np.linspace(0, 1, 61))
    m = np.column_stack([a.ravel(), b.ravel(), 1 - a.ravel() - b.ravel()])
    m = m[m[:, 2] >= -1e-12].clip(0, 1)
    near = []
    for g2, g3 in itertools.combinations_with_replacement(np.linspace(1, delta, 37), 2):
        g = np.array([1.0, g2, g3])
        pair = np.maximum.outer(g, g) / np.add.outer(g, g)
        p_s, p_i = np.einsum("ij,jk,ik->i", m, pair, m), m @ (1 / (1 + g))
        line = best["upper_bound"] + best["slope"] * (p_i - best["p_i"])
        assert np.all(p_s <= line + 1e-12)
        near.append(p_s[np.abs(p_i - target) < 1e-3])
    near = np.concatenate(near)
    # the search finds 3-level kernels close to the certified optimum, none above it
    assert near.size > 100
    assert best["p_s"] - 0.01 < near.max() <= best["upper_bound"] + 1e-3 * abs(best["slope"])


@pytest.mark.parametrize("delta, frac", [(0.01, 0.5), (0.01, 0.93), (0.05, 0.99), (0.2, 0.06)])
def test_best_two_item_reaches_its_bound(delta, frac):
    target = 0.5 + frac * (1 / (1 + delta) - 0.5)
    best = certified.best_two_item(target, delta)
    assert abs(best["p_i"] - target) < 1e-9
    assert best["levels"][0] == 1 and best["levels"][-1] >= delta
    assert np.all(np.diff(best["levels"]) < 0) and best["masses"].sum() == pytest.approx(1)
    assert 0 <= best["upper_bound"] - best["p_s"] < 2e-5
    np.testing.assert_allclose(steps.step_rates(best["levels"], best["masses"], 2),
                               (best["p_s"], best["p_i"]), atol=1e-12)
    # a coarser grid falls further below the same frontier
    coarse = certified.best_two_item(target, delta, grid=100)
    assert coarse["p_s"] <= best["upper_bound"] + 1e-12
    assert coarse["upper_bound"] - coarse["p_s"] > best["upper_bound"] - best["p_s"]


def test_best_two_item_beats_the_local_optimiser_and_the_constant_kernel():
    delta, target = 0.05, 0.85
    best = certified.best_two_item(target, delta)
    local = steps.trace(2, delta, [2, 4, 8], [target])[-1]
    assert local["p_s"] <= best["upper_bound"] + best["slope"] * (local["p_i"] - best["p_i"])
    assert best["p_s"] >= local["p_s"] - 1e-9
    assert best["p_s"] > steps.constant_front(best["p_i"], 2, delta) + 1e-3


def test_best_two_item_matches_the_engine():
    best = certified.best_two_item(0.85, 0.05, grid=200)
    kern = steps.step_kernel(best["levels"], best["masses"])
    for task, exact, seed in (("similarity", best["p_s"], 11), ("identification", best["p_i"], 12)):
        est = luce_success(spaces.Circle(), kern, task, 2, 300_000, seed=seed)
        assert abs(est.zscore(exact)) < 5, (task, est, exact)


def test_gain_bound_caps_every_gain():
    delta = 0.05
    fracs = np.linspace(0.05, 0.97, 12)
    bests = [certified.best_two_item(0.5 + f * (1 / (1 + delta) - 0.5), delta, grid=200)
             for f in fracs]
    cap = certified.gain_bound([b["p_i"] for b in bests], [b["upper_bound"] for b in bests],
                              [b["slope"] for b in bests], delta)
    gains = [b["p_s"] - steps.constant_front(b["p_i"], 2, delta) for b in bests]
    assert max(gains) <= cap < max(gains) + 0.01
    rng = np.random.default_rng(9)
    for g, m in _random_similarities(rng, delta, 300):
        p_s, p_i = steps.step_rates(g, m, 2)
        assert p_s - float(certified.two_item_front(p_i, delta)) <= cap + 1e-12


def test_two_item_front_is_theorem2_inverted():
    for p_i in (0.55, 0.7, 0.9):
        assert certified.two_item_front(p_i, 0.05) == pytest.approx(
            steps.constant_front(p_i, 2, 0.05), abs=1e-12)


def test_the_certificate_bounds_the_fine_infimum_when_the_slope_is_negative():
    """With a negative slope beta the bracket phi = 2 K nu + beta c is convex, and a convex
    function dips below its grid minimum between grid points; the certificate must allow for
    that dip (an upper curvature bound), or it is no proof."""
    r = certified.best_two_item(0.8, 0.05, 200)
    assert r["slope"] < 0
    t, nu = np.log(r["levels"]), r["masses"]
    t, nu = t[nu > 0], nu[nu > 0]
    energy = float(nu @ expit(-np.abs(t[:, None] - t[None, :])) @ nu)
    inf = np.inf
    for a in np.arange(math.log(0.05), 0.0, 0.1):  # the bracket on a grid 100 times finer
        s = np.linspace(a, min(a + 0.1, 0.0), 10_001)
        phi = 2 * expit(-np.abs(s[:, None] - t[None, :])) @ nu + r["slope"] * expit(-s)
        inf = min(inf, float(phi.min()))
    assert r["upper_bound"] >= 1 + energy + r["slope"] * r["p_i"] - inf


def test_optimum_shape_reads_plateau_floor_and_an_exponential_decay():
    delta = 0.01
    levels = np.r_[1.0, np.exp(np.linspace(-0.5, math.log(delta) + 0.5, 40)), delta]
    masses = np.r_[0.2, np.full(40, 0.6 / 40), 0.2]
    shape = certified.optimum_shape(levels, masses, delta)
    assert shape["plateau"] == 0.2 and shape["floor"] == 0.2
    assert shape["below_one"] == pytest.approx(math.exp(-0.5))
    assert shape["density_ratio"] == pytest.approx(1.0)  # uniform in log g: exponential
    masses = np.r_[0.0, np.linspace(0.001, 0.03, 40), 0.0]
    masses /= masses.sum()
    assert certified.optimum_shape(levels, masses, delta)["density_ratio"] > 2


def test_the_local_optimiser_is_read_beside_the_certified_optima():
    delta, targets = 0.05, steps.targets(2, 0.05, 2)
    cert_rows = pd.DataFrame([{"delta": delta, **certified.best_two_item(p, delta, 200)}
                              for p in targets])
    last = pd.DataFrame([steps.trace(2, delta, [2, 4], [p])[-1] for p in targets])
    local, shortfall = certified.local_shortfall(last.assign(delta=delta), cert_rows)
    assert (local.p_s <= local.certificate + 1e-12).all()  # the certificate bounds it too
    assert shortfall.index.tolist() == [delta]
    assert shortfall[delta] == pytest.approx((cert_rows.p_s - local.p_s).max())
    shapes = certified.optimum_shapes(cert_rows.assign(gain=0.0))
    assert list(shapes.columns[:3]) == ["delta", "p_i", "gain"] and len(shapes) == 2


def test_program_shortfall_measures_another_optimiser_on_the_same_levels():
    optimum = certified.best_two_item(0.8, 0.05, 100)
    rows = pd.DataFrame({"delta": [0.05, 0.05], "p_i": [optimum["p_i"]] * 2,
                         "p_s": [optimum["p_s"], optimum["p_s"] - 0.01]})
    np.testing.assert_allclose(certified.program_shortfall(rows, 100), [0.0, 0.01], atol=1e-9)
    with pytest.raises(ValueError, match="certificate"):
        certified.program_shortfall(rows.assign(p_s=optimum["upper_bound"] + 1e-6), 100)
