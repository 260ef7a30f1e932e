"""What chapter 3 reads off trained networks: the held-out peak, the trajectories' table, the
own-profile and linear-profile predictions, and the Jensen term."""

import numpy as np
import pytest
import torch

from semres.core import theory
from semres.experiments.toy import analysis, superposition
from semres.experiments.toy.evaluation import TrialTable, exact_scores, stimulus_distances

_SMALL = superposition.ToyConfig(n_stimuli=12, n_hidden=4, epochs=4, trials_per_epoch=200,
                                 batch_size=32, snapshot_epochs=(0, 4))


@pytest.fixture(scope="module")
def small_history():
    conditions = [c for c in superposition.CONDITIONS for _ in range(2)]
    return superposition.train(conditions, [0, 1] * 3, _SMALL, progress=False)


def test_held_out_peak_is_unbiased_where_the_own_maximum_is_not():
    """Trajectories = a smooth curve + training noise: each network's own maximum overshoots
    the curve's peak; the value at the epoch the other networks chose matches the curve there."""
    epochs = np.arange(100)
    curve = 0.8 - (epochs - 50.0) ** 2 / 1e4
    rng = np.random.default_rng(0)
    own, held = [], []
    for _ in range(200):
        traj = curve + rng.normal(0, 0.01, (8, len(epochs)))
        v, e = analysis.held_out_peak(traj, smooth=5)
        held.append((v - curve[e]).mean())
        own.append(traj.max(1).mean() - curve.max())
    held, own = np.array(held), np.array(own)
    assert abs(held.mean()) < 4 * held.std(ddof=1) / np.sqrt(len(held))
    assert own.mean() > 0.01  # the maximum of 100 noisy epochs: about 2.5 noise sd too high
    one, e1 = analysis.held_out_peak(curve[None], smooth=3)
    assert e1[0] == 50 and one[0] == pytest.approx(curve[49:52].mean())


def test_trajectory_table_has_a_row_per_network_and_epoch_and_marks_untested_fits(
        small_history):
    table = analysis.trajectory_table(small_history, [0, 1] * 3)
    assert len(table) == 6 * (_SMALL.epochs + 1)
    assert table.seed.tolist()[:_SMALL.epochs + 2] == [0] * (_SMALL.epochs + 1) + [1]
    np.testing.assert_array_equal(table.p_s, small_history.p_s.ravel())
    snap = table.epoch.isin(small_history.snapshots)
    assert table.gof_tested[snap].all() and not table.gof_tested[~snap].any()
    assert table.misfit[~snap].isna().all()
    assert {"at_bound", "bound_params", "gof_p"} <= set(table.columns)


def test_own_profile_of_a_linear_network_is_the_linear_profile_itself(small_history):
    """A network whose similarity is a distance profile predicts itself: the own-profile
    scores equal exact_scores of its own profile on the same stimuli."""
    epochs, ps, pi = analysis.own_profile_prediction(small_history, "circle", 2)
    assert epochs.tolist() == [0, 2, 4] and ps.shape == (2, 3)
    dist = stimulus_distances(_SMALL.n_stimuli, "circle")
    levels = small_history.profile_d["circle"]
    h = small_history.profiles[0, 2, :len(levels)][np.searchsorted(levels, np.round(dist, 12))]
    table = TrialTable.from_distances(dist)
    expected = exact_scores(torch.tensor(h), table)
    assert (ps[0, 1], pi[0, 1]) == pytest.approx(tuple(float(v) for v in expected))


def test_linear_profile_scores_approach_proposition1_and_peak_higher_on_50_stimuli():
    eps = np.linspace(0.05, 0.5, 40)
    ps, pi = analysis.linear_profile_scores("circle", eps, 50)
    law_s, law_i = theory.linear_circle(2 * eps)
    assert np.abs(ps - law_s).max() < 0.03 and np.abs(pi - law_i).max() < 0.03
    assert ps.max() > theory.linear_circle(1 / (3 - 2 * np.log(2)))[0]
    seg = analysis.linear_profile_scores("segment", eps, 50)[0]
    assert seg.max() < ps.max()


def test_distance_to_curve_and_jensen_term():
    curve = np.linspace(0, 1, 101)
    assert analysis.distance_to_curve(np.array([0.5]), np.array([0.6]), curve, curve)[0] == \
        pytest.approx(0.1 / np.sqrt(2), abs=1e-2)
    # one floor for every pair: no Jensen term; a spread floor: a positive one
    assert analysis.jensen_term(np.ones((2, 3, 6))) == pytest.approx(0.0, abs=1e-12)
    spread = np.random.default_rng(0).uniform(0, 1, (2, 3, 12))
    assert analysis.jensen_term(spread) > 0


def test_analyse_gathers_the_chapters_measurements(small_history):
    """The chapter's analysis in one call: the peak from the held-out epoch, paired
    shortfalls, own-profile gaps and the reconstruction floor, each from its own function."""
    found = analysis.analyse(small_history, _SMALL.n_stimuli)
    cond = np.array(small_history.conditions)
    held = analysis.held_out_peak(small_history.p_s[cond == "circle"], found.smooth)
    np.testing.assert_array_equal(found.peaks["circle"], held[0])
    np.testing.assert_array_equal(found.short, found.peaks["circle"] - found.peaks["segment"])
    assert found.peak_ci["n"] == 2 and found.short_ci["mean"] == pytest.approx(found.short.mean())
    assert found.after.shape == (2, _SMALL.epochs + 1)
    assert found.disc_peak == pytest.approx(found.disc_s.max())
    assert set(found.own_gap) == {"circle", "segment"}
    assert set(found.own_gap["circle"]) == {"s", "i", "s_early"}
    rec = found.rec
    assert rec["predicted"] == pytest.approx(1 / (1 + rec["delta"]))
    assert rec["gap"] == pytest.approx(rec["ci"]["mean"] - rec["predicted"])
    assert rec["jensen"] >= 0 and 1 <= rec["mid"] <= _SMALL.epochs
