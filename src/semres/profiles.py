"""Every chapter's settings per profile, and the checks that keep them consistent.

The settings live here rather than in the chapters so that a fast test can validate every
chapter under every profile without running a heavy cell: a paper-profile setting that
contradicts another (more grid cells drawn than the grid has, a snapshot past the last epoch)
fails in the test suite, not nine seconds into a reader's run. Chapters call
:func:`settings`; parameter overrides from papermill are checked by the same function.
"""

from __future__ import annotations

import copy

PROFILES = ("quick", "default", "paper")

SETTINGS: dict[str, dict[str, dict]] = {
    # ------------------------------------------------------------------ 1: the Pareto front
    "01_pareto_front": {
        "quick": {"trials": 100_000, "discrete_grid": 7, "discrete_points": 25},
        "default": {"trials": 2_000_000, "discrete_grid": 7, "discrete_points": 40},
        "paper": {"trials": 20_000_000, "discrete_grid": 9, "discrete_points": 60},
    },
    # ------------------------------------------------------------------ 2: many items
    "02_many_items": {
        "quick": {"trials": 100_000, "exact_n": range(2, 9)},
        "default": {"trials": 2_000_000, "exact_n": range(2, 13)},
        "paper": {"trials": 10_000_000, "exact_n": range(2, 17)},
    },
    # ------------------------------------------------------------------ 3: the toy ReLU net
    "03_toy_relu": {
        "quick": {"seeds": 3, "epochs": 100, "snapshots": (0, 17, 35, 70, 99),
                  "mc_trials": 200_000},
        "default": {"seeds": 10, "epochs": 500, "snapshots": (0, 17, 35, 160, 499),
                    "mc_trials": 4_000_000},
        "paper": {"seeds": 10, "epochs": 500, "snapshots": (0, 17, 35, 160, 499),
                  "mc_trials": 20_000_000},
    },
    # ------------------------------------------------------------------ 4: the ResNet phylogeny
    "04_resnet_phylogeny": {
        "quick": {"n_species": 24, "images_per_species": 24, "size": 32,
                  "alphas": [0.0, 0.5, 1.0], "replicates": 1, "epochs": 10, "batch_size": 64,
                  "lr": 3e-3, "widths": (8, 16, 32), "depths": (1, 1, 1), "n_eps": 21,
                  "max_probes": 400, "mc_trials": 100_000},
        "default": {"n_species": 48, "images_per_species": 40, "size": 48,
                    "alphas": [0.0, 0.25, 0.5, 0.75, 0.9, 1.0], "replicates": 3, "epochs": 20,
                    "batch_size": 64, "lr": 3e-3, "widths": (16, 32, 64), "depths": (1, 1, 1),
                    "n_eps": 41, "max_probes": 400, "mc_trials": 1_000_000},
        "paper": {"n_species": 96, "images_per_species": 60, "size": 64,
                  "alphas": [0.0, 0.25, 0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0], "replicates": 5,
                  "epochs": 15, "batch_size": 64, "lr": 3e-3, "widths": (32, 64, 128, 256),
                  "depths": (2, 2, 2, 2), "n_eps": 61, "max_probes": 1000,
                  "mc_trials": 4_000_000},
    },
    # ------------------------------------------------------------------ 5: language models
    "05_llm_years": {
        "quick": {"kernel_names": 6, "kernel_years": (1500, 2000), "sweep_names": 6,
                  "sweep_years": (1500, 2000), "phrasings": 1, "fit_max": 400,
                  "Ds": [20, 50, 100, 200], "centres": list(range(1700, 1750, 5)),
                  "offsets": list(range(-200, 200, 5)), "prompts": 4,
                  "ns": [2, 3, 4, 6], "trials": 1_000, "engine_trials": 5_000, "n_boot": 20,
                  "temperatures": [0.02, 0.05, 0.2], "lam_grid": 8, "lam_trials": 20_000,
                  "causal_trials": 8, "folds": 3, "windows": [100, 200, 300, 400],
                  "stable_windows": (300, 400), "ref_windows": [100, 150, 200],
                  "ref_stable": (150, 200), "window_boot": 8},
        "default": {"kernel_names": 12, "kernel_years": (1200, 2000), "sweep_names": 52,
                    "sweep_years": (1500, 2000), "phrasings": 3, "fit_max": 600,
                    "Ds": [2, 5, 20, 50, 100, 200], "centres": list(range(1500, 1700, 5)),
                    "offsets": list(range(-300, 300, 5)), "prompts": 20,
                    "ns": [2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50], "trials": 3_000,
                    "engine_trials": 40_000, "n_boot": 200,
                    "temperatures": [0.01, 0.02, 0.035, 0.05, 0.1, 0.2, 0.5, 1.0],
                    "lam_grid": 25, "lam_trials": 200_000, "causal_trials": 100, "folds": 5,
                    "windows": [100, 200, 300, 400, 500, 600], "stable_windows": (300, 600),
                    "ref_windows": [100, 150, 200, 250, 300], "ref_stable": (200, 300),
                    "window_boot": 40},
        "paper": {"kernel_names": 24, "kernel_years": (800, 2000), "sweep_names": 60,
                  "sweep_years": (1500, 2000), "phrasings": 3, "fit_max": 800,
                  "Ds": [2, 5, 20, 50, 100, 200], "centres": list(range(1500, 1700, 5)),
                  "offsets": list(range(-300, 300, 5)), "prompts": 20,
                  "ns": [2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50, 60], "trials": 10_000,
                  "engine_trials": 200_000, "n_boot": 1000,
                  "temperatures": [0.01, 0.02, 0.035, 0.05, 0.1, 0.2, 0.5, 1.0],
                  "lam_grid": 40, "lam_trials": 1_000_000, "causal_trials": 400, "folds": 10,
                  "windows": [100, 200, 300, 400, 500, 600, 700, 800],
                  "stable_windows": (300, 800), "ref_windows": [100, 150, 200, 250, 300],
                  "ref_stable": (200, 300), "window_boot": 200},
    },
    # ------------------------------------------------------------------ 6: vision-language models
    "06_vlm_shapes": {
        "quick": {"vision_steps": 20, "steps": 20, "hidden": 32, "layers": 1, "train_batch": 16,
                  "vision": "dinov3", "stage1_lr": 3e-3, "vision_lr": 0.0,
                  "grid": 8, "fit_scenes": 48, "sweep_n": [2, 4, 8, 12], "sweep_scenes": 8,
                  "boot": 100, "choice_boot": 10, "mc_trials": 20_000, "bins": 6},
        "default": {"vision_steps": 1600, "steps": 800, "hidden": 64, "layers": 4,
                    "train_batch": 32, "vision": "dinov3", "stage1_lr": 3e-3, "vision_lr": 0.0,
                    "grid": 20, "fit_scenes": 400,
                    "sweep_n": [2, 3, 4, 6, 8, 10, 12], "sweep_scenes": 60, "boot": 300,
                    "choice_boot": 200, "mc_trials": 200_000, "bins": 10},
        "paper": {"vision_steps": 6000, "steps": 3000, "hidden": 128, "layers": 4,
                  "train_batch": 64, "vision": "dinov3", "stage1_lr": 2e-3, "vision_lr": 0.0,
                  "grid": 40, "fit_scenes": 2000,
                  "sweep_n": list(range(2, 13)), "sweep_scenes": 300, "boot": 1000,
                  "choice_boot": 1000, "mc_trials": 1_000_000, "bins": 14},
    },
    # ------------------------------------------------------------------ 7: front universality
    "07_front_universality": {
        "quick": {"trials": 100_000, "scales": 12, "frontier_n": [2, 4], "frontier_K": 8,
                  "many_K": 8, "targets": 4, "cycle_sizes": [8, 16, 32, 64, 128],
                  "torus_sides": [4, 6, 8, 10], "slot_trials": 40_000, "slot_eps": 5},
        "default": {"trials": 1_000_000, "scales": 28, "frontier_n": [2, 4, 8], "frontier_K": 32,
                    "many_K": 16, "targets": 8, "cycle_sizes": [8, 16, 32, 64, 128, 256, 512],
                    "torus_sides": [4, 6, 8, 12, 16, 20], "slot_trials": 300_000, "slot_eps": 9},
        "paper": {"trials": 4_000_000, "scales": 40, "frontier_n": [2, 4, 8], "frontier_K": 64,
                  "many_K": 32, "targets": 14,
                  "cycle_sizes": [8, 16, 32, 64, 128, 256, 512, 1024],
                  "torus_sides": [4, 6, 8, 12, 16, 20, 24], "slot_trials": 2_000_000,
                  "slot_eps": 15},
    },
}


