"""Chapter 1's results at a glance: which Monte Carlo cells check which law, and how a law is
judged from them. Each law is one finding over its grid of cells
(``Report.grid_result``): a cell's deviation (estimate - closed form) with its 95 % interval
against 0 and the practical margin :data:`MC_MARGIN`; the weakest cell decides, and among
equally weak cells the one whose interval reaches farthest from 0 heads the row. The largest
|z| and standard error of the cells are recorded beside it (the chapter also asserts every
|z| below :data:`semres.report.Z_MAX`)."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

#: the two-sided 95 % normal quantile of a Monte Carlo cell's interval
Z95 = float(norm.ppf(0.975))
#: the smallest error in a success probability that would matter to the two-item laws
MC_MARGIN = 0.005
MC_MARGIN_REASON = ("half a percentage point: about a line's width on the paper's plots of a "
                    "success probability, so a smaller error would change none of its figures "
                    "or statements")
#: what a deviation is compared with
CLOSED_FORM = "no deviation from the closed form"


def overview_cells(mc) -> list[tuple[str, str, object, str]]:
    """The chapter's overview rows: (result, statement, which Monte Carlo cells check it, the
    name of the table its cells are saved in)."""
    return [
        ("Theorem 1 (paper Thm. 1) on the circle", "Monte Carlo minus the closed form, "
         "p_S = 1/2 + <b> - <b>^2 and p_I = 1 - <b>/2 on the circle",
         (mc.space == "circle") & (mc.delta == 0), "cells_theorem1_circle"),
        ("Theorem 2 (paper Thm. 2), noise", "Monte Carlo minus the noisy two-item law, on "
         "every space with Delta > 0", mc.delta > 0, "cells_theorem2_noise"),
        ("Theorem 1 with heterogeneity (segment)", "Monte Carlo minus the law with the "
         "segment's Var(b): p_S lower by Var(b) at equal p_I", mc.space == "segment",
         "cells_segment"),
        ("ties in a discrete space (new)", "Monte Carlo minus Theorem 2 with the tie term: "
         "p_S gains tau/2 (the same theory matches an exact enumeration)",
         mc.space == "discrete", "cells_ties")]


def cell_label(row) -> str:
    """A Monte Carlo cell in words: "circle, eps = 0.05, Delta = 0.1, similarity"."""
    return (f"{row['space']}, eps = {row['eps']:g}, Delta = {row['delta']:g}, "
            f"{'p_S' if row['task'] == 'similarity' else 'p_I'}")


def deviation_cells(cells, label=cell_label) -> list[dict]:
    """Each Monte Carlo cell (a row of a check table: ``mc``, ``theory``, ``stderr``) as the
    keyword arguments of one grid cell, named by ``label(row)``: its deviation (estimate -
    closed form) and that deviation's 95 % interval, farthest-reaching first (the cell whose
    interval reaches farthest from 0 heads the row when no cell is weaker)."""
    if len(cells) == 0:
        raise ValueError("cells: a law needs at least one Monte Carlo cell")
    if not (cells["stderr"] > 0).all():
        raise ValueError("cells: every Monte Carlo cell needs a standard error > 0")
    dev = (cells["mc"] - cells["theory"]).to_numpy(float)
    half = Z95 * cells["stderr"].to_numpy(float)
    order = np.argsort(-(np.abs(dev) + half), kind="stable")
    rows = cells.reset_index(drop=True)
    return [{"cell": label(rows.iloc[k]), "headline": float(dev[k]),
             "ci": (float(dev[k] - half[k]), float(dev[k] + half[k]))} for k in order]


def margin_reason(result: str, segment_cost: tuple[float, float] | None = None) -> str:
    """Why :data:`MC_MARGIN` matters to a law; for the segment's law, also that the margin
    lies below the cost of heterogeneity it separates (``segment_cost``: (eps, Var(b)))."""
    if segment_cost is None or "segment" not in result:
        return MC_MARGIN_REASON
    eps, cost = segment_cost
    side = ("below" if MC_MARGIN < cost else
            "not below (so this row cannot tell the segment from the homogeneous front)")
    return (f"{MC_MARGIN_REASON}; {side} the segment's cost of heterogeneity, "
            f"Var(b) = {cost:.4f} at ε = {eps:g}")


def overview_rows(mc, segment_cost: tuple[float, float] | None = None) -> list[dict]:
    """The keyword arguments of ``Report.grid_result`` for each overview row: one finding per
    law over its Monte Carlo cells (:func:`deviation_cells`), each deviation against 0 within
    :data:`MC_MARGIN`, with the cells' largest |z| and standard error recorded; a row marked
    "(new)" is beyond the paper. ``segment_cost`` ((eps, Var(b)) on the segment) goes into
    the heterogeneity row's reason."""
    rows = []
    for result, statement, cells, table in overview_cells(mc):
        sel = mc.loc[cells]
        rows.append(dict(result=result, statement=statement, cells=deviation_cells(sel),
                         table=table, compared_with=0.0,
                         compared_with_label=CLOSED_FORM, margin=MC_MARGIN,
                         margin_reason=margin_reason(result, segment_cost), claim="equal",
                         check_max_z=float(sel["z"].abs().max()),
                         check_se=float(sel["stderr"].max()), new="(new)" in result))
    return rows


def reach(rows) -> float:
    """How far from its closed form the farthest-reaching interval among the findings
    ``rows`` (summary rows) reaches: max |ci_low|, |ci_high|."""
    return float(max(max(abs(r["ci_low"]), abs(r["ci_high"])) for r in rows))
