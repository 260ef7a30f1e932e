"""A chapter's settings and the checks every chapter and the CLI share; each experiment keeps its
:class:`Settings` beside its code (this module knows no experiment), so a fast test validates every
chapter under every profile and the CLI checks a run's parameters before papermill starts.
"""

from __future__ import annotations

import copy
import dataclasses
import numbers
import re
from dataclasses import dataclass, field
from typing import Callable

PROFILES = ("quick", "default", "paper")


@dataclass(frozen=True)
class Config:
    """Base of an experiment's typed settings: a frozen dataclass of every setting with its
    default-profile value; a profile is an instance (``QUICK = DEFAULT.replace(epochs=100)``).
    """

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class Settings:
    """One chapter's settings: its ``profiles``, ``check``, and ``paper`` (setting -> (the paper's
    value, what it is)). ``parameters`` maps a chapter parameter to the setting it overrides (0 or
    None keeps the profile's value); ``minimums`` bounds the other numeric parameters; ``derive``
    adjusts settings that follow from an override. ``seconds`` (the default profile's measured
    time) orders a parallel build, longest first.
    """

    chapter: str
    profiles: dict  # profile -> Config
    check: Callable[[dict, str], None]
    paper: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)
    minimums: dict = field(default_factory=dict)
    derive: Callable[[dict], dict] | None = None
    seconds: float = 0.0


def require(ok: bool, chapter: str, message: str) -> None:
    """Raise ValueError with ``message`` (which names the setting) unless ``ok``."""
    if not ok:
        raise ValueError(f"{chapter} settings: {message}")


def positive_ints(cfg: dict, chapter: str, *keys: str) -> None:
    for key in keys:
        value = getattr(cfg, key) if isinstance(cfg, Config) else cfg[key]
        require(isinstance(value, int) and not isinstance(value, bool) and value >= 1, chapter,
                f"{key} must be an integer >= 1; got {value!r}")


def check(spec: Settings, cfg: dict) -> dict:
    """``cfg``, or a ValueError naming the setting it contradicts itself on."""
    spec.check(cfg, spec.chapter)
    return cfg


def _cast(default, value):
    return type(default)(value) if isinstance(default, (int, float)) else value


def settings(spec: Settings, profile: str, **overrides) -> dict:
    """A fresh copy of ``spec``'s settings for ``profile`` with overrides (named by setting or by
    chapter parameter; 0 or None keeps the profile's value), derived and checked. An error names
    the parameter the reader passed.
    """
    chapter = spec.chapter
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    base = spec.profiles[profile]
    typed = isinstance(base, Config)
    cfg = base.as_dict() if typed else copy.deepcopy(base)
    given = {}
    for name, value in overrides.items():
        key = spec.parameters.get(name, name)
        if key not in cfg:
            raise ValueError(f"{chapter} has no setting {name!r}; settings: {', '.join(cfg)}")
        if value is None or (isinstance(value, numbers.Number) and value == 0):
            continue
        try:
            cfg[key] = _cast(cfg[key], value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a {type(cfg[key]).__name__}; got {value!r}") \
                from None
        given[key] = name
    if typed:
        cfg = type(base)(**cfg)
    if spec.derive is not None:
        cfg = spec.derive(cfg)
    try:
        spec.check(cfg, chapter)
    except ValueError as err:
        named = [name for key, name in given.items()
                 if name != key and re.search(rf"\b{re.escape(key)}\b", str(err))]
        if named:
            raise ValueError(f"{named[0]}: {err}") from None
        raise
    return cfg


def check_parameters(spec: Settings | None, profile: str, params: dict) -> dict | None:
    """Check a run's parameters before anything executes (seed, device, minimums, overrides through
    :func:`settings`); return the settings they give.
    """
    seed = params.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0; got {seed!r}")
    device = params.get("device", "auto")
    if not isinstance(device, str) or not device:
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or a torch device; got {device!r}")
    if spec is None:  # a chapter without settings (a reader's own) gets these only
        return None
    for name, low in spec.minimums.items():
        value = params.get(name)
        if value is not None and not (isinstance(value, numbers.Number) and value >= low):
            raise ValueError(f"{name} must be >= {low}; got {value!r}")
    for name in spec.parameters:
        value = params.get(name)
        if isinstance(value, numbers.Number) and value < 0:
            raise ValueError(f"{name} must be >= 0 (0 takes the profile's setting); got {value!r}")
    return settings(spec, profile, **{k: params[k] for k in spec.parameters if k in params})


def deviations(cfg: dict, paper: dict) -> list[str]:
    """``what: this build's value (paper: theirs)`` for each setting that differs from the paper.
    """
    def shown(value):
        if isinstance(value, (list, tuple, range)):
            return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
        whole = isinstance(value, int) and not isinstance(value, bool)
        return f"{value:,}" if whole else str(value)

    lines = []
    for key, (theirs, what) in paper.items():
        ours = getattr(cfg, key) if isinstance(cfg, Config) else cfg[key]
        same = (list(ours) == list(theirs) if isinstance(ours, (list, tuple, range))
                else ours == theirs)
        if not same:
            lines.append(f"{what}: {shown(ours)} (paper: {shown(theirs)})")
    return lines
