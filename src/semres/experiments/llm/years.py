"""The years analysis: kernel shapes, the two-reference design, windows, verdicts, settings.

Whatever answers the year questions (a sentence encoder's kernel, a causal LM's option scores,
the authors' released answers), the analysis is the same: which kernel shape describes the
similarity of years and where it meets its floor; the paper's two-reference design, fitted by
binomial likelihood, and its operational chance crossover; whether a resolution moves with the
window it is fitted on; Theorem 3 on accuracy against n. The decisions the chapter reports
(which measure is the headline, what the verdict sentences say) live here too, as tested
functions, so a reader sees them called, not hand-written in a hidden cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .language import NAMES, TEMPERATURE, KernelProfile, check_task
from semres.core.validate import at_least, positive
from semres.core.profiles import Settings, positive_ints, require
from semres.core import plotting, theory
from semres.core.fits import (GOF_KEYS, bootstrap_at_bound, bound_report, censored_warning,
                              chi2_reference_allowed, gof_binomial, gof_bootstrap, gof_chi2,
                              gof_none, gof_pvalue, percentile_interval, resamples)
from semres.core.seeds import named_seed
from semres.core.results import choice_index, correct_mask, split_list
from semres.core.theory import n_item
from semres.experiments import released

__all__ = [
    "exp_floor", "fit_exp_floor", "bootstrap_fit", "two_reference", "FittedKernel",
    "MeasuredKernel", "check_kernel", "SHAPES", "SHAPE_LABELS", "shape_resolution", "fit_shape",
    "shape_kernel", "compare_shapes", "resolution_by_window", "window_stability",
    "window_choices", "same_for_every_choice", "choice_verdict",
    "two_reference_counts", "fit_two_reference", "chance_crossover", "results_by_n",
    "two_reference_from_results", "fit_ball_measure", "MIN_BOOT", "PAPER_RANGE",
    "measure_name", "ref_by_window", "Headline", "headline_measure", "tail_trend",
    "window_verdict", "shape_verdict", "sweep_verdict", "tradeoff", "tradeoff_verdict",
    "wing_asymmetry", "SETTINGS",
]
def exp_floor(d, amplitude, scale, offset):
    """amplitude (exp(-d/scale) + offset / amplitude): the paper's g = e^(-d/lambda) + Delta."""
    return amplitude * np.exp(-np.asarray(d, float) / scale) + offset


def fit_exp_floor(distance, similarity, *, min_distance: int = 1, se=None) -> dict:
    """Least-squares fit of ``exp_floor`` to g(d) for d >= ``min_distance``.

    Returns lambda, the floor Delta = offset / amplitude (the Luce rule ignores a common scale),
    the resolution lambda ln(1/Delta), where the exponential falls to the floor, and the bound
    report (``at_bound``: a floor at 0 means none was found). Input that is not a kernel (see
    :func:`check_kernel`) is refused. The default
    leaves out d = 0: an exact year match is a token identity, a spike the graded part does not
    describe (the chapter reports it separately). With ``se`` (standard errors of g, say over
    the units whose similarities are averaged), the fit's goodness of fit is the chi-square of
    its standardised residuals (:func:`semres.core.fits.gof_chi2`); without, gof_test says none.
    """
    from scipy.optimize import curve_fit

    d = np.asarray(distance, float)
    g = np.asarray(similarity, float)
    if d.shape != g.shape:
        raise ValueError("distance and similarity must be 1-D arrays of the same length")
    ok = np.isfinite(g) & (d >= min_distance)
    if ok.sum() < 4:
        raise ValueError("similarity needs at least 4 finite points at d >= min_distance")
    s = _kernel_se(se, d.shape, ok)
    d, g = check_kernel(d[ok], g[ok])
    p0 = (max(g[0] - g[-1], 1e-6), max((d.max() - d.min()) / 10, 1.0), max(g[-1], 1e-6))
    (a, lam, c), _ = curve_fit(exp_floor, d, g, p0=p0, maxfev=20000,
                               bounds=([1e-12, 1e-3, 0.0], [np.inf, 1e5, np.inf]))
    floor = c / a
    res = lam * math.log(1 / floor) if 0 < floor < 1 else (0.0 if floor >= 1 else math.inf)
    out = {"lambda": lam, "floor": floor, "amplitude": a, "offset": c, "resolution": res}
    out.update(bound_report({"lambda": lam, "floor": max(floor, 1e-300)},
                            {"lambda": (1e-3, 1e5), "floor": (1e-12, math.inf)},
                            log=("lambda", "floor")))
    out.update(_kernel_gof(g, exp_floor(d, a, lam, c), s, 3))
    return out


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


def bootstrap_fit(profile: KernelProfile, n_boot: int, seed, *, temperature: float = TEMPERATURE,
                  max_distance: int | None = None, min_distance: int = 1) -> np.ndarray:
    """Refit on resamples of the units: (n_boot, 3) array of lambda, floor, resolution."""
    stop = len(profile.distance) if max_distance is None else int(max_distance) + 1
    d = profile.distance[:stop]
    out = np.empty((int(n_boot), 3))
    for b, units in enumerate(resamples(len(profile.sums), n_boot, seed)):
        fit = fit_exp_floor(d, profile.similarity(temperature, units)[:stop],
                            min_distance=min_distance)
        out[b] = fit["lambda"], fit["floor"], fit["resolution"]
    return out


def two_reference(offset, D, kernel) -> np.ndarray:
    """Luce P(correct) for references at c - D, c + D and a probe at c + offset, any kernel g(d).

    The correct reference is the one on the probe's side (at offset 0 a tie, so 1/2). With
    ``semres.core.kernels.Exponential(lam, Delta)`` this is the paper's two-reference curve.
    """
    shape = np.shape(offset)
    a = np.abs(np.atleast_1d(np.asarray(offset, float)))  # kernels expect arrays, not scalars
    near = np.asarray(kernel(np.abs(a - D)), float)
    far = np.asarray(kernel(a + D), float)
    return (near / (near + far)).reshape(shape)


class FittedKernel:
    """The fitted graded part amplitude e^(-d/lambda) + offset for d > 0, and g(0) = ``spike``."""

    def __init__(self, fit: dict, spike: float = 1.0):
        self.fit, self.spike = dict(fit), positive(spike, "spike")

    def __call__(self, d):
        d = np.asarray(d)
        g = exp_floor(d, self.fit["amplitude"], self.fit["lambda"], self.fit["offset"])
        return np.where(d == 0, self.spike, g).astype(
            d.dtype if d.dtype.kind == "f" else np.float64, copy=False)


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
    """Refuse input that is not a similarity kernel g(d); return it as float arrays.

    A kernel has one value per distance d >= 0 (strictly increasing distances) and is largest at
    its shortest distances: the mean of the first tenth of the points exceeds that of every later
    tenth. A P(correct) curve of the two-reference design is not one (it is indexed by signed
    offsets, sits at 1/2 on the tie and rises before it falls): fitting a kernel to it returns
    meaningless scales, so it is refused here and belongs to :func:`fit_two_reference`.
    """
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
    if len(g) >= 10:
        blocks = [b.mean() for b in np.array_split(g, 10)]
        if not all(blocks[0] > b for b in blocks[1:]):
            raise ValueError("similarity does not decay with distance (its first tenth is not its "
                             "largest): this is not a kernel g(d); a P(correct) curve of the "
                             "two-reference design is fitted with fit_two_reference")
    return d, g


