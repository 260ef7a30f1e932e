"""The Monte Carlo engine against the theorems, exact enumeration and quadrature.

Monte Carlo checks pass when the estimate lies within Z_MAX standard errors of the
independent value (a false alarm at |z| >= 5 has probability below 1e-6 per check); every seed
is fixed, so the suite is deterministic.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.integrate import quad

from semres.core import kernels, simulate, spaces, theory
from semres.core.simulate import Estimate, check_table, exact_two_item, luce_success

Z_MAX = 5.0
TRIALS = 300_000


def _check(est: Estimate, expected: float):
    assert est.stderr > 0
    assert abs(est.zscore(expected)) < Z_MAX, (est, expected)


# --- Homogeneous continuous spaces vs Theorems 1-3 and Proposition 1 -----------------------

@pytest.mark.parametrize("n, eps, delta", [
    (2, 0.05, 0.0), (2, 0.25, 0.0), (2, 0.4, 0.3), (3, 0.15, 0.0), (5, 0.1, 0.2), (8, 0.03, 0.0),
])
def test_circle_constant_matches_theorem3(n, eps, delta):
    circle = spaces.Circle()
    b, var = circle.ball_measure(eps)
    assert var == 0
    ps, pi = theory.n_item(b, n, delta)
    kern = kernels.Constant(eps, delta)
    _check(luce_success(circle, kern, "similarity", n, TRIALS, seed=n), ps)
    _check(luce_success(circle, kern, "identification", n, TRIALS, seed=n + 100), pi)


@pytest.mark.parametrize("eps, delta", [(0.3, 0.0), (1.2, 0.0), (2.0, 0.25)])
def test_sphere_constant_matches_theorem2(eps, delta):
    sphere = spaces.Sphere()
    b, _ = sphere.ball_measure(eps)
    ps, pi = theory.two_item(b, delta)
    kern = kernels.Constant(eps, delta)
    _check(luce_success(sphere, kern, "similarity", 2, TRIALS, seed=1), ps)
    _check(luce_success(sphere, kern, "identification", 2, TRIALS, seed=2), pi)


@pytest.mark.parametrize("eps, delta", [(0.05, 0.0), (0.2, 0.0), (0.45, 0.0), (0.3, 0.5),
                                        (0.7, 0.0)])
def test_segment_matches_heterogeneous_theorem(eps, delta):
    """The segment's cut balls: Theorem 2 with its <b> and Var(b)."""
    segment = spaces.Segment()
    b, var = segment.ball_measure(eps)
    ps, pi = theory.two_item(b, delta, var)
    kern = kernels.Constant(eps, delta)
    _check(luce_success(segment, kern, "similarity", 2, TRIALS, seed=3), ps)
    _check(luce_success(segment, kern, "identification", 2, TRIALS, seed=4), pi)


def test_segment_closed_forms_of_the_paper():
    eps = np.linspace(0, 0.5, 11)
    b, var = spaces.Segment().ball_measure(eps)
    ps, pi = theory.two_item(b, 0.0, var)
    np.testing.assert_allclose(ps, 0.5 + 2 * eps - 5 * eps**2 + (10 / 3) * eps**3, atol=1e-12)
    np.testing.assert_allclose(pi, 1 - eps + eps**2 / 2, atol=1e-12)


@pytest.mark.parametrize("eps", [0.1, 0.35, 0.5])
def test_circle_linear_matches_proposition1(eps):
    ps, pi = theory.linear_circle(2 * eps)
    kern = kernels.Linear(eps)
    _check(luce_success(spaces.Circle(), kern, "similarity", 2, TRIALS, seed=5), ps)
    _check(luce_success(spaces.Circle(), kern, "identification", 2, TRIALS, seed=6), pi)


def _circle_identification_by_quadrature(g, n: int) -> float:
    """n = 2 only: E[g(0) / (g(0) + g(d))] with d ~ U[0, 1/2]."""
    g0 = float(g(np.zeros(1))[0])
    return 2 * quad(lambda d: g0 / (g0 + float(g(np.array([d]))[0])), 0, 0.5)[0]


