"""Chapter 2's rules: how Theorem 3 is judged from its Monte Carlo cells, how this build's
b*(n) and the minimum of its non-monotonic p_S^n are set against the values the paper quotes,
when the optimum identity holds numerically, and the overview rows they make (each status by
:func:`semres.report.status`, through ``Report.grid_result`` and ``Report.result``).

Theorem 3 is one finding over its Monte Carlo cells: each cell's deviation (estimate - closed
form) with its 95 % interval against 0 and the practical margin :data:`MC_MARGIN`; the weakest
cell decides. b*(n) and the minimum are computed, not measured (their intervals are points),
and each is set against the paper's quoted value within the paper's rounding, half a unit of
the last digit it quotes (:func:`rounding`)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from semres.experiments.pareto.verdicts import CLOSED_FORM, deviation_cells
from semres.report import judge, slack

from .settings import DEFAULT

#: the smallest error in a success probability that would matter to Theorem 3
MC_MARGIN = 0.005
MC_MARGIN_REASON = ("half a percentage point: about a line's width on the paper's plots of a "
                    "success probability, so a smaller error would change none of its figures "
                    "or statements")
#: the largest gap |p_S - p_I| at the optimiser's b*(n) that still reads as the identity
#: holding (the identity is exact; the optimiser finds b* to far better than this)
IDENTITY_TOL = 1e-6
#: two computations of one exact number (SymPy's sums and the library's, a closed form and
#: its limit) agree to double precision's rounding
ROUNDING = 1e-12


def rounding(quoted) -> float:
    """The paper's rounding of a value it quotes: half a unit of its last digit (0.377 ->
    0.0005, 0.0149 -> 0.00005, the integer 5 -> 0.5). A float is read as the paper writes it
    (its shortest repr); bools and non-finite values raise ValueError."""
    if isinstance(quoted, (bool, np.bool_)):
        raise ValueError(f"quoted must be a number the paper quotes; got {quoted!r}")
    if isinstance(quoted, (int, np.integer)):
        digits = Decimal(int(quoted))
    else:
        value = float(quoted)
        if not np.isfinite(value):
            raise ValueError(f"quoted must be a finite number; got {quoted!r}")
        digits = Decimal(repr(value))
    return 0.5 * 10.0 ** digits.as_tuple().exponent


def b_star_cells(check) -> list[dict]:
    """b*(n) against the paper's values (``check``: n, paper, here) as the cells of one
    finding: each n's value, a point (computed, not measured), against the paper's within its
    rounding; the one nearest to failing first (the smallest slack, as ``Report.grid_result``
    picks the cell that heads the row)."""
    if len(check) == 0:
        raise ValueError("check: b*(n) needs at least one of the paper's values")
    cells = [{"cell": f"n = {int(n)}", "headline": float(here), "ci": (float(here), float(here)),
              "paper_value": float(paper), "margin": rounding(paper)}
             for n, paper, here in zip(check["n"], check["paper"], check["here"])]
    return sorted(cells, key=lambda c: slack(*c["ci"], c["paper_value"], c["margin"]))


def b_star_agrees(check) -> tuple[bool, dict]:
    """Whether every b*(n) of ``check`` lies within the paper's rounding of its quoted value,
    and the cell nearest to failing, the one that heads the row (:func:`b_star_cells`)."""
    cells = b_star_cells(check)
    ok = all(judge(*c["ci"], c["paper_value"], c["margin"]) == "pass" for c in cells)
    return ok, cells[0]


def b_star_row(check) -> dict:
    """The keyword arguments of ``Report.grid_result`` for b*(n) against the paper's values
    (``check``: n, paper, here): one finding, the farthest n heading it."""
    return dict(result="b*(n) against the paper's values",
                statement=f"b*(n) at n = {', '.join(map(str, check.n))}, against the paper's "
                "quoted values", cells=b_star_cells(check), table="b_star_cells",
                margin_reason="the paper's rounding, half a unit of the last digit it quotes; "
                "b* is computed to far better than that, so its interval is a point",
                claim="equal")


def minimum_cells(n_min: int, ps_min: float, paper=DEFAULT.paper_minimum) -> list[dict]:
    """The minimum of p_S^n over n at b = 0.05 against the paper's (n, value): its value and
    where it lies, two cells of one claim, each a point against the paper's rounding."""
    n_paper, value = paper
    return [{"cell": "its value", "headline": float(ps_min), "ci": (float(ps_min), float(ps_min)),
             "paper_value": float(value), "margin": rounding(value)},
            {"cell": "where it lies (n)", "headline": float(n_min),
             "ci": (float(n_min), float(n_min)), "paper_value": float(n_paper),
             "margin": rounding(int(n_paper))}]


