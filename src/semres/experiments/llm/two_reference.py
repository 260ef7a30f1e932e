"""The paper's two-reference design: two people born at c - D and c + D, a probe at c + offset."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import isotonic_regression, minimize

from semres.core import kernels
from semres.core.fits import (bootstrap_at_bound, bound_report, chi2_reference_allowed,
                              gof_binomial, gof_bootstrap, gof_none, percentile_interval,
                              resamples)
from semres.core.seeds import named_seed


def two_reference(offset, D, kernel, floor: float = 0.0) -> np.ndarray:
    """Luce P(correct) for references at c - D, c + D and a probe at c + offset, any kernel g(d)
    plus ``floor`` (a fit passes its graded part and its floor apart, a measured kernel whole)."""
    shape = np.shape(offset)
    a = np.abs(np.atleast_1d(np.asarray(offset, float)))  # kernels expect arrays, not scalars
    near = np.asarray(kernel(np.abs(a - D)), float) + floor
    return (near / (near + np.asarray(kernel(a + D), float) + floor)).reshape(shape)


def offset_curve(mass, *, model: str, D: int, offsets, n_centres: int, kernel) -> pd.DataFrame:
    """P(correct) per probe offset at one half-gap ``D`` from per-trial masses ordered as
    :func:`~semres.experiments.llm.trials.resolution_trials` draws them, and the Luce rule."""
    offsets = np.asarray(offsets)
    per_off = np.asarray(mass).reshape(n_centres, len(offsets), -1).transpose(1, 0, 2)
    per_off = per_off.reshape(len(offsets), -1)
    return pd.DataFrame({
        "model": model, "D": D, "offset": offsets, "p_correct": per_off.mean(1),
        "se": per_off.std(1, ddof=1) / np.sqrt(per_off.shape[1]),
        "p_kernel": two_reference(offsets, D, kernel)})


def fitted_curve(curve: pd.DataFrame, fit: dict) -> list:
    """The two-reference curve of ``fit`` (:func:`fit_two_reference`) at each row's offset and D."""
    fitted = kernels.Exponential(fit["lambda"], fit["floor"])
    return [float(two_reference(o, D, fitted)) for o, D in zip(curve.offset, curve.D)]


def two_reference_counts(centre, D, offset, correct):
    """Per (centre, D, offset): trials and correct answers, from per-trial rows."""
    df = pd.DataFrame({"centre": np.asarray(centre, float), "D": np.asarray(D, float),
                       "offset": np.asarray(offset, float), "correct": np.asarray(correct, float)})
    df = df[np.isfinite(df.correct)]
    if df.empty:
        raise ValueError("correct: no trial has an answer")
    if ((df.correct < 0) | (df.correct > 1)).any():
        raise ValueError("correct must lie in [0, 1] (or be NaN) per trial")
    return (df.groupby(["centre", "D", "offset"]).correct.agg(["size", "sum"])
            .rename(columns={"size": "trials", "sum": "correct"}).reset_index())


TWO_REF_BOUNDS = {"lambda": (0.1, 1e4), "floor": (1e-9, 10.0)}


