"""A chapter's results in words, as the result box at the top of its page states them."""

from __future__ import annotations

import math
import re

import pandas as pd

from .numbers import as_number, escape, fmt, missing, places, prose, pvalue
from .verdicts import NOT_MEASURED, STATUSES, reference

#: findings named on the first screen of a result box; the rest are one click away
BOX_FIRST = 5
#: lines a result box holds on a 390 px phone screen, and characters per line of its text
#: and of its list items (measured on the rendered book)
BOX_LINES, LINE_CHARS, ITEM_CHARS = 20, 34, 28


def phone_lines(text: str, chars: int = LINE_CHARS) -> int:
    """Lines a paragraph of MyST takes on a phone, roughly."""
    visible = re.sub(r"<[^>]+>|[*$`\\]|\{[a-z]+\}", "", str(text))
    return max(1, math.ceil(len(visible) / chars))


def first_screen(lead: str, fixed: list[str], items: list[str], most: int = BOX_FIRST) -> int:
    """How many of ``items`` fit a box's first phone screen beside its ``lead`` and the
    ``fixed`` lines it always shows (at most ``most``; maybe none when the lead is long)."""
    used = (phone_lines(lead) if lead else 0) + sum(phone_lines(f, ITEM_CHARS) for f in fixed)
    shown = 0
    for item in items[:most]:
        used += phone_lines(item, ITEM_CHARS)
        if used > BOX_LINES:
            break
        shown += 1
    return shown


def row_places(row: dict) -> int | None:
    """Decimals for a row's numbers: enough to tell its interval, reference and margin apart
    (None: each number keeps its own significant figures)."""
    lo, hi, head = row.get("ci_low"), row.get("ci_high"), row.get("headline")
    width = None if missing(lo) or missing(hi) else float(hi) - float(lo)
    dec = places(width, row.get("margin"))
    if dec is None or missing(head):
        return dec
    # the estimate's own three figures, but at most one place beyond what its interval shows
    return max(dec, min(places(head, digits=3) or 0, dec + 1))


def measured(row: dict) -> str:
    """A row's number in words, ``headline [low, high] unit``; "" when it has none or the data
    do not determine it (not identified)."""
    if row.get("status") == "not identified":
        return ""
    dec = row_places(row)
    lo, hi, head = row.get("ci_low"), row.get("ci_high"), row.get("headline")
    parts = [] if missing(head) else [fmt(head, places=dec)]
    if not (missing(lo) or missing(hi)) and fmt(lo, places=dec) != fmt(hi, places=dec):
        parts.append(f"[{fmt(lo, places=dec)}, {fmt(hi, places=dec)}]")  # none for an exact one
    if parts and not missing(row.get("unit")) and str(row.get("unit")).strip():
        parts.append(str(row["unit"]).strip())
    return " ".join(parts)


#: how a chapter's "Methods and checks" page's name ends (semres.pipeline.book.split_methods)
METHODS_PAGE = "_methods"
#: a status's verb agreeing with a count above one ("5 do not hold", "2 hold")
PLURAL = {"holds": "hold", "differs": "differ", "does not hold": "do not hold",
          "does not do the task": "do not do the task"}


def tally(statuses, order=STATUSES) -> str:
    """``"3 reproduced, 2 do not hold, 1 differs"``: rows per status, in ``order`` (others
    last), the verb agreeing with its count."""
    counts = pd.Series(list(statuses), dtype=object).value_counts()
    named = [s for s in order if s in counts] + [s for s in counts.index if s not in order]
    return ", ".join(f"{int(counts[s]):,} {PLURAL.get(s, s) if counts[s] > 1 else s}"
                     for s in named)


def checks_tally(statuses) -> str:
    """Checks counted by whether they pass: "all pass", or "1 check failed, 5 pass"."""
    statuses = [str(s) for s in statuses]
    failed = [s for s in statuses if s != "check"]
    return f"{tally(failed)}, {len(statuses) - len(failed)} pass" if failed else "all pass"


def stand_in(row: dict) -> str:
    """The stand-in a row was obtained on, in one line ("" when none)."""
    return "" if missing(row.get("stand_in")) else " ".join(str(row["stand_in"]).split())


def stand_ins(rows) -> dict[str, str]:
    """Each stand-in among ``rows`` with the name the box calls it by ("the stand-in", or
    "stand-in A", "B", ...): described once, so that rows need not repeat the clause."""
    found = list(dict.fromkeys(s for s in map(stand_in, rows) if s))
    if len(found) == 1:
        return {found[0]: "the stand-in"}
    return {s: f"stand-in {chr(ord('A') + k)}" for k, s in enumerate(found)}


def status_line(row: dict, short: bool = False, names: dict | None = None) -> str:
    """A row's status and the stand-in it was obtained on ("reproduced, on a stand-in: a tree");
    ``short`` only says there was one; ``names`` (:func:`stand_ins`) names it as introduced."""
    stand = stand_in(row)
    status = str(row.get("status", ""))
    if stand and short:
        return status + ", on a stand-in"
    if stand and names and stand in names:
        return status + f", on {names[stand]}"
    return status + (f", on a stand-in: {stand}" if stand else "")


