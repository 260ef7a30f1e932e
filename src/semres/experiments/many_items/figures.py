"""Chapter 2's figures: the 1/n collapse with the non-monotonic p_S^n, and the optimal
resolution b*(n) with the fronts for several n."""

from __future__ import annotations

import numpy as np

from semres.core import theory
from semres.report import plotting as splot


def fig_collapse(mc, ps_n, turn, N, b_small, b_mc):
    """Left: p_I^n against n on log-log axes with its 1/(nb) asymptote; right: p_S^n against n
    at fine resolutions with the turning points of ``ps_n`` (b = ``b_small``, over ``N``);
    open circles are the circle's Monte Carlo cells at Δ = 0 (at the ball measures ``b_mc``)."""
    mc0 = mc[(mc.space == "circle") & (mc.delta == 0)].assign(b=lambda df: 2 * df.eps)
    fig, (ax_i, ax_s) = splot.subplots(1, 2, figsize=(7.2, 4.4))
    NN = np.arange(2, 1001)
    for i, bb in enumerate((0.02, 0.05, 0.3)):
        _, pi = theory.n_item(bb, NN)
        ax_i.loglog(NN, pi, color=splot.CYCLE[i], label=f"$p_I^n$, b = {bb}")
        ax_i.loglog(NN, 1 / (NN * bb), color=splot.CYCLE[i], ls=":", lw=1)
        sel = mc0[(mc0.b == bb) & (mc0.task == "identification")]
        ax_i.plot(sel.n, sel.mc, "o", ms=5, color=splot.CYCLE[i], mfc="white")
    ax_i.plot([], [], "k:", lw=1, label="$1/(n b)$")
    ax_i.set(xlabel="number of items $n$", ylabel="identification $p_I^n$", ylim=(1e-3, 1.1),
             title="(a) the $1/n$ collapse")
    ax_i.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)

    for i, bb in enumerate((0.02, 0.05, 0.1)):
        ps, _ = theory.n_item(bb, N)
        ax_s.semilogx(N, ps, color=splot.CYCLE[i], label=f"b = {bb}")
        if bb in b_mc:
            sel = mc0[(mc0.b == bb) & (mc0.task == "similarity")]
            ax_s.plot(sel.n, sel.mc, "o", ms=5, color=splot.CYCLE[i], mfc="white")
    ax_s.plot(N[turn], ps_n[turn], "kx", ms=8, label=f"turning points, b = {b_small}")
    ax_s.set(xlabel="number of items $n$", ylabel="generalization $p_S^n$",
             title="(b) non-monotonic $p_S^n$")
    ax_s.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)
    return fig


def fig_optimum(ns, bs, lam_star, check, ps_star, pi_star):
    """Left: b*(n) (``bs`` at ``ns``) against λ*/n and the paper's values (``check``); right:
    the fronts for several n with each generalization optimum (on the diagonal)."""
    fig, (ax_b, ax_f) = splot.subplots(1, 2, figsize=(7.2, 4.6))
    ax_b.loglog(ns, bs, color=splot.THEORY, label="$b^*(n)$, exact")
    ax_b.loglog(ns, lam_star / ns, color=splot.CYCLE[1], ls="--",
                label=rf"$\lambda^*/n$, $\lambda^*$ = {lam_star:.3f}")
    ax_b.plot(check.n, check.paper, "s", ms=5, color=splot.CYCLE[2], mfc="white",
              label="values quoted in the paper")
    ax_b.set(xlabel="number of items $n$", ylabel="optimal ball measure $b^*$",
             title="(a) optimal resolution")
    ax_b.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)

    BB = np.linspace(1e-4, 1, 600)
    for i, m in enumerate((2, 3, 5, 10, 20, 50)):
        ps, pi = theory.n_item(BB, m)
        ax_f.plot(pi, ps, color=splot.CYCLE[i], label=f"n = {m}")
        if m <= ns[-1]:
            ax_f.plot(pi_star[m - ns[0]], ps_star[m - ns[0]], "*", ms=10, color=splot.CYCLE[i])
    diag = np.linspace(0, 1, 2)
    ax_f.plot(diag, diag, color=splot.THEORY_ALT, lw=1.2, ls=":", label="$p_S = p_I$")
    ax_f.set(xlabel="identification $p_I^n$", ylabel="generalization $p_S^n$",
             xlim=(0, 1.02), ylim=(0, 0.8), title="(b) fronts for several $n$")
    ax_f.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=2)
    return fig
