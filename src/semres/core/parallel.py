"""Where a chapter's inner work runs: joblib, the one parallel backend of the book.

:func:`spread` returns results in order, independent of where each item ran (``fn`` depends on
its item only), so a cached result's key does not follow this module. A reader with a cluster
runs the chapters on Dask through joblib's dask backend: ``SEMRES_DASK_SCHEDULER=host:8786 semres
run 7 --profile paper``, or ``with joblib.parallel_config(backend="dask", n_jobs=-1): ...``.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from functools import lru_cache

from joblib import Parallel, delayed, parallel_config
from joblib.parallel import get_active_backend
from tqdm.auto import tqdm

from . import book

SCHEDULER = "SEMRES_DASK_SCHEDULER"  # a Dask scheduler's address: every chapter runs there


@lru_cache(maxsize=None)
def _client(address: str):
    from dask.distributed import Client  # only for a reader with a cluster

    return Client(address)


def cluster():
    """joblib's dask backend on the cluster :data:`SCHEDULER` names (nothing when unset)."""
    address = os.environ.get(SCHEDULER)
    if not address:
        return nullcontext()
    _client(address)
    return parallel_config(backend="dask", n_jobs=-1)


def jobs() -> int:
    """The workers a reader's ``joblib.parallel_config`` asks for, else one per usable core."""
    _, configured = get_active_backend()
    return configured if configured is not None else book.cores()


def spread(fn, items, desc: str | None = None, batch_size="auto") -> list:
    """``[fn(x) for x in items]`` through joblib, in order (on one core, here); ``desc`` names a
    progress bar."""
    items = list(items)
    with cluster():
        n = jobs()
        bar = dict(total=len(items), desc=desc, disable=desc is None, leave=False)
        if n == 1 or len(items) < 2:
            return [fn(x) for x in tqdm(items, **bar)]
        run = Parallel(n_jobs=n, return_as="generator", batch_size=batch_size)
        return list(tqdm(run(delayed(fn)(x) for x in items), **bar))
