"""Chapter 7's page for the floor with n items: the section's rows, ``frontier.csv``, the numbers
and sentences its prose quotes (each sentence glued with the numbers it quotes) and its figure.
The chapter calls :func:`floor_n_section` once."""

from __future__ import annotations

import numpy as np
import pandas as pd

from semres.core import theory
from semres.report import GOOD
from semres.report import plotting as splot

from . import branch, floor_n, verdicts
from .settings import DEFAULT

#: frontier.csv's columns, the two-item rows' and the n-item rows' alike
COLUMNS = ["n", "delta", "method", "point", "K", "p_i", "p_s", "upper_bound", "step_front_p_s",
           "gap", "kkt", "spread", "certified", "proposition_bound", "bb_bound", "nodes", "rank"]


def floor_n_section(report, cfg, two_items, two_peaks, front, peaks, mc, search, scale,
                    two_item_short, two_item_scan, grid_shift: float) -> list[tuple]:
    """The n-item floor section: its three checks (:func:`.verdicts.floor_n_rows`), the one
    finding that the best similarity beats the constant kernel at every (n, floor), two items
    (``two_peaks``, the certified two-item largest gains) included
    (:func:`.verdicts.beats_result`), ``frontier.csv``
    (the two-item rows ``two_items`` of :func:`.page.best` and the n-item rows, certified or
    bracketed), what the prose quotes and the figure. ``front`` and ``peaks`` carry their
    certificates (:func:`.branch.certify_table`); ``scale``: :func:`.floor_n.scaling`;
    ``two_item_short``: how far the n-item optimiser falls below the concave program at two
    items; ``two_item_scan``: the certified two-item scan, drawn as the best similarity at
    n = 2; ``grid_shift``: how far the optima move on half the levels
    (:func:`.floor_n.grid_shift`). Returns each (n, floor) cell of the finding with its status
    (:func:`.verdicts.beats_pairs`), for the box's lead."""
    for row in verdicts.floor_n_rows(front, peaks, mc, search, two_item_short, grid_shift):
        report.result(**row)
    report.grid_result(**verdicts.beats_result(two_peaks, peaks))
    pairs = verdicts.beats_pairs(two_peaks, peaks)
    report.table(frontier_csv(two_items, front, peaks), "frontier")
    report.numbers(floor_n_glue(cfg, front, peaks, mc, search, scale, two_item_short, grid_shift),
                   small=("fn_spread_max", "fn_kkt_max", "fn_two_item_max", "fn_grid_shift"))
    for name, (sentence, cites) in {"fn_beats": beats_sentence(pairs),
                                    "fn_cert_text": certified_sentence(peaks)}.items():
        report.text(name, sentence, markdown=True, cites=cites)
    report.figure("floor_n", fig_floor_n(front, peaks, mc, two_item_scan, cfg.deltas,
                                         (2, *cfg.floor_ns)))
    return pairs


def frontier_rows(front, peaks) -> pd.DataFrame:
    """frontier.csv's n-item rows: each best step similarity found (``point`` "target" or
    "largest gain", ``K`` its grid of levels), Theorem 3's constant kernel there, the proven
    upper bound (the smaller of the corollary's and the branch-and-bound's, where it ran), its
    ``gap``, whether the point is ``certified``, the KKT residual and the spread over starts."""
    rows = pd.concat([front.assign(point="target"), peaks.assign(point="largest gain")])
    method = np.where(rows.certified, "certified by branch-and-bound (n items)",
                      "best found, bracketed (n items)")
    return rows.assign(method=method, K=rows.grid, step_front_p_s=rows.constant_p_s)[COLUMNS]


def frontier_csv(two_items, front, peaks) -> pd.DataFrame:
    """frontier.csv: the two-item rows (certified, and the local optimiser's) with their gap
    to the bound, then the n-item rows; ``certified`` is True only for the optima whose
    certificate proves them best (within its gap)."""
    two = two_items.assign(gap=two_items.upper_bound - two_items.p_s, kkt=np.nan,
                           spread=np.nan, certified=two_items["method"] == "certified",
                           proposition_bound=np.nan, bb_bound=np.nan, nodes=0, rank=0)
    return pd.concat([two[COLUMNS], frontier_rows(front, peaks)], ignore_index=True)


