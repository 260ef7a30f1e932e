"""The rules that turn the chapter's numbers into statuses (through ``semres.report.status``)."""

from __future__ import annotations


def theorem_row(mc) -> dict:
    """Theorem 1's row: every Monte Carlo cell within the book's z limit of its closed form."""
    return dict(result="Theorem 1 (paper Thm. 1) on the circle",
                statement="p_S = 1/2 + b - b^2 and p_I = 1 - b/2 (Monte Carlo)",
                check_max_z=float(mc["z"].abs().max()), check_se=float(mc["stderr"].max()))
