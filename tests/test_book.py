"""The whole book as CI sees it: every chapter executed in the quick profile, then a strict build.

This is the slow test (minutes): it is what proves that each chapter runs headless from a clean
cache and that the rendered pages carry their math, figures and glued numbers.
"""

import json
import re

import pytest

from semres.pipeline import runner

# every test here reads the session's built book (conftest.built): under pytest-xdist
# (`make test`, --dist loadgroup) they share one worker, so the book is built once
pytestmark = pytest.mark.xdist_group("book")


# `built` (conftest.py): every chapter executed in the quick profile, then the strict build.


def test_the_book_tests_share_one_worker(request):
    """Under --dist loadgroup (``make test``) the group must hold, or every worker that runs a
    test of the book builds the whole book again."""
    if request.config.getoption("dist", "no") == "loadgroup":
        assert request.node.nodeid.endswith("@book"), request.node.nodeid


def test_every_chapter_executes_and_the_strict_build_passes(built):
    _, index, failures = built
    assert failures == []
    assert index.is_file()


@pytest.mark.parametrize("chapter", [c.name for c in runner.chapters()])
def test_chapter_page_has_no_errors_and_shows_its_results(built, chapter):
    build, index, _ = built
    nb = json.loads((build / "executed" / f"{chapter}.ipynb").read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    html = (index.parent / "notebooks" / f"{chapter}.html").read_text()
    assert "did not execute" not in html
    assert re.search(r'<figure[^>]*id="ch\d-fig', html) or "<img" in html  # numbered figures
    assert "Fig. " in html  # numbered captions / references
    assert "mathjax" in html.lower() and "cdn.jsdelivr" not in html  # offline MathJax
    assert list((build / "results" / chapter).glob("*.csv")), "no result tables written"


def test_reproducibility_page_lists_every_chapter_with_its_time(built):
    _, index, _ = built
    html = (index.parent / "book" / "reproducibility.html").read_text()
    for chapter in runner.chapters():
        cells = r"(?:</p>)?</td>\s*<td[^>]*>(?:<p>)?"
        row = (rf"{chapter.name}{cells}ok{cells}\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d{cells}"
               rf"quick{cells}\d+{cells}[\d.]+")
        assert re.search(row, html), chapter.name


def test_glance_page_has_every_chapter_and_a_figure_only_from_this_build(built):
    build, index, _ = built
    html = (index.parent / "book" / "glance.html").read_text()
    for chapter in runner.chapters():
        assert re.search(rf">Ch\. {chapter.number}<", html), chapter.name
    fronts = list((build / "results").glob("*/front.csv"))
    assert ("glance_front.svg" in html) == any(
        {"system", "p_i", "p_s"} <= set(open(f).readline().strip().split(",")) for f in fronts)


@pytest.mark.parametrize("chapter", [c.name for c in runner.chapters()])
def test_injected_parameters_cell_is_not_on_the_page(built, chapter):
    build, index, _ = built
    nb = json.loads((build / "executed" / f"{chapter}.ipynb").read_text())
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and all("remove-cell" in c["metadata"]["tags"] for c in injected)
    html = (index.parent / "notebooks" / f"{chapter}.html").read_text()
    assert "# Parameters" not in html  # the first line papermill writes into the cell


@pytest.mark.parametrize("chapter", [c.name for c in runner.chapters()])
def test_every_finding_states_its_margin_and_reads_as_its_interval_says(built, chapter):
    """Every finding carries a practical margin and its reason, and what its test could
    detect; none "does not hold" (or "differs") with an interval inside its margin; every
    misfit says how far it misses."""
    import pandas as pd

    from semres.report import judge

    build, _, _ = built
    summary = pd.read_csv(build / "results" / chapter / "summary.csv")
    findings = summary[(summary.kind == "finding") & (summary.status != "not run")]
    assert findings.margin.notna().all(), list(findings.result[findings.margin.isna()])
    assert (findings.margin_reason.fillna("").str.len() > 10).all()
    measured = findings[findings.ci_low.notna()]
    assert measured.detectable.notna().all(), list(measured.result[measured.detectable.isna()])
    for row in findings[findings.status.isin(["does not hold", "differs"])].to_dict("records"):
        ref = row["paper_value"] if pd.notna(row["paper_value"]) else row["compared_with"]
        assert judge(row["ci_low"], row["ci_high"], ref, row["margin"], row["claim"]) == \
            "fail", row["result"]
    misfits = findings[findings.status == "misfit"]
    assert misfits[["dispersion", "rms_gap", "rms_sampling"]].notna().all().all(), \
        list(misfits.result)


@pytest.mark.parametrize("chapter", [c.name for c in runner.chapters()])
def test_sentences_quote_only_the_numbers_of_the_rows_they_cite(built, chapter):
    import pandas as pd

    build, _, _ = built
    prose = build / "results" / chapter / "prose.csv"
    assert prose.is_file(), f"{chapter} glues no sentence with its numbers (its box lead at least)"
    table = pd.read_csv(prose, keep_default_na=False)
    bad = table[table.unquoted != ""]
    assert bad.empty, bad[["name", "unquoted", "sentence"]].to_string()


def test_a_code_edit_reruns_its_chapter_alone_and_a_prose_edit_reruns_nothing(built, tmp_path):
    """In a copy of the checkout beside a copy of the built book: a docstring edited in chapter
    3's figure code and a sentence added to chapter 1's markdown. The book rebuilt reruns
    chapter 3 alone (every other chapter's inputs are as they were; a notebook's markdown is
    not an input), chapter 3 reads its trained networks from the cache, computing nothing, and
    chapter 1's page shows the new sentence from its stored outputs."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    build, _, failures = built
    assert failures == []
    root = Path(__file__).resolve().parents[1]
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=root, capture_output=True, check=True).stdout.decode().split("\0")
    repo = tmp_path / "repo"
    for name in filter(None, files):
        if (root / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, repo / name)
    copy = tmp_path / "build"
    for part in ("executed", "results", "cache", "models"):
        if (build / part).is_dir():
            shutil.copytree(build / part, copy / part)
    figures = repo / "src" / "semres" / "experiments" / "toy" / "figures.py"
    figures.write_text(figures.read_text().replace('"""', '"""An edited docstring. ', 1))
    chapter1 = repo / "notebooks" / "01_pareto_front.py"
    sentence = "A sentence a writer added to the chapter, in its notebook."
    text = chapter1.read_text()
    title = text.index("\n# # ")  # the first markdown cell: the title and what follows it
    end = text.index("\n\n", title)
    chapter1.write_text(text[:end] + f"\n#\n# {sentence}" + text[end:])
    ran_before = json.loads((copy / "executed" / "01_pareto_front.json").read_text())["started"]
    script = ("import json, sys; from pathlib import Path\n"
              "from semres.pipeline import book, runner\n"
              "build = Path(sys.argv[1])\n"
              "todo = book.changed(runner.chapters(), 'quick', build)\n"
              "index, failures = book.build_book('quick', build=build, progress=False)\n"
              "print(json.dumps([[ch.name for ch in todo], str(index), failures]))\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(repo / "src")}
    done = subprocess.run([sys.executable, "-c", script, str(copy)], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    todo, index, failures = json.loads(done.stdout.strip().splitlines()[-1])
    assert todo == ["03_toy_relu"] and failures == []
    record = json.loads((copy / "executed" / "03_toy_relu.json").read_text())
    assert record["cache"]["computed"] == {}, record["cache"]
    assert sum(record["cache"]["reused"].values()) >= 1, record["cache"]
    assert json.loads((copy / "executed" / "01_pareto_front.json").read_text())["started"] \
        == ran_before
    page = Path(index).parent / "notebooks" / "01_pareto_front.html"
    assert sentence in page.read_text()
