"""Chapter 3's figures draw from a small trained stack."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from semres.core import theory
from semres.experiments.toy import analysis, figures, superposition

_SMALL = superposition.ToyConfig(n_stimuli=12, n_hidden=4, epochs=4, trials_per_epoch=200,
                                 batch_size=32, snapshot_epochs=(0, 4))


def test_figures_draw():
    matplotlib.use("Agg")
    conditions = [c for c in superposition.CONDITIONS for _ in range(2)]
    history = superposition.train(conditions, [0, 1] * 3, _SMALL, progress=False)
    own = {c: analysis.own_profile_prediction(history, c, 2) for c in superposition.CONDITIONS}
    disc = analysis.linear_profile_scores("circle", np.linspace(0.05, 0.5, 10), 12)
    for fig in (figures.fig_trajectories(history, own, disc, 0.2,
                                         lambda e: theory.linear_circle(2 * e), 0.81),
                figures.fig_similarity(history), figures.fig_resolution(history, 0.2, 0.19, 0.5)):
        assert fig.axes
        plt.close(fig)
