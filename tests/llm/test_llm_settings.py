"""semres.experiments.llm.settings: every profile is consistent, each states only what it
changes, and a contradiction names its setting."""

import numpy as np
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
    # more pairs than the default's names make come from the larger pool, within its size
    cfg = profiles.settings(settings.SETTINGS, "quick", near_pairs=40, near_names=160)
    assert (cfg.near_pairs, cfg.near_names) == (40, 160)
    with pytest.raises(ValueError, match="near_names"):
        profiles.settings(settings.SETTINGS, "quick", near_names=len(settings.NAME_POOL) + 1)
    with pytest.raises(ValueError, match="near_probes"):
        profiles.settings(settings.SETTINGS, "quick", near_probes=-2)


def test_the_paper_profile_sizes_its_near_design_for_a_resolution_within_a_factor_1_5():
    """About 178 pairs of names, each pair's own names (the default's 60 names make 30), and
    the default's design drawn exactly as before the larger pool existed."""
    paper = profiles.settings(settings.SETTINGS, "paper")
    pairs = paper.near_pairs * len(paper.near_Ds)
    assert 178 <= pairs and 2 * pairs <= paper.near_names <= len(settings.NAME_POOL)
    default = profiles.settings(settings.SETTINGS, "default")
    assert settings.NAME_POOL[:default.near_names] == settings.NAMES
    assert default.near_probes == 0


def test_the_tasks_and_the_paper_are_defined_once():
    assert settings.TASKS == ("similarity", "identification") == tuple(settings.QUESTIONS)
    assert settings.THE_PAPER.resolution == (70, 80)
    assert set(settings.SETTINGS.paper) <= set(settings.DEFAULT.as_dict())


def test_the_shipped_paper_near_record_is_of_this_paper_profile():
    """Chapter 5 quotes the `paper` profile's near design from its shipped record
    (``benchmarks/near_resolution.py --profile paper --record``): the record must be of the
    design this profile draws (its size and pairs), or the page would quote a stale run."""
    from semres.experiments.llm import near, tables

    rec = tables.paper_near()
    if rec.empty:
        pytest.skip("no paper-profile record ships")
    paper = profiles.settings(settings.SETTINGS, "paper")
    tr = near.design(paper.near_Ds, paper.near_xs, paper.near_pairs, 0,
                     centres=paper.near_centres, n_names=paper.near_names,
                     probes=paper.near_probes)
    assert (rec.profile == "paper").all() and (rec.design == len(tr)).all()
    assert (rec.pairs == paper.near_pairs * len(paper.near_Ds)).all()
    fitted = rec[rec.does.astype(bool)]
    assert fitted.groupby("model").best.sum().eq(1).all()  # one best shape per model
    assert np.allclose(fitted.spread, np.maximum(fitted.half_decay_ci_high / fitted.half_decay,
                                                 fitted.half_decay / fitted.half_decay_ci_low))
