"""semres.experiments.llm.kernel_fits: each shape recovers the kernel that made the data, reports
its bounds, refuses a curve that is not a kernel, and holds still across windows only when the
data reach a floor."""

import math

import numpy as np
import pytest

from semres.core import kernels
from semres.experiments.llm import kernel_fits, language, two_reference


def noisy_profile(true, d, units=40, noise=0.002, seed=1):
    """A KernelProfile whose units scatter around log g = log(true) * T (known kernel)."""
    rng = np.random.default_rng(seed)
    cos = language.TEMPERATURE * np.log(true)[None] + noise * rng.standard_normal((units, d.size))
    cos -= cos[:, :1]  # g(0) = 1 per unit, as measure_kernel makes it
    return language.KernelProfile(d, cos, np.ones_like(cos))


def test_the_exponential_with_a_floor_recovers_its_parameters():
    rng = np.random.default_rng(0)
    d = np.arange(0, 600.0)
    g = 0.2 * (np.exp(-d / 40) + 0.05) * (1 + 0.01 * rng.standard_normal(d.size))
    fit = kernel_fits.fit_shape(d, g, "exp_floor")
    assert fit["lambda"] == pytest.approx(40, rel=0.05)
    assert fit["floor"] == pytest.approx(0.05, rel=0.05)
    assert fit["resolution"] == pytest.approx(fit["lambda"] * math.log(1 / fit["floor"]))
    assert fit["chance_return"] == fit["resolution"]
    assert fit["half_decay"] == pytest.approx(fit["lambda"] * math.log(2))
    with pytest.raises(ValueError, match="at least 5"):
        kernel_fits.fit_shape(d[:3], g[:3], "exp_floor")


def test_bootstrap_interval_covers_the_truth():
    rng = np.random.default_rng(1)
    d = np.arange(0, 301)
    true = np.exp(-d / 25) + 0.1
    units = 40
    cos = 0.05 * np.log(true)[None] + 0.002 * rng.standard_normal((units, d.size))
    prof = language.KernelProfile(d, cos, np.ones_like(cos))
    row = kernel_fits.resolution_by_window(prof, [300], 60, 2, temperature=0.05).iloc[0]
    assert row.ci_low < 25 * math.log(10) < row.ci_high
    again = kernel_fits.resolution_by_window(prof, [300], 60, 2, temperature=0.05).iloc[0]
    assert again.equals(row)  # seeded: the same interval, row for row


def test_measured_kernel():
    k = kernel_fits.MeasuredKernel([0, 10, 20], [1.0, 0.5, 0.25])
    np.testing.assert_allclose(k(np.array([0.0, 5.0, 15.0, 40.0])), [1, 0.75, 0.375, 0.25])
    with pytest.raises(ValueError, match="similarity"):
        kernel_fits.MeasuredKernel([0, 1], [1.0, -1.0])


def test_a_fit_refuses_a_p_correct_curve_and_a_flat_one():
    """A two-reference P(correct) curve against signed offsets is not a kernel; a similarity
    that does not decay with distance (flat, or rising) is refused by the trend test."""
    off = np.arange(-300, 300, 5.0)
    p = two_reference.two_reference(off, 50, kernels.Exponential(30.0, 0.05))
    with pytest.raises(ValueError, match="distance"):
        kernel_fits.fit_shape(off, p, "exp_floor")
    rng = np.random.default_rng(3)
    d = np.arange(0, 300.0)
    flat = 0.5 + 0.01 * rng.standard_normal(d.size)
    with pytest.raises(ValueError, match="does not decay"):
        kernel_fits.fit_shape(d, flat, "exp_floor")
    with pytest.raises(ValueError, match="does not decay"):
        kernel_fits.fit_shape(d, 0.1 + d / 300, "power_floor")
    fit = kernel_fits.fit_shape(d, np.exp(-d / 30) + 0.05, "exp_floor")  # a real kernel passes
    assert fit["lambda"] == pytest.approx(30, rel=1e-3)
    assert fit["decays"] and fit["trend_slope"] < 0 and fit["trend_ci_high"] < 0


def test_one_noisy_bin_no_longer_stops_a_decaying_kernel():
    """The binned kernel of a causal LM: 13 bins, log g relative to the first, one of the near
    bins above it by noise. The old rule (the first tenth must be the largest) refused it;
    the trend test, with the bins' standard errors, finds the decay and the fit runs."""
    d = np.array([0, 1.2, 3.5, 7.5, 15, 27, 47, 80, 125, 185, 270, 385, 550])
    g = np.exp(-d / 20) + 0.05
    g = g / g[0]
    g[2] = 1.25  # one noisy bin above the reference
    se = np.r_[0.0, np.full(d.size - 1, 0.15)] * g
    blocks = [b.mean() for b in np.array_split(g, 10)]
    assert not all(blocks[0] > b for b in blocks[1:])  # what the old gate refused
    tr = kernel_fits.decay_trend(d, g, se=se)
    assert tr["decays"] and tr["direction"] == "decays" and tr["p_value"] < 0.01
    fit = kernel_fits.fit_shape(d, g, "exp_floor", se=se)
    assert fit["decays"] and np.isfinite(fit["resolution"])


