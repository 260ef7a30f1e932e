"""Chapter 5's settings, in one place: the three profiles, the people and questions of the year
task, and what the paper reports."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files

from semres.core.profiles import Config, Settings, positive_ints, require

#: the given names every prompt draws from (n up to len(NAMES) in a prompt), no duplicates
NAMES = (
    "Alice", "Bernard", "Chiara", "Dmitri", "Elena", "Farid", "Grace", "Hiroshi", "Ingrid",
    "Jamal", "Katarina", "Luis", "Mei", "Nikolai", "Olga", "Pedro", "Quentin", "Rosa", "Samuel",
    "Tomas", "Ursula", "Victor", "Wanda", "Xavier", "Yusuf", "Zoe", "Anton", "Beatrice",
    "Carlos", "Dora", "Emil", "Fatima", "Gustav", "Helena", "Ivan", "Julia", "Kenji", "Lena",
    "Marco", "Nadia", "Oscar", "Priya", "Rafael", "Sofia", "Theo", "Uma", "Vera", "Walter",
    "Yara", "Zara", "Arthur", "Clara", "Felix", "Hugo", "Irene", "Leon", "Maria", "Omar",
    "Paula", "Ruth",
)
#: more given names, for a near design with more pairs than NAMES make without reuse (the
#: `paper` profile's), one per line in the package's data
MORE_NAMES = tuple(line for line in (files("semres") / "data" / "more_names.txt")
                   .read_text().splitlines() if line and not line.startswith("#"))
#: the near design draws its pairs from the first `near_names` of these
NAME_POOL = NAMES + MORE_NAMES
#: the paper's line per listed person
ITEM_TEMPLATE = "{name} was born in {year}."
#: several phrasings per task: the kernel's uncertainty runs over names and phrasings
QUESTIONS = {
    "similarity": (
        "Who was born closest to {year}?",
        "Who was born nearest to the year {year}?",
        "Whose birth year is closest to {year}?",
    ),
    "identification": (
        "Who was born in {year}?",
        "Which person was born in the year {year}?",
    ),
}
#: the two tests, in the order every stream key of the chapter counts them
TASKS = tuple(QUESTIONS)


@dataclass(frozen=True)
class Paper:
    """What the paper reports and did beyond the settings :data:`SETTINGS` compares
    (``SETTINGS.paper``): the resolution it states for its chat LLMs, those models, and the
    parts of its protocol this build does differently."""

    resolution: tuple = (70, 80)  # years, "roughly 70–80", read off its Figure 5b
    models: tuple = ("gemma-2-2b-it", "Llama-3.2-3B-Instruct", "Qwen2.5-7B-Instruct")
    centres: str = "40 drawn at random in 1500–1699"
    n_sweep: str = "n = 2, 4, …, 98 with 1000 prompts each, years 800–1599, 190 names"


THE_PAPER = Paper()


@dataclass(frozen=True)
class LlmYearsSettings(Config):
    """Chapter 5's settings; the defaults are the default profile."""

    # the exponential with a floor on the shared engine
    lam_floors: tuple = (0.0, 0.01, 0.1)
    lam_range: tuple = (1e-2, 3.0)  # e^(-d/lambda) stays representable in float32
    lam_grid: int = 25
    lam_trials: int = 200_000
    # the causal LMs: which, the gate, the question asked backwards, the probe
    lms: str = "smollm2-135m,qwen2.5-coder-0.5b"
    lm_dtype: str = "auto"
    gate_trials: int = 0  # 0: sized to tell a mean mass of 0.55 from 0.5
    reverse_trials: int = 200
    probe: tuple = (8, 1500, 1995, 5)  # names, first year, last year, step
    probe_permutations: int = 99
    # the paper's protocol on the models that pass
    lm_ns: tuple = (2, 4, 8)
    causal_trials: int = 160
    lm_temperatures: tuple = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
    # the near design
    near_Ds: tuple = (5, 20, 50, 100)
    near_xs: tuple = (0, 1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130)
    near_pairs: int = 4
    near_names: int = 60  # the first of NAME_POOL the pairs are drawn from (60: NAMES)
    near_probes: int = 0  # distances per pair (0: every one; see near.design)
    near_centres: tuple = (1500, 1700)
    near_near: int = 5
    near_far: int = 50
    gof_boot: int = 999
    front_trials: int = 200_000
    # the encoder: its kernel and the shapes fitted to it
    kernel_names: int = 12
    kernel_years: tuple = (1200, 2000)
    phrasings: int = 3
    fit_max: int = 600
    folds: int = 5
    # the paper's two-reference design
    Ds: tuple = (2, 5, 20, 50, 100, 200)
    centres: tuple = tuple(range(1500, 1700, 5))
    offsets: tuple = tuple(range(-300, 300, 5))
    prompts: int = 20
    n_boot: int = 200
    # the windows each resolution is refitted on
    windows: tuple = (100, 200, 300, 400, 500, 600)
    stable_windows: tuple = (300, 600)
    ref_windows: tuple = (100, 150, 200, 250, 300)
    ref_stable: tuple = (200, 300)
    window_boot: int = 40
    # p_S and p_I against n, and along the temperature
    sweep_names: int = 52
    sweep_years: tuple = (1500, 2000)
    ns: tuple = (2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50)
    trials: int = 3_000
    engine_trials: int = 40_000
    temperatures: tuple = (0.01, 0.02, 0.035, 0.05, 0.1, 0.2, 0.5, 1.0)


