"""The branch-and-bound's linear programs, solved by HiGHS and bounded by weak duality: a bound
comes from the solver's dual (clipped to its signs), never its word, and an infeasible or failed
program is bounded by its elastic form. A child starts from its parent's basis (rows by key)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import highspy
import numpy as np

#: the elastic program's price of a unit of violation and the most a row may take (any give a
#: proven bound; these drop an infeasible box far below any p_S)
PENALTY, SLACK_MAX = 1e4, 10.0

_STATUS = {s.value: s for s in highspy.HighsBasisStatus.__members__.values()}


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
    """The program to HiGHS as arrays (its fast overload)."""
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
    """The parent's basis on this program: rows by key, new rows basic (an 'alien' basis)."""
    basis = highspy.HighsBasis()
    basis.col_status = [_STATUS[s] for s in warm.cols]
    basic = highspy.HighsBasisStatus.kBasic
    basis.row_status = [_STATUS[warm.rows[k]] if k in warm.rows else basic for k in prog.keys]
    basis.alien, basis.valid = True, True
    h.setBasis(basis)


def solve(prog: Program, warm: Basis | None = None, *, elastic: bool = True):
    """A proven lower bound on min cost x over ``prog`` (:func:`floor`, or :func:`_elastic`'s
    where the solver fails or finds none), the solver's x and its basis, started from ``warm``
    and, where HiGHS fails from there, cold."""
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
    """Weak duality on row ``duals``: a lower bound on min cost x, whatever their accuracy."""
    n_ub = len(prog.b_ub)
    y = np.clip(-duals[:n_ub], 0.0, None)
    nu = -duals[n_ub:]
    reduced = prog.cost + prog.A_ub.T @ y + prog.A_eq.T @ nu
    lo, hi = prog.bounds[:, 0], prog.bounds[:, 1]
    return float(-y @ prog.b_ub - nu @ prog.b_eq + np.minimum(reduced * lo, reduced * hi).sum())


def _elastic(prog: Program) -> float:
    """A proven lower bound where the solver fails: every row may be violated (at most
    SLACK_MAX) at PENALTY a unit; bounds that cross prove infeasibility (+inf)."""
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
