"""A certificate for the n-item frontier: spatial branch-and-bound over step similarities.

With :mod:`.steps`' t-integral, p_S = V(m) + C(m): C is concave, V and p_I convex in m
through L = E m alone, of low numerical rank. Boxes are on z = B'm, B the leading singular
vectors of E (rows weighted by the curvature of V and p_I). A node's linear program holds V and
p_I under their concave envelope over the box's vertices and their chords in each L_t, C's
pieces under tangent planes (Kelley rounds add some where a split gains little), and the shifted
bound of :func:`shift`; its dual bounds p_S over the box whatever the solver's accuracy. The
root box is first shrunk by bound tightening. A point is *certified* when no box left can beat
the best similarity found by more than ``tol``. Measurements behind each constant:
``benchmarks/bench_frontier.py`` and the git history."""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass

import highspy
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from semres.core.parallel import spread

from .steps import log_nodes

#: the relaxation's t-integral: step in log t (trapezoid error about e^{-pi^2 / step})
STEP = 0.3
#: added to every bound: the t-integral's error and the rounding of a few hundred terms
ALLOWANCE = 1e-9
#: the projection's rank: the fewest singular vectors whose residual widens the chords by at
#: most this share of the tolerance, and never more than MAX_RANK (2^rank vertices)
RESIDUAL_SHARE = 5e-4
MAX_RANK = 9
#: C's pieces: groups of consecutive levels, each with its own tangent planes
PIECES = 4
#: tangent planes of the root kept by every node, and a node's own (the latest)
ROOT_CUTS, NODE_CUTS = 4, 15
#: Kelley rounds at the root, and at a box whose split gained under ROUND_GAIN of the gap
ROOT_ROUNDS, NODE_ROUNDS, ROUND_GAIN = 8, 3, 0.1
#: a point still GIVE_UP away after a quarter of its budget (and GIVE_UP_AFTER programs) stops
GIVE_UP, GIVE_UP_AFTER = 0.05, 120
#: bound tightening at the root (one pass): the cutoff is best + this share of the tolerance
OBBT_SHARE = 0.5
#: points of tangency a node hands to its children, the best similarity first
POINTS = 8
#: each tightened end is moved back out by this (z is of order 0.1 to 1)
Z_SLACK = 1e-9
#: the shift's beta, C + z'Mz/2 + beta (1 - |m|^2) concave, as a share of the tolerance
BETA_SHARE = 1e-3
#: the box's widening before the shift's Hessian bounds, so that the LP's points lie in it
Z_PAD = 1e-7
#: the elastic program's price of a unit of violation and the most a row may take (any give a
#: proven bound; these drop an infeasible box far below any p_S)
PENALTY, SLACK_MAX = 1e4, 10.0


# --------------------------------------------------------------------------- linear programs
# Solved by HiGHS and bounded by weak duality: a bound comes from the solver's dual (clipped to
# its signs), never its word; an infeasible or failed program is bounded by its elastic form. A
# child starts from its parent's basis (rows by key).

_STATUS = {s.value: s for s in highspy.HighsBasisStatus.__members__.values()}
_SOLVER = None


@dataclass
class Program:
    """min cost x, A_ub x <= b_ub, A_eq x = b_eq, bounds; ``keys`` name A_ub's rows."""

    cost: np.ndarray
    A_ub: np.ndarray
    b_ub: np.ndarray
    A_eq: np.ndarray
    b_eq: np.ndarray
    bounds: np.ndarray
    keys: list


@dataclass
class Basis:
    """An optimal basis: the status of every column, and of every row by its key."""

    cols: np.ndarray
    rows: dict


def _highs():
    """One HiGHS instance per process (each program replaces the last model)."""
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = highspy.Highs()
        for key, value in (("output_flag", False), ("presolve", "off"), ("threads", 1)):
            _SOLVER.setOptionValue(key, value)
    return _SOLVER