def _require(ok: bool, chapter: str, message: str) -> None:
    if not ok:
        raise ValueError(f"{chapter} settings: {message}")


def _positive_ints(cfg: dict, chapter: str, *keys: str) -> None:
    for key in keys:
        value = cfg[key]
        _require(isinstance(value, int) and not isinstance(value, bool) and value >= 1, chapter,
                 f"{key} must be an integer >= 1; got {value!r}")


def _check_01(cfg, ch):
    _positive_ints(cfg, ch, "trials", "discrete_grid", "discrete_points")
    _require(2 <= cfg["discrete_points"] <= cfg["discrete_grid"] ** 2, ch,
             f"discrete_points ({cfg['discrete_points']}) must lie in [2, discrete_grid**2 = "
             f"{cfg['discrete_grid'] ** 2}]: cells are drawn without replacement")


def _check_02(cfg, ch):
    _positive_ints(cfg, ch, "trials")
    ns = list(cfg["exact_n"])
    _require(len(ns) >= 2 and min(ns) >= 2, ch, f"exact_n must hold n >= 2; got {ns}")


def _check_03(cfg, ch):
    _positive_ints(cfg, ch, "seeds", "epochs", "mc_trials")
    snaps = list(cfg["snapshots"])
    _require(snaps == sorted(set(snaps)) and snaps[0] >= 0 and snaps[-1] <= cfg["epochs"], ch,
             f"snapshots must be increasing epochs in [0, epochs = {cfg['epochs']}]; got {snaps}")


