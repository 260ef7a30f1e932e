"""semres.core.theory against computations written independently of it.

- SymPy: Theorem 2 re-derived by conditioning on how many items fall in the probe's ball.
- Brute force: Theorem 3 by enumerating every in/out pattern of the n items (no binomials).
- Averaging: the heterogeneous two-item formula equals the homogeneous one averaged over b_p.
- Quadrature: Proposition 1 by integrating the Luce rule for the linear kernel on a grid.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import minimize_scalar

from semres.core import theory

B = np.linspace(0, 1, 11)
DELTAS = [0.0, 0.1, 0.5, 1.0, 2.0]


# --- Theorems 1-2 -------------------------------------------------------------------------

def test_two_item_matches_sympy_conditioning():
    """Theorem 2 from first principles: K ~ Bin(2, b) items in the ball, Luce shares by K."""
    b, delta = sp.symbols("b Delta", nonnegative=True)
    pk = [(1 - b) ** 2, 2 * b * (1 - b), b**2]
    # similarity: K = 0 or 2 is a tie (1/2); K = 1 gives the in-ball (nearest) item 1/(1 + Delta)
    ps = pk[0] / 2 + pk[1] / (1 + delta) + pk[2] / 2
    # identification: the copy is inside; the other item is inside with probability b
    pi = b / 2 + (1 - b) / (1 + delta)
    ps_f, pi_f = sp.lambdify((b, delta), ps), sp.lambdify((b, delta), pi)
    for d in DELTAS:
        got_s, got_i = theory.two_item(B, d)
        np.testing.assert_allclose(got_s, ps_f(B, d), atol=1e-12)
        np.testing.assert_allclose(got_i, pi_f(B, d), atol=1e-12)


def test_two_item_heterogeneous_is_the_average_over_probes():
    """Given the probe, items are i.i.d.: p_S = E_p[p_S(b_p)], whatever the law of b_p."""
    rng = np.random.default_rng(3)
    for _ in range(5):
        bp = rng.beta(2, 3, size=50)
        w = rng.dirichlet(np.ones(50))
        mean = w @ bp
        var = w @ (bp - mean) ** 2
        for d in DELTAS:
            hom_s, hom_i = theory.n_item(bp, 2, d)
            het_s, het_i = theory.two_item(mean, d, var)
            assert het_s == pytest.approx(w @ hom_s, abs=1e-12)
            assert het_i == pytest.approx(w @ hom_i, abs=1e-12)


def test_theorem1_values_and_peak():
    ps, pi = theory.two_item(0.5)
    assert (ps, pi) == pytest.approx((0.75, 0.75))
    assert theory.two_item(0.0) == pytest.approx((0.5, 1.0))
    grid = np.linspace(0, 1, 2001)
    assert grid[np.argmax(theory.two_item(grid)[0])] == pytest.approx(0.5)


def test_noise_lowers_both():
    ps, pi = theory.two_item(0.3, np.linspace(0, 3, 50))
    assert np.all(np.diff(ps) < 0) and np.all(np.diff(pi) < 0)


def test_front_is_theorem1_with_b_eliminated():
    ps, pi = theory.two_item(B)
    np.testing.assert_allclose(theory.front(pi), ps, atol=1e-12)
    assert theory.front(0.75) == pytest.approx(0.75)


# --- Theorem 3 ----------------------------------------------------------------------------

def _enumerate_n_item(b: float, n: int, delta: float) -> tuple[float, float]:
    """Sum over all 2^n in/out patterns, with the Luce shares written out per pattern."""
    ps = 0.0
    for inside in itertools.product((0, 1), repeat=n):
        k = sum(inside)
        prob = b**k * (1 - b) ** (n - k)
        if k == 0:
            ps += prob / n  # every weight equal (delta or all zero): uniform choice
        else:
            ps += prob * 1.0 / (k + (n - k) * delta)
    pi = 0.0
    for inside in itertools.product((0, 1), repeat=n - 1):  # the other n - 1 items
        k = sum(inside)
        weights = [1.0] + [1.0 if x else delta for x in inside]
        pi += b**k * (1 - b) ** (n - 1 - k) * weights[0] / sum(weights)
    return ps, pi


@pytest.mark.parametrize("n", [2, 3, 4, 6])
@pytest.mark.parametrize("delta", [0.0, 0.2, 1.5])
def test_n_item_matches_enumeration(n, delta):
    for b in (0.0, 0.05, 0.3, 0.77, 1.0):
        assert theory.n_item(b, n, delta) == pytest.approx(_enumerate_n_item(b, n, delta),
                                                           abs=1e-12)


def test_n_item_reduces_to_two_item():
    for d in DELTAS:
        np.testing.assert_allclose(theory.n_item(B, 2, d), theory.two_item(B, d), atol=1e-12)


def test_n_item_identification_closed_form():
    """The paper's p_I^n = (1 - (1 - b)^n) / (n b) at delta = 0."""
    b = np.linspace(0.01, 1, 40)
    for n in (2, 5, 17, 100, 2000):  # 2000: far past where Bin(n, b)'s terms underflow
        np.testing.assert_allclose(theory.n_item(b, n)[1], (1 - (1 - b) ** n) / (n * b),
                                   rtol=1e-10)


def test_n_item_optimum_identity():
    """d p_S / d b = n (p_I - p_S) / (1 - b), checked by central differences."""
    b = np.linspace(0.05, 0.9, 12)
    h = 1e-6
    for n in (2, 3, 7, 20):
        slope = (theory.n_item(b + h, n)[0] - theory.n_item(b - h, n)[0]) / (2 * h)
        ps, pi = theory.n_item(b, n)
        np.testing.assert_allclose(slope, n * (pi - ps) / (1 - b), rtol=1e-6, atol=1e-7)