def _circle_similarity_by_quadrature(g) -> float:
    """n = 2: 2 E[g(a) / (g(a) + g(a')); a < a'] with a, a' ~ U[0, 1/2] (g > 0 here)."""
    def gs(x):
        return float(g(np.array([x]))[0])

    inner = lambda a: quad(lambda a2: gs(a) / (gs(a) + gs(a2)), a, 0.5)[0]  # noqa: E731
    return 2 * 4 * quad(inner, 0, 0.5)[0]


@pytest.mark.parametrize("kern", [
    kernels.Exponential(0.05, 0.02),
    kernels.Exponential(0.2),
    lambda d: 1.0 / (1.0 + (d / 0.1) ** 2),  # any callable of distance
])
def test_other_kernels_match_quadrature(kern):
    circle = spaces.Circle()
    _check(luce_success(circle, kern, "identification", 2, TRIALS, seed=7),
           _circle_identification_by_quadrature(kern, 2))
    _check(luce_success(circle, kern, "similarity", 2, TRIALS, seed=8),
           _circle_similarity_by_quadrature(kern))


def test_integer_valued_callable_kernels_work():
    """A measured or hand-written g may return integers (e.g. an indicator)."""
    circle = spaces.Circle()
    ps, pi = theory.n_item(0.3, 4)
    indicator = lambda d: (d <= 0.15).astype(int)  # noqa: E731
    _check(luce_success(circle, indicator, "similarity", 4, TRIALS, seed=9), ps)
    _check(luce_success(circle, indicator, "identification", 4, TRIALS, seed=10), pi)


def test_all_zero_similarity_is_a_uniform_choice():
    zero = lambda d: np.zeros_like(d)  # noqa: E731
    for n in (2, 3, 7):
        for task in ("similarity", "identification"):
            est = luce_success(spaces.Circle(), zero, task, n, 5000, seed=0)
            assert est.mean == pytest.approx(1 / n) and est.stderr == pytest.approx(0, abs=1e-9)


# --- Discrete spaces: ties, against exact enumeration -------------------------------------

PATH = np.abs(np.subtract.outer(np.arange(5), np.arange(5))).astype(float)  # ties everywhere
PATH_W = np.array([0.1, 0.3, 0.2, 0.25, 0.15])


def _exact(dist, w, g, task: str, n: int) -> float:
    """Expected Luce mass, summed over every probe and item tuple, one trial at a time.

    Written independently of the engine: plain loops, the identification copy chosen
    uniformly among the n positions (the engine takes the first), ties found by equality.
    """
    points = range(len(w))
    total = 0.0
    for items in itertools.product(points, repeat=n):
        p_items = math.prod(w[i] for i in items)
        if task == "similarity":
            for p in points:
                ds = [dist[p][i] for i in items]
                gs = [g(x) for x in ds]
                best = [j for j in range(n) if ds[j] == min(ds)]
                s = sum(gs[j] for j in best) / sum(gs) if sum(gs) > 0 else len(best) / n
                total += w[p] * p_items * s
        else:
            for c in range(n):
                gs = [g(dist[items[c]][i]) for i in items]
                s = gs[c] / sum(gs) if sum(gs) > 0 else 1 / n
                total += p_items * s / n
    return total


@pytest.mark.parametrize("name, kern, g", [
    ("constant", kernels.Constant(1.0), lambda d: 1.0 if d <= 1.0 else 0.0),
    ("constant+noise", kernels.Constant(1.0, 0.25), lambda d: 1.0 if d <= 1.0 else 0.25),
    ("radius 0", kernels.Constant(0.0), lambda d: 1.0 if d <= 0 else 0.0),
    ("linear", kernels.Linear(2.5), lambda d: max(0.0, 1 - d / 2.5)),
    ("exponential", kernels.Exponential(1.0, 0.1), lambda d: math.exp(-d) + 0.1),
])
@pytest.mark.parametrize("n", [2, 3])
def test_discrete_with_ties_matches_enumeration(name, kern, g, n):
    space = spaces.Discrete(PATH, PATH_W)
    for task, seed in (("similarity", 11), ("identification", 12)):
        _check(luce_success(space, kern, task, n, TRIALS, seed=seed),
               _exact(PATH, PATH_W, g, task, n))


