"""Chapter 6's figures: example scenes, the accuracy map, accuracy against the margin, the n
sweep, the paper's models and the colour variant."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd

from semres.report import plotting as splot
from semres.core import theory

from . import scenes
from .luce import Trials, biased_p
from .nsweep import EPS_GRID
from .settings import MAP_LAYOUT, TASKS

#: legend labels
LABEL = {"ml": "biased Luce rule (ML fit)",
         "th_s": r"Theorem 3, $\varepsilon$ fitted to $p_S$",
         "th_i": r"Theorem 3, $\varepsilon$ fitted to $p_I$",
         "kernel": "biased Luce rule of the margin fit",
         "released": "{} (released, 900 px canvas)", "live": "{} (canvas rescaled to 900 px)",
         "margin_900": "margin $d_2 - d_1$ (pixels of a 900 px canvas)"}
#: the accuracy map's ticks (canvas units): three, so neighbours never touch on a phone
MAP_TICKS = (0, 0.5, 1)
#: the colour of the map's excluded positions (near a shape): grey, so the shapes' names show
EXCLUDED = "0.82"


def fig_scenes(examples, size: int = 192):
    """The example scenes rendered at ``size`` pixels, titled by task, n and answer."""
    fig, axes = splot.subplots(2, 3, figsize=(7.2, 5.0))
    for ax, s in zip(axes.flat, examples):
        ax.imshow(scenes.render(s, size))
        ax.set_title(f"{s.task}, n = {s.n}: {s.answer}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
    return fig


def fig_map(map_list, map_p, biased, fm, grid: int, fine: int = 300):
    """The accuracy map: the model's P(correct) over the X positions of the four-shape layout
    beside the fitted biased Luce rule's, with the decision boundaries and (when that fit is not
    censored) the edges of the fitted margin resolution's error band."""
    probe_xy = np.array([s.probe for s in map_list])
    layout = np.array(list(MAP_LAYOUT.values()))
    map_t = Trials(map_list)
    map_pred = biased_p(map_t.d, map_t.names, map_t.t, biased)
    ticks = (np.arange(fine) + 0.5) / fine
    fx, fy = np.meshgrid(ticks, ticks)
    fd = np.linalg.norm(np.stack([fx, fy], -1)[..., None, :] - layout, axis=-1)
    nearest = np.argmin(fd, axis=-1)
    fd_sorted = np.sort(fd, axis=-1)
    eps_fit = fm["eps"]
    fig, axes = splot.subplots(1, 2, figsize=(7.2, 4.6), sharey=True)
    cells = np.floor(probe_xy * grid).astype(int)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad=EXCLUDED)
    for ax, vals, title in ((axes[0], map_p, "(a) model"), (axes[1], map_pred, "(b) fit")):
        img = np.full((grid, grid), np.nan)
        img[cells[:, 1], cells[:, 0]] = vals
        im = ax.imshow(img, extent=(0, 1, 1, 0), cmap=cmap, vmin=0, vmax=1,
                       interpolation="nearest")
        ax.contour(ticks, ticks, nearest, levels=np.arange(3) + 0.5, colors="w", linewidths=1)
        gap_field = fd_sorted[..., 1] - fd_sorted[..., 0]
        if not fm["at_bound"] and gap_field.min() < eps_fit < gap_field.max():
            ax.contour(ticks, ticks, gap_field, levels=[eps_fit], colors="w", linewidths=0.6,
                       linestyles=":")
        # the shapes' names on their excluded (grey) discs, in black: legible on grey
        for name, (px, py) in MAP_LAYOUT.items():
            ax.annotate(name, (px, py), ha="center", va="center", color="black")
        # the panel's name inside it, top left: a title above would meet the x label of the
        # panel above it when the phone stacks the two
        ax.text(0.02, 0.98, title, transform=ax.transAxes, ha="left", va="top",
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 2})
        ax.set(xlim=(0, 1), ylim=(1, 0), aspect="equal", xticks=MAP_TICKS, yticks=MAP_TICKS,
               xlabel="x of the X (canvas)")
        ax.grid(False)
    axes[0].set_ylabel("y of the X (canvas, down)")
    fig.colorbar(im, ax=axes, location="bottom", shrink=0.6, aspect=30, ticks=MAP_TICKS,
                 label="P(naming the nearest shape)")
    return fig


def fig_margin(m, p, agg, px: float):
    """P(correct) of the four-shape scenes against the margin, binned, with the fitted curves."""
    fig, ax = splot.subplots(figsize=(6.2, 3.8))
    ax.scatter(m * px, p, s=6, alpha=0.25, color=splot.CYCLE[0], label="scenes")
    ax.errorbar(agg["m"] * px, agg["p"], yerr=agg["sd"] / np.sqrt(agg["k"]), fmt="o",
                color=splot.CYCLE[0], label="binned mean ± s.e.")
    ax.plot(agg["m"] * px, agg["bias"], "-", color=splot.THEORY,
            label=LABEL["ml"])
    ax.plot(agg["m"] * px, agg["mar"], "--", color=splot.THEORY_ALT,
            label="margin resolution (LS fit)")
    ax.axhline(0.25, color="0.7", lw=0.8, label="chance (1/4)")
    ax.set(xlabel="margin $d_2 - d_1$ (pixels)", ylabel="P(correct)", ylim=(0, 1.02))
    splot.legend_outside(fig, ax, ncol=2)
    return fig


