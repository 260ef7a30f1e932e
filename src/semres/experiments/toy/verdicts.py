"""Chapter 3's references and margins: the law the peak is told apart from, the Monte Carlo
cells of the laws' check, and when the linear profile is no reference for the networks."""

from __future__ import annotations

import numpy as np
import pandas as pd

from semres.core import spaces, theory
from semres.experiments.pareto.verdicts import deviation_cells

from .evaluation import GEOMETRIES

#: Theorem 1's optimum p_S = p_I (constant similarity): the other law the peak could follow
CONSTANT_OPTIMUM = 0.75
#: the linear profile is no reference once more than this share of the similarity networks'
#: tested linear fits after initialisation fail their goodness of fit
MISFIT_SHARE = 0.5


def constant_law(space: str, eps: float) -> tuple[float, float]:
    """(p_S, p_I) of the constant similarity 1[d <= eps] on ``space`` (Theorem 1)."""
    if space not in GEOMETRIES:
        raise ValueError(f"space must be 'circle' or 'segment'; got {space!r}")
    mean, var = (spaces.Circle() if space == "circle" else spaces.Segment()).ball_measure(eps)
    return tuple(float(x) for x in theory.two_item(mean, var_b=var))


def law_gap(mc: pd.DataFrame) -> tuple[float, pd.Series]:
    """The smallest gap, over the Monte Carlo cells, between linear decay's law and the
    constant similarity's at the same resolution, and its cell: a deviation beyond half of it
    would leave the check unable to tell the two laws apart."""
    gaps = [abs(r.theory - constant_law(r.space, r.eps)[r.task != "similarity"])
            for r in mc.itertuples()]
    k = int(np.argmin(gaps))
    return gaps[k], mc.iloc[k]


def law_cells(mc: pd.DataFrame) -> list[dict]:
    """The Monte Carlo cells for ``Report.grid_result``, as chapter 1 makes its laws' cells."""
    return deviation_cells(mc.rename(columns={"monte_carlo": "mc"}),
                           lambda r: f"{r.task}, {r.space}, ε = {r.eps:g}")


def tested_fits(trajectories) -> pd.DataFrame:
    """The similarity networks' linear fits after initialisation tested for their goodness of
    fit (at the snapshots)."""
    return trajectories[trajectories.gof_tested.astype(bool)
                        & trajectories.condition.isin(list(GEOMETRIES))
                        & (trajectories.epoch > 0)]


def linear_profile_misfit(trajectories) -> bool:
    """Whether most tested fits fail: the linear profile is then no reference for them."""
    tested = tested_fits(trajectories)
    return bool(len(tested) and tested.misfit.astype(bool).mean() > MISFIT_SHARE)
