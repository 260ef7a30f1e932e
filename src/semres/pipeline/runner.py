"""Execute a chapter with papermill into a staging area, published only when it succeeds: a
failed or stopped run (which leaves ``<chapter>.failed.json``) never costs the last good one; a
lock keeps two runs apart."""

from __future__ import annotations

import ast
import contextlib
import fcntl
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import jupytext

from semres.core.book import CACHE_USE, build_dir, cores, repo_root, torch_device
from semres.core.profiles import PROFILES
from semres.pipeline import inputs
from semres.pipeline.registry import check_parameters
from semres.report import plural

CELL_TIMEOUT = {"quick": 600, "default": 3600, "paper": 24 * 3600}
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
        """The chapter's own heading (its first ``# # ...`` line)."""
        heads = [ln[4:].strip() for ln in self.path.read_text().splitlines() if ln[:4] == "# # "]
        return heads[0] if heads else self.short.replace("_", " ").capitalize()


def chapters(root: Path | None = None) -> list[Chapter]:
    return [Chapter(int(path.stem[:2]), path.stem, path)
            for path in sorted((root or repo_root()).joinpath("notebooks").glob("[0-9][0-9]_*.py"))]


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
    for cell in jupytext.read(chapter.path).cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            return {node.targets[0].id: ast.literal_eval(node.value)
                    for node in ast.parse(cell.source).body
                    if isinstance(node, ast.Assign) and len(node.targets) == 1}
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
    """Execute one chapter into ``<build>/executed/<name>.ipynb``, its tables into
    ``results/``; raises :class:`ChapterError` (:class:`Interrupted`, :class:`Busy`)."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    params = dict(params or {})
    check_parameters(chapter.name, profile, params)  # before anything is touched
    build = Path(build or build_dir()).resolve()
    with lock(build, chapter.name, f"{chapter.name} is being run by another process"):
        with _signals() as received:
            return _run_locked(chapter, profile, params, build, progress, received)


def _run_locked(chapter: Chapter, profile: str, params: dict, build: Path, progress: bool,
                received: list[int]) -> Path:
    import papermill as pm

    executed, staging = build / "executed", build / "staging" / chapter.name
    shutil.rmtree(staging, ignore_errors=True)  # left by a run that was killed outright
    (staging / "results").mkdir(parents=True)
    executed.mkdir(parents=True, exist_ok=True)
    values = {"profile": profile, **params}
    info = {"chapter": chapter.name, "profile": profile,
            "parameters": {**parameters(chapter), **values}, "overrides": params,
            "started": _now()}
    info["inputs"] = inputs.digest(chapter.path, profile, info["parameters"])
    env = {"SEMRES_BUILD_DIR": str(build), "SEMRES_RESULTS_DIR": str(staging / "results"),
           CACHE_USE: str(staging / "cache_use.jsonl"),
           # figures must reach the notebook as images, whatever backend the caller uses
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    start = time.perf_counter()
    # the chapter's own output streams to the terminal, so a long cell shows what it does
    stream = {"stdout_file": sys.stderr, "stderr_file": sys.stderr} if progress else {}
    kernels: list = []
    with mock.patch.dict(os.environ, env):  # the kernel inherits these
        error = _execute(lambda: pm.execute_notebook(
            jupytext.read(chapter.path), str(staging / "out.ipynb"), parameters=values,
            kernel_name="python3", cwd=str(chapter.path.parent), progress_bar=progress,
            execution_timeout=CELL_TIMEOUT[profile], kernel_manager_class=_tracked(kernels),
            **stream), kernels, received)
    out = staging / "out.ipynb"
    if error is None and not received:
        info["cache"] = _cache_use(staging / "cache_use.jsonl")
        info["device"] = _device(info["parameters"])
        nb = json.loads(out.read_text())
        for cell in nb["cells"]:  # the reproducibility page has the injected values
            tags = cell.get("metadata", {}).get("tags", [])
            if "injected-parameters" in tags and "remove-cell" not in tags:
                cell["metadata"]["tags"] = [*tags, "remove-cell"]
        out.write_text(json.dumps(nb, indent=1, ensure_ascii=False))
        seconds = nb.get("metadata", {}).get("papermill", {}).get("duration")
        info.update(status="ok", ended=_now(),
                    seconds=round(float(seconds or time.perf_counter() - start), 1))
    if error is None and not received:  # a signal up to here still discards the run
        return _publish(chapter.name, staging, build, info)
    shutil.rmtree(staging, ignore_errors=True)
    if received:
        info.update(status="interrupted",
                    error=f"interrupted by {signal.Signals(received[0]).name}")
    else:
        info.update(status="failed", error=_one_line(error))
    info.update(ended=_now(), seconds=round(time.perf_counter() - start, 1))
    with lock(build, "publish", "", wait=True):
        _write_json(executed / f"{chapter.name}.failed.json", info)
    kept = " (the last good run is kept)" if last_good(build, chapter) else ""
    if received:
        raise Interrupted(f"chapter {chapter.name} {info['error']}{kept}", received[0])
    raise ChapterError(f"chapter {chapter.name} failed: {info['error']}{kept}")


def _publish(name: str, staging: Path, build: Path, info: dict) -> Path:
    """Move a successful run into place; readers holding the publish lock see all or nothing."""
    final, results = build / "executed" / f"{name}.ipynb", build / "results" / name
    with lock(build, "publish", "", wait=True):
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
def lock(build: Path, name: str, busy: str, wait: bool = False):
    """Hold ``<build>/locks/<name>.lock`` (flock, which dies with its process) for the block;
    raise :class:`Busy` with ``busy`` when another process holds it, or wait when ``wait``."""
    (build / "locks").mkdir(parents=True, exist_ok=True)
    fd = os.open(build / "locks" / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
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
    up (only the main thread receives signals)."""
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
    """A kernel manager class that lists its instances in ``kernels``, for a signal to stop."""
    from jupyter_client.manager import AsyncKernelManager

    class Tracked(AsyncKernelManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            kernels.append(self)

    return Tracked


def _execute(call, kernels: list, received: list[int]) -> BaseException | None:
    """Run papermill in a worker thread and return its exception, if any: the main thread keeps
    the signals, and on one stops the kernels' process groups (SIGTERM, then SIGKILL after
    ``STOP_GRACE``), so that nbclient sees a dead kernel and returns."""
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
        if not received:
            continue
        stopped = stopped or time.monotonic()
        waited = time.monotonic() - stopped
        if waited > 10 * STOP_GRACE:
            break  # nbclient did not notice; the daemon thread dies with the process
        for km in kernels:
            provisioner = getattr(km, "provisioner", None)
            process, group = getattr(provisioner, "process", None), getattr(provisioner, "pgid",
                                                                              None)
            if group and process is not None and process.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL if waited > STOP_GRACE else signal.SIGTERM)
    return outcome[0] if outcome else None


