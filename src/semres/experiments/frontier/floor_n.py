"""The floor proposition for any number of items, and the n-item frontier it bounds (chapter 7).

For n items, a similarity g with g(0) = 1 and delta <= g <= 1 (delta > 0), and a space on which
distance ties have probability zero, the proposition bounds both success rates:

    p_I^n <= P_n(beta) <= 1 / (1 + (n - 1) delta),
    p_S^n <= (delta + m) / (n delta + m),        m = (1 - delta) min(1, n beta),

where beta = (E g - delta) / (1 - delta) is the mean similarity to a random item on the scale of
a ball measure and P_n(b) is Theorem 3's identification of the constant kernel (ball measure b,
floor delta). On a homogeneous space beta <= b_n(p_I), the constant kernel's ball measure at the
same identification (:func:`constant_ball`); on any space beta <= the ball measure read off the
chord of P_n (:func:`chord_ball`). For n = 2 both reduce to chapter 7's two-item proposition.
:func:`dual_bound` is a sharper form that keeps the law of the nearest item's rank (density
n (1 - u)^(n-1)) instead of bounding it by n, computed in closed form by weak duality.

Beyond two items the best similarity at a given p_I is not a concave program: p_I is a convex
polynomial of degree n - 1 in the distribution of g's values and p_S is not concave, so the
two-item duality certificate does not extend. :func:`best_step` finds a local optimum over step
similarities whose levels lie on a log grid (SLSQP from several starts, exact rates, with its
KKT residual); :func:`frontier` brackets the frontier between that optimum (achieved: a lower
bound) and the proven bounds (an upper bound), which :mod:`.branch` tightens into a certificate. :func:`check_optima` plays optima through the
Monte Carlo engine; :func:`random_search` tries random similarities, monotone or not.

Step similarities: levels g_1..g_K on distance bands (nearest first) holding item probability
m_1..m_K. With 1/s = int_0^inf e^{-ts} dt the multinomial sums become one integral,

    p_I = int e^{-t} S_1(t)^{n-1} dt,     p_S = sum_j g_j int [S_j(t)^n - S_{j+1}(t)^n] dt,

S_j(t) = sum_{k >= j} m_k e^{-t g_k}: the j-th term is the nearest item in band j (its
similarity is g_j whichever in-band item is nearest), so the levels may come in any order. The
t-integral is the trapezoid rule in log t, whose error falls like e^{-pi^2 / step}.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import sympy as sp
from scipy.optimize import minimize, minimize_scalar
from threadpoolctl import threadpool_limits

from semres.core import spaces
from semres.core.book import spread
from semres.core.seeds import named_seed
from semres.core.simulate import luce_success
from semres.core.theory import n_item

__all__ = ["ceiling", "constant_ball", "chord_ball", "floor_bound", "dual_bound", "upper_bound",
           "step_rates", "step_kernel", "targets", "constant_front", "best_step", "frontier",
           "grid_shift", "largest_gain", "check_optima", "random_search", "scaling",
           "constant_curvature"]

#: slack for sums of a few hundred floating-point terms: the rounding a proven bound is allowed
ROUNDING = 1e-12
#: the t-integral: lower cut (the part below it is at most this) and step in log t (its error
#: about e^(-pi^2 / step) = e^(-49); on 360 random similarities, n = 2 to 64, the rates moved
#: by at most 1.2e-15 from a step of 0.1, which took twice the nodes)
_T_LOW, _T_STEP = 1e-14, 0.2
#: the two tests, in the order their random streams are keyed
TASKS = ("similarity", "identification")
#: an optimum must meet its identification target this closely, and a later start must beat
#: the best so far by more than this to replace it (a gain of rounding is no better optimum)
_FEASIBLE = 1e-9
#: the random similarities: at most this many bands
_MAX_BANDS = 12


def _count(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2; got {n!r}")
    return int(n)


def _floor(delta) -> float:
    if not (isinstance(delta, (int, float, np.floating)) and 0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    return float(delta)


# --------------------------------------------------------------------------- the bound

def ceiling(n: int, delta: float) -> float:
    """1 / (1 + (n - 1) delta): no similarity with a floor delta identifies (or generalizes)
    better with n items; g = delta beyond distance 0 attains it for identification."""
    return 1.0 / (1.0 + (_count(n) - 1) * _floor(delta))


def _inverse(p, n, delta):
    """Theorem 3's p_I(b) inverted by bisection on arrays (p_I falls strictly in b)."""
    p = np.asarray(p, float)
    lo, hi = np.zeros_like(p), np.ones_like(p)
    for _ in range(60):
        mid = (lo + hi) / 2
        high = np.asarray(n_item(mid, n, delta)[1]) > p
        lo, hi = np.where(high, mid, lo), np.where(high, hi, mid)
    return np.where(p >= ceiling(n, delta), 0.0, np.where(p <= 1 / n, 1.0, (lo + hi) / 2))


