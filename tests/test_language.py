"""semres.experiments.llm.language: the year kernel, trials, the encoder path and the causal-LM
option scorer.

Everything runs offline: the causal-LM tests build a tiny GPT-2 from a config and a tokenizer
trained here with ``tokenizers``; the encoder tests use the bundled all-MiniLM-L6-v2 or
synthetic embeddings whose kernel is known exactly.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from semres.core import kernels, simulate, spaces
from semres.experiments.llm import language, years

os.environ.setdefault("HF_HUB_OFFLINE", "1")


# --------------------------------------------------------------------------- synthetic embeddings

def circle_embeddings(years=range(0, 101), names=("Ann", "Bob", "Cy", "Di", "Ed", "Flo"),
                      omega=0.02):
    """Items and questions on a circle: cos(q_P, s_y) = cos(omega (P - y)), whatever the name."""
    years = np.asarray(list(years))
    ang = omega * years
    vec = np.stack([np.cos(ang), np.sin(ang)], axis=1).astype(np.float32)
    items = np.repeat(vec[None], len(names), axis=0)
    questions = {t: np.stack([vec] * len(q)) for t, q in language.QUESTIONS.items()}
    return language.YearEmbeddings(tuple(names), years, items, questions,
                                   dict(language.QUESTIONS), "synthetic")


def test_measure_kernel_recovers_a_known_kernel():
    emb = circle_embeddings()
    prof = language.measure_kernel(emb, None, max_distance=60, block=25)
    d = prof.distance
    np.testing.assert_allclose(prof.mean_cosine(), np.cos(0.02 * d) - 1, atol=1e-6)
    np.testing.assert_allclose(prof.similarity(0.1), np.exp((np.cos(0.02 * d) - 1) / 0.1),
                               rtol=1e-5)
    assert prof.similarity()[0] == pytest.approx(1.0)
    assert np.all(prof.se() < 1e-5)  # every unit sees the same kernel
    with pytest.raises(ValueError, match="temperature"):
        prof.similarity(0.0)
    with pytest.raises(ValueError, match="max_distance"):
        language.measure_kernel(emb, None, max_distance=0)


@pytest.mark.parametrize("task", ["similarity", "identification"])
def test_encoder_mass_matches_the_engine_on_a_stationary_kernel(task):
    """With name-free, stationary embeddings the Luce mass is the engine's (ties included)."""
    emb = circle_embeddings()
    grid = emb.years
    temp = 0.01
    kern = years.MeasuredKernel(np.arange(101), np.exp((np.cos(0.02 * np.arange(101)) - 1) / temp))
    space = spaces.Discrete(np.abs(grid[:, None] - grid[None, :]).astype(float))
    for n in (2, 5):
        tr = language.draw_trials(task, n, 20_000, 11 + n, years=(0, 100),
                                  n_names=len(emb.names))
        mean, se = language.summarise(language.encoder_mass(emb, tr, temperature=temp))
        est = simulate.luce_success(space, kern, task, n, 200_000, 5 + n)
        assert abs(mean - est.mean) < 4 * math.hypot(se, est.stderr), (task, n, mean, est)


def test_draw_trials_semantics_and_determinism():
    a = language.draw_trials("similarity", 6, 500, 3, years=(1800, 1850), n_names=10)
    b = language.draw_trials("similarity", 6, 500, 3, years=(1800, 1850), n_names=10)
    np.testing.assert_array_equal(a.years, b.years)
    np.testing.assert_array_equal(a.names, b.names)
    assert all(len(set(row)) == 6 for row in a.names)  # no duplicate names in a prompt
    assert a.years.min() >= 1800 and a.years.max() <= 1850
    dist = np.abs(a.years - a.probe[:, None])
    np.testing.assert_array_equal(a.correct, dist == dist.min(1, keepdims=True))
    ident = language.draw_trials("identification", 4, 300, 1, years=(1800, 1850), n_names=10)
    assert (ident.correct.sum(1) == 1).all()
    assert (ident.years[ident.correct] == ident.probe).all()
    with pytest.raises(ValueError, match="n must be <="):
        language.draw_trials("similarity", 11, 10, 0, n_names=10)
    with pytest.raises(ValueError, match="task"):
        language.draw_trials("recall", 2, 10, 0)
    with pytest.raises(ValueError, match="years"):
        language.draw_trials("similarity", 2, 10, 0, years=(1900, 1800))


