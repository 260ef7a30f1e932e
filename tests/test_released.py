"""Adapters for the authors' released files, on synthetic files written in their formats.

Each test writes its own files (the authors' column layout, pickle structure), runs the adapters
and the derivation, and checks the counts against a tally computed here, by other means.
"""

import hashlib
import json
import pickle
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from semres.core import results
from semres.experiments import released

CORNERS = {"square": (25, 25), "triangle": (25, 875), "heart": (875, 25), "star": (875, 875)}
SHAPES = list(CORNERS)


def write_spatial(path, rng, n_rows=120, shuffle=False, qwen=False):
    """A file in the layout of spatial_resolution_*_results_far.csv / random_stencil_*; returns
    the truth per row (nearest shape, its margin in pixels, the answer)."""
    rows, truth = [], []
    corners = list(CORNERS.values())
    for i in range(n_rows):
        x, y = (int(v) for v in rng.integers(25, 875, size=2))
        names = list(rng.permutation(SHAPES)) if shuffle else SHAPES
        d = [np.hypot(cx - x, cy - y) for cx, cy in corners]
        order = np.argsort(d)
        nearest = names[order[0]]
        # a biased model: "triangle" 40 % of the time, else right 70 % of the time
        u = rng.random()
        ans = "triangle" if u < 0.4 else nearest if u < 0.82 else names[order[1]]
        if i % 37 == 5:
            ans = "I cannot tell"
        row = {"ID": i, "target_shape": "x", "target_X": x, "target_Y": y}
        for k in range(3):
            row.update({f"D0{k}_X": corners[k][0], f"D0{k}_Y": corners[k][1],
                        f"D0{k}_SHAPE": names[k], f"D0{k}_DIST": d[k]})
        row.update({"D03_SHAPE": names[3], "D03_X": 875.0, "D03_Y": 875.0, "D03_DIST": d[3],
                    "answer": ans})
        for s in SHAPES:
            row[s] = (float("-inf") if s != ans and qwen and s == "heart" else
                      3e7 if qwen and s == ans else 1e7 if qwen else 20 + 10 * (s == ans))
        rows.append(row)
        truth.append({"nearest": nearest, "margin_px": d[order[1]] - d[order[0]], "answer": ans,
                      "x": x, "y": y, "ok": ans == nearest})
    pd.DataFrame(rows).to_csv(path, index=False)
    return pd.DataFrame(truth)


def write_colour(path, rng, task, ns=(4, 8, 12), per_n=60):
    """A file in the layout of color_{task}_*_results.csv; returns the truth per row."""
    letters = [chr(65 + k) for k in range(12)]
    rows, truth = [], []
    i = 0
    for n in ns:
        for _ in range(per_n):
            hues = list(rng.choice(360, size=n, replace=False))
            target = int(hues[rng.integers(n)]) if task == "identification" else int(
                rng.integers(360))
            d = np.array([min(abs(h - target), 360 - abs(h - target)) for h in hues])
            nearest = [letters[k] for k in np.flatnonzero(d == d.min())]
            srt = np.sort(d)
            ans = nearest[0] if rng.random() < 0.6 else letters[int(rng.integers(n))]
            row = {"ID": i, "N_STENCILS": n}
            row.update({f"HUE_{c}": (hues[k] if k < n else -1) for k, c in enumerate(letters)})
            row["target_col"] = target
            row.update({f"HUE_{c}_sim": 0.0 for c in letters})
            row["answer"] = ans
            row.update({chr(65 + k): 15.0 + (chr(65 + k) == ans) for k in range(26)})
            rows.append(row)
            truth.append({"n": n, "ok": ans in nearest, "margin": (srt[1] - srt[0]) / 360,
                          "answer": ans})
            i += 1
    pd.DataFrame(rows).to_csv(path, index=False)
    return pd.DataFrame(truth)


@pytest.fixture
def authors(tmp_path):
    rng = np.random.default_rng(7)
    data = tmp_path / "authors" / "VLM_shapes" / "data"
    data.mkdir(parents=True)
    truth = {
        "far_gemma": write_spatial(data / "spatial_resolution_gemma_results_far.csv", rng),
        "far_qwen": write_spatial(data / "spatial_resolution_qwen_results_far.csv", rng,
                                  qwen=True),
        "stencil_gemma": write_spatial(data / "random_stencil_gemma_results.csv", rng,
                                       shuffle=True),
        "sim_gemma": write_colour(data / "color_similarity_gemma_results.csv", rng, "similarity"),
        "id_gemma": write_colour(data / "color_identification_gemma_results.csv", rng,
                                 "identification"),
    }
    return tmp_path / "authors", data, truth


