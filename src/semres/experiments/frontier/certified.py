"""The best similarity for two items, certified: p_S is a concave quadratic in the law mu of
g's values at fixed p_I (its kernel min(x, y) / (x + y) is positive definite), solved on a grid
by NNLS and bounded for every similarity by weak duality (:func:`two_item_bound`)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar, nnls
from scipy.special import expit
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from semres.core.theory import two_item

from .floor_n import ROUNDING
from .steps import targets

#: the logistic's largest |second derivative|: it bounds the curvature of the kernel in log x
#: and of c(s) = 1 / (1 + e^s), so phi = 2 K nu + beta c curves up by at most (2 + max(-beta,
#: 0)) times this and dips at most that times w^2 / 8 below a cell's ends: an infimum read on
#: a grid is certified
_CURVATURE = 1 / (6 * math.sqrt(3))


def _value_kernel(s, t):
    """min(x, y) / (x + y) for x = e^s, y = e^t: the logistic of -|s - t|."""
    return expit(-np.abs(np.subtract.outer(s, t)))


def two_item_bound(levels, masses, delta: float, *, spacing: float = 1e-3) -> dict:
    """A proven bound on p_S of every similarity with delta <= g <= 1 (two items) from one
    candidate nu (``levels``, ``masses``): p_S(mu) <= upper_bound + slope (p_I(mu) - p_i), by
    (mu - nu)'K(mu - nu) >= 0 and the infimum of 2 K nu + beta c over [delta, 1] read on a grid
    of step ``spacing`` less its curvature's dip (:data:`_CURVATURE`)."""
    g, m = np.asarray(levels, float), np.asarray(masses, float)
    m = m / m.sum()
    keep = m > 0
    t, nu = np.log(np.clip(g[keep], delta, 1.0)), m[keep]
    energy = float(nu @ _value_kernel(t, t) @ nu)
    p_i = float(nu @ expit(-t))
    lo = math.log(delta)
    s = np.union1d(np.linspace(lo, 0.0, math.ceil(-lo / spacing) + 1), t)
    pull, c = 2 * _value_kernel(s, t) @ nu, expit(-s)
    width2 = np.diff(s) ** 2 / 8
    # the candidate's own multiplier: 2 K nu + alpha + beta c = 0 on its support
    on = np.searchsorted(s, t)
    if t.size >= 2:
        (_, beta0), *_ = np.linalg.lstsq(np.column_stack([np.ones(t.size), c[on]]), -pull[on],
                                         rcond=None)
    else:
        beta0 = 0.0

    def bound(beta):
        phi = pull + beta * c
        dip = (2.0 + max(-float(beta), 0.0)) * _CURVATURE * width2
        floor = (np.minimum(phi[:-1], phi[1:]) - dip).min()
        return 1 + energy + beta * p_i - floor

    span = 0.05 * (1 + abs(beta0))
    best = minimize_scalar(bound, bounds=(beta0 - span, beta0 + span), method="bounded",
                           options={"xatol": 1e-10})
    slope = float(best.x) if best.fun < bound(beta0) else float(beta0)
    # sums of a few thousand terms in double precision: a margin for rounding
    upper = float(bound(slope)) + 1e-12 * (2 + abs(slope))
    return {"upper_bound": upper, "slope": slope, "p_s": 1 - energy, "p_i": p_i}


#: the weight of the two linear constraints' rows in :func:`best_two_item`'s least squares
_WEIGHT = 1e6


@functools.lru_cache(maxsize=8)
def _least_squares(delta: float, grid: int):
    """The grid in log x and :func:`best_two_item`'s system (the kernel's Cholesky factor over
    the constraint rows), the same at every p_I of a floor: made once per floor."""
    s = np.linspace(math.log(delta), 0.0, grid)
    rows = _WEIGHT * np.vstack([np.ones(grid), expit(-s)])
    return s, np.vstack([np.linalg.cholesky(_value_kernel(s, s)).T, rows])


def best_two_item(target_p_i: float, delta: float, grid: int = 800) -> dict:
    """The certified best similarity at ``target_p_i``: the concave program on ``grid``
    values of log g as a non-negative least squares problem (the two constraints as heavy
    rows), bounded by :func:`two_item_bound`; a step similarity from g = 1 down to delta."""
    s, system = _least_squares(float(delta), grid)
    with threadpool_limits(1):
        mu, _ = nnls(system.copy(), np.r_[np.zeros(grid), _WEIGHT, _WEIGHT * target_p_i],
                     maxiter=50 * grid)
    mu = mu[::-1] / mu.sum()                     # levels from the top: x = 1 first
    levels = np.exp(s[::-1])
    levels[0], levels[-1] = 1.0, delta
    keep = mu > 0
    keep[0] = True                               # g(0) = 1, possibly on a band of mass 0
    levels, masses = levels[keep], mu[keep]
    cert = two_item_bound(levels, masses, delta)
    return {"levels": levels, "masses": masses, "K": int(keep.sum()), **cert}


