"""Chapter 5's stacked figures, in the book's one style, with room between their rows of panels
for the phone; the captions, and the figures of one row, are in the chapter."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullLocator

from semres.core import theory
from semres.report import plotting as splot

from . import kernel_fits, near


#: room (inches) above and below each panel, so that a panel's title clears the axis label of
#: the panel above it when the phone layout stacks the panels in one column
PANEL_ROOM = 0.22


def _room(fig):
    """``fig`` with :data:`PANEL_ROOM` between its rows of panels (constrained layout)."""
    fig.get_layout_engine().set(h_pad=PANEL_ROOM)
    return fig


def _n_axis(ax, ticks):
    """A log axis of n labelled at ``ticks`` in plain numbers."""
    ax.set_xscale("log")
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(plt.ScalarFormatter())
    ax.xaxis.set_minor_formatter(plt.NullFormatter())


def fig_nsweep(sweep, model: str):
    """Success against n (log–log) with the engine's prediction and chance, per task."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2), sharey=True)
    for ax, task, letter in zip(axes, ("similarity", "identification"), "ab"):
        sub = sweep[sweep.task == task].sort_values("n")
        ax.errorbar(sub.n, sub.p, yerr=2 * sub.se, fmt="o", ms=4, color=splot.CYCLE[0],
                    label=f"{model} ± 2 se")
        ax.plot(sub.n, sub.p_theory, color=splot.THEORY, label="engine, measured kernel")
        nn = sub.n.to_numpy(float)
        ax.plot(nn, 1 / nn, color=splot.THEORY_ALT, ls="--", label="$1/n$ (chance)")
        _n_axis(ax, [t for t in (2, 5, 10, 20, 50) if t <= nn.max()])
        ax.set(yscale="log", xlabel="number of people $n$",
               title=f"({letter}) {task}: $p_{'S' if task == 'similarity' else 'I'}^n$")
    axes[0].set_ylabel("success (Luce mass on the correct answer)")
    splot.legend_outside(fig, axes, ncol=3)
    return _room(fig)


def fig_protocol(results: dict, near_results: dict):
    """The protocol on the models that pass: success against n with Theorem 3; the (p_I, p_S)
    plane, measured and as the near design's fit predicts, against the front at its floor; the
    temperature; and the kernel read from choices (a panel only when a model does similarity)."""
    with_kernel = [r for r in results.values() if r["does_similarity"]]
    fig, axes = splot.subplots(2, 2, figsize=(9, 7.6))
    ax_n, ax_d, ax_t, ax_k = axes.ravel()
    for k, r in enumerate(results.values()):
        color = splot.CYCLE[(k + 2) % len(splot.CYCLE)]
        t = r["sweep"]
        forms = r["theorem3_forms"]
        for task, marker in (("identification", "o"), ("similarity", "s")):
            sub = t[t.task == task].sort_values("n")
            ax_n.errorbar(sub.n, sub.p, yerr=[sub.p - sub.ci_low, sub.ci_high - sub.p],
                          fmt=marker, color=color, capsize=2, label=f"{r['model']}: {task}")
            for form, ls in (("floor", "-"), ("free", ":")):
                th = forms[form]["table"]
                th = th[th.task == task].sort_values("n")
                ax_n.plot(th.n, th.theory, color=color, ls=ls, lw=1,
                          label=(f"Theorem 3 {'with a floor' if form == 'floor' else 'no floor'}"
                                 if k == 0 and task == "similarity" else None))
        own = r["temperature"].set_index("temperature").loc[1.0]
        ax_d.errorbar([own.p_i], [own.p_s], xerr=[2 * own.p_i_se], yerr=[2 * own.p_s_se],
                      fmt="o", color=color, capsize=2, label=f"{r['model']}: measured")
        nr = near_results.get(r["model"], {})
        if nr.get("does"):
            fl = nr["front"]["relative_floor"]
            b = np.linspace(0, 1, 300)
            ps, pi = theory.two_item(b, delta=fl)
            ax_d.plot(pi, ps, color=color, lw=1, ls="--",
                      label=f"front at its floor ({fl:.2f})")
            ax_d.plot([own.p_i], [nr["front"]["p_s"]], "s", mfc="white", color=color,
                      label=f"{r['model']}: $p_S$ its kernel predicts")
        temps = r["temperature"]
        ax_t.errorbar(temps.p_i, temps.p_s, xerr=2 * temps.p_i_se, yerr=2 * temps.p_s_se,
                      fmt="o-", color=color, ms=4, lw=0.8, capsize=2,
                      label=f"{r['model']}, T = {temps.temperature.min():g}…"
                            f"{temps.temperature.max():g}")
        if not r["does_similarity"]:
            continue
        kern = r["kernel"]
        low, high = np.exp(kern.log_g - 2 * kern.log_g_se), np.exp(kern.log_g + 2 * kern.log_g_se)
        ax_k.errorbar(kern.distance + 1, kern.g, yerr=[kern.g - low, high - kern.g], fmt="o",
                      color=color, ms=4, capsize=2, label=f"{r['model']}, from choices")
        kf = r["kernel_fit"]
        if "error" not in kf:
            dd = np.geomspace(1, kern.distance.max() + 1, 200)
            ax_k.plot(dd, kernel_fits.shape_kernel("exp_floor", kf)(dd - 1), color=color, lw=1)
    nn = np.array(sorted({n for r in results.values() for n in r["sweep"].n}), float)
    ax_n.plot(nn, 1 / nn, color=splot.THEORY_ALT, ls=":", label="$1/n$ (chance)")
    _n_axis(ax_n, nn)
    ax_n.set(yscale="log", xlabel="number of people $n$",
             ylabel="success (mass on the correct answer)",
             title="(a) success against $n$, with Theorem 3")
    p_line = np.linspace(0.5, 1, 200)
    for ax, title in ((ax_d, "(b) uniform probes, $n = 2$"), (ax_t, "(c) along the temperature")):
        ax.plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1, label="front (Theorem 1)")
        ax.set(xlabel="$p_I$ ($n = 2$)", ylabel="$p_S$ ($n = 2$)", title=title)
    if with_kernel:
        ax_k.set(xscale="log", yscale="log", xlabel="distance from the probe + 1 (years)",
                 ylabel="weight relative to the nearest", title="(d) kernel from the choices")
    else:
        fig.delaxes(ax_k)
    splot.legend_outside(fig, [ax for ax in axes.ravel() if ax in fig.axes], ncol=2)
    return _room(fig)