def minimum_matches(n_min: int, ps_min: float, paper=DEFAULT.paper_minimum) -> bool:
    """The paper's non-monotonic p_S^n at b = 0.05: its minimum lies at the paper's n and has
    the paper's value (``paper``: (n, p_S^n)), each within the paper's rounding."""
    return all(judge(*c["ci"], c["paper_value"], c["margin"]) == "pass"
               for c in minimum_cells(n_min, ps_min, paper))


def minimum_row(n_min: int, ps_min: float, paper=DEFAULT.paper_minimum) -> dict:
    """The keyword arguments of ``Report.grid_result`` for the minimum of p_S^n over n at
    b = 0.05 against the paper's (n, value): one claim, its value heading it. Both are
    computed exactly, so the comparison sees any deviation beyond the paper's rounding."""
    return dict(result="non-monotonic p_S^n at b = 0.05: the minimum",
                statement=f"p_S^n at its minimum over n, at n = {n_min} (the paper: about "
                f"{paper[1]} near n = {paper[0]})", cells=minimum_cells(n_min, ps_min, paper),
                table="minimum_cells", claim="equal",
                margin_reason="the paper's rounding, half a unit of the last digit it quotes, "
                "which for n asks for the same integer; p_S^n is computed exactly, so its "
                "interval is a point")


def mc_label(row) -> str:
    """A Monte Carlo cell of Theorem 3 in words: "circle, n = 5, b = 0.05, Delta = 0, p_S"."""
    return (f"{row['space']}, n = {int(row['n'])}, <b> = {row['mean_b']:g}, "
            f"Delta = {row['delta']:g}, {'p_S' if row['task'] == 'similarity' else 'p_I'}")


def theorem_row(mc) -> dict:
    """The keyword arguments of ``Report.grid_result`` for Theorem 3: one finding over every
    Monte Carlo cell, each deviation against 0 within :data:`MC_MARGIN`, with the cells'
    largest |z| and standard error recorded."""
    return dict(result="Theorem 3 (paper Thm. 3), n items",
                statement="Monte Carlo minus the closed form, p_I^n = (1 - (1 - b)^n)/(n b) and "
                "the finite sum for p_S^n (on the circle, and averaged over b_p on the "
                "segment)", cells=deviation_cells(mc, mc_label), table="cells_theorem3",
                compared_with=0.0, compared_with_label=CLOSED_FORM, margin=MC_MARGIN,
                margin_reason=MC_MARGIN_REASON, claim="equal",
                check_max_z=float(mc["z"].abs().max()), check_se=float(mc["stderr"].max()))


def identity_row(gap: float) -> dict:
    """The optimum identity, a check (true by construction: SymPy proves it): at b*(n) the
    two rates agree within :data:`IDENTITY_TOL`."""
    return dict(result="optimum identity (new here)",
                statement="at b*(n), p_S^n = p_I^n (largest gap over n)", headline=gap,
                passed=gap < IDENTITY_TOL, kind="check", margin=IDENTITY_TOL,
                margin_reason="numerical: the identity is exact, proved by SymPy, and the "
                "optimiser finds b*(n) to far better than this")
