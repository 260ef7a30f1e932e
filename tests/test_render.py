"""Every page of the built book, rendered in headless Chromium at desktop and phone widths.

A page fails when typeset math (``.math``, MathJax's output), a table or a ``pre`` block is wider
than its container, when the page itself scrolls sideways, when an image has no alt text (or
only its file name), when a reference is unresolved (a cross-reference left without a link, or
a link to a page or anchor that does not exist), when a script fails or logs an error, when a
visible table shows "nan", when a figure's text renders smaller than the limits below, or when
a chapter has no result box, when a result box is taller than a phone's screen, when a table
scrolls sideways without saying so, when a table's text is under 12 px, when a chapter is longer
than its limit in phone screens (15 for chapter 5, 20 for the others), or when a chapter shows a
figure without a numbered caption. Chromium runs the page's own scripts, so MathJax has typeset
before we measure.

The page scan (``test_page_reads_like_a_book``, no browser needed) reads every built page as a
reader would: no "nan" or e-notation ("1e-07") in the prose (tables, code and math aside), no
raw backticks, no paragraph printed twice, no stray punctuation (" .", ".),", ",."), no table
with an index column or e-notation in its cells, and every table header words with units
(:func:`page_rules.header_problems`).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
import zlib
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

import page_rules
from semres.pipeline import runner

# every test here reads the session's built book (conftest.built): under pytest-xdist
# (`make test`, --dist loadgroup) they share one worker, so the book is built once
pytestmark = pytest.mark.xdist_group("book")

ROOT = Path(__file__).resolve().parents[1]
WIDTHS = {"desktop": 1280, "phone": 390}
#: the smallest text a figure may render at (CSS px): at desktop width about the captions' size
#: (``caption`` is measured on the page), on a phone 12 px, read without zooming (the phone
#: layout of each figure: semres.report.plotting.narrow)
FIGURE_TEXT = {"desktop": "caption", "phone": 12.0}
#: a result box is read at a glance: no taller than one phone screen (390 x 844 CSS px)
PHONE_SCREEN = 844
#: the smallest text a table may show (CSS px), at every width: read without zooming
TABLE_TEXT = 12.0
#: the longest a chapter's page may be, in phone screens (390 x 844 CSS px) with every prose
#: fold open: a page a reader finishes (the machinery goes to its "Methods and checks" page)
MOST_SCREENS = 15
#: a chapter's first result figure starts within this many phone screens
FIGURE_SCREENS = 2
#: the results-at-a-glance page, one row per claim, reads in this many phone screens
GLANCE_SCREENS = 8
#: a result box opens with a sentence of at least this many words (what came out)
LEAD_WORDS = 8
#: the left border of a result box for each outcome (book/_static/semres.css), as computed
OUTCOME_COLOR = {"good": "rgb(46, 147, 60)", "mixed": "rgb(217, 138, 0)",
                 "bad": "rgb(209, 73, 91)"}
BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(b)), None)


def _pages() -> list[str]:
    """Every page in the table of contents, as its path in the HTML build without suffix, with
    each chapter's "Methods and checks" page (the book stages it under its chapter)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    chapter = {c.name for c in runner.chapters()}
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        for c in part.get("chapters", []):
            pages += [c["file"]] + ([f"{c['file']}_methods"] if Path(c["file"]).name in chapter
                                    else [])
    return pages


# Runs first in the page's <head>: every script error, failed promise, console.error call and
# local file that fails to load is recorded (a file of another origin is the network's business).
EARLY = """
<script>
window.__semresErrors = [];
window.addEventListener("error", e => {
  const src = e.target && (e.target.src || e.target.href);
  if (src) { if (src.startsWith("file:")) __semresErrors.push(`cannot load ${src.slice(-80)}`); }
  else __semresErrors.push(`${e.message} (${(e.filename || "").split("/").pop()}:${e.lineno})`);
}, true);
window.addEventListener("unhandledrejection", e => __semresErrors.push(`rejected: ${e.reason}`));
const __semresConsoleError = console.error;
console.error = (...args) => { __semresErrors.push(args.join(" ")); __semresConsoleError(...args); };
</script>
"""

