"""Theorem 3 against the number of shapes: its heterogeneous form on the canvas (each probe's own
ball measure) and on the hue circle, the ball radius fitted to each task's p(n), the graded kernel
without a floor fitted the same way, and whether one radius serves both tasks."""

from __future__ import annotations

import numpy as np
import pandas as pd

from semres.core import kernels, theory
from semres.core.choice import compare_radii, fit_ball
from semres.core.nsweep import fit_theorem3
from semres.core.seeds import named_seed
from semres.core.simulate import luce_success
from semres.experiments.frontier.floor_n import floor_bound

from . import scenes
from .luce import (GOF_KEYS, KERNEL, SE_MIN, Trials, biased_p, chi2_fit, fit_row,
                   luce_exponential, tested)
from .settings import TASKS

#: radii (canvas units) over which Theorem 3's ball radius is profiled: past the canvas
#: diagonal, where every prediction is chance
EPS_GRID = np.linspace(0, 1.5, 301)
#: decay lengths over which the graded kernel without a floor is fitted to p(n)
LAM_GRID = np.geomspace(1e-3, 3.0, 161)
#: a 95% profile set's rise in chi-square (one parameter)
LEVEL = 3.841458820694124


def canvas_check(trials: int, stream, radii, ns, grid: int) -> pd.DataFrame:
    """Theorem 3 on the canvas, p^n = E_p[p^n(b_p)] over ``grid`` × ``grid`` probes (b_p the
    clipped disc's area), against the engine's Luce rule with a constant kernel on
    :class:`.scenes.Canvas`: one row per radius, n and task."""
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
    """Theorem 3 on the canvas for each radius of ``grid``: p^n(b_p) averaged over the scenes'
    probes, each with its own ball measure."""
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
    """p(n) of the scored sweep (``lists`` and ``p`` keyed by (task, n)) with its standard error
    and the biased Luce rule's prediction; Theorem 3's curves and the scenes' geometry."""
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


def ball_fits(sweep, curves):
    """Theorem 3's radius fitted to each task (above the clearance the design makes perfect);
    each task's curve at both radii added to ``sweep`` (``p_theory_sim``, ``p_theory_ide``)."""
    ball = {}
    for task in TASKS:
        part = sweep[sweep.task == task]
        ball[task] = ball_fit(part.n, part.p, part.se, {n: curves[task, n] for n in part.n},
                              EPS_GRID, scenes.CLEARANCE[task])
    for task in TASKS:  # each task's curve at the other task's radius, and its own
        for which in TASKS:
            sweep.loc[sweep.task == task, f"p_theory_{which[:3]}"] = [
                np.interp(ball[which]["eps"], EPS_GRID, curves[task, n])
                for n in sweep.loc[sweep.task == task, "n"]]
    return ball


def ball_row(label: str, source: str, task: str, f, px: float, trials: int) -> dict:
    """fit.csv's row of a Theorem 3 radius (``px`` NaN where the unit is not pixels)."""
    return fit_row(label, source, KERNEL["ball"].format(task), f["eps"],
                   (f["ci_low"], f["ci_high"]), px, np.nan, trials, f["at_bound"],
                   f["bound_params"], {key: f[key] for key in GOF_KEYS})


def graded_fits(sweep, geometry, label: str, px: float, scenes_per_n: int):
    """The graded kernel without a floor, g = exp(-d / lambda), fitted to p(n) by least squares on
    :data:`LAM_GRID`: per task and one scale for both."""
    def predict(task, n, lams):
        return np.array([luce_exponential(*geometry[task, n], lam).mean() for lam in lams])

    lam_pred = {(task, n): predict(task, n, LAM_GRID) for task, n in geometry}
    graded, rows = {}, []
    for name, tasks in (("similarity", ["similarity"]), ("identification", ["identification"]),
                        ("both tasks", list(TASKS))):
        part = sweep[sweep.task.isin(tasks)]
        se = np.maximum(part.se.to_numpy(), SE_MIN)
        obs = part.p.to_numpy()
        keys = list(zip(part.task, part.n))
        pred = np.array([lam_pred[key] for key in keys])  # (rows, lambdas)
        stat = (((obs[:, None] - pred) / se[:, None]) ** 2).sum(axis=0)
        j = int(np.argmin(stat))
        inside = np.flatnonzero(stat <= stat[j] + LEVEL)
        lo_i, hi_i = max(inside[0] - 1, 0), min(inside[-1] + 1, len(LAM_GRID) - 1)
        fine = np.geomspace(LAM_GRID[lo_i], LAM_GRID[hi_i], 121)
        fpred = np.array([predict(t, n, fine) for t, n in keys])
        fstat = (((obs[:, None] - fpred) / se[:, None]) ** 2).sum(axis=0)
        kept = np.flatnonzero(fstat <= min(fstat.min(), stat[j]) + LEVEL)
        best = int(np.argmin(fstat))
        lam, best_pred = ((float(fine[best]), fpred[:, best]) if fstat[best] < stat[j]
                          else (float(LAM_GRID[j]), pred[:, j]))
        at_bound = bool(inside[0] == 0 or inside[-1] == len(LAM_GRID) - 1)
        g = {"lam": lam, "lam_ci": (float(fine[kept[0]]), float(fine[kept[-1]])),
             "at_bound": at_bound, **chi2_fit(obs, best_pred, se, 1 / part.n.to_numpy(float))}
        g["identified"] = not at_bound
        graded[name] = g
        rows.append(fit_row(label, "live", KERNEL["graded"].format(name), lam, g["lam_ci"], px,
                            0.0, int(scenes_per_n * len(part)), at_bound,
                            "lambda=grid" if at_bound else "", tested(g)))
    return graded, rows


