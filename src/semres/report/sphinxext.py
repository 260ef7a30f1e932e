"""The book's Sphinx extension (``_config.yml``, ``sphinx.extra_extensions``): author-year
bibliography, alt text from captions, where each chapter's code is, each figure's phone layout
beside it, and tables' CSV links."""

from __future__ import annotations

import codecs
import posixpath
import re
import unicodedata
from pathlib import Path

import latexcodec  # noqa: F401 - registers the "ulatex" codec
from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle as AuthorYearTitleSorting
from sphinx.util import logging

from .box import METHODS_PAGE
from .pages import SOURCE_ARCHIVE
from .plotting import split_phone, svg_width
from .tables import CSV_SCHEME

ALT_MAX = 400  # characters: a screen reader reads the whole alt text
RERUN = "How to rerun"  # the front page's section that says where the code is
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


def plain(latex: str) -> str:
    """BibTeX text as a reader reads it (``Sim{\\'e}oni`` -> ``Siméoni``)."""
    try:
        text = codecs.decode(latex, "ulatex")
    except (ValueError, UnicodeError):
        text = latex
    return " ".join(text.replace("{", "").replace("}", "").split())


def _authors(entry) -> str:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [plain(" ".join(p.prelast_names + p.last_names)) for p in people]
    if not names:
        return entry.key
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al."


class AuthorYearSorting(AuthorYearTitleSorting):
    """Entries by the authors' names as a reader reads them ("{Gemma Team}" under G, "Siméoni"
    under S), then year and title."""

    def person_key(self, person) -> str:
        return _fold(super().person_key(person))

    def sorting_key(self, entry):
        author, year, title = super().sorting_key(entry)
        return (author or _fold(entry.key), year, _fold(title))


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", plain(text))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


class AuthorYearStyle(UnsrtStyle):
    """The unsrt entries (they link ``doi`` and ``eprint``), sorted and labelled author-year."""

    default_label_style = "semres_author_year"
    default_sorting_style = "semres_author_year"


register_plugin("pybtex.style.labels", "semres_author_year", AuthorYearLabels)
register_plugin("pybtex.style.sorting", "semres_author_year", AuthorYearSorting)
register_plugin("pybtex.style.formatting", "semres_author_year", AuthorYearStyle)


def alt_from_captions(app, doctree, docname) -> None:
    """Every figure's caption as its image's alt text, unless it has its own (docutils falls
    back to the file name)."""
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


def _source_link(app, docname: str):
    """A link to the source archive this build packed, relative to ``docname`` (or None)."""
    static = [Path(app.confdir) / p for p in (app.config.html_static_path or [])]
    if not any((folder / SOURCE_ARCHIVE).is_file() for folder in static):
        return None
    href = posixpath.relpath(f"_static/{SOURCE_ARCHIVE}", posixpath.dirname(docname) or ".")
    return nodes.reference("", "the source this book was built from", refuri=href)


def _after_result_box(title) -> int:
    """Where a line goes under a chapter's title: after its result box (the admonition with
    the ``semres-outcome`` mark), which a phone shows first; else under the title."""
    section = title.parent
    for at, node in enumerate(section.children):
        if isinstance(node, nodes.Admonition) and any(
                "semres-outcome" in raw.astext() for raw in node.findall(nodes.raw)):
            return at + 1
    at = section.index(title) + 1
    while at < len(section) and isinstance(section[at], nodes.warning):
        at += 1  # a stale page's warning stays the first thing under the title
    return at


def code_line(app, doctree, docname) -> None:
    """Under a chapter's result box, how to get the package its notebook imports and run it:
    the source archive and, once ``repository.url`` is set, the repository (never guessed)."""
    if not docname.startswith("notebooks/") or docname.endswith(METHODS_PAGE):
        return
    title = next(iter(doctree.findall(nodes.title)), None)
    if title is None:
        return
    url = _repository(app)
    number = int(docname.split("/")[-1][:2]) if docname.split("/")[-1][:2].isdigit() else None
    archive = _source_link(app, docname)
    line = nodes.paragraph(classes=["semres-code"])
    line += [nodes.strong("", "Code: "),
             nodes.Text("download this page as a notebook (the download button at the top, "
                        "“.ipynb”). It imports the package "),
             nodes.literal("", "semres"), nodes.Text(", in ")]
    if archive is not None:
        line += [archive, nodes.Text(" (.tar.gz)" + (" or " if url else ""))]
    if url:
        line += nodes.reference("", "the book's repository", refuri=url)
    if archive is None and not url:
        line += nodes.Text("the book's repository folder")
    line += [nodes.Text("; there "), nodes.literal("", "make env"), nodes.Text(" installs it, "),
             nodes.literal("", f"semres run {number}" if number else "semres run"),
             nodes.Text(" reruns this chapter and "), nodes.literal("", "make book"),
             nodes.Text(" rebuilds the book.")]
    title.parent.insert(_after_result_box(title), line)


def _repository(app) -> str:
    """The repository's address from ``_config.yml`` (``repository.url``), or ""."""
    return ((app.config.html_theme_options or {}).get("repository_url") or "").strip()


