"""Every chapter's settings by chapter name, the one place that knows which experiment serves
which chapter: the CLI and the runner check parameters before papermill starts."""

from __future__ import annotations

from semres.core import profiles
from semres.core.profiles import Settings
from semres.experiments.frontier import settings as frontier
from semres.experiments.many_items import settings as many_items
from semres.experiments.pareto import settings as pareto
from semres.experiments.llm import settings as llm_years
from semres.experiments.phylogeny import settings as phylogeny
from semres.experiments.toy import settings as toy
from semres.experiments.vlm_shapes import settings as vlm_shapes

#: chapter -> its experiment's settings
SETTINGS: dict[str, Settings] = {spec.chapter: spec for spec in (
    pareto.SETTINGS, many_items.SETTINGS, toy.SETTINGS,
    phylogeny.SETTINGS, llm_years.SETTINGS, vlm_shapes.SETTINGS, frontier.SETTINGS)}


def experiment(chapter: str) -> Settings:
    """The settings of ``chapter``'s experiment."""
    if chapter not in SETTINGS:
        raise ValueError(f"chapter must be one of {', '.join(SETTINGS)}; got {chapter!r}")
    return SETTINGS[chapter]


def settings(chapter: str, profile: str, **overrides) -> dict:
    """:func:`semres.core.profiles.settings` of ``chapter``'s experiment."""
    return profiles.settings(experiment(chapter), profile, **overrides)


def check(chapter: str, cfg: dict) -> dict:
    """:func:`semres.core.profiles.check` of ``chapter``'s experiment."""
    return profiles.check(experiment(chapter), cfg)


def check_parameters(chapter: str, profile: str, params: dict) -> dict | None:
    """:func:`semres.core.profiles.check_parameters` of ``chapter``'s experiment (the shared
    checks only for a chapter without settings)."""
    return profiles.check_parameters(SETTINGS.get(chapter), profile, params)
