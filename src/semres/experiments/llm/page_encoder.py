"""The sentence encoder on the page: its kernel and the shapes fitted to it, the paper's
two-reference design, the windows, p_S and p_I against n and along the temperature; their
figures, tables, glued numbers and sentences.

The science is in :mod:`.language`, :mod:`.kernel_fits` and :mod:`.two_reference`; the
decisions in :mod:`.verdicts`. Each ``publish_*`` function is one section of the chapter.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from myst_nb import glue

from semres.report import plotting as splot
from semres.report import tables
from semres.report.numbers import carried, mathify
from semres.core import theory
from semres.core.fits import GOF_KEYS, censored_warning
from semres.report.verdicts import misfit_warning

from . import verdicts
from .kernel_fits import SHAPE_LABELS, SHAPES, shape_kernel
from .verdicts import fit_numbers, measure_name, scalars

__all__ = ["fig_kernel", "fig_resolution", "fig_windows", "fig_nsweep", "fig_temperature",
           "fit_table", "wing_text", "window_summary", "publish_embeddings", "publish_kernel",
           "publish_resolution", "publish_windows", "publish_sweep", "publish_theorem3",
           "publish_temperature", "theorem3_text"]

#: the far probes whose gap from each curve the page quotes: more than this many years beyond D
FAR_BEYOND = 100


def _sentence(report, name: str, text: str, cites=None) -> None:
    """Glue a sentence for ``{glue:md}`` (plain weight, its math typeset), not as bold text,
    with the numbers of the row it describes (``cites``)."""
    report.text(name, mathify(text), markdown=True, cites=cites)


#: the headers of the tables the page shows, in words with units
HEADERS = {"shape": "Shape", "heldout_rmse": "Held-out error (RMSE of ln <i>g</i>)",
           "heldout_se": "Its standard error", "resolution": "Resolution (years)",
           "half_decay": "Half-decay λ ln 2 (years)",
           "half_decay_ci_low": "Half-decay's 95 % interval from (years)",
           "half_decay_ci_high": "to (years)",
           "floor": "Floor Δ (weight)", "at_bound": "Fit on a bound of its range",
           "measure": "Measure", "window": "Window <i>w</i> (years)",
           "ci_low": "95 % interval from (years)", "ci_high": "to (years)",
           "boot_at_bound": "Resampled fits on a bound (share)",
           "gof_p": "Goodness-of-fit <i>p</i>-value", "misfit": "Fails its goodness-of-fit test",
           "task": "Question", "n": "People listed <i>n</i>",
           "p": "Success (mass on the correct people)", "se": "Its standard error",
           "p_theory": "Engine's prediction (probability)",
           "theory_se": "Its standard error"}


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
    for ax, task in zip(axes, ("similarity", "identification")):
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
               title=f"{task}: $p_{'S' if task == 'similarity' else 'I'}^n$")
    axes[0].set_ylabel("success (Luce mass on the correct answer)")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


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



def fit_table(model: str, shape_fits: dict, shape_df, two_fit: dict, cfg):
    """``fit.csv``: every fit of the chapter's encoder, with its bound report and its
    goodness-of-fit test (a row with ``misfit`` True is not a measurement)."""
    keep = ("resolution", "floor", "at_bound", "bound_params", *GOF_KEYS)
    heldout = shape_df.set_index("shape").heldout_rmse
    rows = [{"model": model, "measure": f"kernel {s}", "window": int(cfg.fit_max),
             "lambda": f.get("lambda"), **{k: f.get(k) for k in keep},
             "heldout_rmse": float(heldout[s]), "ci_low": np.nan, "ci_high": np.nan}
            for s, f in shape_fits.items()]
    rows.append({"model": model, "measure": "two-reference fit",
                 "window": int(np.abs(cfg.offsets).max()), "lambda": two_fit["lambda"],
                 **{k: two_fit.get(k) for k in keep}, "heldout_rmse": np.nan,
                 "ci_low": two_fit["ci_low"], "ci_high": two_fit["ci_high"]})
    return pd.DataFrame(rows)


def wing_text(wings: dict, D: float) -> str:
    """The wing comparison in words; nothing when a wing holds no probe (no sentence is built
    on empty data)."""
    if not (np.isfinite(wings["p_before"]) and np.isfinite(wings["p_after"])
            and np.isfinite(wings["z"])):
        return ""
    numbers = (f"P(correct) more than {wings['beyond']:g} years past the nearer reference: "
               f"{wings['p_before']:.3f} before the pair, {wings['p_after']:.3f} after it, "
               f"|z| = {abs(wings['z']):.1f}")
    if wings["differ"]:
        return (f"The crossover pools the two wings of the design; at D = {D:g} they differ "
                f"({numbers}): the kernel depends on the years themselves, not only on their "
                "distance, which an average g(d) cannot carry.")
    return (f"The crossover pools the two wings of the design; at D = {D:g} they do not "
            f"differ detectably ({numbers}).")


def publish_embeddings(report, emb, questions: dict, temperature: float) -> None:
    """The encoder's temperature, its phrasings and the names and years of its kernel."""
    report.number("temperature", temperature)
    report.number("phrasings", len(questions["similarity"]) + len(questions["identification"]))
    report.number("kernel_names", len(emb.names))
    report.number("kernel_y0", emb.years[0])
    report.number("kernel_y1", emb.years[-1])