def _graded(shape: str, d, p: dict):
    d = np.asarray(d, float)
    if shape == "exp_floor":
        return np.exp(-d / p["lambda"])
    if shape == "two_exp_floor":
        return np.exp(-d / p["lambda"]) + p["weight"] * np.exp(-d / p["lambda2"])
    if shape == "power_floor":
        return (1 + d / p["lambda"]) ** -p["beta"]
    if shape == "stretched_floor":
        return np.exp(-(d / p["lambda"]) ** p["beta"])
    raise ValueError(f"shape must be one of {SHAPES}; got {shape!r}")


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


def shape_resolution(shape: str, params: dict) -> float:
    """Where the graded part falls to the floor: graded(d) = floor (lambda ln(1/Delta) for an
    exponential), the distance beyond which every item weighs about the same."""
    floor = params["floor"]
    if _graded(shape, 0.0, params) <= floor:
        return 0.0
    if shape == "exp_floor":
        return params["lambda"] * math.log(1 / floor)
    if shape == "power_floor":
        return params["lambda"] * (floor ** (-1 / params["beta"]) - 1)
    if shape == "stretched_floor":
        return params["lambda"] * math.log(1 / floor) ** (1 / params["beta"])
    from scipy.optimize import brentq

    f = lambda x: math.log(_graded(shape, x, params)) - math.log(floor)  # noqa: E731
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
        if hi > 1e12:
            return math.inf
    return float(brentq(f, 0.0, hi, xtol=1e-6))


def fit_shape(distance, similarity, shape: str = "exp_floor", *, min_distance: float = 1,
              max_distance: float | None = None, se=None) -> dict:
    """Fit amplitude (graded(d) + floor) to a kernel by least squares on log g, d in the window.

    Log space weighs every decade of the kernel alike (it spans several), and the amplitude is
    profiled out in closed form. Returns the parameters, ``resolution`` (:func:`shape_resolution`),
    ``rss`` and ``points``, and the bound report of :func:`semres.core.fits.bound_report`: a floor
    on
    its lower bound means the data show no floor in the window, so the resolution is censored.
    With ``se`` (standard errors of g), goodness of fit is the chi-square of the residuals on
    log g with standard errors se / g (the delta method), amplitude counted as a parameter; the
    fit itself is unweighted, so the statistic is at least the weighted fit's minimum (a
    conservative check of the curve, strict against it). Without ``se``, gof_test says none.
    """
    from scipy.optimize import least_squares

    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {tuple(SHAPES)}; got {shape!r}")
    d, g = check_kernel(distance, similarity)
    hi = np.inf if max_distance is None else float(max_distance)
    sel = (d >= min_distance) & (d <= hi) & (g > 0)
    s = _kernel_se(se, np.shape(similarity), np.isfinite(np.asarray(similarity, float)))
    if sel.sum() < len(SHAPES[shape]) + 3:
        raise ValueError(f"similarity needs at least {len(SHAPES[shape]) + 3} positive points in "
                         f"[min_distance, max_distance]")
    d, y = d[sel], np.log(g[sel])
    names = list(SHAPES[shape])
    lo = np.log([SHAPES[shape][k][0] for k in names])
    up = np.log([SHAPES[shape][k][1] for k in names])

    def resid(theta):
        p = dict(zip(names, np.exp(theta)))
        m = np.log(_graded(shape, d, p) + p["floor"])
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
    m = np.log(_graded(shape, d, p) + p["floor"])
    p["amplitude"] = float(np.exp(np.mean(y - m)))
    p["rss"] = float(2 * best.cost)
    p["points"] = int(len(d))
    p["resolution"] = shape_resolution(shape, p)
    p.update(bound_report(p, SHAPES[shape], log=tuple(SHAPES[shape])))
    p.update(_kernel_gof(y, m + math.log(p["amplitude"]),
                         None if s is None else s[sel] / g[sel], len(names) + 1))
    return p


def shape_kernel(shape: str, params: dict):
    """The fitted kernel amplitude (graded(d) + floor) as a callable (for plots and the engine)."""
    return lambda d: params["amplitude"] * (_graded(shape, d, params) + params["floor"])


def compare_shapes(profile: KernelProfile, *, temperature: float = TEMPERATURE, folds: int = 5,
                   seed=0, min_distance: float = 1, max_distance: float | None = None,
                   shapes=tuple(SHAPES)):
    """Held-out error of each kernel shape: fit on the mean kernel of some units, score the RMSE
    of log g against the mean kernel of the held-out units (k-fold over units).

    Distances within one unit are strongly correlated, so a likelihood count of points (AIC)
    would overstate the evidence; held-out units are the honest yardstick. Returns a DataFrame
    with one row per shape (full-data fit, held-out RMSE and its fold standard error).
    """
    import pandas as pd

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
    """The kernel resolution of each shape fitted on d in [min_distance, window], per window, with
    a bootstrap interval over units: the table that shows whether a number depends on the window.

    Columns: model, measure (the shape), window, resolution, ci_low, ci_high, at_bound (the fit
    on all units hit a bound), boot_at_bound (share of refits that did), gof_p and misfit (the
    fit on all units against the kernel's standard errors, :func:`fit_shape`): a window whose
    fit does not describe the kernel gives no measurement.
    """
    import pandas as pd

    boots = [profile.similarity(temperature, u)
             for u in resamples(len(profile.sums), n_boot, seed)]
    g, se = profile.similarity(temperature), profile.se(temperature)
    rows = []
    for shape in shapes:
        for w in windows:
            fit = fit_shape(profile.distance, g, shape, min_distance=min_distance, max_distance=w,
                            se=se)
            res, hit = [], []
            for gb in boots:
                fb = fit_shape(profile.distance, gb, shape, min_distance=min_distance,
                               max_distance=w)
                res.append(fb["resolution"])
                hit.append(fb["at_bound"])
            lo, hi = percentile_interval(res)
            rows.append({"model": model, "measure": shape, "window": int(w),
                         "resolution": fit["resolution"], "ci_low": lo, "ci_high": hi,
                         "at_bound": bool(fit["at_bound"]),
                         "boot_at_bound": bootstrap_at_bound(hit), "gof_p": fit["gof_p"],
                         "misfit": bool(fit["misfit"])})
    return pd.DataFrame(rows)


def window_stability(table, windows) -> dict:
    """Whether a measure moves less than its own confidence interval across ``windows``.

    ``table`` holds one measure's rows (window, resolution, ci_low, ci_high, at_bound). Stable
    means: no fit in those windows hit a bound, and the spread of the resolution across them is
    smaller than the narrowest of their 95% intervals.
    """
    sub = table[table.window.isin(list(windows))]
    if sub.empty:
        raise ValueError("windows: none of them is in the table")
    spread = float(sub.resolution.max() - sub.resolution.min())
    width = float((sub.ci_high - sub.ci_low).min())
    censored = bool(sub.at_bound.any()) or not np.isfinite(sub.resolution).all()
    return {"spread": spread, "ci_width": width, "censored": censored,
            "stable": (not censored) and spread < width}


# --------------------------------------------------------------------------- two references

def two_reference_counts(centre, D, offset, correct):
    """Per (centre, D, offset): trials and correct answers, from per-trial rows.

    ``correct`` is 1/0 per trial (or a Luce probability in [0, 1]: the expected count of a model
    that answers by sampling), or NaN where no answer could be read (dropped, as the paper's
    accuracy among answers naming a listed person).
    """
    import pandas as pd

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


