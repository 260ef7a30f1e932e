"""One reporting object per chapter: its result rows with their computed statuses, the points it
measured on the (p_I, p_S) plane, its deviations from the paper, and the numbers glued into its
prose; the rule and the columns live here once, so every chapter reports alike."""

from __future__ import annotations

import math
import os
from typing import Callable, NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown
from myst_nb import glue

from semres.core import book, profiles
from semres.core.fits import SIZE_KEYS
from semres.core.profiles import deviations as protocol_deviations
from semres.core.seeds import seeds

from . import plotting
from .box import BOX_FIRST, METHODS_PAGE, checks_tally, details, first_screen, status_line, tally
from .numbers import as_float, escape, fmt, plain_math, plain_outside_math, plural, prose
from .verdicts import (GOOD, NO_MARGIN, NOT_MEASURED, counted, outcome, smallest_detectable,
                       slack, status, weakest, z_check_detectable)

SUMMARY_COLUMNS = ("chapter", "result", "statement", "kind", "status", "stand_in",
                   "paper_value", "compared_with", "compared_with_label", "claim",
                   "check_max_z", "headline", "ci_low", "ci_high", "margin", "margin_reason",
                   "detectable", "miss", "miss_low", "miss_high", "gof_p", *SIZE_KEYS,
                   "approximate", "cells", "unit")
FRONT_COLUMNS = ("chapter", "system", "p_i", "p_s", "se_i", "se_s")


