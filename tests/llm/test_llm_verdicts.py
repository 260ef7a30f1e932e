"""semres.experiments.llm.verdicts: which measure is reported, and the rules with their named
thresholds."""

import numpy as np
import pandas as pd
import pytest

from semres.experiments.llm import verdicts


def window_table(resolutions, cis, measure="chance crossover", at_bound=False):
    rows = [{"model": "m", "measure": measure, "window": w, "resolution": r, "ci_low": r - c,
             "ci_high": r + c, "at_bound": at_bound, "boot_at_bound": np.nan}
            for w, r, c in zip((100, 200, 300), resolutions, cis)]
    return pd.DataFrame(rows)


def test_a_measure_that_holds_still_across_its_windows_is_reported():
    table = pd.concat([window_table([80, 82, 81], [10, 10, 10]),
                       window_table([50, 150, 400], [5, 5, 5], "two-reference fit")])
    head = verdicts.headline_measure(table, best_kernel=None, ref_stable=(200, 300),
                                  kernel_stable=(200, 300), n_boot=100)
    assert head.measure == "chance crossover" and head.stable and head.decided
    assert head.row["resolution"] == 81
    assert (head.row["ci_low"], head.row["ci_high"]) == (71, 91)


def test_a_moving_or_censored_measure_is_not_reported_and_says_why():
    table = pd.concat([window_table([80, 200, 400], [10, 10, 10]),
                       window_table([80, 82, 81], [10, 10, 10], "two-reference fit",
                                    at_bound=True)])
    head = verdicts.headline_measure(table, best_kernel=None, ref_stable=(200, 300),
                                  kernel_stable=(200, 300), n_boot=100)
    assert not head.stable
    why = {r[0]: r for r in head.reasons}
    assert why["chance crossover"][1] == "moves" and why["chance crossover"][4] == 200
    assert why["two-reference fit"][1] == "bound"


def test_the_verdict_is_checked_for_every_choice_of_upper_windows():
    kernel = window_table([30, 60, 120], [5, 5, 5], "kernel exp_floor")  # grows: never stable
    # the crossover holds still over 200-300 only: one choice of windows finds it, two do not
    moving = pd.concat([window_table([40, 120, 121], [3, 3, 3]), kernel])
    kwargs = dict(best_kernel="kernel exp_floor", kernel_windows=(100, 200, 300),
                  ref_windows=(100, 200, 300), kernel_stable=(100, 300), n_boot=100)
    choices = verdicts.window_choices(moving, ref_stable=(100, 300), **kwargs)
    # the chapter's own choice (100-300 for both) appears once, among the design rows
    assert list(choices.upper_windows) == ["100–300", "200–300", "200–300"]
    assert choices.stable.tolist() == [False, True, False]
    assert not verdicts.same_for_every_choice(choices)
    found = choices[choices.stable].iloc[0]
    assert (found.measure, found.family, found.upper_windows, found.resolution) == (
        "chance crossover", "design", "200–300", 121)
    # a crossover that holds still everywhere: every choice agrees
    still = pd.concat([window_table([80, 82, 81], [10, 10, 10]), kernel])
    agree = verdicts.window_choices(still, ref_stable=(200, 300), **kwargs)
    assert agree.stable.all()
    assert verdicts.same_for_every_choice(agree)
    # every choice finds a stable measure, but not the same one: the verdict depends on it
    mixed = agree.assign(measure=["chance crossover", "two-reference fit", "chance crossover"])
    assert not verdicts.same_for_every_choice(mixed)
    nothing = pd.concat([window_table([40, 120, 300], [3, 3, 3]), kernel])
    none = verdicts.window_choices(nothing, ref_stable=(200, 300), **kwargs)
    assert not none.stable.any()
    assert verdicts.same_for_every_choice(none)


def test_too_few_resamples_decide_nothing():
    table = window_table([80, 82, 81], [10, 10, 10])
    head = verdicts.headline_measure(table, best_kernel=None, ref_stable=(200, 300),
                                  kernel_stable=(200, 300), n_boot=verdicts.MIN_BOOT - 1)
    assert not head.decided and not head.stable


