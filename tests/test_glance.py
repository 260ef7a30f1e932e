"""The results-at-a-glance page from synthetic result tables with a known content."""

import pandas as pd
import pytest

from semres.report import glance
from semres.report import plotting

CHAPTERS = {"01_alpha": "Alpha", "02_beta": "Beta", "03_gamma": "Gamma", "04_delta": "Delta"}
DOCS = {n: f"../notebooks/{n}" for n in CHAPTERS}


def _summary(chapter, rows):
    base = dict(chapter=chapter, result="r", statement="s", paper_value=float("nan"),
                check_max_z=float("nan"), headline=float("nan"), ci_low=float("nan"),
                ci_high=float("nan"), status="reproduced")
    return pd.DataFrame([{**base, **r} for r in rows])


@pytest.fixture
def results(tmp_path):
    res = tmp_path / "results"
    a = res / "01_alpha"
    a.mkdir(parents=True)
    _summary("01_alpha", [
        dict(result="front", statement="p_S | p_I on the front, <b> = 1/2", paper_value=0.75,
             check_max_z=1.234, headline=0.7312, ci_low=0.7012, ci_high=0.7598,
             status="reproduced"),
        dict(result="lm", statement="needs a causal LM", status="not run"),
        dict(result="peak", statement="peak generalization", paper_value="70-80 years",
             headline=12.5, ci_low=11.0, ci_high=14.0, status="differs", unit="years"),
        dict(result="effect", statement="raises p_S", compared_with=0.0,
             compared_with_label="no change", headline=0.1, ci_low=0.05, ci_high=0.15,
             status="reproduced", stand_in="a simulated tree", kind="finding",
             claim="above", margin=0.02, margin_reason="a change a figure shows"),
        dict(result="bound", statement="the certificate's gap", kind="check", status="check",
             headline=1e-6),
        dict(result="gate", statement="the model does the task", kind="precondition",
             status="met", headline=0.8),
    ]).to_csv(a / "summary.csv", index=False)
    pd.DataFrame({"chapter": "01_alpha", "system": ["net", "net", "model"],
                  "p_i": [0.9, 0.8, 0.7], "p_s": [0.6, 0.7, 0.72],
                  "se_i": [0.01, 0.01, float("nan")], "se_s": [0.02, 0.01, 0.0]}
                 ).to_csv(a / "front.csv", index=False)
    (res / "02_beta").mkdir()  # built, but wrote neither table
    c = res / "03_gamma"  # stale tables of a chapter that did not execute in this build
    c.mkdir()
    _summary("03_gamma", [dict(statement="stale claim", headline=98765.0)]).to_csv(
        c / "summary.csv", index=False)
    pd.DataFrame({"chapter": "03_gamma", "system": "old", "p_i": [0.6], "p_s": [0.6],
                  "se_i": [0.0], "se_s": [0.0]}).to_csv(c / "front.csv", index=False)
    d = res / "04_delta"  # a summary that does not follow the convention
    d.mkdir()
    pd.DataFrame({"quantity": ["x"], "value": [1.0]}).to_csv(d / "summary.csv", index=False)
    return res


BUILT = {"01_alpha": "Alpha", "02_beta": "Beta", "04_delta": "Delta"}


def test_only_built_chapters_are_read_and_missing_tables_say_not_run(results):
    table, front = glance.read_tables(results, BUILT)
    assert list(table.chapter) == ["01_alpha"] * 6 + ["02_beta", "04_delta"]
    assert list(table.status) == ["reproduced", glance.NOT_RUN, "differs", "reproduced", "check",
                                  "met", glance.NOT_RUN, glance.NOT_RUN]
    assert list(table.kind) == ["finding"] * 4 + ["check", "precondition"] + ["finding"] * 2
    assert "no summary.csv" in table.statement.iloc[6]
    assert "summary.csv is not a result table: it lacks 9 of its 9 columns" in \
        table.statement.iloc[7]
    assert sorted(front.system) == ["model", "net", "net"]  # nothing from the stale chapter


