"""semres.experiments.families.families: the floor proposition's bound against every family."""

from __future__ import annotations

import pytest

from semres.core import shapes
from semres.experiments.frontier import families, verdicts


def test_floor_bound_is_chance_at_the_ceiling_and_above_every_family():
    for delta in (0.05, 0.2):
        assert families.floor_bound(1 / (1 + delta), delta) == pytest.approx(0.5)
        top = 0.5 + 0.5 * (1 - delta) / (1 + delta)  # m = 1 - delta: the bound at chance p_I
        assert families.floor_bound(0.5, delta) == pytest.approx(top)
        for fam in shapes.FAMILIES:
            for scale in (0.01, 0.1, 0.4):
                p_s, p_i = shapes.circle_two_item(shapes.Family(fam, scale, delta))
                assert p_s <= families.floor_bound(p_i, delta) + verdicts.ROUNDING
