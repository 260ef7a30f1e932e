"""One reporting object per chapter: summary rows, glued numbers, deviations, tables.

Every chapter ends the same way: one row per result for the book's overview page, with a status
computed from the numbers; the points it measured on the (p_I, p_S) plane; how this build
differs from the paper's protocol; and numbers glued into its prose. Written by hand in each
chapter, those drift apart (one chapter's status rule, another's padding). Here the rule and the
columns live once, so changing either changes every chapter.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from . import book
from .profiles import deviations as _protocol_deviations

#: a Monte Carlo cell further than this many standard errors from its closed form fails a check
Z_MAX = 5.0
SUMMARY_COLUMNS = ("chapter", "result", "statement", "paper_value", "check_max_z", "headline",
                   "ci_low", "ci_high", "tolerance", "tolerance_reason", "status")
FRONT_COLUMNS = ("chapter", "system", "p_i", "p_s", "se_i", "se_s")
#: ``reproduced``/``differs`` for a pass-fail criterion; the three after it compare an interval
#: with the paper's value within a tolerance
STATUSES = ("reproduced", "differs", "agrees within tolerance", "inconclusive", "misfit",
            "not run")
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _float(value) -> float:
    return math.nan if value is None else float(value)


def _missing(value) -> bool:
    try:
        return value is None or math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _number(value) -> float | None:
    """``value`` as a finite float, or None (a blank, text, an infinity)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def fmt(value, digits: int = 3, places: int | None = None) -> str:
    """A number as a reader writes it: ``digits`` significant figures (or ``places`` decimals),
    thousands separated, no exponent between 10^-3 and 10^6; "—" for a blank; text as it is."""
    if _missing(value):
        return "—"
    x = _number(value)
    if x is None:
        return " ".join(str(value).split()).replace("inf", "∞") or "—"
    if x == int(x) and abs(x) < 1e6 and places is None:
        return f"{int(x):,}"
    if x != 0 and not 1e-3 <= abs(x) < 1e6:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"
    if places is None:
        places = max(0, digits - 1 - math.floor(math.log10(abs(x)))) if x else 0
        return f"{x:,.{places}f}".rstrip("0").rstrip(".") if places else f"{x:,.0f}"
    return f"{x:,.{places}f}"


def places(*gaps: float, digits: int = 2, most: int = 6) -> int | None:
    """Decimals that show the smallest positive gap (an interval's width, a tolerance) to
    ``digits`` significant figures, so a reader can see why a status is what it is."""
    gaps = [abs(g) for g in map(_number, gaps) if g]
    if not gaps:
        return None
    return int(min(most, max(0, digits - 1 - math.floor(math.log10(min(gaps))))))


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 result"``, ``"3 results"``; ``many`` for an irregular plural."""
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"


def escape(text) -> str:
    """Text for MyST markdown, shown as written: ``<b>`` is a mean here, not an HTML tag."""
    text = "" if _missing(text) else " ".join(str(text).split())
    for char in "\\|<>*`$":
        text = text.replace(char, "\\" + char)
    return text


def row_places(row: dict) -> int | None:
    """Decimals for a row's numbers: enough that its interval, the paper's value and the
    tolerance can be told apart (None: each number keeps its own significant figures)."""
    lo, hi, head = row.get("ci_low"), row.get("ci_high"), row.get("headline")
    width = None if _missing(lo) or _missing(hi) else float(hi) - float(lo)
    dec = places(width, row.get("tolerance"))
    if dec is None or _missing(head):
        return dec
    return max(dec, places(head, digits=3) or 0)


def measured(row: dict) -> str:
    """A row's number in words, ``headline [low, high]``; "" when it has none."""
    dec = row_places(row)
    lo, hi, head = row.get("ci_low"), row.get("ci_high"), row.get("headline")
    parts = [] if _missing(head) else [fmt(head, places=dec)]
    if not (_missing(lo) or _missing(hi)):
        parts.append(f"[{fmt(lo, places=dec)}, {fmt(hi, places=dec)}]")
    return " ".join(parts)


def tally(statuses, order=STATUSES) -> str:
    """``"3 reproduced, 1 differs, 2 not run"``: how many rows have each status, in ``order``
    (statuses outside it last)."""
    counts = pd.Series(list(statuses), dtype=object).value_counts()
    named = [s for s in order if s in counts] + [s for s in counts.index if s not in order]
    return ", ".join(f"{int(counts[s]):,} {s}" for s in named)


