"""semres.experiments.llm.near: the near design and the kernel fitted across distances, on
answers simulated from a known similarity: the design is balanced, the fit recovers the
similarity within its interval, a flat model fails the competence test, a wrong shape reads
misfit, and the predicted front matches Theorem 2 on the segment."""

import math

import numpy as np
import pytest

from semres.core import kernels, theory
from semres.experiments.llm import lm, near, settings

NAMES = settings.NAMES
XS = [0, 1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130]


def _rows(trials, p_near, seed=0, model="simulated"):
    """Tidy rows of a model whose mass on the nearer person is ``p_near`` per trial."""
    near_first = trials.correct[:, 0]
    p_first = np.where(near_first, p_near, 1 - p_near)
    scores = np.log(np.stack([p_first, 1 - p_first], 1).clip(1e-12, 1))
    scored = lm.ScoredTrials(trials, settings.NAME_POOL, ["prompt"] * len(trials), scores, model,
                             np.ones((len(trials), 2), int))
    return lm.to_results(scored, source=near.SOURCE, seed=seed)


def _simulated(shape, scale, floor, pairs=6, noise=0.0, seed=1, exact=0.0, probes=0):
    tr = near.design([5, 20, 50, 100], XS, pairs, seed, probes=probes,
                     n_names=len(settings.NAME_POOL))
    centre = tr.years.mean(1)
    D = np.abs(tr.years[:, 1] - tr.years[:, 0]) / 2
    p = near.p_correct(shape, scale, floor, D, tr.probe - centre, exact)
    rng = np.random.default_rng(seed)
    p = np.clip(p + noise * rng.standard_normal(len(p)), 0.01, 0.99)
    return near.trial_table(_rows(tr, p, seed=seed))


def test_the_design_probes_every_distance_on_both_sides_in_both_orders():
    tr = near.design([5, 20], [0, 1, 3, 8, 30], 3, 0)
    t = near.trial_table(_rows(tr, np.full(len(tr), 0.6)))
    # 5 beyond + the inner distances below D (1, 3 for D = 5; 1, 3, 8 for D = 20), x 2 sides x 2
    assert len(tr) == 3 * (5 + 2) * 4 + 3 * (5 + 3) * 4
    for (pair, off), sub in t.groupby(["pair", "offset"]):
        assert len(sub) == 2 and sorted(sub["first"].round(6)) == sorted({0.6, 0.4})
    for pair, sub in t.groupby("pair"):
        assert sub.D.nunique() == 1
        counts = sub.groupby("x").offset.apply(lambda o: (np.sign(o) > 0).mean())
        assert (counts == 0.5).all()  # every distance on both sides
    assert t.pair.nunique() == 6 and set(t.D) == {5.0, 20.0}
    assert set(t[t["where"] == "beyond"].x) == {0, 1, 3, 8, 30}
    assert set(t[(t["where"] == "between") & (t.D == 5)].x) == {1, 3}
    names = [n for p in t.pair.unique() for n in p.split("|")]
    assert len(names) == len(set(names))  # no name in two pairs
    assert (t.mass.round(6) == 0.6).all()


def test_stage_one_is_exactly_the_probes_the_verdict_reads():
    """The near design's first stage (:func:`near.verdict_probes`) against the probes
    :func:`near.competence` reads, found from the trial table: beyond the pair, within ``near``
    years of the nearer person or ``far`` or more away. The verdict on stage 1 alone is the
    verdict on the whole design."""
    tr = near.design([5, 20, 50, 100], XS, 4, 2)
    rng = np.random.default_rng(3)
    t = near.trial_table(_rows(tr, np.clip(0.55 + 0.1 * rng.standard_normal(len(tr)), 0, 1)))
    stage = near.verdict_probes(tr, near=5, far=50)
    read = ((t["where"] == "beyond") & ((t.x <= 5) | (t.x >= 50))).to_numpy()
    assert np.array_equal(stage, read)
    # 8 of the 12 distances beyond (0, 1, 2, 3, 5 and 50, 80, 130), both sides, both orders
    assert stage.sum() == 4 * 4 * 8 * 2 * 2 < len(tr)
    whole, first = near.competence(t), near.competence(t[stage])
    assert first["above"] == whole["above"] and first["decay"] == whole["decay"]
    assert first["verdict"] == whole["verdict"]
    with pytest.raises(ValueError, match="near and far"):
        near.verdict_probes(tr, near=50, far=5)


