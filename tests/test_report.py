"""The reporting object: statuses computed from the numbers, rows in one schema, named seeds."""

import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from semres import report
from semres.core import book
from semres.core.seeds import seeds


REF = {"compared_with": 0.5, "margin": 0.02}
#: a finding beyond the paper that holds
HOLDS = {"ci": (0.49, 0.51), "compared_with": 0.5, "compared_with_label": "the law",
         "margin": 0.02, "margin_reason": "a figure shows it", "new": True}
PAPER = {"paper_value": 0.75, "margin": 0.01}


@pytest.mark.parametrize("kwargs, expected", [
    # a prediction: within the margin (both one-sided tests pass), beyond it, or across its edge
    ({"ci": (0.49, 0.51), **REF}, "reproduced"),
    ({"ci": (0.49, 0.51), **REF, "new": True}, "holds"),
    ({"ci": (0.53, 0.56), **REF}, "does not hold"),
    ({"ci": (0.44, 0.47), **REF}, "does not hold"),
    ({"ci": (0.51, 0.53), **REF}, "inconclusive"),
    ({"ci": (0.40, 0.60), **REF}, "inconclusive"),  # wide: cannot tell, never a pass
    # a significant difference inside the margin is no contradiction (the chapter-3 case)
    ({"ci": (0.5015, 0.5042), **REF}, "reproduced"),
    # against a number the paper gives: differs, only then
    ({"ci": (0.745, 0.758), **PAPER}, "reproduced"),
    ({"ci": (0.765, 0.78), **PAPER}, "differs"),
    ({"ci": (0.755, 0.78), **PAPER}, "inconclusive"),
    ({"ci": (0.8058, 0.809), "paper_value": 0.8098, "margin": 0.0}, "differs"),
    # an effect claimed to exist: beyond the margin on its side; short of it, it does not hold
    ({"ci": (0.03, 0.05), "compared_with": 0.0, "margin": 0.02, "claim": "above"}, "reproduced"),
    ({"ci": (0.001, 0.015), "compared_with": 0.0, "margin": 0.02, "claim": "above"},
     "does not hold"),
    ({"ci": (-0.013, 0.035), "compared_with": 0.0, "margin": 0.02, "claim": "above"},
     "inconclusive"),  # the temperature case: a turn the test could not see
    ({"ci": (-0.05, -0.03), "compared_with": 0.0, "margin": 0.02, "claim": "below"},
     "reproduced"),
    # no worse than the reference by more than the margin (the slot case: on the front)
    ({"ci": (0.6531, 0.6643), "compared_with": 0.66, "margin": 0.01, "claim": "at least"},
     "reproduced"),
    ({"ci": (0.62, 0.64), "compared_with": 0.66, "margin": 0.01, "claim": "at least"},
     "does not hold"),
    ({"ci": (0.62, 0.67), "compared_with": 0.66, "margin": 0.01, "claim": "at most"},
     "inconclusive"),
    # not identified, misfit, does not do the task: no measurement, whatever the numbers
    ({"ci": (0.53, 0.56), **REF, "identified": False}, "not identified"),
    ({"ci": (0.49, 0.51), **REF, "misfit": True}, "misfit"),
    ({"ci": (0.4, 0.56), **REF, "does_task": False}, "does not do the task"),
    # check: true by construction, shown apart
    ({"passed": True, "kind": "check"}, "check"),
    ({"check_max_z": 1.0, "passed": True, "kind": "check", "new": True}, "check"),
    ({"check_max_z": report.Z_MAX + 0.1, "kind": "check"}, "check failed"),
    ({"passed": False, "kind": "check"}, "check failed"),
    ({"passed": True, "kind": "check", "misfit": True}, "check"),  # a check is no fit
    # nothing measured
    ({}, "not run"),
    ({"ci": (np.nan, np.nan), **REF}, "not run"),
])
def test_status_follows_the_interval_against_the_margin(kwargs, expected):
    assert report.status(**kwargs) == expected


def test_every_status_is_in_the_vocabulary_and_explained():
    assert report.STATUSES == tuple(report.VOCABULARY)
    for expected in ("reproduced", "differs", "not identified", "misfit",
                     "does not do the task", "inconclusive", "holds", "does not hold", "check",
                     "not run"):
        assert expected in report.VOCABULARY and len(report.VOCABULARY[expected]) > 20
    assert "agrees within tolerance" not in report.VOCABULARY