def _check_04(cfg, ch):
    _positive_ints(cfg, ch, "n_species", "images_per_species", "size", "replicates", "epochs",
                   "batch_size", "n_eps", "max_probes", "mc_trials")
    alphas = list(cfg["alphas"])
    _require(alphas == sorted(set(alphas)) and 0 <= alphas[0] and alphas[-1] <= 1, ch,
             f"alphas must be increasing values in [0, 1]; got {alphas}")
    _require(len(cfg["widths"]) == len(cfg["depths"]), ch, "widths and depths must pair up")
    _require(cfg["n_species"] >= 8, ch, "n_species must be >= 8 (15% are held out)")
    _require(cfg["images_per_species"] >= 4, ch, "images_per_species must be >= 4 (splits)")


def _check_05(cfg, ch):
    from .language import NAMES

    _positive_ints(cfg, ch, "kernel_names", "sweep_names", "phrasings", "fit_max", "prompts",
                   "trials", "engine_trials", "n_boot", "lam_grid", "lam_trials",
                   "causal_trials")
    for key in ("kernel_names", "sweep_names"):
        _require(cfg[key] <= len(NAMES), ch, f"{key} ({cfg[key]}) exceeds the {len(NAMES)} names")
    _require(max(cfg["ns"]) <= cfg["sweep_names"], ch,
             f"the largest n ({max(cfg['ns'])}) needs as many distinct names; sweep_names is "
             f"{cfg['sweep_names']}")
    _require(min(cfg["ns"]) >= 2, ch, "ns must be >= 2")
    lo, hi = cfg["kernel_years"]
    _require(cfg["fit_max"] <= hi - lo, ch,
             f"fit_max ({cfg['fit_max']}) exceeds the kernel's year span ({hi - lo})")
    c_lo, c_hi = min(cfg["centres"]), max(cfg["centres"])
    o_lo, o_hi = min(cfg["offsets"]), max(cfg["offsets"])
    span = (c_lo + min(o_lo, -max(cfg["Ds"])), c_hi + max(o_hi, max(cfg["Ds"])))
    _require(lo <= span[0] and span[1] <= hi, ch,
             f"the resolution design spans years {span}, outside kernel_years {(lo, hi)}")
    _positive_ints(cfg, ch, "folds", "window_boot")
    _require(cfg["folds"] >= 2, ch, f"folds must be >= 2; got {cfg['folds']}")
    for key, stable, top, what in (("windows", "stable_windows", cfg["fit_max"], "fit_max"),
                                   ("ref_windows", "ref_stable", max(abs(o_lo), o_hi),
                                    "the largest |offset|")):
        wins = list(cfg[key])
        _require(wins == sorted(set(wins)) and wins[0] >= 1 and wins[-1] <= top, ch,
                 f"{key} must be increasing values in [1, {what} = {top}]; got {wins}")
        a, b = cfg[stable]
        _require(sum(a <= w <= b for w in wins) >= 2, ch,
                 f"{stable} {cfg[stable]} must hold at least two of {key} {wins}")