def constant_ball(p_i, n: int, delta: float):
    """b_n(p_I): the ball measure at which Theorem 3's constant kernel (floor ``delta``)
    identifies with ``p_i`` among ``n`` items; 0 at and above the ceiling, 1 at and below 1/n.
    On a homogeneous space every similarity has beta <= b_n(p_I) (the proposition, step (a))."""
    out = _inverse(p_i, _count(n), _floor(delta))
    return out.item() if out.ndim == 0 else out


def chord_ball(p_i, n: int, delta: float):
    """The ball measure read off the chord of Theorem 3's p_I(b) (which lies above the curve):
    n [1 - (1 + (n - 1) delta) p_I] / ((n - 1)(1 - delta)), clipped to [0, 1]. Any space has
    beta <= this (averaging a linear bound over probes needs no homogeneity)."""
    n, delta = _count(n), _floor(delta)
    b = n * (1 - (1 + (n - 1) * delta) * np.asarray(p_i, float)) / ((n - 1) * (1 - delta))
    out = np.clip(b, 0.0, 1.0)
    return out.item() if out.ndim == 0 else out


def _closed(b, n, delta):
    m = (1 - delta) * np.minimum(1.0, n * np.asarray(b, float))
    return (delta + m) / (n * delta + m)


def floor_bound(p_i, n: int, delta: float, *, homogeneous: bool = True):
    """The proposition's closed-form bound on p_S^n at identification ``p_i``:
    (delta + m) / (n delta + m) with m = (1 - delta) min(1, n b), b the constant kernel's ball
    measure at p_I (``homogeneous``) or the chord's (any space). For n = 2 both give chapter
    7's m = min(1 - delta, 4 [1 - (1 + delta) p_I])."""
    ball = constant_ball if homogeneous else chord_ball
    out = _closed(ball(p_i, n, delta), n, delta)
    return out.item() if out.ndim == 0 else out


def _dual(lam: float, budget: float, n: int, delta: float) -> float:
    """The weak-duality bound for one multiplier ``lam`` > 0: lam * budget plus the integral
    over the nearest item's rank u of sup_a [w(u) psi(a) - lam (a - delta)], with
    w(u) = n (1 - u)^(n-1), psi(a) = a / (a + (n - 1) delta), a in [delta, 1]. The supremum is
    at a* = clip(sqrt(w c delta / lam) - c delta, delta, 1) (c = n - 1, psi concave), and in
    v = 1 - u the three pieces (a* = 1, interior, a* = delta) integrate in closed form."""
    c = n - 1
    w_top = lam * (1 + c * delta) ** 2 / (c * delta)   # w above this: a* = 1
    w_bottom = lam * n * n * delta / c                 # w below this: a* = delta
    v1 = min(1.0, (w_top / n) ** (1 / c))
    v0 = min(1.0, (w_bottom / n) ** (1 / c))
    top = (1 - v1 ** n) / (1 + c * delta) - lam * (1 - delta) * (1 - v1)
    bottom = v0 ** n / n
    k = c / 2 + 1
    middle = ((v1 ** n - v0 ** n) - 2 * math.sqrt(c * delta * lam * n) * (v1 ** k - v0 ** k) / k
              + lam * n * delta * (v1 - v0))
    return lam * budget + top + middle + bottom