@pytest.mark.parametrize("kwargs, word", [
    ({"ci": (0, 1), "paper_value": 0.5, "margin": -1}, "margin"),
    ({"ci": (0, 1), "paper_value": 0.5, "margin": float("nan")}, "margin"),
    ({"ci": (0, 1), "paper_value": 0.5}, "margin"),  # an interval and nothing to judge it by
    ({"ci": (0, 1), "margin": 0.1}, "compared_with"),  # no reference
    ({"passed": True}, "passed"),  # a finding has no yes-or-no criterion
    ({"passed": True, "kind": "claim"}, "kind"),
    ({"kind": "check"}, "passed"),
    ({"ci": (0, 1), "compared_with": 0.5, "margin": 0.1, "claim": "up"}, "claim"),
    ({"ci": (0, 1), "paper_value": 0.5, "compared_with": 0.5, "margin": 0.1},
     "compared_with"),
])
def test_bad_status_arguments_are_refused_by_name(kwargs, word):
    with pytest.raises(ValueError, match=word):
        report.status(**kwargs)


def test_simulated_claims_read_as_true_near_miss_and_miss():
    # estimates of a quantity whose prediction is 0.5, with a margin of 0.02, from 50,000 trials
    # a data set: where the truth is the prediction, or misses it by less than the margin, the
    # interval lies within it ("reproduced"); where it misses by twice the margin, beyond it
    rng = np.random.default_rng(7)
    seen = {}
    for truth in (0.5, 0.51, 0.54):
        got = []
        for _ in range(200):
            est = rng.binomial(50_000, truth) / 50_000
            se = np.sqrt(est * (1 - est) / 50_000)
            got.append(report.status(ci=(est - 1.96 * se, est + 1.96 * se), compared_with=0.5,
                                     margin=0.02))
        seen[truth] = pd.Series(got).value_counts(normalize=True)
    assert seen[0.5].get("reproduced", 0) > 0.95
    assert seen[0.51].get("reproduced", 0) > 0.9
    assert seen[0.54].get("does not hold", 0) > 0.95
    assert all(s.get("does not hold", 0) == 0 for t, s in seen.items() if t < 0.52)


@pytest.fixture(autouse=True)
def _results_elsewhere(tmp_path, monkeypatch):
    """A box saves its lead (finding.md) beside the results: never into the book's build."""
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path / "results"))


def _glued(monkeypatch):
    glued = {}
    monkeypatch.setattr(report.Report, "_glue", lambda self, name, value, display=False:
                        glued.__setitem__(self.prefix + name, value))
    return glued


def test_rows_points_and_deviations_are_written_in_one_schema(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))
    glued = _glued(monkeypatch)
    rep = report.Report("03_toy_relu")
    assert rep.result("peak", "the peak", headline=np.float64(0.8), ci=(0.79, 0.81),
                      paper_value=0.8, margin=0.02, margin_reason="seed spread") == "reproduced"
    assert rep.result("gap (new)", "a derived gap", headline=0.02, ci=(0.01, 0.03),
                      compared_with=0.0169, compared_with_label="the derived segment law",
                      margin=0.0, margin_reason="exact", new=True) == "inconclusive"
    assert rep.result("far", "a far miss", headline=0.7, ci=(0.68, 0.72), compared_with=0.8,
                      compared_with_label="the law", margin=0.02,
                      margin_reason="a plot shows it") == "does not hold"
    assert rep.result("identity", "holds by construction", passed=True, kind="check") == "check"
    rep.not_run("effect", "needs two seeds")
    rep.point("net", 0.9, 0.7, 0.01, 0.02)
    rep.deviations({"seeds": 3}, {"seeds": (10, "seeds per condition")}, "a note")
    rep.number("peak_ps", np.float32(0.5))
    assert glued["ch3_peak_ps"] == 0.5 and type(glued["ch3_peak_ps"]) is float
    rep.save()
    summary = pd.read_csv(tmp_path / "03_toy_relu" / "summary.csv")
    assert tuple(summary.columns) == report.SUMMARY_COLUMNS
    assert summary.status.tolist() == ["reproduced", "inconclusive", "does not hold", "check",
                                       "not run"]
    assert summary.kind.tolist() == ["finding", "finding", "finding", "check", "finding"]
    assert summary.margin_reason.iloc[0] == "seed spread"
    # paper_value holds only the paper's number; any other reference has its own column
    assert summary.paper_value.isna().tolist() == [False, True, True, True, True]
    assert summary.compared_with.iloc[1] == 0.0169
    assert summary.compared_with_label.iloc[1] == "the derived segment law"
    # every finding measured carries a margin; the others the reason none applies
    measured = summary[(summary.kind == "finding") & (summary.status != "not run")]
    assert measured.margin.notna().all()
    assert summary.margin_reason.iloc[3].startswith("none")
    # the miss: the estimate and its interval less the reference
    assert summary.miss.iloc[2] == pytest.approx(-0.1)
    assert (summary.miss_low.iloc[2], summary.miss_high.iloc[2]) == (
        pytest.approx(-0.12), pytest.approx(-0.08))
    # every finding records what its test could detect, a failure as much as a pass
    assert measured.detectable.notna().all()
    front = pd.read_csv(tmp_path / "03_toy_relu" / "front.csv")
    assert tuple(front.columns) == report.FRONT_COLUMNS and front.p_s.iloc[0] == 0.7
    assert "seeds per condition: 3 (paper: 10)" in glued["ch3_deviations"].data
    assert "a note" in glued["ch3_deviations"].data


