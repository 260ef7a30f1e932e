"""A chapter's inputs are its code, not its prose: a markdown edit keeps the run's key, and the
page is staged from the stored outputs with the markdown as it is now."""

import json

import jupytext
import nbformat
import yaml

from semres.pipeline import book, inputs

CHAPTER = """# %% [markdown]
# # A title
#
# First sentence.

# %% tags=["parameters"]
profile = "quick"

# %%
x = 1 + 1
x

# %% [markdown]
# Closing words.
"""


def _executed(path):
    """The notebook as papermill leaves it: an injected-parameters cell, outputs."""
    nb = jupytext.read(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"},
                                                   execution_count=1)]
    injected = nbformat.v4.new_code_cell('profile = "default"')
    injected.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(2, injected)
    return json.loads(nbformat.writes(nb))


def test_a_markdown_edit_keeps_the_key_and_a_code_edit_changes_it(tmp_path):
    path = tmp_path / "01_x.py"
    path.write_text(CHAPTER)
    key = inputs.digest(path, "quick", {})
    path.write_text(CHAPTER.replace("First sentence.", "A better first sentence."))
    assert inputs.digest(path, "quick", {}) == key
    path.write_text(CHAPTER.replace("1 + 1", "1 + 2"))
    assert inputs.digest(path, "quick", {}) != key


def test_the_page_takes_the_current_prose_and_keeps_the_outputs(tmp_path):
    path = tmp_path / "01_x.py"
    path.write_text(CHAPTER)
    ran = _executed(path)
    path.write_text(CHAPTER.replace("Closing words.", "Closing words, rewritten.\n#\n# More.")
                    .replace("# %%\nx = 1", '# %% tags=["hide-input"]\nx = 1'))
    page = book.with_current_prose(path, ran)
    kinds = [c["cell_type"] for c in page["cells"]]
    assert kinds == ["markdown", "code", "code", "code", "markdown"]
    assert "injected-parameters" in page["cells"][2]["metadata"]["tags"]
    assert page["cells"][3]["outputs"] == ran["cells"][3]["outputs"]
    assert page["cells"][3]["metadata"]["tags"] == ["hide-input"]
    assert "rewritten" in page["cells"][4]["source"] and "More." in page["cells"][4]["source"]
    nbformat.validate(nbformat.reads(json.dumps(page), as_version=4))


def test_a_page_whose_code_changed_is_staged_as_it_ran(tmp_path):
    path = tmp_path / "01_x.py"
    path.write_text(CHAPTER)
    ran = _executed(path)
    path.write_text(CHAPTER.replace("1 + 1", "1 + 2").replace("Closing", "New"))
    assert book.with_current_prose(path, ran) == ran


def _glued(name):
    return {"output_type": "display_data", "data": {"text/plain": "1"},
            "metadata": {"scrapbook": {"name": name, "mime_prefix": ""}}}


def test_a_methods_heading_splits_the_page_and_each_part_keeps_the_others_glue(tmp_path):
    cells = [nbformat.v4.new_markdown_cell("# Title\n\nThe finding."),
             nbformat.v4.new_code_cell("glue('a', 1)", outputs=[_glued("a")]),
             nbformat.v4.new_markdown_cell("## Methods and checks\n\n### The fit window"),
             nbformat.v4.new_code_cell("glue('b', 2)", outputs=[_glued("b")]),
             nbformat.v4.new_markdown_cell("## Details\n\nText.")]
    cells = json.loads(json.dumps(cells))
    nb = {"cells": cells, "metadata": {}}
    page, methods = book.split_methods(nb)
    assert [c["source"] for c in page["cells"] if c["cell_type"] == "markdown"] == \
        ["# Title\n\nThe finding."]
    # the methods page is titled by its heading, its sections one level up
    assert [c["source"] for c in methods["cells"] if c["cell_type"] == "markdown"] == \
        ["# Methods and checks\n\n## The fit window", "# Details\n\nText."]
    # each page carries the other's glued values in a removed cell, and only those
    for part, other in ((page, "b"), (methods, "a")):
        carried = part["cells"][1]
        assert carried["metadata"]["tags"] == ["remove-cell"]
        assert [o["metadata"]["scrapbook"]["name"] for o in carried["outputs"]] == [other]
    assert book.split_methods({"cells": cells[:2]}) == ({"cells": cells[:2]}, None)
    # the staged table of contents lists a chapter's methods page under it
    (tmp_path / "01_a_methods.ipynb").write_text("{}")
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: intro\nparts:\n- caption: C\n  chapters:\n"
                   "  - file: notebooks/01_a\n  - file: notebooks/02_b\n")
    book.add_methods_pages(toc, tmp_path)
    chapters = yaml.safe_load(toc.read_text())["parts"][0]["chapters"]
    assert chapters == [{"file": "notebooks/01_a",
                         "sections": [{"file": "notebooks/01_a_methods"}]},
                        {"file": "notebooks/02_b"}]
