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

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.optimize import brentq, minimize, minimize_scalar, nnls
from scipy.special import expit
from scipy.stats import binom
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from semres.core import kernels, shapes, spaces, theory
from semres.core import plotting as splot
from semres.core.profiles import Settings, positive_ints, require
from semres.report import Z_MAX, fmt
from semres.core.simulate import exact_two_item, luce_success
from semres.core.theory import n_item, two_item

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
    return brentq(lambda v: n_item(v, n, delta)[1] - p_i, 0.0, 1.0, xtol=1e-15)


def constant_front(p_i, n: int, delta: float) -> float:
    """The constant (two-level) kernel's p_S at identification ``p_i``, or nan outside its
    range [p_I(b = 1), p_I(b = 0)]."""
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
    top = 1 / (1 + delta)
    b = (top - np.asarray(p_i, float)) / (top - 0.5)
    return two_item(np.clip(b, 0.0, 1.0), delta)[0]


# --------------------------------------------------------------------------- chapter 7's design
# The designs chapter 7 runs, fixed across profiles (the profiles below size them): here, in
# one place, rather than typed into the chapter.

#: the two tests, in the order their random streams are keyed
TASKS = ("similarity", "identification")
#: scales of the Monte Carlo cells per family, chosen so that no similarity underflows in the
#: engine's single precision (a far narrower Gaussian rounds distant items to 0), and floors
CHECK_SCALES = {"constant": (0.05, 0.15, 0.3), "linear": (0.05, 0.15, 0.3),
                "exponential": (0.02, 0.08, 0.3), "gaussian": (0.05, 0.1, 0.3)}
CHECK_DELTAS = (0.0, 0.05)
#: the scale range each family's exact sweep covers (geometric), and its floors
SWEEP = {"constant": (0.002, 0.5), "linear": (0.002, 0.5), "exponential": (2e-4, 3.0),
         "gaussian": (2e-4, 1.5)}
SWEEP_DELTAS = (0.0, 0.05, 0.2)
#: the floors at which the best similarity is sought
DELTAS = (0.01, 0.05, 0.2)
#: a certified optimum must lie this close to its proven upper bound
CERTIFIED_GAP = 2e-5
#: sums of a few thousand terms in double precision: the rounding a bound is allowed
ROUNDING = 1e-12
#: the last doubling of K must move p_S by less than this for a local optimum to count as
#: converged in K
CONVERGED = 1e-4
#: a plateau at g = 1 must hold at least this share of the items
PLATEAU = 0.01
#: a decay is exponential when the density of log g varies by less than this factor
EXPONENTIAL_WITHIN = 1.1
#: the smallest gain over the constant kernel that counts as beating it
GAIN_MIN = 1e-4
#: the constant kernel's radius on the discrete spaces (the ball edge falls between distances)
EPS_TIE = 0.25
#: ties vanish when the height above the front falls faster than N to this power
TIE_RATE = -0.25
#: the per-slot radii of the compositional pilot span this range
SLOT_EPS = (0.02, 0.45)
#: the slot counts of the pilot and the codes combining the slots (one slot: the circle)
SLOT_JOBS = ((1, "single"),) + tuple((K, c) for K in (2, 4) for c in ("max", "product", "mean"))
#: the radius nearest this one is where the max code's wrong preferences are counted
WRONG_EPS = 0.15
#: identification levels at which the codes with EQUAL_SLOTS slots are compared
EQUAL_PI = (0.8, 0.9, 0.95, 0.98)
EQUAL_SLOTS = 4
#: a 95% interval, in standard errors
Z95 = 1.96


# --------------------------------------------------------------------------- the families

def floor_bound(p_i, delta):
    """The bound of chapter 7's floor proposition: no similarity with delta <= g <= 1 reaches a
    larger p_S than this at identification ``p_i`` (two items on the circle)."""
    m = np.minimum(1 - delta, 4 * (1 - (1 + delta) * np.asarray(p_i)))
    return 0.5 + 0.5 * m / (m + 2 * delta)


def family_check(trials: int, stream, scales=CHECK_SCALES, deltas=CHECK_DELTAS) -> pd.DataFrame:
    """Each family's exact two-item rates (``shapes.circle_two_item``) against the Monte Carlo
    engine, one row per (family, scale, floor) cell; ``z`` is the larger of the two tests'."""
    rows = []
    jobs = [(f, s, dl) for f, ss in scales.items() for s in ss for dl in deltas]
    for j, (fam, scale, dl) in enumerate(tqdm(jobs, desc="families, Monte Carlo",
                                              mininterval=2)):
        kern = shapes.Family(fam, scale, dl)
        p_s, p_i = shapes.circle_two_item(kern)
        est = {task: luce_success(spaces.Circle(), kern, task, 2, trials,
                                  seed=stream("family_check", j, k))
               for k, task in enumerate(TASKS)}
        z_s, z_i = est["similarity"].zscore(p_s), est["identification"].zscore(p_i)
        rows.append({"family": fam, "scale": scale, "delta": dl, "p_i": p_i, "p_s": p_s,
                     "p_i_mc": est["identification"].mean, "p_s_mc": est["similarity"].mean,
                     "z": z_s if abs(z_s) >= abs(z_i) else z_i,
                     "se_i": est["identification"].stderr, "se_s": est["similarity"].stderr})
    return pd.DataFrame(rows)


