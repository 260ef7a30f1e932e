"""The command line and its two commands (:mod:`semres.experiments.released.cli`): derive
and convert write nothing unless every file was read, and never into the shipped data."""

import re
from pathlib import Path

import numpy as np
import pytest

from semres.core import results
from semres.experiments import released

from released_files import digests, synthetic_counts, write_llm_folder


def test_convert_writes_schema_files(authors, tmp_path):
    root, _, truth = authors
    written = released.convert(root, tmp_path / "tidy")
    back = results.read_results(tmp_path / "tidy")
    assert len(written) == 5 and len(back) == sum(len(t) for t in truth.values())
    # one call reads converted schema files and raw authors' files alike
    _, data, _ = authors
    raw = data / "spatial_resolution_gemma_results_far.csv"
    tidy = tmp_path / "tidy" / "color_similarity_gemma_results.csv"
    mixed = released.load_results(f"{tidy},{raw}")
    assert len(mixed) == len(truth["sim_gemma"]) + len(truth["far_gemma"])
    assert set(mixed["space"]) == {"hue", "canvas"}
    with pytest.raises(ValueError, match="no such file"):
        released.load_results(tmp_path / "nowhere")


def test_pickles_refused_without_trust(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "experiment_similarity_gemma-2-2b-it_year.pkl"
    synthetic_counts(path, "similarity", rng)
    with pytest.raises(ValueError, match="trust_pickle.*runs code"):
        released.read_llm_counts(path)
    with pytest.raises(ValueError, match="trust_pickle"):
        released.read_llm_resolution(path, trust_pickle="yes")
    with pytest.raises(ValueError, match="1 pickle.*not trusted.*nothing written"):
        released.derive(tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()   # no empty provenance


SHIPPED = Path(released.__file__).parents[2] / "data" / "released"


def test_converters_fail_in_one_line_and_leave_shipped_data(authors, tmp_path, monkeypatch,
                                                           capsys):
    root, data, _ = authors
    before = digests(SHIPPED)
    monkeypatch.setenv("SEMRES_BUILD_DIR", str(tmp_path / "build"))
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".DS_Store").write_bytes(b"\x00")
    pickles = tmp_path / "pickles"
    write_llm_folder(pickles, np.random.default_rng(5))
    cases = [(["convert", "--source", "/nonexistent", "--out", str(tmp_path / "o")], 2,
              "source: no such file or folder '/nonexistent'"),
             (["derive", "--source", "/nonexistent"], 2, "no such file or folder"),
             (["derive", "--source", str(empty)], 1, "no released files under"),
             (["convert", "--source", str(pickles), "--out", str(tmp_path / "o")], 1,
              "no released CSV files under"),
             (["derive", "--source", str(pickles)], 1, "3 pickle.*not trusted.*nothing written"),
             (["derive", "--sauce", str(root)], 2, "required: --source")]
    for argv, code, words in cases:
        assert released.main(argv) == code, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and re.search(words, err), (argv, err)
    assert not (tmp_path / "o").exists() and not (tmp_path / "build").exists()
    # the default --out is a new folder under the build folder, never the shipped one
    assert released.main(["derive", "--source", str(root)]) == 0
    assert (tmp_path / "build" / "released" / "provenance.json").is_file()
    assert digests(SHIPPED) == before
    # asked explicitly, derive writes there; a later source with fewer tables leaves no stale one
    out = tmp_path / "asked"
    assert released.main(["derive", "--source", str(root), "--out", str(out)]) == 0
    assert (out / "colour_margin.csv").is_file()
    assert released.main(["derive", "--source", str(pickles), "--trust-pickle",
                          "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["llm_n.csv", "llm_resolution.csv",
                                                     "provenance.json"]
    assert digests(SHIPPED) == before


def test_the_package_runs_as_a_command_and_keeps_its_names():
    """``python -m semres.experiments.released`` still runs (the package's ``__main__``), and
    the package gives every public name its users reach as ``released.NAME``."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "semres.experiments.released", "--help"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "derive" in run.stdout
    for name in ("grid_design", "GRID", "SPATIAL_SHAPES", "CORNERS", "load_table", "load_results",
                 "tables", "gather", "derive", "convert"):
        assert hasattr(released, name), name
    assert callable(released.tables) and callable(released.derive)  # functions, not modules
