"""semres.experiments.pareto.figures: chapter 1's figures draw, and the explorer's embedded
numbers are the closed forms, with static fallbacks (in a browser the sliders pick the right
curve: that part needs Chromium, see test_render.py)."""

import json
import re

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from semres.core import spaces, theory
from semres.experiments.pareto import settings
from semres.experiments.pareto.figures import (FrontExplorer, fig_front, fig_noise_segment,
                                               fig_setup, front_explorer)

matplotlib.use("Agg")


def _figures():
    """The chapter's three figures, the Monte Carlo one on a stand-in table."""
    deltas = settings.DEFAULT.deltas
    mc = pd.DataFrame([{"space": s, "delta": d, "task": t, "mc": 0.7, "stderr": 1e-3}
                       for s in ("circle", "segment") for d in deltas
                       for t in ("similarity", "identification")])
    return fig_setup(), fig_front(), fig_noise_segment(mc, spaces.Segment().ball_measure, deltas)


def test_figures_draw():
    for fig in _figures():
        assert fig.axes
        plt.close(fig)


def _payload(text):
    return json.loads(re.search(r"const D = (\{.*?\});\n", text).group(1))


def test_embedded_curves_are_theorem_3_at_every_grid_point():
    exp = front_explorer(deltas=[0.0, 0.2], ns=[2, 5], n_b=11)
    data = _payload(exp._repr_html_())
    for j, n in enumerate(data["ns"]):
        for k, d in enumerate(data["deltas"]):
            p_s, p_i = theory.n_item(np.array(data["bs"]), n, d)
            np.testing.assert_allclose(data["ps"][j][k], p_s, atol=1e-4)
            np.testing.assert_allclose(data["pi"][j][k], p_i, atol=1e-4)
    # two items without noise: the universal front of Theorem 1
    p_s, p_i = np.array(data["ps"][0][0]), np.array(data["pi"][0][0])
    np.testing.assert_allclose(p_s, theory.front(p_i), atol=2e-4)


def test_static_fallbacks_png_and_noscript_image_with_alt_text():
    exp = front_explorer(n_b=11)
    assert exp._repr_png_().startswith(b"\x89PNG")
    text = exp._repr_html_()
    assert re.search(r'<noscript><img src="data:image/png;base64,[^"]+" alt="[^"]{40,}"', text)
    assert 'style="display:none' in text  # the interactive part shows only when its script runs
    assert "http" not in text.replace("http://www.w3.org", "")  # nothing fetched from a network


@pytest.mark.parametrize("kwargs, name", [(dict(deltas=[-0.1], ns=[2]), "deltas"),
                                          (dict(deltas=[0.0], ns=[1]), "n"),
                                          (dict(deltas=[0.0], ns=[2], n_b=2), "n_b")])
def test_bad_grid_raises_naming_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FrontExplorer(**kwargs)


def test_panels_read_a_b_c_by_their_top_edges():
    """A phone stacks a figure's panels by their top edge, then their left edge: each figure's
    panel titles read (a), (b), (c) in that order (an aspect-fixed panel centred in its cell
    once came after its neighbour)."""
    for fig in _figures():
        fig.draw_without_rendering()
        panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
        order = sorted(panels, key=lambda ax: (-round(ax.get_position().y1, 2),
                                               round(ax.get_position().x0, 2)))
        labels = [ax.get_title()[:3] for ax in order]
        assert labels == ["(a)", "(b)", "(c)"][:len(panels)], labels
        plt.close(fig)
