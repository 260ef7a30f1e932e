"""Theorem 3 fitted across n, with and without its floor (semres.core.nsweep)."""

import numpy as np
import pandas as pd
import pytest

from semres.core import theory
from semres.core.fits import misfit_size
from semres.core.nsweep import fit_theorem3

NS = np.array([2, 3, 4, 6, 8, 12])


def _answers(b, delta, trials, seed):
    rng = np.random.default_rng(seed)
    p_s, p_i = theory.n_item(b, NS, delta)
    return pd.DataFrame([{"task": task, "n": n, "trials": trials,
                          "correct": rng.binomial(trials, p)}
                         for task, rates in (("similarity", p_s), ("identification", p_i))
                         for n, p in zip(NS, rates)])


def test_the_floored_fit_recovers_b_and_delta_within_its_intervals():
    # answers drawn from Theorem 3 with a floor: the profile intervals cover the truth in
    # about 95 % of data sets (20 sets: at least 15 is far inside the binomial spread of 19)
    covered = 0
    for seed in range(20):
        fit = fit_theorem3(_answers(0.2, 0.3, 400, seed), floor=True)
        covered += (fit["b_ci"][0] <= 0.2 <= fit["b_ci"][1]
                    and fit["delta_ci"][0] <= 0.3 <= fit["delta_ci"][1])
        assert fit["b_ci"][0] <= fit["b"] <= fit["b_ci"][1]
    assert covered >= 15


def test_the_floor_free_form_misses_answers_with_a_floor_and_says_by_how_much():
    cells = _answers(0.2, 0.3, 400, 1)
    floored, free = fit_theorem3(cells, floor=True), fit_theorem3(cells, floor=False)
    assert not floored["misfit"] and free["misfit"]
    assert free["delta"] == 0 and free["df"] == floored["df"] + 1
    assert free["dispersion"] > 3 > floored["dispersion"]  # sampling alone gives about 1
    assert free["rms_gap"] > 2 * free["rms_sampling"]
    assert floored["rms_gap"] < 1.5 * floored["rms_sampling"]
    table = floored["table"]
    assert np.allclose(table.theory, np.where(
        table.task == "similarity", *theory.n_item(floored["b"], table.n, floored["delta"])),
        atol=1e-9)


def test_the_bootstrap_reference_carries_its_null_mean():
    cells = _answers(0.2, 0.3, 6, 2)  # sparse cells: no chi-square reference
    fit = fit_theorem3(cells, floor=True, gof_boot=40, seed=np.random.SeedSequence(3))
    assert "parametric bootstrap" in fit["gof_test"]
    assert fit["dispersion"] == pytest.approx(fit["deviance"] / fit["gof_null_mean"])


def test_misfit_size_is_one_for_sampling_alone_and_grows_with_the_miss():
    rng = np.random.default_rng(0)
    p = np.linspace(0.3, 0.9, 40)
    t = np.full(40, 500.0)
    k = rng.binomial(500, p).astype(float)
    from semres.core.fits import binomial_deviance
    chance = np.full(40, 0.5)
    size = misfit_size(binomial_deviance(t, k, p), binomial_deviance(t, k, chance), 40.0,
                       k / t, p, t)
    assert 0.6 < size["dispersion"] < 1.5 and size["explained_saturated"] > 0.95
    assert size["rms_gap"] == pytest.approx(size["rms_sampling"], rel=0.3)
    off = np.clip(p + 0.08, 0, 1)
    worse = misfit_size(binomial_deviance(t, k, off), binomial_deviance(t, k, chance), 40.0,
                        k / t, off, t)
    assert worse["dispersion"] > 5 and worse["rms_gap"] > 3 * worse["rms_sampling"]


@pytest.mark.parametrize("change, word", [
    (lambda c: c.drop(columns="trials"), "cells"),
    (lambda c: c.assign(task="other"), "task"),
    (lambda c: c.assign(n=1), "n must"),
    (lambda c: c.assign(correct=c.trials + 1), "correct"),
    (lambda c: c.iloc[:2], "degrees of freedom"),
])
def test_bad_cells_are_refused_by_name(change, word):
    with pytest.raises(ValueError, match=word):
        fit_theorem3(change(_answers(0.2, 0.3, 50, 0)))