def test_a_row_must_say_what_its_margin_and_reference_are(monkeypatch):
    _glued(monkeypatch)
    rep = report.Report("03_toy_relu")
    with pytest.raises(ValueError, match="margin_reason"):
        rep.result("peak", "the peak", ci=(0.79, 0.81), paper_value=0.8, margin=0.02)
    with pytest.raises(ValueError, match="compared_with_label"):
        rep.result("gap", "a gap", ci=(0.01, 0.03), compared_with=0.0, claim="above",
                   margin=0.0, margin_reason="any effect")
    with pytest.raises(ValueError, match="result"):
        rep.result(" ", "no name", passed=True, kind="check")
    with pytest.raises(ValueError, match="fit_size"):
        rep.result("kernel", "a fit", ci=(1, 2), compared_with=0.0, compared_with_label="x",
                   margin=0.1, margin_reason="r", misfit=True)


def test_a_misfit_says_how_far_and_a_miss_heads_a_negative_row(monkeypatch):
    _glued(monkeypatch)
    rep = report.Report("06_vlm_shapes")
    size = {"dispersion": 4.2, "explained_null": 0.91, "explained_saturated": 0.83,
            "rms_gap": 0.031, "rms_sampling": 0.012}
    rep.result("kernel", "an exponential fits the answers", headline=5.1, ci=(4.0, 6.5),
               compared_with=0.0, compared_with_label="no scale", claim="above", margin=1.0,
               margin_reason="a pixel", misfit=True, fit_size=size, gof_p=1e-6,
               approximate=True)
    line = report.box_line(rep.rows[-1])
    assert rep.rows[-1]["status"] == "misfit" and rep.rows[-1]["dispersion"] == 4.2
    assert line.index("4.2 times") < line.index("This build")  # the size comes first
    assert "91%" in line and "83%" in line and "0.031" in line and "0.012" in line
    assert "approximate" in line
    rep.result("law", "a law", headline=0.62, ci=(0.60, 0.64), compared_with=0.7,
               compared_with_label="the law", margin=0.02, margin_reason="a plot shows it")
    line = report.box_line(rep.rows[-1])
    assert "Misses the law by −0.080 [−0.100, −0.060]" in line


def test_a_claim_over_a_grid_counts_once_and_its_weakest_cell_decides(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))
    _glued(monkeypatch)
    rep = report.Report("07_front_universality")
    cells = [{"cell": f"n = {n}", "headline": h, "ci": (h - 0.01, h + 0.01)}
             for n, h in ((2, 0.05), (4, 0.04), (8, 0.025))]
    got = rep.grid_result("beats", "the best similarity beats the constant kernel", cells,
                          "beats_cells", compared_with=0.0, compared_with_label="no gain",
                          claim="above", margin=0.02, margin_reason="a plot shows it",
                          new=True)
    assert got == "inconclusive" and len(rep.rows) == 1  # n = 8's interval reaches the margin
    assert rep.rows[0]["cells"] == "2 of 3 hold" and rep.rows[0]["headline"] == 0.025
    table = pd.read_csv(tmp_path / "07_front_universality" / "beats_cells.csv")
    assert table.status.tolist() == ["holds", "holds", "inconclusive"]
    assert report.weakest(["holds", "does not hold", "inconclusive"]) == 1
    # among cells of one status, the one nearest to failing decides, wherever it is listed
    cells = [{"cell": "far", "headline": 0.06, "ci": (0.05, 0.07)},
             {"cell": "near", "headline": 0.03, "ci": (0.021, 0.04)}]
    rep.grid_result("beats 2", "a gain", cells, "beats2_cells", compared_with=0.0,
                    compared_with_label="no gain", claim="above", margin=0.02,
                    margin_reason="a plot shows it", new=True)
    assert rep.rows[-1]["headline"] == 0.03 and rep.rows[-1]["status"] == "holds"
    assert report.slack(0.021, 0.04, 0.0, 0.02, "above") == pytest.approx(0.001)