@pytest.mark.parametrize("kern, g", [
    (kernels.Constant(1.0), lambda d: 1.0 if d <= 1.0 else 0.0),
    (kernels.Constant(2.0, 0.3), lambda d: 1.0 if d <= 2.0 else 0.3),
    (kernels.Linear(2.5), lambda d: max(0.0, 1 - d / 2.5)),
    (lambda d: np.zeros_like(d), lambda d: 0.0),
])
def test_exact_two_item_matches_enumeration(kern, g):
    space = spaces.Discrete(PATH, PATH_W)
    expected = (_exact(PATH, PATH_W, g, "similarity", 2), _exact(PATH, PATH_W, g,
                                                                 "identification", 2))
    assert exact_two_item(space, kern) == pytest.approx(expected, abs=1e-12)


def test_exact_two_item_is_theorem2_plus_half_the_tie_probability():
    """With a constant kernel, tied items sit on the same side of the ball and share the
    correct mass, which lifts p_S from 1/2 to 1 on ties: p_S = Theorem 2 + tau / 2, where tau
    counts coinciding items as well as equidistant ones; p_I is Theorem 2 unchanged."""
    x = np.array([0.0, 0.1, 0.35, 0.8, 1.7, 3.1])
    line = np.abs(np.subtract.outer(x, x))
    w_line = np.array([0.1, 0.2, 0.1, 0.3, 0.2, 0.1])
    for dist, w in ((line, w_line), (PATH, PATH_W)):
        space = spaces.Discrete(dist, w)
        size = range(len(w))
        tau = sum(w[p] * w[i] * w[j] for p in size for i in size for j in size
                  if dist[p, i] == dist[p, j])
        assert space.tie_probability() == pytest.approx(tau, abs=1e-14)
        for eps, delta in ((0.2, 0.0), (0.5, 0.2), (1.0, 0.0), (2.0, 0.5)):
            b, var = space.ball_measure(eps)
            ps, pi = theory.two_item(b, delta, var)
            assert exact_two_item(space, kernels.Constant(eps, delta)) == pytest.approx(
                (ps + tau / 2, pi), abs=1e-12)
            assert theory.two_item(b, delta, var, tau=space.tie_probability()) == \
                pytest.approx((ps + tau / 2, pi), abs=1e-14)


def test_tie_profile_is_the_mass_of_each_sphere_squared():
    """tau_p = sum_r sigma_r(p)^2 by loops over the points; continuous spaces never tie."""
    space = spaces.Discrete(PATH, PATH_W)
    for p in range(len(PATH_W)):
        sigma = {r: PATH_W[PATH[p] == r].sum() for r in np.unique(PATH[p])}
        assert space.tie_profile()[p] == pytest.approx(sum(v**2 for v in sigma.values()))
    assert space.tie_probability() == pytest.approx(PATH_W @ space.tie_profile())
    for continuous in (spaces.Circle(), spaces.Segment(), spaces.Sphere()):
        assert continuous.tie_probability() == 0.0


def test_discrete_ties_differ_from_the_tie_free_theorem():
    """On the uniform path, ties lift p_S above Theorem 1 with the same <b>, Var(b): the
    original code's defect was to approximate this; the engine gets it exactly."""
    space = spaces.Discrete(PATH)
    b, var = space.ball_measure(1.0)
    exact = _exact(PATH, np.full(5, 0.2), lambda d: 1.0 if d <= 1 else 0.0, "similarity", 2)
    est = luce_success(space, kernels.Constant(1.0), "similarity", 2, TRIALS, seed=13)
    _check(est, exact)
    assert exact - theory.two_item(b, 0.0, var)[0] > 0.05


def test_discrete_ball_measure_by_loops():
    space = spaces.Discrete(PATH, PATH_W)
    for eps in (0.0, 0.5, 1.0, 2.0, 10.0):
        bp = [sum(PATH_W[j] for j in range(5) if PATH[p, j] <= eps) for p in range(5)]
        mean = sum(PATH_W[p] * bp[p] for p in range(5))
        var = sum(PATH_W[p] * (bp[p] - mean) ** 2 for p in range(5))
        assert space.ball_measure(eps) == pytest.approx((mean, var), abs=1e-12)
    means, variances = space.ball_measure([0.0, 1.0])
    assert means.shape == variances.shape == (2,)


