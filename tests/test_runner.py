"""A failed, stopped or concurrent run never costs the last good build (issue 19).

Every test runs miniature chapters in a temporary book (the ``book`` fixture of test_cli), so
the whole file takes seconds; the stopped runs are real ``python -m semres.pipeline.cli`` processes.
"""

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from test_cli import HEADER, ROOT, _error_line, book  # noqa: F401 - book is a fixture

from semres.core import book as semres_book
from semres.pipeline import cli, runner
from semres.pipeline.registry import SETTINGS
from semres.pipeline import book as bookmaker
from semres.report import pages

SLOW = HEADER + '''
# %% [markdown]
# # Slow chapter

# %% tags=["parameters"]
profile = "default"
seed = 0
value = 1
marker = ""

# %%
import pandas as pd
from semres.core.book import save_table
save_table(pd.DataFrame({"value": [value]}), "03_slow", "values")

# %%
import os, time
if marker:  # tells the test this cell started, and which process the kernel is
    with open(marker, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(120)
'''

PARETO = HEADER + '''
# %% tags=["parameters"]
profile = "default"
seed = 0
mc_trials = 0

# %%
import pandas as pd
from semres.core.book import save_table
save_table(pd.DataFrame({"trials": [mc_trials]}), "01_pareto_front", "values")
'''


def _outputs(build: Path, name: str) -> dict[str, bytes]:
    """Every byte of a chapter's executed notebook, run record and tables."""
    files = [build / "executed" / f"{name}.ipynb", build / "executed" / f"{name}.json",
             *sorted((build / "results" / name).rglob("*"))]
    assert files[0].is_file() and files[1].is_file() and len(files) > 2
    return {str(p.relative_to(build)): p.read_bytes() for p in files if p.is_file()}


def _failed(build: Path, name: str) -> dict:
    return json.loads((build / "executed" / f"{name}.failed.json").read_text())


