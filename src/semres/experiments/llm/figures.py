"""Chapter 5's figures, in the book's one style; the captions are in the chapter."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.ticker import NullLocator

from semres.core import theory
from semres.report import plotting as splot

from . import kernel_fits, near
from .kernel_fits import SHAPE_LABELS, SHAPES, shape_kernel
from .verdicts import measure_name


#: room (inches) above and below each panel, so that a panel's title clears the axis label of
#: the panel above it when the phone layout stacks the panels in one column
PANEL_ROOM = 0.22


def _room(fig):
    """``fig`` with :data:`PANEL_ROOM` between its rows of panels (constrained layout)."""
    fig.get_layout_engine().set(h_pad=PANEL_ROOM)
    return fig


def fig_lambda(lam_df):
    """p_S, p_I against lambda, and the same runs on the plane, per floor."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    for (fl, sub), color in zip(lam_df.groupby("floor"), splot.CYCLE):
        axes[0].plot(sub["lambda"], sub.p_s, color=color, label=f"$p_S$, $\\Delta$ = {fl:g}")
        axes[0].plot(sub["lambda"], sub.p_i, color=color, ls="--",
                     label=f"$p_I$, $\\Delta$ = {fl:g}")
        axes[1].plot(sub.p_i, sub.p_s, "o-", ms=3, color=color)
    axes[0].set(xscale="log", xlabel="decay length $\\lambda$ (segment length 1)",
                ylabel="success", title="two items on the unit segment")
    p_line = np.linspace(0.5, 1, 200)
    axes[1].plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1,
                 label="constant-$g$ front")
    axes[1].set(xlabel="$p_I$", ylabel="$p_S$", title="the same runs in the $(p_I, p_S)$ plane")
    splot.legend_outside(fig, axes, ncol=4)
    return fig


