"""The book's one table formatter and the figures' phone layout (semres.report.plotting)."""

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from semres.report import tables
from semres.report import plotting  # noqa: E402
from semres.report.numbers import number
from semres.report.tables import header, table  # noqa: E402
import page_rules  # noqa: E402


@pytest.mark.parametrize("name, reads", [
    ("p_s", "Generalization <i>p</i><sub>S</sub>"),
    ("p_S mc", "<i>p</i><sub>S</sub> Monte Carlo"),
    ("p_i_theorem", "<i>p</i><sub>I</sub> theorem"),
    ("scale_px", "Scale (px)"),
    ("ci_low_px", "Interval low (px)"),
    ("target_gap_max", "Largest target gap"),
    ("excess_z", "Excess <i>z</i>-score"),
    ("p_s_z", "<i>p</i><sub>S</sub> <i>z</i>-score"),
    ("at_bound", "At a bound"),
    ("train_seconds", "Train (s)"),
    ("mean_b", "Mean ball measure ⟨<i>b</i>⟩"),
    ("mean_b_mc", "⟨<i>b</i>⟩ Monte Carlo"),
    ("mean b", "Mean ball measure ⟨<i>b</i>⟩"),
    ("monte_carlo", "Monte Carlo"),
    ("heldout_rmse", "Held-out RMSE"),
    ("K", "K"),
    ("max |z|", "Largest |z|"),
    ("a<b", "a&lt;b"),
    (("p_s", "baseline"), "Generalization <i>p</i><sub>S</sub>, baseline"),
])
def test_headers_read_as_words_with_units(name, reads):
    assert header(name) == reads


def test_a_chapter_adds_its_own_headers():
    assert header("kernel_rmse", {"kernel_rmse": "RMSE of the kernel fit"}) == \
        "RMSE of the kernel fit"
    assert header("win_lo", {"win": "window"}) == "Window lo"


@pytest.mark.parametrize("value, places, shown", [
    (0.73412, 4, "0.7341"),
    (-1.5, 2, "−1.50"),
    (9.127803e-07, 4, "9.13 × 10⁻⁷"),
    (481487498.602, 1, "4.81 × 10⁸"),
    (1e-9, 3, "1.00 × 10⁻⁹"),
    (12345.678, 1, "12,345.7"),
    (2024, None, "2024"),
    (20000, None, "20,000"),
    (np.int64(-3), 2, "−3"),
    (True, None, "yes"),
    (np.bool_(False), None, "no"),
    (float("nan"), 3, "—"),
    (None, 3, "—"),
    (pd.NA, 3, "—"),
    (float("inf"), 3, "∞"),
    (0.0, 4, "0"),
    (0.0, 1, "0.0"),
])
def test_numbers_never_use_e_notation(value, places, shown):
    assert number(value, places) == shown


def test_table_drops_the_index_rounds_to_the_interval_and_writes_words():
    df = pd.DataFrame({
        "model": ["a", "b"], "p": [0.734123, 0.61], "ci_low": [0.712, 0.55],
        "ci_high": [0.756, 0.67], "stderr": [0.00123, 0.0021], "floor": [1e-9, 2e-8],
        "at_bound": [False, True], "note": ["150–1.11e+03 px", None], "n": [2, 20],
        "eps": [0.1, 0.25],
    }, index=[7, 9])
    t = table(df, decimals=5, floor="{:.2e}", stderr="{:.1e}")
    shown = t.data
    assert list(shown.columns) == ["Model", "p", "Interval low", "Interval high",
                                   "Standard error", "Floor", "At a bound", "Note", "Items n",
                                   "Resolution ε"]
    # the interval (half-width about 0.03) supports two decimals... of its own size: 0.022 ->
    # three decimals, for the estimate and both ends
    assert list(shown["p"]) == ["0.734", "0.610"]
    assert list(shown["Interval low"]) == ["0.712", "0.550"]
    assert list(shown["Standard error"]) == ["1.2 × 10⁻³", "2.1 × 10⁻³"]  # an e spec
    assert list(shown["Floor"]) == ["1.00 × 10⁻⁹", "2.00 × 10⁻⁸"]
    assert list(shown["At a bound"]) == ["no", "yes"]
    assert list(shown["Note"]) == ["150–1110 px", "—"]
    assert list(shown["Items n"]) == ["2", "20"]
    assert list(shown["Resolution ε"]) == ["0.10", "0.25"]  # exact: their own decimals
    html = t.to_html()
    assert "<th" in html and "<tbody>" in html and not re.search(r"<tbody>\s*<tr><th", html)
    assert not re.search(r"\de[+-]\d", html) and "nan" not in html.lower()
    assert 'class="semres-table-scroll"' in html and "semres-csv:" not in html


