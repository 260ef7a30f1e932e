"""Chapter 7's decisions: its thresholds, the yes/no readings its sentences follow, and its
overview rows (keyword arguments of ``Report.result``, or of ``Report.grid_result`` for a
finding over a grid of cells, the weakest of which decides)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from semres.report import Z_MAX, fmt, judge, slack, status

from .families import floor_bound
from .floor_n import ROUNDING

#: a certified optimum must lie this close to its proven upper bound
CERTIFIED_GAP = 2e-5
#: the shape integrals (Gauss-Legendre, split at the kinks) are exact to about this
QUADRATURE = 1e-10
#: the local optimiser starts from the constant kernel: its gain is never below minus this
OPTIMISER_SLACK = 1e-9
#: two SymPy evaluations at 30 significant digits agree to this
SYMPY_DIGITS = 1e-25
#: a plateau at g = 1 must hold at least this share of the items
PLATEAU = 0.01
#: a decay is exponential when the density of log g varies by less than this factor
EXPONENTIAL_WITHIN = 1.1
#: the smallest gain over the constant kernel that counts as beating it
GAIN_MIN = 1e-4
#: the practical margin of a success rate against its reference: half a point
RATE_MARGIN = 0.005
#: ties vanish when the height above the front falls faster than N^-TIE_MARGIN
TIE_MARGIN = 0.25
#: a 95% interval, in standard errors
Z95 = 1.96
#: an n-item optimum is stationary below this KKT residual; its starts agree within this
KKT_TOL = 1e-5
STARTS_AGREE = 1e-7
#: at two items the n-item optimiser reaches the concave program within this (SLSQP's tolerance)
TWO_ITEM_MATCH = 1e-7
#: an n-item optimum is certified when no step similarity on its grid beats it by more than
#: this (a tenth of the smallest gain the chapter reports to three places)
CERTIFY_TOL = 1e-3
#: the optima on half the grid of levels may move by at most this (the certificate's tolerance)
GRID_SHIFT_MAX = CERTIFY_TOL

#: each finding: its name, statement, reference and why its margin is the one that matters
FINDINGS = {
    "families": dict(
        result="decay shapes on the circle",
        statement="p_S and p_I of constant, linear, exponential and Gaussian similarity (with "
        "and without a floor) by the engine against their exact two-item rates, and the linear "
        "kernel's peak against Proposition 1; headline: the deviation (engine - exact) of the "
        "cell nearest to the margin",
        compared_with_label="the exact rate (a deviation of 0)",
        margin_reason="half a point of p_S or p_I: about a line's width on the paper's plots "
        "of a success rate, so an engine off the exact rates by less would change none of its "
        "figures or statements"),
    "beats": dict(
        result="best similarity beats the constant kernel (new)",
        statement="at its largest gain, for n = {ns} items and each floor, the best step "
        "similarity found lies above Theorem 3's constant kernel at the same p_I; headline: the "
        "gain of the weakest cell; interval: the gain found (a similarity reaches it) up to the "
        "most any step similarity on the grid can gain there (proven: certificate, corollary "
        "or branch-and-bound), exact, with no sampling error",
        compared_with_label="no gain: Theorem 3's constant kernel at the same p_I",
        margin_reason="half a point of p_S: a gain below it is about a line's width on the "
        "paper's plots and would leave Theorem 3's constant kernel as good as the best "
        "similarity for every statement the paper makes"),
    "ties": dict(
        result="ties vanish in the continuum limit (new)",
        statement="the height tau/2 of a discrete space above the universal front (exact; 0 in "
        "the continuum) falls as a power of its number of points N, on the cycle and the "
        "torus; headline: the log-log slope over all sizes of the weakest family; interval: the "
        "slopes between successive sizes (exact enumeration: no sampling error)",
        compared_with_label="no decay (slope 0)",
        margin_reason="a quarter power of N: a height falling slower would need 10,000 times "
        "more points to fall tenfold, so ties would not vanish at any size a discrete code can "
        "have"),
    "slots": dict(
        result="slots, K = 4: the front bounds the graded mean code (new)",
        statement="reviewers asked whether slot codes escape the tradeoff; the 0/1 codes cannot "
        "(the check), so the graded mean code is tested: at equal identification its p_S stays "
        "at or below the universal front within the margin (headline: its p_S at the weakest "
        "level; where this does not hold the code escapes, and the miss is its height above the "
        "front)",
        compared_with_label="the universal front at the same p_I",
        margin_reason="half a point of p_S, a line's width on the paper's plots: the reviewers "
        "asked whether slot codes escape the tradeoff, so only a code above the front by more "
        "than that escapes it, and one on the front within it, above or below, does not "
        "contradict the bound"),
}

#: each check: its name and statement
CHECKS = {
    "floor": ("a floor forces a tradeoff (new)",
              "for delta <= g <= 1 and two items: p_S <= 1/2 + m / (2 (m + 2 delta)); headline: "
              "the smallest margin of any family kernel or certified optimum below the bound; a "
              "check: the bound is proved by the reasoning the points are computed with"),
    "best": ("best similarity: certificates and engine, n = 2",
             "each certified optimum lies within {gap} of its proven upper bound (headline: the "
             "largest gap) and the engine reproduces it"),
    "slots": ("slots, K = 4: the codes obey their proved bounds",
              "0/1 codes (max, product) are not significantly above the universal front, the "
              "mean code not above its own values ordered by distance; one slot is Theorem 1 "
              "(headline: the max and product codes' largest height above the front)"),
    "floor_n": ("a floor forces a tradeoff for any number of items (new)",
                "for delta <= g <= 1 and n items: p_I^n <= 1/(1 + (n-1) delta) and p_S^n <= "
                "(delta + m)/(n delta + m) (and its sharper dual form); headline: the smallest "
                "margin below the bound of {optima} optima and {random:,} random similarities, "
                "monotone or not; a check: the bound is proved, and the points test the code"),
    "optimiser": ("best similarity, n items: optimiser and engine",
                  "every start reaches the same p_S, each optimum is a KKT point, the optimiser "
                  "reaches the concave program's optimum at n = 2, half the levels move the "
                  "optima at the targets by {shift} (at most {most}), and the engine reproduces "
                  "the largest gains (headline: the largest KKT residual)"),
    "branch": ("best similarity, n items: branch-and-bound certificates",
               "at {tried} points the branch-and-bound bounds every step similarity on the grid "
               "of levels; {done} are certified (no similarity beats the best one found by more "
               "than {tol}), the others keep their proven gap; no bound lies below a similarity "
               "found (headline: the largest gap of a certified point)"),
}


def _check(name: str, **numbers) -> dict:
    result, statement = CHECKS[name]
    return dict(result=result, statement=statement.format(**numbers), kind="check")


def _finding(name: str, cells: list, claim: str, margin: float, **common) -> dict:
    """A finding over ``cells``: its words from :data:`FINDINGS`, saved as ``<name>_cells``
    nearest-to-failing first (``grid_result`` picks the weakest but keeps the given order)."""
    def room(c):
        return slack(*c["ci"], c.get("compared_with", common.get("compared_with")), margin, claim)
    return dict(FINDINGS[name], cells=sorted(cells, key=room), table=f"{name}_cells",
                claim=claim, margin=margin, **common)


def _cell(label: str, headline: float, lo: float, hi: float, **more) -> dict:
    return {"cell": label, "headline": float(headline), "ci": (float(lo), float(hi)), **more}


# --------------------------------------------------------------------------- yes/no readings

def beats_constant(peaks, mc_best) -> bool:
    """Each largest gain exceeds GAIN_MIN and the engine puts it Z_MAX standard errors above."""
    return bool((peaks.gain > GAIN_MIN).all() and (mc_best.excess_z > Z_MAX).all())


def gain_shrinks(peaks) -> bool:
    """The largest gain falls as the floor rises."""
    return bool(np.all(np.diff(peaks.sort_values("delta").gain.to_numpy()) < 0))


def exponential(density_ratio) -> bool:
    """Every optimum's density of log g is uniform within EXPONENTIAL_WITHIN."""
    return bool((density_ratio < EXPONENTIAL_WITHIN).all())


