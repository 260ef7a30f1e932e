"""semres.experiments.frontier: frontier.csv's rows, and every figure drawn from small tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from semres.experiments.frontier import certified, figures


def _bracket(n=4, delta=0.05, rows=2, point_gain=0.01, certified=(False, False)):
    return pd.DataFrame({"n": [n] * rows, "delta": [delta] * rows, "target": [0.4, 0.6][:rows],
                         "p_i": [0.4, 0.6][:rows], "p_s": [0.5, 0.45][:rows],
                         "constant_p_s": [0.49, 0.44][:rows], "gain": [point_gain] * rows,
                         "upper_bound": [0.6, 0.5][:rows], "gap": [0.1, 0.05][:rows],
                         "kkt": [1e-8] * rows, "spread": [0.0] * rows, "grid": [40] * rows,
                         "proposition_bound": [0.6, 0.5][:rows],
                         "bb_bound": [np.nan, 0.5][:rows], "nodes": [0, 30][:rows],
                         "rank": [0, 9][:rows], "certified": list(certified)[:rows]})


def test_frontier_csv_marks_the_certified_points():
    two = pd.DataFrame({"n": [2, 2], "delta": [0.05, 0.05],
                        "method": ["certified", "local optimiser"],
                        "point": ["target", "target"], "K": [400, 8], "p_i": [0.8, 0.8],
                        "p_s": [0.7, 0.69], "upper_bound": [0.70001, 0.70001],
                        "step_front_p_s": [0.68, 0.68]})
    table = certified.frontier_csv(two, _bracket(certified=(False, True)), _bracket(rows=1))
    assert list(table.columns) == certified.COLUMNS
    assert table.certified.tolist() == [True, False, False, True, False]
    assert table.method[2:].tolist() == [certified.N_METHODS[i] for i in (1, 0, 1)]
    assert table.point[2:].tolist() == ["target", "target", "largest gain"]
    assert table.gap[0] == pytest.approx(1e-5) and table.K[2] == 40
    assert table.kkt[:2].isna().all() and table.step_front_p_s[2] == 0.49
    assert table.nodes.tolist() == [0, 0, 0, 30, 0] and table.bb_bound[:3].isna().all()


def _optimum(delta, p_i):
    return {"delta": delta, "p_i": p_i, "p_s": 0.7, "levels": np.array([1.0, 0.3, delta]),
            "masses": np.array([0.1, 0.3, 0.6])}


def test_every_figure_draws():
    deltas = (0.01, 0.05, 0.2)
    rows = pd.DataFrame([_optimum(d, p) for d in deltas for p in (0.6, 0.7, 0.8)])
    engine = pd.DataFrame({"delta": deltas, "n": [4] * 3, "p_i_mc": [0.7] * 3,
                           "p_s_mc": [0.7] * 3, "se_i": [1e-3] * 3, "se_s": [1e-3] * 3})
    sweep = pd.DataFrame({"family": ["constant"] * 2, "scale": [0.1, 0.2],
                          "delta": [0.0, 0.05], "p_i": [0.9, 0.8], "p_s": [0.6, 0.7]})
    check = sweep.assign(p_i_mc=sweep.p_i, p_s_mc=sweep.p_s)
    ties = pd.DataFrame({"space": ["cycle"] * 2, "points": [8, 16], "above_front": [0.1, 0.05],
                         "p_i": [0.8, 0.8], "p_s": [0.7, 0.65]})
    slots = pd.DataFrame({"K": [1, 2, 4], "combine": ["single", "max", "mean"],
                          "p_i": [0.9] * 3, "p_s": [0.6] * 3, "se_i": [1e-3] * 3,
                          "se_s": [1e-3] * 3})
    n_rows = _bracket(certified=(False, True))
    for fig in (figures.families(sweep, check, (0.0, 0.05, 0.2)),
                figures.frontier(rows, rows, rows, rows, engine, 8, deltas),
                figures.floor_n_frontier(n_rows, _bracket(rows=1), engine, rows, deltas),
                figures.ties(ties, {"cycle": -1.0}), figures.slots(slots)):
        assert fig.axes
        plt.close(fig)
