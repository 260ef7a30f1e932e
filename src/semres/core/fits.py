"""What every fitted number carries: whether it stopped on the edge of its search range, and
whether the fitted curve fits its data at all.

A parameter on a bound is censored, not estimated: every fit reports :func:`bound_report` and a
page prints :func:`censored_warning` instead of a verdict. Every fit also reports a goodness-of-fit
test (:data:`GOF_KEYS`), and a page says when it fails.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.special import xlogy
from scipy.stats import chi2
from tqdm.auto import tqdm

from .book import cores
from .parallel import spread


def bound_report(values: dict, bounds: dict, *, rtol: float = 1e-3, log: tuple = ()) -> dict:
    """``{"at_bound": bool, "bound_params": "name=lower,..."}``: a value within ``rtol`` of its
    (lower, upper) range's width from an end is on it; names in ``log`` compare on a log scale; an
    infinite end is never reached.
    """
    hits = []
    for name, (lo, hi) in bounds.items():
        v = float(values[name])
        if name in log:
            v, lo, hi = (math.log(x) if x > 0 else -math.inf for x in (v, lo, hi))
        tol = rtol * (hi - lo if math.isfinite(hi - lo) else max(abs(v), 1.0))
        if math.isfinite(lo) and v <= lo + tol:
            hits.append(f"{name}=lower")
        elif math.isfinite(hi) and v >= hi - tol:
            hits.append(f"{name}=upper")
    return {"at_bound": bool(hits), "bound_params": ",".join(hits)}


def censored_warning(what: str, fit: dict) -> str | None:
    """One line for the page when ``fit`` hit a bound (None when it did not)."""
    if not fit.get("at_bound"):
        return None
    edges = ", ".join(f"{name} at its {side} bound" for name, _, side in
                      (part.partition("=") for part in str(fit.get("bound_params", "")).split(",")
                       if part))
    return (f"Warning: the fit of {what} stopped on the edge of its search range "
            f"({edges}): the number is censored, not an estimate, and no verdict is drawn "
            f"from it.")


def bootstrap_at_bound(flags) -> float:
    """Share of bootstrap refits that hit a bound (reported beside every interval)."""
    flags = np.asarray(flags, bool)
    return float(flags.mean()) if flags.size else math.nan


def resamples(size: int, n_boot, seed):
    """Index arrays of ``n_boot`` bootstrap resamples of ``size`` units, drawn in turn."""
    rng = np.random.default_rng(seed)
    for _ in range(int(n_boot)):
        yield rng.integers(0, size, size)


def bootstrap_map(fn, size: int, n_boot, seed, *, progress: bool = False,
                  desc: str = "bootstrap") -> list:
    """``[fn(index) for each resample]`` through :func:`semres.core.parallel.spread`, resamples
    drawn first, so the same seed gives the same intervals wherever they run.
    """
    draws = list(resamples(size, n_boot, seed))
    return spread(fn, draws, desc=desc if progress else None,
                  batch_size=max(1, len(draws) // (8 * max(1, cores()))))


def percentile_interval(values) -> tuple:
    """The 95% percentile interval of bootstrap values; NaNs when there are none."""
    if not len(values):
        return math.nan, math.nan
    return tuple(np.percentile(values, [2.5, 97.5]).tolist())


# Goodness of fit: every fit reports GOF_KEYS; gof_resolution is the smallest p-value its test
# can give (0 for chi-square, 1 / (B + 1) for B refits), misfit is None when untested.

#: a fit whose goodness-of-fit p-value falls below this is marked ``misfit``
MISFIT_P = 1e-3
#: chi-square is trusted when every cell expects this many successes and failures
MIN_EXPECTED = 5.0
#: the fewest bootstrap refits whose smallest p-value, 1 / (1 + n), falls below MISFIT_P
MIN_GOF_BOOT = round(1 / MISFIT_P)
GOF_KEYS = ("gof_test", "gof_stat", "gof_df", "gof_p", "gof_resolution", "misfit")
#: draws reaching the observed statistic after which a goodness-of-fit bootstrap stops (Besag &
#: Clifford 1991, "Sequential Monte Carlo p-values"): with h of them in l draws the p-value is
#: h / l, with a relative standard error of at most 1 / sqrt(h): 10 reads a p-value to about
#: ±30 %, enough to quote it to one figure, while a fit with p = 0.5 stops after some 20 draws
#: instead of a thousand refits. A misfit never stops early: its few exceedances run every draw.
SEQUENTIAL_HITS = 10


def _coarse(resolution: float) -> bool:
    """A test whose smallest p-value cannot fall below MISFIT_P."""
    return resolution >= MISFIT_P * (1 - 1e-9)


def misfit_rule(resolution: float = 0.0) -> str:
    """The rule that marks a misfit: p < 0.001, or, for a bootstrap too small to resolve that, p at
    its smallest value 1 / (B + 1) (no refit reached the observed statistic).
    """
    r = float(resolution)
    if not (r >= 0 and math.isfinite(r)):
        raise ValueError(f"resolution must be a finite number >= 0; got {resolution!r}")
    if not _coarse(r):
        return f"p < {MISFIT_P:g}"
    return (f"p at its smallest possible value, {r:.2g} with {round(1 / r) - 1} refits "
            f"(too few refits for p < {MISFIT_P:g})")


def gof_result(test: str, stat=math.nan, df=math.nan, p=math.nan,
               resolution: float = 0.0) -> dict:
    """A record with the keys of :data:`GOF_KEYS`; ``misfit`` None when untested (no p-value)."""
    p, resolution = float(p), float(resolution)
    if not math.isfinite(p):
        misfit = None
    elif _coarse(resolution):
        misfit = bool(p <= resolution * (1 + 1e-9))
    else:
        misfit = bool(p < MISFIT_P)
    return {"gof_test": test, "gof_stat": float(stat), "gof_df": float(df), "gof_p": p,
            "gof_resolution": resolution, "misfit": misfit}


def gof_none(reason: str) -> dict:
    """The goodness-of-fit keys of a fit no test can check: ``misfit`` None, not False."""
    return gof_result(f"none: {reason}")


def _reach(stat: float) -> float:
    """The smallest simulated statistic counted as reaching ``stat``."""
    return stat - 1e-9 * max(1.0, abs(stat))


def gof_p_bootstrap(observed: float, simulated) -> tuple[float, float]:
    """``(p, resolution)``: p = (1 + #{simulated >= observed}) / (1 + B), resolution 1 / (1 + B).
    """
    sims = np.asarray(simulated, float).ravel()
    if not sims.size:
        raise ValueError("simulated must hold at least one draw")
    p = (1 + np.sum(sims >= _reach(float(observed)))) / (1 + sims.size)
    return float(p), 1 / (1 + sims.size)


def gof_frame(results) -> pd.DataFrame:
    """Many fits' :data:`GOF_KEYS` as columns, ``misfit`` nullable (NA where untested) and
    ``gof_tested`` saying which were: an untested row never reads as a pass.
    """
    results = list(results)
    out = pd.DataFrame({key: [r[key] for r in results] for key in GOF_KEYS})
    out["misfit"] = pd.array([None if r["misfit"] is None else bool(r["misfit"])
                              for r in results], dtype="boolean")
    out["gof_tested"] = out["misfit"].notna().to_numpy(bool)
    return out


def _n_params(v, name: str = "n_params") -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"{name} must be an integer >= 0; got {v!r}")
    return int(v)


def _df(units: int, n_params, what: str) -> int:
    df = units - _n_params(n_params)
    if df < 1:
        raise ValueError(f"n_params: {n_params} parameters leave no degrees of freedom in "
                         f"{what}")
    return df


def _cells(trials, correct, p_fit):
    n, k, p = (np.asarray(x, float).ravel() for x in (trials, correct, p_fit))
    if not (n.shape == k.shape == p.shape):
        raise ValueError("trials, correct and p_fit must have the same length")
    if (n < 0).any() or (k < 0).any() or (k > n + 1e-9).any():
        raise ValueError("correct must lie in [0, trials] in every cell")
    if ((p < 0) | (p > 1)).any() or not np.isfinite(p).all():
        raise ValueError("p_fit must lie in [0, 1]")
    keep = n > 0
    return n[keep], k[keep], p[keep]


def binomial_deviance(trials, correct, p_fit) -> float:
    """The binomial log-likelihood ratio of the fit against one rate per cell (fractional counts
    allowed).
    """
    n, k, p = _cells(trials, correct, p_fit)
    p = np.clip(p, 1e-300, 1 - 1e-16)
    return float(2 * np.sum(xlogy(k, k / (n * p)) + xlogy(n - k, (n - k) / (n * (1 - p)))))


def chi2_reference_allowed(trials, correct, p_fit) -> tuple[bool, str]:
    """(allowed, why not): chi-square holds only for whole counts with at least
    :data:`MIN_EXPECTED` expected successes and failures in every cell.
    """
    n, k, p = _cells(trials, correct, p_fit)
    if not (np.allclose(k, np.round(k)) and np.allclose(n, np.round(n))):
        return False, "fractional counts (expected masses, not sampled answers)"
    low = np.minimum(n * p, n * (1 - p)) < MIN_EXPECTED
    if low.any():
        return False, (f"{int(low.sum())} of {len(n)} cells expect fewer than {MIN_EXPECTED:g} "
                       "successes or failures")
    return True, ""


def gof_binomial(trials, correct, p_fit, n_params: int) -> dict:
    """Binomial deviance referred to chi-square on cells - n_params df where
    :func:`chi2_reference_allowed`; elsewhere gof_p is NaN and gof_test says why.
    """
    n, k, p = _cells(trials, correct, p_fit)
    df = _df(len(n), n_params, f"{len(n)} cells")
    stat = binomial_deviance(n, k, p)
    ok, why = chi2_reference_allowed(n, k, p)
    if not ok:
        return gof_result(f"binomial deviance, no chi-square reference ({why})", stat, df)
    return gof_result("binomial deviance, chi-square reference", stat, df, chi2.sf(stat, df))


def _stop_at(n_boot: int) -> int:
    """The exceedances that settle "not a misfit" among ``n_boot`` draws: :data:`SEQUENTIAL_HITS`,
    or more where the full bootstrap's p-value, (1 + hits) / (1 + n_boot), could still fall below
    :data:`MISFIT_P` with that many (so a stop never changes the full bootstrap's verdict)."""
    return max(SEQUENTIAL_HITS, math.ceil(MISFIT_P * (1 + n_boot)))


def _bootstrap(stat: float, n_boot: int, seed, simulate, progress: bool) -> tuple:
    """``(deviances, p, resolution, how many refits ran)`` of up to ``n_boot`` data sets drawn in
    turn from ``seed``: ``simulate(rng)`` gives a draw's deviance at the fit it came from and a
    function refitting it. The refit is never worse than that fit, so a draw already short of
    ``stat`` cannot reach it and is not refitted.

    Sequential: once :func:`_stop_at` draws have reached ``stat`` the fit cannot be a misfit, so
    drawing stops and p is hits / draws; otherwise p is (1 + hits) / (1 + n_boot), as a full
    bootstrap gives. The draws are a prefix of the full bootstrap's, and ``resolution`` stays its
    1 / (1 + n_boot), the rule its verdict is read by.
    """
    rng = np.random.default_rng(seed)
    reach, stop = _reach(stat), _stop_at(n_boot)
    sims, hits = [], 0
    for _ in tqdm(range(n_boot), desc="goodness of fit", disable=not progress, leave=False):
        at_fit, refitted = simulate(rng)
        sims.append(at_fit if at_fit < reach else min(at_fit, refitted()))
        hits += sims[-1] >= reach
        if hits >= stop:
            return (np.array(sims), hits / len(sims), 1 / (1 + n_boot),
                    f"sequential: stopped after {len(sims)} of up to {n_boot} refits, when "
                    f"{stop} had reached the statistic")
    sims = np.array(sims)
    return (sims, *gof_p_bootstrap(stat, sims), f"{n_boot} refits")


def gof_bootstrap(trials, correct, p_fit, n_params: int, refit, n_boot: int, seed, *,
                  progress: bool = False) -> dict:
    """Binomial deviance referred to its parametric bootstrap: ``n_boot`` whole-count data sets
    drawn from the fitted rates, each refitted by ``refit(trials, correct) -> p_fit``. Valid where
    chi-square is not; for fractional counts (expected masses) conservative. Stops once the verdict
    is settled (:func:`_bootstrap`). Adds ``gof_null_mean``, the deviance's mean when the fit is
    true (errs high), over the draws made.
    """
    n, k, p = _cells(trials, correct, p_fit)
    n_boot = _n_params(n_boot, "n_boot")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1; got {n_boot}")
    df = len(n) - _n_params(n_params)
    stat = binomial_deviance(n, k, p)
    whole = np.round(n).astype(np.int64)

    def simulate(rng):
        ks = rng.binomial(whole, p).astype(float)
        return (binomial_deviance(whole, ks, p),
                lambda: binomial_deviance(whole, ks, refit(whole.astype(float), ks)))

    sims, pval, resolution, ran = _bootstrap(stat, n_boot, seed, simulate, progress)
    return {**gof_result(f"binomial deviance, parametric bootstrap ({ran}; misfit rule "
                         f"{misfit_rule(resolution)})", stat, df, pval, resolution),
            "gof_null_mean": float(sims.mean())}


def gof_chi2(y, y_fit, se, n_params: int) -> dict:
    """Sum of squared standardised residuals, referred to chi-square on points - n_params df."""
    y, f, s = (np.asarray(x, float).ravel() for x in (y, y_fit, se))
    if not (y.shape == f.shape == s.shape):
        raise ValueError("y, y_fit and se must have the same length")
    if not (np.isfinite(s).all() and (s > 0).all()):
        raise ValueError("se must be finite and positive")
    df = _df(len(y), n_params, f"{len(y)} points")
    stat = float(np.sum(((y - f) / s) ** 2))
    return gof_result("chi-square of standardised residuals", stat, df, chi2.sf(stat, df))


def _count_table(counts, probs) -> tuple:
    """``(counts, probs, rows with counts, free cells)`` of a (rows x options) table."""
    o, q = np.asarray(counts, float), np.asarray(probs, float)
    if o.shape != q.shape or o.ndim != 2 or (o < 0).any():
        raise ValueError("counts, probs: equal 2-D shapes (rows x options), counts >= 0")
    rows = o.sum(axis=1) > 0
    return o, q, rows, int(rows.sum() * (o.shape[1] - 1))


def gof_multinomial(counts, probs, n_params: int) -> dict:
    """Deviance G = 2 sum O ln(O / E) of counts (rows x options) against fitted probabilities,
    referred to chi-square on sum(options - 1) - n_params df; empty rows left out.
    """
    o, q, rows, cells = _count_table(counts, probs)
    df = _df(cells, n_params, f"{int(rows.sum())} rows")
    stat = multinomial_deviance(o, q)
    return gof_result("multinomial deviance, chi-square reference", stat, df, chi2.sf(stat, df))


def multinomial_deviance(counts, probs) -> float:
    """G = 2 sum O ln(O / E) over rows with counts (rows x options)."""
    o, q = np.asarray(counts, float), np.asarray(probs, float)
    rows = o.sum(axis=1) > 0
    e = q[rows] * o[rows].sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(2 * np.where(o[rows] > 0, o[rows] * np.log(o[rows] / e), 0.0).sum())


def gof_counts(counts, probs, n_params: int, refit=None, n_boot: int = 0, seed=0, *,
               progress: bool = False) -> dict:
    """Goodness of fit of counts (rows x options): :func:`gof_multinomial` where every cell expects
    :data:`MIN_EXPECTED` answers, else (on sparse cells chi-square is far off) a parametric
    bootstrap refitted by ``refit(counts) -> probs``, sequential as :func:`_bootstrap`; without
    either the statistic has no reference.
    """
    o, q, rows, cells = _count_table(counts, probs)
    df = cells - _n_params(n_params)
    expected = q[rows] * o[rows].sum(axis=1, keepdims=True)
    if (expected >= MIN_EXPECTED).all():
        return gof_multinomial(o, q, n_params)
    stat = multinomial_deviance(o, q)
    sparse = f"{int((expected < MIN_EXPECTED).sum())} of {expected.size} cells expect fewer " \
             f"than {MIN_EXPECTED:g} answers"
    if refit is None or not n_boot:
        return gof_result(f"multinomial deviance, no chi-square reference ({sparse})", stat, df)
    totals = o.sum(axis=1).astype(np.int64)
    drawn = q / np.where(totals[:, None] > 0, q.sum(axis=1, keepdims=True), 1.0)  # as drawn

    def simulate(rng):
        sim = np.zeros_like(o)
        for i in np.flatnonzero(totals):
            sim[i] = rng.multinomial(totals[i], drawn[i])
        return multinomial_deviance(sim, drawn), lambda: multinomial_deviance(sim, refit(sim))

    sims, pval, resolution, ran = _bootstrap(stat, int(n_boot), seed, simulate, progress)
    return gof_result(f"multinomial deviance, parametric bootstrap ({ran}; {sparse}; misfit rule "
                      f"{misfit_rule(resolution)})", stat, df, pval, resolution)


#: the keys of :func:`misfit_size`
SIZE_KEYS = ("dispersion", "explained_null", "explained_saturated", "rms_gap", "rms_sampling")


def misfit_size(deviance_fit: float, deviance_null: float, null_mean: float, observed,
                predicted, totals) -> dict:
    """How far a fit misses, beside its p-value (which on thousands of trials rejects a miss too
    small to matter), from the deviances of the fit and of the no-similarity model, the fit
    deviance's ``null_mean`` when the fit is true, and the cells' rates and ``totals``:
    ``dispersion`` (deviance / null mean), ``explained_null``, ``explained_saturated`` (the share
    of structure beyond sampling noise captured), ``rms_gap`` and ``rms_sampling`` (the gap
    sampling alone gives).
    """
    obs, pred, n = (np.asarray(x, float).ravel() for x in (observed, predicted, totals))
    if not (obs.shape == pred.shape == n.shape) or not obs.size:
        raise ValueError("observed, predicted and totals must have the same, nonzero length")
    if not (np.isfinite(n).all() and (n > 0).all()):
        raise ValueError("totals must be positive")
    d_fit, d_null, mean = float(deviance_fit), float(deviance_null), float(null_mean)
    if not (mean > 0 and math.isfinite(mean)):
        raise ValueError(f"null_mean must be a finite number > 0; got {null_mean!r}")
    structure = d_null - mean
    return {"dispersion": d_fit / mean,
            "explained_null": 1 - d_fit / d_null if d_null > 0 else math.nan,
            "explained_saturated": (d_null - d_fit) / structure if structure > 0 else math.nan,
            "rms_gap": float(np.sqrt(np.mean((obs - pred) ** 2))),
            "rms_sampling": float(np.sqrt(np.mean(np.clip(pred * (1 - pred), 0, None) / n)))}


def quasi_interval(estimate: float, ci, dispersion: float) -> tuple[float, float]:
    """An interval widened by sqrt(``dispersion``) on each side (quasi-likelihood), never narrowed;
    approximate: it assumes the misfit is extra-binomial scatter, not a wrong shape.
    """
    lo, hi = (float(x) for x in ci)
    d = float(dispersion)
    if not (math.isfinite(d) and d > 0):
        raise ValueError(f"dispersion must be a finite number > 0; got {dispersion!r}")
    k = math.sqrt(max(1.0, d))
    est = float(estimate)
    return est - k * (est - lo), est + k * (hi - est)
