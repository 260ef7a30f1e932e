"""Chapter 7's rules: the thresholds its verdicts use, the decisions they make (does the best
similarity beat the constant kernel, for two items and for n, do ties vanish, does the mean code
leave the front), and the overview rows each section adds. A row is the keyword arguments of
``Report.result`` (a check, true by construction) or of ``Report.grid_result`` (a finding: one
claim over its grid of cells, each with its interval against the claim's practical margin; the
weakest cell decides), whose status :func:`semres.report.status` computes.

Every finding's cells are listed farthest-reaching first (the cell whose interval reaches
farthest towards the wrong side of the margin), so that among equally weak cells the one that
heads the row is the one nearest to failing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from semres.report import Z_MAX, fmt, judge, status

from .families import floor_bound

#: a certified optimum must lie this close to its proven upper bound
CERTIFIED_GAP = 2e-5
#: sums of a few thousand terms in double precision: the rounding a bound is allowed
ROUNDING = 1e-12
#: the shape integrals (Gauss-Legendre, split at the kinks) are exact to about this
QUADRATURE = 1e-10
#: the local optimiser starts from the constant kernel, so its gain is never below minus this
#: (SLSQP's tolerance on the identification constraint)
OPTIMISER_SLACK = 1e-9
#: two SymPy evaluations at 30 significant digits agree to this
SYMPY_DIGITS = 1e-25
#: a plateau at g = 1 must hold at least this share of the items
PLATEAU = 0.01
#: a decay is exponential when the density of log g varies by less than this factor
EXPONENTIAL_WITHIN = 1.1
#: the smallest gain over the constant kernel that counts as beating it
GAIN_MIN = 1e-4
#: the practical margin of a success rate (p_S or p_I) against its reference: half a point
RATE_MARGIN = 0.005
#: ties vanish when the height above the front falls faster than N to this power: the
#: margin of the log-log slope below 0 (no decay)
TIE_MARGIN = 0.25
TIE_RATE = -TIE_MARGIN
#: a 95% interval, in standard errors
Z95 = 1.96
#: an n-item local optimum is stationary when its KKT residual is below this, and its starts
#: agree when their p_S differ by less than this
KKT_TOL = 1e-5
STARTS_AGREE = 1e-7
#: at two items the n-item optimiser must reach the concave program's optimum on the same
#: levels within this (SLSQP's tolerance; measured: at most 5e-12)
TWO_ITEM_MATCH = 1e-7
#: an n-item optimum is certified when branch-and-bound proves that no step similarity on its
#: grid of levels beats it by more than this (the issue's tolerance: a tenth of the smallest
#: gain the chapter reports to three places)
CERTIFY_TOL = 1e-3
#: the optima on half the grid of levels may move by at most this at the targets: the grid's
#: own error stays within what the certificate allows (the certificate holds on the grid only)
GRID_SHIFT_MAX = CERTIFY_TOL


# --------------------------------------------------------------------------- decisions

def beats_constant(peaks, mc_best) -> bool:
    """The best similarity beats the constant kernel at every floor: each largest gain exceeds
    :data:`GAIN_MIN` and the engine puts it more than ``Z_MAX`` standard errors above the
    constant kernel's front."""
    return bool((peaks.gain > GAIN_MIN).all() and (mc_best.excess_z > Z_MAX).all())


def gain_shrinks(peaks) -> bool:
    """The largest gain falls as the floor rises."""
    return bool(np.all(np.diff(peaks.sort_values("delta").gain.to_numpy()) < 0))


def exponential(density_ratio) -> bool:
    """Every optimum's density of log g is uniform within :data:`EXPONENTIAL_WITHIN`."""
    return bool((density_ratio < EXPONENTIAL_WITHIN).all())


def no_plateau(plateau_shares) -> bool:
    """No optimum keeps a plateau at g = 1 of :data:`PLATEAU` of the items or more."""
    return bool((plateau_shares < PLATEAU).all())


def ties_vanish(slopes: dict) -> bool:
    """The height above the front falls faster than N^:data:`TIE_RATE` on every family of
    discrete spaces: ``slopes`` maps a family to its log-log slope, or to the range of its
    slopes between successive sizes (:func:`.ties.tie_slopes`), whose shallowest must."""
    return all(float(np.max(slope)) < TIE_RATE for slope in slopes.values())


