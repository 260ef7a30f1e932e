"""The best any similarity can do: step kernels on the circle and their (p_I, p_S) frontier.

A non-increasing step similarity on a homogeneous space is K levels 1 = g_1 >= ... >= g_K >= 0
on distance bands holding probability m_1, ..., m_K of an item. With n items (each band drawn
i.i.d. with probabilities m), the Luce shares are expectations of 1 / (sum of similarities),
and 1 / s = int_0^inf exp(-t s) dt turns the multinomial sums over bands into one integral:

    p_I = int_0^inf e^{-t} S_1(t)^{n-1} dt,                 S_j(t) = sum_{k >= j} m_k e^{-t g_k},
    p_S = sum_j g_j int_0^inf [S_j(t)^n - S_{j+1}(t)^n] dt  (+ m_0^n / n, the all-zero case),

where the j-th term is the nearest item falling in band j (binomially many items tie with it
in similarity; the nearest one is correct). The t-integral of a sum of decaying exponentials
is done by the trapezoid rule in log t, which converges geometrically (error far below 1e-12),
so the optimiser's objective is exact, not sampled.

For two items the frontier is solved exactly (``best_two_item``): only the distribution mu of the
values of g matters once g is sorted, and with x, y the values of the two items

    p_I = int 1 / (1 + x) dmu(x),        p_S = int int max(x, y) / (x + y) dmu dmu
                                             = 1 - int int min(x, y) / (x + y) dmu dmu.

min(x, y) / (x + y) is a positive definite kernel (the product of min(x, y) and
1 / (x + y) = int e^{-tx} e^{-ty} dt), so p_S is a concave quadratic in mu at fixed p_I;
in s = log x the kernel is the logistic sigma(-|s - t|). ``two_item_bound`` turns any candidate
into an upper bound on the whole frontier by weak duality (``two_item_bound``'s docstring).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize, minimize_scalar, nnls
from scipy.special import expit
from threadpoolctl import threadpool_limits
from .profiles import Settings, positive_ints, require

__all__ = ["step_success", "step_kernel", "optimise", "constant_front", "best_two_item",
           "two_item_bound", "gain_bound"]

_NODES = 400


def _check_count(value, name: str) -> int:
    """An integer (not a bool) >= 2, else a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
        raise ValueError(f"{name} must be an integer >= 2; got {value!r}")
    return int(value)


def _check(levels, masses, n):
    g = np.asarray(levels, dtype=float)
    m = np.asarray(masses, dtype=float)
    if g.ndim != 1 or g.size < 1 or not np.isfinite(g).all():
        raise ValueError(f"levels must be a 1-D array of finite numbers; got {levels!r}")
    if (g < 0).any() or (np.diff(g) > 1e-12).any():
        raise ValueError("levels must be >= 0 and non-increasing")
    if m.shape != g.shape or not np.isfinite(m).all() or (m < 0).any() or abs(m.sum() - 1) > 1e-9:
        raise ValueError("masses must be >= 0, sum to 1 and match levels in shape")
    return g, m / m.sum(), _check_count(n, "n")


def _laplace(g, m, n, grad=False):
    """p_s, p_i (and their gradients in g and m when ``grad``) by the t-integral."""
    pos = g > 0
    rate = float(g[pos].min()) if pos.any() else 1.0
    # t from 1e-14 to where the slowest exponential has decayed by e^-60
    s = np.linspace(math.log(1e-14), math.log(60 / min(rate, 1.0)), _NODES)
    t, h = np.exp(s), s[1] - s[0]
    w = h * t
    w[[0, -1]] /= 2
    decay = np.exp(-g[:, None] * t[None, :])                          # (K, T)
    terms = m[:, None] * decay
    tails = np.cumsum(terms[::-1], axis=0)[::-1]                      # S_j, j = 1..K
    tails = np.vstack([tails, np.zeros((1, t.size))])                 # S_{K+1} = 0
    wi = w * np.exp(-t)
    p_i = float((wi * tails[0] ** (n - 1)).sum())
    powers = tails ** n
    band = ((powers[:-1] - powers[1:]) * w).sum(axis=1)               # int S_j^n - S_{j+1}^n
    p_s = float(g @ band) + m[~pos].sum() ** n / n  # every similarity 0: uniform choice
    if not grad:
        return p_s, p_i
    # d/dE_{k,t}: p_i through S_1; p_s through every S_j with j <= k
    di = (n - 1) * wi * tails[0] ** (n - 2)                           # (T,)
    a = n * tails[:-1] ** (n - 1) * (g - np.r_[0.0, g[:-1]])[:, None] * w
    ds = np.cumsum(a, axis=0)                                         # (K, T)
    dpi_dm = decay @ di
    dpi_dg = -(terms * t) @ di
    dps_dm = (ds * decay).sum(axis=1)
    dps_dg = band - (ds * terms * t).sum(axis=1)
    return p_s, p_i, (dps_dg, dps_dm), (dpi_dg, dpi_dm)


