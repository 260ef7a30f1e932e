"""semres.experiments.slots.slots: the slot codes' closed forms and the max code's wrong
preferences."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semres.core import theory
from semres.experiments.frontier import slots


@pytest.mark.parametrize("K", [1, 2, 4])
def test_slot_codes_closed_forms(K):
    b = 0.3
    assert slots.slot_match("max", b, K) == pytest.approx(1 - (1 - b) ** K)
    assert slots.slot_match("product", b, K) == pytest.approx(b**K)
    for comb in ("max", "product"):
        assert slots.slot_identification(comb, b, K) == pytest.approx(
            1 - slots.slot_match(comb, b, K) / 2)
    if K == 1:  # one slot: every code is the circle's constant kernel, and sorted it is Theorem 1
        assert slots.slot_identification("mean", b, K) == pytest.approx(1 - b / 2)
        assert slots.sorted_mean_code(b, K) == pytest.approx(float(theory.front(1 - b / 2)))
    with pytest.raises(ValueError, match="comb"):  # not read as the product code
        slots.slot_match("mean", b, K)


def test_the_max_codes_wrong_preferences_vanish_with_one_slot():
    rng = np.random.default_rng(0)
    assert slots.wrong_preference(1, 0.15, 20_000, rng) == 0.0  # one slot orders exactly
    assert slots.wrong_preference(4, 0.15, 20_000, rng) > 0.01


def test_heights_read_each_cell_against_the_front_and_pick_the_highest():
    sweep = pd.DataFrame({"K": [4, 4, 2], "combine": ["mean", "mean", "max"],
                          "p_i": [0.9, 0.8, 0.9], "p_s": [0.6, 0.7, 0.55],
                          "se_s": [0.01, 0.01, 0.01]})
    out, best = slots.heights(sweep)
    np.testing.assert_allclose(out.above, sweep.p_s - theory.front(sweep.p_i))
    np.testing.assert_allclose(out.above_z, out.above / 0.01)
    assert best.loc[(4, "mean")].p_i == 0.8 and "above" not in sweep.columns
