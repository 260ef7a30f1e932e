"""Similarity functions g(d) of distance, as used by the Luce rule.

A kernel is any callable taking a numpy array of distances and returning the similarities
(same shape, non-negative, finite). The classes below are the paper's families; a measured
similarity profile (e.g. ``scipy.interpolate.interp1d`` over a learned g) works the same way.
Kernels keep the dtype of their input, so the engine can work in float32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .validate import non_negative, positive

__all__ = ["Constant", "Linear", "Exponential", "Slotwise", "half_decay", "chance_return"]


def half_decay(lam) -> float:
    """The half-decay distance of an exponential e^(-d/lam): lam ln 2, where its graded part
    has fallen to half its value at d = 0 (with a floor Delta, where g stands halfway between
    its peak 1 + Delta and its floor Delta), whatever the floor. Not where answers return to
    chance: that is :func:`chance_return`. ``lam`` (years, or any unit of distance) must be
    finite and > 0."""
    return positive(lam, "lam") * math.log(2)


def chance_return(lam, delta) -> float:
    """The return-to-chance distance of an exponential with a floor, g = e^(-d/lam) + delta:
    lam ln(1/delta), where the graded part e^(-d/lam) falls to the floor, so that beyond it
    every item weighs about the same and a Luce choice is back near chance (the paper's
    effective resolution; its 70-80 years for the LLMs is this distance). Conventions: inf
    without a floor (delta = 0: the graded part never reaches it), 0 when the floor outweighs
    even an exact match (delta >= 1). ``lam`` must be finite and > 0, ``delta`` finite and
    >= 0."""
    lam = positive(lam, "lam")
    delta = non_negative(delta, "delta")
    if delta == 0:
        return math.inf
    return lam * math.log(1 / delta) if delta < 1 else 0.0


@dataclass(frozen=True)
class Constant:
    """Definition 1: g = 1 inside the closed ball d <= eps, ``delta`` outside."""

    eps: float
    delta: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "eps", non_negative(self.eps, "eps"))
        object.__setattr__(self, "delta", non_negative(self.delta, "delta"))

    @property
    def resolution(self) -> float:
        return self.eps

    def __call__(self, d):
        d = np.asarray(d)
        dtype = d.dtype if d.dtype.kind == "f" else np.float64
        inside = d <= self.eps
        if self.delta == 0:
            return inside.astype(dtype)
        # delta * outside + inside: exactly 1 or delta, and faster than np.where
        g = np.logical_not(inside).astype(dtype)
        g *= self.delta
        g += inside.astype(dtype)
        return g


@dataclass(frozen=True)
class Linear:
    """Proposition 1's decay: g = max(0, 1 - d / eps)."""

    eps: float

    def __post_init__(self):
        object.__setattr__(self, "eps", positive(self.eps, "eps"))

    @property
    def resolution(self) -> float:
        return self.eps

    def __call__(self, d):
        d = np.asarray(d)
        dtype = d.dtype if d.dtype.kind == "f" else np.float64
        g = np.asarray(np.multiply(d, -1.0 / self.eps, dtype=dtype))  # 0-d stays an array
        g += 1
        return np.maximum(g, 0, out=g)


@dataclass(frozen=True)
class Exponential:
    """g = exp(-d / scale) + floor; the floor is the noise that creates a finite resolution."""

    scale: float
    floor: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "scale", positive(self.scale, "scale"))
        object.__setattr__(self, "floor", non_negative(self.floor, "floor"))

    @property
    def resolution(self) -> float:
        """The return-to-chance distance (:func:`chance_return`): where exp(-d/scale) falls to
        the floor, scale ln(1/floor); inf without one, 0 for a floor >= 1."""
        return chance_return(self.scale, self.floor)

    @property
    def chance_return(self) -> float:
        """:func:`chance_return` of this kernel (the same as :attr:`resolution`)."""
        return chance_return(self.scale, self.floor)

    @property
    def half_decay(self) -> float:
        """:func:`half_decay` of this kernel: scale ln 2."""
        return half_decay(self.scale)

    def __call__(self, d):
        d = np.asarray(d)
        dtype = d.dtype if d.dtype.kind == "f" else np.float64
        g = np.asarray(np.multiply(d, -1.0 / self.scale, dtype=dtype))  # 0-d stays an array
        np.exp(g, out=g)
        if self.floor:
            g += self.floor
        return g


_COMBINE = {"max": np.max, "product": np.prod, "mean": np.mean}


@dataclass(frozen=True)
class Slotwise:
    """A compositional similarity: ``kernel`` on each slot's distance (last axis), combined by
    ``combine`` ("max": the best-matching slot decides; "product": every slot must match;
    "mean": the share of matching slots). For :class:`semres.core.spaces.Slots`."""

    kernel: object
    combine: str = "max"

    def __post_init__(self):
        if not callable(self.kernel):
            raise ValueError(f"kernel must be callable g(distance); got {self.kernel!r}")
        if self.combine not in _COMBINE:
            raise ValueError(f"combine must be one of {tuple(_COMBINE)}; got {self.combine!r}")

    def __call__(self, d):
        d = np.asarray(d)
        g = np.asarray(self.kernel(d))
        return _COMBINE[self.combine](g, axis=-1).astype(g.dtype, copy=False)
