"""Execute chapters with papermill and build the book from the executed notebooks.

papermill is the only executor: Jupyter Book renders what it produced with execution off. A run
writes into a staging area and replaces the chapter's notebook, tables and run record only when it
succeeds, so a failed or interrupted run never costs the last good build; it leaves a
``<chapter>.failed.json`` beside it, and the book shows the old page under a warning that says so.
Runs of one chapter take a lock, so two cannot interleave.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import psutil

from semres.core.book import build_dir, cores, repo_root, torch_device
from semres.build.registry import SETTINGS, check_parameters
from semres.core.profiles import PROFILES
from semres.build import glance
from semres.build.glance import STALE
from semres.report import plural

CELL_TIMEOUT = {"quick": 600, "default": 3600, "paper": 24 * 3600}
VERSIONED = ("semres", "numpy", "numba", "scipy", "sympy", "pandas", "matplotlib", "torch",
             "transformers", "dendropy", "papermill", "jupytext", "jupyter-book", "myst-nb",
             "sphinx")


STOP_GRACE = 3.0  # seconds a stopped kernel gets to exit before it is killed outright


class ChapterError(RuntimeError):
    """A chapter failed to execute; the message is one line a reader can act on."""


class Busy(ChapterError):
    """Another process is running the same chapter (or book); nothing was touched."""


class Interrupted(ChapterError):
    """SIGINT or SIGTERM stopped the run; ``signum`` gives the conventional exit status."""

    def __init__(self, message: str, signum: int):
        super().__init__(message)
        self.signum = signum


@dataclass(frozen=True)
class Chapter:
    number: int
    name: str  # e.g. "01_pareto_front"
    path: Path

    @property
    def short(self) -> str:
        return self.name.split("_", 1)[1]

    @property
    def title(self) -> str:
        """The chapter's own heading (its first ``# # ...`` line), for pages that stand in."""
        for line in self.path.read_text().splitlines():
            if line.startswith("# # "):
                return line[4:].strip()
        return self.short.replace("_", " ").capitalize()


def chapters(root: Path | None = None) -> list[Chapter]:
    root = root or repo_root()
    found = []
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.py")):
        found.append(Chapter(int(path.stem[:2]), path.stem, path))
    return found


def resolve(name: str, root: Path | None = None) -> Chapter:
    """A chapter by number (``3``, ``03``), full name or short name."""
    known = chapters(root)
    for ch in known:
        if name in (ch.name, ch.short) or (name.isdigit() and int(name) == ch.number):
            return ch
    choices = ", ".join(f"{c.number} ({c.name})" for c in known)
    raise ValueError(f"unknown chapter {name!r}; choose from {choices}")


def parameters(chapter: Chapter) -> dict:
    """Defaults of the chapter's ``parameters`` cell: its plain literal assignments."""
    import jupytext

    nb = jupytext.read(chapter.path)
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            values = {}
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    values[node.targets[0].id] = ast.literal_eval(node.value)
            return values
    raise ValueError(f"{chapter.name} has no parameters cell")


def parse_overrides(pairs: list[str], defaults: dict, chapter: str) -> dict:
    """``key=value`` strings cast to the type of each key's default."""
    parsed = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"-p expects key=value, got {pair!r}")
        if key == "profile":
            raise ValueError("set the profile with --profile, not -p")
        if key not in defaults:
            valid = ", ".join(k for k in defaults if k != "profile")
            raise ValueError(f"unknown parameter {key!r} for {chapter}; valid: {valid}")
        parsed[key] = _cast(key, raw, defaults[key])
    return parsed


def _cast(key: str, raw: str, default):
    kind = type(default)
    try:
        if kind is bool:
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            return raw.lower() in ("true", "1", "yes")
        if kind in (int, float):
            return kind(raw)
        if default is None:
            return None if raw.lower() == "none" else raw
        if kind is str:
            return raw
        value = ast.literal_eval(raw)
        if not isinstance(value, kind):
            raise ValueError
        return value
    except (ValueError, SyntaxError):
        raise ValueError(f"parameter {key!r} expects {kind.__name__}, got {raw!r}") from None


