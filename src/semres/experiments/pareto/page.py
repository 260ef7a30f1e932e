"""Chapter 1's page: its figures, the numbers and sentences its prose quotes, its tables and
its overview rows. The chapter calls :func:`front`, :func:`segment`, :func:`ties`,
:func:`monte_carlo` and :func:`publish`, and ends with the explorer (:mod:`.page_explorer`);
nothing else of the page is in the notebook."""

from __future__ import annotations

import numpy as np
import sympy as sp
from matplotlib.patches import Arc, Circle as CirclePatch, Patch
from myst_nb import glue

from semres.report import plotting as splot
from semres.report import tables
from semres.core import theory
from semres.core.simulate import check_table
from semres.report import GOOD, Z_MAX, fmt, tally

from . import verdicts
from .settings import DEFAULT, SETTINGS

#: where the front figure draws the edge of the small-eps regime: a visual cut, not a law
SMALL_B = 0.1
#: the numbers the box's lead quotes in the front's formula and the tie term
FRONT_NUMBERS = {"front: 2(1 - p_I)": 2, "front: 4(1 - p_I)^2": 4, "tie term: tau/2": 2}


# --------------------------------------------------------------------------- publishing

def front(report, b_opt, p_opt, b_noisy) -> None:
    """The front's optimum and the noisy identification law inverted for b (a SymPy
    expression, glued as display math)."""
    report.number("b_opt", b_opt)
    report.number("p_opt", p_opt)
    glue(f"{report.prefix}b_of_pI_noisy", sp.Eq(sp.Symbol("b"), sp.factor(b_noisy)),
         display=False)


def segment(report, cost_eps, cost, cost_max) -> None:
    """The cost of heterogeneity on the segment, at ``cost_eps`` and at eps = 1/2."""
    report.number("seg_cost_eps", cost_eps)
    report.number("seg_cost", cost)
    report.number("seg_cost_max", cost_max)


def side_of_front(excess: float) -> str:
    """Where a space lies against the homogeneous front, from its height above it at equal
    p_I (tau/2 - Var(b))."""
    return "above" if excess > 0 else "below"


def ties(report, space, eps, tau, var, excess) -> None:
    """The discrete space's tie probability and ball variance at radius ``eps``, and how far
    (and on which side of) the homogeneous front it lies."""
    report.number("disc_points", len(space))
    report.number("disc_tau", tau)
    report.number("disc_var", var)
    report.number("disc_eps", eps)
    report.number("disc_excess", excess)
    report.text("disc_side", side_of_front(excess), cites={"excess": excess})


def monte_carlo(report, cfg, mc):
    """Save the Monte Carlo table, glue what the prose says of it, and return it for the page
    (one row per space, resolution and noise, both tests side by side)."""
    report.table(mc, "mc_check")
    report.number("trials", cfg.trials)
    report.number("zmax", Z_MAX)  # every Monte Carlo estimate must sit this close to theory
    report.number("mc_cells", len(mc))
    report.number("mc_maxz", mc["z"].abs().max())
    report.number("mc_maxerr", (mc["mc"] - mc["theory"]).abs().max())
    report.number("mc_margin", verdicts.MC_MARGIN)  # the practical margin of every law
    return tables.table(check_table(mc, ["space", "eps", "delta"]), decimals=4,
                       **{"p_S z": "{:+.2f}", "p_I z": "{:+.2f}", "delta": "{:.1f}"})


def publish(report, cfg, profile: str, seed: int, mc, segment_moments,
            segment_cost: tuple[float, float] | None = None) -> None:
    """The figures, the overview rows (:mod:`.verdicts`: one finding per law, its Monte Carlo
    cells' deviations against the practical margin), how this build differs from the paper,
    the saved summary and the result box. ``segment_cost`` is (eps, Var(b)) on the segment, the
    cost of heterogeneity the segment's row separates."""
    report.figure("setup", fig_setup())
    report.figure("front", fig_front())
    report.figure("noise-segment", fig_noise_segment(mc, segment_moments, cfg.deltas))
    for row in verdicts.overview_rows(mc, segment_cost):
        report.grid_result(**row)
    report.deviations(
        cfg, SETTINGS.paper,
        f"the laws are checked by Monte Carlo with {cfg.trials:,} trials per cell on circle, "
        f"segment, sphere and a discrete space of {cfg.discrete_points} points on a "
        f"{cfg.discrete_grid} × {cfg.discrete_grid} grid, a check added here",
        "the noisy form, the explicit noisy front and the segment's moments are derived here, "
        "and the tie term $\\tau/2$ for discrete spaces is new here")
    report.save()
    reach = verdicts.reach(report.rows)
    report.box(f"profile `{profile}`, seed {seed}; {cfg.trials:,} Monte Carlo trials "
               "per cell on the circle, segment, sphere and a discrete space",
               lead=lead(report.rows, mc),
               lead_cites={"cells": len(mc), **FRONT_NUMBERS, "reach": reach,
                           "largest z": float(mc["z"].abs().max())})


