"""Chapter 4's decisions: the paper's claims about α judged as one family (Bonferroni), each
effect's practical margin, how an effect reads against it, and the chapter's result rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import t as student

from semres.report import ALPHA, fmt, status

from .alpha_effects import effect_row

#: the paper's claims from the baseline α to the largest α with the cross-entropy on, judged
#: as one family: (column of the effects, measure, what the paper says the loss does)
CLAIMS = (("sim_accuracy", "triplet accuracy", "raises generalization"),
          ("p_s_matched", "p_S at matched p_I",
           "raises generalization at matched identification"),
          ("id_auc", "identification AUC", "lowers identification"))
#: the theorem's closed form and the engine's exact sum agree when no cell differs by more
EXACT_GAP = 1e-9
#: the result rows' names and statements, and the reasons of the margins
THEOREM = "Theorem 4 (paper Thm. 1 with ties): two items on a finite space"
THEOREM_STATEMENT = (
    "p_S = 1/2 + <b> - <b>^2 - Var(b) + <tau>/2 and p_I = 1 - <b>/2 on the species of a "
    "simulated tree: proved in SymPy above, so its closed form must equal the exact sum over "
    "every triple of species (to {gap}) and the Monte Carlo estimates must lie near it")
RESULT = "ResNet: {measure} change, α {lo:g} → {hi:g}"
STATEMENT = "raising α (cross-entropy still on) {claim}"
TESTED = (" (Welch t, {n_from:.0f} and {n_to:.0f} seeds sharing one data set; interval for a "
          "family of {claims} claims, Bonferroni)")
STAND_IN = "a simulated tree and rendered images, not CUB-200-2011"
SPREAD_REASON = (
    "the spread between seeds ({sd:.3f}, standard deviation pooled over the two α values): "
    "retraining with another seed moves the {measure} this much, so a rise smaller than that "
    "is not one a reader could use")
TRADE_REASON = (
    "half the rise of the triplet accuracy on the same runs ({gain:.3f}): both are ranking "
    "probabilities with chance at 1/2, and the paper's claim is a trade, identification paying "
    "for the generalization gained, so a fall of less than half the gain lies nearer no trade "
    "than an even one")
#: which interval the page shows of an effect (the ``interval`` column of ``effects.csv``)
FAMILY = "family of {claims} claims (Bonferroni)"
ALONE = "95%, alone"


def family_ci(row, claims: int, alpha: float = ALPHA) -> tuple[float, float]:
    """A Welch interval of ``row`` (effect, se, df) at level 1 - alpha / claims (Bonferroni),
    so that a family of ``claims`` read together keeps its chance of any false claim below
    ``alpha``."""
    if claims < 1:
        raise ValueError(f"claims must be >= 1; got {claims!r}")
    half = float(student.ppf(1 - alpha / (2 * claims), row.df)) * row.se
    return row.effect - half, row.effect + half


def claim_direction(column: str) -> str:
    """The paper says raising α lowers identification and raises generalization."""
    return "below" if column == "id_auc" else "above"


def seed_spread(row) -> float:
    """The standard deviation between seeds behind an effect: its Welch standard error over
    sqrt(1/n_from + 1/n_to)."""
    return float(row.se / np.sqrt(1 / row.seeds_from + 1 / row.seeds_to))


def detectable_change(row) -> float:
    """The change an effect's Welch interval detects four times in five (80 % power at a
    two-sided 5 %)."""
    return float((student.ppf(0.975, row.df) + student.ppf(0.8, row.df)) * row.se)


def claim_margins(effects: pd.DataFrame, alpha_to) -> dict:
    """Each claim measured with more than one seed at ``alpha_to`` -> (margin, reason): the
    spread between seeds for a rise of generalization; for the fall of identification half the
    triplet accuracy's rise on the same runs, where that rise exceeds the AUC's spread (the
    paper's claim is a trade)."""
    rows = {col: effect_row(effects, col, alpha_to) for col, _, _ in CLAIMS}
    rows = {col: r for col, r in rows.items() if r is not None and np.isfinite(r.se)}
    gain = rows["sim_accuracy"].effect if "sim_accuracy" in rows else np.nan
    out = {}
    for col, measure, _ in CLAIMS:
        if (r := rows.get(col)) is None:
            continue
        sd = seed_spread(r)
        if col == "id_auc" and np.isfinite(gain) and gain > sd:
            out[col] = gain / 2, TRADE_REASON.format(gain=gain)
        else:
            out[col] = sd, SPREAD_REASON.format(sd=sd, measure=measure)
    return out


def claim_status(effects: pd.DataFrame, column: str, alpha_to) -> str:
    """A claim's status: its family interval against no change, beyond its margin on the side
    the paper says; "not run" without one or with one seed."""
    margins = claim_margins(effects, alpha_to)
    if column not in margins:
        return "not run"
    return status(ci=family_ci(effect_row(effects, column, alpha_to), len(CLAIMS)),
                  compared_with=0.0, margin=margins[column][0],
                  claim=claim_direction(column))


def traded(effects, alpha_to) -> bool:
    """The paper's claim at ``alpha_to``: the triplet accuracy up and the identification AUC
    down, each beyond its margin for the family's interval."""
    return all(claim_status(effects, col, alpha_to) == "reproduced"
               for col in ("sim_accuracy", "id_auc"))


def shown_intervals(effects: pd.DataFrame, alpha_ce) -> pd.DataFrame:
    """``effects`` with the one interval the page gives each effect (``interval_low``,
    ``interval_high``, ``interval``): the family's for the claims at ``alpha_ce``, as the result
    rows judge them, the 95 % interval read alone for the others; and each one's ``margin``
    (the claim's, else the spread between seeds)."""
    out = effects.copy()
    claimed = {col for col, _, _ in CLAIMS}
    fam = [family_ci(r, len(CLAIMS)) if r.column in claimed and r.alpha_to == alpha_ce
           and np.isfinite(r.se) else None for r in out.itertuples()]
    out["interval_low"] = [f[0] if f else r.ci_low for f, r in zip(fam, out.itertuples())]
    out["interval_high"] = [f[1] if f else r.ci_high for f, r in zip(fam, out.itertuples())]
    out["interval"] = [FAMILY.format(claims=len(CLAIMS)) if f else ALONE for f in fam]
    margins = {a: claim_margins(effects, a) for a in out.alpha_to.unique()}
    out["margin"] = [margins[r.alpha_to][r.column][0] if r.column in margins[r.alpha_to]
                     else seed_spread(r) if np.isfinite(r.se) else np.nan
                     for r in out.itertuples()]
    return out


def reading(row) -> str:
    """How a row of :func:`shown_intervals` reads against its margin (two one-sided tests):
    "rises" or "falls" beyond it, "within" it, "unclear" (the interval reaches across its
    edge), or "one seed" (no interval)."""
    if not np.isfinite(row.se):
        return "one seed"
    low, high, m = row.interval_low, row.interval_high, row.margin
    if low > m or high < -m:
        return "rises" if low > m else "falls"
    return "within" if -m <= low and high <= m else "unclear"


def trade(effects: pd.DataFrame, alpha_ce, alpha_one, replicates: int) -> str:
    """What the build says of α: "one seed" (no conclusion), "cross-entropy on" (the trade
    with the classifier still trained), "alpha one" (only with the cross-entropy off) or
    "none"."""
    if replicates < 2:
        return "one seed"
    if alpha_ce is not None and traded(effects, alpha_ce):
        return "cross-entropy on"
    return "alpha one" if alpha_one is not None and traded(effects, alpha_one) else "none"


def record(report, check, check_gap: float, effects, alpha_lo: float,
           alpha_ce: float | None, real: bool) -> None:
    """The result rows: the theorem on a finite space (a check), then each claim from
    ``alpha_lo`` to ``alpha_ce`` with its family interval against its margin (not run with no
    α to compare or a single seed)."""
    report.result(THEOREM, THEOREM_STATEMENT.format(gap=fmt(EXACT_GAP)), kind="check",
                  check_max_z=float(check[["z_s", "z_i"]].abs().max().max()),
                  check_se=float(check[["se_s", "se_i"]].max().max()),
                  passed=check_gap < EXACT_GAP)
    stand_in = "" if real else STAND_IN
    for col, measure, claim in CLAIMS:
        result = RESULT.format(measure=measure, lo=alpha_lo,
                               hi=alpha_ce if alpha_ce is not None else float("nan"))
        statement = STATEMENT.format(claim=claim)
        r = effect_row(effects, col, alpha_ce) if alpha_ce is not None else None
        if r is None or not np.isfinite(r.se):  # nothing to compare, or one seed
            report.not_run(result, statement, headline=None if r is None else r.effect,
                           stand_in=stand_in)
            continue
        margin, reason = claim_margins(effects, alpha_ce)[col]
        tested = TESTED.format(n_from=r.seeds_from, n_to=r.seeds_to, claims=len(CLAIMS))
        report.result(result, statement + tested, headline=r.effect,
                      ci=family_ci(r, len(CLAIMS), ALPHA), compared_with=0.0,
                      compared_with_label="no change", margin=margin, margin_reason=reason,
                      claim=claim_direction(col), stand_in=stand_in)
