"""The adapters of the authors' formats (:mod:`semres.experiments.released.formats`), on
synthetic files written in their formats: geometry, choices, scores, pickles, bad cells."""

import pickle

import numpy as np
import pandas as pd
import pytest

from semres.core import results
from semres.experiments import released

from released_files import SHAPES, synthetic_counts


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
        ok = [c in results.split_list(k) for c, k in zip(df["choice"].astype(str), df["correct"])]
        np.testing.assert_array_equal(ok, t["ok"].to_numpy(bool))
        np.testing.assert_allclose(released.margins(df), t["margin"], atol=1e-9)
        if task == "identification":   # the target is a copy of one patch
            assert all(min(d) < 1e-12 for d in results.distances(df))


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