class Report:
    """What one chapter reports; ``number``/``text``/``figure`` glue under its prefix
    (``ch3_peak_ps``), ``save`` writes ``summary.csv`` and ``front.csv``."""

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
        glue(self.prefix + name if not name.startswith(self.prefix) else name, value,
             display=display)

    def number(self, name: str, value) -> None:
        """Glue ``value`` as a plain Python number (numpy scalars break the strict build)."""
        plain = value.item() if isinstance(value, (np.generic, np.ndarray)) else value
        self._glue(name, plain if isinstance(plain, (bool, int)) else float(plain))

    def numbers(self, values: dict, small=()) -> None:
        """Glue sentences as MyST, numbers as numbers, the keys in ``small`` by :meth:`small`."""
        for key, value in values.items():
            if isinstance(value, str):
                self.text(key, value, markdown=True)
            elif key in small:
                self.small(key, value)
            else:
                self.number(key, value)

    def small(self, name: str, value) -> None:
        """Glue a number that may lie far below 10⁻³ as prose writes it, "4.4 × 10⁻¹⁶"."""
        self.text(name, fmt(value, 2))

    def text(self, name: str, value: str, markdown: bool = False) -> None:
        """Glue a sentence: plain text for ``{glue:text}``, or MyST for ``{glue:md}``."""
        if markdown:  # math written as text, outside typeset math, in letters
            self._glue(name, Markdown(plain_outside_math(value)))
        else:
            self._glue(name, plain_math(value))

    def figure(self, name: str, fig) -> None:
        """Glue a figure, made :func:`~semres.report.plotting.legible`, as ``ch<N>-fig-<name>``."""
        glue(f"ch{int(self.chapter[:2])}-fig-{name}", plotting.legible(fig), display=False)
        plt.close(fig)

    def table(self, df: pd.DataFrame, name: str) -> None:
        """Save a table as ``<results>/<chapter>/<name>.csv``. Returns nothing, so that a cell
        ending with it prints nothing on the page."""
        book.save_table(df, self.chapter, name)

    # ------------------------------------------------------------------ rows
    def result(self, result: str, statement: str, *, headline=None, ci=None, paper_value=None,
               compared_with=None, compared_with_label: str = "", margin: float | None = None,
               margin_reason: str = "", claim: str = "equal", check_max_z=None,
               passed: bool | None = None, misfit: bool = False, fit_size: dict | None = None,
               gof_p: float | None = None, approximate: bool = False, new: bool = False,
               kind: str = "finding", stand_in: str = "", identified: bool = True,
               does_task: bool = True, check_se: float | None = None, cells: str = "", unit: str = "") -> str:
        """One overview row, its status computed by :func:`status`; returns the status. A
        finding states its practical ``margin`` and why (``margin_reason``); a misfit says how far
        it misses (``fit_size``); the smallest deviation the test detects comes from ``ci`` (or
        ``check_se`` for a check); ``unit`` names the numbers' unit when they are not
        probabilities ("years")."""
        if not isinstance(result, str) or not result.strip():
            raise ValueError("result must name the result")
        # a finding is decided by its interval, a check by its z
        detectable = (z_check_detectable(check_se) if check_se is not None
                      and (kind != "finding" or ci is None) else smallest_detectable(ci))
        row_status = status(ci=ci, paper_value=paper_value, compared_with=compared_with,
                            margin=margin, claim=claim, passed=passed,
                            check_max_z=check_max_z, misfit=misfit, new=new, kind=kind,
                            identified=identified, does_task=does_task)
        if kind == "finding" and (margin is None or not str(margin_reason).strip()):
            raise ValueError("margin_reason: every finding states its practical margin and "
                             "the reason for it")
        if margin is not None and not str(margin_reason).strip():
            raise ValueError("margin_reason: a margin needs its reason")
        if compared_with is not None and not str(compared_with_label).strip():
            raise ValueError("compared_with_label: say what the compared value is")
        if misfit and kind == "finding" and not fit_size:
            raise ValueError("fit_size: a misfit says how far it misses (dispersion, deviance "
                             "explained, RMS gap: semres.core.fits.misfit_size)")
        if not str(margin_reason).strip():
            margin_reason = (NO_MARGIN["nothing"] if row_status in NOT_MEASURED
                             else NO_MARGIN["z"] if passed is None and check_max_z is not None
                             else NO_MARGIN["passed"])
        lo, hi = (None, None) if ci is None else ci
        ref = as_float(paper_value if paper_value is not None else compared_with)
        size = {key: as_float((fit_size or {}).get(key)) for key in SIZE_KEYS}
        self.rows.append({"chapter": self.chapter, "result": result, "statement": statement,
                          "kind": kind, "status": row_status, "stand_in": stand_in or "",
                          "paper_value": as_float(paper_value),
                          "compared_with": as_float(compared_with),
                          "compared_with_label": compared_with_label if compared_with is not None
                          else "", "claim": claim if kind == "finding" else "",
                          "check_max_z": as_float(check_max_z), "headline": as_float(headline),
                          "ci_low": as_float(lo), "ci_high": as_float(hi),
                          "margin": as_float(margin), "margin_reason": margin_reason,
                          "detectable": as_float(detectable) if kind != "precondition"
                          else math.nan,
                          "miss": as_float(headline) - ref, "miss_low": as_float(lo) - ref,
                          "miss_high": as_float(hi) - ref,
                          "gof_p": as_float(gof_p), **size, "approximate": bool(approximate),
                          "cells": cells, "unit": unit})
        return row_status

    def grid_result(self, result: str, statement: str, cells: list[dict], table: str,
                    **common) -> str:
        """One claim over a grid of settings, as one finding: each of ``cells`` (a ``cell``
        label and its :meth:`result` arguments, ``common`` the shared ones) is judged, and the
        weakest decides; the cells are saved as ``<table>.csv``. Returns the status."""
        if not cells:
            raise ValueError("cells: a claim over a grid needs at least one cell")
        judged = []
        for cell in cells:
            args = {**common, **{k: v for k, v in cell.items() if k != "cell"}}
            probe = Report(self.chapter)
            probe.result(result, statement, **args)
            judged.append({"cell": cell.get("cell", ""), **probe.rows[0]})
        statuses = [r["status"] for r in judged]
        slacks = [_slack(r) for r in judged]
        k = weakest(statuses, slacks)
        held = sum(s in GOOD for s in statuses)
        self.table(pd.DataFrame(judged).drop(columns=["chapter", "result", "statement"]), table)
        worst = {**common, **{key: v for key, v in cells[k].items() if key != "cell"}}
        return self.result(result, f"{statement} (the weakest of {len(cells)} cells decides: "
                           f"{judged[k]['cell']})", cells=f"{held} of {len(cells)} hold",
                           **worst)

    def not_run(self, result: str, statement: str, *, headline=None, stand_in: str = "") -> str:
        """A result this build could not measure (too few runs, no data): said, not guessed."""
        self.rows.append({"chapter": self.chapter, "result": result, "statement": statement,
                          "kind": "finding", "status": "not run", "stand_in": stand_in or "",
                          "headline": as_float(headline),
                          "margin_reason": NO_MARGIN["nothing"]})
        return "not run"

    def point(self, system: str, p_i, p_s, se_i=None, se_s=None) -> None:
        """A system measured on the (p_I, p_S) plane, for the overview figure."""
        self.points.append({"chapter": self.chapter, "system": system, "p_i": as_float(p_i),
                            "p_s": as_float(p_s), "se_i": as_float(se_i), "se_s": as_float(se_s)})

    def deviations(self, cfg: dict | None = None, paper: dict | None = None, *lines: str):
        """Add how this build differs from the paper: settings against the paper's protocol
        (``paper`` maps a setting to ``(the paper's value, what it is)``), then ``lines``."""
        if cfg is not None and paper:
            self.deviation_lines += protocol_deviations(cfg, paper)
        self.deviation_lines += [line for line in lines if line]
        return self.deviation_lines

    @property
    def summary(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=list(SUMMARY_COLUMNS))

    def box(self, ran: str, *notes: str, lead: str = "", methods: bool = False) -> None:
        """The result box at the top of the page (``ch<N>_result_box``): on one phone screen
        the ``lead`` (the chapter's finding in plain words, also saved as ``finding.md`` for
        the front page), a link to the chapter's methods page when it has one (``methods``),
        the count of the statuses, then every finding in words, ``notes`` and what ``ran``: in a
        dropdown, or with ``methods`` on that page (``ch<N>_result_details``)."""
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
                        f"{checks_tally(r['status'] for r in checks)}")
        mark = f'<span class="semres-outcome semres-outcome-{outcome(findings + checks)}"></span>'
        tally_line = (f"**In this build, {'; '.join(head)}.**" if head else
                      "**This chapter reports no result in this build.**")
        lead = " ".join(str(lead).split())
        if lead:
            book.write_atomic(book.results_dir(self.chapter) / "finding.md", lead + "\n")
        page = f"{{doc}}`Methods and checks <{self.chapter}{METHODS_PAGE}>`"
        link = ([f"*Every result with its numbers, how each was measured, and the checks: "
                 f"{page}.*", ""] if methods else [])
        lines = ([mark + lead, "", *link, tally_line, ""] if lead
                 else [mark + tally_line, "", *link])
        aside = [f"{plural(len(gates), 'precondition')} (gates deciding whether a finding is "
                 f"measured: {tally(r['status'] for r in gates)})"] if gates else []
        aside += [f"{len(blocked)} not run"] if blocked else []
        aside = [f"* *Not counted:* {', '.join(aside)}"] if aside else []
        items = [f"* {prose(r['result'])}: *{escape(status_line(r, short=True))}*"
                 for r in findings]
        # a lead takes the lines of three findings, a long one more
        first = first_screen(lead, [*link[:1], tally_line, *aside], items,
                             BOX_FIRST - 3 if lead else BOX_FIRST)
        lines += items[:first]
        where = f"on {page}" if methods else "below"
        if len(findings) > first and (first or not methods):  # else the link above says it
            lines.append(f"* … and {plural(len(findings) - first, 'more finding')}, {where}"
                         if first else f"* Each finding with its status: {where}")
        lines += aside
        more = details(findings, gates, blocked, checks, notes, ran)
        if methods:  # the methods page shows them: ch<N>_result_details, unfolded
            self.text("result_details", "\n".join(more[1:-1]), markdown=True)
        else:
            lines += ["", *more]
        self.text("result_box", "\n".join(lines), markdown=True)

    def save(self) -> None:
        """Write ``summary.csv`` (and ``front.csv``) and glue ``ch<N>_deviations``."""
        book.save_table(self.summary, self.chapter, "summary")
        if self.points:
            book.save_table(pd.DataFrame(self.points, columns=list(FRONT_COLUMNS)),
                            self.chapter, "front")
        self.text("deviations", "\n".join(f"* {line}" for line in self.deviation_lines)
                  or "* none", markdown=True)


