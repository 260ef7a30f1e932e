"""The n-item certificate's linear programs (issue 38): the weak-duality floor of
:func:`.branch.solve` against the optimum of an independent solver (scipy's interior point) on
random programs, and the node bound started from a parent's basis (as the branch-and-bound runs)
against a cold start, at feasible points of the box including the relaxation's own solutions
(where it is most likely to be beaten), and a program the solver fails on."""

import numpy as np
import pytest
from scipy.optimize import linprog

from semres.experiments.frontier import branch, floor_n


def _random_program(rng, rows=12, cols=20):
    """A feasible, bounded LP in the layout of the node programs: box bounds, a simplex
    equality, random inequalities that hold at a random interior point."""
    x0 = rng.dirichlet(np.ones(cols))
    A_ub = rng.normal(size=(rows, cols))
    b_ub = A_ub @ x0 + rng.uniform(0.0, 0.5, rows)
    A_eq = np.ones((1, cols))
    bounds = np.array([(0.0, 1.0)] * cols)
    return branch.Program(rng.normal(size=cols), A_ub, b_ub, A_eq, np.ones(1), bounds,
                      list(range(rows + 1)))


def test_the_dual_floor_bounds_the_minimum_and_is_tight():
    rng = np.random.default_rng(21)
    for _ in range(40):
        prog = _random_program(rng)
        floor, x, basis = branch.solve(prog)
        ref = linprog(prog.cost, A_ub=prog.A_ub, b_ub=prog.b_ub, A_eq=prog.A_eq,
                      b_eq=prog.b_eq, bounds=prog.bounds, method="highs-ipm")
        assert ref.status == 0 and x is not None and basis is not None
        assert floor <= ref.fun + 1e-9                  # a lower bound on the minimum
        assert floor >= ref.fun - 1e-7                  # and a tight one
        assert floor <= prog.cost @ x + 1e-9            # below its own primal point


def test_a_warm_start_changes_the_path_not_the_bound():
    """A program started from another's basis (rows matched by key, some gone, some new) has
    the same floor as started cold, and takes fewer iterations from its own optimal basis."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        prog = _random_program(rng)
        cold, _, basis = branch.solve(prog)
        iterations = branch._highs().getInfo().simplex_iteration_count
        again, _, _ = branch.solve(prog, basis)
        assert again == pytest.approx(cold, abs=1e-9)
        assert branch._highs().getInfo().simplex_iteration_count < max(iterations, 1)
        other = _random_program(rng)
        other.keys = [k + 3 for k in other.keys]        # three rows new, three gone
        assert branch.solve(other, basis)[0] == pytest.approx(branch.solve(other)[0], abs=1e-9)


def test_an_infeasible_program_reads_as_a_bound_above_any_p_s():
    """Proven by the elastic program (:func:`.branch._elastic`), not taken from the solver."""
    prog = _random_program(np.random.default_rng(2))
    prog.b_eq, prog.bounds = 2 * prog.b_eq, prog.bounds * 0.01
    floor, x, basis = branch.solve(prog)
    assert floor > 100 and x is None and basis is None
    crossed = _random_program(np.random.default_rng(2))
    crossed.bounds[0] = (1.0, 0.5)
    assert branch.solve(crossed)[0] == np.inf


class _Failing:
    """HiGHS, except that it fails (as it does on a few deep boxes, reporting numerical trouble)
    on every program started from a basis, and on every program of ``columns`` columns."""

    def __init__(self, real, columns=None):
        self.real, self.columns, self.failing = real, columns, False

    def passModel(self, *args):
        self.failing = args[0] == self.columns
        return self.real.passModel(*args)

    def setBasis(self, basis):
        self.failing = True
        return self.real.setBasis(basis)

    def run(self):
        return branch.highspy.HighsStatus.kError if self.failing else self.real.run()

    def getModelStatus(self):
        if self.failing:
            return branch.highspy.HighsModelStatus.kNotset
        return self.real.getModelStatus()

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_a_failed_solve_is_tried_cold_then_bounded_elastic(monkeypatch):
    """A program HiGHS fails on from the parent's basis is solved again cold (the same floor as
    a cold solve), and one it fails on cold too is bounded by its elastic program: below the
    true minimum and close to it, never the -inf that left the box at its parent's bound."""
    prog = _random_program(np.random.default_rng(8))
    cold, x, basis = branch.solve(prog)
    real = branch._highs()
    monkeypatch.setattr(branch, "_highs", lambda: _Failing(real))
    again, x2, basis2 = branch.solve(prog, basis)
    assert again == pytest.approx(cold, abs=1e-9) and x2 is not None and basis2 is not None
    monkeypatch.setattr(branch, "_highs", lambda: _Failing(real, columns=len(prog.cost)))
    floor, x3, basis3 = branch.solve(prog, basis)
    assert x3 is None and basis3 is None
    assert cold - 1e-3 <= floor <= cold + 1e-9
    assert branch.solve(prog, basis, elastic=False)[0] == -np.inf