def test_resolution_trials_layout():
    tr = language.resolution_trials(20, [1500, 1600], [-40, 0, 35], 3, 0, n_names=5)
    assert len(tr) == 2 * 3 * 3
    np.testing.assert_array_equal(tr.years[:, 1] - tr.years[:, 0], 40)
    off = tr.probe - tr.years.mean(1)
    np.testing.assert_array_equal(tr.correct[:, 1], off >= 0)
    np.testing.assert_array_equal(tr.correct.sum(1), 1)


def test_two_reference_is_the_paper_curve():
    lam, floor, D = 30.0, 0.05, 50.0
    off = np.arange(-300, 300, 5.0)
    got = years.two_reference(off, D, kernels.Exponential(lam, floor))
    a = np.abs(off)
    near = np.exp(-np.abs(a - D) / lam) + floor
    want = near / (near + np.exp(-(a + D) / lam) + floor)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert years.two_reference(0, D, kernels.Exponential(lam, floor)) == pytest.approx(0.5)
    # no floor: constant 1 / (1 + e^(-2D/lambda)) beyond the references
    beyond = years.two_reference(off[np.abs(off) > D], D, kernels.Exponential(lam))
    np.testing.assert_allclose(beyond, 1 / (1 + np.exp(-2 * D / lam)), rtol=1e-9)


def test_fit_exp_floor_recovers_parameters():
    rng = np.random.default_rng(0)
    d = np.arange(0, 600.0)
    g = 0.2 * (np.exp(-d / 40) + 0.05) * (1 + 0.01 * rng.standard_normal(d.size))
    fit = years.fit_exp_floor(d, g)
    assert fit["lambda"] == pytest.approx(40, rel=0.05)
    assert fit["floor"] == pytest.approx(0.05, rel=0.05)
    assert fit["resolution"] == pytest.approx(fit["lambda"] * math.log(1 / fit["floor"]))
    with pytest.raises(ValueError, match="at least 4"):
        years.fit_exp_floor(d[:3], g[:3])


def test_bootstrap_interval_covers_the_truth():
    rng = np.random.default_rng(1)
    d = np.arange(0, 301)
    true = np.exp(-d / 25) + 0.1
    units = 40
    cos = 0.05 * np.log(true)[None] + 0.002 * rng.standard_normal((units, d.size))
    prof = language.KernelProfile(d, cos, np.ones_like(cos))
    boot = years.bootstrap_fit(prof, 60, 2)
    lo, hi = np.percentile(boot[:, 2], [2.5, 97.5])
    assert lo < 25 * math.log(10) < hi
    np.testing.assert_array_equal(boot, years.bootstrap_fit(prof, 60, 2))  # seeded


def test_measured_and_fitted_kernels():
    k = years.MeasuredKernel([0, 10, 20], [1.0, 0.5, 0.25])
    np.testing.assert_allclose(k(np.array([0.0, 5.0, 15.0, 40.0])), [1, 0.75, 0.375, 0.25])
    with pytest.raises(ValueError, match="similarity"):
        years.MeasuredKernel([0, 1], [1.0, -1.0])
    f = years.FittedKernel({"amplitude": 0.2, "lambda": 10.0, "offset": 0.02})
    np.testing.assert_allclose(f(np.array([0.0, 10.0])), [1.0, 0.2 * math.exp(-1) + 0.02])


# --------------------------------------------------------------------------- the real encoder

@pytest.fixture(scope="module")
def minilm_vectors(tmp_path_factory):
    os.environ["SEMRES_BUILD_DIR"] = str(tmp_path_factory.mktemp("build"))
    try:
        text = ["Alice was born in 1650.", "Who was born closest to 1650?",
                "Bernard was born in 1912.", "Alice was born in 1650."]
        one = language.embed_sentences(text, batch_size=1, cache=False)
        batched = language.embed_sentences(text, batch_size=3, cache=True)
        again = language.embed_sentences(text, batch_size=3, cache=True)
    finally:
        os.environ.pop("SEMRES_BUILD_DIR", None)
    return one, batched, again