def test_discrete_zero_weight_points_are_never_drawn():
    space = spaces.Discrete(PATH, [0.5, 0.5, 0.0, 0.0, 0.0])
    draws = space.sample(np.random.default_rng(0), 10_000)
    assert set(np.unique(draws)) == {0, 1}


# --- The spaces' own sampling and ball measures -------------------------------------------

def test_segment_ball_measure_by_quadrature():
    for eps in (0.0, 0.1, 0.37, 0.5, 0.62, 0.9, 1.0, 1.7):
        bp = lambda p: min(1.0, p + eps) - max(0.0, p - eps)  # noqa: E731
        pts = [eps, 1 - eps] if eps < 1 else None
        mean = quad(bp, 0, 1, points=pts)[0]
        second = quad(lambda p: bp(p) ** 2, 0, 1, points=pts)[0]
        assert spaces.Segment().ball_measure(eps) == pytest.approx((mean, second - mean**2),
                                                                   abs=1e-10)


@pytest.mark.parametrize("space, eps", [(spaces.Circle(), 0.13), (spaces.Sphere(), 0.9),
                                        (spaces.Segment(), 0.3)])
def test_sampled_points_and_direct_distances_agree_with_ball_measure(space, eps):
    """Points + distance() (the reader's path) and distances() (the engine's) give <b>."""
    rng = np.random.default_rng(0)
    m = 200_000
    b, _ = space.ball_measure(eps)
    se = math.sqrt(b * (1 - b) / m)
    via_points = np.mean(space.distance(space.sample(rng, m), space.sample(rng, m)) <= eps)
    direct = np.mean(space.distances(rng, 1, m) <= eps)
    assert abs(via_points - b) < Z_MAX * se and abs(direct - b) < Z_MAX * se


def test_sphere_points_are_unit_vectors():
    x = spaces.Sphere().sample(np.random.default_rng(1), (4, 5))
    assert x.shape == (4, 5, 3)
    np.testing.assert_allclose(np.linalg.norm(x, axis=-1), 1.0)


# --- Determinism ----------------------------------------------------------------------------

def test_same_seed_same_number_whatever_the_threads():
    args = (spaces.Circle(), kernels.Constant(0.1, 0.05), "similarity", 3, 250_000)
    a = luce_success(*args, seed=42, threads=1)
    b = luce_success(*args, seed=42, threads=2)
    root = np.random.SeedSequence(42)
    c = luce_success(*args, seed=root)
    assert a == b == c == luce_success(*args, seed=root)  # a reused SeedSequence too
    assert luce_success(*args, seed=43).mean != a.mean
    general = (spaces.Sphere(), lambda d: np.exp(-d / 0.3), "identification", 4, 250_000)
    assert (luce_success(*general, seed=1, threads=1)
            == luce_success(*general, seed=1, threads=2, progress=True))


def _general(space):
    """The same space as a subclass, which the engine draws through numpy (its general path)."""
    plain = type(f"Plain{type(space).__name__}", (type(space),), {})
    copy = plain.__new__(plain)
    copy.__dict__.update(space.__dict__)
    return copy


@pytest.mark.parametrize("space", [spaces.Circle(), spaces.Segment(), spaces.Discrete(PATH),
                                   spaces.Discrete(PATH, PATH_W)], ids=repr)
def test_compiled_draws_are_the_random_numbers_numpy_draws(space):
    """Built-in spaces and kernels are drawn inside one compiled call per block; a subclass
    and a plain callable take numpy's path. Same seed, same random numbers: the estimates
    agree far inside a standard error (they differ only by float32 rounding of g)."""
    for kern in (kernels.Constant(0.125, 0.25), kernels.Constant(1.0), kernels.Linear(0.375)):
        for task, n in (("similarity", 2), ("similarity", 3), ("identification", 3)):
            fast = luce_success(space, kern, task, n, 100_003, seed=7)
            slow = luce_success(_general(space), lambda d: kern(d), task, n, 100_003, seed=7)
            assert fast.mean == pytest.approx(slow.mean, abs=1e-6)
            assert fast.stderr == pytest.approx(slow.stderr, rel=1e-4)


