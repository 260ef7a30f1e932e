"""Chapter 2's settings: the check of Theorem 3, the values the paper quotes, and the margins
the comparisons with them use."""

from __future__ import annotations

from dataclasses import dataclass, field

from semres.core.profiles import Config, Settings, positive_ints, require

#: a quoted value stands for half a unit of its last digit either side (verdicts.rounding)
ROUNDING_REASON = "the paper's rounding, half a unit of the last digit it quotes"
#: the largest gap |p_S - p_I| at the optimiser's b*(n) that still reads as the identity holding
IDENTITY_TOL = 1e-6
IDENTITY_REASON = ("numerical: the identity is exact, proved by SymPy, and the optimiser finds "
                   "b*(n) to far better than this")
#: two computations of one exact number (SymPy's sums and the library's, a closed form and its
#: limit) agree to double precision's rounding
ROUNDING = 1e-12


@dataclass(frozen=True)
class ManyItemsSettings(Config):
    trials: int = 2_000_000  # Monte Carlo trials per (space, n, b, Delta, test) cell
    exact_n: range = range(2, 13)  # the n for which SymPy checks the finite sums case by case
    n_mc: tuple = (2, 3, 5, 10, 20)  # numbers of items of the check on the circle,
    b_mc: tuple = (0.05, 0.3)  # its ball measures
    delta_mc: tuple = (0.0, 0.1)  # and its noise levels
    eps_segment: float = 0.1  # the segment's radius, for Theorem 3's heterogeneous form
    b_small: float = 0.05  # a fine resolution, where p_S^n is not monotonic in n
    n_curve: int = 400  # the largest n of that curve
    paper_b_star: dict = field(default_factory=lambda: {  # b*(n) as the paper quotes it
        2: 0.5, 3: 0.377, 4: 0.302, 10: 0.137, 100: 0.0149})
    paper_minimum: tuple = (5, 0.369)  # the paper's minimum of p_S^n at b_small: (n, p_S^n)


def check(cfg: ManyItemsSettings, ch: str) -> None:
    positive_ints(cfg, ch, "trials")
    ns = list(cfg.exact_n)
    require(len(ns) >= 2 and min(ns) >= 2, ch, f"exact_n must hold n >= 2; got {ns}")


DEFAULT = ManyItemsSettings()
QUICK = DEFAULT.replace(trials=100_000, exact_n=range(2, 9))
PAPER = DEFAULT.replace(trials=10_000_000, exact_n=range(2, 17))
SETTINGS = Settings(chapter="02_many_items",
                    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
                    check=check, parameters={"mc_trials": "trials"}, minimums={"n_max": 10},
                    seconds=15)
