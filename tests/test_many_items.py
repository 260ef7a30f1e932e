"""semres.experiments.front.many_items: chapter 2's decisions, the segment's heterogeneous form, its
figures."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

from semres.core import kernels, spaces, theory
from semres.experiments.front import many_items
from semres.core.simulate import luce_success

matplotlib.use("Agg")


def test_b_star_agrees_within_the_papers_rounding_only():
    ok, dev = many_items.b_star_agrees([0.5, 0.3771], [0.5, 0.377])
    assert ok and dev == pytest.approx(0.0001 / 0.377)
    ok, dev = many_items.b_star_agrees([0.5, 0.39], [0.5, 0.377])
    assert not ok and dev == pytest.approx(0.013 / 0.377)
    # prose never shows e-notation
    assert many_items.b_star_verdict(True, 2.6e-4) == "the values agree to 2.6 × 10⁻⁴ (relative)"
    assert "differ by up to 0.034" in many_items.b_star_verdict(False, 0.034)


def test_minimum_matches_needs_the_papers_n_and_value():
    n, value = many_items.PAPER_MIN
    assert many_items.minimum_matches(n, value + 4e-4)
    assert not many_items.minimum_matches(n, value + 6e-4)
    assert not many_items.minimum_matches(n + 1, value)
    # this build's own numbers: Theorem 3 at b = 0.05 has its minimum at the paper's n
    ns = np.arange(2, 40)
    ps = theory.n_item(many_items.B_SMALL, ns)[0]
    assert many_items.minimum_matches(int(ns[ps.argmin()]), ps.min())


def test_segment_form_is_the_average_and_matches_the_engine():
    eps, n = many_items.EPS_SEGMENT, 3
    ps, pi = many_items.segment_n_item(eps, n)
    # at n = 2 the average is Theorem 1 with the segment's moments
    mean, var = spaces.Segment().ball_measure(eps)
    assert many_items.segment_n_item(eps, 2) == pytest.approx(
        theory.two_item(mean, var_b=var), abs=1e-10)
    for task, value in (("similarity", ps), ("identification", pi)):
        est = luce_success(spaces.Segment(), kernels.Constant(eps), task, n, 200_000, seed=1)
        assert abs(est.zscore(value)) < 5


def test_figures_draw():
    import matplotlib.pyplot as plt

    mc = pd.DataFrame([{"space": "circle", "delta": 0.0, "eps": b / 2, "n": m, "task": t,
                        "mc": 0.5} for b in many_items.B_MC for m in many_items.N_MC
                       for t in ("similarity", "identification")])
    N = np.arange(2, 60)
    ps_n = theory.n_item(many_items.B_SMALL, N)[0]
    fig = many_items.fig_collapse(mc, ps_n, np.array([3, 20]), N)
    plt.close(fig)
    ns = np.arange(2, 21)
    bs = np.array([theory.n_item_optimum(m) for m in ns])
    ps, pi = theory.n_item(bs, ns)
    check = pd.DataFrame({"n": [2, 10], "paper": [0.5, 0.137]})
    fig = many_items.fig_optimum(ns, bs, 1.5, check, ps, pi)
    assert len(fig.axes) == 2
    plt.close(fig)