def _pass(h, prog: Program, warm: Basis | None) -> None:
    """The program to HiGHS as arrays (its fast overload); ``warm``'s rows by key, new rows
    basic (an 'alien' basis)."""
    A = np.vstack([prog.A_ub, prog.A_eq]).T                            # (columns, rows)
    nz = A != 0
    start = np.r_[0, np.cumsum(nz.sum(axis=1))[:-1]].astype(np.int32)
    index = np.nonzero(nz)[1].astype(np.int32)
    lower = np.r_[np.full(len(prog.b_ub), -highspy.kHighsInf), prog.b_eq]
    h.passModel(A.shape[0], A.shape[1], len(index), int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMinimize), 0.0, prog.cost,
                np.ascontiguousarray(prog.bounds[:, 0]), np.ascontiguousarray(prog.bounds[:, 1]),
                lower, np.r_[prog.b_ub, prog.b_eq], start, index, A[nz],
                np.zeros(A.shape[0], np.int32))
    if warm is not None:
        basis = highspy.HighsBasis()
        basis.col_status = [_STATUS[s] for s in warm.cols]
        basic = highspy.HighsBasisStatus.kBasic
        basis.row_status = [_STATUS[warm.rows[k]] if k in warm.rows else basic
                            for k in prog.keys]
        basis.alien, basis.valid = True, True
        h.setBasis(basis)


def solve(prog: Program, warm: Basis | None = None, *, elastic: bool = True):
    """A proven lower bound on min cost x (:func:`weak_dual`, or the elastic program's where
    the solver fails or finds none), the solver's x and its basis; from ``warm``, else cold."""
    h = _highs()
    usable = warm is not None and len(warm.cols) == len(prog.cost)
    for start in ((warm, None) if usable else (None,)):
        h.clearModel()
        _pass(h, prog, start)
        h.run()
        status = h.getModelStatus()
        if status in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible):
            break
    if status != highspy.HighsModelStatus.kOptimal:
        return (_elastic(prog) if elastic else -math.inf), None, None
    sol, basis = h.getSolution(), h.getBasis()
    kept = Basis(np.array([s.value for s in basis.col_status], np.int8),
                 {k: s.value for k, s in zip(prog.keys, basis.row_status)})
    return weak_dual(prog, np.asarray(sol.row_dual)), np.asarray(sol.col_value), kept


def weak_dual(prog: Program, duals) -> float:
    """Weak duality on row ``duals``: a lower bound on min cost x, whatever their accuracy."""
    n_ub = len(prog.b_ub)
    y = np.clip(-duals[:n_ub], 0.0, None)
    nu = -duals[n_ub:]
    reduced = prog.cost + prog.A_ub.T @ y + prog.A_eq.T @ nu
    lo, hi = prog.bounds[:, 0], prog.bounds[:, 1]
    return float(-y @ prog.b_ub - nu @ prog.b_eq + np.minimum(reduced * lo, reduced * hi).sum())


def _elastic(prog: Program) -> float:
    """Every row may be violated (at most SLACK_MAX) at PENALTY a unit; bounds that cross
    prove infeasibility (+inf)."""
    if (prog.bounds[:, 0] > prog.bounds[:, 1]).any():
        return math.inf
    n_ub, n_eq = len(prog.b_ub), len(prog.b_eq)
    slack = n_ub + 2 * n_eq
    elastic = Program(
        np.concatenate([prog.cost, np.full(slack, PENALTY)]),
        np.hstack([prog.A_ub, -np.eye(n_ub), np.zeros((n_ub, 2 * n_eq))]), prog.b_ub,
        np.hstack([prog.A_eq, np.zeros((n_eq, n_ub)), np.eye(n_eq), -np.eye(n_eq)]), prog.b_eq,
        np.vstack([prog.bounds, np.tile([0.0, SLACK_MAX], (slack, 1))]), prog.keys)
    return solve(elastic, elastic=False)[0]


# --------------------------------------------------------------------------- the problem

