"""Chapter 1's decisions. A law is one finding over its Monte Carlo cells
(``Report.grid_result``): each cell's deviation from the closed form, with its 95 % interval,
against 0 within the practical margin; the cell whose interval reaches farthest heads the row."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from .settings import MC_MARGIN

#: the two-sided 95 % normal quantile of a Monte Carlo cell's interval
Z95 = float(norm.ppf(0.975))


def law_cells(mc) -> dict:
    """Which cells of the check table test which law, by the table they are saved in."""
    return {"cells_theorem1_circle": (mc.space == "circle") & (mc.delta == 0),
            "cells_theorem2_noise": mc.delta > 0,
            "cells_segment": mc.space == "segment",
            "cells_ties": mc.space == "discrete"}


def cell_label(row) -> str:
    return (f"{row['space']}, eps = {row['eps']:g}, Delta = {row['delta']:g}, "
            f"{'p_S' if row['task'] == 'similarity' else 'p_I'}")


def deviation_cells(cells, label=cell_label) -> list[dict]:
    """Each cell (``mc``, ``theory``, ``stderr``) as a grid cell: its deviation from the closed
    form and that deviation's 95 % interval, farthest-reaching first."""
    if len(cells) == 0:
        raise ValueError("cells: a law needs at least one Monte Carlo cell")
    if not (cells["stderr"] > 0).all():
        raise ValueError("cells: every Monte Carlo cell needs a standard error > 0")
    dev = (cells["mc"] - cells["theory"]).to_numpy(float)
    half = Z95 * cells["stderr"].to_numpy(float)
    rows = cells.reset_index(drop=True)
    return [{"cell": label(rows.iloc[k]), "headline": float(dev[k]),
             "ci": (float(dev[k] - half[k]), float(dev[k] + half[k]))}
            for k in np.argsort(-(np.abs(dev) + half), kind="stable")]


def against_closed_form(cells, table: str, label=cell_label) -> dict:
    """``Report.grid_result``'s keyword arguments (but its name and statement) for a law
    checked by the Monte Carlo ``cells``."""
    return dict(cells=deviation_cells(cells, label), table=table, compared_with=0.0,
                compared_with_label="no deviation from the closed form", margin=MC_MARGIN,
                claim="equal", check_max_z=float(cells["z"].abs().max()),
                check_se=float(cells["stderr"].max()))


def margin_separates(cost: float) -> bool:
    """Whether the margin lies below the segment's cost of heterogeneity, Var(b), so that its
    row can tell the segment from the homogeneous front."""
    return MC_MARGIN < cost


def reach(rows) -> float:
    """How far the farthest-reaching interval among summary ``rows`` reaches from 0."""
    return float(max(max(abs(r["ci_low"]), abs(r["ci_high"])) for r in rows))
