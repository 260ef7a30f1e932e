"""semres.experiments.many_items.figures: chapter 2's figures draw."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from semres.core import theory
from semres.experiments.many_items import figures, settings

matplotlib.use("Agg")


def test_figures_draw():
    cfg = settings.DEFAULT
    mc = pd.DataFrame([{"space": "circle", "delta": 0.0, "eps": b / 2, "n": m, "task": t,
                        "mc": 0.5} for b in cfg.b_mc for m in cfg.n_mc
                       for t in ("similarity", "identification")])
    N = np.arange(2, 60)
    ps_n = theory.n_item(cfg.b_small, N)[0]
    fig = figures.fig_collapse(mc, ps_n, np.array([3, 20]), N, cfg.b_small, cfg.b_mc)
    assert [ax.get_title()[:3] for ax in fig.axes] == ["(a)", "(b)"]  # the captions' order
    plt.close(fig)
    ns = np.arange(2, 21)
    bs = np.array([theory.n_item_optimum(m) for m in ns])
    ps, pi = theory.n_item(bs, ns)
    check = pd.DataFrame({"n": [2, 10], "paper": [0.5, 0.137]})
    fig = figures.fig_optimum(ns, bs, 1.5, check, ps, pi)
    assert [ax.get_title()[:3] for ax in fig.axes] == ["(a)", "(b)"]
    plt.close(fig)
