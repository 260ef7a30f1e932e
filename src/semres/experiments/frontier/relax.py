"""Moving V's curvature onto C where C can carry it: the second node bound of :mod:`.branch`.

p_S = V + C cancels (each of order 1 / (n delta), p_S <= 1), so relaxing V by its envelope and C
by tangent planes pays for V's curvature although C's nearly cancels it. With a symmetric r x r
matrix M,

    p_S = [W(z) - z'Mz / 2] + residual + [C(m) + z'Mz / 2],    z = B'm,

where W(z) = sum_t w_t (A_t z)^n (continued as :func:`.branch._power`) and the residual's linear
term are those of the envelope. The first bracket is bounded by its envelope over the box's
vertices if it is convex there (M <= the least Hessian of W on the box), the last by its
tangent planes at points of the node's region Omega = {m on the simplex, B'm in the box} if it
is concave on Omega. C's Hessian is -n (n-1) sum_t w_t sum_{j>=2} |c_j| S_j(t)^(n-2)
e_t^(j) e_t^(j)' (e^(j): row t of E with the levels above j zeroed), so -C's Hessian is at least
G- (the same sum with lower bounds on S_j(t) over Omega), and C + z'Mz/2 is concave on Omega when
B M B' <= G- on the simplex's directions; maximising over the directions that leave z unchanged
(a Schur complement) turns this into M <= M_C, an r x r matrix. M is the largest matrix below
both Hessian bounds (in the eigenbasis of one relative to the other). The envelope's error then
follows the curvature of W - z'Mz/2, which is what C does not cancel, not V's whole curvature;
with M = 0 it is the old bound, and the node keeps both.

Lower bounds on S_j(t) = sum_{k>=j} m_k exp(-t g_k) from L's intervals [low_t, high_t] on the
box: S_j(t) >= low_t - (the levels above j at t), and those are at most exp(-(t - t') g_{j-1})
high_t' for every t' <= t (a running minimum); S_j(t) >= exp((t'' - t) delta) S_j(t'') for t''
>= t carries them back (every level is at least delta).

Measured (n = 4, delta = 0.01, 240 levels, the middle-high target): at the optimum p_S is
concave on the simplex (the Hessian's largest eigenvalue there -0.005, V's alone 3,400), so with
C's exact curvature M would take all of V's. What limits it: S_j is not a function of z (masses
that leave z fixed move it by 10 to 15% at t = 2 to 10), so G- keeps too little of C's curvature
(r x r matrix left uncovered: 170 to 530, against V's 11,000), and the tangent planes of C +
z'Mz/2 at a few points are loose off z (the largest term of the node bound in the late boxes).
Tried and dropped: concave overestimators p_S + sum_i alpha_i (z_i - lo_i)(hi_i - z_i) of the
whole p_S (alphaBB; error above the envelope's on the branch-and-bound's boxes, which are wide in
V's flat directions); C's pieces carrying M one at a time, or a share of C carrying it (looser);
branching on the curvature left after M, or on relative widths (no better); a second LP per node
with the planes at its own solution (worse per LP); exact lower bounds on S_j by linear programs
(G- then nearly exact on a box of 0.3% around the optimum, but 20 s per box).
"""

from __future__ import annotations

import numpy as np

#: beta: C + z'Mz/2 + beta (1 - |m|^2) must be concave (beta is added to the bound), as a share of
#: the tolerance; it makes the Schur complement well posed
BETA_SHARE = 1e-3
#: the box is widened by Z_PAD (z of order 0.1 to 1) before the Hessian bounds, so that points of
#: tangency from the LP (feasible to its tolerance) lie in it
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
    """G- (K, K): -C's Hessian is at least this at every m on the simplex whose L_t lie in
    [low, high] (each term a positive semidefinite rank-one matrix, its coefficient bounded)."""
    n, E, w = P.n, P.E, P.w
    c = np.abs(P.c)
    c[0] = 0.0
    R = np.cumsum(c[:, None] * lower_tails(P, low, high) ** (n - 2), axis=0)   # sum_{j<=k}
    Y = ((w[:, None] * E) * R.T).T @ E                                  # right for k <= l
    return n * (n - 1) * (np.triu(Y) + np.triu(Y, 1).T)


def _tangent(P):
    """(Z1, Z2, R^-1): orthonormal bases of the simplex's directions, Z1 spanning B's part of
    them (B'Z1 = R', B'Z2 = 0)."""
    if getattr(P, "_tangent", None) is None:
        K, r = P.g.size, P.rank
        Q = np.linalg.qr(np.c_[np.ones(K), np.eye(K)[:, :K - 1]])[0][:, 1:]
        Z = np.linalg.qr(Q.T @ P.B, mode="complete")[0]
        R = Z[:, :r].T @ (Q.T @ P.B)                                   # Q'B = Z[:, :r] R
        P._tangent = (Q @ Z[:, :r], Q @ Z[:, r:], np.linalg.inv(R))
    return P._tangent


def shift(P, lo, hi, tol: float):
    """(M, beta) for the box ``lo`` <= z <= ``hi`` (widened by :data:`Z_PAD`), or None where L's
    intervals are empty or z spans the simplex. W - z'Mz/2 is convex on the box and C + z'Mz/2 +
    beta (1 - |m|^2) concave on its region."""
    if not (0 < tol < 1):
        raise ValueError(f"tol must lie in (0, 1); got {tol!r}")
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
