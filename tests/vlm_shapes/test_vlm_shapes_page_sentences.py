"""Chapter 6's sentences: chapter 7's front, the stencils' biases, the layouts, the closing
lists of misfits and censored fits, what ran and how the build differs from the paper."""

import numpy as np
import pandas as pd

from semres.experiments.vlm_shapes import page, settings
from semres.report.numbers import unquoted
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


# ------------------------------------------------ every sentence quotes only what it cites

def _radius_fits(eps_s=0.2, eps_i=0.3, misfit=False):
    """Theorem 3's radius fitted to rates drawn from a known curve per n, for each task."""
    from semres.experiments.vlm_shapes import nsweep

    grid = np.linspace(0.0, 0.6, 61)
    ns = [2, 4, 8, 12]
    curves = {n: 1 / n + (1 - 1 / n) * np.exp(-3 * grid * n / 4) for n in ns}
    out = {}
    for task, eps in (("similarity", eps_s), ("identification", eps_i)):
        p = np.array([np.interp(eps, grid, curves[n]) for n in ns])
        if misfit and task == "identification":
            p = p[::-1]
        out[task] = nsweep.ball_fit(ns, p, np.full(4, 0.01), curves, grid)
    return out


def _scale_fit(misfit=False, bounded=True):
    return {"scale": 0.19, "profile_ci": (0.15, 0.24) if bounded else (0.001, 0.24),
            "profile_bounded": bounded, "scale_no_floor": 0.21, "scale_ci": (0.16, 0.23),
            "misfit": misfit, "gof_test": "multinomial deviance, parametric bootstrap (99 "
            "refits; 109 of 144 cells expect fewer than 5 answers)", "gof_stat": 148.1,
            "gof_df": 104.0, "gof_p": 0.01 if misfit else 0.43, "gof_resolution": 0.01}


