"""Chapter 6's analysis of spatial answers, whichever model gave them: the Luce fits and their
rows, Theorem 3 against the number of shapes, the verdicts, the figures.

The same analyses run on three sources: the model trained (or loaded) here, the paper's two
models through the counts shipped from their authors' released answers, and any per-trial
results files in the book's schema. Written once here, each source gets exactly the same fit,
row and sentence; the chapter shows the calls and what they return. A function that decides a
status returns the keyword arguments of ``Report.result`` rather than writing the row itself,
so the chapter adds the rows in the order its summary lists them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import chi2

from . import scenes
from semres.core import choice, fits, kernels, theory
from semres.experiments import released
from semres.core import plotting as splot
from semres.core import results as tidy
from semres.report import fmt
from semres.core.seeds import named_seed
from semres.core.simulate import luce_success
from .vlm import (CANVAS_CHECK, CLEARANCE, EPS_GRID, FLOOR_LR, LAM_GRID, LAYOUT_P, MARGIN_BIN,
                  MISFIT, PROFILE_POINTS, SE_MIN, ball_fit, fit_exponential, fit_margin,
                  luce_exponential, luce_margin, one_radius, radius_text,
                  scale_identification)

GOF_KEYS = fits.GOF_KEYS
#: fit.csv's columns that only a likelihood fit has
NO_PROFILE = {"profile_low_px": np.nan, "profile_high_px": np.nan, "scale_no_floor_px": np.nan}


# --------------------------------------------------------------------------- scenes and checks

def example_scenes(rng) -> list:
    """The six scenes of the chapter's first figure: the map's layout and random scenes of
    both tasks with 4 to 12 shapes."""
    return [scenes.map_scenes(5)[7],
            scenes.sample_scene(rng, 8, "similarity"),
            scenes.sample_scene(rng, 12, "similarity"),
            scenes.sample_scene(rng, 4, "identification"),
            scenes.sample_scene(rng, 8, "identification"),
            scenes.sample_scene(rng, 12, "identification")]


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


def canvas_check(trials: int, stream, radii=CANVAS_CHECK["radii"], ns=CANVAS_CHECK["ns"],
                 grid: int = CANVAS_CHECK["grid"]) -> pd.DataFrame:
    """Theorem 3 on the canvas, in its heterogeneous form (the average over probes of
    p^n(b_p), b_p the clipped disc's area), against the engine's Luce rule with a constant
    kernel on :class:`semres.experiments.vlm_shapes.scenes.Canvas`: one row per radius, n and
    task."""
    ticks = (np.arange(grid) + 0.5) / grid
    probes = np.stack(np.meshgrid(ticks, ticks), axis=-1).reshape(-1, 2)
    rows = []
    for i, e in enumerate(radii):
        b_p = scenes.canvas_ball(probes, e)
        for n in ns:
            p_s, p_i = theory.n_item(b_p, n)
            for k, (task, th) in enumerate((("similarity", p_s.mean()),
                                            ("identification", p_i.mean()))):
                est = luce_success(scenes.Canvas(), kernels.Constant(e), task, n, trials,
                                   seed=stream("canvas_check", i, n, k))
                rows.append({"eps": e, "mean b": b_p.mean(), "task": task, "n": n,
                             "theory": th, "simulated": est.mean, "se": est.stderr,
                             "z": est.zscore(th)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- scored scenes

class Trials:
    """The geometry of scored scenes as the fits read it: distances, targets, margins, names."""

    def __init__(self, scene_list):
        self.scenes = list(scene_list)
        self.d = np.array([s.distances for s in self.scenes])
        self.t = np.array([s.target for s in self.scenes])
        self.m = np.array([s.margin for s in self.scenes])
        self.names = [list(s.names) for s in self.scenes]


def biased_p(d, names, target, f) -> np.ndarray:
    """P(correct) that a fitted biased Luce rule ``f`` gives each trial."""
    return np.array([q[t] for q, t in zip(choice.choice_probs(
        d, names, f["scale"], f["floor"], f.get("weights")), target)])


def margin_bins(m, bins: int):
    """Equal-count margin bins: the bin of each trial (and the cut points)."""
    cut = np.unique(np.quantile(m, np.linspace(0, 1, bins + 1)))
    return np.clip(np.digitize(m, cut[1:-1]), 0, len(cut) - 2)


def margin_gof(p, pred, m, params: int, bins: int) -> dict:
    """Chi-square of binned mean P(correct) against a prediction, in equal-count margin bins
    (a bin without spread gets the standard error
    :data:`~semres.experiments.vlm_shapes.vlm.SE_MIN`)."""
    tab = pd.DataFrame({"k": margin_bins(m, bins), "p": p, "q": pred}).groupby("k").agg(
        p=("p", "mean"), q=("q", "mean"), sd=("p", "std"), n=("p", "size"))
    se = np.maximum(tab.sd.fillna(0) / np.sqrt(tab.n), SE_MIN)
    return fits.gof_chi2(tab.p, tab.q, se, params)


def binned_gof(trials: Trials, p, bins: int):
    """The goodness of fit of a biased Luce rule to P(correct) in margin bins: its kernel's
    scale and floor count against the bins (the weights are set by which wrong names are
    chosen, which the bins do not see). Returns ``gof(fit, params)`` for :func:`choice_rows`."""
    def gof(f, params):
        pred = biased_p(trials.d, trials.names, trials.t, f)
        return margin_gof(p, pred, trials.m, 1 + int(f["floor"] > 0), bins)
    return gof


def choice_rows(label: str, source: str, d, names, px: float, boot: int, seed,
                choices=None, probs=None, gof=None):
    """The likelihood fits every model gets on its similarity trials: the Luce rule with the
    exponential kernel, without and with one response weight per answer, each with its scale's
    likelihood profile and (``gof(fit, params)``) its goodness of fit. Rows for fit.csv, and
    the biased fit itself."""
    out, biased = [], None
    for bias in (False, True):
        f = choice.fit_choices(d, names, choice=choices, probs=probs, bias=bias, boot=boot,
                               seed=seed, progress=True, profile=PROFILE_POINTS)
        params = 1 + int(f["floor"] > 0) + (len(f["weights"]) - 1 if bias else 0)
        f.update(gof(f, params))
        out.append({"model": label, "source": source,
                    "kernel": "exponential + response bias (ML)" if bias else
                    "exponential (ML)", "scale_frac": f["scale"], "scale_px": f["scale"] * px,
                    "ci_low_px": f["scale_ci"][0] * px, "ci_high_px": f["scale_ci"][1] * px,
                    "floor": f["floor"], "trials": f["trials"], "distance_p": f["distance_p"],
                    "boot_at_bound": f["boot_at_bound"], "at_bound": f["at_bound"],
                    "bound_params": ",".join(x for x in (f["bound_params"], (
                        "floor=0 (LR {:.2g})".format(f["floor_lr"])
                        if 0 < f["floor_lr"] < FLOOR_LR else "")) if x),
                    "profile_low_px": f["profile_ci"][0] * px,
                    "profile_high_px": f["profile_ci"][1] * px,
                    "scale_no_floor_px": f["scale_no_floor"] * px,
                    **{key: f[key] for key in GOF_KEYS}})
        biased = f if bias else biased
    return out, biased


def weight_rows(label: str, f) -> list:
    """The fitted response weights with their bootstrap intervals, for fit_weights.csv."""
    return [{"model": label, "answer": n, "weight": w, "ci_low": f["weights_ci"][n][0],
             "ci_high": f["weights_ci"][n][1],
             "at_bound": f"weight[{n}]=" in f["bound_params"]}
            for n, w in f["weights"].items()]


def least_squares(trials: Trials, p, label: str, px: float, boot: int, seed, bins: int):
    """The least-squares fits to P(correct) that check the likelihood fit: the exponential
    kernel and a margin resolution, with bootstrap intervals over the scenes. Returns their
    fit.csv rows, both fits and the intervals (2 x 2: low/high of scale and eps)."""
    d, t = trials.d, trials.t
    fe, fm = fit_exponential(d, t, p), fit_margin(d, t, p)

    def refit(i):
        be, bm = (fit(d[i], t[i], p[i]) for fit in (fit_exponential, fit_margin))
        return be["scale"], bm["eps"], be["at_bound"], bm["at_bound"]

    draws = np.array(fits.bootstrap_map(refit, len(p), boot, seed, progress=True,
                                        desc="least-squares bootstrap"))
    ci = np.percentile(draws[:, :2], [2.5, 97.5], axis=0)
    gof_ls = margin_gof(p, luce_exponential(d, t, fe["scale"], fe["floor"]), trials.m,
                        1 + int(fe["floor"] > 0), bins)
    gof_mar = margin_gof(p, luce_margin(d, t, fm["eps"]), trials.m, 1, bins)
    rows = [
        {"model": label, "source": "live", "kernel": "exponential (least squares)",
         "scale_frac": fe["scale"], "scale_px": fe["scale"] * px,
         "ci_low_px": ci[0, 0] * px, "ci_high_px": ci[1, 0] * px,
         "floor": fe["floor"], "trials": len(p), "distance_p": np.nan,
         "boot_at_bound": fits.bootstrap_at_bound(draws[:, 2]), "at_bound": fe["at_bound"],
         "bound_params": fe["bound_params"], **NO_PROFILE, **gof_ls},
        {"model": label, "source": "live", "kernel": "margin resolution (least squares)",
         "scale_frac": fm["eps"], "scale_px": fm["eps"] * px,
         "ci_low_px": ci[0, 1] * px, "ci_high_px": ci[1, 1] * px, "floor": np.nan,
         "trials": len(p), "distance_p": np.nan,
         "boot_at_bound": fits.bootstrap_at_bound(draws[:, 3]), "at_bound": fm["at_bound"],
         "bound_params": fm["bound_params"], **NO_PROFILE, **gof_mar}]
    return rows, fe, fm, ci


# --------------------------------------------------------------------------- verdicts

def scale_verdict(label: str, f, px: float, resolution: float, design_hi: float,
                  statement: str | None = None, agree=None, unit: str = "px",
                  stand_in: str = ""):
    """Whether the answers carry an identified spatial scale
    (:func:`semres.experiments.vlm_shapes.vlm.
    scale_identification`), in words; with a ``statement``, also the overview row (the keyword
    arguments of ``Report.result``, else None): reproduced when identified, not identified
    (with why) when not, misfit when the rule does not describe the answers."""
    ok, why = scale_identification(f, resolution, design_hi, agree, px, unit)
    misfit = bool(f["misfit"])
    row = None
    if statement:
        row = dict(result=f"{label}: spatial scale of the biased Luce rule",
                   statement=f"{MISFIT}, so no scale is measured (the test was: {statement})"
                   if misfit else statement + ("" if ok else "; why not: " + "; ".join(why)),
                   misfit=misfit, identified=ok, passed=ok, stand_in=stand_in,
                   # a scale the paper never gives: beyond it ("holds"), never "reproduced"
                   new=True,
                   # only an identified scale is quoted as a number
                   headline=f["scale"] * px if ok and not misfit else None,
                   ci=(f["scale_ci"][0] * px, f["scale_ci"][1] * px)
                   if ok and not misfit else None)
    fit_text = (f"{f['gof_test']} {f['gof_stat']:.1f} on {f['gof_df']:g} degrees of freedom, "
                f"{fits.gof_pvalue(f)}")
    if misfit:
        text = (f"For {label}, {MISFIT}: the biased Luce rule's {fit_text}; its scale "
                f"({fmt(f['scale'] * px)} {unit}) is not a measurement.")
    elif not ok:
        text = (f"{label}'s spatial scale is not identified: " + "; ".join(why)
                + f" (fit: {fit_text}; the scale's likelihood set "
                f"{fmt(f['profile_ci'][0] * px)}–{fmt(f['profile_ci'][1] * px)} {unit}, "
                f"{fmt(f['scale_no_floor'] * px)} {unit} without a floor).")
    else:
        text = (f"{label}'s spatial scale is identified: {fmt(f['scale'] * px)} {unit} "
                f"(likelihood set {fmt(f['profile_ci'][0] * px)}–{fmt(f['profile_ci'][1] * px)} "
                f"{unit}; {fit_text}).")
    return text, row


def estimators(ci, ml_row: dict, biased, px: float):
    """The three estimators of the scale (least squares on P(correct), ML without and with
    response weights) with their intervals, whether those overlap (a necessary condition for
    an identified scale, not a test of equality), and the sentence saying so."""
    est = {"least squares": (ci[0, 0], ci[1, 0]),
           "ML": (ml_row["ci_low_px"] / px, ml_row["ci_high_px"] / px),
           "ML with weights": biased["scale_ci"]}
    agree = max(lo for lo, hi in est.values()) <= min(hi for lo, hi in est.values())
    text = "; ".join(f"{k} {fmt(v[0] * px)}–{fmt(v[1] * px)} px" for k, v in est.items()) + (
        ": their intervals overlap." if agree else ": their intervals do not overlap.")
    return agree, text


def live_numbers(biased, fe, fm, ci, fit_p, map_p, px: float, boot: int) -> dict:
    """The numbers the margin section quotes: the biased rule's scale and floor, the
    least-squares scales, accuracies, and the most favoured answer's weight."""
    weights = biased["weights"]
    top = max(weights, key=weights.get)
    return {"scale_px": biased["scale"] * px, "scale_frac": biased["scale"],
            "floor": biased["floor"], "scale_lo": biased["scale_ci"][0] * px,
            "scale_hi": biased["scale_ci"][1] * px, "ls_scale_px": fe["scale"] * px,
            "eps_px": fm["eps"] * px, "eps_frac": fm["eps"], "eps_lo": ci[0, 1] * px,
            "eps_hi": ci[1, 1] * px, "eps_match": 2 * np.log(2) * biased["scale"],
            "fit_acc": fit_p.mean(), "map_acc": map_p.mean(), "choice_boot": boot,
            "fit_n": len(fit_p), "top_weight": weights[top], "uniform_weight": 1 / len(weights),
            "top_answer": f"“{top}”"}


# --------------------------------------------------------------------------- figures

def fig_map(map_list, map_p, biased, fm, grid: int, fine: int = 300):
    """The accuracy map: the model's P(correct) over the X positions of the four-shape layout
    beside the fitted biased Luce rule's, with the decision boundaries and (when that fit is not
    censored) the edges of the fitted margin resolution's error band."""
    probe_xy = np.array([s.probe for s in map_list])
    layout = np.array(list(scenes.PAPER_LAYOUT.values()))
    map_t = Trials(map_list)
    map_pred = biased_p(map_t.d, map_t.names, map_t.t, biased)
    ticks = (np.arange(fine) + 0.5) / fine
    fx, fy = np.meshgrid(ticks, ticks)
    fd = np.linalg.norm(np.stack([fx, fy], -1)[..., None, :] - layout, axis=-1)
    nearest = np.argmin(fd, axis=-1)
    fd_sorted = np.sort(fd, axis=-1)
    eps_fit = fm["eps"]
    fig, axes = splot.subplots(1, 2, figsize=(7.2, 3.9), sharey=True)
    cells = np.floor(probe_xy * grid).astype(int)
    for ax, vals, title in ((axes[0], map_p, "model"),
                            (axes[1], map_pred, "fitted biased Luce rule")):
        img = np.full((grid, grid), np.nan)
        img[cells[:, 1], cells[:, 0]] = vals
        im = ax.imshow(img, extent=(0, 1, 1, 0), cmap="viridis", vmin=0, vmax=1,
                       interpolation="nearest")
        ax.contour(ticks, ticks, nearest, levels=np.arange(3) + 0.5, colors="w", linewidths=1)
        gap_field = fd_sorted[..., 1] - fd_sorted[..., 0]
        if not fm["at_bound"] and gap_field.min() < eps_fit < gap_field.max():
            ax.contour(ticks, ticks, gap_field, levels=[eps_fit], colors="w", linewidths=0.6,
                       linestyles=":")
        for name, (px, py) in scenes.PAPER_LAYOUT.items():
            ax.annotate(name, (px, py), ha="center", va="center", fontsize=9, color="w",
                        weight="bold")
        ax.set(xlim=(0, 1), ylim=(1, 0), aspect="equal", title=title,
               xlabel="X position (canvas)")
        ax.grid(False)
    axes[0].set_ylabel("y (canvas, down)")
    fig.colorbar(im, ax=axes, shrink=0.8, label="P(correct)")
    return fig


def binned_accuracy(trials: Trials, p, biased, eps: float, bins: int) -> pd.DataFrame:
    """Mean P(correct) in equal-count margin bins, with its spread, beside the biased Luce
    rule's and the margin resolution's predictions averaged over the same bins."""
    binned = pd.DataFrame({"bin": margin_bins(trials.m, bins), "m": trials.m, "p": p,
                           "bias": biased_p(trials.d, trials.names, trials.t, biased),
                           "mar": luce_margin(trials.d, trials.t, eps)})
    return binned.groupby("bin").agg(m=("m", "mean"), p=("p", "mean"), sd=("p", "std"),
                                     k=("p", "size"), bias=("bias", "mean"),
                                     mar=("mar", "mean"))


def fig_margin(m, p, agg, px: float):
    """P(correct) of the four-shape scenes against the margin, binned, with the fitted curves."""
    fig, ax = splot.subplots(figsize=(6.2, 3.8))
    ax.scatter(m * px, p, s=6, alpha=0.25, color=splot.CYCLE[0], label="scenes")
    ax.errorbar(agg["m"] * px, agg["p"], yerr=agg["sd"] / np.sqrt(agg["k"]), fmt="o",
                color=splot.CYCLE[0], label="binned mean ± s.e.")
    ax.plot(agg["m"] * px, agg["bias"], "-", color=splot.THEORY,
            label="biased Luce rule (ML fit)")
    ax.plot(agg["m"] * px, agg["mar"], "--", color=splot.THEORY_ALT,
            label="margin resolution (LS fit)")
    ax.axhline(0.25, color="0.7", lw=0.8, label="chance (1/4)")
    ax.set(xlabel="margin $d_2 - d_1$ (pixels)", ylabel="P(correct)", ylim=(0, 1.02))
    splot.legend_outside(fig, ax, ncol=2)
    return fig


# --------------------------------------------------------------------------- the n sweep

def theorem3_curve(probes, n: int, task: str, grid=EPS_GRID) -> np.ndarray:
    """Theorem 3 in its heterogeneous form on the canvas: the average over the scenes' probes
    of p^n(b_p) for each radius of ``grid`` (each scene's own ball measure)."""
    b_p = scenes.ball_measures(probes, grid, task)  # (scenes, radii)
    return theory.n_item(b_p, n)[0 if task == "similarity" else 1].mean(axis=0)


def hue_curves(ns, grid=EPS_GRID) -> dict:
    """Theorem 3 on the hue circle (homogeneous, b = 2 eps up to 1), per task and n."""
    b = np.minimum(2 * grid, 1.0)
    return {(t, n): theory.n_item(b, n)[0 if t == "similarity" else 1]
            for t in scenes.TASKS for n in ns}


def scene_rows(label: str, scene_list, p, name: str) -> list:
    """scenes.csv rows: each scored scene's probe, answer, P(correct) and margin."""
    return [{"model": label, "task": s.task, "n": s.n, "x": s.probe[0], "y": s.probe[1],
             "target": s.answer, "p_correct": q, "margin": s.margin, "set": name}
            for s, q in zip(scene_list, p)]


def sweep_table(label: str, lists: dict, p: dict, biased):
    """p(n) per task and n of the scored sweep (``lists`` and ``p`` keyed by (task, n)), with
    its standard error over scenes and the biased Luce rule's prediction (``p_kernel``);
    Theorem 3's curves and the scenes' geometry for the fits that follow."""
    rows, curves, geometry = [], {}, {}
    for (task, n), lst in lists.items():
        trials = Trials(lst)
        curves[task, n] = theorem3_curve(np.array([s.probe for s in lst]), n, task)
        geometry[task, n] = (trials.d, trials.t)
        kern = biased_p(trials.d, trials.names, trials.t, biased)
        rows.append({"model": label, "task": task, "n": n, "p": p[task, n].mean(),
                     "se": p[task, n].std(ddof=1) / np.sqrt(len(p[task, n])),
                     "p_kernel": float(np.mean(kern))})
    return pd.DataFrame(rows), curves, geometry


def ball_fit_rows(tab, task: str, curves: dict, clear: float = 0.0):
    """Theorem 3's radius for one task's p(n) rows (columns n, p, se):
    :func:`semres.experiments.vlm_shapes.vlm.
    ball_fit` on :data:`~semres.experiments.vlm_shapes.vlm.EPS_GRID`."""
    return ball_fit(tab["n"], tab["p"], tab["se"], {n: curves[task, n] for n in tab["n"]},
                    EPS_GRID, clear)


def ball_fits(sweep, curves):
    """Theorem 3's radius fitted to each task (above the clearance the design makes perfect),
    and each task's curve at both radii (``p_theory_sim``, ``p_theory_ide``) added to
    ``sweep``."""
    ball = {task: ball_fit_rows(sweep[sweep.task == task], task, curves, CLEARANCE[task])
            for task in scenes.TASKS}
    for task in scenes.TASKS:  # each task's curve at the other task's radius, and its own
        for which in scenes.TASKS:
            sweep.loc[sweep.task == task, f"p_theory_{which[:3]}"] = [
                np.interp(ball[which]["eps"], EPS_GRID, curves[task, n])
                for n in sweep.loc[sweep.task == task, "n"]]
    return ball


def ball_row(label: str, source: str, task: str, f, px: float, trials: int) -> dict:
    """fit.csv's row of a Theorem 3 radius (``px`` NaN where the unit is not pixels)."""
    return {"model": label, "source": source, "kernel": f"Theorem 3 ball radius, {task}",
            "scale_frac": f["eps"], "scale_px": f["eps"] * px,
            "ci_low_px": f["ci_low"] * px, "ci_high_px": f["ci_high"] * px, "floor": np.nan,
            "trials": trials, "distance_p": np.nan, "boot_at_bound": np.nan,
            "at_bound": f["at_bound"], "bound_params": f["bound_params"], **NO_PROFILE,
            **{key: f[key] for key in GOF_KEYS}}


def two_task_verdict(label: str, fitted: dict, result: str | None, statement: str | None,
                     px: float = 1.0, unit: str = "of the canvas"):
    """One resolution for both tasks? :func:`semres.experiments.vlm_shapes.vlm.one_radius` on the
    two radius fits: a
    sentence (None without both fits), and the overview row ``result`` (keyword arguments of
    ``Report.result``, or None) with the difference of the radii and its interval against 0:
    inconclusive when the interval covers 0 (equal radii are not rejected, which is no
    measurement that they are equal), does not hold when it excludes 0."""
    v = one_radius(label, fitted.get("similarity"), fitted.get("identification"), px, unit)
    row = None
    if result and v["text"]:
        row = dict(
            result=result, statement=f"{MISFIT}, so no radius is compared (the test was: "
            f"{statement})" if v["misfit"] else statement + (
                "" if v["identified"] else "; the radius is not identified by both tasks")
            + ("" if v["p_equal"] is None else f" (equal radii: {splot.pvalue(v['p_equal'])})"),
            misfit=v["misfit"], identified=v["identified"], new=True,
            headline=v["difference"], ci=v["ci"], compared_with=0.0,
            compared_with_label="equal radii", tolerance=0.0, tolerance_reason="no allowance: "
            "nothing sets how different two radii may be and still count as one")
    return v["text"], row


def graded_fits(sweep, geometry, label: str, px: float, scenes_per_n: int):
    """The graded kernel without a floor, g = exp(-d / lambda), fitted to p(n) by least squares
    on :data:`~semres.experiments.vlm_shapes.vlm.LAM_GRID`: per task and one scale for both. The
    fits and their rows."""
    lam_pred = {(task, n): np.array([luce_exponential(*geometry[task, n], lam).mean()
                                     for lam in LAM_GRID]) for task, n in geometry}
    graded, rows = {}, []
    for name, tasks in (("similarity", ["similarity"]), ("identification", ["identification"]),
                        ("both tasks", list(scenes.TASKS))):
        part = sweep[sweep.task.isin(tasks)]
        se = np.maximum(part.se.to_numpy(), SE_MIN)
        pred = np.array([lam_pred[t, n] for t, n in zip(part.task, part.n)])  # (rows, lambdas)
        stat = (((part.p.to_numpy()[:, None] - pred) / se[:, None]) ** 2).sum(axis=0)
        j = int(np.argmin(stat))
        graded[name] = {"lam": float(LAM_GRID[j]), "at_bound": j in (0, len(LAM_GRID) - 1),
                        **fits.gof_chi2(part.p, pred[:, j], se, 1)}
        rows.append({"model": label, "source": "live",
                     "kernel": f"exponential without floor on p(n), {name}",
                     "scale_frac": LAM_GRID[j], "scale_px": LAM_GRID[j] * px,
                     "ci_low_px": np.nan, "ci_high_px": np.nan, "floor": 0.0,
                     "trials": int(scenes_per_n * len(part)), "distance_p": np.nan,
                     "boot_at_bound": np.nan, "at_bound": graded[name]["at_bound"],
                     "bound_params": "lambda=grid" if graded[name]["at_bound"] else "",
                     **NO_PROFILE, **{key: graded[name][key] for key in GOF_KEYS}})
    return graded, rows


def gof_words(g) -> str:
    """A fit's chi-square in words, and "misfit" when it is one."""
    return (f"χ² = {g['gof_stat']:.1f} on {g['gof_df']} df, {fits.gof_pvalue(g)}"
            + (f": {MISFIT}" if g["misfit"] else ""))


def frontier_text(sim, ide) -> str:
    """Where the model's two-item point lies against chapter 7's universal front, and what
    that says of its kernel (above by more than two standard errors: graded, no floor)."""
    if not (2 in sim.index and ide.p[2] >= 0.5):
        return ("The sweep has no n = 2 with p_I ≥ 1/2, so the model is not placed against "
                "chapter 7's two-item front.")
    front_ps = float(theory.front(ide.p[2]))
    gap = float(sim.p[2] - front_ps)
    z = gap / max(float(sim.se[2]), 1e-9)
    where = ("above" if z > 2 else "below" if z < -2 else "within two standard errors of")
    return (f"At n = 2 the model's (p_I, p_S) = ({ide.p[2]:.3f}, {sim.p[2]:.3f}) lies {where} "
            f"chapter 7's universal two-item front (p_S = {front_ps:.3f} at that p_I; "
            f"{gap:+.3f}, {z:+.1f} standard errors). "
            + ("Chapter 7 proves a kernel with a floor cannot pass above the front and a graded "
               "kernel without a floor can: the model behaves as a graded similarity without a "
               "floor, which a constant (ball) kernel is not." if z > 2 else
               "A kernel with a floor stays on or below the front (chapter 7), so this does not "
               "separate the kernels."))


def sweep_glue(sweep, ball, graded, px: float) -> dict:
    """What the n-sweep section quotes: p_S and p_I at the smallest and largest n, the radii
    in words, the three kernels' goodness of fit, the chapter 7 placement and the biased Luce
    rule's root-mean-square miss."""
    sim, ide = (sweep[sweep.task == t].set_index("n") for t in scenes.TASKS)
    n_lo, n_hi = int(sweep.n.min()), int(sweep.n.max())
    rmse = {t: float(np.sqrt(np.mean((tab.p - tab.p_kernel) ** 2)))
            for t, tab in (("similarity", sim), ("identification", ide))}
    return {
        "ps_lo": sim.p[n_lo], "ps_hi": sim.p[n_hi], "pi_lo": ide.p[n_lo], "pi_hi": ide.p[n_hi],
        "n_lo": n_lo, "n_hi": n_hi,
        "kernels": "Three kernels against p(n): the step (Theorem 3's ball) — "
        + "; ".join(f"{t} {gof_words(ball[t])}" for t in scenes.TASKS)
        + "; the graded exponential without a floor — "
        + "; ".join(f"{t}, λ = {fmt(g['lam'] * px)} px, {gof_words(g)}"
                    for t, g in graded.items())
        + "; the biased Luce rule of the four-shape fit (not refitted) misses by the "
        "root-mean-square below.",
        "frontier": frontier_text(sim, ide),
        "radii": "; ".join(radius_text(t, ball[t], px) for t in scenes.TASKS) + ".",
        "kern_rmse_s": rmse["similarity"], "kern_rmse_i": rmse["identification"]}


def fig_nsweep(sweep):
    """p_S and p_I against the number of shapes, with Theorem 3 at each task's fitted radius,
    the biased Luce rule of the four-shape fit, and chance."""
    n_hi = int(sweep.n.max())
    fig, axes = splot.subplots(1, 2, figsize=(7.2, 3.6), sharey=True)
    for ax, task in zip(axes, scenes.TASKS):
        tab = sweep[sweep.task == task].set_index("n")
        ax.errorbar(tab.index, tab.p, yerr=tab.se, fmt="o", color=splot.CYCLE[0], label="model")
        ax.plot(tab.index, tab["p_theory_sim"], "-", color=splot.THEORY,
                label=r"Theorem 3, $\varepsilon$ fitted to $p_S$")
        ax.plot(tab.index, tab["p_theory_ide"], "-.", color=splot.CYCLE[1],
                label=r"Theorem 3, $\varepsilon$ fitted to $p_I$")
        ax.plot(tab.index, tab.p_kernel, "--", color=splot.THEORY_ALT,
                label="biased Luce rule of the margin fit")
        nn = np.arange(2, n_hi + 1)
        ax.plot(nn, 1 / nn, ":", color="0.6", label="chance, 1/n")
        letter = "S" if task == "similarity" else "I"
        ax.set(xlabel="number of shapes n", title=f"{task} ($p_{letter}$)", ylim=(0, 1.02))
    axes[0].set_ylabel("P(correct)")
    splot.legend_outside(fig, axes, ncol=2)
    return fig


# --------------------------------------------------------------------------- other models' answers

def margin_counts(label: str, source: str, task: str, n: int, m, correct, width: float) -> list:
    """external.csv rows: trials and correct answers per margin bin of ``width`` (canvas or hue
    units)."""
    k = np.floor(np.asarray(m) / width + 1e-9).astype(int)
    tab = pd.DataFrame({"k": k, "c": np.asarray(correct, int)}).groupby("k")["c"].agg(
        ["size", "sum"]).reset_index()
    return [{"model": label, "source": source, "task": task, "n": int(n),
             "bin": f"[{kk * width:g},{(kk + 1) * width:g})", "bin_mid": (kk + 0.5) * width,
             "trials": int(tr), "correct": int(c)} for kk, tr, c in tab.itertuples(index=False)]


def margin_rows(tab) -> list:
    """external.csv rows from a shipped table of counts per margin bin."""
    return [{"model": r.model, "source": r.source, "task": r.task, "n": int(r.n), "bin": r.bin,
             "bin_mid": (r.bin_lo + r.bin_hi) / 2, "trials": int(r.trials),
             "correct": int(r.correct)} for r in tab.itertuples(index=False)]


def nearest_gof(d, names, choices, width: float = MARGIN_BIN["canvas"]):
    """A binomial deviance of the correct answers in margin bins of ``width`` against a fitted
    biased Luce rule: ``gof(fit, params)`` for :func:`choice_rows` on choices."""
    m = np.array([np.diff(np.sort(x)[:2])[0] for x in d])
    ok = np.array([c >= 0 and x[c] == np.min(x) for x, c in zip(d, choices)])
    k = np.floor(m / width).astype(int)

    def gof(f, params):
        q = np.array([pr[np.argmin(x)] for pr, x in zip(choice.choice_probs(
            d, names, f["scale"], f["floor"], f["weights"]), d)])
        tab = pd.DataFrame({"k": k, "ok": ok, "q": q}).groupby("k").agg(
            ok=("ok", "sum"), n=("ok", "size"), q=("q", "mean"))
        return fits.gof_multinomial(np.c_[tab.ok, tab.n - tab.ok], np.c_[tab.q, 1 - tab.q],
                                    params)
    return gof


def analyse_choices(label: str, source: str, d, names, choices, px: float, resolution: float,
                    boot: int, seed, gof=None, statement: str | None = None) -> dict:
    """Biased and plain Luce fits of a model's similarity choices (:func:`choice_rows`): fit
    rows, weight rows, the verdict on its scale (and, with a ``statement``, its overview row).
    ``resolution``: the finest distance the data resolve (a grid cell, a pixel); ``gof``
    defaults to :func:`nearest_gof`."""
    dd, _ = choice.pad(d)
    rows, f = choice_rows(label, source, d, names, px, boot, seed, choices=choices,
                          gof=gof or nearest_gof(d, names, choices))
    text, row = scale_verdict(label, f, px, resolution,
                              float(np.nanmax(np.where(np.isfinite(dd), dd, np.nan))), statement)
    return {"fits": rows, "weights": weight_rows(label, f), "verdict": text, "result": row,
            "fit": f}


def _grid_trials(g: dict, counts) -> tuple:
    """Counts per (grid cell, shape) as trials: each trial's distances (its cell's) and the
    shape chosen."""
    cell, k = np.nonzero(counts)
    reps = np.asarray(counts)[cell, k].astype(int)
    return np.repeat(g["d"][cell], reps, axis=0), np.repeat(k, reps)


def authors_grid(grid_tab, boot: int, seed, gof_boot: int = 0) -> dict:
    """The paper's models from the shipped grid counts: each trial's X at its cell's mean
    position, every chosen shape a trial; the biased Luce rule fitted to each model, with a
    multinomial deviance over the grid cells, referred to ``gof_boot`` parametric-bootstrap
    refits where the cells are sparse (:func:`semres.core.fits.gof_counts`). Per model (sorted
    by name), what :func:`analyse_choices` returns."""
    px, names = float(scenes.AUTHORS["canvas_px"]), list(scenes.AUTHORS["layout"])
    out = {}
    for label in sorted(set(grid_tab["model"])):
        g = released.grid_design(grid_tab, label)
        d_trials, c_trials = _grid_trials(g, g["counts"])
        src = str(grid_tab.loc[grid_tab.model == label, "source"].iloc[0])
        if g["names"] != names:
            raise ValueError(f"{label}: the grid's shapes {g['names']} are not {names}")

        def grid_gof(f, params, g=g):
            def probs(fit):
                return np.array(choice.choice_probs(g["d"], [names] * len(g["d"]), fit["scale"],
                                                    fit["floor"], fit["weights"]))

            def refit(counts):
                d, c = _grid_trials(g, counts)
                return probs(choice.fit_choices(d, [names] * len(c), choice=c, bias=f["bias"],
                                                scale_range=f["scale_range"], start=f))

            return fits.gof_counts(g["counts"], probs(f), params, refit, gof_boot,
                                   named_seed(seed, f"grid goodness of fit {f['bias']}"))

        out[label] = analyse_choices(
            label, src + " (shipped grid counts)", d_trials, [names] * len(c_trials), c_trials,
            px, 1 / released.GRID, boot, seed, grid_gof,
            f"a spatial scale of the biased Luce rule, measured from {label}'s released "
            "four-shape answers (pixels of the 900 px canvas); identified when the rule fits "
            "and its likelihood set lies above one 150 px grid cell and below the largest "
            "distance")
    return out


def stencil_verdict(label: str, nc: dict, boot: int) -> str:
    """What a name-and-corner fit says of a model's biases on the random stencils: the
    spread of each set of weights, the correct-answer advantage, the goodness of fit, which
    bias dominates and whether the other is present too (an interval excludes 1/4)."""
    misfit = bool(nc["misfit"])
    top_n = released.SPATIAL_SHAPES[int(np.argmax(nc["name_weights"]))]
    top_p = released.CORNERS[int(np.argmax(nc["place_weights"]))]
    uniform = 1 / len(released.CORNERS)
    place_bias = bool(np.any((nc["place_weights_ci"][:, 0] > uniform)
                             | (nc["place_weights_ci"][:, 1] < uniform)))
    name_bias = bool(np.any((nc["name_weights_ci"][:, 0] > uniform)
                            | (nc["name_weights_ci"][:, 1] < uniform)))
    spread = {k: float(np.max(w) / np.min(w)) for k, w in (
        ("name", nc["name_weights"]), ("place", nc["place_weights"]))}
    main = max(spread, key=spread.get)
    return (f"On the random stencils, {label}'s answers weigh names and places: name weights "
            f"from {min(nc['name_weights']):.2f} to {max(nc['name_weights']):.2f} (highest "
            f"“{top_n}”), place weights from {min(nc['place_weights']):.2f} to "
            f"{max(nc['place_weights']):.2f} (highest {top_p.replace('_', '-')}), "
            f"correct-answer advantage {nc['advantage']:.2f} (95% {nc['advantage_ci'][0]:.2f}–"
            f"{nc['advantage_ci'][1]:.2f}); goodness of fit (parametric bootstrap, "
            f"{boot} datasets; misfit rule "
            f"{fits.misfit_rule(nc['gof_resolution'])}) {fits.gof_pvalue(nc)}"
            + (" (no simulated deviance reached the observed one)"
               if nc["gof_p"] <= nc["gof_resolution"] * (1 + 1e-9) else "")
            + (f": {MISFIT} — one advantage for every geometry is too coarse, and the weights "
               "are a description, not a measurement. " if misfit else ". ")
            + (f"The bias is mainly a bias for a {main} (weights span {spread[main]:.1f}×, "
               f"against {min(spread.values()):.1f}×)"
               + (", and " + ("a place bias" if main == "name" else "a name bias")
                  + " is present too (an interval excludes 1/4)."
                  if (place_bias if main == "name" else name_bias) else ".")))


def stencils(conf_tab, corner_tab, boot: int, stream):
    """The random stencils (the same corners, names shuffled per scene, so a bias for a name
    and one for a place come apart): each model's name and place weights fitted to the shipped
    confusion tables (``choice.fit_name_corner``). Rows for stencil_weights.csv and verdicts."""
    rows, verdicts = [], []
    for j, label in enumerate(sorted(set(conf_tab["model"]))):
        def sel(t):
            return t[(t.model == label) & (t.experiment == "random_stencil")].set_index("bin")
        nt = sel(conf_tab).reindex(list(released.SPATIAL_SHAPES))[
            [f"chose_{x}" for x in released.SPATIAL_SHAPES]].to_numpy()
        ct = sel(corner_tab).reindex(list(released.CORNERS))[
            [f"chose_{x}" for x in released.CORNERS]].to_numpy()
        if np.isnan(nt).any() or np.isnan(ct).any():
            continue
        nc = choice.fit_name_corner(nt, ct, boot=boot, seed=stream("stencil_bootstrap", j))
        for kind, keys, w, wci in (
                ("name", released.SPATIAL_SHAPES, nc["name_weights"], nc["name_weights_ci"]),
                ("place", released.CORNERS, nc["place_weights"], nc["place_weights_ci"])):
            rows += [{"model": label, "weight_of": kind, "answer": key, "weight": ww,
                      "ci_low": lo, "ci_high": hi} for key, ww, (lo, hi) in zip(keys, w, wci)]
        verdicts.append(stencil_verdict(label, nc, boot))
    return rows, verdicts


def layout_carryover(margin_tab) -> list:
    """Does accuracy against the margin carry over from the fixed corners to the random
    stencils? Per model, a deviance of the two layouts' correct answers against their pooled
    rate in each margin bin, summed over bins; the verdict sentences."""
    verdicts = []
    for label, part in margin_tab.groupby("model"):
        piv = part.pivot_table(index="bin_lo", columns="experiment",
                               values=["correct", "answered"], aggfunc="sum").dropna()
        if piv.empty or piv.shape[1] < 4:
            continue
        stat, df = 0.0, 0
        for _, r in piv.iterrows():
            c = np.array([[r["correct", e], r["answered", e] - r["correct", e]]
                          for e in ("spatial_far", "random_stencil")])
            if c.sum(axis=1).min() == 0:
                continue
            pool = c[:, 0].sum() / c.sum()
            g = fits.gof_multinomial(c, np.tile([pool, 1 - pool], (2, 1)), 1)
            stat, df = stat + g["gof_stat"], df + g["gof_df"]
        p = float(chi2.sf(stat, df))
        verdicts.append(
            f"{label}: the shipped tables hold no per-trial positions for the random stencils, "
            "so a scale cannot be fitted there and whether the scale carries over from one "
            "layout to the other cannot be tested from them; what they allow is accuracy "
            f"against the margin, which "
            f"{'differs' if p < LAYOUT_P else 'does not differ detectably'}"
            f" between the two layouts (deviance {stat:.1f} on {df:.0f} margin bins, "
            f"{splot.pvalue(p)}).")
    return verdicts


def analyse_n(label: str, source: str, tab, curve: dict, unit: str, result: str | None = None,
              statement: str | None = None) -> dict:
    """p_S and p_I against n for one model (columns task, n, trials, correct): Theorem 3's
    radius per task, fit.csv rows, the two-task verdict with the radii in words (and the
    overview row ``result``)."""
    tab = tab.assign(p=tab.correct / tab.trials,
                     se=np.sqrt(np.maximum(tab.correct, 0.5) * np.maximum(
                         tab.trials - tab.correct, 0.5)) / tab.trials ** 1.5)
    rows, fitted = [], {}
    for task in scenes.TASKS:
        part = tab[tab.task == task].sort_values("n")
        if part["n"].nunique() < 2:
            continue
        f = ball_fit_rows(part, task, curve)
        fitted[task] = f
        rows.append(ball_row(label, source, task, f, np.nan, int(part.trials.sum())))
    verdict, row = two_task_verdict(label, fitted, result, statement, unit=unit)
    if verdict:
        verdict += " Theorem 3's radius: " + "; ".join(
            radius_text(t, f, 1.0, unit) for t, f in fitted.items()) + "."
    return {"table": tab, "fitted": fitted, "fits": rows, "verdict": verdict, "result": row}


def colour_counts(colour_tab) -> pd.DataFrame:
    """Trials and correct answers per model, task and n of the shipped colour tables."""
    counts = colour_tab.groupby(["model", "task", "n"])[["trials", "correct"]].sum()
    return counts.reset_index().assign(space="hue")


def colour_models(colour_n) -> dict:
    """The colour variant per model: Theorem 3 on the hue circle for both tasks
    (:func:`analyse_n`), with its curves."""
    curves = hue_curves(sorted(set(colour_n["n"])))
    out = {}
    for label, part in colour_n.groupby("model"):
        out[label] = analyse_n(
            label, "shipped colour counts", part, curves, "of the hue circle",
            f"{label}, colour variant: one Theorem 3 radius for p_S(n) and p_I(n) (new)",
            "the hue radius fitted to generalization equals that fitted to identification: "
            "headline, their difference (hue circle) with its 95% profile interval")
        out[label]["curves"] = curves
    return out


def results_files(results_df, boot: int, seed, grid_fits: dict) -> dict:
    """Per-trial results files in the book's schema (``semres.core.results``) through the same
    analyses, one per model and experiment: the biased and plain Luce fits of the similarity
    choices, accuracy against the margin, and Theorem 3 per task where the files hold several
    n. Rows outside a canvas or hue space are left to their own chapter. Where the authors'
    far-layout trials are given, the scale from the shipped grid counts of the same trials
    (``grid_fits``) is set against theirs. Returns fit, weight and external rows and verdicts."""
    out = {"fits": [], "weights": [], "external": [], "verdicts": []}
    canvas_px = float(scenes.AUTHORS["canvas_px"])
    choices = tidy.choice_index(results_df)
    df = results_df.assign(_d=tidy.distances(results_df), _c=choices,
                           _ok=[bool(m[c]) if c >= 0 else False for m, c in zip(
                               tidy.correct_mask(results_df), choices)])
    skipped = sorted(set(df.loc[~df.space.isin(["canvas", "hue"]), "model"]))
    if skipped:  # birth years and the like belong to chapter 5
        out["verdicts"].append("Rows outside a canvas or hue space are left to their own "
                               "chapter: " + ", ".join(skipped) + ".")
    if "experiment" not in df:
        df["experiment"] = ""
    df["experiment"] = df["experiment"].fillna("").astype(str)
    for (model, space, exp), part in df[df.space.isin(["canvas", "hue"])].groupby(
            ["model", "space", "experiment"]):
        src = ";".join(sorted(set(part["source"].astype(str))))
        label = f"{model} ({exp})" if exp else model  # one analysis per experiment
        px = canvas_px if space == "canvas" else 1.0
        simp = part[part.task == "similarity"]
        if len(simp) >= 10:
            d = list(simp["_d"])
            names = [tidy.split_list(o) for o in simp["options"]]
            a = analyse_choices(label, src, d, names, simp["_c"].to_numpy(), px, 1 / px, boot,
                                seed)
            out["fits"] += a["fits"]
            out["weights"] += a["weights"]
            out["verdicts"].append(a["verdict"])
            m = np.array([np.diff(np.sort(x)[:2])[0] for x in d])
            for n, sub in simp.assign(_m=m).groupby("n"):
                out["external"] += margin_counts(label, src, "similarity", n, sub["_m"],
                                                 sub["_ok"], MARGIN_BIN[space])
        counts = (part.groupby(["task", "n"])["_ok"].agg(["size", "sum"]).reset_index()
                  .rename(columns={"size": "trials", "sum": "correct"}))
        if counts.groupby("task")["n"].nunique().ge(2).any():
            if space == "hue":
                curves = hue_curves(sorted(set(counts.n)))
            else:  # each trial's own ball measure, in this book's scene geometry
                curves = {(task, n): theorem3_curve(
                    np.array([[float(v) for v in p.split(",")] for p in sub["probe"]]), n, task)
                    for (task, n), sub in part.groupby(["task", "n"])}
            a = analyse_n(label, src, counts, curves,
                          "of the canvas" if space == "canvas" else "of the hue circle")
            out["fits"] += a["fits"]
            if a["verdict"]:
                out["verdicts"].append(a["verdict"])
    # the shipped grid counts blur each X to its cell: does the per-trial fit agree?
    for label, a in grid_fits.items():
        f = a["fit"]
        row = [r for r in out["fits"] if r["model"] == f"{label} (spatial_far)"
               and r["kernel"] == "exponential + response bias (ML)"]
        if row:
            r = row[0]
            lo, hi = f["scale_ci"][0] * canvas_px, f["scale_ci"][1] * canvas_px
            within = r["ci_low_px"] <= f["scale"] * canvas_px <= r["ci_high_px"]
            # the same trials, so not two independent estimates to test for equality: how far
            # the grid's blur moves the scale, against the per-trial interval
            out["verdicts"].append(
                f"{label}: the per-trial scale is {r['scale_px']:.0f} px "
                f"({r['ci_low_px']:.0f}–{r['ci_high_px']:.0f}), the one from the shipped grid "
                f"counts of the same trials {f['scale'] * canvas_px:.0f} px ({lo:.0f}–{hi:.0f}):"
                f" the grid's blur moves it by {f['scale'] * canvas_px - r['scale_px']:+.0f} px, "
                + ("inside" if within else "outside") + " the per-trial interval.")
    return out


def fig_released(external, agg, label: str, px: float):
    """Accuracy against the margin for the paper's models (released answers, margin bins with
    binomial standard errors) and for the model run here (its four-shape scenes, margins
    rescaled to the authors' ``px`` canvas)."""
    ext = pd.DataFrame(external)
    fig, ax = splot.subplots(figsize=(6.2, 3.8))
    for k, (model, part) in enumerate(ext[ext.task == "similarity"].groupby("model")
                                      if len(ext) else []):
        part = part[part.n == 4].groupby("bin_mid")[["trials", "correct"]].sum().reset_index()
        if part.empty or part.bin_mid.max() > 1:
            continue
        p = part.correct / part.trials
        ax.errorbar(part.bin_mid * px, p, yerr=np.sqrt(p * (1 - p) / part.trials), fmt="o-",
                    ms=4, color=splot.CYCLE[k + 1], label=f"{model} (released, 900 px canvas)")
    ax.errorbar(agg["m"] * px, agg["p"], yerr=agg["sd"] / np.sqrt(agg["k"]), fmt="s",
                ms=4, color=splot.CYCLE[0], label=f"{label} (canvas rescaled to 900 px)")
    ax.axhline(0.25, color="0.7", lw=0.8, label="chance (1/4)")
    ax.set(xlabel="margin $d_2 - d_1$ (pixels of a 900 px canvas)", ylabel="P(correct)",
           ylim=(0, 1.02))
    splot.legend_outside(fig, ax, ncol=1)
    return fig


def fig_colour(colour):
    """The colour variant (empty without its tables): p_S and p_I against the number of
    patches with Theorem 3 at each task's radius, and both tasks on the (p_I, p_S) plane over
    Theorem 3's curves for the smallest and largest n. Also the verdict sentences."""
    verdicts = []
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.2))
    for k, (label, a) in enumerate(colour.items()):
        tab, fitted, cc = a["table"], a["fitted"], a["curves"]
        col = splot.CYCLE[k + 1]
        for ax, task in zip(axes[:2], scenes.TASKS):
            part = tab[tab.task == task].sort_values("n")
            ax.errorbar(part.n, part.p, yerr=part.se, fmt="o", ms=4, color=col, label=label)
            if task in fitted:
                ax.plot(part.n, [np.interp(fitted[task]["eps"], EPS_GRID, cc[task, n])
                                 for n in part.n], "-", color=col, lw=1)
        both = tab.pivot_table(index="n", columns="task", values="p")
        if set(scenes.TASKS) <= set(both.columns):
            axes[2].plot(both["identification"], both["similarity"], "o-", ms=4, color=col,
                         label=label)
            for n in (both.index.min(), both.index.max()):
                ps, pi = theory.n_item(np.linspace(0, 1, 101), n)
                axes[2].plot(pi, ps, ":", color="0.5", lw=1)
                axes[2].annotate(f"n = {n}", (pi[5], ps[5]), fontsize=9, color="0.4")
        verdicts.append(a["verdict"] or f"{label}: one task only, no two-task test.")
    for ax, task in zip(axes[:2], scenes.TASKS):
        ax.set(xlabel="number of patches n", title=task, ylim=(0, 1.02))
    axes[0].set_ylabel("P(correct)")
    axes[2].set(xlabel="$p_I$", ylabel="$p_S$", title="both tasks", xlim=(0, 1.02),
                ylim=(0, 1.02))
    splot.legend_outside(fig, axes, ncol=2)
    return fig, verdicts


