"""Chapter 6's rules: when a spatial scale is identified, and the overview rows of a scale and
of one radius for both tasks, whose status the report's rule computes."""

import pytest

from semres import report
from semres.experiments.vlm_shapes import verdicts
from semres.experiments.vlm_shapes import page_sentences as words


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


def _fit(lo=0.1, hi=0.2, misfit=False, scale=0.15):
    return {"profile_ci": (lo, hi), "profile_bounded": True, "misfit": misfit,
            "gof_p": 1e-9 if misfit else 0.4, "gof_test": "chi-square", "gof_stat": 3.0,
            "gof_df": 4.0, "scale": scale, "scale_ci": (lo, hi), "scale_no_floor": scale}


def test_a_scale_verdict_is_a_sentence_and_an_overview_row():
    text, row = words.scale_verdict("m", _fit(), 100, 0.05, 1.0, "the claim")
    assert text.startswith("m's spatial scale is identified: 15 px")
    assert row["passed"] and row["identified"] and row["headline"] == pytest.approx(15)
    assert report.status(**{k: v for k, v in row.items() if k not in
                            ("result", "statement", "stand_in")}) == "holds"  # beyond the paper
    text, row = words.scale_verdict("m", _fit(0.01, 0.2), 100, 0.05, 1.0, "the claim")
    assert "not identified" in text and row["headline"] is None and not row["identified"]
    assert "why not" in row["statement"]
    text, row = words.scale_verdict("m", _fit(misfit=True), 100, 0.05, 1.0, "the claim")
    assert verdicts.MISFIT in text and row["misfit"]
    assert row["statement"].startswith(verdicts.MISFIT)
    assert words.scale_verdict("m", _fit(), 100, 0.05, 1.0)[1] is None  # no claim, no row


def test_two_task_rows_compare_the_radii_against_equal():
    assert words.two_task_verdict("m", {"similarity": {}}, "r", "s") == (None, None)
    misfit = {"misfit": True, "identified": False}
    text, row = words.two_task_verdict("m", {"similarity": misfit,
                                               "identification": misfit}, "r", "s")
    assert "does not describe" in text and row["misfit"] and row["tolerance"] == 0.0
    assert row["statement"].startswith(verdicts.MISFIT)
    text, row = words.two_task_verdict("m", {"similarity": misfit,
                                               "identification": misfit}, None, None)
    assert text and row is None
