"""Chapter 7's settings: three profiles and the designs they share, in one typed object (the
CLI's ``mc_trials`` overrides ``trials``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from semres.core.profiles import Config, Settings, positive_ints


def _check_scales() -> dict:
    # no similarity underflows in the engine's single precision at these
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


#: what :func:`check` requires of each setting
RULES = {"qp_grid": ">= 200 (certified to 2e-5 on a fine grid only)",
         "scan": ">= 3 (a largest gain is bracketed)", "frontier_K": "a power of two >= 2",
         "floor_grid": ">= 40 (its half is checked)", "floor_starts": ">= 0",
         "floor_ranks": "increasing integers >= 1", "floor_certify": "an integer >= 0",
         "floor_ns": "numbers of items >= 3 (two items are certified above)",
         "floor_scaling_n": ">= 2 numbers of items >= 2", "scales": ">= 3 (a curve per family)",
         "cycle_sizes": ">= 3 increasing sizes >= 4", "torus_sides": ">= 3 increasing sizes >= 3"}


def check(cfg: FrontierSettings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "trials", "scales", "frontier_K", "targets", "qp_grid", "scan",
                  "floor_grid", "floor_random", "floor_nodes", "slot_trials", "slot_eps")
    k, ranks, ns, scale_ns = (cfg.frontier_K, list(cfg.floor_ranks), list(cfg.floor_ns),
                              list(cfg.floor_scaling_n))
    ok = {"qp_grid": cfg.qp_grid >= 200, "scan": cfg.scan >= 3,
          "frontier_K": k >= 2 and k & (k - 1) == 0, "floor_grid": cfg.floor_grid >= 40,
          "floor_starts": cfg.floor_starts >= 0,
          "floor_ranks": len(ranks) >= 1 and ranks == sorted(set(ranks))
          and all(isinstance(r, int) and r >= 1 for r in ranks),
          "floor_certify": isinstance(cfg.floor_certify, int) and cfg.floor_certify >= 0,
          "floor_ns": len(ns) >= 1 and all(isinstance(n, int) and n >= 3 for n in ns),
          "floor_scaling_n": len(scale_ns) >= 2
          and all(isinstance(n, int) and n >= 2 for n in scale_ns), "scales": cfg.scales >= 3}
    for key, low in (("cycle_sizes", 4), ("torus_sides", 3)):
        sizes = list(getattr(cfg, key))
        ok[key] = len(sizes) >= 3 and sizes == sorted(set(sizes)) and sizes[0] >= low
    for key, holds in ok.items():
        if not holds:
            raise ValueError(f"{ch} settings: {key} must be {RULES[key]}; "
                             f"got {getattr(cfg, key)!r}")


#: chapter 7's settings; the paper has none of these experiments, so no setting has a
#: counterpart in its protocol
SETTINGS = Settings(chapter="07_front_universality",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"}, seconds=86)
