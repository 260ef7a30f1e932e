"""The best similarity for two items, certified: the frontier as a concave quadratic program
and its dual bound (chapter 7's "best any similarity can do").

For two items only the distribution mu of the values of g matters once g is sorted, and with
x, y the values of the two items

    p_I = int 1 / (1 + x) dmu(x),        p_S = int int max(x, y) / (x + y) dmu dmu
                                             = 1 - int int min(x, y) / (x + y) dmu dmu.

min(x, y) / (x + y) is a positive definite kernel (the product of min(x, y) and
1 / (x + y) = int e^{-tx} e^{-ty} dt), so p_S is a concave quadratic in mu at fixed p_I;
in s = log x the kernel is the logistic sigma(-|s - t|). :func:`best_two_item` solves it on a
grid, and :func:`two_item_bound` turns any candidate into an upper bound on the whole frontier
by weak duality (its docstring gives the proof). The rest runs this over the chapter's floors
and reads the optima: their gains over the constant kernel, the engine's estimates, their
shapes.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar, nnls
from scipy.special import expit
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from semres.core import spaces
from semres.core.simulate import TASKS, luce_success
from semres.core.theory import two_item

from .steps import check_count, check_steps, step_kernel, targets

#: sup |q (1 - q) (1 - 2q)| over q in (0, 1): the largest |second derivative| of the logistic
#: sigma(u), reached at q = (3 -+ sqrt 3) / 6. It bounds both the kernel's 1 / (1 + e^|s - t|)
#: (convex off its atom, curvature at most this) and c(s) = 1 / (1 + e^s) (concave on s <= 0)
_CURVATURE = 1 / (6 * math.sqrt(3))
#: sums of a few hundred floating-point terms: the rounding a proven bound is allowed
_ROUNDING = 1e-12


def _curvature_bound(beta: float) -> float:
    """An upper bound on the second derivative of phi = 2 K nu + beta c between grid points
    (nu a probability): each kernel term curves up by at most _CURVATURE, so 2 K nu by at most
    2 _CURVATURE; beta c is concave for beta >= 0 and curves up by at most -beta _CURVATURE for
    beta < 0. (The kernel's kinks at the atoms bend phi down, which cannot lower its infimum
    below the grid's.) A function with phi'' <= M dips below the smaller end of a cell of width
    w by at most M w^2 / 8: it is the bound that certifies an infimum read on a grid."""
    return (2.0 + max(-float(beta), 0.0)) * _CURVATURE


def _value_kernel(s, t):
    """min(x, y) / (x + y) for x = e^s, y = e^t: the logistic of -|s - t|."""
    return expit(-np.abs(np.subtract.outer(s, t)))


def _check_delta(delta):
    if not (0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")


def two_item_bound(levels, masses, delta: float, *, spacing: float = 1e-3) -> dict:
    """A proven upper bound on p_S of every similarity with delta <= g <= 1 (two items), built
    from one candidate: the step similarity nu with ``levels`` and ``masses``.

    For every value distribution mu, (mu - nu)' K (mu - nu) >= 0 (K positive definite) gives
    p_S(mu) <= 1 + nu'K nu - 2 int (K nu) dmu, and for any slope beta, with c(x) = 1 / (1 + x),
    int f dmu = beta p_I(mu) + int (f - beta c) dmu <= beta p_I(mu) + sup_x (f - beta c). So

        p_S(mu) <= upper_bound + slope (p_I(mu) - p_i)      for every mu, at every p_I,

    with p_i the candidate's p_I. The infimum of phi = 2 K nu + beta c over log x in
    [log delta, 0] is taken on a grid of step ``spacing`` holding every atom of nu. A function
    can dip below the smaller end value of a grid cell of width w by as much as its largest
    upward curvature M allows, M w^2 / 8 (a convex function dips most); here
    M = (2 + max(-beta, 0)) _CURVATURE (:func:`_curvature_bound`), so the floor read on the grid
    is lowered by that much in every cell and the bound is a proof, not an estimate. The slope
    is fitted to the candidate's KKT conditions and tuned by a bounded scalar search (any slope
    gives a valid bound; the right one a tight one). Returns ``upper_bound``, ``slope``, and the
    candidate's exact ``p_s`` and ``p_i``.
    """
    _check_delta(delta)
    g, m, _ = check_steps(levels, masses, 2)
    if g[-1] < delta * (1 - 1e-12) or g[0] > 1 + 1e-12:
        raise ValueError(f"levels must lie in [delta, 1] = [{delta}, 1]")
    if not (0 < spacing <= 0.1):
        raise ValueError(f"spacing must lie in (0, 0.1]; got {spacing!r}")
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
        floor = (np.minimum(phi[:-1], phi[1:]) - _curvature_bound(beta) * width2).min()
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
    """The best similarity for two items at identification ``target_p_i`` and floor ``delta``,
    certified: the value distribution is restricted to ``grid`` values equally spaced in log x on
    [delta, 1], where maximising the concave quadratic p_S at fixed p_I is a non-negative least
    squares problem (min ||L' mu||^2, K = L L', with the two linear constraints as rows of
    weight 1e6, met to about 1e-12); ``two_item_bound`` then bounds every similarity, on the
    grid or off it. Returns the optimum as a step similarity (``levels`` from 1 down to delta,
    the top band of zero mass where g drops below 1 at once, and ``masses``), its ``p_s``,
    ``p_i``, ``upper_bound`` and ``slope`` (see ``two_item_bound``), and ``K``, its number of
    levels.
    """
    _check_delta(delta)
    grid = check_count(grid, "grid")
    hi = 1 / (1 + delta)
    if not (0.5 < target_p_i < hi):
        raise ValueError(f"target_p_i must lie in (0.5, {hi:.4g}); got {target_p_i!r}")
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
    """The largest gain over the constant kernel that any similarity can reach at any p_I,
    bounded from certificates (``p_i``, ``upper_bounds``, ``slopes`` of ``two_item_bound``):
    the frontier lies below the lowest of the lines U_j + beta_j (p - p_j). On each cell of a
    grid of ``points`` identification levels one line, minus the constant kernel's front
    (concave in p_I), is convex, so its largest value sits at an end of the cell."""
    _check_delta(delta)
    p_j, u_j, b_j = (np.asarray(a, float) for a in (p_i, upper_bounds, slopes))
    hi = 1 / (1 + delta)
    p = np.linspace(0.5, hi, check_count(points, "points"))
    front = np.asarray(two_item_front(p, delta))
    mid = (p[:-1] + p[1:]) / 2
    j = np.argmin(u_j[:, None] + b_j[:, None] * (mid[None] - p_j[:, None]), axis=0)
    ends = [u_j[j] + b_j[j] * (q - p_j[j]) - f for q, f in ((p[:-1], front[:-1]),
                                                            (p[1:], front[1:]))]
    return float(np.maximum(*ends).max())


def two_item_front(p_i, delta: float):
    """The constant kernel's p_S at identification ``p_i`` for two items (Theorem 2 with the
    ball measure b solved from p_I = b / 2 + (1 - b) / (1 + delta))."""
    top = 1 / (1 + delta)
    b = (top - np.asarray(p_i, float)) / (top - 0.5)
    return two_item(np.clip(b, 0.0, 1.0), delta)[0]


def gain(best: dict, delta: float) -> float:
    """How far a two-item optimum lies above the constant kernel's front at its own p_I."""
    return best["p_s"] - two_item_front(best["p_i"], delta)