# Runs in the page after MathJax has typeset and posts its findings to the frame around it.
# Math must fit its container at every width; at desktop width a code block must also fit
# without scrolling, while on a phone it may scroll inside its own container. A table wider than
# the column may scroll inside its own box at any width, when the box says so ("is-wide").
PROBE = """
<script>
window.addEventListener("load", async () => {
  try { if (window.MathJax && MathJax.startup) await MathJax.startup.promise; } catch (e) {}
  await new Promise(r => setTimeout(r, 200));
  const desktop = window.innerWidth >= 1000;
  const main = document.querySelector("main") || document.body;
  const name = el => {
    const text = (el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 70);
    const cls = typeof el.className === "string" && el.className
      ? "." + el.className.split(" ")[0] : "";
    return `<${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${cls}> ${text}`;
  };
  const scrolls = el => {  // some container between el and the article scrolls sideways
    for (let p = el; p && p !== main; p = p.parentElement)
      if (["auto", "scroll"].includes(getComputedStyle(p).overflowX)) return true;
    return false;
  };
  // The book wraps long code lines (semres.css) so a reader never scrolls sideways; a line
  // still counts as too wide when it would not fit unwrapped, so measure an unwrapped copy.
  const overflows = el => {  // the content's width when it does not fit, else 0
    if (el.tagName !== "PRE") return el.scrollWidth - el.clientWidth > 1 ? el.scrollWidth : 0;
    const copy = el.cloneNode(true);
    const style = getComputedStyle(el);
    Object.assign(copy.style, {whiteSpace: "pre", position: "absolute", visibility: "hidden",
                               width: style.width, boxSizing: style.boxSizing});
    el.parentElement.appendChild(copy);
    const over = copy.scrollWidth - copy.clientWidth > 1 ? copy.scrollWidth : 0;
    copy.remove();
    return over;
  };
  const wide = [];
  for (const el of main.querySelectorAll(".math, mjx-container, table, pre")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;  // inside a collapsed (hidden) block
    const parent = el.parentElement;
    const room = parent.getBoundingClientRect().width;
    const isMath = el.matches(".math, mjx-container");
    const isTable = el.tagName === "TABLE";
    const over = box.width - room > 1 && (isMath || (desktop && !isTable) || !scrolls(parent));
    // content overflowing the element itself: a display equation (a block, as wide as its
    // container) or, at desktop width, a code block or table that would need a scroll bar;
    // inline math is skipped here, its glyphs overhang their box by a few pixels
    const block = el.tagName === "DIV" || el.getAttribute("display") === "true";
    const inner = isMath ? (block && el.scrollWidth - el.clientWidth > 4 ? el.scrollWidth : 0)
                         : (desktop && !isTable ? overflows(el) : 0);
    if (over || inner)
      wide.push(`${name(el)} (${Math.round(box.width)} px, content ${inner || el.scrollWidth}`
                + ` px, in ${Math.round(room)} px)`);
  }
  const noAlt = [];
  for (const img of document.querySelectorAll("img")) {
    const alt = (img.getAttribute("alt") || "").trim();
    const src = img.getAttribute("src") || "";
    if (img.getAttribute("role") === "presentation") continue;
    if (!alt || alt === src || alt.endsWith(src.split("/").pop())) noAlt.push(src.slice(-60));
  }
  const unresolved = [];
  for (const el of main.querySelectorAll(".xref, .pending_xref"))
    if (!el.closest("a")) unresolved.push(name(el));
  const links = [...main.querySelectorAll("a[href]")].map(a => a.getAttribute("href"));
  // the page as a whole must not scroll sideways
  const page = document.scrollingElement;
  const pageWidth = Math.max(page.scrollWidth, document.body.scrollWidth);
  // "nan" in a visible table is a dump, not a result
  const nan = [...new Set([...main.querySelectorAll("td, th")]
    .filter(c => c.getBoundingClientRect().width > 0 && /\\bnan\\b/i.test(c.textContent))
    .map(c => c.closest("tr")))].map(name);
  // the chapter's result box: an admonition titled "The result" with something in it
  const box = [...main.querySelectorAll(".admonition")].find(a =>
    (a.querySelector(".admonition-title")?.textContent || "").trim() === "The result");
  const resultBox = box ? box.textContent.replace("The result", "").trim().length : -1;
  const resultHeight = box ? Math.round(box.getBoundingClientRect().height) : 0;
  // where it starts on the page, and the words of what it says before its list
  const resultTop = box ? Math.round(box.getBoundingClientRect().top + window.scrollY) : 0;
  const leadText = box ? ([...box.querySelectorAll("p")].find(p =>
    !p.classList.contains("admonition-title") && !p.closest("li"))?.textContent || "") : "";
  // its outcome (semres.report.outcome) and the colour its left border shows
  const outcome = box?.querySelector(".semres-outcome")?.className.match(/outcome-(\\w+)/)?.[1];
  const resultColor = box ? getComputedStyle(box).borderLeftColor : "";
  // a table wider than the box it scrolls in must say so (semres.js marks the box "is-wide")
  const uncued = [];
  for (const t of main.querySelectorAll("table")) {
    if (!t.getBoundingClientRect().width) continue;
    let p = t.parentElement;
    while (p && p !== main && !["auto", "scroll"].includes(getComputedStyle(p).overflowX))
      p = p.parentElement;
    if (p && p !== main && p.scrollWidth > p.clientWidth + 1 && !p.classList.contains("is-wide"))
      uncued.push(name(t));
  }
  // a chapter's figure is numbered and captioned: "Fig. N" under it
  // display math no smaller than the inline math (and the text) beside it
  const shown = sel => [...main.querySelectorAll(sel)].filter(m => m.getBoundingClientRect().width);
  const inlineMath = shown('mjx-container:not([display="true"])')
    .map(m => parseFloat(getComputedStyle(m).fontSize));
  // each display's size, and the size it would take if set to fill its column exactly
  const displayMath = shown('mjx-container[display="true"]').map(m => {
    const size = parseFloat(getComputedStyle(m).fontSize);
    return {size, fill: size * m.clientWidth / Math.max(1, m.scrollWidth)};
  });
  const captionOf = i => i.closest("figure")?.querySelector("figcaption")?.textContent || "";
  const unnumbered = [...main.querySelectorAll("img")]
    .filter(i => i.getBoundingClientRect().width && !(i.getAttribute("src") || "")
      .includes("_static"))
    .filter(i => !/Fig\\.\\s*\\d/.test(captionOf(i)))
    .map(i => (i.getAttribute("src") || "").split("/").pop());
  // every figure image: how wide it renders against its natural width (the SVG's size)
  const figures = [...main.querySelectorAll("img")].filter(i => i.getBoundingClientRect().width)
    .map(i => ({src: i.getAttribute("src"), rendered: i.getBoundingClientRect().width,
                natural: i.naturalWidth}));
  // the smallest text of any visible table (sub- and superscripts and typeset math aside)
  const tableText = Math.min(...[...main.querySelectorAll("table")]
    .filter(t => t.getBoundingClientRect().width)
    .flatMap(t => [...t.querySelectorAll("th, td, th *, td *")])
    .filter(el => !el.closest("sub, sup, mjx-container, .math") &&
      [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
    .map(el => parseFloat(getComputedStyle(el).fontSize)));
  // how tall the page is (CSS px) at this width, and with every prose fold (a dropdown) open;
  // where its first figure starts
  const pageHeight = Math.max(page.scrollHeight, document.body.scrollHeight);
  const figure = [...main.querySelectorAll("img")].find(i => i.getBoundingClientRect().width
    && !(i.getAttribute("src") || "").includes("_static"));
  const figureTop = figure ? Math.round(figure.getBoundingClientRect().top + window.scrollY) : -1;
  for (const d of main.querySelectorAll("details.sd-dropdown")) d.open = true;
  await new Promise(r => setTimeout(r, 100));
  const openHeight = Math.max(page.scrollHeight, document.body.scrollHeight);
  const cap = main.querySelector("figcaption") || main.querySelector("p");
  const caption = cap ? parseFloat(getComputedStyle(cap).fontSize) : 16;
  const report = {width: window.innerWidth, wide, noAlt, unresolved, links, pageWidth, nan,
                  resultBox, resultHeight, resultTop, leadText, outcome, resultColor, uncued, unnumbered, figures, caption,
                  inlineMath, displayMath, text: parseFloat(getComputedStyle(main).fontSize),
                  tableText: Number.isFinite(tableText) ? tableText : null, pageHeight,
                  openHeight, figureTop,
                  errors: window.__semresErrors || [],
                  codeLine: (main.querySelector("p.semres-code")?.textContent || "")};
  parent.postMessage(JSON.stringify(report), "*");
});
</script>
"""