def test_a_labelled_index_becomes_a_column_and_a_row_count_goes():
    wide = pd.Series({"circle": 1.234, "segment": 2.5}, name="max |z|").to_frame().T
    shown = table(wide).data
    assert list(shown.columns) == ["", "Circle", "Segment"]
    assert shown.iloc[0, 0] == "max |z|"
    grouped = pd.DataFrame({"x": [1.5, 2.5]}, index=pd.Index([0.1, 0.2], name="delta"))
    assert list(table(grouped).data.columns) == ["Noise Δ", "x"]
    assert list(table(pd.DataFrame({"x": [1, 2]}, index=[5, 8])).data.columns) == ["x"]


def test_explicit_formats_keep_working_and_link_the_csv():
    df = pd.DataFrame({"z": [1.234, -0.5], "n": [2, 3]})
    t = table(df, z="{:+.2f}", n="{:d}", csv="mc_check")
    assert list(t.data["z-score"]) == ["+1.23", "−0.50"]
    assert f'href="{tables.CSV_SCHEME}mc_check"' in t.to_html()
    assert "mc_check.csv" in t.to_html()
    shown = table(df, z="{:.2e}").data
    assert list(shown["z-score"]) == ["1.23 × 10⁰", "−5.00 × 10⁻¹"]


def test_figure_svg_carries_a_stacked_phone_layout_that_splits_off():
    fig, axes = plotting.subplots(1, 3, figsize=(11, 3.5), sharey=True)
    for i, ax in enumerate(axes):
        for k in range(6):
            ax.plot([0, 1], [0, i], color=plotting.CYCLE[k], label=f"a line {i}")
        ax.set_xlabel("identification $p_I$")
    axes[0].set_ylabel("generalization")
    plotting.legend_outside(fig, ncol=5)
    plotting.legible(fig)
    size = fig.get_size_inches().copy()
    open_before = plt.get_fignums()
    svg = plotting.figure_svg(fig)
    assert plt.get_fignums() == open_before  # the phone layout's copy is closed, not shown
    desktop, phone = plotting.split_phone(svg)
    assert phone is not None and plotting.PHONE_START not in desktop
    assert phone.startswith("<?xml") and phone.rstrip().endswith("</svg>")
    assert plotting.svg_width(desktop) <= plotting.MAX_WIDTH + 0.05
    assert plotting.svg_width(phone) <= plotting.PHONE_WIDTH + 0.05
    wide = float(re.search(r'height="([\d.]+)pt"', desktop).group(1))
    tall = float(re.search(r'height="([\d.]+)pt"', phone).group(1))
    assert tall > 2 * wide  # three panels stacked
    scales = [float(s) * 100 for s in re.findall(r"scale\(([\d.]+) -", phone)]
    assert min(scales) >= plotting.MIN_FONT  # 12 pt, at most 4.6 in wide: 12 px on a phone
    # the figure is put back as it was
    assert np.allclose(fig.get_size_inches(), size)
    assert [ax.get_subplotspec().colspan.start for ax in axes] == [0, 1, 2]
    assert not axes[1].yaxis.get_tick_params().get("labelleft", True)  # shared y: inner hidden


