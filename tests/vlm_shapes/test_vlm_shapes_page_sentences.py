"""Chapter 6's sentences: chapter 7's front, the stencils' biases, the layouts, the closing
lists of misfits and censored fits, what ran and how the build differs from the paper."""

import numpy as np
import pandas as pd

from semres.experiments.vlm_shapes import page, settings
from semres.experiments.vlm_shapes import page_sentences as words


def test_the_frontier_sentence_places_n_2_against_chapter_7s_front():
    sim = pd.DataFrame({"p": [0.9], "se": [0.01]}, index=[2])
    ide = pd.DataFrame({"p": [0.8], "se": [0.01]}, index=[2])
    assert " above " in words.frontier_text(sim, ide)  # front(0.8) = 0.82
    assert " below " in words.frontier_text(sim.assign(p=[0.7]), ide)
    assert words.frontier_text(sim, ide.assign(p=[0.4])).startswith("The sweep has no")
    assert words.frontier_text(sim.rename(index={2: 3}), ide.rename(index={2: 3})).startswith(
        "The sweep has no")


def test_stencil_verdicts_name_the_main_bias():
    nc = {"misfit": False, "name_weights": np.array([0.4, 0.2, 0.2, 0.2]),
          "place_weights": np.array([0.26, 0.25, 0.25, 0.24]),
          "name_weights_ci": np.array([[0.35, 0.45]] + [[0.15, 0.3]] * 3),
          "place_weights_ci": np.array([[0.2, 0.3]] * 4), "advantage": 2.0,
          "advantage_ci": (1.5, 2.5), "gof_p": 0.5, "gof_resolution": 0.01}
    text = words.stencil_verdict("m", nc, 99)
    assert "mainly a bias for a name" in text and "present too" not in text
    assert "highest “square”" in text and "no simulated deviance" not in text
    nc["place_weights_ci"][0] = (0.26, 0.3)
    nc["gof_p"] = 0.01
    text = words.stencil_verdict("m", nc, 99)
    assert "a place bias is present too" in text and "no simulated deviance" in text


def test_layout_carryover_tests_accuracy_by_margin_bin():
    rows = []
    for exp, correct in (("spatial_far", (90, 50)), ("random_stencil", (40, 50))):
        for lo, c in zip((0.0, 0.05), correct):
            rows.append({"model": "m", "experiment": exp, "bin_lo": lo, "correct": c,
                         "answered": 100})
    (text,) = words.layout_carryover(pd.DataFrame(rows))
    assert "which differs between the two layouts" in text
    same = pd.DataFrame(rows).assign(correct=50)
    assert "does not differ detectably" in words.layout_carryover(same)[0]


def test_the_closing_sentences_list_misfits_and_censored_fits():
    table = page.fit_table([
        {"model": "a", "kernel": "k", "at_bound": 0, "bound_params": "", "misfit": None,
         "gof_test": "t", "gof_stat": 1.0, "gof_df": 2.0},
        {"model": "b", "kernel": "k", "at_bound": 1, "bound_params": "scale=hi",
         "misfit": True, "gof_test": "t", "gof_stat": 9.0, "gof_df": 2.0}])
    assert table.misfit.isna()[0] and table.at_bound.tolist() == [False, True]
    glue = words.fit_glue(table)
    assert "b, k (t 9.0 on 2 df)" in glue["misfits"] and "b, k (scale=hi)" in glue["censored"]
    glue = words.fit_glue(table.iloc[:1])
    assert glue["misfits"].startswith("Every fit") and glue["censored"].startswith("No fit")
    assert words.files_text([], False).startswith("No results files")
    assert words.files_text([], True).startswith("The results files hold too few")
    assert words.files_text(["a.", "b."], True) == "a. b."


def test_what_ran_and_the_deviations_are_lines():
    lines = words.ran_lines(settings.SETTINGS.profiles["quick"], "quick", 0, None, "cpu", [], [],
                            None)
    assert lines[0] == "profile **quick**, seed 0" and "no shipped tables" in lines[4]
    model_lines, protocol = words.deviation_notes(settings.SETTINGS.profiles["quick"], "m", 448,
                                                  [])
    assert "`m`" in model_lines[0] and protocol[-1] == ""