def certified_frontier(deltas, grid: int, count: int, scan: int):
    """The certified two-item optima at each floor: at ``count`` targets on the full ``grid``,
    on a ``scan`` of p_I on half the grid, and at the largest gain over the constant kernel,
    bracketed by the scan and refined by a bounded scalar search on the full grid. Three
    tables (targets, scan, peaks), each with its certificate's ``gap`` and its ``gain``."""
    certified, found_all, peaks = [], [], []
    for dl in tqdm(deltas, desc="two items, certified optima"):
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
    """Per floor: the optimum with the largest gain, the largest gain any similarity can have
    at any p_I (``cap``, from every certificate, :func:`gain_bound`) and the largest gap at
    the targets (``target_gap_max``)."""
    everything = pd.concat([certified, scan, peaks])
    caps = {dl: gain_bound(t.p_i, t.upper_bound, t.slope, dl)
            for dl, t in everything.groupby("delta")}
    best = peaks.set_index("delta")
    best["cap"] = pd.Series(caps)
    best["target_gap_max"] = certified.groupby("delta").gap.max()
    return best


def best_check(peaks: pd.DataFrame, trials: int, stream) -> pd.DataFrame:
    """Each largest-gain optimum played by the engine as a step kernel on the circle: its
    estimates, their z against the exact rates, and how many standard errors its p_S lies
    above the constant kernel's front (``excess_z``)."""
    rows = []
    for j, row in enumerate(peaks.itertuples()):
        kern = step_kernel(row.levels, row.masses)
        est = {task: luce_success(spaces.Circle(), kern, task, 2, trials,
                                  seed=stream("best_similarity_check", j, k))
               for k, task in enumerate(TASKS)}
        rows.append({"delta": row.delta, "p_i": row.p_i, "p_s": row.p_s,
                     "step_front_p_s": row.p_s - row.gain,
                     "p_s_mc": est["similarity"].mean, "se_s": est["similarity"].stderr,
                     "p_i_mc": est["identification"].mean,
                     "se_i": est["identification"].stderr,
                     "z_s": est["similarity"].zscore(row.p_s),
                     "z_i": est["identification"].zscore(row.p_i)})
    out = pd.DataFrame(rows)
    out["excess_z"] = (out.p_s_mc - out.step_front_p_s) / out.se_s
    return out