def test_tail_trend_tells_a_falling_kernel_from_a_floor():
    d = np.arange(0, 601)
    se = np.full(d.shape, 1e-4)
    falling = verdicts.tail_trend(d, np.exp(-d / 150), se * np.exp(-d / 150))
    assert falling["falling"] and falling["slope"] == pytest.approx(-100 / 150, rel=1e-6)
    rng = np.random.default_rng(0)
    flat = verdicts.tail_trend(d, 0.004 + 1e-5 * rng.standard_normal(d.shape),
                               np.full(d.shape, 1e-5))
    assert not flat["falling"]


def test_sweep_verdict_measures_the_gap_in_standard_errors():
    sweep = pd.DataFrame({"task": "similarity", "n": [2, 4, 8], "p": [0.8, 0.6, 0.4],
                          "se": 0.01, "p_theory": [0.8, 0.6, 0.5], "theory_se": 0.0})
    v = verdicts.sweep_verdict(sweep)["similarity"]
    assert v["max_gap"] == pytest.approx(-0.1) and v["gap_n"] == 8
    assert v["max_z"] == pytest.approx(10) and not v["within"] and v["falls"]


def _temps(p_s, se=0.005):
    return pd.DataFrame({"temperature": [0.01, 0.1, 1.0], "p_s": p_s, "p_s_se": se,
                         "p_i": [0.99, 0.9, 0.7], "p_i_se": 0.005,
                         "p_s_theory": [0.9, 0.8, 0.6], "p_i_theory": [0.99, 0.9, 0.7],
                         "p_s_theory_se": 0.001, "p_i_theory_se": 0.001})


def tradeoff(temps):
    return (verdicts.turn_finding(temps),
            verdicts.turn_finding(temps, "p_s_theory", "p_i_theory"))


def test_the_tradeoff_is_a_turn_against_a_share_of_the_advantage_above_chance():
    trades = tradeoff(_temps([0.6, 0.8, 0.55]))
    assert trades[0]["status"] == "holds" and trades[1]["status"] != "holds"
    assert trades[0]["headline"] == pytest.approx(0.2) and trades[0]["peak_T"] == 0.1
    assert trades[0]["margin"] == pytest.approx(verdicts.TURN_SHARE * 0.3)
    # p_S rising on cooling, measured tightly, rules the turn out
    plain = tradeoff(_temps([0.9, 0.8, 0.6]))
    assert plain[0]["status"] == "does not hold"
    # the mean kernel's own prediction turns: said
    turned = _temps([0.6, 0.8, 0.55]).assign(p_s_theory=[0.6, 0.8, 0.55])
    assert tradeoff(turned)[1]["status"] == "holds"


def test_a_turn_the_model_cannot_show_is_inconclusive_not_a_contradiction():
    """The issue's case: Qwen2.5-Coder-0.5B's p_S moves +0.011 (t = 0.9) from T = 1 to 0.1 and
    sits a few hundredths above chance, so no turn this test could detect is possible."""
    temp = pd.DataFrame({"temperature": [0.1, 1.0], "p_s": [0.531, 0.520],
                         "p_s_se": [0.0086, 0.0086], "p_i": [0.95, 0.85], "p_i_se": 0.01})
    f = verdicts.turn_finding(temp)
    assert f["headline"] == pytest.approx(-0.011) and f["status"] == "inconclusive"
    assert f["detectable"] > f["advantage"]


def test_a_turn_is_judged_true_within_and_beyond_its_margin():
    """A simulated model whose p_S falls on cooling by a set amount, measured with a known
    standard error: a fall beyond the margin holds, one short of it by more than the interval
    does not, one at the margin's edge cannot be told."""
    rng = np.random.default_rng(3)
    trials = 40_000
    peak = 0.7  # advantage 0.2: margin 0.05
    got = {}
    for name, fall in (("true", 0.15), ("short", 0.0), ("edge", 0.05)):
        cold = peak - fall
        draws = [rng.binomial(trials, p) / trials for p in (cold, peak)]
        se = [np.sqrt(p * (1 - p) / trials) for p in draws]
        temp = pd.DataFrame({"temperature": [0.1, 1.0], "p_s": draws, "p_s_se": se,
                             "p_i": [0.95, 0.85], "p_i_se": 0.01})
        got[name] = verdicts.turn_finding(temp)["status"]
    assert got == {"true": "holds", "short": "does not hold", "edge": "inconclusive"}


