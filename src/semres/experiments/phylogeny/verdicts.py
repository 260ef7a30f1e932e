"""Chapter 4's decisions: the paper's claims about α judged as one family (Bonferroni), each
effect's practical margin, how it reads against it, and the interval the page shows."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import t as student

from semres.report import ALPHA, judge, measured, status

from .alpha_effects import effect_row

#: the paper's claims from the baseline α to the largest α with the cross-entropy on, judged
#: as one family: (column of the effects, measure, what the paper says the loss does)
CLAIMS = (("sim_accuracy", "triplet accuracy", "raises generalization"),
          ("p_s_matched", "p_S at matched p_I",
           "raises generalization at matched identification"),
          ("id_auc", "identification AUC", "lowers identification"))
#: the theorem's closed form and the engine's exact sum agree when no cell differs by more
EXACT_GAP = 1e-9
#: which interval the page shows of an effect (the ``interval`` column of ``effects.csv``)
FAMILY = "family of {claims} claims (Bonferroni)"
ALONE = "95%, alone"


def family_ci(row, claims: int, alpha: float = ALPHA) -> tuple[float, float]:
    """A Welch interval of ``row`` (effect, se, df) at level 1 - alpha / claims (Bonferroni):
    a family of ``claims`` read together keeps its chance of any false claim below ``alpha``."""
    if claims < 1:
        raise ValueError(f"claims must be >= 1; got {claims!r}")
    half = float(student.ppf(1 - alpha / (2 * claims), row.df)) * row.se
    return row.effect - half, row.effect + half


def claim_direction(column: str) -> str:
    """The paper says raising α lowers identification and raises generalization."""
    return "below" if column == "id_auc" else "above"


def seed_spread(row) -> float:
    """The standard deviation between seeds behind an effect."""
    return float(row.se / np.sqrt(1 / row.seeds_from + 1 / row.seeds_to))


def detectable_change(row) -> float:
    """The change an effect's Welch interval detects four times in five (80 % power at a
    two-sided 5 %)."""
    return float((student.ppf(0.975, row.df) + student.ppf(0.8, row.df)) * row.se)


def claim_margins(effects: pd.DataFrame, alpha_to) -> dict:
    """Each claim measured with more than one seed at ``alpha_to`` -> (margin, by trade): the
    spread between seeds for a rise of generalization; for the fall of identification half the
    triplet accuracy's rise on the same runs, where that rise exceeds the AUC's spread (the
    paper's claim is a trade, identification paying for the generalization gained, so a fall
    of less than half the gain lies nearer no trade than an even one)."""
    rows = {col: effect_row(effects, col, alpha_to) for col, _, _ in CLAIMS}
    rows = {col: r for col, r in rows.items() if r is not None and np.isfinite(r.se)}
    gain = rows["sim_accuracy"].effect if "sim_accuracy" in rows else np.nan
    out = {}
    for col, r in rows.items():
        by_trade = col == "id_auc" and np.isfinite(gain) and gain > seed_spread(r)
        out[col] = (gain / 2 if by_trade else seed_spread(r)), by_trade
    return out


def claim_status(effects: pd.DataFrame, column: str, alpha_to) -> str:
    """A claim's status: its family interval against no change, beyond its margin on the side
    the paper says ("not run" without one or with one seed)."""
    margins = claim_margins(effects, alpha_to)
    if column not in margins:
        return "not run"
    return status(ci=family_ci(effect_row(effects, column, alpha_to), len(CLAIMS)),
                  compared_with=0.0, margin=margins[column][0],
                  claim=claim_direction(column))


def traded(effects, alpha_to) -> bool:
    """The paper's claim at ``alpha_to``: the triplet accuracy up and the identification AUC
    down, each beyond its margin."""
    return all(claim_status(effects, col, alpha_to) == "reproduced"
               for col in ("sim_accuracy", "id_auc"))


def shown_intervals(effects: pd.DataFrame, alpha_ce) -> pd.DataFrame:
    """``effects`` with the one interval the page gives each (the family's for the claims at
    ``alpha_ce``, else the 95 % interval read alone) and its ``margin`` (the claim's, else the
    spread between seeds)."""
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
    "rises" or "falls" beyond it, "within" it, "unclear" (across its edge), or "one seed"."""
    if not np.isfinite(row.se):
        return "one seed"
    verdict = judge(row.interval_low, row.interval_high, 0.0, row.margin)
    if verdict == "fail":
        return "rises" if row.interval_low > 0 else "falls"
    return "within" if verdict == "pass" else "unclear"


def trade(effects: pd.DataFrame, alpha_ce, alpha_one, replicates: int) -> str:
    """What the build says of α: "one seed", "cross-entropy on" (the trade with the classifier
    still trained), "alpha one" (only with the cross-entropy off) or "none"."""
    if replicates < 2:
        return "one seed"
    if alpha_ce is not None and traded(effects, alpha_ce):
        return "cross-entropy on"
    return "alpha one" if alpha_one is not None and traded(effects, alpha_one) else "none"


def matched_band(curve: pd.DataFrame | None, effects: pd.DataFrame, alpha_ce):
    """The matched effect across its matching points with the family's interval, and the
    headline's (p_I, effect, low, high) on it; (None, None) without a matched comparison."""
    if curve is None or not len(curve):
        return None, None
    band = [family_ci(r, len(CLAIMS)) for r in curve.itertuples()]
    matched = curve.assign(family_low=[lo for lo, _ in band], family_high=[hi for _, hi in band])
    r = effect_row(effects, "p_s_matched", alpha_ce)
    if r is None:
        return matched, None
    low, high = family_ci(r, len(CLAIMS)) if np.isfinite(r.se) else (np.nan, np.nan)
    return matched, (r.p_i, r.effect, low, high)


def said(row) -> str:
    """An effect of :func:`shown_intervals` as the page writes it: ``estimate [low, high]``."""
    return measured({"headline": row.effect, "ci_low": row.interval_low,
                     "ci_high": row.interval_high, "margin": row.margin})


def effects_table(shown: pd.DataFrame, alpha_lo: float) -> pd.DataFrame:
    """One row per measure, one column per compared α: each change as :func:`said` writes it,
    a dagger on a claim (its family's interval), a star beyond its practical margin."""
    cells = [said(r) + (" †" if r.interval != ALONE else "")
             + (" *" if reading(r) in ("rises", "falls") else "") for r in shown.itertuples()]
    table = shown.assign(cell=cells).pivot_table(index="measure", columns="alpha_to",
                                                 values="cell", aggfunc="first", sort=False)
    table.columns = [f"Change from α = {alpha_lo:g} to {a:g}" for a in table.columns]
    return table.reset_index()