def optimum_shape(levels, masses, delta: float, bins: int = 8) -> dict:
    """The shape of an optimum: its plateau share at g = 1, its highest level below 1, its
    share on the floor, and the max / min of the density of log g over ``bins`` equal ranges
    between the floor and 1 (mass per level, the levels being uniform in log g), which is 1
    for an exponential decay."""
    inner = (levels > delta) & (levels < 1) & (masses > 0)
    s, w = np.log(levels[inner]), masses[inner]
    edges = np.linspace(s.min(), s.max(), bins + 1)
    per_level = np.histogram(s, edges, weights=w)[0] / np.histogram(s, edges)[0]
    return {"plateau": masses[0], "below_one": levels[inner].max(),
            "floor": masses[-1] * (levels[-1] == delta),
            "density_ratio": per_level.max() / per_level.min()}


def optimum_shapes(optima: pd.DataFrame) -> pd.DataFrame:
    """:func:`optimum_shape` of each optimum (rows with ``levels``, ``masses``, ``delta``), with
    its floor, identification and gain."""
    return pd.DataFrame([{"delta": r.delta, "p_i": r.p_i, "gain": r.gain,
                          **optimum_shape(r.levels, r.masses, r.delta)}
                         for r in optima.itertuples()])


def local_shortfall(last: pd.DataFrame, certified: pd.DataFrame):
    """The local optimiser's optima at the largest K (``last``, two items, one per certified
    target and in the same order) beside the certified ones: the local optima with the
    certificate's line at their p_I (``certificate``, which bounds them too), and per floor the
    largest shortfall from the certified optimum. Raises ValueError when the targets differ."""
    local = last.reset_index(drop=True)
    if len(local) != len(certified) or not np.allclose(local.p_i, certified.p_i, atol=1e-8):
        raise ValueError("the local optima must sit at the certified targets, in order")
    local = local.assign(certificate=certified.upper_bound.to_numpy()
                         + certified.slope.to_numpy() * (local.p_i - certified.p_i.to_numpy()))
    shortfall = pd.Series(certified.p_s.to_numpy() - local.p_s.to_numpy(),
                          index=local.delta).groupby(level=0).max()
    return local, shortfall


def program_shortfall(optima: pd.DataFrame, grid: int) -> np.ndarray:
    """How far each two-item optimum of another optimiser (rows with ``p_i``, ``p_s``,
    ``delta``) lies below the concave program's optimum at the same p_I on ``grid`` levels.
    Raises ValueError if one lies above that optimum's certificate, which no similarity can."""
    exact = [best_two_item(r.p_i, r.delta, grid) for r in optima.itertuples()]
    if (optima.p_s.to_numpy() > np.array([e["upper_bound"] for e in exact]) + _ROUNDING).any():
        raise ValueError("an optimum lies above its certificate")
    return np.array([e["p_s"] for e in exact]) - optima.p_s.to_numpy()


def frontier_table(certified, peaks, scan, opt) -> pd.DataFrame:
    """frontier.csv: every optimum with its upper bound (at two items the certificate of the
    same target bounds the local optimiser's result too; for more items there is none)."""
    cert_rows = pd.concat([t.assign(point=name) for t, name in
                           ((certified, "target"), (peaks, "largest gain"), (scan, "scan"))])
    cert_rows = cert_rows.assign(n=2, method="certified",
                                 step_front_p_s=cert_rows.p_s - cert_rows.gain)
    local_rows = opt.assign(method="local optimiser", point="target", upper_bound=np.nan)
    for r in certified.itertuples():
        at = ((local_rows.n == 2) & (local_rows.delta == r.delta)
              & np.isclose(local_rows.target, r.p_i, atol=1e-8))
        local_rows.loc[at, "upper_bound"] = (r.upper_bound
                                             + r.slope * (local_rows.p_i[at] - r.p_i))
    return pd.concat([cert_rows, local_rows])[["n", "delta", "method", "point", "K", "p_i",
                                               "p_s", "upper_bound", "step_front_p_s"]]
