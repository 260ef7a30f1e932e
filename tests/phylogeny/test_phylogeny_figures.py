"""Chapter 4's figures and effects table, drawn from synthetic runs; the overview's points."""

import matplotlib
import matplotlib.pyplot as plt
import fake_runs
import numpy as np

from semres.experiments.phylogeny import alpha_effects, figures, phylo, verdicts


def _runs(lifts, seeds=3):
    """Synthetic runs with a clear trade: the AUC falls by 0.15 per unit alpha."""
    return fake_runs.runs(lifts, seeds, auc_drop=0.15)


def test_figures_draw():
    matplotlib.use("Agg")
    tradeoff, by_alpha = alpha_effects.result_tables(_runs({0.0: 0.0, 1.0: 0.1}, seeds=2))
    by_alpha["final_val_accuracy"] = 0.5
    data = phylo.simulate_dataset(8, 6, size=16, seed=2)
    for fig in (figures.fig_tradeoff(tradeoff), figures.fig_summaries(by_alpha),
                figures.fig_tree(data), figures.fig_gallery(data)):
        assert fig.axes
        plt.close(fig)


def test_the_gallery_is_one_picture_labelled_by_species_and_the_tree_labels_every_leaf():
    """A phone shows the gallery as the grid it is (one panel, one row per species, the held-out
    in red), and the tree names every species at the book's smallest text size."""
    matplotlib.use("Agg")
    data = phylo.simulate_dataset(12, 6, size=16, seed=3, ood_fraction=0.25)
    fig = figures.fig_gallery(data, n_show=4, per_species=3)
    (ax,) = fig.axes
    assert ax.images[0].get_array().shape[:2] == (4 * 18 - 2, 3 * 18 - 2)
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert len(names) == 4 and set(names) <= set(data.names)
    ood = {data.names[k] for k in set(data.species[data.split["ood"]])}
    assert all((t.get_color() == figures.splot.CYCLE[1]) == (t.get_text() in ood)
               for t in ax.get_yticklabels())
    plt.close(fig)
    fig = figures.fig_tree(data)
    labels = fig.axes[0].get_yticklabels()
    assert sorted(t.get_text() for t in labels) == sorted(data.names)
    assert min(t.get_fontsize() for t in labels) >= figures.splot.MIN_FONT
    plt.close(fig)


def test_the_tradeoff_figure_draws_the_matched_effect_as_a_curve_with_its_family_band():
    """The effect at the headline's matching point is one point of the curve across the
    matching range, drawn with the interval the result rows give the family of claims."""
    matplotlib.use("Agg")
    tradeoff, _, effects = fake_runs.effects(_runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1}))
    curve = alpha_effects.matched_curve(tradeoff, 0.0, 0.5, points=5)
    band, headline = figures.matched_band(curve, effects, 0.5)
    row = alpha_effects.effect_row(effects, "p_s_matched", 0.5)
    assert headline[:2] == (row.p_i, row.effect)
    assert (headline[2], headline[3]) == verdicts.family_ci(row, len(verdicts.CLAIMS))
    # the family's interval is wider than each point's own 95 % interval
    assert (band.family_low < band.ci_low).all() and (band.family_high > band.ci_high).all()
    fig = figures.fig_tradeoff(tradeoff, band, headline, (0.0, 0.5), len(verdicts.CLAIMS))
    right = fig.axes[1]
    assert right.collections and right.get_xlabel() == "matching point $p_I$"
    np.testing.assert_allclose(right.lines[1].get_ydata(), curve.effect)
    plt.close(fig)
    assert figures.matched_band(None, effects, 0.5) == (None, None)


def test_the_effects_table_gives_each_effect_the_interval_its_result_row_judges():
    """One column per compared α; a claim's cell carries its family interval (dagger), the
    same numbers the result box writes, and a star where it lies beyond its margin."""
    _, _, effects = fake_runs.effects(_runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1}))
    shown = verdicts.shown_intervals(effects, 0.5)
    table = figures.effects_table(shown, 0.0)
    assert list(table.columns) == ["measure", "Change from α = 0 to 0.5",
                                   "Change from α = 0 to 1"]
    claim = shown[(shown.column == "sim_accuracy") & (shown.alpha_to == 0.5)].iloc[0]
    cell = table.set_index("measure").loc[claim.measure, "Change from α = 0 to 0.5"]
    assert cell == figures.said(claim) + " † *"
    assert all(c.endswith(("]", " *", " †")) for c in table.iloc[:, 2])
    # one seed: the change alone, no interval
    one = fake_runs.effects(_runs({0.0: 0.0, 0.5: 0.05}, seeds=1))[2]
    assert "[" not in figures.effects_table(verdicts.shown_intervals(one, 0.5), 0.0).iloc[0, 1]


def test_each_alpha_is_placed_on_the_overview_at_its_peak():
    tradeoff, _, _ = fake_runs.effects(_runs({0.0: 0.0, 0.5: 0.05}))
    points = alpha_effects.peak_points(tradeoff)
    assert [p[0] for p in points] == ["ResNet, α = 0", "ResNet, α = 0.5"]
    assert all(len(p) == 5 and 0 < p[1] < 1 for p in points)
