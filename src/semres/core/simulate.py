"""One Monte Carlo engine for the similarity and identification tests.

A trial scores the expected Luce mass on the correct answer (not argmax accuracy): small variance.
Similarity: a probe and n i.i.d. items, the nearest correct (equally near items share the credit).
Identification: n i.i.d. items, the first copied as the probe. All similarities 0: uniform choice.
Trials run in fixed-size blocks, each with its own ``PCG64`` stream and summed in block order, so
the thread count never changes the number. Blocks run in nogil numba code; built-in spaces and
kernels are drawn inside it as numpy draws them, anything else takes the general path. Continuous
spaces draw float32 (ties move the mean by well under 1e-6), discrete ones float64 (exact ties).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
from joblib import Parallel, delayed
from numba.np.random.generator_core import next_uint64
from tqdm.auto import tqdm

from . import kernels as _kernels
from .book import cores
from .seeds import blocks
from . import spaces as _spaces
from .spaces import Discrete, Space

__all__ = ["Estimate", "luce_success", "exact_two_item", "TASKS"]

TASKS = ("similarity", "identification")

#: items x trials per step: a step's buffers stay in the core's cache
STEP_ELEMENTS = 1 << 14
#: steps per block, the unit of seeding: block sizes depend on (task, n), never on threads
BLOCK_STEPS = 32
_BUILTIN = (_kernels.Constant, _kernels.Linear, _kernels.Exponential)


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo mean with its standard error over ``trials`` independent trials."""

    mean: float
    stderr: float
    trials: int

    def zscore(self, value: float, atol: float = 0.0) -> float:
        """Standard errors from the estimate to ``value``; 0 when they differ by at most ``atol``
        (an exact value whose standard error is 0 or rounding).
        """
        if abs(self.mean - value) <= atol:
            return 0.0
        if self.stderr == 0:
            return 0.0 if value == self.mean else math.copysign(math.inf, self.mean - value)
        return (self.mean - value) / self.stderr


def _int(value, name: str, low: int) -> int:
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
            or value < low):
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _similarities(kernel, d: np.ndarray, checked: bool, event: tuple = ()) -> np.ndarray:
    """g(d) checked; with a composite space (``event``: its per-pair shape) the kernel maps each
    pair's per-slot distances to one similarity.
    """
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


# Compiled loops: numpy's error model (no loop divides by zero, so none checks), nogil for the
# threads; arrays are flat, item j of trial t at [j * m + t].

_JIT = dict(nogil=True, cache=True, error_model="numpy")
_CIRCLE, _SEGMENT, _POINTS, _WEIGHTED = range(4)
_CONSTANT, _LINEAR, _GIVEN = range(3)
_LOW32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)
_FLOAT_BITS = np.uint32(8)
_TO_FLOAT = np.float32(1.0 / 16777216.0)  # numpy's next_float: (uint32 >> 8) * 2**-24
_DOUBLE_BITS = np.uint64(11)
_TO_DOUBLE = 1.0 / 9007199254740992.0  # numpy's next_double: (uint64 >> 11) * 2**-53
_NO_MATRIX = np.zeros((1, 1))
_NO_MATRIX.setflags(write=False)  # the type of Discrete.matrix: one compiled signature
_NO_CDF = np.ones(1)


@numba.njit(**_JIT)
def _next32(bitgen, carry):
    """numpy's ``next_uint32`` for PCG64: a 64-bit word's low half first, the high in ``carry``."""
    if carry[0]:
        carry[0] = 0
        return np.uint32(carry[1])
    x = next_uint64(bitgen)
    carry[0] = 1
    carry[1] = x >> _32
    return np.uint32(x & _LOW32)