def test_named_streams_do_not_depend_on_order_and_differ_by_name_and_key():
    a = seeds(7)
    first = a("lambda_sweep", 2).generate_state(4)
    a("something else")  # drawing another stream first changes nothing
    assert (seeds(7)("lambda_sweep", 2).generate_state(4) == first).all()
    assert not (a("lambda_sweep", 3).generate_state(4) == first).all()
    assert not (a("n_sweep", 2).generate_state(4) == first).all()
    assert not (seeds(8)("lambda_sweep", 2).generate_state(4) == first).all()
    with pytest.raises(ValueError, match="seed"):
        seeds(-1)


@pytest.mark.parametrize("value, kwargs, expected", [
    (0.7312, {}, "0.731"), (12.0, {}, "12"), (1234567.0, {}, "1.23 × 10⁶"),
    (2.5e-5, {}, "2.50 × 10⁻⁵"), (12345.0, {}, "12,345"), (0.75, {"places": 3}, "0.750"),
    (float("nan"), {}, "—"), (None, {}, "—"), ("70-80 years", {}, "70-80 years"),
])
def test_numbers_read_as_a_person_writes_them(value, kwargs, expected):
    assert report.fmt(value, **kwargs) == expected


def test_places_show_the_smallest_gap_and_plural_counts():
    assert report.places(0.0586, 0.01) == 3  # 0.010 to two significant figures
    assert report.places(3.0) == 1 and report.places(None, 0) is None
    assert report.plural(1, "result") == "1 result" and report.plural(3, "result") == "3 results"
    assert report.tally(["differs", "reproduced", "reproduced"]) == "2 reproduced, 1 differs"
    assert report.tally(["check", "holds"]) == "1 holds, 1 check"


def test_the_box_counts_checks_by_whether_they_pass(monkeypatch):
    """Checks are counted apart: "all pass", or the failed ones named beside those that pass."""
    glued = _glued(monkeypatch)
    rep = report.Report("03_toy_relu")
    rep.result("a law", "holds", ci=(-0.001, 0.001), compared_with=0.0,
               compared_with_label="its closed form", margin=0.005, margin_reason="a plot")
    for passed in (True, True, False):
        rep.result("identity", "true by construction", passed=passed, kind="check")
    rep.box("profile `quick`, seed 0")
    assert "3 checks (true by construction): 1 check failed, 2 pass.**" in \
        glued["ch3_result_box"].data