def _slack(row: dict) -> float:
    """A judged row's :func:`slack` (NaN without an interval, a reference or a margin)."""
    ref = row["paper_value"] if not math.isnan(row["paper_value"]) else row["compared_with"]
    numbers = (row["ci_low"], row["ci_high"], ref, row["margin"])
    if any(math.isnan(x) for x in numbers):
        return math.nan
    return slack(*numbers, row["claim"] or "equal")


class Opening(NamedTuple):
    """What every chapter opens with."""
    cfg: dict
    report: Report
    stream: Callable
    cache: object


def open_chapter(spec: profiles.Settings, profile: str, seed: int, **parameters) -> Opening:
    """The top of every chapter: the figure style, its settings for ``profile`` with the reader's
    ``parameters`` checked (saved as ``settings.csv``), its :class:`Report`, the named random
    streams of ``seed`` and the cache; model weights from disk only unless set otherwise."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    plotting.use_style()
    cfg = profiles.settings(spec, profile, **parameters)
    # what ran, as a table beside the results: the settings the prose quotes, with the
    # paper's value where the paper states one (what the deviations compare)
    values = {"profile": profile, "seed": seed,
              **(cfg.as_dict() if hasattr(cfg, "as_dict") else dict(cfg))}
    cell = lambda v: v if isinstance(v, (int, float, str)) else repr(v)  # noqa: E731
    paper = {key: theirs for key, (theirs, _) in spec.paper.items()}
    names = [*values, *(k for k in paper if k not in values)]
    book.save_table(pd.DataFrame({"setting": names,
                                  "value": [cell(values[k]) if k in values else "" for k in names],
                                  "paper": [cell(paper[k]) if k in paper else "" for k in names]}),
                    spec.chapter, "settings")
    return Opening(cfg, Report(spec.chapter), seeds(seed), book.cache())
