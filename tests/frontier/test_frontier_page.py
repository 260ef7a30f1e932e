"""semres.experiments.frontier.page: the sentences chapter 7 glues follow the verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from semres.experiments.frontier import page, settings, steps
from semres.experiments.frontier import ties as discrete
from semres.report import Z_MAX


def _equal(mean_z):
    rows = []
    for p, z in zip((0.8, 0.9), mean_z):
        for comb in ("max", "product", "mean"):
            rows.append({"p_i": p, "combine": comb, "p_s": 0.7, "se_s": 0.001, "front": 0.7,
                         "sorted_bound": 0.8, "above_z": z if comb == "mean" else -1.0,
                         "bound_z": -10.0})
    return pd.DataFrame(rows)


def _slots(mean_above_z, max_above_z):
    rows = []
    for K, comb, z in ((1, "single", 0.0), (4, "max", max_above_z), (4, "product", 0.0),
                       (4, "mean", mean_above_z)):
        rows.append({"K": K, "combine": comb, "scale": 0.1, "p_i": 0.9, "p_s": 0.7,
                     "se_i": 0.001, "se_s": 0.001, "above": z * 0.001, "above_z": z})
    return pd.DataFrame(rows)


def test_slot_sentences_follow_the_intervals():
    slots = _slots(8.0, -3.0)
    best = slots.set_index(["K", "combine"])
    glue = page.slot_glue(slots, _equal([3.0, 0.5]), best)
    assert glue["slot_max_verdict"].startswith("lies on or below")
    assert glue["slot_mean_verdict"].startswith("lies significantly above")
    assert glue["slot_mean_equal_verdict"] == ("lies above the front, its 95% interval clear of "
                                               "it, at $p_I$ = 0.8")
    glue = page.slot_glue(_slots(0.0, 9.0), _equal([0.5, -2.5]), best)
    assert glue["slot_max_verdict"].startswith("has points significantly above")
    assert glue["slot_mean_verdict"] == "does not lie significantly above the front"
    assert glue["slot_mean_equal_verdict"] == ("is not above the front at any of these levels "
                                               "and below it at $p_I$ = 0.9")


def test_best_sentences_read_the_gains_and_the_engine():
    peaks = pd.DataFrame({"delta": [0.01, 0.05], "p_i": [0.8, 0.85], "p_s": [0.75, 0.7],
                          "gain": [0.02, 0.01], "gap": [1e-6, 3e-5], "upper_bound": [0.75, 0.7],
                          "masses": [np.array([0.0, 1.0])] * 2})
    mc = pd.DataFrame({"excess_z": [Z_MAX + 1, Z_MAX - 1], "z_s": [0.1, 0.2],
                       "z_i": [-0.3, 0.0]})
    best2 = peaks.set_index("delta").assign(cap=[0.03, 0.02])
    shapes_ = pd.DataFrame({"delta": [0.01, 0.05], "p_i": [0.8, 0.85], "plateau": [0.0, 0.0],
                            "below_one": [0.9, 0.8], "density_ratio": [1.5, 2.0]})
    glue = page.best_glue(best2, peaks, peaks, peaks, shapes_, pd.Series([1e-4]), mc)
    assert glue["best_verdict"].startswith("The constant kernel is close")  # one z too small
    assert glue["gain_trend"] == "shrinks as the floor rises"
    assert glue["exp_verdict"].startswith("not exponential")
    assert glue["peak_plateau"].startswith("has no plateau")
    assert glue["gain_01"] == 0.02 and glue["cap_05"] == 0.02 and glue["below_one_05"] == 0.8


def test_many_items_sentences_read_the_last_doubling():
    opt = pd.DataFrame({"n": [4] * 4, "delta": [0.1] * 4, "target": [0.5, 0.6, 0.5, 0.6],
                        "K": [2, 2, 4, 4], "p_s": [0.5, 0.6, 0.52, 0.6 + 5e-5],
                        "gain": [0.0, 0.0, 0.02, 5e-5], "p_i": [0.5, 0.6, 0.5, 0.6]})
    last, summary = steps.convergence(opt)
    glue = page.many_glue(pd.concat([summary, summary.rename(index={4: 2})]), last, [4])
    assert glue["many_conv_verdict"].startswith("so they have not converged")
    assert glue["many_gain_text"] == "0.0200 for n = 4"


def test_tie_sentences_say_whether_the_height_vanishes():
    ties = discrete.ties_table(discrete.tie_spaces([8, 16, 32], [4, 6, 8]))
    rates = discrete.tie_rates(ties)
    glue = page.tie_glue(ties, rates, pd.DataFrame({"z": [0.5, -1.5]}))
    assert glue["tie_verdict"].startswith("vanishes") and glue["tie_maxz"] == 1.5
    flat = {name: 0.0 for name in rates}
    assert page.tie_glue(ties, flat, pd.DataFrame({"z": [0.0]}))["tie_verdict"].startswith(
        "does not")


def test_what_ran_lists_the_profiles_sizes():
    text = page.ran_lines(settings.QUICK, "quick", 3)
    assert "* profile **quick**, seed 3" in text
    assert "frontier: n in [2, 4], K doubling up to 8 (n = 2) and 8 (n > 2)" in text
    assert "ties: cycles of [8, 16, 32, 64, 128] points, tori of side [4, 6, 8, 10]" in text
