"""The chapter's figures, in the book's one style."""

from __future__ import annotations

from semres.report import plotting as splot


def check(mc):
    """Success rate against the ball measure: closed forms (lines), the engine (dots)."""
    fig, ax = splot.subplots(figsize=(5.0, 3.4))
    for task, rows in mc.groupby("task"):
        ax.plot(2 * rows.eps, rows.theory, color=splot.THEORY)
        ax.plot(2 * rows.eps, rows.mc, "o", label=task)
    ax.set(xlabel="ball measure $b$", ylabel="success rate")
    splot.legend_outside(fig)
    return fig
