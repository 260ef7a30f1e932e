"""Metric probability spaces (M, d, nu) on which the Luce tests run.

The engine asks ``distances(rng, k, m)``: a (k, m) array of distances from m probes to k i.i.d.
items each (items on axis 0). The theory asks ``ball_measure(eps)``: the mean and variance over
probes of the closed ball's measure. A reader samples points and measures ``distance``.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

__all__ = ["Space", "Circle", "Segment", "Sphere", "Discrete", "Slots"]


def _eps(eps) -> np.ndarray:
    arr = np.asarray(eps, dtype=float)
    if np.isnan(arr).any() or (arr < 0).any():
        raise ValueError(f"eps must be >= 0; got {eps!r}")
    return arr


def _out(mean, var):
    return (float(mean), float(var)) if np.ndim(mean) == 0 else (mean, var)


class Space:
    """What the engine and the theory need from a space."""

    #: per-pair shape of what ``distances`` returns beyond (k, m): () for one distance per pair
    event_shape: tuple = ()
    #: whether distances between distinct points tie with positive probability
    discrete: bool = False

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        raise NotImplementedError

    def distance(self, x, y) -> np.ndarray:
        raise NotImplementedError

    def distances(self, rng: np.random.Generator, k: int, m: int) -> np.ndarray:
        probe = self.sample(rng, m)
        return self.distance(self.sample(rng, (k, m)), probe)

    def ball_measure(self, eps):
        """(<b>, Var b) of the closed ball of radius ``eps``."""
        raise NotImplementedError

    def tie_probability(self) -> float:
        """<tau>: the chance that two items lie at the same distance from a probe."""
        return 0.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Circle(Space):
    """Circle of circumference 1, arc-length distance: d(p, x) ~ U[0, 1/2] for any p."""

    def sample(self, rng, size):
        return rng.random(size)

    def distance(self, x, y):
        gap = np.abs(np.asarray(x) - np.asarray(y)) % 1.0
        return np.minimum(gap, 1.0 - gap)

    def distances(self, rng, k, m):
        d = rng.random((k, m), dtype=np.float32)
        d *= np.float32(0.5)
        return d

    def ball_measure(self, eps):
        eps = _eps(eps)
        return _out(np.minimum(2 * eps, 1.0), np.zeros_like(eps))


class Segment(Space):
    """The unit interval with |x - y|: balls near the ends are cut, so Var(b) > 0."""

    def sample(self, rng, size):
        return rng.random(size)

    def distance(self, x, y):
        return np.abs(np.asarray(x) - np.asarray(y))

    def distances(self, rng, k, m):
        probe = rng.random(m, dtype=np.float32)
        d = rng.random((k, m), dtype=np.float32)
        d -= probe
        return np.abs(d, out=d)

    def ball_measure(self, eps):
        # b_p = min(1, p + eps) - max(0, p - eps); integrals of b_p and b_p^2 over p, piecewise.
        e = np.minimum(_eps(eps), 1.0)
        mean = 2 * e - e**2
        second = np.where(e <= 0.5, 4 * e**2 - (10 / 3) * e**3, (2 / 3) * (1 - e**3) + 2 * e - 1)
        return _out(mean, np.clip(second - mean**2, 0.0, None))


class Sphere(Space):
    """Unit sphere S^2, geodesic distance, uniform measure: cos d ~ U[-1, 1] for any p."""

    def sample(self, rng, size):
        v = rng.standard_normal((size,) + (3,) if np.ndim(size) == 0 else tuple(size) + (3,))
        return v / np.linalg.norm(v, axis=-1, keepdims=True)

    def distance(self, x, y):
        cos = np.sum(np.asarray(x) * np.asarray(y), axis=-1)
        return np.arccos(np.clip(cos, -1.0, 1.0))

    def distances(self, rng, k, m):
        u = rng.random((k, m), dtype=np.float32)
        u *= np.float32(-2.0)
        u += np.float32(1.0)
        return np.arccos(u, out=u)

    def ball_measure(self, eps):
        eps = _eps(eps)
        return _out((1 - np.cos(np.minimum(eps, math.pi))) / 2, np.zeros_like(eps))


class Discrete(Space):
    """A finite metric space: points 0..N-1, a distance matrix kept exactly (float64, so equal
    entries are real ties for the engine) and point probabilities.
    """

    discrete = True

    def __init__(self, distances, weights=None):
        d = np.array(distances, dtype=float)
        if d.ndim != 2 or d.shape[0] != d.shape[1] or d.shape[0] < 1:
            raise ValueError(f"distances must be a square (N, N) matrix; got shape {d.shape}")
        if not np.isfinite(d).all() or (d < 0).any():
            raise ValueError("distances must be finite and >= 0")
        if not np.array_equal(d, d.T):
            raise ValueError("distances must be symmetric (largest asymmetry "
                             f"{np.abs(d - d.T).max():.3g}; symmetrise with (d + d.T) / 2)")
        if (np.diagonal(d) != 0).any():
            raise ValueError("distances must have a zero diagonal")
        n_points = d.shape[0]
        w = np.full(n_points, 1.0 / n_points) if weights is None else np.array(weights, float)
        if w.shape != (n_points,):
            raise ValueError(f"weights must have shape ({n_points},); got {w.shape}")
        if not np.isfinite(w).all() or (w < 0).any() or abs(w.sum() - 1) > 1e-9:
            raise ValueError("weights must be >= 0 and sum to 1")
        if weights is not None:
            w = w / w.sum()
        d.setflags(write=False)
        w.setflags(write=False)
        self.matrix, self.weights = d, w
        self._uniform = weights is None or np.all(w == w[0])
        self._cdf = np.cumsum(w)
        self._cdf[-1] = 1.0

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def __repr__(self) -> str:
        return f"Discrete(<{len(self)} points>)"

    def sample(self, rng, size):
        if self._uniform:
            return rng.integers(0, len(self), size=size)
        # side="right" so zero-weight points are never drawn
        idx = np.searchsorted(self._cdf, rng.random(size), side="right")
        return np.minimum(idx, len(self) - 1)

    def distance(self, x, y):
        return self.matrix[np.asarray(x), np.asarray(y)]

    @cached_property
    def _sorted_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's distances in increasing order, and the cumulative weight along it."""
        order = np.argsort(self.matrix, axis=1, kind="stable")
        rows = np.take_along_axis(self.matrix, order, axis=1)
        cum = np.zeros((len(self), len(self) + 1))
        np.cumsum(self.weights[order], axis=1, out=cum[:, 1:])
        return rows, cum

    def ball_profile(self, eps) -> np.ndarray:
        """b_p for every point p (shape eps.shape + (N,)); O(N log N) per radius."""
        eps = _eps(eps)
        rows, cum = self._sorted_rows
        flat = eps.ravel()
        b = np.empty((flat.size, len(self)))
        for p in range(len(self)):
            b[:, p] = cum[p, np.searchsorted(rows[p], flat, side="right")]
        return b.reshape(eps.shape + (len(self),))

    def ball_measure(self, eps):
        b = self.ball_profile(eps)
        mean = b @ self.weights
        return _out(mean, np.clip(((b - mean[..., None]) ** 2) @ self.weights, 0.0, None))

    def tie_profile(self) -> np.ndarray:
        """tau_p = sum_r sigma_r(p)^2, sigma_r(p) the mass at distance exactly r from p: the chance
        that two items tie in their distance to p (the term Theorem 1 misses on a finite space).
        """
        rows, cum = self._sorted_rows
        tau = np.empty(len(self))
        for p in range(len(self)):  # the mass of each run of equal distances in the sorted row
            starts = np.flatnonzero(np.r_[True, rows[p, 1:] != rows[p, :-1]])
            ends = np.r_[starts[1:], len(self)]
            tau[p] = ((cum[p, ends] - cum[p, starts]) ** 2).sum()
        return tau

    def tie_probability(self) -> float:
        return float(self.weights @ self.tie_profile())


class Slots(Space):
    """``slots`` independent points, each on its own unit circle. ``distances`` returns per-slot
    distances (k, m, slots) for a kernel to combine (:class:`semres.core.kernels.Slotwise`); the
    true nearest item is decided by ``combine``, the mean slot distance.
    """

    def __init__(self, slots: int):
        if isinstance(slots, bool) or not isinstance(slots, (int, np.integer)) or slots < 1:
            raise ValueError(f"slots must be an integer >= 1; got {slots!r}")
        self.slots = int(slots)
        self.event_shape = (self.slots,)

    def __repr__(self) -> str:
        return f"Slots({self.slots})"

    def sample(self, rng, size):
        return rng.random(((size,) if np.ndim(size) == 0 else tuple(size)) + (self.slots,))

    def distance(self, x, y):
        return self.combine(Circle().distance(x, y))

    def distances(self, rng, k, m):
        d = rng.random((k, m, self.slots), dtype=np.float32)
        d *= np.float32(0.5)
        return d

    def combine(self, d) -> np.ndarray:
        """The ground-truth distance of a pair from its per-slot distances (last axis)."""
        return np.asarray(d).mean(axis=-1)
