"""Chapter 5's stacked figures leave room between their rows of panels: on the phone, where the
panels stack in one column, no panel's title runs into the axis label of the panel above."""

import numpy as np
import pandas as pd
import pytest

from semres.experiments.llm import figures
from semres.report import plotting as splot


def near_results():
    """Two models' near-design curves over four gaps, neither fitted (a model that does no
    similarity draws no line)."""
    rows = [{"model": m, "D": D, "where": where, "x": x, "mass": 0.5, "mass_ci_low": 0.45,
             "mass_ci_high": 0.55}
            for m in ("a", "b") for D in (5.0, 20.0, 50.0, 100.0)
            for where in ("beyond", "between") for x in (0.0, 1.0, 3.0, 13.0, 50.0, 130.0)]
    curve = pd.DataFrame(rows)
    return {m: {"model": m, "curve": curve[curve.model == m], "does": False} for m in ("a", "b")}


def gaps(fig):
    """For each panel under another in the same column: the points between the bottom of the
    upper panel's x-axis label and the top of the lower panel's title, as drawn now."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    out = []
    for upper in axes:
        for lower in axes:
            u, v = upper.get_position(), lower.get_position()
            if lower is upper or abs(u.x0 - v.x0) > 1e-3 or v.y1 >= u.y0:
                continue
            label = upper.xaxis.label.get_window_extent(renderer)
            title = lower.title.get_window_extent(renderer)
            out.append((label.y0 - title.y1) * 72 / fig.dpi)
    return out


@pytest.mark.parametrize("phone", [False, True])
def test_a_panel_title_clears_the_label_above_it(monkeypatch, phone):
    fig = figures.fig_near(near_results())
    seen = []
    if phone:  # measure the phone layout while it is laid out, before it is put back
        saved = splot._saved_svg

        def measured(f):
            svg = saved(f)
            seen.append(gaps(f))
            return svg
        monkeypatch.setattr(splot, "_saved_svg", measured)
        assert splot.narrow(fig) is not None
        found = seen[-1]
    else:
        found = gaps(fig)
    assert found and min(found) > 12, found  # a line of 12 pt text between them at least
    splot.plt.close(fig)


def test_panels_are_lettered_in_reading_order():
    fig = figures.fig_near(near_results())
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert [t[:3] for t in titles] == ["(a)", "(b)", "(c)", "(d)"]
    assert np.all(np.diff([ax.get_position().y0 for ax in fig.axes][::2]) <= 0)
    splot.plt.close(fig)