# Chromium will not open a window narrower than about 500 px, so a page is framed at each width
# under test, side by side in one row of one window, and several pages in rows below each other
# (one browser start for them all); the frame relays each probe's findings into its own DOM for
# --dump-dom, under the number of the frame that sent them.
FRAME = """<!DOCTYPE html><html><body style="margin:0">
{rows}
<script>
window.addEventListener("message", e => {{
  const k = [...document.querySelectorAll("iframe")].findIndex(f => f.contentWindow === e.source);
  document.documentElement.setAttribute("data-semres-report-" + k, e.data);
}});
</script></body></html>
"""
ROW = '<div style="display:flex;align-items:flex-start">{frames}</div>'
IFRAME = '<iframe src="{src}" style="border:0;flex:none;width:{width}px;height:900px"></iframe>'
#: the book's pages rendered per browser start: a start costs about what a short page does
#: (2.7 s, measured beside the book build), and a chapter takes 5 to 10 s
PAGES_PER_BROWSER = 6


def _render(page: Path, *widths: int) -> dict:
    """The probe's findings for ``page`` rendered at each of ``widths`` px, by width."""
    return _render_many([page], *widths)[0]


def _render_many(pages: list[Path], *widths: int) -> list[dict]:
    """The probe's findings for each of ``pages`` (by width, as :func:`_render`), from one
    browser start: each page is a row of frames, one frame per width."""
    # named per process, and a profile of its own: runs side by side never collide
    probes = [page.with_name(f"{page.stem}.{os.getpid()}.probe.html") for page in pages]
    home = Path(os.path.commonpath([page.parent for page in pages]))
    frame = home / f"semres-render.{os.getpid()}.frame.html"
    for page, probe in zip(pages, probes):
        text = page.read_text()
        head = text.find("<head>")
        text = text[:head + 6] + EARLY + text[head + 6:] if head >= 0 else EARLY + text
        probe.write_text(text.replace("</body>", PROBE + "</body>"))
    frame.write_text(FRAME.format(rows="\n".join(
        ROW.format(frames="".join(IFRAME.format(src=probe.relative_to(home).as_posix(), width=w)
                                  for w in widths)) for probe in probes)))
    profile = tempfile.TemporaryDirectory()
    try:
        done = subprocess.run(
            [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile.name}", "--allow-file-access-from-files",
             f"--window-size={sum(widths) + 40},{900 * len(pages)}",
             "--virtual-time-budget=20000", "--dump-dom", frame.as_uri()],
            capture_output=True, text=True, timeout=60 + 60 * len(pages))
    finally:
        for probe in probes:
            probe.unlink(missing_ok=True)
        frame.unlink(missing_ok=True)
        profile.cleanup()
    found = {int(k): json.loads(html.unescape(v))
             for k, v in re.findall(r'data-semres-report-(\d+)="([^"]*)"', done.stdout)}
    out = []
    for i, page in enumerate(pages):
        reports = {}
        for j, width in enumerate(widths):
            k = i * len(widths) + j
            assert k in found, (f"Chromium did not run the probe on {page.name} at {width} px: "
                                f"{done.stderr[-500:]}")
            reports[width] = found[k]
            assert reports[width]["width"] == width, reports[width]["width"]
        out.append(reports)
    return out


_RENDERED: dict[Path, dict] = {}


def _render_widths(root: Path, page: str) -> dict:
    """A built page's findings at every width of :data:`WIDTHS`. The book's pages are rendered
    :data:`PAGES_PER_BROWSER` at a time, in the order of the table of contents: the first
    page asked for of a batch renders the whole batch, the others read it."""
    path = root / f"{page}.html"
    if path not in _RENDERED:
        built = [p for p in (root / f"{q}.html" for q in _pages()) if p.is_file()]
        start = built.index(path) // PAGES_PER_BROWSER * PAGES_PER_BROWSER
        batch = built[start:start + PAGES_PER_BROWSER]
        _RENDERED.update(zip(batch, _render_many(batch, *WIDTHS.values())))
    return _RENDERED[path]


