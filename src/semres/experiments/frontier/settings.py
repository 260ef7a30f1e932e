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
    #: the largest number of levels K of the two-item local optimiser (set beside the
    #: certified optimum to show how far a local optimum can fall short)
    frontier_K: int = 32
    #: identification targets per floor
    targets: int = 8
    #: values of g on the two-item program's grid, and the p_I levels scanned for the
    #: largest gain
    qp_grid: int = 800
    scan: int = 48
    #: the floor proposition for n items: numbers of items of its frontier (two is certified
    #: above), values of g on its log grid, random starts per target beside the constant
    #: kernel and the previous target's optimum, random similarities tried against the bound.
    #: The grid: on 40 levels every optimum lies within 1.3e-4 of its value on 120 (an eighth
    #: of the certificate's tolerance; 500 programs a point certified 18 of 24 on both) in a
    #: fifth of the time, measured on this profile; the chapter refits on half the levels and
    #: reports the shift
    floor_ns: tuple = (4, 8)
    floor_grid: int = 40
    floor_starts: int = 1
    floor_random: int = 3000
    #: the n-item certificate: targets per (n, floor) it is tried at beside the largest gain
    #: (evenly spaced in p_I), and the branch-and-bound's budget of linear programs per point
    #: (this profile, measured: 500 certify 18 of its 24 points in 8 CPU-s, the six at delta =
    #: 0.01 given up 0.06 to 0.2 above the best found; 2,500 certify 21, the three left within
    #: 0.0045, in 63; 12,000 all 24, within 9,217, in 140, but those fresh builds took 617 and
    #: 642 s, past the book's ten minutes; the paper profile: README, "Chapter 7, paper profile")
    floor_certify: int = 3
    floor_nodes: int = 500
    #: the projection's largest rank, then the ranks at which the points left open are tried
    #: again, each with the budget (:func:`.branch.certify_table`; the smaller proven bound is
    #: kept): a larger envelope is tighter over wide boxes, but each program costs more
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


def check(cfg: FrontierSettings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "trials", "scales", "frontier_K", "targets", "qp_grid", "scan",
                  "floor_grid", "floor_random", "floor_nodes", "slot_trials", "slot_eps")
    require(cfg.qp_grid >= 200, ch, "qp_grid must be >= 200 (the two-item optima are "
            f"certified to 2e-5 only on a fine grid); got {cfg.qp_grid}")
    require(cfg.scan >= 3, ch, f"scan must be >= 3 (a largest gain is bracketed); "
            f"got {cfg.scan}")
    k = cfg.frontier_K
    require(k >= 2 and k & (k - 1) == 0, ch,
            f"frontier_K must be a power of two >= 2 (K doubles from 2); got {k}")
    require(cfg.floor_grid >= 40, ch, "floor_grid must be >= 40 (the n-item optima need a "
            f"grid of levels fine enough to bracket the frontier, and its half is checked); "
            f"got {cfg.floor_grid}")
    require(cfg.floor_starts >= 0, ch, f"floor_starts must be >= 0; got {cfg.floor_starts}")
    ranks = list(cfg.floor_ranks)
    require(len(ranks) >= 1 and all(isinstance(r, int) and r >= 1 for r in ranks)
            and ranks == sorted(set(ranks)), ch,
            f"floor_ranks must hold increasing integers >= 1; got {ranks}")
    require(isinstance(cfg.floor_certify, int) and cfg.floor_certify >= 0, ch,
            f"floor_certify must be an integer >= 0; got {cfg.floor_certify!r}")
    ns = list(cfg.floor_ns)
    require(len(ns) >= 1 and all(isinstance(n, int) and n >= 3 for n in ns), ch,
            f"floor_ns must hold numbers of items >= 3 (two items are certified by the "
            f"concave program); got {ns}")
    scale_ns = list(cfg.floor_scaling_n)
    require(len(scale_ns) >= 2 and all(isinstance(n, int) and n >= 2 for n in scale_ns), ch,
            f"floor_scaling_n must hold >= 2 numbers of items >= 2; got {scale_ns}")
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
                    check=check, parameters={"mc_trials": "trials"}, seconds=86)
