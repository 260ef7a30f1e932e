"""Step kernels: the t-integral formulas against enumeration, Theorem 3 and the engine; the
frontier optimiser against the constant kernel and a proven bound; the certified two-item
frontier against brute force, random similarities and the engine."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from scipy.special import expit

import pandas as pd

from semres.core import shapes, spaces, theory
from semres.experiments import frontier
from semres.report import Z_MAX
from semres.core.simulate import luce_success


def _enumerate(g, m, n):
    """Every assignment of n items to bands, with the Luce share of the nearest (p_s), and of
    the copied item against n - 1 others (p_i): the multinomial sum written out."""
    p_s = p_i = 0.0
    for bands in itertools.product(range(len(g)), repeat=n):
        prob = np.prod(m[list(bands)])
        total = g[list(bands)].sum()
        nearest = min(bands)
        p_s += prob * (g[nearest] / total if total > 0 else 1 / n)
        p_i += prob / (1 + g[list(bands[1:])].sum()) if n > 1 else 0
    # bands of the n - 1 others are the last n - 1 coordinates; the first is summed out
    return p_s, p_i


@pytest.mark.parametrize("n", [2, 3, 4])
def test_step_success_matches_enumeration(n):
    rng = np.random.default_rng(n)
    g = np.r_[1.0, np.sort(rng.uniform(0.02, 1, 3))[::-1]]
    m = rng.dirichlet(np.ones(4))
    np.testing.assert_allclose(frontier.step_success(g, m, n), _enumerate(g, m, n), atol=1e-12)


@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("b, delta", [(0.1, 0.05), (0.5, 0.2), (0.02, 0.01), (0.3, 0.0)])
def test_two_levels_are_theorem3(n, b, delta):
    got = frontier.step_success([1.0, delta], [b, 1 - b], n)
    np.testing.assert_allclose(got, theory.n_item(b, n, delta), atol=1e-12)


def test_step_kernel_matches_the_engine():
    g, m = np.array([1.0, 0.5, 0.2, 0.05]), np.array([0.1, 0.2, 0.3, 0.4])
    kern = frontier.step_kernel(g, m)
    p_s, p_i = frontier.step_success(g, m, 4)
    for task, exact, seed in (("similarity", p_s, 3), ("identification", p_i, 4)):
        est = luce_success(spaces.Circle(), kern, task, 4, 300_000, seed=seed)
        assert abs(est.zscore(exact)) < 5, (task, est, exact)


def test_gradients_match_finite_differences():
    K, delta, n = 5, 0.03, 4
    x = np.random.default_rng(0).random(2 * K - 1)

    def f(v):
        return np.array(frontier._laplace(*frontier._unpack(v, K, delta), n))

    _, _, (sg, sm), (ig, im) = frontier._laplace(*frontier._unpack(x, K, delta), n, grad=True)
    grads = np.stack([frontier._chain(x, K, delta, sg, sm), frontier._chain(x, K, delta, ig, im)])
    num = np.stack([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(2 * K - 1)], 1)
    np.testing.assert_allclose(grads, num, atol=1e-7)


def floor_bound(p_i, delta):
    """Chapter 7's proposition: no similarity with delta <= g <= 1 beats this p_S (n = 2)."""
    m = min(1 - delta, 4 * (1 - (1 + delta) * p_i))
    return 0.5 + 0.5 * m / (m + 2 * delta)


@pytest.mark.parametrize("delta", [0.01, 0.2])
def test_frontier_beats_the_step_front_and_respects_the_floor_bound(delta):
    lo, hi = 0.5, 1 / (1 + delta)
    rows = frontier.trace(2, delta, [2, 4, 8], [lo + 0.4 * (hi - lo), lo + 0.9 * (hi - lo)])
    for row in rows:
        assert abs(row["p_i"] - row["target"]) < 1e-8
        assert row["levels"][0] == 1 and row["levels"].min() >= delta - 1e-12
        assert np.all(np.diff(row["levels"]) <= 1e-12)
        assert row["p_s"] >= row["step_front_p_s"] - 1e-9
        assert row["p_s"] <= floor_bound(row["p_i"], delta) + 1e-12
        if row["K"] == 2:  # two levels: the constant kernel is the best there is
            assert row["p_s"] == pytest.approx(row["step_front_p_s"], abs=1e-7)
    by_target = {}
    for row in rows:
        by_target.setdefault(row["target"], []).append(row["p_s"])
    for values in by_target.values():
        assert np.all(np.diff(values) >= -1e-12)  # nested starts: never worse with more levels