def run_chapter(chapter: Chapter, profile: str = "default", params: dict | None = None,
                build: Path | None = None, progress: bool = False) -> Path:
    """Execute one chapter into ``<build>/executed/<name>.ipynb``; tables into ``results/``.

    The previous notebook, tables and record stay in place until this run has succeeded. A run
    that fails or is stopped writes ``executed/<name>.failed.json`` instead and raises
    :class:`ChapterError` (:class:`Interrupted` for SIGINT/SIGTERM); another run of the same
    chapter in progress raises :class:`Busy` at once.
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    params = dict(params or {})
    check_parameters(chapter.name, profile, params)  # before anything is touched
    build = Path(build or build_dir()).resolve()
    with _lock(build, chapter.name, f"{chapter.name} is being run by another process"):
        with _signals() as received:
            return _run_locked(chapter, profile, params, build, progress, received)


def _run_locked(chapter: Chapter, profile: str, params: dict, build: Path, progress: bool,
                received: list[int]) -> Path:
    import jupytext
    import papermill as pm

    executed = build / "executed"
    staging = build / "staging" / chapter.name
    shutil.rmtree(staging, ignore_errors=True)  # left by a run that was killed outright
    (staging / "results").mkdir(parents=True)
    executed.mkdir(parents=True, exist_ok=True)
    values = {"profile": profile, **params}
    info = {"chapter": chapter.name, "profile": profile,
            "parameters": {**parameters(chapter), **values}, "overrides": params,
            "started": _now()}
    env = {"SEMRES_BUILD_DIR": str(build), "SEMRES_RESULTS_DIR": str(staging / "results"),
           # figures must reach the notebook as images, whatever backend the caller uses
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits these
    stamp = _mark_cache_unread(build)
    start = time.perf_counter()
    # the chapter's own output (its tqdm bars, its progress lines) streams to the terminal as it
    # arrives, so a nine-minute cell shows what it is doing
    stream = {"stdout_file": sys.stderr, "stderr_file": sys.stderr} if progress else {}
    kernels: list = []
    try:
        error = _execute(lambda: pm.execute_notebook(
            jupytext.read(chapter.path), str(staging / "out.ipynb"), parameters=values,
            kernel_name="python3", cwd=str(chapter.path.parent), progress_bar=progress,
            execution_timeout=CELL_TIMEOUT[profile], kernel_manager_class=_tracked(kernels),
            **stream), kernels, received)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    if error is None and not received:
        info["cache"] = _cache_use(build, stamp)
        info["device"] = _device(info["parameters"])
        _hide_injected_parameters(staging / "out.ipynb")
        info.update(status="ok", ended=_now(),
                    seconds=_papermill_seconds(staging / "out.ipynb", time.perf_counter() - start))
    if error is not None or received:  # a signal up to here still discards the run
        shutil.rmtree(staging, ignore_errors=True)
        if received:
            name = signal.Signals(received[0]).name
            info.update(status="interrupted", error=f"interrupted by {name}")
        else:
            info.update(status="failed", error=_one_line(error))
        info.update(ended=_now(), seconds=round(time.perf_counter() - start, 1))
        with _lock(build, "publish", "", wait=True):
            _write_json(executed / f"{chapter.name}.failed.json", info)
        kept = " (the last good run is kept)" if _good(build, chapter) else ""
        if received:
            raise Interrupted(f"chapter {chapter.name} {info['error']}{kept}", received[0])
        raise ChapterError(f"chapter {chapter.name} failed: {info['error']}{kept}")
    return _publish(chapter.name, staging, build, info)


def _publish(name: str, staging: Path, build: Path, info: dict) -> Path:
    """Move a successful run into place; readers holding the publish lock see all or nothing."""
    final, results = build / "executed" / f"{name}.ipynb", build / "results" / name
    with _lock(build, "publish", "", wait=True):
        if results.exists():
            os.replace(results, staging / "previous")  # tables the new run may not write again
        if (staging / "results" / name).is_dir():
            results.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / "results" / name, results)
        os.replace(staging / "out.ipynb", final)
        _write_json(build / "executed" / f"{name}.json", info)
        (build / "executed" / f"{name}.failed.json").unlink(missing_ok=True)
    shutil.rmtree(staging, ignore_errors=True)
    return final


@contextlib.contextmanager
def _lock(build: Path, name: str, busy: str, wait: bool = False):
    """Hold ``<build>/locks/<name>.lock`` (flock) for the block; raise :class:`Busy` with
    ``busy`` when another process holds it, or wait for it when ``wait``.

    The lock dies with its process, so a run killed outright never leaves a chapter locked.
    """
    folder = build / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            raise Busy(f"{busy}{f' (pid {holder})' if holder else ''}; wait for it to "
                       "finish") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def _signals():
    """Record SIGINT and SIGTERM instead of raising, so the run can stop its kernel and clean
    up; the previous handlers come back afterwards. Only the main thread receives signals."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    previous = {sig: signal.signal(sig, lambda signum, _: received.append(signum))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _tracked(kernels: list):
    """A kernel manager class that lists its instances in ``kernels``, so that a signal can
    stop the kernel papermill started."""
    from jupyter_client.manager import AsyncKernelManager

    class Tracked(AsyncKernelManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            kernels.append(self)

    return Tracked


def _execute(call, kernels: list, received: list[int]) -> BaseException | None:
    """Run papermill in a worker thread and return its exception, if any.

    nbclient handles signals only on the main thread's event loop, and then just shuts the
    kernel down without saying so. Here the main thread keeps the signals: on one it stops the
    kernel's process group (SIGTERM, then SIGKILL after ``STOP_GRACE``); nbclient then sees a
    dead kernel and returns.
    """
    outcome: list[BaseException] = []

    def work():
        try:
            call()
        except BaseException as err:  # noqa: BLE001 - handed to the caller
            outcome.append(err)

    worker = threading.Thread(target=work, name="papermill", daemon=True)
    worker.start()
    stopped = None
    while worker.is_alive():
        worker.join(0.1)
        if received:
            stopped = stopped or time.monotonic()
            waited = time.monotonic() - stopped
            if waited > 10 * STOP_GRACE:
                break  # nbclient did not notice; the daemon thread dies with the process
            _signal_kernels(kernels, signal.SIGKILL if waited > STOP_GRACE else signal.SIGTERM)
    return outcome[0] if outcome else None


def _signal_kernels(kernels: list, signum: int) -> None:
    for km in kernels:
        provisioner = getattr(km, "provisioner", None)
        process, group = getattr(provisioner, "process", None), getattr(provisioner, "pgid", None)
        if group and process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signum)