def _binomial_nll(p, trials, correct) -> float:
    """Negative binomial log-likelihood of ``correct`` of ``trials`` at success rates ``p``."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -float(np.sum(correct * np.log(p) + (trials - correct) * np.log1p(-p)))


def _two_ref_p(D, offset, lam, fl):
    """P(correct) of the two-reference design: the Luce share of the nearer reference."""
    a = np.abs(offset)
    near = np.exp(-np.abs(a - D) / lam) + fl
    return near / (near + np.exp(-(a + D) / lam) + fl)


def _fit_two_ref_cells(D, offset, trials, correct, starts=None) -> dict:
    from scipy.optimize import minimize

    lo = np.log([TWO_REF_BOUNDS[k][0] for k in ("lambda", "floor")])
    hi = np.log([TWO_REF_BOUNDS[k][1] for k in ("lambda", "floor")])

    def nll(theta):
        return _binomial_nll(_two_ref_p(D, offset, *np.exp(theta)), trials, correct)

    best = None
    for x0 in starts or ((np.log(30.0), np.log(0.05)), (np.log(150.0), np.log(1e-3)),
                         (np.log(5.0), np.log(0.3))):
        r = minimize(nll, np.array(x0), method="L-BFGS-B", bounds=list(zip(lo, hi)))
        if best is None or r.fun < best.fun:
            best = r
    lam, fl = np.exp(best.x)
    return {"lambda": float(lam), "floor": float(fl), "nll": float(best.fun),
            "p_fit": _two_ref_p(D, offset, lam, fl),
            "resolution": float(lam) * math.log(1 / fl) if fl < 1 else 0.0}


def _centre_tables(centre_idx, cell_idx, shape, trials, correct):
    """(centre x cell) tables of trials and correct answers: a resample of centres is a
    weighted sum of their rows."""
    tab_t, tab_c = np.zeros(shape), np.zeros(shape)
    np.add.at(tab_t, (centre_idx, cell_idx), trials)
    np.add.at(tab_c, (centre_idx, cell_idx), correct)
    return tab_t, tab_c


def _centre_resamples(tab_t, tab_c, n_boot, seed):
    """Trials and correct answers per cell of each bootstrap resample of the centres (rows of
    :func:`_centre_tables`); none from a single centre, which leaves nothing to resample."""
    n = len(tab_t)
    for idx in resamples(n, n_boot if n > 1 else 0, seed):
        w = np.bincount(idx, minlength=n)
        yield w @ tab_t, w @ tab_c


def fit_two_reference(counts, n_boot: int, seed, *, max_offset: float | None = None,
                      gof_boot: int = 1000) -> dict:
    """Fit the paper's two-reference curve (exponential + floor, Luce rule) to P(correct) data.

    ``counts`` has columns centre, D, offset, trials, correct (:func:`two_reference_counts`).
    Maximum likelihood of the binomial counts gives lambda and the floor Delta; the resolution is
    lambda ln(1/Delta). The interval resamples centres (the units that share a prompt's years),
    refitting each resample. Probes with |offset| > ``max_offset`` are left out (the window).
    Goodness of fit (``gof_test``, ``gof_stat``, ``gof_df``, ``gof_p``, ``misfit``): the
    binomial deviance over the (D, offset) cells, referred to chi-square for whole counts with
    at least 5 expected successes and failures per cell, else to ``gof_boot`` parametric
    bootstrap refits (0: the statistic without a reference).
    """
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
    tables = _centre_tables(np.searchsorted(centres, c.centre),
                            cells.set_index(["D", "offset"]).index.get_indexer(_cell_index(c)),
                            (len(centres), len(cells)), c.trials.to_numpy(float),
                            c.correct.to_numpy(float))
    res, hit = [], []
    for t, k in _centre_resamples(*tables, n_boot, seed):
        fb = _fit_two_ref_cells(D, offset, t, k, starts=[np.log([fit["lambda"], fit["floor"]])])
        res.append(fb["resolution"])
        hit.append(bound_report(fb, TWO_REF_BOUNDS, log=("lambda", "floor"))["at_bound"])
    fit["ci_low"], fit["ci_high"] = percentile_interval(res)
    fit["boot_at_bound"] = bootstrap_at_bound(hit)
    fit["centres"] = int(len(centres))
    del fit["p_fit"]
    return fit


def _two_ref_gof(D, offset, trials, correct, fit, gof_boot, seed) -> dict:
    """Binomial deviance of the two-reference fit over its (D, offset) cells: chi-square where
    the cells hold whole counts of sampled answers with enough expected in each, else the
    parametric bootstrap (expected Luce masses are fractional and carry no answer noise)."""
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
    import pandas as pd

    return pd.MultiIndex.from_arrays([df.D.to_numpy(float), df.offset.to_numpy(float)])


def chance_crossover(counts, n_boot: int, seed, *, z: float = 2.0) -> dict:
    """The paper's operational resolution: how far beyond the nearer reference a probe can lie
    before the preference for it is no longer distinguishable from chance.

    Probes beyond the pair (|offset| > D) are pooled over D and sides by their distance from the
    nearer reference, x = |offset| - D. The advantage P(correct) - 1/2 is smoothed by a
    non-increasing (isotonic) regression, weighted by trials, so that one noisy probe neither
    ends the preference early nor revives it late; the crossover is the first x at which the
    smoothed advantage comes within ``z`` binomial standard errors (of its pooled block) of 0.
    It depends on the number of trials (more
    trials resolve smaller preferences); the interval resamples centres. When the preference is
    still distinguishable at the design's last probe, the number is censored there
    (``at_bound``).
    """
    from scipy.optimize import isotonic_regression

    beyond = counts[counts.offset.abs() > counts.D].copy()
    if beyond.empty:
        raise ValueError("counts: no probe lies beyond the references")
    beyond["x"] = beyond.offset.abs() - beyond.D
    xs = np.unique(beyond.x)
    centres = np.unique(beyond.centre)
    tab_t, tab_c = _centre_tables(np.searchsorted(centres, beyond.centre),
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
    lo, hi = percentile_interval([cross(t, k)[0] for t, k in _centre_resamples(tab_t, tab_c, n_boot, seed)])
    return {"resolution": x0, "ci_low": lo, "ci_high": hi, "at_bound": censored,
            "bound_params": "x=upper" if censored else "", "x_max": float(xs[-1])}


def results_by_n(df):
    """Accuracy per model, task and n from tidy per-trial rows (the paper's measure: correct
    among answers naming a listed option; rows without a readable choice are counted as nulls).

    Columns: model, source, task, n, trials, correct, nulls, p, se.
    """
    import pandas as pd

    if df.empty:
        raise ValueError("df: no rows")
    ch = choice_index(df)
    ok = [bool(m[c]) if c >= 0 else False for m, c in zip(correct_mask(df), ch)]
    t = pd.DataFrame({"model": df.model.to_numpy(), "source": df.source.to_numpy(),
                      "task": df.task.to_numpy(), "n": df.n.astype(int).to_numpy(),
                      "answered": ch >= 0, "ok": ok})
    out = (t.groupby(["model", "source", "task", "n"])
           .agg(trials=("answered", "sum"), correct=("ok", "sum"),
                nulls=("answered", lambda a: int((~a).sum()))).reset_index())
    out["p"] = out.correct / out.trials.where(out.trials > 0)
    out["se"] = np.sqrt(out.p * (1 - out.p) / out.trials.where(out.trials > 0))
    return out


def two_reference_from_results(df):
    """Two-option similarity rows on the year line as (centre, D, offset, trials, correct) counts.

    Any two-person "who was born closest" trial is one point of the two-reference design:
    centre and D from the two years, the offset of the probe from the centre. Returns None
    when ``df`` holds no such row.
    """
    sel = ((df.task == "similarity") & (df.n.astype(int) == 2) & (df.space == "years")).to_numpy()
    if not sel.any():
        return None
    sub = df[sel]
    pos = np.array([[float(v) for v in split_list(p)] for p in sub.position])
    probe = sub.probe.astype(float).to_numpy()
    ch = choice_index(sub)
    mask = correct_mask(sub)
    correct = np.array([float(m[c]) if c >= 0 else np.nan for m, c in zip(mask, ch)])
    # a probe exactly on the centre is a tie: both options count as correct, no information
    centre = pos.mean(1)
    return two_reference_counts(np.round(centre, 6), np.abs(pos[:, 1] - pos[:, 0]) / 2,
                                probe - centre, correct)


def fit_ball_measure(n, trials, correct, *, task: str = "identification", gof_boot: int = 1000,
                     gof_seed=0) -> dict:
    """The ball measure b of Theorem 3 (constant similarity, homogeneous space) fitted to one
    task's accuracy against n by binomial maximum likelihood, with a bound report.

    Fitting b to identification and predicting generalization from it (or the reverse) tests the
    theorem on a model that exposes no kernel, only its answers. Goodness of fit: the binomial
    deviance across n, referred to chi-square for whole counts with at least 5 expected
    successes and failures at every n, else to ``gof_boot`` parametric-bootstrap refits drawn
    from ``gof_seed`` (0 refits: the statistic without a reference).
    """
    from scipy.optimize import minimize_scalar

    check_task(task)
    n = np.asarray(n, int)
    t = np.asarray(trials, float)
    k = np.asarray(correct, float)
    keep = t > 0
    if keep.sum() < 2:
        raise ValueError("trials: at least two values of n need answered trials")
    n, t, k = n[keep], t[keep], k[keep]
    col = 0 if task == "similarity" else 1
    lo, hi = 1e-6, 1 - 1e-6

    def rates(b):
        return np.asarray(n_item(b, n)[col], float)

    def fit(tt, kk):
        r = minimize_scalar(lambda x: _binomial_nll(rates(1 / (1 + math.exp(-x))), tt, kk),
                            bounds=(math.log(lo / (1 - lo)), math.log(hi / (1 - hi))),
                            method="bounded")
        return 1 / (1 + math.exp(-r.x)), float(r.fun)

    b, nll = fit(t, k)
    out = {"b": b, "nll": nll}
    out.update(bound_report(out, {"b": (lo, hi)}, log=("b",)))
    p_fit = rates(b)
    if chi2_reference_allowed(t, k, p_fit)[0] or not gof_boot:
        out.update(gof_binomial(t, k, p_fit, 1))
    else:
        out.update(gof_bootstrap(t, k, p_fit, 1, lambda tt, kk: rates(fit(tt, kk)[0]),
                                 gof_boot, gof_seed))
    return out


# --------------------------------------------------------------------------- the chapter's decisions

#: a 95% percentile interval needs at least 1/0.025 = 40 resamples to put one in each tail; with
#: fewer, "moves less than its interval" compares against noise, so no window verdict is given
MIN_BOOT = 40
#: the paper's stated resolution of its chat LLMs, in years
PAPER_RANGE = (70, 80)


def measure_name(measure: str) -> str:
    """A measure's name for prose: kernel shapes (``kernel exp_floor``) by their label."""
    if measure.startswith("kernel "):
        return f"kernel fit ({SHAPE_LABELS[measure[7:]]})"
    return measure


def ref_by_window(counts, model: str, windows, n_boot: int, seed):
    """The two-reference fit and the chance crossover on probes |offset| <= w, per window
    (each window's resamples a stream of its own, named by the window). The crossover is no
    fit: its goodness of fit is untested (empty), never "passed"."""
    import pandas as pd

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
                     "misfit": f["misfit"]})
        rows.append({"model": model, "measure": "chance crossover", "window": int(w),
                     "resolution": c["resolution"], "ci_low": c["ci_low"],
                     "ci_high": c["ci_high"], "at_bound": c["at_bound"],
                     "boot_at_bound": np.nan, "gof_p": np.nan, "misfit": None})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Headline:
    """The measure a chapter reports for one model, and why the others were passed over."""

    measure: str
    stable: bool
    decided: bool  # False when too few resamples to judge stability
    reasons: tuple
    row: dict  # the measure's last (widest) window