def family_sweep(count: int, ranges=SWEEP, deltas=SWEEP_DELTAS) -> pd.DataFrame:
    """Each family's exact (p_I, p_S) over ``count`` scales spaced geometrically in its range,
    at each floor, with the universal front (no floor) and the floor bound beside them."""
    rows = []
    for fam, (lo, hi) in tqdm(ranges.items(), desc="families, exact sweep"):
        for dl in deltas:
            for scale in np.geomspace(lo, hi, count):
                p_s, p_i = shapes.circle_two_item(shapes.Family(fam, scale, dl))
                rows.append({"family": fam, "scale": float(scale), "delta": dl,
                             "p_i": p_i, "p_s": p_s})
    sweep = pd.DataFrame(rows)
    sweep["front"] = np.where(sweep.delta == 0, theory.front(np.clip(sweep.p_i, 0.5, 1)),
                              np.nan)
    sweep["bound"] = floor_bound(sweep.p_i, sweep.delta.where(sweep.delta > 0, np.nan))
    return sweep


def sweep_glue(sweep, b_cross: float) -> dict:
    """What the families' section quotes (numbers, and sentences as text): where the graded
    families get at their finest scale, the two peaks without a floor (Theorem 1 at b = 1/2,
    Proposition 1 at its b*), the floored curves' closest approach to the bound, and where the
    linear kernel crosses the constant kernel's front."""
    finest = sweep[(sweep.delta == 0)].loc[lambda t: t.groupby("family").scale.idxmin()]
    finest = finest.set_index("family")
    out = {f"{fam}_fine_{col.replace('p_', 'p')}": finest.loc[fam, col]
           for fam in ("exponential", "gaussian") for col in ("scale", "p_s", "p_i")}
    floored = sweep[sweep.delta > 0]
    out.update({
        "peak_linear": shapes.circle_two_item(shapes.Family("linear", linear_peak_b() / 2))[0],
        "peak_constant": shapes.circle_two_item(shapes.Family("constant", 0.25))[0],
        "bound_margin": (floored.bound - floored.p_s).min(),
        "lin_cross_eps": float(b_cross) / 2,
        "sweep_deltas": ", ".join(f"{x:g}" for x in sorted(set(floored.delta)))})
    return out


def linear_peak_b() -> float:
    """Proposition 1's optimum ball measure b* = 1 / (2 (3/2 - log 2)) (chapter 3)."""
    return 1 / (2 * (1.5 - math.log(2)))


def fig_families(sweep, check, deltas=SWEEP_DELTAS):
    """Each family's curve in the (p_I, p_S) plane as its scale sweeps, one panel per floor,
    with the constant kernel's front, the floor bound and the Monte Carlo cells."""
    colour = dict(zip(shapes.FAMILIES, splot.CYCLE))
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.6), sharey=True)
    for ax, dl in zip(axes, deltas):
        bb = np.linspace(0, 1, 301)
        ps_c, pi_c = theory.two_item(bb, dl)
        ax.plot(pi_c, ps_c, color=splot.THEORY, lw=2.4, alpha=0.35,
                label="constant kernel front" if dl == 0 else None)
        if dl > 0:
            qq = np.linspace(0.5, 1 / (1 + dl), 301)
            ax.plot(qq, floor_bound(qq, dl), color=splot.THEORY_ALT, ls="--", lw=1,
                    label="floor bound (Prop.)" if dl == deltas[1] else None)
        for fam in shapes.FAMILIES:
            sel = sweep[(sweep.family == fam) & (sweep.delta == dl)].sort_values("scale")
            ax.plot(sel.p_i, sel.p_s, color=colour[fam], marker=".", ms=3,
                    label=fam if dl == 0 else None)
            pts = check[(check.family == fam) & (check.delta == dl)]
            ax.plot(pts.p_i_mc, pts.p_s_mc, "o", mfc="white", ms=5, color=colour[fam])
        ax.set(xlabel="identification $p_I$", title=rf"floor $\Delta$ = {dl:g}",
               xlim=(0.48, 1.01), ylim=(0.48, 1.01))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, ncol=3)
    return fig


# --------------------------------------------------------------------------- the best similarity

def targets(n: int, delta: float, count: int, lo_frac: float = 0.06,
            hi_frac: float = 0.94) -> np.ndarray:
    """``count`` identification targets between chance 1/n and the ceiling 1/(1 + (n-1) delta),
    from ``lo_frac`` to ``hi_frac`` of the way (the ends themselves admit no similarity)."""
    lo, hi = 1 / n, 1 / (1 + (n - 1) * delta)
    return lo + (hi - lo) * np.linspace(lo_frac, hi_frac, count)


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


