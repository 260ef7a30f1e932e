"""What a cached result depends on: the code its function reaches and the package data it names.

:func:`closure` follows every name a function uses to the top-level statement binding it, within
the project (``semres`` and the function's own package), through module attributes, imports inside
functions and the classes of its arguments. Statements count as syntax trees without docstrings,
comments or line numbers, so documenting code changes no key. :func:`digest` hashes that closure
with every package data file a string in it names. A name built at run time (``getattr``) is not
seen; ``tests/test_cache.py`` checks that every function a cached call executes is in its closure.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import textwrap
import types
from functools import lru_cache
from pathlib import Path

__all__ = ["closure", "digest"]

#: the project's own packages, whose code a cached result's key follows
PACKAGES = ("semres",)
#: modules never followed: this one computes keys, and where work runs changes no result
NOT_FOLLOWED = ("semres.core.fingerprint", "semres.core.parallel")
_MISSING = object()


class _Module:
    """A module's source, parsed once per version of its file: top-level name -> statements."""

    def __init__(self, name: str, path: Path, tree: ast.Module):
        self.name, self.path = name, path
        self.defs: dict[str, list[ast.stmt]] = {}
        self._index(tree.body)
        self._read: dict[str, tuple] = {}

    def read(self, name: str) -> tuple:
        """(normalised text, names used, imports inside, strings) of a top-level name."""
        if name not in self._read:
            self._read[name] = _read(self.defs[name], self.name)
        return self._read[name]

    def _add(self, name: str, stmt: ast.stmt) -> None:
        stmts = self.defs.setdefault(name, [])
        if stmt not in stmts:
            stmts.append(stmt)

    def _index(self, body) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._add(stmt.name, stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:  # X = ..., X[k] = ..., X.attr = ..., a, b = ...
                    for node in ast.walk(target):
                        if isinstance(node, ast.Name):
                            self._add(node.id, stmt)
            elif isinstance(stmt, ast.Expr):  # X.update(...), X.setflags(...)
                node = stmt.value.func if isinstance(stmt.value, ast.Call) else stmt.value
                while isinstance(node, ast.Attribute):
                    node = node.value
                if isinstance(node, ast.Name):
                    self._add(node.id, stmt)
            elif isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for block in ("body", "orelse", "finalbody"):
                    self._index(getattr(stmt, block, []))
                for handler in getattr(stmt, "handlers", []):
                    self._index(handler.body)


@lru_cache(maxsize=256)
def _parse(name: str, path: str, version: tuple) -> _Module:
    return _Module(name, Path(path), ast.parse(Path(path).read_text(encoding="utf-8")))


def _module(name: str) -> _Module | None:
    path = getattr(sys.modules.get(name), "__file__", None)
    if not path or not path.endswith(".py") or not os.path.isfile(path):
        return None  # a notebook's __main__, a compiled module
    st = os.stat(path)
    return _parse(name, path, (st.st_mtime_ns, st.st_size))


def _references(node: ast.AST):
    """(name, attribute chain) for every name the code uses: ``years.fit(x)`` gives
    ("years", ("fit",)) and ("x", ())."""
    chain = []
    base = node
    while isinstance(base, ast.Attribute):
        chain.append(base.attr)
        base = base.value
    if isinstance(base, ast.Name):
        yield base.id, tuple(reversed(chain))
    else:
        for child in ast.iter_child_nodes(base):
            yield from _references(child)


def _local_imports(node: ast.AST, module: str) -> dict[str, tuple[str, str | None]]:
    """Names bound by imports inside a definition: name -> (module, attribute or None)."""
    is_package = hasattr(sys.modules.get(module), "__path__")
    package = module if is_package else module.rpartition(".")[0]
    found = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Import):
            for alias in sub.names:
                top = alias.name.split(".")[0]
                found[alias.asname or top] = (alias.name if alias.asname else top, None)
        elif isinstance(sub, ast.ImportFrom):
            try:
                source = importlib.util.resolve_name("." * sub.level + (sub.module or ""),
                                                     package) if sub.level else sub.module
            except (ImportError, ValueError):
                continue
            for alias in sub.names:
                found[alias.asname or alias.name] = (source, alias.name)
    return found


