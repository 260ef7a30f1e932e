"""Chapter 7's page: its figures, the numbers and sentences its prose quotes (each verdict
decided in :mod:`.verdicts`, each sentence glued with the numbers it quotes), its tables, and its
overview rows and points. The chapter calls one function per section (:func:`family_check`,
:func:`families`, :func:`best`, :func:`.page_floor_n.floor_n_section`, :func:`ties`,
:func:`slots`) and :func:`publish` at the end."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from semres.report import plotting as splot
from semres.report import tables
from semres.core import shapes, theory
from semres.report import GOOD, Z_MAX, find, plural

from . import branch, verdicts
from . import ties as discrete
from .certified import frontier_table
from .families import floor_bound, linear_peak_b
from .settings import DEFAULT, SETTINGS


# --------------------------------------------------------------------------- publishing

def glue(report, values: dict, small=()) -> None:
    """Glue what a section quotes: numbers as numbers (``small`` ones as prose writes them),
    and each sentence with the numbers it quotes (``values["cites"]``: a sentence's name ->
    its numbers; a sentence quoting none cites nothing), so that ``prose.csv`` can check it."""
    cites = values.get("cites", {})
    for key, value in values.items():
        if key == "cites":
            continue
        if isinstance(value, str):
            report.text(key, value, markdown=True, cites=cites.get(key, {}))
        elif key in small:
            report.small(key, value)
        else:
            report.number(key, value)


def family_check(report, cfg, check):
    """Glue what the prose says of the families' Monte Carlo check; return its table."""
    report.number("trials", cfg.trials)
    report.number("zmax", Z_MAX)
    report.number("check_cells", len(check))
    report.number("check_maxz", check["z"].abs().max())
    return tables.table(check.drop(columns=["se_i", "se_s"]), decimals=5, z="{:+.2f}",
                        scale="{:.3f}", delta="{:.2f}", headers=HEADERS)


#: how the chapter's tables name their columns: words, and a unit or the kind of number
HEADERS = {"scale": "Scale (circumference)", "cap": "Gain cap",
           "below_one": "Similarity below one", "ceiling": "Identification ceiling",
           "constant_best_b": "Constant kernel's best ball measure b",
           "constant_over_ceiling": "Constant kernel's share of the ceiling",
           "size": "Size, cycle length or torus side (points)", "tau": "Tie probability τ",
           "above": "Above the front (pS)", "front": "Front (pS)"}


def shown(df, decimals: int = 4, **headers) -> tables.Table:
    """A table the chapter displays, its columns named by :data:`HEADERS` (``headers`` adds
    names for this table alone: ``K="Slots K"``)."""
    return tables.table(df, decimals=decimals, headers={**HEADERS, **headers})


def equal_shown(equal) -> tables.Table:
    """The slot codes' p_S at equal identification, one column per code, with the front and
    the mean code's sorted bound."""
    mean = equal[equal["combine"] == "mean"].set_index("p_i")
    return shown(equal.pivot(index="p_i", columns="combine", values="p_s").assign(
        front=equal.groupby("p_i").front.first(), mean_sorted=mean.sorted_bound),
        max="pS, slots combined by maximum", mean="pS, slots combined by mean",
        product="pS, slots combined by product", mean_sorted="pS, mean code sorted (bound)")


def families(report, cfg, check, sweep, lin_est, lin_paper: float, b_cross) -> None:
    """The families' table (Monte Carlo cells, then the exact sweep), their finding (one claim
    over every Monte Carlo cell, :func:`.verdicts.family_result`), what
    the prose quotes of the sweep (``b_cross``: where the linear kernel crosses the constant
    kernel's front, as a ball measure) and the figure."""
    table = pd.concat([check, sweep], ignore_index=True)
    report.table(table[["family", "scale", "delta", "p_i", "p_s", "p_i_mc", "p_s_mc", "z"]],
                 "families")
    report.grid_result(**verdicts.family_result(check, lin_est, lin_paper))
    glue(report, sweep_glue(sweep, b_cross), small=("exponential_fine_scale",
                                                    "gaussian_fine_scale"))
    report.figure("families", fig_families(sweep, check, cfg.sweep_deltas))