def doublings(k_max: int) -> list[int]:
    """K = 2, 4, ..., ``k_max``: the local optimiser's levels, each started from the last."""
    return [2 ** i for i in range(1, int(math.log2(k_max)) + 1)]


def convergence(opt: pd.DataFrame):
    """The local optimiser's last doubling of K: the rows at the largest K (``last``) and, per
    (n, delta), the largest K, the largest gain and the largest change of p_S in that doubling
    (``summary``)."""
    last = opt[opt.K == opt.groupby(["n", "delta"]).K.transform("max")]
    prev = opt[opt.K == opt.groupby(["n", "delta"]).K.transform("max") // 2]
    conv = (last.set_index(["n", "delta", "target"]).p_s
            - prev.set_index(["n", "delta", "target"]).p_s)
    summary = last.groupby(["n", "delta"]).agg(K=("K", "max"), max_gain=("gain", "max"))
    summary["last_doubling"] = conv.groupby(["n", "delta"]).max()
    return last, summary


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


def best_glue(best2, certified, peaks, scan, shapes_, shortfall, mc_best) -> dict:
    """What the best-similarity section quotes (numbers, and sentences as text): gains, caps,
    plateaus per floor, the certificates' largest gap, the verdicts on beating the constant
    kernel, on the gain's trend, on an exponential decay and on a plateau at the largest
    gain."""
    plateau_end = scan[scan.masses.map(lambda m: m[0]) >= PLATEAU].groupby("delta").p_i.max()
    numbers = {}
    for dl in best2.index:
        key = f"{int(round(dl * 100)):02d}"
        pk = best2.loc[dl]
        numbers.update({f"gain_{key}": pk.gain, f"peak_pi_{key}": pk.p_i, f"cap_{key}": pk.cap,
                        f"plateau_end_{key}": plateau_end.get(dl, math.nan),
                        f"below_one_{key}": shapes_[np.isclose(shapes_.p_i, pk.p_i)
                                                    & (shapes_.delta == dl)].below_one.iloc[0]})
    ratio = shapes_.density_ratio
    numbers.update({"gap_max": max(certified.gap.max(), peaks.gap.max()),
                    "shortfall_max": shortfall.max(), "best_excess_z_min": mc_best.excess_z.min(),
                    "best_maxz": mc_best[["z_s", "z_i"]].abs().max().max(),
                    "ratio_median": ratio.median(), "ratio_min": ratio.min(),
                    "ratio_max": ratio.max()})
    beats = bool((peaks.gain > GAIN_MIN).all() and (mc_best.excess_z > Z_MAX).all())
    shrinks = bool(np.all(np.diff(peaks.sort_values("delta").gain.to_numpy()) < 0))
    peak_plateau = best2.apply(
        lambda r: shapes_[np.isclose(shapes_.p_i, r.p_i)].plateau.iloc[0], axis=1)
    texts = {
        "best_verdict": "The constant kernel is not the best similarity at any floor tested."
        if beats else "The constant kernel is close to the best similarity at these floors.",
        "gain_trend": "shrinks as the floor rises" if shrinks
        else "does not shrink monotonically with the floor",
        "exp_verdict": "exponential: the density of log g is uniform to within 10 %"
        if (ratio < EXPONENTIAL_WITHIN).all() else "not exponential: the density of log g "
        f"varies by a factor of {ratio.min():.2f} to {ratio.max():.2f} across it (median "
        f"{ratio.median():.2f})",
        "peak_plateau": "has no plateau: g falls at once from 1 at the copy itself"
        if (peak_plateau < PLATEAU).all() else "keeps a plateau at some floors (shares "
        + ", ".join(f"{v:.3f}" for v in peak_plateau) + ")"}
    return {**numbers, **texts}


def stairs(levels, masses):
    """An optimum as (distance edges, levels) on the circle, zero-width bands dropped."""
    keep = masses > 0
    return np.r_[0.0, np.cumsum(masses[keep]) / 2], levels[keep]


def fig_frontier(certified, scan, peaks, local2, mc_best, k_max: int, deltas=DELTAS):
    """Top: the certified two-item frontier per floor against the constant kernel's front, the
    floor bound, the local optimiser and the engine's estimate at the largest gain. Bottom: the
    optimal similarities g(d) at the lowest and middle target and at the largest gain."""
    fig = plt.figure(figsize=(7.2, 7.2), layout="constrained")
    splot.use_style()
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1])
    axes_f = top.subplots(1, len(deltas), sharey=True)
    for ax, dl in zip(axes_f, deltas):
        ps_c, pi_c = theory.two_item(np.linspace(0, 1, 301), dl)
        first = dl == deltas[0]
        ax.plot(pi_c, ps_c, color=splot.THEORY, lw=2.4, alpha=0.35,
                label="constant kernel" if first else None)
        qq = np.linspace(0.5, 1 / (1 + dl), 301)
        ax.plot(qq, floor_bound(qq, dl), color=splot.THEORY_ALT, ls="--", lw=1,
                label="floor bound" if first else None)
        s = scan[scan.delta == dl]
        ax.plot(s.p_i, s.p_s, "-", lw=1.5, color=splot.CYCLE[0],
                label="best similarity (certified)" if first else None)
        s = local2[local2.delta == dl]
        ax.plot(s.p_i, s.p_s, "o", ms=4, mfc="white", color=splot.CYCLE[1],
                label=f"local optimiser, K = {k_max}" if first else None)
        b_ = mc_best[mc_best.delta == dl]
        ax.errorbar(b_.p_i_mc, b_.p_s_mc, xerr=2 * b_.se_i, yerr=2 * b_.se_s, fmt="*", ms=11,
                    color="black", label="largest gain, Monte Carlo" if first else None)
        ax.set(xlabel="identification $p_I$", title=rf"$n$ = 2, $\Delta$ = {dl:g}",
               ylim=(0.48, 1.0))
    axes_f[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(top, axes_f, ncol=2)
    axes_s = bottom.subplots(1, len(deltas), sharey=True)
    for ax, dl in zip(axes_s, deltas):
        sel = certified[certified.delta == dl].sort_values("p_i")
        picks = [sel.iloc[0], sel.iloc[len(sel) // 2], peaks[peaks.delta == dl].iloc[0]]
        for i, row in enumerate(picks):
            edges, lev = stairs(row["levels"], row["masses"])
            ax.stairs(lev, edges, color=splot.CYCLE[i], lw=1.5, baseline=None,
                      label=rf"$p_I$ = {row['p_i']:.2f}" + ("*" if i == 2 else ""))
        ax.axhline(dl, color=splot.THEORY_ALT, lw=0.8, ls=":")
        ax.set(xlabel="distance $d$", title=rf"optimal $g$, $\Delta$ = {dl:g}",
               xlim=(0, 0.5), yscale="log")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), handlelength=1.2)
    axes_s[0].set_ylabel("similarity $g(d)$ (log)")
    return fig


def many_glue(summary, last, ns_many) -> dict:
    """What the many-items section quotes (numbers, and sentences as text): the gains per n,
    the largest change of the last doubling of K and whether that counts as converged
    (:data:`CONVERGED`), and the local optima at the highest target."""
    many = summary.drop(index=2, level="n")
    top_target = last[last.n > 2].loc[
        lambda t: t.groupby(["n", "delta"]).target.transform("max") == t.target]
    numbers = {"converged_tol": CONVERGED, "many_conv_max": many.last_doubling.max()}
    texts = {
        "many_ns": " and ".join(str(n) for n in ns_many),
        "many_gain_text": ", ".join(f"{summary.xs(n, level='n').max_gain.max():.4f} for "
                                    f"n = {n}" for n in ns_many),
        "many_conv_verdict": "so by that test they have converged in K"
        if (many.last_doubling < CONVERGED).all() else "so they have not converged in K, and "
        "more levels may raise them further",
        "many_top": ", ".join(f"{r.p_s:.3f} (n = {r.n}, Δ = {r.delta:g}; chance "
                              f"{1 / r.n:.3f})" for r in top_target.itertuples())}
    return {**numbers, **texts}


def fig_many(last, ns_many, deltas=DELTAS):
    """The constant kernel's front (Theorem 3) and the local optimiser's best step similarity
    for each floor, one panel per number of items above two."""
    fig, axes = splot.subplots(1, max(1, len(ns_many)), figsize=(7.2, 3.8), squeeze=False)
    for ax, n in zip(axes[0], ns_many):
        for i, dl in enumerate(deltas):
            ps_c, pi_c = theory.n_item(np.linspace(0, 1, 301), n, dl)
            ax.plot(pi_c, ps_c, color=splot.CYCLE[i], lw=2.4, alpha=0.35)
            s = last[(last.n == n) & (last.delta == dl)].sort_values("p_i")
            ax.plot(s.p_i, s.p_s, "o-", ms=3, lw=1, color=splot.CYCLE[i],
                    label=rf"$\Delta$ = {dl:g}, local optimum (K = {int(s.K.max())})")
        ax.set(xlabel=f"identification $p_I^{{{n}}}$", ylabel=f"generalization $p_S^{{{n}}}$",
               title=f"$n$ = {n} items")
    splot.legend_outside(fig, ncol=3)
    return fig


# --------------------------------------------------------------------------- ties

def cycle(N: int):
    """The cycle graph C_N: its distance matrix in steps, and the steps per unit length."""
    k = np.arange(N)
    gap = np.abs(k[:, None] - k[None, :])
    return np.minimum(gap, N - gap).astype(float), N


def torus(L: int):
    """The L x L torus grid with the city-block distance, in steps, and the steps per side."""
    x, y = np.divmod(np.arange(L * L), L)
    dx, dy = (np.minimum(np.abs(c[:, None] - c[None, :]), L - np.abs(c[:, None] - c[None, :]))
              for c in (x, y))
    return (dx + dy).astype(float), L


def tie_radius(unit: int) -> float:
    """The radius :data:`EPS_TIE` in steps, placed halfway between two grid distances."""
    return math.floor(EPS_TIE * unit) + 0.5


def tie_spaces(cycle_sizes, torus_sides) -> list:
    """The discrete spaces of the ties section: (name, size, distance builder)."""
    return ([("cycle", N, cycle) for N in cycle_sizes]
            + [("torus", L, torus) for L in torus_sides])


def ties_table(jobs) -> pd.DataFrame:
    """Exact two-item rates of the constant kernel of radius :data:`EPS_TIE` on each discrete
    space (``simulate.exact_two_item``), its tie probability tau and its height above the
    universal front."""
    rows = []
    for name, size, make in tqdm(jobs, desc="discrete spaces, exact"):
        dist, unit = make(size)
        space = spaces.Discrete(dist)
        radius = tie_radius(unit)
        p_s, p_i = exact_two_item(space, kernels.Constant(radius))
        counts = np.unique(dist[0], return_counts=True)[1] / len(dist)  # homogeneous: one row
        tau = float((counts**2).sum())
        rows.append({"space": name, "size": size, "points": len(dist), "tau": tau,
                     "b": space.ball_measure(radius)[0], "p_i": p_i, "p_s": p_s,
                     "above_front": p_s - theory.front(p_i)})
    return pd.DataFrame(rows)


def tie_rates(ties) -> dict:
    """The log-log slope of the height above the front against the number of points, per
    family of spaces."""
    return {name: float(np.polyfit(np.log(g.points), np.log(g.above_front), 1)[0])
            for name, g in ties.groupby("space")}


def tie_check(ties, jobs, trials: int, stream) -> pd.DataFrame:
    """The engine on ``jobs`` (ties included) against their exact rates in ``ties``."""
    rows = []
    for j, (name, size, make) in enumerate(jobs):
        dist, unit = make(size)
        kern = kernels.Constant(tie_radius(unit))
        row = ties[(ties.space == name) & (ties["size"] == size)].iloc[0]
        for k, (task, exact) in enumerate((("similarity", row.p_s),
                                           ("identification", row.p_i))):
            est = luce_success(spaces.Discrete(dist), kern, task, 2, trials,
                               seed=stream("tie_check", j, k))
            rows.append({"space": name, "size": size, "task": task, "exact": exact,
                         "mc": est.mean, "stderr": est.stderr, "z": est.zscore(exact)})
    return pd.DataFrame(rows)


def tie_glue(ties, rates, tie_mc) -> dict:
    """What the ties section quotes: the slopes, the first and last heights, the engine's
    largest |z|, and the verdict on whether the height vanishes (every slope below
    :data:`TIE_RATE`)."""
    numbers = {"tie_maxz": tie_mc.z.abs().max()}
    for name, rate in rates.items():
        g = ties[ties.space == name]
        numbers.update({f"tie_rate_{name}": rate, f"tie_first_{name}": g.above_front.iloc[0],
                        f"tie_last_{name}": g.above_front.iloc[-1],
                        f"tie_n_{name}": int(g.points.iloc[-1])})
    vanish = all(rate < TIE_RATE for rate in rates.values())
    return {**numbers, "tie_verdict": "vanishes in the continuum limit, as a power of the "
            "number of points" if vanish else "does not clearly vanish over the sizes of this "
            "build"}


def fig_ties(ties, rates):
    """Left: the height of each discrete space above the front against its number of points
    (log-log, with the fitted slopes). Right: the spaces in the (p_I, p_S) plane."""
    fig, (ax_g, ax_f) = splot.subplots(1, 2, figsize=(7.2, 3.9))
    for i, (name, g) in enumerate(ties.groupby("space")):
        ax_g.loglog(g.points, g.above_front, "o-", color=splot.CYCLE[i],
                    label=f"{name}: slope {rates[name]:.2f}")
        ax_f.plot(g.p_i, g.p_s, "o", color=splot.CYCLE[i], label=name)
    qq = np.linspace(0.5, 1, 201)
    ax_f.plot(qq, theory.front(qq), color=splot.THEORY, lw=1, label="universal front")
    ax_g.set(xlabel="number of points $N$", ylabel=r"height above the front, $\tau/2$",
             title="ties vanish in the continuum limit")
    ax_f.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
             title=r"discrete spaces, $\varepsilon = 1/4$")
    ax_g.legend(loc="lower left")
    ax_f.legend(loc="lower left")
    return fig


