"""semres.experiments.vlm_shapes.figures: the accuracy map names its shapes legibly and keeps
its tick labels apart; the n sweep's panels are lettered in the caption's order."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgba

from semres.experiments.vlm_shapes import figures, scenes, settings

matplotlib.use("Agg")


def test_map_names_its_shapes_on_grey_with_three_ticks():
    grid = 6
    map_list = scenes.map_scenes(grid)
    names = sorted(settings.SHAPES)
    biased = {"scale": 0.05, "floor": 0.0, "weights": {k: 1 / len(names) for k in names}}
    fig = figures.fig_map(map_list, np.linspace(0, 1, len(map_list)), biased,
                          {"eps": 0.05, "at_bound": False}, grid)
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert [t.get_text()[:3] for ax in panels for t in ax.texts
            if t.get_text().startswith("(")] == ["(a)", "(b)"]
    for ax in panels:
        labels = {t.get_text(): t for t in ax.texts}
        for shape in settings.MAP_LAYOUT:  # black names: legible on the grey excluded discs
            assert to_rgba(labels[shape].get_color()) == to_rgba("black")
        assert list(ax.get_xticks()) == list(figures.MAP_TICKS)  # "1.000.00" no more
        bad = ax.images[0].get_cmap().get_bad()
        assert tuple(bad) == to_rgba(figures.EXCLUDED)  # not white: the names show
    plt.close(fig)


def test_nsweep_panels_in_caption_order():
    rows = [{"task": t, "n": n, "p": 0.5, "se": 0.05, "p_theory_sim": 0.5, "p_theory_ide": 0.5,
             "p_kernel": 0.5} for t in settings.TASKS for n in (2, 4, 8)]
    fig = figures.fig_nsweep(pd.DataFrame(rows))
    assert [ax.get_title()[:3] for ax in fig.axes] == ["(a)", "(b)"]
    plt.close(fig)
