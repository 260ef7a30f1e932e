"""The toy ReLU network: model, exact evaluator, closed-form gradient, batched trainer."""

import itertools

import numpy as np
import pytest
import torch

from semres.core import theory
from semres.experiments import toy


def _random_G(n_stimuli, rng, zero_fraction=0.3):
    """A non-negative similarity matrix with many exact zeros (the all-zero Luce branch)."""
    W = rng.normal(size=(4, n_stimuli))
    G = np.maximum(W.T @ W, 0.0)
    G[rng.random(G.shape) < zero_fraction] = 0.0
    return G


def _brute_force(G, D):
    """(p_S, p_I) by looping over every ordered trial, straight from the definitions."""
    n = len(D)

    def luce(g, correct):
        total = sum(g)
        if total == 0:
            return len(correct) / len(g)
        return sum(g[c] for c in correct) / total

    sim = []
    for r1, r2, p in itertools.permutations(range(n), 3):
        d = [D[r1, p], D[r2, p]]
        correct = [k for k in range(2) if d[k] == min(d)]
        sim.append(luce([G[r1, p], G[r2, p]], correct))
    ident = []
    for r1, r2 in itertools.permutations(range(n), 2):
        for copied in range(2):
            probe = (r1, r2)[copied]
            ident.append(luce([G[r1, probe], G[r2, probe]], [copied]))
    return np.mean(sim), np.mean(ident)


# ---------------------------------------------------------------- stimuli and model


def test_distances():
    c = toy.stimulus_distances(50, "circle")
    s = toy.stimulus_distances(50, "segment")
    assert c.shape == s.shape == (50, 50)
    assert np.allclose(c, c.T) and np.allclose(np.diag(c), 0)
    assert c.max() == pytest.approx(0.5) and s.max() == pytest.approx(0.98)
    assert c[0, 49] == pytest.approx(0.02) and s[0, 49] == pytest.approx(0.98)


@pytest.mark.parametrize("kwargs, name", [
    (dict(n_stimuli=2), "n_stimuli"), (dict(n_stimuli=5.5), "n_stimuli"),
    (dict(geometry="torus"), "geometry"),
])
def test_distances_reject_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        toy.stimulus_distances(**kwargs)


def test_sample_trials_distinct_and_uniform():
    rng = np.random.default_rng(0)
    t = toy.sample_trials(rng, (60_000,), 4)
    assert ((t[:, 0] != t[:, 1]) & (t[:, 0] != t[:, 2]) & (t[:, 1] != t[:, 2])).all()
    codes = t @ np.array([16, 4, 1])
    counts = np.bincount(codes, minlength=64)
    seen = counts[counts > 0]
    assert len(seen) == 24  # every ordered triple of distinct stimuli out of 4
    expected = len(t) / 24
    # multinomial counts: each within 5 standard deviations of uniform
    assert np.abs(seen - expected).max() < 5 * np.sqrt(expected * (1 - 1 / 24))


def test_forward_is_relu_of_gram_and_columns_are_similarities():
    rng = np.random.default_rng(1)
    W = torch.tensor(rng.normal(size=(3, 10, 7)))
    x = torch.tensor(rng.normal(size=(3, 5, 7)))
    expected = np.maximum(np.einsum("nki,nkj,nbj->nbi", W.numpy(), W.numpy(), x.numpy()), 0)
    assert np.allclose(toy.forward(W, x).numpy(), expected)
    eye = torch.eye(7, dtype=W.dtype).expand(3, 7, 7)
    G = toy.similarity_matrix(W)
    assert torch.allclose(toy.forward(W, eye), G)  # f(e_i) = ReLU(w_j . w_i) for all j


# ---------------------------------------------------------------- exact evaluator


@pytest.mark.parametrize("geometry", ["circle", "segment"])
def test_exact_scores_equal_brute_force_enumeration(geometry):
    rng = np.random.default_rng(2)
    D = toy.stimulus_distances(8, geometry)  # the circle has ties, the segment too
    G = _random_G(8, rng)
    table = toy.TrialTable.from_distances(D)
    b_s, b_i = _brute_force(G, D)
    for compiled in [False] + ([True] if toy.numba is not None else []):
        p_s, p_i = toy.exact_scores(torch.tensor(G), table, compiled=compiled)
        assert p_s.item() == pytest.approx(b_s, abs=1e-12)
        assert p_i.item() == pytest.approx(b_i, abs=1e-12)
    assert table.n_trials == 8 * 7 * 6 and table.n_ties > 0


