"""The derived count tables (:mod:`semres.experiments.released.derived`) against a tally
computed here by other means."""

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from semres.experiments import released

from released_files import CORNERS, SHAPES, write_spatial


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


def test_chapter_6_bins_a_results_file_with_its_own_margin_bins(tmp_path):
    """Chapter 6's results-files path (``vlm_shapes.authors.results_files``) bins a spatial file
    through ``released.spatial_margin_table`` at the chapter's bin width: every answered trial
    lands in one bin, and the bins are the width asked for."""
    from semres.experiments.vlm_shapes import authors
    path = tmp_path / "spatial_resolution_modelx_results_far.csv"
    write_spatial(path, np.random.default_rng(0), n_rows=200)
    rows = released.load_results([path])
    out = authors.results_files(rows, 20, 0, {}, 0.05, 1 / 12, 20)
    bins = pd.DataFrame(out["external"])
    assert bins.trials.sum() == len(rows[rows.task == "similarity"])
    k = bins.bin_mid / 0.05 - 0.5  # bin k of width 0.05 has its middle at (k + 1/2) 0.05
    assert np.allclose(k, np.round(k)) and len(bins) > 5
