"""The runner and the CLI on a miniature book built in a temporary folder."""

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from semres.pipeline import cli, runner
from semres.report import pages

from semres.pipeline import book as bookmaker

ROOT = Path(__file__).resolve().parents[1]
HEADER = """# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---
"""
DEMO = HEADER + '''
# %% [markdown]
# # Demo chapter
# The answer is {glue:text}`demo_total`.

# %% tags=["parameters"]
profile = "default"
seed = 0
n = 3
scale = 1.5
label = "x"
fail = False
data_dir = None

# %%
import os
import pandas as pd
from myst_nb import glue
from semres.core.book import save_table
cfg = {"k": {"quick": 1, "default": 2, "paper": 3}[profile]}
df = pd.DataFrame({"n": [n], "scale": [scale], "label": [label], "k": [cfg["k"]], "seed": [seed],
                   "cores": [len(os.sched_getaffinity(0))]})
save_table(df, "01_demo", "values")
glue("demo_total", n * scale * cfg["k"], display=False)
if fail:
    raise RuntimeError("asked to fail")
'''


@pytest.fixture
def book(tmp_path, monkeypatch):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01_demo.py").write_text(DEMO)
    (tmp_path / "notebooks" / "02_other.py").write_text(DEMO.replace("01_demo", "02_other")
                                                        .replace("demo_total", "other_total"))
    shutil.copytree(ROOT / "book", tmp_path / "book")
    shutil.copy2(ROOT / "_config.yml", tmp_path / "_config.yml")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n- file: notebooks/01_demo\n"
        "- file: notebooks/02_other\n- file: book/reproducibility\n- file: book/bibliography\n")
    (tmp_path / "book" / "intro.md").write_text("# Intro\n\nSee {cite}`luce1959`.\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEMRES_BUILD_DIR", raising=False)
    return tmp_path


def _error_line(capsys, argv, code):
    assert cli.main(argv) == code
    err = capsys.readouterr().err
    ours = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("semres")]
    assert len(ours) == 1, err
    return ours[0]


