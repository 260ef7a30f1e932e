"""The engine on compositional stimuli: slot-wise similarities combined by max, product or
mean, against Theorem 1 (one slot) and the closed-form identification rates."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from semres import kernels, spaces, theory
from semres.simulate import luce_success

TRIALS = 200_000


@pytest.mark.parametrize("combine", ["max", "product", "mean"])
def test_one_slot_is_the_circle(combine):
    kern = kernels.Slotwise(kernels.Constant(0.15), combine)
    ps, pi = theory.two_item(0.3)
    for task, exact, seed in (("similarity", ps, 1), ("identification", pi, 2)):
        est = luce_success(spaces.Slots(1), kern, task, 2, TRIALS, seed=seed)
        assert abs(est.zscore(exact)) < 5, (task, est, exact)


@pytest.mark.parametrize("slots", [2, 4])
@pytest.mark.parametrize("combine", ["max", "product", "mean"])
def test_identification_closed_forms(slots, combine):
    b = 0.3  # per-slot ball measure, eps = 0.15
    if combine == "mean":  # the other item matches J ~ Bin(slots, b) slots: share 1/(1 + J/K)
        j = np.arange(slots + 1)
        exact = float((binom.pmf(j, slots, b) / (1 + j / slots)).sum())
    else:  # a constant kernel on the set "any slot matches" or "every slot matches"
        big_b = 1 - (1 - b) ** slots if combine == "max" else b**slots
        exact = theory.two_item(big_b)[1]
    kern = kernels.Slotwise(kernels.Constant(b / 2), combine)
    est = luce_success(spaces.Slots(slots), kern, "identification", 2, TRIALS, seed=slots)
    assert abs(est.zscore(exact)) < 5, (est, exact)


def test_similarity_is_judged_on_the_combined_distance():
    # a kernel that only sees slot 0 cannot find the nearest item by the mean of two slots:
    # it is right exactly when slot 0 orders the pair as the mean does, less than always
    kern = lambda d: np.exp(-d[..., 0] / 0.01)  # noqa: E731
    est = luce_success(spaces.Slots(2), kern, "similarity", 2, TRIALS, seed=7)
    assert 0.6 < est.mean < 0.9


def test_slots_shapes_and_validation():
    rng = np.random.default_rng(0)
    d = spaces.Slots(3).distances(rng, 2, 5)
    assert d.shape == (2, 5, 3) and d.dtype == np.float32 and d.max() <= 0.5
    g = kernels.Slotwise(kernels.Constant(0.1), "product")(d)
    assert g.shape == (2, 5) and g.dtype == np.float32
    with pytest.raises(ValueError, match="slots"):
        spaces.Slots(0)
    with pytest.raises(ValueError, match="combine"):
        kernels.Slotwise(kernels.Constant(0.1), "min")
    with pytest.raises(ValueError, match="kernel"):
        kernels.Slotwise(0.1)
    with pytest.raises(ValueError, match="kernel must return"):
        luce_success(spaces.Slots(2), lambda d: d, "similarity", 2, 1000, seed=0)