def test_exact_scores_match_sampled_estimate():
    """l = 50: the exact sums against a plain sampled Luce estimate, within 4 standard errors."""
    rng = np.random.default_rng(3)
    D = toy.stimulus_distances(50, "circle")
    G = _random_G(50, rng, zero_fraction=0.5)
    p_s, p_i = (v.item() for v in toy.exact_scores(torch.tensor(G),
                                                    toy.TrialTable.from_distances(D)))
    r1, r2, p = toy.sample_trials(rng, (200_000,), 50).T
    g1, g2 = G[r1, p], G[r2, p]
    d1, d2 = D[r1, p], D[r2, p]
    total = g1 + g2
    with np.errstate(invalid="ignore", divide="ignore"):
        m1 = np.where(total > 0, g1 / total, 0.5)
    sim = np.where(d1 < d2, m1, np.where(d1 > d2, 1 - m1, 1.0))
    # identification: r1 copied as the probe
    s1 = G[r1, r1] + G[r2, r1]
    with np.errstate(invalid="ignore", divide="ignore"):
        ident = np.where(s1 > 0, G[r1, r1] / s1, 0.5)
    for exact, sample in ((p_s, sim), (p_i, ident)):
        se = sample.std(ddof=1) / np.sqrt(len(sample))
        assert abs(exact - sample.mean()) < 4 * se


def test_exact_scores_of_linear_kernel_approach_proposition_1():
    """A fine discrete circle with g = max(0, 1 - d/eps) tends to the continuous closed form."""
    D = toy.stimulus_distances(90, "circle")
    table = toy.TrialTable.from_distances(D)
    eps = np.array([0.1, 0.2, 0.31, 0.45])
    G = torch.tensor(toy.linear_profile(D[None], eps[:, None, None]))
    p_s, p_i = toy.exact_scores(G, table)
    t_s, t_i = theory.linear_circle(2 * eps)
    # discretisation error is O(1/l); the continuous values differ between eps by >> 0.01
    assert np.abs(p_s.numpy() - t_s).max() < 0.01
    assert np.abs(p_i.numpy() - t_i).max() < 0.01


def test_exact_scores_reject_wrong_shape():
    table = toy.TrialTable.from_distances(toy.stimulus_distances(5))
    with pytest.raises(ValueError, match="G"):
        toy.exact_scores(torch.zeros(4, 4), table)
    with pytest.raises(ValueError, match="distances"):
        toy.TrialTable.from_distances(np.zeros((3, 4)))


# ---------------------------------------------------------------- profile fit


def test_fit_recovers_linear_profile():
    d, _ = toy.distance_profile(np.zeros((50, 50)), toy.stimulus_distances(50))
    grid = np.linspace(0.01, 0.6, 591)
    eps_true = np.array([[0.05, 0.2], [0.33, 0.4]])  # eps < max d: else Δ is not identifiable
    delta_true = np.array([[0.0, 0.1], [0.02, 0.3]])
    h = toy.linear_profile(d, eps_true[..., None], delta_true[..., None])
    eps, delta = toy.fit_linear_profile(d, h, grid)
    assert np.allclose(eps, eps_true, atol=1e-9) and np.allclose(delta, delta_true, atol=1e-9)


def test_default_grid_fit_is_fine():
    d, _ = toy.distance_profile(np.zeros((50, 50)), toy.stimulus_distances(50))
    eps_true, delta_true = np.array([0.0537, 0.1234, 0.3071]), np.array([0.0, 0.05, 0.2])
    h = toy.linear_profile(d, eps_true[:, None], delta_true[:, None])
    eps, delta = toy.fit_linear_profile(d, h)
    assert np.abs(eps - eps_true).max() < 2e-4 and np.abs(delta - delta_true).max() < 2e-3


