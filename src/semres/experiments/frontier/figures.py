"""Chapter 7's figures, in the book's one style."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from semres.core import shapes, theory
from semres.report import plotting as splot

from . import floor_n
from .families import floor_bound
from .settings import DEFAULT

#: the legends' and titles' words
LABELS = {"front": "constant kernel front", "bound": "floor bound (Prop.)",
          "certified": "best similarity (certified)", "engine": "largest gain, Monte Carlo",
          "ties_title": "ties vanish in the continuum limit",
          "height": r"height above the front, $\tau/2$", "universal": "universal front"}
#: the n-item figure's key: (line style, what it marks)
FLOOR_N_KEY = ((dict(lw=2.4, alpha=0.3), "constant kernel (Theorem 3)"),
               (dict(lw=1.2), "best similarity"),
               (dict(marker="o", ls="", ms=4.5), "certified (branch-and-bound)"),
               (dict(marker="|", ls="", ms=9), "proven bound, not certified"),
               (dict(lw=1, ls="--"), "the corollary's bound"),
               (dict(marker="*", ls="", ms=9), "engine, largest gain"))


def _front_and_bound(ax, delta, label_front=None, label_bound=None):
    """The constant kernel's two-item front at ``delta`` and, with a floor, the floor bound."""
    ps_c, pi_c = theory.two_item(np.linspace(0, 1, 301), delta)
    ax.plot(pi_c, ps_c, color=splot.THEORY, lw=2.4, alpha=0.35, label=label_front)
    if delta > 0:
        qq = np.linspace(0.5, 1 / (1 + delta), 301)
        ax.plot(qq, floor_bound(qq, delta), color=splot.THEORY_ALT, ls="--", lw=1,
                label=label_bound)


def families(sweep, check, deltas=DEFAULT.sweep_deltas):
    """Each family's (p_I, p_S) curve as its scale sweeps, one panel per floor."""
    colour = dict(zip(shapes.FAMILIES, splot.CYCLE))
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.6), sharey=True)
    for ax, dl in zip(axes, deltas):
        _front_and_bound(ax, dl, LABELS["front"] if dl == 0 else None,
                         LABELS["bound"] if dl == deltas[1] else None)
        for fam in shapes.FAMILIES:
            sel = sweep[(sweep.family == fam) & (sweep.delta == dl)].sort_values("scale")
            ax.plot(sel.p_i, sel.p_s, color=colour[fam], marker=".", ms=3,
                    label=fam if dl == 0 else None)
            pts = check[(check.family == fam) & (check.delta == dl)]
            ax.plot(pts.p_i_mc, pts.p_s_mc, "o", mfc="white", ms=5, color=colour[fam])
        ax.set(xlabel="identification $p_I$", title=rf"floor $\Delta$ = {dl:g}",
               xlim=(0.48, 1.01), ylim=(0.48, 1.01))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, ncol=3)
    return fig


def _stairs(levels, masses):
    """An optimum as (distance edges, levels) on the circle, zero-width bands dropped."""
    keep = masses > 0
    return np.r_[0.0, np.cumsum(masses[keep]) / 2], levels[keep]