def fig_near(results: dict):
    """P(nearer person chosen) against the distance from that person, one panel per gap D,
    beyond the pair (filled) and between (open), with the best shape fitted to all panels."""
    Ds = sorted({d for r in results.values() for d in r["curve"].D.unique()})
    cols = 2 if len(Ds) > 1 else 1
    rows_ = math.ceil(len(Ds) / cols)
    fig, axes = splot.subplots(rows_, cols, figsize=(9, 3.4 * rows_), sharey=True,
                               squeeze=False)
    axes = axes.ravel()
    for k, r in enumerate(results.values()):
        color = splot.CYCLE[k % len(splot.CYCLE)]
        curve = r["curve"]
        for ax, D in zip(axes, Ds):
            for where, fill in (("beyond", color), ("between", "white")):
                sub = curve[(curve.D == D) & (curve["where"] == where)].sort_values("x")
                if sub.empty:
                    continue
                ax.errorbar(sub.x, sub.mass, yerr=[sub.mass - sub.mass_ci_low,
                                                   sub.mass_ci_high - sub.mass],
                            fmt="o", ms=4, color=color, mfc=fill, capsize=2, lw=0.8,
                            label=f"{r['model']}, {where}" if D == Ds[0] else None)
            if not r["does"]:
                continue
            b = r["best"]
            for where, ls in (("beyond", "-"), ("between", "--")):
                top = curve[(curve.D == D) & (curve["where"] == where)].x.max()
                if not np.isfinite(top):
                    continue
                x = np.linspace(0, top, 300)
                off = D + x if where == "beyond" else D - x
                ax.plot(x, near.p_correct(b["shape"], b["scale"], b["floor"], D, off,
                                             near.exact_of(b)),
                        color=color, ls=ls, lw=1.2)
    curve_max = max(r["curve"].x.max() for r in results.values())
    for i, (ax, D) in enumerate(zip(axes, Ds)):
        ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8, ls=":")
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlim(-0.2, curve_max * 1.15)
        ticks = [v for v in (0, 1, 3, 10, 30, 100, 300) if v <= curve_max]
        ax.set_xticks(ticks, [str(v) for v in ticks])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set(title=f"({chr(97 + i)}) people {2 * D:g} years apart (D = {D:g})",
               xlabel="years from the nearer person", ylabel="mass on the nearer person")
    for ax in axes[len(Ds):]:
        fig.delaxes(ax)
    splot.legend_outside(fig, [ax for ax in axes if ax in fig.axes], ncol=2)
    return _room(fig)

