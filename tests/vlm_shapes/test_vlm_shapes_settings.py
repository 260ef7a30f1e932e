"""Chapter 6's settings: one typed object per profile, the design defined once, the checks."""

import pytest

from semres.core import profiles
from semres.experiments.vlm_shapes import scenes, settings


@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_every_profile_passes_its_checks_and_is_typed(profile):
    cfg = profiles.settings(settings.SETTINGS, profile)
    assert isinstance(cfg, settings.VlmShapesSettings)
    assert cfg.sweep_n[0] >= 2 and cfg.grid_gof_boot >= 1 and cfg.margin_gof_boot >= 1


def test_the_design_is_defined_once():
    assert scenes.TASKS is settings.TASKS and scenes.SHAPES is settings.SHAPES
    assert scenes.MAP_LAYOUT is settings.MAP_LAYOUT and scenes.QUESTIONS is settings.QUESTIONS
    assert settings.SETTINGS.paper["fit_scenes"][0] == 400


def test_contradictory_settings_are_named():
    with pytest.raises(ValueError, match="sweep_n"):
        profiles.settings(settings.SETTINGS, "quick", sweep_n=(1, 4))
    with pytest.raises(ValueError, match="vision"):
        settings.check(settings.QUICK.replace(vision="resnet"), "06_vlm_shapes")
    with pytest.raises(ValueError, match="margin_gof_boot"):
        settings.check(settings.QUICK.replace(margin_gof_boot=0), "06_vlm_shapes")
