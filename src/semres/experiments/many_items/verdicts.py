"""Chapter 2's rules: when this build's b*(n) and its non-monotonic p_S^n agree with the values
the paper quotes, when the optimum identity holds numerically, and the overview rows they make
(each status by :func:`semres.report.status`, through ``Report.result``)."""

from __future__ import annotations

import numpy as np

from .settings import DEFAULT

#: the paper quotes b*(n) to three significant figures: the relative tolerance that rounding
#: allows
B_STAR_RTOL = 5e-3
#: the paper quotes its minimum of p_S^n to three decimals
PAPER_MIN_TOL = 5e-4
#: the largest gap |p_S - p_I| at the optimiser's b*(n) that still reads as the identity
#: holding (the identity is exact; the optimiser finds b* to far better than this)
IDENTITY_TOL = 1e-6
#: two computations of one exact number (SymPy's sums and the library's, a closed form and
#: its limit) agree to double precision's rounding
ROUNDING = 1e-12


def b_star_agrees(here, paper) -> tuple[bool, float]:
    """Whether this build's b*(n) matches the paper's quoted values within their rounding
    (:data:`B_STAR_RTOL`), and the largest relative deviation."""
    here, paper = np.asarray(here, float), np.asarray(paper, float)
    ok = bool(np.allclose(here, paper, rtol=B_STAR_RTOL, atol=0))
    return ok, float(np.abs(here / paper - 1).max())


def minimum_matches(n_min: int, ps_min: float, paper=DEFAULT.paper_minimum) -> bool:
    """The paper's non-monotonic p_S^n at b = 0.05: its minimum lies at the paper's n and has
    the paper's value (``paper``: (n, p_S^n)) to the three decimals it quotes."""
    return abs(ps_min - paper[1]) < PAPER_MIN_TOL and n_min == paper[0]


def theorem_row(mc) -> dict:
    """Theorem 3's row: every Monte Carlo cell within ``Z_MAX`` standard errors."""
    return dict(result="Theorem 3 (paper Thm. 3), n items",
                statement="p_I^n = (1 - (1 - b)^n)/(n b) and the finite sum for p_S^n (SymPy "
                "for symbolic n; Monte Carlo on circle and segment)",
                check_max_z=mc["z"].abs().max(), check_se=mc["stderr"].max())


def b_star_row(check) -> dict:
    """b*(n) against the paper's values (``check``: n, paper, here): the headline is the
    farthest, the tolerance the paper's rounding there."""
    ok, _ = b_star_agrees(check["here"], check["paper"])
    worst = check.iloc[(check.here / check.paper - 1).abs().argmax()]  # decides the status
    return dict(result="b*(n) against the paper's values",
                statement=f"b*(n) at n = {', '.join(map(str, check.n))}, against the paper's "
                f"quoted values; headline: the farthest, at n = {worst.n}", headline=worst.here,
                ci=(worst.here, worst.here), paper_value=worst.paper, passed=ok,
                tolerance=B_STAR_RTOL * worst.paper, tolerance_reason="relative: the paper "
                "quotes b* to three significant figures (0.377, 0.0149), so 0.5% is its "
                "rounding; b* is computed, not measured, so its interval is a point")


def minimum_row(n_min: int, ps_min: float, paper=DEFAULT.paper_minimum) -> dict:
    """The minimum of p_S^n over n at b = 0.05 against the paper's (n, value). It is computed
    exactly, so the comparison sees any deviation beyond the paper's rounding: the tolerance is
    the smallest deviation it detects."""
    return dict(result="non-monotonic p_S^n at b = 0.05: the minimum",
                statement=f"p_S^n at its minimum over n (at n = {n_min}; the paper: n = "
                f"{paper[0]})", paper_value=paper[1], headline=ps_min,
                tolerance=PAPER_MIN_TOL, detectable=PAPER_MIN_TOL,
                tolerance_reason="the paper quotes the minimum to three decimals",
                passed=minimum_matches(n_min, ps_min, paper))


def identity_row(gap: float) -> dict:
    """The optimum identity, a check: at b*(n) the two rates agree within
    :data:`IDENTITY_TOL`."""
    return dict(result="optimum identity (new here)",
                statement="at b*(n), p_S^n = p_I^n (largest gap over n)", headline=gap,
                passed=gap < IDENTITY_TOL, kind="check", tolerance=IDENTITY_TOL,
                tolerance_reason="numerical: the identity is exact (SymPy), the optimiser "
                "finds b*(n) to far better than this")