def headline_measure(table, *, best_kernel: str | None, ref_stable, kernel_stable,
                     n_boot: int) -> Headline:
    """The first measure stable across its upper windows, in the order: the paper's
    operational crossover, the two-reference fit, the best kernel shape.

    Stable means no fit stopped on a bound, none failed its goodness-of-fit test (a ``misfit``
    column, where the table has one), and the resolution moved by less than its narrowest 95%
    interval across the upper windows (:func:`window_stability`). With fewer than
    :data:`MIN_BOOT` resamples nothing is decided.
    """
    import pandas as pd

    order = [("chance crossover", ref_stable), ("two-reference fit", ref_stable)]
    if best_kernel is not None:
        order.append((best_kernel, kernel_stable))
    checks, reasons = {}, []
    for measure, (lo, hi) in order:
        sub = table[table.measure == measure]
        wins = [w for w in sub.window if lo <= w <= hi]
        if len(wins) < 2:
            continue
        st = window_stability(sub, wins)
        misfit = bool(sub[sub.window.isin(wins)].get("misfit", pd.Series(False)).fillna(False)
                      .astype(bool).any())
        st["stable"] = st["stable"] and not misfit
        checks[measure] = st
        if misfit:
            reasons.append(f"the {measure_name(measure)} does not describe the data in windows "
                           f"{lo}–{hi} (goodness of fit p < 0.001)")
        elif st["censored"]:
            reasons.append(f"the {measure_name(measure)} stops on a bound of its range in "
                           f"windows {lo}–{hi}")
        elif not st["stable"]:
            reasons.append(f"the {measure_name(measure)} moves by {st['spread']:.0f} years "
                           f"across windows {lo}–{hi}, more than its narrowest interval "
                           f"({st['ci_width']:.0f})")
    decided = int(n_boot) >= MIN_BOOT
    chosen = next((m for m, _ in order if m in checks and checks[m]["stable"]), order[0][0])
    rows = table[table.measure == chosen]
    row = rows.iloc[-1].to_dict() if len(rows) else {}
    return Headline(chosen, decided and chosen in checks and checks[chosen]["stable"], decided,
                    tuple(reasons), row)


def window_choices(table, *, best_kernel: str | None, kernel_windows, ref_windows, ref_stable,
                   kernel_stable, n_boot: int) -> "pd.DataFrame":
    """The verdict of :func:`headline_measure` for every choice of "upper windows": each run
    of at least two windows that ends at the widest one, for the design and for the kernel
    (the other kept at the chapter's choice, ``ref_stable`` or ``kernel_stable``). Whether the
    resolution is identifiable must not hinge on that choice; this table says whether it does.
    """
    import pandas as pd

    def upper(ws):
        ws = sorted(ws)
        return [(ws[i], ws[-1]) for i in range(len(ws) - 1)]

    choices = [("design", r, tuple(kernel_stable)) for r in upper(ref_windows)]
    if best_kernel is not None:  # the chapter's own choice is already among the design rows
        choices += [("kernel", tuple(ref_stable), k) for k in upper(kernel_windows)
                    if k != tuple(kernel_stable)]
    rows = []
    for family, ref, kern in choices:
        h = headline_measure(table, best_kernel=best_kernel, ref_stable=ref,
                             kernel_stable=kern, n_boot=n_boot)
        lo, hi = ref if family == "design" else kern
        rows.append({"family": family, "upper_windows": f"{lo}–{hi}", "measure": h.measure,
                     "stable": h.stable, "resolution": h.row.get("resolution") if h.stable
                     else np.nan})
    return pd.DataFrame(rows)