def publish_kernel(report, model: str, profile, g, se, shape_df, shape_fits: dict,
                   best_shape: str, shape_text: str, cfg) -> None:
    """The measured kernel (``kernel``), its figure with every shape fitted, the shape verdict,
    the numbers the prose quotes and the shapes table (``ch5_shape_table``, for a dropdown)."""
    report.table(pd.DataFrame({"model": model, "distance": profile.distance, "similarity": g,
                               "se": se}), "kernel")
    report.figure("kernel", fig_kernel(profile.distance, g, se, shape_fits, model, cfg.fit_max))
    _sentence(report, "shape_verdict", shape_text,
              cites=verdicts.shape_numbers(shape_df, shape_fits))
    _sentence(report, "exp_verdict",
              "the paper's single exponential with a floor is the best shape"
              if best_shape == "exp_floor" else "the paper's single exponential with a floor "
              "is not the best description of this kernel", cites={})
    report.number("exp_rmse", shape_df.set_index("shape").heldout_rmse["exp_floor"])
    report.number("g1_inv", 1 / g[1])
    at = [d for d in (100, 300, 500) if d < len(g)]
    report.text("g_at", ", ".join(f"$g({d}) \\approx$ {g[d]:.3f}" for d in at), markdown=True,
                cites={**{f"d{d}": d for d in at}, **{f"g{d}": g[d] for d in at}})
    report.number("fit_max", cfg.fit_max)
    report.number("folds", cfg.folds)
    glue(report.prefix + "shape_table", tables.table(
        shape_df.assign(shape=shape_df["shape"].map(SHAPE_LABELS))
        [["shape", "heldout_rmse", "heldout_se", "resolution", "floor", "at_bound"]],
        decimals=3, headers=HEADERS, floor="{:.2e}"), display=False)


def publish_resolution(report, model: str, res_df, two_fit: dict, cross: dict, wings: dict,
                       shape_fits: dict, shape_df, cfg) -> None:
    """The two-reference design on the encoder: its curves (``resolution``) and figure, the
    fit and the crossover with their notes, every fit of the encoder (``fit``), the two wings
    and the gaps far from the pair."""
    offsets = np.asarray(cfg.offsets)
    report.table(res_df, "resolution")
    report.figure("resolution", fig_resolution(res_df))
    for key, value in (("n_centres", len(cfg.centres)), ("off_lo", -offsets.min()),
                       ("off_hi", offsets.max()), ("off_step", np.diff(offsets).min()),
                       ("prompts", cfg.prompts), ("n_boot", cfg.n_boot),
                       ("two_lambda", two_fit["lambda"]), ("two_floor", two_fit["floor"]),
                       ("two_res", two_fit["resolution"]), ("cross", cross["resolution"]),
                       ("cross_lo", cross["ci_low"]), ("cross_hi", cross["ci_high"]),
                       ("two_lo", two_fit["ci_low"]), ("two_hi", two_fit["ci_high"])):
        report.number(key, value)
    _sentence(report, "two_note", misfit_warning("the two-reference curve", two_fit) or
              censored_warning("the two-reference curve", two_fit) or "",
              cites=fit_numbers(two_fit))
    two_caveat = (", though the curve does not describe its data"
                  if misfit_warning("the two-reference curve", two_fit) else
                  ", a number censored by the edge of its search range"
                  if censored_warning("the two-reference curve", two_fit) else "")
    report.text("two_summary", f"$\\lambda\\ln(1/\\Delta) =$ {two_fit['resolution']:.0f} years "
                f"(95 % interval {two_fit['ci_low']:.0f}–{two_fit['ci_high']:.0f}){two_caveat}",
                markdown=True, cites={**scalars(two_fit), "one": 1})
    cross_caveat = ", a number censored by the last probe" if cross.get("at_bound") else ""
    report.text("cross_summary", f"{cross['resolution']:.0f} years (95 % interval "
                f"{cross['ci_low']:.0f}–{cross['ci_high']:.0f}){cross_caveat}", markdown=True,
                cites=scalars(cross))
    report.table(fit_table(model, shape_fits, shape_df, two_fit, cfg), "fit")
    _sentence(report, "cross_note",
              "the preference is still distinguishable from chance at the last probe, so the "
              "crossover lies beyond the design and the number is censored"
              if cross.get("at_bound") else
              f"the preference is lost within the design (its last probe lies "
              f"{cross['x_max']:.0f} years beyond the nearer reference)", cites=scalars(cross))
    _sentence(report, "wing_text", wing_text(wings, max(cfg.Ds)),
              cites={**scalars(wings), "D": max(cfg.Ds)})
    far = res_df[res_df.offset.abs() >= res_df.D + FAR_BEYOND]
    for key, col in (("far_gap_fit", "p_fit"), ("far_gap_kernel", "p_kernel")):
        report.number(key, (far.p_correct - far[col]).abs().mean())


