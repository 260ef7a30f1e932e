"""The chapter-5 decisions: which measure is reported, and what the verdict sentences say."""

import numpy as np
import pandas as pd
import pytest

from semres.experiments.llm import years


def window_table(resolutions, cis, measure="chance crossover", at_bound=False):
    rows = [{"model": "m", "measure": measure, "window": w, "resolution": r, "ci_low": r - c,
             "ci_high": r + c, "at_bound": at_bound, "boot_at_bound": np.nan}
            for w, r, c in zip((100, 200, 300), resolutions, cis)]
    return pd.DataFrame(rows)


def test_a_measure_that_holds_still_across_its_windows_is_reported():
    table = pd.concat([window_table([80, 82, 81], [10, 10, 10]),
                       window_table([50, 150, 400], [5, 5, 5], "two-reference fit")])
    head = years.headline_measure(table, best_kernel=None, ref_stable=(200, 300),
                                  kernel_stable=(200, 300), n_boot=100)
    assert head.measure == "chance crossover" and head.stable and head.decided
    assert head.row["resolution"] == 81
    text = years.window_verdict("m", head, {"falling": True}, 100)
    assert "about 81 years" in text and "71–91" in text


def test_a_moving_or_censored_measure_is_not_reported_and_says_why():
    table = pd.concat([window_table([80, 200, 400], [10, 10, 10]),
                       window_table([80, 82, 81], [10, 10, 10], "two-reference fit",
                                    at_bound=True)])
    head = years.headline_measure(table, best_kernel=None, ref_stable=(200, 300),
                                  kernel_stable=(200, 300), n_boot=100)
    assert not head.stable
    assert any("moves by 200 years" in r for r in head.reasons)
    assert any("stops on a bound" in r for r in head.reasons)
    falling = {"falling": True, "slope": -0.5, "slope_se": 0.1, "from": 400, "to": 600}
    flat = {"falling": False, "g_from": 0.004, "g_to": 0.005, "from": 400, "to": 600}
    assert "still falling" in years.window_verdict("m", head, falling, 100)
    assert "flattens" in years.window_verdict("m", head, flat, 100)


def test_the_verdict_is_checked_for_every_choice_of_upper_windows():
    kernel = window_table([30, 60, 120], [5, 5, 5], "kernel exp_floor")  # grows: never stable
    # the crossover holds still over 200-300 only: one choice of windows finds it, two do not
    moving = pd.concat([window_table([40, 120, 121], [3, 3, 3]), kernel])
    kwargs = dict(best_kernel="kernel exp_floor", kernel_windows=(100, 200, 300),
                  ref_windows=(100, 200, 300), kernel_stable=(100, 300), n_boot=100)
    choices = years.window_choices(moving, ref_stable=(100, 300), **kwargs)
    # the chapter's own choice (100-300 for both) appears once, among the design rows
    assert list(choices.upper_windows) == ["100–300", "200–300", "200–300"]
    assert choices.stable.tolist() == [False, True, False]
    assert not years.same_for_every_choice(choices)
    text = years.choice_verdict(choices)
    assert text.startswith("The verdict depends") and "1 of 3 choices finds" in text
    assert "chance crossover with design windows 200–300 (121 years)" in text
    # a crossover that holds still everywhere: every choice agrees
    still = pd.concat([window_table([80, 82, 81], [10, 10, 10]), kernel])
    agree = years.window_choices(still, ref_stable=(200, 300), **kwargs)
    assert agree.stable.all() and "does not depend" in years.choice_verdict(agree)
    assert years.same_for_every_choice(agree)
    # every choice finds a stable measure, but not the same one: the verdict depends on it
    mixed = agree.assign(measure=["chance crossover", "two-reference fit", "chance crossover"])
    assert not years.same_for_every_choice(mixed)
    assert "not the same measure" in years.choice_verdict(mixed)
    nothing = pd.concat([window_table([40, 120, 300], [3, 3, 3]), kernel])
    none = years.window_choices(nothing, ref_stable=(200, 300), **kwargs)
    assert not none.stable.any() and "no measure is stable" in years.choice_verdict(none)
    assert years.same_for_every_choice(none)