def lead(rows, mc) -> str:
    """The box's first sentences: whether the two-item laws held within their practical
    margin, how far the farthest Monte Carlo interval reaches from its closed form, and what
    ties add."""
    held = all(r["status"] in GOOD for r in rows)
    margin = float(rows[0]["margin"]) if rows else verdicts.MC_MARGIN
    return ((f"The paper's two-item laws hold on all four spaces: the farthest interval of the "
             f"{len(mc)} Monte Carlo cells reaches "
             f"{fmt(verdicts.reach(rows), places=4)} from its closed form, inside the "
             f"practical margin of {fmt(margin)}"
             if held else
             f"Not every two-item law is confirmed in this build "
             f"({tally(r['status'] for r in rows)}, against a practical margin of "
             f"{fmt(margin)}), though each of the {len(mc)} Monte Carlo cells lies within "
             f"{fmt(float(mc['z'].abs().max()), places=1)} standard errors of its closed form")
            + ". So generalization and identification trade along one front, "
            "$p_S = \\tfrac12 + 2(1-p_I) - 4(1-p_I)^2$, whatever the space's shape, and a "
            "space whose distances tie gains exactly $\\tau/2$ in generalization.")


# --------------------------------------------------------------------------- figures

def fig_setup():
    """The setup in one picture: a ball on a circle, the Luce rule, and the two tests."""
    # narrow enough that a phone shows its text at about 9 px without zooming
    fig, axes = splot.subplot_mosaic([["a", "b"], ["c", "c"]], figsize=(6.0, 6.2),
                                     height_ratios=[1.1, 0.9])
    axes = [axes["a"], axes["b"], axes["c"]]
    blue, red, green = splot.CYCLE[0], splot.CYCLE[1], splot.CYCLE[2]

    # (a) the space, the probe's resolution ball and two items
    ax = axes[0]
    ax.add_patch(CirclePatch((0, 0), 1, fill=False, color="0.6", lw=1.2))
    probe, eps_deg = 90.0, 50.0
    ax.add_patch(Arc((0, 0), 2, 2, theta1=probe - eps_deg, theta2=probe + eps_deg,
                     color=blue, lw=6, alpha=0.35))

    def at(deg, r=1.0):
        return r * np.cos(np.radians(deg)), r * np.sin(np.radians(deg))

    ax.plot(*at(probe), marker="*", ms=15, color="black")
    ax.annotate("probe $p$", at(probe, 1.22), ha="center")
    ax.plot(*at(115), "o", color=green, ms=9)
    ax.annotate("$x_1$", at(115, 1.2), ha="center")
    ax.plot(*at(-30), "o", color=red, ms=9)
    ax.annotate("$x_2$", at(-30, 1.22), ha="center")
    ax.annotate(r"$B_\varepsilon(p)$", at(probe - eps_deg - 18, 0.66), color=blue, ha="center")
    ax.text(0, -0.15, r"$b_p = \nu(B_\varepsilon(p))$", ha="center")
    ax.set_title("(a) probe and ball")
    ax.set_xlim(-1.5, 1.5)
    ax.set_ylim(-1.5, 1.5)
    ax.set_aspect("equal")
    ax.axis("off")

    # (b) the Luce rule on the two items of panel (a), with noise Delta outside the ball
    ax = axes[1]
    delta = 0.25
    g = np.array([1.0, delta])
    # colour names the item, fill names the quantity: the legend shows the fills in neutral grey
    ax.bar([0, 1], g, width=0.35, color=[green, red], alpha=0.35, hatch="//",
           edgecolor=[green, red])
    ax.bar([0.38, 1.38], g / g.sum(), width=0.35, color=[green, red])
    ax.set_xticks([0.19, 1.19], ["$x_1$ (in)", "$x_2$ (out)"])
    ax.text(0.95, 1.02, r"$D_i = g_i / \sum_k g_k$", ha="center")
    ax.set_ylim(0, 1.15)
    ax.set_title(rf"(b) Luce rule, $\Delta$ = {delta}")
    ax.legend(handles=[Patch(facecolor="white", edgecolor="0.3", hatch="//",
                             label="similarity $g$"),
                       Patch(facecolor="0.3", label="choice $D_i$")],
              loc="center right")
    ax.grid(False)

    # (c) the two tests, on a line
    ax = axes[2]
    for y, (title, p_x, note) in enumerate(
        [("identification: $p$ is a copy of $x_1$", 0.3, "correct: the copied item"),
         ("similarity: a new probe $p$", 0.42, "correct: the nearest item")]
    ):
        ax.hlines(y, 0, 1, color="0.7")
        ax.plot([0.3, 0.75], [y, y], "o", color="0.35", ms=9)
        ax.annotate("$x_1$", (0.3, y - 0.22), ha="center")
        ax.annotate("$x_2$", (0.75, y - 0.22), ha="center")
        ax.plot(p_x, y + 0.18, marker="*", ms=14, color="black")
        ax.annotate("", (0.3, y + 0.05), (p_x, y + 0.16),
                    arrowprops={"arrowstyle": "->", "color": green})
        ax.text(0.5, y + 0.36, title, ha="center")
        ax.text(0.5, y - 0.42, note, ha="center", color=green)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.6, 1.6)
    ax.axis("off")
    ax.set_title("(c) the two tests")
    return fig


