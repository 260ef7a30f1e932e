"""Chapter 2's page: its figures, the numbers and sentences its prose quotes, its tables and
its overview rows (decided in :mod:`.verdicts`). The chapter calls :func:`noise`, :func:`limit`,
:func:`optimum`, :func:`non_monotonic`, :func:`monte_carlo` and :func:`publish`."""

from __future__ import annotations

import numpy as np

from semres.report import plotting as splot
from semres.report import tables
from semres.core import theory
from semres.core.simulate import check_table
from semres.experiments.pareto.verdicts import reach
from semres.report import GOOD, Z_MAX, find, fmt, plural

from . import verdicts
from .settings import DEFAULT, SETTINGS


def b_star_verdict(ok: bool, n: int, gap: float, margin: float) -> str:
    """The prose's sentence on b*(n) against the paper's values: whether every value lies
    within the paper's rounding, and the one nearest to failing, which heads the row (at
    ``n``: ``gap`` = here - paper, against the rounding ``margin`` there)."""
    if ok:
        return (f"every value lies within the paper's rounding; the nearest to its edge, at "
                f"n = {n}, is "
                f"{fmt(abs(gap), 2)} from the quoted value, where the rounding allows "
                f"{fmt(margin)}")
    return (f"the value at n = {n} misses the quoted one by {fmt(abs(gap), 2)}, more than the "
            f"paper's rounding allows ({fmt(margin)})")


# --------------------------------------------------------------------------- publishing

def noise(report, worst: float) -> None:
    """The largest gap between SymPy's noisy sums and the library's."""
    report.small("noise_worst", worst)


def limit(report, lam_star: float) -> None:
    """The Poisson limit's optimal lambda* and the success rate there."""
    report.number("lam_star", lam_star)
    report.number("p_inf_star", theory.poisson_limit(lam_star)[0])


def optimum(report, curve, check, gap: float):
    """Save b*(n) (``curve``: n, b_star, n_b_star, p_star), glue the verdict on the paper's
    values (``check``: n, paper, here, lambda*/n) and the identity's largest gap, and return
    the comparison with the paper for the page."""
    report.table(curve, "b_star")
    agrees, worst = verdicts.b_star_agrees(check)
    n_worst, gap = int(worst["cell"].removeprefix("n = ")), worst["headline"] - worst["paper_value"]
    report.text("bstar_verdict", b_star_verdict(agrees, n_worst, gap, worst["margin"]),
                cites={"n": n_worst, "gap": abs(gap), "margin": worst["margin"]})
    report.small("gap", gap)
    report.number("nb_last", curve.n_b_star.iloc[-1])
    report.number("n_last", curve.n.iloc[-1])
    return tables.table(check, decimals=4, n="{:d}", headers={
        "paper": "Best ball measure <i>b</i>*, the paper's",
        "here": "Best ball measure <i>b</i>*, here",
        "lambda*/n": "The limit's ball measure λ*/<i>n</i>"})


def non_monotonic(report, cfg, N, ps_n, turn, lam_star: float) -> None:
    """p_S^n over ``N`` at b = ``cfg.b_small``: its value at n = 2, its minimum and its peak
    (the turning points ``turn``), and its ratio to 1/(n b) at the last n."""
    report.number("bsmall", cfg.b_small)
    report.number("ps_n2", ps_n[0])
    report.number("nmin", int(N[turn[0]]))
    report.number("psmin", ps_n[turn[0]])
    report.number("npeak", int(N[turn[1]]))
    report.number("pspeak", ps_n[turn[1]])
    report.number("npeak_lam", lam_star / cfg.b_small)
    report.number("ratio400", ps_n[-1] * N[-1] * cfg.b_small)


def monte_carlo(report, cfg, mc):
    """Save the Monte Carlo table, glue what the prose says of it, and return it for the page
    (one row per space, n, ball measure and noise, both tests side by side)."""
    report.table(mc, "mc_check")
    report.number("trials", cfg.trials)
    report.number("zmax", Z_MAX)  # every Monte Carlo estimate must sit this close to theory
    report.number("mc_cells", len(mc))
    report.number("n_mc_max", max(cfg.n_mc))
    report.number("eps_segment", cfg.eps_segment)
    report.number("mc_maxz", mc["z"].abs().max())
    report.number("mc_margin", verdicts.MC_MARGIN)  # the practical margin of Theorem 3's cells
    return tables.table(check_table(mc, ["space", "n", "mean_b", "delta"]), decimals=4,
                       **{"p_S z": "{:+.2f}", "p_I z": "{:+.2f}", "n": "{:d}"})


