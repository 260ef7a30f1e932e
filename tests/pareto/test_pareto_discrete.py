"""semres.experiments.pareto.discrete: chapter 1's discrete space with ties."""

import numpy as np

from semres.core import spaces
from semres.experiments.pareto import discrete


def test_discrete_space_is_a_seeded_weighted_grid_with_ties():
    a = discrete.discrete_space(7, 20, np.random.SeedSequence(3))
    b = discrete.discrete_space(7, 20, np.random.SeedSequence(3))
    assert isinstance(a, spaces.Discrete) and len(a) == 20
    np.testing.assert_array_equal(a.matrix, b.matrix)
    np.testing.assert_array_equal(a.weights, b.weights)
    assert not np.array_equal(a.weights, discrete.discrete_space(7, 20, 4).weights)
    assert np.array_equal(a.matrix, np.round(a.matrix))  # city-block on a grid: integers
    assert (a.matrix[~np.eye(20, dtype=bool)] > 0).all()  # distinct cells
    assert a.tie_probability() > 0.1  # full of ties
    assert len(np.unique(a.weights)) == 20  # unequal weights: heterogeneous
