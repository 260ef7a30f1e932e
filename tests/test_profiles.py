"""Every chapter's settings, under every profile, are consistent before any heavy cell runs."""

import pytest

from semres.pipeline import registry, runner
from semres.core import profiles


def _names(cfg) -> set:
    """The setting names of a profile: a typed Config's fields, or a dict's keys."""
    return set(cfg.as_dict() if isinstance(cfg, profiles.Config) else cfg)


@pytest.mark.parametrize("chapter", sorted(registry.SETTINGS))
@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_every_profile_of_every_chapter_passes_its_checks(chapter, profile):
    spec = registry.experiment(chapter)
    cfg = registry.settings(chapter, profile)
    assert _names(cfg) == _names(spec.profiles["default"])
    assert set(spec.profiles) == set(profiles.PROFILES)
    # the paper's protocol names real settings, and the parameters override real settings
    assert set(spec.paper) <= _names(cfg) and set(spec.parameters.values()) <= _names(cfg)


def test_the_registry_covers_every_chapter_and_its_parameters():
    chapters = {ch.name: ch for ch in runner.chapters()}
    assert set(registry.SETTINGS) == set(chapters)
    for name, ch in chapters.items():
        spec, params = registry.experiment(name), runner.parameters(ch)
        named = set(spec.parameters) | set(spec.minimums)
        assert named <= set(params), (name, named - set(params))
        registry.check_parameters(name, "quick", params)  # the defaults pass


def test_contradictory_settings_are_named():
    # 60 cells cannot be drawn without replacement from 49
    cfg = registry.settings("01_pareto_front", "paper").replace(discrete_grid=7)
    with pytest.raises(ValueError, match="discrete_points"):
        registry.check("01_pareto_front", cfg)
    with pytest.raises(ValueError, match="kernel_years"):
        cfg = registry.settings("05_llm_years", "quick").replace(centres=(1990,))
        registry.check("05_llm_years", cfg)


def test_a_shortened_run_moves_its_snapshots_onto_its_last_epoch():
    cfg = registry.settings("03_toy_relu", "default", epochs=100)
    assert cfg.epochs == 100 and cfg.snapshots == (0, 17, 35, 100)


def test_bad_chapter_profile_or_override_is_a_clear_error():
    with pytest.raises(ValueError, match="profile must be one of"):
        registry.settings("01_pareto_front", "fast")
    with pytest.raises(ValueError, match="chapter must be one of"):
        registry.settings("99_nothing", "quick")
    with pytest.raises(ValueError, match="no setting 'warp'"):
        registry.settings("01_pareto_front", "quick", warp=3)
    assert registry.settings("01_pareto_front", "quick", trials=0).trials == 100_000
    assert registry.settings("01_pareto_front", "quick", trials=7).trials == 7
    assert registry.settings("01_pareto_front", "quick", mc_trials=7).trials == 7


@pytest.mark.parametrize("chapter, params, named", [
    ("01_pareto_front", {"mc_trials": -7}, "mc_trials"),
    ("01_pareto_front", {"seed": -1}, "seed"),
    ("01_pareto_front", {"seed": 1.5}, "seed"),
    ("02_many_items", {"n_max": 3}, "n_max"),
    ("03_toy_relu", {"n_seeds": -2}, "n_seeds"),
    ("06_vlm_shapes", {"batch_size": 0}, "batch_size"),
    ("06_vlm_shapes", {"threads": -1}, "threads"),
    ("04_resnet_phylogeny", {"image_size": -3}, "image_size"),
    ("05_llm_years", {"causal_trials": -1}, "causal_trials"),
])
def test_parameters_are_checked_before_a_run_with_their_names(chapter, params, named):
    with pytest.raises(ValueError, match=rf"^{named}"):
        registry.check_parameters(chapter, "quick", params)


def test_a_setting_error_from_a_parameter_names_the_parameter():
    # settings() alone (as a chapter calls it) lets the chapter's own check name the parameter
    with pytest.raises(ValueError, match=r"^mc_trials: .*trials must be an integer >= 1"):
        registry.settings("01_pareto_front", "quick", mc_trials=-7)


def test_deviations_list_only_the_settings_that_differ_from_the_paper():
    paper = {"seeds": (10, "seeds per condition"), "snapshots": ((0, 17), "snapshot epochs")}
    assert profiles.deviations({"seeds": 10, "snapshots": (0, 17)}, paper) == []
    assert profiles.deviations({"seeds": 3, "snapshots": [0, 17]}, paper) == [
        "seeds per condition: 3 (paper: 10)"]
    assert profiles.deviations({"seeds": 10_000, "snapshots": (0, 9)}, paper) == [
        "seeds per condition: 10,000 (paper: 10)", "snapshot epochs: 0, 9 (paper: 0, 17)"]