def window_summary(model: str, head, tail: dict, robust: bool) -> str:
    """Whether the encoder's resolution is a property of the model or of the fit window, in
    one plain paragraph before the window-by-window details."""
    if not head.decided:
        return ("This build's profile draws too few bootstrap resamples per window to say "
                f"whether the resolution of {model} depends on the fit window; the default "
                "profile decides it.")
    if head.stable and robust:
        r = head.row
        return (f"It is a property of the model: the {verdicts.measure_name(head.measure)} "
                f"settles at about {r['resolution']:.0f} years (95 % interval "
                f"{r['ci_low']:.0f}–{r['ci_high']:.0f}) however the windows are chosen.")
    why = (" The kernel is still falling where the measurements end, so a fitted floor sits "
           "wherever the window stops." if tail.get("falling") else "")
    return ("It is a property of the window, not of the model: as the window grows, every "
            "measure keeps moving by more than its own interval, or settles only for some "
            f"choices of windows, so no single number is the resolution of {model}.{why}")


def publish_windows(report, model: str, windows, head, tail: dict, choices, cfg) -> None:
    """Every resolution window by window: a plain summary (:func:`window_summary`), the verdict
    (:func:`verdicts.window_verdict`), whether it depends on the choice of windows
    (``window_choices``), the figure, the single exponential's spread and the reported
    measure's rows (``ch5_window_table``, for a dropdown)."""
    _sentence(report, "window_summary", window_summary(
        model, head, tail, verdicts.same_for_every_choice(choices)),
        cites={**scalars(head.row), **carried(model)})
    report.text("window_verdict", verdicts.window_verdict(model, head, tail, cfg.window_boot),
                markdown=True, cites={**verdicts.window_numbers(head, tail, cfg.window_boot),
                                      **carried(model)})
    choice_text = verdicts.choice_verdict(choices) if head.decided else ""
    _sentence(report, "window_choices", choice_text or "(With too few resamples no choice of "
              "windows is decided either.)", cites=verdicts.choice_numbers(choices))
    report.table(choices, "window_choices")
    report.figure("windows", fig_windows(windows, model))
    exp_rows = windows[windows.measure == "kernel exp_floor"]
    report.number("exp_w_lo", exp_rows.resolution.iloc[0])
    report.number("exp_w_hi", exp_rows.resolution.iloc[-1])
    report.number("exp_w0", exp_rows.window.iloc[0])
    report.number("exp_w1", exp_rows.window.iloc[-1])
    n_mis = int(exp_rows.misfit.sum())
    _sentence(report, "exp_w_fit", f", and it fails its goodness-of-fit test in {n_mis} of "
              f"{len(exp_rows)} windows: these numbers describe the window, they do not "
              "measure the model" if n_mis
              else ", and it passes its goodness-of-fit test in every window",
              cites={"misfits": n_mis, "windows": len(exp_rows)})
    for key, cfg_key, sep in (("windows", "windows", ", "), ("ref_windows", "ref_windows", ", "),
                              ("stable_range", "stable_windows", "–"),
                              ("ref_stable_range", "ref_stable", "–")):
        values = getattr(cfg, cfg_key)
        report.text(key, sep.join(map(str, values)), cites=scalars(list(values)))
    glue(report.prefix + "window_table", tables.table(
        windows[windows.headline].drop(columns=["model", "headline"]), decimals=1,
        headers=HEADERS, csv="resolution_by_window"), display=False)


