"""One Monte Carlo engine for the similarity and identification tests.

The success of a trial is the expected Luce mass on the correct answer (not argmax accuracy),
so one trial already averages over the model's choice and the estimate has small variance.

- Similarity: a probe and n items drawn i.i.d. from the space; the correct answers are the
  items nearest to the probe. In continuous spaces that is one item; in discrete spaces several
  items can be equally near, and the Luce mass on all of them counts (equal distance means equal
  similarity, so the rule itself splits the mass; the authors' code got this wrong).
- Identification: n items drawn i.i.d.; one is copied as the probe and only that one is correct.
  Items are exchangeable, so the copied item is the first: the probe is a draw from the space,
  its own similarity is g(0), and the other n - 1 items are fresh draws.
- If every similarity is 0 the choice is uniform, 1/n per item.

Trials run in fixed-size blocks (bounded memory), each with its own random stream spawned from
``seed`` by ``numpy.random.SeedSequence``; blocks run on a thread pool (numpy releases the GIL)
and are summed in block order, so the same seed gives the same number whatever the thread count.
Continuous spaces work in float32: rounding at the ball's edge and float32 distance ties move
the mean by well under 1e-6, far below any standard error within reach. Discrete spaces keep
their float64 distances, so their ties are exactly the ties of the matrix.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from . import kernels as _kernels
from .spaces import Discrete, Space
from .profiles import Settings, positive_ints, require

__all__ = ["Estimate", "luce_success", "exact_two_item", "TASKS"]

TASKS = ("similarity", "identification")

#: items x trials per step: every temporary stays below glibc's mmap threshold (128 KiB), so
#: buffers are reused from the heap instead of being page-faulted in afresh, and in cache
STEP_ELEMENTS = 1 << 14
#: steps per block; a block (one random stream, one task for the thread pool) is the unit of
#: seeding, so block sizes depend only on (task, n), never on the thread count
BLOCK_STEPS = 32
_BUILTIN = (_kernels.Constant, _kernels.Linear, _kernels.Exponential)


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo mean with its standard error over ``trials`` independent trials."""

    mean: float
    stderr: float
    trials: int

    def ci(self, z: float = 1.96) -> tuple[float, float]:
        return self.mean - z * self.stderr, self.mean + z * self.stderr

    def zscore(self, value: float) -> float:
        """How many standard errors ``value`` lies from the estimate."""
        if self.stderr == 0:
            return 0.0 if value == self.mean else math.copysign(math.inf, self.mean - value)
        return (self.mean - value) / self.stderr