class _Problem:
    """The frontier problem on one grid of levels, with its projection for branching."""

    def __init__(self, levels, n: int, delta: float, reference, tol: float, *,
                 max_rank: int = MAX_RANK):
        self.n, self.delta = n, delta
        self.g = np.asarray(levels, float)
        self.t, self.w = log_nodes(delta, STEP)
        self.q = self.w * np.exp(-self.t)
        self.E = np.exp(-np.outer(self.t, self.g))                    # (T, K)
        self.c = np.diff(self.g, prepend=0.0)                          # c_1 = 1, then < 0
        self.floor_L, self.top_L = np.exp(-self.t), np.exp(-self.t * delta)
        L = np.clip(self.E @ reference, self.floor_L, None)
        self.curv_v, self.curv_i = self.curvature(L)
        rows = np.r_[np.sqrt(self.curv_v)[:, None] * self.E,
                     np.sqrt(self.curv_i)[:, None] * self.E]
        basis = np.linalg.svd(rows, full_matrices=False)[2].T         # (K, K)
        for r in range(1, min(max_rank, basis.shape[1]) + 1):
            self.B = basis[:, :r]
            self.A = self.E @ self.B                                   # L = A z + residual
            self.resid = self.E - self.A @ self.B.T
            self.r_lo, self.r_hi = self.resid.min(axis=1), self.resid.max(axis=1)
            if self._residual_gap() <= RESIDUAL_SHARE * tol:
                break
        self.rank = self.B.shape[1]
        self.corners = np.array(list(itertools.product((0.0, 1.0), repeat=self.rank)))
        self.s_min = (delta - 1) * float((self.w * self.top_L ** n).sum()) - 1.0
        # C's pieces: a 0/1 matrix of which levels j >= 2 each piece sums over
        edges = np.linspace(1, self.g.size, min(PIECES, self.g.size - 1) + 1).astype(int)
        edges = np.unique(edges)
        self.pieces = np.zeros((edges.size - 1, self.g.size))
        for k, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
            self.pieces[k, a:b] = 1.0
        self._tangent = None

    def curvature(self, L):
        """How much the chords of V's and p_I's terms at L_t loosen per squared width: the
        chord gap of x^p on an interval of width W is at most p (p - 1) x^(p-2) W^2 / 8."""
        n = self.n
        return (self.w * n * (n - 1) / 8 * L ** (n - 2),
                self.q * (n - 1) * (n - 2) / 8 * L ** max(n - 3, 0))

    def _residual_gap(self) -> float:
        return float(((self.curv_v + self.curv_i) * (self.r_hi - self.r_lo) ** 2).sum())

    def box(self):
        """The image of the simplex: each z_i between its smallest and largest vertex value."""
        return self.B.min(axis=0), self.B.max(axis=0)

    def intervals(self, lo, hi):
        """Each L_t's interval on the box ``lo`` <= z <= ``hi``."""
        pos, neg = np.clip(self.A, 0, None), np.clip(self.A, None, 0)
        low = pos @ lo + neg @ hi + self.r_lo
        high = pos @ hi + neg @ lo + self.r_hi
        return np.maximum(low, self.floor_L), np.minimum(high, self.top_L)

    def concave(self, m):
        """Each piece of C at ``m`` and its gradient: (values (S,), gradients (S, K)); C is their
        sum (tails by a reversed cumulative sum, the gradient by Abel summation)."""
        n, E, w = self.n, self.E, self.w
        tails = np.cumsum((m[:, None] * E.T)[::-1], axis=0)[::-1]    # S_j(t), (K, T)
        steps = self.pieces * self.c                                   # (S, K), zero at j = 1
        value = steps @ (tails ** n @ w)
        inner = np.cumsum(steps[:, :, None] * tails[None] ** (n - 1), axis=1)   # (S, K, T)
        return value, n * (inner * (E.T * w)[None]).sum(axis=2)

    def identification(self, m):
        """p_I(m) and its gradient."""
        L, n = self.E @ m, self.n
        return float(self.q @ L ** (n - 1)), (n - 1) * ((self.q * L ** (n - 2)) @ self.E)

    def rates(self, m):
        """(p_S, p_I) of masses ``m`` on this grid of t."""
        L = self.E @ m
        p_s = float(self.w @ L ** self.n) + float(self.concave(m)[0].sum())
        return p_s, self.identification(m)[0]

    def point(self, m):
        """``m`` with C and its gradient there: a point of tangency for the shifted rows."""
        cv, cg = self.concave(m)
        return m, float(cv.sum()), cg.sum(axis=0), cv, cg

    def cut(self, m, point=None):
        """The tangent planes of C's pieces and of p_I at ``m``: (intercepts (S,), gradients
        (S, K), p_I's intercept, its gradient); ``point``: :meth:`point` at ``m``, reused."""
        cv, cg = self.concave(m) if point is None else point[3:]
        iv, ig = self.identification(m)
        return (cv - cg @ m, cg, iv - ig @ m, ig)


