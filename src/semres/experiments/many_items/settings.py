"""Chapter 2's settings: the three profiles, the cells of the Monte Carlo check and the values
the paper quotes, in one typed object (the chapter reads ``cfg.trials``; the CLI's ``mc_trials``
overrides it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from semres.core.profiles import Config, Settings, positive_ints, require


def _paper_b_star() -> dict:
    return {2: 0.5, 3: 0.377, 4: 0.302, 10: 0.137, 100: 0.0149}


@dataclass(frozen=True)
class ManyItemsSettings(Config):
    """What chapter 2 runs and what it compares with."""

    #: Monte Carlo trials per (space, n, b, Delta, test) cell
    trials: int = 2_000_000
    #: the n for which SymPy checks the finite sums case by case
    exact_n: range = range(2, 13)
    #: numbers of items, ball measures b and noise levels of the check on the circle
    n_mc: tuple = (2, 3, 5, 10, 20)
    b_mc: tuple = (0.05, 0.3)
    delta_mc: tuple = (0.0, 0.1)
    #: the segment's radius for the check of Theorem 3's heterogeneous form
    eps_segment: float = 0.1
    #: a fine resolution at which p_S^n is not monotonic in n, and the largest n of its curve
    b_small: float = 0.05
    n_curve: int = 400
    #: b*(n) as the paper quotes it (three significant figures), by n
    paper_b_star: dict = field(default_factory=_paper_b_star)
    #: the paper's minimum of p_S^n at ``b_small``: (n, p_S^n), quoted to three decimals
    paper_minimum: tuple = (5, 0.369)


DEFAULT = ManyItemsSettings()
QUICK = DEFAULT.replace(trials=100_000, exact_n=range(2, 9))
PAPER = DEFAULT.replace(trials=10_000_000, exact_n=range(2, 17))


def check(cfg: ManyItemsSettings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "trials")
    ns = list(cfg.exact_n)
    require(len(ns) >= 2 and min(ns) >= 2, ch, f"exact_n must hold n >= 2; got {ns}")


#: chapter 2's Monte Carlo check of Theorem 3
SETTINGS = Settings(chapter="02_many_items",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"}, minimums={"n_max": 10},
                    seconds=15)
