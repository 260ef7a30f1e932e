"""semres.experiments.frontier.verdicts: chapter 7's overview rows follow their numbers and
thresholds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semres.experiments.frontier import ties as discrete
from semres.experiments.frontier import verdicts
from semres.report import Z_MAX


def _equal(mean_z):
    rows = []
    for p, z in zip((0.8, 0.9), mean_z):
        for comb in ("max", "product", "mean"):
            rows.append({"p_i": p, "combine": comb, "p_s": 0.7, "se_s": 0.001, "front": 0.7,
                         "sorted_bound": 0.8, "above_z": z if comb == "mean" else -1.0,
                         "bound_z": -10.0})
    return pd.DataFrame(rows)


def _slots(mean_above_z, max_above_z):
    rows = []
    for K, comb, z in ((1, "single", 0.0), (4, "max", max_above_z), (4, "product", 0.0),
                       (4, "mean", mean_above_z)):
        rows.append({"K": K, "combine": comb, "scale": 0.1, "p_i": 0.9, "p_s": 0.7,
                     "se_i": 0.001, "se_s": 0.001, "above": z * 0.001, "above_z": z})
    return pd.DataFrame(rows)


def test_slot_rows_follow_the_intervals():
    slots = _slots(8.0, -3.0)
    best = slots.set_index(["K", "combine"])
    rows = verdicts.slot_results(best, np.array([0.5, -1.0]), _equal([3.0, 0.5]))
    assert rows[0]["kind"] == "check" and rows[0]["passed"] and rows[0]["check_max_z"] == 1.0
    assert [r["direction"] for r in rows[1:]] == ["above", "above"]
    assert rows[1]["ci"] == pytest.approx((0.7 - 1.96e-3, 0.7 + 1.96e-3))
    assert not verdicts.slot_results(_slots(0.0, 9.0).set_index(["K", "combine"]), [0.0],
                                     _equal([0.0, 0.0]))[0]["passed"]


def test_the_floor_row_holds_only_when_nothing_breaks_the_bound():
    floored = pd.DataFrame({"bound": [0.8, 0.7], "p_s": [0.79, 0.6]})
    scan = pd.DataFrame({"p_i": [0.8], "delta": [0.05], "p_s": [0.6]})
    row = verdicts.floor_result(floored, scan)
    assert row["passed"] and row["headline"] == pytest.approx(0.01) and row["kind"] == "check"
    row = verdicts.floor_result(floored.assign(p_s=[0.81, 0.6]), scan)
    assert not row["passed"]


def test_best_rows_read_the_gains_and_the_engine():
    peaks = pd.DataFrame({"delta": [0.01, 0.05], "p_i": [0.8, 0.85], "p_s": [0.75, 0.7],
                          "gain": [0.02, 0.01], "gap": [1e-6, 3e-5], "upper_bound": [0.75, 0.7],
                          "masses": [np.array([0.0, 1.0])] * 2})
    mc = pd.DataFrame({"excess_z": [Z_MAX + 1, Z_MAX - 1], "z_s": [0.1, 0.2],
                       "z_i": [-0.3, 0.0], "se_s": [1e-4, 2e-4]})
    rows = verdicts.best_results(peaks, mc)
    assert [r["passed"] for r in rows] == [True, False, False]  # the second gap > 2e-5
    # the smallest gain the engine could tell from zero, at Z_MAX plus 80 % power
    assert rows[0]["detectable"] == pytest.approx((Z_MAX + 0.8416212) * 1e-4)
    assert rows[-1]["kind"] == "check" and rows[-1]["check_max_z"] == 0.3
    assert not verdicts.beats_constant(peaks, mc)  # one z too small
    assert verdicts.gain_shrinks(peaks)


def test_tie_rows_read_the_rates_at_the_finest_space():
    ties = discrete.ties_table(discrete.tie_spaces([8, 16, 32], [4, 6, 8]))
    rates = discrete.tie_rates(ties)
    flat = {name: 0.0 for name in rates}
    rows = verdicts.tie_results(ties, rates, pd.DataFrame({"space": ["cycle", "torus"],
                                                           "z": [1.0, 2.0],
                                                           "stderr": [1e-4, 3e-4]}))
    assert [r["passed"] for r in rows] == [True, True]
    assert [r["check_max_z"] for r in rows] == [1.0, 2.0]
    assert [r["check_se"] for r in rows] == [1e-4, 3e-4]
    none = pd.DataFrame({"space": [], "z": [], "stderr": []})
    assert not verdicts.tie_results(ties, flat, none)[0]["passed"]
    assert verdicts.ties_vanish(rates) and not verdicts.ties_vanish(flat)


def _floor_tables(kkt=1e-8, spread=0.0, margin=0.01, gain=0.02, bb=0.5005, gap=5e-4):
    front = pd.DataFrame({"n": [4, 4], "delta": [0.05, 0.05], "p_i": [0.4, 0.6],
                          "p_s": [0.5, 0.45], "proposition_bound": [0.5 + margin, 0.46],
                          "bb_bound": [bb, np.nan], "nodes": [40, 0],
                          "certified": [bool(bb - 0.5 <= 1e-3), False],
                          "kkt": [kkt, 1e-9], "spread": [spread, 0.0]})
    peaks = pd.DataFrame({"n": [4, 8], "delta": [0.05, 0.2], "p_i": [0.5, 0.3],
                          "p_s": [0.5, 0.2], "constant_p_s": [0.48, 0.2 - gain],
                          "gain": [0.02, gain], "proposition_bound": [0.6, 0.3],
                          "bb_bound": [0.5 + gap, 0.25], "nodes": [50, 250],
                          "certified": [True, False], "kkt": [1e-9] * 2, "spread": [0.0] * 2})
    for t in (front, peaks):
        t["upper_bound"] = np.fmin(t.proposition_bound, t.bb_bound)
        t["gap"] = t.upper_bound - t.p_s
    mc = pd.DataFrame({"p_s_mc": [0.5, 0.2], "se_s": [1e-3, 1e-3], "z_s": [0.5, -1.0],
                       "z_i": [0.2, 2.0]})
    search = pd.DataFrame({"margin": [0.1, 0.2], "over_ceiling": [-0.1, -0.2]})
    return front, peaks, mc, search


def test_the_floor_n_rows_are_checks_then_findings_per_n_and_floor():
    rows = verdicts.floor_n_rows(*_floor_tables(), [1e-12], 2e-4)
    assert [r["kind"] for r in rows[:3]] == ["check"] * 3
    assert rows[0]["passed"] and rows[0]["headline"] == pytest.approx(0.01)
    assert rows[1]["passed"] and rows[1]["check_max_z"] == 2.0
    assert rows[2]["passed"] and rows[2]["headline"] == pytest.approx(5e-4)
    assert "at 3 points" in rows[2]["statement"] and "2 are certified" in rows[2]["statement"]
    assert [r.get("new") for r in rows[3:]] == [True, True]
    assert [r["direction"] for r in rows[3:]] == ["above", "above"]
    assert rows[3]["compared_with"] == 0.48 and "certified: no step" in rows[3]["statement"]
    assert "not certified: the proven bound allows at most 0.070" in rows[4]["statement"]
    assert rows[4]["ci"] == pytest.approx((0.2 - 1.96e-3, 0.2 + 1.96e-3))
    assert not verdicts.floor_n_rows(*_floor_tables(margin=-1e-6), [0.0], 2e-4)[0]["passed"]
    assert not verdicts.floor_n_rows(*_floor_tables(kkt=1e-3), [0.0], 2e-4)[1]["passed"]
    assert not verdicts.floor_n_rows(*_floor_tables(spread=1e-5), [0.0], 2e-4)[1]["passed"]
    assert not verdicts.floor_n_rows(*_floor_tables(), [1e-5], 2e-4)[1]["passed"]
    # the optima moving on half the grid by more than the certificate's tolerance fails it too
    assert "by 2.0 × 10⁻⁴ (at most 0.001)" in rows[1]["statement"]
    assert not verdicts.floor_n_rows(*_floor_tables(), [0.0], 1.1e-3)[1]["passed"]
    # a bound below a similarity found, or a certified gap above the tolerance, fails the check
    assert not verdicts.floor_n_rows(*_floor_tables(bb=0.49), [0.0], 2e-4)[2]["passed"]
    assert not verdicts.floor_n_rows(*_floor_tables(gap=2e-3), [0.0], 2e-4)[2]["passed"]
    assert not verdicts.floor_n_rows(*_floor_tables(gain=1e-6), [0.0], 2e-4)[4]["passed"]
