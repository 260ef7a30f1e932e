"""benchmarks/compare_tables.py: two result folders agree CSV by CSV, timings aside."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "compare_tables.py"


def _run(old, new, *args):
    return subprocess.run([sys.executable, str(SCRIPT), str(old), str(new), *args],
                          capture_output=True, text=True)


def _write(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_equal_tables_pass_with_timings_and_rounding_aside(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    _write(old, "ch/t.csv", "x,y,train_seconds,s\n1,2.0,3,a\n2,,4,b\n")
    _write(new, "ch/t.csv", "x,y,train_seconds,s\n1,2.0000000000001,9,a\n2,,5,b\n")
    _write(old, "ch/glue.csv", "name,value\nseconds,1\nk,2\n")
    _write(new, "ch/glue.csv", "name,value\nseconds,5\nk,2\n")
    _write(old, "ch/empty.csv", "\n")  # an empty DataFrame's CSV has no header
    _write(new, "ch/empty.csv", "\n")
    out = _run(old, new)
    assert out.returncode == 0, out.stdout
    assert "3 of 3 tables identical" in out.stdout


def test_every_difference_is_named(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    _write(old, "t.csv", "x,y,s\n1,2.0,a\n2,3.0,b\n")
    _write(new, "t.csv", "x,y,s\n1,2.1,a\n2,3.0,c\n")
    _write(old, "gone.csv", "x\n1\n")
    _write(new, "rows.csv", "x\n1\n2\n")
    _write(old, "rows.csv", "x\n1\n")
    _write(new, "cols.csv", "x,z\n1,2\n")
    _write(old, "cols.csv", "x,y\n1,2\n")
    out = _run(old, new)
    assert out.returncode == 1
    text = out.stdout
    assert "column 'y': 1 of 2 cells differ, first at row 0: 2.0 -> 2.1" in text
    assert "column 's': 1 of 2 cells differ, first at row 1: 'b' -> 'c'" in text
    assert "gone.csv" in text and "missing in new" in text
    assert "1 rows in old, 2 in new" in text
    assert "only in old ['y'], only in new ['z']" in text
    assert _run(old, new, "--ignore", "^y$", "--rtol", "0.1").returncode == 1  # 's' still differs


def test_bad_arguments_exit_2(tmp_path):
    assert _run(tmp_path / "missing", tmp_path).returncode == 2


def _notebook(path, values):
    import json

    outputs = [{"output_type": "display_data", "metadata": {"scrapbook": {
        "name": name, "mime_prefix": "application/papermill.record/"}},
        "data": {"application/papermill.record/text/plain": value}}
        for name, value in values.items()]
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": outputs}]}))
    return path


def test_glued_numbers_of_two_notebooks(tmp_path):
    old = _notebook(tmp_path / "old.ipynb", {"ch1_x": "0.5", "ch1_seconds": "3", "ch1_t": "a"})
    same = _notebook(tmp_path / "same.ipynb", {"ch1_t": "a", "ch1_x": "0.5", "ch1_seconds": "9"})
    moved = _notebook(tmp_path / "moved.ipynb", {"ch1_x": "0.6", "ch1_t": "a"})
    assert _run(old, same).returncode == 0
    out = _run(old, moved)
    assert out.returncode == 1
    assert "ch1_x: 0.5 -> 0.6" in out.stdout and "only in old: ['ch1_seconds']" in out.stdout
