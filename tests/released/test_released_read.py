"""Reading what a reader names and what the package ships
(:mod:`semres.experiments.released.read`): folders, pickles, unreadable files and bad rows."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from semres.core import results
from semres.experiments import released

from released_files import bad_files, tidy_rows, write_llm_folder


def test_shipped_tables_and_provenance_agree():
    names = released.tables()
    if not names:
        pytest.skip("no derived tables shipped")
    shipped = Path(released.__file__).parents[2] / released.DATA_DIR
    record = json.loads((shipped / "provenance.json").read_text())
    prov = pd.DataFrame(record["files"])
    assert record["repository"] == "nplresearch/generalization"
    assert prov["sha256"].str.fullmatch("[0-9a-f]{64}").all()
    assert sorted(record["tables"]) == names
    for name in names:
        table = released.load_table(name)
        assert len(table) == record["tables"][name]["rows"]
        assert {"model", "source", "task", "n", "bin", "trials", "correct"} <= set(table.columns)
        assert (table["correct"] <= table["answered"]).all()
        assert set(table["source"]) <= set(prov["path"])
    with pytest.raises(ValueError, match="name"):
        released.load_table("no_such_table")


def test_results_folder_of_authors_pickles(tmp_path):
    """The README's command: results=<LLM_dates/saved_results> with trust_pickle=True."""
    folder = tmp_path / "LLM_dates" / "saved_results"
    truth = write_llm_folder(folder, np.random.default_rng(4))
    got = released.gather(str(folder), trust_pickle=True)
    assert got.rows is None and len(got.counts) == 2 and len(got.curves) == 1
    for frame in got.counts:
        seq_lens, nulls, correct = truth[frame["task"].iat[0]]
        assert list(frame["n"]) == seq_lens and list(frame["correct"]) == correct
        assert list(frame["answered"]) == [1000 - z for z in nulls]
    assert len(got.curves[0]) == len(released.RESOLUTION_D) * 120
    read = [line for line in got.report if line.startswith("read ")]
    skipped = [line for line in got.report if line.startswith("skipped ")]
    assert len(read) == 3 and all("gemma-2-2b-it" in line for line in read)
    assert skipped == [f"skipped {folder / '.DS_Store'}: not a results file (a CSV, or one of "
                       "the authors' LLM pickles)"]
    # without trust nothing is unpickled, and the error says how to read them
    with pytest.raises(ValueError, match="nothing read from .*3 skipped as one of the authors' "
                                         "pickles.*trust_pickle=True"):
        released.gather(str(folder))
    one = folder / "experiment_similarity_gemma-2-2b-it_year.pkl"
    with pytest.raises(ValueError, match=f"results: {one}: .*not unpickled"):
        released.gather([one])
    # a schema CSV beside them is read, the pickles are reported as skipped
    tidy = results.write_results(pd.DataFrame({
        "model": ["m"], "source": ["live"], "task": ["similarity"], "n": [2], "space": ["years"],
        "options": ["A|B"], "position": ["1600|1700"], "probe": ["1620"], "correct": ["A"],
        "choice": ["A"], "scores": [""]}), folder / "tidy.csv")
    got = released.gather(f"{folder}", llm=False)
    assert len(got.rows) == 1 and got.files == {tidy: "schema"}
    assert sum("which this chapter does not use" in line for line in got.report) == 3
    assert len(released.load_results(folder)) == 1


def test_unreadable_files_are_named(tmp_path):
    for path, words in bad_files(tmp_path).items():
        with pytest.raises(ValueError, match=f"{path}: .*{words}") as err:
            released.gather(str(path), trust_pickle=True)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("column, value, words", [
    ("position", "0.1,zz|0.9,0.9|0.5,0.2", "position '0.1,zz.*expected n = 3 points"),
    ("n", "two", "n 'two': expected an integer >= 2"),
    ("probe", "0.2", "probe '0.2': expected one point of space 'canvas'"),
    ("scores", "-1|x|-2", "scores '-1|x|-2': expected n = 3 numbers"),
    ("task", "naming", "task 'naming': expected one of similarity, identification"),
])
def test_bad_rows_name_file_line_and_column(tmp_path, column, value, words):
    df = tidy_rows().astype(object)
    df.loc[[2, 3], column] = value   # rows 2 and 3: lines 4 and 5 of the file
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=f"{path} line 4: {words}.*1 more bad rows"):
        released.gather(str(tmp_path))
