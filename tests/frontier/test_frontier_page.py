"""semres.experiments.frontier.page: the sentences chapter 7 glues follow the verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semres.experiments.frontier import page, page_floor_n, settings, verdicts
from semres.experiments.frontier import ties as discrete
from semres.report import Report, Z_MAX
from semres.report.numbers import unquoted


def _equal(mean_above, se=0.001):
    """The codes at p_I = 0.8 and 0.9 (front 0.7), the mean code ``mean_above`` above it."""
    rows = []
    for p, up in zip((0.8, 0.9), mean_above):
        for comb in ("max", "product", "mean"):
            p_s = 0.7 + up if comb == "mean" else 0.69
            rows.append({"p_i": p, "combine": comb, "p_s": p_s, "se_s": se, "front": 0.7,
                         "sorted_bound": 0.8, "above_z": (p_s - 0.7) / se, "bound_z": -10.0})
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
    glue = page.slot_glue(slots, _equal([0.009, -0.0013]), best)
    assert glue["slot_max_verdict"].startswith("lies on or below")
    assert glue["slot_mean_verdict"].startswith("lies significantly above")
    # 0.009 above: an escape beyond the margin; 0.0013 below (z = -1.3): on the front
    assert glue["slot_mean_equal_verdict"] == (
        "rises above the front by more than 0.005 at pᵢ = 0.8 (an escape: its 95% interval "
        "lies wholly beyond that margin) and lies on it within 0.005 at pᵢ = 0.9")
    glue = page.slot_glue(_slots(0.0, 9.0), _equal([0.004, -0.02]), best)
    assert glue["slot_max_verdict"].startswith("has points significantly above")
    assert glue["slot_mean_verdict"] == "does not lie significantly above the front"
    assert glue["slot_mean_equal_verdict"] == (
        "lies below the front by more than 0.005 at pᵢ = 0.9 and lies too near the margin "
        "(0.005 from the front) to tell at pᵢ = 0.8: it does not escape the front at any of "
        "these levels")


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
    text, cites = page_floor_n.beats_sentence([(4, 0.05, "holds"), (8, 0.2, "holds")])
    assert text == "by more than 0.005 at all 2 pairs of n and Δ" and not unquoted(text, cites)
    text, cites = page_floor_n.beats_sentence([(2, 0.01, "does not hold"), (4, 0.05, "holds"),
                                               (8, 0.2, "inconclusive")])
    assert text.startswith("by more than 0.005 at 1 of the 3 pairs")
    assert ("(not at n = 2, Δ = 0.01, where the most any similarity gains stays below that "
            "margin (the constant kernel is as good within it); not at n = 8, Δ = 0.2, where the "
            "gain found stays below the margin but the proven bound allows more") in text
    assert not unquoted(text, cites)
    text, cites = page_floor_n.beats_sentence([(2, 0.01, "does not hold"),
                                               (4, 0.2, "does not hold"), (8, 0.2, "holds")])
    assert "(not at n = 2, Δ = 0.01 or n = 4, Δ = 0.2, where" in text
    assert not unquoted(text, cites)


def test_the_section_adds_three_checks_and_one_finding_over_every_pair(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(Report, "_glue", lambda self, name, value, display=False: None)
    rep = Report("07_front_universality")
    front = pd.concat([_bracket(4, 0.05, certified=(False, True)), _bracket(8, 0.05)],
                      ignore_index=True)
    peaks = pd.concat([_bracket(4, 0.05, 1, 0.02), _bracket(8, 0.05, 1, 0.003)],
                      ignore_index=True)
    peaks["gap"] = peaks.upper_bound - peaks.p_s
    two = pd.DataFrame({"delta": [0.05], "p_i": [0.8], "p_s": [0.7], "gain": [0.01],
                        "gap": [1e-6], "upper_bound": [0.700001]})
    mc = pd.DataFrame({"n": [4, 8], "delta": [0.05, 0.05], "p_i_mc": [0.4, 0.4],
                       "p_s_mc": [0.5, 0.5], "se_i": [1e-3] * 2, "se_s": [1e-3] * 2,
                       "z_s": [0.5, -1.0], "z_i": [0.2, 2.0]})
    search = pd.DataFrame({"margin": [0.1], "over_ceiling": [-0.1], "excess_ratio": [0.3]})
    scale = pd.DataFrame({"n": [2, 8], "delta": [0.05, 0.05],
                          "constant_over_ceiling": [0.9, 0.8]})
    two_items = pd.DataFrame({"n": [2], "delta": [0.05], "method": ["certified"],
                              "point": ["target"], "K": [400], "p_i": [0.8], "p_s": [0.7],
                              "upper_bound": [0.700001], "step_front_p_s": [0.69]})
    monkeypatch.setattr(Report, "figure", lambda self, name, fig: None)
    monkeypatch.setattr(page_floor_n, "fig_floor_n", lambda *a, **k: None)
    pairs = page_floor_n.floor_n_section(rep, settings.QUICK, two_items, two, front, peaks, mc,
                                         search, scale, [0.0], two, 1e-4)
    findings = [r for r in rep.rows if r["kind"] == "finding"]
    assert [r["kind"] for r in rep.rows] == ["check"] * 3 + ["finding"]
    assert findings[0]["result"] == "best similarity beats the constant kernel (new)"
    # n = 8's gain of 0.003 is below the margin, its proven bound above: it decides
    assert findings[0]["status"] == "inconclusive" and findings[0]["cells"] == "2 of 3 hold"
    assert pairs == [(2, 0.05, "holds"), (4, 0.05, "holds"), (8, 0.05, "inconclusive")]


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
    glue = page.slot_glue(slots, _equal([0.009, -0.02]), slots.set_index(["K", "combine"]))
    for name in ("slot_max_verdict", "slot_equal_text", "slot_mean_equal_verdict"):
        assert not unquoted(glue[name], glue["cites"][name]), name
    assert not unquoted(page.ran_lines(settings.PAPER, "paper", 12),
                        page.ran_cites(settings.PAPER, 12))


def test_tie_sentences_say_whether_the_height_vanishes():
    ties = discrete.ties_table(discrete.tie_spaces([8, 16, 32], [4, 6, 8]))
    rates, slopes = discrete.tie_rates(ties), discrete.tie_slopes(ties)
    glue = page.tie_glue(ties, rates, slopes, pd.DataFrame({"z": [0.5, -1.5]}))
    assert glue["tie_verdict"].startswith("vanishes") and glue["tie_maxz"] == 1.5
    assert glue["tie_rate_torus"] == rates["torus"]
    shallow = {**slopes, "torus": (slopes["torus"][0], -0.2)}  # slower than N^-1/4 somewhere
    assert page.tie_glue(ties, rates, shallow, pd.DataFrame({"z": [0.0]}))[
        "tie_verdict"].startswith("does not")


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
            {"result": "best similarity beats the constant kernel (new)", "status": "inconclusive"}]
    peaks = pd.DataFrame({"certified": [True, False, True]})
    text, cites = page.lead(rows, peaks, [(4, 0.05, "holds"), (8, 0.2, "inconclusive")])
    assert "(proved and checked)" in text
    assert "beaten by more than 0.005 in 1 of 2 cases of items and floor (one finding)" in text
    assert text.endswith("certifies the best similarity at 2 of the 3 largest gains.")
    assert not unquoted(text.split("$")[0] + text.split("$")[-1], cites)