@numba.njit(**_JIT)
def _uniforms(bitgen, out, count, carry, scale=1.0):
    """out[:count] = ``Generator.random(count, dtype=np.float32)`` times ``scale``."""
    i = 0
    if count > 0 and carry[0]:
        out[0] = np.float32(_next32(bitgen, carry) >> _FLOAT_BITS) * _TO_FLOAT * scale
        i = 1
    while i + 1 < count:
        x = next_uint64(bitgen)
        out[i] = np.float32(np.uint32(x & _LOW32) >> _FLOAT_BITS) * _TO_FLOAT * scale
        out[i + 1] = np.float32(np.uint32(x >> _32) >> _FLOAT_BITS) * _TO_FLOAT * scale
        i += 2
    if i < count:
        out[i] = np.float32(_next32(bitgen, carry) >> _FLOAT_BITS) * _TO_FLOAT * scale


@numba.njit(**_JIT)
def _points(bitgen, out, count, size, weighted, cdf, carry):
    """out[:count] = ``Discrete.sample``: numpy's Lemire ``integers(0, size)``, or with weights a
    search of ``random()`` in the cumulative weights (side="right": zero weights never drawn).
    """
    if weighted:
        for i in range(count):
            u = np.float64(next_uint64(bitgen) >> _DOUBLE_BITS) * _TO_DOUBLE
            lo, hi = 0, size
            while lo < hi:
                mid = (lo + hi) // 2
                if cdf[mid] <= u:
                    lo = mid + 1
                else:
                    hi = mid
            out[i] = min(lo, size - 1)
        return
    if size == 1:  # numpy draws nothing for a range of one value
        out[:count] = 0
        return
    span = np.uint64(size)
    threshold = (np.uint64(1) << _32) % span  # (2**32 - size) % size
    for i in range(count):
        m = np.uint64(_next32(bitgen, carry)) * span
        if (m & _LOW32) < span:
            while (m & _LOW32) < threshold:
                m = np.uint64(_next32(bitgen, carry)) * span
        out[i] = np.int64(m >> _32)


@numba.njit(**_JIT)
def _distances(bitgen, space, k, m, u, points, size, cdf, matrix, d, carry):
    """d[:k * m] = the space's ``distances(rng, k, m)``, drawn as numpy draws them."""
    if space == _CIRCLE:  # d ~ U[0, 1/2]
        _uniforms(bitgen, d, k * m, carry, 0.5)
    elif space == _SEGMENT:  # the probe, then the items
        _uniforms(bitgen, u, (k + 1) * m, carry)
        for j in range(k):
            for t in range(m):
                d[j * m + t] = abs(u[(j + 1) * m + t] - u[t])
    else:
        _points(bitgen, points, (k + 1) * m, size, space == _WEIGHTED, cdf, carry)
        for j in range(k):
            for t in range(m):
                d[j * m + t] = matrix[points[(j + 1) * m + t], points[t]]


@numba.njit(inline="always", **_JIT)
def _constant(x, eps, delta):
    return 1.0 if x <= eps else delta


@numba.njit(inline="always", **_JIT)
def _linear(x, slope):
    return max(0.0, x * slope + 1.0)


@numba.njit(**_JIT)
def _kernel(kind, a, b, d, g, count):
    """g = the built-in kernel of d: constant (a = eps, b = delta) or linear (a = -1 / eps)."""
    if kind == _CONSTANT:
        for i in range(count):
            g[i] = _constant(d[i], a, b)
    else:
        for i in range(count):
            g[i] = _linear(d[i], a)


@numba.njit(inline="always", **_JIT)
def _pair(d0, d1, g0, g1):
    """The Luce mass on the nearer of two items (both when tied). Branch-free: z = 1 when every g
    is 0 gives the uniform choice's count / n, z = 0 gives correct / total.
    """
    total = g0 + g1
    correct = total - (g1 if d0 < d1 else 0.0) - (g0 if d1 < d0 else 0.0)
    z = 1.0 if total == 0.0 else 0.0
    count = 2.0 if d0 == d1 else 1.0
    return (correct + z * count * 0.5) / (total + z)


