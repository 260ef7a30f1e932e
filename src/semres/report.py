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
import os
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

from semres.core import book, plotting, profiles
from semres.core.fits import MISFIT_P
from semres.core.plotting import legible
from semres.core.profiles import deviations as _protocol_deviations
from semres.core.seeds import seeds

#: a Monte Carlo cell further than this many standard errors from its closed form fails a check
Z_MAX = 5.0
SUMMARY_COLUMNS = ("chapter", "result", "statement", "kind", "status", "stand_in",
                   "paper_value", "compared_with", "compared_with_label", "check_max_z",
                   "headline", "ci_low", "ci_high", "tolerance", "tolerance_reason",
                   "detectable")
FRONT_COLUMNS = ("chapter", "system", "p_i", "p_s", "se_i", "se_s")
#: the book's one status vocabulary: every status a result row can have, with what it means.
#: :func:`status` is the only place that assigns them; the glance page lists them from here.
VOCABULARY = {
    "reproduced": "a claim the paper makes holds here: its criterion passes (a derivation, a "
                  "Monte Carlo check within five standard errors of the closed form, a measured "
                  "effect whose 95% interval lies on the claimed side), or its interval lies "
                  "within the stated tolerance of a value computed here from the paper's law",
    "agrees within tolerance": "the 95% interval lies within the stated tolerance of a number "
                               "the paper gives (the row names the tolerance and its reason)",
    "holds": "a result beyond the paper, so there is nothing to reproduce: its criterion "
             "passes, or its interval lies within the tolerance of (or on the claimed side of) "
             "the value it is compared with",
    "differs": "against a number the paper gives, and only then: the criterion fails, or the "
               "95% interval clears the paper's value by more than the tolerance",
    "does not hold": "a claim with no number of the paper to compare (a qualitative claim of "
                     "the paper, or a result beyond it) that the data contradict: the criterion "
                     "fails, or the interval clears the compared value by more than the "
                     "tolerance, or lies on the other side of it",
    "inconclusive": "the 95% interval straddles the edge of the tolerance (or the compared "
                    "value): this build cannot decide",
    "not identified": "the data do not determine the quantity (its likelihood set is unbounded "
                      "or reaches the edge of what the design can resolve), so no number is "
                      "reported",
    "misfit": "the fit behind the row fails its goodness-of-fit test (p < 0.001, or, for a "
              "bootstrap p-value too coarse for that rule, p at its smallest possible value "
              "1/(B + 1)): the model does not describe the data, so its numbers are no "
              "measurement",
    "does not do the task": "the model fails its competence gate (it does not do the task "
                            "above chance), so its answers are not analysed further",
    "met": "a precondition of the findings holds (a model does the task above chance): shown "
           "beside the findings it allows, never counted among them",
    "check": "true by construction (an identity, a bound proved and computed by the same code, "
             "or a number checked by the quantity it asserts): it tests the code, not the "
             "claim, and is shown apart from the findings",
    "check failed": "a check that holds by construction does not: a defect in the code",
    "not run": "nothing was measured in this build (the chapter, or the model or data the "
               "result needs, was not part of it)",
}
STATUSES = tuple(VOCABULARY)
#: statuses of rows that measured nothing: their reference is not shown as a comparison
NOT_MEASURED = ("not identified", "misfit", "does not do the task", "not run")
#: a row is a finding (a claim the data could contradict), a check (true by construction) or
#: a precondition (a gate that decides whether a finding is measured: never a finding itself)
KINDS = ("finding", "check", "precondition")
#: the significance policy, one for the book. A theory's prediction (or a claimed effect) is
#: rejected at ALPHA; a descriptive fit is a misfit below MISFIT_P (stricter: the fit is a
#: summary, not the claim); a chapter's family of tests of one claim is corrected by Holm's
#: step-down method (:func:`holm`).
ALPHA = 0.05
#: power asked of a test that finds "no difference": the smallest deviation it detects with
#: this probability at ALPHA (two-sided) is reported beside every row that holds
POWER = 0.8
POLICY = (f"A theory's prediction, or a claimed effect, is rejected when its test gives p < "
          f"{ALPHA:g}; a descriptive fit (a kernel, a ball measure) is a misfit only below "
          f"p = {MISFIT_P:g}, because it summarises data rather than claims anything; where a "
          "chapter tests one claim many times, the p-values are adjusted by Holm's step-down "
          "method before they are read. A row that holds, is reproduced or agrees within "
          f"tolerance reports the smallest deviation its test detects with probability "
          f"{POWER:g} (at {ALPHA:g}, two-sided): (z₀.₉₇₅ + z₀.₈) standard errors. Gates that decide "
          "whether a finding is measured (a competence gate) are preconditions: they are shown "
          "beside the findings and never counted among them, and what a failed gate blocks is "
          "one row marked not run, with the reason")
