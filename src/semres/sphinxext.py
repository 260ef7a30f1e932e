"""Sphinx extension for the book: author-year bibliography, alt text from figure captions, and
on every chapter a line that says where its code is.

Listed in ``_config.yml`` (``sphinx.extra_extensions``) and importable because ``semres`` is
installed, so the book needs no ``conf.py`` of its own.
"""

from __future__ import annotations

import re

from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle

ALT_MAX = 400  # characters: a screen reader reads the whole alt text, so keep it to the point
# LaTeX in a caption, as a reader of the alt text should hear it
SYMBOLS = {"varepsilon": "ε", "epsilon": "ε", "Delta": "Δ", "delta": "δ", "alpha": "α",
           "lambda": "λ", "sigma": "σ", "tau": "τ", "mu": "μ", "nu": "ν", "pm": "±",
           "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "langle": "⟨", "rangle": "⟩",
           "cdot": "·", "times": "×", "to": "→", "infty": "∞", "approx": "≈"}


class AuthorYearLabels(BaseLabelStyle):
    """Labels that read like the citations in the text: "Luce, 1959", "Nurisso et al., 2026"."""

    def format_labels(self, sorted_entries):
        seen: dict[str, int] = {}
        for entry in sorted_entries:
            label = f"{_authors(entry)}, {entry.fields.get('year', 'n.d.')}"
            seen[label] = seen.get(label, 0) + 1
            # two works by the same authors in the same year: 2020, 2020b, ...
            yield label if seen[label] == 1 else f"{label}{chr(ord('a') + seen[label] - 1)}"


def _authors(entry) -> str:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
    if not names:
        return entry.key
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al."


class AuthorYearStyle(UnsrtStyle):
    """The unsrt entries (they link ``doi`` and arXiv ``eprint`` fields), sorted by author and
    year, labelled author-year."""

    default_label_style = "semres_author_year"
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.labels", "semres_author_year", AuthorYearLabels)
register_plugin("pybtex.style.formatting", "semres_author_year", AuthorYearStyle)


def alt_from_captions(app, doctree, docname) -> None:
    """Give every figure's image the figure's caption as alt text, unless it has its own.

    docutils falls back to the file name, which tells a reader nothing.
    """
    for figure in doctree.findall(nodes.figure):
        captions = list(figure.findall(nodes.caption))
        if not captions:
            continue
        text = re.sub(r"\\([A-Za-z]+)", lambda m: SYMBOLS.get(m[1], m[1]), captions[0].astext())
        text = " ".join(text.replace("{", "").replace("}", "").split())
        if len(text) > ALT_MAX:
            text = text[: ALT_MAX - 1].rsplit(" ", 1)[0] + "…"
        for image in figure.findall(nodes.image):
            if not image.get("alt") or image.get("alt") == image.get("uri"):
                image["alt"] = text


def code_line(app, doctree, docname) -> None:
    """Under a chapter's title, say how to get and run its code.

    The downloaded notebook imports ``semres``; without this a reader has the notebook but not
    the package. The repository's address is linked once ``repository.url`` is filled in
    (``_config.yml``); the book never guesses one.
    """
    if not docname.startswith("notebooks/"):
        return
    title = next(iter(doctree.findall(nodes.title)), None)
    if title is None:
        return
    url = (app.config.html_theme_options or {}).get("repository_url") or ""
    number = int(docname.split("/")[-1][:2]) if docname.split("/")[-1][:2].isdigit() else None
    where = (nodes.reference("", "the book's repository", refuri=url) if url
             else nodes.Text("the book's repository folder"))
    line = nodes.paragraph(classes=["semres-code"])
    line += nodes.strong("", "Code: ")
    line += nodes.Text("download this page as a notebook (the download button at the top, "
                       "“.ipynb”). It imports the package ")
    line += nodes.literal("", "semres")
    line += nodes.Text(", which installs from ")
    line += where
    line += nodes.Text(" with ")
    line += nodes.literal("", "pip install -c constraints.txt -e .")
    line += nodes.Text(" (or ")
    line += nodes.literal("", "make env")
    line += nodes.Text("); then ")
    line += nodes.literal("", f"semres run {number}" if number else "semres run")
    line += nodes.Text(" reruns this chapter and ")
    line += nodes.literal("", "make book")
    line += nodes.Text(" rebuilds the book.")
    at = title.parent.index(title) + 1
    while at < len(title.parent) and isinstance(title.parent[at], nodes.warning):
        at += 1  # a stale page's warning stays the first thing under the title
    title.parent.insert(at, line)


def _thebe_asset(filename, attributes: dict) -> bool:
    return "sphinx-thebe" in str(filename or "") or "THEBE_JS_URL" in attributes.get("body", "")


def drop_thebe(app, env, docnames) -> None:
    """Leave Thebe's scripts off the pages unless the Thebe launch button is on.

    Jupyter Book always loads sphinx-thebe, and with the installed Sphinx its inline settings
    reach each page twice, so every page threw "Identifier 'THEBE_JS_URL' has already been
    declared". The book launches no live kernel (the button needs a repository on Binder), so
    the scripts serve nothing; runs after sphinx-thebe added them (priority 900).
    """
    if ((app.config.html_theme_options or {}).get("launch_buttons") or {}).get("thebe"):
        return
    app.registry.js_files[:] = [(name, attrs) for name, attrs in app.registry.js_files
                                if not _thebe_asset(name, attrs)]
    builder = getattr(app, "builder", None)
    if builder is not None and hasattr(builder, "_js_files"):
        builder._js_files[:] = [js for js in builder._js_files
                                if not _thebe_asset(js.filename, js.attributes)]


def setup(app):
    app.connect("env-before-read-docs", drop_thebe, priority=900)
    app.connect("doctree-resolved", alt_from_captions)
    app.connect("doctree-resolved", code_line)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
