"""Theorem 3 against the number of shapes: its heterogeneous form on the canvas (each probe's
own ball measure) and on the hue circle, the ball radius fitted to each task's p(n), the graded
kernel without a floor fitted the same way, and whether one radius serves both tasks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from semres.core import fits, kernels, theory
from semres.core.choice import compare_radii, fit_ball
from semres.core.fits import gof_chi2
from semres.core.simulate import luce_success

from . import scenes
from .luce import GOF_KEYS, NO_PROFILE, SE_MIN, Trials, biased_p, luce_exponential
from .settings import TASKS

#: radii (canvas units) over which Theorem 3's ball radius is profiled: past the canvas
#: diagonal, where every prediction is chance
EPS_GRID = np.linspace(0, 1.5, 301)
#: decay lengths over which the graded kernel without a floor is fitted to p(n)
LAM_GRID = np.geomspace(1e-3, 3.0, 161)


def canvas_check(trials: int, stream, radii, ns, grid: int) -> pd.DataFrame:
    """Theorem 3 on the canvas, in its heterogeneous form (the average over probes of
    p^n(b_p), b_p the clipped disc's area), against the engine's Luce rule with a constant
    kernel on :class:`semres.experiments.vlm_shapes.scenes.Canvas`: one row per radius, n and
    task (``grid`` probes per side of the canvas for the average)."""
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


def theorem3_curve(probes, n: int, task: str, grid=EPS_GRID) -> np.ndarray:
    """Theorem 3 in its heterogeneous form on the canvas: the average over the scenes' probes
    of p^n(b_p) for each radius of ``grid`` (each scene's own ball measure)."""
    b_p = scenes.ball_measures(probes, grid, task)  # (scenes, radii)
    return theory.n_item(b_p, n)[0 if task == "similarity" else 1].mean(axis=0)


def hue_curves(ns, grid=EPS_GRID) -> dict:
    """Theorem 3 on the hue circle (homogeneous, b = 2 eps up to 1), per task and n."""
    b = np.minimum(2 * grid, 1.0)
    return {(t, n): theory.n_item(b, n)[0 if t == "similarity" else 1]
            for t in TASKS for n in ns}


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
    """Theorem 3's radius for one task's p(n) rows (columns n, p, se): :func:`ball_fit` on
    :data:`EPS_GRID`."""
    return ball_fit(tab["n"], tab["p"], tab["se"], {n: curves[task, n] for n in tab["n"]},
                    EPS_GRID, clear)


def ball_fits(sweep, curves):
    """Theorem 3's radius fitted to each task (above the clearance the design makes perfect),
    and each task's curve at both radii (``p_theory_sim``, ``p_theory_ide``) added to
    ``sweep``."""
    ball = {task: ball_fit_rows(sweep[sweep.task == task], task, curves,
                                scenes.CLEARANCE[task]) for task in TASKS}
    for task in TASKS:  # each task's curve at the other task's radius, and its own
        for which in TASKS:
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


def graded_fits(sweep, geometry, label: str, px: float, scenes_per_n: int):
    """The graded kernel without a floor, g = exp(-d / lambda), fitted to p(n) by least squares
    on :data:`LAM_GRID`: per task and one scale for both. The fits and their rows."""
    lam_pred = {(task, n): np.array([luce_exponential(*geometry[task, n], lam).mean()
                                     for lam in LAM_GRID]) for task, n in geometry}
    graded, rows = {}, []
    for name, tasks in (("similarity", ["similarity"]), ("identification", ["identification"]),
                        ("both tasks", list(TASKS))):
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


def ball_fit(ns, p, se, curves: dict, grid, clear: float = 0.0) -> dict:
    """Theorem 3's ball radius for one task's measured rates ``p`` (standard errors ``se``) at
    the numbers of items ``ns``, from the predicted rates ``curves[n]`` on the radii ``grid``
    (:func:`semres.core.choice.fit_ball`), with its chi-square goodness of fit. ``identified`` only
    when the rule fits and the 95% set lies inside the design: above ``clear``, the radius
    below which the design makes the task perfect (plus a grid step), and below the grid's end.
    A set narrower than a grid step is a precise radius, not a failure (the profile is refined
    there)."""
    ns, grid = [int(n) for n in ns], np.asarray(grid, float)
    p, se = np.asarray(p, float), np.asarray(se, float)
    missing = [n for n in ns if n not in curves]
    if missing:
        raise ValueError(f"curves: no prediction for n = {missing}")
    f = fit_ball(p, se, lambda e: [np.interp(e, grid, curves[n]) for n in ns], grid)
    pred = [np.interp(f["eps"], grid, curves[n]) for n in ns]
    f.update(gof_chi2(p, pred, np.maximum(se, 1e-3), 1))
    step = grid[1] - grid[0]
    f["inside"] = bool(f["ci_low"] > clear + step and f["ci_high"] < grid[-1])
    f["identified"] = bool(f["identified"] and f["inside"] and not f["misfit"])
    return f

def radii_difference(fs: dict | None, fi: dict | None) -> dict:
    """Is one Theorem 3 radius enough for both tasks? From the radii fitted to generalization
    (``fs``) and identification (``fi``, :func:`ball_fit` on independent scenes): a
    likelihood-ratio test of equal radii and the 95% profile interval of their difference
    (:func:`semres.core.choice.compare_radii`), never an overlap of two intervals.

    Returns ``compared`` (both fits given), ``misfit`` (with ``bad``, the tasks whose rule does
    not fit), ``identified`` (both radii), and with both identified ``difference``, ``ci``,
    ``p_equal`` and ``lr`` (in the fits' units)."""
    out = {"compared": bool(fs and fi), "misfit": False, "bad": [], "identified": False,
           "difference": None, "ci": None, "p_equal": None, "lr": None}
    if not out["compared"]:
        return out
    out["bad"] = [t for t, f in (("generalization against n", fs),
                                 ("identification against n", fi)) if f.get("misfit")]
    if out["bad"]:
        out["misfit"] = True
        return out
    if not (fs["identified"] and fi["identified"]):
        return out
    c = compare_radii(fs, fi)
    out.update(identified=True, difference=c["difference"], ci=(c["ci_low"], c["ci_high"]),
               p_equal=c["p_equal"], lr=c["lr"])
    return out


def analyse_n(label: str, source: str, tab, curves: dict) -> dict:
    """p_S and p_I against n for one model (columns task, n, trials, correct): each rate with
    its binomial standard error, Theorem 3's radius per task with two or more n, and their
    fit.csv rows."""
    tab = tab.assign(p=tab.correct / tab.trials,
                     se=np.sqrt(np.maximum(tab.correct, 0.5) * np.maximum(
                         tab.trials - tab.correct, 0.5)) / tab.trials ** 1.5)
    rows, fitted = [], {}
    for task in TASKS:
        part = tab[tab.task == task].sort_values("n")
        if part["n"].nunique() < 2:
            continue
        f = ball_fit_rows(part, task, curves)
        fitted[task] = f
        rows.append(ball_row(label, source, task, f, np.nan, int(part.trials.sum())))
    return {"table": tab, "fitted": fitted, "fits": rows}
