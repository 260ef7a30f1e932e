"""Chapter 4's rules: a family of claims widens each interval, and the result rows."""

import types

import fake_runs
import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student

from semres.experiments.phylogeny import alpha_effects, verdicts


def test_a_family_of_claims_widens_each_interval_to_keep_its_error_rate():
    """Three effects of size 0 measured with 3 seeds a side: read alone, at least one of the
    three 95 % intervals misses 0 about 1 - 0.95³ of the time; widened for the family, at
    most 5 % (Monte Carlo over 4,000 families)."""
    rng = np.random.default_rng(0)
    alone, family = [], []
    for _ in range(4000):
        est = rng.normal(0, 1, 3)  # the effect's estimate in units of its standard error
        se = np.sqrt(rng.chisquare(4, 3) / 4)  # with its estimated standard error, df 4
        rows = [types.SimpleNamespace(effect=e, se=s, df=4.0) for e, s in zip(est, se)]
        alone.append(any(abs(r.effect) > student.ppf(0.975, 4) * r.se for r in rows))
        family.append(any(not (verdicts.family_ci(r, 3)[0] <= 0 <= verdicts.family_ci(r, 3)[1])
                          for r in rows))
    assert np.mean(alone) > 0.12 and np.mean(family) < 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    with pytest.raises(ValueError, match="claims"):
        verdicts.family_ci(rows[0], 0)


def _row(effect, se, df=4.0, seeds=3):
    return {"effect": effect, "se": se, "df": df, "detected": abs(effect) > 3 * se,
            "seeds_from": seeds, "seeds_to": seeds}


def _claims(sim, matched, auc, se=0.01):
    return pd.DataFrame([{"column": col, "alpha_to": 0.5, **_row(e, se)}
                         for col, e in (("sim_accuracy", sim), ("p_s_matched", matched),
                                        ("id_auc", auc))])


def test_the_claims_are_judged_as_one_family_against_their_margins():
    """One status per claim from the family's interval against its margin; a single seed (no
    standard error) runs no test."""
    effects = _claims(0.1, 0.08, -0.001)
    # generalization rises beyond the seeds' spread; the AUC's interval lies short of a fall
    # of half that rise (0.05): no trade larger than the margin
    assert [verdicts.claim_status(effects, col, 0.5) for col, _, _ in verdicts.CLAIMS] == [
        "reproduced", "reproduced", "does not hold"]
    margins = verdicts.claim_margins(effects, 0.5)
    assert margins["id_auc"][0] == pytest.approx(0.05) and margins["id_auc"][1]
    assert margins["sim_accuracy"] == (pytest.approx(verdicts.seed_spread(effects.iloc[0])),
                                       False)
    assert verdicts.claim_direction("id_auc") == "below"
    # the page shows the family's interval for each claim, and each claim's margin
    shown = verdicts.shown_intervals(effects, 0.5)
    assert (shown.interval_low.iloc[0], shown.interval_high.iloc[0]) == verdicts.family_ci(
        effects.iloc[0], len(verdicts.CLAIMS))
    assert shown.margin.iloc[2] == pytest.approx(0.05)
    one = pd.DataFrame([{"column": col, "alpha_to": 0.5, **_row(0.1, float("nan"))}
                        for col, _, _ in verdicts.CLAIMS])
    assert [verdicts.claim_status(one, col, 0.5) for col, _, _ in verdicts.CLAIMS] == [
        "not run"] * 3


@pytest.mark.parametrize("true_fall, expected", [(0.20, "reproduced"), (0.03, "inconclusive"),
                                                 (-0.02, "does not hold")])
def test_simulated_auc_falls_by_more_less_or_not_at_all(true_fall, expected):
    """Simulated runs, 5 seeds a side: triplet accuracy rises by 0.2 (margin of the AUC's
    fall: 0.1); the AUC falls by 0.2 (the claim holds), by 0.03 (less than the margin, but
    the interval reaches across its edge) or rises by 0.02 (the interval lies short of the
    margin: no fall larger than it)."""
    from semres.core.intervals import difference_interval
    rng = np.random.default_rng(7)

    def row(col, effect, sd):
        lo, hi = rng.normal(0.7, sd, 5), rng.normal(0.7 + effect, sd, 5)
        r = difference_interval(hi, lo)
        return {"column": col, "alpha_to": 0.9, "effect": r["effect"], "se": r["se"],
                "df": r["df"], "detected": r["excludes_zero"], "seeds_from": 5, "seeds_to": 5}

    sd = 0.02 if expected != "inconclusive" else 0.06
    effects = pd.DataFrame([row("sim_accuracy", 0.2, 0.005), row("p_s_matched", 0.2, 0.005),
                            row("id_auc", -true_fall, sd)])
    assert verdicts.claim_status(effects, "id_auc", 0.9) == expected
    assert verdicts.claim_status(effects, "sim_accuracy", 0.9) == "reproduced"
    assert verdicts.traded(effects, 0.9) == (expected == "reproduced")


