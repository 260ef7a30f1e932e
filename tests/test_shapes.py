"""Exact two-item integrals of the similarity families on the circle, against the paper's
closed forms, independent scipy quadrature and the Monte Carlo engine."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import dblquad, quad
from scipy.special import expit

from semres.core import shapes, spaces, theory
from semres.core.simulate import luce_success

Z_MAX = 5.0


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.25, 0.4, 0.5, 0.8])
@pytest.mark.parametrize("delta", [0.0, 0.2])
def test_constant_family_is_theorem2(eps, delta):
    got = shapes.circle_two_item(shapes.Family("constant", eps, delta))
    np.testing.assert_allclose(got, theory.two_item(min(2 * eps, 1), delta), atol=1e-12)


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.3, 0.5])
def test_linear_family_is_proposition1(eps):
    got = shapes.circle_two_item(shapes.Family("linear", eps))
    np.testing.assert_allclose(got, theory.linear_circle(2 * eps), atol=1e-11)


@pytest.mark.parametrize("lam", [0.003, 0.05, 0.4])
@pytest.mark.parametrize("delta", [0.0, 0.1])
def test_exponential_identification_closed_form(lam, delta):
    _, p_i = shapes.circle_two_item(shapes.Family("exponential", lam, delta))
    # 2 int_0^{1/2} dd / (1 + delta + (1 - delta) e^{-d/lam}), integrated by hand
    log_term = math.log(((1 + delta) + (1 - delta) * math.exp(-1 / (2 * lam))) / 2) \
        + 1 / (2 * lam)
    assert p_i == pytest.approx(2 * lam / (1 + delta) * log_term, abs=1e-12)


@pytest.mark.parametrize("lam", [0.002, 0.05, 0.5])
def test_exponential_without_floor_similarity_is_a_one_dimensional_integral(lam):
    # without a floor the share depends on d2 - d1 only: p_S = 8 int (1/2 - u) sigma(u / lam)
    ref = 8 * quad(lambda u: (0.5 - u) * expit(u / lam), 0, 0.5, points=[lam, 10 * lam],
                   epsabs=1e-13, limit=200)[0]
    assert shapes.circle_two_item(shapes.Family("exponential", lam))[0] == \
        pytest.approx(ref, abs=1e-10)


@pytest.mark.parametrize("family, scale, delta", [("gaussian", 0.1, 0.1),
                                                  ("exponential", 0.08, 0.05),
                                                  ("linear", 0.3, 0.2)])
def test_families_match_scipy_dblquad(family, scale, delta):
    kern = shapes.Family(family, scale, delta)
    g = lambda d: float(kern(np.array(d)))  # noqa: E731
    ref = 8 * dblquad(lambda d1, d2: g(d1) / (g(d1) + g(d2)), 0, 0.5, 0, lambda d2: d2,
                      epsabs=1e-11)[0]
    assert shapes.circle_two_item(kern)[0] == pytest.approx(ref, abs=2e-8)


@pytest.mark.parametrize("family, scale, delta", [("gaussian", 0.08, 0.0),
                                                  ("gaussian", 0.2, 0.1),
                                                  ("exponential", 0.03, 0.0),
                                                  ("exponential", 0.1, 0.2),
                                                  ("linear", 0.2, 0.1)])
def test_families_match_the_engine(family, scale, delta):
    kern = shapes.Family(family, scale, delta)
    p_s, p_i = shapes.circle_two_item(kern)
    for task, exact, seed in (("similarity", p_s, 1), ("identification", p_i, 2)):
        est = luce_success(spaces.Circle(), kern, task, 2, 300_000, seed=seed)
        assert abs(est.zscore(exact)) < Z_MAX, (task, est, exact)


def test_no_floor_no_tradeoff_and_a_floor_caps_identification():
    for family in ("exponential", "gaussian"):
        p_s, p_i = shapes.circle_two_item(shapes.Family(family, 1e-4))
        assert p_s > 0.999 and p_i > 0.999
        p_s, p_i = shapes.circle_two_item(shapes.Family(family, 1e-4, 0.1))
        assert p_i <= 1 / 1.1 + 1e-12 and p_s < 0.51


def test_family_kernel_keeps_float32_and_hits_one_at_zero():
    kern = shapes.Family("gaussian", 0.1, 0.3)
    out = kern(np.zeros(3, dtype=np.float32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, 1.0)
    assert kern(np.array([10.0]))[0] == pytest.approx(0.3)


@pytest.mark.parametrize("kwargs, name", [
    ({"family": "cauchy", "scale": 0.1}, "family"),
    ({"family": "linear", "scale": 0.0}, "scale"),
    ({"family": "linear", "scale": 0.1, "delta": 1.5}, "delta"),
])
def test_validation_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        shapes.Family(**kwargs)
    with pytest.raises(ValueError, match="kernel"):
        shapes.circle_two_item(lambda d: d)
