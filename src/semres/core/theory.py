"""Closed forms of the paper's results, as vectorised numpy functions returning ``(p_s, p_i)``.
Inputs are checked (a ball measure outside [0, 1] gives plausible-looking nonsense); the chapters
derive the formulas in SymPy.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

__all__ = ["two_item", "n_item", "n_item_optimum", "poisson_limit", "linear_circle", "front"]

_TOL = 1e-12  # slack for values computed in floating point (e.g. b = 2 * 0.25)


def _scalarise(x):
    return x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _array(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; got {value!r}") from exc
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN")
    return arr


def _unit(value, name: str) -> np.ndarray:
    arr = _array(value, name)
    if ((arr < -_TOL) | (arr > 1 + _TOL)).any():
        raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    return np.clip(arr, 0.0, 1.0)


def _delta(value) -> np.ndarray:
    arr = _array(value, "delta")
    if (arr < 0).any() or np.isinf(arr).any():
        raise ValueError(f"delta must be finite and >= 0; got {value!r}")
    return arr


def _n(value) -> np.ndarray:
    arr = np.asarray(value)
    numeric = arr.dtype != bool and arr.dtype.kind in "iuf"
    whole = numeric and (arr.dtype.kind != "f"
                         or bool((np.isfinite(arr) & (arr == np.round(arr))).all()))
    if not whole or (arr < 2).any():
        raise ValueError(f"n must be an integer >= 2; got {value!r}")
    return arr.astype(np.int64)


def two_item(b, delta=0.0, var_b=0.0, tau=0.0):
    """Theorems 1-2: two items, constant similarity; ``b`` the mean ball measure, ``var_b`` its
    variance over probes, ``delta`` the similarity outside the ball, ``tau`` the probability of a
    tie in distance (a tied pair is all correct, so p_S gains tau / 2).
    """
    b, delta, var_b, tau = np.broadcast_arrays(_unit(b, "b"), _delta(delta),
                                               _array(var_b, "var_b"), _unit(tau, "tau"))
    if ((var_b < -_TOL) | (var_b > b * (1 - b) + _TOL)).any():
        raise ValueError("var_b must lie in [0, b(1 - b)]")
    var_b = np.clip(var_b, 0.0, b * (1 - b))
    # P(exactly one of the two items falls in the probe's ball) / 2
    one_inside = b - b**2 - var_b
    p_s = 0.5 + (1 - delta) / (1 + delta) * one_inside + tau / 2
    p_i = b / 2 + (1 - b) / (1 + delta)
    return _scalarise(p_s), _scalarise(p_i)


def n_item(b, n, delta=0.0):
    """Theorem 3 on a homogeneous space, as exact sums over K ~ Bin(n, b) items in the ball:
    similarity 1 / (K + (n - K) delta) for K >= 1 (1 / n for K = 0); identification 1 / (1 + J + (n
    - 1 - J) delta), J ~ Bin(n - 1, b).
    """
    b, n, delta = np.broadcast_arrays(_unit(b, "b"), _n(n), _delta(delta))
    k = np.arange(int(n.max()) + 1 if n.size else 3).reshape((-1,) + (1,) * b.ndim)
    # K = 0 apart; terms with k beyond n (padding when n varies) are masked: pmf 0, share 0 / 0
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(k >= 1, 1.0 / (k + (n - k) * delta), 1.0 / n)
        p_s = np.where(k <= n, _binom_pmf(k, n, b) * share, 0.0).sum(axis=0)
        share = 1.0 / (1 + k + (n - 1 - k) * delta)
        p_i = np.where(k <= n - 1, _binom_pmf(k, n - 1, b) * share, 0.0).sum(axis=0)
    return _scalarise(p_s), _scalarise(p_i)


def _binom_pmf(k, n, b):
    """Bin(n, b) at k (0 beyond n) in logs: a third of scipy's cost, for bootstraps."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log = (special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
               + special.xlogy(k, b) + special.xlog1py(n - k, -b))
    return np.where((k >= 0) & (k <= n), np.exp(log), 0.0)


def n_item_optimum(n) -> float:
    """b*(n), the ball measure maximising Theorem 3's p_S (where p_S = p_I, chapter 2)."""
    n = int(_n(n))
    res = optimize.minimize_scalar(lambda x: -n_item(x, n)[0], bounds=(1e-9, 1 - 1e-9),
                                   method="bounded", options={"xatol": 1e-10})
    return float(res.x)


def poisson_limit(lam):
    """Theorem 3 as n -> infinity with lam = n b: p_S = e^-lam (Ei(lam) - gamma - ln lam), p_I = (1
    - e^-lam) / lam.
    """
    lam = _array(lam, "lam")
    if (lam <= 0).any() or np.isinf(lam).any():
        raise ValueError(f"lam must be finite and > 0; got {lam!r}")
    p_s = np.exp(-lam) * (special.expi(lam) - np.euler_gamma - np.log(lam))
    p_i = (1 - np.exp(-lam)) / lam
    return _scalarise(p_s), _scalarise(p_i)


def linear_circle(b):
    """Proposition 1: linear decay max(0, 1 - d / eps) on the unit circle, b = 2 eps <= 1."""
    b = _array(b, "b")
    if ((b < -_TOL) | (b > 1 + _TOL)).any():
        raise ValueError(f"b must lie in [0, 1] (b = 2 eps with eps <= 1/2); got {b!r}")
    b = np.clip(b, 0.0, 1.0)
    p_s = 0.5 + b - (1.5 - np.log(2)) * b**2
    p_i = 1 - (1 - np.log(2)) * b
    return _scalarise(p_s), _scalarise(p_i)


def front(p_i):
    """The universal two-item front: p_s as a function of p_i in [1/2, 1]."""
    p_i = _array(p_i, "p_i")
    if ((p_i < 0.5 - _TOL) | (p_i > 1 + _TOL)).any():
        raise ValueError(f"p_i must lie in [1/2, 1]; got {p_i!r}")
    q = 1 - np.clip(p_i, 0.5, 1.0)
    return _scalarise(0.5 + 2 * q - 4 * q**2)
