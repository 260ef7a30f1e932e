"""What every chapter needs: result tables, the on-disk cache, its cores, the torch device. Paths
come from the repository root (the folder holding ``_toc.yml``) or ``SEMRES_BUILD_DIR``, never from
the chapter's location, so chapters run from anywhere.
"""

from __future__ import annotations

import json
import logging
import os
import reprlib
from pathlib import Path

import joblib

from .fingerprint import digest
from .results import write_atomic

#: the file where the chapter being run notes each cache entry it computed or reused (set by the
#: runner for the chapter's kernel)
CACHE_USE = "SEMRES_CACHE_USE"


def repo_root(start: Path | None = None) -> Path:
    """The folder holding ``_toc.yml`` above ``start`` (default: the working directory)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder
    return Path(__file__).resolve().parents[3]


def build_dir() -> Path:
    return Path(os.environ.get("SEMRES_BUILD_DIR") or repo_root() / "_build")


def results_dir(chapter: str) -> Path:
    """Where a chapter's tidy tables go; the runner points this at a staging folder."""
    return Path(os.environ.get("SEMRES_RESULTS_DIR") or build_dir() / "results") / chapter


def save_table(df, chapter: str, name: str) -> Path:
    """Write ``df`` as ``<results>/<chapter>/<name>.csv`` atomically."""
    return write_atomic(results_dir(chapter) / f"{name}.csv", df.to_csv(index=False))


class Cache:
    """Heavy results on disk under ``<build>/cache``: ``cache().cache(fn)(*args)``, a
    ``joblib.Memory`` per code digest.

    An entry lives under ``<build>/cache/<digest>/``, where the digest
    (:func:`semres.core.fingerprint.digest`) covers ``fn``'s code, every function, class and
    constant of the project it reaches, the package data files they name and the classes of its
    arguments (their methods run too); within, joblib keys the arguments. Editing code ``fn`` does
    not reach (another experiment, a figure, any docstring) reuses the entry.
    """

    def __init__(self, location):
        self.location = str(location)

    def cache(self, fn, *, ignore=None):
        """``fn`` cached; ``ignore`` names arguments that change no result (as in joblib)."""
        return _Cached(self.location, fn, ignore)


class _Cached:
    def __init__(self, location: str, fn, ignore):
        self.location, self.fn, self.ignore = location, fn, ignore
        self.__wrapped__ = fn

    def key(self, *args, **kwargs) -> str:
        """The code digest that keys a call with these arguments."""
        types = {}
        for value in (*args, *kwargs.values()):
            types[type(value)] = None
            if isinstance(value, dict):
                types.update(dict.fromkeys(map(type, value.values())))
            elif isinstance(value, (list, tuple, set, frozenset)):
                types.update(dict.fromkeys(map(type, value)))
        return digest(self.fn, *types)

    def __call__(self, *args, **kwargs):
        """joblib's public calls only: an entry is loaded (``call_and_shelve().get()``), or
        computed and stored (``call``) when missing or damaged, and the log says which."""
        key = self.key(*args, **kwargs)
        memory = joblib.Memory(str(Path(self.location) / key), verbose=0)
        memorized = memory.cache(self.fn, ignore=self.ignore)
        reused = memorized.check_call_in_cache(*args, **kwargs)
        if reused:
            try:
                out = memorized.call_and_shelve(*args, **kwargs).get()
            except Exception as err:  # noqa: BLE001 - a damaged file fails in many ways
                reused = False
                shown = [*map(reprlib.repr, args),
                         *(f"{k}={reprlib.repr(v)}" for k, v in kwargs.items())]
                logging.getLogger(__name__).warning(
                    "damaged cache entry for %s(%s) (%s); recomputing it",
                    getattr(self.fn, "__name__", self.fn), ", ".join(shown),
                    f"{type(err).__name__}: {err}".splitlines()[0])
        if not reused:
            out, _ = memorized.call(*args, **kwargs)
        entry = memorized.call_and_shelve(*args, **kwargs).args_id  # stored: nothing computed
        record_cache_use(key, entry, "reused" if reused else "computed")
        return out


def record_cache_use(key: str, entry: str, kind: str) -> None:
    """Note in this chapter's log (:data:`CACHE_USE`) that it computed or reused ``entry``."""
    path = os.environ.get(CACHE_USE)
    if path:
        with open(path, "a") as log:
            log.write(json.dumps({"key": key, "entry": entry, "kind": kind}) + "\n")


def cache() -> Cache:
    """The on-disk cache of heavy results (:class:`Cache`)."""
    return Cache(build_dir() / "cache")


def cores() -> int:
    """CPU cores this process may run on (its affinity), which thread counts must follow."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def torch_device(device: str = "auto"):
    """``"auto"`` picks CUDA when present; anything else is passed to ``torch.device``."""
    import torch

    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        return torch.device(device)
    except RuntimeError as err:
        raise ValueError(f"device: {err}") from None
