"""The small tables derived from the released files (counts per margin bin, grid cell, nearest
shape and corner, and the LLM tables), and :func:`derive`, which writes them with their
provenance. Only these counts are shipped, never the authors' rows."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

from semres.core import results as _results
from semres.experiments.vlm_shapes.settings import AUTHORS

from .formats import (CITATION, COMMITS, CSV_READERS, LETTERS, PICKLE_NAMES, PICKLES,
                      REPOSITORY, SPATIAL_SHAPES, kind_of, model_of, repo_path)
from .read import find_files, read_file

SPATIAL_BIN, HUE_BIN, GRID = 0.05, 0.01, 6   # 6 x 6: every cell of the far files holds >= 6 trials
CORNERS = ("top_left", "top_right", "bottom_left", "bottom_right")


def margins(df) -> np.ndarray:
    """Per row, the gap between the second-nearest and nearest option (0 for exact ties)."""
    return np.array([np.diff(np.sort(d)[:2])[0] for d in _results.distances(df)])


def _counts(df, keys, options, chosen=None, dropna: bool = False) -> pd.DataFrame:
    """Trials, answered, correct and chose_<option> counts per group of ``keys``; ``chosen``
    (per row, default the ``choice`` column) is what the chose_ counts compare with."""
    choice = df["choice"].astype(str)
    chosen = choice.to_numpy() if chosen is None else chosen
    work = df[keys].copy()
    work["answered"] = (choice != "").to_numpy(int)
    work["correct"] = np.asarray([c in _results.split_list(k)
                                  for c, k in zip(choice, df["correct"])], dtype=int)
    work["trials"] = 1
    for o in options:
        work[f"chose_{o}"] = (chosen == o).astype(int)
    cols = ["trials", "answered", "correct", *[f"chose_{o}" for o in options]]
    return work.groupby(keys, sort=True, dropna=dropna)[cols].sum().reset_index()


def _untied_canvas(df) -> pd.DataFrame:
    """The four-shape rows with one nearest shape (exact ties dropped)."""
    df = df[df["space"] == "canvas"]
    return df[~df["correct"].astype(str).str.contains("|", regex=False)].copy()


_ID = ["model", "source", "experiment", "task", "n"]


def _binned(df, width: float, options) -> pd.DataFrame:
    out = _counts(df.assign(bin=np.floor(margins(df) / width + 1e-9).astype(int)),
                  _ID + ["bin"], options)
    out.insert(len(_ID) + 1, "bin_lo", np.round(out["bin"] * width, 10))
    out.insert(len(_ID) + 2, "bin_hi", np.round((out["bin"] + 1) * width, 10))
    out["bin"] = [f"[{lo:g},{hi:g})" for lo, hi in zip(out["bin_lo"], out["bin_hi"])]
    return out


def spatial_margin_table(df, width: float = SPATIAL_BIN) -> pd.DataFrame:
    """Counts per model, experiment and margin bin (canvas units) of the four-shape trials."""
    return _binned(df[df["space"] == "canvas"], width, SPATIAL_SHAPES)


def colour_margin_table(df, width: float = HUE_BIN) -> pd.DataFrame:
    """Counts per model, task, n and hue-margin bin (fraction of the hue circle)."""
    return _binned(df[df["space"] == "hue"], width, LETTERS)


def spatial_grid_table(df) -> pd.DataFrame:
    """Counts per cell of a GRID x GRID lattice over the X (fixed-layout trials only)."""
    df = df[(df["space"] == "canvas") & (df["experiment"] == "spatial_far")].copy()
    xy = np.array([[float(v) for v in p.split(",")] for p in df["probe"]]).reshape(-1, 2)
    # positions are written to 12 digits (300 px -> 0.333333333333): an X on a cell edge must
    # not fall into the cell below it, so snap to the edge within that rounding
    ij = np.clip(np.floor(xy * GRID + 1e-9).astype(int), 0, GRID - 1)
    df["ix"], df["iy"], df["x"], df["y"] = ij[:, 0], ij[:, 1], xy[:, 0], xy[:, 1]
    out = _counts(df, _ID + ["ix", "iy"], SPATIAL_SHAPES)
    means = df.groupby(_ID + ["ix", "iy"])[["x", "y"]].mean().reset_index()
    out = out.merge(means.rename(columns={"x": "x_mean", "y": "y_mean"}), on=_ID + ["ix", "iy"])
    out.insert(len(_ID), "bin", [f"{i},{j}" for i, j in zip(out["ix"], out["iy"])])
    for a, b in (("x", "ix"), ("y", "iy")):
        out[f"{a}_lo"], out[f"{a}_hi"] = out[b] / GRID, (out[b] + 1) / GRID
    return out


def grid_design(table, model: str) -> dict:
    """One model's ``spatial_grid`` rows as arrays for a Luce fit with per-shape weights."""
    sub = table[table["model"] == model]
    if sub.empty:
        raise ValueError(f"model: no rows for {model!r}; have {sorted(set(table['model']))}")
    px = float(AUTHORS["canvas_px"])
    names = list(SPATIAL_SHAPES)
    pos = np.array([AUTHORS["layout"][s] for s in names], dtype=float) / px
    xy = sub[["x_mean", "y_mean"]].to_numpy(float)
    d = np.linalg.norm(xy[:, None, :] - pos[None], axis=2)
    return {"names": names, "d": d, "counts": sub[[f"chose_{s}" for s in names]].to_numpy(int),
            "trials": sub["trials"].to_numpy(int), "nearest": d == d.min(axis=1, keepdims=True)}