def no_plateau(plateau_shares) -> bool:
    """No optimum keeps a plateau at g = 1 of PLATEAU of the items or more."""
    return bool((plateau_shares < PLATEAU).all())


def ties_vanish(slopes: dict) -> bool:
    """Every family's (shallowest) log-log slope lies below -TIE_MARGIN."""
    return all(float(np.max(slope)) < -TIE_MARGIN for slope in slopes.values())


def above_front(slots, codes) -> bool:
    """Some point of the slot ``codes`` lies more than Z_MAX standard errors above the front."""
    return bool((slots[slots["combine"].isin(list(codes))].above_z > Z_MAX).any())


def against_front(equal_mean, margin: float = RATE_MARGIN) -> dict:
    """The mean code's levels (rows by p_I) by where their 95% interval lies against the front
    and ``margin``: "above" or "below" it by more, "on" it within, or "unsure"."""
    out = {"above": [], "on": [], "below": [], "unsure": []}
    for p in equal_mean.index:
        r = equal_mean.loc[p]
        lo, hi = r.p_s - Z95 * r.se_s, r.p_s + Z95 * r.se_s
        said = judge(lo, hi, float(r.front), margin, "equal")
        out["on" if said == "pass" else "unsure" if said == "unsure"
            else "above" if lo > r.front else "below"].append(p)
    return out