#: the tolerance reason a row gets when no tolerance applies, by what decided its status
NO_TOLERANCE = {
    "z": f"none: a Monte Carlo check, passed when every cell lies within {Z_MAX:g} standard "
         "errors of its closed form",
    "passed": "none: a yes-or-no criterion, stated in the row",
    "direction": "none: a one-sided claim, decided by whether the 95% interval excludes the "
                 "compared value",
    "nothing": "none: no number is measured",
}
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


def _check_tolerance(tolerance) -> float | None:
    if tolerance is None:
        return None
    tol = _number(tolerance)
    if tol is None or tol < 0:
        raise ValueError(f"tolerance must be a finite number >= 0; got {tolerance!r}")
    return tol


def _compare(lo: float, hi: float, ref: float, tol: float | None, direction: str | None) -> str:
    """"pass", "fail" or "unsure": an interval against a reference, two-sided within ``tol``
    or one-sided (``direction``: the claim is that the value lies above/below ref + tol)."""
    tol = 0.0 if tol is None else tol
    if direction == "above":
        return "pass" if lo > ref + tol else "fail" if hi < ref + tol else "unsure"
    if direction == "below":
        return "pass" if hi < ref - tol else "fail" if lo > ref - tol else "unsure"
    if lo > ref + tol or hi < ref - tol:
        return "fail"
    return "pass" if ref - tol <= lo and hi <= ref + tol else "unsure"