def frontier(certified, scan, peaks, local2, mc_best, k_max: int, deltas=DEFAULT.deltas):
    """Top: the certified two-item frontier per floor with the local optimiser and the engine.
    Bottom: the optimal g(d) at the lowest and middle target and at the largest gain."""
    fig = plt.figure(figsize=(7.2, 7.2), layout="constrained")
    splot.use_style()
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1])
    axes_f = top.subplots(1, len(deltas), sharey=True)
    for ax, dl in zip(axes_f, deltas):
        first = dl == deltas[0]
        _front_and_bound(ax, dl, "constant kernel" if first else None,
                         "floor bound" if first else None)
        s = scan[scan.delta == dl]
        ax.plot(s.p_i, s.p_s, "-", lw=1.5, color=splot.CYCLE[0],
                label=LABELS["certified"] if first else None)
        s = local2[local2.delta == dl]
        ax.plot(s.p_i, s.p_s, "o", ms=4, mfc="white", color=splot.CYCLE[1],
                label=f"local optimiser, K = {k_max}" if first else None)
        b_ = mc_best[mc_best.delta == dl]
        ax.errorbar(b_.p_i_mc, b_.p_s_mc, xerr=2 * b_.se_i, yerr=2 * b_.se_s, fmt="*", ms=11,
                    color="black", label=LABELS["engine"] if first else None)
        ax.set(xlabel="identification $p_I$", title=rf"$n$ = 2, $\Delta$ = {dl:g}",
               ylim=(0.48, 1.0))
    axes_f[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(top, axes_f, ncol=2)
    axes_s = bottom.subplots(1, len(deltas), sharey=True)
    for ax, dl in zip(axes_s, deltas):
        sel = certified[certified.delta == dl].sort_values("p_i")
        picks = [sel.iloc[0], sel.iloc[len(sel) // 2], peaks[peaks.delta == dl].iloc[0]]
        for i, row in enumerate(picks):
            edges, lev = _stairs(row["levels"], row["masses"])
            ax.stairs(lev, edges, color=splot.CYCLE[i], lw=1.5, baseline=None,
                      label=rf"$p_I$ = {row['p_i']:.2f}" + ("*" if i == 2 else ""))
        ax.axhline(dl, color=splot.THEORY_ALT, lw=0.8, ls=":")
        ax.set(xlabel="distance $d$", title=rf"optimal $g$, $\Delta$ = {dl:g}",
               xlim=(0, 0.5), yscale="log")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), handlelength=1.2)
    axes_s[0].set_ylabel("similarity $g(d)$ (log)")
    return fig


def floor_n_frontier(front, peaks, mc, two_item_scan, deltas=DEFAULT.deltas, ns=(2, 4, 8)):
    """One panel per n: Theorem 3, the best step similarity (certified, or with a bar to its
    proven bound), the corollary's bound and the ceiling, per floor, and the engine."""
    fig, axes = splot.subplots(1, len(ns), figsize=(7.2, 3.6))
    for ax, n in zip(axes, ns):
        for i, dl in enumerate(deltas):
            colour = splot.CYCLE[i]
            ps_c, pi_c = theory.n_item(np.linspace(0, 1, 301), n, dl)
            ax.plot(pi_c, ps_c, color=colour, lw=2.4, alpha=0.3)
            if n == 2:
                best_ = two_item_scan[two_item_scan.delta == dl].sort_values("p_i")
                ax.plot(best_.p_i, best_.p_s, "-", lw=1.2, color=colour)
            else:
                best_ = pd.concat([t[(t.n == n) & (t.delta == dl)] for t in (front, peaks)])
                best_ = best_.sort_values("p_i")
                ax.plot(best_.p_i, best_.p_s, "-", marker=".", ms=3, lw=1.2, color=colour)
                sure = best_[best_.certified]
                ax.plot(sure.p_i, sure.p_s, "o", ms=4.5, color=colour)
                loose = best_[(best_.nodes > 0) & ~best_.certified]
                ax.vlines(loose.p_i, loose.p_s, loose.upper_bound, color=colour, lw=1)
            top = floor_n.ceiling(n, dl)
            qq = np.linspace(1 / n, top, 120)
            ax.plot(qq, floor_n.upper_bound(qq, n, dl), "--", lw=1, color=colour)
            ax.plot([top, top], [1 / n - 0.02, 1 / n + 0.02], color=colour, lw=1)
            est = mc[(mc.n == n) & (mc.delta == dl)]
            ax.errorbar(est.p_i_mc, est.p_s_mc, xerr=2 * est.se_i, yerr=2 * est.se_s,
                        fmt="*", ms=9, color=colour)
        ax.axhline(1 / n, color=splot.THEORY_ALT, lw=0.6, ls=":")
        ax.set(xlabel=f"identification $p_I^{{{n}}}$", title=f"$n$ = {n} items")
    axes[0].set_ylabel("generalization $p_S^n$")
    for i, dl in enumerate(deltas):  # the key: colour is the floor, style the curve
        axes[0].plot([], [], color=splot.CYCLE[i], lw=2, label=rf"$\Delta$ = {dl:g}")
    for style, label in FLOOR_N_KEY:
        axes[0].plot([], [], color="0.4", label=label, **style)
    splot.legend_outside(fig, ncol=3)
    return fig


def ties(table, rates):
    """Left: each discrete space's height above the front against its number of points
    (log-log, fitted slopes). Right: the spaces in the (p_I, p_S) plane."""
    fig, (ax_g, ax_f) = splot.subplots(1, 2, figsize=(7.2, 3.9))
    for i, (name, g) in enumerate(table.groupby("space")):
        ax_g.loglog(g.points, g.above_front, "o-", color=splot.CYCLE[i],
                    label=f"{name}: slope {rates[name]:.2f}")
        ax_f.plot(g.p_i, g.p_s, "o", color=splot.CYCLE[i], label=name)
    qq = np.linspace(0.5, 1, 201)
    ax_f.plot(qq, theory.front(qq), color=splot.THEORY, lw=1, label=LABELS["universal"])
    ax_g.set(xlabel="number of points $N$", ylabel=LABELS["height"], title=LABELS["ties_title"])
    ax_f.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
             title=r"discrete spaces, $\varepsilon = 1/4$")
    ax_g.legend(loc="lower left")
    ax_f.legend(loc="lower left")
    return fig


def slots(sweep):
    """The slot codes' (p_I, p_S) as the per-slot radius sweeps, for 1, 2 and 4 slots, one
    panel per way of combining the slots."""
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.6), sharey=True)
    qq = np.linspace(0.5, 1, 201)
    for ax, comb in zip(axes, ("max", "product", "mean")):
        ax.plot(qq, theory.front(qq), color=splot.THEORY, lw=2.4, alpha=0.35,
                label=LABELS["universal"] if comb == "max" else None)
        for i, K in enumerate((1, 2, 4)):
            sel = sweep[(sweep.K == K) & (sweep["combine"] == ("single" if K == 1 else comb))]
            ax.errorbar(sel.p_i, sel.p_s, xerr=2 * sel.se_i, yerr=2 * sel.se_s, fmt="o-", ms=3,
                        lw=1, color=splot.CYCLE[i],
                        label=(f"{K} slot" + "s" * (K > 1)) if comb == "max" else None)
        ax.set(xlabel="identification $p_I$", title=f"combined by {comb}", xlim=(0.48, 1.01))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, ncol=4)
    return fig
