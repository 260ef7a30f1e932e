"""Chapter 3's figures: trajectories in the (p_I, p_S) plane, the learned similarity against
distance, and the fitted resolution and floor against the epoch."""

from __future__ import annotations

import numpy as np

from semres.core import theory
from semres.report import plotting as splot

from .evaluation import stimulus_distances
from .profile_fit import linear_profile
from .superposition import CONDITIONS, ToyHistory

COLOURS = dict(zip(CONDITIONS, splot.CYCLE))
#: legend labels, one place for every figure's words
LABELS = {"front": "Theorem 1 (constant $g$)", "prop1": "Proposition 1 (linear $g$)",
          "noisy": r"Theorem 2, measured $\Delta = {:.3f}$",
          "discrete": "linear $g$ on the 50-point circle",
          "own": "first seed's own profile $h(d)$", "segment": "linear $g$ on the segment",
          "mean": "mean $h(d)$", "fit": "fitted linear decay with floor",
          "eps_star": r"Proposition 1's $\varepsilon^* = b^*/2$",
          "seg_eps_star": r"segment law's best $\varepsilon$",
          "eps": r"fitted resolution $\varepsilon$", "delta": r"fitted noise floor $\Delta$"}


def fig_trajectories(history: ToyHistory, own: dict, discrete: tuple, delta_rec: float,
                     segment_law, p_star: float):
    """Every network's (p_I, p_S) trajectory, a panel per condition, over Proposition 1,
    Theorem 1's front, Theorem 2 at the floor ``delta_rec``, each condition's own-profile
    prediction ``own``, the linear profile on the stimuli ``discrete`` and ``segment_law``."""
    cond = np.array(history.conditions)
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 4.6), sharex=True, sharey=True)
    B = np.linspace(0, 1, 2001)
    prop_s, prop_i = theory.linear_circle(B)
    front_pi = np.linspace(0.5, 1, 301)
    noisy_s, noisy_i = theory.two_item(B, delta=delta_rec)
    seg_s, seg_i = segment_law(np.linspace(1e-4, 0.5, 400))
    for letter, ax, c in zip("abc", axes, CONDITIONS):
        ax.plot(front_pi, theory.front(front_pi), color=splot.THEORY_ALT, lw=1.2,
                label=LABELS["front"])
        ax.plot(prop_i, prop_s, color=splot.THEORY, lw=1.4, label=LABELS["prop1"])
        ax.plot(noisy_i, noisy_s, color=splot.THEORY, lw=1.0, ls="--",
                label=LABELS["noisy"].format(delta_rec))
        if c == "circle":
            ax.plot(discrete[1], discrete[0], ".", color=splot.THEORY, ms=1.2,
                    label=LABELS["discrete"])
        if c != "reconstruction":
            ax.plot(own[c][2][0], own[c][1][0], color=COLOURS[c], lw=1.0, ls="--",
                    label=LABELS["own"])
        if c == "segment":
            ax.plot(seg_i, seg_s, color=splot.CYCLE[3], lw=1.4, label=LABELS["segment"])
        for k in np.flatnonzero(cond == c):
            ax.plot(history.p_i[k], history.p_s[k], color=COLOURS[c], lw=0.7, alpha=0.6)
            ax.plot(history.p_i[k, 0], history.p_s[k, 0], "o", color=COLOURS[c], ms=3)
            ax.plot(history.p_i[k, -1], history.p_s[k, -1], "s", color=COLOURS[c], ms=3.5,
                    mec="black", mew=0.4)
        ax.plot(p_star, p_star, "k*", ms=9)
        ax.set(title=f"({letter}) {c}", xlabel="$p_I$", xlim=(0.5, 1.0), ylim=(0.48, 0.88))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, axes, ncol=2)
    return fig


def fig_similarity(history: ToyHistory):
    """The first circle and segment network's learned similarity against distance at each
    snapshot, with its mean profile h(d) and the fitted linear decay with floor."""
    cond = np.array(history.conditions)
    snap = sorted(history.snapshots)
    fig, axes = splot.subplots(len(snap), 2, figsize=(7.0, 1.9 * len(snap)), sharex="col",
                               sharey=True)
    axes = axes.T  # one column per geometry, one row per snapshot
    for row, c in enumerate(("circle", "segment")):
        k = int(np.flatnonzero(cond == c)[0])
        D = stimulus_distances(history.final_W.shape[2], c)
        levels, off = history.profile_d[c], ~np.eye(len(D), dtype=bool)
        for ax, e in zip(axes[row], snap):
            G = history.snapshots[e][k]
            ax.plot(D[off], G[off] / np.diag(G).mean(), ".", color=splot.CYCLE[row], ms=1.5,
                    alpha=0.15)
            ax.plot(levels, history.profiles[k, e, : len(levels)], "o", color="black", ms=2.5,
                    label=LABELS["mean"])
            dd = np.linspace(0, levels.max(), 300)
            ax.plot(dd, linear_profile(dd, history.eps_fit[k, e], history.delta_fit[k, e]),
                    color=splot.CYCLE[3], lw=1.5, label=LABELS["fit"])
            ax.set(ylim=(-0.05, 1.6))
            ax.set_title(fr"{c}, epoch {e}, $\varepsilon$ = {history.eps_fit[k, e]:.3f}",
                         fontsize=9)
    for ax in axes[0]:
        ax.set_ylabel(r"$g / \langle g(x, x)\rangle$")
    for ax in axes[:, -1]:
        ax.set_xlabel("distance $d$")
    splot.legend_outside(fig, axes, ncol=2)
    return fig


def fig_resolution(history: ToyHistory, eps_star: float, segment_eps_star: float,
                   flat_delta: float):
    """Every network's fitted ε (once its floor is below ``flat_delta``) and floor Δ against
    the epoch, with the resolutions of the best generalization on circle and segment."""
    cond = np.array(history.conditions)
    fig, (ax_e, ax_d) = splot.subplots(1, 2, figsize=(7.2, 4.2))
    x = np.arange(history.p_s.shape[1])
    for c in CONDITIONS:
        for j, k in enumerate(np.flatnonzero(cond == c)):
            shaped = history.delta_fit[k] < flat_delta
            if c != "reconstruction":  # its profile is a spike over a floor: no ε to draw
                ax_e.plot(x[shaped], history.eps_fit[k, shaped], color=COLOURS[c], lw=0.7,
                          alpha=0.6, label=c if j == 0 else None)
            ax_d.plot(x[1:], history.delta_fit[k, 1:], color=COLOURS[c], lw=0.7, alpha=0.6,
                      label=c if j == 0 else None)
    ax_e.axhline(eps_star, color=splot.THEORY, ls="--", lw=1, label=LABELS["eps_star"])
    ax_e.axhline(segment_eps_star, color=COLOURS["segment"], ls=":", lw=1.2,
                 label=LABELS["seg_eps_star"])
    ax_e.set(xscale="log", xlabel="epoch", ylabel=LABELS["eps"], title="(a) resolution")
    ax_d.set(xscale="log", xlabel="epoch", ylabel=LABELS["delta"], title="(b) noise floor")
    splot.legend_outside(fig, [ax_e, ax_d], ncol=2)
    return fig
