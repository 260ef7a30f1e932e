"""One tidy schema for per-trial results of any model, live or released by others.

A trial is one question put to a model: ``n`` answer options, each at a position in a stimulus
space, a probe, the option(s) counted correct, the model's choice and, where the model exposes
them, its score for each option. Chapters analyse these rows the same way whatever produced them
(a model run here, or the paper authors' released files through an adapter), so a number from a
hub model and a number from the embedded stand-in come from the same code.

Columns (one row per trial; lists are ``|``-separated, a 2-D point is ``x,y``):

======== ============================================================================
model    the model's name
source   where the row came from (``live`` or a file path / repository path)
task     ``similarity`` or ``identification``
n        number of answer options
space    ``years`` (|a - b|), ``canvas`` (Euclidean, canvas fractions) or ``hue``
         (circular distance on [0, 1))
options  option names, ``n`` of them
position each option's position in the space, ``n`` of them
probe    the probe's position
correct  the correct option name(s) (several when distances tie)
choice   the option the model chose; empty when no option could be read from its answer
scores   optional: the model's score (log-probability) per option, ``n`` of them
======== ============================================================================

Optional columns, kept when present: ``prompt``, the exact text the model read (so that anyone
can re-score a trial from its row).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["COLUMNS", "SPACES", "validate", "read_results", "write_results", "distances",
           "choice_index", "correct_mask", "split_list", "csv_paths"]

COLUMNS = ("model", "source", "task", "n", "space", "options", "position", "probe", "correct",
           "choice", "scores")
OPTIONAL = ("prompt",)
SPACES = ("years", "canvas", "hue")
TASKS = ("similarity", "identification")


def split_list(cell) -> list:
    """A ``|``-separated cell as a list of strings (an empty or missing cell is [])."""
    if cell is None or (isinstance(cell, float) and np.isnan(cell)):
        return []
    text = str(cell)
    return text.split("|") if text else []


def _point(text: str, space: str) -> np.ndarray:
    values = np.array([float(v) for v in str(text).split(",")])
    if values.shape != ((2,) if space == "canvas" else (1,)):
        raise ValueError(f"position {text!r} does not fit space {space!r}")
    return values


def validate(df):
    """Check ``df`` against the schema; raise ValueError naming the first bad column or row."""
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"results lack column(s) {', '.join(missing)}; the schema is "
                         f"{', '.join(COLUMNS)}")
    bad = ~df["task"].isin(TASKS)
    if bad.any():
        raise ValueError(f"task must be one of {TASKS}; row {int(np.flatnonzero(bad)[0])} has "
                         f"{df['task'][bad].iloc[0]!r}")
    bad = ~df["space"].isin(SPACES)
    if bad.any():
        raise ValueError(f"space must be one of {SPACES}; row {int(np.flatnonzero(bad)[0])} has "
                         f"{df['space'][bad].iloc[0]!r}")
    for i, row in enumerate(df.itertuples(index=False)):
        opts = split_list(row.options)
        if len(opts) != int(row.n) or len(set(opts)) != len(opts) or int(row.n) < 2:
            raise ValueError(f"row {i}: options must be n = {row.n} >= 2 distinct names; got "
                             f"{row.options!r}")
        if len(split_list(row.position)) != len(opts):
            raise ValueError(f"row {i}: position must give one point per option")
        if not set(split_list(row.correct)) or not set(split_list(row.correct)) <= set(opts):
            raise ValueError(f"row {i}: correct must name one or more of the options")
        if split_list(row.choice) and row.choice not in opts:
            raise ValueError(f"row {i}: choice {row.choice!r} is not one of the options")
        if split_list(row.scores) and len(split_list(row.scores)) != len(opts):
            raise ValueError(f"row {i}: scores must give one number per option")
    return df


def write_results(df, path) -> Path:
    """Validate and write ``df`` as CSV (atomically, so no half-written file is left)."""
    import os
    import tempfile

    validate(df)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".csv.tmp")
    os.close(fd)
    try:
        cols = list(COLUMNS) + [c for c in OPTIONAL if c in df.columns]
        df.loc[:, cols].to_csv(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def read_results(paths):
    """Rows from CSV files in the schema: one path, a folder (every ``*.csv``), or a list.

    The string form ``"a.csv,b.csv"`` (a chapter parameter) is accepted too.
    """
    import pandas as pd

    frames = [pd.read_csv(f, dtype={"choice": str, "scores": str, "prompt": str},
                          keep_default_na=False) for f in csv_paths(paths)]
    return validate(pd.concat(frames, ignore_index=True))


def csv_paths(paths) -> list:
    """The CSV files named by ``paths``: a file, a folder (its ``*.csv``), a list, or the
    chapter-parameter form ``"a.csv,b.csv"``; ValueError naming ``results`` if there are none."""
    if isinstance(paths, (str, Path)):
        paths = [p for p in str(paths).split(",") if p]
    files = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(p.glob("*.csv"))
        elif p.is_file():
            files.append(p)
        else:
            raise ValueError(f"results: no such file or folder {str(p)!r}")
    if not files:
        raise ValueError("results: no CSV files found")
    return files


def distances(df) -> list:
    """Per row, each option's distance to the probe in the row's space (list of arrays)."""
    out = []
    for row in df.itertuples(index=False):
        probe = _point(row.probe, row.space)
        pts = np.stack([_point(p, row.space) for p in split_list(row.position)])
        if row.space == "canvas":
            d = np.linalg.norm(pts - probe, axis=1)
        elif row.space == "hue":
            a = np.abs(pts[:, 0] - probe[0]) % 1.0
            d = np.minimum(a, 1.0 - a)
        else:
            d = np.abs(pts[:, 0] - probe[0])
        out.append(d)
    return out


def choice_index(df) -> np.ndarray:
    """Index of the chosen option per row; -1 where no option was read."""
    return np.array([split_list(r.options).index(r.choice) if split_list(r.choice) else -1
                     for r in df.itertuples(index=False)])


def correct_mask(df) -> list:
    """Per row, a boolean array over the options: which count as correct."""
    return [np.isin(split_list(r.options), split_list(r.correct))
            for r in df.itertuples(index=False)]
