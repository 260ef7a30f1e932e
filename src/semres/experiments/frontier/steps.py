"""Non-increasing step similarities (levels g_k on bands of item probability m_k): exact rates
for any n by the t-integral (1/s = int e^-ts dt turns the multinomial sums into one integral,
trapezoid in log t), and the two-item local optimiser, K doubling from the constant kernel."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq, minimize
from threadpoolctl import threadpool_limits

from semres.core.theory import n_item
from semres.core.validate import at_least

#: the local optimiser's t-nodes (evenly spaced in log t)
_NODES = 400


def log_nodes(g_min: float, step: float = 0.2):
    """t-nodes and trapezoid weights in log t, from 1e-14 to where e^(-t g_min) is e^-60 (the
    error about e^(-pi^2 / step): below 1e-15 at 0.2)."""
    t = np.exp(np.arange(math.log(1e-14), math.log(60.0 / g_min) + step, step))
    w = step * t
    w[[0, -1]] /= 2
    return t, w


def decay(g):
    """The t-integral's weights, with e^(-t), and e^(-t g_k): fixed by the levels."""
    t, w = log_nodes(float(g.min()))
    return w, w * np.exp(-t), np.exp(-g[..., None] * t)             # decay: (..., K, T)


def laplace(g, m, n, grad=False, fixed=None):
    """Rates of step similarities (..., K) by the t-integral (``fixed``: :func:`decay`'s), and
    with ``grad`` their gradients in the masses."""
    w, w_id, decay_ = fixed or decay(g)
    terms = m[..., None] * decay_
    tails = np.cumsum(terms[..., ::-1, :], axis=-2)[..., ::-1, :]  # S_j
    below = tails ** (n - 1)                                         # S_j^(n-1)
    p_i = (below[..., 0, :] * w_id).sum(axis=-1)
    powers = below * tails
    band = ((powers - np.concatenate([powers[..., 1:, :], np.zeros_like(powers[..., :1, :])],
                                     axis=-2)) * w).sum(axis=-1)   # int S_j^n - S_{j+1}^n
    p_s = (g * band).sum(axis=-1)
    if not grad:
        return p_s, p_i
    step = np.diff(g, axis=-1, prepend=0.0)                         # g_j - g_{j-1}
    cum = np.cumsum(step[..., None] * below, axis=-2)                # sum_{j <= i}
    dps = n * (decay_ * cum * w).sum(axis=-1)
    dpi = (n - 1) * (decay_ * (tails[..., 0, :] ** (n - 2) * w_id)[..., None, :]).sum(axis=-1)
    return p_s, p_i, dps, dpi


def step_rates(levels, masses, n: int):
    """(p_s, p_i) of step similarities with levels in (0, 1], in any order (leading axes a
    batch, on one grid of t); the copy has g(0) = 1 whatever the first band's level."""
    p_s, p_i = laplace(np.asarray(levels, float), np.asarray(masses, float), n)
    return (float(p_s), float(p_i)) if np.ndim(p_s) == 0 else (p_s, p_i)


def _laplace(g, m, n, grad=False):
    """The local optimiser's t-integral, on its own nodes: p_s, p_i (and their gradients in g
    and m when ``grad``)."""
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
    dps_dg, dps_dm = band - (ds * terms * t).sum(axis=1), (ds * decay).sum(axis=1)
    dpi_dg, dpi_dm = -(terms * t) @ di, decay @ di
    return p_s, p_i, (dps_dg, dps_dm), (dpi_dg, dpi_dm)


def step_kernel(levels, masses):
    """The step similarity as g(d) on the circle (a band of mass m spans m / 2), for the
    engine."""
    g, m = np.asarray(levels, float), np.asarray(masses, float)
    edges = np.cumsum(m / m.sum())[:-1] / 2

    def kernel(d):
        d = np.asarray(d)
        out = g[np.searchsorted(edges, d, side="left")]
        return out.astype(d.dtype if d.dtype.kind == "f" else np.float64)

    return kernel


def _unpack(x, K, delta):
    """The optimiser's variables (K - 1 ratios of g - delta, then K weights) as levels and
    masses: monotone levels from g_1 = 1 down to at least delta."""
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