def floor_n_glue(cfg, front, peaks, mc, search, scale, two_item_short, grid_shift) -> dict:
    """What the n-item section quotes: the optimiser's grid, starts and evidence (spread over
    starts, KKT residuals, the two-item match, the shift on half the levels), the certificates
    (points tried and certified, the budget and the tolerance), the largest gain per n and the
    floor it falls at, the engine's largest |z|, the random search, and the constant kernel's
    best as a share of the ceiling at the middle floor."""
    both = pd.concat([front, peaks])
    tried = both[both.nodes > 0]
    done = tried[tried.certified]
    at = scale[np.isclose(scale.delta, cfg.deltas[len(cfg.deltas) // 2])].set_index("n")
    big = int(at.index.max())
    out = {"fn_grid": cfg.floor_grid, "fn_half_grid": cfg.floor_grid // 2,
           "fn_grid_shift": float(grid_shift),
           "fn_starts": cfg.floor_starts, "fn_random": len(search),
           "fn_spread_max": both.spread.max(), "fn_kkt_max": both.kkt.max(),
           "fn_two_item_max": float(np.abs(np.asarray(two_item_short)).max()),
           "fn_tried": len(tried), "fn_certified": len(done),
           "fn_nodes": cfg.floor_nodes * len(cfg.floor_ranks),   # a budget at each rank
           "fn_certify": cfg.floor_certify, "fn_tol": verdicts.CERTIFY_TOL,
           "fn_cutoff": branch.OBBT_SHARE * verdicts.CERTIFY_TOL,
           "fn_mc_maxz": mc[["z_s", "z_i"]].abs().max().max(),
           "fn_excess_max": search.excess_ratio.max(), "fn_n_big": big,
           "fn_scale_delta": float(at.delta.iloc[0]),
           "fn_const_share_big": at.constant_over_ceiling[big]}
    for n in cfg.floor_ns:
        top = peaks[peaks.n == n].sort_values("gain").iloc[-1]
        out.update({f"fn_gain_{n}": top.gain, f"fn_gain_delta_{n}": top.delta})
        if n in at.index:
            out[f"fn_const_share_{n}"] = at.constant_over_ceiling[n]
    return out


#: why a cell of the finding that the best similarity beats the constant kernel did not hold
WHY_NOT = {"does not hold": "the most any similarity gains stays below that margin (the "
                            "constant kernel is as good within it)",
           "inconclusive": "the gain found stays below the margin but the proven bound allows "
                           "more, so this build cannot tell"}


def _pair(n, delta) -> str:
    return f"n = {n}, Δ = {delta:g}"


def beats_sentence(pairs) -> tuple[str, dict]:
    """Where the best similarity beats the constant kernel by more than the margin
    (``pairs``: (n, floor, status) per cell of the one finding, :func:`.verdicts.beats_pairs`):
    at every (n, floor), or at how many and what the others are; with the numbers it
    quotes."""
    others = [(n, d, s) for n, d, s in pairs if s not in GOOD]
    cites = {"pairs": len(pairs), "held": len(pairs) - len(others),
             "margin": verdicts.RATE_MARGIN}
    cites.update({f"{k}_{i}": v for i, (n, d, _) in enumerate(others)
                  for k, v in (("n", n), ("delta", d))})
    lead = f"by more than {verdicts.RATE_MARGIN:g} "
    if not others:
        return lead + f"at all {len(pairs)} pairs of n and Δ", cites
    groups = []
    for said in dict.fromkeys(s for *_, s in others):  # each status once, in order
        where = " or ".join(_pair(n, d) for n, d, s in others if s == said)
        groups.append(f"not at {where}, where {WHY_NOT.get(said, 'the cell is ' + said)}")
    return (lead + f"at {len(pairs) - len(others)} of the {len(pairs)} pairs of n and Δ ("
            + "; ".join(groups) + ")"), cites


def certified_sentence(peaks) -> tuple[str, dict]:
    """Which largest gains branch-and-bound certifies, and how far above the others their
    proven bound lies; with the numbers it quotes."""
    done = peaks[peaks.certified]
    open_ = peaks[~peaks.certified]
    cites = {f"{k}_{i}": v for i, r in enumerate(peaks.itertuples())
             for k, v in (("n", r.n), ("delta", r.delta), ("gap", r.gap))}
    cites.update(certified=len(done), pairs=len(peaks), tol=verdicts.CERTIFY_TOL)
    said = ("Branch-and-bound certifies the largest gain at "
            + "; ".join(_pair(r.n, r.delta) for r in done.itertuples())
            + f" (no step similarity on the grid beats it by more than {verdicts.CERTIFY_TOL:g})"
            if len(done) else "Branch-and-bound certifies none of the largest gains")
    if not len(open_):
        return said + f": all {len(peaks)} pairs", cites
    cites.update(gap_min=open_.gap.min(), gap_max=open_.gap.max())
    return (said + "; at the others (" + "; ".join(_pair(r.n, r.delta)
                                                   for r in open_.itertuples())
            + f") its proven bound lies {open_.gap.min():.3f} to {open_.gap.max():.3f} above the "
            "best similarity found, so how much more a similarity could gain there is bounded, "
            "not pinned down"), cites


def fig_floor_n(front, peaks, mc, two_item_scan, deltas=DEFAULT.deltas, ns=(2, 4, 8)):
    """One panel per number of items: Theorem 3's constant kernel, the best step similarity
    (certified at two items; beyond, filled where branch-and-bound certifies it and with a bar up
    to the proven bound where it does not) and the proposition's bound, per floor, with the
    ceiling marked and the engine's estimate at the largest gain."""
    fig, axes = splot.subplots(1, len(ns), figsize=(7.2, 3.6))
    for ax, n in zip(axes, ns):
        for i, dl in enumerate(deltas):
            colour = splot.CYCLE[i]
            ps_c, pi_c = theory.n_item(np.linspace(0, 1, 301), n, dl)
            ax.plot(pi_c, ps_c, color=colour, lw=2.4, alpha=0.3)
            if n == 2:
                best_ = two_item_scan[two_item_scan.delta == dl].sort_values("p_i")
                ax.plot(best_.p_i, best_.p_s, "-", lw=1.2, color=colour)
            else:
                best_ = pd.concat([front[(front.n == n) & (front.delta == dl)],
                                   peaks[(peaks.n == n) & (peaks.delta == dl)]])
                best_ = best_.sort_values("p_i")
                ax.plot(best_.p_i, best_.p_s, "-", marker=".", ms=3, lw=1.2, color=colour)
                sure = best_[best_.certified]
                ax.plot(sure.p_i, sure.p_s, "o", ms=4.5, color=colour)
                loose = best_[(best_.nodes > 0) & ~best_.certified]
                ax.vlines(loose.p_i, loose.p_s, loose.upper_bound, color=colour, lw=1)
            top = floor_n.ceiling(n, dl)
            qq = np.linspace(1 / n, top, 120)
            ax.plot(qq, floor_n.upper_bound(qq, n, dl), "--", lw=1, color=colour)
            ax.plot([top, top], [1 / n - 0.02, 1 / n + 0.02], color=colour, lw=1)
            est = mc[(mc.n == n) & (mc.delta == dl)]
            ax.errorbar(est.p_i_mc, est.p_s_mc, xerr=2 * est.se_i, yerr=2 * est.se_s,
                        fmt="*", ms=9, color=colour)
        ax.axhline(1 / n, color=splot.THEORY_ALT, lw=0.6, ls=":")
        ax.set(xlabel=f"identification $p_I^{{{n}}}$", title=f"$n$ = {n} items")
    axes[0].set_ylabel("generalization $p_S^n$")
    for i, dl in enumerate(deltas):  # the key: colour is the floor, style the curve
        axes[0].plot([], [], color=splot.CYCLE[i], lw=2, label=rf"$\Delta$ = {dl:g}")
    for style, label in ((dict(lw=2.4, alpha=0.3), "constant kernel (Theorem 3)"),
                         (dict(lw=1.2), "best similarity"),
                         (dict(marker="o", ls="", ms=4.5), "certified (branch-and-bound)"),
                         (dict(marker="|", ls="", ms=9), "proven bound, not certified"),
                         (dict(lw=1, ls="--"), "the corollary's bound"),
                         (dict(marker="*", ls="", ms=9), "engine, largest gain")):
        axes[0].plot([], [], color="0.4", label=label, **style)
    splot.legend_outside(fig, ncol=3)
    return fig