def same_for_every_choice(choices) -> bool:
    """Whether every choice of upper windows gives the same verdict: none finds a stable
    measure, or all find the same one."""
    stable = choices[choices.stable]
    return stable.empty or (len(stable) == len(choices) and stable.measure.nunique() == 1)


def choice_verdict(choices) -> str:
    """One sentence: does the identifiability verdict depend on which windows count as upper?"""
    stable = choices[choices.stable]
    if stable.empty:
        return (f"The verdict does not depend on which windows count as upper: no measure is "
                f"stable for any of the {len(choices)} choices (every run of two or more windows "
                "ending at the widest, for the design and for the kernel).")
    if same_for_every_choice(choices):
        return ("The verdict does not depend on which windows count as upper: the "
                f"{measure_name(stable.measure.iloc[0])} is stable for all {len(choices)} "
                "choices.")
    found = "; ".join(f"the {measure_name(r.measure)} with {r.family} windows {r.upper_windows} "
                      f"({r.resolution:.0f} years)" for r in stable.itertuples())
    verb = "finds" if len(stable) == 1 else "find"
    rest = ("the others find none" if len(stable) < len(choices) else
            "not the same measure for every choice")
    return (f"The verdict depends on which windows count as upper: {len(stable)} of "
            f"{len(choices)} choices {verb} a stable measure, {found}; {rest}. A resolution "
            "that depends on the choice of window is not identified.")


def tail_trend(distance, similarity, se, *, span: float = 200.0) -> dict:
    """Is the kernel still falling at the end of the measured range, or flat on a floor?

    A weighted straight line through log g over the last ``span`` years; its slope (per 100
    years) is "falling" when it lies more than two standard errors below zero.
    """
    d = np.asarray(distance, float)
    g = np.asarray(similarity, float)
    s = np.asarray(se, float)
    sel = (d >= d.max() - span) & (g > 0) & np.isfinite(s)
    if sel.sum() < 3:
        raise ValueError("distance: fewer than 3 points in the tail span")
    w = (g[sel] / np.maximum(s[sel], 1e-300)) ** 2  # var(log g) ~ (se / g)^2
    coef, cov = np.polyfit(d[sel], np.log(g[sel]), 1, w=np.sqrt(w), cov="unscaled")
    slope, slope_se = 100 * coef[0], 100 * math.sqrt(cov[0, 0])
    return {"from": float(d[sel].min()), "to": float(d[sel].max()), "slope": float(slope),
            "slope_se": float(slope_se), "falling": bool(slope < -2 * slope_se),
            "g_from": float(g[sel][0]), "g_to": float(g[sel][-1])}


def window_verdict(model: str, head: Headline, tail: dict, n_boot: int) -> str:
    """The chapter's sentence on whether ``model``'s resolution is identifiable."""
    if not head.decided:
        return (f"With {n_boot} bootstrap resamples per window (this build's profile) a 95% "
                f"interval has no resample in its tails, so whether the resolution of {model} "
                f"depends on the window is not decided here; {MIN_BOOT} or more decide it.")
    if head.stable:
        r = head.row
        return (f"The {measure_name(head.measure)} is stable across its upper windows: {model} "
                f"resolves years to about {r['resolution']:.0f} years (95% interval "
                f"{r['ci_low']:.0f}–{r['ci_high']:.0f}, window {r['window']}).")
    shape = (f"the kernel is still falling at the end of the measured range (log g drops by "
             f"{-tail['slope']:.2f} ± {2 * tail['slope_se']:.2f} per 100 years over d = "
             f"{tail['from']:.0f}–{tail['to']:.0f}), so every fitted floor is set by where the "
             "window ends" if tail["falling"] else
             f"the kernel flattens at the end of the measured range (g from {tail['g_from']:.4f} "
             f"to {tail['g_to']:.4f} over d = {tail['from']:.0f}–{tail['to']:.0f}, no "
             "significant slope), yet no fit settles on one resolution")
    return (f"No measure is stable across the upper windows, so the resolution of {model} is "
            "not identifiable from these data: " + "; ".join(head.reasons) + f". Here {shape}.")


def shape_verdict(shape_df, fits: dict | None = None) -> tuple[str, str]:
    """Which kernel shape predicts held-out units best, and whether clearly: (shape, sentence).

    With ``fits`` (shape -> fit with a goodness-of-fit test), a ranking among shapes that all
    fail their test is said to be only that: none describes the kernel within its errors.
    """
    ranked = shape_df.sort_values("heldout_rmse").reset_index(drop=True)
    best, second = ranked.iloc[0], ranked.iloc[1]
    gap_se = float(np.hypot(best.heldout_se, second.heldout_se))
    clear = float(second.heldout_rmse - best.heldout_rmse) > 2 * gap_se
    text = (f"the {SHAPE_LABELS[best['shape']]} predicts held-out units best (log-RMSE "
            f"{best.heldout_rmse:.3f}" + (f", ahead of the {SHAPE_LABELS[second['shape']]} by "
                                          "more than two fold standard errors)" if clear else
                                          f"), though within two fold standard errors of the "
                                          f"{SHAPE_LABELS[second['shape']]}"))
    if fits and all(f.get("misfit") for f in fits.values()):
        worst = max(fits.values(), key=lambda f: f["gof_p"])
        text += ("; but no shape describes the kernel within its standard errors (every fit "
                 f"fails its goodness-of-fit test, the best at "
                 f"{gof_pvalue(worst)}), so the ranking "
                 "compares misfits")
    return str(best["shape"]), text


def sweep_verdict(sweep) -> dict:
    """How the engine's prediction from the mean kernel meets the n-sweep, per task.

    ``sweep`` has task, n, p, se, p_theory, theory_se. For each task: the cell farthest from
    the prediction in standard errors, with its n, gap and z (all from that one cell, so the
    sentence never pairs one n's gap with another's z), whether the data and the prediction
    fall at every step, and a sentence.
    """
    out = {}
    for task, sub in sweep.groupby("task"):
        sub = sub.sort_values("n")
        gap = (sub.p - sub.p_theory).to_numpy()
        z = gap / np.hypot(sub.se, sub.theory_se).to_numpy()
        k = int(np.nanargmax(np.abs(z)))
        falls = bool((np.diff(sub.p.to_numpy()) < 0).all())
        within = bool(abs(z[k]) < 3)
        out[task] = {"max_gap": float(gap[k]), "gap_n": int(sub.n.iloc[k]),
                     "max_z": float(abs(z[k])), "within": within, "falls": falls,
                     "text": (f"the prediction meets {task} within three standard errors at every "
                              f"n (farthest: {gap[k]:+.3f} at n = {int(sub.n.iloc[k])})"
                              if within else
                              f"the prediction misses {task} most at n = {int(sub.n.iloc[k])}, by "
                              f"{gap[k]:+.3f} (z = {z[k]:+.1f})")}
    return out


def tradeoff(df, ps: str = "p_s", pi: str = "p_i") -> tuple[int, bool]:
    """Does p_S turn down on cooling while p_I does not? (index of the p_S peak, found).

    ``df`` is sorted by temperature, coldest first, with ``<col>_se`` columns.
    """
    k = int(df[ps].to_numpy().argmax())
    cold, top = df.iloc[0], df.iloc[k]
    se = float(np.hypot(top[ps + "_se"], cold[ps + "_se"]))
    se_i = float(np.hypot(top[pi + "_se"], cold[pi + "_se"]))
    found = k > 0 and top[ps] - cold[ps] > 2 * se and cold[pi] > top[pi] - 2 * se_i
    return k, bool(found)