def svg_text_sizes(svg: str) -> tuple[float, list[tuple[float, str]]]:
    """An SVG's width in points and the nominal size (pt) of each text in it.

    matplotlib draws text as glyph paths in a group scaled by size/100 and names the text in a
    comment just before it (sub- and superscripts are scaled again inside: not counted here).
    """
    width = re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', svg)
    if not width:
        return 0.0, []
    found = re.findall(r"<!--\s*((?:(?!-->).)*?)\s*-->\s*<g transform=\"translate\([^)]*\) "
                       r"scale\(([\d.]+) -[\d.]+\)", svg, flags=re.S)
    return float(width.group(1)), [(float(scale) * 100, text) for text, scale in found]


def small_figure_text(page: Path, figures: list[dict], limit: float) -> list[str]:
    """The figures on ``page`` whose smallest text renders under ``limit`` CSS px, and every
    figure that is not an SVG (a PNG's text size cannot be read, and it blurs when zoomed)."""
    small = []
    for fig in figures:
        src = fig["src"] or ""
        if src.startswith("data:") or "_static" in src or "logo" in src:
            continue
        path = (page.parent / unquote(urlsplit(src).path))
        if path.suffix.lower() != ".svg":
            small.append(f"{src[-60:]}: not an SVG")
            continue
        width, texts = svg_text_sizes(path.read_text())
        if not texts:
            continue
        size, text = min(texts)
        px = size * fig["rendered"] / width
        if px < limit:
            small.append(f"{src[-60:]}: {text!r} renders at {px:.1f} px (< {limit:.1f})")
    return small


