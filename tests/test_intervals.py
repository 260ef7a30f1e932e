"""Intervals over a few replicates: Student's t, Welch's degrees of freedom."""

import warnings

import numpy as np
import pytest
from scipy import stats

from semres.core import intervals


def test_mean_interval_is_students_t_not_two_standard_errors():
    x = np.array([0.80, 0.81, 0.79, 0.82, 0.805, 0.815, 0.795, 0.80, 0.81, 0.80])
    r = intervals.mean_interval(x)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert (r["low"], r["high"]) == pytest.approx((lo, hi))
    assert r["t"] == pytest.approx(2.262, abs=1e-3) and r["df"] == 9
    # wider than ± 2 standard errors
    assert r["high"] - r["mean"] > 2 * r["se"]
    one = intervals.mean_interval([0.5])
    assert one["mean"] == 0.5 and np.isnan(one["low"])


def test_welch_interval_matches_scipy_and_covers_at_its_level():
    a, b = np.array([0.7, 0.74, 0.72]), np.array([0.6, 0.62, 0.61])
    r = intervals.difference_interval(a, b)
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert r["df"] == pytest.approx(ref.df)
    lo, hi = ref.confidence_interval(0.95)
    assert (r["low"], r["high"]) == pytest.approx((lo, hi))
    assert r["excludes_zero"]
    # coverage with 3 replicates a side: t keeps its 95%, ± 2 SE would not
    rng = np.random.default_rng(0)
    hits = two = 0
    for _ in range(4000):
        x, y = rng.normal(0, 1, 3), rng.normal(0, 2, 3)
        w = intervals.difference_interval(x, y)
        hits += w["low"] <= 0 <= w["high"]
        two += abs(w["effect"]) <= 2 * w["se"]
    assert hits / 4000 >= 0.94 and two / 4000 < 0.90


@pytest.mark.parametrize("call, word", [
    (lambda: intervals.mean_interval([]), "values"),
    (lambda: intervals.mean_interval([1.0, np.nan]), "values"),
    (lambda: intervals.mean_interval([1.0, 2.0], level=1.5), "level"),
    (lambda: intervals.difference_interval([], [1.0]), "a must"),
    (lambda: intervals.difference_interval([1.0], [np.nan]), "b must"),
])
def test_bad_input_is_refused_by_name(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_nearly_equal_replicates_give_their_interval_without_scipys_precision_note():
    """scipy notes "Precision loss" when replicates (nearly) agree; that note stays out of a
    chapter's output, and the interval is still the point it should be."""
    same = [0.25] * 5 + [0.25 + 1e-13]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = intervals.mean_interval(same)
        two = intervals.difference_interval(same, [0.25] * 4)
    assert one["low"] == pytest.approx(0.25) and one["high"] == pytest.approx(0.25)
    assert two["effect"] == pytest.approx(0.0, abs=1e-12)