def get_the_code(app, doctree, docname) -> None:
    """On the front page, where the code is and the commands that run it: under its section
    on rerunning (its findings come first), else under its title."""
    url = _repository(app)
    archive = _source_link(app, docname)
    if docname != app.config.root_doc or not (url or archive is not None):
        return
    titles = list(doctree.findall(nodes.title))
    title = next((t for t in titles if t.astext().startswith(RERUN)), titles[0] if titles
                 else None)
    if title is None:
        return
    line = nodes.paragraph(classes=["semres-code", "semres-get-code"])
    line += nodes.strong("", "Get the code: ")
    if archive is not None:
        line += [archive, nodes.Text(" (.tar.gz, the files of the commit named on the "
                                     "reproducibility page)" + (", or " if url else ""))]
    if url:
        line += nodes.reference("", url, refuri=url)
    line += [nodes.Text(". Unpack or clone it, then "), nodes.literal("", "make book"),
             nodes.Text(" executes every chapter and builds this book, and "),
             nodes.literal("", "semres run 3")]
    line += nodes.Text(" reruns one chapter (here the third); each chapter's page also "
                       "downloads as a notebook.")
    title.parent.insert(title.parent.index(title) + 1, line)


def phone_figures(app, doctree) -> None:
    """Split every SVG that carries a phone layout into ``<name>.svg`` (``semres-wide``) and
    ``<name>.phone.svg`` (``semres-narrow``), both on the page; the CSS shows the one that
    fits. Runs before Sphinx collects the images, so both are copied."""
    docname = app.env.docname
    for image in list(doctree.findall(nodes.image)):
        uri = image.get("uri", "")
        if not uri.lower().endswith(".svg") or "://" in uri or uri.startswith("data:") \
                or "semres-narrow" in image["classes"]:
            continue
        path = Path(app.env.relfn2path(uri, docname)[1])
        if not path.is_file():
            continue
        desktop, phone = split_phone(path.read_text(encoding="utf-8"))
        twin = path.with_name(path.stem + ".phone.svg")
        if phone is not None:  # split once; a page read again finds the two files
            path.write_text(desktop, encoding="utf-8")
            twin.write_text(phone, encoding="utf-8")
        elif not twin.is_file():
            continue
        image["classes"] = [*image["classes"], "semres-wide"]
        narrow = nodes.image(uri=uri[:-4] + ".phone.svg", classes=["semres-narrow"],
                             alt=image.get("alt", ""))
        asked = image.get("width")  # a width the page asked for (":width: 100%") stays
        for node, file in ((image, path), (narrow, twin)):
            node["loading"] = "lazy"  # a reader's browser fetches the one it shows
            # the box has its width before the image loads (matplotlib writes points)
            node["width"] = asked or f"{96 * svg_width(file.read_text(encoding='utf-8')):.0f}px"
        image.parent.insert(image.parent.index(image) + 1, narrow)


def csv_links(app, doctree, docname) -> None:
    """Point each table's CSV link at ``_static/results/<chapter>/<name>.csv``; a link to a CSV
    the chapter did not write is a warning (the strict build fails)."""
    chapter = docname.rsplit("/", 1)[-1].removesuffix(METHODS_PAGE)  # its methods page's too
    folder = posixpath.relpath(f"_static/results/{chapter}", posixpath.dirname(docname) or ".")
    static = [Path(app.confdir) / p for p in (app.config.html_static_path or [])]
    for raw in list(doctree.findall(nodes.raw)):
        text = raw.astext()
        if CSV_SCHEME not in text:
            continue

        def link(match):
            name = match.group(1)
            if not any((s / "results" / chapter / f"{name}.csv").is_file() for s in static):
                logging.getLogger(__name__).warning(
                    f"table links {name}.csv, which {chapter} did not write", location=raw)
            return f'href="{folder}/{name}.csv"'

        text = re.sub(rf'href="{re.escape(CSV_SCHEME)}([^"]+)"', link, text)
        raw.replace_self(nodes.raw("", text, format=raw.get("format", "html"),
                                   classes=raw.get("classes", [])))


def launch_sources(app, pagename, templatename, context, doctree) -> None:
    """Launch buttons open the chapter's ``.py`` source (through jupytext), not the ``.ipynb``
    the repository does not hold. Runs after sphinx-book-theme made the buttons."""
    if not pagename.startswith("notebooks/"):
        return

    def fix(buttons):
        for button in buttons or []:
            if isinstance(button, dict):
                url = button.get("url") or ""
                if "urlpath=" in url and url.endswith(f"{pagename}.ipynb"):
                    button["url"] = url[:-len(".ipynb")] + ".py"
                fix(button.get("buttons"))

    fix(context.get("header_buttons"))


def _thebe_asset(filename, attributes: dict) -> bool:
    return "sphinx-thebe" in str(filename or "") or "THEBE_JS_URL" in attributes.get("body", "")


def drop_thebe(app, env, docnames) -> None:
    """Leave Thebe's scripts off unless its launch button is on: they serve no live kernel,
    and their settings reached each page twice ("Identifier 'THEBE_JS_URL' has already been
    declared"). Runs after sphinx-thebe added them."""
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
    app.connect("doctree-read", phone_figures, priority=400)  # before the image collector
    app.connect("doctree-resolved", alt_from_captions)
    app.connect("doctree-resolved", code_line)
    app.connect("doctree-resolved", get_the_code)
    app.connect("doctree-resolved", csv_links)
    app.connect("html-page-context", launch_sources, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