def _write_json(path: Path, data: dict) -> None:
    """Write ``data`` atomically, so a reader never sees half a record."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z")


def _hide_injected_parameters(path: Path) -> None:
    """Remove papermill's injected-parameters cell from the page (kept in the notebook file).

    The chapter's own parameters cell shows the defaults and the chapter states what ran; the
    exact values of this build are on the reproducibility page, so a second parameters cell
    would only repeat them.
    """
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            cell["metadata"]["tags"] = [*tags, "remove-cell"]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False))


def _cached_files(build: Path):
    """Files of the on-disk caches a chapter may reuse: joblib results (one folder per code
    digest, see :func:`semres.core.book.cache`) and trained models."""
    for folder in (build / "cache", build / "models"):
        if folder.is_dir():
            yield from (p for p in folder.rglob("*") if p.is_file())


def _mark_cache_unread(build: Path) -> float:
    """Set every cached file's access time to 0, so a read during the run shows as a new atime.

    Linux updates the access time of a file read after its last modification (``relatime``),
    which is all that is needed to tell reused entries from untouched ones afterwards.
    """
    for path in _cached_files(build):
        try:
            os.utime(path, (0, path.stat().st_mtime))
        except OSError:
            pass
    return time.time()


def _cache_use(build: Path, since: float) -> dict:
    """Cache entries this run computed, and entries from earlier runs it read (reused), each
    with the code digest (joblib) or the folder name (models) that keys it."""
    entries: dict[tuple[str, Path], set[str]] = {}
    for path in _cached_files(build):
        top, *rest = path.relative_to(build).parts
        if top == "cache":  # a joblib result: a folder holding output.pkl, under its digest
            if not (path.parent / "output.pkl").is_file():
                continue
            key = (rest[0], path.parent)
        else:  # a trained model: one folder under models/
            key = (f"model {rest[0]}", build / top / rest[0])
        st = path.stat()
        # file times come from the kernel's coarse clock (a few ms behind time.time()); a wider
        # slack would count a previous run that ended just before this one as this run's work
        entries.setdefault(key, set()).add(
            "computed" if st.st_mtime >= since - 0.05 else
            "reused" if st.st_atime >= since - 0.05 else "unused")
    use: dict[str, dict[str, int]] = {"computed": {}, "reused": {}}
    for (digest, _), kinds in entries.items():
        kind = "computed" if "computed" in kinds else "reused" if "reused" in kinds else None
        if kind:
            use[kind][digest] = use[kind].get(digest, 0) + 1
    return use


def _device(params: dict) -> str:
    """Where the chapter's torch code ran: its ``device`` parameter resolved like the chapter,
    with the cores this run could use (one in a lane of ``semres book --jobs``)."""
    value = params.get("device")
    n = plural(cores(), "core")
    if value is None:
        return f"CPU ({n})"
    try:
        dev = torch_device(str(value))
        if dev.type == "cuda":
            import torch

            return f"cuda ({torch.cuda.get_device_name(dev)})"
        return f"{dev.type} ({n})" if dev.type == "cpu" else str(dev)
    except (ImportError, ValueError, RuntimeError) as err:
        return f"{value} ({type(err).__name__})"


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _good(build: Path, ch: Chapter) -> dict | None:
    """The record of ``ch``'s last good run, when its notebook is there too."""
    info = _read_json(build / "executed" / f"{ch.name}.json")
    ok = info and info.get("status") == "ok" and (build / "executed" / f"{ch.name}.ipynb").is_file()
    return info if ok else None


