"""Chapter 6's analysis (semres.experiments.vlm_shapes.spatial) and its design
(semres.experiments.vlm_shapes.vlm, semres.experiments.vlm_shapes.scenes): the verdict
sentences and overview rows the chapter reports, the tables it writes, the canvas geometry."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from semres import report
from semres.core import theory
from semres.experiments.vlm_shapes import scenes, spatial, vlm


def _fit(lo=0.1, hi=0.2, misfit=False, scale=0.15):
    return {"profile_ci": (lo, hi), "profile_bounded": True, "misfit": misfit,
            "gof_p": 1e-9 if misfit else 0.4, "gof_test": "chi-square", "gof_stat": 3.0,
            "gof_df": 4.0, "scale": scale, "scale_ci": (lo, hi), "scale_no_floor": scale}


def test_a_scale_verdict_is_a_sentence_and_an_overview_row():
    text, row = spatial.scale_verdict("m", _fit(), 100, 0.05, 1.0, "the claim")
    assert text.startswith("m's spatial scale is identified: 15 px")
    assert row["passed"] and row["identified"] and row["headline"] == pytest.approx(15)
    assert report.status(**{k: v for k, v in row.items() if k not in
                            ("result", "statement", "stand_in")}) == "holds"  # beyond the paper
    text, row = spatial.scale_verdict("m", _fit(0.01, 0.2), 100, 0.05, 1.0, "the claim")
    assert "not identified" in text and row["headline"] is None and not row["identified"]
    assert "why not" in row["statement"]
    text, row = spatial.scale_verdict("m", _fit(misfit=True), 100, 0.05, 1.0, "the claim")
    assert vlm.MISFIT in text and row["misfit"] and row["statement"].startswith(vlm.MISFIT)
    assert spatial.scale_verdict("m", _fit(), 100, 0.05, 1.0)[1] is None  # no claim, no row


def test_the_estimators_agree_only_when_their_intervals_overlap():
    ci = np.array([[0.10, 0.30], [0.20, 0.40]])
    agree, text = spatial.estimators(ci, {"ci_low_px": 15.0, "ci_high_px": 25.0},
                                     {"scale_ci": (0.12, 0.18)}, 100)
    assert agree and text.endswith("their intervals overlap.")
    agree, text = spatial.estimators(ci, {"ci_low_px": 25.0, "ci_high_px": 35.0},
                                     {"scale_ci": (0.12, 0.18)}, 100)
    assert not agree and text.endswith("do not overlap.")


def test_two_task_rows_compare_the_radii_against_equal():
    assert spatial.two_task_verdict("m", {"similarity": {}}, "r", "s") == (None, None)
    misfit = {"misfit": True, "identified": False}
    text, row = spatial.two_task_verdict("m", {"similarity": misfit,
                                               "identification": misfit}, "r", "s")
    assert "does not describe" in text and row["misfit"] and row["tolerance"] == 0.0
    assert row["statement"].startswith(vlm.MISFIT)
    text, row = spatial.two_task_verdict("m", {"similarity": misfit,
                                               "identification": misfit}, None, None)
    assert text and row is None


def test_the_frontier_sentence_places_n_2_against_chapter_7s_front():
    sim = pd.DataFrame({"p": [0.9], "se": [0.01]}, index=[2])
    ide = pd.DataFrame({"p": [0.8], "se": [0.01]}, index=[2])
    assert " above " in spatial.frontier_text(sim, ide)  # front(0.8) = 0.82
    assert " below " in spatial.frontier_text(sim.assign(p=[0.7]), ide)
    assert spatial.frontier_text(sim, ide.assign(p=[0.4])).startswith("The sweep has no")
    assert spatial.frontier_text(sim.rename(index={2: 3}), ide.rename(index={2: 3})).startswith(
        "The sweep has no")


def test_stencil_verdicts_name_the_main_bias():
    nc = {"misfit": False, "name_weights": np.array([0.4, 0.2, 0.2, 0.2]),
          "place_weights": np.array([0.26, 0.25, 0.25, 0.24]),
          "name_weights_ci": np.array([[0.35, 0.45]] + [[0.15, 0.3]] * 3),
          "place_weights_ci": np.array([[0.2, 0.3]] * 4), "advantage": 2.0,
          "advantage_ci": (1.5, 2.5), "gof_p": 0.5, "gof_resolution": 0.01}
    text = spatial.stencil_verdict("m", nc, 99)
    assert "mainly a bias for a name" in text and "present too" not in text
    assert "highest “square”" in text and "no simulated deviance" not in text
    nc["place_weights_ci"][0] = (0.26, 0.3)
    nc["gof_p"] = 0.01
    text = spatial.stencil_verdict("m", nc, 99)
    assert "a place bias is present too" in text and "no simulated deviance" in text


def test_layout_carryover_tests_accuracy_by_margin_bin():
    rows = []
    for exp, correct in (("spatial_far", (90, 50)), ("random_stencil", (40, 50))):
        for lo, c in zip((0.0, 0.05), correct):
            rows.append({"model": "m", "experiment": exp, "bin_lo": lo, "correct": c,
                         "answered": 100})
    (text,) = spatial.layout_carryover(pd.DataFrame(rows))
    assert "which differs between the two layouts" in text
    same = pd.DataFrame(rows).assign(correct=50)
    assert "does not differ detectably" in spatial.layout_carryover(same)[0]


def test_margin_counts_bin_the_trials():
    rows = spatial.margin_counts("m", "s", "similarity", 4, [0.01, 0.04, 0.06, 0.2],
                                 [1, 0, 1, 1], 0.05)
    assert [(r["bin"], r["trials"], r["correct"]) for r in rows] == [
        ("[0,0.05)", 2, 1), ("[0.05,0.1)", 1, 1), ("[0.2,0.25)", 1, 1)]


def test_the_closing_sentences_list_misfits_and_censored_fits():
    table = spatial.fit_table([
        {"model": "a", "kernel": "k", "at_bound": 0, "bound_params": "", "misfit": None,
         "gof_test": "t", "gof_stat": 1.0, "gof_df": 2.0},
        {"model": "b", "kernel": "k", "at_bound": 1, "bound_params": "scale=hi",
         "misfit": True, "gof_test": "t", "gof_stat": 9.0, "gof_df": 2.0}])
    assert table.misfit.isna()[0] and table.at_bound.tolist() == [False, True]
    glue = spatial.fit_glue(table)
    assert "b, k (t 9.0 on 2 df)" in glue["misfits"] and "b, k (scale=hi)" in glue["censored"]
    glue = spatial.fit_glue(table.iloc[:1])
    assert glue["misfits"].startswith("Every fit") and glue["censored"].startswith("No fit")
    assert spatial.files_text([], False).startswith("No results files")
    assert spatial.files_text([], True).startswith("The results files hold too few")
    assert spatial.files_text(["a.", "b."], True) == "a. b."


def test_the_canvas_ball_is_a_clipped_disc():
    inside = scenes.canvas_ball(np.array([[0.5, 0.5]]), 0.2)
    corner = scenes.canvas_ball(np.array([[0.0, 0.0]]), 0.2)
    assert inside[0] == pytest.approx(np.pi * 0.04, rel=1e-4)
    assert corner[0] == pytest.approx(np.pi * 0.04 / 4, rel=1e-3)
    rng = np.random.default_rng(0)
    x = scenes.Canvas().sample(rng, 5)
    assert x.shape == (5, 2) and scenes.Canvas().distance(x, x).max() == 0


def test_hue_curves_are_theorem_3_on_the_circle():
    curves = spatial.hue_curves([2, 4])
    b = np.minimum(2 * vlm.EPS_GRID, 1.0)
    np.testing.assert_allclose(curves["similarity", 4], theory.n_item(b, 4)[0])
    np.testing.assert_allclose(curves["identification", 2], theory.n_item(b, 2)[1])


def test_the_models_design_helpers(tmp_path):
    assert vlm.heads_for(64) == 4 and vlm.heads_for(30) == 2
    assert all(np.isnan(v) for v in vlm.training_summary(None).values())
    (tmp_path / "training.json").write_text(json.dumps(
        {"losses": list(range(20)), "vision_losses": [5.0] * 3}))
    s = vlm.training_summary(tmp_path)
    assert s["loss_first"] == 0.5 and s["loss_last"] == 18.5 and s["vloss_last"] == 5.0

    class Proc:  # the patch size where transformers keeps it, or in a dict
        patch_size = None
        image_processor = type("IP", (), {"patch_size": {"height": 14, "width": 14}})()
    assert vlm.patch_px(Proc()) == 14.0
    assert vlm.patch_px(object()) == 1.0
    s = scenes.map_scenes(4)[:2]
    probs = [np.eye(4)[x.target] * 0.7 + 0.075 for x in s]
    assert vlm.p_correct(probs, s).tolist() == pytest.approx([0.775, 0.775])
    lines = vlm.ran_lines(vlm.SETTINGS.profiles["quick"], "quick", 0, None, "cpu", [], [], None)
    assert lines[0] == "profile **quick**, seed 0" and "no shipped tables" in lines[4]
    model_lines, protocol = vlm.deviation_notes(vlm.SETTINGS.profiles["quick"], "m", 448, [])
    assert "`m`" in model_lines[0] and protocol[-1] == ""
