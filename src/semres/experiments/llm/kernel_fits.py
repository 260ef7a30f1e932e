"""The kernel of years and the shapes fitted to it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq, least_squares
from scipy.stats import t as student

from semres.core.fits import (bootstrap_at_bound, bound_report, gof_chi2, gof_none,
                              percentile_interval, resamples)
from semres.core.kernels import chance_return, half_decay
from semres.core.validate import at_least

from .language import TEMPERATURE, KernelProfile


def _kernel_se(se, shape, sel):
    """The standard errors of the selected kernel points (None when the caller gave none)."""
    if se is None:
        return None
    se = np.asarray(se, float)
    if se.shape != shape:
        raise ValueError("se must have the same length as distance")
    return se[sel]


def _kernel_gof(y, y_fit, se, n_params) -> dict:
    """chi-square of a kernel fit's standardised residuals, or why there is none."""
    if se is None:
        return gof_none("no standard errors given")
    if not (np.isfinite(se).all() and (se > 0).all()):
        return gof_none("standard errors not all finite and positive")
    if len(y) <= n_params:
        return gof_none(f"{len(y)} points for {n_params} parameters")
    return gof_chi2(y, y_fit, se, n_params)


class MeasuredKernel:
    """A measured profile g(d) as a kernel for the engine: linear interpolation, flat beyond."""

    def __init__(self, distance, similarity):
        self.distance = np.asarray(distance, float)
        self.similarity = np.asarray(similarity, float)
        if self.distance.ndim != 1 or self.distance.shape != self.similarity.shape:
            raise ValueError("distance and similarity must be 1-D arrays of the same length")
        if not (np.isfinite(self.similarity).all() and (self.similarity >= 0).all()):
            raise ValueError("similarity must be finite and >= 0")

    def __call__(self, d):
        d = np.asarray(d)
        return np.interp(d, self.distance, self.similarity).astype(
            d.dtype if d.dtype.kind == "f" else np.float64, copy=False)


# --------------------------------------------------------------------------- kernel shapes

def check_kernel(distance, similarity) -> tuple[np.ndarray, np.ndarray]:
    """Refuse input that is not a similarity kernel g(d); return it as float arrays."""
    d = np.asarray(distance, float)
    g = np.asarray(similarity, float)
    if d.ndim != 1 or d.shape != g.shape:
        raise ValueError("distance and similarity must be 1-D arrays of the same length")
    ok = np.isfinite(g)
    d, g = d[ok], g[ok]
    if not np.isfinite(d).all() or (d < 0).any() or (np.diff(d) <= 0).any():
        raise ValueError("distance must be strictly increasing values >= 0: a kernel g(d) has one "
                         "value per distance (a curve against signed probe offsets is not a "
                         "kernel; fit it with fit_two_reference)")
    if (g < 0).any():
        raise ValueError("similarity must be >= 0")
    return d, g


#: what :func:`decay_trend` estimates
TREND_MEASURE = "slope of ln g on ln(1 + distance)"


#: the one-sided level of a decay test and the coverage of its interval
ALPHA, LEVEL = 0.05, 0.95


def decay_trend(distance, similarity, *, se=None, replicates=None) -> dict:
    """Whether similarity decreases with distance: the slope of ln g on ln(1 + d) (distances
    span decades; on this scale each weighs alike), one-sided test of "slope < 0"."""
    d = np.asarray(distance, float)
    g = np.asarray(similarity, float)
    if d.ndim != 1 or d.shape != g.shape:
        raise ValueError("distance and similarity must be 1-D arrays of the same length")
    ok = np.isfinite(g) & (g > 0) & np.isfinite(d) & (d >= 0)
    if ok.sum() < 3:
        raise ValueError("similarity needs at least 3 positive points for a trend")
    x, y = np.log1p(d[ok]), np.log(g[ok])
    w = np.ones_like(x)
    weighted = False
    if replicates is None and se is not None:
        s = np.asarray(se, float)
        if s.shape != d.shape:
            raise ValueError("se must have the same length as distance")
        rel = s[ok] / g[ok]
        pos = np.isfinite(rel) & (rel > 0)
        if pos.sum() >= 2:
            w = 1 / np.where(pos, rel, rel[pos].min()) ** 2
            weighted = True

    def slope(yy, ww):
        xm = np.sum(ww * x) / ww.sum()
        return float(np.sum(ww * (x - xm) * yy) / np.sum(ww * (x - xm) ** 2))

    est = slope(y, w)
    k = len(x)
    if replicates is not None:
        reps = np.asarray(replicates, float)
        if reps.ndim != 2 or reps.shape[1] != d.shape[0]:
            raise ValueError("replicates must be a (resamples, points) array of ln g")
        reps = reps[np.isfinite(reps[:, ok]).all(1)][:, ok]
        if len(reps) < 2:
            raise ValueError("replicates: fewer than two usable resamples")
        b = np.array([slope(r, w) for r in reps])
        lo, hi = np.percentile(b, [50 * (1 - LEVEL), 50 * (1 + LEVEL)])
        p = float((1 + np.sum(b >= 0)) / (1 + len(b)))
        method = f"cluster bootstrap ({len(b)} resamples)"
    else:
        if k < 3:
            raise ValueError("similarity needs at least 3 points for a trend")
        xm = np.sum(w * x) / w.sum()
        resid = y - (np.sum(w * y) / w.sum() + est * (x - xm))
        sxx = np.sum(w * (x - xm) ** 2)
        chi = float(np.sum(w * resid ** 2)) / (k - 2)
        scale = max(chi, 1.0) if weighted else chi
        se_b = math.sqrt(scale / sxx) if sxx > 0 else math.inf
        q = float(student.ppf(0.5 + LEVEL / 2, k - 2))
        lo, hi = est - q * se_b, est + q * se_b
        p = float(student.cdf(est / se_b, k - 2)) if se_b > 0 else float(est >= 0)
        method = ("weighted least squares on the standard errors given" if weighted
                  else "ordinary least squares")
    return trend_finding(TREND_MEASURE, est, lo, hi, p, method=method, points=k)