def publish(report, cfg, profile: str, seed: int, n_max: int, *, mc, curve, pi_star,
            lam_star: float, check, N, ps_n, turn, gap: float) -> None:
    """The two figures, the overview rows (:mod:`.verdicts`), how this build differs from the
    paper, the saved summary and the result box."""
    ns, bs = curve.n.to_numpy(), curve.b_star.to_numpy()
    report.number("exact_n_max", max(cfg.exact_n))
    report.figure("collapse", fig_collapse(mc, ps_n, turn, N, cfg.b_small, cfg.b_mc))
    report.figure("optimum", fig_optimum(ns, bs, lam_star, check, curve.p_star.to_numpy(),
                                         pi_star))
    n_min = int(N[turn[0]])
    for row in (verdicts.theorem_row(mc), verdicts.b_star_row(check),
                verdicts.minimum_row(n_min, float(ps_n[turn[0]]), cfg.paper_minimum)):
        report.grid_result(**row)
    report.result(**verdicts.identity_row(gap))
    # what ran here against the paper, read from this build's parameters
    missing = [m for m in cfg.paper_b_star if m > n_max]
    report.deviations(
        cfg, SETTINGS.paper,
        f"the symbolic proof covers every $n$; the exact case-by-case checks run for "
        f"$n \\le {max(cfg.exact_n)}$ in this profile",
        f"a Monte Carlo check added here, for $n \\in "
        f"\\{{{', '.join(map(str, cfg.n_mc))}\\}}$ "
        f"with {cfg.trials:,} trials per cell",
        f"$b^*(n)$ is computed up to $n = {int(n_max)}$, so the paper's value at "
        f"$n = {', '.join(map(str, missing))}$ is not compared" if missing else "",
        "the finite sum for $p_S^n$, the noisy sums, the optimum identity and the Poisson limit "
        "are derived here; the paper quotes $p_I^n$ and an empirical $b^* \\approx 1.5/n$")
    report.save()
    report.box(f"profile `{profile}`, seed {seed}; SymPy for symbolic n, Monte Carlo for "
               f"n = {', '.join(map(str, cfg.n_mc))} ({cfg.trials:,} trials per cell)",
               lead=lead(report.rows, mc, n_min, float(ps_n[turn[0]]), cfg.b_small),
               lead_cites={"n_max": int(mc["n"].max()), "n_min": n_min, "cells": len(mc),
                           "p_min": float(ps_n[turn[0]]), "b_small": cfg.b_small,
                           "reach": reach(report.rows[:1]),
                           "largest z": float(mc["z"].abs().max())})


def lead(rows, mc, n_min: int, p_min: float, b_small: float) -> str:
    """The box's first sentences: Theorem 3 against the engine within its practical margin
    (how far its farthest Monte Carlo interval reaches from the closed form), and the turn in
    p_S^n."""
    theorem, minimum = rows[0], find(rows, "non-monotonic")
    items = plural(int(mc["n"].max()), "item")
    if theorem["status"] in GOOD:
        said = (f"Theorem 3 holds for up to {items}: identification collapses as $1/(nb)$, "
                f"and the farthest interval of the {len(mc)} Monte Carlo cells reaches "
                f"{fmt(reach([theorem]), places=4)} from the closed form, inside the practical "
                f"margin of {fmt(theorem['margin'])}")
    else:
        said = (f"Theorem 3 is {theorem['status']} in this build for up to {items}, against a "
                f"practical margin of {fmt(theorem['margin'])}, though each of its "
                f"{len(mc)} Monte Carlo cells lies within "
                f"{fmt(float(mc['z'].abs().max()), places=1)} standard errors of the closed "
                "form")
    return (f"{said}. At a fine resolution ($b$ = {fmt(b_small)}) generalization is not "
            f"monotone in $n$: it is lowest at $n$ = {n_min}, {fmt(p_min)} "
            f"({minimum['status'] if minimum else 'not run'} against the paper's value).")


# --------------------------------------------------------------------------- figures

def fig_collapse(mc, ps_n, turn, N, b_small=DEFAULT.b_small, b_mc=DEFAULT.b_mc):
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
             title="the $1/n$ collapse")
    ax_i.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)

    for i, bb in enumerate((0.02, 0.05, 0.1)):
        ps, _ = theory.n_item(bb, N)
        ax_s.semilogx(N, ps, color=splot.CYCLE[i], label=f"b = {bb}")
        if bb in b_mc:
            sel = mc0[(mc0.b == bb) & (mc0.task == "similarity")]
            ax_s.plot(sel.n, sel.mc, "o", ms=5, color=splot.CYCLE[i], mfc="white")
    ax_s.plot(N[turn], ps_n[turn], "kx", ms=8, label=f"turning points, b = {b_small}")
    ax_s.set(xlabel="number of items $n$", ylabel="generalization $p_S^n$",
             title="non-monotonic $p_S^n$")
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
             title="optimal resolution")
    ax_b.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)

    BB = np.linspace(1e-4, 1, 600)
    for i, m in enumerate((2, 3, 5, 10, 20, 50)):
        ps, pi = theory.n_item(BB, m)
        ax_f.plot(pi, ps, color=splot.CYCLE[i], label=f"n = {m}")
        if m <= ns[-1]:
            ax_f.plot(pi_star[m - ns[0]], ps_star[m - ns[0]], "*", ms=10, color=splot.CYCLE[i])
    diag = np.linspace(0, 1, 2)
    ax_f.plot(diag, diag, color=splot.THEORY_ALT, lw=0.8, ls=":", label="$p_S = p_I$")
    ax_f.set(xlabel="identification $p_I^n$", ylabel="generalization $p_S^n$",
             xlim=(0, 1.02), ylim=(0, 0.8), title="fronts for several $n$")
    ax_f.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=2)
    return fig