def best(report, cfg, *, floored, certified, scan, peaks, best2, opt, local2, shortfall,
         mc_best, shapes_) -> pd.DataFrame:
    """The best similarity: the floor proposition's check (every floored family curve and every
    certified optimum against the bound) and the certificates' check, what the prose quotes
    and the figure. Returns the two-item rows of ``frontier.csv``, which
    :func:`.page_floor_n.floor_n_section` completes with the n-item rows and writes; whether
    the best similarity beats the constant kernel is one finding over every (n, floor), two
    items included, added there."""
    report.result(**verdicts.floor_result(floored, scan))
    report.result(**verdicts.best_check(peaks, mc_best))
    quoted = best_glue(best2, certified, peaks, scan, shapes_, shortfall, mc_best)
    quoted.update(qp_grid=cfg.qp_grid, targets=cfg.targets, scan=cfg.scan,
                  kmax=int(cfg.frontier_K))
    glue(report, quoted, small=("gap_max", "shortfall_max"))
    report.figure("frontier", fig_frontier(certified, scan, peaks, local2, mc_best,
                                           cfg.frontier_K, cfg.deltas))
    return frontier_table(certified, peaks, scan, opt)


def ties(report, table, rates: dict, tie_mc) -> None:
    """The discrete spaces: ``ties.csv``, their finding (one claim over both families of
    spaces, :func:`.verdicts.ties_result`), what the prose quotes and the figure."""
    report.table(table, "ties")
    slopes = discrete.tie_slopes(table)
    report.grid_result(**verdicts.ties_result(table, rates, slopes, tie_mc))
    glue(report, tie_glue(table, rates, slopes, tie_mc))
    report.figure("ties", fig_ties(table, rates))


def slots(report, sweep, equal, best_slot, z1, wrong: dict, pi_max, wrong_eps: float) -> None:
    """The compositional pilot: ``slots.csv`` (the sweep as measured, without the heights
    derived from it), its check and its finding (the front bounds the mean code at every
    identification level, :func:`.verdicts.slot_bound_result`), ``slots_equal_pi.csv``, what
    the prose quotes (``wrong``: the
    max code's share of wrong preferences per K at radius ``wrong_eps``; ``pi_max``: its p_I
    there, per K) and the figure."""
    report.table(sweep.drop(columns=["above", "above_z"], errors="ignore"), "slots")
    report.result(**verdicts.slot_check(best_slot, z1, equal))
    report.grid_result(**verdicts.slot_bound_result(equal))
    report.table(equal, "slots_equal_pi")
    quoted = slot_glue(sweep, equal, best_slot)
    quoted.update({f"wrong_{K}": wrong[K] for K in wrong} | {f"pi_max_{K}": pi_max.loc[K]
                                                          for K in wrong})
    quoted.update(wrong_eps=wrong_eps, slot_k1_maxz=np.abs(z1).max())
    glue(report, quoted)
    report.figure("slots", fig_slots(sweep))


def publish(report, cfg, profile: str, seed: int, *, check, mc_best, slot_sweep, peaks_n,
            beats, seconds: float) -> None:
    """The chapter's points on the overview plane, what ran, how this build differs from the
    paper, the saved summary and the result box (``peaks_n``: the n-item largest gains, with
    their certificates; ``beats``: the status of each (n, floor) cell of the finding that the
    best similarity beats the constant kernel, :func:`.verdicts.beats_pairs`). The page shows
    no summary table: the box lists every result."""
    for point in front_points(check, mc_best, slot_sweep):
        report.point(*point)
    report.text("ran", ran_lines(cfg, profile, seed), markdown=True, cites=ran_cites(cfg, seed))
    # the paper has none of these experiments, so no setting has a counterpart in its protocol
    report.deviations(cfg, SETTINGS.paper,
                      "the paper itself has none of these experiments: its laws assume the "
                      "constant similarity; everything here is an extension")
    report.number("seconds", seconds)
    report.save()
    text, cites = lead(report.rows, peaks_n, beats)
    report.box("; ".join(line[2:] for line in ran_lines(cfg, profile, seed).splitlines()),
               lead=text, lead_cites=cites)