def test_constant_front_inverts_theorem3():
    ps, pi = theory.n_item(0.3, 4, 0.1)
    assert frontier.constant_front(pi, 4, 0.1) == pytest.approx(ps, abs=1e-12)
    assert math.isnan(frontier.constant_front(0.99, 4, 0.1))


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
        cert = frontier.two_item_bound(g, m, 0.05)
        pair = np.minimum.outer(g, g) / np.add.outer(g, g)
        assert cert["p_s"] == pytest.approx(1 - m @ pair @ m, abs=1e-13)
        np.testing.assert_allclose((cert["p_s"], cert["p_i"]), frontier.step_success(g, m, 2),
                                   atol=1e-12)


@pytest.mark.parametrize("delta", [0.02, 0.2])
def test_the_bound_holds_for_random_similarities_at_every_identification(delta):
    rng = np.random.default_rng(int(delta * 100))
    for frac in (0.3, 0.85):
        target = 0.5 + frac * (1 / (1 + delta) - 0.5)
        best = frontier.best_two_item(target, delta, grid=120)
        for g, m in _random_similarities(rng, delta, 400, levels=int(rng.integers(2, 7))):
            p_s, p_i = frontier.step_success(g, m, 2)
            line = best["upper_bound"] + best["slope"] * (p_i - best["p_i"])
            assert p_s <= line + 1e-12, (g, m, p_s, line)


def test_the_bound_caps_a_brute_force_search_over_three_levels():
    # every 3-level similarity on a grid of levels and masses, by the explicit pair sum
    # (p_S = sum m_j m_k max / (g_j + g_k), checked against the t-integral above)
    delta, target = 0.1, 0.8
    best = frontier.best_two_item(target, delta, grid=200)
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
    best = frontier.best_two_item(target, delta)
    assert abs(best["p_i"] - target) < 1e-9
    assert best["levels"][0] == 1 and best["levels"][-1] >= delta
    assert np.all(np.diff(best["levels"]) < 0) and best["masses"].sum() == pytest.approx(1)
    assert 0 <= best["upper_bound"] - best["p_s"] < 2e-5
    np.testing.assert_allclose(frontier.step_success(best["levels"], best["masses"], 2),
                               (best["p_s"], best["p_i"]), atol=1e-12)
    # a coarser grid falls further below the same frontier
    coarse = frontier.best_two_item(target, delta, grid=100)
    assert coarse["p_s"] <= best["upper_bound"] + 1e-12
    assert coarse["upper_bound"] - coarse["p_s"] > best["upper_bound"] - best["p_s"]


def test_best_two_item_beats_the_local_optimiser_and_the_constant_kernel():
    delta, target = 0.05, 0.85
    best = frontier.best_two_item(target, delta)
    local = frontier.trace(2, delta, [2, 4, 8], [target])[-1]
    assert local["p_s"] <= best["upper_bound"] + best["slope"] * (local["p_i"] - best["p_i"])
    assert best["p_s"] >= local["p_s"] - 1e-9
    assert best["p_s"] > frontier.constant_front(best["p_i"], 2, delta) + 1e-3


def test_best_two_item_matches_the_engine():
    best = frontier.best_two_item(0.85, 0.05, grid=200)
    kern = frontier.step_kernel(best["levels"], best["masses"])
    for task, exact, seed in (("similarity", best["p_s"], 11), ("identification", best["p_i"], 12)):
        est = luce_success(spaces.Circle(), kern, task, 2, 300_000, seed=seed)
        assert abs(est.zscore(exact)) < 5, (task, est, exact)


def test_gain_bound_caps_every_gain():
    delta = 0.05
    fracs = np.linspace(0.05, 0.97, 12)
    bests = [frontier.best_two_item(0.5 + f * (1 / (1 + delta) - 0.5), delta, grid=200)
             for f in fracs]
    cap = frontier.gain_bound([b["p_i"] for b in bests], [b["upper_bound"] for b in bests],
                              [b["slope"] for b in bests], delta)
    gains = [b["p_s"] - frontier.constant_front(b["p_i"], 2, delta) for b in bests]
    assert max(gains) <= cap < max(gains) + 0.01
    rng = np.random.default_rng(9)
    for g, m in _random_similarities(rng, delta, 300):
        p_s, p_i = frontier.step_success(g, m, 2)
        assert p_s - float(frontier.two_item_front(p_i, delta)) <= cap + 1e-12


