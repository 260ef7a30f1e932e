"""semres.experiments.frontier.settings: typed profiles and their consistency check."""

import pytest

from semres.core import profiles
from semres.experiments.frontier import branch, settings


def test_profiles_are_typed_and_the_design_is_shared():
    quick = profiles.settings(settings.SETTINGS, "quick", mc_trials=7)
    assert isinstance(quick, settings.FrontierSettings) and quick.trials == 7
    assert quick.deltas == settings.PAPER.deltas == (0.01, 0.05, 0.2)
    assert [k for k, _ in quick.slot_jobs] == [1, 2, 2, 2, 4, 4, 4]
    # the n-item floor section: its design is shared, its sizes grow with the profile
    assert quick.floor_ns == settings.DEFAULT.floor_ns == settings.PAPER.floor_ns == (4, 8)
    assert quick.floor_scaling_n == settings.PAPER.floor_scaling_n
    assert [(c.floor_grid, c.floor_starts, c.floor_random) for c in
            (settings.QUICK, settings.DEFAULT, settings.PAPER)] == [
        (40, 0, 600), (40, 1, 3000), (240, 4, 20_000)]
    # the certificate: the paper profile tries every target, with the largest budget
    assert [(c.floor_certify, c.floor_nodes) for c in
            (settings.QUICK, settings.DEFAULT, settings.PAPER)] == [
        (1, 150), (3, 500), (settings.PAPER.targets, 300_000)]
    # and tries again at rank 10 the points rank 9 (the projection's default) leaves open
    assert settings.QUICK.floor_ranks == settings.DEFAULT.floor_ranks == (branch.MAX_RANK,)
    assert settings.PAPER.floor_ranks == (branch.MAX_RANK, branch.MAX_RANK + 1)


@pytest.mark.parametrize("change, named", [
    (dict(qp_grid=100), "qp_grid"), (dict(scan=2), "scan"), (dict(frontier_K=12), "frontier_K"),
    (dict(floor_ns=(2, 4)), "floor_ns"), (dict(floor_grid=39), "floor_grid"),
    (dict(floor_starts=-1), "floor_starts"), (dict(floor_random=0), "floor_random"),
    (dict(floor_certify=-1), "floor_certify"), (dict(floor_nodes=0), "floor_nodes"),
    (dict(floor_ranks=()), "floor_ranks"), (dict(floor_ranks=(10, 9)), "floor_ranks"),
    (dict(floor_scaling_n=(1, 4)), "floor_scaling_n"),
    (dict(cycle_sizes=(8, 8, 16)), "cycle_sizes")])
def test_contradictory_settings_are_named(change, named):
    with pytest.raises(ValueError, match=named):
        settings.check(settings.DEFAULT.replace(**change), "07_front_universality")