# --------------------------------------------------------------------------- the shifted bound
# p_S = [W(z) - z'Mz/2] + residual + [C + z'Mz/2]: the first bracket under its envelope (convex
# on the box when M is below W's least Hessian there), the last under tangent planes (concave
# on the box's region when M is below C's curvature bound, a Schur complement over the
# directions that leave z fixed). So C carries the part of V's curvature it cancels.

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
    c = np.abs(P.c)
    c[0] = 0.0
    R = np.cumsum(c[:, None] * lower_tails(P, low, high) ** (P.n - 2), axis=0)   # sum_{j<=k}
    Y = ((P.w[:, None] * P.E) * R.T).T @ P.E                            # right for k <= l
    return P.n * (P.n - 1) * (np.triu(Y) + np.triu(Y, 1).T)


def _tangent(P):
    """Orthonormal bases of the simplex's directions, Z1 B's part (B'Z1 = R', B'Z2 = 0)."""
    if P._tangent is None:
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
    # (x^n)'' >= xl^(n-2) n (n-1) unless x leaves [0, top], where :func:`_vertex_powers` goes on
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


# --------------------------------------------------------------------------- the search

def _chord(p: int, lo, hi):
    """Slope and intercept of the chord of x^p on [lo, hi] (the tangent where they meet)."""
    width = hi - lo
    wide = width > 1e-13
    slope = np.where(wide, (hi ** p - lo ** p) / np.where(wide, width, 1.0), p * lo ** (p - 1))
    return slope, lo ** p - slope * lo


def _vertex_powers(X, n: int, top, w, q):
    """The envelope's columns: (f_n(X) @ w, f_(n-1)(X) @ q) for the vertices' rows X, f_p(x)
    = max(x, 0)^p up to ``top`` and its tangent beyond (convex, and L^p <= f_p(x) + the term of
    :func:`_residual` whenever L = x + rho lies in [low, top])."""
    y = np.minimum(np.maximum(X, 0.0), top)                          # np.clip: slower
    over = np.maximum(X - top, 0.0)
    lower = y.copy()
    for _ in range(n - 2):
        lower *= y                                                     # y^(n-1)
    sums_i = lower @ q + over @ ((n - 1) * top ** (n - 2) * q)
    lower *= y
    return lower @ w + over @ (n * top ** (n - 1) * w), sums_i


def _residual(p: int, low, high, r_lo, r_hi):
    """A line in rho above L^p - f_p(x) (:func:`_vertex_powers`) for L = x + rho in [low,
    high] (mean value theorem): slope and intercept."""
    a, b = p * high ** (p - 1), p * low ** (p - 1)
    lo, hi = np.minimum(r_lo, 0.0), np.maximum(r_hi, 0.0)
    wide = hi - lo > 0
    slope = np.where(wide, (a * hi - b * lo) / np.where(wide, hi - lo, 1.0), a)
    return slope, (a - slope) * hi


