"""semres.experiments.pareto.page: chapter 1's figures draw and its sentences read the numbers."""

import matplotlib
import pandas as pd
import pytest

from semres.core import spaces
from semres.experiments.pareto import page, settings

matplotlib.use("Agg")


@pytest.mark.parametrize("make", ["setup", "front", "noise_segment"])
def test_figures_draw(make):
    import matplotlib.pyplot as plt

    if make == "noise_segment":
        deltas = settings.DEFAULT.deltas
        mc = pd.DataFrame([{"space": s, "delta": d, "task": t, "mc": 0.7, "stderr": 1e-3}
                           for s in ("circle", "segment") for d in deltas
                           for t in ("similarity", "identification")])
        fig = page.fig_noise_segment(mc, spaces.Segment().ball_measure)
    else:
        fig = getattr(page, f"fig_{make}")()
    assert fig.axes
    plt.close(fig)


def test_a_space_lies_above_the_front_only_when_ties_outweigh_its_variance():
    assert page.side_of_front(0.01) == "above"
    assert page.side_of_front(-0.01) == "below"


def test_the_side_of_the_front_quotes_no_number_beyond_its_row():
    from semres.report.numbers import unquoted

    for excess in (0.01, -0.01):
        assert unquoted(page.side_of_front(excess), {"excess": excess}) == []
