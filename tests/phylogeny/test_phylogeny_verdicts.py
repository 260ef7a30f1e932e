"""Chapter 4's rules: a family of claims widens each interval, and the result rows."""

import types

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student

from semres import report
from semres.experiments.phylogeny import verdicts


def test_a_family_of_claims_widens_each_interval_to_keep_its_error_rate():
    """Three effects of size 0 measured with 3 seeds a side: read alone, at least one of the
    three 95 % intervals misses 0 about 1 - 0.95³ of the time; widened for the family, at
    most 5 % (Monte Carlo over 4,000 families)."""
    rng = np.random.default_rng(0)
    alone, family = [], []
    for _ in range(4000):
        est = rng.normal(0, 1, 3)  # the effect's estimate in units of its standard error
        se = np.sqrt(rng.chisquare(4, 3) / 4)  # with its estimated standard error, df 4
        rows = [types.SimpleNamespace(effect=e, se=s, df=4.0) for e, s in zip(est, se)]
        alone.append(any(abs(r.effect) > student.ppf(0.975, 4) * r.se for r in rows))
        family.append(any(not (verdicts.family_ci(r, 3)[0] <= 0 <= verdicts.family_ci(r, 3)[1])
                          for r in rows))
    assert np.mean(alone) > 0.12 and np.mean(family) < 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    with pytest.raises(ValueError, match="claims"):
        verdicts.family_ci(rows[0], 0)


def _row(effect, se, df=4.0, seeds=3):
    return {"effect": effect, "se": se, "df": df, "detected": abs(effect) > 3 * se,
            "seeds_from": seeds, "seeds_to": seeds}


def test_record_judges_the_claims_as_one_family():
    """The theorem's row, then one row per claim with the family's interval; a single seed
    (no standard error) runs no test."""
    effects = pd.DataFrame([{"column": col, "alpha_to": 0.5, **_row(e, 0.01)}
                            for col, e in (("sim_accuracy", 0.1), ("p_s_matched", 0.08),
                                           ("id_auc", -0.001))])
    rep = report.Report("04_resnet_phylogeny")
    check = pd.DataFrame({"z_s": [1.0], "z_i": [-0.5], "se_s": [0.001], "se_i": [0.002]})
    verdicts.record(rep, check, 1e-12, effects, 0.0, 0.5, real=False)
    assert [r["result"] for r in rep.rows] == [
        "Theorem 4 (paper Thm. 1 with ties): two items on a finite space",
        "ResNet: triplet accuracy change, α 0 → 0.5",
        "ResNet: p_S at matched p_I change, α 0 → 0.5",
        "ResNet: identification AUC change, α 0 → 0.5"]
    assert [r["status"] for r in rep.rows] == ["holds", "reproduced", "reproduced",
                                               "inconclusive"]
    assert "family of 3 claims" in rep.rows[1]["statement"]
    assert rep.rows[1]["stand_in"].startswith("a simulated tree")
    one = pd.DataFrame([{"column": col, "alpha_to": 0.5, **_row(0.1, float("nan"))}
                        for col, _, _ in verdicts.CLAIMS])
    rep = report.Report("04_resnet_phylogeny")
    verdicts.record(rep, check, 1e-12, one, 0.0, 0.5, real=True)
    assert [r["status"] for r in rep.rows[1:]] == ["not run"] * 3