def test_box_states_every_result_in_words_and_what_ran(monkeypatch):
    glued = _glued(monkeypatch)
    rep = report.Report("03_toy_relu")
    rep.result("toy net: peak", "peak <b> of p_S", headline=0.80891, ci=(0.8074, 0.81049),
               paper_value=0.8098, margin=0.005, margin_reason="seed spread")
    rep.result("Theorem 1", "the closed form", headline=0.001, ci=(-0.002, 0.004),
               compared_with=0.0, compared_with_label="its closed form", margin=0.005,
               margin_reason="below what a figure shows", check_max_z=2.14)
    rep.result("Theorem 2", "the noisy law", headline=0.05, ci=(0.04, 0.06), paper_value=0.75,
               margin=0.005, margin_reason="below what a figure shows")
    rep.result("gate", "does the task", headline=0.48, ci=(0.40, 0.56), passed=False,
               does_task=False, kind="precondition")
    rep.result("effect", "raises p_S", headline=0.1, ci=(0.05, 0.15), compared_with=0.0,
               compared_with_label="no change", claim="above", margin=0.02,
               margin_reason="a change a figure shows", stand_in="a simulated tree")
    rep.result("shortfall (new)", "derived gap", headline=0.02, ci=(0.015, 0.025),
               compared_with=0.0169, compared_with_label="the derived segment law",
               margin=0.0, margin_reason="an exact law", new=True)
    rep.result("identity", "true by construction", passed=True, kind="check")
    rep.not_run("later", "needs two seeds.")
    assert rep.box("profile `quick`, seed 0") is None  # a cell ending with it prints nothing
    text = glued["ch3_result_box"].data
    first, details = text.split(":::{dropdown}")
    lines = first.splitlines()
    # the count comes first, each status once, in the order of report.STATUSES; checks apart;
    # a precondition and a result not run are shown but never counted as findings; the box is
    # amber: some results held, some did not
    assert lines[0] == ('<span class="semres-outcome semres-outcome-mixed"></span>'
                        "**In this build, 5 findings: 3 reproduced, 1 differs, 1 inconclusive; "
                        "1 check (true by construction): all pass.**")
    # the first screen names the first five findings and their status, nothing more
    assert lines[2] == "* toy net: peak: *reproduced*"
    # a stand-in is named in the status, the details say which
    assert lines[5] == "* effect: *reproduced, on a stand-in*"
    assert lines[7] == ("* *Not counted:* 1 precondition (gates deciding whether a finding is "
                        "measured: 1 does not do the task), 1 not run")
    lines = details.splitlines()[1:]
    # the details name the stand-in once, before the results; each result on it says so
    assert lines.pop(0) == ("* **The stand-in.** A result that says “on the stand-in” was "
                            "obtained on a simulated tree.")
    # a margin of 0.005 needs four decimals to show that [0.8074, 0.8105] lies within
    # 0.8098 ± 0.005; math written as text is typeset
    assert lines[0] == ("* **toy net: peak: reproduced.** peak $\\langle b\\rangle$ of $p_S$. "
                        "This build: 0.8089 [0.8074, 0.8105] (95% interval); the paper: 0.8098. "
                        "Margin 0.005 (seed spread).")
    assert lines[1].startswith("* **Theorem 1: reproduced.** the closed form. This build:")
    assert "Largest \\|z\\| of its Monte Carlo cells: 2.14." in lines[1]
    # a row that misses leads with its miss
    assert lines[2].startswith("* **Theorem 2: differs.** the noisy law. Misses the paper by "
                               "−0.7000 [−0.7100, −0.6900], beyond the margin of 0.005.")
    # a result on a stand-in says so in its status line, by the name the details gave it
    assert lines[3].startswith("* **effect: reproduced, on the stand-in.**")
    assert "; compared with no change: 0" in lines[3]
    # a value derived here is "compared with", never "the paper"; an undecided row says what
    # its test could detect
    assert "compared with the derived segment law: 0.0169" in lines[4]
    assert "the paper" not in lines[4] and "detects a deviation of 0.0071" in lines[4]
    assert lines[5].startswith("* *Preconditions")
    assert lines[6].startswith("  * **gate: does not do the task.**") and \
        "0.480 [0.400, 0.560]" in lines[6]
    assert lines[7].startswith("* *Not run in this build")
    assert lines[8] == "  * **later: not run.** needs two seeds."
    assert lines[9].startswith("* *Checks, true by construction")
    assert lines[10].startswith("  * **identity: check.**")
    assert lines[-2] == "* **What ran.** profile `quick`, seed 0" and lines[-1] == ":::"
    # a lead sentence, when given, opens the box before the count
    rep.box("profile `quick`, seed 0", lead="The model  generalises within 30 years.")
    first = glued["ch3_result_box"].data.split(":::{dropdown}")[0].splitlines()
    assert first[0] == ('<span class="semres-outcome semres-outcome-mixed"></span>'
                        "The model generalises within 30 years.")
    assert first[2].startswith("**In this build, 5 findings")
    assert report.outcome([{"status": "holds"}, {"status": "check"}]) == "good"
    assert report.outcome([{"status": "differs"}, {"status": "not run"}]) == "bad"
    assert "nan" not in text.lower() and "paper_value" not in text
    assert report.reference({"paper_value": 0.5}) == ("the paper", 0.5)
    assert report.reference({"compared_with": 0.0, "compared_with_label": "the front"}) == \
        ("compared with the front", 0.0)
    assert report.reference({"result": "x"}) == ("", None)
    with pytest.raises(ValueError, match="ran"):
        rep.box("  ")