def test_a_design_scored_in_stages_gives_the_rows_of_one_scored_at_once():
    """Stage 1, then stage 2, joined (:func:`lm.join`): the rows and sampled answers of the
    whole design scored at once; stage 1 alone: those rows of it."""
    tr = near.design([5, 20], XS, 3, 1)
    rng = np.random.default_rng(0)
    scores = rng.normal(0, 1, (len(tr), 2))

    def scored(rows=None):
        sub = tr if rows is None else tr.subset(rows)
        return lm.ScoredTrials(sub, NAMES, [f"p{i}" for i in (range(len(tr)) if rows is None
                                                               else rows)],
                               scores if rows is None else scores[rows], "m",
                               np.ones((len(sub), 2), int), "names", rows,
                               None if rows is None else len(tr))

    first = np.flatnonzero(near.verdict_probes(tr, near=5, far=50))
    rest = np.setdiff1d(np.arange(len(tr)), first)
    once = lm.to_results(scored(), source=near.SOURCE, seed=7)
    both = lm.to_results(lm.join(tr, [scored(first), scored(rest)]), source=near.SOURCE, seed=7)
    assert both.equals(once)
    alone = lm.to_results(lm.join(tr, [scored(first)]), source=near.SOURCE, seed=7)
    assert alone.equals(once.iloc[first].reset_index(drop=True))
    with pytest.raises(ValueError, match="parts"):
        lm.join(tr, [scored(first), scored(first)])


def test_bad_designs_are_refused_with_the_argument_named():
    with pytest.raises(ValueError, match="pairs_per_D"):
        near.design([5, 20, 50, 100], XS, 8, 0)  # 64 names needed
    with pytest.raises(ValueError, match="xs"):
        near.design([5], [-1, 3], 2, 0)
    with pytest.raises(ValueError, match="shape"):
        near.kernel("cosine", 1.0, 1.0)


def test_the_exponential_curve_is_the_chapter_s_two_reference_proposition():
    D, off = 20.0, np.array([-150, -30, -21, -5, 3, 19, 25, 60, 300.0])
    ours = near.p_correct("exponential", 17.0, 0.08, D, off)
    a = np.abs(off)
    nearer = np.exp(-np.abs(a - D) / 17.0) + 0.08
    assert np.allclose(ours, nearer / (nearer + np.exp(-(a + D) / 17.0) + 0.08))
    # far beyond the pair every shape returns to chance; with no floor the step is certain
    for shape in near.SHAPES:
        assert near.p_correct(shape, 10.0, 0.05, 20, 2000.0) == pytest.approx(0.5, abs=1e-6)
    assert near.p_correct("step", 10.0, 0.0, 20, 25.0) == pytest.approx(1.0)