def _failed(build: Path, ch: Chapter) -> dict | None:
    """The record of ``ch``'s latest run when it failed or was stopped (None when it succeeded).

    Records from before failed runs were kept apart (a ``<name>.json`` with a failed status)
    count too.
    """
    info = _read_json(build / "executed" / f"{ch.name}.failed.json")
    if info is None:
        info = _read_json(build / "executed" / f"{ch.name}.json")
        info = info if info and info.get("status") != "ok" else None
    return info


def _code(text: str) -> str:
    """``text`` as inline code that no backtick inside can break."""
    return "`" + " ".join(str(text).replace("`", "'").split()) + "`"


def _overrides(info: dict) -> str:
    shown = ", ".join(f"{k}={v!r}" for k, v in (info.get("overrides") or {}).items())
    return f"profile {_code(info.get('profile', '?'))}, " + (
        f"parameters {_code(shown)}" if shown else "default parameters")


def _stale_warning(ch: Chapter, good: dict, failed: dict) -> str:
    """The admonition at the top of a page whose latest run failed: what shows is older."""
    when = failed.get("ended") or failed.get("started", "?")
    how = "was interrupted" if failed.get("status") == "interrupted" else "failed"
    return (f"```{{warning}}\nThe latest run of this chapter {how} "
            f"({when}; {_overrides(failed)}):\n{_code(failed.get('error', ''))}\n\n"
            f"This page shows the **previous good run**, of {good.get('started', '?')}. Rerun "
            f"it with `semres run {ch.number}` to see the full error.\n```\n")


def _stage_page(ch: Chapter, build: Path, folder: Path) -> None:
    """Put ``ch``'s page into the book's sources: its last good notebook (under a warning when
    a later run failed), or a page saying it was not built."""
    good, failed = _good(build, ch), _failed(build, ch)
    if good is None:
        (folder / f"{ch.name}.md").write_text(_missing_page(ch, failed))
        return
    if failed is None:
        shutil.copy2(build / "executed" / f"{ch.name}.ipynb", folder)
        return
    nb = json.loads((build / "executed" / f"{ch.name}.ipynb").read_text())
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
                      "source": _stale_warning(ch, good, failed)})
    (folder / f"{ch.name}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False))


def _stage_tables(ch: Chapter, build: Path, folder: Path) -> None:
    """Put the CSV tables of ``ch``'s last good run where the book serves them
    (``_static/results/<chapter>/``), for the links under its tables."""
    results = build / "results" / ch.name
    if _good(build, ch) is None or not results.is_dir():
        return
    (folder / ch.name).mkdir(parents=True, exist_ok=True)
    for table in sorted(results.glob("*.csv")):
        shutil.copy2(table, folder / ch.name / table.name)


def _papermill_seconds(path: Path, fallback: float) -> float:
    meta = json.loads(path.read_text()).get("metadata", {}).get("papermill", {})
    return round(float(meta.get("duration") or fallback), 1)


def _one_line(err: Exception) -> str:
    ename, evalue = getattr(err, "ename", None), getattr(err, "evalue", None)
    cell = getattr(err, "exec_count", None)
    if ename:
        where = f" in cell [{cell}]" if cell is not None else ""
        first = next((line.strip() for line in str(evalue or "").splitlines() if line.strip()), "")
        return f"{ename}: {first}{where}".strip()
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[-1] if text else ''}"


