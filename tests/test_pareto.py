"""semres.experiments.front.pareto: chapter 1's discrete space, its overview rows, its figures."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

from semres.core import spaces
from semres.experiments.front import pareto

matplotlib.use("Agg")


def test_discrete_space_is_a_seeded_weighted_grid_with_ties():
    a = pareto.discrete_space(7, 20, np.random.SeedSequence(3))
    b = pareto.discrete_space(7, 20, np.random.SeedSequence(3))
    assert isinstance(a, spaces.Discrete) and len(a) == 20
    np.testing.assert_array_equal(a.matrix, b.matrix)
    np.testing.assert_array_equal(a.weights, b.weights)
    assert not np.array_equal(a.weights, pareto.discrete_space(7, 20, 4).weights)
    assert np.array_equal(a.matrix, np.round(a.matrix))  # city-block on a grid: integers
    assert (a.matrix[~np.eye(20, dtype=bool)] > 0).all()  # distinct cells
    assert a.tie_probability() > 0.1  # full of ties
    assert len(np.unique(a.weights)) == 20  # unequal weights: heterogeneous


def test_overview_cells_select_the_cells_each_row_claims():
    mc = pd.DataFrame({"space": ["circle", "circle", "segment", "discrete", "sphere"],
                       "delta": [0.0, 0.1, 0.0, 0.3, 0.1]})
    rows = {name: cells.tolist() for name, _, cells in pareto.overview_cells(mc)}
    assert rows["Theorem 1 (paper Thm. 1) on the circle"] == [True, False, False, False, False]
    assert rows["Theorem 2 (paper Thm. 2), noise"] == [False, True, False, True, True]
    assert rows["Theorem 1 with heterogeneity (segment)"] == [False, False, True, False, False]
    assert sum(rows["ties in a discrete space (new)"]) == 1
    assert [n for n, *_ in pareto.overview_cells(mc) if "(new)" in n] == [
        "ties in a discrete space (new)"]


def test_the_grids_cover_both_sides_of_the_optimum_and_the_discrete_radii():
    for name in ("circle", "segment"):
        b = 2 * np.array(pareto.EPS[name])
        assert b.min() < 0.5 < b.max()
    assert pareto.TIE_EPS in pareto.EPS["discrete"] and 0.0 in pareto.DELTAS


@pytest.mark.parametrize("make", ["setup", "front", "noise_segment"])
def test_figures_draw(make):
    import matplotlib.pyplot as plt

    if make == "noise_segment":
        mc = pd.DataFrame([{"space": s, "delta": d, "task": t, "mc": 0.7, "stderr": 1e-3}
                           for s in ("circle", "segment") for d in pareto.DELTAS
                           for t in ("similarity", "identification")])
        fig = pareto.fig_noise_segment(mc, spaces.Segment().ball_measure)
    else:
        fig = getattr(pareto, f"fig_{make}")()
    assert fig.axes
    plt.close(fig)
