"""The floor proposition for n items and the n-item frontier it bounds: with delta <= g <= 1,
p_I^n <= 1 / (1 + (n - 1) delta) and p_S^n <= (delta + m) / (n delta + m), m = (1 - delta)
min(1, n b_n(p_I)), sharpened by weak duality (:func:`upper_bound`). Beyond two items the best
similarity is no concave program: :func:`best_step` finds local optima over step similarities
(exact rates by the t-integral p_I = int e^-t S_1^(n-1), p_S = sum_j g_j int S_j^n - S_(j+1)^n,
trapezoid in log t), which :mod:`.branch` certifies."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
from scipy.optimize import minimize, minimize_scalar
from threadpoolctl import threadpool_limits

from semres.core import spaces
from semres.core.parallel import spread
from semres.core.seeds import named_seed
from semres.core.simulate import TASKS, luce_success
from semres.core.theory import n_item

from .steps import decay, laplace, step_kernel, targets

#: slack for sums of a few hundred floating-point terms: the rounding a proven bound is allowed
ROUNDING = 1e-12
#: an optimum meets its target this closely; a later start must beat the best by more
_FEASIBLE = 1e-9
#: the random similarities: at most this many bands
_MAX_BANDS = 12


# --------------------------------------------------------------------------- the bound

def ceiling(n: int, delta: float) -> float:
    """1 / (1 + (n - 1) delta): no similarity with floor delta does better with n items."""
    return 1.0 / (1.0 + (n - 1) * delta)


def constant_ball(p_i, n: int, delta: float):
    """b_n(p_I): the constant kernel's ball measure at identification ``p_i`` (homogeneous
    spaces have beta <= b_n(p_I)), Theorem 3's p_I(b) inverted by bisection on arrays (p_I
    falls strictly in b)."""
    p = np.asarray(p_i, float)
    lo, hi = np.zeros_like(p), np.ones_like(p)
    for _ in range(60):
        mid = (lo + hi) / 2
        high = np.asarray(n_item(mid, n, delta)[1]) > p
        lo, hi = np.where(high, mid, lo), np.where(high, hi, mid)
    out = np.where(p >= ceiling(n, delta), 0.0, np.where(p <= 1 / n, 1.0, (lo + hi) / 2))
    return out.item() if out.ndim == 0 else out


def _closed(b, n, delta):
    m = (1 - delta) * np.minimum(1.0, n * np.asarray(b, float))
    return (delta + m) / (n * delta + m)


def floor_bound(p_i, n: int, delta: float):
    """The proposition's closed-form bound on p_S^n at ``p_i``; a ValueError without a floor
    or a choice (chapters 5 and 6 read theirs from fits, which may land there)."""
    if not (n >= 2 and 0 < delta < 1):
        raise ValueError(f"the bound needs n >= 2 and delta in (0, 1); got {n!r}, {delta!r}")
    out = _closed(constant_ball(p_i, n, delta), n, delta)
    return out.item() if out.ndim == 0 else out


def _dual(lam: float, budget: float, n: int, delta: float) -> float:
    """The corollary's bound for one multiplier ``lam``, integrated in closed form over the
    three pieces of a* = clip(sqrt(w c delta / lam) - c delta, delta, 1)."""
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


def upper_bound(p_i, n: int, delta: float):
    """The proven upper bound on p_S^n at ``p_i``: the corollary's (the nearest item's rank
    kept), at the best multiplier found, and never above :func:`floor_bound`."""
    b = np.atleast_1d(np.asarray(constant_ball(p_i, n, delta), float))
    out = _closed(b, n, delta)
    for i, budget in enumerate((1 - delta) * b):
        res = minimize_scalar(lambda x: _dual(math.exp(x), budget, n, delta),
                              bounds=(-30.0, 5.0), method="bounded", options={"xatol": 1e-9})
        out[i] = min(out[i], _dual(math.exp(res.x), budget, n, delta) + ROUNDING)
    return out.item() if np.ndim(p_i) == 0 else out


# --------------------------------------------------------------------------- the frontier

def constant_front(p_i, n: int, delta: float) -> float:
    """Theorem 3's p_S^n for the constant kernel whose p_I^n equals ``p_i``."""
    return float(n_item(constant_ball(float(p_i), n, delta), n, delta)[0])


def _kkt(w, dps, dpi, support=1e-10) -> float:
    """The largest KKT violation of a maximum of p_S at fixed p_I on the simplex."""
    on = w > support
    basis = np.column_stack([dpi, np.ones_like(dpi)])
    coef, *_ = np.linalg.lstsq(basis[on], dps[on], rcond=None)
    resid = dps - basis @ coef
    return float(max(np.abs(resid[on]).max(), np.clip(resid[~on], 0, None).max(initial=0.0)))