DEFAULT = LlmYearsSettings()
QUICK = DEFAULT.replace(
    lam_grid=8, lam_trials=20_000, gate_trials=32, reverse_trials=8, probe=(4, 1500, 1995, 25),
    probe_permutations=19, lm_ns=(2, 4), causal_trials=8, near_Ds=(5, 50), near_xs=(0, 3, 60),
    near_pairs=2, gof_boot=49, front_trials=20_000, kernel_names=6, kernel_years=(1500, 2000),
    phrasings=1, fit_max=400, folds=3, Ds=(20, 50, 100, 200),
    centres=tuple(range(1700, 1750, 5)), offsets=tuple(range(-200, 200, 5)), prompts=4,
    n_boot=20, windows=(100, 200, 300, 400), stable_windows=(300, 400),
    ref_windows=(100, 150, 200), ref_stable=(150, 200), window_boot=8, sweep_names=6,
    ns=(2, 3, 4, 6), trials=1_000, engine_trials=5_000, temperatures=(0.02, 0.05, 0.2))
PAPER = DEFAULT.replace(
    lam_grid=40, lam_trials=1_000_000,
    lms="smollm2-135m,gemma3-270m,qwen2.5-coder-0.5b,qwen2.5-coder-1.5b", lm_dtype="float32",
    reverse_trials=0, probe=(12, 1500, 1999, 3), probe_permutations=199, lm_ns=(2, 4, 8, 16),
    causal_trials=800, near_Ds=(2, 5, 20, 50, 100, 200),
    near_xs=(0, 1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130, 210, 300), near_pairs=30,
    near_names=360, near_probes=7,
    front_trials=1_000_000, kernel_names=24, kernel_years=(800, 2000), fit_max=800, folds=10,
    n_boot=1000, windows=(100, 200, 300, 400, 500, 600, 700, 800), stable_windows=(300, 800),
    window_boot=200, sweep_names=60, ns=(2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50, 60),
    trials=10_000, engine_trials=200_000)


