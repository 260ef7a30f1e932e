"""Chapter 3's settings: every profile passes its check, the paper's protocol is stated once,
and a shortened run keeps its snapshots."""

import pytest

from semres.core import profiles
from semres.experiments.toy import settings


@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_every_profile_passes_its_check(profile):
    cfg = profiles.settings(settings.SETTINGS, profile)
    assert isinstance(cfg, settings.ToySettings)
    assert set(settings.SETTINGS.paper) <= set(cfg.as_dict())


def test_the_paper_profile_is_the_papers_protocol():
    assert profiles.deviations(settings.PAPER, settings.SETTINGS.paper) == []
    lines = profiles.deviations(settings.QUICK, settings.SETTINGS.paper)
    assert lines[0] == "seeds per condition: 3 (paper: 10)" and len(lines) == 3


def test_a_shortened_run_keeps_its_snapshots_and_bad_ones_are_named():
    cfg = profiles.settings(settings.SETTINGS, "quick", epochs=50)
    assert cfg.snapshots == (0, 17, 35, 50)
    with pytest.raises(ValueError, match="snapshots"):
        settings.SETTINGS.check(settings.DEFAULT.replace(snapshots=(5, 3)), "03_toy_relu")
    with pytest.raises(ValueError, match="n_seeds"):
        profiles.check_parameters(settings.SETTINGS, "quick", {"n_seeds": -2})
