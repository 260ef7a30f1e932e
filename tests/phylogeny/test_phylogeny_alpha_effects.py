"""What raising α changes: p_S at matched identification (one point and the curve across the
matching range), Welch intervals over seeds, and the runs as tidy tables."""

import fake_runs
import numpy as np
import pandas as pd
import pytest
from scipy.stats import t

from semres.experiments.phylogeny import alpha_effects


def test_ps_at_matched_pi_interpolates_each_sweep_and_the_match_is_shared():
    pi = np.linspace(0.6, 0.95, 8)
    rows = [pd.DataFrame({"alpha": a, "seed": s, "eps": np.arange(8.0), "p_i": pi + shift,
                          "p_s": 0.5 + lift + pi / 4})
            for a, shift, lift in ((0.0, 0.0, 0.0), (0.5, -0.05, 0.1)) for s in (0, 1)]
    tr = pd.concat(rows, ignore_index=True)
    out = alpha_effects.ps_at_matched_pi(tr, 0.8)
    # alpha = 0.5: 0.1 higher at the same eps and shifted 0.05 left in p_I, so at matched p_I
    # it lies 0.1 + 0.05 / 4 higher (by hand: 0.6 + 0.85 / 4 against 0.5 + 0.8 / 4)
    assert np.allclose(out[out.alpha == 0.0].p_s, 0.7)
    assert np.allclose(out[out.alpha == 0.5].p_s, 0.8125)
    shuffled = alpha_effects.ps_at_matched_pi(tr.sample(frac=1.0, random_state=0), 0.8)
    # ordered by eps, so the order of the rows does not matter
    assert np.allclose(shuffled.sort_values(["alpha", "seed"]).p_s, out.p_s)
    beyond = alpha_effects.ps_at_matched_pi(tr, 0.93)  # only the alpha = 0 sweeps reach 0.93
    assert beyond[beyond.alpha == 0.5].p_s.isna().all()
    assert beyond[beyond.alpha == 0.0].p_s.notna().all()
    # the match: alpha = 0 peaks at its largest p_I (0.95), moved into the shared [0.6, 0.9]
    assert alpha_effects.common_pi(tr, [0.0, 0.5]) == pytest.approx(0.9)


def test_ps_at_matched_pi_reads_the_efficient_branch_of_a_sweep_that_turns_back():
    # along eps, p_I rises from 0.6 to a peak of 0.9 and falls back to 0.6: p_I = 0.75 is
    # crossed twice, at p_S 0.55 on the way up and 0.70 on the way down
    sweep = pd.DataFrame({"alpha": 0.0, "seed": 0, "eps": np.arange(5.0),
                          "p_i": [0.6, 0.75, 0.9, 0.75, 0.6],
                          "p_s": [0.5, 0.55, 0.6, 0.70, 0.65]})
    assert alpha_effects.ps_at_matched_pi(sweep, 0.75).p_s.iloc[0] == pytest.approx(0.70)
    # between points: up at 0.8 (1/3 of 0.75 -> 0.9: 0.5667), down (2/3 of 0.70 -> 0.60: 0.6333)
    assert alpha_effects.ps_at_matched_pi(sweep, 0.8).p_s.iloc[0] == pytest.approx(0.70 - 0.1 / 3)
    # sorting the points by p_I instead (the old reading) mixes the branches: at p_I = 0.675
    # it pairs 0.6 (p_S 0.65) with 0.75 (p_S 0.55) and reads 0.60, below both crossings
    assert alpha_effects.ps_at_matched_pi(sweep, 0.675).p_s.iloc[0] == pytest.approx(0.675)
    assert alpha_effects.ps_at_matched_pi(sweep, 0.95).p_s.isna().all()  # beyond the peak


def test_effects_use_welch_t_intervals_over_seeds():
    by_alpha = pd.DataFrame({"alpha": [0.0] * 3 + [0.5] * 3, "seed": [0, 1, 2] * 2,
                             "acc": [0.60, 0.62, 0.61, 0.70, 0.74, 0.72]})
    pi = np.linspace(0.6, 0.95, 8)
    tr = pd.concat([pd.DataFrame({"alpha": a, "seed": s, "eps": np.arange(8.0), "p_i": pi,
                                  "p_s": 0.5 + pi / 4 + lift + 0.01 * s})
                    for a, lift in ((0.0, 0.0), (0.5, 0.1)) for s in range(3)])
    eff = alpha_effects.effects(by_alpha, tr, 0.0, {0.5: "cross-entropy on"}, {"acc": "accuracy"})
    acc = eff[eff.column == "acc"].iloc[0]
    se = np.sqrt(0.01 ** 2 / 3 + 0.02 ** 2 / 3)
    df = se ** 4 / ((0.01 ** 2 / 3) ** 2 / 2 + (0.02 ** 2 / 3) ** 2 / 2)
    assert acc.effect == pytest.approx(0.11) and acc.df == pytest.approx(df)
    # Student's t on about 2.9 degrees of freedom: 3.2, not 2
    assert acc.ci_high - acc.effect == pytest.approx(t.ppf(0.975, df) * se)
    assert acc.ci_high - acc.effect > 3 * se and acc.detected
    matched = eff[eff.column == "p_s_matched"].iloc[0]
    assert matched.effect == pytest.approx(0.1) and matched.p_i == pytest.approx(0.95)


def test_result_tables_and_the_compared_alphas():
    results = fake_runs.runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1})
    tradeoff, by_alpha = alpha_effects.result_tables(results)
    assert list(tradeoff.columns) == alpha_effects.TRADEOFF_COLUMNS and len(tradeoff) == 9 * 6
    assert len(by_alpha) == 9 and {"mean_p_i", "best_p_s", "final_val_accuracy"} <= set(
        by_alpha.columns)
    assert alpha_effects.compared_alphas([0.5, 0.0, 1.0, 0.9]) == (0.0, 0.9, 1.0)
    assert alpha_effects.compared_alphas([0.0, 1.0]) == (0.0, None, 1.0)
    assert alpha_effects.compared_alphas([0.0, 0.5]) == (0.0, 0.5, None)
    assert alpha_effects.compared_alphas([1.0]) == (1.0, None, None)


def test_the_matched_effect_is_a_curve_over_the_shared_range():
    # two α, two seeds each: the higher α sits 0.05 above in p_S at every p_I
    rows = []
    for a, shift in ((0.0, 0.0), (0.9, 0.05)):
        for seed in (0, 1):
            p_i = np.linspace(0.5, 1.0, 11)
            rows += [{"alpha": a, "seed": seed, "eps": e, "p_i": x,
                      "p_s": 0.5 + shift + 0.1 * (1 - x) + 0.001 * seed}
                     for e, x in enumerate(p_i[::-1])]
    curve = alpha_effects.matched_curve(pd.DataFrame(rows), 0.0, 0.9, points=5)
    assert len(curve) == 5 and np.allclose(curve.effect, 0.05)
    assert curve.p_i.min() == pytest.approx(0.5) and curve.p_i.max() == pytest.approx(1.0)