# --------------------------------------------------------------------------- slot codes

def slot_sweep(eps, trials: int, stream, jobs=SLOT_JOBS) -> pd.DataFrame:
    """(p_I, p_S) of each slot code (``jobs``: slots and how they combine) by the engine, per
    per-slot radius in ``eps``."""
    rows = []
    for j, (K, comb) in enumerate(tqdm(jobs, desc="slots, Monte Carlo")):
        space = spaces.Slots(K)
        for i, e in enumerate(eps):
            kern = kernels.Slotwise(kernels.Constant(float(e)),
                                    "max" if comb == "single" else comb)
            est = {task: luce_success(space, kern, task, 2, trials,
                                      seed=stream("slot_sweep", j, i, k))
                   for k, task in enumerate(TASKS)}
            rows.append({"K": K, "combine": comb, "scale": float(e),
                         "p_i": est["identification"].mean, "p_s": est["similarity"].mean,
                         "se_i": est["identification"].stderr,
                         "se_s": est["similarity"].stderr})
    return pd.DataFrame(rows)


def slot_radii(count: int) -> np.ndarray:
    """``count`` per-slot radii evenly over :data:`SLOT_EPS`."""
    return np.linspace(*SLOT_EPS, count)


def nearest(values, target: float) -> float:
    """The entry of ``values`` nearest ``target``."""
    values = np.asarray(values)
    return float(values[np.argmin(np.abs(values - target))])


