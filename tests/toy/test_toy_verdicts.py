"""Chapter 3's rules: the claims, their references and tolerances, and the result rows."""

import numpy as np
import pandas as pd
import pytest
import sympy as sp

from semres import report
from semres.core import theory
from semres.core.intervals import mean_interval
from semres.experiments.toy import analysis, page, superposition, verdicts


def test_decisions_and_verdict_sentences():
    p_star = float(theory.linear_circle(1 / (3 - 2 * np.log(2)))[0])
    assert verdicts.nearer_proposition1(0.80, p_star)
    assert not verdicts.nearer_proposition1(0.76, p_star)
    words = page.position_sentences(True, False)
    assert words["peak_nearer"].startswith("nearer Proposition 1")
    assert words["closer"].startswith("farther")
    reasons = verdicts.tolerances(0.8123, 0.0456)
    assert all(tol == 0.0 for tol, _ in reasons.values())
    assert "0.8123" in reasons["peak"][1] and "0.0456" in reasons["rec"][1]
    ci = mean_interval([0.801, 0.803, 0.805])
    assert page.peak_verdict("differs", ci, p_star, 0.8123).endswith("peaks at 0.8123")
    short = mean_interval([0.01, 0.012, 0.014])
    assert page.shortfall_verdict("does not hold", short, 0.03, 0.02).endswith("not its size")
    assert "not its size" not in page.shortfall_verdict("holds", short, 0.012, 0.02)
    rec = mean_interval([0.70, 0.71, 0.72])
    text = page.reconstruction_verdict("does not hold", rec, 0.65, 0.04, 20, 0.03)
    assert "+0.0600 at the last epoch against +0.0400 at epoch 20" in text
    assert "remaining +0.0300" in text
    latex = page.split_log2("p", sp.Rational(1, 2) + 3 * sp.log(2) * sp.Symbol("e"))
    assert r"\ln 2 \left(3 e\right)" in latex


def test_a_reference_the_networks_do_not_follow_reads_misfit_not_does_not_hold():
    fits = pd.DataFrame({"condition": ["circle", "segment"] * 3 + ["reconstruction"] * 4,
                         "gof_tested": [True] * 5 + [False] + [True] * 4,
                         "misfit": [True] * 3 + [False] * 7})
    assert verdicts.linear_profile_misfit(fits)  # 3 of 5 tested similarity networks fail
    assert not verdicts.linear_profile_misfit(fits.assign(misfit=[True] + [False] * 9))
    ci = {"mean": 0.02, "low": 0.01, "high": 0.03, "se": 0.005, "n": 10}
    status = report.status(headline=0.02, ci=(0.01, 0.03), compared_with=0.05, tolerance=0.0,
                           new=True, misfit=verdicts.linear_profile_misfit(fits))
    assert status == "misfit"
    assert "no reference" in page.shortfall_verdict(status, ci, 0.05, 0.06)


def test_the_constant_optimum_is_theorem_1s():
    """The peak's alternative reference is the constant similarity's optimum p_S = p_I = 3/4."""
    assert verdicts.CONSTANT_OPTIMUM == pytest.approx(float(theory.front(0.75)))


def test_record_makes_the_chapters_rows_in_order():
    """Five rows, in the glance page's order; the three comparisons' statuses come back."""
    conditions = [c for c in superposition.CONDITIONS for _ in range(3)]
    small = superposition.ToyConfig(n_stimuli=12, n_hidden=4, epochs=4, trials_per_epoch=200,
                                    batch_size=32, snapshot_epochs=(0, 4))
    history = superposition.train(conditions, [0, 1, 2] * 3, small, progress=False)
    found = analysis.analyse(history, small.n_stimuli)
    trajectories = analysis.trajectory_table(history, [0, 1, 2] * 3)
    mc = pd.DataFrame({"z": [0.5, -1.2], "stderr": [1e-4, 2e-4]})
    rep = report.Report("03_toy_relu")
    p_star = float(theory.linear_circle(1 / (3 - 2 * np.log(2)))[0])
    statuses = verdicts.record(rep, found, mc, p_star, trajectories)
    assert [r["result"].split(":")[0] for r in rep.rows] == [
        "Proposition 1 (paper Prop. 1), closed form"] + ["toy ReLU net"] * 4
    assert [r["status"] for r in rep.rows[2:]] == [statuses[k] for k in ("peak", "short", "rec")]
    assert statuses["nearer"] == verdicts.nearer_proposition1(found.peaks["circle"].mean(),
                                                              p_star)
