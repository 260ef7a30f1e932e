"""semres.experiments.frontier.ties: the discrete spaces are homogeneous and tie as counted, and
their height above the front is tau/2 and falls with their size."""

from __future__ import annotations

import numpy as np

from semres.experiments.frontier import ties as discrete
from semres.experiments.frontier import verdicts


def test_the_discrete_spaces_are_homogeneous_and_tie_as_counted():
    dist, unit = discrete.cycle(8)
    assert unit == 8 and dist.shape == (8, 8) and dist[0, 4] == 4 and dist[0, 7] == 1
    dist, unit = discrete.torus(4)
    assert unit == 4 and dist.shape == (16, 16) and dist.max() == 4
    assert np.all(np.sort(dist, axis=1) == np.sort(dist[0]))  # the same shells from every point
    ties = discrete.ties_table(discrete.tie_spaces([8, 16, 32], [4, 6, 8]))
    np.testing.assert_allclose(ties.above_front, ties.tau / 2, atol=1e-12)
    rates, slopes = discrete.tie_slopes(ties)
    assert rates["cycle"] < -0.8 and rates["torus"] < -verdicts.TIE_MARGIN