def slot_match(comb: str, b, K):
    """The measure B of the items similar to a probe under a 0/1 slot code with per-slot ball
    measure ``b``: "any" of K slots matches (max) or "every" one does (product)."""
    if comb not in ("max", "product"):
        raise ValueError(f"comb must be 'max' or 'product' (a 0/1 code); got {comb!r}")
    return 1 - (1 - b) ** K if comb == "max" else b**K


def slot_identification(comb: str, b: float, K: int) -> float:
    """Closed-form p_I of a slot code with per-slot ball measure ``b``: the max and product
    codes are a constant kernel on their similar set (:func:`slot_match`); the mean code
    gives the other item the share 1 / (1 + J / K), J ~ Bin(K, b) matching slots."""
    if comb == "mean":
        j = np.arange(K + 1)
        return float((binom.pmf(j, K, b) / (1 + j / K)).sum())
    return float(theory.two_item(slot_match(comb, b, K))[1])


def sorted_mean_code(b: float, K: int) -> float:
    """p_S of the mean code's values given to items in order of distance: by the two-item
    frontier proposition the best any ordering of its values reaches, so its upper bound."""
    j = np.arange(K + 1)
    P = binom.pmf(j, K, b)
    with np.errstate(invalid="ignore"):
        share = np.where(j[:, None] + j[None] > 0, np.maximum.outer(j, j)
                         / np.add.outer(j, j), 0.5)
    return float(P @ share @ P)


