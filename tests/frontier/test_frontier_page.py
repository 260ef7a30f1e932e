"""semres.experiments.frontier.page: the sentences chapter 7 glues follow the verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semres.experiments.frontier import page, page_floor_n, settings, verdicts
from semres.experiments.frontier import ties as discrete
from semres.report import Z_MAX
from semres.report.numbers import unquoted


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
                                               "it, at pᵢ = 0.8")
    glue = page.slot_glue(_slots(0.0, 9.0), _equal([0.5, -2.5]), best)
    assert glue["slot_max_verdict"].startswith("has points significantly above")
    assert glue["slot_mean_verdict"] == "does not lie significantly above the front"
    assert glue["slot_mean_equal_verdict"] == ("is not above the front at any of these levels "
                                               "and below it at pᵢ = 0.9")


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
    for name in ("exp_verdict", "peak_plateau"):
        assert not unquoted(glue[name], glue["cites"][name]), name


def _bracket(n=4, delta=0.05, rows=2, point_gain=0.01, certified=(False, False)):
    return pd.DataFrame({"n": [n] * rows, "delta": [delta] * rows, "target": [0.4, 0.6][:rows],
                         "p_i": [0.4, 0.6][:rows], "p_s": [0.5, 0.45][:rows],
                         "constant_p_s": [0.49, 0.44][:rows], "gain": [point_gain] * rows,
                         "upper_bound": [0.6, 0.5][:rows], "gap": [0.1, 0.05][:rows],
                         "kkt": [1e-8] * rows, "spread": [0.0] * rows, "grid": [40] * rows,
                         "proposition_bound": [0.6, 0.5][:rows],
                         "bb_bound": [np.nan, 0.5][:rows], "nodes": [0, 30][:rows],
                         "rank": [0, 9][:rows],
                         "certified": list(certified)[:rows]})


def test_frontier_csv_marks_the_certified_points():
    two = pd.DataFrame({"n": [2, 2], "delta": [0.05, 0.05], "method": ["certified",
                                                                      "local optimiser"],
                        "point": ["target", "target"], "K": [400, 8], "p_i": [0.8, 0.8],
                        "p_s": [0.7, 0.69], "upper_bound": [0.70001, 0.70001],
                        "step_front_p_s": [0.68, 0.68]})
    table = page_floor_n.frontier_csv(two, _bracket(certified=(False, True)), _bracket(rows=1))
    assert list(table.columns) == page_floor_n.COLUMNS
    assert table.certified.tolist() == [True, False, False, True, False]
    assert table.method[2:].tolist() == ["best found, bracketed (n items)",
                                         "certified by branch-and-bound (n items)",
                                         "best found, bracketed (n items)"]
    assert table.point[2:].tolist() == ["target", "target", "largest gain"]
    assert table.gap[0] == pytest.approx(1e-5) and table.K[2] == 40
    assert table.kkt[:2].isna().all() and table.step_front_p_s[2] == 0.49
    assert table.nodes.tolist() == [0, 0, 0, 30, 0] and table.bb_bound[:3].isna().all()


def test_the_beats_sentence_names_what_does_not_hold_and_cites_it():
    peaks = pd.concat([_bracket(4, 0.05, 1), _bracket(8, 0.2, 1)], ignore_index=True)
    text, cites = page_floor_n.beats_sentence(peaks, ["holds", "holds"])
    assert text == "at all 2 pairs of n and Δ" and not unquoted(text, cites)
    text, cites = page_floor_n.beats_sentence(peaks, ["holds", "inconclusive"])
    assert text.startswith("at 1 of the 2 pairs") and "inconclusive at n = 8, Δ = 0.2" in text
    assert not unquoted(text, cites)


def test_the_certified_sentence_names_each_pair_and_cites_its_numbers():
    peaks = pd.concat([_bracket(4, 0.2, 1, certified=(True,)),
                       _bracket(8, 0.01, 1), _bracket(8, 0.05, 1)], ignore_index=True)
    peaks.loc[1, "gap"], peaks.loc[2, "gap"] = 0.0123, 0.2346
    text, cites = page_floor_n.certified_sentence(peaks)
    assert text.startswith("Branch-and-bound certifies the largest gain at n = 4, Δ = 0.2")
    assert ("the others (n = 8, Δ = 0.01; n = 8, Δ = 0.05) its proven bound lies 0.012 to "
            "0.235") in text
    assert not unquoted(text, cites)
    text, cites = page_floor_n.certified_sentence(peaks.assign(certified=False))
    assert text.startswith("Branch-and-bound certifies none") and not unquoted(text, cites)
    text, _ = page_floor_n.certified_sentence(peaks.assign(certified=True))
    assert text.endswith(": all 3 pairs")


def test_the_floor_glue_reads_the_optimiser_the_certificates_and_the_scaling():
    front = pd.concat([_bracket(4, 0.05, certified=(False, True)), _bracket(8, 0.05)],
                      ignore_index=True)
    peaks = pd.concat([_bracket(4, 0.05, 1, 0.02), _bracket(8, 0.05, 1, 0.03)],
                      ignore_index=True)
    mc = pd.DataFrame({"z_s": [0.5, -2.5], "z_i": [1.0, 0.0]})
    search = pd.DataFrame({"excess_ratio": [0.2, np.nan, 0.7]})
    scale = pd.DataFrame({"n": [2, 8, 64, 2], "delta": [0.05, 0.05, 0.05, 0.2],
                          "constant_over_ceiling": [0.9, 0.8, 0.95, 0.5]})
    glue = page_floor_n.floor_n_glue(settings.QUICK, front, peaks, mc, search, scale,
                                     [1e-12, -3e-12], 2e-5)
    assert glue["fn_gain_8"] == 0.03 and glue["fn_gain_delta_4"] == 0.05
    assert glue["fn_n_big"] == 64 and glue["fn_const_share_big"] == 0.95
    assert glue["fn_const_share_8"] == 0.8 and "fn_const_share_4" not in glue
    assert glue["fn_mc_maxz"] == 2.5 and glue["fn_excess_max"] == 0.7
    assert glue["fn_two_item_max"] == 3e-12 and glue["fn_random"] == 3
    assert glue["fn_grid"] == 40 and glue["fn_scale_delta"] == 0.05
    assert glue["fn_half_grid"] == 20 and glue["fn_grid_shift"] == 2e-5
    assert glue["fn_tried"] == 2 and glue["fn_certified"] == 1
    assert glue["fn_tol"] == verdicts.CERTIFY_TOL and glue["fn_nodes"] == settings.QUICK.floor_nodes
    twice = page_floor_n.floor_n_glue(settings.QUICK.replace(floor_ranks=(9, 10)), front, peaks,
                                      mc, search, scale, [1e-12, -3e-12], 2e-5)
    assert twice["fn_nodes"] == 2 * settings.QUICK.floor_nodes  # a budget at each rank


def test_every_sentence_cites_the_numbers_it_quotes():
    slots = _slots(8.0, -3.0)
    glue = page.slot_glue(slots, _equal([3.0, -2.5]), slots.set_index(["K", "combine"]))
    for name in ("slot_max_verdict", "slot_equal_text", "slot_mean_equal_verdict"):
        assert not unquoted(glue[name], glue["cites"][name]), name
    assert not unquoted(page.ran_lines(settings.PAPER, "paper", 12),
                        page.ran_cites(settings.PAPER, 12))


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
    assert ("best similarity: 4 identification targets; two items certified on 400 levels, "
            "local optimiser with K doubling up to 8; n in [4, 8] on 40 levels, 0 random starts, "
            "600 random similarities; branch-and-bound at the largest gains and 1 target per n "
            "and floor, at most 150 linear programs each (a quarter of them, or 120, where the "
            "gap then still exceeds 0.05)") in text
    assert "ties: cycles of [8, 16, 32, 64, 128] points, tori of side [4, 6, 8, 10]" in text


def test_the_lead_counts_the_findings_and_the_certified_gains_and_cites_them():
    rows = [{"result": "a floor forces a tradeoff for any number of items (new)",
             "status": "check"},
            {"result": "best similarity beats the constant kernel, n = 4", "status": "holds"},
            {"result": "best similarity beats the constant kernel, n = 8", "status": "inconclusive"}]
    peaks = pd.DataFrame({"certified": [True, False, True]})
    text, cites = page.lead(rows, peaks)
    assert "(proved and checked)" in text and "beaten in 1 of 2 cases" in text
    assert text.endswith("certifies the best similarity at 2 of the 3 largest gains.")
    assert not unquoted(text.split("$")[0] + text.split("$")[-1], cites)
