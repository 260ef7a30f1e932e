"""Compare two folders of result tables CSV by CSV, and print every difference.

    python benchmarks/compare_tables.py OLD_DIR NEW_DIR [--rtol 1e-9] [--atol 1e-12]
                                                         [--ignore REGEX ...]
    python benchmarks/compare_tables.py OLD.ipynb NEW.ipynb   # the numbers glued into prose

A refactor that should move no number is checked by running a chapter before and after it and
comparing ``_build/results/<chapter>/`` of the two runs. Either folder may hold one chapter's
CSV files or one subfolder per chapter (``_build/results``); files are matched by their path
relative to it. Two tables agree when they have the same columns, in the same order, and the
same number of rows, and cell by cell: numbers equal within ``rtol`` (relative) or ``atol``
(absolute), NaN equal to NaN and a blank to a blank, text equal as text. A number written as
text inside a cell (a sentence quoting a time) is compared as text. Columns that measure time
(the name holds "seconds", "time", "elapsed" or "duration", or matches ``--ignore``) are left
out, and so are the rows of a ``name``/``value`` table whose name does. Given two executed
notebooks instead, it compares what they glue into the prose (``report.number``,
``report.text``; a figure only by its presence), by glue name, the same way. Exit status 0
when everything agrees, 1 when anything differs or is missing on one side, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

import pandas as pd

TIMING = r"seconds|time|elapsed|duration"
#: columns that name a row in a key/value table (``report.number`` exports and the like)
KEY_COLUMNS = ("name", "key", "quantity")


def tables(folder: Path) -> dict[str, Path]:
    """Every CSV under ``folder``, by its path relative to it."""
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*.csv"))}


def _number(value):
    """``value`` as a float when it is a number (not text holding one), else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _blank(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def cells_equal(a, b, rtol: float, atol: float) -> bool:
    """Two cells agree: both blank, both numbers within tolerance, or the same text."""
    if _blank(a) or _blank(b):
        return _blank(a) and _blank(b)
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        if math.isinf(x) or math.isinf(y):
            return x == y
        return abs(x - y) <= atol + rtol * max(abs(x), abs(y))
    return str(a) == str(b)


def timing_columns(columns, ignore: re.Pattern) -> list[str]:
    return [c for c in columns if ignore.search(str(c))]


def compare_frames(old: pd.DataFrame, new: pd.DataFrame, rtol: float, atol: float,
                   ignore: re.Pattern, limit: int = 20) -> list[str]:
    """The differences between two tables, in words (empty when they agree)."""
    out = []
    if list(old.columns) != list(new.columns):
        gone = [c for c in old.columns if c not in new.columns]
        added = [c for c in new.columns if c not in old.columns]
        out.append(f"columns differ: only in old {gone}, only in new {added}"
                   if gone or added else "columns in a different order")
    common = [c for c in old.columns if c in new.columns]
    for key in KEY_COLUMNS:  # a name/value table: drop the rows that are timings
        if key in common:
            old = old[~old[key].astype(str).str.contains(ignore)]
            new = new[~new[key].astype(str).str.contains(ignore)]
            break
    if len(old) != len(new):
        out.append(f"{len(old)} rows in old, {len(new)} in new")
        return out
    skipped = timing_columns(common, ignore)
    shown = 0
    for col in common:
        if col in skipped:
            continue
        a = old[col].astype(object).tolist()
        b = new[col].astype(object).tolist()
        bad = [i for i, (x, y) in enumerate(zip(a, b)) if not cells_equal(x, y, rtol, atol)]
        if bad:
            first = bad[0]
            out.append(f"column {col!r}: {len(bad)} of {len(a)} cells differ, first at row "
                       f"{first}: {a[first]!r} -> {b[first]!r}")
            shown += 1
            if shown >= limit:
                out.append("... (more columns differ)")
                break
    return out


def read(path: Path) -> pd.DataFrame:
    # keep_default_na=False would turn blanks into "": NaN and blank read the same either way
    try:
        return pd.read_csv(path, low_memory=False)
    except pd.errors.EmptyDataError:  # an empty table written without columns
        return pd.DataFrame()


def compare(old_dir: Path, new_dir: Path, rtol: float = 1e-9, atol: float = 1e-12,
            ignore: str = TIMING) -> dict[str, list[str]]:
    """Differences per table (relative path -> lines); a table on one side only is one."""
    pattern = re.compile(ignore, re.IGNORECASE)
    old, new = tables(old_dir), tables(new_dir)
    report = {}
    for name in sorted(set(old) | set(new)):
        if name not in new:
            report[name] = ["missing in new"]
        elif name not in old:
            report[name] = ["missing in old"]
        else:
            report[name] = compare_frames(read(old[name]), read(new[name]), rtol, atol, pattern)
    return report


def glued(path: Path) -> pd.DataFrame:
    """What an executed notebook glues, one row per name: the value as a number when it reads
    as one, else its text (Markdown or plain), or "<figure>"."""
    rows = []
    for cell in json.loads(path.read_text())["cells"]:
        for out in cell.get("outputs", []):
            record = out.get("metadata", {}).get("scrapbook")
            if not record:
                continue
            prefix = record.get("mime_prefix", "")
            data = {k.removeprefix(prefix): v for k, v in out.get("data", {}).items()}
            text = data.get("text/markdown") or data.get("text/plain")
            if text is None:
                value = "<figure>" if any(k.startswith("image/") for k in data) else str(sorted(data))
            else:
                text = "".join(text)
                try:
                    value = float(text)
                except ValueError:
                    value = text
            rows.append({"name": record["name"], "value": value})
    return pd.DataFrame(rows, columns=["name", "value"]).sort_values("name", kind="stable")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--atol", type=float, default=1e-12)
    parser.add_argument("--ignore", action="append", default=[],
                        help="a regular expression of further column names to leave out")
    args = parser.parse_args(argv)
    ignore = "|".join([TIMING, *args.ignore])
    if args.old.suffix == args.new.suffix == ".ipynb":
        for path in (args.old, args.new):
            if not path.is_file():
                parser.error(f"{path} is not a file")
        old, new = glued(args.old), glued(args.new)
        pattern = re.compile(ignore, re.IGNORECASE)
        # match by name: a glue that moved between cells is the same glue
        names = sorted(set(old.name) | set(new.name))
        aligned = [frame.set_index("name").reindex(names).reset_index() for frame in (old, new)]
        lines = [f"only in {side}: {sorted(set(a.name) - set(b.name))}"
                 for side, a, b in (("old", old, new), ("new", new, old))
                 if set(a.name) - set(b.name)]
        both = set(old.name) & set(new.name)
        for name, x, y in zip(names, aligned[0].value, aligned[1].value):
            if name in both and not pattern.search(name) and not cells_equal(x, y, args.rtol,
                                                                           args.atol):
                lines.append(f"{name}: {x!r} -> {y!r}")
        print("\n".join(lines) or f"{len(names)} glued values identical")
        return 1 if lines else 0
    for folder in (args.old, args.new):
        if not folder.is_dir():
            parser.error(f"{folder} is not a folder")
    report = compare(args.old, args.new, args.rtol, args.atol, ignore)
    if not report:
        print(f"no CSV files under {args.old} or {args.new}")
        return 1
    differ = {name: lines for name, lines in report.items() if lines}
    for name in report:
        print(f"{'DIFFERS' if name in differ else 'same   '}  {name}")
        for line in differ.get(name, []):
            print(f"           {line}")
    print(f"{len(report) - len(differ)} of {len(report)} tables identical "
          f"(rtol {args.rtol:g}, atol {args.atol:g}; ignored columns matching /{ignore}/)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