# --------------------------------------------------------------------------- findings

def family_result(check, lin_est, lin_paper: float) -> dict:
    """Every Monte Carlo cell (both tasks) and the linear kernel's peak deviate from their
    exact values by less than RATE_MARGIN (95% intervals of the deviation against 0)."""
    cells = [_cell(f"{r.family}, scale = {r.scale:g}, Delta = {r.delta:g}, {task}",
                   est - exact, est - exact - Z95 * se, est - exact + Z95 * se)
             for r in check.itertuples()
             for task, est, exact, se in (("p_S", r.p_s_mc, r.p_s, r.se_s),
                                          ("p_I", r.p_i_mc, r.p_i, r.se_i))]
    dev, se = lin_est.mean - lin_paper, lin_est.stderr
    cells.append(_cell(f"linear peak, p_S (Proposition 1: {lin_paper:.4f})", dev,
                       dev - Z95 * se, dev + Z95 * se))
    return _finding("families", cells, "equal", RATE_MARGIN, compared_with=0.0,
                    check_max_z=max(check.z.abs().max(), abs(lin_est.zscore(lin_paper))),
                    check_se=float(max(check.se_s.max(), check.se_i.max(), se)))


def gain_cells(two_peaks, peaks_n) -> list[dict]:
    """Per (n, floor) at its largest gain: the gain over Theorem 3 found, up to the most any
    step similarity can gain there (its proven bound less the constant kernel); exact."""
    two = [_cell(f"n = 2, Delta = {r.delta:g}, p_I = {r.p_i:.4f} (certified)", r.gain,
                 r.gain, max(r.gain, r.upper_bound - (r.p_s - r.gain)))
           for r in two_peaks.itertuples()]
    return two + [_cell(f"n = {r.n}, Delta = {r.delta:g}, p_I = {r.p_i:.4f} "
                        f"({'certified' if r.certified else 'not certified'})", r.gain,
                        r.gain, max(r.gain, r.upper_bound - r.constant_p_s))
                  for r in peaks_n.itertuples()]


def beats_result(two_peaks, peaks_n) -> dict:
    """At its largest gain the best similarity beats Theorem 3 by more than RATE_MARGIN, at
    every (n, floor) (:func:`gain_cells`)."""
    grid = _finding("beats", gain_cells(two_peaks, peaks_n), "above", RATE_MARGIN,
                    compared_with=0.0, new=True)
    ns = ", ".join(map(str, sorted({2, *map(int, peaks_n.n)})))
    return {**grid, "statement": grid["statement"].format(ns=ns)}


def beats_pairs(two_peaks, peaks_n) -> list[tuple]:
    """Each (n, floor, status) cell of :func:`beats_result`, two items first, with the status
    the one rule gives it alone."""
    pairs = [(2, float(r.delta)) for r in two_peaks.itertuples()] + \
        [(int(r.n), float(r.delta)) for r in peaks_n.itertuples()]
    return [(n, d, status(ci=c["ci"], compared_with=0.0, margin=RATE_MARGIN, claim="above",
                          new=True))
            for (n, d), c in zip(pairs, gain_cells(two_peaks, peaks_n))]


