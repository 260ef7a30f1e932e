"""Chapter 3's settings: three profiles and the paper's protocol (its network and trainer,
which every profile keeps)."""

from __future__ import annotations

from dataclasses import dataclass

from semres.core.profiles import Config, Settings, positive_ints, require


@dataclass(frozen=True)
class ToySettings(Config):
    seeds: int = 10  # networks per condition
    epochs: int = 500
    snapshots: tuple = (0, 17, 35, 160, 499)  # epochs that keep every pair's similarity
    mc_trials: int = 4_000_000  # per cell of the Monte Carlo check of the closed forms
    mc_eps_circle: tuple = (0.1, 0.31, 0.5)  # the resolutions it checks
    mc_eps_segment: tuple = (0.1, 0.25, 0.5)
    n_stimuli: int = 50
    n_hidden: int = 10
    trials_per_epoch: int = 2000
    batch_size: int = 128
    lr: float = 7e-3  # Adam's
    lambda_sim: float = 0.1  # the similarity loss's weight (circle and segment runs)
    lambda_rec: float = 1.0  # the reconstruction runs' weight (the paper gives none)
    init_high: float = 2.0  # initial weights are uniform on [0, init_high]
    flat_delta: float = 0.5  # above this fitted floor a profile is flat: its ε is not drawn


def _check(cfg: ToySettings, ch: str) -> None:
    positive_ints(cfg, ch, "seeds", "epochs", "mc_trials")
    snaps = list(cfg.snapshots)
    require(snaps == sorted(set(snaps)) and snaps[0] >= 0 and snaps[-1] <= cfg.epochs, ch,
            f"snapshots must be increasing epochs in [0, epochs = {cfg.epochs}]; got {snaps}")


DEFAULT = ToySettings()
QUICK = DEFAULT.replace(seeds=3, epochs=100, snapshots=(0, 17, 35, 70, 99), mc_trials=200_000)
PAPER = DEFAULT.replace(mc_trials=20_000_000)
SETTINGS = Settings(
    chapter="03_toy_relu", profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
    check=_check, seconds=31, parameters={"n_seeds": "seeds", "epochs": "epochs"},
    # a shortened run keeps its snapshots: those past the new last epoch move onto it
    derive=lambda cfg: cfg.replace(snapshots=tuple(sorted({min(e, cfg.epochs)
                                                           for e in cfg.snapshots}))),
    paper={key: (getattr(PAPER, key), what) for key, what in (
        ("seeds", "seeds per condition"), ("epochs", "epochs"), ("snapshots", "snapshot epochs"),
        ("n_stimuli", "stimuli"), ("n_hidden", "hidden units"),
        ("trials_per_epoch", "trials per epoch"), ("batch_size", "batch size"),
        ("lr", "learning rate"), ("lambda_sim", "λ_sim of the similarity runs"),
        ("init_high", "upper end of the uniform initial weights"))})