def step_success(levels, masses, n: int = 2) -> tuple[float, float]:
    """(p_s, p_i) of the step kernel with ``levels`` on bands of item probability ``masses``."""
    g, m, n = _check(levels, masses, n)
    return _laplace(g, m, n)


def step_kernel(levels, masses):
    """The step similarity as g(d) on the circle (bands of item probability m span m / 2 of
    distance), for the Monte Carlo engine."""
    g, m, _ = _check(levels, masses, 2)
    edges = np.cumsum(m)[:-1] / 2

    def kernel(d):
        d = np.asarray(d)
        out = g[np.searchsorted(edges, d, side="left")]
        return out.astype(d.dtype if d.dtype.kind == "f" else np.float64)

    return kernel


def _unpack(x, K, delta):
    levels = delta + (1 - delta) * np.cumprod(np.concatenate([[1.0], x[:K - 1]]))
    w = x[K - 1:]
    return levels, w / w.sum()


def _pack(levels, masses, delta):
    h = (np.asarray(levels) - delta) / (1 - delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(h[:-1] > 0, h[1:] / h[:-1], 0.0)
    return np.concatenate([np.clip(ratio, 0, 1), np.clip(masses, 1e-9, 1)])


def _chain(x, K, delta, dg, dm):
    """Gradient in the optimiser's variables from gradients in levels and masses."""
    r = np.concatenate([[1.0], x[:K - 1]])
    # d g_k / d r_i = (1 - delta) prod_{j <= k, j != i} r_j for k >= i (no division by r_i)
    jac = np.zeros((K, K))
    for i in range(1, K):
        rr = r.copy()
        rr[i] = 1.0
        jac[i:, i] = (1 - delta) * np.cumprod(rr)[i:]
    w = x[K - 1:]
    m = w / w.sum()
    return np.concatenate([(dg @ jac)[1:], (dm - m @ dm) / w.sum()])


def optimise(target_p_i: float, n: int, delta: float, K: int, starts=(), *,
             ftol: float = 1e-12, maxiter: int = 300) -> dict:
    """Maximise p_S over K-level step kernels with g_1 = 1, levels >= ``delta``, at p_I equal
    to ``target_p_i``, by SLSQP (exact gradients) from each (levels, masses) start in
    ``starts`` (default: the constant kernel with this p_I, whose front is then never lost).

    Levels are parametrised by ratios in [0, 1] (g_k = delta + (1 - delta) prod_{j<=k} r_j), so
    monotonicity is a box bound. Returns the best feasible optimum found: ``p_s``, ``p_i``,
    ``levels``, ``masses``, ``success``.
    """
    if not (0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    _check_count(K, "K")
    _check_count(n, "n")
    lo, hi = 1 / n, 1 / (1 + (n - 1) * delta)
    if not (lo < target_p_i < hi):
        raise ValueError(f"target_p_i must lie in ({lo:.4g}, {hi:.4g}); got {target_p_i!r}")
    memo = {}

    def evaluate(x):
        key = x.tobytes()
        if key not in memo:
            memo.clear()
            g, m = _unpack(x, K, delta)
            p_s, p_i, (sg, sm), (ig, im) = _laplace(g, m, n, grad=True)
            memo[key] = (p_s, p_i, _chain(x, K, delta, sg, sm), _chain(x, K, delta, ig, im))
        return memo[key]

    constraint = {"type": "eq", "fun": lambda x: evaluate(x)[1] - target_p_i,
                  "jac": lambda x: evaluate(x)[3]}
    inits = list(starts)
    if not inits:
        b = _constant_b(target_p_i, n, delta)
        inits = [(np.r_[1.0, np.full(K - 1, delta)],
                  np.r_[b, np.full(K - 1, (1 - b) / (K - 1))])]
    bounds = [(0.0, 1.0)] * (K - 1) + [(1e-9, 1.0)] * K
    best = None
    for levels, masses in inits:
        x0 = _pack(levels, masses, delta)
        # SLSQP's small LAPACK calls slow down tenfold when BLAS threads fight for 2 cores
        with threadpool_limits(1):
            res = minimize(lambda x: -evaluate(x)[0], x0, jac=lambda x: -evaluate(x)[2],
                           method="SLSQP", bounds=bounds, constraints=[constraint],
                           options={"ftol": ftol, "maxiter": maxiter})
        for x in (res.x, x0):
            p_s, p_i = evaluate(x)[:2]
            if abs(p_i - target_p_i) < 1e-8 and (best is None or p_s > best["p_s"]):
                g, m = _unpack(x, K, delta)
                best = {"p_s": p_s, "p_i": p_i, "levels": g, "masses": m,
                        "success": bool(res.success)}
    return best


def _constant_b(p_i, n, delta):
    from scipy.optimize import brentq

    from .theory import n_item

    return brentq(lambda v: n_item(v, n, delta)[1] - p_i, 0.0, 1.0, xtol=1e-15)


def constant_front(p_i, n: int, delta: float) -> float:
    """The constant (two-level) kernel's p_S at identification ``p_i``, or nan outside its
    range [p_I(b = 1), p_I(b = 0)]."""
    from .theory import n_item

    lo, hi = n_item(1.0, n, delta)[1], n_item(0.0, n, delta)[1]
    if not (lo <= p_i <= hi):
        return math.nan
    return float(n_item(_constant_b(p_i, n, delta), n, delta)[0])


def refine(levels, masses) -> list[tuple[np.ndarray, np.ndarray]]:
    """Starts for 2K levels from a K-level optimum: each band split in two, the second half
    either at the same level (the same kernel, so the optimum can only improve) or halfway to
    the next level (a nearby kernel that leaves the K-level stationary point)."""
    g, m = np.asarray(levels, float), np.asarray(masses, float)
    half = np.repeat(m, 2) / 2
    mid = np.r_[(g[:-1] + g[1:]) / 2, g[-1]]
    return [(np.repeat(g, 2), half), (np.ravel(np.column_stack([g, mid])), half)]


def trace(n: int, delta: float, Ks, targets, *, ftol: float = 1e-10, maxiter: int = 200,
          progress=None) -> list[dict]:
    """The frontier at every identification in ``targets`` for K in ``Ks`` (each K doubling the
    last, started from the previous optimum, so p_S never drops as K grows). One dict per
    (K, target) with the optimum and the constant kernel's p_S there."""
    Ks = [int(k) for k in Ks]
    if any(b != 2 * a for a, b in zip(Ks, Ks[1:])):
        raise ValueError(f"Ks must double at each step (2, 4, 8, ...); got {Ks}")
    rows = []
    for target in targets:
        prev = None
        for K in Ks:
            starts = () if prev is None else refine(prev["levels"], prev["masses"])
            prev = optimise(float(target), n, delta, K, starts, ftol=ftol, maxiter=maxiter)
            rows.append({"n": n, "delta": delta, "K": K, "target": float(target), **prev,
                         "step_front_p_s": constant_front(prev["p_i"], n, delta)})
            if progress is not None:
                progress.update()
    return rows


# --------------------------------------------------------------------------- two items, exactly

#: sup |q (1 - q) (1 - 2q)| over q in (0, 1): the largest |second derivative| of the logistic
#: sigma(u), reached at q = (3 -+ sqrt 3) / 6. It bounds both the kernel's 1 / (1 + e^|s - t|)
#: (convex off its atom, curvature at most this) and c(s) = 1 / (1 + e^s) (concave on s <= 0)
_CURVATURE = 1 / (6 * math.sqrt(3))


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
    g, m, _ = _check(levels, masses, 2)
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
    grid = _check_count(grid, "grid")
    hi = 1 / (1 + delta)
    if not (0.5 < target_p_i < hi):
        raise ValueError(f"target_p_i must lie in (0.5, {hi:.4g}); got {target_p_i!r}")
    s = np.linspace(math.log(delta), 0.0, grid)
    weight = 1e6
    rows = weight * np.vstack([np.ones(grid), expit(-s)])
    system = np.vstack([np.linalg.cholesky(_value_kernel(s, s)).T, rows])
    with threadpool_limits(1):
        mu, _ = nnls(system, np.r_[np.zeros(grid), weight, weight * target_p_i],
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
    p = np.linspace(0.5, hi, _check_count(points, "points"))
    front = np.asarray(two_item_front(p, delta))
    mid = (p[:-1] + p[1:]) / 2
    j = np.argmin(u_j[:, None] + b_j[:, None] * (mid[None] - p_j[:, None]), axis=0)
    ends = [u_j[j] + b_j[j] * (q - p_j[j]) - f for q, f in ((p[:-1], front[:-1]),
                                                            (p[1:], front[1:]))]
    return float(np.maximum(*ends).max())


def two_item_front(p_i, delta: float):
    """The constant kernel's p_S at identification ``p_i`` for two items (Theorem 2 with the
    ball measure b solved from p_I = b / 2 + (1 - b) / (1 + delta))."""
    from .theory import two_item

    top = 1 / (1 + delta)
    b = (top - np.asarray(p_i, float)) / (top - 0.5)
    return two_item(np.clip(b, 0.0, 1.0), delta)[0]


# --------------------------------------------------------------------------- settings

def _check_settings(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "trials", "scales", "frontier_K", "many_K", "targets", "qp_grid",
                   "scan", "slot_trials", "slot_eps")
    require(cfg["qp_grid"] >= 200, ch, "qp_grid must be >= 200 (the two-item optima are "
            f"certified to 2e-5 only on a fine grid); got {cfg['qp_grid']}")
    require(cfg["scan"] >= 3, ch, f"scan must be >= 3 (a largest gain is bracketed); "
            f"got {cfg['scan']}")
    for key in ("frontier_K", "many_K"):
        k = cfg[key]
        require(k >= 2 and k & (k - 1) == 0, ch,
                 f"{key} must be a power of two >= 2 (K doubles from 2); got {k}")
    ns = list(cfg["frontier_n"])
    require(len(ns) >= 1 and ns[0] == 2 and all(n >= 2 for n in ns), ch,
             f"frontier_n must start with 2 (the two-item frontier); got {ns}")
    require(cfg["scales"] >= 3, ch, "scales must be >= 3 (a curve per family)")
    for key, low in (("cycle_sizes", 4), ("torus_sides", 3)):
        sizes = list(cfg[key])
        require(len(sizes) >= 3 and sizes == sorted(set(sizes)) and sizes[0] >= low, ch,
                 f"{key} must hold >= 3 increasing sizes >= {low} (a rate is fitted); "
                 f"got {sizes}")



SETTINGS = Settings(
    chapter="07_front_universality",
    profiles={
        "quick": {"trials": 100_000, "scales": 12, "frontier_n": [2, 4], "frontier_K": 8,
                  "many_K": 8, "targets": 4, "qp_grid": 400, "scan": 16,
                  "cycle_sizes": [8, 16, 32, 64, 128],
                  "torus_sides": [4, 6, 8, 10], "slot_trials": 40_000, "slot_eps": 5},
        "default": {"trials": 1_000_000, "scales": 28, "frontier_n": [2, 4, 8], "frontier_K": 32,
                    "many_K": 16, "targets": 8, "qp_grid": 800, "scan": 48,
                    "cycle_sizes": [8, 16, 32, 64, 128, 256, 512],
                    "torus_sides": [4, 6, 8, 12, 16, 20], "slot_trials": 300_000, "slot_eps": 9},
        "paper": {"trials": 4_000_000, "scales": 40, "frontier_n": [2, 4, 8], "frontier_K": 64,
                  "many_K": 32, "targets": 14, "qp_grid": 1600, "scan": 150,
                  "cycle_sizes": [8, 16, 32, 64, 128, 256, 512, 1024],
                  "torus_sides": [4, 6, 8, 12, 16, 20, 24], "slot_trials": 2_000_000,
                  "slot_eps": 15},
    },
    check=_check_settings, parameters={"mc_trials": "trials"})