@numba.njit(**_JIT)
def _luce(similarity, n, m, d, g, kind, a, b, g_self, mass, work):
    """mass[:m] = the Luce mass on each trial's correct answer; ``work`` is (3, m) scratch. The
    similarities are ``g`` (kind ``_GIVEN``) or the built-in kernel ``kind`` of d, one loop per
    kernel so that each vectorises. Identification: d holds the n - 1 others; the copy has g_self.
    """
    if similarity and n == 2:
        if kind == _CONSTANT:
            for t in range(m):
                mass[t] = _pair(d[t], d[m + t], _constant(d[t], a, b),
                                _constant(d[m + t], a, b))
        elif kind == _LINEAR:
            for t in range(m):
                mass[t] = _pair(d[t], d[m + t], _linear(d[t], a), _linear(d[m + t], a))
        else:
            for t in range(m):
                mass[t] = _pair(d[t], d[m + t], np.float64(g[t]), np.float64(g[m + t]))
        return
    total = work[0]
    total[:m] = 0.0 if similarity else g_self
    for j in range(n if similarity else n - 1):
        if kind == _CONSTANT:
            for t in range(m):
                total[t] += _constant(d[j * m + t], a, b)
        elif kind == _LINEAR:
            for t in range(m):
                total[t] += _linear(d[j * m + t], a)
        else:
            for t in range(m):
                total[t] += g[j * m + t]
    if not similarity:
        for t in range(m):
            z = 1.0 if total[t] == 0.0 else 0.0
            mass[t] = (g_self + z / n) / (total[t] + z)
        return
    nearest, correct = work[1], work[2]  # n > 2 items: g given
    nearest[:m] = d[:m]
    for j in range(1, n):
        for t in range(m):
            nearest[t] = min(nearest[t], d[j * m + t])
    correct[:m] = 0.0
    mass[:m] = 0.0  # the count of nearest items, for now
    for j in range(n):
        for t in range(m):
            near = d[j * m + t] == nearest[t]
            correct[t] += g[j * m + t] if near else 0.0
            mass[t] += 1.0 if near else 0.0
    for t in range(m):
        z = 1.0 if total[t] == 0.0 else 0.0
        mass[t] = (correct[t] + z * mass[t] / n) / (total[t] + z)