def spatial_confusion_table(df) -> pd.DataFrame:
    """Choice counts per nearest shape (``bin``), exact ties dropped: the answer bias."""
    df = _untied_canvas(df)
    df["bin"] = df["correct"].astype(str)
    return _counts(df, _ID + ["bin"], SPATIAL_SHAPES)


def _corner(point: str) -> str:
    x, y = (float(v) for v in point.split(","))
    return f"{'top' if y < 0.5 else 'bottom'}_{'left' if x < 0.5 else 'right'}"


def spatial_corner_table(df) -> pd.DataFrame:
    """Choice counts by canvas corner, per corner of the nearest shape (``bin``; ties dropped)."""
    df = _untied_canvas(df)
    corners = [[_corner(p) for p in _results.split_list(pos)] for pos in df["position"]]
    opts = [_results.split_list(o) for o in df["options"]]
    df["bin"] = [c[o.index(k)] for c, o, k in zip(corners, opts, df["correct"].astype(str))]
    idx = _results.choice_index(df)
    chosen = np.array([c[i] if i >= 0 else "" for c, i in zip(corners, idx)])
    return _counts(df, _ID + ["bin"], CORNERS, chosen, dropna=True)


def llm_resolution_table(frames) -> pd.DataFrame:
    """Mean two-reference curves over centres, per model, D and probe offset (``bin``)."""
    long = pd.concat(frames, ignore_index=True)
    g = long.groupby(["model", "source", "D", "offset"])
    out = g.agg(centres=("p_low", "count"), nrep=("nrep", "first"),
                p_low_mean=("p_low", "mean"), p_correct_mean=("p_correct", "mean")).reset_index()
    out["prompts"] = out["nrep"] * out["centres"]
    out.insert(2, "experiment", "years_resolution")
    out.insert(3, "task", "similarity")
    out.insert(4, "n", 2)
    out.insert(5, "bin", out["offset"].astype(int))
    return out.drop(columns="nrep")


#: the tables derived from the authors' per-trial rows, each written as a CSV named after it
TRIAL_TABLES = {"spatial_margin": spatial_margin_table, "spatial_grid": spatial_grid_table,
                "spatial_confusion": spatial_confusion_table,
                "spatial_corner": spatial_corner_table, "colour_margin": colour_margin_table}
#: every derived table: those, and the LLM tables of the authors' pickles
TABLES = (*TRIAL_TABLES, "llm_n", "llm_resolution")


def derive(source, out, trust_pickle: bool = False) -> dict:
    """Read every released file under ``source``; write the derived tables and
    ``provenance.json`` to ``out`` (nothing unless every file was read); return the record."""
    found = find_files(source)
    if not found:
        raise ValueError(f"source: no released files under {source} (expected the authors' "
                         f"names: spatial_resolution_*_results_far.csv, "
                         f"random_stencil_*_results.csv, color_*_results.csv, {PICKLE_NAMES}); "
                         f"nothing written")
    frames = {kind: [] for kind in (*CSV_READERS, *PICKLES)}
    records, skipped = [], []
    for f in found:
        kind, rel = kind_of(f), repo_path(f)
        if kind in PICKLES and not trust_pickle:
            skipped.append({"path": rel, "why": "pickle not trusted (pass --trust-pickle)"})
            continue
        _, frame = read_file(f, kind)
        frames[kind].append(frame)
        records.append({"path": rel, "commit": COMMITS.get(rel, "unknown"),
                        "sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
                        "bytes": f.stat().st_size, "kind": kind, "model": model_of(f),
                        "rows": int(len(frame)),
                        "scores_usable": (bool(frame["scores_usable"].iloc[0])
                                          if "scores_usable" in frame else None)})
    if not records:
        raise ValueError(f"source: nothing read under {source}: {len(skipped)} pickle(s) not "
                         f"trusted (pass --trust-pickle, or trust_pickle=True); nothing written")
    made = {}
    if frames["spatial"] or frames["colour"]:
        rows = pd.concat(frames["spatial"] + frames["colour"], ignore_index=True)
        made.update({name: make(rows) for name, make in TRIAL_TABLES.items()})
    if frames["llm_counts"]:
        made["llm_n"] = pd.concat(frames["llm_counts"], ignore_index=True)
    if frames["llm_resolution"]:
        made["llm_resolution"] = llm_resolution_table(frames["llm_resolution"])
    made = {name: table for name, table in made.items() if len(table)}
    record = {"repository": REPOSITORY, "citation": CITATION,
              "licence": ("the repository has no licence file: only counts derived from its "
                          "files are shipped, no per-trial rows"),
              "generated_by": "python -m semres.experiments.released derive --source DIR --out DIR",
              "bins": {"spatial_margin": SPATIAL_BIN, "colour_margin": HUE_BIN,
                       "spatial_grid": GRID},
              "files": records, "skipped": skipped,
              "tables": {name: {"rows": int(len(t)), "columns": list(t.columns)}
                         for name, t in made.items()}}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, table in made.items():
        _results.write_atomic(out / f"{name}.csv", table.to_csv(index=False))
    for name in set(TABLES) - set(made):
        (out / f"{name}.csv").unlink(missing_ok=True)
    _results.write_atomic(out / "provenance.json", json.dumps(record, indent=1) + "\n")
    return record
