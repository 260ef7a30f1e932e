"""Every chapter's settings, under every profile, are consistent before any heavy cell runs."""

import pytest

from semres import profiles


@pytest.mark.parametrize("chapter", sorted(profiles.SETTINGS))
@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_every_profile_of_every_chapter_passes_its_checks(chapter, profile):
    cfg = profiles.settings(chapter, profile)
    assert set(cfg) == set(profiles.SETTINGS[chapter]["default"])


def test_each_chapter_has_settings_and_a_check_for_each_profile():
    assert set(profiles.SETTINGS) == set(profiles.CHECKS)
    for chapter, by_profile in profiles.SETTINGS.items():
        assert set(by_profile) == set(profiles.PROFILES), chapter


def test_contradictory_settings_are_named():
    cfg = profiles.settings("01_pareto_front", "paper")
    cfg["discrete_grid"] = 7  # 60 cells cannot be drawn without replacement from 49
    with pytest.raises(ValueError, match="discrete_points"):
        profiles.check("01_pareto_front", cfg)
    with pytest.raises(ValueError, match="snapshots"):
        profiles.settings("03_toy_relu", "default", epochs=100)
    with pytest.raises(ValueError, match="kernel_years"):
        cfg = profiles.settings("05_llm_years", "quick")
        cfg["centres"] = [1990]
        profiles.check("05_llm_years", cfg)


def test_bad_chapter_profile_or_override_is_a_clear_error():
    with pytest.raises(ValueError, match="profile must be one of"):
        profiles.settings("01_pareto_front", "fast")
    with pytest.raises(ValueError, match="chapter must be one of"):
        profiles.settings("99_nothing", "quick")
    with pytest.raises(ValueError, match="no setting 'warp'"):
        profiles.settings("01_pareto_front", "quick", warp=3)
    assert profiles.settings("01_pareto_front", "quick", trials=0)["trials"] == 100_000
    assert profiles.settings("01_pareto_front", "quick", trials=7)["trials"] == 7