@pytest.mark.parametrize("shape,scale", [("exponential", 15.0), ("step", 12.0)])
def test_the_fit_recovers_the_similarity_that_made_the_answers(shape, scale):
    floor = 0.1
    t = _simulated(shape, scale, floor, noise=0.05)
    comp = near.competence(t)
    assert comp["does"] and comp["above"]["p_value"] < 1e-3
    # the design's decay finding, in the kernel trend's form
    assert comp["trend"]["decays"] and comp["trend"]["ci_high"] < 0
    assert set(comp["trend"]) >= {"measure", "estimate", "ci_low", "p_value", "direction"}
    fits = near.fit_kernels(t, n_boot=60, gof_boot=60, seed=0).set_index("shape")
    truth = near.half_decay_of(shape, scale, floor)
    f = fits.loc[shape]
    if shape == "step":  # a step is identified only between the distances probed (8 and 13)
        assert 8 <= f.half_decay_ci_low <= f.half_decay <= f.half_decay_ci_high <= 13
    else:
        assert f.half_decay_ci_low <= truth <= f.half_decay_ci_high, (truth, f.half_decay_ci_low)
    assert f.relative_floor == pytest.approx(floor / (1 + floor), abs=0.06)
    assert not f.misfit and not f.at_bound
    # both measures, each with its interval; neither is called "resolution"
    assert "resolution" not in f.index and "floor_distance" not in f.index
    if shape == "exponential":
        back = kernels.chance_return(scale, floor)
        assert f.chance_return_ci_low <= back <= f.chance_return_ci_high, back
        assert f.chance_return == pytest.approx(kernels.chance_return(f.scale, f.floor))
    else:
        assert math.isnan(f.chance_return)
    assert fits.best.sum() == 1


def test_a_flat_model_does_not_do_similarity():
    tr = near.design([5, 20, 50, 100], XS, 5, 3)
    rng = np.random.default_rng(4)
    t = near.trial_table(_rows(tr, np.clip(0.5 + 0.1 * rng.standard_normal(len(tr)), 0, 1)))
    comp = near.competence(t)
    assert not comp["does"] and comp["verdict"] == "does not do the task"
    assert not comp["trend"]["decays"] and comp["trend"]["direction"] == "undecided"
    out = near.analyse(_rows(tr, np.full(len(tr), 0.5)), near=5, far=50, n_boot=10, gof_boot=10,
                       seed=0, front_trials=1000)
    assert not out["does"] and "fits" not in out


def test_a_shape_that_cannot_follow_the_answers_reads_misfit():
    # the preference vanishes near the person and returns far away: no shape on a floor does that
    tr = near.design([5, 20, 50, 100], XS, 6, 5)
    t0 = near.trial_table(_rows(tr, np.full(len(tr), 0.5)))
    p = np.where(t0.x.to_numpy() < 10, 0.9, np.where(t0.x.to_numpy() < 40, 0.5, 0.9))
    t = near.trial_table(_rows(tr, p, seed=2))
    fits = near.fit_kernels(t, n_boot=5, gof_boot=200, seed=0)
    assert fits.misfit.all(), fits[["shape", "gof_p"]]


def test_the_front_a_step_predicts_is_theorem_2_on_the_segment():
    eps, floor = 0.1, 0.25  # a step of 50 years over 500, on a floor
    fit = {"shape": "step", "scale": 50.0, "floor": floor}
    est = near.predicted_front(fit, (1500, 2000), trials=400_000, seed=1)
    b, var = 2 * eps - eps ** 2, 2 / 3 * eps ** 3 - eps ** 4
    ps, pi = theory.two_item(b, delta=floor / (1 + floor), var_b=var)
    assert abs(est["p_s"] - ps) < 4 * est["p_s_se"] + 1e-3
    assert abs(est["p_i"] - pi) < 4 * est["p_i_se"] + 1e-3
    assert est["relative_floor"] == pytest.approx(0.2)


def test_half_decay_and_chance_return_of_each_shape():
    for shape in near.SHAPES:
        r = near.half_decay_of(shape, 12.0, 0.3)
        g = near.kernel(shape, np.array([r * 0.999, r * 1.001]), 12.0)
        assert g[0] >= 0.5 >= g[1] or shape == "step" and r == 12.0
    assert near.chance_return_of("exponential", 10.0, 0.05) == pytest.approx(10 * math.log(20))
    # chance_return's conventions: chance everywhere when the floor outweighs an exact match
    assert near.chance_return_of("exponential", 10.0, 2.0) == 0.0
    assert math.isnan(near.chance_return_of("step", 10.0, 0.05))
    g = near.kernel("gaussian", np.array([near.chance_return_of("gaussian", 12.0, 0.05)]), 12.0)
    assert g[0] == pytest.approx(0.05)


