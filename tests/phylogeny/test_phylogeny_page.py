"""Chapter 4's page: what α did in words, the sentences and points, and the figures."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from semres.experiments.phylogeny import (alpha_effects, page, page_figures, phylo, settings,
                                          verdicts)


def _runs(lifts, seeds=3, auc_drop=0.15):
    """Fake results of train_and_evaluate_many: α lifts the curve and the triplet accuracy and
    lowers the AUC by ``auc_drop`` per unit α (a trade), with a little noise per seed."""
    rng = np.random.default_rng(0)
    out = []
    for a, lift in lifts.items():
        for s in range(seeds):
            pi = np.linspace(0.55, 0.95, 6) - 0.1 * a + 0.002 * s
            curve = {"eps": np.arange(6.0), "p_s": 0.6 + lift + 0.01 * rng.random(6),
                     "p_s_all": 0.6 + lift, "p_i": pi, "p_s_ood": 0.55 + lift,
                     "p_s_theory": 0.7 + lift, "p_i_theory": pi, "mean_b": np.linspace(0, 1, 6),
                     "var_b": 0.0}
            summary = {"sim_accuracy": 0.6 + lift + 0.002 * s,
                       "id_auc": 0.9 - auc_drop * a + 0.002 * s,
                       "ood_sim_accuracy": 0.55 + lift}
            out.append({"alpha": a, "seed": s, "curve": curve, "summary": summary,
                        "history": [{"val_accuracy": 0.8 - 0.6 * (a == 1.0)}],
                        "train_seconds": 2.0, "trained_with": 1})
    return out


def _effects(results):
    tradeoff, by_alpha = alpha_effects.result_tables(results)
    lo, ce, one = alpha_effects.compared_alphas(by_alpha.alpha.unique())
    targets = {a: r for a, r in ((ce, "cross-entropy on"), (one, "cross-entropy off"))
               if a is not None}
    return tradeoff, by_alpha, alpha_effects.effects(by_alpha, tradeoff, lo, targets,
                                                     alpha_effects.METRICS)


def test_the_verdict_reads_a_detected_trade_and_says_nothing_on_one_seed():
    results = _runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1})
    _, by_alpha, effects = _effects(results)
    assert verdicts.traded(effects, 0.5) and verdicts.traded(effects, 1.0)
    assert page.describe_effect(effects, "sim_accuracy", 0.5).startswith(
        "rises by more than its practical margin")
    assert "(-0.075, 95% interval [" in page.describe_effect(effects, "id_auc", 0.5)
    shown = verdicts.shown_intervals(effects, 0.5)
    claim = shown[(shown.column == "id_auc") & (shown.alpha_to == 0.5)].iloc[0]
    assert claim.interval.startswith("family") and claim.margin == pytest.approx(0.025)
    assert "95% interval for the family" in page.describe_effect(shown, "id_auc", 0.5)
    assert page.describe_effect(effects, "nothing", 0.5) == "not measured"
    verdict = page.alpha_verdict(effects, by_alpha, 3)
    assert verdict.startswith("raising α from 0 to 0.5, with the classifier still trained, "
                              "traded identification for generalization")
    assert "at equal ε-quantiles p_I falls" in verdict and "at α = 1" in verdict
    assert "no conclusion" in page.alpha_verdict(effects, by_alpha, 1)
    # no trade with the cross-entropy on, one at α = 1: the verdict says so
    _, by_alpha, effects = _effects(_runs({0.0: 0.0, 0.5: 0.0, 1.0: 0.1}, auc_drop=0.0))
    assert not verdicts.traded(effects, 0.5)
    assert "no trade of identification" in page.alpha_verdict(effects, by_alpha, 3)
    shown = page.effects_display(effects, 0.0)
    assert list(shown.columns) == ["measure", "Change from α = 0 to 0.5",
                                   "Change from α = 0 to 1"]
    assert all(c.endswith("]") or c.endswith(" *") for c in shown.iloc[:, 1])


def test_sentences_and_points():
    results = _runs({0.0: 0.0, 0.5: 0.05})
    tradeoff, by_alpha, effects = _effects(results)
    assert "3 seeds a side" in page.welch_words(effects, 3)
    one = _effects(_runs({0.0: 0.0, 0.5: 0.05}, seeds=1))[2]
    assert page.welch_words(one, 1) == "with one seed per α there is no interval"
    assert page.replicates_sentence(1, False).startswith("The 1 seed per α")
    assert "CUB-200-2011" in page.replicates_sentence(3, True)
    words = page.run_sentences(results, 0.1, by_alpha.train_seconds.sum())
    assert words["at_once"].startswith("each network on its own")
    assert words["run_source"].startswith("were loaded from the cache")
    assert page.run_sentences(results, 100.0, 12.0)["run_source"] == "were trained in this build"
    points = alpha_effects.peak_points(tradeoff)
    assert [p[0] for p in points] == ["ResNet, α = 0", "ResNet, α = 0.5"]
    assert all(len(p) == 5 and 0 < p[1] < 1 for p in points)


def test_deviation_lines_name_what_differs_from_the_paper():
    data = phylo.simulate_dataset(8, 6, size=16, seed=2)
    cfg = settings.DEFAULT.replace(widths=(8, 16), depths=(1, 1))
    data_line, model_line = page.deviation_lines(data, cfg)
    assert data_line.startswith("data: a simulated tree of 8 species") and "8, 16" in model_line
    assert page.deviation_lines(data, cfg, model="microsoft/resnet-50")[1] == ""
    assert "from `/x`" in page.deviation_lines(data, cfg, cub_dir="/x", newick="t.tre")[0]


def test_figures_draw():
    matplotlib.use("Agg")
    tradeoff, by_alpha = alpha_effects.result_tables(_runs({0.0: 0.0, 1.0: 0.1}, seeds=2))
    by_alpha["final_val_accuracy"] = 0.5
    for fig in (page_figures.fig_tradeoff(tradeoff), page_figures.fig_summaries(by_alpha),
                page_figures.fig_tree_gallery(phylo.simulate_dataset(8, 6, size=16, seed=2))):
        assert fig.axes
        plt.close(fig)


def test_the_tradeoff_figure_draws_the_matched_effect_as_a_curve_with_its_family_band():
    """The effect at the headline's matching point is one point of the curve across the
    matching range, drawn with the interval the result box gives the family of claims."""
    matplotlib.use("Agg")
    tradeoff, by_alpha, effects = _effects(_runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1}))
    curve = alpha_effects.matched_curve(tradeoff, 0.0, 0.5, points=5)
    matched, headline = page.matched_band(curve, effects, 0.5)
    row = alpha_effects.effect_row(effects, "p_s_matched", 0.5)
    assert headline[:2] == (row.p_i, row.effect)
    assert (headline[2], headline[3]) == verdicts.family_ci(row, len(verdicts.CLAIMS))
    # the family's interval is wider than each point's own 95 % interval
    assert (matched.family_low < matched.ci_low).all()
    assert (matched.family_high > matched.ci_high).all()
    fig = page_figures.fig_tradeoff(tradeoff, matched, headline, (0.0, 0.5), len(verdicts.CLAIMS))
    left, right = fig.axes[:2]
    assert right.collections and right.get_xlabel() == "matching point $p_I$"
    np.testing.assert_allclose(right.lines[1].get_ydata(), curve.effect)
    plt.close(fig)
    assert page.matched_band(None, effects, 0.5) == (None, None)


def test_each_sentence_quotes_only_the_numbers_it_cites():
    """Every glued sentence of the chapter, built from synthetic runs, quotes only numbers of
    the row it cites (:func:`semres.report.numbers.unquoted`), in every branch of the verdict;
    a number left out of the citation is caught."""
    from semres.report.numbers import unquoted

    for lifts, auc_drop in (({0.0: 0.0, 0.5: 0.05, 1.0: 0.1}, 0.05),   # trade with the CE on
                            ({0.0: 0.0, 0.5: 0.0, 1.0: 0.1}, 0.05),    # only at alpha = 1
                            ({0.0: 0.0, 0.5: 0.0, 1.0: 0.1}, 0.0)):    # no trade
        tradeoff, by_alpha, effects = _effects(_runs(lifts, auc_drop=auc_drop))
        verdict = page.alpha_verdict(effects, by_alpha, 3)
        cited = page.alpha_verdict_numbers(effects, by_alpha)
        assert unquoted(verdict, cited) == [], verdict
        curve = alpha_effects.matched_curve(tradeoff, 0.0, 0.5, points=5)
        pi_star = alpha_effects.effect_row(effects, "p_s_matched", 0.5).p_i
        words = page.matched_words(curve, pi_star)
        assert unquoted(words, page.matched_numbers(curve, pi_star)) == [], words
        welch = page.welch_words(effects, 3)
        assert unquoted(welch, page.welch_numbers(effects, 3)) == [], welch
    assert unquoted(page.replicates_sentence(3, False), {"replicates": 3}) == []
    # the check can fail: without the effects the verdict quotes numbers the row lacks
    assert unquoted(verdict, {k: v for k, v in cited.items() if "_0.5_" not in k})
    assert unquoted(page.alpha_verdict(effects, by_alpha, 1), {}) == []