def _write_json(path: Path, data: dict) -> None:
    """Write ``data`` atomically, so a reader never sees half a record."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z")


def _cache_use(log: Path) -> dict:
    """The cache entries the run computed and those it reused, counted by their key, from the
    log its kernel wrote (an entry computed and read again counts as computed)."""
    kinds: dict[tuple[str, str], str] = {}
    for line in log.read_text().splitlines() if log.is_file() else []:
        use = json.loads(line)
        entry = (use["key"], use["entry"])
        kinds[entry] = "computed" if "computed" in (use["kind"], kinds.get(entry)) else use["kind"]
    return {kind: dict(Counter(key for (key, _), k in kinds.items() if k == kind))
            for kind in ("computed", "reused")}


def _device(params: dict) -> str:
    """Where the chapter's torch code ran, with the cores this run could use."""
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


def read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def last_good(build: Path, ch: Chapter) -> dict | None:
    """The record of ``ch``'s last good run, when its notebook is there too."""
    info = read_json(build / "executed" / f"{ch.name}.json")
    ok = info and info.get("status") == "ok" and (build / "executed" / f"{ch.name}.ipynb").is_file()
    return info if ok else None


def last_failed(build: Path, ch: Chapter) -> dict | None:
    """The record of ``ch``'s latest run when it failed or was stopped (else None)."""
    return read_json(build / "executed" / f"{ch.name}.failed.json")


def up_to_date(build: Path, ch: Chapter, profile: str) -> bool:
    """Whether ``ch``'s last good run read the inputs a run now would, with no failed run since."""
    info = last_good(build, ch)
    if not info or last_failed(build, ch) or "inputs" not in info:
        return False
    return info["inputs"] == inputs.digest(ch.path, profile,
                                           {**parameters(ch), "profile": profile})


def _one_line(err: Exception) -> str:
    ename, evalue = getattr(err, "ename", None), getattr(err, "evalue", None)
    if ename:
        cell = getattr(err, "exec_count", None)
        where = f" in cell [{cell}]" if cell is not None else ""
        first = next((line.strip() for line in str(evalue or "").splitlines() if line.strip()), "")
        return f"{ename}: {first}{where}".strip()
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[-1] if text else ''}"
