"""The n-item certificate (branch-and-bound) against optima known independently: the concave
program at two items, brute force along the feasible curve of a three-level grid, and random
feasible similarities; a suboptimal similarity must fail to certify."""

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq

from semres.experiments.frontier import branch, certified as cert, floor_n, steps


def _feasible_pair(levels, n, target, rng, tries=400):
    """Random masses on both sides of the target identification, joined on a segment."""
    for _ in range(tries):
        a, b = rng.dirichlet(np.full(levels.size, 0.4), size=2)
        pa, pb = (steps.step_rates(levels, m, n)[1] for m in (a, b))
        if (pa - target) * (pb - target) < 0:
            return a, b
    raise AssertionError("no pair of random masses brackets the target")


def _on_target(levels, n, target, a, b):
    """The masses on the segment from ``a`` to ``b`` whose p_I is ``target``."""
    lam = brentq(lambda x: steps.step_rates(levels, (1 - x) * a + x * b, n)[1] - target,
                 0.0, 1.0, xtol=1e-14)
    m = (1 - lam) * a + lam * b
    return m / m.sum()


def test_relaxation_grid_agrees_with_the_exact_rates():
    rng = np.random.default_rng(0)
    levels = np.geomspace(1, 0.02, 15)
    for n in (2, 4, 8):
        m = rng.dirichlet(np.full(15, 0.5))
        np.testing.assert_allclose(branch._Problem(levels, n, 0.02, m, 1e-3).rates(m),
                                   steps.step_rates(levels, m, n), atol=1e-11)


def test_two_items_match_the_concave_program():
    """At n = 2 the problem is the concave program of chapter 7: its optimum on the same levels
    lies below the branch-and-bound's bound, and the bound closes within the tolerance."""
    delta, grid, tol = 0.1, 16, 1e-3
    for target in (0.62, 0.86):
        qp = cert.best_two_item(target, delta, grid)
        levels = np.geomspace(1, delta, grid)
        masses = np.zeros(grid)
        for g, m in zip(qp["levels"], qp["masses"]):
            masses[np.argmin(np.abs(np.log(levels / g)))] += m
        out = branch.certify(levels, masses, 2, delta, qp["p_i"], tol=tol, nodes=2000)
        assert out["upper_bound"] >= qp["p_s"] - 1e-9
        assert out["certified"] and out["upper_bound"] <= qp["p_s"] + tol
        assert out["upper_bound"] <= qp["upper_bound"] + tol   # the program's own certificate


def _brute_force(levels, n, target, points=1500):
    """The best p_S along the feasible curve of three levels: for each mass at the top level,
    the mass of the middle one that meets the target (p_I falls as it grows)."""
    best, arg = -np.inf, None
    for top in np.linspace(0, 1, points):
        f = lambda mid: steps.step_rates(levels, [top, mid, 1 - top - mid], n)[1] - target
        if f(0.0) * f(1 - top) > 0:
            continue
        mid = brentq(f, 0.0, 1 - top, xtol=1e-14)
        m = np.clip([top, mid, 1 - top - mid], 0, None)
        p_s = steps.step_rates(levels, m / m.sum(), n)[0]
        if p_s > best:
            best, arg = p_s, m / m.sum()
    return best, arg


@pytest.mark.parametrize("n", [3, 4])
def test_three_levels_match_brute_force(n):
    delta = 0.1
    levels = np.array([1.0, np.sqrt(delta), delta])
    target = floor_n.targets(n, delta, 3)[1]
    best, masses = _brute_force(levels, n, target)
    p_i = steps.step_rates(levels, masses, n)[1]
    out = branch.certify(levels, masses, n, delta, p_i, tol=1e-4, nodes=600)
    assert out["upper_bound"] >= best - 1e-9
    assert out["certified"] and out["gap"] <= 1e-4


def test_a_suboptimal_similarity_is_not_certified():
    """Against a feasible point well below the best, the bound stays above the best, so the
    gap cannot close: the certificate can fail."""
    delta, n = 0.1, 4
    levels = np.array([1.0, np.sqrt(delta), delta])
    target = floor_n.targets(n, delta, 3)[1]
    best, _ = _brute_force(levels, n, target, points=400)
    rng = np.random.default_rng(3)
    worst = None
    for _ in range(200):
        a, b = _feasible_pair(levels, n, target, rng)
        m = _on_target(levels, n, target, a, b)
        p_s = steps.step_rates(levels, m, n)[0]
        if p_s < best - 0.01 and (worst is None or p_s < worst[0]):
            worst = (p_s, m)
    assert worst is not None
    out = branch.certify(levels, worst[1], n, delta, target, tol=1e-3, nodes=300)
    assert not out["certified"] and out["upper_bound"] >= best - 1e-9


def test_the_bound_is_never_below_a_random_feasible_similarity():
    n, delta, grid = 4, 0.2, 12
    levels = np.geomspace(1, delta, grid)
    target = float(floor_n.targets(n, delta, 4)[2])
    opt = floor_n.best_step(target, n, delta, grid)
    out = branch.certify(opt["levels"], opt["masses"], n, delta, opt["p_i"], nodes=300)
    rng = np.random.default_rng(7)
    found = []
    for _ in range(150):
        a, b = _feasible_pair(levels, n, target, rng)
        found.append(steps.step_rates(levels, _on_target(levels, n, target, a, b), n)[0])
    assert max(found) <= out["upper_bound"] + 1e-9
    assert out["upper_bound"] >= opt["p_s"] - 1e-9 and out["certified"]