def test_profile_fit_reports_its_bounds():
    """A real decay is estimated inside the range; a flat profile (no resolution) is censored."""
    d, _ = toy.distance_profile(np.zeros((50, 50)), toy.stimulus_distances(50))
    h = toy.linear_profile(d, 0.2, 0.1)
    eps, delta = toy.fit_linear_profile(d, h)
    assert abs(eps - 0.2) < 2e-4
    assert not toy.profile_fit_report(d, eps, delta)["at_bound"]
    eps, delta = toy.fit_linear_profile(d, np.ones_like(d))
    report = toy.profile_fit_report(d, eps, delta)
    assert report["at_bound"] and report["bound_params"]


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.skipif(
    toy.numba is None, reason="numba not installed"))])
def test_evaluation_paths_agree(compiled):
    """torch and compiled sums, float64 and float32 (the trainer's), agree to rounding."""
    rng = np.random.default_rng(5)
    G = torch.tensor(np.stack([_random_G(50, rng) for _ in range(3)]))
    table = toy.TrialTable.from_distances(toy.stimulus_distances(50))
    reference = toy.exact_scores(G, table, compiled=False)
    for a, b in zip(reference, toy.exact_scores(G, table, compiled=compiled)):
        assert torch.allclose(a, b, rtol=0, atol=1e-12)
    for a, b in zip(reference, toy.exact_scores(G.float(), table, compiled=compiled)):
        assert torch.allclose(a, b.double(), rtol=0, atol=1e-6)


def test_profile_of_kernel_matrix_is_the_kernel():
    D = toy.stimulus_distances(20, "segment")
    G = 3.0 * toy.linear_profile(D, 0.3, 0.1)  # scale must not matter
    d, h = toy.distance_profile(G, D)
    assert np.allclose(h, toy.linear_profile(d, 0.3, 0.1))


# ---------------------------------------------------------------- loss and training


def test_closed_form_gradient_equals_autograd():
    rng = np.random.default_rng(4)
    n_net, l, m, B = 6, 12, 4, 16
    W = torch.tensor(rng.uniform(-1, 2, (n_net, m, l)), requires_grad=True)
    trials = torch.as_tensor(toy.sample_trials(rng, (n_net, B), l))
    D = torch.tensor(np.stack([toy.stimulus_distances(l, g) for g in ["circle", "segment"] * 3]))
    lam_sim = torch.tensor([0.1, 0.1, 0.0, 0.3, 0.0, 0.1], dtype=torch.float64)
    lam_rec = torch.tensor([0.0, 0.0, 1.0, 1.0, 0.5, 0.0], dtype=torch.float64)
    loss = toy.toy_loss(W, trials, D, lam_sim, lam_rec)
    loss.sum().backward()
    loss2, grad = toy.toy_loss_and_grad(W.detach(), trials, D, lam_sim, lam_rec)
    assert torch.allclose(loss, loss2, atol=1e-12)
    assert torch.allclose(W.grad, grad, atol=1e-12)
    assert grad.abs().max() > 0.01


_SMALL = toy.ToyConfig(n_stimuli=12, n_hidden=4, epochs=4, trials_per_epoch=200, batch_size=32,
                       snapshot_epochs=(0, 4))