def test_figures_are_made_legible_at_both_widths():
    import matplotlib

    matplotlib.use("Agg")
    from semres.report import plotting

    fig, axes = plotting.subplots(1, 3, figsize=(11, 3.9))
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a line")
        ax.set_xlabel("small", fontsize=8)
        ax.tick_params(labelsize=8)  # tick labels are made again when the figure is drawn
    axes[0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.3), ncol=1)
    plotting.legible(fig)
    sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
    assert min(sizes) == plotting.MIN_FONT
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")  # as saved: the tight box and its margins
    width = float(re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', buffer.getvalue()).group(1))
    assert width / 72 <= plotting.MAX_WIDTH + 0.05
    assert min(float(s) for s in re.findall(r"scale\(([\d.]+) -", buffer.getvalue())) * 100 \
        == plotting.MIN_FONT
    # a legend wider than the book's column beside one panel: the panel keeps a size
    fig, ax = plotting.subplots(figsize=(6, 3))
    ax.plot([0, 1], [0, 1], label="a very long label " * 6)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    plotting.legible(fig)
    assert ax.get_position().width > 0.05
    # the same beside a figure wider than the column: where its first, likely width squeezes
    # the panel to nothing, it starts again from its own width and keeps one that lays out
    fig, ax = plotting.subplots(figsize=(10, 3))
    ax.plot([0, 1], [0, 1], label="a very long label " * 5)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no save of a collapsed layout
        plotting.legible(fig)
        fig.savefig(io.StringIO(), format="svg", bbox_inches="tight")
    assert ax.get_position().width > 0.05
    # a long legend below one panel (the book's overview figure in the quick profile): at a
    # phone's width it needs height, which the phone layout then has
    labels = ["universal front (Thm. 1)", "linear decay, circle (Prop. 1)"] + [
        f"Ch. {c}: {system}" for c, system in (
            (3, "toy ReLU net, circle (peak p_S)"), (3, "toy ReLU net, segment (peak p_S)"),
            (3, "toy ReLU net, reconstruction (last epoch)"), (4, "ResNet, α = 0"),
            (4, "ResNet, α = 0.5"), (4, "ResNet, α = 1"), (5, "qwen2.5-coder-0.5b (n = 2)"),
            (5, "all-MiniLM-L6-v2, T = 0.02"), (5, "all-MiniLM-L6-v2, T = 0.05"),
            (5, "all-MiniLM-L6-v2, T = 0.2"), (6, "tiny-llava (trained here), n = 2"),
            (6, "6 systems"))]
    fig, ax = plotting.subplots(figsize=(7.0, 5.6))
    for k, label in enumerate(labels):
        ax.errorbar([0.5 + k / 30], [0.5 + k / 40], xerr=[0.01], yerr=[0.02], ls="none",
                    marker="o", label=label)
    ax.set(xlabel="identification $p_I$", ylabel="generalization $p_S$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no save of a collapsed layout
        phone = plotting.split_phone(plotting.figure_svg(plotting.legible(fig)))[1]
    assert float(re.search(r'<svg[^>]*\sheight="([\d.]+)pt"', phone).group(1)) / 72 > 5.6


def test_long_labels_wrap_and_wide_legends_fold_so_the_figure_fits():
    import matplotlib

    matplotlib.use("Agg")
    from semres.report import plotting

    fig, axes = plotting.subplots(1, 2, figsize=(9, 4))
    for i, ax in enumerate(axes):
        ax.plot([0, 1], [0, 1], label=f"a fairly long label number {i} for the legend")
        ax.plot([0, 1], [1, 0], label=f"another long label, number {i}, for it")
    axes[0].set_xlabel("a window $|\\delta| \\leq w$ (years; values above the axis are clipped)")
    legend = plotting.legend_outside(fig, ncol=4)
    assert legend.get_window_extent().width / fig.dpi <= plotting.MAX_WIDTH  # fewer columns
    plotting.legible(fig)
    assert plotting.svg_width(plotting._saved_svg(fig)) <= plotting.MAX_WIDTH + 0.05
    label = axes[0].xaxis.label.get_text()
    assert "\n" in label and "$|\\delta| \\leq w$" in label  # broken outside the math only
    # a label whose formula stays wider than its panel is broken once, not back and forth (each
    # break would lay the figure out again and the fitting would never settle)
    fig, axes = plotting.subplots(1, 3, figsize=(7, 3))
    axes[0].set_xlabel("a few words then $\\mathrm{a\\ long\\ unbreakable\\ formula}$ and words")
    texts = []
    for _ in range(3):
        plotting._saved_svg(fig)
        texts.append((plotting._wrap_labels(fig), axes[0].xaxis.label.get_text()))
    assert [broke for broke, _ in texts] == [True, False, False]
    assert texts[0][1] == texts[2][1] and texts[0][1].count("\n") == 2
    assert min(t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text()) \
        == plotting.MIN_FONT


def test_differs_only_ever_against_a_number_the_paper_gives():
    import itertools

    seen = set()
    for ci, ref, margin, claim, new in itertools.product(
            ((0.1, 0.2), (0.22, 0.28), (0.24, 0.26), (0.3, 0.4)), ("paper", "other"),
            (0.0, 0.02, 0.05), report.CLAIMS, (False, True)):
        refs = {"paper": {"paper_value": 0.25}, "other": {"compared_with": 0.25}}[ref]
        got = report.status(ci=ci, margin=margin, claim=claim, new=new, **refs)
        seen.add(got)
        assert got in report.STATUSES
        if got == "differs":
            assert ref == "paper"
        if got == "holds":
            assert new
        # never a failure while the interval lies within the margin of the reference
        if 0.25 - margin <= ci[0] and ci[1] <= 0.25 + margin:
            assert got not in report.BAD or claim in ("above", "below")
    assert {"differs", "does not hold", "holds", "reproduced", "inconclusive"} <= seen


def test_preconditions_are_met_or_block_and_are_never_counted():
    assert report.status(passed=True, kind="precondition") == "met"
    assert report.status(passed=False, does_task=False, kind="precondition") == \
        "does not do the task"
    with pytest.raises(ValueError, match="passed"):
        report.status(kind="precondition")
    rows = [{"kind": "precondition", "status": "met"}, {"kind": "finding", "status": "holds"},
            {"kind": "finding", "status": "not run"}, {"kind": "check", "status": "check"}]
    assert report.counted(rows) == [rows[1]]


def test_the_smallest_detectable_deviation_is_detected_with_the_stated_power():
    # estimates with standard error 0.01 around a true deviation of that size: a two-sided
    # test at 5 % rejects "no deviation" in 80 % of them (Monte Carlo, 20,000 draws)
    se = 0.01
    mde = report.smallest_detectable((-1.959964 * se, 1.959964 * se))
    est = np.random.default_rng(1).normal(mde, se, 20_000)
    power = np.mean(np.abs(est / se) > 1.959964)
    assert abs(power - report.POWER) < 4 * np.sqrt(0.16 / 20_000)
    assert np.isnan(report.smallest_detectable(None))
    rep = report.Report("03_toy_relu")
    rep.result("effect", "raises p_S", headline=0.1, ci=(0.05, 0.15), compared_with=0.0,
               compared_with_label="no change", claim="above", margin=0.01,
               margin_reason="a figure shows it")
    rep.result("null", "no change", headline=0.3, ci=(0.1, 0.5), compared_with=0.0,
               compared_with_label="no change", margin=0.01, margin_reason="a figure shows it")
    assert rep.summary.detectable.iloc[0] == pytest.approx(2.8016 * 0.05 / 1.95996, rel=1e-3)
    # a row that does not hold says what its test could see, as one that holds does
    assert rep.summary.status.iloc[1] == "does not hold"
    assert rep.summary.detectable.iloc[1] == pytest.approx(2.8016 * 0.2 / 1.95996, rel=1e-3)


def test_the_box_names_each_stand_in_once(monkeypatch):
    """Six results on two stand-ins: each stand-in's description appears once in the box, and
    each result says which it was obtained on; a result on none says nothing of one."""
    glued = _glued(monkeypatch)
    rep = report.Report("05_llm_years")
    small, encoder = "a small causal LM, not the paper's 2–7B models", "a sentence encoder"
    for k in range(3):
        rep.result(f"lm {k}", "s", **HOLDS, stand_in=small)
        rep.result(f"encoder {k}", "s", **HOLDS, stand_in=encoder)
    rep.result("gate", "does the task", passed=True, kind="precondition", stand_in=small)
    rep.result("theory", "s", **HOLDS)
    rep.box("ran")
    text = glued["ch5_result_box"].data
    assert text.count(small) == 1 and text.count(encoder) == 1
    details = text.split(":::{dropdown}")[1].splitlines()[1:]
    assert details[0] == (f"* **The stand-ins.** A result that says “on stand-in A” was "
                          f"obtained on {small}; “on stand-in B”, on {encoder}.")
    by_name = {line.split("**")[1].split(":")[0]: line for line in details if "**" in line}
    for k in range(3):
        assert by_name[f"lm {k}"].startswith(f"* **lm {k}: holds, on stand-in A.**")
        assert by_name[f"encoder {k}"].startswith(f"* **encoder {k}: holds, on stand-in B.**")
    assert "stand-in" not in by_name["theory"]
    assert any(line.startswith("  * **gate: met, on stand-in A.**") for line in details)
    # the first screen says only that there was one
    assert "* lm 0: *holds, on a stand-in*" in text.split(":::{dropdown}")[0]
    from semres.report.box import stand_ins

    assert stand_ins([{"stand_in": " a  tree "}, {"stand_in": ""}]) == \
        {"a tree": "the stand-in"}


def test_a_lead_leaves_room_on_the_first_screen_by_naming_fewer_findings(monkeypatch):
    """The box names as many findings as its first phone screen holds beside the lead: two
    under a short lead (it takes the lines of three), fewer under a long one, none under one
    that fills the screen."""
    glued = _glued(monkeypatch)

    def named(lead):
        rep = report.Report("03_toy_relu")
        for k in range(7):
            rep.result(f"result number {k} of this chapter", "s", **HOLDS)
        rep.box("ran", lead=lead)
        first = glued["ch3_result_box"].data.split(":::{dropdown}")[0].splitlines()
        return [line for line in first if line.startswith("* result number")], first

    short, first = named("One sentence.")
    assert len(short) == report.BOX_FIRST - 3 and first[-2] == "* … and 5 more findings, below"
    sentence = "A sentence of about sixty characters that says what came out. "
    fewer, _ = named(sentence * 8)
    assert len(fewer) == 1
    none, first = named(sentence * 9)
    assert none == [] and first[-2] == "* Each finding with its status: below"


def test_a_test_that_could_not_see_the_margin_is_inconclusive_either_way():
    # the power rule applies to failures as much as to passes: an interval wider than the
    # margin can neither pass nor fail a prediction
    wide = {"compared_with": 0.0, "margin": 0.05, "new": True}
    assert report.status(ci=(-0.06, 0.08), **wide) == "inconclusive"
    assert report.status(ci=(-0.03, 0.04), **wide) == "holds"
    assert report.status(ci=(0.02, 0.2), **wide) == "inconclusive"  # significant, not beyond
    assert report.status(ci=(0.06, 0.2), **wide) == "does not hold"


def test_the_numbers_a_sentence_quotes_are_read_with_the_digits_it_shows():
    """What the book test of glued sentences reads (tests/test_book.py): each number with half
    its last shown digit, percentages as shares, and no theorem's or figure's number."""
    from page_rules import numbers_in

    found = numbers_in("Theorem 3 at n = 4: 0.538 [0.521, 0.556], 54%, 1,032 trials, −0.031, "
                       "3.2 × 10⁻⁵")
    assert [token for _, _, token in found] == ["4", "0.538", "0.521", "0.556", "54%", "1,032",
                                               "−0.031", "3.2 × 10⁻⁵"]
    values = {token: (value, half) for value, half, token in found}
    assert values["0.538"] == (0.538, 0.0005) and values["1,032"] == (1032.0, 0.5)
    assert np.isclose(values["54%"][0], 0.54) and np.isclose(values["3.2 × 10⁻⁵"][0], 3.2e-5)
    assert values["−0.031"][0] == -0.031


def test_a_monte_carlo_check_states_the_deviation_it_detects():
    from scipy.stats import norm

    rep = report.Report("01_pareto_front")
    rep.result("law", "a closed form", check_max_z=1.2, check_se=0.001, passed=True,
               kind="check")
    assert rep.rows[-1]["detectable"] == pytest.approx((report.Z_MAX + norm.ppf(0.8)) * 0.001)
    rep.result("law 2", "a closed form", check_max_z=6.0, check_se=0.001, kind="check")
    assert rep.rows[-1]["status"] == "check failed"


@pytest.mark.parametrize("text, shown", [
    ("p_S = 1/2 + <b> - <b>^2, p_I = 1 - <b>/2",
     r"$p_S =$ $1/2 +$ $\langle b\rangle -$ $\langle b\rangle^2$, $p_I =$ $1 -$ "
     r"$\langle b\rangle/2$"),  # a long formula breaks after its operators, for a phone
    ("p_S lower by Var(b) at equal p_I", r"$p_S$ lower by $\mathrm{Var}(b)$ at equal $p_I$"),
    ("beyond lambda ln(1/Delta) with a floor", r"beyond $\lambda \ln(1/\Delta)$ with a floor"),
    ("for delta <= g <= 1 and two items", r"for $\Delta \le$ $g \le$ $1$ and two items"),
    ("b*(n) at n = 2, 3", r"$b^*(n)$ at $n = 2$, 3"),
    ("it falls as N^-0.45", r"it falls as $N^{-0.45}$"),
    ("smollm2-135m puts 0.506 (95% interval) on P", "smollm2-135m puts 0.506 (95% interval) on P"),
    ("a | b * c", r"a \| b \* c"),
])
def test_prose_typesets_math_written_as_text_and_escapes_the_rest(text, shown):
    assert report.prose(text) == shown


def test_with_a_methods_page_the_box_links_it_and_leaves_the_details_to_it(tmp_path,
                                                                          monkeypatch):
    """The box keeps its lead, its count and its short list; every result with its numbers and
    what ran go to the methods page; the lead is the chapter's line on the front page."""
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))
    glued = _glued(monkeypatch)
    rep = report.Report("03_toy_relu")
    rep.result("a law", "holds", ci=(-0.001, 0.001), compared_with=0.0,
               compared_with_label="its closed form", margin=0.005, margin_reason="a plot")
    rep.result("a ratio", "is finite", headline=0.0, ci=(0.0, 0.0), identified=False,
               margin=0.1, margin_reason="a plot")
    rep.box("profile `quick`, seed 0", lead="The law holds within 0.001.", methods=True)
    box, more = glued["ch3_result_box"].data, glued["ch3_result_details"].data
    assert "{doc}`Methods and checks <03_toy_relu_methods>`" in box
    assert ":::{dropdown}" not in box and ":::{dropdown}" not in more
    assert "**What ran.** profile `quick`, seed 0" in more
    # a quantity the data do not determine shows no number
    assert "a ratio: not identified.** is finite. Margin" in more
    assert (tmp_path / "03_toy_relu" / "finding.md").read_text() == \
        "The law holds within 0.001.\n"