def above_front(slots, codes) -> bool:
    """Some point of the slot ``codes`` lies more than ``Z_MAX`` standard errors above the
    universal front."""
    return bool((slots[slots["combine"].isin(list(codes))].above_z > Z_MAX).any())


def against_front(equal_mean, margin: float = None) -> dict:
    """Where the mean code's 95% interval lies against the universal front and ``margin``
    (:data:`RATE_MARGIN` by default), per identification level (``equal_mean``: the mean
    code's rows by p_I): "above" the front by more than the margin, "on" it within the margin
    (both one-sided tests), "below" it by more than the margin, or "unsure" (across the
    margin's edge). Returns each with its levels."""
    margin = RATE_MARGIN if margin is None else margin
    out = {"above": [], "on": [], "below": [], "unsure": []}
    for p in equal_mean.index:
        r = equal_mean.loc[p]
        lo, hi = r.p_s - Z95 * r.se_s, r.p_s + Z95 * r.se_s
        said = judge(lo, hi, float(r.front), margin, "equal")
        out["on" if said == "pass" else "unsure" if said == "unsure"
            else "above" if lo > r.front else "below"].append(p)
    return out


# --------------------------------------------------------------------------- margins

#: why each finding's margin is the smallest deviation that matters (one line each)
MARGIN_REASONS = {
    "families": "half a point of p_S or p_I: about a line's width on the paper's plots of a "
                "success rate, so an engine off the exact rates by less would change none of "
                "its figures or statements",
    "beats": "half a point of p_S: a gain below it is about a line's width on the paper's "
             "plots and would leave Theorem 3's constant kernel as good as the best similarity "
             "for every statement the paper makes",
    "ties": "a quarter power of N: a height falling slower would need 10,000 times more points "
            "to fall tenfold, so ties would not vanish at any size a discrete code can have",
    "slots": "half a point of p_S, a line's width on the paper's plots: the reviewers asked "
             "whether slot codes escape the tradeoff, so only a code above the front by more "
             "than that escapes it, and one on the front within it, above or below, does not "
             "contradict the bound",
}


def reach(cells: list[dict], claim: str) -> list[dict]:
    """``cells`` (grid cells with a ``ci`` and a reference ``compared_with``) ordered
    farthest-reaching first for their ``claim``: for "equal" the interval's farthest end from
    the reference, for "above"/"at least" its lowest end, for "below"/"at most" its highest
    (the stable order keeps the given one among ties)."""
    def key(c):
        lo, hi = c["ci"]
        ref = c.get("compared_with", 0.0)
        if claim == "equal":
            return -max(abs(lo - ref), abs(hi - ref))
        return lo - ref if claim in ("above", "at least") else -(hi - ref)
    return sorted(cells, key=key)


def cell_statuses(grid: dict) -> list[tuple[str, str]]:
    """Each cell of a grid finding (the keyword arguments of ``Report.grid_result``) with the
    status the one rule gives it alone: (label, status), in the grid's order."""
    keys = ("ci", "paper_value", "compared_with", "margin", "claim", "new", "misfit",
            "identified", "does_task")
    common = {k: v for k, v in grid.items() if k in keys}
    return [(c["cell"], status(**{**common, **{k: v for k, v in c.items() if k in keys}}))
            for c in grid["cells"]]


# --------------------------------------------------------------------------- overview rows