def test_pick_rows_spreads_the_targets():
    table = pd.DataFrame({"n": [4] * 5 + [8] * 5, "delta": 0.05,
                          "p_i": [0.5, 0.3, 0.4, 0.6, 0.7, 0.2, 0.1, 0.3, 0.4, 0.5]})
    pick = branch.pick_rows(table, 2)
    assert pick.sum() == 4
    assert set(table.p_i[pick][:2]) == {0.3, 0.7} and set(table.p_i[pick][2:]) == {0.1, 0.5}
    assert branch.pick_rows(table, 9).all() and not branch.pick_rows(table, 0).any()


def test_a_target_other_than_the_masses_identification_is_refused():
    levels = np.geomspace(1, 0.1, 4)
    with pytest.raises(ValueError, match="target must"):
        branch.certify(levels, np.array([0.3, 0.2, 0.1, 0.4]), 4, 0.1, 0.5)


def test_certify_table_keeps_the_smaller_bound_and_marks_what_it_tried():
    table = floor_n.frontier((4,), (0.2,), 12, 3, 0, 5)
    out = branch.certify_table(table, 1e-3, 200, count=1)
    assert out.nodes.gt(0).tolist() == [True, False, False]   # the lowest target only
    assert (out.proposition_bound == table.upper_bound).all()
    assert out.bb_bound[1:].isna().all() and out.bb_bound[0] >= out.p_s[0] - 1e-9
    np.testing.assert_allclose(out.upper_bound, np.fmin(out.proposition_bound, out.bb_bound))
    np.testing.assert_allclose(out.gap, out.upper_bound - out.p_s)
    assert out.certified.tolist() == [True, False, False]
    assert branch.certify_table(table, 1e-3, 200).nodes.gt(0).all()


def test_a_hopeless_point_is_given_up_with_its_bound_standing(monkeypatch):
    """Hopeless for the envelope alone (:func:`.branch.shift`'s bound gets this one within
    0.01, see its tests)."""
    monkeypatch.setattr(branch, "shift", lambda *args: None)
    n, delta, grid = 4, 0.01, 20
    opt = floor_n.best_step(float(floor_n.targets(n, delta, 4)[3]), n, delta, grid)
    out = branch.certify(opt["levels"], opt["masses"], n, delta, opt["p_i"], nodes=1000)
    assert not out["certified"] and out["gap"] > branch.GIVE_UP
    assert out["nodes"] <= max(1000 // 4, branch.GIVE_UP_AFTER) + 2
    assert out["upper_bound"] >= opt["p_s"] - 1e-9


def _lp(feasible: bool):
    """min -x0 - x1 with x0 + x1 <= 1 and x0 - x1 = 0 (or, infeasible, x0 - x1 = 3) in [0, 1]²."""
    return branch.Program(np.array([-1.0, -1.0]), np.array([[1.0, 1.0]]), np.array([1.0]),
                      np.array([[1.0, -1.0]]), np.array([0.0 if feasible else 3.0]),
                      np.array([[0.0, 1.0], [0.0, 1.0]]), ["sum", "difference"])


class _Wrong:
    """HiGHS, except that it calls every two-column program infeasible."""

    def __init__(self, real):
        self.real, self.columns = real, 0

    def passModel(self, *args):
        self.columns = args[0]
        return self.real.passModel(*args)

    def getModelStatus(self):
        if self.columns == 2:
            return branch.highspy.HighsModelStatus.kInfeasible
        return self.real.getModelStatus()

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_an_infeasible_program_is_dropped_on_a_proven_bound_not_on_the_solvers_word(monkeypatch):
    """A box the solver calls infeasible is dropped only by the elastic program's dual bound:
    far above any p_S where it is infeasible, and still a valid bound (at most the true minimum,
    -1) where the solver was wrong."""
    floor, x, _ = branch.solve(_lp(False))
    assert x is None and floor > 100   # proven: no point, and the bound prunes the box
    monkeypatch.setattr(branch, "_highs", lambda real=branch._highs(): _Wrong(real))
    floor, x, _ = branch.solve(_lp(True))
    assert x is None and -1.0 - 1e-9 <= floor <= -1.0 + 1e-6  # the bound, not "infeasible"


def test_rows_left_open_are_tried_again_at_the_next_rank(monkeypatch):
    table = floor_n.frontier((4,), (0.2,), 12, 3, 0, 5)
    calls = []
    real = branch.certify

    def fake(*args, max_rank, **kwargs):  # rank 1 proves a loose bound only, rank 3 closes
        calls.append((float(args[4]), max_rank))
        out = real(*args, max_rank=max_rank, **kwargs)
        return out if max_rank > 1 else {**out, "upper_bound": out["best"] + 0.5,
                                          "certified": False}
    monkeypatch.setattr(branch, "certify", fake)
    monkeypatch.setattr(branch, "spread", lambda f, items: [f(x) for x in items])
    out = branch.certify_table(table, 1e-3, 200, count=2, ranks=(1, 3))
    tried = out.nodes.gt(0)
    assert tried.sum() == 2 and len(calls) == 4 and [r for _, r in calls] == [1, 1, 3, 3]
    assert out.certified[tried].all() and (out["rank"][tried] == 3).all()
    assert (out.bb_bound[tried] <= out.p_s[tried] + 1e-3).all()   # the smaller bound kept
    once = branch.certify_table(table, 1e-3, 200, count=2, ranks=(3,))
    assert (out.nodes[tried] > once.nodes[tried]).all()          # both ranks' programs counted
    assert not branch.certify_table(table, 1e-3, 200, count=2, ranks=(1,)).certified.any()
