"""Chapter 3's page: its sentences and its figures."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from semres.core import theory
from semres.core.intervals import mean_interval
from semres.experiments.toy import analysis, page, page_figures, superposition

_SMALL = superposition.ToyConfig(n_stimuli=12, n_hidden=4, epochs=4, trials_per_epoch=200,
                                 batch_size=32, snapshot_epochs=(0, 4))


@pytest.fixture(scope="module")
def small_history():
    conditions = [c for c in superposition.CONDITIONS for _ in range(2)]
    return superposition.train(conditions, [0, 1] * 3, _SMALL, progress=False)


def test_a_comparison_reads_its_verdict_and_its_t_interval():
    ci = mean_interval([0.806, 0.807, 0.808])
    text = page.against("differs", "the peak", ci, 0.8098, "the optimum")
    assert text.startswith("the peak differs from the optimum: it is -0.0028 from it")
    assert "Student's t over 3 seeds" in text and f"{ci['high'] - 0.8098:+.4f}" in text
    assert "cannot be told apart" in page.against("inconclusive", "x", ci, 0.807, "y")
    assert "one seed" in page.against("holds", "x", mean_interval([0.8]), 0.7, "y")
    with pytest.raises(ValueError, match="verdict"):
        page.against("misfit", "x", ci, 0.8, "y")
    assert "paired runs" in page.replicates_sentence(10)


def test_figures_draw(small_history):
    matplotlib.use("Agg")
    own = {c: analysis.own_profile_prediction(small_history, c, 2)
           for c in superposition.CONDITIONS}
    disc = analysis.linear_profile_scores("circle", np.linspace(0.05, 0.5, 10))
    for fig in (page_figures.fig_trajectories(small_history, own, disc, 0.2,
                                         lambda e: theory.linear_circle(2 * e), 0.81),
                page_figures.fig_similarity(small_history),
                page_figures.fig_resolution(small_history, 0.2, 0.19)):
        assert fig.axes
        plt.close(fig)