def status(*, passed: bool | None = None, check_max_z: float | None = None,
           headline: float | None = None, ci=None, paper_value: float | None = None,
           tolerance: float | None = None, misfit: bool = False) -> str:
    """A row's status, from its numbers.

    A pass-fail criterion (``passed``, and a Monte Carlo check within :data:`Z_MAX` standard
    errors) gives ``reproduced`` or ``differs``. A measurement with an interval and the paper's
    value gives ``differs`` only when the interval clears the paper's value by more than the
    tolerance, ``agrees within tolerance`` when it lies within the tolerance of it, and
    ``inconclusive`` otherwise. Nothing measured is ``not run``. A row whose fit fails its
    goodness-of-fit test is ``misfit`` whatever its numbers: it is not a measurement.
    """
    if misfit:
        return "misfit"
    checks = []
    if passed is not None:
        checks.append(bool(passed))
    if check_max_z is not None and np.isfinite(check_max_z):
        checks.append(float(check_max_z) < Z_MAX)
    if checks:
        return "reproduced" if all(checks) else "differs"
    lo, hi = (math.nan, math.nan) if ci is None else map(_float, ci)
    if tolerance is None or paper_value is None or not (np.isfinite(lo) and np.isfinite(hi)):
        return "not run"
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0; got {tolerance!r}")
    if lo > paper_value + tolerance or hi < paper_value - tolerance:
        return "differs"
    if paper_value - tolerance <= lo and hi <= paper_value + tolerance:
        return "agrees within tolerance"
    return "inconclusive"


def reference(row: dict) -> str:
    """What a row's ``paper_value`` is: the paper's number, or, for a result beyond the paper
    (named "(new)"), the value it is compared with."""
    return "compared with" if "(new)" in str(row.get("result", "")) else "the paper"


