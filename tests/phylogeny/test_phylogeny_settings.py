"""Chapter 4's settings: every profile passes its check and the paper's protocol is stated
once."""

import pytest

from semres.core import profiles
from semres.experiments.phylogeny import settings


@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_every_profile_passes_its_check(profile):
    cfg = profiles.settings(settings.SETTINGS, profile)
    assert isinstance(cfg, settings.PhylogenySettings)
    assert set(settings.SETTINGS.paper) <= set(cfg.as_dict())


def test_the_paper_profile_is_the_papers_protocol_and_bad_settings_are_named():
    assert profiles.deviations(settings.PAPER, settings.SETTINGS.paper) == []
    assert profiles.deviations(settings.QUICK, settings.SETTINGS.paper)[0] == (
        "α grid: 0, 0.5, 1 (paper: 0, 0.25, 0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 1)")
    with pytest.raises(ValueError, match="alphas"):
        settings.SETTINGS.check(settings.DEFAULT.replace(alphas=(0.5, 0.0)), "04")
    with pytest.raises(ValueError, match="image_size"):
        profiles.check_parameters(settings.SETTINGS, "quick", {"image_size": -3})
    assert profiles.settings(settings.SETTINGS, "quick", image_size=16).size == 16