def test_page_formats_numbers_and_never_shows_stale_ones(results, tmp_path):
    text = glance.page(results, BUILT, CHAPTERS, DOCS, tmp_path / "front.svg")
    table = text.split("## The findings")[1].split("## Every system")[0]
    rows = [line for line in table.splitlines() if line.startswith("| {doc}")]
    assert len(rows) == 7  # four findings, two built chapters without one, one not executed
    first = rows[0]
    # one row per claim: the claim, its numbers, its status last
    assert first.startswith("| {doc}`Ch. 1 <../notebooks/01_alpha>`: front | ")
    assert "| 0.731 [0.701, 0.760]; paper 0.750; largest \\|z\\| 1.23 | reproduced |" in first
    assert "paper_value" not in table and "check_max_z" not in table and "nan" not in table
    assert rows[2].endswith("| **differs** |") and ": peak |" in rows[2]
    # width 3 needs two significant figures at one decimal; the text paper value stays text
    assert "| 12.5 [11.0, 14.0] years; paper 70-80 years |" in rows[2]  # its unit said
    # a stand-in is marked, not spelled out in every row; a reference not the paper's is named
    assert rows[3].endswith("| reproduced † |") and "a simulated tree" not in table
    assert "0.100 [0.050, 0.150]; compared with no change 0" in rows[3]
    assert "{doc}`Ch. 3 <../notebooks/03_gamma>`" in rows[5] and glance.NOT_RUN in rows[5]
    assert "98765" not in text and "stale claim" not in text
    # a tally counts the findings measured; what was not run is listed, not counted
    assert ("Of 3 findings measured in this build: 2 reproduced, 1 differs (4 more not run, "
            "listed with the reason)." in text)
    # preconditions and checks apart, folded, never counted; then the statuses and the policy
    folded = text.split(":::{dropdown} The preconditions and the checks")[1].split(":::")[0]
    assert "gate" in folded and "1 met" in folded and "bound" in folded
    assert "bound" not in table
    words = text.split(":::{dropdown} What the statuses mean")[1]
    for name in glance.STATUSES[:-1]:
        assert f"- **{name}**: " in words
    assert f"- **{glance.NOT_RUN}**: " in words
    assert "practical margin" in words and "Bonferroni" in words and "0.001" in words
    figure = tmp_path / "front.svg"
    # one figure (a phone variant, if any, rides inside in a section renderers skip)
    assert figure.is_file()
    assert figure.read_text().split(plotting.PHONE_START)[0].count("<svg") == 1
    assert ":alt: Scatter of 3 measured systems" in text and "3 from chapter 1" in text
    assert "```{figure}" not in text  # an unnumbered image: the chapters' figures start at 1


def test_page_without_any_front_points_says_so(tmp_path):
    text = glance.page(tmp_path / "none", {}, CHAPTERS, DOCS, tmp_path / "f.svg")
    assert "nothing to place" in text and not (tmp_path / "f.svg").exists()
    assert text.count(glance.NOT_RUN) >= 4


def test_front_page_states_each_chapters_finding_then_the_tally_folded(results):
    (results / "01_alpha" / "finding.md").write_text("The front holds within 0.01.\n")
    text = glance.in_brief(results, BUILT, CHAPTERS, DOCS, stale={"04_delta"})
    lines = text.strip().splitlines()
    assert lines[0] == "## What this build found"
    # the finding each chapter's box leads with, in one line; without one, its tally
    assert lines[2] == ("- **Ch. 1, {doc}`Alpha <../notebooks/01_alpha>`.** The front holds "
                        "within 0.01.")
    assert lines[3] == f"- **Ch. 2, {{doc}}`Beta <../notebooks/02_beta>`.** {glance.NOT_RUN}."
    # stale tables of a chapter that did not run are never read; a stale run says so
    assert lines[4] == "- **Ch. 3, {doc}`Gamma <../notebooks/03_gamma>`.** Not run in this build."
    assert lines[5].endswith("(previous good run; latest failed)")
    # the tally of claims follows, one click away; preconditions and not run never counted
    folded = text.split(":::{dropdown}")[1]
    assert ("3 findings: 2 reproduced, 1 differs; not counted: 1 precondition (1 met), 3 not "
            "run. Each one, with its numbers: {doc}`glance`.") in folded
    assert "- Ch. 1: 2 reproduced, 1 differs" in folded and "98,765" not in text


def test_the_models_page_identifies_a_split_file_by_its_hash():
    from semres.pipeline import book
    from semres.report import pages

    text = pages.models_page(book.models())
    qwen = text.split("## Qwen2.5-Coder-0.5B-Instruct")[1].split("## ")[0]
    assert "never loaded" in text.split("## ")[0]  # how a split file is checked, said once
    from semres.experiments.llm.models import SHIPPED

    shipped = SHIPPED["qwen2.5-coder-0.5b"]
    assert shipped.sha256 in qwen and f"{len(shipped.parts)} parts" in qwen
    assert shipped.licence in qwen
    assert "## all-MiniLM-L6-v2" in text
