"""Chapter 4's rules: when raising α traded identification for generalization, how a family
of claims widens each interval, and the chapter's result rows through
:func:`semres.report.status` (``Report.result``)."""

from __future__ import annotations

import numpy as np
from scipy.stats import t as student

from semres.report import ALPHA

from .alpha_effects import effect_row

#: the paper's claims tested from the baseline α to the largest α with the cross-entropy on,
#: (column of the effects, measure, claim), judged as one family
CLAIMS = (("sim_accuracy", "triplet accuracy", "raises generalization"),
          ("p_s_matched", "p_S at matched p_I",
           "raises generalization at matched identification"),
          ("id_auc", "identification AUC", "lowers identification"))
#: the theorem's closed form and the engine's exact sum agree when no cell differs by more
EXACT_GAP = 1e-9


def traded(effects, alpha_to) -> bool:
    """The paper's claim at ``alpha_to``: generalization (triplet accuracy) up and
    identification (AUC) down, both detected."""
    g, i = effect_row(effects, "sim_accuracy", alpha_to), effect_row(effects, "id_auc", alpha_to)
    return (g is not None and i is not None and bool(g.detected) and bool(i.detected)
            and g.effect > 0 and i.effect < 0)


def family_ci(row, claims: int, alpha: float = ALPHA) -> tuple[float, float]:
    """A Welch interval of ``row`` (effect, se, df) widened for a family of ``claims`` tested
    together: level 1 - alpha / claims (Bonferroni), so that the family's chance of any false
    claim stays below ``alpha``. With three seeds a side the 95 % interval of one claim is not
    enough: three such claims read together overstate what was found."""
    if claims < 1:
        raise ValueError(f"claims must be >= 1; got {claims!r}")
    half = float(student.ppf(1 - alpha / (2 * claims), row.df)) * row.se
    return row.effect - half, row.effect + half


def record(report, check, check_gap: float, effects, alpha_lo: float,
           alpha_ce: float | None, real: bool) -> None:
    """The chapter's result rows: the theorem on a finite space (a Monte Carlo check and the
    exact sum), then each of :data:`CLAIMS` from ``alpha_lo`` to ``alpha_ce`` with its
    interval for the family (not run where there is no α to compare or a single seed)."""
    report.result("Theorem 4 (paper Thm. 1 with ties): two items on a finite space",
                  "p_S = 1/2 + <b> - <b>^2 - Var(b) + <tau>/2 and p_I = 1 - <b>/2 on the "
                  "species of a simulated tree (exact sum and Monte Carlo)", new=True,
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
            report.result(result, statement + f" (Welch t, {r.seeds_from:.0f} and "
                          f"{r.seeds_to:.0f} seeds sharing one data set; interval for a family "
                          f"of {len(CLAIMS)} claims, Bonferroni)", headline=r.effect,
                          ci=family_ci(r, len(CLAIMS), ALPHA), compared_with=0.0,
                          compared_with_label="no change",
                          direction="below" if col == "id_auc" else "above", stand_in=stand_in)
