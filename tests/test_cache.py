"""The on-disk cache keys an entry by the code it reaches (issue 29): an edit elsewhere reuses
the entry, an edit to what the cached function runs (its helpers, constants, data) recomputes
it. The edits are made to a small package written for each test, not to semres itself."""

from __future__ import annotations

import importlib
import itertools
import json
import os
import pkgutil
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import semres
from semres.core import book, fingerprint

MODEL = '''
"""A miniature experiment: training code, its settings, and a figure."""
import json
from pathlib import Path

from . import layers

RATE = 0.5


def train(n, log):
    with open(log, "a") as f:
        f.write("x")  # one mark per computation
    return [layers.step(k) * RATE for k in range(n)] + [_table()["bias"]]


def _table():
    """The shipped table."""
    return json.loads((Path(__file__).parent / "data/table.json").read_text())


def figure(values):
    """Not part of training."""
    return max(values)


def apply(fn, x):
    return fn(x)
'''

LAYERS = '''
def step(k):
    """One layer."""
    return k + 1


def unused(k):
    return k - 1


class Doubler:
    def __call__(self, x):
        return 2 * x
'''

FIGURES = '''
from .model import figure


def panel(values):
    return figure(values) / 2
'''


class Package:
    """A package on sys.path whose files the test edits, reloading what changed."""

    def __init__(self, root: Path, name: str):
        self.root, self.name = root / name, name
        (self.root / "data").mkdir(parents=True)
        for module, text in (("__init__", ""), ("model", MODEL), ("layers", LAYERS),
                             ("figures", FIGURES)):
            (self.root / f"{module}.py").write_text(textwrap.dedent(text))
        (self.root / "data" / "table.json").write_text('{"bias": 100}')
        self.clock = 1_000_000_000
        for path in self.root.rglob("*"):
            self._touch(path)
        sys.path.insert(0, str(root))
        self.model = importlib.import_module(f"{name}.model")
        importlib.import_module(f"{name}.figures")

    def _touch(self, path: Path) -> None:
        self.clock += 10  # a new modification time for every edit, as an editor leaves
        os.utime(path, (self.clock, self.clock))

    def edit(self, file: str, old: str, new: str) -> None:
        path = self.root / file
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new))
        self._touch(path)
        if file.endswith(".py"):
            importlib.reload(sys.modules[f"{self.name}.{file[:-3]}"])
            if file != "model.py":  # a module importing from it sees the new code too
                importlib.reload(sys.modules[f"{self.name}.model"])
            self.model = sys.modules[f"{self.name}.model"]

    def close(self) -> None:
        sys.path.remove(str(self.root.parent))
        for name in [m for m in sys.modules if m == self.name or m.startswith(self.name + ".")]:
            del sys.modules[name]


_NAMES = itertools.count()


