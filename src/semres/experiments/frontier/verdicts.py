"""Chapter 7's rules: the thresholds its verdicts use, the decisions they make (does the best
similarity beat the constant kernel, for two items and for n, do ties vanish, does the mean code
leave the front), and the overview rows each section adds. A row is the keyword arguments of ``Report.result``, whose
status :func:`semres.report.status` computes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from semres.report import Z_MAX, fmt, z_check_detectable

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
#: ties vanish when the height above the front falls faster than N to this power
TIE_RATE = -0.25
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


def ties_vanish(rates: dict) -> bool:
    """The height above the front falls faster than N^:data:`TIE_RATE` on every family of
    discrete spaces."""
    return all(rate < TIE_RATE for rate in rates.values())


def above_front(slots, codes) -> bool:
    """Some point of the slot ``codes`` lies more than ``Z_MAX`` standard errors above the
    universal front."""
    return bool((slots[slots["combine"].isin(list(codes))].above_z > Z_MAX).any())


def clear_of_front(equal_mean) -> tuple[list, list]:
    """The identification levels at which the mean code's 95% interval lies above the front,
    and those at which it lies below (``equal_mean``: the mean code's rows by p_I)."""
    levels = list(equal_mean.index)
    return ([p for p in levels if equal_mean.above_z[p] > Z95],
            [p for p in levels if equal_mean.above_z[p] < -Z95])


# --------------------------------------------------------------------------- overview rows

def family_result(lin_est, lin_paper: float, check) -> dict:
    """The families row: every Monte Carlo cell and the engine's linear-kernel peak against
    their exact values (the peak is Proposition 1's, a number of the paper)."""
    return dict(result="decay shapes on the circle",
                statement="p_S, p_I of constant, linear, exponential and Gaussian similarity "
                "(with and without a floor); headline: the linear kernel's peak p_S "
                "(Proposition 1)", paper_value=lin_paper, headline=lin_est.mean,
                ci=lin_est.ci(),
                check_max_z=max(check.z.abs().max(), abs(lin_est.zscore(lin_paper))))


def floor_result(floored, scan) -> dict:
    """The floor proposition's row: the smallest margin below its bound of any floored family
    kernel or certified optimum; it holds when none breaks the bound beyond rounding."""
    margin = min((floored.bound - floored.p_s).min(),
                 (floor_bound(scan.p_i, scan.delta) - scan.p_s).min())
    return dict(result="a floor forces a tradeoff (new)",
                statement="for delta <= g <= 1 and two items: p_S <= 1/2 + m / (2 (m + 2 "
                "delta)); headline: the smallest margin of any family kernel or certified "
                "optimum below the bound; a check: the bound is proved by the reasoning the "
                "points are computed with", kind="check",
                headline=margin, passed=bool(margin >= -ROUNDING))


def best_results(peaks, mc_best) -> list[dict]:
    """One row per floor: the certified best similarity beats the constant kernel when its
    gain is positive and the engine puts it more than ``Z_MAX`` standard errors above the
    front; and one check that every certificate is tight and the engine reproduces it."""
    rows = [dict(result=f"best similarity beats the constant kernel, n = 2, delta = "
                 f"{r.delta:g} (new)",
                 statement=f"at p_I = {r.p_i:.4f} (the largest gain in a scan) the certified "
                 "best similarity exceeds the constant kernel's front by the headline (at most "
                 f"{r.upper_bound - r.p_s + r.gain:.4f}), {m.excess_z:.0f} SE in the engine",
                 headline=r.gain, passed=bool(r.gain > 0 and m.excess_z > Z_MAX), new=True,
                 detectable=z_check_detectable(m.se_s))
            for r, m in zip(peaks.itertuples(), mc_best.itertuples())]
    rows.append(dict(result="best similarity: certificates and engine, n = 2",
                     statement=f"each certified optimum lies within {fmt(CERTIFIED_GAP, 2)} of "
                     "its proven upper bound (headline: the largest gap) and the engine "
                     "reproduces it",
                     kind="check", headline=peaks.gap.max(),
                     check_max_z=mc_best[["z_s", "z_i"]].abs().max().max(),
                     passed=bool(peaks.gap.max() < CERTIFIED_GAP)))
    return rows


def tie_results(ties, rates: dict, tie_mc) -> list[dict]:
    """One row per family of discrete spaces, at its finest space: the height above the front
    vanishes when it falls faster than N^TIE_RATE."""
    return [dict(result=f"ties on the {r.space}, N = {r.points} (new)",
                 statement="height tau/2 of a discrete space above the universal front (exact; "
                 "0 in the continuum) vanishes as the space refines: it falls as "
                 f"N^{rates[r.space]:.2f}", new=True, headline=r.above_front,
                 passed=rates[r.space] < TIE_RATE,
                 check_max_z=tie_mc[tie_mc.space == r.space].z.abs().max(),
                 check_se=tie_mc[tie_mc.space == r.space].stderr.max())
            for _, r in ties.sort_values("points").groupby("space").tail(1).iterrows()]


def slot_results(best_slot, z1, equal) -> list[dict]:
    """The pilot's rows: a check that the codes obey their proved bounds (0/1 codes not above
    the front, the mean code not above its sorted values, one slot on Theorem 1), and per
    identification level whether the mean code's 95% interval lies above the front."""
    rows = [dict(result="slots, K = 4: the codes obey their proved bounds",
                 statement="0/1 codes (max, product) are not significantly above the universal "
                 "front, the mean code not above its own values ordered by distance; one slot "
                 "is Theorem 1 (headline: the max and product codes' largest height above the "
                 "front)", kind="check", check_max_z=np.abs(z1).max(),
                 headline=max(best_slot.loc[(4, c)].above for c in ("max", "product")),
                 passed=bool(max(best_slot.loc[(4, c)].above_z for c in ("max", "product"))
                             <= Z_MAX and (equal.bound_z < Z_MAX).all()))]
    for r in equal[equal["combine"] == "mean"].itertuples():
        rows.append(dict(result=f"slots, K = 4, mean code at p_I = {r.p_i:g} (new)",
                         statement="the graded mean code beats the universal front at equal "
                         "identification", new=True, headline=r.p_s,
                         ci=(r.p_s - Z95 * r.se_s, r.p_s + Z95 * r.se_s),
                         compared_with=r.front,
                         compared_with_label="the universal front there", direction="above"))
    return rows


def floor_n_rows(front, peaks, mc, search, two_item_short, grid_shift: float) -> list[dict]:
    """The n-item floor section's rows. Three checks: the proposition (no optimum of ``front``
    or ``peaks`` and no random similarity of ``search`` above its proven bound, none above the
    ceiling), the optimiser with the engine (stationary optima within :data:`KKT_TOL`, starts
    agreeing within :data:`STARTS_AGREE`, the two-item optimum reached within
    :data:`TWO_ITEM_MATCH`, the optima on half the levels within :data:`GRID_SHIFT_MAX`
    (``grid_shift``, :func:`.floor_n.grid_shift`), the engine within ``Z_MAX``) and the
    branch-and-bound (no bound below a similarity found, every certified point within
    :data:`CERTIFY_TOL`). Then one finding per (n, floor): the engine's 95% interval for the
    best similarity's p_S at its largest gain lies above Theorem 3's constant kernel at the same
    p_I, and the gain exceeds :data:`GAIN_MIN`; its statement says whether the point is
    certified."""
    everything = pd.concat([front, peaks])
    margin = min((everything.proposition_bound - everything.p_s).min(), search.margin.min())
    shortfall = float(np.abs(np.asarray(two_item_short)).max())
    tried = everything[everything.nodes > 0]
    done = tried[tried.certified]
    rows = [
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
    for r, m in zip(peaks.itertuples(), mc.itertuples()):
        proof = (f"certified: no step similarity on its grid beats it by more than {r.gap:.4f}"
                 if r.certified else "not certified: the proven bound allows at most "
                 f"{r.upper_bound - r.constant_p_s:.3f} above the constant kernel")
        rows.append(dict(
            result=f"best similarity beats the constant kernel, n = {r.n}, delta = "
            f"{r.delta:g} (new)",
            statement=f"at p_I = {r.p_i:.4f} (its largest gain) the best step similarity found "
            f"has p_S = {r.p_s:.4f}, {r.gain:.4f} above Theorem 3's constant kernel; {proof}; "
            "headline: the engine's p_S",
            headline=m.p_s_mc, ci=(m.p_s_mc - Z95 * m.se_s, m.p_s_mc + Z95 * m.se_s),
            compared_with=r.constant_p_s,
            compared_with_label="Theorem 3's constant kernel at the same p_I",
            direction="above", passed=bool(r.gain > GAIN_MIN), new=True))
    return rows