def test_an_effect_reads_against_its_margin_and_the_build_names_the_trade():
    """Beyond the margin it rises or falls, inside it it changes by less, across its edge it
    is unclear, with one seed there is nothing to read; the trade is named where it holds."""
    def shown(low, high, margin=0.05, se=0.01):
        return types.SimpleNamespace(interval_low=low, interval_high=high, margin=margin, se=se)

    assert verdicts.reading(shown(0.06, 0.2)) == "rises"
    assert verdicts.reading(shown(-0.2, -0.06)) == "falls"
    assert verdicts.reading(shown(-0.04, 0.04)) == "within"
    assert verdicts.reading(shown(0.0, 0.1)) == "unclear"
    assert verdicts.reading(shown(0.0, 0.1, se=float("nan"))) == "one seed"
    effects = _claims(0.1, 0.08, -0.2)
    assert verdicts.trade(effects, 0.5, None, 3) == "cross-entropy on"
    assert verdicts.trade(effects, 0.5, None, 1) == "one seed"
    assert verdicts.trade(_claims(0.1, 0.08, -0.001), 0.5, None, 3) == "none"
    marked = verdicts.shown_intervals(effects, 0.5)
    assert list(marked.interval) == [verdicts.FAMILY.format(claims=3)] * 3
    assert verdicts.detectable_change(effects.iloc[0]) > 2 * effects.iloc[0].se


def _runs(lifts, seeds=3):
    """Synthetic runs with a clear trade: the AUC falls by 0.15 per unit alpha."""
    return fake_runs.runs(lifts, seeds, auc_drop=0.15)


def test_the_matched_band_carries_the_family_interval_and_the_headline_lies_on_it():
    """The effect at the headline's matching point is one point of the curve across the
    matching range, drawn with the interval the result rows give the family of claims."""
    tradeoff, _, effects = fake_runs.effects(_runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1}))
    curve = alpha_effects.matched_curve(tradeoff, 0.0, 0.5, points=5)
    band, headline = verdicts.matched_band(curve, effects, 0.5)
    row = alpha_effects.effect_row(effects, "p_s_matched", 0.5)
    assert headline[:2] == (row.p_i, row.effect)
    assert (headline[2], headline[3]) == verdicts.family_ci(row, len(verdicts.CLAIMS))
    # the family's interval is wider than each point's own 95 % interval
    assert (band.family_low < band.ci_low).all() and (band.family_high > band.ci_high).all()
    np.testing.assert_allclose(band.effect, curve.effect)
    assert verdicts.matched_band(None, effects, 0.5) == (None, None)


def test_the_effects_table_gives_each_effect_the_interval_its_result_row_judges():
    """One column per compared α; a claim's cell carries its family interval (dagger), the
    same numbers the result box writes, and a star where it lies beyond its margin."""
    _, _, effects = fake_runs.effects(_runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1}))
    shown = verdicts.shown_intervals(effects, 0.5)
    table = verdicts.effects_table(shown, 0.0)
    assert list(table.columns) == ["measure", "Change from α = 0 to 0.5",
                                   "Change from α = 0 to 1"]
    claim = shown[(shown.column == "sim_accuracy") & (shown.alpha_to == 0.5)].iloc[0]
    cell = table.set_index("measure").loc[claim.measure, "Change from α = 0 to 0.5"]
    assert cell == verdicts.said(claim) + " † *"
    assert all(c.endswith(("]", " *", " †")) for c in table.iloc[:, 2])
    # one seed: the change alone, no interval
    one = fake_runs.effects(_runs({0.0: 0.0, 0.5: 0.05}, seeds=1))[2]
    assert "[" not in verdicts.effects_table(verdicts.shown_intervals(one, 0.5), 0.0).iloc[0, 1]

