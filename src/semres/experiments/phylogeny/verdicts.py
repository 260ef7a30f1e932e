"""Chapter 4's rules: when raising α traded identification for generalization, how a family
of claims widens each interval, and the chapter's result rows through
:func:`semres.report.status` (``Report.result``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import t as student

from semres.report import ALPHA, fmt, status

from .alpha_effects import effect_row

#: the paper's claims tested from the baseline α to the largest α with the cross-entropy on,
#: (column of the effects, measure, claim), judged as one family
CLAIMS = (("sim_accuracy", "triplet accuracy", "raises generalization"),
          ("p_s_matched", "p_S at matched p_I",
           "raises generalization at matched identification"),
          ("id_auc", "identification AUC", "lowers identification"))
#: the theorem's closed form and the engine's exact sum agree when no cell differs by more
EXACT_GAP = 1e-9


def family_ci(row, claims: int, alpha: float = ALPHA) -> tuple[float, float]:
    """A Welch interval of ``row`` (effect, se, df) widened for a family of ``claims`` tested
    together: level 1 - alpha / claims (Bonferroni), so that the family's chance of any false
    claim stays below ``alpha``. With three seeds a side the 95 % interval of one claim is not
    enough: three such claims read together overstate what was found."""
    if claims < 1:
        raise ValueError(f"claims must be >= 1; got {claims!r}")
    half = float(student.ppf(1 - alpha / (2 * claims), row.df)) * row.se
    return row.effect - half, row.effect + half


def claim_direction(column: str) -> str:
    """The claim kind of a claimed measure: the paper says raising α lowers identification
    ("below") and raises generalization ("above")."""
    return "below" if column == "id_auc" else "above"


def seed_spread(row) -> float:
    """The standard deviation between seeds behind an effect ``row``: its Welch standard
    error over sqrt(1/n_from + 1/n_to) (the root mean square of the two α values' standard
    deviations when they have as many seeds)."""
    return float(row.se / np.sqrt(1 / row.seeds_from + 1 / row.seeds_to))


def claim_margin(row, measure: str) -> tuple[float, str]:
    """(margin, its reason) of a claimed rise of generalization: the spread between seeds
    of the measure (:func:`seed_spread`)."""
    sd = seed_spread(row)
    return sd, (f"the spread between seeds ({sd:.3f}, standard deviation pooled over the two "
                f"α values): retraining with another seed moves the {measure} this much, so "
                "a rise smaller than that is not one a reader could use")


def trade_margin(gain: float, row) -> tuple[float, str]:
    """(margin, its reason) of the claimed fall of identification: half the rise of the
    triplet accuracy ``gain`` measured on the same runs, where there is one beyond the seeds'
    spread; else the spread itself (:func:`claim_margin`)."""
    if not (np.isfinite(gain) and gain > seed_spread(row)):
        return claim_margin(row, "identification AUC")
    return gain / 2, (
        f"half the rise of the triplet accuracy on the same runs ({gain:.3f}): both are "
        "ranking probabilities with chance at 1/2, and the paper's claim is a trade, "
        "identification paying for the generalization gained, so a fall of less than half "
        "the gain lies nearer no trade than an even one")


def claim_margins(effects: pd.DataFrame, alpha_to) -> dict:
    """Each claim of :data:`CLAIMS` at ``alpha_to`` -> (margin, reason), for the claims
    measured with more than one seed: :func:`claim_margin` for the rises of generalization,
    :func:`trade_margin` for the fall of identification."""
    rows = {col: effect_row(effects, col, alpha_to) for col, _, _ in CLAIMS}
    rows = {col: r for col, r in rows.items() if r is not None and np.isfinite(r.se)}
    gain = rows["sim_accuracy"].effect if "sim_accuracy" in rows else np.nan
    return {col: trade_margin(gain, r) if col == "id_auc" else claim_margin(r, measure)
            for col, measure, _ in CLAIMS if (r := rows.get(col)) is not None}


def claim_status(effects: pd.DataFrame, column: str, alpha_to) -> str:
    """The status of the claimed effect ``column`` at ``alpha_to``: its interval for the family
    of :data:`CLAIMS` against no change, beyond its margin (:func:`claim_margins`) on the side
    the paper says (:func:`semres.report.status`); "not run" without one, or with one seed."""
    margins = claim_margins(effects, alpha_to)
    if column not in margins:
        return "not run"
    return status(ci=family_ci(effect_row(effects, column, alpha_to), len(CLAIMS)),
                  compared_with=0.0, margin=margins[column][0],
                  claim=claim_direction(column))


def shown_intervals(effects: pd.DataFrame, alpha_ce) -> pd.DataFrame:
    """``effects`` with the interval the page shows of each effect (``interval_low``,
    ``interval_high``, ``interval``): the family's interval (:func:`family_ci`, as the result
    box judges it) for the claims of :data:`CLAIMS` at ``alpha_ce``, the 95 % interval read
    alone for every other (exploratory) effect, so that one effect has one interval on the
    page; and each effect's practical ``margin`` (:func:`claim_margins` for a claim, the
    seeds' spread for the others)."""
    out = effects.copy()
    claimed = {col for col, _, _ in CLAIMS}
    fam = [family_ci(r, len(CLAIMS)) if r.column in claimed and r.alpha_to == alpha_ce
           and np.isfinite(r.se) else None for r in out.itertuples()]
    out["interval_low"] = [f[0] if f else r.ci_low for f, r in zip(fam, out.itertuples())]
    out["interval_high"] = [f[1] if f else r.ci_high for f, r in zip(fam, out.itertuples())]
    out["interval"] = [f"family of {len(CLAIMS)} claims (Bonferroni)" if f else "95%, alone"
                       for f in fam]
    margins = {a: claim_margins(effects, a) for a in out.alpha_to.unique()}
    out["margin"] = [margins[r.alpha_to][r.column][0] if r.column in margins[r.alpha_to]
                     else seed_spread(r) if np.isfinite(r.se) else np.nan
                     for r in out.itertuples()]
    return out