def lead(rows, peaks_n, beats) -> tuple[str, dict]:
    """The box's first sentences: what a floor forces, in how many of the (n, floor) cells of
    its one finding (``beats``: (n, floor, status) per cell) the best similarity gets past
    Theorem 3's constant kernel by more than the margin, and at how many of the n-item largest
    gains (``peaks_n``) branch-and-bound certifies it; with the counts they quote."""
    bound = find(rows, "a floor forces a tradeoff for any number of items")
    held = [b for b in beats if b[-1] in GOOD]
    first = ("A noise floor $\\Delta$ forces the tradeoff for any number of items: no "
             "similarity lets either rate of $n$ items pass $1/(1 + (n-1)\\Delta)$"
             + (" (proved and checked)." if bound is not None and bound["status"] == "check"
                else "."))
    cites = {"held": len(held), "cases": len(beats), "certified": int(peaks_n.certified.sum()),
             "largest_gains": len(peaks_n), "margin": verdicts.RATE_MARGIN}
    if not beats:
        return first, cites
    return (first + f" The paper's constant kernel is beaten by more than "
            f"{verdicts.RATE_MARGIN:g} in {len(held)} of {plural(len(beats), 'case')} of items "
            f"and floor (one finding); beyond two items branch-and-bound "
            f"certifies the best similarity at {int(peaks_n.certified.sum())} of the "
            f"{len(peaks_n)} largest gains."), cites


# --------------------------------------------------------------------------- what the prose quotes

def sweep_glue(sweep, b_cross: float) -> dict:
    """What the families' section quotes (numbers, and sentences as text): where the graded
    families get at their finest scale, the two peaks without a floor (Theorem 1 at b = 1/2,
    Proposition 1 at its b*), the floored curves' closest approach to the bound, and where the
    linear kernel crosses the constant kernel's front."""
    finest = sweep[(sweep.delta == 0)].loc[lambda t: t.groupby("family").scale.idxmin()]
    finest = finest.set_index("family")
    out = {f"{fam}_fine_{col.replace('p_', 'p')}": finest.loc[fam, col]
           for fam in ("exponential", "gaussian") for col in ("scale", "p_s", "p_i")}
    floored = sweep[sweep.delta > 0]
    deltas = sorted(set(floored.delta))
    out.update({
        "peak_linear": shapes.circle_two_item(shapes.Family("linear", linear_peak_b() / 2))[0],
        "peak_constant": shapes.circle_two_item(shapes.Family("constant", 0.25))[0],
        "bound_margin": (floored.bound - floored.p_s).min(),
        "lin_cross_eps": float(b_cross) / 2,
        "sweep_deltas": ", ".join(f"{x:g}" for x in deltas),
        "cites": {"sweep_deltas": {f"delta_{i}": x for i, x in enumerate(deltas)}}})
    return out


