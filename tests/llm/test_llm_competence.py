"""semres.experiments.llm.competence: the gate, its size and power, the biases the balanced design
cancels, the question asked backwards and the probe of hidden states, on a tiny Llama trained
here to do identification (and its untrained and guessing twins)."""

import math

import numpy as np
import pytest
from tiny_lm import NAMES, YEARS, model

from semres.core import results
from semres.experiments.llm import competence, lm, trials


def test_gate_size_has_its_stated_power():
    """Monte Carlo of the one-sided z-test with the worst-case (0/1) variance."""
    m = competence.gate_size()
    assert m == math.ceil(((1.6448536 * 0.5 + 0.8416212 * math.sqrt(0.55 * 0.45)) / 0.05) ** 2)
    rng = np.random.default_rng(0)
    crit = 0.5 + 1.6448536 * 0.5 / math.sqrt(m)
    power = (rng.binomial(m, 0.55, 20000) / m > crit).mean()
    size = (rng.binomial(m, 0.5, 20000) / m > crit).mean()
    assert abs(power - 0.8) < 0.02 and abs(size - 0.05) < 0.01
    with pytest.raises(ValueError, match="p1"):
        competence.gate_size(0.5, 0.4)


def test_gate_passes_a_model_that_does_the_task(tok, trained):
    scorer = lm.Scorer((trained, tok), batch_tokens=4096)
    held_out = trials.draw_trials("identification", 2, 300, 99, years=YEARS, n_names=len(NAMES))
    scored = lm.score_trials(scorer, held_out, NAMES, progress=False)
    accuracy = (scored.scores.argmax(1) == held_out.correct.argmax(1)).mean()
    assert accuracy > 0.7, accuracy  # chance is 1/2
    g = competence.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    planned = 4 * math.ceil(competence.gate_size() / 4)
    assert g["planned"] == planned and g["pool"] == NAMES
    # a model this clear passes at the first look, on the first quarter of the sized design
    assert (g["look"], g["looks"], g["stopped"]) == (1, 4, "pass")
    assert g["trials"] == competence.look_sizes(planned, 4)[0] == len(g["scored"].trials)
    assert g["names"] == len(NAMES) and g["df"] == len(NAMES) - 1
    assert g["verdict"] == "passes" and g["p_value"] < 1e-4 and g["ci_low"] > 0.55
    # the balanced design: each pair in both orders, both people asked
    tr = g["scored"].trials
    assert (tr.correct[:, 0].mean(), len(np.unique(tr.group))) == (0.5, len(tr) // 2)
    # the trials scored are the first of the design drawn from the seed: the same seed, the
    # same trials and the same answers
    design = trials.balanced_trials("identification", 2, planned // 4, 1, years=YEARS,
                                    n_names=len(NAMES))
    assert (tr.names == design.names[:len(tr)]).all() and (tr.years == design.years[:len(tr)]).all()
    again = competence.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    assert np.array_equal(again["scored"].scores, g["scored"].scores)
    assert np.array_equal(again["scored"].sample(5), g["scored"].sample(5))
    # the answers are those the whole design would draw at these trials
    u = np.random.default_rng(5).random(len(design))[:len(tr)]
    assert np.array_equal(g["scored"].sample(5), (u > g["scored"].probs[:, 0]).astype(int))


@pytest.mark.parametrize("which", ["untrained", "shuffled"])
def test_gate_stops_a_model_that_guesses(tok, guesser, which):
    net = model(len(tok), 2) if which == "untrained" else guesser
    scorer = lm.Scorer((net, tok), batch_tokens=4096)
    g = competence.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    assert g["verdict"] == "does not do the task"
    assert g["ci_low"] < 0.5 < g["ci_high"] and g["se"] >= g["se_iid"]


def _simulated_masses(design, mean, spread, seed):
    """Per-trial masses with mean ``mean``: a pull per name (the clusters the test counts) and
    noise per trial, clipped to [0, 1]; ``spread`` None: a confident model's, 0 or 1."""
    rng = np.random.default_rng(seed)
    pull = 0.05 * rng.standard_normal(design.names.max() + 1)
    m = mean + pull[design.names].mean(1)
    if spread is None:
        return (rng.random(len(design)) < m).astype(float)
    return np.clip(m + spread * rng.standard_normal(len(design)), 0, 1)


def _run(masses, members, **kwargs):
    """The sequential test on precomputed masses, recording which rows each look asked for."""
    asked = []

    def mass_of(rows):
        asked.append(rows)
        return masses[rows]

    return competence.sequential(mass_of, members, **kwargs), asked


DESIGN = trials.balanced_trials("identification", 2, 155, 0, n_names=60)


@pytest.mark.parametrize("mean,stopped,look,verdict", [
    (0.8, "pass", 1, "passes"),                   # a clear pass: the first look
    (0.5, "fail", 1, "does not do the task"),     # a clear fail: its interval ends below 0.55
    (0.52, "last look", 4, None)])                # unsettled: every trial, the fixed test
def test_the_sequential_test_stops_when_the_verdict_is_settled(mean, stopped, look, verdict):
    masses = _simulated_masses(DESIGN, mean, 0.1 if stopped != "last look" else None, 1)
    out, asked = _run(masses, DESIGN.names)
    sizes = competence.look_sizes(len(DESIGN), 4)
    assert sizes == [156, 312, 468, 620]
    assert (out["stopped"], out["look"], out["looks"], out["planned"]) == (stopped, look, 4, 620)
    # each look scores the next rows of the design, never one twice
    assert np.array_equal(np.concatenate(asked), np.arange(sizes[look - 1]))
    assert out["trials"] == sizes[look - 1]
    # the rule, look by look, from the fixed test on each prefix: no earlier look settled it
    for k, size in enumerate(sizes[:look], start=1):
        t = competence.above_chance(masses[:size], DESIGN.names[:size])
        settled = ("pass" if t["p_value"] < 0.0013499 else  # z = 3's one-sided p
                   "fail" if t["ci_high"] < 0.55 else None)
        if k < look:
            assert settled is None, k
        elif look < len(sizes):
            assert settled == stopped
    assert out["p"] == t["p"] and out["ci_high"] == t["ci_high"]
    assert out["verdict"] == (verdict or t["verdict"])  # the last look: the fixed design's test
    again, _ = _run(masses, DESIGN.names)
    assert again == out


def test_the_sequential_test_keeps_its_level_under_the_null():
    """1,000 designs of 50 lists (200 trials, 60 names) whose true mean mass is 1/2: the share
    that pass is at most 0.05 within 2 standard errors of a share (about 0.014); the same
    designs tested once, at the end, pass about as often."""
    design = trials.balanced_trials("identification", 2, 50, 3, n_names=60)
    runs = 1000
    passed, fixed = 0, 0
    for k in range(runs):
        masses = _simulated_masses(design, 0.5, 0.15, 100 + k)
        passed += _run(masses, design.names)[0]["verdict"] == "passes"
        fixed += competence.above_chance(masses, design.names)["verdict"] == "passes"
    se = math.sqrt(0.05 * 0.95 / runs)
    assert passed / runs <= 0.05 + 2 * se, passed / runs
    assert passed <= fixed + 0.005 * runs  # the interim looks add about one in a thousand


def test_the_sequential_test_refuses_bad_looks():
    with pytest.raises(ValueError, match="looks"):
        competence.look_sizes(620, 4, (0.5, 0.25, 1.0))
    with pytest.raises(ValueError, match="looks"):
        competence.look_sizes(620, 4, (0.5, 0.9))  # never the whole design
    with pytest.raises(ValueError, match="trials"):
        competence.look_sizes(622, 4)
    # shares that round to one look are one: 2 lists in 4 looks
    assert competence.look_sizes(8, 4) == [4, 8]


def test_biases_are_measured_where_the_design_makes_them_zero():
    """A model that always prefers the first-listed name: mass 1 on it, so position bias 1/2
    and its identification mass exactly 1/2 in the balanced design."""
    tr = trials.balanced_trials("identification", 2, 30, 4, years=YEARS, n_names=len(NAMES))
    scores = np.tile([0.0, -50.0], (len(tr), 1))
    lengths = np.tile([1, 2], (len(tr), 1))
    scored = lm.ScoredTrials(tr, NAMES, [""] * len(tr), scores, "first", lengths)
    b = competence.biases(scored)
    assert b["position"]["p"] == pytest.approx(0.5) and b["length"]["p"] == pytest.approx(0.5)
    assert scored.mass.mean() == pytest.approx(0.5)
    # one sampled answer per trial follows the model's probabilities
    fair = lm.ScoredTrials(tr, NAMES, [""] * len(tr), np.zeros((len(tr), 2)), "coin", lengths)
    draws = np.concatenate([fair.sample(k) for k in range(20)])
    assert abs(draws.mean() - 0.5) < 0.05 and (scored.sample(0) == 0).all()


def test_reverse_direction_scores_years_and_keeps_its_trials(tok, trained):
    scorer = lm.Scorer((trained, tok), batch_tokens=4096)
    r = competence.reverse_direction(scorer, trials=80, names=NAMES, years=YEARS, seed=0,
                                     progress=False)
    # sequential: the 80 planned trials, scored in looks until the verdict is settled
    assert r["planned"] == 80 and r["trials"] == len(r["scored"].mass) <= 80
    assert r["option_tokens"] == [1]
    sc = r["scored"]
    assert sc.texts[0].endswith("single year.\nAnswer:")  # the completion form
    assert "When was" in sc.texts[0] and 0 <= r["ci_low"] <= r["p"] <= r["ci_high"] <= 1
    assert r["verdict"] in ("passes", "does not do the task")
    rows = lm.to_results(sc, source="reverse question", seed=1)
    results.validate(rows)
    first = rows.iloc[0]
    who = sc.trials.names[0][sc.trials.correct[0]][0]
    assert f"When was {NAMES[who]} born?" in first.prompt and first.correct in first.options


class _Stub:
    name = "stub"


@pytest.mark.parametrize("kind", ["graded", "digits", "noise"])
def test_year_probe_and_its_controls(monkeypatch, kind):
    """Hidden states built to hold the year as a quantity, only as digit tokens, or nothing:
    the probe must tell the three apart through its two controls."""
    rng = np.random.default_rng(0)

    def fake_hidden(scorer, texts, progress):
        yrs = np.array([int(t.split()[-1].rstrip(".")) for t in texts])
        feats = {"graded": lambda: np.stack([(yrs - 1700) / 100, np.sin(yrs / 37)], 1),
                 "digits": lambda: competence._digit_features(yrs),
                 "noise": lambda: np.zeros((len(yrs), 2))}[kind]()
        x = np.concatenate([feats, rng.normal(0, 0.05, (len(yrs), 6))], 1)
        return np.stack([rng.normal(0, 1, x.shape), x], 1)  # layer 0: noise, layer 1: the signal

    monkeypatch.setattr(competence, "_hidden", fake_hidden)
    pr = competence.year_probe(_Stub(), NAMES, range(1500, 1900, 3), seed=0, permutations=39,
                               progress=False)
    assert len(pr["profile"]) == 2 and set(pr["profile"].columns) >= {"mae", "r2", "digits_mae"}
    if kind == "graded":
        assert pr["best_layer"] == 1 and pr["p_value"] <= 0.05 and pr["mae"] < 10
        assert pr["vs_digits"]["ci_high"] < 0
    elif kind == "digits":  # held-out tens digits: digit tokens cannot interpolate
        assert pr["p_value"] <= 0.05 and pr["vs_digits"]["ci_high"] >= 0
        assert pr["digits_mae"] > 20
    else:
        assert pr["p_value"] > 0.05
