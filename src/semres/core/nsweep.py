"""Theorem 3 fitted to a model's answers across the number of items n: one constant kernel (ball
measure b, floor Delta: an outside item's weight relative to an inside one) predicts both tasks at
every n (:func:`semres.core.theory.n_item`), fitted by binomial likelihood with and without Delta.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.special import expit, logit
from scipy.stats import chi2

from . import theory
from .fits import (binomial_deviance, bound_report, chi2_reference_allowed, gof_binomial,
                   gof_bootstrap, misfit_size)

TASKS = ("similarity", "identification")
#: search ranges: b in (0, 1); the floor from one part in a million of an in-ball item's weight
#: to its full weight (Delta = 1: no similarity at all, every choice at chance)
B_RANGE = (1e-6, 1 - 1e-6)
DELTA_RANGE = (1e-6, 1.0 - 1e-9)
#: the 95 % profile-likelihood drop of one parameter
DROP = float(chi2.ppf(0.95, 1))
COLUMNS = ("task", "n", "trials", "correct")


def _cells(cells) -> pd.DataFrame:
    if not isinstance(cells, pd.DataFrame) or not set(COLUMNS) <= set(cells.columns):
        raise ValueError(f"cells must be a DataFrame with columns {COLUMNS}")
    df = cells.loc[:, list(COLUMNS)].copy()
    if not df.task.isin(TASKS).all():
        raise ValueError(f"cells: task must be one of {TASKS}")
    n = pd.to_numeric(df.n, errors="coerce")
    if n.isna().any() or (n < 2).any() or (n != n.round()).any():
        raise ValueError("cells: n must be integers >= 2")
    df["n"] = n.astype(int)
    for col in ("trials", "correct"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    if df[["trials", "correct"]].isna().any().any() or (df.trials < 0).any() or \
            (df.correct < 0).any() or (df.correct > df.trials + 1e-9).any():
        raise ValueError("cells: correct must lie in [0, trials], trials >= 0")
    return df[df.trials > 0].reset_index(drop=True)


def fit_theorem3(cells, *, floor: bool = True, gof_boot: int = 0, seed=None) -> dict:
    """Theorem 3's constant kernel (b, and Delta unless ``floor`` is False) fitted jointly to both
    tasks across n by binomial likelihood, from ``cells`` (``task``, ``n``, ``trials``,
    ``correct``; effective counts allowed). Returns ``b``, ``delta``, their 95 % profile intervals,
    ``deviance`` on ``df``, the goodness of fit (chi-square where allowed, else ``gof_boot``
    bootstrap refits from ``seed``), the misfit's size against chance and ``table``.
    """
    df = _cells(cells)
    k_params = 2 if floor else 1
    if len(df) <= k_params:
        raise ValueError(f"cells: {len(df)} cells with answers leave no degrees of freedom "
                         f"for {k_params} parameters")
    n = df.n.to_numpy()
    sim = (df.task == "similarity").to_numpy()
    t, k = df.trials.to_numpy(), df.correct.to_numpy()

    def rates(b, delta):
        p_s, p_i = theory.n_item(b, n, delta)
        return np.clip(np.where(sim, p_s, p_i), 1e-12, 1 - 1e-12)

    def dev(b, delta, tt=t, kk=k):
        return binomial_deviance(tt, kk, rates(b, delta))

    def fit(tt, kk):
        """(b, delta, deviance) at the likelihood's maximum: a few starts, the best kept."""
        if not floor:
            r = minimize_scalar(lambda u: dev(expit(u), 0.0, tt, kk),
                                bounds=tuple(logit(B_RANGE)), method="bounded",
                                options={"xatol": 1e-8})
            return float(expit(r.x)), 0.0, float(r.fun)
        best = None
        for u0 in (-3.0, 0.0):
            for v0 in (-6.0, -1.0):
                r = minimize(lambda x: dev(expit(x[0]), expit(x[1]), tt, kk), [u0, v0],
                             method="L-BFGS-B",
                             bounds=[tuple(logit(B_RANGE)), tuple(logit(DELTA_RANGE))])
                if best is None or r.fun < best.fun:
                    best = r
        return float(expit(best.x[0])), float(expit(best.x[1])), float(best.fun)

    b, delta, deviance = fit(t, k)
    values = {"b": b, "delta": delta} if floor else {"b": b}
    ranges = {"b": B_RANGE, "delta": DELTA_RANGE} if floor else {"b": B_RANGE}
    out = {"floor": bool(floor), "b": b, "delta": delta, "deviance": deviance,
           "df": len(df) - k_params, "cells": len(df)}
    out.update(bound_report(values, ranges, log=("delta",)))
    out["b_ci"] = _profile(lambda u: _profiled(u, "b", floor, dev), logit(b), deviance,
                           logit(B_RANGE))
    out["delta_ci"] = ((0.0, 0.0) if not floor else
                       _profile(lambda v: _profiled(v, "delta", floor, dev), logit(delta),
                                deviance, logit(DELTA_RANGE)))
    p_fit = rates(b, delta)
    if chi2_reference_allowed(t, k, p_fit)[0] or not gof_boot:
        gof = gof_binomial(t, k, p_fit, k_params)
        null_mean = float(out["df"])
    else:
        if seed is None:
            raise ValueError("seed: the bootstrap goodness of fit needs a named stream")
        gof = gof_bootstrap(t, k, p_fit, k_params,
                            lambda tt, kk: rates(*fit(tt, kk)[:2]), gof_boot, seed)
        null_mean = gof.get("gof_null_mean", float(out["df"]))
    out.update(gof)
    chance = 1.0 / n
    out.update(misfit_size(deviance, binomial_deviance(t, k, chance), max(null_mean, 1e-9),
                           k / t, p_fit, t))
    out["table"] = df.assign(observed=k / t, theory=p_fit, chance=chance)
    return out


def _profiled(x: float, which: str, floor: bool, dev) -> float:
    """The deviance with one parameter fixed (``x`` on the logit scale), the other fitted."""
    if which == "b" and not floor:
        return dev(expit(x), 0.0)
    if which == "b":
        r = minimize_scalar(lambda v: dev(expit(x), expit(v)), bounds=tuple(logit(DELTA_RANGE)),
                            method="bounded", options={"xatol": 1e-8})
    else:
        r = minimize_scalar(lambda u: dev(expit(u), expit(x)), bounds=tuple(logit(B_RANGE)),
                            method="bounded", options={"xatol": 1e-8})
    return float(r.fun)


def _profile(profiled, at: float, best: float, limits) -> tuple[float, float]:
    """The 95 % profile-likelihood interval (natural scale) of a parameter at ``at`` (logit scale,
    deviance ``best``): where the deviance rises by :data:`DROP`, or the search range's end.
    """
    def excess(x):
        return profiled(x) - best - DROP

    ends = []
    for edge in limits:
        if excess(edge) < 0 or math.isclose(edge, at):
            ends.append(float(expit(edge)))
        else:
            ends.append(float(expit(brentq(excess, *sorted((at, edge)), xtol=1e-6))))
    return tuple(ends)
