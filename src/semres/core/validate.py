"""Shared argument checks: a bad value stops with one ValueError naming it."""

from __future__ import annotations

import math

__all__ = ["positive", "non_negative", "at_least", "one_of"]


def positive(value, name: str) -> float:
    """``float(value)``, refused unless finite and > 0."""
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return value


def non_negative(value, name: str) -> float:
    """``float(value)``, refused unless finite and >= 0."""
    value = float(value)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    return value


def at_least(value, low: int, name: str) -> int:
    """``int(value)``, refused below ``low``."""
    if int(value) < low:
        raise ValueError(f"{name} must be >= {low}; got {value!r}")
    return int(value)


def one_of(value, choices, name: str):
    """``value``, refused unless it is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}; got {value!r}")
    return value
