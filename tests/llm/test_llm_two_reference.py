"""semres.experiments.llm.two_reference: the paper's two-reference curve, its fit recovering a
known scale with an interval over centres, and the chance crossover."""

import math

import numpy as np
import pandas as pd
import pytest

from semres.core import kernels
from semres.experiments.llm import two_reference


def synthetic_two_reference(lam, floor, centres=30, prompts=20, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for D in (5, 20, 50, 100):
        for c in range(centres):
            off = np.arange(-300, 300, 10.0)
            p = two_reference.two_reference(off, D, kernels.Exponential(lam, floor))
            k = rng.binomial(prompts, p)
            rows.append(pd.DataFrame({"centre": float(c), "D": float(D), "offset": off,
                                      "trials": float(prompts), "correct": k.astype(float)}))
    return pd.concat(rows, ignore_index=True)


def test_two_reference_is_the_paper_curve():
    lam, floor, D = 30.0, 0.05, 50.0
    off = np.arange(-300, 300, 5.0)
    got = two_reference.two_reference(off, D, kernels.Exponential(lam, floor))
    a = np.abs(off)
    near = np.exp(-np.abs(a - D) / lam) + floor
    want = near / (near + np.exp(-(a + D) / lam) + floor)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert two_reference.two_reference(0, D, kernels.Exponential(lam, floor)) == pytest.approx(
        0.5)
    # no floor: constant 1 / (1 + e^(-2D/lambda)) beyond the references
    beyond = two_reference.two_reference(off[np.abs(off) > D], D, kernels.Exponential(lam))
    np.testing.assert_allclose(beyond, 1 / (1 + np.exp(-2 * D / lam)), rtol=1e-9)


def test_the_offset_curve_averages_centres_and_prompts():
    mass = np.arange(2 * 3 * 4, dtype=float)  # (centre, offset, prompt) order
    curve = two_reference.offset_curve(mass, model="m", D=20, offsets=[-40, 0, 35],
                                       n_centres=2, kernel=kernels.Exponential(30.0, 0.05))
    cube = mass.reshape(2, 3, 4)
    np.testing.assert_allclose(curve.p_correct, cube.mean(axis=(0, 2)))
    assert list(curve.offset) == [-40, 0, 35] and (curve.D == 20).all()
    fit = {"lambda": 30.0, "floor": 0.05}
    np.testing.assert_allclose(two_reference.fitted_curve(curve, fit), curve.p_kernel)


def test_fit_two_reference_recovers_a_known_scale():
    counts = synthetic_two_reference(30.0, 0.05)
    fit = two_reference.fit_two_reference(counts, 40, 1)
    truth = 30 * math.log(1 / 0.05)
    assert fit["lambda"] == pytest.approx(30, rel=0.15)
    assert fit["ci_low"] < truth < fit["ci_high"]
    # resolution is the return-to-chance distance; the half-decay comes beside it
    assert fit["chance_return"] == fit["resolution"] == pytest.approx(
        fit["lambda"] * math.log(1 / fit["floor"]))
    assert fit["half_decay"] == pytest.approx(fit["lambda"] * math.log(2))
    assert fit["half_decay"] == pytest.approx(30 * math.log(2), rel=0.15)
    assert fit["half_decay_ci_low"] < fit["half_decay"] < fit["half_decay_ci_high"]
    assert fit["chance_return_ci_low"] == fit["ci_low"]
    assert not fit["at_bound"] and fit["centres"] == 30
    again = two_reference.fit_two_reference(counts, 40, 1)
    assert again["ci_low"] == fit["ci_low"]  # seeded
    with pytest.raises(ValueError, match="columns"):
        two_reference.fit_two_reference(counts.drop(columns="centre"), 5, 0)


def test_chance_crossover_is_near_the_floor_resolution():
    """Where e^(-x/lambda) sinks to the floor, the preference is lost; with no floor it never is."""
    counts = synthetic_two_reference(20.0, 0.05, centres=40)
    cross = two_reference.chance_crossover(counts, 30, 2)
    assert not cross["at_bound"]
    assert 20 <= cross["resolution"] <= 3 * 20 * math.log(20)
    never = two_reference.chance_crossover(synthetic_two_reference(30.0, 1e-9), 10, 2)
    assert never["at_bound"] and "upper" in never["bound_params"]
