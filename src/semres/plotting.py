"""One figure style for the whole book, so every chapter's figures read alike."""

from __future__ import annotations

import io
import re
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

# Roles, not decoration: theory curves are black/grey, measurements take the cycle below.
THEORY = "black"
THEORY_ALT = "0.55"
CYCLE = ["#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#444444"]

#: the widest figure the text column (about 690 px at 1280 px) shows at its natural size; a
#: wider one is shrunk, its text with it
MAX_WIDTH = 7.1
#: no text smaller than this (points): 12 pt is 16 px, the captions' size, in a figure shown at
#: its natural size, and still about 8.5 px in the 358 px column of a 390 px phone, where the
#: SVG zooms without blurring
MIN_FONT = 12.0

STYLE = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "svg.fonttype": "path",  # the glyphs travel with the figure: no font needed to read it
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "font.size": MIN_FONT,
    "axes.titlesize": MIN_FONT,
    "axes.labelsize": MIN_FONT,
    "xtick.labelsize": MIN_FONT,
    "ytick.labelsize": MIN_FONT,
    "legend.fontsize": MIN_FONT,
    "legend.title_fontsize": MIN_FONT,
    "figure.titlesize": MIN_FONT,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
}


def use_style() -> None:
    """Apply the book's style; every chapter calls this once, after its imports.

    In a notebook, figures are also shown as SVG: vector text stays sharp when a phone reader
    zooms in, where a PNG would blur.
    """
    plt.rcParams.update(STYLE)
    from IPython import get_ipython

    if get_ipython() is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")


def legible(fig):
    """Make ``fig`` readable in the book at both widths: no text under :data:`MIN_FONT`, and no
    wider than :data:`MAX_WIDTH` as saved (legends and labels outside the axes included: the
    figure narrows until its tight box fits, so the panels get narrower, not the text smaller).
    Returns the figure."""
    from matplotlib.text import Text

    def floor():
        for ax in fig.axes:  # tick labels are made at drawing time from the axis' settings
            for axis in (ax.xaxis, ax.yaxis):
                labels = axis.get_ticklabels(which="both")
                if labels and min(t.get_fontsize() for t in labels) < MIN_FONT:
                    axis.set_tick_params(which="both", labelsize=MIN_FONT)
        for text in fig.findobj(Text):
            if text.get_text() and text.get_fontsize() < MIN_FONT:
                text.set_fontsize(MIN_FONT)

    def wrap_labels():
        """An axis label or title wider than its panel breaks into lines (never inside $math$):
        it would otherwise hold the figure wide while the panels narrow."""
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:
            room = ax.get_window_extent(renderer).width
            for text in (ax.xaxis.label, ax.title):
                width = text.get_window_extent(renderer).width if text.get_text() else 0
                if width > room > 0:
                    text.set_text(_wrap(text.get_text(), len(text.get_text()) * room / width))

    previous = None
    for _ in range(8):
        floor()
        wrap_labels()
        width, height = fig.get_size_inches()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            excess = _saved_width(fig) - MAX_WIDTH  # measured as the book will show it
        floor()
        # text that does not narrow with the figure (a wide legend beside it) would squeeze the
        # panels to nothing: then the last width that laid out is kept
        if previous is not None and any("collapsed" in str(w.message) for w in caught):
            fig.set_size_inches(previous, height)
            break
        if excess <= 0.01 or width - excess < 2.0:
            break
        previous = width
        fig.set_size_inches(width - excess, height)
    return fig


def _wrap(text: str, chars: float) -> str:
    """``text`` in lines of at most ``chars`` characters, breaking only outside ``$...$``."""
    import textwrap

    parts = text.replace("\n", " ").split("$")
    glued = "$".join(p.replace(" ", "\0") if i % 2 else p for i, p in enumerate(parts))
    lines = textwrap.wrap(glued, max(int(chars * 0.95), 8), break_long_words=False)
    return "\n".join(lines).replace("\0", " ")


def _saved_width(fig) -> float:
    """The width (inches) of ``fig`` saved as the book saves it: SVG, tight box and margins."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    return float(re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', buffer.getvalue()).group(1)) / 72


def subplots(*args, **kwargs):
    """``plt.subplots`` in the book's style, with constrained layout by default."""
    use_style()
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(*args, **kwargs)


def subplot_mosaic(mosaic, **kwargs):
    """``plt.subplot_mosaic`` in the book's style, with constrained layout by default."""
    use_style()
    kwargs.setdefault("layout", "constrained")
    return plt.subplot_mosaic(mosaic, **kwargs)


def table(df, decimals: int = 4, **formats):
    """A result table for readers: no row index, one number of decimals for every float column.

    ``formats`` overrides the format of named columns (e.g. ``z="{:+.2f}"``). Returns a pandas
    Styler, which the book renders as HTML. A missing value shows as "—", never as "nan".
    """
    fmt = {c: f"{{:.{decimals}f}}" for c in df.select_dtypes("float").columns}
    fmt.update(formats)
    return df.style.format(fmt, na_rep="—").hide(axis="index")


def legend_outside(fig, axes=None, ncol: int = 3, **kwargs):
    """One figure legend below the panels (``axes``, all of ``fig``'s by default), off the data,
    with each label once."""
    seen = {}
    for ax in np.atleast_1d(fig.axes if axes is None else axes).ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    renderer = fig.canvas.get_renderer()
    for n in range(ncol, 0, -1):  # fewer columns while wider than the page: it cannot narrow
        legend = fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncol=n,
                            **kwargs)
        if n == 1 or legend.get_window_extent(renderer).width / fig.dpi <= MAX_WIDTH - 0.2:
            return legend
        legend.remove()