@pytest.mark.parametrize("dtype, atol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
def test_batched_training_equals_networks_trained_alone(dtype, atol):
    conditions = ["circle", "reconstruction", "segment", "circle"]  # not sorted by condition
    seeds = [5, 6, 5, 7]
    stack = toy.train(conditions, seeds, _SMALL, dtype=dtype, progress=False)
    assert stack.conditions == conditions and stack.seeds == seeds
    for k, (c, s) in enumerate(zip(conditions, seeds)):
        alone = toy.train([c], [s], _SMALL, dtype=dtype, progress=False)
        np.testing.assert_allclose(stack.final_W[k], alone.final_W[0], rtol=0, atol=atol)
        np.testing.assert_allclose(stack.p_s[k], alone.p_s[0], rtol=0, atol=atol)
        np.testing.assert_allclose(stack.p_i[k], alone.p_i[0], rtol=0, atol=atol)
        np.testing.assert_allclose(stack.eps_fit[k], alone.eps_fit[0], rtol=0, atol=1e-9)
        np.testing.assert_allclose(stack.snapshots[4][k], alone.snapshots[4][0], rtol=0,
                                   atol=atol)
    # paired runs: same seed, same start; different seeds, different starts
    assert np.array_equal(stack.snapshots[0][0], stack.snapshots[0][2])
    assert not np.allclose(stack.snapshots[0][0], stack.snapshots[0][3])
    assert not np.allclose(stack.final_W[0], stack.final_W[2])  # the loss saw other labels


def test_training_is_reproducible_and_learns():
    cfg = toy.ToyConfig(epochs=20)
    a = toy.train(["circle", "reconstruction"], [0, 0], cfg, progress=False)
    b = toy.train(["circle", "reconstruction"], [0, 0], cfg, progress=False)
    assert np.array_equal(a.p_s, b.p_s) and np.array_equal(a.p_i, b.p_i)
    # similarity training lifts p_S well above chance; reconstruction lifts p_I, not p_S
    assert a.p_s[0, -1] > a.p_s[0, 0] + 0.1
    assert a.p_i[1, -1] > a.p_i[1, 0] + 0.1 and abs(a.p_s[1, -1] - 0.5) < 0.05


@pytest.mark.parametrize("kwargs, name", [
    (dict(epochs=0), "epochs"), (dict(lr=0.0), "lr"), (dict(batch_size=2.5), "batch_size"),
    (dict(trials_per_epoch=10, batch_size=20), "trials_per_epoch"),
    (dict(snapshot_epochs=(600,)), "snapshot_epochs"),
])
def test_config_rejects_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        toy.ToyConfig(**kwargs)


def test_named_streams_seed_networks_and_pair_conditions():
    """A SeedSequence (a chapter's named stream) seeds a network as numpy would: the same
    stream in two conditions starts both from the same weights."""
    from semres.core.seeds import seeds

    stream = seeds(0)
    a = toy.train(["circle", "segment", "circle"],
                  [stream("toy network", 0), stream("toy network", 0), stream("toy network", 1)],
                  _SMALL, progress=False)
    assert np.array_equal(a.snapshots[0][0], a.snapshots[0][1])
    assert not np.allclose(a.snapshots[0][0], a.snapshots[0][2])
    expected = np.random.default_rng(stream("toy network", 1)).uniform(
        0.0, _SMALL.init_high, size=(_SMALL.n_hidden, _SMALL.n_stimuli))
    assert np.allclose(toy.similarity_matrix(torch.tensor(expected)).numpy(),
                       a.snapshots[0][2], atol=1e-5)


@pytest.mark.parametrize("conditions, seeds, name", [
    (["torus"], [0], "conditions"), (["circle"], [-1], "seeds"), (["circle"], [0, 1], "seeds"),
    (["circle"], [0.5], "seeds"),
])
def test_train_rejects_bad_input(conditions, seeds, name):
    with pytest.raises(ValueError, match=name):
        toy.train(conditions, seeds, _SMALL, progress=False)


def test_held_out_peak_is_unbiased_where_the_own_maximum_is_not():
    """Trajectories = a smooth curve + training noise: each network's own maximum overshoots
    the curve's peak; the value at the epoch the other networks chose matches the curve there."""
    epochs = np.arange(100)
    curve = 0.8 - (epochs - 50.0) ** 2 / 1e4
    rng = np.random.default_rng(0)
    own, held = [], []
    for _ in range(200):
        traj = curve + rng.normal(0, 0.01, (8, len(epochs)))
        v, e = toy.held_out_peak(traj, smooth=5)
        held.append((v - curve[e]).mean())
        own.append(traj.max(1).mean() - curve.max())
    held, own = np.array(held), np.array(own)
    assert abs(held.mean()) < 4 * held.std(ddof=1) / np.sqrt(len(held))
    assert own.mean() > 0.01  # the maximum of 100 noisy epochs: about 2.5 noise sd too high
    one, e1 = toy.held_out_peak(curve[None], smooth=3)
    assert e1[0] == 50 and one[0] == pytest.approx(curve[49:52].mean())
    with pytest.raises(ValueError, match="smooth"):
        toy.held_out_peak(curve[None], smooth=0)


def test_profile_fit_gof_accepts_a_linear_profile_and_rejects_a_step():
    dist = toy.stimulus_distances(50, "circle")
    rng = np.random.default_rng(1)
    for profile in ("linear", "step"):
        h = (toy.linear_profile(dist, 0.2, 0.1) if profile == "linear"
             else np.where(dist <= 0.12, 1.0, 0.1))
        noise = rng.normal(0, 0.01, dist.shape)
        G = h + (noise + noise.T) / 2
        np.fill_diagonal(G, 1.0)
        d, prof = toy.distance_profile(torch.tensor(G), dist)
        eps, delta = toy.fit_linear_profile(d, prof)
        gof = toy.profile_fit_gof(G, dist, eps, delta)
        assert gof["gof_df"] == 25 - 2
        assert gof["misfit"] == (profile == "step"), (profile, gof)


def test_a_comparison_reads_its_verdict_and_its_t_interval():
    from semres.core.intervals import mean_interval

    ci = mean_interval([0.806, 0.807, 0.808])
    text = toy.against("differs", "the peak", ci, 0.8098, "the optimum")
    assert text.startswith("the peak differs from the optimum: it is -0.0028 from it")
    assert "Student's t over 3 seeds" in text and f"{ci['high'] - 0.8098:+.4f}" in text
    assert "cannot be told apart" in toy.against("inconclusive", "x", ci, 0.807, "y")
    assert "one seed" in toy.against("holds", "x", mean_interval([0.8]), 0.7, "y")
    with pytest.raises(ValueError, match="verdict"):
        toy.against("misfit", "x", ci, 0.8, "y")
    assert "paired runs" in toy.replicates_sentence(10)


# --- the chapter's analysis, decisions and figures ----------------------------------------

@pytest.fixture(scope="module")
def small_history():
    conditions = [c for c in toy.CONDITIONS for _ in range(2)]
    return toy.train(conditions, [0, 1] * 3, _SMALL, progress=False)


def test_trajectory_table_has_a_row_per_network_and_epoch_and_marks_untested_fits(
        small_history):
    table = toy.trajectory_table(small_history, [0, 1] * 3)
    assert len(table) == 6 * (_SMALL.epochs + 1)
    assert table.seed.tolist()[:_SMALL.epochs + 2] == [0] * (_SMALL.epochs + 1) + [1]
    np.testing.assert_array_equal(table.p_s, small_history.p_s.ravel())
    snap = table.epoch.isin(small_history.snapshots)
    assert table.gof_tested[snap].all() and not table.gof_tested[~snap].any()
    assert table.misfit[~snap].isna().all()
    assert {"at_bound", "bound_params", "gof_p"} <= set(table.columns)
    sentences = toy.gof_sentences(table)
    assert set(sentences) == {"gof_summary", "fit_bounds", "eps_peak_caveat",
                              "eps_final_sentence"}
    assert f"of {int(snap.sum())} profile fits" in sentences["gof_summary"]
    assert sentences["eps_final_sentence"].startswith(f"At epoch {_SMALL.epochs}")


def test_own_profile_of_a_linear_network_is_the_linear_profile_itself(small_history):
    """A network whose similarity is a distance profile predicts itself: the own-profile
    scores equal exact_scores of its own profile on the same stimuli."""
    epochs, ps, pi = toy.own_profile_prediction(small_history, "circle", 2)
    assert epochs.tolist() == [0, 2, 4] and ps.shape == (2, 3)
    dist = toy.stimulus_distances(_SMALL.n_stimuli, "circle")
    levels = small_history.profile_d["circle"]
    h = small_history.profiles[0, 2, :len(levels)][np.searchsorted(levels, np.round(dist, 12))]
    table = toy.TrialTable.from_distances(dist)
    expected = toy.exact_scores(torch.tensor(h), table)
    assert (ps[0, 1], pi[0, 1]) == pytest.approx(tuple(float(v) for v in expected))


def test_linear_profile_scores_approach_proposition1_and_peak_higher_on_50_stimuli():
    eps = np.linspace(0.05, 0.5, 40)
    ps, pi = toy.linear_profile_scores("circle", eps)
    law_s, law_i = theory.linear_circle(2 * eps)
    assert np.abs(ps - law_s).max() < 0.03 and np.abs(pi - law_i).max() < 0.03
    assert ps.max() > theory.linear_circle(1 / (3 - 2 * np.log(2)))[0]
    seg = toy.linear_profile_scores("segment", eps)[0]
    assert seg.max() < ps.max()


def test_distance_to_curve_and_jensen_term():
    curve = np.linspace(0, 1, 101)
    assert toy.distance_to_curve(np.array([0.5]), np.array([0.6]), curve, curve)[0] == \
        pytest.approx(0.1 / np.sqrt(2), abs=1e-2)
    # one floor for every pair: no Jensen term; a spread floor: a positive one
    assert toy.jensen_term(np.ones((2, 3, 6))) == pytest.approx(0.0, abs=1e-12)
    spread = np.random.default_rng(0).uniform(0, 1, (2, 3, 12))
    assert toy.jensen_term(spread) > 0


def test_decisions_and_verdict_sentences():
    from semres.core.intervals import mean_interval

    p_star = float(theory.linear_circle(1 / (3 - 2 * np.log(2)))[0])
    assert toy.nearer_proposition1(0.80, p_star) and not toy.nearer_proposition1(0.76, p_star)
    words = toy.position_sentences(True, False)
    assert words["peak_nearer"].startswith("nearer Proposition 1")
    assert words["closer"].startswith("farther")
    reasons = toy.tolerances(0.8123, 0.0456)
    assert all(tol == 0.0 for tol, _ in reasons.values())
    assert "0.8123" in reasons["peak"][1] and "0.0456" in reasons["rec"][1]
    ci = mean_interval([0.801, 0.803, 0.805])
    assert toy.peak_verdict("differs", ci, p_star, 0.8123).endswith("peaks at 0.8123")
    short = mean_interval([0.01, 0.012, 0.014])
    assert toy.shortfall_verdict("does not hold", short, 0.03, 0.02).endswith("not its size")
    assert "not its size" not in toy.shortfall_verdict("holds", short, 0.012, 0.02)
    rec = mean_interval([0.70, 0.71, 0.72])
    text = toy.reconstruction_verdict("does not hold", rec, 0.65, 0.04, 20, 0.03)
    assert "+0.0600 at the last epoch against +0.0400 at epoch 20" in text
    assert "remaining +0.0300" in text
    latex = toy.split_log2("p", toy.sp.Rational(1, 2) + 3 * toy.sp.log(2) * toy.sp.Symbol("e"))
    assert r"\ln 2 \left(3 e\right)" in latex


def test_figures_draw(small_history):
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    own = {c: toy.own_profile_prediction(small_history, c, 2) for c in toy.CONDITIONS}
    disc = toy.linear_profile_scores("circle", np.linspace(0.05, 0.5, 10))
    for fig in (toy.fig_trajectories(small_history, own, disc, 0.2,
                                     lambda e: theory.linear_circle(2 * e), 0.81),
                toy.fig_similarity(small_history),
                toy.fig_resolution(small_history, 0.2, 0.19)):
        assert fig.axes
        plt.close(fig)


def test_a_reference_the_networks_do_not_follow_reads_misfit_not_does_not_hold():
    import pandas as pd

    from semres import report

    fits = pd.DataFrame({"condition": ["circle", "segment"] * 3 + ["reconstruction"] * 4,
                         "gof_tested": [True] * 5 + [False] + [True] * 4,
                         "misfit": [True] * 3 + [False] * 7})
    assert toy.linear_profile_misfit(fits)  # 3 of 5 tested similarity networks fail
    assert not toy.linear_profile_misfit(fits.assign(misfit=[True] + [False] * 9))
    ci = {"mean": 0.02, "low": 0.01, "high": 0.03, "se": 0.005, "n": 10}
    status = report.status(headline=0.02, ci=(0.01, 0.03), compared_with=0.05, tolerance=0.0,
                           new=True, misfit=toy.linear_profile_misfit(fits))
    assert status == "misfit"
    assert "no reference" in toy.shortfall_verdict(status, ci, 0.05, 0.06)