class Report:
    """What one chapter reports: ``result`` rows, front ``point``\\ s, ``deviations``, numbers.

    ``number``/``text``/``figure`` glue under the chapter's prefix (``ch3_``), so a chapter
    writes ``report.number("peak_ps", x)`` and its prose ``{glue:text}`ch3_peak_ps:.3f```.
    ``save`` writes ``summary.csv`` and ``front.csv`` and glues the deviations list.
    """

    def __init__(self, chapter: str):
        if not (isinstance(chapter, str) and chapter[:2].isdigit()):
            raise ValueError(f"chapter must be a chapter name like '03_toy_relu'; got {chapter!r}")
        self.chapter = chapter
        self.prefix = f"ch{int(chapter[:2])}_"
        self.rows: list[dict] = []
        self.points: list[dict] = []
        self.deviation_lines: list[str] = []

    # ------------------------------------------------------------------ glue
    def _glue(self, name: str, value, display: bool = False):
        from myst_nb import glue

        glue(self.prefix + name if not name.startswith(self.prefix) else name, value,
             display=display)

    def number(self, name: str, value) -> None:
        """Glue ``value`` as a plain Python number (numpy scalars break the strict build).

        Returns nothing, so that a call ending a cell prints nothing on the page."""
        if isinstance(value, (bool, np.bool_)):
            plain = bool(value)
        elif isinstance(value, numbers.Integral):
            plain = int(value)
        else:
            plain = float(value)
        self._glue(name, plain)

    def text(self, name: str, value: str, markdown: bool = False) -> None:
        """Glue a sentence: plain text for ``{glue:text}``, or MyST for ``{glue:md}``."""
        if markdown:
            from IPython.display import Markdown

            self._glue(name, Markdown(value))
        else:
            self._glue(name, str(value))

    def figure(self, name: str, fig) -> None:
        """Glue a figure under ``ch<N>-fig-<name>`` and close it, first made
        :func:`~semres.plotting.legible` so that it reads at desktop and phone widths."""
        import matplotlib.pyplot as plt

        from myst_nb import glue

        from .plotting import legible

        glue(f"ch{int(self.chapter[:2])}-fig-{name}", legible(fig), display=False)
        plt.close(fig)

    def table(self, df: pd.DataFrame, name: str):
        """Save a tidy table beside the executed chapter (``<results>/<chapter>/<name>.csv``)."""
        return book.save_table(df, self.chapter, name)

    # ------------------------------------------------------------------ rows
    def result(self, result: str, statement: str, *, headline=None, ci=None, paper_value=None,
               check_max_z=None, passed: bool | None = None, tolerance: float | None = None,
               tolerance_reason: str = "", misfit: bool = False) -> str:
        """One overview row; its status is computed by :func:`status`. Returns the status."""
        lo, hi = (None, None) if ci is None else ci
        row_status = status(passed=passed, check_max_z=check_max_z, headline=headline, ci=ci,
                            paper_value=paper_value, tolerance=tolerance, misfit=misfit)
        self.rows.append({"chapter": self.chapter, "result": result, "statement": statement,
                          "paper_value": _float(paper_value), "check_max_z": _float(check_max_z),
                          "headline": _float(headline), "ci_low": _float(lo),
                          "ci_high": _float(hi), "tolerance": _float(tolerance),
                          "tolerance_reason": tolerance_reason, "status": row_status})
        return row_status

    def not_run(self, result: str, statement: str, *, headline=None) -> str:
        """A result this build could not measure (too few runs, no data): said, not guessed."""
        self.rows.append({"chapter": self.chapter, "result": result, "statement": statement,
                          "headline": _float(headline), "status": "not run"})
        return "not run"

    def point(self, system: str, p_i, p_s, se_i=None, se_s=None) -> None:
        """A system measured on the (p_I, p_S) plane, for the overview figure."""
        self.points.append({"chapter": self.chapter, "system": system, "p_i": _float(p_i),
                            "p_s": _float(p_s), "se_i": _float(se_i), "se_s": _float(se_s)})

    def deviations(self, cfg: dict | None = None, paper: dict | None = None, *lines: str):
        """Add how this build differs from the paper: settings against the paper's protocol
        (``paper`` maps a setting to ``(the paper's value, what it is)``), then ``lines``."""
        if cfg is not None and paper:
            self.deviation_lines += _protocol_deviations(cfg, paper)
        self.deviation_lines += [line for line in lines if line]
        return self.deviation_lines

    @property
    def summary(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=list(SUMMARY_COLUMNS))

    def box(self, ran: str, *notes: str) -> None:
        """The chapter's result, for the box at the top of its page: a count of the statuses,
        each result with its status and number in words, ``notes``, and what ran.

        Glued as ``ch<N>_result_box`` (MyST, for a ``{glue:md}`` block); call it after the last
        ``result``. Returns nothing, so that a cell ending with it prints nothing.
        """
        if not str(ran).strip():
            raise ValueError("ran must say what ran in this build (the models, the profile)")
        lines = [f"**Of {plural(len(self.rows), 'result')} in this build: "
                 f"{tally(r['status'] for r in self.rows)}.**" if self.rows else
                 "**This chapter reports no result in this build.**", ""]
        for row in self.rows:
            text = f"* **{escape(row['result'])}: {row['status']}.** {escape(row['statement'])}"
            text = text.rstrip(".") + "."
            number = measured(row)
            if number:
                text += f" This build: {number}" + ("" if _missing(row.get("ci_low")) else
                                                     " (95% interval)")
                if not _missing(row.get("paper_value")):
                    text += (f"; {reference(row)}: "
                             f"{fmt(row['paper_value'], places=row_places(row))}")
                text += "."
            if not _missing(row.get("check_max_z")):
                text += (f" Check: largest \\|z\\| {fmt(row['check_max_z'], places=1)} "
                         f"(it passes below {fmt(Z_MAX)}).")
            if not _missing(row.get("tolerance")):
                reason = escape(row.get("tolerance_reason"))
                text += f" Tolerance {fmt(row['tolerance'])}" + (f" ({reason})." if reason
                                                                 else ".")
            lines.append(text)
        lines += [f"* {note}" for note in notes if note]
        lines.append(f"* **What ran.** {str(ran).strip()}")
        self.text("result_box", "\n".join(lines), markdown=True)

    def save(self) -> None:
        """Write ``summary.csv`` (and ``front.csv``) and glue ``ch<N>_deviations``."""
        table = self.summary
        book.save_table(table, self.chapter, "summary")
        if self.points:
            book.save_table(pd.DataFrame(self.points, columns=list(FRONT_COLUMNS)),
                            self.chapter, "front")
        self.text("deviations", "\n".join(f"* {line}" for line in self.deviation_lines)
                  or "* none", markdown=True)
