"""semres.experiments.pareto.verdicts: which Monte Carlo cells decide which overview row."""

import pandas as pd

from semres.experiments.pareto import verdicts


def test_overview_cells_select_the_cells_each_row_claims():
    mc = pd.DataFrame({"space": ["circle", "circle", "segment", "discrete", "sphere"],
                       "delta": [0.0, 0.1, 0.0, 0.3, 0.1]})
    rows = {name: cells.tolist() for name, _, cells in verdicts.overview_cells(mc)}
    assert rows["Theorem 1 (paper Thm. 1) on the circle"] == [True, False, False, False, False]
    assert rows["Theorem 2 (paper Thm. 2), noise"] == [False, True, False, True, True]
    assert rows["Theorem 1 with heterogeneity (segment)"] == [False, False, True, False, False]
    assert sum(rows["ties in a discrete space (new)"]) == 1
    assert [n for n, *_ in verdicts.overview_cells(mc) if "(new)" in n] == [
        "ties in a discrete space (new)"]


def test_overview_rows_take_the_largest_z_of_their_cells():
    mc = pd.DataFrame({"space": ["circle", "circle", "segment", "discrete", "sphere"],
                       "delta": [0.0, 0.1, 0.0, 0.3, 0.1], "z": [0.5, -2.0, 1.0, 0.1, 3.0],
                       "stderr": [1e-4, 2e-4, 3e-4, 4e-4, 5e-4]})
    rows = {r["result"]: r for r in verdicts.overview_rows(mc)}
    assert rows["Theorem 1 (paper Thm. 1) on the circle"]["check_max_z"] == 0.5
    assert rows["Theorem 2 (paper Thm. 2), noise"]["check_se"] == 5e-4  # its largest cell
    assert rows["Theorem 2 (paper Thm. 2), noise"]["check_max_z"] == 3.0
    assert [r["new"] for r in rows.values()] == [False, False, False, True]