def test_wing_asymmetry_compares_the_two_sides_of_the_design():
    counts = pd.DataFrame({"centre": 0.0, "D": 100.0, "offset": [-400.0, 400.0],
                           "trials": [1000.0, 1000.0], "correct": [785.0, 530.0]})
    w = verdicts.wing_asymmetry(counts, D=100)
    assert w["differ"] and w["p_before"] == 0.785 and w["p_after"] == 0.53
    same = counts.assign(correct=[530.0, 540.0])
    assert not verdicts.wing_asymmetry(same, D=100)["differ"]


def test_the_sweep_verdict_takes_its_n_gap_and_z_from_one_cell():
    # the largest gap (n = 4) is not the largest |z| (n = 14, measured tightly): the sentence
    # names the cell of the largest |z| and quotes that cell's own gap
    sweep = pd.DataFrame({"task": "similarity", "n": [2, 4, 14], "p": [0.8, 0.538, 0.2],
                          "se": [0.01, 0.005, 0.001], "p_theory": [0.8, 0.6, 0.187],
                          "theory_se": 0.0})
    v = verdicts.sweep_verdict(sweep)["similarity"]
    assert v["gap_n"] == 14 and v["max_gap"] == pytest.approx(0.013)
    assert v["max_z"] == pytest.approx(13.0)
    assert v["z"] == pytest.approx(13.0)


def _lam(floor, p_s, p_i, se=0.001):
    return pd.DataFrame({"floor": floor, "lambda": np.geomspace(0.01, 3, len(p_s)), "p_s": p_s,
                         "p_s_se": se, "p_i": p_i, "p_i_se": se})


def test_a_floor_turns_the_exponential_into_a_tradeoff():
    rising = _lam(0.0, [0.99, 0.9, 0.8, 0.7], [0.99, 0.95, 0.85, 0.7])
    turning = _lam(0.01, [0.6, 0.8, 0.75, 0.7], [0.99, 0.95, 0.85, 0.7])
    flat = _lam(0.1, [0.55, 0.56, 0.56, 0.55], [0.9, 0.8, 0.7, 0.6])
    v = verdicts.floor_tradeoff(pd.concat([rising, turning, flat], ignore_index=True))
    assert v["both_rise"] and v["turns"] and v["holds"] and v["floor"] == 0.01
    assert v["peak_ps"] == 0.8 and v["finest_ps"] == 0.6
    assert v["peak_lambda"] == pytest.approx(turning["lambda"][1])
    # the finding: the smaller fall from the peak (0.8 - 0.7 to the coarsest lambda)
    assert v["turn"] == pytest.approx(0.1) and v["ci"][0] > v["margin"]
    # below the threshold at the finest lambda, or a turn within the standard errors: no
    low = _lam(0.0, [verdicts.BOTH_RISE, 0.9, 0.8, 0.7], [0.99, 0.95, 0.85, 0.7])
    assert not verdicts.floor_tradeoff(pd.concat([low, turning]))["both_rise"]
    noisy = turning.assign(p_s_se=0.05)
    loose = verdicts.floor_tradeoff(pd.concat([rising, noisy]))
    assert not loose["turns"] and loose["ci"][0] < loose["margin"] < loose["ci"][1]


def test_the_resolution_is_compared_with_the_paper_on_its_own_measure():
    row = {"resolution": 75.0, "ci_low": 60.0, "ci_high": 90.0}
    cross = verdicts.Headline("chance crossover", True, True, (), row)
    claim = verdicts.resolution_claim(cross, robust=True)
    assert claim["identified"] and claim["headline"] == 75.0 and claim["ci"] == (60.0, 90.0)
    assert (claim["paper_value"], claim["margin"]) == (75.0, 5.0) and claim["margin_reason"]
    not_robust = verdicts.resolution_claim(cross, robust=False)
    assert not not_robust["identified"] and "headline" not in not_robust


