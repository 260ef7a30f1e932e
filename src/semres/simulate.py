"""One Monte Carlo engine for the similarity and identification tests.

The success of a trial is the expected Luce mass on the correct answer (not argmax accuracy),
so one trial already averages over the model's choice and the estimate has small variance.

- Similarity: a probe and n items drawn i.i.d. from the space; the correct answers are the
  items nearest to the probe. In continuous spaces that is one item; in discrete spaces several
  items can be equally near, and the Luce mass on all of them counts (equal distance means equal
  similarity, so the rule itself splits the mass; PAPER.md section 6).
- Identification: n items drawn i.i.d.; one is copied as the probe and only that one is correct.
  Items are exchangeable, so the copied item is the first: the probe is a draw from the space,
  its own similarity is g(0), and the other n - 1 items are fresh draws.
- If every similarity is 0 the choice is uniform, 1/n per item.

Trials run in fixed-size chunks (bounded memory), each with its own random stream spawned from
``seed`` by ``numpy.random.SeedSequence``; chunks run on a thread pool (numpy releases the GIL)
and are summed in chunk order, so the same seed gives the same number whatever the thread count.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from . import kernels as _kernels
from .spaces import Space

__all__ = ["Estimate", "luce_success", "TASKS"]

TASKS = ("similarity", "identification")

#: items x trials per chunk: small enough to stay in cache, large enough to amortise overhead
CHUNK_ELEMENTS = 1 << 16
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


def _similarities(kernel, d: np.ndarray, checked: bool) -> np.ndarray:
    g = kernel(d)
    if not checked:
        g = np.asarray(g)
        if g.shape != d.shape:
            raise ValueError(f"kernel must return an array shaped like its input {d.shape}; "
                             f"got {g.shape}")
        if not (np.isfinite(g).all() and (g >= 0).all()):
            raise ValueError("kernel must return finite similarities >= 0")
    return g


def _similarity_mass(d: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Luce mass on the nearest item(s), per trial; d and g are (n, m)."""
    n = d.shape[0]
    total = g.sum(axis=0)
    if n == 2:
        d0, d1 = d
        g0, g1 = g
        correct = np.where(d0 < d1, g0, g1)
        np.copyto(correct, total, where=d0 == d1)
        nearest_count = None
    else:
        nearest = d == d.min(axis=0)
        correct = np.where(nearest, g, 0).sum(axis=0, dtype=total.dtype)
        nearest_count = nearest
    zero = total == 0
    if zero.any():
        if nearest_count is None:
            count = np.where(d[0] == d[1], 2, 1)
        else:
            count = nearest_count.sum(axis=0)
        fallback = (count / n).astype(total.dtype)
    else:
        fallback = None
    mass = np.divide(correct, total, out=correct, where=~zero)
    if fallback is not None:
        np.copyto(mass, fallback, where=zero)
    return mass


def _identification_mass(g_others: np.ndarray, g_self) -> np.ndarray:
    """Luce mass on the copied item, per trial; g_others is (n - 1, m)."""
    n = g_others.shape[0] + 1
    total = g_others.sum(axis=0)
    total += g_self
    zero = total == 0
    mass = np.empty_like(total)
    np.divide(g_self, total, out=mass, where=~zero)
    mass[zero] = 1.0 / n
    return mass


def luce_success(space, kernel, task: str, n: int, trials: int, seed, *,
                 threads: int | None = None, progress: bool = False) -> Estimate:
    """Expected Luce mass on the correct answer in the ``task`` test with ``n`` items.

    ``space`` is a :mod:`semres.spaces` space, ``kernel`` any similarity g(d) (a
    :mod:`semres.kernels` kernel or a callable mapping a distance array to a similarity array),
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
        threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = _int(threads, "threads", 1)

    checked = isinstance(kernel, _BUILTIN)
    k = n if task == "similarity" else n - 1
    size = max(256, CHUNK_ELEMENTS // k)
    sizes = [size] * (trials // size) + ([trials % size] if trials % size else [])
    streams = root.spawn(len(sizes))
    g_self = None
    if task == "identification":
        zero = np.zeros(1, dtype=np.float64 if space.discrete else np.float32)
        g_self = _similarities(kernel, zero, checked)[0]

    def run(i: int) -> tuple[float, float]:
        rng = np.random.Generator(np.random.PCG64(streams[i]))
        d = space.distances(rng, k, sizes[i])
        g = _similarities(kernel, d, checked)
        mass = _similarity_mass(d, g) if g_self is None else _identification_mass(g, g_self)
        mass = mass.astype(np.float64, copy=False)
        return float(mass.sum()), float(np.dot(mass, mass))

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
