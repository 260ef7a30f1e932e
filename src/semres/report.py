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


def _float(value) -> float:
    return math.nan if value is None else float(value)


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
        """Glue a figure under ``ch<N>-fig-<name>`` and close it."""
        import matplotlib.pyplot as plt

        from myst_nb import glue

        glue(f"ch{int(self.chapter[:2])}-fig-{name}", fig, display=False)
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

    def save(self) -> None:
        """Write ``summary.csv`` (and ``front.csv``) and glue ``ch<N>_deviations``."""
        table = self.summary
        book.save_table(table, self.chapter, "summary")
        if self.points:
            book.save_table(pd.DataFrame(self.points, columns=list(FRONT_COLUMNS)),
                            self.chapter, "front")
        self.text("deviations", "\n".join(f"* {line}" for line in self.deviation_lines)
                  or "* none", markdown=True)
