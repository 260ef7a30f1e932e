"""The book's Sphinx extension: the bibliography's labels and order, the software it cites."""

import re
import unicodedata
from pathlib import Path

from pybtex.database import parse_file
from pybtex.plugin import find_plugin

import semres.report.sphinxext  # noqa: F401 - registers the styles
from semres.report.sphinxext import plain

ROOT = Path(__file__).resolve().parents[1]
SOFTWARE = ("meurer2017sympy", "harris2020numpy", "virtanen2020scipy", "lam2015numba",
            "mckinney2010pandas", "hunter2007matplotlib", "paszke2019pytorch",
            "wolf2020transformers", "sukumaran2010dendropy", "papermill2017",
            "executablebooks2020jupyterbook")


def _entries():
    style = find_plugin("pybtex.style.formatting", "semres_author_year")()
    bib = parse_file(ROOT / "book" / "references.bib")
    return list(style.format_entries(bib.entries.values()))


def test_latex_reads_as_characters():
    assert plain("Sim{\\'e}oni") == "Siméoni"
    assert plain("{\\v{C}}ert{\\'i}k") == "Čertík"
    assert plain("{Gemma Team}") == "Gemma Team"


def test_labels_have_no_latex_and_entries_follow_their_labels():
    labels = [e.label for e in _entries()]
    assert "Siméoni et al., 2025" in labels
    assert not [label for label in labels if re.search(r"[\\{}]", label)]

    def fold(text):
        text = unicodedata.normalize("NFKD", text)
        return "".join(c for c in text if not unicodedata.combining(c)).lower()

    assert [fold(label) for label in labels] == sorted(fold(label) for label in labels)


def test_every_entry_renders_without_raw_latex_and_software_is_cited():
    for entry in _entries():
        text = entry.text.render_as("text")
        assert "\\url" not in text and "\\" not in text, (entry.key, text)
    keys = {e.key for e in _entries()}
    assert set(SOFTWARE) <= keys
    page = (ROOT / "book" / "reproducibility.md").read_text()
    assert all(f"{{cite}}`{key}`" in page for key in SOFTWARE)