def test_list_names_every_chapter_and_its_parameters(book, capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "01_demo" in out and "02_other" in out and "scale=1.5" in out


@pytest.mark.parametrize("name", ["1", "01", "01_demo", "demo"])
def test_chapters_resolve_by_number_or_name(book, name):
    assert runner.resolve(name).name == "01_demo"


@pytest.mark.parametrize("argv, needle", [
    (["run", "9"], "unknown chapter '9'; choose from 1 (01_demo), 2 (02_other)"),
    (["run", "1", "-p", "n"], "-p expects key=value, got 'n'"),
    (["run", "1", "-p", "bogus=1"], "unknown parameter 'bogus' for 01_demo; valid: seed, n"),
    (["run", "1", "-p", "n=three"], "parameter 'n' expects int, got 'three'"),
    (["run", "1", "-p", "fail=maybe"], "parameter 'fail' expects bool"),
    (["run", "1", "-p", "profile=quick"], "set the profile with --profile"),
])
def test_bad_chapter_or_parameter_exits_2_with_one_line(book, capsys, argv, needle):
    assert needle in _error_line(capsys, argv, 2)


def test_bad_profile_exits_2_with_the_choices(book, capsys):
    err = _error_line(capsys, ["run", "1", "--profile", "fast"], 2)
    assert "'fast'" in err and "quick" in err and "paper" in err


def test_run_injects_parameters_and_writes_tables_and_record(book):
    assert cli.main(["run", "demo", "--profile", "quick", "-p", "n=4", "-p", "label=hi",
                     "-p", "data_dir=/data"]) == 0
    table = pd.read_csv(book / "_build" / "results" / "01_demo" / "values.csv")
    assert table.drop(columns="cores").to_dict("records") == [
        {"n": 4, "scale": 1.5, "label": "hi", "k": 1, "seed": 0}]
    record = json.loads((book / "_build" / "executed" / "01_demo.json").read_text())
    assert record["status"] == "ok" and record["parameters"]["n"] == 4
    assert record["parameters"]["seed"] == 0 and record["seconds"] > 0
    assert (book / "_build" / "executed" / "01_demo.ipynb").is_file()
    assert not (book / "_build" / "staging" / "01_demo").exists()


def test_failed_run_exits_1_and_a_first_failure_leaves_no_page(book, capsys):
    err = _error_line(capsys, ["run", "1", "--profile", "quick", "-p", "fail=true"], 1)
    assert "01_demo failed" in err and "asked to fail" in err and "kept" not in err
    build = book / "_build"
    assert not (build / "executed" / "01_demo.ipynb").exists()
    assert not (build / "results" / "01_demo").exists()
    failed = json.loads((build / "executed" / "01_demo.failed.json").read_text())
    assert failed["status"] == "failed" and "asked to fail" in failed["error"]
    assert "asked to fail" in pages.missing_page(runner.resolve("1").title, 1, failed)


def test_book_builds_strict_and_a_failed_chapter_shows_as_not_built(book):
    figures = {"when": "2026-01-01 12:00 UTC", "commit": "abc1234", "machine": "Linux, 2 CPUs",
               "repeats": 3, "load_before": [0.1, 0.2, 0.3], "load_after": [0.2, 0.2, 0.3],
               "rates": {"engine, 1 thread": 3.2e8, "engine, 2 threads": 6.1e8},
               "spread": {"engine, 1 thread": 1.05, "engine, 2 threads": 1.1}, "threads": 2,
               "ratio_threads": 1.91, "ratio_processes": 1.93, "ratio_limit": 0.72,
               "ratio_numpy": 36.0}
    (book / "_build" / "benchmarks").mkdir(parents=True)
    (book / "_build" / "benchmarks" / "engine.json").write_text(json.dumps(figures))
    index, failures = bookmaker.build_book("quick", progress=False,
                                        only=[runner.resolve("1")])
    # Chapter 2 was never executed: its page must say so instead of showing stale output.
    assert failures == [], failures
    html = index.parent
    other = (html / "notebooks" / "02_other.html").read_text()
    assert "did not execute" in other and "Demo chapter (not built)" in other
    demo = (html / "notebooks" / "01_demo.html").read_text()
    assert "The answer is" in demo and "4.5" in demo  # glued: 3 * 1.5 * k=1
    repro = (html / "book" / "reproducibility.html").read_text()
    assert "01_demo" in repro and "quick" in repro
    assert "Get the code" not in (html / "book" / "intro.html").read_text()  # no URL set
    assert "Monte Carlo engine" in repro and "610.0" in repro and "1.91 times" in repro


@pytest.mark.chapters
def test_book_runs_chapters_side_by_side_each_on_a_core_of_its_own(book, monkeypatch):
    """(A whole book without a failure, two chapters at a time, is the book test's build.) The
    lanes' cores are not shared here (the failing chapter frees its lane at once, which would
    race the other's first cell): that is tested on its own, in test_runner."""
    monkeypatch.setattr(bookmaker, "share_cores", lambda cpus: 0)
    with pytest.raises(ValueError, match="jobs must be an integer >= 1; got 0"):
        bookmaker.build_book("quick", progress=False, jobs=0)
    # a failing chapter in a lane is reported in one line, and the other still runs
    (book / "notebooks" / "01_demo.py").write_text(DEMO.replace("fail = False", "fail = True"))
    index, failures = bookmaker.build_book("quick", progress=False, jobs=2)
    assert len(failures) == 1 and "01_demo" in failures[0] and "asked to fail" in failures[0]
    assert "4.5" in (index.parent / "notebooks" / "02_other.html").read_text()
    values = pd.read_csv(book / "_build" / "results" / "02_other" / "values.csv")
    if len(os.sched_getaffinity(0)) >= 2:  # the chapter's kernel saw one core
        assert values.cores.tolist() == [1]


def test_launch_buttons_follow_the_one_repository_url_setting(book):
    import yaml

    config = yaml.safe_load(bookmaker.book_config(book / "_config.yml"))
    # an empty URL stays empty: without it Jupyter Book would link its own repository
    assert config["launch_buttons"] == {} and config["repository"]["url"] == ""
    text = (book / "_config.yml").read_text().replace('url: ""', 'url: "https://github.com/o/r"')
    (book / "_config.yml").write_text(text)
    config = yaml.safe_load(bookmaker.book_config(book / "_config.yml"))
    # Colab opens only .ipynb files from a repository, which holds the chapters as .py
    assert config["launch_buttons"]["binderhub_url"] and "colab_url" not in \
        config["launch_buttons"]
    assert config["html"]["use_repository_button"]
    index, failures = bookmaker.build_book("quick", progress=False, only=[runner.resolve("1")])
    assert failures == []
    demo = (index.parent / "notebooks" / "01_demo.html").read_text()
    assert "mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/notebooks/01_demo.py" in demo
    assert "colab.research.google.com" not in demo
    assert 'href="https://github.com/o/r"' in demo  # the source (repository) button
    front = (index.parent / "book" / "intro.html").read_text()
    assert "Get the code:" in front and 'href="https://github.com/o/r"' in front


CACHED = HEADER + '''
# %% tags=["parameters"]
profile = "default"
seed = 0

# %%
import semres.core.book
from semres.core import theory
semres.core.book.cache().cache(theory.front)(0.75 + seed / 100)
'''


def test_record_says_which_cached_results_a_rerun_reused(book):
    (book / "notebooks" / "03_cached.py").write_text(CACHED)
    chapter = runner.resolve("03_cached")
    record = book / "_build" / "executed" / "03_cached.json"
    runner.run_chapter(chapter, "quick")
    first = json.loads(record.read_text())
    runner.run_chapter(chapter, "quick")
    second = json.loads(record.read_text())
    runner.run_chapter(chapter, "quick", {"seed": 1})  # new arguments: a new entry
    third = json.loads(record.read_text())
    assert sum(first["cache"]["computed"].values()) == 1 and not first["cache"]["reused"]
    assert second["cache"]["reused"] == first["cache"]["computed"]
    assert not second["cache"]["computed"]
    assert third["cache"]["computed"] == first["cache"]["computed"]
    assert not third["cache"]["reused"]
    assert first["device"].startswith("CPU")  # no device parameter: plain CPU code
    repro = bookmaker.provenance(book / "_build")
    digest = next(iter(first["cache"]["computed"]))
    assert re.search(r"\| 03_cached \| ok \| [\d: -]+ \| quick \| 1 \|", repro)
    assert f"computed code `{digest}`" in repro


FIGURES = HEADER + '''
# %% [markdown]
# # Demo chapter
#
# ```{glue:figure} ch1-fig-wide
# :name: ch1-fig-wide
#
# Three panels side by side: on a phone they stack.
# ```

# %% tags=["parameters"]
profile = "default"
seed = 0

# %%
import pandas as pd
from semres.report import plotting as splot
from semres.report import tables
from semres.report import Report

splot.use_style()
report = Report("01_demo")
fig, axes = splot.subplots(1, 3, figsize=(10, 3))
for ax in axes:
    ax.plot([0, 1], [0, 1], label="a line")
    ax.set_xlabel("identification")
report.figure("wide", fig)
df = pd.DataFrame({"p_s": [0.73412, 0.70021], "floor": [1e-9, 2e-8], "at_bound": [False, True]})
report.table(df, "values")
tables.table(df, csv="values")

# %%
pd.DataFrame({"delta": [0.0, 0.1], "target_gap_max": [9.127803e-07, 0.0]}, index=["a", "b"])
'''


def test_a_page_serves_each_figure_in_two_layouts_and_tables_for_readers(book):
    """A chapter's figure reaches the page as two images (wide, and stacked for phones), its
    tables carry words for headers, no index and no e-notation, and the CSV link resolves."""
    (book / "notebooks" / "01_demo.py").write_text(FIGURES)
    index, failures = bookmaker.build_book("quick", progress=False, only=[runner.resolve("1")])
    assert failures == [], failures
    html = index.parent
    page = (html / "notebooks" / "01_demo.html").read_text()
    wide = re.findall(r'<img[^>]*class="[^"]*semres-wide[^"]*"[^>]*>', page)
    narrow = re.findall(r'<img[^>]*class="[^"]*semres-narrow[^"]*"[^>]*>', page)
    assert len(wide) == 1 and len(narrow) == 1, page
    src = re.search(r'src="([^"]+)"', narrow[0]).group(1)
    phone = (html / "notebooks" / src).resolve().read_text()
    assert "semres-phone" not in phone and "semres-phone" not in (
        html / "notebooks" / re.search(r'src="([^"]+)"', wide[0]).group(1)).read_text()
    width = float(re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', phone).group(1)) / 72
    assert width <= 4.6 + 0.05
    assert 'alt="Three panels side by side' in narrow[0]
    link = re.search(r'<a href="([^"]+values\.csv)"', page).group(1)
    assert (html / "notebooks" / link).resolve().read_text().startswith("p_s,floor,at_bound")
    assert "<i>p</i><sub>S</sub>" in page and "1.00 × 10⁻⁹" in page and ">no<" in page
    assert "e-0" not in re.sub(r"<(script|style|svg)[\s\S]*?</\1>", "", page).split(
        'class="semres-table')[-1].split("</table>")[0]
    assert 'class="dataframe' not in page  # the raw DataFrame went through the formatter too
    assert "Largest target gap" in page and "9.13 × 10⁻⁷" in page
