"""semres.core.results: the tidy per-trial schema, read back exactly, with clear errors."""

import numpy as np
import pandas as pd
import pytest

from semres.core import results


def _rows():
    return pd.DataFrame({
        "model": ["m", "m"], "source": ["live", "live"],
        "task": ["similarity", "identification"], "n": [3, 2], "space": ["canvas", "hue"],
        "options": ["square|star|heart", "A|B"], "position": ["0.1,0.1|0.9,0.9|0.5,0.2",
                                                              "0.05|0.95"],
        "probe": ["0.2,0.1", "0.99"], "correct": ["square", "B"], "choice": ["star", ""],
        "scores": ["-1|-0.5|-3", ""]})


def test_round_trip_distances_choices_and_correct(tmp_path):
    path = results.write_results(_rows(), tmp_path / "r.csv")
    df = results.read_results(str(tmp_path))
    assert len(df) == 2 and path.exists()
    d = results.distances(df)
    np.testing.assert_allclose(d[0], [0.1, np.hypot(0.7, 0.8), np.hypot(0.3, 0.1)])
    np.testing.assert_allclose(d[1], [0.06, 0.04])  # hue wraps around
    assert results.choice_index(df).tolist() == [1, -1]
    assert [m.tolist() for m in results.correct_mask(df)] == [[True, False, False],
                                                              [False, True]]


def test_bad_rows_are_named(tmp_path):
    bad = _rows()
    bad.loc[0, "choice"] = "circle"
    with pytest.raises(ValueError, match="row 0: choice 'circle'"):
        results.validate(bad)
    with pytest.raises(ValueError, match="lack column"):
        results.validate(_rows().drop(columns="scores"))
    with pytest.raises(ValueError, match="no such file"):
        results.read_results(tmp_path / "missing.csv")


def test_every_row_is_checked_and_the_file_line_named(tmp_path):
    rows = pd.concat([_rows()] * 3, ignore_index=True).astype(object)
    rows.loc[4, "position"] = "0.1,0.1|0.9,nan|0.5,0.2"   # line 6: a point that is not finite
    path = tmp_path / "r.csv"
    rows.to_csv(path, index=False)
    with pytest.raises(ValueError, match=rf"^{path} line 6: position .*expected n = 3 points "
                                         r"of space 'canvas', each x,y \(two numbers\), "
                                         r"separated by \|$"):
        results.read_results(path)
    rows.loc[4, "position"] = "0.1,0.1|0.9,0.9|0.5,0.2"
    rows.loc[1, "probe"] = "0.5,0.5"   # a hue row given a canvas probe
    with pytest.raises(ValueError, match=r"^row 1: probe '0.5,0.5': expected one point of "
                                         r"space 'hue': one number$"):
        results.validate(rows)
    rows.loc[1, "probe"] = "0.99"
    assert len(results.validate(rows)) == 6