def status(*, passed: bool | None = None, check_max_z: float | None = None,
           headline: float | None = None, ci=None, paper_value: float | None = None,
           compared_with: float | None = None, tolerance: float | None = None,
           direction: str | None = None, misfit: bool = False, new: bool = False,
           kind: str = "finding", identified: bool = True, does_task: bool = True,
           detectable: float | None = None, matters: float | None = None) -> str:
    """A row's status, from its numbers: one of :data:`VOCABULARY`, by these rules.

    1. ``kind="check"`` (true by construction): ``check`` when its criterion (``passed``, and
       ``check_max_z`` below :data:`Z_MAX`) holds, ``check failed`` otherwise.
       ``kind="precondition"`` (a gate that decides whether a finding is measured): ``met``
       when ``passed``, else ``does not do the task`` (or ``not identified``); never a finding.
    2. A finding whose fit fails its goodness-of-fit test is ``misfit``; a model that fails its
       competence gate (``does_task=False``) is ``does not do the task``; a quantity the data do
       not determine (``identified=False``) is ``not identified``. None of them is a measurement.
    3. Otherwise every criterion is judged: ``passed``; ``check_max_z`` below :data:`Z_MAX`;
       and the 95% interval ``ci`` against the reference (``paper_value``, a number the paper
       gives, or ``compared_with``, any other reference), two-sided within ``tolerance`` or,
       with ``direction`` ("above"/"below"), one-sided: the interval must lie on that side.
       Any criterion failing gives ``differs`` against a paper value and ``does not hold``
       without one; an interval straddling the edge gives ``inconclusive``; all passing give
       ``agrees within tolerance`` (an interval within the tolerance of the paper's value),
       ``holds`` (a result beyond the paper, ``new=True``) or ``reproduced``; but a row whose
       test could not have detected the deviation that ``matters`` (its ``detectable``, the
       smallest deviation found with 80 % power, is larger or unknown) is ``inconclusive``.
    4. Nothing to judge: ``not run``.

    Bad arguments raise ValueError naming them: a negative tolerance, an unknown kind or
    direction, both references at once, or an interval and a reference with neither a
    tolerance nor a direction to compare them by.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    if direction not in (None, "above", "below"):
        raise ValueError(f"direction must be None, 'above' or 'below'; got {direction!r}")
    tol = _check_tolerance(tolerance)
    if paper_value is not None and compared_with is not None:
        raise ValueError("paper_value and compared_with: give one reference, not both "
                         "(paper_value only for a number the paper gives)")
    outcomes = []
    if passed is not None:
        outcomes.append("pass" if bool(passed) else "fail")
    if check_max_z is not None and np.isfinite(check_max_z):
        outcomes.append("pass" if float(check_max_z) < Z_MAX else "fail")
    if kind == "check":
        if not outcomes:
            raise ValueError("passed: a check needs a criterion (passed or check_max_z)")
        return "check" if all(o == "pass" for o in outcomes) else "check failed"
    if kind == "precondition":
        if passed is None:
            raise ValueError("passed: a precondition needs its criterion")
        if bool(passed) and does_task and identified:
            return "met"
        return "not identified" if does_task and not identified else "does not do the task"
    if misfit:
        return "misfit"
    if not does_task:
        return "does not do the task"
    if not identified:
        return "not identified"
    ref = paper_value if paper_value is not None else compared_with
    lo, hi = (math.nan, math.nan) if ci is None else map(_float, ci)
    interval = bool(np.isfinite(lo) and np.isfinite(hi))
    compared = False
    if ref is not None and interval:
        if tol is None and direction is None:
            if not outcomes:
                raise ValueError("tolerance: an interval compared with a reference needs a "
                                 "tolerance (0 for an exact claim) or a direction")
        else:
            outcomes.append(_compare(lo, hi, float(ref), tol, direction))
            compared = direction is None
    if not outcomes:
        return "not run"
    if "fail" in outcomes:
        return "differs" if paper_value is not None else "does not hold"
    if "unsure" in outcomes:
        return "inconclusive"
    if matters is not None and not (_number(detectable) is not None
                                    and _number(detectable) <= float(matters)):
        return "inconclusive"  # "not rejected" by a test that could not see what matters
    if paper_value is not None and (compared or tol is not None):
        return "agrees within tolerance"  # a tolerance applied to a number the paper gives
    return "holds" if new else "reproduced"


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (the same order back): the k-th
    smallest is multiplied by m - k + 1, and no adjusted value falls below an earlier one.
    It controls the chance of any false rejection in the family at the stated level."""
    p = np.asarray(pvalues, float)
    if p.ndim != 1 or not np.isfinite(p).all() or ((p < 0) | (p > 1)).any():
        raise ValueError("pvalues must be a list of numbers in [0, 1]")
    order = np.argsort(p)
    m = len(p)
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adjusted
    return out


def detectable_at(se: float, power: float = POWER, alpha: float = ALPHA) -> float:
    """The smallest deviation a test with standard error ``se`` detects with probability
    ``power`` at level ``alpha`` (two-sided): (z_(1 - alpha/2) + z_power) standard errors."""
    from scipy.stats import norm

    return float((norm.ppf(1 - alpha / 2) + norm.ppf(power)) * float(se))


def smallest_detectable(ci, power: float = POWER, alpha: float = ALPHA) -> float:
    """:func:`detectable_at` for a test whose 95 % interval is ``ci`` (its standard error read
    off the interval); NaN without an interval."""
    from scipy.stats import norm

    lo, hi = (math.nan, math.nan) if ci is None else map(_float, ci)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return math.nan
    return detectable_at((hi - lo) / (2 * norm.ppf(0.975)), power, alpha)


def counted(rows) -> list:
    """The rows a tally counts: findings that measured something (preconditions, checks and
    results not run are shown, never counted)."""
    return [r for r in rows if r.get("kind", "finding") == "finding"
            and r.get("status") != "not run"]


def reference(row: dict) -> tuple[str, float | str | None]:
    """What a row is compared with, in words, and the number: ``("the paper", value)`` for a
    number the paper gives, ``("compared with <label>", value)`` for any other reference, and
    ``("", None)`` for none."""
    paper = row.get("paper_value")
    if not _missing(paper) and str(paper).strip():
        return "the paper", _number(paper) if _number(paper) is not None else str(paper)
    other = _number(row.get("compared_with"))
    if other is not None:
        label = "" if _missing(row.get("compared_with_label")) else \
            " ".join(str(row.get("compared_with_label")).split())
        return ("compared with " + label).strip(), other
    return "", None