def fig_kernel(prof_d, g, se, fits: dict, model: str, fit_max: int):
    """The measured kernel (log scale) with each fitted shape, whole range and first 60 years."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    for ax, xmax in zip(axes, (fit_max, 60)):
        sel = prof_d <= xmax
        ax.fill_between(prof_d[sel], (g - 2 * se)[sel], (g + 2 * se)[sel],
                        color=splot.CYCLE[0], alpha=0.25, lw=0)
        ax.plot(prof_d[sel], g[sel], ".", ms=3, color=splot.CYCLE[0],
                label="measured $g(d)$ ± 2 se")
        dd = np.linspace(1, xmax, 400)
        for (s, f), color, ls in zip(fits.items(), [splot.THEORY, *splot.CYCLE[1:4]],
                                     ("-", "--", "-.", ":")):
            ax.plot(dd, shape_kernel(s, f)(dd), color=color, ls=ls, lw=1.3,
                    label=SHAPE_LABELS[s])
        ax.set(xlabel="year distance $d$", ylabel="relative Luce weight $g(d)$", yscale="log",
               xlim=(-1, xmax))
    axes[0].set_title(f"{model} year kernel")
    axes[1].set_title("first 60 years")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


def fig_resolution(res_df, Ds=(20, 50, 100, 200)):
    """P(correct) against the probe offset, one panel per half-gap D."""
    show = [D for D in Ds if D in set(res_df.D)]
    fig, axes = splot.subplots(2, 2, figsize=(9, 6.4), sharex=True, sharey=True)
    for ax, D in zip(axes.ravel(), show):
        sub = res_df[res_df.D == D]
        ax.errorbar(sub.offset, sub.p_correct, yerr=2 * sub.se, fmt=".", ms=3, lw=0.8,
                    color=splot.CYCLE[0], label="model ± 2 se")
        ax.plot(sub.offset, sub.p_fit, color=splot.THEORY, label="two-reference fit (exp + floor)")
        ax.plot(sub.offset, sub.p_kernel, color=splot.CYCLE[1], ls="--", lw=1.2,
                label="measured kernel, Luce rule")
        ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8)
        for s in (-D, D):
            ax.axvline(s, color=splot.THEORY_ALT, ls=":", lw=0.8)
        ax.set_title(f"D = {D}")
    for ax in axes[-1]:
        ax.set_xlabel("probe offset $\\delta$ from the centre (years)")
    for ax in axes[:, 0]:
        ax.set_ylabel("P(correct)")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


def fig_windows(table, title: str):
    """Resolution against the fit window, kernel shapes left, the design right."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    styles = dict(zip([f"kernel {s}" for s in SHAPES] + ["two-reference fit", "chance crossover"],
                      [splot.THEORY, *splot.CYCLE[1:4], splot.CYCLE[0], splot.CYCLE[4]]))
    for ax, kind in zip(axes, ("kernel", "design")):
        sub_all = table[table.measure.str.startswith("kernel") == (kind == "kernel")]
        good = sub_all[~sub_all.at_bound.astype(bool) & np.isfinite(sub_all.ci_high)]
        top = 5 * float(good.ci_high.max() if len(good) else sub_all.resolution.median())
        for measure, sub in sub_all.groupby("measure", sort=False):
            label = measure_name(measure) + (" (reported)" if sub.headline.any() else "")
            y = sub.resolution.clip(upper=top)
            ax.errorbar(sub.window, y, yerr=[(y - sub.ci_low.clip(upper=top)).clip(lower=0),
                                             (sub.ci_high.clip(upper=top) - y).clip(lower=0)],
                        fmt="o-", ms=4, capsize=2, color=styles.get(measure, "0.3"),
                        lw=2.2 if sub.headline.any() else 1.2, label=label)
            cens = sub.at_bound.astype(bool).to_numpy()
            ax.plot(sub.window[cens], y[cens], "x", ms=9, color="0.2")
            bad = (sub["misfit"].fillna(False).astype(bool).to_numpy() if "misfit" in sub
                   else np.zeros(len(sub), bool))
            ax.plot(sub.window[bad], y[bad], "o", ms=6, mfc="white", zorder=4,
                    color=styles.get(measure, "0.3"))
        ax.plot([], [], "x", ms=9, color="0.2", label="fit on a bound (censored)")
        ax.plot([], [], "o", ms=6, mfc="white", color="0.2",
                label="fit fails its goodness-of-fit test")
        low = sub_all.ci_low[sub_all.ci_low > 0].clip(upper=top)
        ax.set_yscale("log")  # before the limits: a linear autoscale may put the bottom below 0
        ax.set_ylim(0.7 * float(low.min()) if len(low) else None, top * 1.2)
        ax.set(xlabel="kernel window $w$ (years; values above the axis are clipped to it)"
               if kind == "kernel" else "design window $|\\delta| \\leq w$ (years)",
               ylabel="resolution (years)")
    axes[0].set_title(f"{title}: kernel shapes")
    axes[1].set_title("two-reference design")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


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
        ax.set_xscale("log")
        ax.set_xticks([t for t in (2, 5, 10, 20, 50) if t <= nn.max()])
        ax.xaxis.set_major_formatter(plt.ScalarFormatter())
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set(yscale="log", xlabel="number of people $n$",
               title=f"({letter}) {task}: $p_{'S' if task == 'similarity' else 'I'}^n$")
    axes[0].set_ylabel("success (Luce mass on the correct answer)")
    splot.legend_outside(fig, axes, ncol=3)
    return _room(fig)


def fig_temperature(temp_df, model: str, own_T: float):
    """The model on the (p_I, p_S) plane, one point per softmax temperature, with the
    engine's prediction from the mean kernel at each and the universal front."""

    fig, ax = splot.subplots(figsize=(6.4, 5.0))
    p_line = np.linspace(0.5, 1, 200)
    ax.plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1.2,
            label="universal front (Theorem 1)")
    norm = LogNorm(temp_df.temperature.min(), temp_df.temperature.max())
    ax.plot(temp_df.p_i_theory, temp_df.p_s_theory, "--", color=splot.THEORY_ALT, lw=1)
    ax.scatter(temp_df.p_i_theory, temp_df.p_s_theory, marker="s", s=30, facecolors="none",
               edgecolors=plt.cm.viridis(norm(temp_df.temperature)), lw=1.2,
               label="engine, measured mean kernel")
    ax.plot(temp_df.p_i, temp_df.p_s, "-", color="0.6", lw=1)
    ax.errorbar(temp_df.p_i, temp_df.p_s, xerr=2 * temp_df.p_i_se, yerr=2 * temp_df.p_s_se,
                fmt="none", ecolor="0.5", lw=0.8)
    sc = ax.scatter(temp_df.p_i, temp_df.p_s, c=temp_df.temperature, norm=norm, cmap="viridis",
                    s=36, zorder=3, label=f"{model} ± 2 se")
    own = temp_df.iloc[(temp_df.temperature - own_T).abs().argmin()]
    ax.scatter([own.p_i], [own.p_s], s=150, facecolors="none", edgecolors=splot.CYCLE[1],
               lw=1.5, zorder=4, label=f"its trained T = {own_T:g}")
    fig.colorbar(sc, ax=ax, label="softmax temperature $T$", format="%g")
    top_y = max(0.8, float(temp_df[["p_s", "p_s_theory"]].max().max()) + 0.02)
    ax.set(xlabel="identification $p_I$ ($n = 2$)", ylabel="generalization $p_S$ ($n = 2$)",
           xlim=(0.45, 1.02), ylim=(0.45, top_y))
    splot.legend_outside(fig, ncol=2)
    return fig