def test_the_trend_test_holds_its_level_on_a_flat_kernel_and_finds_a_real_decay():
    """Size and power of the one-sided test at 5 %, with standard errors known: on a flat
    kernel it says "decays" in about 5 % of draws, on a shallow decay in most."""
    rng = np.random.default_rng(7)
    d = np.array([0, 1.2, 3.5, 7.5, 15, 27, 47, 80, 125, 185, 270, 385, 550])
    rel = 0.2
    found = {}
    for name, truth in (("flat", np.ones(d.size)), ("decays", np.exp(-d / 200) + 0.4)):
        hits = 0
        for _ in range(400):
            g = truth * np.exp(rel * rng.standard_normal(d.size))
            hits += kernel_fits.decay_trend(d, g, se=rel * g)["decays"]
        found[name] = hits / 400
    # Monte Carlo error of a share over 400 draws at 5 %: 0.011
    assert found["flat"] < 0.085 and found["decays"] > 0.8, found


def test_two_trend_findings_agree_or_contradict():
    yes = {"decays": True, "direction": "decays", "estimate": -0.2, "ci_low": -0.3,
           "ci_high": -0.1, "p_value": 0.001}
    vague = {"decays": False, "direction": "undecided", "estimate": -0.05, "ci_low": -0.2,
             "ci_high": 0.1, "p_value": 0.2}
    up = {"decays": False, "direction": "rises", "estimate": 0.2, "ci_low": 0.1,
          "ci_high": 0.3, "p_value": 0.99}
    assert kernel_fits.trend_agreement(yes, yes)["agree"]
    a = kernel_fits.trend_agreement(yes, vague)
    assert not a["agree"] and not a["contradict"]
    b = kernel_fits.trend_agreement(up, yes)
    assert not b["agree"] and b["contradict"]


@pytest.mark.parametrize("shape", list(kernel_fits.SHAPES))
def test_each_shape_recovers_its_own_resolution(shape):
    d = np.arange(0, 601.0)
    params = {"exp_floor": {"lambda": 25.0, "floor": 0.02},
              "two_exp_floor": {"lambda": 5.0, "lambda2": 80.0, "weight": 0.3, "floor": 0.01},
              "power_floor": {"lambda": 10.0, "beta": 1.5, "floor": 0.01},
              "stretched_floor": {"lambda": 20.0, "beta": 0.7, "floor": 0.01}}[shape]
    g = 0.3 * (kernel_fits.graded(shape, d, params) + params["floor"])
    fit = kernel_fits.fit_shape(d, g, shape)
    assert fit["resolution"] == pytest.approx(kernel_fits.shape_chance_return(shape, params),
                                              rel=0.02)
    assert fit["chance_return"] == fit["resolution"]
    half = kernel_fits.shape_half_decay(shape, params)
    assert fit["half_decay"] == pytest.approx(half, rel=0.02)
    graded = kernel_fits.graded(shape, np.array([0.0, half]), params)
    assert graded[1] == pytest.approx(graded[0] / 2, rel=1e-4)  # the graded part halves there
    assert not fit["at_bound"]


def test_fit_bounds_are_reported():
    """A kernel with a floor pins nothing; a pure power law (no floor) pins the floor's bound."""
    d = np.arange(0, 601.0)
    with_floor = kernel_fits.fit_shape(d, np.exp(-d / 25) + 0.02, "exp_floor")
    assert not with_floor["at_bound"] and with_floor["bound_params"] == ""
    no_floor = kernel_fits.fit_shape(d, (1 + d) ** -1.2, "power_floor")
    assert no_floor["at_bound"] and "floor=lower" in no_floor["bound_params"]


def test_resolution_is_stable_across_windows_on_a_known_kernel():
    """exp + floor, true resolution 25 ln(1/0.05) = 74.9: every window 300-600 recovers it, the
    interval covers it, and the spread across windows is smaller than the interval."""
    d = np.arange(0, 601)
    true = np.exp(-d / 25) + 0.05
    prof = noisy_profile(true, d)
    table = kernel_fits.resolution_by_window(prof, [100, 300, 400, 500, 600], 30, 3,
                                             shapes=("exp_floor",))
    upper = table[table.window >= 300]
    assert ((upper.ci_low < 25 * math.log(20)) & (upper.ci_high > 25 * math.log(20))).all()
    st = kernel_fits.window_stability(table, [300, 400, 500, 600])
    assert st["stable"] and not st["censored"]
    assert not table.misfit.any()  # the right shape describes the kernel in every window
    # a kernel with no floor in the data: the fitted resolution grows with the window
    drift = kernel_fits.resolution_by_window(noisy_profile((1 + d / 10.0) ** -1.5, d),
                                             [300, 400, 500, 600], 10, 3, shapes=("exp_floor",))
    assert not kernel_fits.window_stability(drift, [300, 400, 500, 600])["stable"]
    assert drift.misfit.all()  # and an exponential does not describe a power law


def test_compare_shapes_picks_the_true_shape():
    d = np.arange(0, 401)
    true = np.exp(-d / 5) + 0.3 * np.exp(-d / 80) + 0.01
    prof = noisy_profile(true, d, noise=0.001)
    table = kernel_fits.compare_shapes(prof, folds=4, seed=0)
    assert table.sort_values("heldout_rmse")["shape"].iloc[0] == "two_exp_floor"