def build_book(profile: str = "default", build: Path | None = None, progress: bool = True,
               only: list[Chapter] | None = None, jobs: int = 1) -> tuple[Path, list[str]]:
    """Execute every chapter, stage the sources beside the executed notebooks, build strict HTML.

    ``jobs`` > 1 runs that many chapters at once, each process held to one core (see
    :func:`_run_lanes`). Returns the HTML index and the list of one-line failures (chapters and
    the Sphinx build). A chapter another process is running counts as a failure and shows its
    last good run; a second book build of the same folder raises :class:`Busy`.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1; got {jobs!r}")
    root = repo_root()
    build = Path(build or build_dir()).resolve()
    todo = chapters(root) if only is None else only
    for ch in todo:
        check_parameters(ch.name, profile, {})
    with _lock(build, "book", "a book build of this folder is already running"):
        return _build_locked(root, build, profile, progress, todo, jobs)


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
    (src / "_config.yml").write_text(_book_config(root / "_config.yml"))
    (src / "notebooks").mkdir()
    # a run of one chapter finishing meanwhile replaces its files all at once, never halfway
    with _lock(build, "publish", "", wait=True):
        for ch in chapters(root):
            _stage_page(ch, build, src / "notebooks")
            _stage_tables(ch, build, src / "book" / "_static" / "results")
        if (src / "book" / "glance.md").is_file():
            (src / "book" / "glance.md").write_text(
                (root / "book" / "glance.md").read_text() + "\n" + _glance(build, src / "book"))
            if "book/glance" in (src / "_toc.yml").read_text():
                _front_results(build, src / "book" / "intro.md")
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
    """Longest first, so that no long chapter starts last: by the seconds of its last run in
    ``build``; a chapter never run counts as long, and among those one whose settings say
    ``slow`` goes first."""
    def expected(ch: Chapter) -> tuple[float, bool]:
        seconds = (_read_json(build / "executed" / f"{ch.name}.json") or {}).get("seconds")
        spec = SETTINGS.get(ch.name)
        return math.inf if seconds is None else float(seconds), bool(spec and spec.slow)

    return sorted(todo, key=expected, reverse=True)


def _run_lanes(todo: list[Chapter], profile: str, build: Path, jobs: int) -> list[str]:
    """Run chapters ``jobs`` at a time, each worker process (and the kernels it starts) held to
    a core of its own, so that every chapter's threads (the engine's, torch's, the LM scorer's)
    see one core and two chapters never slow each other by fighting over both, in
    :func:`lane_order`; when no chapter is left to start, the cores of finished lanes go to
    the chapters still running (:func:`share_cores`)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

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
    """Give every core to the chapters still running: once a lane has nothing left to run, its
    core would idle while the longest chapter runs on one. Every process under this one (the
    lane workers and the kernels they started) may then run on ``cpus``; a chapter's threads
    follow at their next start (the engine and the LM scorer ask :func:`semres.core.book.cores`
    each time). Returns how many processes were widened."""
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
    """One chapter in a worker process: its failure as the one line :class:`ChapterError`
    carries (exceptions with extra fields do not cross processes)."""
    try:
        run_chapter(ch, profile, build=build, progress=False)
    except ChapterError as err:
        return str(err)
    return None


def _glance(build: Path, folder: Path) -> str:
    """The generated part of the results-at-a-glance page, from this build's result tables.

    A chapter whose latest run failed keeps its last good tables, marked as such in the table
    and named in a warning above it.
    """
    every = chapters(repo_root())
    built = {ch.name: ch.title for ch in every if _good(build, ch)}
    stale = [ch for ch in every if ch.name in built and _failed(build, ch)]
    docs = {c.name: f"../notebooks/{c.name}" for c in every}
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
    every = chapters(repo_root())
    built = {ch.name: ch.title for ch in every if _good(build, ch)}
    brief = glance.in_brief(build / "results", built, {c.name: c.title for c in every},
                            {c.name: f"../notebooks/{c.name}" for c in every},
                            stale={ch.name for ch in every if ch.name in built
                                   and _failed(build, ch)})
    head, sep, rest = intro.read_text().partition("\n\n")  # the title
    para, _, rest = rest.partition("\n\n")  # the opening paragraph
    intro.write_text(head + sep + para + "\n\n" + brief + "\n" + rest)


def _book_config(path: Path) -> str:
    """The book's config: with a repository URL filled in, the source (repository) button and
    the Binder launch button; without one, neither (and no guessed address).

    Colab opens only ``.ipynb`` files from a repository, which holds the chapters as ``.py``:
    its button would open nothing, so it is left off (Binder opens the ``.py`` through
    jupytext, see ``semres.build.sphinxext.launch_sources``)."""
    import yaml

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


