"""semres.experiments.frontier.settings: typed profiles and their consistency check."""

import pytest

from semres.core import profiles
from semres.experiments.frontier import settings


def test_profiles_are_typed_and_the_design_is_shared():
    quick = profiles.settings(settings.SETTINGS, "quick", mc_trials=7)
    assert isinstance(quick, settings.FrontierSettings) and quick.trials == 7
    assert quick.deltas == settings.PAPER.deltas == (0.01, 0.05, 0.2)
    assert [k for k, _ in quick.slot_jobs] == [1, 2, 2, 2, 4, 4, 4]


@pytest.mark.parametrize("change, named", [
    (dict(qp_grid=100), "qp_grid"), (dict(scan=2), "scan"), (dict(many_K=12), "many_K"),
    (dict(frontier_n=(4, 8)), "frontier_n"), (dict(cycle_sizes=(8, 8, 16)), "cycle_sizes")])
def test_contradictory_settings_are_named(change, named):
    with pytest.raises(ValueError, match=named):
        settings.check(settings.DEFAULT.replace(**change), "07_front_universality")