def trend_finding(measure: str, estimate: float, lo, hi, p: float, *, method: str,
                  points: int) -> dict:
    """A decay finding in the form both trends give (the kernel's and the near design's), so
    that :func:`trend_agreement` can set them side by side."""
    direction = "decays" if hi < 0 else ("rises" if lo > 0 else "undecided")
    return {"measure": measure, "estimate": estimate, "ci_low": float(lo), "ci_high": float(hi),
            "p_value": p, "decays": bool(p < ALPHA), "direction": direction, "method": method,
            "points": int(points), "alpha": ALPHA, "level": LEVEL}


def trend_agreement(first: dict, second: dict) -> dict:
    """Whether two decay findings agree, and whether one decays where the other rises."""
    a, b = first, second
    contradict = (a["decays"] and b["direction"] == "rises") or (
        b["decays"] and a["direction"] == "rises")
    return {"agree": bool(a["decays"]) == bool(b["decays"]), "contradict": bool(contradict),
            "decays": (bool(a["decays"]), bool(b["decays"]))}


def _trend(d, g, se, require: bool) -> dict:
    """The fits' gate: :func:`decay_trend` on the points fitted, refused when ``require`` and
    it does not decay."""
    tr = decay_trend(d, g, se=se)
    if require and not tr["decays"]:
        raise ValueError(f"similarity does not decay with distance (the {TREND_MEASURE} is "
                         f"{tr['estimate']:+.3g}, 95% interval {tr['ci_low']:+.3g} to "
                         f"{tr['ci_high']:+.3g}, one-sided p = {tr['p_value']:.2g}): this is "
                         "not a kernel g(d) to fit")
    return {"trend_slope": tr["estimate"], "trend_ci_low": tr["ci_low"],
            "trend_ci_high": tr["ci_high"], "trend_p": tr["p_value"], "decays": tr["decays"]}


def graded(shape: str, d, p: dict):
    """The graded part of a similarity, 1 at d = 0 (two exponentials: 1 + weight); a fitted
    kernel adds its floor. Beside :data:`SHAPES`, the near design's Gaussian and step."""
    d = np.asarray(d, float)
    if shape == "exp_floor":
        return np.exp(-d / p["lambda"])
    if shape == "gaussian":
        return np.exp(-0.5 * (d / p["lambda"]) ** 2)
    if shape == "step":
        return (d <= p["lambda"]).astype(float)
    if shape == "two_exp_floor":
        return np.exp(-d / p["lambda"]) + p["weight"] * np.exp(-d / p["lambda2"])
    if shape == "power_floor":
        return (1 + d / p["lambda"]) ** -p["beta"]
    if shape == "stretched_floor":
        return np.exp(-(d / p["lambda"]) ** p["beta"])
    raise ValueError(f"shape must be one of {(*SHAPES, 'gaussian', 'step')}; got {shape!r}")


