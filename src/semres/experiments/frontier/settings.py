"""Chapter 7's settings: the three profiles and the designs the chapter runs (the cells of the
Monte Carlo checks, the scale sweeps, the floors, the discrete spaces, the slot codes), in one
typed object; the chapter reads ``cfg.trials``, the CLI's ``mc_trials`` overrides it."""

from __future__ import annotations

from dataclasses import dataclass, field

from semres.core.profiles import Config, Settings, positive_ints, require


def _check_scales() -> dict:
    # chosen so that no similarity underflows in the engine's single precision (a far narrower
    # Gaussian rounds distant items to 0)
    return {"constant": (0.05, 0.15, 0.3), "linear": (0.05, 0.15, 0.3),
            "exponential": (0.02, 0.08, 0.3), "gaussian": (0.05, 0.1, 0.3)}


def _sweep() -> dict:
    return {"constant": (0.002, 0.5), "linear": (0.002, 0.5), "exponential": (2e-4, 3.0),
            "gaussian": (2e-4, 1.5)}


@dataclass(frozen=True)
class FrontierSettings(Config):
    """What chapter 7 runs: sizes per profile, and the designs, fixed across profiles."""

    #: Monte Carlo trials per family check cell (and per best-similarity and tie check)
    trials: int = 1_000_000
    #: scales per family and floor in the exact sweeps
    scales: int = 28
    #: numbers of items of the local optimiser (two first: the certified frontier)
    frontier_n: tuple = (2, 4, 8)
    #: the largest number of levels K of the local optimiser, for two items and for more
    frontier_K: int = 32
    many_K: int = 16
    #: identification targets per floor
    targets: int = 8
    #: values of g on the two-item program's grid, and the p_I levels scanned for the
    #: largest gain
    qp_grid: int = 800
    scan: int = 48
    #: the discrete spaces: cycles of these many points, tori of these sides
    cycle_sizes: tuple = (8, 16, 32, 64, 128, 256, 512)
    torus_sides: tuple = (4, 6, 8, 12, 16, 20)
    #: trials per slot cell, and per-slot radii swept
    slot_trials: int = 300_000
    slot_eps: int = 9
    #: scales of the Monte Carlo cells per family, and their floors
    check_scales: dict = field(default_factory=_check_scales)
    check_deltas: tuple = (0.0, 0.05)
    #: the scale range each family's exact sweep covers (geometric), and its floors
    sweep: dict = field(default_factory=_sweep)
    sweep_deltas: tuple = (0.0, 0.05, 0.2)
    #: the floors at which the best similarity is sought
    deltas: tuple = (0.01, 0.05, 0.2)
    #: the constant kernel's radius on the discrete spaces (the ball edge falls between
    #: distances)
    eps_tie: float = 0.25
    #: the range of the compositional pilot's per-slot radii
    slot_radii: tuple = (0.02, 0.45)
    #: the slot counts of the pilot and the codes combining the slots (one slot: the circle)
    slot_jobs: tuple = ((1, "single"),) + tuple((K, c) for K in (2, 4)
                                                for c in ("max", "product", "mean"))
    #: the radius nearest this one is where the max code's wrong preferences are counted
    wrong_eps: float = 0.15
    #: identification levels at which the codes with ``equal_slots`` slots are compared
    equal_pi: tuple = (0.8, 0.9, 0.95, 0.98)
    equal_slots: int = 4


DEFAULT = FrontierSettings()
QUICK = DEFAULT.replace(trials=100_000, scales=12, frontier_n=(2, 4), frontier_K=8, many_K=8,
                        targets=4, qp_grid=400, scan=16, cycle_sizes=(8, 16, 32, 64, 128),
                        torus_sides=(4, 6, 8, 10), slot_trials=40_000, slot_eps=5)
PAPER = DEFAULT.replace(trials=4_000_000, scales=40, frontier_K=64, many_K=32, targets=14,
                        qp_grid=1600, scan=150,
                        cycle_sizes=(8, 16, 32, 64, 128, 256, 512, 1024),
                        torus_sides=(4, 6, 8, 12, 16, 20, 24), slot_trials=2_000_000,
                        slot_eps=15)


def check(cfg: FrontierSettings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "trials", "scales", "frontier_K", "many_K", "targets", "qp_grid",
                  "scan", "slot_trials", "slot_eps")
    require(cfg.qp_grid >= 200, ch, "qp_grid must be >= 200 (the two-item optima are "
            f"certified to 2e-5 only on a fine grid); got {cfg.qp_grid}")
    require(cfg.scan >= 3, ch, f"scan must be >= 3 (a largest gain is bracketed); "
            f"got {cfg.scan}")
    for key in ("frontier_K", "many_K"):
        k = getattr(cfg, key)
        require(k >= 2 and k & (k - 1) == 0, ch,
                f"{key} must be a power of two >= 2 (K doubles from 2); got {k}")
    ns = list(cfg.frontier_n)
    require(len(ns) >= 1 and ns[0] == 2 and all(n >= 2 for n in ns), ch,
            f"frontier_n must start with 2 (the two-item frontier); got {ns}")
    require(cfg.scales >= 3, ch, "scales must be >= 3 (a curve per family)")
    for key, low in (("cycle_sizes", 4), ("torus_sides", 3)):
        sizes = list(getattr(cfg, key))
        require(len(sizes) >= 3 and sizes == sorted(set(sizes)) and sizes[0] >= low, ch,
                f"{key} must hold >= 3 increasing sizes >= {low} (a rate is fitted); "
                f"got {sizes}")


#: chapter 7's settings; the paper has none of these experiments, so no setting has a
#: counterpart in its protocol
SETTINGS = Settings(chapter="07_front_universality",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"})