def status_line(row: dict, short: bool = False) -> str:
    """A row's status as the page shows it: the status, and the stand-in it was obtained on
    (``"reproduced, on a stand-in: a simulated tree"``); ``short`` names no stand-in, only that
    there was one, for the box's first screen."""
    stand = "" if _missing(row.get("stand_in")) else " ".join(str(row["stand_in"]).split())
    if stand and short:
        return str(row.get("status", "")) + ", on a stand-in"
    return str(row.get("status", "")) + (f", on a stand-in: {stand}" if stand else "")


#: findings named on the first screen of a result box; the rest are one click away
BOX_FIRST = 5
#: statuses that say a claim held, and those that say it did not
GOOD = ("reproduced", "agrees within tolerance", "holds", "check")
BAD = ("differs", "does not hold", "check failed")


def outcome(rows) -> str:
    """A chapter's outcome for the colour of its box: "good" when every row held, "bad" when
    none held and some failed, "mixed" otherwise (rows that measured nothing count as neither
    held nor failed)."""
    statuses = [r.get("status") for r in rows]
    if statuses and all(s in GOOD for s in statuses):
        return "good"
    if any(s in BAD for s in statuses) and not any(s in GOOD for s in statuses):
        return "bad"
    return "mixed"


def mathify(text: str) -> str:
    """p_S, p_I, p_S^n and 1/n written as text become typeset math in MyST."""
    import re

    text = re.sub(r"\bp\\?_([SI])(?:\^n)?\b", lambda m: f"${m.group(0).replace(chr(92), '')}$",
                  text)
    return re.sub(r"(?<![\w/])1/n\b", "$1/n$", text)