def floor_cells(sweep) -> pd.DataFrame:
    """The sweep's rates as effective binomial counts: a mean P(correct) p with standard error
    se counts as p(1 - p)/se² trials, p of them correct."""
    se = np.maximum(sweep.se.to_numpy(float), SE_MIN)
    p = np.clip(sweep.p.to_numpy(float), 1e-6, 1 - 1e-6)
    trials = p * (1 - p) / se ** 2
    return pd.DataFrame({"task": sweep.task.to_numpy(), "n": sweep.n.to_numpy(int),
                         "trials": trials, "correct": p * trials})


def theorem3_floor(label: str, cells, gof_boot: int, seed) -> dict:
    """Theorem 3's constant kernel across n on both tasks, with its floor and without
    (:func:`semres.core.nsweep.fit_theorem3`), and at each n chapter 7's floor bound (the most
    p_S a similarity with the fitted floor reaches at the observed p_I) beside the observed p_S."""

    with_floor = fit_theorem3(cells, floor=True, gof_boot=gof_boot, seed=seed)
    free = fit_theorem3(cells, floor=False, gof_boot=gof_boot, seed=seed)
    obs = cells.assign(p=cells.correct / cells.trials).pivot_table(
        index="n", columns="task", values="p")
    bound = []
    for n, r in obs.iterrows():
        if not {"similarity", "identification"} <= set(r.dropna().index):
            continue
        try:
            top = float(floor_bound(float(r["identification"]), int(n), with_floor["delta"]))
        except ValueError:
            top = np.nan
        bound.append({"model": label, "n": int(n), "p_i": float(r["identification"]),
                      "p_s": float(r["similarity"]), "delta": with_floor["delta"],
                      "floor_bound": top, "p_s_less_bound": float(r["similarity"]) - top})
    rows = [{"model": label, "form": "with floor" if f["floor"] else "floor-free",
             "b": f["b"], "b_low": f["b_ci"][0], "b_high": f["b_ci"][1], "delta": f["delta"],
             "delta_low": f["delta_ci"][0], "delta_high": f["delta_ci"][1],
             "deviance": f["deviance"], "df": f["df"], "at_bound": f["at_bound"],
             "bound_params": f["bound_params"], **tested(f)} for f in (with_floor, free)]
    return {"floor": with_floor, "free": free, "rows": rows, "bound": bound}


def ball_fit(ns, p, se, curves: dict, grid, clear: float = 0.0) -> dict:
    """Theorem 3's ball radius for one task's rates ``p`` (standard errors ``se``) at ``ns``, from
    the predictions ``curves[n]`` on the radii ``grid``, with its chi-square goodness of fit;
    identified when bounded inside the design (above ``clear``) and not a misfit."""
    ns, grid = [int(n) for n in ns], np.asarray(grid, float)
    p, se = np.asarray(p, float), np.asarray(se, float)
    missing = [n for n in ns if n not in curves]
    if missing:
        raise ValueError(f"curves: no prediction for n = {missing}")
    f = fit_ball(p, se, lambda e: [np.interp(e, grid, curves[n]) for n in ns], grid)
    pred = np.array([np.interp(f["eps"], grid, curves[n]) for n in ns])
    f.update(chi2_fit(p, pred, se, 1 / np.asarray(ns, float)))
    step = grid[1] - grid[0]
    f["inside"] = bool(f["ci_low"] > clear + step and f["ci_high"] < grid[-1])
    f["bounded"] = bool(f["identified"] and f["inside"])  # bounded inside the design
    f["identified"] = bool(f["bounded"] and not f["misfit"])
    f.update(ns=ns, p=p, se=se, curve_grid=grid,
             curve_values=np.array([curves[n] for n in ns]))
    return f


