"""Intervals over a few replicates: Student's t, not ± 2 standard errors (with 3 seeds a side
Welch's t has about 4 df and its 97.5 % quantile is 2.8), so that a page's level is true.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["mean_interval", "difference_interval", "LEVEL"]

#: the level of every interval the book reports
LEVEL = 0.95


def _values(x, name: str) -> np.ndarray:
    v = np.asarray(x, float).ravel()
    if not np.isfinite(v).all():
        raise ValueError(f"{name} must hold finite numbers (drop missing replicates first)")
    return v


def _check_level(level) -> float:
    if not (isinstance(level, (int, float)) and 0 < level < 1):
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    return float(level)


def _t(df: float, level: float) -> float:
    return float(stats.t.ppf(0.5 + level / 2, df)) if df > 0 else math.nan


def _nan(**known) -> dict:
    return {"se": math.nan, "df": math.nan, "t": math.nan, "low": math.nan, "high": math.nan,
            **known}


def mean_interval(values, level: float = LEVEL) -> dict:
    """The mean of replicates with its one-sample t interval: ``mean``, ``se``, ``df``, ``t``,
    ``low``, ``high``, ``n``; NaNs for one replicate.
    """
    v = _values(values, "values")
    level = _check_level(level)
    if not v.size:
        raise ValueError("values must hold at least one replicate")
    if v.size < 2:
        return _nan(mean=float(v.mean()), df=0.0, n=int(v.size))
    with np.errstate(all="ignore"):
        r = stats.ttest_1samp(v, 0.0)
        low, high = r.confidence_interval(level)
    return {"mean": float(v.mean()), "se": float(stats.sem(v)), "df": float(r.df),
            "t": _t(r.df, level), "low": float(low), "high": float(high), "n": int(v.size)}


def difference_interval(a, b, level: float = LEVEL) -> dict:
    """mean(a) - mean(b) with Welch's t interval: ``effect``, ``se``, ``df``, ``t``, ``low``,
    ``high``, ``excludes_zero``; NaNs with fewer than two replicates a side.
    """
    a, b = _values(a, "a"), _values(b, "b")
    level = _check_level(level)
    if not (a.size and b.size):
        raise ValueError("a and b must each hold at least one replicate")
    if min(a.size, b.size) < 2:
        out = _nan(effect=float(a.mean() - b.mean()))
    else:
        se = float(math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size))
        with np.errstate(all="ignore"):
            r = stats.ttest_ind(a, b, equal_var=False)
            low, high = r.confidence_interval(level)
        # no spread on either side: a point, on the pooled degrees of freedom
        df = float(r.df) if se > 0 else float(a.size + b.size - 2)
        out = {"effect": float(a.mean() - b.mean()), "se": se, "df": df, "t": _t(df, level),
               "low": float(low), "high": float(high)}
    out["excludes_zero"] = bool(np.isfinite(out["low"]) and (out["low"] > 0 or out["high"] < 0))
    return out
