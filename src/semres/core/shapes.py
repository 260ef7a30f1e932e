"""Families of similarity shapes on the circle, and their exact two-item success rates.

A family kernel is g(d) = delta + (1 - delta) shape(d / scale). On the circle the distances are
i.i.d. U[0, 1/2], so p_I = 2 int dd / (1 + g(d)) and p_S = 8 int int_{d1 < d2} g(d1) / (g(d1) +
g(d2)). :func:`circle_two_item` evaluates them by composite Gauss-Legendre quadrature, panels
refined geometrically near u = d2 - d1 = 0 and d = 0 and split at the shape's kinks, exact to
~1e-10 even for scales far below the grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .validate import positive

__all__ = ["FAMILIES", "Family", "circle_two_item"]


def _log0(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


#: shape(x) as a log, for x = d / scale >= 0; -inf where the shape vanishes
_LOG_SHAPES = {
    "constant": lambda x: np.where(x <= 1, 0.0, -np.inf),
    "linear": lambda x: _log0(np.clip(1 - x, 0, None)),
    "exponential": lambda x: -x,
    "gaussian": lambda x: -0.5 * x * x,
}
FAMILIES = tuple(_LOG_SHAPES)
#: where the shape has a kink or jump (in units of the scale): panels are split there
_KINKS = {"constant": (1.0,), "linear": (1.0,), "exponential": (), "gaussian": ()}
_GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(12)


@dataclass(frozen=True)
class Family:
    """g(d) = delta + (1 - delta) shape(d / scale), a kernel the engine accepts; ``scale`` (in
    circumferences) is the radius for ``constant`` and ``linear``, the decay length for
    ``exponential``, the width for ``gaussian``.
    """

    family: str
    scale: float
    delta: float = 0.0

    def __post_init__(self):
        if self.family not in _LOG_SHAPES:
            raise ValueError(f"family must be one of {FAMILIES}; got {self.family!r}")
        object.__setattr__(self, "scale", positive(self.scale, "scale"))
        if not (0 <= float(self.delta) <= 1):
            raise ValueError(f"delta must lie in [0, 1]; got {self.delta!r}")
        object.__setattr__(self, "delta", float(self.delta))

    def log(self, d) -> np.ndarray:
        """log g(d) in float64 (-inf where g = 0)."""
        ls = _LOG_SHAPES[self.family](np.asarray(d, dtype=np.float64) / self.scale)
        if self.delta == 0:
            return ls
        if self.delta == 1:
            return np.zeros_like(ls)
        return np.logaddexp(math.log(self.delta), math.log1p(-self.delta) + ls)

    def values(self, d) -> np.ndarray:
        """g(d) in float64, without logs."""
        with np.errstate(divide="ignore"):
            shape = np.exp(_LOG_SHAPES[self.family](np.asarray(d, dtype=np.float64) / self.scale))
        return self.delta + (1 - self.delta) * shape

    def __call__(self, d):
        d = np.asarray(d)
        dtype = d.dtype if d.dtype.kind == "f" else np.float64
        with np.errstate(divide="ignore"):
            return np.exp(self.log(d)).astype(dtype, copy=False)

    @property
    def kinks(self) -> tuple[float, ...]:
        return tuple(k * self.scale for k in _KINKS[self.family])


def _share(kernel: Family, d1, d2):
    """g(d1) / (g(d1) + g(d2)), 1/2 where both vanish; without a floor from the logs, since a fine
    Gaussian's values underflow long before their ratio does.
    """
    if kernel.delta > 0:
        g1, g2 = kernel.values(d1), kernel.values(d2)
        return g1 / (g1 + g2)
    log_g1, log_g2 = kernel.log(d1), kernel.log(d2)
    both_zero = np.isneginf(log_g1) & np.isneginf(log_g2)
    with np.errstate(invalid="ignore"):
        diff = np.where(both_zero, 0.0, log_g1 - log_g2)
    return expit(diff)


def _panels(edges: np.ndarray):
    """Gauss-Legendre nodes and weights on each panel of ``edges`` (last axis); empty ones weigh 0.
    """
    x, w = _GAUSS_LEGENDRE
    lo, hi = edges[..., :-1, None], edges[..., 1:, None]
    half = (hi - lo) / 2
    nodes = (lo + half * (1 + x)).reshape(*edges.shape[:-1], -1)
    weights = (half * w).reshape(*edges.shape[:-1], -1)
    return nodes, weights


def _base_edges(kern: Family) -> np.ndarray:
    """Panel edges on [0, 1/2]: uniform, geometric around the scale, and the shape's kinks."""
    geo = kern.scale * np.geomspace(1 / 64, 64, 25)
    edges = np.concatenate([np.linspace(0, 0.5, 17), geo, kern.kinks])
    return np.unique(np.clip(edges, 0, 0.5))


def circle_two_item(kernel: Family) -> tuple[float, float]:
    """Exact (to quadrature accuracy) two-item (p_s, p_i) of ``kernel`` on the unit circle."""
    if not isinstance(kernel, Family):
        raise ValueError(f"kernel must be a semres.core.shapes.Family; got {kernel!r}")
    base = _base_edges(kernel)
    d, w = _panels(base)
    p_i = float(2 * (w / (1 + np.exp(kernel.log(d)))).sum())

    # p_S = 8 int_0^{1/2} du int_0^{1/2 - u} dd1 share(d1, d1 + u)
    # the inner integral has kinks where a moved kink crosses 0 or the end 1/2 - u
    kinks = np.asarray(kernel.kinks)
    u_edges = np.concatenate([base, np.geomspace(1e-9, 0.5, 60), 0.5 - kinks])
    u_edges = np.unique(np.clip(u_edges, 0, 0.5))
    u, wu = _panels(u_edges)
    # inner edges per u: the base edges, the kinks of g(d1 + u) moved to d1 = kink - u, the end
    # (and, left of it, geometric edges: near the corner d1 = kink, u = 0 the share varies on
    # the scale u)
    moved = kinks[:, None] - u[None, :] * (1 + np.geomspace(1 / 8, 2048, 15))[:, None, None]
    moved = np.concatenate([kinks[:, None] - u[None, :], moved.reshape(-1, u.size)]).T
    inner = np.concatenate([np.broadcast_to(base, (u.size, base.size)), moved,
                            (0.5 - u)[:, None]], axis=1)
    inner = np.sort(np.clip(inner, 0, (0.5 - u)[:, None]), axis=1)
    d1, w1 = _panels(inner)
    share = _share(kernel, d1, d1 + u[:, None])
    p_s = float(8 * (wu * (w1 * share).sum(axis=1)).sum())
    return p_s, p_i
