"""Reading released files where a chapter needs them: every results file a reader names
(:func:`gather`, :func:`load_results`), and the derived tables shipped with the package."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import pandas as pd

from semres.core import results as _results

from .formats import (CSV_READERS, PICKLE_NAMES, PICKLES, kind_of, read_llm_counts,
                      read_llm_resolution)

#: where the package keeps the derived tables and their provenance.json
DATA_DIR = "data/released"
_WHAT = {"schema": "per-trial rows in the book's schema",
         "spatial": "the authors' four-shape VLM answers",
         "colour": "the authors' colour VLM answers",
         "llm_counts": "the authors' LLM n-sweep counts",
         "llm_resolution": "the authors' LLM two-reference curves"}


def _paths(source) -> list[Path]:
    """A file, a folder, a comma-separated string of them, or a list."""
    if isinstance(source, (str, Path)):
        source = str(source).split(",")
    return [Path(str(p).strip()) for p in source if str(p).strip()]


def find_files(source) -> list:
    """Every released file this module reads under ``source`` (a file, folder, or list)."""
    found = []
    for p in _paths(source):
        if p.is_dir():
            found += sorted(f for f in p.rglob("*") if f.is_file() and kind_of(f))
        elif p.is_file() and kind_of(p):
            found.append(p)
        elif not p.exists():
            raise FileNotFoundError(f"source: no such file or folder {str(p)!r}")
    return found


def read_file(f, kind: str | None) -> tuple[str, pd.DataFrame]:
    """``(kind, frame)`` of one results file: a schema CSV, or one of the authors' files by
    its ``kind`` (their pickles unpickled, so only for files the reader trusts)."""
    if kind in PICKLES:
        reader = read_llm_counts if kind == "llm_counts" else read_llm_resolution
        return kind, reader(f, trust_pickle=True)
    header = _results.read_csv(f, nrows=0).columns
    if set(_results.COLUMNS) <= set(header):
        return "schema", _results.read_file(f)
    if kind in CSV_READERS:
        return kind, CSV_READERS[kind](f)
    missing = [c for c in _results.COLUMNS if c not in header]
    raise ValueError(f"{f}: lacks column(s) {', '.join(missing)} of the results schema, and its "
                     f"name is not one of the authors' files")


@dataclass
class Gathered:
    """Everything ``results=`` named, read and checked (see :func:`gather`)."""
    rows: pd.DataFrame | None = None
    counts: list = field(default_factory=list)
    curves: list = field(default_factory=list)
    files: dict = field(default_factory=dict)
    report: list = field(default_factory=list)


def _skip_reason(f, kind, trust_pickle: bool, llm: bool) -> str | None:
    """Why ``f`` is not read (None: it is)."""
    if kind in PICKLES:
        if not llm:
            return "one of the authors' LLM pickles, which this chapter does not use"
        if trust_pickle is not True:
            return ("one of the authors' pickles, not unpickled: loading a pickle runs code from "
                    "the file (pass trust_pickle=True for files you trust)")
        return None
    if f.suffix.lower() == ".csv":
        return None
    if f.suffix.lower() in (".pkl", ".pickle"):
        return f"a pickle not named as the authors' LLM files ({PICKLE_NAMES})"
    return "not a results file (a CSV, or one of the authors' LLM pickles)"


def gather(paths, trust_pickle: bool = False, llm: bool = True) -> Gathered:
    """Read every results file ``paths`` names (each named file, and each entry of each named
    folder), checking each in full before any analysis."""
    got, rows, skipped = Gathered(), [], []
    listing = []
    for p in _paths(paths):
        if not p.exists():
            raise ValueError(f"results: no such file or folder {str(p)!r}")
        listing += [(f, False) for f in sorted(p.iterdir())] if p.is_dir() else [(p, True)]
    for f, named in listing:
        kind = kind_of(f)
        why = _skip_reason(f, kind, trust_pickle, llm)
        if why and named:
            raise ValueError(f"results: {f}: {why}")
        if why:
            skipped.append(why)
            got.report.append(f"skipped {f}: {why}")
            continue
        kind, frame = read_file(f, kind)
        {"llm_counts": got.counts, "llm_resolution": got.curves}.get(kind, rows).append(frame)
        got.files[f] = kind
        models = ", ".join(sorted(set(frame["model"].astype(str))))
        got.report.append(f"read {f}: {_WHAT[kind]}, {len(frame)} rows ({models})")
    if not got.files:
        reasons = pd.Series(skipped, dtype=str).value_counts()
        detail = "; ".join(f"{n} skipped as {w}" for w, n in reasons.items()) or "it is empty"
        raise ValueError(f"results: nothing read from {', '.join(map(str, _paths(paths)))}: "
                         f"{detail}")
    got.rows = pd.concat(rows, ignore_index=True) if rows else None
    return got


def load_results(paths) -> pd.DataFrame:
    """Per-trial rows from schema CSVs and/or the authors' raw CSVs (:func:`gather`'s rows)."""
    return gather(paths, llm=False).rows


def tables() -> list:
    """Names of the derived tables shipped with the package."""
    return sorted(p.name[:-4] for p in (files("semres") / DATA_DIR).iterdir()
                  if p.name.endswith(".csv"))


def load_table(name: str) -> pd.DataFrame:
    """A shipped derived table (see :func:`tables`) as a DataFrame."""
    if name not in tables():
        raise ValueError(f"name: no shipped table {name!r}; shipped: {', '.join(tables())}")
    with (files("semres") / DATA_DIR / f"{name}.csv").open() as f:
        return pd.read_csv(f, keep_default_na=False, na_values=[""])
