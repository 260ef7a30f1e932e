"""Chapter 6's rules: when a spatial scale is identified, and the overview rows of a scale and
of one radius for both tasks, whose status the report's rule computes."""

import pytest

from semres import report
from semres.experiments.vlm_shapes import verdicts


def _scale_fit(lo_px, hi_px, misfit=False, canvas=900.0):
    return {"profile_ci": (lo_px / canvas, hi_px / canvas), "profile_bounded": True,
            "misfit": misfit, "gof_p": 1e-9 if misfit else 0.4}


def test_a_precise_scale_larger_than_a_grid_cell_is_identified():
    cell = 150 / 900
    # Gemma-3-12B's released answers: a likelihood set of 151-200 px on 150 px cells. The set
    # is narrower than a cell, and that is a precise measurement of a scale larger than a cell
    ok, why = verdicts.scale_identification(_scale_fit(151, 200), cell, 1.0, px=900)
    assert ok and not why
    # what a grid limits is the scale itself: a set reaching below one cell is not identified
    ok, why = verdicts.scale_identification(_scale_fit(120, 200), cell, 1.0, px=900)
    assert not ok and "not bounded inside the design" in why[0]
    ok, why = verdicts.scale_identification(_scale_fit(151, 200, misfit=True), cell, 1.0, px=900)
    assert not ok and verdicts.MISFIT in why[0]
    assert not verdicts.scale_identification(_scale_fit(151, 200), cell, 1.0, agree=False)[0]
    with pytest.raises(ValueError, match="resolution"):
        verdicts.scale_identification(_scale_fit(151, 200), 0.5, 0.4)


def _fit(lo=0.1, hi=0.2, misfit=False, scale=0.15, dispersion=4.0):
    return {"profile_ci": (lo, hi), "profile_bounded": True, "misfit": misfit,
            "gof_p": 1e-9 if misfit else 0.4, "gof_test": "chi-square", "gof_stat": 3.0,
            "gof_df": 4.0, "scale": scale, "scale_ci": (lo, hi), "scale_no_floor": scale,
            "dispersion": dispersion, "explained_null": 0.7, "explained_saturated": 0.9,
            "rms_gap": 0.05, "rms_sampling": 0.03}


def _status(row):
    r = report.Report("06_vlm_shapes")
    return r.result(**row), r.rows[-1]


def test_a_scale_verdict_is_an_overview_row():
    ok, why, row = verdicts.scale_verdict("m", _fit(), 100, 0.05, 1.0, "the claim")
    assert ok and not why and row["result"] == "m: spatial scale of the biased Luce rule"
    assert "passed" not in row and row["identified"] and row["headline"] == pytest.approx(15)
    status, rec = _status(row)
    assert status == "holds" and rec["margin_reason"]  # above one cell (5 px), beyond the paper
    # a scale whose interval reaches below the design's resolution is not identified
    ok, why, row = verdicts.scale_verdict("m", _fit(0.01, 0.2), 100, 0.05, 1.0, "the claim")
    assert not ok and row["headline"] is None and not row["identified"]
    assert "why not" in row["statement"] and _status(row)[0] == "not identified"
    # a misfit keeps its scale, approximate, with an interval widened by sqrt(dispersion) = 2
    ok, why, row = verdicts.scale_verdict("m", _fit(misfit=True), 100, 0.05, 1.0, "the claim")
    assert not ok and verdicts.MISFIT in row["statement"] and row["misfit"]
    assert row["approximate"] and row["headline"] == pytest.approx(15)
    assert row["ci"] == pytest.approx((5.0, 25.0))  # 15 -/+ 2 x 5 px
    status, rec = _status(row)
    assert status == "misfit" and rec["dispersion"] == 4.0 and rec["explained_saturated"] == 0.9


def test_the_front_side_and_the_stencil_biases():
    import pandas as pd
    sweep = pd.DataFrame({"task": ["similarity", "identification"], "n": [2, 2],
                          "p": [0.95, 0.99], "se": [0.01, 0.01]})
    point = verdicts.front_point(sweep)
    assert point["side"] == "above" and point["z"] > verdicts.FRONT_Z
    assert verdicts.front_point(sweep.assign(p=[0.9, 0.4])) is None  # p_I below 1/2
    nc = {"name_weights": [0.1, 0.2, 0.3, 0.4], "place_weights": [0.2, 0.25, 0.25, 0.3],
          "name_weights_ci": [[0.05, 0.15]] * 4, "place_weights_ci": [[0.2, 0.3]] * 4}
    b = verdicts.stencil_biases(nc, 0.25)
    assert b["main"] == "name" and b["spread"] == pytest.approx(4.0)
    assert not b["other_present"]  # every place interval holds 1/4


def _radii(diff, half, mean=0.2, misfit=False):
    return {"compared": True, "misfit": misfit, "bad": ["x"] if misfit else [],
            "identified": True, "difference": diff, "ci": (diff - half, diff + half),
            "p_equal": 0.5, "lr": 0.1, "mean": mean, "joint": None}


def test_one_radius_for_both_tasks_is_a_prediction_judged_within_a_tenth_of_the_radius():
    # margin 0.02 (a tenth of 0.2): a miss of 0.1 clearly beyond it does not hold, with its miss
    status, rec = _status(verdicts.two_task_row(_radii(0.1, 0.01), "r", "s"))
    assert status == "does not hold" and rec["miss"] == pytest.approx(0.1)
    assert rec["margin"] == pytest.approx(0.02)
    # a miss smaller than the margin, measured precisely: reproduced (one resolution)
    assert _status(verdicts.two_task_row(_radii(0.005, 0.005), "r", "s"))[0] == "holds"
    # an interval across the margin's edge: inconclusive
    assert _status(verdicts.two_task_row(_radii(0.015, 0.01), "r", "s"))[0] == "inconclusive"
    # a task's misfit no longer hides the miss: the row is approximate, still judged
    status, rec = _status(verdicts.two_task_row(_radii(0.1, 0.01, misfit=True), "r", "s"))
    assert status == "does not hold" and rec["approximate"]


def test_the_canvas_check_is_a_finding_on_its_worst_cell():
    import pandas as pd
    tab = pd.DataFrame({"eps": [0.1, 0.1], "task": ["similarity", "identification"],
                        "n": [2, 4], "theory": [0.8, 0.6], "simulated": [0.801, 0.59],
                        "se": [0.002, 0.002], "z": [0.5, -5.0]})
    row = verdicts.canvas_row(tab)
    assert row["headline"] == pytest.approx(-0.01) and row["check_max_z"] == 5.0
    status, _ = _status(row)
    assert status == "holds"  # off by 0.01 +- 0.004, within two hundredths
    tab["simulated"] = [0.801, 0.55]
    assert _status(verdicts.canvas_row(tab))[0] == "does not hold"
    tab["simulated"] = [0.801, 0.581]
    assert _status(verdicts.canvas_row(tab))[0] == "inconclusive"
    assert _status(verdicts.band_row(0.99999))[0] == "check"
    assert _status(verdicts.band_row(0.9))[0] == "check failed"