@pytest.fixture
def package(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMRES_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    pkg = Package(tmp_path / "src", f"cachedemo{next(_NAMES)}")
    yield pkg
    pkg.close()


def _train(pkg: Package, tmp_path: Path) -> tuple[list, int]:
    """Train through the cache; (result, how many times training has run so far)."""
    log = tmp_path / "log"
    out = book.cache().cache(pkg.model.train)(3, str(log))
    return out, len(log.read_text())


def test_editing_code_training_does_not_reach_reuses_the_trained_model(package, tmp_path):
    first = _train(package, tmp_path)
    assert first == ([0.5, 1.0, 1.5, 100], 1)
    package.edit("model.py", "return max(values)", "return min(values)")  # another function
    package.edit("model.py", '"""Not part of training."""', '"""A figure."""')
    package.edit("layers.py", '"""One layer."""', '"""One layer: k + 1."""')  # a docstring
    package.edit("layers.py", "return k - 1", "return k - 2")  # an unused helper
    package.edit("figures.py", "/ 2", "/ 3")  # another module
    package.edit("model.py", "RATE = 0.5\n", "RATE = 0.5\n# moved down\n\n\n")  # lines move
    assert _train(package, tmp_path) == first  # the same entry: nothing retrained


@pytest.mark.parametrize("file, old, new, expected", [
    ("layers.py", "return k + 1", "return k + 2", [1.0, 1.5, 2.0, 100]),  # a helper it calls
    ("model.py", "RATE = 0.5", "RATE = 1.0", [1, 2, 3, 100]),  # a setting it reads
    ("model.py", '["bias"]', '["bias"] + 1', [0.5, 1.0, 1.5, 101]),  # its own code
    ("data/table.json", "100", "7", [0.5, 1.0, 1.5, 7]),  # a data file its code names
])
def test_editing_the_training_code_retrains(package, tmp_path, file, old, new, expected):
    assert _train(package, tmp_path) == ([0.5, 1.0, 1.5, 100], 1)
    package.edit(file, old, new)
    assert _train(package, tmp_path) == (expected, 2)
    assert _train(package, tmp_path) == (expected, 2)  # and the new entry is reused
    package.edit(file, new, old)  # undone: the first entry is still there
    assert _train(package, tmp_path) == ([0.5, 1.0, 1.5, 100], 2)


def test_closure_reads_through_modules_imports_and_arguments(package):
    parts = fingerprint.closure(package.model.train)
    name = package.name
    assert {f"{name}.model.train", f"{name}.model._table", f"{name}.model.RATE",
            f"{name}.layers.step", "data:data/table.json"} <= set(parts)
    assert not {f"{name}.model.figure", f"{name}.layers.unused"} & set(parts)
    # a dependency named explicitly, and the class of an argument, join the key
    assert fingerprint.digest(package.model.train) != fingerprint.digest(
        package.model.train, sys.modules[f"{name}.figures"].panel)

def test_a_changed_method_of_an_argument_recomputes(package):
    cached = book.cache().cache(package.model.apply)
    doubler = sys.modules[f"{package.name}.layers"].Doubler
    assert cached.key(doubler(), 3) != cached.key(abs, 3)
    assert cached(doubler(), 3) == 6
    package.edit("layers.py", "return 2 * x", "return 3 * x")
    doubler = sys.modules[f"{package.name}.layers"].Doubler
    assert cached(doubler(), 3) == 9  # the cached function is unchanged, its argument is not


def test_an_entry_lives_under_its_code_digest(package, tmp_path):
    cached = book.cache().cache(package.model.train)
    cached(2, str(tmp_path / "log"))
    digest = fingerprint.digest(package.model.train)
    (entry,) = (tmp_path / "build" / "cache").rglob("output.pkl")
    assert entry.relative_to(tmp_path / "build" / "cache").parts[0] == digest
    assert cached.key(2, "log") == digest


# --------------------------------------------------------------- the key covers what runs

def _executed(fn, *args, **kwargs) -> set[str]:
    """Every function of semres that runs during the call, as module.top-level name."""
    root = Path(semres.__file__).parent
    seen = set()

    unfollowed = tuple(str(root.parent.joinpath(*m.split("."))) + ".py"
                       for m in fingerprint.NOT_FOLLOWED)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(str(root)) and not (
                frame.f_back and frame.f_back.f_code.co_filename in unfollowed):
            seen.add((frame.f_code.co_filename, frame.f_code.co_qualname))

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        fn(*args, **kwargs)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    names = set()
    for file, qualname in seen:
        top = qualname.split(".")[0]
        module = ".".join(Path(file).relative_to(root.parent).with_suffix("").parts)
        if not top.startswith("<"):  # a module body runs on import, not in the call
            names.add(f"{module.removesuffix('.__init__')}.{top}")
    # modules not followed by design: the key's own code, and where work runs (no result
    # depends on it: tests/test_spread.py)
    return {n for n in names if not n.startswith(tuple(f"{m}." for m in fingerprint.NOT_FOLLOWED))}


def _cases():
    from semres.experiments.frontier import steps
    from semres.experiments.phylogeny import phylo, vision
    from semres.experiments.toy import superposition

    small_toy = superposition.ToyConfig(n_stimuli=12, n_hidden=4, epochs=2, trials_per_epoch=64,
                              batch_size=32, snapshot_epochs=(0, 2))
    data = phylo.simulate_dataset(6, 12, size=16, seed=0, ood_fraction=0.0)
    settings = dict(epochs=1, batch_size=16, lr=1e-2, widths=(4, 8), depths=(1, 1), n_eps=5,
                    max_probes=20)
    return [
        (superposition.train, (["circle", "segment"], [0, 1], small_toy), dict(progress=False)),
        (steps.trace, (2, 0.1, [2, 4], [0.7]), {}),
        (vision.train_and_evaluate_many, (data.images, data.species, data.distances,
                                          data.split, [(0.5, 1)], settings),
         dict(progress=False)),
    ]


@pytest.mark.parametrize("case", range(3), ids=["superposition.train", "steps.trace",
                                                "vision.train_and_evaluate_many"])
def test_every_function_a_cached_computation_runs_is_in_its_key(case):
    fn, args, kwargs = _cases()[case]
    executed = _executed(fn, *args, **kwargs)
    assert f"{fn.__module__}.{fn.__name__}" in executed
    missing = executed - set(fingerprint.closure(fn))
    assert not missing, f"{fn.__name__} runs code its cache key does not cover: {missing}"


def test_the_chapters_cached_functions_have_keys():
    """Every function a chapter or the package caches has a closure within semres."""
    import re

    root = Path(semres.__file__).parents[2]
    named = set()
    for path in [*root.joinpath("notebooks").glob("*.py"), *Path(semres.__file__).parent.rglob(
            "*.py")]:
        named |= set(re.findall(r"cache(?:\(\))?\.cache\((\w+\.\w+|_embed)\b", path.read_text()))
    assert {"superposition.train", "vision.train_and_evaluate_many", "lm_protocol.assess",
            "_embed"} <= named
    modules = {m.name.rpartition(".")[2]: m.name
               for m in pkgutil.walk_packages(semres.__path__, "semres.")}
    for name in sorted(named):
        module, attr = name.split(".") if "." in name else ("language", name)
        fn = getattr(importlib.import_module(modules[module]), attr)
        parts = fingerprint.closure(fn)
        assert f"{modules[module]}.{attr}" in parts
        assert all(key.startswith(("semres.", "data:")) for key in parts)


# --------------------------------------------------------------- what each chapter used

def test_each_chapter_counts_only_the_entries_it_used(tmp_path, monkeypatch):
    from semres.core import theory
    from semres.pipeline import runner

    front = book.Cache(tmp_path / "cache").cache(theory.front)
    key = front.key(0.7)
    logs = {name: tmp_path / f"{name}.jsonl" for name in ("first", "beside")}
    monkeypatch.setenv(book.CACHE_USE, str(logs["first"]))
    front(0.7)
    front(0.7)  # computed, then read again: counted once, as computed
    monkeypatch.setenv(book.CACHE_USE, str(logs["beside"]))  # a chapter running beside it
    front(0.7)
    front(0.8)
    assert runner._cache_use(logs["first"]) == {"computed": {key: 1}, "reused": {}}
    assert runner._cache_use(logs["beside"]) == {"computed": {key: 1}, "reused": {key: 1}}
    (entry,) = [p for p in (tmp_path / "cache").rglob("output.pkl")   # the one for p_i = 0.7
                if json.loads((p.parent / "metadata.json").read_text())["input_args"]
                == {"p_i": "0.7"}]
    entry.write_bytes(b"damaged")
    monkeypatch.setenv(book.CACHE_USE, str(tmp_path / "again.jsonl"))
    front(0.7)  # a damaged entry is computed again, and says so
    assert runner._cache_use(tmp_path / "again.jsonl") == {"computed": {key: 1}, "reused": {}}
    assert runner._cache_use(tmp_path / "none.jsonl") == {"computed": {}, "reused": {}}
