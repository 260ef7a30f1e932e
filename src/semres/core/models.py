"""Model sources (a hub id or a local folder) checked before anything loads: transformers reads a
mistyped folder as a hub id and fails with a confusing message.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["problem", "check_source"]

#: what ``save_pretrained`` leaves: the weights in one file or as shards with an index
WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
           "pytorch_model.bin.index.json")
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?")


def problem(value) -> str | None:
    """What is wrong with ``value`` as a model source; None for a hub id or a model folder."""
    text = str(value)
    path = Path(text).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            return f"{text} is not a model folder: it has no config.json"
        if not any((path / w).is_file() for w in WEIGHTS):
            return f"{text} is not a model folder: it has no weights ({' or '.join(WEIGHTS[:2])})"
        return None
    if path.exists():
        return f"{text} is a file, not a model folder"
    if _HUB_ID.fullmatch(text) and ".." not in text:
        return None
    return f"folder {text} does not exist"


def check_source(value, what: str) -> str:
    """``str(value)``, or a ValueError naming ``what`` when :func:`problem` finds something."""
    found = problem(value)
    if found:
        raise ValueError(f"{what}: {found}")
    return str(value)
