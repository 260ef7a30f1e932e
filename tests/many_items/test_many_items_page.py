"""semres.experiments.many_items.page: chapter 2's sentences and figures."""

import matplotlib
import numpy as np
import pandas as pd

from semres.core import theory
from semres.experiments.many_items import page, settings

matplotlib.use("Agg")


def test_b_star_verdict_never_shows_e_notation():
    # prose never shows e-notation
    assert page.b_star_verdict(True, 2.6e-4) == "the values agree to 2.6 × 10⁻⁴ (relative)"
    assert "differ by up to 0.034" in page.b_star_verdict(False, 0.034)


def test_figures_draw():
    import matplotlib.pyplot as plt

    cfg = settings.DEFAULT
    mc = pd.DataFrame([{"space": "circle", "delta": 0.0, "eps": b / 2, "n": m, "task": t,
                        "mc": 0.5} for b in cfg.b_mc for m in cfg.n_mc
                       for t in ("similarity", "identification")])
    N = np.arange(2, 60)
    ps_n = theory.n_item(cfg.b_small, N)[0]
    fig = page.fig_collapse(mc, ps_n, np.array([3, 20]), N)
    plt.close(fig)
    ns = np.arange(2, 21)
    bs = np.array([theory.n_item_optimum(m) for m in ns])
    ps, pi = theory.n_item(bs, ns)
    check = pd.DataFrame({"n": [2, 10], "paper": [0.5, 0.137]})
    fig = page.fig_optimum(ns, bs, 1.5, check, ps, pi)
    assert len(fig.axes) == 2
    plt.close(fig)


def test_the_b_star_verdict_quotes_only_the_deviation_it_cites():
    from semres.experiments.many_items import verdicts
    from semres.report.numbers import unquoted

    here, paper = np.array([0.3771, 0.01492]), np.array([0.377, 0.0149])
    agrees, deviation = verdicts.b_star_agrees(here, paper)
    for ok, dev in ((agrees, deviation), (False, 0.034), (True, 2.6e-4)):
        assert unquoted(page.b_star_verdict(ok, dev), {"deviation": dev}) == []
    # the check can fail: a sentence cited with another row's deviation is caught
    assert unquoted(page.b_star_verdict(False, 0.034), {"deviation": 0.0015}) == ["0.034"]