# --------------------------------------------------------------------------- the chapter's end

def fit_table(rows) -> pd.DataFrame:
    """fit.csv: every fit of every model, its bound flags as booleans and ``misfit`` empty
    where untested."""
    table = pd.DataFrame(rows)
    table["at_bound"] = table["at_bound"].astype(bool)
    table["misfit"] = table["misfit"].astype("boolean")  # empty where untested
    return table


def fit_glue(table) -> dict:
    """The closing sentences: which fits fail their goodness-of-fit test, and which stopped on
    an edge of their search range or put their floor on its bound (censored)."""
    censored = table[table.at_bound | table.bound_params.fillna("").str.contains(
        "floor=0", regex=False)]
    misfits = table[table.misfit.fillna(False).astype(bool)]
    listed = "; ".join(f"{r.model}, {r.kernel} ({r.bound_params})"
                       for r in censored.itertuples())
    return {
        "misfits": ("Fits that fail their goodness-of-fit test (p < 0.001, or p at its "
                    "smallest value 1/(B + 1) for a bootstrap of B < 999) — the model does not "
                    "describe the data, so their parameters are not measurements: "
                    + "; ".join(f"{r.model}, {r.kernel} ({r.gof_test} {r.gof_stat:.1f} on "
                                f"{r.gof_df:.0f} df)" for r in misfits.itertuples()) + ".")
        if len(misfits) else "Every fit that was tested passes its goodness-of-fit test.",
        "censored": "Fits that stopped on an edge of their search range, or whose floor "
        f"sits at its bound of 0 (censored, no verdict drawn from them): {listed}."
        if len(censored) else "No fit in this build stopped on an edge of its search range."}


def files_text(verdicts, given: bool) -> str:
    """The results files' verdicts, or why there are none."""
    if verdicts:
        return " ".join(verdicts)
    return ("The results files hold too few similarity trials or too few n for these analyses."
            if given else "No results files were given in this build.")
