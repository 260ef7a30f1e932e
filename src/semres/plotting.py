"""One figure style for the whole book, so every chapter's figures read alike."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

# Roles, not decoration: theory curves are black/grey, measurements take the cycle below.
THEORY = "black"
THEORY_ALT = "0.55"
CYCLE = ["#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#444444"]

#: the widest figure the text column shows at its natural size on a laptop (about 700 px); a
#: wider one is shrunk, its text with it
MAX_WIDTH = 7.2
#: no text smaller than this (points): at MAX_WIDTH, 11 pt is as large as the caption at desktop
#: width and still about 7.5 px on a 390 px phone, where the SVG zooms without blurring
MIN_FONT = 11.0

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
    "axes.titlesize": 12,
    "axes.labelsize": MIN_FONT,
    "xtick.labelsize": MIN_FONT,
    "ytick.labelsize": MIN_FONT,
    "legend.fontsize": MIN_FONT,
    "legend.title_fontsize": MIN_FONT,
    "figure.titlesize": 12,
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
    """Make ``fig`` readable in the book at both widths: no wider than :data:`MAX_WIDTH` (the
    height is kept, so the panels get narrower, not their text smaller) and no text under
    :data:`MIN_FONT`. Returns the figure."""
    from matplotlib.text import Text

    width, height = fig.get_size_inches()
    if width > MAX_WIDTH:
        fig.set_size_inches(MAX_WIDTH, height)
    for text in fig.findobj(Text):
        if text.get_text() and text.get_fontsize() < MIN_FONT:
            text.set_fontsize(MIN_FONT)
    return fig


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
    Styler, which the book renders as HTML.
    """
    fmt = {c: f"{{:.{decimals}f}}" for c in df.select_dtypes("float").columns}
    fmt.update(formats)
    return df.style.format(fmt).hide(axis="index")


def legend_outside(fig, axes, ncol: int = 3, **kwargs):
    """One figure legend below the panels, off the data, with each label once."""
    seen = {}
    for ax in np.atleast_1d(axes).ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    return fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncol=ncol,
                      **kwargs)