def _quasi(f: dict) -> dict:
    """A ball fit's chi-square profile divided by its dispersion when that exceeds 1
    (quasi-likelihood: a misfit's profile is read as extra scatter, approximately)."""
    d = f.get("dispersion")
    k = max(1.0, float(d)) if d is not None and np.isfinite(d) else 1.0
    return {**f, "profile_chi2": np.asarray(f["profile_chi2"], float) / k}


def joint_ball(fs: dict, fi: dict) -> dict:
    """One Theorem 3 radius for both tasks: the two chi-square profiles (independent scenes)
    added and minimised on their common radii, with its goodness of fit against chance."""
    common = np.union1d(fs["profile_eps"], fi["profile_eps"])
    common = common[(common >= max(fs["profile_eps"][0], fi["profile_eps"][0]))
                    & (common <= min(fs["profile_eps"][-1], fi["profile_eps"][-1]))]
    total = (np.interp(common, fs["profile_eps"], fs["profile_chi2"])
             + np.interp(common, fi["profile_eps"], fi["profile_chi2"]))
    eps = float(common[int(np.argmin(total))])
    p = np.r_[fs["p"], fi["p"]]
    se = np.r_[fs["se"], fi["se"]]
    pred = np.r_[[np.interp(eps, f["curve_grid"], c) for f in (fs, fi)
                  for c in f["curve_values"]]]
    ns = np.r_[fs["ns"], fi["ns"]]
    return {"eps": eps, **chi2_fit(p, pred, se, 1 / ns.astype(float))}


def radii_difference(fs: dict | None, fi: dict | None) -> dict:
    """Is one Theorem 3 radius enough for both tasks?"""
    out = {"compared": bool(fs and fi), "misfit": False, "bad": [], "identified": False,
           **dict.fromkeys(("difference", "ci", "p_equal", "lr", "mean", "joint"))}
    if not out["compared"]:
        return out
    out["bad"] = [t for t, f in (("generalization against n", fs),
                                 ("identification against n", fi)) if f.get("misfit")]
    out["misfit"] = bool(out["bad"])
    if not (fs.get("bounded", fs.get("identified")) and fi.get("bounded", fi.get("identified"))):
        return out
    c = compare_radii(_quasi(fs), _quasi(fi))
    out.update(identified=True, difference=c["difference"], ci=(c["ci_low"], c["ci_high"]),
               p_equal=c["p_equal"], lr=c["lr"], mean=(fs["eps"] + fi["eps"]) / 2)
    if "p" in fs and "p" in fi:
        out["joint"] = joint_ball(fs, fi)
    return out


def analyse_n(label: str, source: str, tab, curves: dict, gof_boot: int = 0,
              seed=0) -> dict:
    """p_S and p_I against n for one model (columns task, n, trials, correct): each rate with its
    binomial standard error, Theorem 3's radius per task with two or more n and their fit.csv
    rows, the two radii compared (``radii``) and, where both tasks have them,
    :func:`theorem3_floor` (``theorem3``)."""
    tab = tab.assign(p=tab.correct / tab.trials,
                     se=np.sqrt(np.maximum(tab.correct, 0.5) * np.maximum(
                         tab.trials - tab.correct, 0.5)) / tab.trials ** 1.5)
    rows, fitted = [], {}
    for task in TASKS:
        part = tab[tab.task == task].sort_values("n")
        if part["n"].nunique() < 2:
            continue
        f = ball_fit(part.n, part.p, part.se, {n: curves[task, n] for n in part.n}, EPS_GRID)
        fitted[task] = f
        rows.append(ball_row(label, source, task, f, np.nan, int(part.trials.sum())))
    floor = None
    if len(fitted) == 2 and len(tab) > 2:
        floor = theorem3_floor(label, tab[["task", "n", "trials", "correct"]], gof_boot,
                               named_seed(seed, f"theorem 3 floor {label}"))
    return {"table": tab, "fitted": fitted, "fits": rows, "theorem3": floor,
            "radii": radii_difference(fitted.get("similarity"), fitted.get("identification"))}