def best_step(target_p_i: float, n: int, delta: float, grid: int, starts=()) -> dict:
    """A local optimum of p_S^n at ``target_p_i`` over the masses of ``grid`` levels from 1
    down to ``delta`` (SLSQP, exact gradients) from the constant kernel and ``starts``: the
    best, its KKT residual, and ``runs``, every start's p_S."""
    clock = time.perf_counter()
    levels = np.geomspace(1.0, delta, int(grid))
    fixed = decay(levels)
    memo = {}

    def evaluate(x):
        key = x.tobytes()
        if key not in memo:
            memo.clear()
            memo[key] = laplace(levels, x, n, True, fixed)[:4]
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
                           options={"ftol": 1e-13, "maxiter": 200})
        w = np.clip(res.x, 0.0, None)
        w /= w.sum()
        p_s, p_i, dps, dpi = laplace(levels, w, n, True, fixed)[:4]
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
    """The best step similarity found at ``count`` targets per (n, delta) (from the previous
    target's optimum and ``starts`` random masses), beside Theorem 3 and the proven bound."""
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
    """The largest change in p_S between two :func:`frontier` tables (the same targets) on
    different grids."""
    keys = ["n", "delta", "target"]
    both = front[keys + ["p_s"]].merge(coarse[keys + ["p_s"]], on=keys)
    return float(np.abs(both.p_s_x - both.p_s_y).max())


def largest_gain(table: pd.DataFrame, grid: int) -> pd.DataFrame:
    """Per (n, delta) the optimum at the largest gain over Theorem 3, refined from the
    targets around it by a bounded scalar search."""
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


def check_optima(table: pd.DataFrame, trials: int, seed, name: str) -> pd.DataFrame:
    """Each optimum (two items, or ``n``) by the engine on the circle, its random streams
    ``name`` of ``seed``: z against its exact rates, ``excess_z`` above the constant kernel."""
    rows = []
    for j, row in enumerate(table.itertuples()):
        kern = step_kernel(row.levels, row.masses)
        n = int(getattr(row, "n", 2))
        est = {task: luce_success(spaces.Circle(), kern, task, n, trials,
                                  seed=named_seed(seed, name, j, k))
               for k, task in enumerate(TASKS)}
        s, i = est["similarity"], est["identification"]
        rows.append({"n": n, "delta": row.delta, "p_i": row.p_i, "p_s": row.p_s,
                     "p_i_mc": i.mean, "se_i": i.stderr, "p_s_mc": s.mean, "se_s": s.stderr,
                     "z_i": i.zscore(row.p_i), "z_s": s.zscore(row.p_s),
                     "excess_z": (s.mean - row.constant_p_s) / s.stderr})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- random similarities

#: the kinds of random similarity
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
    """``count`` random step similarities (kinds, n and delta cycling) with their exact rates,
    the proven bound, the share of the room above chance they use, and the ceiling's margin."""
    draws = []
    for i in range(int(count)):
        kind, n = KINDS[i % len(KINDS)], ns[(i // len(KINDS)) % len(ns)]
        delta = deltas[(i // (len(KINDS) * len(ns))) % len(deltas)]
        rng = np.random.default_rng(named_seed(seed, "floor_n_random", i))
        draws.append((kind, n, delta, *_draw(rng, kind, delta)))
    frame = pd.DataFrame(draws, columns=["kind", "n", "delta", "levels", "masses"])
    out = []
    for (n, delta), part in frame.groupby(["n", "delta"], sort=False):
        p_s, p_i = laplace(np.stack(part.levels), np.stack(part.masses), int(n))
        bound = np.asarray(upper_bound(p_i, int(n), float(delta)))
        room = bound - 1 / n
        excess = np.where(room > 1e-9, (p_s - 1 / n) / np.where(room > 1e-9, room, 1.0), np.nan)
        out.append(part.assign(p_i=p_i, p_s=p_s, bound=bound, ratio=p_s / bound,
                               excess_ratio=excess, margin=bound - p_s,
                               over_ceiling=p_i - ceiling(int(n), delta)))
    return pd.concat(out).sort_index()


# --------------------------------------------------------------------------- scaling in n

def scaling(ns, deltas) -> pd.DataFrame:
    """Per (n, delta): the ceiling, the constant kernel's best p_S and its share of it, and
    n p_I^n at b = 0.1 (which tends to 1 / (b + (1 - b) delta))."""
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