def test_two_item_front_is_theorem2_inverted():
    for p_i in (0.55, 0.7, 0.9):
        assert frontier.two_item_front(p_i, 0.05) == pytest.approx(
            frontier.constant_front(p_i, 2, 0.05), abs=1e-12)


@pytest.mark.parametrize("call, name", [
    (lambda: frontier.step_success([1.0, 0.5], [0.5, 0.6]), "masses"),
    (lambda: frontier.step_success([0.5, 1.0], [0.5, 0.5]), "levels"),
    (lambda: frontier.step_success([1.0, 0.5], [0.5, 0.5], n=1), "n"),
    (lambda: frontier.optimise(0.7, 2, 0.0, 4), "delta"),
    (lambda: frontier.optimise(0.7, 2, 0.1, 1), "K"),
    (lambda: frontier.optimise(0.99, 2, 0.1, 4), "target_p_i"),
    (lambda: frontier.trace(2, 0.1, [2, 3], [0.7]), "Ks"),
    (lambda: frontier.best_two_item(0.7, 1.0), "delta"),
    (lambda: frontier.best_two_item(0.95, 0.1), "target_p_i"),
    (lambda: frontier.best_two_item(0.7, 0.1, grid=1), "grid"),
    (lambda: frontier.two_item_bound([1.0, 0.05], [0.5, 0.5], 0.1), "levels"),
    (lambda: frontier.two_item_bound([1.0, 0.5], [0.5, 0.5], 0.1, spacing=0), "spacing"),
    (lambda: frontier.gain_bound([0.7], [0.8], [0.1], 0.1, points=1), "points"),
])
def test_validation_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_the_certificate_bounds_the_fine_infimum_when_the_slope_is_negative():
    """With a negative slope beta the bracket phi = 2 K nu + beta c is convex, and a convex
    function dips below its grid minimum between grid points; the certificate must allow for
    that dip (an upper curvature bound), or it is no proof."""
    r = frontier.best_two_item(0.8, 0.05, 200)
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


# --------------------------------------------------------------------------- chapter 7's rules

def test_floor_bound_is_chance_at_the_ceiling_and_above_every_family():
    for delta in (0.05, 0.2):
        assert frontier.floor_bound(1 / (1 + delta), delta) == pytest.approx(0.5)
        top = 0.5 + 0.5 * (1 - delta) / (1 + delta)  # m = 1 - delta: the bound at chance p_I
        assert frontier.floor_bound(0.5, delta) == pytest.approx(top)
        for fam in shapes.FAMILIES:
            for scale in (0.01, 0.1, 0.4):
                p_s, p_i = shapes.circle_two_item(shapes.Family(fam, scale, delta))
                assert p_s <= frontier.floor_bound(p_i, delta) + frontier.ROUNDING


def test_targets_run_between_chance_and_the_ceiling():
    t = frontier.targets(4, 0.1, 5)
    lo, hi = 1 / 4, 1 / (1 + 3 * 0.1)
    assert t[0] == pytest.approx(lo + 0.06 * (hi - lo))
    assert t[-1] == pytest.approx(lo + 0.94 * (hi - lo))
    assert np.all(np.diff(t) > 0)
    assert frontier.doublings(16) == [2, 4, 8, 16]


def test_optimum_shape_reads_plateau_floor_and_an_exponential_decay():
    delta = 0.01
    levels = np.r_[1.0, np.exp(np.linspace(-0.5, math.log(delta) + 0.5, 40)), delta]
    masses = np.r_[0.2, np.full(40, 0.6 / 40), 0.2]
    shape = frontier.optimum_shape(levels, masses, delta)
    assert shape["plateau"] == 0.2 and shape["floor"] == 0.2
    assert shape["below_one"] == pytest.approx(math.exp(-0.5))
    assert shape["density_ratio"] == pytest.approx(1.0)  # uniform in log g: exponential
    masses = np.r_[0.0, np.linspace(0.001, 0.03, 40), 0.0]
    masses /= masses.sum()
    assert frontier.optimum_shape(levels, masses, delta)["density_ratio"] > 2