def binomial_nll(p, trials, correct) -> float:
    """Negative binomial log-likelihood of ``correct`` of ``trials`` at success rates ``p``."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -float(np.sum(correct * np.log(p) + (trials - correct) * np.log1p(-p)))


def fit_logs(p_of, trials, correct, bounds, starts) -> tuple[tuple, float]:
    """Maximum likelihood of a kernel's parameters (scale, floor, ...) on binomial cells,
    L-BFGS-B on their logs within ``bounds`` (lows, highs) from every start: (the parameters,
    the negative log-likelihood)."""
    lo, hi = np.log(bounds[0]), np.log(bounds[1])

    def nll(theta):
        return binomial_nll(p_of(*np.exp(theta)), trials, correct)

    r = min((minimize(nll, np.asarray(x0, float), method="L-BFGS-B", bounds=list(zip(lo, hi)))
             for x0 in starts), key=lambda r: r.fun)
    return tuple(float(v) for v in np.exp(r.x)), float(r.fun)


def _exponential(lam):
    return lambda d: np.exp(-d / lam)


def _fit_two_ref_cells(D, offset, trials, correct, starts=None) -> dict:
    bounds = tuple(zip(*(TWO_REF_BOUNDS[k] for k in ("lambda", "floor"))))

    def p_of(lam, fl):
        return two_reference(offset, D, _exponential(lam), fl)

    (lam, fl), nll = fit_logs(p_of, trials, correct, bounds, starts or (
        (np.log(30.0), np.log(0.05)), (np.log(150.0), np.log(1e-3)), (np.log(5.0), np.log(0.3))))
    back = kernels.chance_return(lam, fl)
    return {"lambda": lam, "floor": fl, "nll": nll, "p_fit": p_of(lam, fl), "resolution": back,
            "chance_return": back, "half_decay": kernels.half_decay(lam)}


def cluster_tables(centre_idx, cell_idx, shape, trials, correct):
    """(centre x cell) tables: a resample of centres is a weighted sum of their rows."""
    tab_t, tab_c = np.zeros(shape), np.zeros(shape)
    np.add.at(tab_t, (centre_idx, cell_idx), trials)
    np.add.at(tab_c, (centre_idx, cell_idx), correct)
    return tab_t, tab_c


def _centre_resamples(tab_t, tab_c, n_boot, seed):
    """Trials and correct answers per cell of each resample of the centres (none from one)."""
    n = len(tab_t)
    for idx in resamples(n, n_boot if n > 1 else 0, seed):
        w = np.bincount(idx, minlength=n)
        yield w @ tab_t, w @ tab_c


def fit_two_reference(counts, n_boot: int, seed, *, max_offset: float | None = None,
                      gof_boot: int = 1000) -> dict:
    """Fit the paper's two-reference curve (exponential + floor, Luce rule) to P(correct) data."""
    need = {"centre", "D", "offset", "trials", "correct"}
    if not need <= set(counts.columns):
        raise ValueError(f"counts must have columns {sorted(need)}")
    c = counts if max_offset is None else counts[counts.offset.abs() <= float(max_offset)]
    c = c[c.offset != 0]  # the tie carries no information about the kernel
    if c.empty:
        raise ValueError("counts: no probe off the tie within max_offset")
    cells = c.groupby(["D", "offset"]).agg(trials=("trials", "sum"),
                                           correct=("correct", "sum")).reset_index()
    D, offset = cells.D.to_numpy(float), cells.offset.to_numpy(float)
    trials, correct = cells.trials.to_numpy(float), cells.correct.to_numpy(float)
    fit = _fit_two_ref_cells(D, offset, trials, correct)
    fit.update(bound_report(fit, TWO_REF_BOUNDS, log=("lambda", "floor")))
    fit.update(_two_ref_gof(D, offset, trials, correct, fit, gof_boot, seed))
    # bootstrap over centres: weights per centre on a (centre x cell) table of counts
    centres = np.unique(c.centre)
    tables = cluster_tables(np.searchsorted(centres, c.centre),
                            cells.set_index(["D", "offset"]).index.get_indexer(_cell_index(c)),
                            (len(centres), len(cells)), c.trials.to_numpy(float),
                            c.correct.to_numpy(float))
    res, half, hit = [], [], []
    for t, k in _centre_resamples(*tables, n_boot, seed):
        fb = _fit_two_ref_cells(D, offset, t, k, starts=[np.log([fit["lambda"], fit["floor"]])])
        res.append(fb["resolution"])
        half.append(fb["half_decay"])
        hit.append(bound_report(fb, TWO_REF_BOUNDS, log=("lambda", "floor"))["at_bound"])
    fit["ci_low"], fit["ci_high"] = percentile_interval(res)
    fit["chance_return_ci_low"], fit["chance_return_ci_high"] = fit["ci_low"], fit["ci_high"]
    fit["half_decay_ci_low"], fit["half_decay_ci_high"] = percentile_interval(half)
    fit["boot_at_bound"] = bootstrap_at_bound(hit)
    fit["centres"] = int(len(centres))
    del fit["p_fit"]
    return fit