def wrong_preference(K: int, e: float, trials: int, rng) -> float:
    """Share of similarity trials where the max-over-slots code strictly prefers the item
    that is farther in the combined distance (it matched the probe on some slot only): the
    deficit w below the front of the 0/1-code proposition."""
    d = spaces.Slots(K).distances(rng, 2, trials)
    g = kernels.Slotwise(kernels.Constant(e), "max")(d)
    far = spaces.Slots(K).combine(d).argmax(axis=0)
    g_far = np.take_along_axis(g, far[None], 0)[0]
    g_near = np.take_along_axis(g, 1 - far[None], 0)[0]
    return float((g_far > g_near).mean())


def slots_at_equal_identification(trials: int, stream, levels=EQUAL_PI,
                                  K: int = EQUAL_SLOTS) -> pd.DataFrame:
    """Each code with ``K`` slots at the per-slot radius that gives each identification level
    exactly (closed forms, ``brentq``), its p_S by the engine, the front there and, for the
    mean code, its sorted bound; ``above_z`` and ``bound_z`` in standard errors of p_S."""
    rows = []
    for i, p_target in enumerate(levels):
        for k, comb in enumerate(("max", "product", "mean")):
            b_ = brentq(lambda x: slot_identification(comb, x, K) - p_target, 1e-9, 1 - 1e-9)
            kern = kernels.Slotwise(kernels.Constant(b_ / 2), comb)
            est = luce_success(spaces.Slots(K), kern, "similarity", 2, trials,
                               seed=stream("slot_equal_pi", i, k))
            rows.append({"p_i": p_target, "combine": comb, "scale": b_ / 2,
                         "p_s": est.mean, "se_s": est.stderr,
                         "front": float(theory.front(p_target)),
                         "sorted_bound": sorted_mean_code(b_, K) if comb == "mean"
                         else float(theory.front(p_target))})
    equal = pd.DataFrame(rows)
    equal["above_z"] = (equal.p_s - equal.front) / equal.se_s
    equal["bound_z"] = (equal.p_s - equal.sorted_bound) / equal.se_s
    return equal


