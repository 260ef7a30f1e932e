"""The book's one seed convention: every random stream is named from a root seed by a string
and, where a loop needs them, integer keys (a replicate, an epoch).

A stream depends on its root, its name and its keys only, never on how many other streams were
drawn before it, so adding an experiment moves no other experiment's numbers, and a fit's
goodness-of-fit draws never reuse its bootstrap's. A root is a chapter's integer seed or a
stream already named from one (a ``SeedSequence``): naming from a stream extends its path.
Keys are integers (``operator.index``), never values rounded from floats: ``int(0.29 * 100)``
is 28, so a key built from a float can collide with its neighbour's.
"""

from __future__ import annotations

import hashlib
import numbers
import operator

import numpy as np


def _root(seed):
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0 or a named stream; got {seed!r}")
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
    """:func:`named_seed` as one 32-bit integer, for generators that take only an int
    (``torch.manual_seed``, ``random.Random``)."""
    return int(named_seed(seed, name, *keys).generate_state(1)[0])


def seeds(seed: int):
    """A chapter's streams: ``stream = seeds(seed); stream("lambda_sweep", j)``."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0; got {seed!r}")
    return lambda name, *keys: named_seed(seed, name, *keys)


def blocks(seed, count: int) -> list[np.random.SeedSequence]:
    """``count`` streams for the blocks of one computation (the Monte Carlo engine's blocks of
    trials), the children ``SeedSequence.spawn`` would give without advancing its counter, so
    the same root gives the same blocks however often it is reused. A bare integer seed is
    the root itself (``SeedSequence(seed)``)."""
    root = _root(seed)
    if not isinstance(root, np.random.SeedSequence):
        root = np.random.SeedSequence(root)
    return [np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i),
                                   pool_size=root.pool_size) for i in range(count)]
