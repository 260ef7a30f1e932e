"""Chapter 4's figures and its effects table: the tree and its rendered species, each α's
tradeoff with the effect on p_S at matched identification, and the summaries against α."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import dendrogram, linkage
from scipy.spatial.distance import squareform

from semres.core import theory
from semres.report import measured
from semres.report import plotting as splot

from .alpha_effects import METRICS, effect_row
from .phylo import PhyloData
from .verdicts import ALONE, CLAIMS, family_ci, reading

#: the panels of the summaries figure
PANELS = ["sim_accuracy", "ood_sim_accuracy", "id_auc", "final_val_accuracy"]
#: the figures' words
LABELS = {
    "tree_x": "patristic distance at which clades join",
    "tree_title": "species tree (held-out species in red)",
    "gallery_x": "{n} individuals of each species",
    "band": "interval for the family of {claims} claims",
    "effect": r"effect of α {lo:g} → {hi:g} at matched $p_I$",
    "headline": "the headline: matched at the baseline's peak",
    "matched_y": r"change in $p_S^{\neq}$ at matched $p_I$",
    "own_ball": "own-ball consistency check",
}


def _tree(data: PhyloData):
    """The species tree's average linkage (exact for an ultrametric tree)."""
    return linkage(squareform(data.distances, checks=False), "average")


def _held_out_in_red(ax, data: PhyloData) -> None:
    """The y labels that name a held-out species, in red."""
    ood = {data.names[k] for k in set(data.species[data.split["ood"]])}
    for lab in ax.get_yticklabels():
        if lab.get_text() in ood:
            lab.set_color(splot.CYCLE[1])


def fig_tree(data: PhyloData):
    """The species tree as a dendrogram, one 12 pt label per species (held-out species in
    red), narrow enough for a phone: 0.22 in of height a leaf."""
    fig, ax = splot.subplots(figsize=(4.6, 0.22 * data.n_species + 1.2))
    dendrogram(_tree(data), orientation="left", labels=data.names, ax=ax, color_threshold=0,
               above_threshold_color="0.3", leaf_font_size=splot.MIN_FONT)
    _held_out_in_red(ax, data)
    ax.set_xlabel(LABELS["tree_x"])
    ax.set_title(LABELS["tree_title"])
    ax.grid(False)
    return fig


def fig_gallery(data: PhyloData, n_show: int = 6, per_species: int = 5, pad: int = 2):
    """``per_species`` images of each of ``n_show`` species taken at even steps along the
    tree's leaf order (top to bottom as in :func:`fig_tree`), tiled into ONE picture so that
    a phone shows it as a grid; each row is labelled with its species (held-out in red)."""
    order = dendrogram(_tree(data), no_plot=True)["leaves"][::-1]
    shown = [order[i] for i in np.linspace(0, len(order) - 1, n_show).round().astype(int)]
    side = data.images.shape[1]
    cell = side + pad
    mosaic = np.ones((n_show * cell - pad, per_species * cell - pad, 3))
    for r, k in enumerate(shown):
        for c, img in enumerate(data.images[data.species == k][:per_species]):
            scale = 255.0 if img.dtype == np.uint8 else 1.0
            mosaic[r * cell:r * cell + side, c * cell:c * cell + side] = img / scale
    fig, ax = splot.subplots(figsize=(4.6, 4.6 * n_show / per_species * 0.8 + 0.4))
    ax.imshow(mosaic)
    ax.set_xticks([])
    ax.set_yticks([r * cell + side / 2 for r in range(n_show)], [data.names[k] for k in shown])
    _held_out_in_red(ax, data)
    ax.tick_params(length=0)
    ax.grid(False)
    ax.set_frame_on(False)
    ax.set_xlabel(LABELS["gallery_x"].format(n=per_species))
    return fig


def matched_band(curve: pd.DataFrame | None, effects: pd.DataFrame, alpha_ce):
    """The matched effect across its matching points with the family's interval (columns
    ``family_low``, ``family_high``), and the headline's (p_I, effect, low, high) on it;
    (None, None) without a matched comparison."""
    if curve is None or not len(curve):
        return None, None
    band = [family_ci(r, len(CLAIMS)) for r in curve.itertuples()]
    matched = curve.assign(family_low=[lo for lo, _ in band], family_high=[hi for _, hi in band])
    r = effect_row(effects, "p_s_matched", alpha_ce)
    if r is None:
        return matched, None
    low, high = family_ci(r, len(CLAIMS)) if np.isfinite(r.se) else (np.nan, np.nan)
    return matched, (r.p_i, r.effect, low, high)