def slot_glue(slots, equal, best_slot) -> dict:
    """What the compositional pilot quotes: the verdicts on whether the 0/1 codes stay on or
    below the front (they must), whether the mean code leaves it, and the codes at equal
    identification, with the numbers behind them."""
    mean_escape = bool((slots[slots["combine"] == "mean"].above_z > Z_MAX).any())
    above_max = bool((slots[slots["combine"].isin(["max", "product"])].above_z > Z_MAX).any())
    eq = {c: equal[equal["combine"] == c].set_index("p_i") for c in ("mean", "max", "product")}
    levels = list(eq["mean"].index)
    above_at = [p for p in levels if eq["mean"].above_z[p] > Z95]  # the rows' 95% intervals
    below_at = [p for p in levels if eq["mean"].above_z[p] < -Z95]
    texts = {
        "slot_max_verdict": "lies on or below the front, as the proposition requires of any "
        "0/1 code" if not above_max else "has points significantly above the front, which the "
        "proposition rules out: the simulation is wrong",
        "slot_mean_verdict": "lies significantly above the front at some resolutions, as graded "
        "similarities can" if mean_escape else "does not lie significantly above the front",
        "slot_equal_text": "; ".join(
            f"at $p_I = {p:g}$ the front is {eq['mean'].front[p]:.4f}, the max code "
            f"{eq['max'].p_s[p]:.4f}, the product code {eq['product'].p_s[p]:.4f} and the mean "
            f"code {eq['mean'].p_s[p]:.4f} (its sorted bound {eq['mean'].sorted_bound[p]:.4f})"
            for p in levels),
        "slot_mean_equal_verdict": (
            "lies above the front, its 95% interval clear of it, at $p_I$ = "
            + ", ".join(f"{p:g}" for p in above_at) if above_at else "is not above the front "
            "at any of these levels") + (" and below it at $p_I$ = "
                                         + ", ".join(f"{p:g}" for p in below_at)
                                         if below_at else "")}
    numbers = {"slot_equal_se": equal.se_s.max(),
               "slot_max_worst": slots[(slots["combine"] == "max") & (slots.K == 4)].above.min(),
               "slot_prod_best": best_slot.loc[(4, "product")].above,
               "slot_mean_best": best_slot.loc[(4, "mean")].above}
    return {**numbers, **texts}


def fig_slots(slots):
    """(p_I, p_S) of the slot codes as the per-slot radius sweeps, for 1, 2 and 4 slots, one
    panel per way of combining the slots, with the universal front."""
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.6), sharey=True)
    qq = np.linspace(0.5, 1, 201)
    for ax, comb in zip(axes, ("max", "product", "mean")):
        ax.plot(qq, theory.front(qq), color=splot.THEORY, lw=2.4, alpha=0.35,
                label="universal front" if comb == "max" else None)
        for i, K in enumerate((1, 2, 4)):
            sel = slots[(slots.K == K) & (slots["combine"] == ("single" if K == 1 else comb))]
            ax.errorbar(sel.p_i, sel.p_s, xerr=2 * sel.se_i, yerr=2 * sel.se_s, fmt="o-", ms=3,
                        lw=1, color=splot.CYCLE[i],
                        label=(f"{K} slot" + "s" * (K > 1)) if comb == "max" else None)
        ax.set(xlabel="identification $p_I$", title=f"combined by {comb}", xlim=(0.48, 1.01))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, ncol=4)
    return fig


# --------------------------------------------------------------------------- results at a glance
# Each returns the keyword arguments of ``Report.result`` for its section's rows: the claim,
# the headline and the criterion that decides its status, in one tested place.

def family_result(lin_est, lin_paper: float, check) -> dict:
    """The families row: every Monte Carlo cell and the engine's linear-kernel peak against
    their exact values (the peak is Proposition 1's, a number of the paper)."""
    return dict(result="decay shapes on the circle",
                statement="p_S, p_I of constant, linear, exponential and Gaussian similarity "
                "(with and without a floor); headline: the linear kernel's peak p_S "
                "(Proposition 1)", paper_value=lin_paper, headline=lin_est.mean,
                ci=lin_est.ci(),
                check_max_z=max(check.z.abs().max(), abs(lin_est.zscore(lin_paper))))


def floor_result(floored, scan) -> dict:
    """The floor proposition's row: the smallest margin below its bound of any floored family
    kernel or certified optimum; it holds when none breaks the bound beyond rounding."""
    margin = min((floored.bound - floored.p_s).min(),
                 (floor_bound(scan.p_i, scan.delta) - scan.p_s).min())
    return dict(result="a floor forces a tradeoff (new)",
                statement="for delta <= g <= 1 and two items: p_S <= 1/2 + m / (2 (m + 2 "
                "delta)); headline: the smallest margin of any family kernel or certified "
                "optimum below the bound; a check: the bound is proved by the reasoning the "
                "points are computed with", kind="check",
                headline=margin, passed=bool(margin >= -ROUNDING))