def box_line(row: dict) -> str:
    """One result in words, as the box at the top of a chapter states it."""
    text = (f"* **{mathify(escape(row['result']))}: {escape(status_line(row))}.** "
            f"{mathify(escape(row['statement']))}")
    text = text.rstrip(".") + "."
    number = measured(row)
    what, value = reference(row)
    if number:
        text += f" This build: {number}" + ("" if _missing(row.get("ci_low")) else
                                             " (95% interval)")
        if value is not None:
            text += f"; {escape(what)}: {fmt(value, places=row_places(row))}"
        text += "."
    elif value is not None and row.get("status") not in NOT_MEASURED:
        text += f" {escape(what)[0].upper() + escape(what)[1:]}: {fmt(value)}."
    z = _number(row.get("check_max_z"))
    if z is not None:
        text += (f" Check: largest \\|z\\| {fmt(z, places=1)}, "
                 + (f"below {fmt(Z_MAX)}: it passes." if z < Z_MAX else
                    f"not below {fmt(Z_MAX)}: it fails."))
    if not _missing(row.get("tolerance")):
        reason = escape(row.get("tolerance_reason"))
        text += f" Tolerance {fmt(row['tolerance'])}" + (f" ({reason})." if reason else ".")
    return text


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

    def numbers(self, values: dict, small=()) -> None:
        """Glue what a chapter module computed for the prose: sentences as MyST, numbers as
        numbers, and the keys named in ``small`` as :meth:`small` writes them."""
        for key, value in values.items():
            if isinstance(value, str):
                self.text(key, value, markdown=True)
            elif key in small:
                self.small(key, value)
            else:
                self.number(key, value)

    def small(self, name: str, value) -> None:
        """Glue a number that may lie far below 10⁻³ (a rounding gap, a tolerance) as prose
        writes it, "4.4 × 10⁻¹⁶" (``{glue:text}`` without a format): never e-notation."""
        self.text(name, fmt(value, 2))

    def text(self, name: str, value: str, markdown: bool = False) -> None:
        """Glue a sentence: plain text for ``{glue:text}``, or MyST for ``{glue:md}``."""
        if markdown:
            from IPython.display import Markdown

            self._glue(name, Markdown(value))
        else:
            self._glue(name, str(value))

    def figure(self, name: str, fig) -> None:
        """Glue a figure under ``ch<N>-fig-<name>`` and close it, first made
        :func:`~semres.core.plotting.legible` so that it reads at desktop and phone widths."""
        import matplotlib.pyplot as plt

        from myst_nb import glue

        glue(f"ch{int(self.chapter[:2])}-fig-{name}", legible(fig), display=False)
        plt.close(fig)

    def table(self, df: pd.DataFrame, name: str):
        """Save a tidy table beside the executed chapter (``<results>/<chapter>/<name>.csv``)."""
        return book.save_table(df, self.chapter, name)

    # ------------------------------------------------------------------ rows
    def result(self, result: str, statement: str, *, headline=None, ci=None, paper_value=None,
               compared_with=None, compared_with_label: str = "", check_max_z=None,
               passed: bool | None = None, direction: str | None = None,
               tolerance: float | None = None, tolerance_reason: str = "",
               misfit: bool = False, new: bool = False, kind: str = "finding",
               stand_in: str = "", identified: bool = True, does_task: bool = True,
               detectable: float | None = None, matters: float | None = None) -> str:
        """One overview row; its status is computed by :func:`status` (see there for the
        rules). Returns the status.

        A row that holds, is reproduced or agrees within tolerance records the smallest
        deviation its test detects (``detectable``; by default read off its interval by
             :func:`smallest_detectable`), so that "holds" never means only "not rejected".

        ``paper_value`` holds only a number the paper gives; any other reference (a value
        derived or computed here, the constant kernel's front, 0 for "no effect") goes in
        ``compared_with``, named by ``compared_with_label``. ``new=True`` marks a result beyond
        the paper (``holds`` rather than ``reproduced``), ``kind="check"`` one that is true by
        construction (shown apart from the findings). ``stand_in`` names what stands in for
        the paper's system ("a simulated tree", "a small VLM trained here"); the status line
        says so. ``identified=False`` and ``does_task=False`` say the data determine nothing or
        the model fails its competence gate. A ``tolerance`` needs its ``tolerance_reason``;
        without one the row records why none applies.
        """
        if not isinstance(result, str) or not result.strip():
            raise ValueError("result must name the result")
        lo, hi = (None, None) if ci is None else ci
        detectable = smallest_detectable(ci) if detectable is None else detectable
        row_status = status(passed=passed, check_max_z=check_max_z, headline=headline, ci=ci,
                            paper_value=paper_value, compared_with=compared_with,
                            tolerance=tolerance, direction=direction, misfit=misfit, new=new,
                            kind=kind, identified=identified, does_task=does_task,
                            detectable=detectable, matters=matters)
        if tolerance is not None and not str(tolerance_reason).strip():
            raise ValueError("tolerance_reason: a tolerance needs its reason")
        if compared_with is not None and not str(compared_with_label).strip():
            raise ValueError("compared_with_label: say what the compared value is")
        if tolerance is None and not str(tolerance_reason).strip():
            tolerance_reason = (
                NO_TOLERANCE["nothing"] if row_status in NOT_MEASURED
                else NO_TOLERANCE["direction"] if direction is not None
                else NO_TOLERANCE["z"] if passed is None and check_max_z is not None
                else NO_TOLERANCE["passed"])
        self.rows.append({"chapter": self.chapter, "result": result, "statement": statement,
                          "kind": kind, "status": row_status, "stand_in": stand_in or "",
                          "paper_value": _float(paper_value),
                          "compared_with": _float(compared_with),
                          "compared_with_label": compared_with_label if compared_with is not None
                          else "",
                          "check_max_z": _float(check_max_z), "headline": _float(headline),
                          "ci_low": _float(lo), "ci_high": _float(hi),
                          "tolerance": _float(tolerance), "tolerance_reason": tolerance_reason,
                          "detectable": _float(detectable)
                          if row_status in GOOD and kind == "finding" else math.nan})
        return row_status

    def not_run(self, result: str, statement: str, *, headline=None, stand_in: str = "") -> str:
        """A result this build could not measure (too few runs, no data): said, not guessed."""
        self.rows.append({"chapter": self.chapter, "result": result, "statement": statement,
                          "kind": "finding", "status": "not run", "stand_in": stand_in or "",
                          "headline": _float(headline),
                          "tolerance_reason": NO_TOLERANCE["nothing"]})
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

    def box(self, ran: str, *notes: str, lead: str = "") -> None:
        """The chapter's result, for the box at the top of its page: one phone screen with the
        count of the statuses and the first findings by name and status, then, one click away,
        every finding with its number in words, the checks apart, ``notes`` and what ran.
        ``lead``, one or two plain sentences of what came out, opens the box, before the count.

        The box takes its colour from the outcome (:func:`outcome`). Glued as
        ``ch<N>_result_box`` (MyST, for a ``{glue:md}`` block); call it after the last
        ``result``. Returns nothing, so that a cell ending with it prints nothing.
        """
        if not str(ran).strip():
            raise ValueError("ran must say what ran in this build (the models, the profile)")
        findings = counted(self.rows)
        checks = [r for r in self.rows if r.get("kind", "finding") == "check"]
        gates = [r for r in self.rows if r.get("kind") == "precondition"]
        blocked = [r for r in self.rows if r.get("kind", "finding") == "finding"
                   and r.get("status") == "not run"]
        head = []
        if findings:
            head.append(f"{plural(len(findings), 'finding')}: "
                        f"{tally(r['status'] for r in findings)}")
        if checks:
            head.append(f"{plural(len(checks), 'check')} (true by construction): "
                        f"{tally(r['status'] for r in checks)}")
        mark = f'<span class="semres-outcome semres-outcome-{outcome(findings + checks)}"></span>'
        tally_line = (f"**In this build, {'; '.join(head)}.**" if head else
                      "**This chapter reports no result in this build.**")
        lead = " ".join(str(lead).split())
        lines = [mark + lead, "", tally_line, ""] if lead else [mark + tally_line, ""]
        first = BOX_FIRST - 2 if lead else BOX_FIRST  # the lead takes a phone screen's lines
        lines += [f"* {mathify(escape(r['result']))}: *{escape(status_line(r, short=True))}*"
                  for r in findings[:first]]
        if len(findings) > first:
            lines.append(f"* … and {plural(len(findings) - first, 'more finding')}, below")
        aside = [f"{plural(len(gates), 'precondition')} ({tally(r['status'] for r in gates)})"
                 ] if gates else []
        aside += [f"{len(blocked)} not run"] if blocked else []
        if aside:
            lines.append(f"* *Not counted:* {', '.join(aside)}")
        lines += ["", ":::{dropdown} Every result, with its numbers, and what ran"]
        lines += [box_line(row) for row in findings]
        if gates:
            lines.append("* *Preconditions (they decide whether a finding is measured; not "
                         "counted):*")
            lines += ["  " + box_line(row) for row in gates]
        if blocked:
            lines.append("* *Not run in this build (not counted):*")
            lines += ["  " + box_line(row) for row in blocked]
        if checks:
            lines.append("* *Checks, true by construction (they test the code, not a claim):*")
            lines += ["  " + box_line(row) for row in checks]
        lines += [f"* {note}" for note in notes if note]
        lines.append(f"* **What ran.** {str(ran).strip()}")
        lines.append(":::")
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


class Opening(NamedTuple):
    """What every chapter opens with: its settings, its report, its named random streams and
    its cache of heavy results."""

    cfg: dict
    report: Report
    stream: Callable
    cache: object


def open_chapter(spec: profiles.Settings, profile: str, seed: int, **parameters) -> Opening:
    """One call at the top of every chapter: the book's figure style, the chapter's settings
    (``spec``, its experiment's ``SETTINGS``) for ``profile`` with the reader's ``parameters``
    applied and checked, a :class:`Report` of ``spec.chapter``, the
    named random streams of ``seed`` (:func:`semres.core.seeds.seeds`) and the cache
    (:func:`semres.core.book.cache`). Model weights are read from disk only (``HF_HUB_OFFLINE``)
    unless the reader set it otherwise."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    plotting.use_style()
    return Opening(profiles.settings(spec, profile, **parameters), Report(spec.chapter),
                   seeds(seed), book.cache())