def test_too_few_resamples_decide_nothing():
    table = window_table([80, 82, 81], [10, 10, 10])
    head = years.headline_measure(table, best_kernel=None, ref_stable=(200, 300),
                                  kernel_stable=(200, 300), n_boot=years.MIN_BOOT - 1)
    assert not head.decided and not head.stable
    assert "not decided" in years.window_verdict("m", head, {}, years.MIN_BOOT - 1)


def test_tail_trend_tells_a_falling_kernel_from_a_floor():
    d = np.arange(0, 601)
    se = np.full(d.shape, 1e-4)
    falling = years.tail_trend(d, np.exp(-d / 150), se * np.exp(-d / 150))
    assert falling["falling"] and falling["slope"] == pytest.approx(-100 / 150, rel=1e-6)
    rng = np.random.default_rng(0)
    flat = years.tail_trend(d, 0.004 + 1e-5 * rng.standard_normal(d.shape), np.full(d.shape, 1e-5))
    assert not flat["falling"]


def test_sweep_verdict_measures_the_gap_in_standard_errors():
    sweep = pd.DataFrame({"task": "similarity", "n": [2, 4, 8], "p": [0.8, 0.6, 0.4],
                          "se": 0.01, "p_theory": [0.8, 0.6, 0.5], "theory_se": 0.0})
    v = years.sweep_verdict(sweep)["similarity"]
    assert v["max_gap"] == pytest.approx(-0.1) and v["gap_n"] == 8
    assert v["max_z"] == pytest.approx(10) and not v["within"] and v["falls"]


def test_tradeoff_needs_p_s_to_turn_down_while_p_i_holds():
    base = {"temperature": [0.01, 0.1, 1.0], "p_s_se": 0.005, "p_i_se": 0.005,
            "p_s_theory": [0.9, 0.8, 0.6], "p_i_theory": [0.99, 0.9, 0.7],
            "p_s_theory_se": 0.001, "p_i_theory_se": 0.001}
    trades = pd.DataFrame({**base, "p_s": [0.6, 0.8, 0.55], "p_i": [0.99, 0.9, 0.7]})
    plain = pd.DataFrame({**base, "p_s": [0.9, 0.8, 0.6], "p_i": [0.99, 0.9, 0.7]})
    assert years.tradeoff_verdict(trades)[:2] == (True, False)
    assert years.tradeoff_verdict(plain)[:2] == (False, False)


def test_wing_asymmetry_compares_the_two_sides_of_the_design():
    counts = pd.DataFrame({"centre": 0.0, "D": 100.0, "offset": [-400.0, 400.0],
                           "trials": [1000.0, 1000.0], "correct": [785.0, 530.0]})
    w = years.wing_asymmetry(counts, D=100)
    assert w["differ"] and w["p_before"] == 0.785 and w["p_after"] == 0.53
    same = counts.assign(correct=[530.0, 540.0])
    assert not years.wing_asymmetry(same, D=100)["differ"]


def test_temperature_rescales_the_option_scores():
    rows = pd.DataFrame({"model": "m", "task": "identification", "n": 2,
                         "options": ["A|B", "A|B"], "correct": ["A", "B"],
                         "scores": ["0|-1", "0|-1"]})
    t = years.temperature_from_results(rows, [1.0, 1e-3]).set_index("temperature")
    p1 = 1 / (1 + np.exp(-1))
    assert t.p[1.0] == pytest.approx((p1 + (1 - p1)) / 2)
    assert t.p[1e-3] == pytest.approx(0.5, abs=1e-6)  # always picks A: right half the time


def test_the_sweep_sentence_takes_its_n_gap_and_z_from_one_cell():
    # the largest gap (n = 4) is not the largest |z| (n = 14, measured tightly): the sentence
    # names the cell of the largest |z| and quotes that cell's own gap
    sweep = pd.DataFrame({"task": "similarity", "n": [2, 4, 14], "p": [0.8, 0.538, 0.2],
                          "se": [0.01, 0.005, 0.001], "p_theory": [0.8, 0.6, 0.187],
                          "theory_se": 0.0})
    v = years.sweep_verdict(sweep)["similarity"]
    assert v["gap_n"] == 14 and v["max_gap"] == pytest.approx(0.013)
    assert v["max_z"] == pytest.approx(13.0)
    assert "at n = 14, by +0.013 (z = +13.0)" in v["text"]