def best_glue(best2, certified, peaks, scan, shapes_, shortfall, mc_best) -> dict:
    """What the best-similarity section quotes (numbers, and sentences as text): gains, caps,
    plateaus per floor, the certificates' largest gap, the verdicts on beating the constant
    kernel, on the gain's trend, on an exponential decay and on a plateau at the largest
    gain."""
    plateau_end = scan[scan.masses.map(lambda m: m[0]) >= verdicts.PLATEAU].groupby(
        "delta").p_i.max()
    numbers = {}
    for dl in best2.index:
        key = f"{int(round(dl * 100)):02d}"
        pk = best2.loc[dl]
        numbers.update({f"gain_{key}": pk.gain, f"peak_pi_{key}": pk.p_i, f"cap_{key}": pk.cap,
                        f"plateau_end_{key}": plateau_end.get(dl, math.nan),
                        f"below_one_{key}": shapes_[np.isclose(shapes_.p_i, pk.p_i)
                                                    & (shapes_.delta == dl)].below_one.iloc[0]})
    ratio = shapes_.density_ratio
    numbers.update({"gap_max": max(certified.gap.max(), peaks.gap.max()),
                    "shortfall_max": shortfall.max(), "best_excess_z_min": mc_best.excess_z.min(),
                    "best_maxz": mc_best[["z_s", "z_i"]].abs().max().max(),
                    "ratio_median": ratio.median(), "ratio_min": ratio.min(),
                    "ratio_max": ratio.max()})
    beats = verdicts.beats_constant(peaks, mc_best)
    shrinks = verdicts.gain_shrinks(peaks)
    peak_plateau = best2.apply(
        lambda r: shapes_[np.isclose(shapes_.p_i, r.p_i)].plateau.iloc[0], axis=1)
    texts = {
        "best_verdict": "The constant kernel is not the best similarity at any floor tested."
        if beats else "The constant kernel is close to the best similarity at these floors.",
        "gain_trend": "shrinks as the floor rises" if shrinks
        else "does not shrink monotonically with the floor",
        "exp_verdict": "exponential: the density of log g is uniform to within 10 %"
        if verdicts.exponential(ratio) else "not exponential: the density of log g "
        f"varies by a factor of {ratio.min():.2f} to {ratio.max():.2f} across it (median "
        f"{ratio.median():.2f})",
        "peak_plateau": "has no plateau: g falls at once from 1 at the copy itself"
        if verdicts.no_plateau(peak_plateau) else "keeps a plateau at some floors (shares "
        + ", ".join(f"{v:.3f}" for v in peak_plateau) + ")"}
    cites = {"exp_verdict": {"within_percent": 100 * (verdicts.EXPONENTIAL_WITHIN - 1),
                             "ratio_min": ratio.min(), "ratio_max": ratio.max(),
                             "ratio_median": ratio.median()},
             "peak_plateau": {"one": 1, **{f"share_{i}": v
                                           for i, v in enumerate(peak_plateau)}}}
    return {**numbers, **texts, "cites": cites}


def tie_glue(ties, rates, slopes, tie_mc) -> dict:
    """What the ties section quotes: the slopes (``rates``, over all sizes), the first and last
    heights, the engine's largest |z|, and the verdict on whether the height vanishes (every
    slope between successive sizes, ``slopes``, below :data:`.verdicts.TIE_RATE`)."""
    numbers = {"tie_maxz": tie_mc.z.abs().max()}
    for name, rate in rates.items():
        g = ties[ties.space == name]
        numbers.update({f"tie_rate_{name}": rate, f"tie_first_{name}": g.above_front.iloc[0],
                        f"tie_last_{name}": g.above_front.iloc[-1],
                        f"tie_n_{name}": int(g.points.iloc[-1])})
    vanish = verdicts.ties_vanish(slopes)
    return {**numbers, "tie_verdict": "vanishes in the continuum limit, as a power of the "
            "number of points" if vanish else "does not clearly vanish over the sizes of this "
            "build"}


def slot_glue(slots, equal, best_slot) -> dict:
    """What the compositional pilot quotes: the verdicts on whether the 0/1 codes stay on or
    below the front (they must), whether the mean code leaves it, and the codes at equal
    identification, with the numbers behind them."""
    mean_escape = verdicts.above_front(slots, ["mean"])
    above_max = verdicts.above_front(slots, ["max", "product"])
    eq = {c: equal[equal["combine"] == c].set_index("p_i") for c in ("mean", "max", "product")}
    levels = list(eq["mean"].index)
    where = verdicts.against_front(eq["mean"])  # the finding's cells: 95% intervals, margin
    texts = {
        "slot_max_verdict": "lies on or below the front, as the proposition requires of any "
        "0/1 code" if not above_max else "has points significantly above the front, which the "
        "proposition rules out: the simulation is wrong",
        "slot_mean_verdict": "lies significantly above the front at some resolutions, as graded "
        "similarities can" if mean_escape else "does not lie significantly above the front",
        "slot_equal_text": "; ".join(
            f"at pᵢ = {p:g} the front is {eq['mean'].front[p]:.4f}, the max code "
            f"{eq['max'].p_s[p]:.4f}, the product code {eq['product'].p_s[p]:.4f} and the mean "
            f"code {eq['mean'].p_s[p]:.4f} (its sorted bound {eq['mean'].sorted_bound[p]:.4f})"
            for p in levels),
        "slot_mean_equal_verdict": against_sentence(where, verdicts.RATE_MARGIN)}
    numbers = {"slot_equal_se": equal.se_s.max(), "rate_margin": verdicts.RATE_MARGIN,
               "slot_max_worst": slots[(slots["combine"] == "max") & (slots.K == 4)].above.min(),
               "slot_prod_best": best_slot.loc[(4, "product")].above,
               "slot_mean_best": best_slot.loc[(4, "mean")].above}
    equal_cites = {f"{key}_{i}": value for i, p in enumerate(levels) for key, value in (
        ("p_i", p), ("front", eq["mean"].front[p]), ("max", eq["max"].p_s[p]),
        ("product", eq["product"].p_s[p]), ("mean", eq["mean"].p_s[p]),
        ("sorted", eq["mean"].sorted_bound[p]))}
    cites = {"slot_max_verdict": {"zero": 0, "one": 1}, "slot_equal_text": equal_cites,
             "slot_mean_equal_verdict": {"margin": verdicts.RATE_MARGIN,
                                         **{f"p_i_{i}": p for i, p in enumerate(levels)}}}
    return {**numbers, **texts, "cites": cites}


