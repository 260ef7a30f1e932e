"""semres.experiments.llm.settings: every profile is consistent, each states only what it
changes, and a contradiction names its setting."""

import pytest

from semres.core import profiles
from semres.experiments.llm import settings


@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_every_profile_passes_its_check_as_typed_settings(profile):
    cfg = profiles.settings(settings.SETTINGS, profile)
    assert isinstance(cfg, settings.LlmYearsSettings)
    assert cfg.Ds == settings.SETTINGS.profiles[profile].Ds


def test_the_parameters_override_their_settings_and_contradictions_are_named():
    cfg = profiles.settings(settings.SETTINGS, "quick", causal_trials=12, causal_lm="x,y")
    assert (cfg.causal_trials, cfg.lms) == (12, "x,y")
    with pytest.raises(ValueError, match="near_pairs"):
        profiles.settings(settings.SETTINGS, "quick", near_pairs=40)
    with pytest.raises(ValueError, match="lam_floors"):
        profiles.settings(settings.SETTINGS, "quick", lam_floors=(0.01, 0.1))
    with pytest.raises(ValueError, match="near_near and near_far"):  # no stage 1 to score
        profiles.settings(settings.SETTINGS, "quick", near_near=3, near_far=3)


def test_the_tasks_and_the_paper_are_defined_once():
    assert settings.TASKS == ("similarity", "identification") == tuple(settings.QUESTIONS)
    assert settings.THE_PAPER.resolution == (70, 80)
    assert set(settings.SETTINGS.paper) <= set(settings.DEFAULT.as_dict())
