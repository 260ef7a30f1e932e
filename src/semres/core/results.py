"""One tidy schema for per-trial results of any model, run here or released by others, so a chapter
analyses both with the same code.

One row per trial; lists are ``|``-separated, a 2-D point is ``x,y``. Columns: ``model``,
``source`` (``live`` or a path), ``task``, ``n`` (options), ``space`` (``years``: |a - b|;
``canvas``: Euclidean; ``hue``: circular on [0, 1)), ``options`` (n names), ``position`` (n
points), ``probe``, ``correct`` (one or more names: ties), ``choice`` (empty when none was read),
``scores`` (optional, per option). Optional: ``prompt``, the exact text the model read.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["COLUMNS", "SPACES", "validate", "read_results", "read_file", "read_csv",
           "write_results", "write_atomic", "distances", "choice_index", "correct_mask",
           "split_list", "csv_paths"]

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


def _numbers(text, k: int) -> bool:
    """Whether ``text`` is ``k`` comma-separated finite numbers."""
    try:
        values = [float(v) for v in str(text).split(",")]
    except ValueError:
        return False
    return len(values) == k and bool(np.isfinite(values).all())


_POINT = {"canvas": ("x,y (two numbers)", 2), "years": ("one number", 1),
          "hue": ("one number", 1)}


def _row_problem(row) -> str | None:
    """The first thing wrong with one row, or None."""
    if row.task not in TASKS:
        return f"task {row.task!r}: expected one of {', '.join(TASKS)}"
    if row.space not in SPACES:
        return f"space {row.space!r}: expected one of {', '.join(SPACES)}"
    try:
        n = float(row.n)
    except (TypeError, ValueError):
        n = float("nan")
    if not (np.isfinite(n) and n == int(n) and n >= 2):
        return f"n {row.n!r}: expected an integer >= 2"
    n = int(n)
    opts = split_list(row.options)
    if len(opts) != n or len(set(opts)) != n:
        return f"options {row.options!r}: expected n = {n} distinct names separated by |"
    what, k = _POINT[row.space]
    points = split_list(row.position)
    if len(points) != n or not all(_numbers(p, k) for p in points):
        return (f"position {row.position!r}: expected n = {n} points of space {row.space!r}, "
                f"each {what}, separated by |")
    if not _numbers(row.probe, k):
        return f"probe {row.probe!r}: expected one point of space {row.space!r}: {what}"
    if not set(split_list(row.correct)) or not set(split_list(row.correct)) <= set(opts):
        return f"correct {row.correct!r}: expected one or more of the options"
    if split_list(row.choice) and row.choice not in opts:
        return f"choice {row.choice!r} is not one of the options {row.options!r}"
    scores = split_list(row.scores)
    if scores:
        try:
            ok = len(scores) == n and not np.isnan([float(v) for v in scores]).any()
        except ValueError:
            ok = False
        if not ok:
            return f"scores {row.scores!r}: expected n = {n} numbers separated by |, or empty"
    return None


def validate(df, where: str | None = None):
    """``df``, or a ValueError naming the first bad row (its line in file ``where``), what was
    expected, and how many other rows are bad."""
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{f'{where}: lacks' if where else 'results lack'} column(s) "
                         f"{', '.join(missing)}; the schema is {', '.join(COLUMNS)}")
    if where is not None and df.empty:
        raise ValueError(f"{where}: has a header but no rows")
    bad = [(i, p) for i, row in enumerate(df[list(COLUMNS)].itertuples(index=False))
           if (p := _row_problem(row))]
    if bad:
        i, first = bad[0]
        more = f" ({len(bad) - 1} more bad rows)" if len(bad) > 1 else ""
        at = f"{where} line {i + 2}" if where is not None else f"row {i}"
        raise ValueError(f"{at}: {first}{more}")
    return df


def read_csv(path, **kwargs):
    """``pandas.read_csv`` whose failures name the file and say what it is (empty, binary, ...)."""
    path = Path(path)
    with open(path, "rb") as f:
        head = f.read(8192)
    if not head.strip():
        raise ValueError(f"{path}: empty file (expected a CSV with a header)")
    if b"\x00" in head:
        raise ValueError(f"{path}: a binary file, not a CSV")
    try:
        return pd.read_csv(path, **kwargs)
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text (a binary file, or another encoding)") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        first = str(err).strip().splitlines()[0]
        raise ValueError(f"{path}: not a readable CSV: {first}") from None


def write_atomic(path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file: never half-written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def write_results(df, path) -> Path:
    """Validate and write ``df`` as CSV, atomically."""
    validate(df)
    cols = list(COLUMNS) + [c for c in OPTIONAL if c in df.columns]
    return write_atomic(path, df.loc[:, cols].to_csv(index=False))


def read_results(paths):
    """Validated rows from the CSV files named by ``paths`` (see :func:`csv_paths`)."""
    return pd.concat([read_file(f) for f in csv_paths(paths)], ignore_index=True)


def read_file(path):
    """One schema CSV, validated, errors naming the file and line."""
    df = read_csv(path, dtype={"choice": str, "scores": str, "prompt": str},
                  keep_default_na=False)
    return validate(df, where=str(path))


def csv_paths(paths) -> list:
    """The CSV files named by a file, a folder (its ``*.csv``), a list or ``"a.csv,b.csv"``."""
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
    """Per row, each option's distance to the probe in the row's space."""
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