def best_results(peaks, mc_best) -> list[dict]:
    """One row per floor: the certified best similarity beats the constant kernel when its
    gain is positive and the engine puts it more than ``Z_MAX`` standard errors above the
    front; and one check that every certificate is tight and the engine reproduces it."""
    rows = [dict(result=f"best similarity beats the constant kernel, n = 2, delta = "
                 f"{r.delta:g} (new)",
                 statement=f"at p_I = {r.p_i:.4f} (the largest gain in a scan) the certified "
                 "best similarity exceeds the constant kernel's front by the headline (at most "
                 f"{r.upper_bound - r.p_s + r.gain:.4f}), {m.excess_z:.0f} SE in the engine",
                 headline=r.gain, passed=bool(r.gain > 0 and m.excess_z > Z_MAX), new=True)
            for r, m in zip(peaks.itertuples(), mc_best.itertuples())]
    rows.append(dict(result="best similarity: certificates and engine, n = 2",
                     statement=f"each certified optimum lies within {fmt(CERTIFIED_GAP, 2)} of its "
                     "proven upper bound (headline: the largest gap) and the engine "
                     "reproduces it",
                     kind="check", headline=peaks.gap.max(),
                     check_max_z=mc_best[["z_s", "z_i"]].abs().max().max(),
                     passed=bool(peaks.gap.max() < CERTIFIED_GAP)))
    return rows


def tie_results(ties, rates: dict, tie_mc) -> list[dict]:
    """One row per family of discrete spaces, at its finest space: the height above the front
    vanishes when it falls faster than N^TIE_RATE."""
    return [dict(result=f"ties on the {r.space}, N = {r.points} (new)",
                 statement="height tau/2 of a discrete space above the universal front (exact; "
                 "0 in the continuum) vanishes as the space refines: it falls as "
                 f"N^{rates[r.space]:.2f}", new=True, headline=r.above_front,
                 passed=rates[r.space] < TIE_RATE,
                 check_max_z=tie_mc[tie_mc.space == r.space].z.abs().max())
            for _, r in ties.sort_values("points").groupby("space").tail(1).iterrows()]


def slot_results(best_slot, z1, equal) -> list[dict]:
    """The pilot's rows: a check that the codes obey their proved bounds (0/1 codes not above
    the front, the mean code not above its sorted values, one slot on Theorem 1), and per
    identification level whether the mean code's 95% interval lies above the front."""
    rows = [dict(result="slots, K = 4: the codes obey their proved bounds",
                 statement="0/1 codes (max, product) are not significantly above the universal "
                 "front, the mean code not above its own values ordered by distance; one slot "
                 "is Theorem 1 (headline: the max and product codes' largest height above the "
                 "front)", kind="check", check_max_z=np.abs(z1).max(),
                 headline=max(best_slot.loc[(4, c)].above for c in ("max", "product")),
                 passed=bool(max(best_slot.loc[(4, c)].above_z for c in ("max", "product"))
                             <= Z_MAX and (equal.bound_z < Z_MAX).all()))]
    for r in equal[equal["combine"] == "mean"].itertuples():
        rows.append(dict(result=f"slots, K = 4, mean code at p_I = {r.p_i:g} (new)",
                         statement="the graded mean code beats the universal front at equal "
                         "identification", new=True, headline=r.p_s,
                         ci=(r.p_s - Z95 * r.se_s, r.p_s + Z95 * r.se_s),
                         compared_with=r.front,
                         compared_with_label="the universal front there", direction="above"))
    return rows


def front_points(check, mc_best, slots) -> list[tuple]:
    """The chapter's points on the book's overview plane: (system, p_i, p_s, se_i, se_s); a
    few systems, each with several points (the glance page gives each a legend entry)."""
    return ([("similarity families (4 shapes, floors 0 and 0.05)", r.p_i_mc, r.p_s_mc,
              r.se_i, r.se_s) for r in check.itertuples()]
            + [("best step similarity, n = 2 (floors 0.01-0.2)", r.p_i_mc, r.p_s_mc, r.se_i,
                r.se_s) for r in mc_best.itertuples()]
            + [("one slot" if r.K == 1 else f"slots combined by {r.combine} (K = 2, 4)",
                r.p_i, r.p_s, r.se_i, r.se_s) for r in slots.itertuples()])


def ran_lines(cfg: dict, profile: str, seed: int) -> str:
    """What ran in this build, as a Markdown list."""
    return "\n".join(f"* {x}" for x in [
        f"profile **{profile}**, seed {seed}",
        f"Monte Carlo: {cfg['trials']:,} trials per family check cell, "
        f"{cfg['slot_trials']:,} per slot cell ({cfg['slot_eps']} per-slot radii)",
        f"family sweeps: {cfg['scales']} scales per family and floor",
        f"frontier: n in {list(cfg['frontier_n'])}, K doubling up to {cfg['frontier_K']} "
        f"(n = 2) and {cfg['many_K']} (n > 2), {cfg['targets']} identification targets",
        f"ties: cycles of {list(cfg['cycle_sizes'])} points, tori of side "
        f"{list(cfg['torus_sides'])}"])


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