def test_the_discrete_spaces_are_homogeneous_and_tie_as_counted():
    dist, unit = frontier.cycle(8)
    assert unit == 8 and dist.shape == (8, 8) and dist[0, 4] == 4 and dist[0, 7] == 1
    dist, unit = frontier.torus(4)
    assert unit == 4 and dist.shape == (16, 16) and dist.max() == 4
    assert np.all(np.sort(dist, axis=1) == np.sort(dist[0]))  # the same shells from every point
    ties = frontier.ties_table(frontier.tie_spaces([8, 16, 32], [4, 6, 8]))
    np.testing.assert_allclose(ties.above_front, ties.tau / 2, atol=1e-12)
    rates = frontier.tie_rates(ties)
    assert rates["cycle"] < -0.8 and rates["torus"] < frontier.TIE_RATE
    glue = frontier.tie_glue(ties, rates, pd.DataFrame({"z": [0.5, -1.5]}))
    assert glue["tie_verdict"].startswith("vanishes") and glue["tie_maxz"] == 1.5
    flat = {name: 0.0 for name in rates}
    assert frontier.tie_glue(ties, flat, pd.DataFrame({"z": [0.0]}))["tie_verdict"].startswith(
        "does not")
    rows = frontier.tie_results(ties, rates, pd.DataFrame({"space": ["cycle", "torus"],
                                                           "z": [1.0, 2.0]}))
    assert [r["passed"] for r in rows] == [True, True]
    assert [r["check_max_z"] for r in rows] == [1.0, 2.0]
    assert not frontier.tie_results(ties, flat, pd.DataFrame({"space": [], "z": []}))[0]["passed"]


@pytest.mark.parametrize("K", [1, 2, 4])
def test_slot_codes_closed_forms(K):
    b = 0.3
    assert frontier.slot_match("max", b, K) == pytest.approx(1 - (1 - b) ** K)
    assert frontier.slot_match("product", b, K) == pytest.approx(b**K)
    for comb in ("max", "product"):
        assert frontier.slot_identification(comb, b, K) == pytest.approx(
            1 - frontier.slot_match(comb, b, K) / 2)
    if K == 1:  # one slot: every code is the circle's constant kernel, and sorted it is Theorem 1
        assert frontier.slot_identification("mean", b, K) == pytest.approx(1 - b / 2)
        assert frontier.sorted_mean_code(b, K) == pytest.approx(float(theory.front(1 - b / 2)))
    with pytest.raises(ValueError, match="comb"):
        frontier.slot_match("mean", b, K)


def test_the_max_codes_wrong_preferences_vanish_with_one_slot():
    rng = np.random.default_rng(0)
    assert frontier.wrong_preference(1, 0.15, 20_000, rng) == 0.0  # one slot orders exactly
    assert frontier.wrong_preference(4, 0.15, 20_000, rng) > 0.01
    assert frontier.nearest([0.02, 0.1, 0.16, 0.3], 0.15) == 0.16


def _equal(mean_z):
    rows = []
    for p, z in zip((0.8, 0.9), mean_z):
        for comb in ("max", "product", "mean"):
            rows.append({"p_i": p, "combine": comb, "p_s": 0.7, "se_s": 0.001, "front": 0.7,
                         "sorted_bound": 0.8, "above_z": z if comb == "mean" else -1.0,
                         "bound_z": -10.0})
    return pd.DataFrame(rows)


def _slots(mean_above_z, max_above_z):
    rows = []
    for K, comb, z in ((1, "single", 0.0), (4, "max", max_above_z), (4, "product", 0.0),
                       (4, "mean", mean_above_z)):
        rows.append({"K": K, "combine": comb, "scale": 0.1, "p_i": 0.9, "p_s": 0.7,
                     "se_i": 0.001, "se_s": 0.001, "above": z * 0.001, "above_z": z})
    return pd.DataFrame(rows)