def test_the_book_reuses_the_svg_legible_measured_and_only_while_the_figure_is_unchanged():
    """The figure shown is the one legible() last saved: the SVG saving it again gives, but for
    the random ids matplotlib gives clip paths and glyphs and a millionth of a point in a
    coordinate (each save lays the figure out again); once shown, or resized, it is saved
    afresh."""
    def ids_out(svg):
        svg = re.sub(r'<dc:date>.*?</dc:date>', "", svg)
        svg = re.sub(r"-?\d+(?:\.\d+)?", lambda m: f"{float(m.group()) + 0.0:.3f}", svg)
        return re.sub(r'(id="|url\(#|href="#)[^")]+', r"\1", svg)

    fig, ax = plotting.subplots(figsize=(9.0, 3.0))
    ax.plot([0, 1], [0, 1], label="a line")
    ax.set_xlabel("a label long enough to be measured")
    plotting.legible(fig)
    kept = fig._semres_svg[1]
    assert plotting.split_phone(plotting.figure_svg(fig))[0] == kept
    assert fig._semres_svg is None
    assert ids_out(plotting.split_phone(plotting.figure_svg(fig))[0]) == ids_out(kept)
    plotting.legible(fig)
    fig.set_size_inches(5.0, 3.0)  # changed after it was measured
    assert plotting.svg_width(plotting.split_phone(plotting.figure_svg(fig))[0]) < \
        plotting.svg_width(kept) - 1


def test_a_figure_narrow_enough_for_a_phone_has_no_second_layout():
    fig, ax = plotting.subplots(figsize=(4.0, 3.0))
    ax.plot([0, 1], [0, 1])
    desktop, phone = plotting.split_phone(plotting.figure_svg(plotting.legible(fig)))
    assert phone is None and desktop.startswith("<?xml")


def test_subfigures_one_above_the_other_stack_within_each():
    import matplotlib.pyplot as plt

    plotting.use_style()
    fig = plt.figure(figsize=(7.2, 7.2), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1])
    for box in (top, bottom):
        for ax in box.subplots(1, 3, sharey=True):
            ax.plot([0, 1], [0, 1], label="a line")
            ax.set_xlabel("distance $d$")
    plotting.legend_outside(top, top.axes, ncol=2)
    desktop, phone = plotting.split_phone(plotting.figure_svg(plotting.legible(fig)))
    assert phone is not None and plotting.svg_width(phone) <= plotting.PHONE_WIDTH + 0.05
    tall = float(re.search(r'height="([\d.]+)pt"', phone).group(1)) / 72
    assert tall > 10  # six panels, one above the other
    assert top._subplotspec.get_gridspec().get_height_ratios() == [1.1, 1]  # put back


def test_a_grid_of_many_panels_keeps_two_columns_and_long_legend_entries_break():
    fig, axes = plotting.subplots(5, 2, figsize=(7, 9), sharex="col", sharey=True)
    for ax in axes.ravel():
        ax.plot([0, 1], [0, 1], label="tiny-llava (trained here) (canvas rescaled to 900 px)")
    for ax in axes[-1]:
        ax.set_xlabel("distance $d$")
    plotting.legend_outside(fig, axes[0, :1], ncol=1)
    desktop, phone = plotting.split_phone(plotting.figure_svg(plotting.legible(fig)))
    assert plotting.svg_width(phone) <= plotting.PHONE_WIDTH + 0.05  # the entry broke
    tall = float(re.search(r'height="([\d.]+)pt"', phone).group(1)) / 72
    assert 9 < tall < 20  # five rows of two, not ten panels one above the other
    assert fig.legends[0].get_texts()[0].get_text().count("\n") == 0  # put back


def test_a_long_table_shows_its_ends_and_says_so():
    with pd.option_context("display.max_rows", 10):
        t = table(pd.DataFrame({"x": np.arange(200) / 7}))
    assert len(t.rows) == 11 and t.rows[5] == ["⋮"] and t.rows[0] == ["0.00"]
    assert "200 rows" in t.to_html() and "<caption>" in t.to_html()
    assert len(table(pd.DataFrame({"x": np.arange(200)})).rows) == 61  # pandas' 60 rows


def test_tables_show_p_values_floored_and_statistics_to_two_decimals():
    from semres.report.tables import table

    df = pd.DataFrame({"n": [2, 4], "gof_p": [3.16e-52, 0.0312], "z": [1.23456, -0.5],
                       "max_z": [2.0, 3.1234], "p_s": [0.51234, 0.6]})
    shown = table(df).data
    assert list(shown["Goodness-of-fit p-value"]) == ["< 10⁻⁴", "0.031"]
    assert list(shown["z-score"]) == ["1.23", "−0.50"]
    assert list(shown["Largest |z|"]) == ["2.00", "3.12"]
    assert list(shown["Generalization pS"]) == ["0.5123", "0.6000"]  # a probability
    for name in ("t", "chi2", "gof_stat", "test_statistic", "excess_z"):
        assert tables.statistic_kind(name) == "z", name
    for name in ("p_s", "stat_hours", "tau", "mean_b"):
        assert tables.statistic_kind(name) is None, name