def against_sentence(where: dict, margin: float) -> str:
    """Where the mean code lies against the front at each identification level, in words
    (``where``: :func:`.verdicts.against_front`): above it by more than the margin (an
    escape), on it within the margin, below it by more, or not told from the margin's edge."""
    said = {"above": (f"rises above it by more than {margin:g}", " (an escape: its 95% "
                      "interval lies wholly beyond that margin)"),
            "on": (f"lies on it within {margin:g}", ""),
            "below": (f"lies below it by more than {margin:g}", ""),
            "unsure": (f"lies too near the margin ({margin:g} from the front) to tell", "")}
    parts = [f"{said[k][0]} at pᵢ = " + ", ".join(f"{p:g}" for p in where[k]) + said[k][1]
             for k in ("above", "on", "below", "unsure") if where[k]]
    if not parts:
        return "was measured at no level"
    parts[0] = parts[0].replace(" it ", " the front ", 1)  # the first names the front
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    if not where["above"]:
        text += ": it does not escape the front at any of these levels"
    return text


def ran_lines(cfg, profile: str, seed: int) -> str:
    """What ran in this build, as a Markdown list."""
    return "\n".join(f"* {x}" for x in [
        f"profile **{profile}**, seed {seed}",
        f"Monte Carlo: {cfg.trials:,} trials per family check cell, "
        f"{cfg.slot_trials:,} per slot cell ({cfg.slot_eps} per-slot radii)",
        f"family sweeps: {cfg.scales} scales per family and floor",
        f"best similarity: {cfg.targets} identification targets; two items certified on "
        f"{cfg.qp_grid} levels, local optimiser with K doubling up to {cfg.frontier_K}; "
        f"n in {list(cfg.floor_ns)} on {cfg.floor_grid} levels, "
        f"{cfg.floor_starts} random starts, {cfg.floor_random:,} random similarities; "
        f"branch-and-bound at the largest gains and {plural(cfg.floor_certify, 'target')} per "
        f"n and floor, at most {cfg.floor_nodes:,} linear programs each (a quarter of them, "
        f"or {branch.GIVE_UP_AFTER}, where the gap then still exceeds {branch.GIVE_UP:g})",
        f"ties: cycles of {list(cfg.cycle_sizes)} points, tori of side "
        f"{list(cfg.torus_sides)}"])


def ran_cites(cfg, seed: int) -> dict:
    """The numbers :func:`ran_lines` quotes: the seed and the profile's sizes."""
    sizes = {key: getattr(cfg, key) for key in (
        "trials", "slot_trials", "slot_eps", "scales", "targets", "qp_grid", "frontier_K",
        "floor_grid", "floor_starts", "floor_random", "floor_certify", "floor_nodes")}
    lists = {f"{key}_{i}": v for key in ("floor_ns", "cycle_sizes", "torus_sides")
             for i, v in enumerate(getattr(cfg, key))}
    return {"seed": seed, **sizes, **lists, "give_up": branch.GIVE_UP,
            "give_up_after": branch.GIVE_UP_AFTER}