def test_compiled_generators_follow_numpy_word_for_word():
    from semres.core.simulate import _points, _uniforms

    carry = np.zeros(2, np.uint64)
    bitgen = np.random.PCG64(3)
    floats = np.empty(9)
    _uniforms(bitgen, floats, 5, carry)  # an odd count keeps half a word for the next draw
    _uniforms(bitgen, floats[5:], 4, carry)
    numpy = np.random.Generator(np.random.PCG64(3))
    expected = np.concatenate([numpy.random(5, dtype=np.float32),
                               numpy.random(4, dtype=np.float32)])
    np.testing.assert_array_equal(floats, expected)
    for size in (1, 2, 7, 1000, 2**31 + 11):  # one point: numpy draws nothing at all
        ints = np.empty(501, np.int64)
        carry[:] = 0
        bitgen = np.random.PCG64(size)
        _points(bitgen, ints, 501, size, False, np.ones(1), carry)
        numpy = np.random.Generator(np.random.PCG64(size))
        np.testing.assert_array_equal(ints, numpy.integers(0, size, 501))
        assert bitgen.random_raw() == numpy.bit_generator.random_raw()  # in step afterwards


def test_an_error_in_any_thread_reaches_the_caller():
    calls = []

    def kernel(d):
        calls.append(1)
        return -np.ones_like(d) if len(calls) > 40 else np.ones_like(d)

    with pytest.raises(ValueError, match="^kernel "):
        luce_success(spaces.Circle(), kernel, "similarity", 2, 2_000_000, seed=0, threads=2)


def test_estimate_helpers():
    est = Estimate(mean=0.5, stderr=0.01, trials=100)
    assert est.zscore(0.48) == pytest.approx(2.0)
    assert est.zscore(0.5 + 1e-12) == pytest.approx(-1e-10) and est.zscore(0.5, atol=1e-9) == 0
    exact = Estimate(mean=0.5, stderr=0.0, trials=100)
    assert exact.zscore(0.5 + 1e-12, atol=1e-9) == 0.0 and exact.zscore(0.6) == -math.inf


# --- Validation -----------------------------------------------------------------------------

GOOD = dict(space=spaces.Circle(), kernel=kernels.Constant(0.1), task="similarity", n=2,
            trials=1000, seed=0)


@pytest.mark.parametrize("name, value", [
    ("space", "circle"), ("kernel", 0.1), ("task", "recall"), ("n", 1), ("n", 2.0),
    ("n", True), ("trials", 1), ("trials", 10.5), ("seed", -1), ("seed", "0"),
])
def test_engine_validation_names_the_argument(name, value):
    with pytest.raises(ValueError, match=rf"^{name} "):
        luce_success(**{**GOOD, name: value})


def test_engine_validation_threads_and_bad_kernels():
    with pytest.raises(ValueError, match="^threads "):
        luce_success(**GOOD, threads=0)
    with pytest.raises(ValueError, match="^kernel "):
        luce_success(**{**GOOD, "kernel": lambda d: -np.ones_like(d)})
    with pytest.raises(ValueError, match="^kernel "):
        luce_success(**{**GOOD, "kernel": lambda d: np.ones(3)})
    with pytest.raises(ValueError, match="^kernel "):
        luce_success(**{**GOOD, "kernel": lambda d: np.full_like(d, np.nan)})


