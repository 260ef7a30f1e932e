"""Chapter 4's figures: the tree and its rendered species, each α's tradeoff curve with the
effect on p_S at matched identification across the matching range, and the threshold-free
summaries against α."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import dendrogram, linkage
from scipy.spatial.distance import squareform

from semres.report import plotting as splot
from semres.core import theory

from .alpha_effects import METRICS
from .phylo import PhyloData

#: the panels of the summaries figure
PANELS = ["sim_accuracy", "ood_sim_accuracy", "id_auc", "final_val_accuracy"]


def fig_tree_gallery(data: PhyloData, n_show: int = 8, per_species: int = 5):
    """The tree as a dendrogram (average linkage of the patristic distances, exact for an
    ultrametric tree; held-out species in red) beside a gallery of ``per_species`` images of
    ``n_show`` species spread along it."""
    Z = linkage(squareform(data.distances, checks=False), "average")
    # 9 pt leaf labels need about 0.14 in of height each
    fig = plt.figure(figsize=(7.2, max(5.2, 0.14 * data.n_species + 1.0)), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=[1, 1.5])
    ax = fig.add_subplot(grid[0])
    small = data.n_species <= 60
    dn = dendrogram(Z, orientation="left", labels=data.names if small else None, ax=ax,
                    color_threshold=0, above_threshold_color="0.3", no_labels=not small,
                    leaf_font_size=9)
    ood = set(data.species[data.split["ood"]])
    if small:
        for lab in ax.get_yticklabels():
            if data.names.index(lab.get_text()) in ood:
                lab.set_color(splot.CYCLE[1])
    ax.set_xlabel("patristic distance at which clades join")
    ax.set_title("species tree (held-out species in red)")
    ax.grid(False)
    order = dn["leaves"][::-1]  # dendrogram leaves run bottom-up; the gallery top-down
    shown = [order[i] for i in np.linspace(0, len(order) - 1, n_show).round().astype(int)]
    sub = grid[1].subgridspec(n_show, per_species, hspace=0.05, wspace=0.05)
    for r, k in enumerate(shown):
        imgs = data.images[data.species == k][:per_species]
        for c, img in enumerate(imgs):
            a = fig.add_subplot(sub[r, c])
            a.imshow(img)
            a.set_xticks([])
            a.set_yticks([])
            for spine in a.spines.values():
                spine.set_visible(False)
            if c == 0:
                a.set_ylabel(data.names[k], fontsize=9, rotation=0, ha="right", va="center")
    return fig


def _matched_panel(ax, matched: pd.DataFrame, headline, alphas: tuple, claims: int) -> None:
    """The effect on p_S at matched p_I across the matching points, with its interval for the
    family of ``claims`` (band), and the headline's matching point on it."""
    colour = splot.CYCLE[1]
    ax.axhline(0.0, color=splot.THEORY_ALT, lw=0.8, ls=":", label="no change")
    ax.fill_between(matched.p_i, matched.family_low, matched.family_high, color=colour,
                    alpha=0.2, lw=0, label=f"interval for the family of {claims} claims")
    ax.plot(matched.p_i, matched.effect, "-o", ms=2.5, color=colour,
            label=fr"effect of α {alphas[0]:g} → {alphas[1]:g} at matched $p_I$")
    if headline is not None:
        p_i, effect, low, high = headline
        err = (None if not (np.isfinite(low) and np.isfinite(high))
               else [[effect - low], [high - effect]])
        ax.errorbar([p_i], [effect], yerr=err, fmt="D", ms=5, color="black", capsize=3,
                    label="the headline: matched at the baseline's peak")
    ax.set_xlabel("matching point $p_I$")
    ax.set_ylabel(r"change in $p_S^{\neq}$ at matched $p_I$")


def fig_tradeoff(tradeoff: pd.DataFrame, matched: pd.DataFrame | None = None, headline=None,
                 alphas: tuple | None = None, claims: int = 1):
    """Each α's (p_I, p_S) sweep over ε (mean over seeds at equal ε-quantiles), its own-ball
    consistency curve (dashed) and the universal front; with ``matched`` (the rows of
    :func:`.alpha_effects.matched_curve` with ``family_low``/``family_high``, the interval
    widened for the family of ``claims``), a second panel draws the effect on p_S at matched
    p_I from ``alphas[0]`` to ``alphas[1]`` across the matching points, and ``headline``
    (p_I, effect, low, high) marks the matching point the chapter's result row reads, so
    that the effect at one matching point shows as one point of a curve."""
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
    ax.plot([], [], "--", color="0.4", lw=1, label="own-ball consistency check")
    ax.set_xlabel("identification $p_I$")
    ax.set_ylabel(r"generalization $p_S^{\neq}$")
    ax.set_xlim(0.45, 1.01)
    if not two:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return fig
    ax.axvspan(matched.p_i.min(), matched.p_i.max(), color=splot.CYCLE[1], alpha=0.08, lw=0,
               label="matching range (right)")
    _matched_panel(ax_m, matched, headline, alphas, claims)
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