def tradeoff_verdict(temp_df) -> tuple[bool, bool, str]:
    """(the data trade, the mean kernel predicts a trade, the sentence)."""
    k_data, trade_data = tradeoff(temp_df, "p_s", "p_i")
    k_th, trade_th = tradeoff(temp_df, "p_s_theory", "p_i_theory")
    cold, top = temp_df.iloc[0], temp_df.iloc[k_data]
    th = ("The mean kernel has no floor (every weight beyond the exact year goes to 0 as T "
          "falls), and from it the engine predicts no tradeoff: cooling raises both rates, "
          f"p_S up to {cold.p_s_theory:.3f} at T = {cold.temperature:g}." if not trade_th else
          f"Even the mean kernel predicts a tradeoff: p_S peaks at T = "
          f"{temp_df.temperature.iloc[k_th]:g} and falls on further cooling.")
    data = (f"The model itself does trade: p_S peaks at {top.p_s:.3f} at T = "
            f"{top.temperature:g} and falls to {cold.p_s:.3f} at T = {cold.temperature:g}, "
            f"while p_I stays at {cold.p_i:.3f} or above its value at the peak. Its similarities "
            "fluctuate around the mean kernel; once the softmax is sharper than those "
            "fluctuations, the choice follows them, and they act as the floor of the noisy "
            "exponential: where a floor appears, so does the tradeoff." if trade_data else
            f"The model does not trade either: p_S is highest at the coldest temperature "
            f"(T = {cold.temperature:g}: p_S = {cold.p_s:.3f}, p_I = {cold.p_i:.3f}), or its "
            "fall is within two standard errors: without a floor, no tradeoff.")
    return trade_data, trade_th, th + " " + data


def wing_asymmetry(counts, *, beyond: float = 150.0, D: float | None = None) -> dict:
    """Do the two wings of the design (probe before / after the pair) differ?

    Pools probes more than ``beyond`` years past the nearer reference on each side (at one
    ``D``, or all) and compares P(correct) with a two-proportion z-test.
    """
    sel = counts.offset.abs() - counts.D > beyond
    if D is not None:
        sel &= counts.D == D
    out = {}
    for side, s in (("before", counts.offset < 0), ("after", counts.offset > 0)):
        sub = counts[sel & s]
        t, k = float(sub.trials.sum()), float(sub.correct.sum())
        out[side] = (k / t if t else math.nan, t)
    (p1, n1), (p2, n2) = out["before"], out["after"]
    pooled = (p1 * n1 + p2 * n2) / (n1 + n2) if n1 + n2 else math.nan
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2)) if n1 and n2 else math.nan
    z = (p1 - p2) / se if se and np.isfinite(se) and se > 0 else math.nan
    return {"p_before": p1, "p_after": p2, "z": z,
            "differ": bool(np.isfinite(z) and abs(z) > 3)}


def wing_text(wings: dict, D: float) -> str:
    """The wing comparison in words; nothing when a wing holds no probe (no sentence is built
    on empty data)."""
    if not (np.isfinite(wings["p_before"]) and np.isfinite(wings["p_after"])
            and np.isfinite(wings["z"])):
        return ""
    numbers = (f"P(correct) more than 150 years past the nearer reference: "
               f"{wings['p_before']:.3f} before the pair, {wings['p_after']:.3f} after it, "
               f"|z| = {abs(wings['z']):.1f}")
    if wings["differ"]:
        return (f"The crossover pools the two wings of the design; at D = {D:g} they differ "
                f"({numbers}): the kernel depends on the years themselves, not only on their "
                "distance, which an average g(d) cannot carry.")
    return (f"The crossover pools the two wings of the design; at D = {D:g} they do not "
            f"differ detectably ({numbers}).")


# --------------------------------------------------------------------------- settings

def _check_settings(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "kernel_names", "sweep_names", "phrasings", "fit_max", "prompts",
                   "trials", "engine_trials", "n_boot", "lam_grid", "lam_trials",
                   "causal_trials", "probe_permutations", "gof_boot", "front_trials")
    require(cfg["lm_dtype"] in ("float32", "bfloat16", "auto"), ch,
            f"lm_dtype must be float32, bfloat16 or auto; got {cfg['lm_dtype']!r}")
    require(min(cfg["lm_ns"]) == 2 and max(cfg["lm_ns"]) <= len(NAMES), ch,
            f"lm_ns must start at 2 (the gate's cell) and stay within {len(NAMES)} names; "
            f"got {cfg['lm_ns']}")
    require(1.0 in cfg["lm_temperatures"], ch,
            "lm_temperatures must include 1.0 (the model's own)")
    require(2 * cfg["near_pairs"] * len(cfg["near_Ds"]) <= len(NAMES), ch,
            f"near_pairs: {cfg['near_pairs']} pairs for each of {len(cfg['near_Ds'])} gaps need "
            f"{2 * cfg['near_pairs'] * len(cfg['near_Ds'])} distinct names; there are "
            f"{len(NAMES)}")
    require(isinstance(cfg["near_pairs"], int) and cfg["near_pairs"] >= 2, ch,
            f"near_pairs must be an integer >= 2; got {cfg['near_pairs']!r}")
    xs = cfg["near_xs"]
    require(xs == sorted(set(xs)) and xs[0] >= 0 and min(xs) <= cfg["near_near"]
            and max(xs) >= cfg["near_far"], ch,
            f"near_xs must be increasing distances >= 0 with one at most near_near "
            f"({cfg['near_near']}) and one at least near_far ({cfg['near_far']}); got {xs}")
    require(isinstance(cfg["reverse_trials"], int) and (cfg["reverse_trials"] == 0 or
                                                         cfg["reverse_trials"] >= 2), ch,
            f"reverse_trials must be 0 (as many as the gate) or >= 2; got "
            f"{cfg['reverse_trials']!r}")
    for key in ("kernel_names", "sweep_names"):
        require(cfg[key] <= len(NAMES), ch, f"{key} ({cfg[key]}) exceeds the {len(NAMES)} names")
    require(max(cfg["ns"]) <= cfg["sweep_names"], ch,
             f"the largest n ({max(cfg['ns'])}) needs as many distinct names; sweep_names is "
             f"{cfg['sweep_names']}")
    require(min(cfg["ns"]) >= 2, ch, "ns must be >= 2")
    lo, hi = cfg["kernel_years"]
    require(cfg["fit_max"] <= hi - lo, ch,
             f"fit_max ({cfg['fit_max']}) exceeds the kernel's year span ({hi - lo})")
    c_lo, c_hi = min(cfg["centres"]), max(cfg["centres"])
    o_lo, o_hi = min(cfg["offsets"]), max(cfg["offsets"])
    span = (c_lo + min(o_lo, -max(cfg["Ds"])), c_hi + max(o_hi, max(cfg["Ds"])))
    require(lo <= span[0] and span[1] <= hi, ch,
             f"the resolution design spans years {span}, outside kernel_years {(lo, hi)}")
    positive_ints(cfg, ch, "folds", "window_boot")
    require(isinstance(cfg["gate_trials"], int) and (cfg["gate_trials"] == 0 or
                                                      cfg["gate_trials"] >= 2), ch,
            f"gate_trials must be 0 (sized to tell 0.55 from 0.5) or >= 2; got "
            f"{cfg['gate_trials']!r}")
    require(cfg["folds"] >= 2, ch, f"folds must be >= 2; got {cfg['folds']}")
    for key, stable, top, what in (("windows", "stable_windows", cfg["fit_max"], "fit_max"),
                                   ("ref_windows", "ref_stable", max(abs(o_lo), o_hi),
                                    "the largest |offset|")):
        wins = list(cfg[key])
        require(wins == sorted(set(wins)) and wins[0] >= 1 and wins[-1] <= top, ch,
                 f"{key} must be increasing values in [1, {what} = {top}]; got {wins}")
        a, b = cfg[stable]
        require(sum(a <= w <= b for w in wins) >= 2, ch,
                 f"{stable} {cfg[stable]} must hold at least two of {key} {wins}")