#: kernel shapes g(d) = amplitude (graded(d) + floor), with their parameters' search ranges;
#: each is searched on a log scale (decay lengths in years, floors and weights over decades)
SHAPES = {
    "exp_floor": {"lambda": (0.05, 1e5), "floor": (1e-9, 1e2)},
    "two_exp_floor": {"lambda": (0.05, 1e5), "lambda2": (0.05, 1e5), "weight": (1e-6, 1e4),
                      "floor": (1e-9, 1e2)},
    "power_floor": {"lambda": (0.01, 1e5), "beta": (0.01, 20.0), "floor": (1e-9, 1e2)},
    "stretched_floor": {"lambda": (0.01, 1e5), "beta": (0.05, 5.0), "floor": (1e-9, 1e2)},
}
SHAPE_LABELS = {"exp_floor": "exponential + floor", "two_exp_floor": "two exponentials + floor",
                "power_floor": "power law + floor", "stretched_floor": "stretched exp. + floor"}


def shape_chance_return(shape: str, params: dict) -> float:
    """The return-to-chance distance, where the graded part falls to the floor (lambda
    ln(1/Delta) for an exponential); NaN for the step, which never equals its floor."""
    floor = params["floor"]
    if shape == "step":
        return math.nan
    if graded(shape, 0.0, params) <= floor:
        return 0.0
    if shape == "exp_floor":
        return chance_return(params["lambda"], floor)
    if shape == "gaussian":
        reach = chance_return(1.0, floor)  # ln(1/Delta), with the same conventions
        return params["lambda"] * math.sqrt(2 * reach) if math.isfinite(reach) else math.inf
    if shape == "power_floor":
        return params["lambda"] * (floor ** (-1 / params["beta"]) - 1)
    if shape == "stretched_floor":
        return params["lambda"] * math.log(1 / floor) ** (1 / params["beta"])
    return _where(shape, params, floor)


def shape_half_decay(shape: str, params: dict) -> float:
    """Where the graded part falls to half its value at d = 0, whatever the floor (lambda ln 2
    for an exponential; Definition 1's epsilon for the step)."""
    if shape == "exp_floor":
        return half_decay(params["lambda"])
    if shape == "gaussian":
        return params["lambda"] * math.sqrt(2 * math.log(2))
    if shape == "step":
        return float(params["lambda"])
    if shape == "power_floor":
        return params["lambda"] * (2 ** (1 / params["beta"]) - 1)
    if shape == "stretched_floor":
        return params["lambda"] * math.log(2) ** (1 / params["beta"])
    return _where(shape, params, 0.5 * graded(shape, 0.0, params))


def _where(shape: str, params: dict, level: float) -> float:
    """The distance where a decreasing graded part falls to ``level`` (inf past 1e12)."""
    f = lambda x: math.log(graded(shape, x, params)) - math.log(level)  # noqa: E731
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
        if hi > 1e12:
            return math.inf
    return float(brentq(f, 0.0, hi, xtol=1e-6))


