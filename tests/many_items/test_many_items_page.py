"""semres.experiments.many_items.page: chapter 2's sentences and figures."""

import matplotlib
import numpy as np
import pandas as pd

from semres.core import theory
from semres.experiments.many_items import page, settings

matplotlib.use("Agg")


def test_b_star_verdict_never_shows_e_notation():
    # prose never shows e-notation
    text = page.b_star_verdict(True, 10, 2.07e-4, 5e-4)
    assert "e-" not in text and "2.1 × 10⁻⁴" in text and "n = 10" in text
    assert text.startswith("every value lies within the paper's rounding")
    text = page.b_star_verdict(False, 100, -3e-4, 5e-5)
    assert text.startswith("the value at n = 100 misses") and "3.0 × 10⁻⁴" in text


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


def test_the_b_star_verdict_quotes_only_the_numbers_it_cites():
    from semres.experiments.many_items import verdicts
    from semres.report.numbers import unquoted

    paper = settings.DEFAULT.paper_b_star
    check = pd.DataFrame({"n": list(paper), "paper": list(paper.values()),
                          "here": [theory.n_item_optimum(n) for n in paper]})
    ok, worst = verdicts.b_star_agrees(check)
    n, gap = int(worst["cell"].removeprefix("n = ")), worst["headline"] - worst["paper_value"]
    cites = {"n": n, "gap": abs(gap), "margin": worst["margin"]}
    for agrees in (ok, not ok):
        assert unquoted(page.b_star_verdict(agrees, n, gap, worst["margin"]), cites) == []
    # the check can fail: a sentence cited with another row's gap is caught
    assert unquoted(page.b_star_verdict(False, 100, 0.034, 5e-5),
                    {"n": 100, "gap": 0.0015, "margin": 5e-5}) == ["0.034"]


def test_the_lead_says_how_far_theorem_3_reaches_only_when_it_held():
    from semres.report.numbers import unquoted

    mc = pd.DataFrame({"n": [2, 20], "z": [0.4, -2.6]})
    rows = [{"result": "Theorem 3", "status": "reproduced", "margin": 0.005,
             "ci_low": -0.001, "ci_high": 0.0038},
            {"result": "non-monotonic p_S^n", "status": "reproduced"}]
    text = page.lead(rows, mc, 5, 0.3695, 0.05)
    assert text.startswith("Theorem 3 holds for up to 20 items") and "0.0038" in text
    assert "lowest at $n$ = 5, 0.369 (reproduced" in text
    cites = {"n_max": 20, "n_min": 5, "cells": 2, "p_min": 0.3695, "b_small": 0.05,
             "reach": 0.0038, "margin": 0.005}
    assert unquoted(text, cites) == []
    rows[0]["status"] = "inconclusive"
    text = page.lead(rows, mc, 5, 0.3695, 0.05)
    assert text.startswith("Theorem 3 is inconclusive in this build") and "2.6 standard" in text