def publish_sweep(report, model: str, sweep_df, sweep: dict, years, ns) -> None:
    """p_S and p_I against n (``n_sweep``), its figure, the numbers the prose quotes, the
    verdict's sentences and the table (``ch5_sweep_table``, for a dropdown)."""
    report.table(sweep_df, "n_sweep")
    report.figure("nsweep", fig_nsweep(sweep_df, model))
    sim = sweep_df[sweep_df.task == "similarity"].set_index("n")
    ide = sweep_df[sweep_df.task == "identification"].set_index("n")
    for key, value in (("sweep_y0", years[0]), ("sweep_y1", years[-1]), ("ps2", sim.p.loc[2]),
                       ("pi2", ide.p.loc[2]), ("ps_hi", sim.p.loc[max(ns)]),
                       ("pi_hi", ide.p.loc[max(ns)]), ("n_hi", max(ns)),
                       ("nps_hi", max(ns) * sim.p.loc[max(ns)])):
        report.number(key, value)
    _sentence(report, "sim_fit", sweep["similarity"]["text"],
              cites=scalars(sweep["similarity"]))
    _sentence(report, "id_fit", sweep["identification"]["text"],
              cites=scalars(sweep["identification"]))
    falls = sweep["similarity"]["falls"] and sweep["identification"]["falls"]
    _sentence(report, "falls", "both fall at every added person" if falls else
              "they do not fall at every step", cites={})
    glue(report.prefix + "sweep_table", tables.table(
        sweep_df.drop(columns=["model"]), decimals=3, headers=HEADERS, csv="n_sweep"),
        display=False)


def theorem3_text(model: str, forms: dict, sweep_df, bound) -> str:
    """Theorem 3 on the encoder's n-sweep in words: both forms fitted to both tasks, their
    parameters, largest misses and fits' sizes, and the floor bound at the fitted floor."""
    said = []
    for form in ("free", "floor"):
        fit = forms[form]
        q = verdicts.theorem3_params(fit)
        cells = verdicts.theorem3_grid(fit, sweep_df)
        worst = max(cells, key=lambda c: max(abs(c["ci"][0]), abs(c["ci"][1])))
        par = f"$b =$ {q['b']:.3f}" + (f", $\\Delta =$ {q['delta']:.3f}" if fit["floor"] else "")
        said.append(f"{'with a floor' if fit['floor'] else 'without a floor'} ({par}) its "
                    f"largest miss is {worst['headline']:+.3f} at "
                    f"{worst['cell'].replace('n = ', '$n =$ ')}, and it leaves a root-mean-"
                    f"square gap of {fit['rms_gap']:.3f} against {fit['rms_sampling']:.3f} "
                    f"from sampling alone (dispersion {fit['dispersion']:.1f})")
    return (f"Theorem 3's constant kernel fitted to both of {model}'s tasks at once: "
            + "; ".join(said) + ". " + verdicts.floor_bound_text(model, bound))


def theorem3_numbers(forms: dict, sweep_df, bound) -> dict:
    """What :func:`theorem3_text` quotes."""
    out = {"seven": 7, "three": 3}
    for form, fit in forms.items():
        out.update(scalars({k: v for k, v in fit.items() if k != "table"}, form))
        out.update(scalars(verdicts.theorem3_params(fit), f"{form}.q"))
        for c in verdicts.theorem3_grid(fit, sweep_df):
            out.update(scalars(c, f"{form}.{c['cell']}"))
    if len(bound):
        out.update(scalars(bound.drop(columns=["within"]).to_dict("list"), "bound"))
        out.update(values=len(bound), held=int(bound.within.sum()))
    return out


def publish_theorem3(report, model: str, forms: dict, sweep_df) -> None:
    """Theorem 3 with and without its floor on the encoder's n-sweep: both fits cell by cell
    (``theorem3_encoder``), the measured rates against chapter 7's floor bound at the fitted
    floor (``floor_bound_encoder``) and the sentence (``ch5_enc_t3_text``)."""
    report.table(pd.concat([f["table"].assign(form="with a floor" if f["floor"] else
                                              "no floor", b=f["b"], delta=f["delta"])
                            for f in forms.values()], ignore_index=True), "theorem3_encoder")
    bound = verdicts.floor_bound_table(forms["floor"], sweep_df)
    report.table(bound, "floor_bound_encoder")
    _sentence(report, "enc_t3_text", theorem3_text(model, forms, sweep_df, bound),
              cites={**theorem3_numbers(forms, sweep_df, bound), **carried(model)})


def publish_temperature(report, model: str, temp_df, trade_text: str,
                        temperature: float) -> None:
    """The encoder along the softmax temperature (``temperature``), the tradeoff's verdict, the
    figure, and where its own temperature puts it against the front."""
    report.table(temp_df, "temperature")
    report.text("tradeoff_verdict", mathify(trade_text), markdown=True,
                cites=verdicts.tradeoff_numbers(temp_df))
    report.figure("front", fig_temperature(temp_df, model, temperature))
    own = temp_df.iloc[(temp_df.temperature - temperature).abs().argmin()]
    for key, value in (("front_ps", own.p_s), ("front_pi", own.p_i),
                       ("front_gap", own.p_s - theory.front(min(max(own.p_i, 0.5), 1.0)))):
        report.number(key, value)