def miss(row: dict) -> str:
    """How far a row lands from its reference, "+0.012 [+0.004, +0.020]" (or "")."""
    dec = row_places(row)
    m, lo, hi = (as_number(row.get(k)) for k in ("miss", "miss_low", "miss_high"))
    if m is None or lo is None or hi is None:
        return ""
    def signed(x):
        return ("+" if x > 0 else "") + fmt(x, places=dec)
    return f"{signed(m)} [{signed(lo)}, {signed(hi)}]"


def fit_size(row: dict) -> str:
    """How far a misfit's model misses its data, in words ("" when the row carries none)."""
    d, null, sat, gap, noise = (as_number(row.get(k)) for k in (
        "dispersion", "explained_null", "explained_saturated", "rms_gap", "rms_sampling"))
    parts = []
    if d is not None:
        parts.append(f"its deviance is {fmt(d, 2)} times what sampling alone leaves")
    if null is not None:
        parts.append(f"it removes {fmt(100 * null, 2)}% of the deviance of no similarity"
                     + ("" if sat is None else
                        f" and {fmt(100 * sat, 2)}% of the structure beyond sampling noise"))
    if gap is not None:
        parts.append(f"its predicted rates miss the observed by {fmt(gap, 2)} "
                     "(root mean square)" + ("" if noise is None else
                                             f", where sampling alone gives {fmt(noise, 2)}"))
    return "; ".join(parts)


def box_line(row: dict, names: dict | None = None, said: set | None = None) -> str:
    """One result in words: a row that does not hold gives its miss, a misfit its size, an
    inconclusive one what its test detects. ``said`` collects the margin reasons given, so
    each is given once."""
    text = (f"* **{prose(row['result'])}: {escape(status_line(row, names=names))}.** "
            f"{prose(row['statement'])}")
    text = text.rstrip(".") + "."
    state = row.get("status")
    margin = as_number(row.get("margin"))
    what, value = reference(row)
    if state in ("differs", "does not hold") and miss(row):
        against = prose(what.removeprefix('compared with ')) or 'its reference'
        if row.get("claim") in ("above", "below"):  # an effect claimed to exist, too small
            text += f" Against {against}: {miss(row)}, short of the margin of {fmt(margin)}."
        else:
            text += f" Misses {against} by {miss(row)}, beyond the margin of {fmt(margin)}."
    if state == "misfit" and fit_size(row):
        text += f" How far the model misses: {fit_size(row)}" + (
            "" if missing(row.get("gof_p")) else f" (goodness of fit {pvalue(row['gof_p'])})") + "."
    number = measured(row)
    if number:
        approx = ", approximate: widened by the dispersion" if str(
            row.get("approximate")) == "True" else ""
        text += f" This build: {number}" + ("" if missing(row.get("ci_low")) else
                                             f" (95% interval{approx})")
        if value is not None and state not in NOT_MEASURED:
            text += f"; {prose(what)}: {fmt(value, places=row_places(row))}"
        text += "."
    elif value is not None and state not in NOT_MEASURED:
        text += f" {prose(what)[0].upper() + prose(what)[1:]}: {fmt(value)}."
    z = as_number(row.get("check_max_z"))
    if z is not None:
        text += f" Largest \\|z\\| of its Monte Carlo cells: {fmt(z, places=2)}."
    if margin is not None:
        reason = "" if missing(row.get("margin_reason")) else str(row["margin_reason"]).strip()
        if said is not None and reason in said:
            reason = "the reason given above"
        elif said is not None:
            said.add(reason)
        text += f" Margin {fmt(margin)}" + (f" ({prose(reason)})." if reason else ".")
    det = as_number(row.get("detectable"))
    if state == "inconclusive" and det is not None:
        text += f" Its test detects a deviation of {fmt(det, 2)} with probability 0.8."
    if not missing(row.get("cells")) and str(row.get("cells")).strip():
        text += f" Cells: {escape(row['cells'])}."
    return text


def details(findings: list, gates: list, blocked: list, checks: list, notes, ran: str
            ) -> list[str]:
    """The lines of the box's dropdown: the stand-ins, every finding with its numbers, the
    preconditions, results not run and checks apart, ``notes``, and what ran."""
    names = stand_ins([*findings, *gates, *blocked, *checks])
    lines = [":::{dropdown} Every result, with its numbers, and what ran"]
    if len(names) == 1:
        (what, _), = names.items()
        lines.append(f"* **The stand-in.** A result that says “on the stand-in” was obtained "
                     f"on {escape(what)}.")
    elif names:
        said = [f"“on {name}”" + (" was obtained on " if k == 0 else ", on ") + escape(what)
                for k, (what, name) in enumerate(names.items())]
        lines.append(f"* **The stand-ins.** A result that says {'; '.join(said)}.")
    said: set = set()
    lines += [box_line(row, names, said) for row in findings]
    for rows, title in ((gates, "Preconditions (they decide whether a finding is measured; "
                                "not counted)"),
                        (blocked, "Not run in this build (not counted)"),
                        (checks, "Checks, true by construction (they test the code, not a "
                                 "claim)")):
        if rows:
            lines.append(f"* *{title}:*")
            lines += ["  " + box_line(row, names, said) for row in rows]
    lines += [f"* {note}" for note in notes if note]
    lines.append(f"* **What ran.** {str(ran).strip()}")
    lines.append(":::")
    return lines


def find(rows, start: str) -> dict | None:
    """The first row whose result starts with ``start`` (or None)."""
    return next((r for r in rows if str(r.get("result", "")).startswith(start)), None)
