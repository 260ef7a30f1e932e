"""A chapter's results in words: each row's number, its reference and its status, as the result
box at the top of a chapter states them."""

from __future__ import annotations

import pandas as pd

from .numbers import as_number, escape, fmt, missing, places, prose
from .verdicts import NOT_MEASURED, STATUSES, Z_MAX, reference

#: findings named on the first screen of a result box; the rest are one click away
BOX_FIRST = 5


def row_places(row: dict) -> int | None:
    """Decimals for a row's numbers: enough that its interval, the paper's value and the
    tolerance can be told apart (None: each number keeps its own significant figures)."""
    lo, hi, head = row.get("ci_low"), row.get("ci_high"), row.get("headline")
    width = None if missing(lo) or missing(hi) else float(hi) - float(lo)
    dec = places(width, row.get("tolerance"))
    if dec is None or missing(head):
        return dec
    # the estimate's own three figures, but at most one place beyond what its interval shows
    return max(dec, min(places(head, digits=3) or 0, dec + 1))


def measured(row: dict) -> str:
    """A row's number in words, ``headline [low, high]``; "" when it has none."""
    dec = row_places(row)
    lo, hi, head = row.get("ci_low"), row.get("ci_high"), row.get("headline")
    parts = [] if missing(head) else [fmt(head, places=dec)]
    if not (missing(lo) or missing(hi)):
        parts.append(f"[{fmt(lo, places=dec)}, {fmt(hi, places=dec)}]")
    return " ".join(parts)


def tally(statuses, order=STATUSES) -> str:
    """``"3 reproduced, 1 differs, 2 not run"``: how many rows have each status, in ``order``
    (statuses outside it last)."""
    counts = pd.Series(list(statuses), dtype=object).value_counts()
    named = [s for s in order if s in counts] + [s for s in counts.index if s not in order]
    return ", ".join(f"{int(counts[s]):,} {s}" for s in named)


def status_line(row: dict, short: bool = False) -> str:
    """A row's status as the page shows it: the status, and the stand-in it was obtained on
    (``"reproduced, on a stand-in: a simulated tree"``); ``short`` names no stand-in, only that
    there was one, for the box's first screen."""
    stand = "" if missing(row.get("stand_in")) else " ".join(str(row["stand_in"]).split())
    if stand and short:
        return str(row.get("status", "")) + ", on a stand-in"
    return str(row.get("status", "")) + (f", on a stand-in: {stand}" if stand else "")


def box_line(row: dict) -> str:
    """One result in words, as the box at the top of a chapter states it."""
    text = (f"* **{prose(row['result'])}: {escape(status_line(row))}.** "
            f"{prose(row['statement'])}")
    text = text.rstrip(".") + "."
    number = measured(row)
    what, value = reference(row)
    if number:
        text += f" This build: {number}" + ("" if missing(row.get("ci_low")) else
                                             " (95% interval)")
        if value is not None:
            text += f"; {prose(what)}: {fmt(value, places=row_places(row))}"
        text += "."
    elif value is not None and row.get("status") not in NOT_MEASURED:
        text += f" {prose(what)[0].upper() + prose(what)[1:]}: {fmt(value)}."
    z = as_number(row.get("check_max_z"))
    if z is not None:
        text += (f" Check: largest \\|z\\| {fmt(z, places=1)}, "
                 + (f"below {fmt(Z_MAX)}: it passes." if z < Z_MAX else
                    f"not below {fmt(Z_MAX)}: it fails."))
    if not missing(row.get("tolerance")):
        reason = escape(row.get("tolerance_reason"))
        text += f" Tolerance {fmt(row['tolerance'])}" + (f" ({reason})." if reason else ".")
    return text


def find(rows, start: str) -> dict | None:
    """The first row whose result starts with ``start`` (None when there is none)."""
    return next((r for r in rows if str(r.get("result", "")).startswith(start)), None)
