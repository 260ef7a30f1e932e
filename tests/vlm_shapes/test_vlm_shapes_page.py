"""What chapter 6 publishes: each publishing function glues, adds rows and writes tables
under the names the chapter's prose reads, in the order the overview lists its rows."""

import numpy as np
import pandas as pd

from semres.experiments.vlm_shapes import page, settings
from semres.report import tables


class Recorder:
    """A report that records what it is given."""

    prefix = "ch6_"

    def __init__(self):
        self.glued, self.rows, self.tables, self.figures, self.cites = {}, [], {}, [], {}

    def number(self, name, value):
        self.glued[name] = value

    def numbers(self, values, small=()):
        self.glued.update(values)

    def text(self, name, value, markdown=False, cites=None):
        self.glued[name] = value
        if cites is not None:
            self.cites[name] = cites

    def figure(self, name, fig):
        self.figures.append(name)

    def result(self, **row):
        self.rows.append(row)

    def table(self, df, name):
        self.tables[name] = df


def test_the_checks_publish_their_row_and_numbers():
    report = Recorder()
    check = pd.DataFrame({"eps": [0.1], "mean b": [0.2], "task": ["similarity"], "n": [2],
                          "theory": [0.6], "simulated": [0.61], "se": [0.003], "z": [1.2]})
    shown = page.publish_checks(report, 0.99999, 1.2, check)
    assert set(report.glued) == {"band_agree", "zmax", "canvas_zmax"}
    # the band is a check (true by construction); Theorem 3 on the canvas is a finding headed
    # by its worst cell's deviation, 0.01 +- 1.96 x 0.003, within a margin of 0.02
    assert report.rows[0]["kind"] == "check" and report.rows[0]["passed"]
    canvas = report.rows[1]
    assert canvas["check_max_z"] == 1.2 and canvas["new"] and "passed" not in canvas
    assert np.isclose(canvas["headline"], 0.01) and np.allclose(
        canvas["ci"], (0.01 - 1.96 * 0.003, 0.01 + 1.96 * 0.003))
    assert canvas["compared_with"] == 0.0 and canvas["margin"] == 0.02
    # every header the page shows reads as words with units (the book's header rule)
    assert [p for head, num in zip(shown.columns, shown.numeric)
            for p in tables.header_problems(head, num)] == []


def test_without_files_or_colour_tables_the_page_says_so():
    report = Recorder()
    page.publish_files(report, None)
    assert report.glued["file_verdicts"] == "No results files were given in this build."
    page.publish_colour(report, {})
    assert report.glued["colour_verdict"].startswith("The colour tables are not shipped")
    # no figure is drawn without its data: the page's figure block is empty
    assert report.figures == [] and report.glued["colour_figure"] == ""


def test_the_paper_models_publish_nothing_without_tables():
    report = Recorder()
    agg = pd.DataFrame({"m": [0.1], "p": [0.5], "sd": [0.1], "k": [4]})
    fits, weights, shown = page.publish_paper_models(report, {}, None, None, {}, 10, [], agg,
                                                     "m")
    assert fits == [] and weights == [] and shown is None and report.rows == []
    assert report.glued["auth_verdicts"] == "No tables of the paper's models are shipped."
    assert report.figures == [] and report.glued["released_figure"] == ""
    assert "stencil_weights" not in report.tables


def test_the_model_section_glues_its_losses_and_names(tmp_path):
    report = Recorder()
    page.publish_model(report, settings.QUICK, None, str(tmp_path), "tiny", 96)
    assert report.glued["steps"] == settings.QUICK.steps and report.glued["canvas_px"] == 96
    assert np.isnan(report.glued["loss_first"])  # no training.json in the folder
    assert report.glued["n_names"] == len(settings.SHAPES)
    assert report.glued["tower"] == "dinov3 tower" and report.glued["model"] == "tiny"
    page.publish_model(report, settings.QUICK, "org/model", "org/model", "org/model", 448)
    assert report.glued["model"] == "`org/model`" and report.glued["tower"] == "the model's own"


def test_a_figure_with_data_is_glued_with_its_caption_as_one_block():
    """The released answers are drawn beside the model run here, in a block that names the
    figure, so that the page shows a figure only when there is one."""
    import matplotlib

    matplotlib.use("Agg")
    report = Recorder()
    agg = pd.DataFrame({"m": [0.1], "p": [0.5], "sd": [0.1], "k": [4]})
    external = [{"model": "q", "source": "s", "task": "similarity", "n": 4, "bin": "a",
                 "bin_mid": 0.05, "trials": 10, "correct": 6}]
    page.publish_paper_models(report, {}, None, None, {}, 10, external, agg, "m")
    assert report.figures == ["released"]
    block = report.glued["released_figure"]
    assert block.startswith("```{glue:figure} ch6-fig-released\n:name: ch6-fig-released")
    assert "900 px canvas" in block and block.endswith("```")


def test_a_folded_figure_is_glued_inside_its_dropdown_and_an_absent_one_not_at_all():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = Recorder()
    page.publish_figure(report, "colour", plt.figure(), "alt", "A caption.", folded="Drawn")
    block = report.glued["colour_figure"]
    assert block.startswith(":::{dropdown} Drawn\n```{glue:figure} ch6-fig-colour\n")
    assert block.endswith("A caption.\n```\n:::")
    page.publish_figure(report, "colour", None, "alt", "A caption.", folded="Drawn")
    assert report.glued["colour_figure"] == "" and report.figures == ["colour"]
