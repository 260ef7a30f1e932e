"""The command line (``python -m semres.experiments.released derive|convert``): the derived
tables and their provenance, or the authors' CSVs in this book's schema. Nothing is written
unless every file was read."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from semres.core import results as _results
from semres.core.book import build_dir

from .derived import derive
from .formats import CSV_READERS, kind_of
from .read import DATA_DIR, find_files


def convert(source, out, keep_unusable_scores: bool = False) -> list:
    """Write each released CSV under ``source`` as a schema CSV in ``out`` (for ``results=``)."""
    found = [f for f in find_files(source) if kind_of(f) in CSV_READERS]
    if not found:
        raise ValueError(f"source: no released CSV files under {source} (expected the authors' "
                         f"names: spatial_resolution_*_results_far.csv, "
                         f"random_stencil_*_results.csv, color_*_results.csv); nothing written")
    frames = [CSV_READERS[kind_of(f)](f, keep_unusable_scores=keep_unusable_scores)
              for f in found]   # all read and checked before anything is written
    return [_results.write_results(frame, Path(out) / f.name) for f, frame in zip(found, frames)]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv=None) -> int:
    """Usage errors and a missing source exit 2, unreadable sources 1, each with one line."""
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
    except SystemExit as exit_:  # usage errors and --help
        return int(exit_.code or 0)
    except (FileNotFoundError, ValueError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2 if isinstance(err, FileNotFoundError) else 1
    return 0