def check(cfg: LlmYearsSettings, ch: str) -> None:
    """Refuse settings that contradict themselves, naming the setting."""
    positive_ints(cfg, ch, "kernel_names", "sweep_names", "phrasings", "fit_max", "prompts",
                  "trials", "engine_trials", "n_boot", "lam_grid", "lam_trials",
                  "causal_trials", "probe_permutations", "gof_boot", "front_trials")
    require(cfg.lm_dtype in ("float32", "bfloat16", "int8", "auto"), ch,
            f"lm_dtype must be float32, bfloat16, int8 or auto; got {cfg.lm_dtype!r}")
    require(min(cfg.lm_ns) == 2 and max(cfg.lm_ns) <= len(NAMES), ch,
            f"lm_ns must start at 2 (the gate's cell) and stay within {len(NAMES)} names; "
            f"got {list(cfg.lm_ns)}")
    require(1.0 in cfg.lm_temperatures, ch, "lm_temperatures must include 1.0 (the model's own)")
    require(isinstance(cfg.near_names, int) and 2 <= cfg.near_names <= len(NAME_POOL), ch,
            f"near_names must be an integer from 2 to {len(NAME_POOL)} (the names the book "
            f"holds); got {cfg.near_names!r}")
    require(2 * cfg.near_pairs * len(cfg.near_Ds) <= cfg.near_names, ch,
            f"near_pairs: {cfg.near_pairs} pairs for each of {len(cfg.near_Ds)} gaps need "
            f"{2 * cfg.near_pairs * len(cfg.near_Ds)} distinct names; near_names is "
            f"{cfg.near_names}")
    require(isinstance(cfg.near_probes, int) and cfg.near_probes >= 0, ch,
            f"near_probes must be an integer >= 0 (0: every distance); got {cfg.near_probes!r}")
    require(isinstance(cfg.near_pairs, int) and cfg.near_pairs >= 2, ch,
            f"near_pairs must be an integer >= 2; got {cfg.near_pairs!r}")
    require(0 <= cfg.near_near < cfg.near_far, ch,
            f"near_near and near_far must satisfy 0 <= near_near < near_far; got "
            f"{cfg.near_near!r}, {cfg.near_far!r}")
    xs = list(cfg.near_xs)
    require(xs == sorted(set(xs)) and xs[0] >= 0 and min(xs) <= cfg.near_near
            and max(xs) >= cfg.near_far, ch,
            f"near_xs must be increasing distances >= 0 with one at most near_near "
            f"({cfg.near_near}) and one at least near_far ({cfg.near_far}); got {xs}")
    require(isinstance(cfg.reverse_trials, int) and (cfg.reverse_trials == 0 or
                                                      cfg.reverse_trials >= 2), ch,
            f"reverse_trials must be 0 (as many as the gate) or >= 2; got "
            f"{cfg.reverse_trials!r}")
    for key in ("kernel_names", "sweep_names"):
        value = getattr(cfg, key)
        require(value <= len(NAMES), ch, f"{key} ({value}) exceeds the {len(NAMES)} names")
    require(max(cfg.ns) <= cfg.sweep_names, ch,
            f"the largest n ({max(cfg.ns)}) needs as many distinct names; sweep_names is "
            f"{cfg.sweep_names}")
    require(min(cfg.ns) >= 2, ch, "ns must be >= 2")
    lo, hi = cfg.kernel_years
    require(cfg.fit_max <= hi - lo, ch,
            f"fit_max ({cfg.fit_max}) exceeds the kernel's year span ({hi - lo})")
    c_lo, c_hi = min(cfg.centres), max(cfg.centres)
    o_lo, o_hi = min(cfg.offsets), max(cfg.offsets)
    span = (c_lo + min(o_lo, -max(cfg.Ds)), c_hi + max(o_hi, max(cfg.Ds)))
    require(lo <= span[0] and span[1] <= hi, ch,
            f"the resolution design spans years {span}, outside kernel_years {(lo, hi)}")
    positive_ints(cfg, ch, "folds", "window_boot")
    require(isinstance(cfg.gate_trials, int) and (cfg.gate_trials == 0 or
                                                   cfg.gate_trials >= 2), ch,
            f"gate_trials must be 0 (sized to tell 0.55 from 0.5) or >= 2; got "
            f"{cfg.gate_trials!r}")
    require(cfg.folds >= 2, ch, f"folds must be >= 2; got {cfg.folds}")
    for key, stable, top, what in (("windows", "stable_windows", cfg.fit_max, "fit_max"),
                                   ("ref_windows", "ref_stable", max(abs(o_lo), o_hi),
                                    "the largest |offset|")):
        wins = list(getattr(cfg, key))
        require(wins == sorted(set(wins)) and wins[0] >= 1 and wins[-1] <= top, ch,
                f"{key} must be increasing values in [1, {what} = {top}]; got {wins}")
        a, b = getattr(cfg, stable)
        require(sum(a <= w <= b for w in wins) >= 2, ch,
                f"{stable} {getattr(cfg, stable)} must hold at least two of {key} {wins}")
    require(0.0 in cfg.lam_floors and any(f > 0 for f in cfg.lam_floors), ch,
            f"lam_floors must hold 0 (no floor) and a floor > 0; got {list(cfg.lam_floors)}")


SETTINGS = Settings(
    chapter="05_llm_years",
    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
    check=check, parameters={"causal_trials": "causal_trials", "causal_lm": "lms"}, seconds=490,
    paper={"Ds": ((2, 5, 20, 50, 100, 200), "half-gaps D"),
           "prompts": (20, "prompts per probe"),
           "phrasings": (1, "phrasings of each question")})