def test_the_curve_table_counts_pairs_and_carries_both_measures():
    t = _simulated("exponential", 10.0, 0.2, pairs=3)
    c = near.curve_table(t)
    assert set(c.columns) >= {"mass", "mass_ci_low", "mass_ci_high", "greedy", "sampled",
                              "pairs", "trials"}
    assert (c.pairs == 3).all() and (c.trials == 12).all()  # 3 pairs x 2 sides x 2 orders
    assert (c.mass_ci_low <= c.mass).all() and (c.mass <= c.mass_ci_high).all()


def test_a_thinned_design_gives_each_pair_its_share_of_distances_on_both_sides_and_orders():
    """``probes``: each pair gets that many of its distances, drawn at random, each on both
    sides and in both orders; across pairs every distance is probed; 0 is the full design,
    drawn exactly as before the option existed."""
    full = near.design([5, 20], [0, 1, 3, 8, 30], 3, 0)
    same = near.design([5, 20], [0, 1, 3, 8, 30], 3, 0, probes=0)
    assert all(np.array_equal(getattr(full, k), getattr(same, k))
               for k in ("names", "years", "probe", "template", "group"))
    tr = near.design([5, 20, 50], XS, 40, 2, probes=4, n_names=len(settings.NAME_POOL))
    t = near.trial_table(_rows(tr, np.full(len(tr), 0.6)))
    assert len(tr) == 3 * 40 * 4 * 4 and t.pair.nunique() == 120
    for pair, sub in t.groupby("pair"):
        assert sub.groupby(["x", "where"]).size().eq(4).all() and len(sub) == 16
        assert (sub.groupby(["x", "where"]).offset.apply(lambda o: (o > 0).mean()) == 0.5).all()
    probed = t.groupby(["D", "where"]).x.apply(set)
    for D in (5, 20, 50):
        assert probed[(D, "beyond")] == set(XS)
        assert probed[(D, "between")] == {x for x in XS if 0 < x < D}
    with pytest.raises(ValueError, match="probes"):
        near.design([5], XS, 3, 0, probes=-1)


def test_an_exact_match_on_a_decay_is_told_from_a_plain_decay():
    """A model that weighs the very year apart (w = 2 on an exponential of 6 years): the exact
    + exponential shape recovers w and the decay's half-life within their intervals and fits,
    while the plain exponential, which must spend its scale on the spike, reads misfit or
    loses on AIC; on a plain exponential the exact-match term finds nothing to add."""
    scale, floor, w = 6.0, 0.15, 2.0
    t = _simulated("exact + exponential", scale, floor, pairs=8, noise=0.05, exact=w)
    fits = near.fit_kernels(t, n_boot=60, gof_boot=60, seed=0).set_index("shape")
    f = fits.loc["exact + exponential"]
    assert f.half_decay_ci_low <= scale * math.log(2) <= f.half_decay_ci_high
    assert f.exact == pytest.approx(w, rel=0.35) and not f.misfit
    assert f.chance_return == pytest.approx(kernels.chance_return(f.scale, f.floor))
    plain = fits.loc["exponential"]
    assert plain.misfit or plain.delta_aic > 10, plain[["gof_p", "delta_aic"]]
    assert fits.best["exact + exponential"]
    t = _simulated("exponential", 15.0, 0.1, noise=0.05)
    fits = near.fit_kernels(t, n_boot=20, gof_boot=20, seed=0).set_index("shape")
    assert fits.loc["exact + exponential"].exact < 0.1
    assert fits.loc["exact + exponential"].nll >= fits.loc["exponential"].nll - 3