def test_spatial_adapter_geometry_and_choices(authors):
    _, data, truth = authors
    df = released.read_spatial(data / "spatial_resolution_gemma_results_far.csv")
    t = truth["far_gemma"]
    assert set(df["model"]) == {"gemma-3-12b-it"} and set(df["space"]) == {"canvas"}
    assert df["source"].iat[0] == "VLM_shapes/data/spatial_resolution_gemma_results_far.csv"
    # the schema's own distances pick the nearest shape the file's pixels imply
    nearest = [results.split_list(r.options)[int(np.argmin(d))]
               for r, d in zip(df.itertuples(), results.distances(df))]
    assert nearest == list(t["nearest"])
    np.testing.assert_allclose(released.margins(df), t["margin_px"] / 900, atol=1e-9)
    assert list(df["choice"]) == [a if a in SHAPES else "" for a in t["answer"]]
    assert df["scores_usable"].all() and (df["scores"] != "").all()


def test_qwen_scores_flagged_unusable(authors):
    _, data, _ = authors
    path = data / "spatial_resolution_qwen_results_far.csv"
    df = released.read_spatial(path)
    assert not df["scores_usable"].any() and (df["scores"] == "").all()
    kept = released.read_spatial(path, keep_unusable_scores=True)
    assert (kept["scores"] != "").all()


def test_colour_adapter(authors):
    _, data, truth = authors
    for task in ("similarity", "identification"):
        df = released.read_colour(data / f"color_{task}_gemma_results.csv")
        t = truth["sim_gemma" if task == "similarity" else "id_gemma"]
        assert set(df["task"]) == {task} and set(df["space"]) == {"hue"}
        assert list(df["n"]) == list(t["n"])
        ok = released._outcomes(df)["correct"].to_numpy(bool)
        np.testing.assert_array_equal(ok, t["ok"].to_numpy(bool))
        np.testing.assert_allclose(released.margins(df), t["margin"], atol=1e-9)
        if task == "identification":   # the target is a copy of one patch
            assert all(min(d) < 1e-12 for d in results.distances(df))


