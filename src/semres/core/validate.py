"""Shared argument checks: a bad value stops with one ValueError naming it."""

from __future__ import annotations

import math

__all__ = ["positive", "non_negative", "at_least", "one_of"]


def _finite(value, name: str, ok, what: str) -> float:
    value = float(value)
    if not (math.isfinite(value) and ok(value)):
        raise ValueError(f"{name} must be a finite number {what}; got {value!r}")
    return value


def positive(value, name: str) -> float:
    return _finite(value, name, lambda v: v > 0, "> 0")


def non_negative(value, name: str) -> float:
    return _finite(value, name, lambda v: v >= 0, ">= 0")


def at_least(value, low: int, name: str) -> int:
    """``value`` as an int, refused unless it is a whole number >= ``low`` (2.7 is not 2)."""
    if isinstance(value, bool) or float(value) != int(value) or int(value) < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def one_of(value, choices, name: str):
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}; got {value!r}")
    return value