def _check_06(cfg, ch):
    from .scenes import SHAPES

    MAX_SHAPES = len(SHAPES)

    _positive_ints(cfg, ch, "vision_steps", "steps", "hidden", "layers", "train_batch", "grid",
                   "fit_scenes", "sweep_scenes", "boot", "choice_boot", "mc_trials", "bins")
    _require(cfg["vision"] in ("clip", "dinov3"), ch,
             f"vision must be 'clip' or 'dinov3'; got {cfg['vision']!r}")
    _require(cfg["stage1_lr"] > 0 and cfg["vision_lr"] >= 0, ch,
             f"stage1_lr must be > 0 and vision_lr >= 0; got {cfg['stage1_lr']}, "
             f"{cfg['vision_lr']}")
    _require(min(cfg["sweep_n"]) >= 2 and max(cfg["sweep_n"]) <= MAX_SHAPES, ch,
             f"sweep_n must lie in [2, {MAX_SHAPES}]; got {cfg['sweep_n']}")


def _check_07(cfg, ch):
    _positive_ints(cfg, ch, "trials", "scales", "frontier_K", "many_K", "targets",
                   "slot_trials", "slot_eps")
    for key in ("frontier_K", "many_K"):
        k = cfg[key]
        _require(k >= 2 and k & (k - 1) == 0, ch,
                 f"{key} must be a power of two >= 2 (K doubles from 2); got {k}")
    ns = list(cfg["frontier_n"])
    _require(len(ns) >= 1 and ns[0] == 2 and all(n >= 2 for n in ns), ch,
             f"frontier_n must start with 2 (the two-item frontier); got {ns}")
    _require(cfg["scales"] >= 3, ch, "scales must be >= 3 (a curve per family)")
    for key, low in (("cycle_sizes", 4), ("torus_sides", 3)):
        sizes = list(cfg[key])
        _require(len(sizes) >= 3 and sizes == sorted(set(sizes)) and sizes[0] >= low, ch,
                 f"{key} must hold >= 3 increasing sizes >= {low} (a rate is fitted); "
                 f"got {sizes}")


CHECKS = {"01_pareto_front": _check_01, "02_many_items": _check_02, "03_toy_relu": _check_03,
          "04_resnet_phylogeny": _check_04, "05_llm_years": _check_05, "06_vlm_shapes": _check_06,
          "07_front_universality": _check_07}


def check(chapter: str, cfg: dict) -> dict:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself; return it."""
    if chapter not in CHECKS:
        raise ValueError(f"chapter must be one of {', '.join(CHECKS)}; got {chapter!r}")
    CHECKS[chapter](cfg, chapter)
    return cfg


def settings(chapter: str, profile: str, **overrides) -> dict:
    """A fresh copy of ``chapter``'s settings for ``profile``, overrides applied, then checked.

    Overrides set to 0 or None (a chapter parameter's "take the profile's setting") are ignored.
    """
    if chapter not in SETTINGS:
        raise ValueError(f"chapter must be one of {', '.join(SETTINGS)}; got {chapter!r}")
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    cfg = copy.deepcopy(SETTINGS[chapter][profile])
    for key, value in overrides.items():
        if key not in cfg:
            raise ValueError(f"{chapter} has no setting {key!r}; settings: {', '.join(cfg)}")
        if value not in (0, None):
            cfg[key] = type(cfg[key])(value) if isinstance(cfg[key], (int, float)) else value
    return check(chapter, cfg)


# ---- check_parameters (issue 19 placeholder) ----
# chapter parameter -> the setting it overrides, only where the chapter passes it to settings()
_OVERRIDES = {"01_pareto_front": {"mc_trials": "trials"},
              "02_many_items": {"mc_trials": "trials"},
              "03_toy_relu": {"n_seeds": "seeds"},
              "05_llm_years": {"causal_trials": "causal_trials"}}


def check_parameters(chapter_name: str, profile: str, params: dict) -> None:
    """Reject parameter values the chapter's own settings check would reject, before it runs.

    A chapter this module does not know (a test's miniature book) gets only the generic checks.
    """
    seed = params.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"parameter seed must be an integer >= 0; got {seed!r}")
    if chapter_name not in SETTINGS:
        return
    mapped = {}
    for param, key in _OVERRIDES.get(chapter_name, {}).items():
        if param in params:
            mapped[key] = params[param]
    try:
        settings(chapter_name, profile, **mapped)
    except ValueError as err:
        named = ", ".join(p for p, k in _OVERRIDES.get(chapter_name, {}).items()
                          if p in params and k in str(err))
        raise ValueError(f"parameter {named}: {err}" if named else str(err)) from None
# ---- end ----