def dual_bound(p_i, n: int, delta: float, *, homogeneous: bool = True):
    """The sharper bound on p_S^n: sup of E psi(g(U_(1))) over g with mean at most
    delta + (1 - delta) b (b as in :func:`floor_bound`), U_(1) ~ Beta(1, n) the nearest item's
    rank. Any multiplier gives a valid bound (weak duality); the best one is found by a
    bounded scalar search in log lam. Never above :func:`floor_bound` (Jensen's inequality),
    which it returns where the search does no better."""
    n, delta = _count(n), _floor(delta)
    ball = constant_ball if homogeneous else chord_ball
    b = np.atleast_1d(np.asarray(ball(p_i, n, delta), float))
    out = _closed(b, n, delta)
    for i, budget in enumerate((1 - delta) * b):
        res = minimize_scalar(lambda x: _dual(math.exp(x), budget, n, delta),
                              bounds=(-30.0, 5.0), method="bounded", options={"xatol": 1e-9})
        out[i] = min(out[i], _dual(math.exp(res.x), budget, n, delta) + ROUNDING)
    return out.item() if np.ndim(p_i) == 0 else out


def upper_bound(p_i, n: int, delta: float, *, homogeneous: bool = True):
    """The proven upper bound on p_S^n at ``p_i``: the smaller of the two forms."""
    return dual_bound(p_i, n, delta, homogeneous=homogeneous)


# --------------------------------------------------------------------------- step similarities

def _nodes(g_min: float):
    s = np.arange(math.log(_T_LOW), math.log(60.0 / g_min) + _T_STEP, _T_STEP)
    t = np.exp(s)
    w = _T_STEP * t
    w[[0, -1]] /= 2
    return t, w


def _check_steps(levels, masses):
    g = np.asarray(levels, dtype=float)
    m = np.asarray(masses, dtype=float)
    if g.ndim < 1 or g.shape != m.shape or not (np.isfinite(g).all() and np.isfinite(m).all()):
        raise ValueError("levels and masses must be finite arrays of one shape (..., K)")
    if (g <= 0).any() or (g > 1 + 1e-12).any():
        raise ValueError("levels must lie in (0, 1]")
    if (m < 0).any() or (np.abs(m.sum(axis=-1) - 1) > 1e-9).any():
        raise ValueError("masses must be >= 0 and sum to 1 over the last axis")
    return g, m


def _decay(g):
    """The t-integral's nodes and weights, with e^(-t) and e^(-t g_k): fixed by the levels, so an
    optimiser over the masses computes them once."""
    t, w = _nodes(float(g.min()))
    return w, w * np.exp(-t), np.exp(-g[..., None] * t)             # decay: (..., K, T)


def _laplace(g, m, n, grad=False, decay=None):
    """Rates (and, with ``grad``, their gradients in the masses) of step similarities with
    levels ``g`` and masses ``m`` (..., K); ``decay`` is :func:`_decay` of ``g`` if known."""
    w, w_id, decay = decay or _decay(g)
    tails = np.cumsum((m[..., None] * decay)[..., ::-1, :], axis=-2)[..., ::-1, :]
    below = tails ** (n - 1)                                         # S_j^(n-1)
    p_i = (below[..., 0, :] * w_id).sum(axis=-1)
    powers = below * tails
    band = ((powers - np.concatenate([powers[..., 1:, :], np.zeros_like(powers[..., :1, :])],
                                     axis=-2)) * w).sum(axis=-1)
    p_s = (g * band).sum(axis=-1)
    if not grad:
        return p_s, p_i
    step = np.diff(g, axis=-1, prepend=0.0)                         # g_j - g_{j-1}
    cum = np.cumsum(step[..., None] * below, axis=-2)                # sum_{j <= i}
    dps = n * (decay * cum * w).sum(axis=-1)
    dpi = (n - 1) * (decay * (tails[..., 0, :] ** (n - 2) * w_id)[..., None, :]).sum(axis=-1)
    return p_s, p_i, dps, dpi