def test_derive_counts_match_independent_tally(authors, tmp_path):
    root, data, truth = authors
    out = tmp_path / "derived"
    record = released.derive(root, out)
    margin = pd.read_csv(out / "spatial_margin.csv")
    for key, exp in (("far_gemma", "spatial_far"), ("stencil_gemma", "random_stencil")):
        t = truth[key]
        sub = margin[(margin["model"] == "gemma-3-12b-it") & (margin["experiment"] == exp)]
        k = np.floor(t["margin_px"] / 900 / 0.05 + 1e-9).astype(int)
        expected = t.assign(k=k).groupby("k")["ok"].agg(["size", "sum"])
        got = sub.set_index(np.round(sub["bin_lo"] / 0.05).astype(int))
        np.testing.assert_array_equal(got.loc[expected.index, "trials"], expected["size"])
        np.testing.assert_array_equal(got.loc[expected.index, "correct"], expected["sum"])
        assert sub["chose_triangle"].sum() == (t["answer"] == "triangle").sum()
        assert sub["answered"].sum() == t["answer"].isin(SHAPES).sum()
    grid = pd.read_csv(out / "spatial_grid.csv")
    g = grid[grid["model"] == "gemma-3-12b-it"]
    t = truth["far_gemma"]
    assert set(grid["experiment"]) == {"spatial_far"} and g["trials"].sum() == len(t)
    g_ = released.GRID
    cell = t[(t["x"] * g_ // 900 == 2) & (t["y"] * g_ // 900 == 3)]
    row = g[(g["ix"] == 2) & (g["iy"] == 3)]
    assert len(cell) > 0
    assert int(row["trials"].iat[0]) == len(cell)
    assert int(row["chose_star"].iat[0]) == (cell["answer"] == "star").sum()
    assert row["x_mean"].iat[0] == pytest.approx(cell["x"].mean() / 900)
    design = released.grid_design(grid, "gemma-3-12b-it")
    corners = np.array(list(CORNERS.values())) / 900
    k = int(np.flatnonzero((g["ix"] == 2) & (g["iy"] == 3))[0])
    xy = np.array([cell["x"].mean(), cell["y"].mean()]) / 900
    np.testing.assert_allclose(design["d"][k], np.hypot(*(corners - xy).T))
    assert design["counts"].sum() == t["answer"].isin(SHAPES).sum()
    with pytest.raises(ValueError, match="model"):
        released.grid_design(grid, "no-such-model")
    conf = pd.read_csv(out / "spatial_confusion.csv")
    c = conf[(conf["model"] == "gemma-3-12b-it") & (conf["experiment"] == "spatial_far")]
    for shape in SHAPES:
        sel = t[t["nearest"] == shape]
        r = c[c["bin"] == shape]
        assert int(r["trials"].sum()) == len(sel)
        assert int(r["chose_heart"].sum()) == (sel["answer"] == "heart").sum()
    corner = pd.read_csv(out / "spatial_corner.csv")
    cs = corner[(corner["model"] == "gemma-3-12b-it") & (corner["experiment"] == "random_stencil")]
    t = truth["stencil_gemma"]
    assert int(cs["trials"].sum()) == int((t["margin_px"] > 0).sum())   # exact ties dropped
    # triangle was nearest in the far file only when the X was in the bottom-left quadrant
    far = corner[(corner["model"] == "gemma-3-12b-it") & (corner["experiment"] == "spatial_far")]
    tf = truth["far_gemma"]
    bottom_left = far.loc[far["bin"] == "bottom_left", "trials"].sum()
    assert int(bottom_left) == (tf["nearest"] == "triangle").sum()
    assert int(far["chose_bottom_left"].sum()) == (tf["answer"] == "triangle").sum()
    colour = pd.read_csv(out / "colour_margin.csv")
    for task, key in (("similarity", "sim_gemma"), ("identification", "id_gemma")):
        t = truth[key]
        sub = colour[colour["task"] == task].groupby("n")[["trials", "correct"]].sum()
        exp = t.groupby("n")["ok"].agg(["size", "sum"])
        np.testing.assert_array_equal(sub["trials"], exp["size"])
        np.testing.assert_array_equal(sub["correct"], exp["sum"])
    # provenance: sha256 of each source, computed here independently
    for rec in record["files"]:
        f = root / rec["path"]
        assert rec["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
        assert rec["rows"] == len(pd.read_csv(f))
        assert rec["commit"] == released.COMMITS[rec["path"]]
    assert json.loads((out / "provenance.json").read_text())["tables"]["spatial_margin"][
        "rows"] == len(margin)


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


def synthetic_counts(path, task, rng):
    seq_lens = list(range(2, 100, 2))
    nulls = [int(v) for v in rng.integers(0, 50, size=len(seq_lens))]
    correct = [int(rng.integers(0, 1000 - z)) for z in nulls]
    data = {"performance": [c / (1000 - z) for c, z in zip(correct, nulls)], "n_nulls": nulls,
            "seq_lens": seq_lens, "test_type": "id", "nrep": 200}
    path.write_bytes(pickle.dumps(data))
    return seq_lens, nulls, correct


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


def test_llm_counts_from_pickle(tmp_path):
    rng = np.random.default_rng(2)
    path = (tmp_path / "LLM_dates" / "saved_results"
            / "experiment_identification_Qwen2.5-7B-Instruct_year.pkl")
    path.parent.mkdir(parents=True)
    seq_lens, nulls, correct = synthetic_counts(path, "identification", rng)
    df = released.read_llm_counts(path, trust_pickle=True)
    assert set(df["task"]) == {"identification"} and set(df["model"]) == {"Qwen2.5-7B-Instruct"}
    assert list(df["n"]) == seq_lens and (df["trials"] == 1000).all()
    assert list(df["correct"]) == correct and list(df["answered"]) == [1000 - z for z in nulls]


def test_llm_resolution_from_pickle(tmp_path):
    rng = np.random.default_rng(3)
    perf, lam = {}, 30.0
    for _ in range(5):
        centre = int(rng.integers(1500, 1700))
        pspace = np.arange(centre - 300, centre + 300, 5)
        ages_list = [[centre - d, centre + d] for d in released.RESOLUTION_D]
        curves = []
        for lo, hi in ages_list:   # a Luce chooser with an exponential kernel: P(lower year)
            g_lo, g_hi = np.exp(-np.abs(pspace - lo) / lam), np.exp(-np.abs(pspace - hi) / lam)
            p = g_lo / (g_lo + g_hi)
            p[3] = np.nan
            curves.append(p)
        perf[centre] = curves
    path = tmp_path / "experiment_resolution_years_Llama-3.2-3B-Instruct_small.pkl"
    path.write_bytes(pickle.dumps({"ages_list": ages_list, "performances": perf,
                                   "pspace": pspace, "nrep": 20}))
    long = released.read_llm_resolution(path, trust_pickle=True)
    assert len(long) == 5 * 6 * 120 and set(long["D"]) == set(map(float, released.RESOLUTION_D))
    # far left of both references the lower year is nearer and chosen: p_correct = p_low
    left = long[long["offset"] < -250]
    np.testing.assert_allclose(left["p_correct"], left["p_low"])
    right = long[long["offset"] > 250]
    np.testing.assert_allclose(right["p_correct"], 1 - right["p_low"])
    assert long.loc[long["offset"] == 0, "p_correct"].isna().all()
    table = released.llm_resolution_table([long])
    at = table[(table["D"] == 50) & (table["bin"] == -100)]
    assert int(at["centres"].iat[0]) == 5 and int(at["prompts"].iat[0]) == 100
    expected = 1 / (1 + np.exp(-100 / lam))   # |p - hi| - |p - lo| = 100 at offset -100, D = 50
    assert at["p_low_mean"].iat[0] == pytest.approx(expected)
    assert table.loc[table["bin"] == -285, "centres"].eq(0).all()   # the NaN column


def test_shipped_tables_and_provenance_agree():
    names = released.tables()
    if not names:
        pytest.skip("no derived tables shipped")
    prov = released.provenance()
    assert prov["repository"].eq("nplresearch/generalization").all()
    assert prov["sha256"].str.fullmatch("[0-9a-f]{64}").all()
    for name in names:
        table = released.load_table(name)
        assert len(table) == prov.attrs["tables"][name]["rows"]
        assert {"model", "source", "task", "n", "bin", "trials", "correct"} <= set(table.columns)
        assert (table["correct"] <= table["answered"]).all()
        assert set(table["source"]) <= set(prov["path"])
    with pytest.raises(ValueError, match="name"):
        released.load_table("no_such_table")


def write_llm_folder(folder, rng):
    """The authors' LLM_dates/saved_results: their pickle names, and a .DS_Store; returns the
    truth of the two count pickles (task -> seq_lens, nulls, correct)."""
    folder.mkdir(parents=True)
    truth = {task: synthetic_counts(folder / f"experiment_{task}_gemma-2-2b-it_year.pkl", task,
                                    rng) for task in ("similarity", "identification")}
    centre, offsets = 1600, np.arange(-300, 300, 5)
    curves = [np.full(len(offsets), 0.5) for _ in released.RESOLUTION_D]
    (folder / "experiment_resolution_years_gemma-2-2b-it_small.pkl").write_bytes(pickle.dumps(
        {"ages_list": [[centre - d, centre + d] for d in released.RESOLUTION_D],
         "performances": {centre: curves}, "pspace": centre + offsets, "nrep": 20}))
    (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1\x00" * 8)
    return truth


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


def _bad_files(tmp_path):
    """Files that are not what their names say, each with the words its error must use."""
    d = tmp_path / "bad"
    d.mkdir()
    (d / "empty.csv").write_text("")
    (d / "binary.csv").write_bytes(pickle.dumps({"performance": [0.5]}))
    (d / "latin1.csv").write_bytes(",".join(results.COLUMNS).encode() + b"\nm,caf\xe9\n")
    (d / "header_only.csv").write_text(",".join(results.COLUMNS) + "\n")
    (d / "saved.pkl").write_bytes(pickle.dumps([1, 2]))
    (d / "other.csv").write_text("a,b\n1,2\n")
    return {d / "empty.csv": "empty file", d / "binary.csv": "a binary file, not a CSV",
            d / "latin1.csv": "not UTF-8 text", d / "header_only.csv": "header but no rows",
            d / "saved.pkl": "a pickle not named as the authors' LLM files",
            d / "other.csv": "lacks column.*not one of the authors' files"}


def test_unreadable_files_are_named(tmp_path):
    for path, words in _bad_files(tmp_path).items():
        with pytest.raises(ValueError, match=f"{path}: .*{words}") as err:
            released.gather(str(path), trust_pickle=True)
        assert "\n" not in str(err.value)


def _tidy_rows(n_rows=4):
    return pd.DataFrame({
        "model": "m", "source": "live", "task": "similarity", "n": 3, "space": "canvas",
        "options": "square|star|heart", "position": "0.1,0.1|0.9,0.9|0.5,0.2",
        "probe": "0.2,0.1", "correct": "square", "choice": "star", "scores": ""},
        index=range(n_rows))


@pytest.mark.parametrize("column, value, words", [
    ("position", "0.1,zz|0.9,0.9|0.5,0.2", "position '0.1,zz.*expected n = 3 points"),
    ("n", "two", "n 'two': expected an integer >= 2"),
    ("probe", "0.2", "probe '0.2': expected one point of space 'canvas'"),
    ("scores", "-1|x|-2", "scores '-1|x|-2': expected n = 3 numbers"),
    ("task", "naming", "task 'naming': expected one of similarity, identification"),
])
def test_bad_rows_name_file_line_and_column(tmp_path, column, value, words):
    df = _tidy_rows().astype(object)
    df.loc[[2, 3], column] = value   # rows 2 and 3: lines 4 and 5 of the file
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=f"{path} line 4: {words}.*1 more bad rows"):
        released.gather(str(tmp_path))


def test_bad_cells_in_authors_files_are_named(authors, tmp_path):
    _, data, _ = authors
    raw = pd.read_csv(data / "spatial_resolution_gemma_results_far.csv")
    raw["target_X"] = raw["target_X"].astype(object)
    raw.loc[5, "target_X"] = "zz"
    bad = tmp_path / "spatial_resolution_gemma_results_far.csv"
    raw.to_csv(bad, index=False)
    with pytest.raises(ValueError, match=f"{bad} line 7: column target_X 'zz': expected a "
                                         "number$"):
        released.read_spatial(bad)
    col = pd.read_csv(data / "color_similarity_gemma_results.csv")
    col.loc[0, "N_STENCILS"] = 13
    bad = tmp_path / "color_similarity_gemma_results.csv"
    col.to_csv(bad, index=False)
    with pytest.raises(ValueError, match=f"{bad} line 2: column N_STENCILS 13: expected an "
                                         "integer in 2..12"):
        released.gather(bad)


def _digests(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


SHIPPED = Path(released.__file__).parents[1] / "data" / "released"


def test_converters_fail_in_one_line_and_leave_shipped_data(authors, tmp_path, monkeypatch,
                                                           capsys):
    root, data, _ = authors
    before = _digests(SHIPPED)
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
    assert _digests(SHIPPED) == before
    # asked explicitly, derive writes there; a later source with fewer tables leaves no stale one
    out = tmp_path / "asked"
    assert released.main(["derive", "--source", str(root), "--out", str(out)]) == 0
    assert (out / "colour_margin.csv").is_file()
    assert released.main(["derive", "--source", str(pickles), "--trust-pickle",
                          "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["llm_n.csv", "llm_resolution.csv",
                                                     "provenance.json"]
    assert _digests(SHIPPED) == before


@pytest.mark.parametrize("x_px, y_px", [(300, 100), (750, 460), (100, 300), (451, 750)])
def test_grid_cell_of_an_x_on_a_cell_edge(tmp_path, x_px, y_px):
    """An X exactly on a cell edge (300 or 750 px of 900: 0.333333333333 and 0.833333333333 once
    written to 12 digits) belongs to the cell that starts there, as integer pixels say."""
    rng = np.random.default_rng(3)
    path = tmp_path / "spatial_resolution_gemma_results_far.csv"
    write_spatial(path, rng, n_rows=1)
    raw = pd.read_csv(path)
    raw.loc[0, ["target_X", "target_Y"]] = [x_px, y_px]
    raw.to_csv(path, index=False)
    df = released.read_spatial(path)
    assert df["probe"].iat[0].split(",")[0] == format(x_px / 900, ".12g")  # the 12-digit trap
    tab = released.spatial_grid_table(df)
    cell = 900 // released.GRID                  # 150 px, integer arithmetic: no rounding
    assert (int(tab["ix"].iat[0]), int(tab["iy"].iat[0])) == (x_px // cell, y_px // cell)
