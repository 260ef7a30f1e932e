"""A new chapter touches its experiment's subpackage, its notebook, ``_toc.yml`` and the
registry's line (and the introduction's and README's lists): built from ``templates/chapter``
in a copy of the checkout, it passes the rules test and runs headless."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME, NUMBER, CHAPTER, TITLE = "demo", 8, "08_demo", "A demonstration chapter"


def _render(text: str) -> str:
    for key, value in {"{{name}}": NAME, "{{Name}}": NAME.capitalize(), "{{chapter}}": CHAPTER,
                       "{{number}}": str(NUMBER), "{{title}}": TITLE}.items():
        text = text.replace(key, value)
    return text


@pytest.mark.chapters
def test_a_chapter_built_from_the_template_follows_the_rules_and_runs(tmp_path):
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    repo = tmp_path / "repo"
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    # the four places a chapter touches
    template = ROOT / "templates" / "chapter"
    package = repo / "src" / "semres" / "experiments" / NAME
    package.mkdir()
    for module in (template / "experiment").glob("*.py"):
        (package / module.name).write_text(_render(module.read_text()))
    (repo / "notebooks" / f"{CHAPTER}.py").write_text(_render((template / "notebook.py").read_text()))
    toc = repo / "_toc.yml"
    toc.write_text(toc.read_text().replace(
        "      - file: notebooks/07_front_universality\n",
        f"      - file: notebooks/07_front_universality\n      - file: notebooks/{CHAPTER}\n"))
    registry = repo / "src" / "semres" / "pipeline" / "registry.py"
    text = registry.read_text()
    text = text.replace("from semres.experiments.frontier import settings as frontier\n",
                        "from semres.experiments.frontier import settings as frontier\n"
                        f"from semres.experiments.{NAME} import settings as {NAME}\n")
    text = text.replace("frontier.SETTINGS)}", f"frontier.SETTINGS, {NAME}.SETTINGS)}}")
    registry.write_text(text)
    intro = repo / "book" / "intro.md"
    intro.write_text(intro.read_text() + f"\n- {{doc}}`../notebooks/{CHAPTER}`\n")
    readme = repo / "README.md"
    readme.write_text(re.sub(r"(\n\| 7 \| `07_front_universality` \|[^\n]*\n)",
                             rf"\1| {NUMBER} | `{CHAPTER}` | a demonstration | the engine | |\n",
                             readme.read_text()))
    env = {**os.environ, "PYTHONPATH": str(repo / "src"), "SEMRES_BUILD_DIR": str(tmp_path / "b")}
    rules = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-p", "no:xdist", str(repo / "tests" / "test_chapter_rules.py"),
                            "-k", f"{CHAPTER} or {NAME}"], cwd=repo, env=env,
                           capture_output=True, text=True)
    assert rules.returncode == 0, rules.stdout[-3000:]
    assert re.search(r"\d+ passed", rules.stdout)
    run = subprocess.run([sys.executable, "-m", "semres.pipeline.cli", "run", str(NUMBER),
                          "--profile", "quick"], cwd=repo, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    summary = pd.read_csv(tmp_path / "b" / "results" / CHAPTER / "summary.csv")
    assert list(summary.status) == ["reproduced"] and summary.detectable.notna().all()
    record = json.loads((tmp_path / "b" / "executed" / f"{CHAPTER}.json").read_text())
    assert record["status"] == "ok"
