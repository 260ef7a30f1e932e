"""semres.experiments.pareto.verdicts: which Monte Carlo cells decide which law, and how a law
is judged from them: its cells' deviations (estimate - closed form) against the practical
margin, the weakest cell deciding."""

import numpy as np
import pandas as pd
import pytest

from semres.experiments.pareto import settings, verdicts
from semres.report import Report

SPACES = ["circle", "circle", "segment", "discrete", "sphere"]
DELTAS = [0.0, 0.1, 0.0, 0.3, 0.1]
M = settings.MC_MARGIN
TABLES = ["cells_theorem1_circle", "cells_theorem2_noise", "cells_segment", "cells_ties"]


def _mc(deviation=0.0, stderr=1e-5, rng=None):
    """A check table with one cell per (space, Delta) above, each estimate off its closed form
    by ``deviation`` (a number or one per cell) plus sampling noise of ``stderr``."""
    rng = np.random.default_rng(0) if rng is None else rng
    theory = np.array([0.75, 0.7, 0.73, 0.8, 0.6])
    dev = np.broadcast_to(np.asarray(deviation, float), theory.shape)
    mc = theory + dev + stderr * rng.standard_normal(len(theory))
    return pd.DataFrame({"space": SPACES, "delta": DELTAS, "eps": 0.25, "task": "similarity",
                         "theory": theory, "mc": mc, "stderr": stderr,
                         "z": (mc - theory) / stderr})


def _statuses(mc, tmp_path, monkeypatch):
    """Each law's status, as the chapter judges it (one finding over its cells), by table."""
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))
    rep = Report("01_pareto_front")
    cells = verdicts.law_cells(mc)
    got = {table: rep.grid_result(table, "law", **verdicts.against_closed_form(
        mc[cells[table]], table), margin_reason="reason", new=table == "cells_ties")
        for table in TABLES}
    return got, rep


def test_law_cells_select_the_cells_each_law_claims():
    mc = pd.DataFrame({"space": SPACES, "delta": DELTAS})
    rows = {table: cells.tolist() for table, cells in verdicts.law_cells(mc).items()}
    assert list(rows) == TABLES
    assert rows["cells_theorem1_circle"] == [True, False, False, False, False]
    assert rows["cells_theorem2_noise"] == [False, True, False, True, True]
    assert rows["cells_segment"] == [False, False, True, False, False]
    assert rows["cells_ties"] == [False, False, False, True, False]


def test_deviation_cells_give_each_deviation_and_its_interval_farthest_reaching_first():
    mc = pd.DataFrame({"space": "circle", "eps": [0.05, 0.15, 0.25], "delta": 0.0,
                       "task": ["similarity", "identification", "similarity"],
                       "theory": [0.6, 0.9, 0.7], "mc": [0.601, 0.897, 0.7],
                       "stderr": [1e-3, 5e-4, 3e-3]})
    cells = verdicts.deviation_cells(mc)
    # reaches: 0.001 + 1.96e-3, 0.003 + 0.98e-3, 0 + 5.88e-3
    assert [c["cell"] for c in cells] == ["circle, eps = 0.25, Delta = 0, p_S",
                                          "circle, eps = 0.15, Delta = 0, p_I",
                                          "circle, eps = 0.05, Delta = 0, p_S"]
    assert cells[1]["headline"] == pytest.approx(-0.003)
    assert cells[1]["ci"] == pytest.approx((-0.003 - 1.959964 * 5e-4, -0.003 + 1.959964 * 5e-4))
    with pytest.raises(ValueError, match="cells"):
        verdicts.deviation_cells(mc.iloc[:0])
    with pytest.raises(ValueError, match="cells"):
        verdicts.deviation_cells(mc.assign(stderr=0.0))


def test_a_law_that_holds_is_reproduced_and_records_its_worst_cell(tmp_path, monkeypatch):
    mc = _mc(deviation=0.0, stderr=1e-4)
    got, rep = _statuses(mc, tmp_path, monkeypatch)
    assert got == {"cells_theorem1_circle": "reproduced", "cells_theorem2_noise": "reproduced",
                   "cells_segment": "reproduced", "cells_ties": "holds"}
    noise = rep.rows[1]
    sel = mc[mc.delta > 0]
    dev = sel.mc - sel.theory
    far = (dev.abs() + verdicts.Z95 * sel.stderr).idxmax()
    assert noise["headline"] == pytest.approx(dev[far]) and noise["miss"] == noise["headline"]
    assert noise["cells"] == "3 of 3 hold" and noise["margin"] == M
    assert noise["check_max_z"] == pytest.approx(sel.z.abs().max())
    assert noise["compared_with"] == 0.0 and noise["margin_reason"] == "reason"
    assert (tmp_path / "01_pareto_front" / "cells_theorem2_noise.csv").exists()


def test_a_miss_smaller_than_the_margin_is_reproduced_a_larger_one_does_not_hold(
        tmp_path, monkeypatch):
    # every cell off by 60 % of the margin, measured precisely: within the margin
    got, _ = _statuses(_mc(deviation=0.6 * M, stderr=1e-5), tmp_path, monkeypatch)
    assert set(got.values()) <= {"reproduced", "holds"}
    # the sphere's noisy cell alone off by twice the margin: only the law it belongs to fails
    got, rep = _statuses(_mc(deviation=[0, 0, 0, 0, 2 * M], stderr=1e-5), tmp_path,
                         monkeypatch)
    assert got["cells_theorem2_noise"] == "does not hold"
    assert got["cells_theorem1_circle"] == "reproduced"
    row = rep.rows[1]
    assert row["miss"] == pytest.approx(2 * M, abs=1e-4) and row["miss_low"] > M
    assert row["cells"] == "2 of 3 hold" and "sphere" in row["statement"]


def test_a_cell_too_noisy_to_tell_is_inconclusive_and_says_what_it_could_detect(
        tmp_path, monkeypatch):
    got, rep = _statuses(_mc(deviation=0.0, stderr=M), tmp_path, monkeypatch)
    assert set(got.values()) == {"inconclusive"}
    assert rep.rows[0]["detectable"] > M


def test_the_margin_separates_the_segments_cost_only_where_the_cost_exceeds_it():
    # Var(b) on the segment at eps = 0.25 (about 0.0065) and at eps = 0.05 (about 8e-5)
    assert verdicts.margin_separates(0.0065)
    assert not verdicts.margin_separates(8e-5)


def test_reach_is_the_farthest_end_of_any_interval():
    assert verdicts.reach([{"ci_low": -0.001, "ci_high": 0.002},
                           {"ci_low": -0.004, "ci_high": -0.001}]) == 0.004