def _program(P: _Problem, target: float, lo, hi, cuts, shifted=None):
    """The node's program in x = (m, C's pieces, the vertices' weights, u), maximising u;
    None where the box holds no L. Rows are keyed for warm starts."""
    low, high = P.intervals(lo, hi)
    if (low > high + 1e-14).any():
        return None
    n, K, r = P.n, P.E.shape[1], P.rank
    S, NV = P.pieces.shape[0], P.corners.shape[0]
    sv, iv = _chord(n, low, high)
    si, ii = _chord(n - 1, low, high)
    width = K + S + NV + 1
    sl, ll, ul = slice(K, K + S), slice(K + S, K + S + NV), K + S + NV

    def row(m=None, s=0.0, lam=None, u=0.0):
        x = np.zeros(width)
        if m is not None:
            x[:K] = m
        x[sl], x[ul] = s, u
        if lam is not None:
            x[ll] = lam
        return x

    rows = [row(-(P.w * sv) @ P.E, -1.0, u=1.0), row(-(P.q * si) @ P.E)]
    rhs = [float(P.w @ iv), float(P.q @ ii) - target]
    keys = ["chord V", "chord I"]
    eq = [row(np.ones(K))]
    V = lo + P.corners * (hi - lo)                                # the box's vertices
    X = V @ P.A.T
    rv, cv = _residual(n, low, high, P.r_lo, P.r_hi)
    ri, ci = _residual(n - 1, low, high, P.r_lo, P.r_hi)
    powers, powers_i = _vertex_powers(X, n, high, P.w, P.q)
    rows += [row(-(P.w * rv) @ P.resid, -1.0, -powers, 1.0),
             row(-(P.q * ri) @ P.resid, 0.0, -powers_i)]
    rhs += [float(P.w @ cv), float(P.q @ ci) - target]
    keys += ["envelope V", "envelope I"]
    eq += [row(lam=np.ones(NV))] + [row(P.B[:, i], lam=-V[:, i]) for i in range(r)]
    if shifted:   # :func:`shift`'s rows, one per point of tangency
        M, beta = shifted[1]
        lam = powers - 0.5 * ((V @ M) * V).sum(axis=1)             # W(v) - v'Mv/2
        base, const = (P.w * rv) @ P.resid, float(P.w @ cv)
        for point in shifted[0]:
            m, c_value, c_grad, *_ = point
            keys.append(("point", c_value))
            z = P.B.T @ m
            value = c_value + 0.5 * z @ M @ z + beta * (1 - m @ m)
            grad = c_grad + P.B @ (M @ z) - 2 * beta * m
            rows.append(row(-(base + grad), 0.0, -lam, 1.0))
            rhs.append(const + value - grad @ m)
    block = np.zeros((len(cuts), 1 + S, width))   # per cut: p_I's plane, then C's pieces'
    for j, (c0, cg, i0, ig) in enumerate(cuts):
        block[j, 0, :K], block[j, 1:, :K] = ig, -cg
        rhs += [target - i0, *c0]
        keys += [("cut", i0)] + [("cut", i0, k) for k in range(S)]
    block[:, 1:, sl] = np.eye(S)
    keys += ["sum m", "sum lambda"] + [("z", i) for i in range(r)]
    b_eq = np.zeros(len(eq))
    b_eq[:2] = 1.0                                                     # sum m = sum lambda = 1
    cost = np.zeros(width)
    cost[ul] = -1.0
    bounds = np.array([(0.0, 1.0)] * K + [(P.s_min, 0.0)] * S + [(0.0, 1.0)] * NV + [(0.0, 2.0)])
    return Program(cost, np.vstack([rows, block.reshape(-1, width)]), np.array(rhs),
                   np.array(eq), b_eq, bounds, keys)


def _relaxation(P: _Problem, target: float, lo, hi, cuts, *, shifted=None, warm=None):
    """The node's proven bound on p_S over the box (by the dual), the LP's masses (None where
    it found none) and its basis; ``shifted`` adds :func:`shift`'s rows."""
    prog = _program(P, target, lo, hi, cuts, shifted)
    if prog is None:
        return -math.inf, None, None
    floor, x, basis = solve(prog, warm)
    if x is None:
        return -floor + ALLOWANCE, None, None
    m = np.clip(x[:P.E.shape[1]], 0.0, None)
    return -floor + ALLOWANCE, m / m.sum(), basis


def _inside(P: _Problem, lo, hi, points):
    """The points of tangency whose z lies in the box (widened by :data:`Z_PAD`)."""
    return [p for p in points
            if ((P.B.T @ p[0] >= lo - Z_PAD) & (P.B.T @ p[0] <= hi + Z_PAD)).all()]


def _tighten(P: _Problem, target: float, lo, hi, cuts, cutoff: float):
    """The box shrunk, one coordinate at a time, to where the relaxation can reach p_S >=
    ``cutoff`` (None where nowhere), and the programs solved."""
    lo, hi, used = lo.copy(), hi.copy(), 0
    K = P.E.shape[1]
    for i in range(P.rank):
        for sign in (1.0, -1.0):
            prog = _program(P, target, lo, hi, cuts)
            if prog is None:
                return None, used
            prog.bounds[-1, 0] = cutoff                                  # u >= cutoff
            prog.cost = np.zeros_like(prog.cost)
            prog.cost[:K] = sign * P.B[:, i]
            floor, _, _ = solve(prog)
            used += 1
            if floor == math.inf:
                return None, used
            if sign > 0:   # widened by Z_SLACK: the rows' rounding, as ALLOWANCE for p_S
                lo[i] = max(lo[i], floor - Z_SLACK)
            else:
                hi[i] = min(hi[i], -floor + Z_SLACK)
            if lo[i] > hi[i]:
                return None, used
    return (lo, hi), used


