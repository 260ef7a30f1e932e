"""The engine on compositional stimuli: slot-wise similarities combined by max, product or
mean, against Theorem 1 (one slot) and the closed-form identification rates."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from semres.core import kernels, spaces, theory
from semres.experiments.frontier import slots as slot_codes
from semres.core.simulate import luce_success

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


@pytest.mark.parametrize("slots", [2, 4])
def test_a_binary_code_lies_below_the_front_by_its_wrong_choices(slots):
    # chapter 7's proposition: a 0/1 similarity with probe-independent match measure B has
    # p_I = 1 - B/2 and p_S = front(p_I) - w, w = P(exactly one matches and it is the farther)
    b, trials = 0.3, TRIALS
    kern = kernels.Slotwise(kernels.Constant(b / 2), "max")
    space = spaces.Slots(slots)
    est = luce_success(space, kern, "similarity", 2, trials, seed=20 + slots)
    big_b = slot_codes.slot_match("max", b, slots)
    w = slot_codes.wrong_preference(slots, b / 2, trials, np.random.default_rng(30 + slots))
    predicted = theory.front(1 - big_b / 2) - w
    se = np.hypot(est.stderr, np.sqrt(w * (1 - w) / trials))
    assert w > 0.01 and abs(est.mean - predicted) < 5 * se, (est, predicted)


def test_the_mean_code_stays_below_its_values_sorted_by_distance():
    # p_S <= sum_jk P_j P_k max(j, k) / (j + k) (1/2 on ties): the best order of its values
    slots, b = 4, 0.3
    bound = slot_codes.sorted_mean_code(b, slots)
    kern = kernels.Slotwise(kernels.Constant(b / 2), "mean")
    est = luce_success(spaces.Slots(slots), kern, "similarity", 2, TRIALS, seed=41)
    assert est.mean < bound - 5 * est.stderr  # the count of matches orders items only roughly
