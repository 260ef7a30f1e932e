"""One figure style for the whole book, so every chapter's figures read alike."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

# Roles, not decoration: theory curves are black/grey, measurements take the cycle below.
THEORY = "black"
THEORY_ALT = "0.55"
CYCLE = ["#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#444444"]

STYLE = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
    "font.size": 10,
}


def use_style() -> None:
    """Apply the book's style; every chapter calls this once, after its imports."""
    plt.rcParams.update(STYLE)


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
