"""Chapter 1's settings: the Monte Carlo check of the two-item laws and its practical margin."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from semres.core.profiles import Config, Settings, positive_ints, require

#: the smallest error in a success probability that would matter to the paper's laws
MC_MARGIN = 0.005
MC_MARGIN_REASON = ("half a percentage point: about a line's width on the paper's plots of a "
                    "success probability, so a smaller error would change none of its figures "
                    "or statements")


@dataclass(frozen=True)
class ParetoSettings(Config):
    trials: int = 2_000_000  # Monte Carlo trials per (space, eps, Delta, test) cell
    discrete_grid: int = 7  # the discrete space: discrete_points cells of a grid x grid grid
    discrete_points: int = 40
    # resolutions per space: both sides of the optimum b = 1/2 on the circle and segment
    # (b = 2 eps), caps past a hemisphere on the sphere, city-block radii on the grid
    eps: dict = field(default_factory=lambda: {
        "circle": (0.05, 0.15, 0.25, 0.4), "segment": (0.05, 0.15, 0.25, 0.4),
        "sphere": (0.3, 1.0, math.pi / 2, 2.2), "discrete": (1.0, 2.0, 4.0)})
    deltas: tuple = (0.0, 0.1, 0.3)  # noise levels of the check (0 is Theorem 1)
    enumeration_deltas: tuple = (0.0, 0.2)  # where the tie term meets exact enumeration
    tie_eps: float = 2.0  # the discrete radius whose tie probability the prose quotes
    cost_eps: float = 0.25  # the segment radius whose cost of heterogeneity the prose quotes


def check(cfg: ParetoSettings, ch: str) -> None:
    positive_ints(cfg, ch, "trials", "discrete_grid", "discrete_points")
    require(2 <= cfg.discrete_points <= cfg.discrete_grid ** 2, ch,
            f"discrete_points ({cfg.discrete_points}) must lie in [2, discrete_grid**2 = "
            f"{cfg.discrete_grid ** 2}]: cells are drawn without replacement")
    require(cfg.tie_eps in cfg.eps["discrete"], ch,
            f"tie_eps ({cfg.tie_eps}) must be one of the discrete radii {cfg.eps['discrete']}")


DEFAULT = ParetoSettings()
QUICK = DEFAULT.replace(trials=100_000, discrete_points=25)
PAPER = DEFAULT.replace(trials=20_000_000, discrete_grid=9, discrete_points=60)
SETTINGS = Settings(chapter="01_pareto_front",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"}, seconds=11)