def _int(value, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def _similarities(kernel, d: np.ndarray, checked: bool, event: tuple = ()) -> np.ndarray:
    """g(d); with a composite space (``event`` = its per-pair shape, e.g. (slots,)) the kernel
    maps each pair's per-slot distances to one similarity, so the output drops those axes."""
    g = kernel(d)
    if not checked:
        g = np.asarray(g)
        shape = d.shape[:d.ndim - len(event)]
        if g.shape != shape:
            what = "shaped like its input" if not event else f"of shape {shape} (one per pair)"
            raise ValueError(f"kernel must return an array {what}; got {g.shape}")
        if not (np.isfinite(g).all() and (g >= 0).all()):
            raise ValueError("kernel must return finite similarities >= 0")
        if g.dtype.kind != "f":
            g = g.astype(np.float64)
    return g


def _similarity_mass(d: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Luce mass on the nearest item(s), per trial; d and g are (n, m).

    Branch- and mask-free (masked numpy operations are slow): with z = 1 where every g is 0,
    mass = (correct + z * count / n) / (total + z), which is correct / total when z = 0 (adding
    0 is exact) and the uniform choice's count / n on the tied-nearest set when z = 1.
    """
    n = d.shape[0]
    if n == 2:
        d0, d1 = d
        total = g[0] + g[1]
        correct = total - (d0 < d1) * g[1]
        correct -= (d1 < d0) * g[0]
        count = (d0 == d1).astype(total.dtype)
        count += 1  # 1, or 2 when tied
    else:
        total = g.sum(axis=0)
        nearest = d == d.min(axis=0)
        correct = (nearest * g).sum(axis=0)
        count = None
    z = (total == 0).astype(total.dtype)
    if count is None:
        # the tie count only matters where every g is 0; skip the pass when none is
        count = nearest.sum(axis=0, dtype=total.dtype) if z.any() else 0
    total += z
    z *= count
    z *= 1 / n
    correct += z
    return np.divide(correct, total, out=correct)


def _identification_mass(g_others: np.ndarray, g_self) -> np.ndarray:
    """Luce mass on the copied item, per trial; g_others is (n - 1, m). Same zero trick."""
    n = g_others.shape[0] + 1
    total = g_others.sum(axis=0)
    total += g_self
    z = (total == 0).astype(total.dtype)
    total += z
    z *= 1 / n
    z += g_self
    return np.divide(z, total, out=z)


def _moments(mass: np.ndarray) -> tuple[float, float]:
    """Sum and sum of squares, in float64 (no BLAS dot: its threads would fight the pool)."""
    mass = mass.astype(np.float64)
    s = float(mass.sum())
    np.square(mass, out=mass)
    return s, float(mass.sum())


def luce_success(space, kernel, task: str, n: int, trials: int, seed, *,
                 threads: int | None = None, progress: bool = False) -> Estimate:
    """Expected Luce mass on the correct answer in the ``task`` test with ``n`` items.

    ``space`` is a :mod:`semres.spaces` space, ``kernel`` any similarity g(d) (a
    :mod:`semres.kernels` kernel or a callable mapping a distance array to a similarity array;
    on a space with an ``event_shape``, such as :class:`semres.spaces.Slots`, it maps the
    per-slot distances of each pair to one similarity, and the nearest item is the one nearest
    in ``space.combine`` of them),
    ``seed`` an int or a ``numpy.random.SeedSequence``. ``threads`` defaults to the CPUs
    available; it changes the speed, never the result.
    """
    if not isinstance(space, Space):
        raise ValueError(f"space must be a semres.spaces.Space; got {space!r}")
    if not callable(kernel):
        raise ValueError(f"kernel must be callable g(distance); got {kernel!r}")
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")
    n = _int(n, "n", 2)
    trials = _int(trials, "trials", 2)
    if isinstance(seed, np.random.SeedSequence):
        root = seed
    else:
        root = np.random.SeedSequence(_int(seed, "seed", 0))
    if threads is None:
        threads = _cpus()
    threads = _int(threads, "threads", 1)

    checked = isinstance(kernel, _BUILTIN)
    k = n if task == "similarity" else n - 1
    step = max(64, STEP_ELEMENTS // k)
    block = step * BLOCK_STEPS
    sizes = [block] * (trials // block) + ([trials % block] if trials % block else [])
    # the children root.spawn() would give, without advancing its counter: reusing one
    # SeedSequence object must give the same number again
    streams = [np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i),
                                      pool_size=root.pool_size) for i in range(len(sizes))]
    event = tuple(getattr(space, "event_shape", ()))
    g_self = None
    if task == "identification":
        zero = np.zeros((1, *event), dtype=np.float64 if space.discrete else np.float32)
        g_self = _similarities(kernel, zero, checked, event)[0]

    def run(i: int) -> tuple[float, float]:
        rng = np.random.Generator(np.random.PCG64(streams[i]))
        total = total_sq = 0.0
        for start in range(0, sizes[i], step):
            d = space.distances(rng, k, min(step, sizes[i] - start))
            g = _similarities(kernel, d, checked, event)
            if event:  # composite space: the nearest item is judged on the combined distance
                d = space.combine(d)
            mass = _similarity_mass(d, g) if g_self is None else _identification_mass(g, g_self)
            s, q = _moments(mass)
            total += s
            total_sq += q
        return total, total_sq

    indices = range(len(sizes))
    if threads == 1 or len(sizes) == 1:
        parts = map(run, indices)
        pool = None
    else:
        pool = ThreadPoolExecutor(max_workers=min(threads, len(sizes)))
        parts = pool.map(run, indices)
    try:
        if progress:
            from tqdm.auto import tqdm

            parts = tqdm(parts, total=len(sizes), desc=f"{task} n={n}", leave=False)
        total = total_sq = 0.0
        for s, q in parts:
            total += s
            total_sq += q
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    mean = total / trials
    var = max(0.0, (total_sq - trials * mean * mean) / (trials - 1))
    return Estimate(mean=mean, stderr=math.sqrt(var / trials), trials=trials)


def exact_two_item(space: Discrete, kernel) -> tuple[float, float]:
    """The two-item (p_s, p_i) that :func:`luce_success` estimates, summed exactly on a
    finite space: the theory "evaluated on the same discrete nu", ties included.

    Sums over every (probe, item, item) triple, one probe at a time: O(N^3) time, O(N^2) memory.
    """
    if not isinstance(space, Discrete):
        raise ValueError(f"space must be a semres.spaces.Discrete; got {space!r}")
    if not callable(kernel):
        raise ValueError(f"kernel must be callable g(distance); got {kernel!r}")
    checked = isinstance(kernel, _BUILTIN)
    w = space.weights
    g_all = _similarities(kernel, space.matrix, checked).astype(np.float64)
    g_self = float(_similarities(kernel, np.zeros(1), checked)[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        # identification: copy x, other item y; zero similarity everywhere -> uniform, 1/2
        total = g_self + g_all
        p_i = float(w @ np.where(total > 0, g_self / total, 0.5) @ w)
        p_s = 0.0
        for p in range(len(space)):
            d, g = space.matrix[p], g_all[p]
            gi, gj = g[:, None], g[None, :]
            total = gi + gj
            nearer = d[:, None] < d[None, :]
            tie = d[:, None] == d[None, :]
            correct = np.where(tie, total, np.where(nearer, gi, gj))
            mass = np.where(total > 0, correct / total, np.where(tie, 1.0, 0.5))
            p_s += w[p] * (w @ mass @ w)
    return p_s, p_i


def check_row(estimate: Estimate, theory: float, **cell) -> dict:
    """One Monte Carlo check as a tidy row: the cell's labels, the closed form, the estimate,
    its standard error and z = (estimate - theory) / stderr."""
    theory = float(theory)
    return {**cell, "theory": theory, "mc": estimate.mean, "stderr": estimate.stderr,
            "z": (estimate.mean - theory) / estimate.stderr}


def check_table(mc, index):
    """A Monte Carlo check for readers: one line per cell, both tests side by side.

    ``mc`` is tidy (one row per cell and task, columns ``task``, ``theory``, ``mc``, ``z`` and
    the ``index`` columns naming the cell); the result has ``p_S theory``, ``p_S mc``,
    ``p_S z``, then the same for ``p_I``, cells in their order in ``mc``.
    """
    if not {"task", "theory", "mc", "z", *index} <= set(mc.columns):
        raise ValueError(f"mc must have columns task, theory, mc, z and {', '.join(index)}; "
                         f"got {', '.join(mc.columns)}")
    wide = mc.pivot_table(index=list(index), columns="task", values=["theory", "mc", "z"],
                          sort=False)
    wide.columns = [f"{'p_S' if task == 'similarity' else 'p_I'} {what}"
                    for what, task in wide.columns]
    return wide[[f"{p} {w}" for p in ("p_S", "p_I") for w in ("theory", "mc", "z")]].reset_index()


# --------------------------------------------------------------------------- settings

def _check_front(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "trials", "discrete_grid", "discrete_points")
    require(2 <= cfg["discrete_points"] <= cfg["discrete_grid"] ** 2, ch,
             f"discrete_points ({cfg['discrete_points']}) must lie in [2, discrete_grid**2 = "
             f"{cfg['discrete_grid'] ** 2}]: cells are drawn without replacement")


def _check_many(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "trials")
    ns = list(cfg["exact_n"])
    require(len(ns) >= 2 and min(ns) >= 2, ch, f"exact_n must hold n >= 2; got {ns}")


#: chapter 1's Monte Carlo check of the two-item laws
SETTINGS = Settings(
    chapter="01_pareto_front",
    profiles={
        "quick": {"trials": 100_000, "discrete_grid": 7, "discrete_points": 25},
        "default": {"trials": 2_000_000, "discrete_grid": 7, "discrete_points": 40},
        "paper": {"trials": 20_000_000, "discrete_grid": 9, "discrete_points": 60},
    },
    check=_check_front, parameters={"mc_trials": "trials"})
#: chapter 2's Monte Carlo check of Theorem 3 (a module holds one chapter's SETTINGS each;
#: chapter 2 reads this one through the registry)
SETTINGS_MANY = Settings(
    chapter="02_many_items",
    profiles={
        "quick": {"trials": 100_000, "exact_n": range(2, 9)},
        "default": {"trials": 2_000_000, "exact_n": range(2, 13)},
        "paper": {"trials": 10_000_000, "exact_n": range(2, 17)},
    },
    check=_check_many, parameters={"mc_trials": "trials"}, minimums={"n_max": 10})
