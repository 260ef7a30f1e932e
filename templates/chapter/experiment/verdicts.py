"""The rules that turn the chapter's numbers into statuses (through ``semres.report.status``):
each finding's interval against its practical margin."""

from __future__ import annotations

#: Z for a two-sided 95 % interval
Z95 = 1.959964
#: the smallest error in a success rate that would matter to Theorem 1: below what a line on
#: the paper's figures resolves
MARGIN = 0.005


def theorem_row(mc) -> dict:
    """Theorem 1's row: the Monte Carlo cell whose 95 % interval reaches farthest from its
    closed form, against 0 within :data:`MARGIN`."""
    gap = mc["mc"] - mc["theory"]
    worst = (gap.abs() + Z95 * mc["stderr"]).idxmax()
    d, se = float(gap[worst]), float(mc["stderr"][worst])
    return dict(result="Theorem 1 (paper Thm. 1) on the circle",
                statement="p_S = 1/2 + b - b^2 and p_I = 1 - b/2 (Monte Carlo, the farthest "
                "cell)", headline=d, ci=(d - Z95 * se, d + Z95 * se), compared_with=0.0,
                compared_with_label="the closed form", margin=MARGIN,
                margin_reason="below what a line on the paper's figures resolves",
                check_max_z=float(mc["z"].abs().max()), check_se=float(mc["stderr"].max()))
