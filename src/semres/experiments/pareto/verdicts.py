"""Chapter 1's results at a glance: which Monte Carlo cells check which law. Each row's status
is the report's rule (:func:`semres.report.status`) on the largest |z| of its cells, against
:data:`semres.report.Z_MAX`."""

from __future__ import annotations


def overview_cells(mc) -> list[tuple[str, str, object]]:
    """The chapter's overview rows: (result, statement, which Monte Carlo cells check it)."""
    return [
        ("Theorem 1 (paper Thm. 1) on the circle", "p_S = 1/2 + <b> - <b>^2, p_I = 1 - <b>/2",
         (mc.space == "circle") & (mc.delta == 0)),
        ("Theorem 2 (paper Thm. 2), noise", "the noisy two-item law, every space and Delta > 0",
         mc.delta > 0),
        ("Theorem 1 with heterogeneity (segment)", "p_S lower by Var(b) at equal p_I",
         mc.space == "segment"),
        ("ties in a discrete space (new)", "p_S gains tau/2 (exact enumeration and Monte "
         "Carlo)", mc.space == "discrete")]


def overview_rows(mc) -> list[dict]:
    """The keyword arguments of ``Report.result`` for each overview row: checked by the
    largest |z| of its cells; a row marked "(new)" is beyond the paper."""
    return [dict(result=result, statement=statement,
                 check_max_z=mc.loc[cells, "z"].abs().max(),
                 check_se=mc.loc[cells, "stderr"].max(), new="(new)" in result)
            for result, statement, cells in overview_cells(mc)]


def side_of_front(excess: float) -> str:
    """Where a space lies against the homogeneous front, from its height above it at equal
    p_I (tau/2 - Var(b))."""
    return "above" if excess > 0 else "below"