@numba.njit(**_JIT)
def _moments(x, m):
    """(sum, sum of squares) of x[:m] in eight fixed lanes: fast, and the same order everywhere."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    q0 = q1 = q2 = q3 = q4 = q5 = q6 = q7 = 0.0
    full = m - m % 8
    for t in range(0, full, 8):
        x0, x1, x2, x3 = x[t], x[t + 1], x[t + 2], x[t + 3]
        x4, x5, x6, x7 = x[t + 4], x[t + 5], x[t + 6], x[t + 7]
        s0 += x0
        s1 += x1
        s2 += x2
        s3 += x3
        s4 += x4
        s5 += x5
        s6 += x6
        s7 += x7
        q0 += x0 * x0
        q1 += x1 * x1
        q2 += x2 * x2
        q3 += x3 * x3
        q4 += x4 * x4
        q5 += x5 * x5
        q6 += x6 * x6
        q7 += x7 * x7
    for t in range(full, m):
        s0 += x[t]
        q0 += x[t] * x[t]
    return (((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)),
            ((q0 + q1) + (q2 + q3)) + ((q4 + q5) + (q6 + q7)))


@numba.njit(**_JIT)
def _score(similarity, n, d, g, g_self):
    """(sum, sum of squares) of the Luce masses of one general-path step (d, g flat, k x m)."""
    m = d.size // (n if similarity else n - 1)
    mass = np.empty(m)
    _luce(similarity, n, m, d, g, _GIVEN, 0.0, 0.0, g_self, mass, np.empty((3, m)))
    return _moments(mass, m)


@numba.njit(**_JIT)
def _block(bitgen, trials, step, similarity, n, space, size, cdf, matrix, kind, a, b, g_self):
    """(sum, sum of squares) of ``trials`` trials of a built-in space and kernel."""
    k = n if similarity else n - 1
    probe = space == _SEGMENT or space == _POINTS or space == _WEIGHTED
    discrete = space == _POINTS or space == _WEIGHTED
    u = np.empty((k + 1) * step if probe and not discrete else 0)
    points = np.empty((k + 1) * step if discrete else 0, np.int64)
    given = similarity and n > 2  # the nearest of n > 2 items: g once, into an array
    d, g = np.empty(k * step), np.empty(k * step if given else 0)
    mass, work = np.empty(step), np.empty((3, step))
    carry = np.zeros(2, np.uint64)
    total = total_sq = 0.0
    for start in range(0, trials, step):
        m = min(step, trials - start)
        _distances(bitgen, space, k, m, u, points, size, cdf, matrix, d, carry)
        if given:
            _kernel(kind, a, b, d, g, k * m)
        _luce(similarity, n, m, d, g, _GIVEN if given else kind, a, b, g_self, mass, work)
        s, q = _moments(mass, m)
        total += s
        total_sq += q
    return total, total_sq


def _compiled(space, kernel):
    """The compiled draw's arguments for a built-in space and kernel, or None (general path)."""
    kind = {_kernels.Constant: _CONSTANT, _kernels.Linear: _LINEAR}.get(type(kernel))
    code = {_spaces.Circle: _CIRCLE, _spaces.Segment: _SEGMENT}.get(type(space))
    if kind is None or (code is None and type(space) is not Discrete):
        return None
    a, b = (kernel.eps, kernel.delta) if kind == _CONSTANT else (-1.0 / kernel.eps, 0.0)
    if code is not None:
        return code, 0, _NO_CDF, _NO_MATRIX, kind, a, b
    code = _POINTS if space._uniform else _WEIGHTED
    return code, len(space), space._cdf, space.matrix, kind, a, b


def _run_blocks(run, count: int, threads: int, bar=None) -> list:
    """[run(0), ..., run(count - 1)] on joblib's ``threads`` threads (blocks release the GIL)."""
    pool = Parallel(n_jobs=min(threads, count), backend="threading", return_as="generator")
    results = []
    for result in pool(delayed(run)(i) for i in range(count)):
        results.append(result)
        if bar is not None:
            bar.update()
    return results