def front_points(check, mc_best, slots) -> list[tuple]:
    """The chapter's points on the book's overview plane: (system, p_i, p_s, se_i, se_s); a
    few systems, each with several points (the glance page gives each a legend entry)."""
    return ([("similarity families (4 shapes, floors 0 and 0.05)", r.p_i_mc, r.p_s_mc,
              r.se_i, r.se_s) for r in check.itertuples()]
            + [("best step similarity, n = 2 (floors 0.01-0.2)", r.p_i_mc, r.p_s_mc, r.se_i,
                r.se_s) for r in mc_best.itertuples()]
            + [("one slot" if r.K == 1 else f"slots combined by {r.combine} (K = 2, 4)",
                r.p_i, r.p_s, r.se_i, r.se_s) for r in slots.itertuples()])


# --------------------------------------------------------------------------- figures

def fig_families(sweep, check, deltas=DEFAULT.sweep_deltas):
    """Each family's curve in the (p_I, p_S) plane as its scale sweeps, one panel per floor,
    with the constant kernel's front, the floor bound and the Monte Carlo cells."""
    colour = dict(zip(shapes.FAMILIES, splot.CYCLE))
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.6), sharey=True)
    for ax, dl in zip(axes, deltas):
        bb = np.linspace(0, 1, 301)
        ps_c, pi_c = theory.two_item(bb, dl)
        ax.plot(pi_c, ps_c, color=splot.THEORY, lw=2.4, alpha=0.35,
                label="constant kernel front" if dl == 0 else None)
        if dl > 0:
            qq = np.linspace(0.5, 1 / (1 + dl), 301)
            ax.plot(qq, floor_bound(qq, dl), color=splot.THEORY_ALT, ls="--", lw=1,
                    label="floor bound (Prop.)" if dl == deltas[1] else None)
        for fam in shapes.FAMILIES:
            sel = sweep[(sweep.family == fam) & (sweep.delta == dl)].sort_values("scale")
            ax.plot(sel.p_i, sel.p_s, color=colour[fam], marker=".", ms=3,
                    label=fam if dl == 0 else None)
            pts = check[(check.family == fam) & (check.delta == dl)]
            ax.plot(pts.p_i_mc, pts.p_s_mc, "o", mfc="white", ms=5, color=colour[fam])
        ax.set(xlabel="identification $p_I$", title=rf"floor $\Delta$ = {dl:g}",
               xlim=(0.48, 1.01), ylim=(0.48, 1.01))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, ncol=3)
    return fig


def stairs(levels, masses):
    """An optimum as (distance edges, levels) on the circle, zero-width bands dropped."""
    keep = masses > 0
    return np.r_[0.0, np.cumsum(masses[keep]) / 2], levels[keep]


