"""Chapter 3's settings: the three profiles, the paper's protocol and their checks, in one
typed object (:class:`ToySettings`), so that the chapter, the CLI, the trainer's defaults and
the tests read the same numbers.

The network and its trainer are the paper's (50 stimuli, 10 hidden units, Adam at 7e-3, epochs
of 2000 trials in batches of 128, λ_sim = 0.1, W₀ uniform on [0, 2]); every profile keeps them,
and the chapter's list of deviations names any that a reader changes here.
"""

from __future__ import annotations

from dataclasses import dataclass

from semres.core.profiles import Config, Settings, positive_ints, require


@dataclass(frozen=True)
class ToySettings(Config):
    """Every setting of chapter 3, with its default-profile value."""

    #: networks per condition (the chapter's replicates)
    seeds: int = 10
    #: training epochs
    epochs: int = 500
    #: epochs at which every pair's learned similarity is kept (figures, goodness of fit)
    snapshots: tuple = (0, 17, 35, 160, 499)
    #: Monte Carlo trials per cell of the check of the closed forms
    mc_trials: int = 4_000_000
    #: the resolutions ε at which the Monte Carlo check tests each law
    mc_eps_circle: tuple = (0.1, 0.31, 0.5)
    mc_eps_segment: tuple = (0.1, 0.25, 0.5)
    #: the network: stimuli l on the circle or segment, hidden units m
    n_stimuli: int = 50
    n_hidden: int = 10
    #: the trainer: trials per epoch, batch size, Adam's learning rate
    trials_per_epoch: int = 2000
    batch_size: int = 128
    lr: float = 7e-3
    #: the similarity loss's weight in the circle and segment runs
    lambda_sim: float = 0.1
    #: the reconstruction loss's weight in the reconstruction runs (the paper gives none)
    lambda_rec: float = 1.0
    #: initial weights are uniform on [0, init_high]
    init_high: float = 2.0
    #: above this fitted floor Δ a profile is still mostly flat: its ε is not drawn
    flat_delta: float = 0.5


def _check(cfg: ToySettings, ch: str) -> None:
    positive_ints(cfg, ch, "seeds", "epochs", "mc_trials")
    snaps = list(cfg.snapshots)
    require(snaps == sorted(set(snaps)) and snaps[0] >= 0 and snaps[-1] <= cfg.epochs, ch,
            f"snapshots must be increasing epochs in [0, epochs = {cfg.epochs}]; got {snaps}")


def _snapshots_within(cfg: ToySettings) -> ToySettings:
    """A shortened run keeps its snapshots: those past the new last epoch move onto it."""
    return cfg.replace(snapshots=tuple(sorted({min(e, cfg.epochs) for e in cfg.snapshots})))


DEFAULT = ToySettings()
QUICK = DEFAULT.replace(seeds=3, epochs=100, snapshots=(0, 17, 35, 70, 99), mc_trials=200_000)
PAPER = DEFAULT.replace(mc_trials=20_000_000)

SETTINGS = Settings(
    chapter="03_toy_relu",
    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
    check=_check, derive=_snapshots_within, seconds=31,
    parameters={"n_seeds": "seeds", "epochs": "epochs"},
    paper={key: (getattr(PAPER, key), what) for key, what in (
        ("seeds", "seeds per condition"), ("epochs", "epochs"), ("snapshots", "snapshot epochs"),
        ("n_stimuli", "stimuli"), ("n_hidden", "hidden units"),
        ("trials_per_epoch", "trials per epoch"), ("batch_size", "batch size"),
        ("lr", "learning rate"), ("lambda_sim", "λ_sim of the similarity runs"),
        ("init_high", "upper end of the uniform initial weights"))})