def family_result(check, lin_est, lin_paper: float) -> dict:
    """The families' finding (``Report.grid_result``): every Monte Carlo cell of ``check``
    (both tasks) and the engine's linear-kernel peak ``lin_est`` deviate from their exact
    values (the peak is Proposition 1's, ``lin_paper``) by less than :data:`RATE_MARGIN`;
    each cell's deviation (estimate - exact) with its 95% interval against 0."""
    cells = []
    for r in check.itertuples():
        for task, est, exact, se in (("p_S", r.p_s_mc, r.p_s, r.se_s),
                                     ("p_I", r.p_i_mc, r.p_i, r.se_i)):
            dev = float(est - exact)
            cells.append({"cell": f"{r.family}, scale = {r.scale:g}, Delta = {r.delta:g}, "
                          f"{task}", "headline": dev,
                          "ci": (dev - Z95 * se, dev + Z95 * se)})
    dev = float(lin_est.mean - lin_paper)
    cells.append({"cell": f"linear peak, p_S (Proposition 1: {lin_paper:.4f})",
                  "headline": dev, "ci": (dev - Z95 * lin_est.stderr,
                                          dev + Z95 * lin_est.stderr)})
    z = max(check.z.abs().max(), abs(lin_est.zscore(lin_paper)))
    return dict(result="decay shapes on the circle",
                statement="p_S and p_I of constant, linear, exponential and Gaussian similarity "
                "(with and without a floor) by the engine against their exact two-item rates, "
                "and the linear kernel's peak against Proposition 1; headline: the deviation "
                "(engine - exact) of the cell nearest to the margin",
                cells=reach(cells, "equal"), table="families_cells", compared_with=0.0,
                compared_with_label="the exact rate (a deviation of 0)", margin=RATE_MARGIN,
                margin_reason=MARGIN_REASONS["families"], claim="equal", check_max_z=z,
                check_se=float(max(check.se_s.max(), check.se_i.max(), lin_est.stderr)))


def floor_result(floored, scan) -> dict:
    """The floor proposition's row: the smallest margin below its bound of any floored family
    kernel or certified optimum; a check, passed when none breaks the bound beyond rounding."""
    margin = min((floored.bound - floored.p_s).min(),
                 (floor_bound(scan.p_i, scan.delta) - scan.p_s).min())
    return dict(result="a floor forces a tradeoff (new)",
                statement="for delta <= g <= 1 and two items: p_S <= 1/2 + m / (2 (m + 2 "
                "delta)); headline: the smallest margin of any family kernel or certified "
                "optimum below the bound; a check: the bound is proved by the reasoning the "
                "points are computed with", kind="check",
                headline=margin, passed=bool(margin >= -ROUNDING))


def best_check(peaks, mc_best) -> dict:
    """The two-item certificates' check: every certified optimum lies within
    :data:`CERTIFIED_GAP` of its proven bound and the engine reproduces it within ``Z_MAX``."""
    return dict(result="best similarity: certificates and engine, n = 2",
                statement=f"each certified optimum lies within {fmt(CERTIFIED_GAP, 2)} of its "
                "proven upper bound (headline: the largest gap) and the engine reproduces it",
                kind="check", headline=peaks.gap.max(),
                check_max_z=mc_best[["z_s", "z_i"]].abs().max().max(),
                passed=bool(peaks.gap.max() < CERTIFIED_GAP))


def gain_cells(two_peaks, peaks_n) -> list[dict]:
    """One cell per (n, floor) at its largest gain: the gain over Theorem 3's constant kernel
    at the same p_I of the best similarity found (a similarity that reaches it), and as
    interval the gain found up to the most any step similarity can gain there (its proven
    upper bound less the constant kernel), exact: no sampling error. ``two_peaks``: the
    certified two-item largest gains; ``peaks_n``: the n-item ones, with their
    certificates."""
    cells = []
    for r in two_peaks.itertuples():
        constant = r.p_s - r.gain
        cells.append({"cell": f"n = 2, Delta = {r.delta:g}, p_I = {r.p_i:.4f} (certified)",
                      "headline": float(r.gain),
                      "ci": (float(r.gain), float(max(r.gain, r.upper_bound - constant)))})
    for r in peaks_n.itertuples():
        proof = "certified" if r.certified else "not certified"
        cells.append({"cell": f"n = {r.n}, Delta = {r.delta:g}, p_I = {r.p_i:.4f} ({proof})",
                      "headline": float(r.gain),
                      "ci": (float(r.gain),
                             float(max(r.gain, r.upper_bound - r.constant_p_s)))})
    return cells


