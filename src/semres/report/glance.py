"""Results at a glance: the overview page's table and figure, generated at build time from each
chapter's ``summary.csv`` and ``front.csv``, so that a chapter not run shows as such."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from semres.core import theory

from . import plotting
from .box import checks_tally, measured, row_places, stand_in, tally
from .chapter import FRONT_COLUMNS, SUMMARY_COLUMNS
from .numbers import escape, fmt, plural, prose
from .verdicts import NOT_MEASURED, POLICY, STATUSES, VOCABULARY, reference

#: the columns a summary.csv cannot do without (the others are read when present)
REQUIRED = ("chapter", "result", "statement", "paper_value", "check_max_z", "headline",
            "ci_low", "ci_high", "status")
NOT_RUN = "not run in this build"
#: how a chapter whose latest run failed is marked wherever its last good run's numbers show
STALE = "previous good run; latest failed"
MAX_NAMED = 4  # systems of one chapter named one by one in the figure's legend


def read_tables(results: Path, built: dict[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The summary rows and front points of every chapter in ``built`` (name -> title); a
    chapter without a readable ``summary.csv`` gets one row saying why it shows nothing."""
    rows, points = [], []
    for name, title in built.items():
        folder = Path(results) / name
        summary, why = _read(folder / "summary.csv", REQUIRED)
        if summary is None:
            rows.append({"chapter": name, "title": title, "statement": f"({why})",
                         "status": NOT_RUN})
        else:
            summary = summary.assign(chapter=name, title=title)
            summary["status"] = summary.status.fillna("").astype(str).str.strip()
            summary.loc[summary.status == "not run", "status"] = NOT_RUN
            rows.extend(summary.to_dict("records"))
        front, _ = _read(folder / "front.csv", FRONT_COLUMNS)
        if front is not None:
            points.append(front.assign(chapter=name, title=title))
    table = _with_kinds(pd.DataFrame(rows, columns=["title", *SUMMARY_COLUMNS]))
    front = (pd.concat(points, ignore_index=True) if points
             else pd.DataFrame(columns=["title", *FRONT_COLUMNS]))
    for col in ("p_i", "p_s", "se_i", "se_s"):
        front[col] = pd.to_numeric(front[col], errors="coerce")
    front = front.dropna(subset=["p_i", "p_s"])
    return table, front


def _read(path: Path, columns: tuple[str, ...]) -> tuple[pd.DataFrame | None, str]:
    if not path.is_file():
        return None, f"no {path.name} in this build"
    try:
        df = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        return None, f"{path.name} unreadable: {type(err).__name__}"
    missing = [c for c in columns if c not in df.columns]
    if missing:
        return None, (f"{path.name} is not a result table: it lacks "
                      f"{len(missing)} of its {len(columns)} columns")
    if df.empty:
        return None, f"{path.name} is empty"
    return df, ""


def _cell(value) -> str:
    """Text for one table cell: escaped for MyST, "—" when blank."""
    return escape(value) or "—"


def _numbers(row: dict) -> str:
    """A row's numbers: this build [95% interval]; the reference ± the margin; the largest |z|."""
    parts = [measured(row)]
    what, value = reference(row)
    if value is not None and row.get("status") not in NOT_MEASURED:
        tol = row.get("margin")
        parts.append(f"{_cell(what.removeprefix('the '))} {fmt(value, places=row_places(row))}"
                     + (f" ± {fmt(tol)}" if fmt(tol) not in ("—", "0") else ""))
    z = pd.to_numeric(pd.Series([row.get("check_max_z")]), errors="coerce").iloc[0]
    if pd.notna(z):
        parts.append(f"largest \\|z\\| {fmt(z, places=2)}")
    return "; ".join(p for p in parts if p) or "—"


