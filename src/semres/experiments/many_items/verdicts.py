"""Chapter 2's decisions. Theorem 3 is judged from its Monte Carlo cells as chapter 1's laws
are; b*(n) and the minimum of p_S^n are computed (their intervals are points) and set against
the values the paper quotes within its rounding."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

# chapter 1's margin and rule for a Monte Carlo check of a closed form, used here as there
from semres.experiments.pareto.settings import MC_MARGIN, MC_MARGIN_REASON  # noqa: F401
from semres.experiments.pareto.verdicts import against_closed_form  # noqa: F401
from semres.report import judge, slack

from .settings import DEFAULT, IDENTITY_TOL


def rounding(quoted) -> float:
    """Half a unit of the last digit the paper quotes (0.377 -> 0.0005, the integer 5 -> 0.5);
    a float is read as the paper writes it (its shortest repr)."""
    if isinstance(quoted, (bool, np.bool_)):
        raise ValueError(f"quoted must be a number the paper quotes; got {quoted!r}")
    integer = isinstance(quoted, (int, np.integer))
    if not integer and not np.isfinite(float(quoted)):
        raise ValueError(f"quoted must be a finite number; got {quoted!r}")
    digits = Decimal(int(quoted) if integer else repr(float(quoted)))
    return 0.5 * 10.0 ** digits.as_tuple().exponent


def _point(label: str, value: float, paper: float, margin: float) -> dict:
    """A computed number as a grid cell: its interval a point, against the paper's value."""
    return {"cell": label, "headline": float(value), "ci": (float(value), float(value)),
            "paper_value": float(paper), "margin": margin}


def b_star_cells(check) -> list[dict]:
    """b*(n) against the paper's values (``check``: n, paper, here), each within the paper's
    rounding; the one nearest to failing first (it heads the row)."""
    if len(check) == 0:
        raise ValueError("check: b*(n) needs at least one of the paper's values")
    cells = [_point(f"n = {int(n)}", here, paper, rounding(paper))
             for n, paper, here in zip(check["n"], check["paper"], check["here"])]
    return sorted(cells, key=lambda c: slack(*c["ci"], c["paper_value"], c["margin"]))


def b_star_agrees(check) -> tuple[bool, dict]:
    """Whether every b*(n) lies within the paper's rounding, and the cell nearest to failing."""
    cells = b_star_cells(check)
    return all(judge(*c["ci"], c["paper_value"], c["margin"]) == "pass" for c in cells), cells[0]


def minimum_cells(n_min: int, ps_min: float, paper=DEFAULT.paper_minimum) -> list[dict]:
    """The minimum of p_S^n against the paper's (n, value): two cells of one claim, each within
    the paper's rounding (for n: the same integer)."""
    return [_point("its value", ps_min, paper[1], rounding(paper[1])),
            _point("where it lies (n)", n_min, paper[0], rounding(int(paper[0])))]


def mc_label(row) -> str:
    return (f"{row['space']}, n = {int(row['n'])}, <b> = {row['mean_b']:g}, "
            f"Delta = {row['delta']:g}, {'p_S' if row['task'] == 'similarity' else 'p_I'}")


def identity(gap: float) -> dict:
    """``Report.result``'s keyword arguments (but its words) for the optimum identity, a check:
    at b*(n) the two rates agree within :data:`IDENTITY_TOL`."""
    return dict(headline=gap, passed=gap < IDENTITY_TOL, kind="check", margin=IDENTITY_TOL)