def _sweep(b=0.3, delta=0.0, ns=(2, 4, 8, 16), se=0.004, shift=0.0):
    from semres.core import theory

    p_s, p_i = (np.asarray(v, float) for v in theory.n_item(b, np.array(ns), delta))
    return pd.DataFrame(
        [{"task": "identification", "n": n, "p": p, "se": se} for n, p in zip(ns, p_i)] +
        [{"task": "similarity", "n": n, "p": p + (shift if n == ns[-1] else 0.0), "se": se}
         for n, p in zip(ns, p_s)])


def test_theorem3_with_its_floor_is_judged_cell_by_cell_against_its_margin():
    """Rates drawn from Theorem 3 with a floor: the floored fit recovers it and holds; with one
    cell pushed beyond the margin it does not hold; pushed to the margin's edge, it cannot
    tell; the floor-free form misses the floored data."""
    from semres.report import Report

    truth = _sweep(b=0.2, delta=0.3)
    forms = verdicts.theorem3_forms(truth, gof_boot=0, seed=0)
    fit = forms["floor"]
    assert fit["b"] == pytest.approx(0.2, abs=0.01) and fit["delta"] == pytest.approx(0.3,
                                                                                      abs=0.01)

    def judged(sweep, form="floor"):
        f = verdicts.theorem3_forms(sweep, gof_boot=0, seed=0)[form]
        cells = verdicts.theorem3_grid(f, sweep)
        common = verdicts.theorem3_common(f)
        state = verdicts.grid_status(cells, common, new=form == "floor")
        report = Report("05_llm_years")
        report.table = lambda df, name: None  # no file for a test's grid
        assert report.grid_result("t3", "s", cells, "t3", new=form == "floor",
                                  **common) == state
        return state, report.rows[-1]

    assert judged(truth)[0] == "holds"
    far, row = judged(_sweep(b=0.2, delta=0.3, shift=0.2))
    assert far == "does not hold" and row["miss"] == pytest.approx(row["headline"])
    assert abs(row["headline"]) > verdicts.MISS_MATTERS
    edge = _sweep(b=0.2, delta=0.3, shift=0.06, se=0.02)
    assert judged(edge)[0] == "inconclusive"
    assert judged(truth, "free")[0] == "does not hold"


def test_the_floor_bound_holds_the_rates_of_a_constant_kernel_with_that_floor():
    truth = _sweep(b=0.2, delta=0.3)
    fit = verdicts.theorem3_forms(truth, gof_boot=0, seed=0)["floor"]
    table = verdicts.floor_bound_table(fit, truth)
    assert list(table.n) == [2, 4, 8, 16] and table.within.all()
    assert (table.slack > -0.01).all()
    assert int(table.within.sum()) == 4
    # rates above what the floor allows are said to be
    over = truth.assign(p=np.where(truth.task == "similarity", truth.p + 0.2, truth.p))
    assert not verdicts.floor_bound_table(fit, over).within.any()
    assert verdicts.floor_bound_table({**fit, "delta": 0.0}, truth).empty
    # a floor fitted at the bottom of its range tests nothing
    none = verdicts.floor_bound_table({**fit, "delta": 1e-6}, truth)
    assert float(none.delta.iloc[0]) < verdicts.NO_FLOOR


def test_a_kernel_misfit_says_how_far_it_misses():
    from semres.experiments.llm import kernel_fits

    d = np.arange(1, 200, 5.0)
    g = np.exp(-d / 30) + 0.05
    bumps = g * (1 + 0.2 * np.sin(d / 7))
    se = 0.002 * g
    fit = kernel_fits.fit_shape(d, bumps, "exp_floor", se=se)
    size = verdicts.kernel_fit_size(d, bumps, se, fit)
    assert fit["misfit"] and size["dispersion"] > 10
    assert 0 < size["explained_null"] < 1 and size["rms_gap"] > size["rms_sampling"]
    clean = kernel_fits.fit_shape(d, g, "exp_floor", se=se)
    assert verdicts.kernel_fit_size(d, g, se, clean)["dispersion"] < 1e-3