def beats_result(two_peaks, peaks_n) -> dict:
    """The finding over every (n, floor) (``Report.grid_result``): at its largest gain the best
    similarity beats Theorem 3's constant kernel by more than :data:`RATE_MARGIN`
    (:func:`gain_cells`); the weakest cell decides."""
    ns = sorted({2, *map(int, peaks_n.n)})
    return dict(result="best similarity beats the constant kernel (new)",
                statement="at its largest gain, for n = " + ", ".join(map(str, ns))
                + " items and each floor, the best step similarity found lies above Theorem "
                "3's constant kernel at the same p_I; headline: the gain of the weakest cell; "
                "interval: the gain found (a similarity reaches it) up to the most any step "
                "similarity on the grid can gain there (proven: certificate, corollary or "
                "branch-and-bound), exact, with no sampling error",
                cells=reach(gain_cells(two_peaks, peaks_n), "above"), table="beats_cells",
                compared_with=0.0,
                compared_with_label="no gain: Theorem 3's constant kernel at the same p_I",
                margin=RATE_MARGIN, margin_reason=MARGIN_REASONS["beats"], claim="above",
                new=True)


def beats_pairs(two_peaks, peaks_n) -> list[tuple]:
    """Each (n, floor) cell of :func:`beats_result` with the status the one rule gives it
    alone: (n, floor, status), two items first, in the order of the tables."""
    grid = beats_result(two_peaks, peaks_n)
    cells = gain_cells(two_peaks, peaks_n)   # the tables' order, not the grid's
    pairs = [(2, float(r.delta)) for r in two_peaks.itertuples()] + \
        [(int(r.n), float(r.delta)) for r in peaks_n.itertuples()]
    return [(n, d, s) for (n, d), (_, s) in zip(pairs, cell_statuses({**grid, "cells": cells}))]


def ties_result(ties, rates: dict, slopes: dict, tie_mc) -> dict:
    """The ties' finding (``Report.grid_result``), one cell per family of discrete spaces: the
    height above the front falls with the number of points N as a power steeper than
    N^-:data:`TIE_MARGIN`. Headline: the log-log slope over all sizes (``rates``); interval:
    the range of the slopes between successive sizes (``slopes``), exact (enumeration). The
    engine's largest |z| on ``tie_mc`` is recorded."""
    cells = []
    for name, g in ties.sort_values("points").groupby("space"):
        lo, hi = slopes[name]
        cells.append({"cell": f"{name}, N = {int(g.points.iloc[0])} to "
                      f"{int(g.points.iloc[-1])}", "headline": float(rates[name]),
                      "ci": (float(lo), float(hi))})
    return dict(result="ties vanish in the continuum limit (new)",
                statement="the height tau/2 of a discrete space above the universal front "
                "(exact; 0 in the continuum) falls as a power of its number of points N, on "
                "the cycle and the torus; headline: the log-log slope over all sizes of the "
                "weakest family; interval: the slopes between successive sizes (exact "
                "enumeration: no sampling error)",
                cells=reach(cells, "below"), table="ties_cells", compared_with=0.0,
                compared_with_label="no decay (slope 0)", margin=TIE_MARGIN,
                margin_reason=MARGIN_REASONS["ties"], claim="below", new=True,
                check_max_z=float(tie_mc.z.abs().max()) if len(tie_mc) else None)


def slot_check(best_slot, z1, equal) -> dict:
    """The pilot's check: the codes obey their proved bounds (0/1 codes not above the front,
    the mean code not above its sorted values, one slot on Theorem 1)."""
    return dict(result="slots, K = 4: the codes obey their proved bounds",
                statement="0/1 codes (max, product) are not significantly above the universal "
                "front, the mean code not above its own values ordered by distance; one slot "
                "is Theorem 1 (headline: the max and product codes' largest height above the "
                "front)", kind="check", check_max_z=np.abs(z1).max(),
                headline=max(best_slot.loc[(4, c)].above for c in ("max", "product")),
                passed=bool(max(best_slot.loc[(4, c)].above_z for c in ("max", "product"))
                            <= Z_MAX and (equal.bound_z < Z_MAX).all()))


