"""semres.experiments.many_items.verdicts: chapter 2's comparisons with the paper and its rows."""

import numpy as np
import pandas as pd
import pytest

from semres.core import theory
from semres.experiments.many_items import settings, verdicts

PAPER_MIN = settings.DEFAULT.paper_minimum


def test_b_star_agrees_within_the_papers_rounding_only():
    ok, dev = verdicts.b_star_agrees([0.5, 0.3771], [0.5, 0.377])
    assert ok and dev == pytest.approx(0.0001 / 0.377)
    ok, dev = verdicts.b_star_agrees([0.5, 0.39], [0.5, 0.377])
    assert not ok and dev == pytest.approx(0.013 / 0.377)


def test_minimum_matches_needs_the_papers_n_and_value():
    n, value = PAPER_MIN
    assert verdicts.minimum_matches(n, value + 4e-4)
    assert not verdicts.minimum_matches(n, value + 6e-4)
    assert not verdicts.minimum_matches(n + 1, value)
    # this build's own numbers: Theorem 3 at b = 0.05 has its minimum at the paper's n
    ns = np.arange(2, 40)
    ps = theory.n_item(settings.DEFAULT.b_small, ns)[0]
    assert verdicts.minimum_matches(int(ns[ps.argmin()]), ps.min())


def test_rows_decide_by_the_papers_rounding_and_the_identity_tolerance():
    check = pd.DataFrame({"n": [2, 3, 10], "paper": [0.5, 0.377, 0.137],
                          "here": [0.5, 0.3771, 0.1372]})
    row = verdicts.b_star_row(check)
    assert row["passed"] and row["paper_value"] == 0.137 and row["headline"] == 0.1372
    assert row["tolerance"] == pytest.approx(verdicts.B_STAR_RTOL * 0.137)
    assert not verdicts.b_star_row(check.assign(here=[0.5, 0.39, 0.137]))["passed"]
    n, value = PAPER_MIN
    assert verdicts.minimum_row(n, value)["passed"]
    assert not verdicts.minimum_row(n + 1, value)["passed"]
    assert verdicts.identity_row(1e-9)["passed"] and not verdicts.identity_row(1e-5)["passed"]
    row = verdicts.theorem_row(pd.DataFrame({"z": [0.5, -3.0], "stderr": [2e-4, 1e-4]}))
    assert row["check_max_z"] == 3.0 and row["check_se"] == 2e-4
