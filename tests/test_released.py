"""Adapters for the authors' released files, on synthetic files written in their formats.

Each test writes its own files (the authors' column layout, pickle structure), runs the adapters
and the derivation, and checks the counts against a tally computed here, by other means.
"""

import hashlib
import json
import pickle

import numpy as np
import pandas as pd
import pytest

from semres import released, results

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
    rec = released.derive(tmp_path, tmp_path / "out")
    assert rec["skipped"] and not rec["tables"]


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