SETTINGS = Settings(
    chapter="05_llm_years",
    profiles={
        "quick": {"kernel_names": 6, "kernel_years": (1500, 2000), "sweep_names": 6,
                  "sweep_years": (1500, 2000), "phrasings": 1, "fit_max": 400,
                  "Ds": [20, 50, 100, 200], "centres": list(range(1700, 1750, 5)),
                  "offsets": list(range(-200, 200, 5)), "prompts": 4,
                  "ns": [2, 3, 4, 6], "trials": 1_000, "engine_trials": 5_000, "n_boot": 20,
                  "temperatures": [0.02, 0.05, 0.2], "lam_grid": 8, "lam_trials": 20_000,
                  "causal_trials": 8, "gate_trials": 32, "reverse_trials": 8,
                  "lm_dtype": "auto", "lm_temperatures": [0.1, 0.25, 0.5, 1.0, 2.0, 4.0],
                  "probe": (4, 1500, 1995, 25), "probe_permutations": 19,
                  "lm_ns": [2, 4], "near_Ds": [5, 50], "near_xs": [0, 3, 60],
                  "near_pairs": 2, "near_centres": (1500, 1700), "near_near": 5,
                  "near_far": 50, "gof_boot": 49, "front_trials": 20_000,
                  "lms": "smollm2-135m,qwen2.5-coder-0.5b",
                  "folds": 3, "windows": [100, 200, 300, 400],
                  "stable_windows": (300, 400), "ref_windows": [100, 150, 200],
                  "ref_stable": (150, 200), "window_boot": 8},
        "default": {"kernel_names": 12, "kernel_years": (1200, 2000), "sweep_names": 52,
                    "sweep_years": (1500, 2000), "phrasings": 3, "fit_max": 600,
                    "Ds": [2, 5, 20, 50, 100, 200], "centres": list(range(1500, 1700, 5)),
                    "offsets": list(range(-300, 300, 5)), "prompts": 20,
                    "ns": [2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50], "trials": 3_000,
                    "engine_trials": 40_000, "n_boot": 200,
                    "temperatures": [0.01, 0.02, 0.035, 0.05, 0.1, 0.2, 0.5, 1.0],
                    "lam_grid": 25, "lam_trials": 200_000, "causal_trials": 160,
                    "gate_trials": 0, "reverse_trials": 200, "lm_dtype": "auto",
                    "lm_temperatures": [0.1, 0.25, 0.5, 1.0, 2.0, 4.0],
                    "probe": (8, 1500, 1995, 5), "probe_permutations": 99,
                    "lm_ns": [2, 4, 8], "near_Ds": [5, 20, 50, 100],
                    "near_xs": [0, 1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130],
                    "near_pairs": 4, "near_centres": (1500, 1700), "near_near": 5,
                    "near_far": 50, "gof_boot": 999, "front_trials": 200_000, "folds": 5,
                    "lms": "smollm2-135m,qwen2.5-coder-0.5b",
                    "windows": [100, 200, 300, 400, 500, 600], "stable_windows": (300, 600),
                    "ref_windows": [100, 150, 200, 250, 300], "ref_stable": (200, 300),
                    "window_boot": 40},
        "paper": {"kernel_names": 24, "kernel_years": (800, 2000), "sweep_names": 60,
                  "sweep_years": (1500, 2000), "phrasings": 3, "fit_max": 800,
                  "Ds": [2, 5, 20, 50, 100, 200], "centres": list(range(1500, 1700, 5)),
                  "offsets": list(range(-300, 300, 5)), "prompts": 20,
                  "ns": [2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50, 60], "trials": 10_000,
                  "engine_trials": 200_000, "n_boot": 1000,
                  "temperatures": [0.01, 0.02, 0.035, 0.05, 0.1, 0.2, 0.5, 1.0],
                  "lam_grid": 40, "lam_trials": 1_000_000, "causal_trials": 800,
                  "gate_trials": 0, "reverse_trials": 0, "lm_dtype": "float32",
                  "lm_temperatures": [0.1, 0.25, 0.5, 1.0, 2.0, 4.0],
                  "probe": (12, 1500, 1999, 3), "probe_permutations": 199,
                  "lm_ns": [2, 4, 8, 16], "near_Ds": [2, 5, 20, 50, 100, 200],
                  "near_xs": [0, 1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130, 210, 300],
                  "near_pairs": 5, "near_centres": (1500, 1700), "near_near": 5,
                  "near_far": 50, "gof_boot": 999, "front_trials": 1_000_000, "folds": 10,
                  "lms": "smollm2-135m,gemma3-270m,qwen2.5-coder-0.5b,qwen2.5-coder-1.5b",
                  "windows": [100, 200, 300, 400, 500, 600, 700, 800],
                  "stable_windows": (300, 800), "ref_windows": [100, 150, 200, 250, 300],
                  "ref_stable": (200, 300), "window_boot": 200},
    },
    check=_check_settings, parameters={"causal_trials": "causal_trials", "causal_lm": "lms"},
    slow=True,
    paper={"Ds": ([2, 5, 20, 50, 100, 200], "half-gaps D"), "prompts": (20, "prompts per probe"),
           "phrasings": (1, "phrasings of each question")})


def deviation_lines(cfg: dict, encoder: str, lms: list, ns: list, n_names: int) -> list[str]:
    """How this build's protocol differs from the paper's, beyond the settings in
    ``SETTINGS.paper`` (which :meth:`semres.report.Report.deviations` compares itself)."""
    return [
        f"models: the encoder {encoder} and the causal LMs {', '.join(lms) or '(none)'}, "
        "instead of gemma-2-2b-it, Llama-3.2-3B-Instruct and Qwen2.5-7B-Instruct",
        "read-out: the Luce mass on the correct people (a probability per prompt), instead of "
        "parsing one generated answer; every draw is seeded",
        f"resolution design: {len(cfg['centres'])} centres on a grid {min(cfg['centres'])}–"
        f"{max(cfg['centres'])} (paper: 40 drawn at random in 1500–1699)",
        f"the causal LMs' resolution: the near design (gaps D = "
        f"{', '.join(map(str, cfg['near_Ds']))}, {cfg['near_pairs']} pairs of names each, probes "
        f"{', '.join(map(str, cfg['near_xs']))} years from the nearer person, both sides, both "
        "orders) fitted across distances, instead of probes every 5 years over c ± 300 read off "
        "a figure",
        f"n-sweep: n = {', '.join(map(str, ns))} with {cfg['trials']} prompts each, years "
        f"{cfg['sweep_years'][0]}–{cfg['sweep_years'][1]}, {n_names} names (paper: n = 2, 4, "
        "…, 98 with 1000 prompts each, years 800–1599, 190 names)",
        "the kernel is measured from the model and its shape chosen by held-out error; the "
        "two-reference fit and the crossover are refitted window by window; the tradeoff and "
        "the 1/n law, which the paper did not test, are measured here",
    ]


# --------------------------------------------------------------------------- answers from elsewhere