def traded(effects, alpha_to) -> bool:
    """The paper's claim at ``alpha_to``: generalization (triplet accuracy) up and
    identification (AUC) down, each beyond its margin for the family's interval
    (:func:`claim_status` passes both)."""
    return all(claim_status(effects, col, alpha_to) == "reproduced"
               for col in ("sim_accuracy", "id_auc"))


def record(report, check, check_gap: float, effects, alpha_lo: float,
           alpha_ce: float | None, real: bool) -> None:
    """The chapter's result rows: the theorem on a finite space (a check: proved in SymPy,
    equal to the exact sum over every triple, and the Monte Carlo within its z-bound), then
    each of :data:`CLAIMS` from ``alpha_lo`` to ``alpha_ce`` with its interval for the family
    against the seeds' spread (not run where there is no α to compare or a single seed)."""
    report.result("Theorem 4 (paper Thm. 1 with ties): two items on a finite space",
                  "p_S = 1/2 + <b> - <b>^2 - Var(b) + <tau>/2 and p_I = 1 - <b>/2 on the "
                  "species of a simulated tree: proved in SymPy above, so its closed form must "
                  "equal the exact sum over every triple of species (to "
                  f"{fmt(EXACT_GAP)}) and the Monte Carlo estimates must lie near it", kind="check",
                  check_max_z=float(check[["z_s", "z_i"]].abs().max().max()),
                  check_se=float(check[["se_s", "se_i"]].max().max()),
                  passed=check_gap < EXACT_GAP)
    stand_in = "" if real else "a simulated tree and rendered images, not CUB-200-2011"
    for col, measure, claim in CLAIMS:
        result = (f"ResNet: {measure} change, α {alpha_lo:g} → "
                  f"{alpha_ce if alpha_ce is not None else float('nan'):g}")
        statement = f"raising α (cross-entropy still on) {claim}"
        r = effect_row(effects, col, alpha_ce) if alpha_ce is not None else None
        if r is None or not np.isfinite(r.se):  # no α to compare, or one seed: nothing to test
            report.not_run(result, statement, headline=None if r is None else r.effect,
                           stand_in=stand_in)
        else:
            margin, reason = claim_margins(effects, alpha_ce)[col]
            report.result(result, statement + f" (Welch t, {r.seeds_from:.0f} and "
                          f"{r.seeds_to:.0f} seeds sharing one data set; interval for a family "
                          f"of {len(CLAIMS)} claims, Bonferroni)", headline=r.effect,
                          ci=family_ci(r, len(CLAIMS), ALPHA), compared_with=0.0,
                          compared_with_label="no change", margin=margin,
                          margin_reason=reason, claim=claim_direction(col), stand_in=stand_in)