def fig_front():
    """Theorem 1 on a homogeneous space: p_S and p_I against b with the three regimes shaded,
    and the same curves as a front in the (p_I, p_S) plane."""
    B = np.linspace(0, 1, 401)
    fig, (ax_b, ax_f) = splot.subplots(1, 2, figsize=(7.2, 4.4))
    ps, pi = theory.two_item(B)
    ax_b.plot(B, ps, color=splot.THEORY, label="$p_S$ (similarity)")
    ax_b.plot(B, pi, color=splot.THEORY_ALT, ls="--", label="$p_I$ (identification)")
    regimes = [(0, SMALL_B, "small ε", "#edae49"), (SMALL_B, 0.5, "tradeoff", "#1b6ca8"),
               (0.5, 1, "interference", "#d1495b")]
    for lo, hi, name, colour in regimes:
        ax_b.axvspan(lo, hi, color=colour, alpha=0.12, lw=0)
        ax_b.text((lo + hi) / 2, 0.47, name, ha="center", fontsize=9,
                  rotation=90 if hi - lo < 0.2 else 0, va="bottom")
        sel = (B >= lo) & (B <= hi)
        ax_f.plot(pi[sel], ps[sel], color=colour, lw=2.5, label=name)
    ax_b.set(xlabel=r"ball measure $b$", ylabel="success probability", ylim=(0.45, 1.02))
    ax_f.plot(0.75, 0.75, "k*", ms=12, label=r"optimum $b = 1/2$")
    q = np.linspace(0.5, 1, 201)
    ax_f.plot(q, theory.front(q), color=splot.THEORY, lw=0.8, ls=":", label="front $p_S(p_I)$")
    ax_f.set(xlabel="identification $p_I$", ylabel="generalization $p_S$", xlim=(0.48, 1.01))
    splot.legend_outside(fig, [ax_b, ax_f], ncol=3)
    return fig


def fig_noise_segment(mc, segment_moments, deltas=DEFAULT.deltas):
    """Left: Theorem 2's fronts for several Δ with the circle's Monte Carlo cells (at the
    check's ``deltas``); right: the circle against the segment (whose ball moments
    ``segment_moments(eps)`` the chapter derives), with the cost Var(b) inset."""
    fig, (ax_d, ax_s) = splot.subplots(1, 2, figsize=(7.2, 4.6))
    B = np.linspace(0, 1, 301)
    for i, dl in enumerate((0.0, 0.1, 0.2, 0.3, 0.5)):
        ps, pi = theory.two_item(B, delta=dl)
        ax_d.plot(pi, ps, color=splot.CYCLE[i], label=rf"$\Delta$ = {dl}")
        if dl in deltas:
            sel = mc[(mc.space == "circle") & (mc.delta == dl)]
            ax_d.errorbar(sel[sel.task == "identification"]["mc"].to_numpy(),
                          sel[sel.task == "similarity"]["mc"].to_numpy(),
                          xerr=2 * sel[sel.task == "identification"]["stderr"].to_numpy(),
                          yerr=2 * sel[sel.task == "similarity"]["stderr"].to_numpy(),
                          fmt="o", ms=4, color=splot.CYCLE[i])
    ax_d.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
             title="noise (homogeneous)")
    ax_d.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=2)

    E = np.linspace(0, 0.5, 201)
    circ_ps, circ_pi = theory.two_item(2 * E)
    m_seg, v_seg = segment_moments(E)
    seg_ps, seg_pi = theory.two_item(m_seg, var_b=v_seg)
    ax_s.plot(circ_pi, circ_ps, color=splot.THEORY, label="circle (homogeneous)")
    ax_s.plot(seg_pi, seg_ps, color=splot.CYCLE[1], label="segment")
    for name, colour in (("circle", splot.THEORY), ("segment", splot.CYCLE[1])):
        sel = mc[(mc.space == name) & (mc.delta == 0)]
        ax_s.plot(sel[sel.task == "identification"]["mc"], sel[sel.task == "similarity"]["mc"],
                  "o", ms=5, color=colour, mfc="white")
    inset = ax_s.inset_axes([0.3, 0.17, 0.4, 0.35])
    inset.plot(E, v_seg, color=splot.CYCLE[1])
    inset.set_xlabel(r"$\varepsilon$", fontsize=9)
    inset.set_title(r"cost $\operatorname{Var}(b)$", fontsize=9)
    inset.tick_params(labelsize=9)
    inset.locator_params(nbins=3)
    ax_s.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
             title=r"circle vs segment")
    ax_s.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)
    return fig