def small_display_math(report: dict) -> list[str]:
    """Display math smaller than the body text, or smaller than the page's inline math where
    it would fit its column at that size (a wide display may shrink to fit, down to the
    text's size)."""
    text, inline, display = report["text"], report["inlineMath"], report["displayMath"]
    if not display:
        return []
    floor = max(text, sorted(inline)[len(inline) // 2]) if inline else text
    small = [d["size"] for d in display
             if d["size"] < text - 0.5 or d["size"] < min(floor, d["fill"]) - 0.5]
    return [f"display math at {min(small):.1f} px, smaller than the text and inline math "
            f"beside it ({text:.1f} and {floor:.1f} px; {len(small)} of {len(display)} "
            "displays)"] if small else []


def screens(height: float) -> float:
    """A page's height in phone screens (:data:`PHONE_SCREEN` CSS px each)."""
    return height / PHONE_SCREEN


def too_long(chapter: str, height: float) -> list[str]:
    """A chapter page longer than :data:`MOST_SCREENS` phone screens, as a problem."""
    if screens(height) <= MOST_SCREENS:
        return []
    return [f"{screens(height):.1f} phone screens long with its prose folds open "
            f"({height:,.0f} px at 390 px), more than {MOST_SCREENS}"]


def _broken_links(page: Path, links: list[str]) -> list[str]:
    """Links to pages of the book that do not exist, or to anchors those pages lack."""
    broken = []
    for href in links:
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//"):
            continue  # external: not ours to check offline
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not target.is_file():
            broken.append(href)
            continue
        if parts.fragment and target.suffix == ".html":
            text = target.read_text()
            if f'id="{parts.fragment}"' not in text and f"id='{parts.fragment}'" not in text:
                broken.append(href)
    return broken


@pytest.fixture(scope="module")
def html_root(request):
    """The built book's HTML: the session's quick build, or SEMRES_RENDER_HTML (a folder with a
    finished build, to check the pages without executing the chapters again)."""
    if BROWSER is None:
        pytest.skip("page-fit test needs Chromium: apt-get install -y chromium")
    if os.environ.get("SEMRES_RENDER_HTML"):
        return Path(os.environ["SEMRES_RENDER_HTML"]).resolve()
    _, index, _ = request.getfixturevalue("built")
    return index.parent


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("page", _pages())
def test_page_fits_and_has_alt_text_and_resolved_references(html_root, page, width):
    path = html_root / f"{page}.html"
    chapter = {c.name for c in runner.chapters()}
    if not path.is_file():
        pytest.fail(f"{page}.html was not built")
    report = _render_widths(html_root, page)[width]
    problems = []
    problems += [f"wider than its container: {w}" for w in report["wide"]]
    problems += [f"image without alt text: {s}" for s in report["noAlt"]]
    problems += [f"unresolved reference: {u}" for u in report["unresolved"]]
    problems += [f"broken link: {b}" for b in _broken_links(path, report["links"])]
    problems += [f"script error: {e}" for e in report["errors"]]
    if report["pageWidth"] > width:
        problems.append(f"the page scrolls sideways: {report['pageWidth']} px wide")
    problems += [f"nan in a table row: {row}" for row in report["nan"]]
    kind = "desktop" if width >= 1000 else "phone"
    # the caption's size, less half a pixel of rounding (a 12 pt glyph at 688 of 691 px)
    limit = report["caption"] - 0.5 if FIGURE_TEXT[kind] == "caption" else FIGURE_TEXT[kind]
    problems += [f"figure text too small: {f}"
                 for f in small_figure_text(path, report["figures"], limit)]
    where = "chapter" if Path(page).name in chapter else "page"
    if where == "chapter" and report["resultBox"] <= 0:
        problems.append("no result box ('The result') with content")
    if where == "chapter" and "semres" not in report["codeLine"]:
        problems.append("no line saying where the code is (semres.report.sphinxext.code_line)")
    if report.get("outcome") and report["resultColor"] != OUTCOME_COLOR[report["outcome"]]:
        problems.append(f"result box of a {report['outcome']} outcome drawn in "
                        f"{report['resultColor']}, not {OUTCOME_COLOR[report['outcome']]}")
    if where == "chapter" and kind == "phone" and report["resultBox"] > 0 \
            and report["resultTop"] > PHONE_SCREEN:
        problems.append(f"result box starts {report['resultTop']} px down, below the first "
                        f"phone screen ({PHONE_SCREEN} px)")
    if where == "chapter" and report["resultBox"] > 0 and \
            len(report["leadText"].split()) < LEAD_WORDS:
        problems.append("result box opens with no sentence before its list")
    if kind == "phone" and report["resultHeight"] > PHONE_SCREEN:
        problems.append(f"result box {report['resultHeight']} px tall, more than one phone "
                        f"screen ({PHONE_SCREEN} px)")
    problems += [f"wide table without a scroll cue: {t}" for t in report["uncued"]]
    if report["tableText"] is not None and report["tableText"] < TABLE_TEXT - 0.05:
        problems.append(f"table text at {report['tableText']:.1f} px, under {TABLE_TEXT:.0f} px")
    if page == "book/glance" and kind == "phone" and \
            screens(report["pageHeight"]) > GLANCE_SCREENS:
        problems.append(f"{screens(report['pageHeight']):.1f} phone screens long, more than "
                        f"{GLANCE_SCREENS}")
    if where == "chapter" and kind == "phone":
        problems += too_long(Path(page).name, report["openHeight"])
        if not 0 <= report["figureTop"] <= FIGURE_SCREENS * PHONE_SCREEN:
            problems.append(f"first figure starts {report['figureTop']} px down, not within "
                            f"the first {FIGURE_SCREENS} phone screens")
    problems += small_display_math(report)
    if where == "chapter":
        problems += [f"figure without a numbered caption: {f}" for f in report["unnumbered"]]
    assert not problems, f"{where} {page} at {width} px:\n" + "\n".join(problems)


BAD_PAGE = """<!DOCTYPE html><html><head><style>main {{ width: {w}px }}</style></head><body><main>
<div class="math"><span style="display:inline-block;width:{over}px">x</span></div>
<pre>{long_line}</pre>
<table><tr><td style="min-width:{over}px">wide</td></tr></table>
<img src="plot.png"><img src="ok.png" alt="A described plot">
<span class="xref std std-ref">missing-label</span>
<a href="nowhere.html">gone</a><a href="#no-such-anchor">here</a><a href="#present">ok</a>
<p id="present">fine</p></main></body></html>
"""


@pytest.mark.skipif(BROWSER is None, reason="needs Chromium: apt-get install -y chromium")
def test_probe_finds_each_kind_of_problem(tmp_path):
    """The probe on a page made to have every problem once (and one correct case of each)."""
    page = tmp_path / "bad.html"
    page.write_text(BAD_PAGE.format(w=600, over=900, long_line="x" * 400))
    report = _render(page, 1280)[1280]
    wide = " ".join(report["wide"])
    assert "<div.math>" in wide and "<pre>" in wide and "<table>" in wide
    assert report["noAlt"] == ["plot.png"]
    assert len(report["unresolved"]) == 1 and "missing-label" in report["unresolved"][0]
    assert _broken_links(page, report["links"]) == ["nowhere.html", "#no-such-anchor"]


@pytest.mark.skipif(BROWSER is None, reason="needs Chromium: apt-get install -y chromium")
def test_explorer_sliders_move_the_point_to_theorem_3(tmp_path):
    """Set the chapter-1 explorer's sliders in a browser; the readout is Theorem 3 at that point."""
    from semres.core import theory
    from semres.experiments.pareto.figures import front_explorer

    exp = front_explorer()
    drive = """<script>window.addEventListener("load", () => {
      const set = (n, v) => { const el = document.querySelector(`input[name="${n}"]`);
                              el.value = v; el.dispatchEvent(new Event("input")); };
      set("delta", 3); set("n", 2); set("b", 10);
      document.documentElement.setAttribute("data-readout",
        document.querySelector(".readout").textContent);
    });</script>"""
    page = tmp_path / "explorer.html"
    page.write_text(f"<!DOCTYPE html><html><body>{exp._repr_html_()}{drive}</body></html>")
    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    readout = html.unescape(re.search(r'data-readout="([^"]*)"', done.stdout).group(1))
    p_s, p_i = theory.n_item(exp.bs[10], exp.ns[2], exp.deltas[3])
    shown = re.search(r"p_S = ([\d.]+), p_I = ([\d.]+)", readout)
    assert shown and abs(float(shown[1]) - p_s) < 6e-4 and abs(float(shown[2]) - p_i) < 6e-4, \
        readout
    assert f"b = {exp.bs[10]:.2f}" in readout and f"1/n = {1 / exp.ns[2]:.3f}" in readout


BAD_PHONE_PAGE = """<!DOCTYPE html><html><head><style>img {{ max-width: 100% }}</style>
<script>const THEBE_URL = "a";</script><script>const THEBE_URL = "b";</script></head>
<body><main>
<div style="width:{wide}px">a line wider than the phone</div>
<table><tr><td>0.5</td><td>nan</td></tr><tr><td>0.25</td><td>0.75</td></tr></table>
<img src="tiny.svg" alt="an 11-inch figure with 8 pt text">
<img src="big.svg" alt="a 3-inch figure with 12 pt text">
<img src="raster.png" alt="a PNG figure">
{box}
<script>console.error("boom");</script>
</main></body></html>
"""
RESULT_BOX = ('<div class="admonition tip"><p class="admonition-title">The result</p>'
              "<p>3 reproduced.</p></div>")


@pytest.mark.skipif(BROWSER is None, reason="needs Chromium: apt-get install -y chromium")
def test_probe_finds_errors_sideways_scroll_nan_small_figure_text_and_no_result_box(tmp_path):
    """The new checks on a phone page made to fail each once, and on its corrected twin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for name, size, font in [("tiny.svg", (11, 3), 8), ("big.svg", (3, 2), 12),
                             ("raster.png", (3, 2), 12)]:
        with matplotlib.rc_context({"savefig.bbox": "standard"}):  # the size asked for
            fig, ax = plt.subplots(figsize=size)
            ax.tick_params(labelsize=font)
            ax.set_xlabel("a label", fontsize=font)
            fig.savefig(tmp_path / name)
            plt.close(fig)
    width, texts = svg_text_sizes((tmp_path / "tiny.svg").read_text())
    assert width == 11 * 72 and min(texts)[0] == 8 and ("a label" in t for _, t in texts)

    bad = tmp_path / "bad.html"
    bad.write_text(BAD_PHONE_PAGE.format(wide=700, box=""))
    report = _render(bad, 390)[390]
    errors = " ".join(report["errors"])
    assert "THEBE_URL" in errors and "boom" in errors, report["errors"]
    assert report["pageWidth"] >= 700
    assert len(report["nan"]) == 1 and "nan" in report["nan"][0]
    assert report["resultBox"] == -1
    small = small_figure_text(bad, report["figures"], 7.0)
    assert len(small) == 2 and small[0].startswith("tiny.svg: ") and "raster.png: not an SVG" \
        in small[1], small
    # 8 pt in an 11-inch figure shrunk to the phone's width: 8 * 390 / 792 px
    shown = float(re.search(r"renders at ([\d.]+) px", small[0]).group(1))
    tiny = next(f for f in report["figures"] if f["src"] == "tiny.svg")
    assert abs(shown - 8 * tiny["rendered"] / (11 * 72)) < 0.06 and shown < 5

    good = tmp_path / "good.html"
    good.write_text(BAD_PHONE_PAGE.format(wide=100, box=RESULT_BOX)
                    .replace('<script>const THEBE_URL = "b";</script>', "")
                    .replace('console.error("boom");', "")
                    .replace("<td>nan</td>", "<td>—</td>")
                    .replace('src="tiny.svg"', 'src="big.svg"'))
    report = _render(good, 390)[390]
    assert report["errors"] == [] and report["pageWidth"] <= 390 and report["nan"] == []
    assert report["resultBox"] > 0
    assert [s.split(":")[0] for s in small_figure_text(good, report["figures"], 7.0)] == \
        ["raster.png"]


# ------------------------------------------------------------------------------ the page scan

#: what prose (paragraphs, list items, captions, headings; not tables, code or math) must not
#: hold: each a name and the pattern that finds it
PROSE = {
    "nan in the prose": re.compile(r"\bnan\b", re.I),
    "e-notation in the prose": re.compile(r"\d[eE][+-]\d"),
    "a raw backtick": re.compile(r"`"),
    "stray punctuation": re.compile(r"\s[.,;:!?](?=\s|$)|\.\)[,.;:]|[,;:]\.(?!\.)"
                                    r"|(?<![.\d])\.\.(?![.\d])|\(\s*\)|,,"),
    "ASCII math in the prose": re.compile(
        r"\bp_[SIsi]\b|\bp_[SI]\^n\b|\b(lambda|Delta|tau|epsilon|alpha)\b(?=\s*[=/<>)(]|\s+ln)"
        r"|\bln\(1/|<b>|\bVar\(b\)|\b1/\(B \+ 1\)|\b[a-z]\^[0-9n]\b"),
    "a Python value in the prose": re.compile(r"\w=(None|True|False)\b|\bNaN\b"),
}
#: inline code in a sentence that is a code path (``years.headline_measure``), not a command or
#: a file: words a reader cannot act on
CODE_PATH = re.compile(r"^[a-z_]+(\.[a-z_0-9]+)*\.[a-z0-9]*_[a-z_0-9]*(\(\))?$")
#: a sentence of this many words seen twice on a page says one thing twice
SENTENCE_WORDS = 8
#: e-notation in a table's cell: "9.127803e-07", "1.00e-09", "1.11e+03"
TABLE_E = re.compile(r"\d[eE][+-]?\d")
#: a paragraph this long seen twice on a page is printed twice, not a coincidence
REPEAT_MIN = 40


def _article(text: str):
    """The page's article (bs4), math replaced by a placeholder word so that punctuation
    around it reads as it does on the page."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    main = soup.select_one("article.bd-article") or soup.select_one("main") or soup.body
    for el in main.select(".math, mjx-container"):  # one word per formula, distinct formulas
        el.replace_with(f"x{zlib.crc32(el.get_text().encode()) % 10_000}")  # distinct words
    for el in main.select("script, style, svg, noscript, .headerlink"):
        el.decompose()
    return main


def _blocks(main) -> list[str]:
    """The prose of an article: its paragraphs, headings, captions and list items (those
    without paragraphs of their own), outside tables, code and cell outputs shown as code."""
    import copy

    main = copy.copy(main)
    for el in main.select("table, pre, .highlight, div.cell_input, div.output.text_plain, "
                          "div.output.stream"):
        el.decompose()
    for el in main.select("code, kbd, samp"):  # inline code reads as a word in its sentence
        el.replace_with("code")
    found = []
    blocks = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "dt", "li", "dd",
              "caption"]
    for el in main.find_all(blocks):
        if el.find(blocks + ["ul", "ol", "div"]):  # its own blocks are read one by one
            continue
        text = " ".join(el.get_text("").split())
        if text:
            found.append(text)
    return found


def _example(text: str, match) -> str:
    start, end = max(0, match.start() - 40), min(len(text), match.end() + 40)
    return f"…{text[start:end]}…"


#: a cell that holds one number as the book writes it ("−0.031", "1,032", "3.2 × 10⁻⁵", "< 10⁻⁴")
NUMBER_CELL = re.compile(r"^[−+-]?(\d[\d,]*)?\.?\d+( × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?$"
                         r"|^< 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+$")


def header_problems(table) -> list[str]:
    """Each header of a shown table (bs4) that does not read as words with units, by the rule
    of :func:`page_rules.header_problems`. A column holds numbers when its header
    is set as one (``class="num"``, the book's formatter) or, in a markdown table, when every
    cell that is not "—" holds one number; in a table whose rows are labelled (its first
    header is empty) the columns name categories, and the row labels carry the units."""
    rows = table.select("tr")
    if not rows:
        return []
    heads = rows[0].find_all(["th", "td"], recursive=False)
    body = [r.find_all(["td", "th"], recursive=False) for r in rows[1:]]
    # rows labelled by a first column without a header: the labels carry the units, and
    # the other columns name categories
    stub = bool(heads) and not heads[0].get_text(strip=True)
    found = []
    for k, head in enumerate(heads):
        if stub:
            numeric = False
        elif "num" in (head.get("class") or []):
            numeric = True
        else:
            cells = [" ".join(r[k].get_text(" ").split()) for r in body if len(r) > k]
            cells = [c for c in cells if c not in ("—", "⋮", "")]
            numeric = bool(cells) and all(NUMBER_CELL.match(c) for c in cells)
        found += page_rules.header_problems(str(head.decode_contents()), numeric)
    return found


def scan_page(text: str) -> list[str]:
    """Every way a built page fails to read like a book (see :data:`PROSE`), one line each:
    the check, then an example in its context."""
    main = _article(text)
    problems = []
    blocks = _blocks(main)
    for check, pattern in PROSE.items():
        hits = [(b, m) for b in blocks for m in [pattern.search(b)] if m]
        problems += [f"{check}: {_example(b, m)}" for b, m in hits[:3]]
        if len(hits) > 3:
            problems.append(f"{check}: ... and {len(hits) - 3} more")
    seen: dict[str, int] = {}
    for block in blocks:
        if len(block) >= REPEAT_MIN:
            seen[block] = seen.get(block, 0) + 1
    problems += [f"a paragraph printed {n} times: {b[:90]}…" for b, n in seen.items() if n > 1]
    said: dict[str, int] = {}
    for block in {b for b in blocks if seen.get(b, 1) == 1}:
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", block):
            if len(sentence.split()) >= SENTENCE_WORDS:
                said[sentence] = said.get(sentence, 0) + 1
    problems += [f"a sentence said {n} times: {t[:90]}…" for t, n in said.items() if n > 1][:3]
    for code in main.select("p code, li code, figcaption code"):
        text = code.get_text().strip()
        if CODE_PATH.match(text):
            problems.append(f"a code path in the prose: {text}")
    for number, table in enumerate(main.select("table"), 1):
        rows = table.select("tbody tr") or table.select("tr")[1:]
        first = [tr.find(["td", "th"], recursive=False) for tr in rows]
        head = " | ".join(" ".join(c.get_text(" ").split())
                          for c in table.select("tr")[0].find_all(["th", "td"])[:4]) \
            if table.select("tr") else ""
        if any(cell is not None and cell.name == "th" for cell in first) \
                or "dataframe" in (table.get("class") or []):
            problems.append(f"table {number} ({head[:60]}) has an index column (a raw "
                            "DataFrame: show it through semres.report.tables.table)")
        problems += [f"table {number} ({head[:60]}) header {problem}"
                     for problem in header_problems(table)]
        for code in table.select("code"):
            code.decompose()
        cells = [" ".join(c.get_text(" ").split()) for c in table.find_all(["td", "th"])]
        bad = [(c, m) for c in cells for m in [TABLE_E.search(c)] if m]
        if bad:
            cell, match = bad[0]
            shown = cell[max(0, match.start() - 25):match.end() + 15]
            problems.append(f"table {number} ({head[:60]}) shows e-notation: {shown!r}"
                            + (f" and {len(bad) - 1} more cells" if len(bad) > 1 else ""))
    return problems


@pytest.fixture(scope="module")
def built_html(request):
    """The built book's HTML (as :func:`html_root`, without needing a browser)."""
    if os.environ.get("SEMRES_RENDER_HTML"):
        return Path(os.environ["SEMRES_RENDER_HTML"]).resolve()
    _, index, _ = request.getfixturevalue("built")
    return index.parent


@pytest.mark.parametrize("page", _pages())
def test_page_reads_like_a_book(built_html, page):
    path = built_html / f"{page}.html"
    if not path.is_file():
        pytest.fail(f"{page}.html was not built")
    problems = scan_page(path.read_text())
    assert not problems, f"{page}:\n" + "\n".join(problems)


SCANNED = """<!DOCTYPE html><html><body><main><article class="bd-article">
<p>The largest gap is 9.1e-07 and the fit gave nan here.</p>
<p>A sentence with `raw code` left in it , and a stray stop .</p>
<p>{repeat}</p><p>{repeat}</p>
<p>The front is <span class="math notranslate nohighlight">\\(p_S\\)</span>, tight (see).),</p>
<pre>nan and 1e-07 in code are fine</pre>
<table class="dataframe"><thead><tr><th></th><th>delta</th></tr></thead>
<tbody><tr><th>0</th><td>1.000000e-09</td></tr></tbody></table>
<div class="semres-table"><table><thead><tr><th>Floor</th></tr></thead>
<tbody><tr><td>1.00 × 10⁻⁹</td></tr></tbody></table></div>
<table><thead><tr><th>Model</th><th>Scale</th><th class="num">Boot at a bound</th></tr></thead>
<tbody><tr><td>a</td><td>−3.5</td><td>0.2</td></tr></tbody></table>
<table><thead><tr><th></th><th>Square</th></tr></thead>
<tbody><tr><td>Scale (px)</td><td>3.5</td></tr></tbody></table>
</article></main></body></html>
"""


def test_page_scan_finds_each_kind_of_problem():
    """The scan on a page made to fail each check once, and its clean twin."""
    repeat = "This paragraph is printed twice on the page, which is once too many."
    problems = scan_page(SCANNED.format(repeat=repeat))
    text = "\n".join(problems)
    for check in ("nan in the prose", "e-notation in the prose", "a raw backtick",
                  "stray punctuation", "a paragraph printed 2 times", "has an index column",
                  "shows e-notation: '1.000000e-09'",
                  "header 'Scale' is a number with neither a unit nor a kind",
                  "header 'Boot at a bound' has words a reader must decode: Boot"):
        assert check in text, (check, problems)
    assert "table 4" not in text  # rows labelled with their units: the columns are categories
    assert "table 2" not in text and "in code" not in text  # the formatted table; code
    assert len([p for p in problems if p.startswith("stray punctuation")]) == 2
    clean = """<html><body><main><article class="bd-article"><p>The largest gap is
    9.1 × 10⁻⁷ (see <span class="math">\\(x\\)</span>), e.g. here; and ellipses... fine.</p>
    <p>Numbers like 0.5 and .5 stay.</p></article></main></body></html>"""
    assert scan_page(clean) == []


NEW_CHECKS_PAGE = """<!DOCTYPE html><html><body><main>
<div class="admonition tip"><p class="admonition-title">The result</p>
<p style="height:{box}px">3 reproduced.</p></div>
<div style="overflow-x:auto" class="{cue}"><table><tr><td style="min-width:900px">wide</td>
</tr></table></div>
<figure><img src="a.svg" alt="a plot"><figcaption><p>{caption} A caption.</p></figcaption>
</figure></main></body></html>
"""


@pytest.mark.skipif(BROWSER is None, reason="needs Chromium: apt-get install -y chromium")
def test_probe_measures_result_box_scroll_cue_and_figure_numbers(tmp_path):
    """A result box taller than a phone, a table scrolling without a cue, a figure without a
    number: found; their corrected twins: not. Both are rendered in one browser start, as the
    book's pages are (:func:`_render_many`): each page's findings are its own."""
    (tmp_path / "a.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="100pt" '
                                    'height="50pt"></svg>')
    bad = tmp_path / "bad.html"
    bad.write_text(NEW_CHECKS_PAGE.format(box=1200, cue="", caption=""))
    good = tmp_path / "good.html"
    good.write_text(NEW_CHECKS_PAGE.format(box=300, cue="is-wide", caption="Fig. 3"))
    bad_report, good_report = _render_many([bad, good], 390)
    report = bad_report[390]
    assert report["resultHeight"] > PHONE_SCREEN
    assert len(report["uncued"]) == 1 and report["unnumbered"] == ["a.svg"]
    report = good_report[390]
    assert report["resultHeight"] <= PHONE_SCREEN and report["uncued"] == []
    assert report["unnumbered"] == []


SIZED_PAGE = """<!DOCTYPE html><html><body style="margin:0"><main>
<table style="font-size:{cell}px"><tr><th>Share correct (%)</th></tr>
<tr><td>5<sub>x</sub> and <code style="font-size:{code}px">code</code></td></tr></table>
<div style="height:{tall}px">tall</div>
<details class="sd-dropdown"><summary>more</summary><div style="height:{fold}px">x</div></details>
<img src="plot.svg" alt="A plot" style="width:200px;height:50px">
</main></body></html>
"""


@pytest.mark.skipif(BROWSER is None, reason="needs Chromium: apt-get install -y chromium")
def test_probe_measures_table_text_page_height_with_folds_open_and_first_figure(tmp_path):
    """Table text under 12 px, a chapter over its phone screens once its prose folds are open,
    and where its first figure starts are found; a subscript is not table text."""
    page = tmp_path / "sized.html"
    (tmp_path / "plot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="200" '
                                       'height="50"><rect width="200" height="50"/></svg>')
    page.write_text(SIZED_PAGE.format(cell=12, code=11, tall=10 * PHONE_SCREEN,
                                      fold=6 * PHONE_SCREEN))
    report = _render(page, 390)[390]
    assert report["tableText"] == 11  # the code in a cell, not the subscript beside it
    assert report["pageHeight"] < 11 * PHONE_SCREEN <= 16 * PHONE_SCREEN <= report["openHeight"]
    assert not too_long("05_llm_years", report["pageHeight"])
    assert "more than 15" in too_long("05_llm_years", report["openHeight"])[0]
    assert 10 * PHONE_SCREEN < report["figureTop"] < 11 * PHONE_SCREEN
    page.write_text(SIZED_PAGE.format(cell=12, code=12, tall=100, fold=100))
    report = _render(page, 390)[390]
    assert report["tableText"] == 12 and report["pageHeight"] <= 900  # the frame's own height
    assert 0 < report["figureTop"] < PHONE_SCREEN
