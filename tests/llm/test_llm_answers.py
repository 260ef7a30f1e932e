"""semres.experiments.llm.answers: any model's answers through the tidy schema."""

import numpy as np

from semres.core import results
from semres.experiments.llm import answers, trials


def test_results_round_trip_through_the_schema(tmp_path):
    tr = trials.draw_trials("identification", 3, 200, 5, years=(1500, 1600))
    rng = np.random.default_rng(0)
    truth = np.argmax(tr.correct, 1)
    choice = np.where(rng.random(200) < 0.7, truth, rng.integers(0, 3, 200))
    choice[:10] = -1  # ten unanswered prompts
    df = trials.trials_to_results(tr, choice, model="m")
    results.write_results(df, tmp_path / "r.csv")
    back = results.read_results(str(tmp_path / "r.csv"))
    by_n = answers.results_by_n(back)
    assert by_n.trials.iloc[0] == 190 and by_n.nulls.iloc[0] == 10
    assert by_n.correct.iloc[0] == int((choice[10:] == truth[10:]).sum())
    pairs = trials.draw_trials("similarity", 2, 50, 1, years=(1500, 1600))
    counts = answers.two_reference_from_results(
        trials.trials_to_results(pairs, np.zeros(50, int), model="m"))
    assert counts.trials.sum() == 50


