"""Chapter 1's science beyond the engine: the heterogeneous discrete space with ties on which
the tie term of Theorem 2 is checked (the chapter derives the laws and runs the check)."""

from __future__ import annotations

import numpy as np

from semres.core import spaces


def discrete_space(grid: int, points: int, seed) -> spaces.Discrete:
    """``points`` distinct cells of a ``grid`` × ``grid`` integer grid with the city-block
    distance (integer, so full of exact ties) and unequal Dirichlet(2) weights: a heterogeneous
    space with ties, drawn from ``seed`` (a named stream, or an int in tests)."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(grid * grid, size=points, replace=False)
    xy = np.stack(np.divmod(cells, grid), axis=1)
    dist = np.abs(xy[:, None, :] - xy[None, :, :]).sum(-1).astype(float)
    return spaces.Discrete(dist, weights=rng.dirichlet(np.full(len(xy), 2.0)))
