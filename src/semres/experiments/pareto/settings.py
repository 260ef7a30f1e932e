"""Chapter 1's settings: the three profiles and the design of the Monte Carlo check, in one
typed object (the chapter reads ``cfg.trials``, the CLI's ``mc_trials`` overrides it)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from semres.core.profiles import Config, Settings, positive_ints, require


def _resolutions() -> dict:
    # both sides of the optimum b = 1/2 on the circle and segment (b = 2 eps), caps up to past
    # a hemisphere on the sphere, and the city-block radii 1, 2 and 4 of the discrete grid (a
    # point's neighbours, then wider)
    return {"circle": (0.05, 0.15, 0.25, 0.4), "segment": (0.05, 0.15, 0.25, 0.4),
            "sphere": (0.3, 1.0, math.pi / 2, 2.2), "discrete": (1.0, 2.0, 4.0)}


@dataclass(frozen=True)
class ParetoSettings(Config):
    """What chapter 1 runs: the engine's trials per cell, the discrete space's grid and points,
    and the cells of the check."""

    #: Monte Carlo trials per (space, eps, Delta, test) cell
    trials: int = 2_000_000
    #: the discrete space: ``discrete_points`` distinct cells of a grid × grid integer grid
    discrete_grid: int = 7
    discrete_points: int = 40
    #: resolutions eps of the check, per space
    eps: dict = field(default_factory=_resolutions)
    #: noise levels Delta of the check (Delta = 0 is Theorem 1)
    deltas: tuple = (0.0, 0.1, 0.3)
    #: noise levels at which the discrete space's theory is checked against exact enumeration
    enumeration_deltas: tuple = (0.0, 0.2)
    #: the discrete radius whose tie probability and ball variance the prose quotes
    tie_eps: float = 2.0
    #: the segment radius at which the prose quotes the cost of heterogeneity
    cost_eps: float = 0.25


DEFAULT = ParetoSettings()
QUICK = DEFAULT.replace(trials=100_000, discrete_points=25)
PAPER = DEFAULT.replace(trials=20_000_000, discrete_grid=9, discrete_points=60)


def check(cfg: ParetoSettings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "trials", "discrete_grid", "discrete_points")
    require(2 <= cfg.discrete_points <= cfg.discrete_grid ** 2, ch,
            f"discrete_points ({cfg.discrete_points}) must lie in [2, discrete_grid**2 = "
            f"{cfg.discrete_grid ** 2}]: cells are drawn without replacement")
    require(cfg.tie_eps in cfg.eps["discrete"], ch,
            f"tie_eps ({cfg.tie_eps}) must be one of the discrete radii {cfg.eps['discrete']}")


#: chapter 1's Monte Carlo check of the two-item laws
SETTINGS = Settings(chapter="01_pareto_front",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"}, seconds=11)