def fig_gates(assessed: dict):
    """Every causal LM: the gate and the question asked backwards (left), what a linear
    read-out recovers of the year from each layer (right)."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    k_models = len(assessed)
    for k, a in enumerate(assessed.values()):
        color = splot.CYCLE[k % len(splot.CYCLE)]
        for j, key in enumerate(("gate", "reverse")):
            r = a[key]
            x = j + (k - (k_models - 1) / 2) * 0.18
            axes[0].errorbar([x], [r["p"]], yerr=[[r["p"] - r["ci_low"]],
                                                  [r["ci_high"] - r["p"]]],
                             fmt="o", color=color, capsize=3, label=a["model"] if j == 0 else None)
        prof = a["probe"]["profile"]
        depth = prof.layer / max(prof.layer.max(), 1)
        axes[1].plot(depth, prof.mae, color=color, marker=".")
        axes[1].plot(depth, prof.shuffled_mae_q05, color=color, ls=":", lw=1)
        axes[1].axhline(prof.digits_mae.iloc[0], color=color, ls="--", lw=1)
    axes[0].axhline(0.5, color=splot.THEORY_ALT, ls="--", lw=1, label="chance")
    axes[0].set(xticks=[0, 1], xticklabels=["who was born\nin P?", "when was\nX born?"],
                ylabel="mass on the correct option ($n = 2$)", xlim=(-0.5, 1.5),
                title="answers, both directions")
    axes[1].plot([], [], color="0.3", marker=".", label="hidden states")
    axes[1].plot([], [], color="0.3", ls=":", label="shuffled years (5 %)")
    axes[1].plot([], [], color="0.3", ls="--", label="the digits alone")
    axes[1].set(xlabel="layer (fraction of depth)", ylabel="error of the read-out (years)",
                title="hidden states: the year, read out", ylim=(0, None))
    splot.legend_outside(fig, axes, ncol=3)
    return fig


def fig_protocol(results: dict, near_results: dict):
    """The protocol on the models that pass: success against n with Theorem 3; each model on
    the (p_I, p_S) plane, measured and as its similarity fitted on the near design predicts,
    against Theorem 2's front at its fitted floor; the temperature on the same plane; and the
    kernel read from the choices of the models that do similarity (a panel only when one
    does)."""
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
    ax_n.set(xscale="log", yscale="log", xlabel="number of people $n$",
             ylabel="success (mass on the correct answer)",
             title="(a) success against $n$, with Theorem 3")
    ax_n.set_xticks(nn)
    ax_n.xaxis.set_major_formatter(plt.ScalarFormatter())
    ax_n.xaxis.set_minor_formatter(plt.NullFormatter())
    p_line = np.linspace(0.5, 1, 200)
    ax_d.plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1, label="front (Theorem 1)")
    ax_d.set(xlabel="$p_I$ ($n = 2$)", ylabel="$p_S$ ($n = 2$)",
             title="(b) uniform probes, $n = 2$")
    ax_t.plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1, label="front (Theorem 1)")
    ax_t.set(xlabel="$p_I$ ($n = 2$)", ylabel="$p_S$ ($n = 2$)",
             title="(c) along the temperature")
    if with_kernel:
        ax_k.set(xscale="log", yscale="log", xlabel="distance from the probe + 1 (years)",
                 ylabel="weight relative to the nearest", title="(d) kernel from the choices")
    else:
        fig.delaxes(ax_k)
    splot.legend_outside(fig, [ax for ax in axes.ravel() if ax in fig.axes], ncol=2)
    return _room(fig)


def fig_near(results: dict):
    """P(nearer person chosen) against the distance from that person, one panel per gap D:
    mean mass with its 95 % interval over names, beyond the pair (filled) and between the two
    (open), and the best shape fitted across all panels for each model that does similarity."""
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
                ax.plot(x, near.p_correct(b["shape"], b["scale"], b["floor"], D, off),
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