def external_answers(shipped: list, counts: list, curves: list, tidy_rows):
    """Accuracy by (model, task, n) and two-reference counts per model, from every source of
    answers the chapter did not produce with its encoder: the shipped tables derived from the
    authors' files, the authors' files themselves (as ``released.gather`` read them), and tidy
    per-trial rows (any model's,
    including a causal LM scored here). Both analyses then treat every model alike."""
    import pandas as pd

    cols = ["model", "source", "task", "n", "trials", "correct"]
    ext_n, ext_ref = [], {}
    for name in shipped:
        tab = released.load_table(name)
        if name == "llm_n":
            ext_n.append(tab.assign(trials=tab.answered)[cols])
        else:  # means over centres: one pseudo-centre, so no interval over centres
            for m, sub in tab.groupby("model"):
                ext_ref[m] = pd.DataFrame({"centre": 0.0, "D": sub.D.astype(float),
                                           "offset": sub.offset.astype(float),
                                           "trials": sub.prompts.astype(float),
                                           "correct": sub.p_correct_mean * sub.prompts}).dropna()
    for tab in counts:  # the authors' n-sweep pickles, read by released.gather
        ext_n.append(tab.assign(trials=tab.answered)[cols])
    for long in curves:  # their resolution pickles
        long = long.dropna(subset=["p_correct"])
        if len(long):
            ext_ref[long.model.iloc[0]] = pd.DataFrame({
                "centre": long.centre.astype(float), "D": long.D, "offset": long.offset,
                "trials": long.nrep.astype(float), "correct": long.p_correct * long.nrep})
    if tidy_rows is not None and len(tidy_rows):
        ext_n.append(results_by_n(tidy_rows)[cols])
        for m, sub in tidy_rows.groupby("model"):
            c = two_reference_from_results(sub)
            if c is not None and (c.offset.abs() > c.D).any():
                ext_ref[m] = c
    ext_n = pd.concat(ext_n, ignore_index=True) if ext_n else pd.DataFrame(columns=cols)
    ext_n = ext_n.groupby(["model", "task", "n"], as_index=False).agg(
        source=("source", "first"), trials=("trials", "sum"), correct=("correct", "sum"))
    ext_n["p"] = ext_n.correct / ext_n.trials.where(ext_n.trials > 0)
    ext_n["se"] = np.sqrt(ext_n.p * (1 - ext_n.p) / ext_n.trials.where(ext_n.trials > 0))
    return ext_n, ext_ref


def theorem3_table(ext_n):
    """Theorem 3 per model: one ball measure b fitted to identification over n predicts
    similarity at every n; the largest |z| of that prediction."""
    import pandas as pd

    rows = []
    for m, sub in ext_n.groupby("model"):
        ide = sub[sub.task == "identification"].sort_values("n")
        sim = sub[sub.task == "similarity"].sort_values("n")
        if len(ide) < 2:
            continue
        fb = fit_ball_measure(ide.n, ide.trials, ide.correct)
        row = {"model": m, "b": fb["b"], "at_bound": fb["at_bound"],
               "bound_params": fb["bound_params"], "max_z_sim": np.nan, "n_max": int(sub.n.max())}
        if len(sim):
            pred = np.asarray(theory.n_item(fb["b"], sim.n.to_numpy())[0], float)
            z = (sim.p.to_numpy() - pred) / sim.se.replace(0, np.nan).to_numpy()
            row["max_z_sim"] = float(np.nanmax(np.abs(z)))
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", "b", "at_bound", "bound_params", "max_z_sim",
                                       "n_max"])


def external_verdict(model: str, thm3, windows, *, decided: bool, ref_stable) -> str:
    """One sentence per model on Theorem 3 and its resolution against the paper's 70–80 years."""
    bits = []
    t3 = thm3[thm3.model == model]
    if len(t3):
        r = t3.iloc[0]
        bits.append(censored_warning(f"b for {model}", r.to_dict()) or (
            f"Theorem 3 with b = {r.b:.3f} fitted to identification predicts its similarity "
            "accuracy " + ("within 3 standard errors at every n" if r.max_z_sim <= 3 else
                           f"with deviations up to {r.max_z_sim:.1f} standard errors")
            if np.isfinite(r.max_z_sim) else f"Theorem 3 fits b = {r.b:.3f} to identification"))
    w = windows[(windows.model == model) & windows.headline]
    if len(w):
        last = w.iloc[-1]
        overlap = last.ci_low <= PAPER_RANGE[1] and last.ci_high >= PAPER_RANGE[0]
        lo, hi = ref_stable
        stable = window_stability(w, [x for x in w.window if lo <= x <= hi])
        bits.append(f"its {last.measure} is {last.resolution:.0f} years (95% interval "
                    f"{last.ci_low:.0f}–{last.ci_high:.0f}, window {last.window}), "
                    + ("stability across windows not decided (too few resamples)" if not decided
                       else "stable across windows" if stable["stable"] else
                       "not stable across windows")
                    + ("; the same measure on the paper's 70–80 years "
                       + ("overlaps" if overlap else "does not overlap") + " it"
                       if last.measure == "chance crossover" else ""))
    return f"{model}: " + "; ".join(bits) + "." if bits else ""


def temperature_from_results(rows, temperatures):
    """p_S and p_I at n = 2 when a model's option scores are sharpened or flattened by a
    softmax temperature T (its own answers are T = 1): the causal-LM temperature sweep."""
    import pandas as pd
    from scipy.special import softmax

    two = rows[(rows.n == 2) & rows.scores.fillna("").astype(str).str.len().gt(0)]
    out = []
    for (m, task), sub in two.groupby(["model", "task"]):
        scores = np.array([[float(v) for v in split_list(s)] for s in sub.scores])
        ok = np.array(correct_mask(sub), float)
        for T in temperatures:
            mass = (softmax(scores / float(T), axis=1) * ok).sum(1)
            out.append({"model": m, "task": task, "temperature": float(T), "p": mass.mean(),
                        "se": mass.std(ddof=1) / np.sqrt(len(mass))})
    return pd.DataFrame(out, columns=["model", "task", "temperature", "p", "se"])


# --------------------------------------------------------------------------- figures

def _plt():
    import matplotlib.pyplot as plt

    return plt, plotting


def fig_lambda(lam_df):
    """p_S, p_I against lambda, and the same runs on the plane, per floor."""
    plt, splot = _plt()
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
    plt, splot = _plt()
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
    plt, splot = _plt()
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
    plt, splot = _plt()
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
    plt, splot = _plt()
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
    plt, splot = _plt()
    from matplotlib.colors import LogNorm

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


def fit_table(model: str, shape_fits: dict, shape_df, two_fit: dict, cfg: dict):
    """``fit.csv``: every fit of the chapter's encoder, with its bound report and its
    goodness-of-fit test (a row with ``misfit`` True is not a measurement)."""
    import pandas as pd

    keep = ("resolution", "floor", "at_bound", "bound_params", *GOF_KEYS)
    heldout = shape_df.set_index("shape").heldout_rmse
    rows = [{"model": model, "measure": f"kernel {s}", "window": int(cfg["fit_max"]),
             "lambda": f.get("lambda"), **{k: f.get(k) for k in keep},
             "heldout_rmse": float(heldout[s]), "ci_low": np.nan, "ci_high": np.nan}
            for s, f in shape_fits.items()]
    rows.append({"model": model, "measure": "two-reference fit",
                 "window": int(np.abs(cfg["offsets"]).max()), "lambda": two_fit["lambda"],
                 **{k: two_fit.get(k) for k in keep}, "heldout_rmse": np.nan,
                 "ci_low": two_fit["ci_low"], "ci_high": two_fit["ci_high"]})
    return pd.DataFrame(rows)