def slot_bound_result(equal) -> dict:
    """The mean code's finding (``Report.grid_result``), one cell per identification level:
    its p_S stays at or below the universal front at the same p_I, within
    :data:`RATE_MARGIN` (claim "at most"): a point on the front within the margin is no
    escape and no contradiction; an escape is a cell whose 95% interval lies wholly above the
    front by more than the margin, and its miss is its height above the front."""
    mean = equal[equal["combine"] == "mean"]
    cells = [{"cell": f"p_I = {r.p_i:g}", "headline": float(r.p_s),
              "ci": (float(r.p_s - Z95 * r.se_s), float(r.p_s + Z95 * r.se_s)),
              "compared_with": float(r.front)} for r in mean.itertuples()]
    return dict(result="slots, K = 4: the front bounds the graded mean code (new)",
                statement="reviewers asked whether slot codes escape the tradeoff; the 0/1 "
                "codes cannot (the check), so the graded mean code is tested: at equal "
                "identification its p_S stays at or below the universal front within the "
                "margin (headline: its p_S at the weakest level; where this does not hold the "
                "code escapes, and the miss is its height above the front)",
                cells=reach(cells, "at most"), table="slots_cells",
                compared_with_label="the universal front at the same p_I", margin=RATE_MARGIN,
                margin_reason=MARGIN_REASONS["slots"], claim="at most", new=True)


def floor_n_rows(front, peaks, mc, search, two_item_short, grid_shift: float) -> list[dict]:
    """The n-item floor section's three checks: the proposition (no optimum of ``front`` or
    ``peaks`` and no random similarity of ``search`` above its proven bound, none above the
    ceiling), the optimiser with the engine (stationary optima within :data:`KKT_TOL`, starts
    agreeing within :data:`STARTS_AGREE`, the two-item optimum reached within
    :data:`TWO_ITEM_MATCH`, the optima on half the levels within :data:`GRID_SHIFT_MAX`
    (``grid_shift``, :func:`.floor_n.grid_shift`), the engine within ``Z_MAX``) and the
    branch-and-bound (no bound below a similarity found, every certified point within
    :data:`CERTIFY_TOL`). Whether the best similarity beats the constant kernel is one finding
    over every (n, floor), two items included (:func:`beats_result`)."""
    everything = pd.concat([front, peaks])
    margin = min((everything.proposition_bound - everything.p_s).min(), search.margin.min())
    shortfall = float(np.abs(np.asarray(two_item_short)).max())
    tried = everything[everything.nodes > 0]
    done = tried[tried.certified]
    return [
        dict(result="a floor forces a tradeoff for any number of items (new)",
             statement="for delta <= g <= 1 and n items: p_I^n <= 1/(1 + (n-1) delta) and "
             "p_S^n <= (delta + m)/(n delta + m) (and its sharper dual form); headline: the "
             f"smallest margin below the bound of {len(everything)} optima and "
             f"{len(search):,} random similarities, monotone or not; a check: the bound is "
             "proved, and the points test the code",
             kind="check", headline=margin,
             passed=bool(margin >= -ROUNDING and (search.over_ceiling <= ROUNDING).all())),
        dict(result="best similarity, n items: optimiser and engine",
             statement="every start reaches the same p_S, each optimum is a KKT point, the "
             "optimiser reaches the concave program's optimum at n = 2, half the levels move "
             f"the optima at the targets by {fmt(grid_shift, 2)} (at most "
             f"{fmt(GRID_SHIFT_MAX, 2)}), and the engine reproduces the largest gains "
             "(headline: the largest KKT residual)",
             kind="check", headline=everything.kkt.max(),
             check_max_z=mc[["z_s", "z_i"]].abs().max().max(),
             passed=bool(everything.kkt.max() < KKT_TOL
                         and everything.spread.max() < STARTS_AGREE
                         and shortfall < TWO_ITEM_MATCH and grid_shift <= GRID_SHIFT_MAX)),
        dict(result="best similarity, n items: branch-and-bound certificates",
             statement=f"at {len(tried)} points the branch-and-bound bounds every step "
             f"similarity on the grid of levels; {len(done)} are certified (no similarity beats "
             f"the best one found by more than {fmt(CERTIFY_TOL, 2)}), the others keep their "
             "proven gap; no bound lies below a similarity found (headline: the largest gap of "
             "a certified point)", kind="check",
             headline=done.gap.max() if len(done) else math.nan,
             passed=bool((tried.bb_bound >= tried.p_s - ROUNDING).all()
                         and (done.gap <= CERTIFY_TOL + ROUNDING).all()))]