def step_rates(levels, masses, n: int, *, chunk: int = 256):
    """(p_s, p_i) of step similarities: ``levels`` in (0, 1] (any order: a non-monotone g
    allowed) on distance bands, nearest first, holding item probability ``masses``; leading
    axes are a batch. The copy in the identification test has similarity g(0) = 1 whatever
    the first band's level (g may drop at once)."""
    n = _count(n)
    g, m = _check_steps(levels, masses)
    if g.ndim == 1:
        p_s, p_i = _laplace(g, m, n)
        return float(p_s), float(p_i)
    flat_g, flat_m = g.reshape(-1, g.shape[-1]), m.reshape(-1, m.shape[-1])
    parts = [_laplace(flat_g[i:i + chunk], flat_m[i:i + chunk], n)
             for i in range(0, len(flat_g), chunk)]
    p_s = np.concatenate([p[0] for p in parts]).reshape(g.shape[:-1])
    p_i = np.concatenate([p[1] for p in parts]).reshape(g.shape[:-1])
    return p_s, p_i


def step_kernel(levels, masses):
    """The step similarity as g(d) on the circle of circumference 1 (a band holding item
    probability m spans m / 2 of distance), for the Monte Carlo engine."""
    g, m = _check_steps(levels, masses)
    if g.ndim != 1:
        raise ValueError("step_kernel takes one similarity (1-D levels)")
    edges = np.cumsum(m)[:-1] / 2

    def kernel(d):
        d = np.asarray(d)
        out = g[np.minimum(np.searchsorted(edges, d, side="left"), g.size - 1)]
        return out.astype(d.dtype if d.dtype.kind == "f" else np.float64)

    return kernel


# --------------------------------------------------------------------------- the frontier

def targets(n: int, delta: float, count: int, lo_frac: float = 0.06,
            hi_frac: float = 0.94) -> np.ndarray:
    """``count`` identification levels from ``lo_frac`` to ``hi_frac`` of the way from chance
    1/n to the ceiling (the convention of chapter 7's local optimiser, so rows line up)."""
    lo, hi = 1 / _count(n), ceiling(n, delta)
    return lo + (hi - lo) * np.linspace(lo_frac, hi_frac, int(count))


def constant_front(p_i, n: int, delta: float) -> float:
    """Theorem 3's p_S^n for the constant kernel whose p_I^n equals ``p_i``."""
    return float(n_item(constant_ball(float(p_i), n, delta), n, delta)[0])


def _kkt(w, dps, dpi, support=1e-10) -> float:
    """First-order stationarity of a maximum of p_S on {sum w = 1, p_I = target, w >= 0}:
    with multipliers fitted on the support, the largest violation (a positive slope off the
    support, any slope on it). Zero at a KKT point; local, not global, optimality."""
    on = w > support
    basis = np.column_stack([dpi, np.ones_like(dpi)])
    coef, *_ = np.linalg.lstsq(basis[on], dps[on], rcond=None)
    resid = dps - basis @ coef
    return float(max(np.abs(resid[on]).max(), np.clip(resid[~on], 0, None).max(initial=0.0)))