def _deepen(P: _Problem, target: float, lo, hi, root, own, pair, warm, best: float, tol: float,
            parent: float = math.inf):
    """The box's bound, lowered by Kelley rounds where its split gained little: (bound,
    masses, basis, the box's own cuts, programs)."""
    bound, m, basis = _relaxation(P, target, lo, hi, root + own, shifted=pair, warm=warm)
    used = 1
    if parent < math.inf and bound < parent - ROUND_GAIN * (parent - best):   # split worked
        return bound, m, basis, own, used
    for _ in range(NODE_ROUNDS):
        if m is None or bound <= best + tol:
            break
        cuts = (own + [P.cut(m)])[-NODE_CUTS:]
        new, m_new, b_new = _relaxation(P, target, lo, hi, root + cuts, shifted=pair,
                                        warm=basis or warm)
        used += 1
        if m_new is None or new >= bound:   # the caller adds m's planes
            return min(bound, new), m, basis, own, used
        gain, bound, m, basis, own = bound - new, new, m_new, b_new, cuts
        if gain < ROUND_GAIN * (bound - best):
            break
    return bound, m, basis, own, used


def _branch_dim(P: _Problem, lo, hi) -> int:
    """The coordinate whose width loosens the chords most."""
    curv_v, curv_i = P.curvature(P.intervals(lo, hi)[1])
    curv = curv_v + curv_i
    return int(np.argmax((hi - lo) ** 2 * (curv[:, None] * P.A ** 2).sum(axis=0)))