def ties_result(ties, rates: dict, slopes: dict, tie_mc) -> dict:
    """Per family of discrete spaces the height above the front falls faster than
    N^-TIE_MARGIN: headline the slope over all sizes, interval those between sizes."""
    cells = [_cell(f"{name}, N = {int(g.points.iloc[0])} to {int(g.points.iloc[-1])}",
                   rates[name], *slopes[name])
             for name, g in ties.sort_values("points").groupby("space")]
    return _finding("ties", cells, "below", TIE_MARGIN, compared_with=0.0, new=True,
                    check_max_z=float(tie_mc.z.abs().max()) if len(tie_mc) else None)


def slot_bound_result(equal) -> dict:
    """Per identification level the mean code's p_S stays at or below the front within
    RATE_MARGIN; an escape is a cell wholly above it by more."""
    cells = [_cell(f"p_I = {r.p_i:g}", r.p_s, r.p_s - Z95 * r.se_s, r.p_s + Z95 * r.se_s,
                   compared_with=float(r.front))
             for r in equal[equal["combine"] == "mean"].itertuples()]
    return _finding("slots", cells, "at most", RATE_MARGIN, new=True)


# --------------------------------------------------------------------------- checks

def floor_result(floored, scan) -> dict:
    """No floored family kernel nor certified optimum above the floor bound."""
    margin = min((floored.bound - floored.p_s).min(),
                 (floor_bound(scan.p_i, scan.delta) - scan.p_s).min())
    return {**_check("floor"), "headline": margin, "passed": bool(margin >= -ROUNDING)}


def best_check(peaks, mc_best) -> dict:
    """Each certified optimum within CERTIFIED_GAP of its bound, the engine within Z_MAX."""
    return {**_check("best", gap=fmt(CERTIFIED_GAP, 2)), "headline": peaks.gap.max(),
            "check_max_z": mc_best[["z_s", "z_i"]].abs().max().max(),
            "passed": bool(peaks.gap.max() < CERTIFIED_GAP)}


def slot_check(best_slot, z1, equal) -> dict:
    """0/1 codes not above the front, the mean code not above its sorted values."""
    zero_one = [best_slot.loc[(4, c)] for c in ("max", "product")]
    return {**_check("slots"), "check_max_z": np.abs(z1).max(),
            "headline": max(r.above for r in zero_one),
            "passed": bool(max(r.above_z for r in zero_one) <= Z_MAX
                           and (equal.bound_z < Z_MAX).all())}


def floor_n_rows(front, peaks, mc, search, two_item_short, grid_shift: float) -> list[dict]:
    """The n-item checks: the proposition's bound and ceiling, the optimiser with the engine,
    and the branch-and-bound (no bound below a similarity found)."""
    everything = pd.concat([front, peaks])
    margin = min((everything.proposition_bound - everything.p_s).min(), search.margin.min())
    shortfall = float(np.abs(np.asarray(two_item_short)).max())
    tried = everything[everything.nodes > 0]
    done = tried[tried.certified]
    return [
        {**_check("floor_n", optima=len(everything), random=len(search)), "headline": margin,
         "passed": bool(margin >= -ROUNDING and (search.over_ceiling <= ROUNDING).all())},
        {**_check("optimiser", shift=fmt(grid_shift, 2), most=fmt(GRID_SHIFT_MAX, 2)),
         "headline": everything.kkt.max(), "check_max_z": mc[["z_s", "z_i"]].abs().max().max(),
         "passed": bool(everything.kkt.max() < KKT_TOL and everything.spread.max() < STARTS_AGREE
                        and shortfall < TWO_ITEM_MATCH and grid_shift <= GRID_SHIFT_MAX)},
        {**_check("branch", tried=len(tried), done=len(done), tol=fmt(CERTIFY_TOL, 2)),
         "headline": done.gap.max() if len(done) else math.nan,
         "passed": bool((tried.bb_bound >= tried.p_s - ROUNDING).all()
                        and (done.gap <= CERTIFY_TOL + ROUNDING).all())}]
