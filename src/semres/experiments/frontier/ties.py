"""Distance ties on discrete spaces: the cycle C_N and the L x L torus grid, the constant
kernel's exact two-item rates there, their height above the universal front (tau/2) and how
fast it vanishes as the space refines."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from semres.core import kernels, spaces, theory
from semres.core.simulate import exact_two_item, luce_success

from .settings import DEFAULT


def cycle(N: int):
    """The cycle graph C_N: its distance matrix in steps, and the steps per unit length."""
    k = np.arange(N)
    gap = np.abs(k[:, None] - k[None, :])
    return np.minimum(gap, N - gap).astype(float), N


def torus(L: int):
    """The L x L torus grid with the city-block distance, in steps, and the steps per side."""
    x, y = np.divmod(np.arange(L * L), L)
    gaps = [np.abs(c[:, None] - c[None, :]) for c in (x, y)]
    return sum(np.minimum(gap, L - gap) for gap in gaps).astype(float), L


def tie_radius(unit: int, eps: float) -> float:
    """The radius ``eps`` in steps, halfway between two grid distances."""
    return math.floor(eps * unit) + 0.5


def tie_spaces(cycle_sizes, torus_sides) -> list:
    """The discrete spaces of the ties section: (name, size, distance builder)."""
    return ([("cycle", N, cycle) for N in cycle_sizes]
            + [("torus", L, torus) for L in torus_sides])


def ties_table(jobs, eps: float = DEFAULT.eps_tie) -> pd.DataFrame:
    """Exact two-item rates of the constant kernel on each space, its tie probability and
    height above the front."""
    rows = []
    for name, size, make in tqdm(jobs, desc="discrete spaces, exact"):
        dist, unit = make(size)
        space = spaces.Discrete(dist)
        radius = tie_radius(unit, eps)
        p_s, p_i = exact_two_item(space, kernels.Constant(radius))
        counts = np.unique(dist[0], return_counts=True)[1] / len(dist)  # homogeneous: one row
        tau = float((counts**2).sum())
        rows.append({"space": name, "size": size, "points": len(dist), "tau": tau,
                     "b": space.ball_measure(radius)[0], "p_i": p_i, "p_s": p_s,
                     "above_front": p_s - theory.front(p_i)})
    return pd.DataFrame(rows)


def tie_slopes(ties):
    """Per family of spaces, the log-log slope of the height against the number of points over
    all sizes, and the (lowest, highest) slope between successive sizes."""
    rates, slopes = {}, {}
    for name, g in ties.sort_values("points").groupby("space"):
        x, y = np.log(g.points.to_numpy()), np.log(g.above_front.to_numpy())
        rates[name] = float(np.polyfit(x, y, 1)[0])
        slope = np.diff(y) / np.diff(x)
        slopes[name] = (float(slope.min()), float(slope.max()))
    return rates, slopes


def tie_check(ties, jobs, trials: int, stream, eps: float = DEFAULT.eps_tie) -> pd.DataFrame:
    """The engine on ``jobs`` (ties included) against their exact rates."""
    rows = []
    for j, (name, size, make) in enumerate(jobs):
        dist, unit = make(size)
        kern = kernels.Constant(tie_radius(unit, eps))
        row = ties[(ties.space == name) & (ties["size"] == size)].iloc[0]
        for k, (task, exact) in enumerate((("similarity", row.p_s),
                                           ("identification", row.p_i))):
            est = luce_success(spaces.Discrete(dist), kern, task, 2, trials,
                               seed=stream("tie_check", j, k))
            rows.append({"space": name, "size": size, "task": task, "exact": exact,
                         "mc": est.mean, "stderr": est.stderr, "z": est.zscore(exact)})
    return pd.DataFrame(rows)