def fig_nsweep(sweep):
    """p_S and p_I against the number of shapes, with Theorem 3 at each task's fitted radius,
    the biased Luce rule of the four-shape fit, and chance."""
    n_hi = int(sweep.n.max())
    fig, axes = splot.subplots(1, 2, figsize=(7.2, 3.6), sharey=True)
    for ax, task, letter_ in zip(axes, TASKS, "ab"):
        tab = sweep[sweep.task == task].set_index("n")
        ax.errorbar(tab.index, tab.p, yerr=tab.se, fmt="o", color=splot.CYCLE[0], label="model")
        ax.plot(tab.index, tab["p_theory_sim"], "-", color=splot.THEORY,
                label=LABEL["th_s"])
        ax.plot(tab.index, tab["p_theory_ide"], "-.", color=splot.CYCLE[1],
                label=LABEL["th_i"])
        ax.plot(tab.index, tab.p_kernel, "--", color=splot.THEORY_ALT,
                label=LABEL["kernel"])
        nn = np.arange(2, n_hi + 1)
        ax.plot(nn, 1 / nn, ":", color="0.6", label="chance, 1/n")
        letter = "S" if task == "similarity" else "I"
        ax.set(xlabel="number of shapes n", title=f"({letter_}) {task} ($p_{letter}$)",
               ylim=(0, 1.02))
    axes[0].set_ylabel("P(correct)")
    splot.legend_outside(fig, axes, ncol=2)
    return fig

def released_margins(external) -> list:
    """The paper's models' released answers that :func:`fig_released` draws: (its colour's
    place, model, trials and correct answers per margin bin of the four-shape similarity task on
    the canvas); empty when none are shipped or given."""
    ext = pd.DataFrame(external)
    out = []
    for k, (model, part) in enumerate(ext[ext.task == "similarity"].groupby("model")
                                      if len(ext) else []):
        part = part[part.n == 4].groupby("bin_mid")[["trials", "correct"]].sum().reset_index()
        if not (part.empty or part.bin_mid.max() > 1):
            out.append((k, model, part))
    return out


def fig_released(external, agg, label: str, px: float):
    """Accuracy against the margin for the paper's models (released answers, margin bins with
    binomial standard errors, :func:`released_margins`) and for the model run here (its
    four-shape scenes, margins rescaled to the authors' ``px`` canvas)."""
    fig, ax = splot.subplots(figsize=(6.2, 3.8))
    for k, model, part in released_margins(external):
        p = part.correct / part.trials
        ax.errorbar(part.bin_mid * px, p, yerr=np.sqrt(p * (1 - p) / part.trials), fmt="o-",
                    ms=4, color=splot.CYCLE[k + 1], label=LABEL["released"].format(model))
    ax.errorbar(agg["m"] * px, agg["p"], yerr=agg["sd"] / np.sqrt(agg["k"]), fmt="s",
                ms=4, color=splot.CYCLE[0], label=LABEL["live"].format(label))
    ax.axhline(0.25, color="0.7", lw=0.8, label="chance (1/4)")
    ax.set(xlabel=LABEL["margin_900"], ylabel="P(correct)",
           ylim=(0, 1.02))
    splot.legend_outside(fig, ax, ncol=1)
    return fig


def fig_colour(colour):
    """The colour variant (drawn only with its tables): p_S and p_I against the number of
    patches with Theorem 3 at each task's radius, and both tasks on the (p_I, p_S) plane over
    Theorem 3's curves for the smallest and largest n."""
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.2))
    for k, (label, a) in enumerate(colour.items()):
        tab, fitted, cc = a["table"], a["fitted"], a["curves"]
        col = splot.CYCLE[k + 1]
        for ax, task in zip(axes[:2], TASKS):
            part = tab[tab.task == task].sort_values("n")
            ax.errorbar(part.n, part.p, yerr=part.se, fmt="o", ms=4, color=col, label=label)
            if task in fitted:
                ax.plot(part.n, [np.interp(fitted[task]["eps"], EPS_GRID, cc[task, n])
                                 for n in part.n], "-", color=col, lw=1)
        both = tab.pivot_table(index="n", columns="task", values="p")
        if set(TASKS) <= set(both.columns):
            axes[2].plot(both["identification"], both["similarity"], "o-", ms=4, color=col,
                         label=label)
            for n in (both.index.min(), both.index.max()):
                ps, pi = theory.n_item(np.linspace(0, 1, 101), n)
                axes[2].plot(pi, ps, ":", color="0.5", lw=1)
                axes[2].annotate(f"n = {n}", (pi[5], ps[5]), fontsize=9, color="0.4")
    for ax, task in zip(axes[:2], TASKS):
        ax.set(xlabel="number of patches n", title=task, ylim=(0, 1.02))
    axes[0].set_ylabel("P(correct)")
    axes[2].set(xlabel="$p_I$", ylabel="$p_S$", title="both tasks", xlim=(0, 1.02),
                ylim=(0, 1.02))
    splot.legend_outside(fig, axes, ncol=2)
    return fig