def luce_success(space, kernel, task: str, n: int, trials: int, seed, *,
                 threads: int | None = None, progress: bool = False) -> Estimate:
    """Expected Luce mass on the correct answer in ``task`` with ``n`` items.

    ``space``: a :mod:`semres.core.spaces` space; ``kernel``: any g(d) mapping a distance array to
    similarities (on a space with an ``event_shape`` it maps each pair's per-slot distances to one
    similarity, and the nearest item is judged on ``space.combine``); ``seed``: an int or a
    ``SeedSequence``. ``threads`` (default: the CPUs available) changes the speed, not the result.
    """
    if not isinstance(space, Space):
        raise ValueError(f"space must be a semres.core.spaces.Space; got {space!r}")
    if not callable(kernel):
        raise ValueError(f"kernel must be callable g(distance); got {kernel!r}")
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")
    n = _int(n, "n", 2)
    trials = _int(trials, "trials", 2)
    if not isinstance(seed, np.random.SeedSequence):
        seed = _int(seed, "seed", 0)
    if threads is None:
        threads = cores()
    threads = _int(threads, "threads", 1)

    checked = isinstance(kernel, _BUILTIN)
    similarity = task == "similarity"
    k = n if similarity else n - 1
    step = max(64, STEP_ELEMENTS // k)
    block = step * BLOCK_STEPS
    sizes = [block] * (trials // block) + ([trials % block] if trials % block else [])
    streams = blocks(seed, len(sizes))
    event = tuple(getattr(space, "event_shape", ()))
    g_self = 0.0
    if not similarity:
        zero = np.zeros((1, *event), dtype=np.float64 if space.discrete else np.float32)
        g_self = float(_similarities(kernel, zero, checked, event)[0])
    compiled = _compiled(space, kernel)

    def run(i: int) -> tuple[float, float]:
        bitgen = np.random.PCG64(streams[i])
        if compiled is not None:
            return _block(bitgen, sizes[i], step, similarity, n, *compiled, g_self)
        rng = np.random.Generator(bitgen)
        total = total_sq = 0.0
        for start in range(0, sizes[i], step):
            d = space.distances(rng, k, min(step, sizes[i] - start))
            g = _similarities(kernel, d, checked, event)
            if event:  # composite space: the nearest item is judged on the combined distance
                d = space.combine(d)
            d, g = np.ravel(d), np.ravel(g)
            if not d.dtype == g.dtype == np.float32:
                d, g = d.astype(np.float64, copy=False), g.astype(np.float64, copy=False)
            s, q = _score(similarity, n, d, g, g_self)
            total += s
            total_sq += q
        return total, total_sq

    with tqdm(total=len(sizes), desc=f"{task} n={n}", leave=False, disable=not progress) as bar:
        parts = _run_blocks(run, len(sizes), threads, bar)
    total = total_sq = 0.0
    for s, q in parts:  # in block order: the same sum whatever the thread count
        total += s
        total_sq += q
    mean = total / trials
    var = max(0.0, (total_sq - trials * mean * mean) / (trials - 1))
    return Estimate(mean=mean, stderr=math.sqrt(var / trials), trials=trials)


def precompile() -> None:
    """Compile every draw into numba's on-disk cache once (``make`` runs it), so that processes
    started together on a fresh checkout do not each spend ~7 s a draw compiling.
    """
    line = Discrete([[0.0, 1.0], [1.0, 0.0]])
    for space in (_spaces.Circle(), _spaces.Segment(), line, Discrete(line.matrix, [0.3, 0.7])):
        for kernel in (_kernels.Constant(0.2, 0.1), _kernels.Linear(0.3),
                       _kernels.Exponential(0.2)):  # the last on the general path
            for task in TASKS:
                for n in (2, 3):
                    luce_success(space, kernel, task, n, 2, 0, threads=1)


def exact_two_item(space: Discrete, kernel) -> tuple[float, float]:
    """The two-item (p_s, p_i) :func:`luce_success` estimates, summed exactly on a finite space,
    ties included: O(N^3) time, O(N^2) memory."""
    if not isinstance(space, Discrete):
        raise ValueError(f"space must be a semres.core.spaces.Discrete; got {space!r}")
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
    """One Monte Carlo check as a tidy row: labels, theory, mc, stderr, z."""
    theory = float(theory)
    return {**cell, "theory": theory, "mc": estimate.mean, "stderr": estimate.stderr,
            "z": (estimate.mean - theory) / estimate.stderr}


def check_table(mc, index):
    """Tidy checks (columns task, theory, mc, z and ``index``) as one line per cell: ``p_S
    theory``, ``p_S mc``, ``p_S z``, then the same for ``p_I``.
    """
    if not {"task", "theory", "mc", "z", *index} <= set(mc.columns):
        raise ValueError(f"mc must have columns task, theory, mc, z and {', '.join(index)}; "
                         f"got {', '.join(mc.columns)}")
    wide = mc.pivot_table(index=list(index), columns="task", values=["theory", "mc", "z"],
                          sort=False)
    wide.columns = [f"{'p_S' if task == 'similarity' else 'p_I'} {what}"
                    for what, task in wide.columns]
    return wide[[f"{p} {w}" for p in ("p_S", "p_I") for w in ("theory", "mc", "z")]].reset_index()