@pytest.mark.parametrize("call, name", [
    (lambda: kernels.Constant(-0.1), "eps"),
    (lambda: kernels.Constant(0.1, -1), "delta"),
    (lambda: kernels.Linear(0.0), "eps"),
    (lambda: kernels.Exponential(0.0), "scale"),
    (lambda: kernels.Exponential(1.0, -0.5), "floor"),
    (lambda: kernels.Exponential(1.0, float("inf")), "floor"),
    (lambda: spaces.Circle().ball_measure(-1), "eps"),
    (lambda: exact_two_item(spaces.Circle(), kernels.Constant(0.1)), "space"),
    (lambda: exact_two_item(spaces.Discrete(PATH), 0.1), "kernel"),
    (lambda: spaces.Segment().ball_measure(float("nan")), "eps"),
    (lambda: spaces.Discrete(np.zeros((2, 3))), "distances"),
    (lambda: spaces.Discrete([[0, 1], [2, 0]]), "distances"),
    (lambda: spaces.Discrete([[0, -1], [-1, 0]]), "distances"),
    (lambda: spaces.Discrete([[1, 1], [1, 0]]), "distances"),
    (lambda: spaces.Discrete([[0, np.inf], [np.inf, 0]]), "distances"),
    (lambda: spaces.Discrete(PATH, np.ones(5)), "weights"),
    (lambda: spaces.Discrete(PATH, np.ones(4) / 4), "weights"),
    (lambda: spaces.Discrete(PATH, [0.5, 0.6, -0.1, 0, 0]), "weights"),
])
def test_space_and_kernel_validation_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


def test_kernel_values_and_resolution():
    d = np.array([0.0, 0.1, 0.2, 0.5], dtype=np.float32)
    np.testing.assert_allclose(kernels.Constant(0.1, 0.2)(d), [1, 1, 0.2, 0.2], rtol=1e-7)
    np.testing.assert_allclose(kernels.Linear(0.2)(d), [1, 0.5, 0, 0], atol=1e-7)
    np.testing.assert_allclose(kernels.Exponential(0.1, 0.01)(d), np.exp(-d / 0.1) + 0.01,
                               rtol=1e-6)
    assert kernels.Constant(0.1, 0.2)(d).dtype == np.float32
    assert kernels.Exponential(0.1, 0.01).resolution == pytest.approx(0.1 * math.log(100))
    assert kernels.Exponential(0.1).resolution == math.inf
    assert kernels.Linear(0.3).resolution == kernels.Constant(0.3).resolution == 0.3


@pytest.mark.parametrize("kern", [kernels.Constant(0.1, 0.2), kernels.Linear(0.2),
                                  kernels.Exponential(0.1, 0.01)])
def test_kernels_accept_a_single_distance(kern):
    assert float(kern(0.05)) == pytest.approx(float(kern(np.array([0.05]))[0]))


def test_check_table_puts_both_tests_of_a_cell_on_one_line():
    import pandas as pd

    mc = pd.DataFrame({"space": ["b", "b", "a", "a"], "eps": [0.1, 0.1, 0.2, 0.2],
                       "task": ["similarity", "identification"] * 2,
                       "theory": [0.6, 0.9, 0.7, 0.8], "mc": [0.61, 0.89, 0.69, 0.81],
                       "z": [1.0, -1.0, -0.5, 0.5], "stderr": 0.01})
    wide = check_table(mc, ["space", "eps"])
    assert list(wide.columns) == ["space", "eps", "p_S theory", "p_S mc", "p_S z",
                                  "p_I theory", "p_I mc", "p_I z"]
    assert wide.space.tolist() == ["b", "a"]  # the cells' order, not sorted
    assert wide.iloc[1][["p_S mc", "p_I z"]].tolist() == [0.69, 0.5]
    with pytest.raises(ValueError, match="mc must have columns"):
        check_table(mc.drop(columns="z"), ["space"])


def test_check_row_measures_the_estimate_in_standard_errors():
    from semres.core.simulate import Estimate, check_row

    est = Estimate(0.52, 0.01, 10_000)
    row = check_row(est, 0.5, space="circle", task="similarity")
    assert row == {"space": "circle", "task": "similarity", "theory": 0.5, "mc": 0.52,
                   "stderr": 0.01, "z": pytest.approx(2.0)}


def test_precompile_leaves_every_draw_cached():
    """After precompile, an engine run in a new process compiles nothing: each of numba's
    dispatchers loads its draws from the on-disk cache."""
    import subprocess
    import sys

    simulate.precompile()
    code = ("from semres.core import simulate\n"
            "simulate.precompile()\n"
            "print(sum(len(f.stats.cache_misses) for f in (simulate._block, simulate._score)),"
            " sum(len(f.stats.cache_hits) for f in (simulate._block, simulate._score)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    misses, hits = map(int, done.stdout.split())
    assert misses == 0 and hits >= 2, done.stdout
