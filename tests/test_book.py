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


def glued(notebook) -> dict:
    """What an executed chapter glues into its prose, by name: numbers as floats, sentences as
    their text (figures and tables left out)."""
    out = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            data = {k.removeprefix("application/papermill.record/"): v
                    for k, v in output.get("data", {}).items()}
            if not name or "-fig-" in name:
                continue
            text = data.get("text/markdown", data.get("text/plain"))
            text = "".join(text) if isinstance(text, list) else text
            try:
                out[name] = float(text)
            except (TypeError, ValueError):
                out[name] = text.strip("'\"") if isinstance(text, str) else text
    return out


def table_values(folder) -> "np.ndarray":
    """Every number in a chapter's result tables (its settings among them): the numeric cells,
    the numbers written inside text cells ("8 of 8 hold"), each table's count of rows and the
    tallies of its text columns (how many rows are "reproduced")."""
    import numpy as np
    import pandas as pd

    from page_rules import numbers_in

    values = []
    for path in sorted(folder.glob("*.csv")):
        try:
            df = pd.read_csv(path)
        except pd.errors.EmptyDataError:  # a table with no columns (nothing of its kind ran)
            continue
        values.append([float(len(df))])
        for column in df:
            numeric = pd.to_numeric(df[column], errors="coerce")
            values.append(numeric.to_numpy(float))
            values.append(df[column][numeric.isna()].value_counts().to_numpy(float))  # tallies
            values.append([v for text in df[column][numeric.isna()].dropna().astype(str)
                           for v, _, _ in numbers_in(text)])
    values = np.concatenate([np.asarray(v, float) for v in values]) if values else np.array([])
    return np.unique(values[np.isfinite(values)])


def unbacked(build, chapter) -> list[str]:
    """The numbers a chapter glues into its prose (or quotes inside a glued sentence, to the
    digits it shows) that no cell of its result tables holds."""
    import numpy as np

    from page_rules import numbers_in

    values = table_values(build / "results" / chapter)
    from semres.report import Z_MAX

    levels = np.array([0.05, 0.001, 0.95, 95, 80, 0.8, Z_MAX])  # the book's policy, not results
    pool = np.concatenate([values, -values, levels])
    missing = []
    for name, value in glued(build / "executed" / f"{chapter}.ipynb").items():
        if isinstance(value, float):
            if not np.isclose(pool, value, rtol=1e-9, atol=1e-12).any():
                missing.append(f"{name} = {value!r}")
        elif isinstance(value, str):
            missing += [f"{name}: {token!r} in {value[:80]!r}"
                        for number, half, token in numbers_in(value)
                        if not (np.abs(pool - number) <= half * (1 + 1e-9) + 1e-12).any()]
    return missing


@pytest.mark.parametrize("chapter", [c.name for c in runner.chapters()])
def test_every_glued_number_is_a_number_of_the_result_tables(built, chapter):
    """The page and the tables a reader downloads say the same thing: every number glued into
    the prose, and every number a glued sentence quotes, is a number of the chapter's result
    tables or of its settings table."""
    build, _, _ = built
    missing = unbacked(build, chapter)
    assert not missing, "\n".join(missing)


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
    verdicts = repo / "src" / "semres" / "experiments" / "toy" / "verdicts.py"
    verdicts.write_text(verdicts.read_text().replace('"""', '"""An edited docstring. ', 1))
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