def certify(levels, masses, n: int, delta: float, target: float, *, tol: float = 1e-3,
            nodes: int = 1000, max_rank: int = MAX_RANK) -> dict:
    """Branch-and-bound for the largest p_S^n at ``target`` over the masses of ``levels``,
    against the best found, ``masses``: the proven ``upper_bound``, ``gap``, ``certified``
    (gap <= ``tol``), ``nodes`` (programs solved), ``rank`` and ``seconds``."""
    g, m0 = np.asarray(levels, float), np.asarray(masses, float)
    clock = time.perf_counter()
    with threadpool_limits(1):
        P = _Problem(g, n, float(delta), m0, tol, max_rank=int(max_rank))
        best, p_i = P.rates(m0)
        if abs(p_i - target) > 1e-7:
            raise ValueError(f"target must be the masses' p_I ({p_i:.9f}); got {target!r}")
        target = p_i   # the same identification on this t-grid (they differ by ~1e-13)
        lo, hi = P.box()
        cuts = [P.cut(m0)]
        bound, m, basis = _relaxation(P, target, lo, hi, cuts)
        count = 1
        for _ in range(ROOT_ROUNDS):   # Kelley rounds: tangent planes where the LP lands
            if m is None:
                break
            cuts.append(P.cut(m))
            new, m, basis = _relaxation(P, target, lo, hi, cuts, warm=basis)
            bound, count = min(bound, new), count + 1
        root = cuts[:ROOT_CUTS]
        closed = -math.inf   # the largest bound of a box dropped within tol
        if bound > best + tol:
            cutoff = best + OBBT_SHARE * tol
            box, used = _tighten(P, target, lo, hi, cuts[-NODE_CUTS:], cutoff)
            count += used
            if box is None or (box[0] > lo).any() or (box[1] < hi).any():
                closed = cutoff + ALLOWANCE   # what was cut off holds no p_S above this
            if box is None:
                bound = -math.inf
            else:
                lo, hi = box
                new, m, basis = _relaxation(P, target, lo, hi, cuts[-NODE_CUTS:], warm=basis)
                bound, count = min(bound, new), count + 1
        anchor = P.point(m0)
        root_points = _inside(P, lo, hi, [anchor] + ([P.point(m)] if m is not None else []))
        heap = ([(-bound, 0, lo, hi, cuts[-NODE_CUTS:], root_points, basis)]
                if bound > best + tol else [])
        closed = max(closed, bound) if not heap else closed
        while heap and count < nodes and -heap[0][0] > best + tol:
            if count >= max(nodes // 4, GIVE_UP_AFTER) and -heap[0][0] > best + GIVE_UP:
                break
            parent, _, lo, hi, own, points, basis = heapq.heappop(heap)
            sh = shift(P, lo, hi, tol)   # here, not at the push: most boxes stay unsplit
            i = _branch_dim(P, lo, hi)
            mid = (lo[i] + hi[i]) / 2
            for a, b in ((lo[i], mid), (mid, hi[i])):
                clo, chi = lo.copy(), hi.copy()
                clo[i], chi[i] = a, b
                # the parent's shift and points: valid on its box, which holds this one
                pair = (points, sh) if sh and points else None
                new, m, kid, kids, used = _deepen(P, target, clo, chi, root, own, pair, basis,
                                                  best, tol, -parent)
                count += used
                new = min(new, -parent)
                at = P.point(m) if m is not None else None
                kids = kids + [P.cut(m, at)] if m is not None else kids
                if new > best + tol:
                    pts = _inside(P, clo, chi, [anchor] + ([at] if at else []) +
                                   [p for p in points if p is not anchor])
                    heapq.heappush(heap, (-new, count, clo, chi, kids[-NODE_CUTS:],
                                          pts[:POINTS], kid or basis))
                else:
                    closed = max(closed, new)
    upper = max([closed] + [-h[0] for h in heap])
    if upper < best - 1e-7:
        raise RuntimeError(f"a bound ({upper}) below a feasible similarity ({best}): a bug")
    upper = max(upper, best)
    return {"upper_bound": upper, "best": best, "gap": upper - best,
            "certified": bool(upper - best <= tol), "nodes": count, "rank": P.rank,
            "seconds": time.perf_counter() - clock}


def pick_rows(table: pd.DataFrame, count: int) -> np.ndarray:
    """A mask of ``count`` rows per (n, delta) of ``table``, evenly spaced in p_I."""
    pick = np.zeros(len(table), bool)
    for _, part in table.reset_index(drop=True).groupby(["n", "delta"], sort=False):
        order = part.sort_values("p_i").index.to_numpy()
        if count >= len(order):
            pick[order] = True
        elif count > 0:
            pick[order[np.round(np.linspace(0, len(order) - 1, count)).astype(int)]] = True
    return pick


def _certify_row(args) -> dict:
    """:func:`certify` on one row (for :func:`semres.core.parallel.spread`)."""
    levels, masses, n, delta, p_i, tol, nodes, rank = args
    return certify(levels, masses, n, delta, p_i, tol=tol, nodes=nodes, max_rank=rank)


def certify_table(table: pd.DataFrame, tol: float, nodes: int, count=None,
                  ranks=(MAX_RANK,)) -> pd.DataFrame:
    """``table`` with :func:`certify` run on every row (or ``count`` per (n, delta)) at
    ``ranks[0]``, then at each later rank on the rows still open: ``proposition_bound``,
    ``bb_bound`` (nan where not tried), ``upper_bound`` (the smaller), ``gap``, ``certified``,
    ``nodes``, ``rank`` and ``bb_seconds``."""
    pick = np.ones(len(table), bool) if count is None else pick_rows(table, count)
    out = table.assign(proposition_bound=table.upper_bound, bb_bound=np.nan, certified=False,
                       nodes=0, rank=0, bb_seconds=0.0)
    rows = [row for k, row in enumerate(table.itertuples()) if pick[k]]
    for rank in ranks:
        certs = spread(_certify_row, [(row.levels, row.masses, int(row.n), float(row.delta),
                                       float(row.p_i), tol, nodes, rank) for row in rows])
        for row, cert in zip(rows, certs):
            at = row.Index
            out.loc[at, "bb_bound"] = np.fmin(out.at[at, "bb_bound"], cert["upper_bound"])
            out.loc[at, ["certified", "rank"]] = (cert["certified"], rank)
            out.loc[at, ["nodes", "bb_seconds"]] += [cert["nodes"], cert["seconds"]]
        rows = [row for row, cert in zip(rows, certs) if not cert["certified"]]
    out["upper_bound"] = np.fmin(out.proposition_bound, out.bb_bound)
    out["gap"] = out.upper_bound - out.p_s
    out["certified"] = out.certified.astype(bool) | (out.bb_bound - out.p_s <= tol)
    out[["nodes", "rank"]] = out[["nodes", "rank"]].astype(int)
    return out