def test_n_item_optimum_and_small_b_values_from_the_paper():
    for n, expected in [(2, 0.5), (3, 0.377), (4, 0.302), (10, 0.137), (100, 0.0149)]:
        res = minimize_scalar(lambda b: -theory.n_item(b, n)[0], bounds=(0, 1),
                              method="bounded", options={"xatol": 1e-8})
        assert res.x == pytest.approx(expected, abs=6e-4)
    ns = np.arange(2, 60)
    ps = theory.n_item(0.05, ns)[0]
    assert ps[0] == pytest.approx(0.5475)
    assert ns[np.argmin(ps[:20])] == 5 and ps.min() == pytest.approx(0.369, abs=1e-3)


def test_n_item_optimum_is_where_generalization_peaks_on_the_diagonal():
    for n, expected in [(2, 0.5), (3, 0.377), (4, 0.302), (10, 0.137), (100, 0.0149)]:
        b = theory.n_item_optimum(n)
        assert b == pytest.approx(expected, rel=5e-3)
        ps, pi = theory.n_item(b, n)
        assert ps == pytest.approx(pi, abs=1e-6)  # chapter 2's identity at the optimum
        assert ps >= theory.n_item(b * 1.01, n)[0] and ps >= theory.n_item(b * 0.99, n)[0]


def test_poisson_limit_is_the_limit_of_theorem3():
    """n -> infinity with n b = lam fixed: Theorem 3 at large n approaches the limit, and p_S
    matches its integral form by quadrature."""
    from scipy.integrate import quad

    for lam in (0.3, 1.5, 4.0):
        ps, pi = theory.poisson_limit(lam)
        integral = quad(lambda t: (np.exp(lam * t) - 1) / t, 0, 1)[0]
        assert ps == pytest.approx(np.exp(-lam) * integral, rel=1e-12)
        assert pi == pytest.approx((1 - np.exp(-lam)) / lam, rel=1e-14)
        assert theory.n_item(lam / 20_000, 20_000) == pytest.approx((ps, pi), rel=1e-3)


def test_n_item_broadcasts_with_varying_n():
    ns = np.array([2, 3, 10, 50])
    ps, pi = theory.n_item(np.full((3, 1), 0.2), ns, 0.1)
    assert ps.shape == pi.shape == (3, 4)
    for j, n in enumerate(ns):
        assert ps[1, j] == pytest.approx(theory.n_item(0.2, int(n), 0.1)[0], abs=1e-12)


# --- Proposition 1 ------------------------------------------------------------------------

def _linear_circle_by_quadrature(eps: float, grid: int = 2000) -> tuple[float, float]:
    """Midpoint rule over the probe-item distances a, a' ~ U[0, 1/2]."""
    a = (np.arange(grid) + 0.5) / grid / 2
    g = np.maximum(0, 1 - a / eps)
    ga, gb = g[:, None], g[None, :]
    near = np.where(a[:, None] < a[None, :], ga, gb)
    tot = ga + gb
    ps = np.where(tot > 0, near / np.where(tot > 0, tot, 1), 0.5).mean()
    pi = (1 / (1 + g)).mean()
    return ps, pi


@pytest.mark.parametrize("eps", [0.05, 0.2, 0.31, 0.5])
def test_linear_circle_matches_quadrature(eps):
    assert theory.linear_circle(2 * eps) == pytest.approx(_linear_circle_by_quadrature(eps),
                                                          abs=2e-5)


def test_linear_circle_peak():
    bstar = 1 / (3 - 2 * math.log(2))
    ps, pi = theory.linear_circle(bstar)
    assert ps == pytest.approx(pi) and ps == pytest.approx(0.810, abs=1e-3)


# --- Validation ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: theory.two_item(-0.1), "b"),
    (lambda: theory.two_item(1.1), "b"),
    (lambda: theory.two_item(float("nan")), "b"),
    (lambda: theory.two_item(0.5, delta=-0.1), "delta"),
    (lambda: theory.two_item(0.5, var_b=0.26), "var_b"),
    (lambda: theory.two_item(0.5, var_b=-0.01), "var_b"),
    (lambda: theory.two_item([0.1, 0.5], var_b=0.1), "var_b"),
    (lambda: theory.n_item(0.5, 1), "n"),
    (lambda: theory.n_item(0.5, 2.5), "n"),
    (lambda: theory.n_item(0.5, "3"), "n"),
    (lambda: theory.n_item(0.5, True), "n"),
    (lambda: theory.n_item(1.5, 3), "b"),
    (lambda: theory.n_item(0.5, 3, -1), "delta"),
    (lambda: theory.linear_circle(1.2), "b"),
    (lambda: theory.linear_circle(-0.2), "b"),
    (lambda: theory.front(0.4), "p_i"),
    (lambda: theory.front(1.01), "p_i"),
    (lambda: theory.two_item(0.5, tau=1.5), "tau"),
    (lambda: theory.two_item(0.5, tau=-0.1), "tau"),
    (lambda: theory.n_item_optimum(1), "n"),
    (lambda: theory.poisson_limit(0.0), "lam"),
    (lambda: theory.poisson_limit(-1.0), "lam"),
])
def test_invalid_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


def test_integral_float_n_is_accepted():
    assert theory.n_item(0.3, 4.0) == pytest.approx(theory.n_item(0.3, 4))