def _missing_page(ch: Chapter, failed: dict | None) -> str:
    reason = failed.get("error", "") if failed is not None else "not executed"
    return (f"# {ch.title} (not built)\n\n```{{warning}}\nThis chapter did not execute in "
            f"the last build, so no results are shown.\n\n{_code(reason)}\n\nRerun it with "
            f"`semres run {ch.number}` to see the full error.\n```\n")


def _cache_text(cache: dict | None) -> tuple[str, str]:
    """``("2 reused, 1 computed", "reused code `ab12`; computed code `cd34`")``, or none."""
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
    """Markdown lines: the Monte Carlo engine's throughput as ``benchmarks/bench_engine.py``
    last recorded it in ``<build>/benchmarks/engine.json``."""
    lines = ["## Monte Carlo engine", ""]
    try:
        rec = json.loads((build / "benchmarks" / "engine.json").read_text())
        rates, spread = rec["rates"], rec["spread"]
    except (OSError, ValueError, KeyError, TypeError):
        return lines + ["Not measured for this build: `python benchmarks/bench_engine.py` "
                        "(which `make book` runs first) records the figures here."]
    before, after = rec["load_before"][0], rec["load_after"][0]
    lines += [f"Two-item similarity trials on the circle per second, measured by "
              f"`benchmarks/bench_engine.py` on {rec['when']} (commit `{rec['commit']}`, "
              f"{rec['machine']}; best of {rec['repeats']}, load average {before:.2f} before "
              f"and {after:.2f} after; the spread is the slowest over the fastest timing).", "",
              "| Run | Million trials/s | Spread |", "| --- | --- | --- |"]
    lines += [f"| {name} | {rate / 1e6:.1f} | {spread[name]:.2f} |"
              for name, rate in rates.items()]
    threads = rec["threads"]
    lines += ["", f"{threads} threads run {rec['ratio_threads']:.2f} times as fast as one "
              f"({threads} separate processes: {rec['ratio_processes']:.2f} times, the "
              f"machine's own scaling); the engine reaches {rec['ratio_limit']:.2f} of the "
              f"speed of its random numbers alone, and {rec['ratio_numpy']:.0f} times that of "
              "a straightforward numpy implementation."]
    return lines


def provenance(build: Path, seconds: float | None = None) -> str:
    """Markdown: versions, commit, machine, build time, and for each chapter its profile, seed,
    wall time, device and the cached results it reused."""
    root = repo_root()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                           capture_output=True, text=True).stdout.strip()
    lines = ["## This build", "",
             f"- Commit: `{commit}`{' (with uncommitted changes)' if dirty else ''}",
             f"- Built: {time.strftime('%Y-%m-%d %H:%M %Z')}",
             f"- Machine: {platform.platform()}, {os.cpu_count()} CPU cores, "
             f"Python {platform.python_version()}"]
    if seconds is not None:
        lines.append(f"- Build time: {seconds:.0f} s to execute the chapters and write these "
                     "pages (the HTML build follows)")
    lines += ["", "| Chapter | Status | Profile | Seed | Wall time (s) | Device | Cache |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    settings = []
    for ch in chapters(root):
        good, failed = _good(build, ch), _failed(build, ch)
        info = good or failed
        if info is None:
            lines.append(f"| {ch.name} | not executed | | | | | |")
            continue
        status = STALE if good and failed else info["status"]
        params = dict(info.get("parameters", {}))
        profile = params.pop("profile", "")
        seed = params.pop("seed", "default")
        shown = ", ".join(f"`{k}={v!r}`" for k, v in params.items()) or "defaults"
        short, detail = _cache_text(info.get("cache"))
        lines.append(f"| {ch.name} | {status} | {profile} | {seed} | "
                     f"{info.get('seconds', '')} | {info.get('device', '')} | {short} |")
        settings.append(f"- {ch.name}: {shown}" + (f"; cache: {detail}" if detail else ""))
        if good and failed:
            settings[-1] += (f" (the previous good run, of {good.get('started', '?')}; the "
                             f"latest run {failed.get('status', 'failed')} at "
                             f"{failed.get('ended', '?')} with {_overrides(failed)}: "
                             f"{_code(failed.get('error', ''))})")
    lines += ["", "*Cache*: results cached on disk by an earlier run and reused here, or "
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
