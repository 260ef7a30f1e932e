"""Chapter 3's rules: the claims' references and tolerances, judged as the result rows are."""

import numpy as np
import pandas as pd
import pytest

from semres import report
from semres.core import theory
from semres.core.intervals import mean_interval
from semres.experiments.toy import verdicts


def test_a_reference_the_networks_do_not_follow_reads_misfit_with_its_size():
    fits = pd.DataFrame({"condition": ["circle", "segment"] * 3 + ["reconstruction"] * 4,
                         "epoch": [5] * 10,
                         "gof_tested": [True] * 5 + [False] + [True] * 4,
                         "misfit": [True] * 3 + [False] * 7})
    assert verdicts.linear_profile_misfit(fits)  # 3 of 5 tested similarity networks fail
    assert not verdicts.linear_profile_misfit(fits.assign(misfit=[True] + [False] * 9))
    assert not verdicts.linear_profile_misfit(fits.assign(epoch=0))  # initialisation: no test
    status = report.status(ci=(0.01, 0.03), compared_with=0.05, margin=0.01, new=True,
                           misfit=verdicts.linear_profile_misfit(fits))
    assert status == "misfit"


@pytest.mark.parametrize("gap, spread, expected", [(0.002, 0.001, "reproduced"),
                                                   (0.009, 0.004, "inconclusive"),
                                                   (0.030, 0.002, "does not hold")])
def test_reconstruction_reads_as_its_simulated_data_say(gap, spread, expected):
    """Ten simulated seeds of reconstruction p_I around Theorem 2's prediction plus ``gap``,
    against a Jensen term of 0.0125 as the margin: a gap well inside it (true), one that
    misses by less than it but whose interval reaches across its edge, and one beyond it."""
    rng = np.random.default_rng(3)
    predicted, jensen = 0.9, 0.0125
    ci = mean_interval(predicted + gap + rng.normal(0, spread, 10))
    m, reason = jensen, "the Jensen term"
    rep = report.Report("03_toy_relu")
    got = rep.result("rec", "s", headline=ci["mean"], ci=(ci["low"], ci["high"]),
                     compared_with=predicted, compared_with_label="Theorem 2", margin=m,
                     margin_reason=reason)
    assert got == expected
    assert rep.rows[0]["miss"] == pytest.approx(ci["mean"] - predicted)


def test_the_law_check_is_one_claim_over_its_cells(tmp_path, monkeypatch):
    """Proposition 1's Monte Carlo cells: the margin is half the smallest gap to the constant
    similarity's law; the cell whose interval reaches farthest decides, and a cell off its
    closed form by more than the margin makes the claim not hold."""
    cells = [("circle", 0.1, "similarity"), ("circle", 0.1, "identification"),
             ("segment", 0.1, "similarity")]
    theory_values = [float(theory.linear_circle(0.2)[0]), float(theory.linear_circle(0.2)[1]),
                     0.6603]
    mc = pd.DataFrame({"space": [c[0] for c in cells], "eps": [c[1] for c in cells],
                       "task": [c[2] for c in cells], "theory": theory_values,
                       "monte_carlo": theory_values, "stderr": [1e-4] * 3, "z": [0.0] * 3})
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))  # the cells' table goes there
    gap, cell = verdicts.law_gap(mc)
    m, reason = gap / 2, "half the smallest gap"
    const = verdicts.constant_law("circle", 0.1)[0]
    assert m <= abs(theory_values[0] - const) / 2 + 1e-12
    assert gap == abs(cell.theory - verdicts.constant_law(cell.space, cell.eps)[
        cell.task != "similarity"])
    for shift, expected in ((0.0, "reproduced"), (m - 1e-4, "inconclusive"),
                            (m + 1e-3, "does not hold")):
        moved = mc.assign(monte_carlo=mc.monte_carlo + np.array([0.0, shift, 0.0]))
        rep = report.Report("03_toy_relu")
        status = rep.grid_result("laws", "s", verdicts.law_cells(moved), "cells",
                                 compared_with=0.0, compared_with_label="closed form",
                                 margin=m, margin_reason=reason)
        assert status == expected, (shift, status)
        assert rep.rows[0]["headline"] == pytest.approx(shift if shift else 0.0)
    with pytest.raises(ValueError, match="space"):
        verdicts.constant_law("sphere", 0.1)


def test_the_constant_optimum_is_theorem_1s():
    """The peak's alternative reference is the constant similarity's optimum p_S = p_I = 3/4."""
    assert verdicts.CONSTANT_OPTIMUM == pytest.approx(float(theory.front(0.75)))