def fig_tradeoff(tradeoff: pd.DataFrame, matched: pd.DataFrame | None = None, headline=None,
                 alphas: tuple | None = None, claims: int = 1):
    """Each α's (p_I, p_S) sweep over ε (mean over seeds at equal ε-quantiles), its own-ball
    consistency curve (dashed) and the universal front; with ``matched`` (:func:`matched_band`)
    a second panel draws the effect at matched p_I from ``alphas[0]`` to ``alphas[1]`` across
    the matching points, the ``headline`` one point of that curve."""
    alphas_run = sorted(tradeoff.alpha.unique())
    two = matched is not None and len(matched) > 0
    if two:
        fig, (ax, ax_m) = splot.subplots(1, 2, figsize=(7.2, 4.6))
    else:
        fig, ax = splot.subplots(figsize=(7.0, 4.4))
    pi_front = np.linspace(0.5, 1.0, 200)
    ax.plot(pi_front, theory.front(pi_front), color=splot.THEORY, lw=1.2,
            label="universal front")
    colours = matplotlib.colormaps["viridis"](np.linspace(0.05, 0.9, len(alphas_run)))
    for a, c in zip(alphas_run, colours):
        grp = tradeoff[tradeoff.alpha == a]
        # seeds share the quantile grid of ε, so the k-th rows of each seed belong together
        grp = grp.assign(k=grp.groupby("seed").cumcount()).groupby("k").mean(numeric_only=True)
        ax.plot(grp.p_i, grp.p_s, "-o", ms=2.5, color=c, label=f"α = {a:g}")
        ax.plot(grp.p_i_theory, grp.p_s_theory, "--", color=c, lw=1)
    ax.plot([], [], "--", color="0.4", lw=1, label=LABELS["own_ball"])
    ax.set_xlabel("identification $p_I$")
    ax.set_ylabel(r"generalization $p_S^{\neq}$")
    ax.set_xlim(0.45, 1.01)
    if not two:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return fig
    colour = splot.CYCLE[1]
    ax.axvspan(matched.p_i.min(), matched.p_i.max(), color=colour, alpha=0.08, lw=0,
               label="matching range (right)")
    ax_m.axhline(0.0, color=splot.THEORY_ALT, lw=0.8, ls=":", label="no change")
    ax_m.fill_between(matched.p_i, matched.family_low, matched.family_high, color=colour,
                      alpha=0.2, lw=0, label=LABELS["band"].format(claims=claims))
    ax_m.plot(matched.p_i, matched.effect, "-o", ms=2.5, color=colour,
              label=LABELS["effect"].format(lo=alphas[0], hi=alphas[1]))
    if headline is not None:
        p_i, effect, low, high = headline
        err = (None if not (np.isfinite(low) and np.isfinite(high))
               else [[effect - low], [high - effect]])
        ax_m.errorbar([p_i], [effect], yerr=err, fmt="D", ms=5, color="black", capsize=3,
                      label=LABELS["headline"])
    ax_m.set_xlabel("matching point $p_I$")
    ax_m.set_ylabel(LABELS["matched_y"])
    splot.legend_outside(fig, [ax, ax_m], ncol=2)
    return fig


def fig_summaries(by_alpha: pd.DataFrame):
    """The threshold-free summaries against α, one dot per seed and a line through the means."""
    fig, axes = splot.subplots(2, 2, figsize=(7.0, 5.4), sharex=True)
    for ax, col in zip(axes.ravel(), PANELS):
        ax.plot(by_alpha.alpha, by_alpha[col], "o", color=splot.CYCLE[0], alpha=0.5, ms=4,
                label="one seed")
        m = by_alpha.groupby("alpha")[col].mean()
        ax.plot(m.index, m.values, "-", color=splot.CYCLE[0], label="mean over seeds")
        if col != "final_val_accuracy":
            ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8, ls=":", label="chance")
        ax.set_title(METRICS[col])
    for ax in axes[-1]:
        ax.set_xlabel("α")
    splot.legend_outside(fig, axes[0, 0], ncol=3)
    return fig


def said(row) -> str:
    """An effect of :func:`.verdicts.shown_intervals` as the page writes it everywhere: the
    result box's ``estimate [low, high]``, places set by its interval and margin."""
    return measured({"headline": row.effect, "ci_low": row.interval_low,
                     "ci_high": row.interval_high, "margin": row.margin})


def effects_table(shown: pd.DataFrame, alpha_lo: float) -> pd.DataFrame:
    """One row per measure, one column per compared α: each change as :func:`said` writes it,
    a dagger on a claim (its family's interval) and a star beyond its practical margin."""
    cells = [said(r) + (" †" if r.interval != ALONE else "")
             + (" *" if reading(r) in ("rises", "falls") else "") for r in shown.itertuples()]
    table = shown.assign(cell=cells).pivot_table(index="measure", columns="alpha_to",
                                                 values="cell", aggfunc="first", sort=False)
    table.columns = [f"Change from α = {alpha_lo:g} to {a:g}" for a in table.columns]
    return table.reset_index()
