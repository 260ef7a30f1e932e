"""Where a chapter's inner work runs: joblib, the one parallel backend of the book.

:func:`spread` is ``[fn(x) for x in items]`` on the cores this process may use; the results come
back in order and do not depend on where each item ran (``fn`` depends on its item only, and
sets its own thread count). That is why a cached result's key does not follow this module
(:data:`semres.core.fingerprint.NOT_FOLLOWED`): moving work between cores or machines changes no
number. A reader with a cluster runs the same chapters on Dask through joblib's dask backend,
unchanged: ``SEMRES_DASK_SCHEDULER=host:8786 semres run 7 --profile paper`` (the chapter's
kernel connects to that scheduler), or, in a notebook or script of their own,
``with joblib.parallel_config(backend="dask", n_jobs=-1): ...`` around the calls.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from functools import lru_cache

from joblib import Parallel, delayed, parallel_config
from joblib.parallel import get_active_backend
from tqdm.auto import tqdm

from . import book


#: a Dask scheduler's address: when set, every chapter's inner work runs on that cluster
SCHEDULER = "SEMRES_DASK_SCHEDULER"


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
    """The workers to ask for: what a reader's ``joblib.parallel_config`` says, else one per core
    this process may run on (a lane of ``semres book --jobs`` holds one)."""
    _, configured = get_active_backend()
    return configured if configured is not None else book.cores()


def spread(fn, items, desc: str | None = None, batch_size="auto") -> list:
    """``[fn(x) for x in items]`` through joblib, in order. ``fn`` must be picklable (a
    module-level function, a partial of one, or a closure: joblib pickles with cloudpickle).
    On one core the items run here, one after another. ``desc`` names a progress bar."""
    items = list(items)
    with cluster():
        n = jobs()
        bar = dict(total=len(items), desc=desc, disable=desc is None, leave=False)
        if n == 1 or len(items) < 2:
            return [fn(x) for x in tqdm(items, **bar)]
        run = Parallel(n_jobs=n, return_as="generator", batch_size=batch_size)
        return list(tqdm(run(delayed(fn)(x) for x in items), **bar))
