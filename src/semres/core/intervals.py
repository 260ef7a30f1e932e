"""Intervals over a few replicates: scipy's Student's t, not ± 2 standard errors (with 3 seeds a
side Welch's t has about 4 df and its 97.5 % quantile is 2.8), so that a page's level is true.
"""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np
from scipy import stats

__all__ = ["mean_interval", "difference_interval", "LEVEL"]

LEVEL = 0.95  # the level of every interval the book reports


def _values(x, name: str, level) -> np.ndarray:
    v = np.asarray(x, float).ravel()
    if not (v.size and np.isfinite(v).all()):
        raise ValueError(f"{name} must hold finite replicates (drop missing ones first)")
    if not (isinstance(level, (int, float)) and 0 < level < 1):
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    return v


def _interval(test, df: float, level: float, **known) -> dict:
    """``se``, ``df``, ``t``, ``low``, ``high`` of a scipy t-test result (NaNs without one)."""
    if test is None:
        return {"se": math.nan, "df": df, "t": math.nan, "low": math.nan, "high": math.nan,
                **known}
    with np.errstate(all="ignore"):
        low, high = test.confidence_interval(level)
    t = float(stats.t.ppf(0.5 + level / 2, df)) if df > 0 else math.nan
    return {**known, "df": float(df), "t": t, "low": float(low), "high": float(high)}


@contextlib.contextmanager
def _quiet_t_test():
    """scipy's t-tests note "Precision loss" on replicates that are (nearly) equal; the
    interval is still right, so that note, and only it, stays out of a chapter's output."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
        yield


def mean_interval(values, level: float = LEVEL) -> dict:
    """The mean of replicates with its one-sample t interval: ``mean``, ``se``, ``df``, ``t``,
    ``low``, ``high``, ``n``; NaNs for one replicate.
    """
    v = _values(values, "values", level)
    if v.size < 2:
        return _interval(None, 0.0, level, mean=float(v.mean()), n=1)
    with _quiet_t_test():
        test = stats.ttest_1samp(v, 0.0)
    out = _interval(test, test.df, level, mean=float(v.mean()), se=float(stats.sem(v)))
    return {**out, "n": int(v.size)}


def difference_interval(a, b, level: float = LEVEL) -> dict:
    """mean(a) - mean(b) with Welch's t interval: ``effect``, ``se``, ``df``, ``t``, ``low``,
    ``high``, ``excludes_zero``; NaNs with fewer than two replicates a side.
    """
    a, b = _values(a, "a", level), _values(b, "b", level)
    effect = float(a.mean() - b.mean())
    if min(a.size, b.size) < 2:
        out = _interval(None, math.nan, level, effect=effect)
    else:
        se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        with _quiet_t_test():
            test = stats.ttest_ind(a, b, equal_var=False)
        # no spread on either side: a point, on the pooled degrees of freedom
        df = float(test.df) if se > 0 else float(a.size + b.size - 2)
        out = _interval(test, df, level, effect=effect, se=float(se))
    out["excludes_zero"] = bool(np.isfinite(out["low"]) and (out["low"] > 0 or out["high"] < 0))
    return out
