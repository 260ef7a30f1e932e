"""The biased Luce choice model: known weights and scale are recovered from synthetic choices."""

import numpy as np
import pytest

from semres.core import choice, fits
from semres.experiments.vlm_shapes import scenes as sc


def _synthetic(count, ns, scale, floor, weights, seed):
    scenes = sc.sample_scenes(count, ns, "similarity", seed)
    d = [s.distances for s in scenes]
    opts = [list(s.names) for s in scenes]
    p = choice.choice_probs(d, opts, scale, floor, weights)
    rng = np.random.default_rng(seed)
    return d, opts, np.array([rng.choice(len(q), p=q) for q in p]), scenes


BIASED = {n: 1.0 for n in sc.SHAPES} | {"triangle": 5.0, "star": 0.4}


def test_recovers_weights_and_scale_from_choices():
    d, opts, c, _ = _synthetic(2500, [2, 4, 6], 0.05, 0.01, BIASED, seed=1)
    fit = choice.fit_choices(d, opts, choice=c, boot=40, seed=2)
    true = np.array([BIASED[n] for n in fit["names"]])
    true = dict(zip(fit["names"], true / true.sum()))
    assert fit["scale"] == pytest.approx(0.05, rel=0.15)
    assert fit["floor"] == pytest.approx(0.01, rel=0.8) and fit["distance_p"] < 1e-6
    assert fit["scale_ci"][0] < 0.05 < fit["scale_ci"][1]
    assert not fit["at_bound"]
    for name in ("triangle", "star", "square"):
        assert fit["weights"][name] == pytest.approx(true[name], rel=0.2)
    # the heavy and light answers are told apart by their intervals
    assert fit["weights_ci"]["triangle"][0] > fit["weights_ci"]["square"][1]
    assert fit["weights_ci"]["star"][1] < fit["weights_ci"]["square"][0]
    assert sum(fit["weights"].values()) == pytest.approx(1)


def test_floor_reaches_zero_and_bias_free_fit_is_biased():
    """Choices made without a floor fit a floor of exactly 0; ignoring a strong response bias
    moves the fitted scale (the bias is absorbed), modelling it does not."""
    w = {n: 1.0 for n in sc.SHAPES} | {"triangle": 20.0}
    d, opts, c, _ = _synthetic(2500, [4], 0.03, 0.0, w, seed=3)
    fit = choice.fit_choices(d, opts, choice=c)
    assert fit["floor"] == 0 and not fit["at_bound"]
    assert fit["scale"] == pytest.approx(0.03, rel=0.15)
    plain = choice.fit_choices(d, opts, choice=c, bias=False)
    assert plain["loglik"] < fit["loglik"] - 50
    assert abs(np.log(plain["scale"] / 0.03)) > 2 * abs(np.log(fit["scale"] / 0.03))


def test_soft_counts_and_unread_answers():
    """Option probabilities as soft counts fit the scale that made them exactly; trials with no
    answer read (-1) are dropped, not counted as errors."""
    d, opts, c, _ = _synthetic(400, [2, 3, 5], 0.04, 0.0, None, seed=4)
    probs = choice.choice_probs(d, opts, 0.04)
    fit = choice.fit_choices(d, opts, probs=probs, bias=False)
    assert fit["scale"] == pytest.approx(0.04, rel=1e-3) and fit["floor"] == 0
    c2 = c.copy()
    c2[::4] = -1
    assert choice.fit_choices(d, opts, choice=c2)["trials"] == int((c2 >= 0).sum())


def test_answers_without_distance_dependence_are_flagged():
    """Answers that prefer the farthest shape pin the kernel flat (a bound, reported); answers
    that ignore the geometry are not significantly better explained with distance."""
    d, opts, _, scenes = _synthetic(600, [4], 0.05, 0.0, None, seed=5)
    far = np.array([int(np.argmax(x)) for x in d])
    fit = choice.fit_choices(d, opts, choice=far)
    assert fit["at_bound"] and ("log_scale=upper" in fit["bound_params"]
                                or "log_floor=upper" in fit["bound_params"])
    c = np.random.default_rng(6).integers(0, 4, len(d))
    assert choice.fit_choices(d, opts, choice=c)["distance_p"] > 0.01


def _two_regimes(seed=0):
    """Answers to close options (all within 0.04) made with a sharp kernel (scale 0.004) and to
    far ones (0.2 to 1) with a broad one (0.4), under a 5:1 answer bias."""
    rng = np.random.default_rng(seed)
    d = np.r_[rng.uniform(0, 0.04, (100, 4)), rng.uniform(0.2, 1.0, (300, 4))]
    opts = [list(rng.permutation(["square", "triangle", "heart", "star"])) for _ in d]
    w = {"square": 1.0, "triangle": 5.0, "heart": 1.0, "star": 1.0}
    c = []
    for i, (x, o) in enumerate(zip(d, opts)):
        p = np.array([w[n] for n in o]) * np.exp(-x / (0.004 if i < 100 else 0.4))
        c.append(rng.choice(4, p=p / p.sum()))
    return d, opts, np.array(c)


