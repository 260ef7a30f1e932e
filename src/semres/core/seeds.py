"""The book's one seed convention: every random stream is named from a root seed by a string and
integer keys, so adding an experiment moves no other's numbers. A root is an integer or a named
stream (its path extends); keys are integers, never rounded floats (``int(0.29 * 100)`` is 28).
"""

from __future__ import annotations

import hashlib
import numbers
import operator

import numpy as np


def _root(seed, streams: bool = True):
    if streams and isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        named = " or a named stream" if streams else ""
        raise ValueError(f"seed must be an integer >= 0{named}; got {seed!r}")
    return int(seed)


def named_seed(seed, name: str, *keys: int) -> np.random.SeedSequence:
    """The stream ``name`` (with integer ``keys``) of ``seed``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string; got {name!r}")
    try:
        keys = [operator.index(k) for k in keys]
    except TypeError:
        raise ValueError(f"keys must be integers; got {keys!r}") from None
    words = [int(w) for w in np.frombuffer(hashlib.sha256(name.encode()).digest()[:8], "<u4")]
    root = _root(seed)
    if isinstance(root, np.random.SeedSequence):
        return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *words, *keys))
    return np.random.SeedSequence([root, *words, *keys])


def int_seed(seed, name: str, *keys: int) -> int:
    """:func:`named_seed` as one 32-bit integer, for ``torch.manual_seed`` and the like."""
    return int(named_seed(seed, name, *keys).generate_state(1)[0])


def seeds(seed: int):
    """A chapter's streams: ``stream = seeds(seed); stream("lambda_sweep", j)``."""
    _root(seed, streams=False)
    return lambda name, *keys: named_seed(seed, name, *keys)


def blocks(seed, count: int) -> list[np.random.SeedSequence]:
    """The ``count`` children ``SeedSequence.spawn`` would give, without advancing its counter."""
    root = _root(seed)
    if not isinstance(root, np.random.SeedSequence):
        root = np.random.SeedSequence(root)
    return [np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i),
                                   pool_size=root.pool_size) for i in range(count)]
