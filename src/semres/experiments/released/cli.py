"""The command line (``python -m semres.experiments.released derive|convert``): the derived
tables and their provenance written from a folder of the authors' files, or their CSVs
converted to this book's schema. Nothing is written unless every file was read."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import pandas as pd

from semres.core import results as _results
from semres.core.book import build_dir

from .derived import (GRID, HUE_BIN, SPATIAL_BIN, TABLES, colour_margin_table, llm_n_table,
                      llm_resolution_table, spatial_confusion_table, spatial_corner_table,
                      spatial_grid_table, spatial_margin_table)
from .formats import (CITATION, COMMITS, CSV_READERS, PICKLE_NAMES, REPOSITORY, kind_of,
                      model_of, read_llm_counts, read_llm_resolution, repo_path)
from .read import DATA_DIR, find_files

def _sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _source_files(source, csv: bool = False) -> list:
    """The released files under ``source`` (only CSVs, with ``csv``); ValueError when none."""
    files = [f for f in find_files(source) if not csv or kind_of(f) in CSV_READERS]
    if not files:
        names = ("spatial_resolution_*_results_far.csv, random_stencil_*_results.csv, "
                 "color_*_results.csv" + ("" if csv else f", {PICKLE_NAMES}"))
        raise ValueError(f"source: no released {'CSV ' if csv else ''}files under {source} "
                         f"(expected the authors' names: {names}); nothing written")
    return files


def derive(source, out, trust_pickle: bool = False, commits: dict | None = None) -> dict:
    """Read every released file under ``source``; write the derived tables and
    ``provenance.json`` to ``out``; return the provenance record."""
    files = _source_files(source)
    commits = {**COMMITS, **(commits or {})}
    trials, counts, curves, records, skipped = [], [], [], [], []
    for f in files:
        kind, rel = kind_of(f), repo_path(f)
        if kind in ("llm_counts", "llm_resolution") and not trust_pickle:
            skipped.append({"path": rel, "why": "pickle not trusted (pass --trust-pickle)"})
            continue
        if kind in CSV_READERS:
            frame = CSV_READERS[kind](f)
            trials.append(frame)
        elif kind == "llm_counts":
            frame = read_llm_counts(f, trust_pickle=True)
            counts.append(frame)
        else:
            frame = read_llm_resolution(f, trust_pickle=True)
            curves.append(frame)
        records.append({"path": rel, "commit": commits.get(rel, "unknown"), "sha256": _sha256(f),
                        "bytes": f.stat().st_size, "kind": kind, "model": model_of(f),
                        "rows": int(len(frame)),
                        "scores_usable": (bool(frame["scores_usable"].iloc[0])
                                          if "scores_usable" in frame else None)})
    if not records:
        raise ValueError(f"source: nothing read under {source}: {len(skipped)} pickle(s) not "
                         f"trusted (pass --trust-pickle, or trust_pickle=True); nothing written")
    made = {}
    if trials:
        df = pd.concat(trials, ignore_index=True)
        made["spatial_margin"] = spatial_margin_table(df)
        made["spatial_grid"] = spatial_grid_table(df)
        made["spatial_confusion"] = spatial_confusion_table(df)
        made["spatial_corner"] = spatial_corner_table(df)
        made["colour_margin"] = colour_margin_table(df)
    if counts:
        made["llm_n"] = llm_n_table(counts)
    if curves:
        made["llm_resolution"] = llm_resolution_table(curves)
    made = {name: table for name, table in made.items() if len(table)}
    written = {name: {"rows": int(len(t)), "columns": list(t.columns)} for name, t in made.items()}
    record = {"repository": REPOSITORY, "citation": CITATION,
              "licence": ("the repository has no licence file: only counts derived from its "
                          "files are shipped, no per-trial rows"),
              "generated_by": "python -m semres.experiments.released derive --source DIR --out DIR",
              "bins": {"spatial_margin": SPATIAL_BIN, "colour_margin": HUE_BIN,
                       "spatial_grid": GRID},
              "files": records, "skipped": skipped, "tables": written}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, table in made.items():
        _results.write_atomic(out / f"{name}.csv", table.to_csv(index=False))
    for name in set(TABLES) - set(made):
        (out / f"{name}.csv").unlink(missing_ok=True)
    _results.write_atomic(out / "provenance.json", json.dumps(record, indent=1) + "\n")
    return record


def convert(source, out, keep_unusable_scores: bool = False) -> list:
    """Write each released CSV under ``source`` as a schema CSV in ``out`` (for ``results=``)."""
    files = _source_files(source, csv=True)
    frames = [CSV_READERS[kind_of(f)](f, keep_unusable_scores=keep_unusable_scores)
              for f in files]   # all read and checked before anything is written
    return [_results.write_results(frame, Path(out) / f.name) for f, frame in zip(files, frames)]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv=None) -> int:
    """The command line: usage errors and a missing source exit 2, unreadable sources 1, each
    with one line; nothing is written unless every file was read."""
    prog = "python -m semres.experiments.released"
    parser = _Parser(prog=prog, description="The paper authors' released outputs.")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    d = sub.add_parser("derive", help="write derived count tables and provenance.json")
    d.add_argument("--source", required=True, help="folder with the authors' files")
    d.add_argument("--out", default=str(build_dir() / "released"),
                   help="folder to write (default: _build/released); the shipped tables are "
                        f"rewritten only when this is src/semres/{DATA_DIR}")
    d.add_argument("--trust-pickle", action="store_true",
                   help="unpickle the LLM files (pickles run code: only for files you trust)")
    c = sub.add_parser("convert", help="write the released CSVs in the per-trial schema")
    c.add_argument("--source", required=True, help="folder with the authors' CSVs")
    c.add_argument("--out", required=True, help="folder to write (keep it local)")
    c.add_argument("--keep-unusable-scores", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # usage errors and --help
        return int(exit_.code or 0)
    missing = [p for p in str(args.source).split(",") if p and not Path(p).exists()]
    if missing:
        print(f"{prog}: error: source: no such file or folder {missing[0]!r}", file=sys.stderr)
        return 2
    try:
        if args.cmd == "derive":
            rec = derive(args.source, args.out, trust_pickle=args.trust_pickle)
            for name, t in rec["tables"].items():
                print(f"{name}: {t['rows']} rows")
            for s in rec["skipped"]:
                print(f"skipped {s['path']}: {s['why']}", file=sys.stderr)
            print(f"wrote {len(rec['tables'])} tables and provenance.json to {args.out}")
        else:
            for p in convert(args.source, args.out,
                             keep_unusable_scores=args.keep_unusable_scores):
                print(p)
    except ValueError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    return 0
