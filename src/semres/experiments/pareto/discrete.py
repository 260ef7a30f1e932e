"""The heterogeneous discrete space with distance ties on which chapter 1 checks the tie term."""

from __future__ import annotations

import numpy as np

from semres.core import spaces


def discrete_space(grid: int, points: int, seed) -> spaces.Discrete:
    """``points`` distinct cells of a ``grid`` × ``grid`` grid, city-block distance (integer, so
    full of ties) and unequal Dirichlet(2) weights."""
    rng = np.random.default_rng(seed)
    xy = np.stack(np.divmod(rng.choice(grid * grid, size=points, replace=False), grid), axis=1)
    dist = np.abs(xy[:, None, :] - xy[None, :, :]).sum(-1).astype(float)
    return spaces.Discrete(dist, weights=rng.dirichlet(np.full(len(xy), 2.0)))