def _read(stmts, module: str) -> tuple:
    stmts = [copy.deepcopy(s) for s in stmts]
    local: dict = {}
    refs: list = []
    strings: list = []
    for stmt in stmts:
        for sub in ast.walk(stmt):  # without docstrings
            body = getattr(sub, "body", None)
            if (isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
                    and body and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                sub.body = body[1:] or [ast.Pass()]
        local.update(_local_imports(stmt, module))
        refs.extend(_references(stmt))
        strings.extend(n.value for n in ast.walk(stmt)
                       if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return "\n".join(ast.dump(s) for s in stmts), refs, local, strings


class _Closure:
    def __init__(self, packages):
        self.packages = set(packages)
        self.parts: dict[str, str] = {}
        self.files: set[str] = set()

    def owned(self, module) -> bool:
        return (isinstance(module, str) and module.split(".")[0] in self.packages
                and module not in NOT_FOLLOWED)

    def object(self, obj, chain=()) -> None:
        """Whatever a name or an argument stands for."""
        if isinstance(obj, types.ModuleType):
            if not self.owned(obj.__name__):
                return
            mod = _module(obj.__name__)
            if chain:
                self.name(chain[0], chain[1:], obj.__name__, vars(obj))
            elif mod is not None:  # the module itself is used: all of it
                for name in mod.defs:
                    self.definition(obj.__name__, name)
            return
        try:
            obj = inspect.unwrap(obj)
        except Exception:  # noqa: BLE001 - a broken __wrapped__ chain: keep the object
            pass
        if not (inspect.isclass(obj) or inspect.isroutine(obj)):
            obj = type(obj)
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if not self.owned(module) or not isinstance(qualname, str):
            return
        mod = _module(module)
        if mod is not None and qualname.split(".")[0] in mod.defs:
            self.definition(module, qualname.split(".")[0])
        elif f"{module}.{qualname}" not in self.parts:  # no source file: its own source
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
            except (OSError, TypeError, SyntaxError):
                self.parts[f"{module}.{qualname}"] = "<no source>"
                return
            namespace = getattr(obj, "__globals__", None) or vars(sys.modules[module])
            self.walk(f"{module}.{qualname}", _read(tree.body, module), module, namespace)

    def definition(self, module: str, name: str) -> None:
        key = f"{module}.{name}"
        if key not in self.parts:
            mod = _module(module)
            self.files.add(str(mod.path))
            self.walk(key, mod.read(name), module, vars(sys.modules[module]))

    def walk(self, key: str, read: tuple, module: str, namespace: dict) -> None:
        text, refs, local, strings = read
        self.parts[key] = text
        for name, chain in refs:
            if name in local:
                self.imported(*local[name], chain)
            else:
                self.name(name, chain, module, namespace)
        top = sys.modules.get(module.split(".")[0])
        path = getattr(top, "__file__", None)
        if path and path.endswith("__init__.py"):  # package data the strings name
            for text in strings:
                self.data(Path(path).parent, text)

    def name(self, name: str, chain, module: str, namespace: dict) -> None:
        mod = _module(module) if self.owned(module) else None
        if mod is not None and name in mod.defs:
            self.definition(module, name)
        elif name in namespace:
            self.object(namespace[name], chain)

    def imported(self, module: str, attr: str | None, chain) -> None:
        if not self.owned(module):
            return
        try:
            source = importlib.import_module(module)
        except ImportError:
            return
        mod = _module(module)
        if attr is None:
            self.object(source, chain)
        elif mod is not None and attr in mod.defs:
            self.definition(module, attr)
        else:
            obj = getattr(source, attr, _MISSING)
            if obj is _MISSING:  # from package import submodule, not yet imported
                try:
                    obj = importlib.import_module(f"{module}.{attr}")
                except ImportError:
                    return
            self.object(obj, chain)

    def data(self, root: Path, text: str) -> None:
        if (len(text) > 200 or text.startswith(("/", ".", "_")) or ".." in text
                or "\n" in text or not ("/" in text or Path(text).suffix)):
            return  # only what reads like a path inside the package
        try:
            path = root / text
            if not path.exists():
                return
        except (OSError, ValueError):
            return
        key = f"data:{path.relative_to(root)}"
        if key not in self.parts:
            files = [path] if path.is_file() else sorted(
                p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                and p.suffix not in (".py", ".pyc"))
            h = hashlib.sha256()
            for f in files:
                h.update(str(f.relative_to(path.parent)).encode() + b"\0" + f.read_bytes() + b"\0")
            self.parts[key] = h.hexdigest()
            self.files.update(map(str, [path, *files]))  # a folder: its files' versions too


def _closure(fn, depends_on) -> _Closure:
    module = getattr(inspect.unwrap(fn), "__module__", None) or ""
    found = _Closure((*PACKAGES, module.split(".")[0]))
    for obj in (fn, *depends_on):
        found.object(obj)
    return found


def closure(fn, *depends_on) -> dict[str, str]:
    """Every definition ``fn`` (and ``depends_on``) reaches: qualified name -> normalised syntax
    tree, and ``data:<path>`` -> a digest of each package data file or folder named.
    """
    return _closure(fn, depends_on).parts


_DIGESTS: dict = {}


def _versions(files) -> tuple:
    out = []
    for f in sorted(files):
        try:
            st = os.stat(f)
            out.append((f, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((f, None, None))
    return tuple(out)


def digest(fn, *depends_on) -> str:
    """12 hex digits naming :func:`closure` of ``fn``, remembered per version of the files it read.
    """
    key = (fn, depends_on)
    try:
        memo = _DIGESTS.get(key)
    except TypeError:  # an unhashable callable: nothing to remember it by
        memo = None
    if memo is not None and _versions(memo[0]) == memo[1]:
        return memo[2]
    found = _closure(fn, depends_on)
    h = hashlib.sha256()
    for name in sorted(found.parts):
        h.update(f"{name}\0{found.parts[name]}\0".encode())
    value = h.hexdigest()[:12]
    try:
        _DIGESTS[key] = (found.files, _versions(found.files), value)
    except TypeError:
        pass
    return value
