"""What a chapter's run depends on, as one digest, so that a rebuild reruns only the chapters
whose inputs changed: the notebook's code cells (a prose edit re-renders from the stored outputs,
:func:`semres.pipeline.book.with_current_prose`), the profile and parameters, every package
module the notebook imports (transitively) with the data files beside them, and the installed
distributions."""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import sys
from importlib import metadata
from pathlib import Path

import jupytext

import semres

PACKAGE = Path(semres.__file__).resolve().parent


def digest(notebook: Path, profile: str, parameters: dict) -> str:
    """The key of one chapter's run: equal keys mean a rerun would read the same inputs."""
    h = hashlib.sha256()
    h.update(json.dumps({"profile": profile, "parameters": parameters, "python": sys.version},
                        sort_keys=True, default=str).encode())
    h.update(code(notebook).encode())
    for path in sorted(sources(notebook)):
        h.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    h.update(_distributions().encode())
    return h.hexdigest()[:20]


def code(notebook: Path) -> str:
    """The notebook's code cells, in order: what its run executes."""
    return "\n\0".join(c.source for c in jupytext.read(notebook).cells if c.cell_type == "code")


def sources(notebook: Path) -> set[Path]:
    """The package's files a notebook's run reads: the modules it imports, transitively, each
    package's ``__init__`` on the way, and the data files beside every module reached."""
    todo = _imported(ast.parse(_python_only(code(notebook).replace("\0", ""))), None)
    seen: set[Path] = set()
    while todo:
        path = _file(todo.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        todo |= _module_imports(path.read_text(), _module_name(path))
        todo |= _parents(_module_name(path))
    return seen | {data for path in seen for data in _data_beside(path)}


def _python_only(code: str) -> str:
    """Notebook code without IPython's magics and shell escapes, which are not Python."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in code.splitlines())


@functools.lru_cache(maxsize=None)
def _module_imports(text: str, module: str) -> frozenset:
    """:func:`_imported` of a module's text, parsed once for all chapters."""
    return frozenset(_imported(ast.parse(text), module))


def _imported(tree: ast.AST, module: str | None) -> set[str]:
    """Module names of the package an import anywhere in ``tree`` may load: ``from a import b``
    counts both ``a`` and ``a.b`` (``b`` may be a submodule)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level and module:
                package = module if _file(module).stem == "__init__" else module.rpartition(".")[0]
                base = importlib.util.resolve_name("." * node.level + base, package)
            names |= {base, *(f"{base}.{a.name}" for a in node.names)}
    return {n for n in names if n == "semres" or n.startswith("semres.")}


def _parents(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:k]) for k in range(1, len(parts))}


def _file(module: str) -> Path | None:
    rel = Path(*module.split(".")[1:])
    paths = (PACKAGE / rel / "__init__.py", (PACKAGE / rel).with_suffix(".py"))
    return next((path for path in paths if path.is_file()), None)


def _module_name(path: Path) -> str:
    parts = ["semres", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _data_beside(path: Path) -> list[Path]:
    """Files that are not Python next to a module, and in its folders that are not packages."""
    out = []
    for item in path.parent.iterdir():
        if item.is_file() and item.suffix not in (".py", ".pyc"):
            out.append(item)
        elif item.is_dir() and item.name != "__pycache__" and not (item / "__init__.py").exists():
            out += [p for p in item.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return out


@functools.lru_cache(maxsize=1)
def _distributions() -> str:
    """The installed distributions with their versions, read once a process (0.4 s)."""
    return ";".join(sorted(f"{d.metadata['Name']}=={d.version}"
                           for d in metadata.distributions() if d.metadata["Name"]))
