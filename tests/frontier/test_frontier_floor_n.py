"""The floor proposition for n items against independent computations: each inequality of its
proof in SymPy, the exact rates against multinomial enumeration in fractions and Theorem 3, the
sharper dual bound against quadrature, the n-item optimiser against the two-item concave
program solved by NNLS on the same grid, an optimum against the Monte Carlo engine, and a few
thousand random similarities (monotone or not) against the bound."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad
from scipy.optimize import nnls
from scipy.special import expit

from semres.core import spaces
from semres.core.simulate import luce_success
from semres.core.theory import n_item
from semres.experiments.frontier import floor_n, steps

#: an estimate agrees with an exact value when it lies within this many standard errors
Z_CHECK = 5.0


def _enumerate(levels, masses, n):
    """Every assignment of n items to bands (nearest band first), in exact fractions: the
    nearest item's share (p_s) and the copy's share against n - 1 others (p_i)."""
    g = [Fraction(x) for x in levels]
    m = [Fraction(x) for x in masses]
    p_s = p_i = Fraction(0)
    for bands in itertools.product(range(len(g)), repeat=n):
        prob = math.prod(m[b] for b in bands)
        p_s += prob * g[min(bands)] / sum(g[b] for b in bands)
        p_i += prob / (1 + sum(g[b] for b in bands[1:]))
    return float(p_s), float(p_i)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_step_rates_match_enumeration_in_any_order(n):
    rng = np.random.default_rng(10 + n)
    for _ in range(3):
        g = np.round(rng.uniform(0.02, 1, 4), 3)  # not sorted: a non-monotone similarity
        m = np.round(rng.dirichlet(np.ones(4)), 3)
        m[-1] = 1 - m[:-1].sum()
        np.testing.assert_allclose(steps.step_rates(g, m, n), _enumerate(g, m, n),
                                   atol=1e-12)
    batch = steps.step_rates(np.tile(g, (2, 1)), np.tile(m, (2, 1)), n)
    np.testing.assert_allclose(np.array(batch)[:, 0], _enumerate(g, m, n), atol=1e-12)


@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("b, delta", [(0.1, 0.05), (0.5, 0.2), (0.02, 0.01)])
def test_two_levels_are_theorem3(n, b, delta):
    np.testing.assert_allclose(steps.step_rates([1.0, delta], [b, 1 - b], n),
                               n_item(b, n, delta), atol=1e-12)


def test_each_inequality_of_the_proof_in_sympy():
    a, R, x, r, s, g, D, c, w, lam = sp.symbols("a R x r s g Delta c w lambda", positive=True)
    # (i) the nearest item's share a / (a + R) falls in the others' total R >= (n - 1) Delta
    assert sp.simplify(sp.diff(a / (a + R), R) + a / (a + R) ** 2) == 0
    # (ii) psi(a) = a / (a + c Delta), c = n - 1, increases and is concave: Jensen applies
    psi = a / (a + c * D)
    assert sp.simplify(sp.diff(psi, a) - c * D / (a + c * D) ** 2) == 0
    assert sp.simplify(sp.diff(psi, a, 2) + 2 * c * D / (a + c * D) ** 3) == 0
    # (iii) 1 / (1 + s) lies below its chord on [s0, s1]: for the sum of the n - 1 others
    # (s0 = c Delta, s1 = c) and, per item, for x in [Delta, 1] beside a rest r >= 0
    for s0, s1, var in ((c * D, c, s), (r + D, r + 1, r + x)):
        chord = 1 / (1 + s0) + (1 / (1 + s1) - 1 / (1 + s0)) * (var - s0) / (s1 - s0)
        gap = (var - s0) * (s1 - var) / ((1 + s0) * (1 + s1) * (1 + var))
        assert sp.simplify(chord - 1 / (1 + var) - gap) == 0
    # the chord for the sum, averaged, is the linear bound p_I <= L(beta) behind chord_ball
    beta, p = sp.symbols("beta p", positive=True)
    chord_sum = 1 / (1 + c * D) + (1 / (1 + c) - 1 / (1 + c * D)) * beta
    solved = sp.solve(sp.Eq(chord_sum, p), beta)[0]
    assert sp.simplify(solved - (c + 1) * (1 - (1 + c * D) * p) / (c * (1 - D))) == 0
    # (iv) the bound (Delta + m) / (n Delta + m) increases in m, is 1/n at m = 0 and the
    # ceiling 1 / (1 + (n - 1) Delta) at m = 1 - Delta
    m, n = sp.symbols("m n", positive=True)
    closed = (D + m) / (n * D + m)
    assert sp.simplify(sp.diff(closed, m) - (n - 1) * D / (n * D + m) ** 2) == 0
    assert sp.simplify(closed.subs(m, 0) - 1 / n) == 0
    assert sp.simplify(closed.subs(m, 1 - D) - 1 / (1 + (n - 1) * D)) == 0
    # n = 2: chapter 7's bound 1/2 + m / (2 (m + 2 Delta)), and both ways of reading m
    assert sp.simplify(closed.subs(n, 2) - (sp.Rational(1, 2) + m / (2 * (m + 2 * D)))) == 0
    assert sp.simplify(2 * (1 - D) * solved.subs(c, 1) - 4 * (1 - (1 + D) * p)) == 0
    b = sp.Symbol("b", positive=True)
    p_i2 = b / 2 + (1 - b) / (1 + D)  # Theorem 2's p_I, linear in b: its chord is itself
    assert sp.simplify(2 * (1 - D) * sp.solve(sp.Eq(p_i2, p), b)[0]
                       - 4 * (1 - (1 + D) * p)) == 0
    # the dual bound's pointwise maximiser and its interior value
    f = w * psi - lam * (a - D)
    star = sp.sqrt(w * c * D / lam) - c * D
    assert sp.simplify(sp.diff(f, a).subs(a, star)) == 0
    interior = w - 2 * sp.sqrt(c * D * lam * w) + lam * (c + 1) * D
    assert sp.simplify(f.subs(a, star) - interior) == 0


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_theorem3_identification_falls_in_b(n):
    """(a) needs b_n(p_I) well defined: dP/db = (n - 1) sum_j Bin(n - 2, b)_j [f(j+1) - f(j)]
    with f(j) = 1 / (1 + j + (n - 1 - j) Delta), and every bracket is negative."""
    b, D = sp.symbols("b Delta", positive=True)
    f = [1 / (1 + j + (n - 1 - j) * D) for j in range(n)]
    P = sum(sp.binomial(n - 1, j) * b ** j * (1 - b) ** (n - 1 - j) * f[j] for j in range(n))
    dP = (n - 1) * sum(sp.binomial(n - 2, j) * b ** j * (1 - b) ** (n - 2 - j) * (f[j + 1] - f[j])
                       for j in range(n - 1))
    assert sp.cancel(sp.diff(P, b) - dP) == 0
    for j in range(n - 1):
        assert sp.cancel(f[j + 1] - f[j] + (1 - D) / ((1 + j + (n - 1 - j) * D)
                                                      * (2 + j + (n - 2 - j) * D))) == 0


def test_the_two_item_optimum_is_concave_but_not_beyond():
    """Why the two-item certificate does not extend: along mixtures of g = 1 and g = Delta
    (the constant kernel's b), p_I is linear and p_S concave for two items, but p_I is convex
    and p_S convex near b = 1 for four."""
    b = sp.Symbol("b", positive=True)
    D = sp.Rational(1, 20)

    def theorem3(n):
        ps = (1 - b) ** n / n + sum(sp.binomial(n, k) * b ** k * (1 - b) ** (n - k)
                                    / (k + (n - k) * D) for k in range(1, n + 1))
        pi = sum(sp.binomial(n - 1, j) * b ** j * (1 - b) ** (n - 1 - j) / (1 + j + (n - 1 - j) * D)
                 for j in range(n))
        return sp.diff(ps, b, 2), sp.diff(pi, b, 2)

    s2, i2 = theorem3(2)
    assert sp.simplify(s2 + 2 * (1 - D) / (1 + D)) == 0 and sp.simplify(i2) == 0
    s4, i4 = theorem3(4)
    assert s4.subs(b, 1) > 0 and i4.subs(b, 1) > 0 and i4.subs(b, 0) > 0


@pytest.mark.parametrize("delta", [0.01, 0.05, 0.2])
def test_the_bounds_are_chapter7s_at_two_items(delta):
    p = np.linspace(0.5, 1 / (1 + delta), 41)
    m = np.minimum(1 - delta, 4 * (1 - (1 + delta) * p))
    chapter = 0.5 + 0.5 * m / (m + 2 * delta)
    np.testing.assert_allclose(floor_n.floor_bound(p, 2, delta), chapter, atol=1e-12)
    assert (floor_n.upper_bound(p, 2, delta) <= chapter + 2e-12).all()


@pytest.mark.parametrize("n", [3, 4, 8])
def test_ball_measures_invert_theorem3_and_order(n):
    delta = 0.05
    b = np.array([0.0, 0.01, 0.2, 0.7, 1.0])
    p = n_item(b, n, delta)[1]
    np.testing.assert_allclose(floor_n.constant_ball(p, n, delta), b, atol=1e-12)


@pytest.mark.parametrize("n, lam, budget", [(2, 0.05, 0.1), (4, 0.3, 0.02), (8, 2e-3, 0.05),
                                            (8, 1.5, 0.3)])
def test_the_dual_closed_form_is_its_integral(n, lam, budget):
    delta, c = 0.05, n - 1

    def sup(u):  # sup over a of w psi(a) - lam (a - delta), on a fine grid of a
        w = n * (1 - u) ** c
        a = np.linspace(delta, 1, 20_001)
        return (w * a / (a + c * delta) - lam * (a - delta)).max()

    numeric = lam * budget + quad(sup, 0, 1, limit=200)[0]
    assert abs(floor_n._dual(lam, budget, n, delta) - numeric) < 1e-7


def test_the_ceiling_is_attained_and_the_floor_similarity_is_chance():
    for n, delta in ((2, 0.1), (5, 0.05), (8, 0.2)):
        p_s, p_i = steps.step_rates([delta], [1.0], n)  # g = delta beyond distance 0
        assert abs(p_i - floor_n.ceiling(n, delta)) < 1e-12 and abs(p_s - 1 / n) < 1e-12
        assert abs(floor_n.upper_bound(p_i, n, delta) - 1 / n) < 1e-9


def test_random_similarities_never_beat_the_bound():
    table = floor_n.random_search(2400, (2, 3, 4, 8), (0.01, 0.05, 0.2), seed=0)
    assert len(table) == 2400 and set(table.kind) == set(floor_n.KINDS)
    unsorted = table.levels.map(lambda g: bool((np.diff(g[g > 0]) > 0).any()))
    assert unsorted.sum() > 500  # non-monotone similarities are among them
    assert (table.p_s <= table.bound + 1e-12).all(), table.loc[table.ratio.idxmax()]
    assert (table.over_ceiling <= 1e-12).all()
    assert (table.p_i >= 1 / table.n - 1e-12).all()
    # the search reaches the bound's neighbourhood (two levels near the ceiling)
    assert table.ratio.max() > 0.95


def _two_item_program(levels, target):
    """The two-item frontier on fixed levels as chapter 7 poses it, independently of the
    t-integral: maximise 1 - mu' K mu, K = min(x, y) / (x + y), at p_I = sum mu / (1 + x),
    a concave quadratic program solved as non-negative least squares (K = L L')."""
    s = np.log(levels)
    kern = expit(-np.abs(np.subtract.outer(s, s)))
    weight = 1e6
    rows = weight * np.vstack([np.ones_like(s), 1 / (1 + levels)])
    system = np.vstack([np.linalg.cholesky(kern + 1e-13 * np.eye(s.size)).T, rows])
    mu, _ = nnls(system, np.r_[np.zeros(s.size), weight, weight * target], maxiter=50 * s.size)
    mu /= mu.sum()
    return 1 - mu @ kern @ mu


@pytest.mark.parametrize("frac", [0.3, 0.7])
def test_the_optimiser_finds_the_two_item_optimum_on_its_grid(frac):
    delta, grid = 0.05, 60
    target = float(floor_n.targets(2, delta, 3, frac, frac)[0])
    best = floor_n.best_step(target, 2, delta, grid)
    assert abs(best["p_s"] - _two_item_program(best["levels"], target)) < 1e-7


@pytest.mark.parametrize("n, delta", [(4, 0.05), (8, 0.01)])
def test_the_n_item_optimum_is_feasible_stationary_and_bracketed(n, delta):
    target = float(floor_n.targets(n, delta, 5)[3])
    rng = np.random.default_rng(n)
    best = floor_n.best_step(target, n, delta, 40, [rng.dirichlet(np.full(40, 0.5))])
    assert abs(best["p_i"] - target) < 1e-8
    np.testing.assert_allclose(steps.step_rates(best["levels"], best["masses"], n),
                               (best["p_s"], best["p_i"]), atol=1e-12)
    assert best["kkt"] < 1e-5 and max(best["runs"]) - min(best["runs"]) < 1e-7
    assert floor_n.constant_front(target, n, delta) < best["p_s"] \
        < floor_n.upper_bound(best["p_i"], n, delta)


def test_the_grid_shift_is_what_half_the_levels_cost():
    fine = floor_n.frontier((4,), (0.05,), 40, 3, 0, 0)
    coarse = floor_n.frontier((4,), (0.05,), 20, 3, 0, 0)
    direct = [floor_n.best_step(float(t), 4, 0.05, g)["p_s"]
              for g in (40, 20) for t in floor_n.targets(4, 0.05, 3)]
    shift = floor_n.grid_shift(fine, coarse)
    # each row started from the previous target's optimum, so compare within a tolerance
    assert abs(shift - np.abs(np.subtract(*np.split(np.array(direct), 2))).max()) < 1e-6
    assert shift < 1e-3  # half the levels cost less than the certificate's tolerance here


@pytest.mark.parametrize("n", [4, 8])
def test_an_optimum_matches_the_engine(n):
    delta = 0.05
    best = floor_n.best_step(float(floor_n.targets(n, delta, 5)[3]), n, delta, 30)
    kern = steps.step_kernel(best["levels"], best["masses"])
    for k, (task, exact) in enumerate((("similarity", best["p_s"]),
                                       ("identification", best["p_i"]))):
        est = luce_success(spaces.Circle(), kern, task, n, 200_000, seed=k, threads=1)
        assert abs(est.zscore(exact)) < Z_CHECK, (task, est, exact)


def test_step_kernel_reads_its_bands():
    kern = steps.step_kernel([1.0, 0.5, 0.1], [0.2, 0.0, 0.8])
    np.testing.assert_array_equal(kern(np.array([0.0, 0.05, 0.0999, 0.2, 0.5])),
                                  [1.0, 1.0, 1.0, 0.1, 0.1])
    assert kern(np.float32([0.3])).dtype == np.float32


def test_scaling_reads_the_ceiling_and_the_law_of_large_numbers():
    table = floor_n.scaling([2, 64, 1024], [0.05])
    assert (table.n_ceiling < 1 / 0.05).all() and table.n_ceiling.is_monotonic_increasing
    assert table.constant_over_ceiling.iloc[-1] > 0.9  # the ceiling is reached as n grows
    assert abs(table.n_p_i_fixed_b.iloc[-1] - 1 / (0.1 + 0.9 * 0.05)) < 0.1


@pytest.mark.parametrize("n, delta", [(4, 0.0), (1, 0.1), (4, float("nan"))])
def test_no_floor_no_bound(n, delta):
    """Chapters 5 and 6 read the bound at fitted floors, which may land at 0: it says so."""
    with pytest.raises(ValueError, match="delta in"):
        floor_n.floor_bound(0.3, n, delta)