def markdown_table(table: pd.DataFrame, docs: dict[str, str]) -> str:
    """One row per claim in MyST (``docs``: chapter -> page): the claim, its numbers, and its
    status, which a dagger marks when it was obtained on a stand-in."""
    lines = ["| Claim | This build [95% interval]; the paper or the comparison ± margin "
             "| Status |", "| --- | --- | --- |"]
    for row in table.to_dict("records"):
        name = row["chapter"]
        link = f"{{doc}}`Ch. {int(name[:2])} <{docs[name]}>`" if name in docs else _cell(name)
        result = prose(row.get("result")) if fmt(row.get("result")) != "—" else ""
        what = result or (prose(row.get("statement")) if fmt(row.get("statement")) != "—"
                          else "—")
        numbers = "—" if row["status"] == NOT_RUN else _numbers(row)
        status = _cell(row["status"]) + (" †" if stand_in(row) else "")
        lines.append(f"| {link}: {what} | {numbers} | "
                     f"{'**' + status + '**' if row['status'] == 'differs' else status} |")
    return "\n".join(lines) + "\n"


def _with_kinds(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every row's kind, a row without one being a finding."""
    kind = table["kind"].astype(object).where(table["kind"].notna(), "finding")
    return table.assign(kind=kind.astype(str).str.strip())


def _counted(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The findings (not run included), those measured, and the preconditions of a table."""
    findings = table[table.kind == "finding"]
    return findings, findings[findings.status != NOT_RUN], table[table.kind == "precondition"]


#: the statuses in the order the pages count them, "not run" as these pages word it
ORDER = (*STATUSES[:-1], NOT_RUN)


def vocabulary() -> str:
    """The status vocabulary as a list for the page."""
    return "\n".join(f"- **{s if s != 'not run' else NOT_RUN}**: {escape(VOCABULARY[s])}."
                      for s in STATUSES) + "\n"


def front_figure(front: pd.DataFrame, path: Path):
    """Every measured system on the (p_I, p_S) plane with the theory curves, saved to ``path``:
    as narrow as a phone's column, so that it reads there as drawn."""
    fig, ax = plotting.subplots(figsize=(plotting.PHONE_WIDTH, 6.2))
    p_i = np.linspace(0.5, 1.0, 201)
    ax.plot(p_i, theory.front(p_i), color=plotting.THEORY, label="universal front (Thm. 1)")
    ps, pi = theory.linear_circle(np.linspace(0.0, 1.0, 201))
    ax.plot(pi, ps, color=plotting.THEORY_ALT, ls="--", label="linear decay (Prop. 1)")
    markers = "osD^v<>pP*X"
    for k, (name, grp) in enumerate(front.groupby("chapter", sort=True)):
        color = plotting.CYCLE[k % len(plotting.CYCLE)]
        # a chapter with many systems gets one legend entry
        many = grp.system.nunique() > MAX_NAMED
        groups = [(f"{grp.system.nunique()} systems", grp)] if many else \
            list(grp.groupby("system", sort=False))
        for j, (system, pts) in enumerate(groups):
            ax.errorbar(pts.p_i, pts.p_s, xerr=1.96 * pts.se_i.fillna(0).to_numpy(),
                        yerr=1.96 * pts.se_s.fillna(0).to_numpy(), ls="none", color=color,
                        marker="." if many else markers[j % len(markers)], ms=7 if many else 5,
                        elinewidth=0.8, capsize=0, alpha=0.8 if many else 1.0,
                        label=f"Ch. {int(name[:2])}: {system}")
    ax.set(xlabel="identification $p_I$", ylabel="generalization $p_S$")
    ax.axhline(0.5, color="0.8", lw=0.8, zorder=0)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=1,
               fontsize=plotting.MIN_FONT, frameon=False)
    plotting.save(plotting.legible(fig), path)
    plt.close(fig)
    return path


def in_brief(results: Path, built: dict[str, str], chapters: dict[str, str],
             docs: dict[str, str], page: str = "glance", stale=()) -> str:
    """The front page's results: each chapter's finding in one line (the lead of its result box,
    ``finding.md``), then every claim counted by status, one click away; a chapter in ``stale``
    says its numbers are its last good run's."""
    findings, counted, gates = _counted(read_tables(results, built)[0])
    lines = ["## What this build found", ""]
    for name, title in chapters.items():
        said = Path(results) / name / "finding.md"
        rows = counted[counted.chapter == name]
        said = ("Not run in this build." if name not in built else
                said.read_text().strip() if said.is_file() else
                f"Its findings: {tally(rows.status, ORDER)}." if len(rows) else NOT_RUN + ".")
        link = f"{{doc}}`{escape(title)} <{docs[name]}>`" if name in docs else escape(title)
        lines.append(f"- **Ch. {int(name[:2])}, {link}.** {said}"
                     + (f" ({STALE})" if name in stale else ""))
    aside = []
    if len(gates):
        aside.append(f"{plural(len(gates), 'precondition')} ({tally(gates.status, ORDER)})")
    if len(counted) < len(findings):
        aside.append(f"{len(findings) - len(counted)} not run")
    lines += ["", f":::{{dropdown}} Every claim of this build, counted by status",
              f"{plural(len(counted), 'finding')}: {tally(counted.status, ORDER)}"
              + (f"; not counted: {', '.join(aside)}" if aside else "")
              + f". Each one, with its numbers: {{doc}}`{page}`.", ""]
    for name, title in chapters.items():
        rows = counted[counted.chapter == name]
        lines.append(f"- Ch. {int(name[:2])}: "
                     + (tally(rows.status, ORDER) if name in built and len(rows) else NOT_RUN))
    return "\n".join(lines + [":::"]) + "\n"


def page(results: Path, built: dict[str, str], chapters: dict[str, str], docs: dict[str, str],
         figure: Path) -> str:
    """The generated part of the overview page: a row per claim, the figure (written to
    ``figure``), then the preconditions, the checks and what the statuses mean, folded;
    chapters not in ``built`` show as not run."""
    table, front = read_tables(results, built)
    absent = [{"chapter": n, "title": t, "statement": "(chapter did not execute)",
               "status": NOT_RUN} for n, t in chapters.items() if n not in built]
    if absent:
        table = _with_kinds(pd.concat([table, pd.DataFrame(absent)], ignore_index=True))
    table = table.assign(_order=table.chapter.map({n: i for i, n in enumerate(chapters)}))
    table = table.sort_values("_order", kind="stable").drop(columns="_order")
    findings, counted, gates = _counted(table)
    checks = table[table.kind == "check"]
    text = ["## The findings", "",
            f"Of {plural(len(counted), 'finding')} measured in this build: "
            f"{tally(counted.status, ORDER)}"
            + (f" ({len(findings) - len(counted)} more not run, listed with the reason)"
               if len(counted) < len(findings) else "")
            + ". Probabilities are unitless; a number with a unit says it. † obtained on a "
              "stand-in, which the chapter's result box names.", "",
            markdown_table(findings, docs)]
    text += ["## Every system on one plane", ""]
    if front.empty:
        text.append("No chapter wrote a `front.csv` in this build, so there is nothing to "
                    "place.")
    else:
        front_figure(front, figure)
        systems = ", ".join(f"{len(g)} from chapter {int(n[:2])}"
                            for n, g in front.groupby("chapter", sort=True))
        alt = (f"Scatter of {len(front)} measured systems on the plane of identification p_I "
               f"(horizontal) and generalization p_S (vertical), with the universal two-item "
               f"front and Proposition 1's linear-decay curve: {systems}.")
        # an image with a caption in words, not a numbered figure: chapter 1 starts at Fig. 1
        text += [f"```{{image}} {figure.name}", f":alt: {alt}", ":class: glance-front", "```",
                 "", "*Every system measured in this build (bars: 95% intervals) against the "
                 "two-item theory. The curves are for two items; a point measured with more "
                 "items is placed by its own rates.*", ""]
    folded = []
    if len(gates):
        folded += [f"**The preconditions** decide whether a finding is measured (a model must "
                   f"do the task before its answers are analysed); never counted as findings: "
                   f"{tally(gates.status, ORDER)}.", "", markdown_table(gates, docs)]
    if len(checks):
        folded += [f"**The checks** are true by construction, so they test the code rather "
                   f"than a claim: {plural(len(checks), 'check')}, "
                   f"{checks_tally(checks.status)}.", "", markdown_table(checks, docs)]
    if folded:
        text += [":::{dropdown} The preconditions and the checks", *folded, ":::", ""]
    text += [":::{dropdown} What the statuses mean, and the significance policy",
             "Every status is computed by `semres.report.status` from the row's numbers, by "
             "one rule for the whole book.", "", vocabulary(), escape(POLICY) + ".", ":::"]
    return "\n".join(text) + "\n"