@pytest.mark.parametrize("n, delta", [(4, 0.01), (8, 0.01), (4, 0.05)])
def test_warm_starts_change_no_node_bound(n, delta):
    """On random boxes around the optimum, the bound started from the root box's basis equals
    the bound started cold (to the solver's tolerance), and neither lies below p_S at feasible
    points in the box: random masses, the relaxation's own masses, and single levels."""
    grid = 20
    rng = np.random.default_rng(int(delta * 1000) + n)
    opt = floor_n.best_step(float(floor_n.targets(n, delta, 5)[2]), n, delta, grid)
    P = branch._Problem(opt["levels"], n, delta, opt["masses"], 1e-3)
    lo0, hi0 = P.box()
    for _ in range(12):
        points = [opt["masses"]] + list(rng.dirichlet(np.full(grid, 0.3), size=2))
        cuts = [P.cut(p) for p in points]
        m = points[rng.integers(3)]
        z = P.B.T @ m
        a, b = rng.uniform(0.0, 1.0, (2, P.rank)) ** 3
        lo = np.maximum(lo0, z - a * (z - lo0)) - 1e-12
        hi = np.minimum(hi0, z + b * (hi0 - z)) + 1e-12
        p_s, p_i = P.rates(m)
        parent = branch._relaxation(P, p_i, lo0, hi0, cuts[:2])[2]
        assert parent is not None                       # a warm start, not a second cold one
        warm, at, _ = branch._relaxation(P, p_i, lo, hi, cuts, warm=parent)
        cold, _, _ = branch._relaxation(P, p_i, lo, hi, cuts)
        assert abs(warm - cold) <= 1e-6 * max(1.0, abs(cold))
        assert min(warm, cold) >= p_s - 1e-9
        # the relaxation's own masses, at their own identification, in the same box
        if at is not None and (np.abs(P.B.T @ at - np.clip(P.B.T @ at, lo, hi)) < 1e-9).all():
            q_s, q_i = P.rates(at)
            assert branch._relaxation(P, q_i, lo, hi, cuts)[0] >= q_s - 1e-9
    # a single level (a vertex of the simplex) in a box around it
    for k in (0, grid // 2, grid - 1):
        e = np.eye(grid)[k]
        z = P.B.T @ e
        q_s, q_i = P.rates(e)
        bound = branch._relaxation(P, q_i, z - 1e-3, z + 1e-3, [P.cut(e)])[0]
        assert bound >= q_s - 1e-9


def _near_target(P, opt, target, eps, rng, tries=200):
    """Masses on the identification curve p_I = ``target`` within about ``eps`` of the optimum
    (a segment between two mixtures of it with random masses, which bracket the target)."""
    from scipy.optimize import brentq
    for _ in range(tries):
        a, b = ((1 - eps) * opt + eps * rng.dirichlet(np.full(opt.size, 0.5)) for _ in range(2))
        fa, fb = P.rates(a)[1] - target, P.rates(b)[1] - target
        if fa * fb < 0:
            lam = brentq(lambda x: P.rates((1 - x) * a + x * b)[1] - target, 0.0, 1.0,
                         xtol=1e-15)
            m = (1 - lam) * a + lam * b
            return m / m.sum()
    return None


def _extremes(P, start, target, cutoff):
    """Feasible masses reaching each coordinate's least and largest value with p_S >= cutoff
    (SLSQP from ``start``): the points a too eager tightening would cut first."""
    from scipy.optimize import minimize
    cons = [{"type": "eq", "fun": lambda m: m.sum() - 1},
            {"type": "eq", "fun": lambda m: P.rates(m)[1] - target},
            {"type": "ineq", "fun": lambda m: P.rates(m)[0] - cutoff}]
    out = []
    for i in range(P.rank):
        for sign in (1.0, -1.0):
            res = minimize(lambda m: sign * (P.B[:, i] @ m), start, method="SLSQP",
                           bounds=[(0.0, 1.0)] * start.size, constraints=cons,
                           options={"maxiter": 200, "ftol": 1e-12})
            m = np.clip(res.x, 0.0, None)
            m /= m.sum()
            p_s, p_i = P.rates(m)
            if abs(p_i - target) < 1e-8 and p_s >= cutoff - 1e-10:
                out.append(m)
    return out


@pytest.mark.parametrize("n, delta", [(4, 0.01), (8, 0.05), (3, 0.2)])
def test_bound_tightening_keeps_every_point_above_its_cutoff(n, delta):
    """The root box shrunk to where p_S >= cutoff is reachable still holds every feasible point
    whose p_S reaches the cutoff, the optimum and its near neighbours on the identification curve
    included (the points a too eager tightening would cut first); the node bound over the
    shrunk box is never looser than over the root box; and a cutoff above every bound leaves
    nothing."""
    grid = 20
    rng = np.random.default_rng(n * 7 + int(delta * 100))
    opt = floor_n.best_step(float(floor_n.targets(n, delta, 5)[2]), n, delta, grid)
    P = branch._Problem(opt["levels"], n, delta, opt["masses"], 1e-3)
    best, target = P.rates(opt["masses"])
    lo, hi = P.box()
    cuts = [P.cut(opt["masses"])] + [P.cut(rng.dirichlet(np.ones(grid))) for _ in range(2)]
    points = [opt["masses"]] + [_near_target(P, opt["masses"], target, eps, rng)
                                for eps in (0.01, 0.03, 0.1, 0.3, 1.0) for _ in range(3)]
    points = [m for m in points if m is not None]
    assert len(points) >= 10
    extremes = _extremes(P, opt["masses"], target, best - 0.02)
    assert len(extremes) >= P.rank
    points += extremes
    values = np.array([P.rates(m)[0] for m in points])
    for cutoff in (values.min() - 1e-9, best - 0.02 - 1e-9, best - 1e-9):
        box, used = branch._tighten(P, target, lo, hi, cuts, cutoff)
        assert box is not None and used == 2 * P.rank
        for m, v in zip(points, values):
            if v >= cutoff:
                z = P.B.T @ m
                assert (z >= box[0] - 1e-7).all() and (z <= box[1] + 1e-7).all()
        assert (box[0] >= lo).all() and (box[1] <= hi).all()
        tight = branch._relaxation(P, target, *box, cuts)[0]
        assert best - 1e-9 <= tight <= branch._relaxation(P, target, lo, hi, cuts)[0] + 1e-7
    root = branch._relaxation(P, target, lo, hi, cuts)[0]
    assert branch._tighten(P, target, lo, hi, cuts, root + 0.01)[0] is None
