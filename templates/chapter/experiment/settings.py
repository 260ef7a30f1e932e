"""Chapter {{number}}'s settings: one typed object, three profiles and the paper's protocol."""

from __future__ import annotations

from dataclasses import dataclass

from semres.core.profiles import Config, Settings, positive_ints


@dataclass(frozen=True)
class {{Name}}Settings(Config):
    """What chapter {{number}} runs."""

    #: Monte Carlo trials per cell
    trials: int = 1_000_000
    #: resolutions of the check (ball measure b = 2 eps on the circle)
    eps: tuple = (0.05, 0.1, 0.2)


DEFAULT = {{Name}}Settings()
QUICK = DEFAULT.replace(trials=50_000)
PAPER = DEFAULT


def check(cfg: {{Name}}Settings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "trials")


SETTINGS = Settings(chapter="{{chapter}}",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"},
                    paper={"trials": (1_000_000, "Monte Carlo trials per cell")})
