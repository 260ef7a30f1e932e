"""Kernels read off behaviour: the Luce rule on a scene's probe-to-shape distances, and the fits of
a spatial scale to a model's answers on four-shape scenes."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import least_squares as _least_squares

from semres.core import choice, fits
from semres.core.choice import FLOOR_LOG_RANGE, pad
from semres.core.fits import bound_report

GOF_KEYS = fits.GOF_KEYS
#: fit.csv's columns that only a likelihood fit has
PROFILE = ("profile_low_px", "profile_high_px", "scale_no_floor_px")
#: the 95% likelihood-ratio test of a floor on its bound of 0 (the 90% chi-square(1)
#: quantile, as the statistic is a 50:50 mixture at a bound)
FLOOR_LR = 2.706
#: the standard error of a margin bin without spread
SE_MIN = 1e-3
#: fit.csv's names of the kernels fitted here
KERNEL = {"ml": "exponential (ML)", "biased": "exponential + response bias (ML)",
          "ls": "exponential (least squares)", "margin": "margin resolution (least squares)",
          "graded": "exponential without floor on p(n), {}", "ball": "Theorem 3 ball radius, {}"}


def luce_exponential(distances, target, scale: float, floor: float = 0.0) -> np.ndarray:
    """P(correct) under g(d) = exp(-d / scale) + floor, one row of ``distances`` per scene."""
    return _Exponential(distances, target)(scale, floor)


class _Exponential:
    """:func:`luce_exponential` of fixed scenes at any ``(scale, floor)``, worked out once for
    the thousands of evaluations of a least-squares fit."""

    def __init__(self, distances, target):
        d, self.mask = pad(distances)
        self.full = bool(self.mask.all())
        # shift by each scene's nearest distance: same ratios, no underflow to 0 / 0
        self.near = np.where(self.mask, d, np.inf).min(axis=1, keepdims=True)
        self.lead = -(d - self.near)
        self.d = d
        self.at = (np.arange(len(d)), np.asarray(target))

    def __call__(self, scale: float, floor: float = 0.0) -> np.ndarray:
        if not scale > 0 or not floor >= 0:
            raise ValueError(f"scale must be > 0 and floor >= 0; got {scale}, {floor}")
        with np.errstate(over="ignore"):
            lift = floor * np.exp(self.near / scale) if floor else 0.0
        g = np.exp(self.lead / scale) + lift
        if not self.full:
            g = np.where(self.mask, g, 0.0)
        if not np.isfinite(g).all():  # the floor dwarfs the kernel: it alone sets the ratios
            g = np.where(self.mask, np.exp(-self.d / scale) + floor, 0.0)
        return g[self.at] / g.sum(axis=1)


def luce_margin(distances, target, eps) -> np.ndarray:
    """P(correct) when every shape within ``eps`` of the nearest distance ties (a constant kernel
    on the excess distance); an array of ``eps`` gives one row of scenes per value."""
    d, mask = pad(distances)
    eps = np.asarray(eps, dtype=float)
    if (eps < 0).any():
        raise ValueError(f"eps must be >= 0; got {eps}")
    near = np.where(mask, d, np.inf).min(axis=1, keepdims=True)
    inside = mask & (d <= near + eps[..., None, None])
    return inside[..., np.arange(len(d)), np.asarray(target)] / inside.sum(axis=-1)


def _spread(distances) -> tuple:
    """(smallest positive gap between a scene's distances, largest spread within a scene)."""
    d, mask = pad(distances)
    dd = np.where(mask, d, np.nan)
    gaps = np.diff(np.sort(dd, axis=1), axis=1)
    gaps = gaps[np.isfinite(gaps) & (gaps > 0)]
    spread = float(np.nanmax(np.nanmax(dd, axis=1) - np.nanmin(dd, axis=1)))
    return (float(gaps.min()) if gaps.size else spread / 100), spread


def fit_exponential(distances, target, p_correct) -> dict:
    """Least-squares ``scale`` and ``floor`` of :func:`luce_exponential` to measured P(correct),
    the scale searched from a twentieth of the finest gap to twenty times the widest spread."""
    p = np.asarray(p_correct, dtype=float)
    d, mask = pad(distances)
    gap, spread = _spread(distances)
    lo, hi = gap / 20, 20 * spread
    d_typ = float(np.median(np.where(mask, d, np.inf).min(axis=1)))
    u_lo, u_hi = np.log(lo), np.log(hi)

    def model(x, with_floor):
        scale = np.exp(x[0])
        # the floor relative to the kernel at the typical nearest distance, on a log scale
        floor = np.exp(x[1] - d_typ / scale) if with_floor else 0.0
        return scale, floor

    luce = _Exponential(d, target)

    def resid(x, with_floor):
        return luce(*model(x, with_floor)) - p

    plain, floored = [], []
    for u0 in np.linspace(u_lo, u_hi, 5)[1:-1]:
        r0 = _least_squares(lambda z: resid([z[0], 0.0], False), [u0], bounds=([u_lo], [u_hi]))
        plain.append((r0.cost, [r0.x[0], -np.inf], False))
        for v0 in (-8.0, 0.0):
            r = _least_squares(resid, [r0.x[0], v0], args=(True,),
                              bounds=([u_lo, FLOOR_LOG_RANGE[0]], [u_hi, FLOOR_LOG_RANGE[1]]))
            floored.append((r.cost, list(r.x), True))
    best0, best1 = (min(f, key=lambda f: f[0]) for f in (plain, floored))
    # a floor is kept only when it lowers the error beyond rounding
    cost, x, with_floor = best1 if best1[0] < best0[0] * (1 - 1e-6) - 1e-12 else best0
    scale, floor = model(x, with_floor)
    values, bounds = {"scale": scale}, {"scale": (lo, hi)}
    if with_floor:  # the floor's upper end is a search limit; 0 is its natural one
        values["floor_rel"], bounds["floor_rel"] = x[1], (-np.inf, FLOOR_LOG_RANGE[1])
    return {"scale": float(scale), "floor": float(floor), "sse": float(2 * cost),
            "scale_range": (float(lo), float(hi)),
            **bound_report(values, bounds, log=("scale",))}


def fit_margin(distances, target, p_correct, grid=None) -> dict:
    """Least-squares ``eps`` of :func:`luce_margin`, a step function searched on ``grid`` (default
    501 points up to the largest distance spread, beyond which every shape ties)."""
    p = np.asarray(p_correct, dtype=float)
    if grid is None:
        grid = np.linspace(0, _spread(distances)[1], 501)
    grid = np.asarray(grid, dtype=float)
    sse = np.concatenate([((luce_margin(distances, target, grid[lo:lo + 64]) - p) ** 2)
                          .sum(axis=1) for lo in range(0, len(grid), 64)])  # 64 radii a time
    best = float(grid[int(np.argmin(sse))])
    return {"eps": best, "sse": float(sse.min()), "grid": (float(grid[0]), float(grid[-1])),
            **bound_report({"eps": best}, {"eps": (float(grid[0]), float(grid[-1]))})}


class Trials:
    """The geometry of scored scenes as the fits read it: distances, targets, margins, names."""

    def __init__(self, scene_list):
        self.scenes = list(scene_list)
        self.d = np.array([s.distances for s in self.scenes])
        self.t = np.array([s.target for s in self.scenes])
        self.m = np.array([s.margin for s in self.scenes])
        self.names = [list(s.names) for s in self.scenes]


def fit_row(model: str, source: str, kernel: str, scale: float, ci, px: float, floor: float,
            trials: int, at_bound: bool, bound_params: str, tested: dict,
            distance_p: float = np.nan, boot_at_bound: float = np.nan,
            profile=(np.nan, np.nan, np.nan)) -> dict:
    """One row of fit.csv: the scale and its interval in canvas units and pixels (``px`` a canvas
    unit), the likelihood ``profile`` (low, high, the scale without a floor) and ``tested``."""
    return {"model": model, "source": source, "kernel": kernel, "scale_frac": scale,
            "scale_px": scale * px, "ci_low_px": ci[0] * px, "ci_high_px": ci[1] * px,
            "floor": floor, "trials": trials, "distance_p": distance_p,
            "boot_at_bound": boot_at_bound, "at_bound": at_bound, "bound_params": bound_params,
            **dict(zip(PROFILE, np.multiply(profile, px))), **tested}


def biased_p(d, names, target, f) -> np.ndarray:
    """P(correct) that a fitted biased Luce rule ``f`` gives each trial."""
    return np.array([q[t] for q, t in zip(choice.choice_probs(
        d, names, f["scale"], f["floor"], f.get("weights")), target)])


def margin_bins(m, bins: int):
    """Equal-count margin bins: the bin of each trial (and the cut points)."""
    cut = np.unique(np.quantile(m, np.linspace(0, 1, bins + 1)))
    return np.clip(np.digitize(m, cut[1:-1]), 0, len(cut) - 2)


def chi2_fit(p, pred, se, null, params: int = 1) -> dict:
    """The chi-square goodness of fit of rates ``p`` (standard errors ``se``, at least
    :data:`SE_MIN`) to ``pred`` with ``params`` parameters, and how far it misses against no
    similarity (``null``: chance, or one rate for every bin); each rate counts p(1 - p)/se²
    effective trials."""
    p, pred, null = (np.asarray(x, float) for x in (p, pred, null))
    se = np.maximum(np.asarray(se, float), SE_MIN)
    out = fits.gof_chi2(p, pred, se, params)
    d_null = float(np.sum(((p - null) / se) ** 2))
    totals = np.maximum(pred * (1 - pred), 1e-6) / se ** 2
    out.update(fits.misfit_size(out["gof_stat"], d_null, float(out["gof_df"]), p, pred, totals))
    return out


def margin_gof(p, pred, m, params: int, bins: int) -> dict:
    """:func:`chi2_fit` of mean P(correct) in equal-count margin bins against a prediction; no
    similarity is one rate for every bin."""
    tab = pd.DataFrame({"k": margin_bins(m, bins), "p": p, "q": pred}).groupby("k").agg(
        p=("p", "mean"), q=("q", "mean"), sd=("p", "std"), n=("p", "size"))
    return chi2_fit(tab.p, tab.q, tab.sd.fillna(0) / np.sqrt(tab.n), np.mean(p), params)


def refit_null_mean(counts, probs, refit, draws: int, seed) -> float:
    """What a fit's multinomial deviance averages when the fit is true: the mean over ``draws``
    data sets drawn from ``probs`` and refitted (``refit(counts) -> probs``); NaN without."""
    o, q = np.asarray(counts, float), np.asarray(probs, float)
    if not int(draws):
        return float("nan")
    rng = np.random.default_rng(seed)
    totals = o.sum(axis=1).astype(np.int64)
    q = q / q.sum(axis=1, keepdims=True)
    out = []
    for _ in range(int(draws)):
        sim = np.zeros_like(o)
        for i in np.flatnonzero(totals):
            sim[i] = rng.multinomial(totals[i], q[i])
        out.append(fits.multinomial_deviance(sim, refit(sim)))
    return float(np.mean(out))


def choice_size(f: dict, gof: dict, observed, predicted, totals, null_mean: float) -> dict:
    """The misfit's size of a biased Luce fit whose deviance counts the trials its likelihood
    counts: no similarity is the same weights with no distance, whose deviance exceeds the
    fit's by twice their log-likelihoods' difference."""
    mean = float(null_mean) if np.isfinite(null_mean) else float(gof["gof_df"])
    d_null = float(gof["gof_stat"]) + 2 * (float(f["loglik"]) - float(f["flat_loglik"]))
    return fits.misfit_size(gof["gof_stat"], d_null, max(mean, 1e-9), observed, predicted,
                            totals)


def binned_gof(trials: Trials, p, bins: int):
    """``gof(fit, params)`` for :func:`choice_rows`: the biased Luce rule against P(correct) in
    margin bins, where only its scale and floor count (the bins do not see the weights)."""
    def gof(f, params):
        pred = biased_p(trials.d, trials.names, trials.t, f)
        return margin_gof(p, pred, trials.m, 1 + int(f["floor"] > 0), bins)
    return gof


def choice_rows(label: str, source: str, d, names, px: float, boot: int, seed,
                choices=None, probs=None, gof=None):
    """The likelihood fits of a model's similarity trials: the exponential Luce rule without and
    with one response weight per answer, each with its profile and ``gof(fit, params)``."""
    out, biased = [], None
    for bias in (False, True):
        f = choice.fit_choices(d, names, choice=choices, probs=probs, bias=bias, boot=boot,
                               seed=seed, progress=True, profile=41)  # profile points
        params = 1 + int(f["floor"] > 0) + (len(f["weights"]) - 1 if bias else 0)
        f.update(gof(f, params))
        floor_at_0 = "floor=0 (LR {:.2g})".format(f["floor_lr"]) \
            if 0 < f["floor_lr"] < FLOOR_LR else ""
        out.append(fit_row(
            label, source, KERNEL["biased" if bias else "ml"], f["scale"], f["scale_ci"], px,
            f["floor"], f["trials"], f["at_bound"],
            ",".join(x for x in (f["bound_params"], floor_at_0) if x), tested(f),
            f["distance_p"], f["boot_at_bound"], (*f["profile_ci"], f["scale_no_floor"])))
        biased = f if bias else biased
    return out, biased


def tested(f: dict) -> dict:
    """A fit's goodness of fit and its misfit's size (NaN where not measured), for fit.csv."""
    return {**{key: f[key] for key in GOF_KEYS},
            **{key: f.get(key, np.nan) for key in fits.SIZE_KEYS}}


def weight_rows(label: str, f) -> list:
    """The fitted response weights with their bootstrap intervals, for fit_weights.csv."""
    return [{"model": label, "answer": n, "weight": w, "ci_low": f["weights_ci"][n][0],
             "ci_high": f["weights_ci"][n][1],
             "at_bound": f"weight[{n}]=" in f["bound_params"]}
            for n, w in f["weights"].items()]


def least_squares(trials: Trials, p, label: str, px: float, boot: int, seed, bins: int):
    """The least-squares checks of the likelihood fit: the exponential kernel and a margin
    resolution fitted to P(correct), with bootstrap intervals over the scenes; their rows, both
    fits and the intervals (low/high × scale/eps)."""
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
    rows = [fit_row(label, "live", KERNEL["ls"], fe["scale"], ci[:, 0], px, fe["floor"],
                    len(p), fe["at_bound"], fe["bound_params"], gof_ls,
                    boot_at_bound=fits.bootstrap_at_bound(draws[:, 2])),
            fit_row(label, "live", KERNEL["margin"], fm["eps"], ci[:, 1], px, np.nan, len(p),
                    fm["at_bound"], fm["bound_params"], gof_mar,
                    boot_at_bound=fits.bootstrap_at_bound(draws[:, 3]))]
    return rows, fe, fm, ci

def estimators(ci, ml_row: dict, biased, px: float) -> tuple[dict, bool]:
    """The three estimators' intervals of the scale (canvas units) and whether they overlap (a
    necessary condition for an identified scale, not a test of equality)."""
    est = {"least squares": (ci[0, 0], ci[1, 0]),
           "ML": (ml_row["ci_low_px"] / px, ml_row["ci_high_px"] / px),
           "ML with weights": biased["scale_ci"]}
    agree = max(lo for lo, hi in est.values()) <= min(hi for lo, hi in est.values())
    return est, agree


def binned_accuracy(trials: Trials, p, biased, eps: float, bins: int) -> pd.DataFrame:
    """Mean P(correct) in equal-count margin bins, with its spread, beside the biased Luce
    rule's and the margin resolution's mean predictions."""
    binned = pd.DataFrame({"bin": margin_bins(trials.m, bins), "m": trials.m, "p": p,
                           "bias": biased_p(trials.d, trials.names, trials.t, biased),
                           "mar": luce_margin(trials.d, trials.t, eps)})
    return binned.groupby("bin").agg(m=("m", "mean"), p=("p", "mean"), sd=("p", "std"),
                                     k=("p", "size"), bias=("bias", "mean"),
                                     mar=("mar", "mean"))