def optimise(target_p_i: float, n: int, delta: float, K: int, starts=()) -> dict:
    """The largest p_S over K-level step kernels at ``target_p_i``, by SLSQP from ``starts``
    (or the constant kernel)."""
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    K, n = at_least(K, 2, "K"), at_least(n, 2, "n")
    lo, hi = 1 / n, 1 / (1 + (n - 1) * delta)  # chance and the ceiling the floor allows
    if not lo < target_p_i < hi:
        raise ValueError(f"target_p_i must lie in ({lo:.4g}, {hi:.4g}); got {target_p_i!r}")
    memo = {}

    def evaluate(x):
        key = x.tobytes()
        if key not in memo:
            memo.clear()
            p_s, p_i, (sg, sm), (ig, im) = _laplace(*_unpack(x, K, delta), n, grad=True)
            memo[key] = (p_s, p_i, _chain(x, K, delta, sg, sm), _chain(x, K, delta, ig, im))
        return memo[key]

    constraint = {"type": "eq", "fun": lambda x: evaluate(x)[1] - target_p_i,
                  "jac": lambda x: evaluate(x)[3]}
    inits = list(starts)
    if not inits:
        b = _constant_b(target_p_i, n, delta)
        inits = [(np.r_[1.0, np.full(K - 1, delta)],
                  np.r_[b, np.full(K - 1, (1 - b) / (K - 1))])]
    best = None
    for levels, masses in inits:
        x0 = _pack(levels, masses, delta)
        with threadpool_limits(1):
            res = minimize(lambda x: -evaluate(x)[0], x0, jac=lambda x: -evaluate(x)[2],
                           method="SLSQP", bounds=[(0.0, 1.0)] * (K - 1) + [(1e-9, 1.0)] * K,
                           constraints=[constraint], options={"ftol": 1e-10, "maxiter": 200})
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
    """The constant kernel's p_S at identification ``p_i`` (nan outside its range)."""
    lo, hi = n_item(1.0, n, delta)[1], n_item(0.0, n, delta)[1]
    if not lo <= p_i <= hi:
        return math.nan
    return float(n_item(_constant_b(p_i, n, delta), n, delta)[0])


def trace(n: int, delta: float, Ks, targets) -> list[dict]:
    """The local optimum at each target for K in ``Ks`` (doubling, each started from the
    last's bands halved, at the same level or halfway to the next), with the constant kernel's
    p_S there."""
    Ks = [int(k) for k in Ks]
    if any(b != 2 * a for a, b in zip(Ks, Ks[1:])):
        raise ValueError(f"Ks must double at each step (2, 4, 8, ...); got {Ks}")
    rows = []
    for target in targets:
        prev = None
        for K in Ks:
            starts = ()
            if prev is not None:
                g, half = prev["levels"], np.repeat(prev["masses"], 2) / 2
                mid = np.r_[(g[:-1] + g[1:]) / 2, g[-1]]
                starts = [(np.repeat(g, 2), half), (np.ravel(np.column_stack([g, mid])), half)]
            prev = optimise(float(target), n, delta, K, starts)
            rows.append({"n": n, "delta": delta, "K": K, "target": float(target), **prev,
                         "step_front_p_s": constant_front(prev["p_i"], n, delta)})
    return rows


def targets(n: int, delta: float, count: int, lo_frac: float = 0.06,
            hi_frac: float = 0.94) -> np.ndarray:
    """``count`` targets from ``lo_frac`` to ``hi_frac`` of the way from 1/n to the ceiling."""
    lo, hi = 1 / n, 1 / (1 + (n - 1) * delta)
    return lo + (hi - lo) * np.linspace(lo_frac, hi_frac, count)


def doublings(k_max: int) -> list[int]:
    """K = 2, 4, ..., ``k_max``: the local optimiser's levels, each started from the last."""
    return [2 ** i for i in range(1, int(math.log2(k_max)) + 1)]


def convergence(opt: pd.DataFrame):
    """The rows at the largest K, and per (n, delta) its largest gain and the largest change
    of p_S in the last doubling."""
    top = opt.groupby(["n", "delta"]).K.transform("max")
    last, prev = opt[opt.K == top], opt[opt.K == top // 2]
    keys = ["n", "delta", "target"]
    conv = last.set_index(keys).p_s - prev.set_index(keys).p_s
    summary = last.groupby(["n", "delta"]).agg(K=("K", "max"), max_gain=("gain", "max"))
    summary["last_doubling"] = conv.groupby(["n", "delta"]).max()
    return last, summary