def _text(page: str) -> str:
    """An HTML page's visible text, tags dropped and whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _no_staging(build: Path, name: str) -> bool:
    return not (build / "staging" / name).exists()


def test_a_failed_run_keeps_the_last_good_outputs_until_the_next_success(book, capsys):
    build = book / "_build"
    assert cli.main(["run", "1", "--profile", "quick"]) == 0
    before = _outputs(build, "01_demo")
    err = _error_line(capsys, ["run", "1", "--profile", "quick", "-p", "fail=true", "-p", "n=9"],
                      1)
    assert "01_demo failed" in err and "asked to fail" in err and "last good run is kept" in err
    assert _outputs(build, "01_demo") == before and _no_staging(build, "01_demo")
    failed = _failed(build, "01_demo")
    assert failed["status"] == "failed" and failed["overrides"] == {"fail": True, "n": 9}
    assert "RuntimeError: asked to fail" in failed["error"] and failed["ended"]
    assert cli.main(["run", "1", "--profile", "quick", "-p", "n=5"]) == 0  # success: current
    assert not (build / "executed" / "01_demo.failed.json").exists()
    assert _outputs(build, "01_demo") != before


def test_a_bad_value_is_refused_before_anything_is_touched(book, capsys):
    (book / "notebooks" / "01_pareto_front.py").write_text(PARETO)
    build = book / "_build"
    assert cli.main(["run", "01_pareto_front", "--profile", "quick", "-p", "mc_trials=5"]) == 0
    before = _outputs(build, "01_pareto_front")
    stamp = {p: p.stat().st_mtime_ns for p in build.rglob("*")}
    err = _error_line(capsys, ["run", "01_pareto_front", "--profile", "quick",
                               "-p", "mc_trials=-7"], 2)
    assert "mc_trials" in err and "-7" in err
    err = _error_line(capsys, ["run", "demo", "-p", "seed=-1"], 2)
    assert "seed" in err and "-1" in err
    with pytest.raises(ValueError, match="mc_trials"):  # the API checks too
        runner.run_chapter(runner.resolve("01_pareto_front"), "quick", {"mc_trials": -7})
    assert _outputs(build, "01_pareto_front") == before
    assert {p: p.stat().st_mtime_ns for p in build.rglob("*")} == stamp  # nothing written
    assert not (build / "executed" / "01_pareto_front.failed.json").exists()


def _start_slow(book: Path, *extra: str) -> tuple[subprocess.Popen, int]:
    """A ``semres run`` process stuck in the slow cell; returns it and its kernel's pid."""
    marker = book / "started.pid"
    marker.unlink(missing_ok=True)
    env = {**os.environ, "SEMRES_BUILD_DIR": str(book / "_build"), "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "semres.pipeline.cli", "run", "3", "--profile",
                             "quick", "-p", f"marker={marker}", *extra], cwd=book, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    while not (marker.is_file() and marker.read_text()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the slow cell never started"
        time.sleep(0.1)
    return proc, int(marker.read_text())


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has stopped


@pytest.fixture
def slow(book):
    (book / "notebooks" / "03_slow.py").write_text(SLOW)
    toc = book / "_toc.yml"
    page = "- file: notebooks/03_slow\n"
    toc.write_text(toc.read_text().replace("- file: book/", page + "- file: book/", 1))
    runner.run_chapter(runner.resolve("3"), "quick")  # the last good run
    return book


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_run_exits_nonzero_kills_its_kernel_and_keeps_the_last_good_outputs(
        slow, sig, code):
    build = slow / "_build"
    before = _outputs(build, "03_slow")
    proc, kernel = _start_slow(slow, "-p", "value=2")
    assert (build / "results" / "03_slow").is_dir()  # the first cell ran (into staging)
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert time.monotonic() - sent < 15  # promptly: not after the two-minute cell
    ours = [line for line in err.splitlines() if line.startswith("semres")]
    assert ours == [f"semres: chapter 03_slow interrupted by {sig.name} "
                    "(the last good run is kept)"], err
    assert not _alive(kernel)
    assert _outputs(build, "03_slow") == before and _no_staging(build, "03_slow")
    failed = _failed(build, "03_slow")
    assert failed["status"] == "interrupted" and failed["overrides"]["value"] == 2


def test_a_second_run_of_the_same_chapter_is_refused_and_the_book_shows_the_last_good_run(
        slow, capsys):
    build = slow / "_build"
    before = _outputs(build, "03_slow")
    proc, _ = _start_slow(slow)
    try:
        err = _error_line(capsys, ["run", "slow", "--profile", "quick"], 1)
        assert err == (f"semres: 03_slow is being run by another process (pid {proc.pid}); "
                       "wait for it to finish")
        assert cli.main(["run", "demo", "--profile", "quick"]) == 0  # other chapters may run
        index, failures = bookmaker.build_book("quick", progress=False, rerun=True,
                                               only=[runner.resolve("3")])
        assert failures == [f"03_slow is being run by another process (pid {proc.pid}); "
                            "wait for it to finish"]
        page = (index.parent / "notebooks" / "03_slow.html").read_text()
        assert "Slow chapter" in page and "did not execute" not in page
        assert _outputs(build, "03_slow") == before
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert proc.returncode == 130


def test_a_second_book_build_of_the_same_folder_is_refused(book, capsys):
    with runner.lock(book / "_build", "book", "held by this test"):
        err = _error_line(capsys, ["book", "--profile", "quick"], 1)
    assert err.startswith("semres: a book build of this folder is already running (pid ")
    assert not (book / "_build" / "executed").exists()  # nothing executed meanwhile


def test_the_book_marks_a_chapter_whose_latest_run_failed(book):
    build = book / "_build"
    runner.run_chapter(runner.resolve("1"), "quick")
    with pytest.raises(runner.ChapterError):
        runner.run_chapter(runner.resolve("1"), "quick", {"fail": True, "label": "a`b"})
    index, failures = bookmaker.build_book("quick", progress=False, only=[])
    assert failures == []
    page = _text((index.parent / "notebooks" / "01_demo.html").read_text())
    top = page.split("Demo chapter #", 1)[1].lstrip()  # right under the title
    assert top.startswith("Warning The latest run of this chapter failed"), top[:200]
    assert "parameters fail=True, label='a'b'" in top and "asked to fail in cell" in top
    assert "This page shows the previous good run" in top
    assert "The answer is 4.5" in page  # the good run's glued value
    other = (index.parent / "notebooks" / "02_other.html").read_text()
    assert "Other chapter (not built)" not in other and "did not execute" in other
    repro = bookmaker.provenance(build)
    assert re.search(rf"\| 01_demo \| {re.escape(bookmaker.STALE)} \| [\d: -]+ \| quick \|", repro)
    assert "asked to fail" in repro
    cpu = pages.processor()  # what run times depend on: named beside the cores
    assert cpu and f"{cpu}, {os.cpu_count()} CPU cores" in repro
    glance = bookmaker._glance(build, book)
    assert f"<../notebooks/01_demo>` ({bookmaker.STALE})" in glance
    assert glance.startswith("```{warning}\nThe latest run of chapter 1 (Demo chapter) failed")
    assert bookmaker.STALE not in bookmaker._glance(build, book).split("02_other")[-1]


@pytest.mark.parametrize("damage", [lambda b: b[: len(b) // 2], lambda b: b[:7],
                                    lambda b: b"", lambda b: b"\x00not a pickle" * 40])
def test_a_damaged_cache_entry_is_recomputed_not_loaded(tmp_path, monkeypatch, caplog, damage):
    monkeypatch.setenv("SEMRES_BUILD_DIR", str(tmp_path))
    calls = []

    def ramp(n, scale):
        calls.append(n)
        return np.arange(n) * scale

    cached = semres_book.cache().cache(ramp)
    expected = np.arange(500) * 0.5
    np.testing.assert_array_equal(cached(500, 0.5), expected)
    (entry,) = tmp_path.rglob("output.pkl")
    entry.write_bytes(damage(entry.read_bytes()))
    np.testing.assert_array_equal(cached(500, 0.5), expected)
    assert calls == [500, 500]  # recomputed, not loaded
    np.testing.assert_array_equal(cached(500, 0.5), expected)
    assert calls == [500, 500]  # and rewritten: the next call loads it
    damaged = [r.getMessage() for r in caplog.records if "damaged cache entry" in r.getMessage()]
    assert len(damaged) == 1 and "ramp(500, 0.5)" in damaged[0] and "\n" not in damaged[0]


def test_the_reproducibility_page_quotes_the_engine_benchmark(tmp_path, capsys, monkeypatch):
    import importlib.util

    build = tmp_path / "build"
    assert "Not measured for this build" in bookmaker.provenance(build)
    spec = importlib.util.spec_from_file_location("bench_engine",
                                                  ROOT / "benchmarks" / "bench_engine.py")
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_engine", bench)  # its processes find it by name
    spec.loader.exec_module(bench)
    record = build / "benchmarks" / "engine.json"
    bench.main(["--trials", "600000", "--baseline-trials", "100000", "--repeats", "1",
                "--no-others", "--record", str(record)])
    printed = capsys.readouterr().out
    for figure in ("engine, 1 thread", "threads / 1 thread", "PCG64 draws alone",
                   "straightforward numpy", "engine / PCG64 limit"):
        assert figure in printed
    figures = json.loads(record.read_text())
    page = bookmaker.provenance(build)
    assert "## Monte Carlo engine" in page and "Not measured" not in page
    one = figures["rates"]["engine, 1 thread"] / 1e6
    assert f"| engine, 1 thread | {one:.1f} |" in page
    assert f"reaches {figures['ratio_limit']:.2f} of the speed of its random numbers" in page


def test_lanes_start_the_longest_chapter_first(tmp_path):
    """Side by side, a long chapter started last keeps one core busy alone at the end: the
    order is by the last run's seconds, a chapter never run first, then by the seconds its
    settings expect. Chapter 4 takes its place by its seconds like any other (its runs once
    waited for the cores others freed and ran alone at the end)."""
    chapters = [runner.Chapter(k, name, tmp_path / f"{name}.py") for k, name in
                enumerate(["01_pareto_front", "04_resnet_phylogeny", "05_llm_years",
                           "07_front_universality"], 1)]
    (tmp_path / "executed").mkdir()
    for name, seconds in (("01_pareto_front", 9.0), ("05_llm_years", 60.0),
                          ("07_front_universality", 30.0)):
        (tmp_path / "executed" / f"{name}.json").write_text(json.dumps({"seconds": seconds}))
    assert [c.name for c in bookmaker.lane_order(chapters, tmp_path)] == [
        "04_resnet_phylogeny", "05_llm_years", "07_front_universality", "01_pareto_front"]
    (tmp_path / "executed" / "04_resnet_phylogeny.json").write_text(json.dumps({"seconds": 40.0}))
    assert [c.name for c in bookmaker.lane_order(chapters, tmp_path)] == [
        "05_llm_years", "04_resnet_phylogeny", "07_front_universality", "01_pareto_front"]
    for ch in chapters:  # a fresh build: by the seconds each chapter's settings expect
        (tmp_path / "executed" / f"{ch.name}.json").unlink(missing_ok=True)
    expected = [c.name for c in sorted(chapters, reverse=True,
                                       key=lambda c: SETTINGS[c.name].seconds)]
    assert [c.name for c in bookmaker.lane_order(chapters, tmp_path)] == expected


def test_a_finished_lane_gives_its_core_to_the_chapters_still_running():
    import os
    import subprocess
    import sys

    from semres.pipeline.book import share_cores

    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two cores")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        os.sched_setaffinity(child.pid, {cpus[0]})  # a lane's chapter, held to one core
        assert share_cores(cpus) >= 1
        assert sorted(os.sched_getaffinity(child.pid)) == cpus
    finally:
        child.kill()
        child.wait()


def test_lanes_follow_the_settings_until_a_run_is_recorded(tmp_path):
    """Without recorded runs the settings' measured seconds order the chapters (chapter 5, the
    language models, first); a chapter's recorded run then takes over, and one never run goes
    before every recorded one."""
    import json

    from semres.pipeline import runner
    from semres.pipeline.book import lane_order

    chapters = runner.chapters()
    fresh = [ch.name for ch in lane_order(chapters, tmp_path)]
    assert fresh[0] == "05_llm_years" and fresh.index("06_vlm_shapes") < fresh.index(
        "01_pareto_front")
    (tmp_path / "executed").mkdir()
    for ch in chapters:
        if ch.name != "01_pareto_front":
            seconds = 1.0 if ch.name == "05_llm_years" else 5.0
            (tmp_path / "executed" / f"{ch.name}.json").write_text(json.dumps(
                {"seconds": seconds}))
    timed = [ch.name for ch in lane_order(chapters, tmp_path)]
    assert timed[0] == "01_pareto_front" and timed[-1] == "05_llm_years"