def fit_shape(distance, similarity, shape: str = "exp_floor", *, min_distance: float = 1,
              max_distance: float | None = None, se=None, require_decay: bool = True) -> dict:
    """Fit amplitude (graded(d) + floor) to a kernel by least squares on log g, d in the window."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {tuple(SHAPES)}; got {shape!r}")
    d, g = check_kernel(distance, similarity)
    hi = np.inf if max_distance is None else float(max_distance)
    sel = (d >= min_distance) & (d <= hi) & (g > 0)
    s = _kernel_se(se, np.shape(similarity), np.isfinite(np.asarray(similarity, float)))
    if sel.sum() < len(SHAPES[shape]) + 3:
        raise ValueError(f"similarity needs at least {len(SHAPES[shape]) + 3} positive points in "
                         f"[min_distance, max_distance]")
    s_sel = None if s is None else s[sel]
    trend = _trend(d[sel], g[sel], s_sel, require_decay)
    d, y = d[sel], np.log(g[sel])
    names = list(SHAPES[shape])
    lo = np.log([SHAPES[shape][k][0] for k in names])
    up = np.log([SHAPES[shape][k][1] for k in names])

    def resid(theta):
        p = dict(zip(names, np.exp(theta)))
        m = np.log(graded(shape, d, p) + p["floor"])
        return (y - m) - np.mean(y - m)  # the log amplitude is the mean residual

    span = max(d.max() - d.min(), 1.0)
    starts = {"lambda": [span / 20, span / 4], "lambda2": [span, span * 4], "weight": [0.1],
              "beta": [1.0], "floor": [max(g[sel][-1] / g[sel][0], 1e-6), 1e-3]}
    best = None
    for i in range(2):
        x0 = np.log([starts[k][min(i, len(starts[k]) - 1)] for k in names])
        r = least_squares(resid, np.clip(x0, lo + 1e-6, up - 1e-6), bounds=(lo, up),
                          method="trf", x_scale=1.0, max_nfev=2000)
        if best is None or r.cost < best.cost:
            best = r
    p = dict(zip(names, np.exp(best.x).tolist()))
    if shape == "two_exp_floor" and p["lambda2"] < p["lambda"]:  # one order: lambda <= lambda2
        p["lambda"], p["lambda2"] = p["lambda2"], p["lambda"]
        p["weight"] = 1 / p["weight"]
    m = np.log(graded(shape, d, p) + p["floor"])
    p["amplitude"] = float(np.exp(np.mean(y - m)))
    p["rss"] = float(2 * best.cost)
    p["points"] = int(len(d))
    p["resolution"] = shape_chance_return(shape, p)
    p["chance_return"] = p["resolution"]
    p["half_decay"] = shape_half_decay(shape, p)
    p.update(bound_report(p, SHAPES[shape], log=tuple(SHAPES[shape])))
    p.update(_kernel_gof(y, m + math.log(p["amplitude"]),
                         None if s is None else s[sel] / g[sel], len(names) + 1))
    p.update(trend)
    return p


def shape_kernel(shape: str, params: dict):
    """The fitted kernel amplitude (graded(d) + floor) as a callable (for plots and the engine)."""
    return lambda d: params["amplitude"] * (graded(shape, d, params) + params["floor"])


def compare_shapes(profile: KernelProfile, *, seed, temperature: float = TEMPERATURE,
                   folds: int = 5, min_distance: float = 1, max_distance: float | None = None,
                   shapes=tuple(SHAPES)):
    """Held-out error of each kernel shape: fit on the mean kernel of some units, score the RMSE
    of log g against the mean kernel of the held-out units (k-fold over units)."""
    folds = at_least(folds, 2, "folds")
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(profile.sums)) % folds
    d = profile.distance
    hi = np.inf if max_distance is None else float(max_distance)
    win = (d >= min_distance) & (d <= hi)
    rows = []
    for shape in shapes:
        errs = []
        for k in range(folds):
            train = profile.similarity(temperature, np.flatnonzero(fold != k))
            test = profile.similarity(temperature, np.flatnonzero(fold == k))
            p = fit_shape(d, train, shape, min_distance=min_distance, max_distance=max_distance)
            pred = np.log(shape_kernel(shape, p)(d[win]))
            errs.append(math.sqrt(np.mean((np.log(test[win]) - pred) ** 2)))
        full = fit_shape(d, profile.similarity(temperature), shape, min_distance=min_distance,
                         max_distance=max_distance)
        rows.append({"shape": shape, "heldout_rmse": float(np.mean(errs)),
                     "heldout_se": float(np.std(errs, ddof=1) / math.sqrt(len(errs))),
                     **{k: full[k] for k in ("resolution", "floor", "at_bound", "bound_params",
                                             "rss", "points")}})
    return pd.DataFrame(rows)


def resolution_by_window(profile: KernelProfile, windows, n_boot: int, seed, *,
                         temperature: float = TEMPERATURE, shapes=("exp_floor",),
                         min_distance: float = 1, model: str = "model"):
    """Each shape's resolution fitted on d in [min_distance, window], per window, with a
    bootstrap interval over units: whether a number depends on the window."""
    boots = [profile.similarity(temperature, u)
             for u in resamples(len(profile.sums), n_boot, seed)]
    g, se = profile.similarity(temperature), profile.se(temperature)
    rows = []
    for shape in shapes:
        for w in windows:
            fit = fit_shape(profile.distance, g, shape, min_distance=min_distance, max_distance=w,
                            se=se)
            res, half, hit = [], [], []
            for gb in boots:
                fb = fit_shape(profile.distance, gb, shape, min_distance=min_distance,
                               max_distance=w)
                res.append(fb["resolution"])
                half.append(fb["half_decay"])
                hit.append(fb["at_bound"])
            lo, hi = percentile_interval(res)
            h_lo, h_hi = percentile_interval(half)
            rows.append({"model": model, "measure": shape, "window": int(w),
                         "resolution": fit["resolution"], "ci_low": lo, "ci_high": hi,
                         "at_bound": bool(fit["at_bound"]),
                         "boot_at_bound": bootstrap_at_bound(hit), "gof_p": fit["gof_p"],
                         "misfit": bool(fit["misfit"]), "half_decay": fit["half_decay"],
                         "half_decay_ci_low": h_lo, "half_decay_ci_high": h_hi})
    return pd.DataFrame(rows)


def window_stability(table, windows) -> dict:
    """Whether a measure moves less than its own confidence interval across ``windows``."""
    sub = table[table.window.isin(list(windows))]
    if sub.empty:
        raise ValueError("windows: none of them is in the table")
    spread = float(sub.resolution.max() - sub.resolution.min())
    width = float((sub.ci_high - sub.ci_low).min())
    censored = bool(sub.at_bound.any()) or not np.isfinite(sub.resolution).all()
    return {"spread": spread, "ci_width": width, "censored": censored,
            "stable": (not censored) and spread < width}

