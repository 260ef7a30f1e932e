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
    scorer = lm.Scorer((trained, tok), batch_size=64)
    held_out = trials.draw_trials("identification", 2, 300, 99, years=YEARS, n_names=len(NAMES))
    scored = lm.score_trials(scorer, held_out, NAMES, progress=False)
    accuracy = (scored.scores.argmax(1) == held_out.correct.argmax(1)).mean()
    assert accuracy > 0.7, accuracy  # chance is 1/2
    g = competence.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    assert g["trials"] == 4 * math.ceil(competence.gate_size() / 4) and g["pool"] == NAMES
    assert g["names"] == len(NAMES) and g["df"] == len(NAMES) - 1
    assert g["verdict"] == "passes" and g["p_value"] < 1e-4 and g["ci_low"] > 0.55
    # the balanced design: each pair in both orders, both people asked
    tr = g["scored"].trials
    assert (tr.correct[:, 0].mean(), len(np.unique(tr.group))) == (0.5, len(tr) // 2)


@pytest.mark.parametrize("which", ["untrained", "shuffled"])
def test_gate_stops_a_model_that_guesses(tok, guesser, which):
    net = model(len(tok), 2) if which == "untrained" else guesser
    scorer = lm.Scorer((net, tok), batch_size=64)
    g = competence.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    assert g["verdict"] == "does not do the task"
    assert g["ci_low"] < 0.5 < g["ci_high"] and g["se"] >= g["se_iid"]


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
    scorer = lm.Scorer((trained, tok), batch_size=64)
    r = competence.reverse_direction(scorer, trials=80, names=NAMES, years=YEARS, seed=0,
                                     progress=False)
    assert r["trials"] == 80 and r["option_tokens"] == [1]
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
