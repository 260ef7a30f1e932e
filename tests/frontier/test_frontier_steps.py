"""semres.experiments.steps.steps: step kernels' t-integral formulas against enumeration,
Theorem 3 and the engine; the local optimiser against the constant kernel and a proven bound."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from semres.core import spaces, theory
from semres.core.simulate import luce_success
from semres.experiments.frontier import steps


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
def test_the_t_integral_matches_enumeration(n):
    rng = np.random.default_rng(n)
    g = np.r_[1.0, np.sort(rng.uniform(0.02, 1, 3))[::-1]]
    m = rng.dirichlet(np.ones(4))
    np.testing.assert_allclose(steps._laplace(g, m, n), _enumerate(g, m, n), atol=1e-12)


@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("b, delta", [(0.1, 0.05), (0.5, 0.2), (0.02, 0.01), (0.3, 0.0)])
def test_two_levels_are_theorem3(n, b, delta):
    got = steps._laplace(np.array([1.0, delta]), np.array([b, 1 - b]), n)
    np.testing.assert_allclose(got, theory.n_item(b, n, delta), atol=1e-12)


def test_step_kernel_matches_the_engine():
    g, m = np.array([1.0, 0.5, 0.2, 0.05]), np.array([0.1, 0.2, 0.3, 0.4])
    kern = steps.step_kernel(g, m)
    p_s, p_i = steps._laplace(g, m, 4)
    for task, exact, seed in (("similarity", p_s, 3), ("identification", p_i, 4)):
        est = luce_success(spaces.Circle(), kern, task, 4, 300_000, seed=seed)
        assert abs(est.zscore(exact)) < 5, (task, est, exact)


def test_gradients_match_finite_differences():
    K, delta, n = 5, 0.03, 4
    x = np.random.default_rng(0).random(2 * K - 1)

    def f(v):
        return np.array(steps._laplace(*steps._unpack(v, K, delta), n))

    _, _, (sg, sm), (ig, im) = steps._laplace(*steps._unpack(x, K, delta), n, grad=True)
    grads = np.stack([steps._chain(x, K, delta, sg, sm), steps._chain(x, K, delta, ig, im)])
    num = np.stack([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(2 * K - 1)], 1)
    np.testing.assert_allclose(grads, num, atol=1e-7)


def floor_bound(p_i, delta):
    """Chapter 7's proposition: no similarity with delta <= g <= 1 beats this p_S (n = 2)."""
    m = min(1 - delta, 4 * (1 - (1 + delta) * p_i))
    return 0.5 + 0.5 * m / (m + 2 * delta)


@pytest.mark.parametrize("delta", [0.01, 0.2])
def test_frontier_beats_the_step_front_and_respects_the_floor_bound(delta):
    lo, hi = 0.5, 1 / (1 + delta)
    rows = steps.trace(2, delta, [2, 4, 8], [lo + 0.4 * (hi - lo), lo + 0.9 * (hi - lo)])
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
    assert steps.constant_front(pi, 4, 0.1) == pytest.approx(ps, abs=1e-12)


def test_targets_run_between_chance_and_the_ceiling():
    t = steps.targets(4, 0.1, 5)
    lo, hi = 1 / 4, 1 / (1 + 3 * 0.1)
    assert t[0] == pytest.approx(lo + 0.06 * (hi - lo))
    assert t[-1] == pytest.approx(lo + 0.94 * (hi - lo))
    assert np.all(np.diff(t) > 0)
    assert steps.doublings(16) == [2, 4, 8, 16]


def test_convergence_reads_the_last_doubling():
    opt = pd.DataFrame({"n": [4] * 4, "delta": [0.1] * 4, "target": [0.5, 0.6, 0.5, 0.6],
                        "K": [2, 2, 4, 4], "p_s": [0.5, 0.6, 0.52, 0.6 + 5e-5],
                        "gain": [0.0, 0.0, 0.02, 5e-5], "p_i": [0.5, 0.6, 0.5, 0.6]})
    last, summary = steps.convergence(opt)
    assert list(last.K) == [4, 4]
    assert summary.loc[(4, 0.1)].last_doubling == pytest.approx(0.02)


def test_levels_that_do_not_double_are_refused():
    with pytest.raises(ValueError, match="Ks"):
        steps.trace(2, 0.1, [2, 3], [0.7])


@pytest.mark.parametrize("args, name", [((0.7, 2, 0.0, 2), "delta"), ((0.7, 2, 1.0, 2), "delta"),
                                        ((0.7, 2, 0.1, 1), "K"), ((0.7, 1, 0.1, 2), "n"),
                                        ((0.7, 2, 0.1, 2.7), "K"), ((0.7, 3.5, 0.1, 2), "n"),
                                        ((0.5, 2, 0.1, 2), "target_p_i"),
                                        ((0.95, 2, 0.1, 2), "target_p_i")])
def test_an_optimum_out_of_range_is_refused_by_name(args, name):
    """Chance (1/n) and the floor's ceiling 1/(1 + (n-1) delta) bound the targets: 0.5 and
    0.909 for n = 2, delta = 0.1; outside them brentq would fail with no word of why."""
    with pytest.raises(ValueError, match=name):
        steps.optimise(*args)


def test_the_constant_front_is_nan_beyond_its_range():
    lo, hi = theory.n_item(1.0, 4, 0.1)[1], theory.n_item(0.0, 4, 0.1)[1]
    assert np.isnan(steps.constant_front(hi + 1e-3, 4, 0.1))
    assert np.isnan(steps.constant_front(lo - 1e-3, 4, 0.1))
    assert np.isfinite(steps.constant_front((lo + hi) / 2, 4, 0.1))
