"""Chapter 1's experiment: the two-item laws checked by Monte Carlo on four spaces.

The chapter derives Theorems 1-2 and shows the check being run; what it would otherwise repeat
or hide lives here: its settings (the three profiles, the resolutions and noise levels of the
check), the discrete space with ties, the overview rows, and its figures. The engine itself is
:mod:`semres.core.simulate`, the closed forms :mod:`semres.core.theory`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Arc, Circle as CirclePatch, Patch

from semres.core import plotting as splot
from semres.core import spaces, theory
from semres.core.profiles import Settings, positive_ints, require

#: resolutions ε of the Monte Carlo check, per space: both sides of the optimum b = 1/2 on
#: the circle and segment (b = 2ε), caps up to past a hemisphere on the sphere, and the
#: city-block radii 1, 2 and 4 of the discrete grid (a point's neighbours, then wider)
EPS = {"circle": (0.05, 0.15, 0.25, 0.4), "segment": (0.05, 0.15, 0.25, 0.4),
       "sphere": (0.3, 1.0, np.pi / 2, 2.2), "discrete": (1.0, 2.0, 4.0)}
#: noise levels Δ of the Monte Carlo check (Δ = 0 is Theorem 1)
DELTAS = (0.0, 0.1, 0.3)
#: noise levels at which the discrete space's theory is checked against exact enumeration
ENUMERATION_DELTAS = (0.0, 0.2)
#: the discrete radius whose tie probability and ball variance the prose quotes
TIE_EPS = EPS["discrete"][1]
#: the segment radius at which the prose quotes the cost of heterogeneity
COST_EPS = 0.25
#: where the front figure draws the edge of the small-ε regime: a visual cut, not a law
SMALL_B = 0.1


def discrete_space(grid: int, points: int, seed) -> spaces.Discrete:
    """``points`` distinct cells of a ``grid`` × ``grid`` integer grid with the city-block
    distance (integer, so full of exact ties) and unequal Dirichlet(2) weights: a heterogeneous
    space with ties, drawn from ``seed`` (a SeedSequence or an int)."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(grid * grid, size=points, replace=False)
    xy = np.stack(np.divmod(cells, grid), axis=1)
    dist = np.abs(xy[:, None, :] - xy[None, :, :]).sum(-1).astype(float)
    return spaces.Discrete(dist, weights=rng.dirichlet(np.full(len(xy), 2.0)))


def overview_cells(mc) -> list[tuple[str, str, object]]:
    """The chapter's overview rows: (result, statement, which Monte Carlo cells check it)."""
    return [
        ("Theorem 1 (paper Thm. 1) on the circle", "p_S = 1/2 + <b> - <b>^2, p_I = 1 - <b>/2",
         (mc.space == "circle") & (mc.delta == 0)),
        ("Theorem 2 (paper Thm. 2), noise", "the noisy two-item law, every space and Delta > 0",
         mc.delta > 0),
        ("Theorem 1 with heterogeneity (segment)", "p_S lower by Var(b) at equal p_I",
         mc.space == "segment"),
        ("ties in a discrete space (new)", "p_S gains tau/2 (exact enumeration and Monte "
         "Carlo)", mc.space == "discrete")]


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


def fig_noise_segment(mc, segment_moments):
    """Left: Theorem 2's fronts for several Δ with the circle's Monte Carlo cells; right: the
    circle against the segment (whose ball moments ``segment_moments(eps)`` the chapter
    derives), with the cost Var(b) inset."""
    fig, (ax_d, ax_s) = splot.subplots(1, 2, figsize=(7.2, 4.6))
    B = np.linspace(0, 1, 301)
    for i, dl in enumerate((0.0, 0.1, 0.2, 0.3, 0.5)):
        ps, pi = theory.two_item(B, delta=dl)
        ax_d.plot(pi, ps, color=splot.CYCLE[i], label=rf"$\Delta$ = {dl}")
        if dl in DELTAS:
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


# --------------------------------------------------------------------------- settings

def _check_settings(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "trials", "discrete_grid", "discrete_points")
    require(2 <= cfg["discrete_points"] <= cfg["discrete_grid"] ** 2, ch,
            f"discrete_points ({cfg['discrete_points']}) must lie in [2, discrete_grid**2 = "
            f"{cfg['discrete_grid'] ** 2}]: cells are drawn without replacement")


#: chapter 1's Monte Carlo check of the two-item laws
SETTINGS = Settings(
    chapter="01_pareto_front",
    profiles={
        "quick": {"trials": 100_000, "discrete_grid": 7, "discrete_points": 25},
        "default": {"trials": 2_000_000, "discrete_grid": 7, "discrete_points": 40},
        "paper": {"trials": 20_000_000, "discrete_grid": 9, "discrete_points": 60},
    },
    check=_check_settings, parameters={"mc_trials": "trials"})
