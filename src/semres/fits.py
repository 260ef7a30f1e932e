"""What every fitted number must carry: whether the optimiser stopped on the edge of its range.

A parameter that sits on a bound of its search range is censored, not estimated: the data would
have pushed it further. Every fit in the package reports this through :func:`bound_report`, every
``fit*.csv`` carries a boolean ``at_bound`` column, and a chapter prints :func:`censored_warning`
instead of a verdict when a reported number is censored.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bound_report", "censored_warning", "bootstrap_at_bound", "bootstrap_map", "resamples",
           "percentile_interval"]


def bound_report(values: dict, bounds: dict, *, rtol: float = 1e-3, log: tuple = ()) -> dict:
    """``{"at_bound": bool, "bound_params": "name=lower,..."}`` for fitted ``values``.

    ``bounds`` maps a parameter name to its (lower, upper) search range; a value within ``rtol``
    of the range's width from an end counts as on it. Parameters named in ``log`` are compared on
    a log scale (scales and floors searched over decades). An infinite end is never reached.
    """
    hits = []
    for name, (lo, hi) in bounds.items():
        v = float(values[name])
        if name in log:
            v, lo, hi = (math.log(x) if x > 0 else -math.inf for x in (v, lo, hi))
        width = hi - lo if math.isfinite(hi - lo) else max(abs(v), 1.0)
        tol = rtol * width
        if math.isfinite(lo) and v <= lo + tol:
            hits.append(f"{name}=lower")
        elif math.isfinite(hi) and v >= hi - tol:
            hits.append(f"{name}=upper")
    return {"at_bound": bool(hits), "bound_params": ",".join(hits)}


def censored_warning(what: str, fit: dict) -> str | None:
    """One line for the page when ``fit`` hit a bound (None when it did not)."""
    if not fit.get("at_bound"):
        return None
    return (f"Warning: the fit of {what} stopped on the edge of its search range "
            f"({fit.get('bound_params', '')}): the number is censored, not an estimate, and no "
            f"verdict is drawn from it.")


def bootstrap_at_bound(flags) -> float:
    """Share of bootstrap refits that hit a bound (reported beside every interval)."""
    flags = np.asarray(flags, bool)
    return float(flags.mean()) if flags.size else math.nan


def resamples(size: int, n_boot, seed):
    """Index arrays of ``n_boot`` bootstrap resamples of ``size`` units (drawn with replacement,
    one after another from ``seed``): the one resampling loop of every bootstrap interval."""
    rng = np.random.default_rng(seed)
    for _ in range(int(n_boot)):
        yield rng.integers(0, size, size)


def bootstrap_map(fn, size: int, n_boot, seed, *, n_jobs: int | None = None,
                  progress: bool = False, desc: str = "bootstrap") -> list:
    """``[fn(index) for each of n_boot resamples of size units]``, on every core.

    A paper-profile interval refits a model a thousand times, minutes on one core. The resamples
    are drawn first, in the order :func:`resamples` draws them, and the results come back in
    that order, so the same seed gives the same intervals whatever ``n_jobs`` (None: every
    core; 1: this process). ``fn`` must be picklable by cloudpickle (closures are).
    """
    from joblib import Parallel, cpu_count, delayed
    from tqdm.auto import tqdm

    if isinstance(n_jobs, bool) or not (n_jobs is None or (isinstance(n_jobs, int)
                                                          and n_jobs >= 1)):
        raise ValueError(f"n_jobs must be None or an integer >= 1; got {n_jobs!r}")
    draws = list(resamples(size, n_boot, seed))
    jobs = n_jobs or cpu_count()
    bar = dict(total=len(draws), desc=desc, disable=not progress, leave=False)
    if jobs == 1 or len(draws) < 2 * jobs:
        return [fn(idx) for idx in tqdm(draws, **bar)]
    run = Parallel(n_jobs=jobs, return_as="generator", batch_size=max(1, len(draws) // (8 * jobs)))
    return list(tqdm(run(delayed(fn)(idx) for idx in draws), **bar))


def percentile_interval(values) -> tuple:
    """The 95% percentile interval ``(low, high)`` of bootstrap values; NaNs when there are none."""
    if not len(values):
        return math.nan, math.nan
    return tuple(np.percentile(values, [2.5, 97.5]).tolist())
