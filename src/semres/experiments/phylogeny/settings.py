"""Chapter 4's settings: the three profiles, the paper's protocol and their checks."""

from __future__ import annotations

from dataclasses import dataclass

from semres.core.profiles import Config, Settings, positive_ints, require


@dataclass(frozen=True)
class PhylogenySettings(Config):
    # the simulated phylogeny: species, images per species, image side in pixels
    n_species: int = 48
    images_per_species: int = 40
    size: int = 48
    # the share of species held out entirely, and of each other species' images kept for
    # validation and for the tests
    ood_fraction: float = 0.15
    val_fraction: float = 0.15
    test_fraction: float = 0.2
    alphas: tuple = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0)  # the loss weights α compared
    replicates: int = 3  # seeds per α
    # training: epochs, batch size, AdamW's learning rate, the ResNet's stage widths and depths
    epochs: int = 20
    batch_size: int = 64
    lr: float = 3e-3
    widths: tuple = (16, 32, 64)
    depths: tuple = (1, 1, 1)
    n_eps: int = 41  # resolutions ε per tradeoff curve
    max_probes: int = 400  # probes of the triplet accuracy at most
    matched_points: int = 15  # p_I at which p_S is matched across the range both α reach
    # the check of the theorem: species of its tree, resolutions checked, Monte Carlo trials
    theorem_species: int = 24
    theorem_resolutions: int = 8
    mc_trials: int = 1_000_000


def _check(cfg: PhylogenySettings, ch: str) -> None:
    positive_ints(cfg, ch, "n_species", "images_per_species", "size", "replicates", "epochs",
                  "batch_size", "n_eps", "max_probes", "mc_trials", "matched_points",
                  "theorem_species", "theorem_resolutions")
    alphas = list(cfg.alphas)
    require(alphas == sorted(set(alphas)) and 0 <= alphas[0] and alphas[-1] <= 1, ch,
            f"alphas must be increasing values in [0, 1]; got {alphas}")
    require(len(cfg.widths) == len(cfg.depths), ch, "widths and depths must pair up")
    require(cfg.n_species >= 8, ch, "n_species must be >= 8 (15% are held out)")
    require(cfg.images_per_species >= 4, ch, "images_per_species must be >= 4 (splits)")
    require(cfg.batch_size >= 2, ch, "batch_size must be >= 2 (L_sim needs pairs)")


DEFAULT = PhylogenySettings()
QUICK = DEFAULT.replace(n_species=24, images_per_species=24, size=32, alphas=(0.0, 0.5, 1.0),
                        replicates=1, epochs=10, widths=(8, 16, 32), n_eps=21,
                        mc_trials=100_000)
PAPER = DEFAULT.replace(n_species=96, images_per_species=60, size=64,
                        alphas=(0.0, 0.25, 0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0), replicates=5,
                        epochs=15, widths=(32, 64, 128, 256), depths=(2, 2, 2, 2), n_eps=61,
                        max_probes=1000, mc_trials=4_000_000)
SETTINGS = Settings(
    chapter="04_resnet_phylogeny", profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
    check=_check, parameters={"image_size": "size"}, minimums={"max_per_class": 0},
    seconds=143,
    paper={key: (getattr(PAPER, key), what) for key, what in (
        ("alphas", "α grid"), ("replicates", "seeds per α"), ("epochs", "epochs"))})
