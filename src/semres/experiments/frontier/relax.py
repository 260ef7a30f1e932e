"""The branch-and-bound's second node bound: p_S = [W(z) - z'Mz/2] + residual + [C + z'Mz/2],
the first bracket under its envelope (convex on the box when M is below W's least Hessian
there), the last under tangent planes (concave on the box's region when M is below C's
curvature bound, a Schur complement over the directions that leave z fixed). So C carries the
part of V's curvature it cancels; measurements in ``benchmarks/bench_frontier.py``."""

from __future__ import annotations

import numpy as np

#: beta, C + z'Mz/2 + beta (1 - |m|^2) concave, as a share of the tolerance (well posed)
BETA_SHARE = 1e-3
#: the box's widening before the Hessian bounds, so that the LP's points lie in it
Z_PAD = 1e-7


def lower_tails(P, low, high):
    """Lower bounds on S_j(t) (K, T) for masses whose L_t lie in [low, high] for every t."""
    g, t = P.g, P.t
    above = np.zeros((g.size, t.size))
    expo = np.log(np.maximum(high, 1e-300))[None, :] + np.outer(g[:-1], t)
    above[1:] = np.exp(np.minimum.accumulate(expo, axis=1) - np.outer(g[:-1], t))
    tails = np.clip(low[None, :] - above, 0.0, None)
    scale = np.exp(P.delta * (t - t[-1]))[None, :]
    back = np.maximum.accumulate((tails * scale)[:, ::-1], axis=1)[:, ::-1] / scale
    return np.maximum(tails, back * (1 - 1e-12))


def curvature_of_c(P, low, high):
    """G-: -C's Hessian is at least this wherever L_t lies in [low, high]."""
    n, E, w = P.n, P.E, P.w
    c = np.abs(P.c)
    c[0] = 0.0
    R = np.cumsum(c[:, None] * lower_tails(P, low, high) ** (n - 2), axis=0)   # sum_{j<=k}
    Y = ((w[:, None] * E) * R.T).T @ E                                  # right for k <= l
    return n * (n - 1) * (np.triu(Y) + np.triu(Y, 1).T)


def _tangent(P):
    """Orthonormal bases of the simplex's directions, Z1 B's part (B'Z1 = R', B'Z2 = 0)."""
    if getattr(P, "_tangent", None) is None:
        K, r = P.g.size, P.rank
        Q = np.linalg.qr(np.c_[np.ones(K), np.eye(K)[:, :K - 1]])[0][:, 1:]
        Z = np.linalg.qr(Q.T @ P.B, mode="complete")[0]
        R = Z[:, :r].T @ (Q.T @ P.B)                                   # Q'B = Z[:, :r] R
        P._tangent = (Q @ Z[:, :r], Q @ Z[:, r:], np.linalg.inv(R))
    return P._tangent


def shift(P, lo, hi, tol: float):
    """(M, beta) for the box: W - z'Mz/2 convex on it, C + z'Mz/2 + beta (1 - |m|^2) concave
    on its region; None where L's intervals are empty or z spans the simplex."""
    lo, hi = lo - Z_PAD, hi + Z_PAD
    low, high = P.intervals(lo, hi)
    if (low > high + 1e-14).any():
        return None
    n, r = P.n, P.rank
    if r > P.g.size - 2:   # no direction of the simplex left outside z (tiny grids only)
        return None
    Z1, Z2, Ri = _tangent(P)
    beta = BETA_SHARE * tol
    G = curvature_of_c(P, low, high)
    G11, G12 = Z1.T @ G @ Z1 + 2 * beta * np.eye(r), Z1.T @ G @ Z2
    chol = np.linalg.cholesky(Z2.T @ G @ Z2 + 2 * beta * np.eye(Z2.shape[1]))
    half = np.linalg.solve(chol, G12.T)
    MC = Ri @ (G11 - half.T @ half) @ Ri.T
    # W's least Hessian on the box and every box inside it: x_t = A_t z lies in [xl, xh], and
    # (x^n)'' >= xl^(n-2) n (n-1) unless x leaves [0, top], where :func:`.branch._power` goes on
    # linearly (top: the box's bound on L_t, at least min(xh + r_hi, top_L) >= xh if r_hi >= 0)
    pos, neg = np.clip(P.A, 0, None), np.clip(P.A, None, 0)
    xl, xh = pos @ lo + neg @ hi, pos @ hi + neg @ lo
    keep = (xl > 0) & (xh <= P.top_L) & (P.r_hi >= 0)
    coef = np.where(keep, np.clip(xl, 0, None) ** (n - 2), 0.0)
    HW = n * (n - 1) * (P.A.T * (P.w * coef)) @ P.A
    lam, U = np.linalg.eigh((HW + HW.T) / 2)
    root = U * np.sqrt(np.clip(lam, 1e-12 * max(lam.max(), 1.0), None))
    inv = np.linalg.inv(root)
    mu, X = np.linalg.eigh(inv @ ((MC + MC.T) / 2) @ inv.T)
    M = root @ (X * np.minimum(mu, 1.0)) @ X.T @ root.T
    M = (M + M.T) / 2
    # what rounding (and the floor on HW's eigenvalues) leaves above either bound, taken off
    slack = max(0.0, -np.linalg.eigvalsh(HW - M)[0], -np.linalg.eigvalsh(MC - M)[0])
    M -= (slack + 1e-9 * max(np.abs(M).max(), 1.0)) * np.eye(r)
    return M, beta
