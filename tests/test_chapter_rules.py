"""The rules of CONTRIBUTING.md that a script can check, on every chapter and the package: a
chapter is at most 800 lines and hides at most a third of its code (the parameters cell
aside); it defines no function (a step of a derivation may, marked ``# derivation``) and types
no number outside its parameters cell; random streams are named (``semres.core.book.seeds``), never
computed from a seed; no module imports another's private names."""

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
PACKAGE = sorted((ROOT / "src" / "semres").rglob("*.py"))
HIDING = {"hide-input", "hide-cell", "remove-cell", "remove-input"}
MAX_LINES = 800
MAX_HIDDEN = 1 / 3


def _code_cells(path):
    nb = jupytext.read(path)
    return [c for c in nb.cells if c.cell_type == "code"]


def _lines(cell) -> int:
    return sum(1 for line in cell.source.splitlines() if line.strip() and
               not line.strip().startswith("#"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_is_short_and_shows_its_code(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES
    cells = [c for c in _code_cells(path) if "parameters" not in c.metadata.get("tags", [])]
    total = sum(_lines(c) for c in cells)
    hidden = sum(_lines(c) for c in cells if HIDING & set(c.metadata.get("tags", [])))
    assert hidden <= MAX_HIDDEN * total, f"{hidden} of {total} code lines hidden"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_defines_no_functions_and_types_no_settings(path):
    """Verdict rules, figures and settings live in the package, where they are tested."""
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
                and "# derivation" not in lines[n.lineno - 1]]
        assert not defs, f"defined in the chapter (a step of a derivation says '# derivation'" \
                         f" on its def line): {defs}"
        constants = [t.id for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value,
                                                                          (int, float))
                     and not isinstance(n.value.value, bool) for t in n.targets
                     if isinstance(t, ast.Name)]
        assert not constants, f"numbers typed into the chapter: {constants}"


SEED_ARITHMETIC = re.compile(r"\bseed\s*[*+]|\*\s*100_?003\b|\.spawn\(|SeedSequence\(\s*\[")


@pytest.mark.parametrize("path", CHAPTERS + PACKAGE, ids=lambda p: p.stem)
def test_random_streams_are_named_not_computed(path):
    hits = [line.strip() for line in path.read_text().splitlines()
            if SEED_ARITHMETIC.search(line) and not line.lstrip().startswith("#")]
    assert not hits, hits


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: p.stem)
def test_no_module_reaches_into_another_modules_private_names(path):
    tree = ast.parse(path.read_text())
    bad = [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
           for a in n.names if a.name.startswith("_") and a.name != "__version__"]
    assert not bad, bad
