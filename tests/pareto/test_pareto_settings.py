"""semres.experiments.pareto.settings: the check's design and the profiles' consistency."""

import numpy as np
import pytest

from semres.core import profiles
from semres.experiments.pareto import settings


def test_the_grids_cover_both_sides_of_the_optimum_and_the_discrete_radii():
    cfg = settings.DEFAULT
    for name in ("circle", "segment"):
        b = 2 * np.array(cfg.eps[name])
        assert b.min() < 0.5 < b.max()
    assert cfg.tie_eps in cfg.eps["discrete"] and 0.0 in cfg.deltas


def test_profiles_are_typed_and_checked():
    cfg = profiles.settings(settings.SETTINGS, "quick", mc_trials=7)
    assert isinstance(cfg, settings.ParetoSettings) and cfg.trials == 7
    with pytest.raises(ValueError, match="discrete_points"):
        settings.check(settings.PAPER.replace(discrete_grid=7), "01_pareto_front")
    with pytest.raises(ValueError, match="tie_eps"):
        settings.check(settings.DEFAULT.replace(tie_eps=3.0), "01_pareto_front")