@pytest.mark.parametrize("text, numeric, wrong", [
    ("Boot at a bound", False, "decode: Boot"),
    ("p theory ide", True, "decode: ide"),
    ("Headline", True, "no word"),
    ("Resolution", True, "neither a unit nor a kind"),
    ("<i>p</i><sub>S</sub>", True, "no word"),
    ("<i>z</i>", True, "no word"),
    ("CI low", True, "decode: CI"),
    ("Its s.e.", True, "decode: s.e."),
    ("Its standard error", True, None),  # the estimate's unit, said in its header
    ("People listed <i>n</i>", True, None),  # n counts
    ("target_gap", True, "is code"),
    ("fitScale", False, "is code"),
    ("Share correct (%)", True, None),
    ("Resolution (years)", True, None),
    ("Scale (px)", True, None),
    ("Seed", True, None),
    ("Largest |<i>z</i>|", True, None),
    ("Goodness-of-fit <i>p</i>-value", True, None),
    ("Model", False, None),
    ("Resolution", False, None),  # a column of text needs no unit
    ("", False, None),  # nor a column of row labels a header
    ("", True, "no word"),
])
def test_a_header_is_words_with_units(text, numeric, wrong):
    problems = page_rules.header_problems(text, numeric)
    assert (wrong is None and problems == []) or (wrong and wrong in " ".join(problems)), \
        problems


def test_the_formatter_words_the_books_own_column_names_with_units():
    """Every name of :data:`tables.HEADERS` and :data:`tables.ALONE` a chapter uses for a column
    of numbers reads as words with a unit or a kind, alone and in a longer name."""
    names = ["p_s", "p_i", "se_s", "se_i", "z_s", "z_i", "n", "z", "b", "mean_b", "var_b",
             "eps", "delta", "alpha", "gof_p", "distance_p", "max_z", "p_s_mc", "p_i_theory",
             "n_boot", "scale_px", "ci_low_px", "heldout_rmse_px", "train_seconds",
             "gap_max", "p_value", "id_auc", "mean_p_i", "abs_z"]
    df = pd.DataFrame({name: [0.5, 0.25] for name in names})
    shown = table(df)
    for name, head, numeric in zip(names, shown.columns, shown.numeric):
        assert numeric and page_rules.header_problems(head, numeric) == [], (name, head)
    assert header("gap_max") == "Largest gap"  # "max" is a code word, moved to the front


def test_log_axis_ticks_read_as_plain_numbers_where_they_fit():
    """Ticks of a log axis within PLAIN_TICKS read "0.6", "300"; beyond it powers of ten; a
    formatter of the chapter's own is kept."""
    fig, (ax, other) = plotting.subplots(1, 2, figsize=(7, 3))
    ax.plot([0.3, 0.9], [1e-5, 50])
    ax.set_xscale("log")
    ax.set_yscale("log")
    other.plot([1, 10], [1, 10])
    other.set_xscale("log")
    other.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.1f"))
    plotting.legible(fig)
    fig.canvas.draw()
    lo, hi = plotting.PLAIN_TICKS

    def shown(axis):
        return {round(float(t.get_position()[0 if axis is ax.xaxis else 1]), 12): t.get_text()
                for t in axis.get_ticklabels(which="both") if t.get_text()}

    x, y = shown(ax.xaxis), shown(ax.yaxis)
    assert x[0.6] == "0.6" and x[0.2] == "0.2"  # minor ticks, once "6×10⁻¹"
    assert all("10^" not in t and "times" not in t for v, t in x.items())
    for value, text in y.items():  # an independent reading: the number itself, or 10^k
        if lo <= value <= hi:
            assert float(text) == pytest.approx(value), (value, text)
        else:
            k = int(round(np.log10(value)))
            assert text == f"$\\mathdefault{{10^{{{k}}}}}$"
    assert any(v < lo for v in y) and any(lo <= v <= hi for v in y)
    assert plotting.plain_tick(1000) == "1000" and plotting.plain_tick(0.01) == "0.01"
    assert plotting.plain_tick(-3) == "−3"
    assert other.xaxis.get_major_formatter().fmt == "%.1f"
    plotting.plt.close(fig)