def test_every_sentence_quotes_only_the_numbers_it_cites():
    """Each sentence builder's text, from synthetic fits in each of its branches, quotes only
    numbers of what it is glued with (:func:`semres.report.numbers.unquoted`)."""
    from semres.report.numbers import unquoted

    said = []
    for fitted in (_radius_fits(), _radius_fits(0.25, 0.25), _radius_fits(misfit=True),
                   {"similarity": _radius_fits()["similarity"]}):
        text, _ = words.n_verdict("gemma-3-12b-it", fitted, "of the hue circle")
        if text:
            said.append((text, words.n_numbers("gemma-3-12b-it", fitted)))
        text, _ = words.two_task_verdict("m", fitted, None, None, 900.0, "px")
        if text:
            said.append((text, words.two_task_numbers("m", fitted, 900.0)))
        said.append((words.radius_text("similarity", fitted["similarity"], 900.0),
                     words.radius_numbers(fitted["similarity"], 900.0)))
    for f, resolution in ((_scale_fit(), 0.1), (_scale_fit(), 1 / 6),
                          (_scale_fit(misfit=True), 0.1), (_scale_fit(bounded=False), 0.1)):
        a = {"label": "Qwen2.5-VL-7B-Instruct", "fit": f, "px": 900.0,
             "resolution": resolution, "design_hi": 1.2}
        said.append((words.choices_verdict(a)[0], words.choices_numbers(a)))
    est = {"least squares": (0.1, 0.3), "ML": (0.12, 0.25)}
    said.append((words.estimators_text(est, True, 96.0), words.estimators_numbers(est, 96.0)))
    nc = {"misfit": True, "name_weights": np.array([0.4, 0.2, 0.2, 0.2]),
          "place_weights": np.array([0.3, 0.25, 0.25, 0.2]),
          "name_weights_ci": np.array([[0.35, 0.45]] + [[0.15, 0.3]] * 3),
          "place_weights_ci": np.array([[0.26, 0.34]] * 4), "advantage": 2.04,
          "advantage_ci": (1.5, 2.5), "gof_p": 0.0099, "gof_resolution": 0.0099}
    said.append((words.stencil_verdict("m", nc, 100), words.stencil_numbers("m", nc, 100)))
    rows = [{"model": "gemma-3-12b-it", "experiment": exp, "bin_lo": lo, "correct": c,
             "answered": 100} for exp, cs in (("spatial_far", (90, 50)),
                                              ("random_stencil", (40, 50)))
            for lo, c in zip((0.0, 0.05), cs)]
    said.append((" ".join(words.layout_carryover(pd.DataFrame(rows))),
                 words.layout_numbers(pd.DataFrame(rows))))
    sweep = pd.DataFrame({"task": ["similarity"] * 2 + ["identification"] * 2, "n": [2, 4] * 2,
                          "p": [0.9, 0.5, 0.8, 0.45], "se": [0.01] * 4,
                          "p_kernel": [0.85, 0.5, 0.8, 0.4]})
    ball = _radius_fits()
    graded = {"similarity": {"lam": 0.1, "gof_stat": 1.1, "gof_df": 3.0, "gof_p": 0.78,
                             "misfit": False}}
    glue, cites = (words.sweep_glue(sweep, ball, graded, 96.0),
                   words.sweep_numbers(sweep, ball, graded, 96.0))
    said += [(glue[k], cites[k]) for k in cites]
    lone = pd.DataFrame({"p": [0.9], "se": [0.01]}, index=[3])
    said.append((words.frontier_text(lone, lone), words.frontier_numbers(lone, lone)))
    table = page.fit_table([
        {"model": "gemma-3-12b-it", "kernel": "exponential (ML)", "at_bound": 1,
         "bound_params": "floor=0 (LR 0.097)", "misfit": True, "gof_test": "deviance (4 refits)",
         "gof_stat": 717.0, "gof_df": 107.0}])
    glue, cites = words.fit_glue(table), words.fit_numbers(table)
    said += [(glue[k], cites[k]) for k in glue]
    findings = [("scale", {"label": "m", "fit": _scale_fit(), "px": 900.0, "resolution": 0.1,
                           "design_hi": 1.0}),
                ("radii", "m", {"fitted": _radius_fits()}, None, "of the hue circle"),
                ("grid", "m", {"scale_px": 171.2, "ci_low_px": 150.3, "ci_high_px": 190.8},
                 {"scale": 0.2, "scale_ci": (0.17, 0.22)})]
    said.append((" ".join(words.files_verdicts(findings)), words.files_numbers(findings)))
    cfg = settings.SETTINGS.profiles["quick"]
    lines = words.ran_lines(cfg, "quick", 3, "org/model-7b", "cuda:0", ["spatial_grid"],
                            ["a.csv"], pd.DataFrame({"model": ["gemma-3-12b-it"] * 5}))
    said.append(("\n".join(lines), words.ran_numbers(cfg, 3, "org/model-7b", "cuda:0",
                                                     ["a.csv"],
                                                     pd.DataFrame({"model": ["gemma-3-12b-it"]
                                                                   * 5}))))
    for text, cited in said:
        assert unquoted(text, cited) == [], text
    # the check can fail: a sentence cited without its row's numbers is caught
    text, cited = said[0]
    assert unquoted(text, {k: v for k, v in cited.items() if not k.startswith("0.")})


def test_the_paper_models_summary_counts_the_fits_that_describe_their_counts():
    size = {"dispersion": 1.4, "explained_null": 0.68, "explained_saturated": 0.87,
            "rms_gap": 0.05, "rms_sampling": 0.04}
    fit = lambda misfit, share=0.87: {"fit": {"misfit": misfit, **size,  # noqa: E731
                                              "explained_saturated": share}}
    assert words.paper_models_summary({}) == ("", {})
    text, numbers = words.paper_models_summary({"q": fit(True, 0.87), "g": fit(True, 0.93)})
    assert "describes none of the paper's 2 models exactly: 2 fail" in text
    # a misfit is not a failure: the sentence says how much of the structure the rule captures
    assert "their spatial scales are approximate" in text and "87% or more" in text
    assert numbers == {"described": 0, "models": 2, "misfits": 2, "share": 0.87}
    assert unquoted(text, numbers) == []  # the sentence quotes only what it cites
    text, numbers = words.paper_models_summary({"q": fit(True), "g": fit(False)})
    assert "describes 1 of the paper's 2 models exactly: 1 fails" in text
    assert "its spatial scale is approximate" in text and "87% of the structure" in text
    text, numbers = words.paper_models_summary({"q": fit(False), "g": fit(None)})
    assert text.endswith("describes 2 of the paper's 2 models exactly.")
    assert numbers["misfits"] == 0
