"""semres.experiments.frontier.verdicts: chapter 7's overview rows follow their numbers, their
margins and the one status rule; a claim over a grid of cells is one finding, decided by its
weakest cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semres.core.simulate import Estimate
from semres.experiments.frontier import ties as discrete
from semres.experiments.frontier import verdicts
from semres.report import Report, Z_MAX

M = verdicts.RATE_MARGIN


def _report(tmp_path, monkeypatch) -> Report:
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(Report, "_glue", lambda self, name, value, display=False: None)
    return Report("07_front_universality")


def _equal(mean_p_s, se=0.0005, front=(0.74, 0.66, 0.59, 0.5384)):
    rows = []
    for p, f, ps in zip((0.8, 0.9, 0.95, 0.98), front, mean_p_s):
        for comb in ("max", "product", "mean"):
            rows.append({"p_i": p, "combine": comb, "p_s": ps if comb == "mean" else f - 0.03,
                         "se_s": se, "front": f, "sorted_bound": f + 0.05,
                         "above_z": ((ps if comb == "mean" else f - 0.03) - f) / se,
                         "bound_z": -10.0})
    return pd.DataFrame(rows)


def _slots(mean_above_z, max_above_z):
    rows = []
    for K, comb, z in ((1, "single", 0.0), (4, "max", max_above_z), (4, "product", 0.0),
                       (4, "mean", mean_above_z)):
        rows.append({"K": K, "combine": comb, "scale": 0.1, "p_i": 0.9, "p_s": 0.7,
                     "se_i": 0.001, "se_s": 0.001, "above": z * 0.001, "above_z": z})
    return pd.DataFrame(rows)


def _status(tmp_path, monkeypatch, grid) -> tuple[str, dict]:
    rep = _report(tmp_path, monkeypatch)
    got = rep.grid_result(**grid)
    assert len(rep.rows) == 1  # one claim, one finding, however many cells
    return got, rep.rows[0]


# --------------------------------------------------------------------------- slots

def test_the_slot_check_follows_the_proved_bounds():
    slots = _slots(8.0, -3.0)
    row = verdicts.slot_check(slots.set_index(["K", "combine"]), np.array([0.5, -1.0]),
                              _equal([0.69, 0.66, 0.60, 0.54]))
    assert row["kind"] == "check" and row["passed"] and row["check_max_z"] == 1.0
    assert not verdicts.slot_check(_slots(0.0, 9.0).set_index(["K", "combine"]), [0.0],
                                   _equal([0.69, 0.66, 0.60, 0.54]))["passed"]


def test_a_mean_code_on_the_front_within_the_margin_is_no_contradiction(tmp_path, monkeypatch):
    # the case: 0.6587 against the front's 0.66 (z = -2.3) at p_I = 0.9
    grid = verdicts.slot_bound_result(_equal([0.69, 0.6587, 0.592, 0.539], se=0.000577))
    assert grid["claim"] == "at most" and grid["margin"] == M and grid["new"]
    assert sorted(c["compared_with"] for c in grid["cells"]) == [0.5384, 0.59, 0.66, 0.74]
    got, row = _status(tmp_path, monkeypatch, grid)
    assert got == "holds" and row["cells"] == "4 of 4 hold"
    cells = pd.read_csv(tmp_path / "07_front_universality" / "slots_cells.csv")
    on_front = cells[cells.cell == "p_I = 0.9"].iloc[0]
    assert on_front.status == "holds" and on_front.miss == pytest.approx(-0.0013)


def test_an_escape_beyond_the_margin_does_not_hold_and_a_small_one_is_inconclusive(
        tmp_path, monkeypatch):
    # above the front by 0.0085 (interval [0.0075, 0.0095]): beyond the margin, an escape
    got, row = _status(tmp_path, monkeypatch,
                       verdicts.slot_bound_result(_equal([0.69, 0.6587, 0.5985, 0.5446])))
    assert got == "does not hold" and "p_I = 0.95" in row["statement"]
    assert row["miss"] == pytest.approx(0.0085) and row["miss_low"] > M
    assert row["cells"] == "2 of 4 hold"  # 0.98 escapes too: 0.0062 [0.0052, 0.0072]
    # above by less than the margin, but the interval reaches across its edge
    got, row = _status(tmp_path, monkeypatch,
                       verdicts.slot_bound_result(_equal([0.69, 0.6587, 0.5945, 0.539],
                                                         se=0.0015)))
    assert got == "inconclusive" and row["miss"] == pytest.approx(0.0045)
    assert row["detectable"] > 0


def test_the_levels_against_the_front_read_the_margin():
    eq = _equal([0.69, 0.6587, 0.5985, 0.5429], se=0.000577)
    where = verdicts.against_front(eq[eq["combine"] == "mean"].set_index("p_i"))
    assert where == {"above": [0.95], "on": [0.9], "below": [0.8], "unsure": [0.98]}


# --------------------------------------------------------------------------- families

def _check(dev_s=0.0, se=0.001):
    return pd.DataFrame({"family": ["constant", "linear"], "scale": [0.05, 0.15],
                         "delta": [0.0, 0.05], "p_i": [0.9, 0.8], "p_s": [0.6, 0.7],
                         "p_i_mc": [0.9, 0.8], "p_s_mc": [0.6 + dev_s, 0.7],
                         "se_i": [se, se], "se_s": [se, se], "z": [dev_s / se, 0.0]})


def test_the_families_are_one_finding_over_every_cell(tmp_path, monkeypatch):
    lin = Estimate(mean=0.8100, stderr=0.001, trials=10_000)
    grid = verdicts.family_result(_check(), lin, 0.80985)
    assert len(grid["cells"]) == 5 and grid["claim"] == "equal" and grid["margin"] == M
    assert grid["cells"][0]["cell"].startswith("linear peak")  # the farthest-reaching first
    got, row = _status(tmp_path, monkeypatch, grid)
    assert got == "reproduced" and row["cells"] == "5 of 5 hold"
    assert row["check_max_z"] == pytest.approx(0.15)
    # one cell off by 0.01 (z = 10) fails the claim, and heads the row with its miss
    got, row = _status(tmp_path, monkeypatch, verdicts.family_result(_check(0.01), lin, 0.80985))
    assert got == "does not hold" and row["miss"] == pytest.approx(0.01)
    assert "constant, scale = 0.05, Delta = 0, p_S" in row["statement"]
    # off by less than the margin but too noisy to tell
    got, _ = _status(tmp_path, monkeypatch, verdicts.family_result(_check(0.004, se=0.002), lin,
                                                                   0.80985))
    assert got == "inconclusive"


def test_the_floor_row_is_a_check_that_nothing_breaks_the_bound():
    floored = pd.DataFrame({"bound": [0.8, 0.7], "p_s": [0.79, 0.6]})
    scan = pd.DataFrame({"p_i": [0.8], "delta": [0.05], "p_s": [0.6]})
    row = verdicts.floor_result(floored, scan)
    assert row["passed"] and row["headline"] == pytest.approx(0.01) and row["kind"] == "check"
    row = verdicts.floor_result(floored.assign(p_s=[0.81, 0.6]), scan)
    assert not row["passed"]


# --------------------------------------------------------------------------- best similarity

def _two_peaks(gains=(0.02, 0.01, 0.006), gaps=(1e-6, 3e-5, 1e-6)):
    return pd.DataFrame({"delta": [0.01, 0.05, 0.2], "p_i": [0.8, 0.85, 0.7],
                         "p_s": [0.75, 0.7, 0.6], "gain": list(gains), "gap": list(gaps),
                         "upper_bound": [p + g for p, g in zip((0.75, 0.7, 0.6), gaps)]})


def test_the_two_item_certificates_are_a_check():
    mc = pd.DataFrame({"excess_z": [Z_MAX + 1] * 3, "z_s": [0.1, 0.2, 0.0],
                       "z_i": [-0.3, 0.0, 0.1]})
    row = verdicts.best_check(_two_peaks(), mc)
    assert row["kind"] == "check" and not row["passed"]  # the second gap > 2e-5
    assert row["check_max_z"] == 0.3
    assert verdicts.best_check(_two_peaks(gaps=(1e-6,) * 3), mc)["passed"]
    assert verdicts.beats_constant(_two_peaks(), mc)
    assert not verdicts.beats_constant(_two_peaks(), mc.assign(excess_z=[Z_MAX - 1] * 3))
    assert verdicts.gain_shrinks(_two_peaks())


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


def test_the_floor_n_rows_are_three_checks():
    rows = verdicts.floor_n_rows(*_floor_tables(), [1e-12], 2e-4)
    assert [r["kind"] for r in rows] == ["check"] * 3
    assert rows[0]["passed"] and rows[0]["headline"] == pytest.approx(0.01)
    assert rows[1]["passed"] and rows[1]["check_max_z"] == 2.0
    assert rows[2]["passed"] and rows[2]["headline"] == pytest.approx(5e-4)
    assert "at 3 points" in rows[2]["statement"] and "2 are certified" in rows[2]["statement"]
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


def test_beating_the_constant_kernel_is_one_finding_over_every_n_and_floor(tmp_path,
                                                                           monkeypatch):
    _, peaks, _, _ = _floor_tables()
    grid = verdicts.beats_result(_two_peaks(), peaks)
    assert grid["claim"] == "above" and grid["compared_with"] == 0.0 and grid["new"]
    assert len(grid["cells"]) == 5  # three floors at n = 2, then n = 4 and n = 8
    # the interval: the gain found up to the most the proven bound allows
    cell = next(c for c in grid["cells"] if c["cell"].startswith("n = 8"))
    assert cell["ci"] == pytest.approx((0.02, 0.07)) and "not certified" in cell["cell"]
    assert grid["cells"][0]["headline"] == 0.006  # the smallest gain first
    got, row = _status(tmp_path, monkeypatch, grid)
    assert got == "holds" and row["cells"] == "5 of 5 hold" and row["headline"] == 0.006
    assert [s for *_, s in verdicts.beats_pairs(_two_peaks(), peaks)] == ["holds"] * 5
    # a gain found below the margin whose proven bound allows more: cannot tell
    _, low, _, _ = _floor_tables(gain=0.003)
    got, row = _status(tmp_path, monkeypatch, verdicts.beats_result(_two_peaks(), low))
    assert got == "inconclusive" and row["cells"] == "4 of 5 hold"
    assert verdicts.beats_pairs(_two_peaks(), low)[-1] == (8, 0.2, "inconclusive")
    # a certified gain below the margin: the constant kernel is as good within it
    got, row = _status(tmp_path, monkeypatch,
                       verdicts.beats_result(_two_peaks(gains=(0.02, 0.01, 0.002)), peaks))
    assert got == "does not hold" and row["miss"] == pytest.approx(0.002)
    assert "n = 2, Delta = 0.2" in row["statement"]


def test_a_grid_claim_counts_once_and_takes_its_weakest_cell(tmp_path, monkeypatch):
    rep = _report(tmp_path, monkeypatch)
    _, peaks, _, _ = _floor_tables(gain=0.003)   # n = 8 inconclusive, the rest hold
    grid = verdicts.beats_result(_two_peaks(gains=(0.02, 0.002, 0.006)), peaks)
    rep.result(**verdicts.floor_result(pd.DataFrame({"bound": [0.8], "p_s": [0.7]}),
                                       pd.DataFrame({"p_i": [0.8], "delta": [0.05],
                                                     "p_s": [0.6]})))
    got = rep.grid_result(**grid)
    findings = [r for r in rep.rows if r["kind"] == "finding"]
    assert len(findings) == 1 and len(rep.rows) == 2
    # one cell does not hold (n = 2, Delta = 0.05), one is inconclusive: the failure decides
    assert got == "does not hold" and findings[0]["cells"] == "3 of 5 hold"
    assert findings[0]["headline"] == 0.002 and findings[0]["margin"] == M
    assert findings[0]["margin_reason"] == verdicts.FINDINGS["beats"]["margin_reason"]
    cells = pd.read_csv(tmp_path / "07_front_universality" / "beats_cells.csv")
    assert sorted(cells.status) == ["does not hold", "holds", "holds", "holds", "inconclusive"]


# --------------------------------------------------------------------------- ties

def test_ties_are_one_finding_on_the_slopes_between_sizes(tmp_path, monkeypatch):
    ties = discrete.ties_table(discrete.tie_spaces([8, 16, 32], [4, 6, 8]))
    rates, slopes = discrete.tie_slopes(ties)
    assert set(slopes) == {"cycle", "torus"}
    for name, (lo, hi) in slopes.items():
        assert lo <= rates[name] <= hi < 0  # the fit lies within the range between sizes
    mc = pd.DataFrame({"space": ["cycle", "torus"], "z": [1.0, -2.0], "stderr": [1e-4, 3e-4]})
    grid = verdicts.ties_result(ties, rates, slopes, mc)
    assert grid["claim"] == "below" and grid["margin"] == verdicts.TIE_MARGIN
    assert grid["check_max_z"] == 2.0 and len(grid["cells"]) == 2
    assert grid["cells"][0]["cell"].startswith("torus")  # the shallower decay first
    got, row = _status(tmp_path, monkeypatch, grid)
    assert got == "holds" and row["headline"] == pytest.approx(rates["torus"])
    assert verdicts.ties_vanish(slopes) and verdicts.ties_vanish(rates)
    # a height that falls slower than N^-1/4 between some sizes: the claim cannot be told
    shallow = {"cycle": slopes["cycle"], "torus": (slopes["torus"][0], -0.2)}
    got, _ = _status(tmp_path, monkeypatch, verdicts.ties_result(ties, rates, shallow, mc))
    assert got == "inconclusive" and not verdicts.ties_vanish(shallow)
    flat = {"cycle": slopes["cycle"], "torus": (-0.1, 0.0)}
    got, _ = _status(tmp_path, monkeypatch, verdicts.ties_result(ties, rates, flat, mc))
    assert got == "does not hold"


def test_finding_rows_never_pass_a_yes_or_no_criterion():
    _, peaks, _, _ = _floor_tables()
    ties = discrete.ties_table(discrete.tie_spaces([8, 16, 32], [4, 6, 8]))
    grids = [verdicts.beats_result(_two_peaks(), peaks),
             verdicts.slot_bound_result(_equal([0.69, 0.66, 0.59, 0.54])),
             verdicts.family_result(_check(), Estimate(0.81, 0.001, 100), 0.80985),
             verdicts.ties_result(ties, *discrete.tie_slopes(ties),
                                  pd.DataFrame({"z": [0.0]}))]
    for grid in grids:
        assert "passed" not in grid and all("passed" not in c for c in grid["cells"])
        assert grid["margin"] > 0 and grid["margin_reason"].strip()