def test_minilm_embeddings_are_unit_norm_and_padding_free(minilm_vectors):
    one, batched, again = minilm_vectors
    assert one.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(one, axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(one, batched, atol=1e-5)  # padding does not leak into the mean
    np.testing.assert_array_equal(batched, again)
    np.testing.assert_allclose(one[0], one[3], atol=1e-6)
    # a pretrained encoder (not random weights): the question is nearer its matching statement
    assert one[1] @ one[0] > one[1] @ one[2]


def test_unloadable_encoder_is_one_line():
    with pytest.raises(ValueError, match="cannot be loaded") as err:
        language.embed_sentences(["x"], "/nonexistent/encoder", cache=False)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- causal LM



def direct_logprob(model, prefix_ids, option_ids):
    """log p(option | prefix) from one unpadded sequence, token by token."""
    import torch

    ids = torch.tensor([list(prefix_ids) + list(option_ids)])
    with torch.no_grad():
        logp = torch.log_softmax(model(ids).logits[0].double(), -1)
    return sum(float(logp[len(prefix_ids) - 1 + i, t]) for i, t in enumerate(option_ids))


def _prompts():
    prompts = [language.year_prompt(["Alice", "Bernard", "Chiara"], [1650, 1700, 1810], 1690,
                                    "similarity"),
               language.year_prompt(["Dmitri", "Elena"], [1500, 1999], 1999, "identification", 1)]
    return prompts, [["Alice", "Bernard", "Chiara"], ["Dmitri", "Elena"]]










def test_invalid_parameters_name_the_argument():
    emb = circle_embeddings()
    tr = language.draw_trials("similarity", 2, 5, 0, years=(0, 100), n_names=6)
    with pytest.raises(ValueError, match="temperature"):
        language.encoder_mass(emb, tr, temperature=-1)
    bad = language.draw_trials("similarity", 2, 5, 0, years=(0, 200), n_names=6)
    with pytest.raises(ValueError, match="years"):
        language.encoder_mass(emb, bad)


# --------------------------------------------------------------------------- shapes, windows, fits

def noisy_profile(true, d, units=40, noise=0.002, seed=1):
    """A KernelProfile whose units scatter around log g = log(true) * T (known kernel)."""
    rng = np.random.default_rng(seed)
    cos = language.TEMPERATURE * np.log(true)[None] + noise * rng.standard_normal((units, d.size))
    cos -= cos[:, :1]  # g(0) = 1 per unit, as measure_kernel makes it
    return language.KernelProfile(d, cos, np.ones_like(cos))


def test_fit_exp_floor_refuses_a_p_correct_curve():
    """A two-reference P(correct) curve is not a kernel: against signed offsets, or one side."""
    off = np.arange(-300, 300, 5.0)
    p = years.two_reference(off, 50, kernels.Exponential(30.0, 0.05))
    with pytest.raises(ValueError, match="distance"):
        years.fit_exp_floor(off, p)
    side = off >= 0
    with pytest.raises(ValueError, match="not a kernel"):
        years.fit_exp_floor(off[side], p[side])
    with pytest.raises(ValueError, match="not a kernel"):
        years.fit_shape(off[side], p[side], "power_floor")
    d = np.arange(0, 300.0)  # a real kernel passes
    assert years.fit_exp_floor(d, np.exp(-d / 30) + 0.05)["lambda"] == pytest.approx(30, rel=1e-3)


@pytest.mark.parametrize("shape", list(years.SHAPES))
def test_each_shape_recovers_its_own_resolution(shape):
    d = np.arange(0, 601.0)
    params = {"exp_floor": {"lambda": 25.0, "floor": 0.02},
              "two_exp_floor": {"lambda": 5.0, "lambda2": 80.0, "weight": 0.3, "floor": 0.01},
              "power_floor": {"lambda": 10.0, "beta": 1.5, "floor": 0.01},
              "stretched_floor": {"lambda": 20.0, "beta": 0.7, "floor": 0.01}}[shape]
    g = 0.3 * (years._graded(shape, d, params) + params["floor"])
    fit = years.fit_shape(d, g, shape)
    assert fit["resolution"] == pytest.approx(years.shape_resolution(shape, params), rel=0.02)
    assert not fit["at_bound"]


def test_fit_bounds_are_reported():
    """A kernel with a floor pins nothing; a pure power law (no floor) pins the floor's bound."""
    d = np.arange(0, 601.0)
    with_floor = years.fit_shape(d, np.exp(-d / 25) + 0.02, "exp_floor")
    assert not with_floor["at_bound"] and with_floor["bound_params"] == ""
    no_floor = years.fit_shape(d, (1 + d) ** -1.2, "power_floor")
    assert no_floor["at_bound"] and "floor=lower" in no_floor["bound_params"]
    legacy = years.fit_exp_floor(d, np.exp(-d / 25) + 0.02)
    assert legacy["at_bound"] is False


def test_resolution_is_stable_across_windows_on_a_known_kernel():
    """exp + floor, true resolution 25 ln(1/0.05) = 74.9: every window 300-600 recovers it, the
    interval covers it, and the spread across windows is smaller than the interval."""
    d = np.arange(0, 601)
    true = np.exp(-d / 25) + 0.05
    prof = noisy_profile(true, d)
    table = years.resolution_by_window(prof, [100, 300, 400, 500, 600], 30, 3,
                                          shapes=("exp_floor",))
    upper = table[table.window >= 300]
    assert ((upper.ci_low < 25 * math.log(20)) & (upper.ci_high > 25 * math.log(20))).all()
    st = years.window_stability(table, [300, 400, 500, 600])
    assert st["stable"] and not st["censored"]
    assert not table.misfit.any()  # the right shape describes the kernel in every window
    # a kernel with no floor in the data: the fitted resolution grows with the window
    drift = years.resolution_by_window(noisy_profile((1 + d / 10.0) ** -1.5, d),
                                          [300, 400, 500, 600], 10, 3, shapes=("exp_floor",))
    assert not years.window_stability(drift, [300, 400, 500, 600])["stable"]
    assert drift.misfit.all()  # and an exponential does not describe a power law


def test_compare_shapes_picks_the_true_shape():
    d = np.arange(0, 401)
    true = np.exp(-d / 5) + 0.3 * np.exp(-d / 80) + 0.01
    prof = noisy_profile(true, d, noise=0.001)
    table = years.compare_shapes(prof, folds=4, seed=0)
    assert table.sort_values("heldout_rmse")["shape"].iloc[0] == "two_exp_floor"


def synthetic_two_reference(lam, floor, centres=30, prompts=20, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for D in (5, 20, 50, 100):
        for c in range(centres):
            off = np.arange(-300, 300, 10.0)
            p = years.two_reference(off, D, kernels.Exponential(lam, floor))
            k = rng.binomial(prompts, p)
            rows.append(pd_frame(c, D, off, prompts, k))
    import pandas as pd

    return pd.concat(rows, ignore_index=True)


def pd_frame(c, D, off, prompts, k):
    import pandas as pd

    return pd.DataFrame({"centre": float(c), "D": float(D), "offset": off,
                         "trials": float(prompts), "correct": k.astype(float)})


def test_fit_two_reference_recovers_a_known_scale():
    counts = synthetic_two_reference(30.0, 0.05)
    fit = years.fit_two_reference(counts, 40, 1)
    truth = 30 * math.log(1 / 0.05)
    assert fit["lambda"] == pytest.approx(30, rel=0.15)
    assert fit["ci_low"] < truth < fit["ci_high"]
    assert not fit["at_bound"] and fit["centres"] == 30
    again = years.fit_two_reference(counts, 40, 1)
    assert again["ci_low"] == fit["ci_low"]  # seeded
    with pytest.raises(ValueError, match="columns"):
        years.fit_two_reference(counts.drop(columns="centre"), 5, 0)


def test_chance_crossover_is_near_the_floor_resolution():
    """Where e^(-x/lambda) sinks to the floor, the preference is lost; with no floor it never is."""
    counts = synthetic_two_reference(20.0, 0.05, centres=40)
    cross = years.chance_crossover(counts, 30, 2)
    assert not cross["at_bound"]
    assert 20 <= cross["resolution"] <= 3 * 20 * math.log(20)
    never = years.chance_crossover(synthetic_two_reference(30.0, 1e-9), 10, 2)
    assert never["at_bound"] and "upper" in never["bound_params"]


def test_results_round_trip_through_the_schema(tmp_path):
    from semres.core import results

    tr = language.draw_trials("identification", 3, 200, 5, years=(1500, 1600))
    rng = np.random.default_rng(0)
    truth = np.argmax(tr.correct, 1)
    choice = np.where(rng.random(200) < 0.7, truth, rng.integers(0, 3, 200))
    choice[:10] = -1  # ten unanswered prompts
    df = language.trials_to_results(tr, choice, model="m")
    results.write_results(df, tmp_path / "r.csv")
    back = results.read_results(str(tmp_path / "r.csv"))
    by_n = years.results_by_n(back)
    assert by_n.trials.iloc[0] == 190 and by_n.nulls.iloc[0] == 10
    assert by_n.correct.iloc[0] == int((choice[10:] == truth[10:]).sum())
    pairs = language.draw_trials("similarity", 2, 50, 1, years=(1500, 1600))
    counts = years.two_reference_from_results(
        language.trials_to_results(pairs, np.zeros(50, int), model="m"))
    assert counts.trials.sum() == 50


def test_fit_ball_measure_recovers_b():
    from semres.core import theory

    ns = np.array([2, 4, 8, 16, 32])
    b = 0.1
    p = np.asarray(theory.n_item(b, ns)[1])
    fit = years.fit_ball_measure(ns, np.full(5, 100_000), np.rint(p * 100_000))
    assert fit["b"] == pytest.approx(b, rel=0.02) and not fit["at_bound"]
