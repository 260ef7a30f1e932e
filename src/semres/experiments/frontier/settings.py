"""Chapter 7's settings: three profiles and the designs they share, in one typed object (the
CLI's ``mc_trials`` overrides ``trials``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from semres.core.profiles import Config, Settings, positive_ints


@dataclass(frozen=True)
class FrontierSettings(Config):
    """What chapter 7 runs: sizes per profile, and the designs, fixed across profiles."""

    #: Monte Carlo trials per family check cell (and per best-similarity and tie check)
    trials: int = 1_000_000
    #: scales per family and floor in the exact sweeps
    scales: int = 28
    #: the two-item local optimiser's largest K (beside the certified optimum)
    frontier_K: int = 32
    #: identification targets per floor
    targets: int = 8
    #: values of g on the two-item program's grid; p_I levels scanned for the largest gain
    qp_grid: int = 800
    scan: int = 48
    #: n items: numbers of items, levels of g (on 40 every optimum lies within 1.3e-4 of its
    #: value on 120, in a fifth of the time), random starts per target, random similarities
    floor_ns: tuple = (4, 8)
    floor_grid: int = 40
    floor_starts: int = 1
    floor_random: int = 3000
    #: the n-item certificate: targets per (n, floor) beside the largest gain, and the linear
    #: programs per point (500 certify 18 of 24 points in 8 CPU-s; 12,000 all 24, but past the
    #: book's ten minutes; the paper profile: README, "Chapter 7, paper profile")
    floor_certify: int = 3
    floor_nodes: int = 500
    #: the projection's rank, then the ranks at which points left open are tried again
    floor_ranks: tuple = (9,)
    #: numbers of items at which the ceiling and the constant kernel's best are tabulated
    floor_scaling_n: tuple = (2, 4, 8, 16, 64, 256, 1024)
    #: the discrete spaces: cycles of these many points, tori of these sides
    cycle_sizes: tuple = (8, 16, 32, 64, 128, 256, 512)
    torus_sides: tuple = (4, 6, 8, 12, 16, 20)
    #: trials per slot cell, and per-slot radii swept
    slot_trials: int = 300_000
    slot_eps: int = 9
    #: scales of the Monte Carlo cells per family (no similarity underflows in the engine's
    #: single precision at these), and their floors
    check_scales: dict = field(default_factory=lambda: {
        "constant": (0.05, 0.15, 0.3), "linear": (0.05, 0.15, 0.3),
        "exponential": (0.02, 0.08, 0.3), "gaussian": (0.05, 0.1, 0.3)})
    check_deltas: tuple = (0.0, 0.05)
    #: the scale range each family's exact sweep covers (geometric), and its floors
    sweep: dict = field(default_factory=lambda: {
        "constant": (0.002, 0.5), "linear": (0.002, 0.5), "exponential": (2e-4, 3.0),
        "gaussian": (2e-4, 1.5)})
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
QUICK = DEFAULT.replace(trials=100_000, scales=12, frontier_K=8, targets=4, qp_grid=400,
                        scan=16, floor_grid=40, floor_starts=0, floor_random=600,
                        floor_certify=1, floor_nodes=150,
                        cycle_sizes=(8, 16, 32, 64, 128), torus_sides=(4, 6, 8, 10),
                        slot_trials=40_000, slot_eps=5)
PAPER = DEFAULT.replace(trials=4_000_000, scales=40, frontier_K=64, targets=14, qp_grid=1600,
                        scan=150, floor_grid=240, floor_starts=4, floor_random=20_000,
                        floor_certify=14, floor_nodes=300_000, floor_ranks=(9, 10),
                        cycle_sizes=(8, 16, 32, 64, 128, 256, 512, 1024),
                        torus_sides=(4, 6, 8, 12, 16, 20, 24), slot_trials=2_000_000,
                        slot_eps=15)


def _increasing(values, low: int, least: int) -> bool:
    v = list(values)
    return len(v) >= least and v == sorted(set(v)) and all(
        isinstance(x, int) and x >= low for x in v)


#: what :func:`check` requires of each setting, in words and as a test
RULES = {"qp_grid": (">= 200 (certified to 2e-5 on a fine grid only)", lambda v: v >= 200),
         "scan": (">= 3 (a largest gain is bracketed)", lambda v: v >= 3),
         "frontier_K": ("a power of two >= 2", lambda v: v >= 2 and v & (v - 1) == 0),
         "floor_grid": (">= 40 (its half is checked)", lambda v: v >= 40),
         "floor_starts": (">= 0", lambda v: v >= 0),
         "floor_ranks": ("increasing integers >= 1", lambda v: _increasing(v, 1, 1)),
         "floor_certify": ("an integer >= 0", lambda v: isinstance(v, int) and v >= 0),
         "floor_ns": ("increasing numbers of items >= 3 (two items are certified above)",
                      lambda v: _increasing(v, 3, 1)),
         "floor_scaling_n": (">= 2 increasing numbers of items >= 2",
                             lambda v: _increasing(v, 2, 2)),
         "scales": (">= 3 (a curve per family)", lambda v: v >= 3),
         "cycle_sizes": (">= 3 increasing sizes >= 4", lambda v: _increasing(v, 4, 3)),
         "torus_sides": (">= 3 increasing sizes >= 3", lambda v: _increasing(v, 3, 3))}


def check(cfg: FrontierSettings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "trials", "scales", "frontier_K", "targets", "qp_grid", "scan",
                  "floor_grid", "floor_random", "floor_nodes", "slot_trials", "slot_eps")
    for key, (rule, holds) in RULES.items():
        if not holds(getattr(cfg, key)):
            raise ValueError(f"{ch} settings: {key} must be {rule}; got {getattr(cfg, key)!r}")


#: chapter 7's settings; the paper has none of these experiments, so no setting has a
#: counterpart in its protocol
SETTINGS = Settings(chapter="07_front_universality",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"}, seconds=86)
