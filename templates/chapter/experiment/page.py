"""What the page shows: the glued numbers, the figure, the rows and the result box."""

from __future__ import annotations

from semres.report import GOOD, fmt
from semres.report import plotting as splot

from . import verdicts
from .settings import SETTINGS


def publish(report, cfg, profile: str, seed: int, mc) -> None:
    """Glue the check's numbers and figure, add the rows, save, and glue the result box."""
    report.table(mc, "mc_check")
    report.number("mc_maxz", mc["z"].abs().max())
    fig, ax = splot.subplots(figsize=(5.0, 3.4))
    for task, rows in mc.groupby("task"):
        ax.plot(2 * rows.eps, rows.theory, color=splot.THEORY)
        ax.plot(2 * rows.eps, rows.mc, "o", label=task)
    ax.set(xlabel="ball measure $b$", ylabel="success rate")
    splot.legend_outside(fig)
    report.figure("check", fig)
    row = verdicts.theorem_row(mc)
    status = report.result(**row)
    report.deviations(cfg, SETTINGS.paper)
    report.save()
    report.box(f"profile `{profile}`, seed {seed}; {cfg.trials:,} trials per cell",
               lead=f"Theorem 1 {'holds' if status in GOOD else status}: every Monte Carlo "
               f"cell lies within {fmt(max(map(abs, row['ci'])), 2)} of its closed form.")