def best_step(target_p_i: float, n: int, delta: float, grid: int, starts=(), *,
              maxiter: int = 200) -> dict:
    """A local optimum of p_S^n at p_I^n = ``target_p_i`` over step similarities with ``grid``
    levels spaced geometrically from 1 down to ``delta`` (sorted: the nearest band has g = 1,
    on a band of mass 0 where g drops at once), over their masses, by SLSQP with exact
    gradients from the constant kernel and each mass vector in ``starts``. Returns the best
    feasible optimum (``levels``, ``masses``, ``p_s``, ``p_i``, ``kkt``), ``runs`` (the p_S of
    every feasible start, whose spread shows whether the starts agree) and ``seconds``."""
    n, delta = _count(n), _floor(delta)
    if not (1 / n < target_p_i < ceiling(n, delta)):
        raise ValueError(f"target_p_i must lie in (1/n, ceiling) = ({1 / n:.4g}, "
                         f"{ceiling(n, delta):.4g}); got {target_p_i!r}")
    clock = time.perf_counter()
    levels = np.geomspace(1.0, delta, int(grid))
    decay = _decay(levels)
    memo = {}

    def evaluate(x):
        key = x.tobytes()
        if key not in memo:
            memo.clear()
            memo[key] = _laplace(levels, x, n, grad=True, decay=decay)
        return memo[key]

    b = constant_ball(target_p_i, n, delta)
    constant = np.zeros(levels.size)
    constant[0], constant[-1] = b, 1 - b
    cons = [{"type": "eq", "fun": lambda x: x.sum() - 1, "jac": lambda x: np.ones_like(x)},
            {"type": "eq", "fun": lambda x: evaluate(x)[1] - target_p_i,
             "jac": lambda x: evaluate(x)[3]}]
    best, runs = None, []
    for x0 in [constant, *[np.asarray(s, float) for s in starts]]:
        with threadpool_limits(1):  # SLSQP's small LAPACK calls slow down when threads fight
            res = minimize(lambda x: -evaluate(x)[0], x0, jac=lambda x: -evaluate(x)[2],
                           method="SLSQP", bounds=[(0.0, 1.0)] * levels.size, constraints=cons,
                           options={"ftol": 1e-13, "maxiter": maxiter})
        w = np.clip(res.x, 0.0, None)
        w /= w.sum()
        p_s, p_i, dps, dpi = _laplace(levels, w, n, grad=True, decay=decay)
        if abs(p_i - target_p_i) > _FEASIBLE:
            continue
        runs.append(float(p_s))
        if best is None or p_s > best["p_s"] + _FEASIBLE:
            best = {"levels": levels, "masses": w, "p_s": float(p_s), "p_i": float(p_i),
                    "kkt": _kkt(w, dps, dpi)}
    if best is None:
        raise RuntimeError(f"no start met p_I = {target_p_i} (n = {n}, delta = {delta})")
    return {**best, "runs": runs, "seconds": time.perf_counter() - clock}


def _row(n: int, delta: float, target: float, opt: dict, grid: int, seconds: float) -> dict:
    """One frontier row: the optimum, the constant kernel at its p_I and the proven bounds."""
    const = constant_front(opt["p_i"], n, delta)
    bound = float(upper_bound(opt["p_i"], n, delta))
    return {"n": n, "delta": delta, "target": target, "p_i": opt["p_i"], "p_s": opt["p_s"],
            "constant_p_s": const, "gain": opt["p_s"] - const,
            "closed_bound": float(floor_bound(opt["p_i"], n, delta)), "upper_bound": bound,
            "gap": bound - opt["p_s"], "kkt": opt["kkt"],
            "spread": max(opt["runs"]) - min(opt["runs"]), "starts": len(opt["runs"]),
            "grid": grid, "seconds": seconds, "levels": opt["levels"], "masses": opt["masses"]}


def frontier(ns, deltas, grid: int, count: int, starts: int, seed) -> pd.DataFrame:
    """The n-item frontier at ``count`` identification targets per (n, delta): the best step
    similarity found (:func:`best_step` from the constant kernel, the previous target's optimum
    and ``starts`` random mass vectors named from ``seed``), Theorem 3's constant kernel at the
    same p_I, and the proven upper bound with the gap to it. One row per target, with the
    optimum's levels and masses, its KKT residual, the spread of p_S over the starts and the
    seconds spent. The (n, delta) groups run side by side where a freed core allows
    (:func:`semres.core.book.spread`)."""
    groups = [(i, n, j, delta, grid, count, starts, seed)
              for i, n in enumerate(ns) for j, delta in enumerate(deltas)]
    return pd.DataFrame([row for rows in spread(_frontier_group, groups) for row in rows])


def _frontier_group(group) -> list:
    """:func:`frontier`'s rows of one (n, delta): each target started from the last's optimum."""
    i, n, j, delta, grid, count, starts, seed = group
    rows, previous = [], None
    for k, target in enumerate(targets(n, delta, count)):
        rng = np.random.default_rng(named_seed(seed, "floor_n_starts", i, j, k))
        extra = [rng.dirichlet(np.full(grid, 0.5)) for _ in range(starts)]
        if previous is not None:
            extra.insert(0, previous)
        opt = best_step(float(target), n, delta, grid, extra)
        previous = opt["masses"]
        rows.append(_row(n, delta, float(target), opt, grid, opt["seconds"]))
    return rows