def _two_ref_gof(D, offset, trials, correct, fit, gof_boot, seed) -> dict:
    """Binomial deviance over the (D, offset) cells: chi-square where they hold enough whole
    counts, else the parametric bootstrap (expected masses carry no answer noise)."""
    if len(trials) <= 2:
        return gof_none(f"{len(trials)} cells for 2 parameters")
    if chi2_reference_allowed(trials, correct, fit["p_fit"])[0]:
        return gof_binomial(trials, correct, fit["p_fit"], 2)
    if not gof_boot:
        return gof_binomial(trials, correct, fit["p_fit"], 2)  # the statistic, no reference
    start = [np.log([fit["lambda"], fit["floor"]])]

    def refit(t, k):
        return _fit_two_ref_cells(D, offset, t, k, starts=start)["p_fit"]

    return gof_bootstrap(trials, correct, fit["p_fit"], 2, refit, gof_boot,
                         named_seed(seed, "two-reference goodness of fit"))


def _cell_index(df):
    return pd.MultiIndex.from_arrays([df.D.to_numpy(float), df.offset.to_numpy(float)])


def chance_crossover(counts, n_boot: int, seed, *, z: float = 2.0) -> dict:
    """The paper's operational resolution: how far beyond the nearer reference a probe can lie
    before the preference for it is no longer distinguishable from chance."""
    beyond = counts[counts.offset.abs() > counts.D].copy()
    if beyond.empty:
        raise ValueError("counts: no probe lies beyond the references")
    beyond["x"] = beyond.offset.abs() - beyond.D
    xs = np.unique(beyond.x)
    centres = np.unique(beyond.centre)
    tab_t, tab_c = cluster_tables(np.searchsorted(centres, beyond.centre),
                                  np.searchsorted(xs, beyond.x), (len(centres), len(xs)),
                                  beyond.trials.to_numpy(float), beyond.correct.to_numpy(float))

    def cross(t, k):
        ok = np.flatnonzero(t > 0)
        if not len(ok):
            return float(xs[0]), False
        fit = isotonic_regression(k[ok] / t[ok] - 0.5, weights=t[ok], increasing=False)
        block_trials = np.add.reduceat(t[ok], fit.blocks[:-1])
        pooled = np.repeat(block_trials, np.diff(fit.blocks))
        lost = fit.x / np.sqrt(0.25 / pooled) <= z
        if not lost.any():
            return float(xs[-1]), True
        return float(xs[ok[int(np.flatnonzero(lost)[0])]]), False

    x0, censored = cross(tab_t.sum(0), tab_c.sum(0))
    lo, hi = percentile_interval([cross(t, k)[0]
                                  for t, k in _centre_resamples(tab_t, tab_c, n_boot, seed)])
    return {"resolution": x0, "ci_low": lo, "ci_high": hi, "at_bound": censored,
            "bound_params": "x=upper" if censored else "", "x_max": float(xs[-1])}


def ref_by_window(counts, model: str, windows, n_boot: int, seed):
    """The two-reference fit and the chance crossover on probes |offset| <= w, per window; both
    ``resolution``s are return-to-chance distances. The crossover is no fit: its goodness of
    fit is untested, never "passed"."""
    rows = []
    for w in windows:
        s = named_seed(seed, f"window {int(w)}")
        sub = counts[counts.offset.abs() <= w]
        f = fit_two_reference(sub, n_boot, s)
        c = chance_crossover(sub, n_boot, s)
        rows.append({"model": model, "measure": "two-reference fit", "window": int(w),
                     "resolution": f["resolution"], "ci_low": f["ci_low"],
                     "ci_high": f["ci_high"], "at_bound": f["at_bound"],
                     "boot_at_bound": f["boot_at_bound"], "gof_p": f["gof_p"],
                     "misfit": f["misfit"], "half_decay": f["half_decay"],
                     "half_decay_ci_low": f["half_decay_ci_low"],
                     "half_decay_ci_high": f["half_decay_ci_high"]})
        rows.append({"model": model, "measure": "chance crossover", "window": int(w),
                     "resolution": c["resolution"], "ci_low": c["ci_low"],
                     "ci_high": c["ci_high"], "at_bound": c["at_bound"],
                     "boot_at_bound": np.nan, "gof_p": np.nan, "misfit": None,
                     "half_decay": np.nan, "half_decay_ci_low": np.nan,
                     "half_decay_ci_high": np.nan})
    return pd.DataFrame(rows)