def fig_frontier(certified, scan, peaks, local2, mc_best, k_max: int,
                 deltas=DEFAULT.deltas):
    """Top: the certified two-item frontier per floor against the constant kernel's front, the
    floor bound, the local optimiser and the engine's estimate at the largest gain. Bottom: the
    optimal similarities g(d) at the lowest and middle target and at the largest gain."""
    fig = plt.figure(figsize=(7.2, 7.2), layout="constrained")
    splot.use_style()
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1])
    axes_f = top.subplots(1, len(deltas), sharey=True)
    for ax, dl in zip(axes_f, deltas):
        ps_c, pi_c = theory.two_item(np.linspace(0, 1, 301), dl)
        first = dl == deltas[0]
        ax.plot(pi_c, ps_c, color=splot.THEORY, lw=2.4, alpha=0.35,
                label="constant kernel" if first else None)
        qq = np.linspace(0.5, 1 / (1 + dl), 301)
        ax.plot(qq, floor_bound(qq, dl), color=splot.THEORY_ALT, ls="--", lw=1,
                label="floor bound" if first else None)
        s = scan[scan.delta == dl]
        ax.plot(s.p_i, s.p_s, "-", lw=1.5, color=splot.CYCLE[0],
                label="best similarity (certified)" if first else None)
        s = local2[local2.delta == dl]
        ax.plot(s.p_i, s.p_s, "o", ms=4, mfc="white", color=splot.CYCLE[1],
                label=f"local optimiser, K = {k_max}" if first else None)
        b_ = mc_best[mc_best.delta == dl]
        ax.errorbar(b_.p_i_mc, b_.p_s_mc, xerr=2 * b_.se_i, yerr=2 * b_.se_s, fmt="*", ms=11,
                    color="black", label="largest gain, Monte Carlo" if first else None)
        ax.set(xlabel="identification $p_I$", title=rf"$n$ = 2, $\Delta$ = {dl:g}",
               ylim=(0.48, 1.0))
    axes_f[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(top, axes_f, ncol=2)
    axes_s = bottom.subplots(1, len(deltas), sharey=True)
    for ax, dl in zip(axes_s, deltas):
        sel = certified[certified.delta == dl].sort_values("p_i")
        picks = [sel.iloc[0], sel.iloc[len(sel) // 2], peaks[peaks.delta == dl].iloc[0]]
        for i, row in enumerate(picks):
            edges, lev = stairs(row["levels"], row["masses"])
            ax.stairs(lev, edges, color=splot.CYCLE[i], lw=1.5, baseline=None,
                      label=rf"$p_I$ = {row['p_i']:.2f}" + ("*" if i == 2 else ""))
        ax.axhline(dl, color=splot.THEORY_ALT, lw=0.8, ls=":")
        ax.set(xlabel="distance $d$", title=rf"optimal $g$, $\Delta$ = {dl:g}",
               xlim=(0, 0.5), yscale="log")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), handlelength=1.2)
    axes_s[0].set_ylabel("similarity $g(d)$ (log)")
    return fig


def fig_ties(ties, rates):
    """Left: the height of each discrete space above the front against its number of points
    (log-log, with the fitted slopes). Right: the spaces in the (p_I, p_S) plane."""
    fig, (ax_g, ax_f) = splot.subplots(1, 2, figsize=(7.2, 3.9))
    for i, (name, g) in enumerate(ties.groupby("space")):
        ax_g.loglog(g.points, g.above_front, "o-", color=splot.CYCLE[i],
                    label=f"{name}: slope {rates[name]:.2f}")
        ax_f.plot(g.p_i, g.p_s, "o", color=splot.CYCLE[i], label=name)
    qq = np.linspace(0.5, 1, 201)
    ax_f.plot(qq, theory.front(qq), color=splot.THEORY, lw=1, label="universal front")
    ax_g.set(xlabel="number of points $N$", ylabel=r"height above the front, $\tau/2$",
             title="ties vanish in the continuum limit")
    ax_f.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
             title=r"discrete spaces, $\varepsilon = 1/4$")
    ax_g.legend(loc="lower left")
    ax_f.legend(loc="lower left")
    return fig


def fig_slots(slots):
    """(p_I, p_S) of the slot codes as the per-slot radius sweeps, for 1, 2 and 4 slots, one
    panel per way of combining the slots, with the universal front."""
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.6), sharey=True)
    qq = np.linspace(0.5, 1, 201)
    for ax, comb in zip(axes, ("max", "product", "mean")):
        ax.plot(qq, theory.front(qq), color=splot.THEORY, lw=2.4, alpha=0.35,
                label="universal front" if comb == "max" else None)
        for i, K in enumerate((1, 2, 4)):
            sel = slots[(slots.K == K) & (slots["combine"] == ("single" if K == 1 else comb))]
            ax.errorbar(sel.p_i, sel.p_s, xerr=2 * sel.se_i, yerr=2 * sel.se_s, fmt="o-", ms=3,
                        lw=1, color=splot.CYCLE[i],
                        label=(f"{K} slot" + "s" * (K > 1)) if comb == "max" else None)
        ax.set(xlabel="identification $p_I$", title=f"combined by {comb}", xlim=(0.48, 1.01))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, ncol=4)
    return fig