def grid_shift(front: pd.DataFrame, coarse: pd.DataFrame) -> float:
    """The largest difference in p_S between two :func:`frontier` tables of the same targets on
    different grids of levels: what the coarser grid costs at those targets, the check that a
    frontier does not move with its grid."""
    keys = ["n", "delta", "target"]
    both = front[keys + ["p_s"]].merge(coarse[keys + ["p_s"]], on=keys, how="inner")
    if len(both) != len(front):
        raise ValueError("coarse: its targets must be those of front")
    return float(np.abs(both.p_s_x - both.p_s_y).max())


def largest_gain(table: pd.DataFrame, grid: int) -> pd.DataFrame:
    """Per (n, delta) of ``table`` (rows of :func:`frontier`): the identification where the
    best step similarity gains most over the constant kernel, bracketed by the targets around
    the largest gain and refined by a bounded scalar search (each step an optimum started from
    the nearest target's), with the same columns as :func:`frontier`."""
    groups = [(int(n), float(delta), part[["p_i", "gain", "masses"]], grid)
              for (n, delta), part in table.groupby(["n", "delta"], sort=False)]
    return pd.DataFrame(spread(_largest_gain_row, groups))


def _largest_gain_row(group) -> dict:
    """:func:`largest_gain`'s row of one (n, delta)."""
    n, delta, part, grid = group
    part = part.sort_values("p_i").reset_index(drop=True)
    j = int(part.gain.idxmax())
    lo, hi = part.p_i[max(j - 1, 0)], part.p_i[min(j + 1, len(part) - 1)]
    start = [part.masses[j]]

    def loss(p):
        opt = best_step(float(p), n, delta, grid, start)
        return -(opt["p_s"] - constant_front(opt["p_i"], n, delta))

    clock = time.perf_counter()
    res = minimize_scalar(loss, bounds=(lo, hi), method="bounded", options={"xatol": 1e-4})
    opt = best_step(float(res.x), n, delta, grid, start)
    return _row(n, delta, float(res.x), opt, grid, time.perf_counter() - clock)


def check_optima(table: pd.DataFrame, trials: int, seed) -> pd.DataFrame:
    """Each optimum of ``table`` (rows of :func:`frontier`) played by the Monte Carlo engine
    as a step kernel on the circle with its n items: estimates, standard errors, their z
    against the exact rates, and how many standard errors the estimated p_S lies above the
    constant kernel's (``excess_z``)."""
    rows = []
    for j, row in enumerate(table.itertuples()):
        kern = step_kernel(row.levels, row.masses)
        est = {task: luce_success(spaces.Circle(), kern, task, int(row.n), trials,
                                  seed=named_seed(seed, "floor_n_check", j, k))
               for k, task in enumerate(TASKS)}
        s, i = est["similarity"], est["identification"]
        rows.append({"n": row.n, "delta": row.delta, "p_i": row.p_i, "p_s": row.p_s,
                     "p_i_mc": i.mean, "se_i": i.stderr, "p_s_mc": s.mean, "se_s": s.stderr,
                     "z_i": i.zscore(row.p_i), "z_s": s.zscore(row.p_s),
                     "excess_z": (s.mean - row.constant_p_s) / s.stderr})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- random similarities

#: the kinds of random similarity: sorted levels, levels in random order, two levels (the
#: constant kernel, its ball measure log-uniform so that some sit near the ceiling), and a
#: plateau-decay-floor shape with its levels shuffled in part
KINDS = ("monotone", "non-monotone", "two-level", "shuffled tail")


def _draw(rng, kind: str, delta: float):
    if kind == "two-level":
        b = 10 ** rng.uniform(-4, 0)
        g, m = np.array([1.0, delta]), np.array([b, 1 - b])
    else:
        K = int(rng.integers(2, _MAX_BANDS + 1))
        m = rng.dirichlet(np.full(K, rng.choice([0.2, 1.0, 5.0])))
        g = delta ** rng.uniform(0, 1, K) if rng.random() < 0.5 else rng.uniform(delta, 1, K)
        g[rng.random(K) < 0.2] = delta
        if kind == "monotone":
            g = np.sort(g)[::-1]
        elif kind == "shuffled tail":
            g = np.sort(g)[::-1]
            tail = g[1:]
            rng.shuffle(tail)
            g[1:] = tail
        g[0] = 1.0 if kind != "non-monotone" or rng.random() < 0.5 else g[0]
    pad = _MAX_BANDS - g.size  # bands of mass 0 change nothing
    return np.r_[g, np.full(pad, delta)], np.r_[m, np.zeros(pad)]


