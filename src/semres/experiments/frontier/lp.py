"""The branch-and-bound's linear programs: solved by HiGHS, bounded by weak duality.

A node's bound never takes the solver's word: it is computed from the solver's dual (clipped to
the dual's signs), which bounds the program whatever the accuracy of the solution, and a program
the solver calls infeasible is bounded by its elastic form (:func:`_elastic`).

A child's program differs from its parent's only by a halved box and a cut or two, so it starts
from the parent's optimal basis (:class:`Basis`: rows matched by key, HiGHS repairing what no
longer fits). The start changes the path, never the bound's validity. Measured at n = 4, delta =
0.01, rank 10 (the paper profile's p_I = 0.78, its first 3,000 programs, alone on a core): a
median of 162 simplex iterations against 279 cold, and 17 ms a program against 33 through
scipy's ``linprog`` cold (whose wrapper's checks and copies took about 4 ms of each: the rest of
the gain).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import highspy
import numpy as np

#: a program the solver calls infeasible is bounded with its rows made elastic (:func:`_elastic`):
#: the price of a unit of violation, and the most violation a row may take (any finite price
#: and limit give a proven bound; these make an infeasible box's bound fall far below any
#: p_S: on the default profile, 104 of 700 programs, every one then dropped as proven)
PENALTY, SLACK_MAX = 1e4, 10.0

_STATUS = {s.value: s for s in highspy.HighsBasisStatus.__members__.values()}


@dataclass
class Program:
    """min cost x subject to A_ub x <= b_ub, A_eq x = b_eq and bounds; ``keys`` name the rows of
    A_ub (then A_eq), so that a basis carries over to a program with rows added or removed."""

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


_SOLVER = None


def _highs():
    """One HiGHS instance per process (each program replaces the last model)."""
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = highspy.Highs()
        for key, value in (("output_flag", False), ("presolve", "off"), ("threads", 1)):
            _SOLVER.setOptionValue(key, value)
    return _SOLVER


def _pass(h, prog: Program) -> None:
    """The program to HiGHS as arrays (its array overload: setting a HighsLp's fields copies
    them element by element, several times slower on these dense programs)."""
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


def _start(h, prog: Program, warm: Basis) -> None:
    """The parent's basis on this program: columns as they were, rows by key, new rows basic
    (HiGHS's 'alien' basis: it restores the count and the rank)."""
    basis = highspy.HighsBasis()
    basis.col_status = [_STATUS[s] for s in warm.cols]
    basic = highspy.HighsBasisStatus.kBasic
    basis.row_status = [_STATUS[warm.rows[k]] if k in warm.rows else basic for k in prog.keys]
    basis.alien, basis.valid = True, True
    h.setBasis(basis)


def solve(prog: Program, warm: Basis | None = None, *, elastic: bool = True):
    """min cost x over ``prog``: a proven lower bound on the minimum (:func:`floor`; where the
    solver finds the program infeasible, or fails on it, :func:`_elastic`'s bound if
    ``elastic``; -inf where that fails too), the solver's x and its basis (both None unless
    solved), started from ``warm`` and, where HiGHS fails from there, cold.

    HiGHS failed on 39 of the first 21,900 programs of the paper profile's p_I = 0.83 from the
    parent's basis (numerical trouble: their entries span 2e-9 to 70), and on one of 20 of them
    cold; a failed box would keep its parent's bound and hand its children the same basis.
    Measured on the paper profile's two hardest points (n = 4, delta = 0.01, rank 10, before the
    Kelley rounds of :mod:`.branch`), the bounds took nearly the same path either way."""
    h = _highs()
    usable = warm is not None and len(warm.cols) == len(prog.cost)
    for start in ((warm, None) if usable else (None,)):
        h.clearModel()
        _pass(h, prog)
        if start is not None:
            _start(h, prog, start)
        h.run()
        status = h.getModelStatus()
        if status in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible):
            break
    if status != highspy.HighsModelStatus.kOptimal:
        return (_elastic(prog) if elastic else -math.inf), None, None
    sol, basis = h.getSolution(), h.getBasis()
    bound = floor(prog, np.asarray(sol.row_dual))
    kept = Basis(np.array([s.value for s in basis.col_status], np.int8),
                 {k: s.value for k, s in zip(prog.keys, basis.row_status)})
    return bound, np.asarray(sol.col_value), kept


def floor(prog: Program, duals) -> float:
    """Weak duality on row duals ``duals`` (HiGHS's signs, clipped to the dual's): a lower bound
    on min cost x over the program, whatever their accuracy."""
    n_ub = len(prog.b_ub)
    y = np.clip(-duals[:n_ub], 0.0, None)
    nu = -duals[n_ub:]
    reduced = prog.cost + prog.A_ub.T @ y + prog.A_eq.T @ nu
    lo, hi = prog.bounds[:, 0], prog.bounds[:, 1]
    return float(-y @ prog.b_ub - nu @ prog.b_eq + np.minimum(reduced * lo, reduced * hi).sum())


def _elastic(prog: Program) -> float:
    """A proven lower bound on min cost x where the solver calls the program infeasible or
    fails on it: the program with every row allowed a violation (at most :data:`SLACK_MAX`) at
    :data:`PENALTY` a unit. Every point of the program is one of it (with no violation), so
    the bound holds for the program too; where the program is infeasible it is large and the
    box is dropped, proven, and where the solver was wrong it is only a bound. Bounds on a
    variable that cross (a cutoff above u's range) are infeasibility proven as it is: +inf."""
    if (prog.bounds[:, 0] > prog.bounds[:, 1]).any():
        return math.inf
    n_ub, n_eq = len(prog.b_ub), len(prog.b_eq)
    slack = n_ub + 2 * n_eq
    elastic = Program(
        np.concatenate([prog.cost, np.full(slack, PENALTY)]),
        np.hstack([prog.A_ub, -np.eye(n_ub), np.zeros((n_ub, 2 * n_eq))]), prog.b_ub,
        np.hstack([prog.A_eq, np.zeros((n_eq, n_ub)), np.eye(n_eq), -np.eye(n_eq)]), prog.b_eq,
        np.vstack([prog.bounds, np.tile([0.0, SLACK_MAX], (slack, 1))]), prog.keys)
    bound, _, _ = solve(elastic, elastic=False)
    return bound