def test_full_fit_takes_the_best_of_several_starting_scales(monkeypatch):
    """The likelihood has two optima: a sharp kernel with a floor (the far answers look
    uniform) and a broad kernel without one. From the single start d_typ / 3 every optimiser
    run ends on the broad one, 60 log-likelihood units worse; the extra starting scales find the
    sharp one, and no fit held at one scale does better than the free fit."""
    d, opts, c = _two_regimes()
    fit = choice.fit_choices(d, opts, choice=c, boot=3, seed=1)
    assert fit["scale"] == pytest.approx(0.004, rel=0.3)
    for s in np.geomspace(1e-3, 3, 8):
        held = choice.fit_choices(d, opts, choice=c, scale_range=(s * 0.999, s * 1.001))
        assert fit["loglik"] >= held["loglik"] - 1e-6
    monkeypatch.setattr(choice, "SCALE_STARTS", 0)
    one = choice.fit_choices(d, opts, choice=c)
    assert one["loglik"] < fit["loglik"] - 10 and one["scale"] > 0.1


def test_padding_is_not_an_option():
    rows = [np.array([0.1, 0.3]), np.array([0.1, 0.3, 0.2, 0.9])]
    opts = [["square", "star"], ["square", "star", "heart", "moon"]]
    p = choice.choice_probs(rows, opts, 0.1, 0.05)
    g = np.exp(-rows[0] / 0.1) + 0.05
    np.testing.assert_allclose(p[0], g / g.sum())
    assert [len(x) for x in p] == [2, 4]


def test_bad_input_raises():
    rows = [np.array([0.1, 0.3])] * 3
    opts = [["square", "star"]] * 3
    with pytest.raises(ValueError, match="choice, probs"):
        choice.fit_choices(rows, opts)
    with pytest.raises(ValueError, match="choice"):
        choice.fit_choices(rows, opts, choice=[0, 5, 1])
    with pytest.raises(ValueError, match="options"):
        choice.fit_choices(rows, opts[:2], choice=[0, 1, 1])
    with pytest.raises(ValueError, match="probs"):
        choice.fit_choices(rows, opts, probs=[[0.5, 0.6]] * 3)
    with pytest.raises(ValueError, match="scale"):
        choice.choice_probs(rows, opts, 0.0)
    with pytest.raises(ValueError, match="boot"):
        choice.fit_choices(rows, opts, choice=[0, 1, 1], boot=-1)


def test_ball_radius_recovered_and_unidentified_when_flat():
    """Theorem 3 on the circle (b = 2 eps): rates made at eps = 0.08 give it back with an
    interval around it; identification rates of 1 at every n only bound eps from above."""
    from semres.core import theory

    ns = np.array([2, 4, 6, 8, 12])
    grid = np.linspace(0, 0.5, 251)

    def curve(task):
        return lambda e: [theory.n_item(min(2 * e, 1.0), n)[task] for n in ns]

    p = np.array(curve(1)(0.08))
    se = np.full(len(ns), 0.01)
    fit = choice.fit_ball(p + np.random.default_rng(0).normal(0, 0.01, len(ns)), se,
                          curve(1), grid)
    assert fit["identified"] and fit["ci_low"] < 0.08 < fit["ci_high"]
    assert fit["eps"] == pytest.approx(0.08, abs=0.01)
    # a confidence set narrower than the grid's step (0.05 here) is still an interval
    sharp = choice.fit_ball(p, np.full(len(ns), 0.002), curve(1), np.linspace(0, 0.5, 11))
    assert sharp["ci_low"] < 0.08 < sharp["ci_high"] and sharp["ci_high"] - sharp["ci_low"] < 0.05
    assert sharp["eps"] == pytest.approx(0.08, abs=0.002) and sharp["identified"]
    flat = choice.fit_ball(np.ones(len(ns)), se, curve(1), grid)
    assert not flat["identified"] and flat["ci_low"] == 0 and flat["at_bound"]
    with pytest.raises(ValueError, match="grid"):
        choice.fit_ball(p, se, curve(1), [0.1, 0.05, 0.2])


def test_gof_multinomial_matches_a_hand_deviance():
    counts = np.array([[3, 1], [0, 4], [2, 2]])
    probs = np.array([[0.5, 0.5], [0.25, 0.75], [0.5, 0.5]])
    hand = 2 * (3 * np.log(3 / 2) + 1 * np.log(1 / 2) + 4 * np.log(4 / 3))
    g = fits.gof_multinomial(counts, probs, 1)
    assert g["gof_stat"] == pytest.approx(hand)
    assert g["gof_df"] == 2
    from scipy.stats import chi2
    assert g["gof_p"] == pytest.approx(chi2.sf(hand, 2))
    assert g["gof_resolution"] == 0 and g["misfit"] is False
    with pytest.raises(ValueError, match="n_params"):
        fits.gof_multinomial(counts, probs, -1)
    with pytest.raises(ValueError, match="n_params"):  # no degrees of freedom left
        fits.gof_multinomial(counts, probs, 3)


