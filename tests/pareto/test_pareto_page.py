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


def _rows(statuses):
    return [{"status": s, "margin": 0.005, "ci_low": -0.001, "ci_high": 0.003}
            for s in statuses]


def test_the_lead_says_how_far_the_laws_reach_only_when_every_law_held():
    from semres.report.numbers import unquoted

    mc = pd.DataFrame({"z": [0.5, -2.5, 1.0]})
    held = page.lead(_rows(["reproduced", "holds"]), mc)
    assert held.startswith("The paper's two-item laws hold on all four spaces")
    assert "0.003" in held and "0.005" in held
    cites = {"cells": 3, "reach": 0.003, "margin": 0.005, **page.FRONT_NUMBERS}
    assert unquoted(held, cites) == []
    assert unquoted(held, {**cites, "reach": 0.004}) == ["0.0030"]  # the check can fail
    mixed = page.lead(_rows(["reproduced", "inconclusive"]), mc)
    assert mixed.startswith("Not every two-item law is confirmed")
    assert "1 inconclusive" in mixed and "2.5 standard errors" in mixed
