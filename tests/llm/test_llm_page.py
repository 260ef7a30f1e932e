"""Chapter 5's page: the box opens with what came out, each result is said once (a row's one-line
statement is not its section's sentence), and the prose writes math as math."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pandas as pd

from semres.experiments.llm import page, page_encoder, page_lm, page_near


def _near(model="m", does=True, misfit=False):
    return {"model": model, "does": does,
            "competence": {"near": 5, "far": 50, "greedy_near": 0.59, "x_range": (0.0, 130.0),
                           "above": {"p": 0.538, "ci_low": 0.521, "ci_high": 0.556,
                                     "p_value": 0.0004, "pairs": 16},
                           "decay": {"p": 0.031, "ci_low": 0.006, "ci_high": 0.055,
                                     "p_value": 0.0086}},
            "best": {"shape": "exponential", "resolution": 30.4, "ci_low": 11.2,
                     "ci_high": 117.1, "misfit": misfit, "upper_bound": False, "finest_x": 1.0,
                     "relative_floor": 0.80, "gof_p": 0.97, "pairs": 16, "trials": 2000,
                     "at_bound": False},
            "fits": pd.DataFrame({"shape": ["exponential", "gaussian"],
                                  "resolution": [30.4, 35.0], "delta_aic": [0.0, 0.2],
                                  "best": [True, False]}),
            "crossover": {"at_bound": False, "resolution": 1.0, "ci_low": 1.0, "ci_high": 50.0,
                          "x_max": 130.0}}


def _gate(model, passes):
    return {"model": model, "gate": {"verdict": "passes" if passes else "fails",
                                     "p": 0.848 if passes else 0.506,
                                     "ci_low": 0.821 if passes else 0.484,
                                     "ci_high": 0.875 if passes else 0.528}}


def _protocol(trades=False):
    temps = pd.DataFrame({"temperature": [0.1, 1.0], "p_s": [0.52, 0.53], "p_s_se": [0.01, 0.01],
                          "p_i": [0.91, 0.85], "p_i_se": [0.01, 0.01]})
    if trades:
        temps = pd.DataFrame({"temperature": [0.1, 1.0], "p_s": [0.55, 0.70],
                              "p_s_se": [0.01, 0.01], "p_i": [0.95, 0.85],
                              "p_i_se": [0.01, 0.01]})
    return {"temperature": temps, "uniform": {"p": 0.506},
            "theorem3": {"p_identification": 0.003, "p_similarity": 0.0001, "sim_se_max": 0.03,
                         "n": [2, 4, 8]}}


def _words(text: str) -> list[str]:
    return re.findall(r"[\w.′'-]+", re.sub(r"\$[^$]*\$", " ", text).lower())


def _shares_eight_words(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    runs = {tuple(wa[i:i + 8]) for i in range(len(wa) - 7)}
    return any(tuple(wb[i:i + 8]) in runs for i in range(len(wb) - 7))


def test_the_lead_says_what_the_models_do_with_the_number_and_its_interval():
    assessed = {"q": _gate("q", True), "s": _gate("s", False)}
    lead = page.lead(assessed, {"q": _near("q"), "s": _near("s", does=False)},
                     {"q": _protocol()}, (False, False, ""))
    assert "about 30 years [11, 117]" in lead and "0.85 [0.82, 0.88]" in lead
    assert "does not trade $p_S$ for $p_I$" in lead and "misses" in lead
    assert "s does not identify anyone" in lead
    assert lead.count(". ") == 1 and lead.endswith("does not.")  # two sentences, the meaning last


def test_the_lead_says_so_when_no_model_has_a_resolution():
    assessed = {"q": _gate("q", True)}
    lead = page.lead(assessed, {"q": _near("q", does=False)}, {"q": _protocol()},
                     (False, False, ""))
    assert "shows no similarity of years (0.54 [0.52, 0.56]" in lead
    assert "cannot test the paper's 70–80-year resolution" in lead
    assert page.lead({}, {}, {}, (True, False, "")).startswith("No causal LM ran")


def test_a_rows_statement_is_not_its_sections_sentence():
    for r in (_near(), _near(does=False), _near(misfit=True)):
        statement = page_near.competence_statement(r)
        for section in (page_near.near_summary(r), page_near.near_details(r)):
            assert not _shares_eight_words(statement, section), (statement, section)
    r = _near()
    assert not _shares_eight_words(page_near.resolution_statement(r), page_near.near_summary(r))
    a = {"model": "q", "gate": {"verdict": "passes", "p": 0.848, "ci_low": 0.821,
                                "ci_high": 0.875, "names": 60, "trials": 620}}
    assert not _shares_eight_words(page_lm.gate_statement(a), page_lm.gate_text(a))


def test_the_page_writes_math_as_math():
    for text in (page_near.near_summary(_near()), page_near.near_summary(_near(does=False)),
                 page_lm.temperature_text({"model": "q", "does_similarity": True,
                                           "temperature": _protocol()["temperature"]}),
                 page.lead({"q": _gate("q", True)}, {"q": _near("q")}, {"q": _protocol()},
                           (False, False, ""))):
        bare = re.sub(r"\$[^$]*\$", "", text)
        assert not re.search(r"\bp_[SI]\b|\blambda\b|\bDelta\b|=None", bare), text


def test_the_window_summary_comes_before_the_details_in_plain_words():
    tail = {"falling": True}
    undecided = SimpleNamespace(decided=False, stable=False, measure="chance crossover", row={})
    assert "too few bootstrap resamples" in page_encoder.window_summary("m", undecided, tail,
                                                                        True)
    moving = SimpleNamespace(decided=True, stable=False, measure="chance crossover", row={})
    text = page_encoder.window_summary("m", moving, tail, False)
    assert text.startswith("It is a property of the window") and "still falling" in text
    settled = SimpleNamespace(decided=True, stable=True, measure="chance crossover",
                              row={"resolution": 81, "ci_low": 71, "ci_high": 91})
    assert "about 81 years (95 % interval 71–91)" in page_encoder.window_summary(
        "m", settled, tail, True)
    assert "property of the window" in page_encoder.window_summary("m", settled, tail, False)