def gain_bound(p_i, upper_bounds, slopes, delta: float, points: int = 20_001) -> float:
    """The most any similarity gains over the constant kernel at any p_I: the lowest of the
    certificates' lines less the (concave) front is convex on each cell, largest at an end."""
    p_j, u_j, b_j = (np.asarray(a, float) for a in (p_i, upper_bounds, slopes))
    p = np.linspace(0.5, 1 / (1 + delta), points)
    front = np.asarray(two_item_front(p, delta))
    mid = (p[:-1] + p[1:]) / 2
    j = np.argmin(u_j[:, None] + b_j[:, None] * (mid[None] - p_j[:, None]), axis=0)
    ends = [u_j[j] + b_j[j] * (q - p_j[j]) - f for q, f in ((p[:-1], front[:-1]),
                                                            (p[1:], front[1:]))]
    return float(np.maximum(*ends).max())


def two_item_front(p_i, delta: float):
    """The constant kernel's two-item p_S at identification ``p_i`` (Theorem 2 inverted)."""
    top = 1 / (1 + delta)
    b = (top - np.asarray(p_i, float)) / (top - 0.5)
    return two_item(np.clip(b, 0.0, 1.0), delta)[0]


def gain(best: dict, delta: float) -> float:
    """How far a two-item optimum lies above the constant kernel's front at its own p_I."""
    return best["p_s"] - two_item_front(best["p_i"], delta)


def certified_frontier(deltas, grid: int, count: int, scan: int):
    """Certified optima per floor at ``count`` targets, on a ``scan`` of p_I (half the grid)
    and at the largest gain (refined from the scan): three tables with ``gap`` and ``gain``."""
    certified, found_all, peaks = [], [], []
    with threadpool_limits(1):  # BLAS threads move the largest gains by 1e-10
        for dl in tqdm(deltas, desc="two-item optima"):
            certified += [{"delta": dl, **best_two_item(p, dl, grid)}
                          for p in targets(2, dl, count)]
            found = [{"delta": dl, **best_two_item(p, dl, grid // 2)}
                     for p in targets(2, dl, scan, 0.01, 0.995)]
            found_all += found
            j = int(np.argmax([gain(b, dl) for b in found]))
            bracket = (found[max(j - 1, 0)]["p_i"], found[min(j + 1, len(found) - 1)]["p_i"])
            peak = minimize_scalar(lambda p: -gain(best_two_item(p, dl, grid), dl),
                                   bounds=bracket, method="bounded", options={"xatol": 1e-6})
            peaks.append({"delta": dl, **best_two_item(peak.x, dl, grid)})
    tabs = [pd.DataFrame(x) for x in (certified, found_all, peaks)]
    for t in tabs:
        t["gap"] = t.upper_bound - t.p_s
        t["gain"] = t.p_s - two_item_front(t.p_i, t.delta)
    return tuple(tabs)


def best_per_floor(certified, scan, peaks) -> pd.DataFrame:
    """Per floor: the largest gain's optimum, the ``cap`` on any similarity's gain
    (:func:`gain_bound`) and the largest gap at the targets."""
    everything = pd.concat([certified, scan, peaks])
    caps = {dl: gain_bound(t.p_i, t.upper_bound, t.slope, dl)
            for dl, t in everything.groupby("delta")}
    best = peaks.set_index("delta")
    best["cap"] = pd.Series(caps)
    best["target_gap_max"] = certified.groupby("delta").gap.max()
    return best


def optimum_shape(levels, masses, delta: float, bins: int = 8) -> dict:
    """An optimum's plateau share at g = 1, highest level below 1, floor share, and the
    max / min of its mass per level over ``bins`` ranges of log g (1 for an exponential)."""
    inner = (levels > delta) & (levels < 1) & (masses > 0)
    s, w = np.log(levels[inner]), masses[inner]
    edges = np.linspace(s.min(), s.max(), bins + 1)
    per_level = np.histogram(s, edges, weights=w)[0] / np.histogram(s, edges)[0]
    return {"plateau": masses[0], "below_one": levels[inner].max(),
            "floor": masses[-1] * (levels[-1] == delta),
            "density_ratio": per_level.max() / per_level.min()}


def optimum_shapes(optima: pd.DataFrame) -> pd.DataFrame:
    """:func:`optimum_shape` of each optimum, with its floor, p_I and gain."""
    return pd.DataFrame([{"delta": r.delta, "p_i": r.p_i, "gain": r.gain,
                          **optimum_shape(r.levels, r.masses, r.delta)}
                         for r in optima.itertuples()])


def local_shortfall(last: pd.DataFrame, certified: pd.DataFrame):
    """The local optima at the certified targets (``last``, in order) with the certificate's
    line at their p_I, and per floor their largest shortfall from the certified optimum."""
    local = last.reset_index(drop=True)
    local = local.assign(certificate=certified.upper_bound.to_numpy()
                         + certified.slope.to_numpy() * (local.p_i - certified.p_i.to_numpy()))
    shortfall = pd.Series(certified.p_s.to_numpy() - local.p_s.to_numpy(),
                          index=local.delta).groupby(level=0).max()
    return local, shortfall


def program_shortfall(optima: pd.DataFrame, grid: int) -> np.ndarray:
    """How far another optimiser's two-item optima lie below the concave program's on
    ``grid`` levels (none may lie above its certificate)."""
    exact = [best_two_item(r.p_i, r.delta, grid) for r in optima.itertuples()]
    if (optima.p_s.to_numpy() > np.array([e["upper_bound"] for e in exact]) + ROUNDING).any():
        raise ValueError("an optimum lies above its certificate")
    return np.array([e["p_s"] for e in exact]) - optima.p_s.to_numpy()