def random_search(count: int, ns, deltas, seed) -> pd.DataFrame:
    """``count`` random step similarities (kinds cycling through :data:`KINDS`, n through
    ``ns`` and delta through ``deltas``, each drawn from its own named stream), with their
    exact rates and the proven bound: ``ratio`` = p_S / bound, ``excess_ratio`` = how much of
    the room above chance, bound - 1/n, the similarity uses (undefined where there is none, at
    the ceiling), ``margin`` = bound - p_S, ``over_ceiling`` = p_I - 1 / (1 + (n - 1) delta)."""
    draws = []
    for i in range(int(count)):
        kind, n = KINDS[i % len(KINDS)], ns[(i // len(KINDS)) % len(ns)]
        delta = deltas[(i // (len(KINDS) * len(ns))) % len(deltas)]
        rng = np.random.default_rng(named_seed(seed, "floor_n_random", i))
        draws.append((kind, n, delta, *_draw(rng, kind, delta)))
    frame = pd.DataFrame(draws, columns=["kind", "n", "delta", "levels", "masses"])
    out = []
    for (n, delta), part in frame.groupby(["n", "delta"], sort=False):
        p_s, p_i = step_rates(np.stack(part.levels), np.stack(part.masses), int(n))
        bound = np.asarray(upper_bound(p_i, int(n), float(delta)))
        room = bound - 1 / n
        excess = np.where(room > 1e-9, (p_s - 1 / n) / np.where(room > 1e-9, room, 1.0), np.nan)
        out.append(part.assign(p_i=p_i, p_s=p_s, bound=bound, ratio=p_s / bound,
                               excess_ratio=excess, margin=bound - p_s,
                               over_ceiling=p_i - ceiling(int(n), delta)))
    return pd.concat(out).sort_index()


# --------------------------------------------------------------------------- scaling in n

def constant_curvature(n: int, delta):
    """SymPy: the second derivatives of Theorem 3's p_S^n and p_I^n in the ball measure b at
    b = 1, for the constant kernel with floor ``delta`` (a SymPy number): their signs say
    whether the two curve upwards together there (the program is then not concave)."""
    b = sp.Symbol("b", positive=True)
    n = _count(n)
    ps = (1 - b) ** n / n + sum(sp.binomial(n, k) * b**k * (1 - b) ** (n - k)
                                / (k + (n - k) * delta) for k in range(1, n + 1))
    pi = sum(sp.binomial(n - 1, j) * b**j * (1 - b) ** (n - 1 - j) / (1 + j + (n - 1 - j) * delta)
             for j in range(n))
    return tuple(sp.diff(e, b, 2).subs(b, 1) for e in (ps, pi))


def scaling(ns, deltas) -> pd.DataFrame:
    """How the ceiling and the constant kernel scale with n: per (n, delta), the ceiling
    1 / (1 + (n - 1) delta) and n times it, the constant kernel's best p_S (Theorem 3 maximised
    over b) and its ratio to the ceiling, and n p_I^n of a fixed constant kernel (b = 0.1),
    which tends to 1 / (b + (1 - b) delta) by the law of large numbers."""
    rows = []
    for delta in deltas:
        for n in ns:
            res = minimize_scalar(lambda b: -n_item(b, n, delta)[0], bounds=(0.0, 1.0),
                                  method="bounded", options={"xatol": 1e-10})
            top = ceiling(n, delta)
            rows.append({"n": n, "delta": delta, "ceiling": top, "n_ceiling": n * top,
                         "constant_best_p_s": -res.fun, "constant_best_b": res.x,
                         "constant_over_ceiling": -res.fun / top,
                         "n_p_i_fixed_b": n * n_item(0.1, n, delta)[1]})
    return pd.DataFrame(rows)