def test_slot_verdicts_follow_the_intervals():
    slots = _slots(8.0, -3.0)
    best = slots.set_index(["K", "combine"])
    glue = frontier.slot_glue(slots, _equal([3.0, 0.5]), best)
    assert glue["slot_max_verdict"].startswith("lies on or below")
    assert glue["slot_mean_verdict"].startswith("lies significantly above")
    assert glue["slot_mean_equal_verdict"] == ("lies above the front, its 95% interval clear of "
                                               "it, at $p_I$ = 0.8")
    glue = frontier.slot_glue(_slots(0.0, 9.0), _equal([0.5, -2.5]), best)
    assert glue["slot_max_verdict"].startswith("has points significantly above")
    assert glue["slot_mean_verdict"] == "does not lie significantly above the front"
    assert glue["slot_mean_equal_verdict"] == ("is not above the front at any of these levels "
                                               "and below it at $p_I$ = 0.9")
    rows = frontier.slot_results(best, np.array([0.5, -1.0]), _equal([3.0, 0.5]))
    assert rows[0]["kind"] == "check" and rows[0]["passed"] and rows[0]["check_max_z"] == 1.0
    assert [r["direction"] for r in rows[1:]] == ["above", "above"]
    assert rows[1]["ci"] == pytest.approx((0.7 - 1.96e-3, 0.7 + 1.96e-3))
    assert not frontier.slot_results(_slots(0.0, 9.0).set_index(["K", "combine"]), [0.0],
                                     _equal([0.0, 0.0]))[0]["passed"]


def test_the_floor_row_holds_only_when_nothing_breaks_the_bound():
    floored = pd.DataFrame({"bound": [0.8, 0.7], "p_s": [0.79, 0.6]})
    scan = pd.DataFrame({"p_i": [0.8], "delta": [0.05], "p_s": [0.6]})
    row = frontier.floor_result(floored, scan)
    assert row["passed"] and row["headline"] == pytest.approx(0.01) and row["kind"] == "check"
    row = frontier.floor_result(floored.assign(p_s=[0.81, 0.6]), scan)
    assert not row["passed"]


def test_best_rows_and_verdicts_read_the_gains_and_the_engine():
    peaks = pd.DataFrame({"delta": [0.01, 0.05], "p_i": [0.8, 0.85], "p_s": [0.75, 0.7],
                          "gain": [0.02, 0.01], "gap": [1e-6, 3e-5], "upper_bound": [0.75, 0.7],
                          "masses": [np.array([0.0, 1.0])] * 2})
    mc = pd.DataFrame({"excess_z": [Z_MAX + 1, Z_MAX - 1], "z_s": [0.1, 0.2],
                       "z_i": [-0.3, 0.0]})
    rows = frontier.best_results(peaks, mc)
    assert [r["passed"] for r in rows] == [True, False, False]  # the second gap > 2e-5
    assert rows[-1]["kind"] == "check" and rows[-1]["check_max_z"] == 0.3
    best2 = peaks.set_index("delta").assign(cap=[0.03, 0.02])
    shapes_ = pd.DataFrame({"delta": [0.01, 0.05], "p_i": [0.8, 0.85], "plateau": [0.0, 0.0],
                            "below_one": [0.9, 0.8], "density_ratio": [1.5, 2.0]})
    glue = frontier.best_glue(best2, peaks, peaks, peaks, shapes_, pd.Series([1e-4]), mc)
    assert glue["best_verdict"].startswith("The constant kernel is close")  # one z too small
    assert glue["gain_trend"] == "shrinks as the floor rises"
    assert glue["exp_verdict"].startswith("not exponential")
    assert glue["peak_plateau"].startswith("has no plateau")
    assert glue["gain_01"] == 0.02 and glue["cap_05"] == 0.02 and glue["below_one_05"] == 0.8


def test_convergence_reads_the_last_doubling():
    opt = pd.DataFrame({"n": [4] * 4, "delta": [0.1] * 4, "target": [0.5, 0.6, 0.5, 0.6],
                        "K": [2, 2, 4, 4], "p_s": [0.5, 0.6, 0.52, 0.6 + 5e-5],
                        "gain": [0.0, 0.0, 0.02, 5e-5], "p_i": [0.5, 0.6, 0.5, 0.6]})
    last, summary = frontier.convergence(opt)
    assert list(last.K) == [4, 4]
    assert summary.loc[(4, 0.1)].last_doubling == pytest.approx(0.02)
    glue = frontier.many_glue(pd.concat([summary, summary.rename(index={4: 2})]), last, [4])
    assert glue["many_conv_verdict"].startswith("so they have not converged")
    assert glue["many_gain_text"] == "0.0200 for n = 4"