def test_gof_chi2_is_calibrated_on_a_true_model():
    """Under the true rates the p-value is uniform: about 5 % of draws fall below 0.05."""
    rng = np.random.default_rng(0)
    truth, se = np.array([0.2, 0.5, 0.7, 0.9]), np.array([0.05, 0.04, 0.03, 0.02])
    ps = [fits.gof_chi2(truth + se * rng.standard_normal(4), truth, se, 0)["gof_p"]
          for _ in range(4000)]
    assert abs(np.mean(np.array(ps) < 0.05) - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 4000)
    assert fits.gof_chi2(truth + 0.2, truth, se, 0)["misfit"]


def _stencil_tables(rng, name_w, place_w, adv, trials):
    """Trials simulated one by one: names shuffled over the places, the Luce rule on them."""
    k = len(name_w)
    nt, ct = np.zeros((k, k)), np.zeros((k, k))
    for _ in range(trials):
        arr = rng.permutation(k)            # arr[place] = name
        r = rng.integers(k)                 # the correct place
        w = np.asarray(name_w)[arr] * np.asarray(place_w) * np.where(np.arange(k) == r, adv, 1)
        s = rng.choice(k, p=w / w.sum())
        nt[arr[r], arr[s]] += 1
        ct[r, s] += 1
    return nt, ct


def test_fit_name_corner_recovers_name_and_place_weights():
    rng = np.random.default_rng(1)
    name_w, place_w = np.array([0.1, 0.5, 0.3, 0.1]), np.array([0.2, 0.1, 0.5, 0.2])
    nt, ct = _stencil_tables(rng, name_w, place_w, 6.0, 4000)
    f = choice.fit_name_corner(nt, ct, boot=60, seed=2)
    assert np.allclose(f["name_weights"], name_w, atol=0.03)
    assert np.allclose(f["place_weights"], place_w, atol=0.03)
    assert f["advantage"] == pytest.approx(6.0, rel=0.15)
    assert f["gof_p"] > 0.01     # the data come from the model
    # 60 datasets resolve p down to 1/61 only: the rule says so, and the fit passes it
    assert f["gof_resolution"] == pytest.approx(1 / 61) and f["misfit"] is False
    assert "smallest possible value" in f["gof_test"]
    untested = choice.fit_name_corner(nt, ct)
    assert untested["misfit"] is None and np.isnan(untested["gof_p"])
    lo, hi = f["place_weights_ci"].T
    assert ((lo <= place_w + 0.01) & (place_w - 0.01 <= hi)).all()
    with pytest.raises(ValueError, match="corner_counts"):
        choice.fit_name_corner(nt, ct[:3, :3])


@pytest.mark.parametrize("k", [3, 4])
def test_name_corner_gradient_is_the_numerical_one(k):
    """The fit's analytic gradient (chain rule through the option softmax) against central
    differences of its likelihood, at a random point on random tables."""
    rng = np.random.default_rng(k)
    no, co = rng.integers(0, 40, (2, k, k)).astype(float)
    co *= no.sum() / co.sum()
    qn, qc = no.sum(1) / no.sum(), co.sum(1) / co.sum()
    x = rng.normal(0, 0.7, 2 * k - 1)
    _, _, _, grad = choice._name_corner_nll(x, k, no, co, qn, qc, True)

    def value(v):
        return choice._name_corner_nll(v, k, no, co, qn, qc, False)[0]

    h = 1e-6
    numeric = [(value(x + e) - value(x - e)) / (2 * h) for e in np.eye(2 * k - 1) * h]
    np.testing.assert_allclose(grad, numeric, atol=1e-6 * np.abs(grad).max())


def test_scale_profile_is_bounded_when_distance_matters_and_not_otherwise():
    rng = np.random.default_rng(4)
    d = rng.uniform(0, 1, size=(600, 4))
    p = np.exp(-d / 0.1)
    p /= p.sum(axis=1, keepdims=True)
    picks = np.array([rng.choice(4, p=q) for q in p])
    names = [list("abcd")] * len(d)
    f = choice.fit_choices(d, names, choice=picks, bias=False, profile=21)
    assert f["profile_bounded"]
    assert f["profile_ci"][0] < 0.1 < f["profile_ci"][1]
    flat = choice.fit_choices(d, names, choice=rng.integers(0, 4, len(d)), bias=False,
                              profile=21)
    assert not flat["profile_bounded"]
