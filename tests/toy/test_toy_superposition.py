"""The network, its closed-form gradient, and the batched trainer against networks alone."""

import numpy as np
import pytest
import torch

from semres.core.seeds import seeds
from semres.experiments.toy import settings, superposition
from semres.experiments.toy.evaluation import sample_trials, stimulus_distances


def _reference_loss(W, trials, distances, lam_sim, lam_rec):
    """The training loss written plainly for autograd: λ_sim · mean −log(Luce mass on the
    reference(s) nearest the probe) + λ_rec · MSE(ReLU(x Wᵀ W), x) over the trials' stimuli."""
    N, l = W.shape[0], W.shape[-1]
    rows = torch.arange(N)[:, None, None]
    G = superposition.similarity_matrix(W)
    r, p = trials[..., :2], trials[..., 2:]
    g = G[rows, r, p] + 1e-10  # the trainer's Luce constant
    d = distances[rows, r, p]
    correct = d == d.min(-1, keepdim=True).values
    nll = -torch.log((g * correct).sum(-1) / g.sum(-1))
    x = torch.eye(l, dtype=W.dtype)[trials.reshape(N, -1)]
    mse = ((torch.relu(x @ W.transpose(-1, -2) @ W) - x) ** 2).mean((-2, -1))
    return lam_sim * nll.mean(-1) + lam_rec * mse


def test_columns_of_the_similarity_matrix_are_relu_of_the_gram_matrix():
    W = torch.tensor(np.random.default_rng(1).normal(size=(3, 10, 7)))
    expected = np.maximum(np.einsum("nki,nkj->nij", W.numpy(), W.numpy()), 0)
    assert np.allclose(superposition.similarity_matrix(W).numpy(), expected)


def test_closed_form_gradient_equals_autograd():
    rng = np.random.default_rng(4)
    n_net, l, m, B = 6, 12, 4, 16
    W = torch.tensor(rng.uniform(-1, 2, (n_net, m, l)), requires_grad=True)
    trials = torch.as_tensor(sample_trials(rng, (n_net, B), l))
    D = torch.tensor(np.stack([stimulus_distances(l, g) for g in ["circle", "segment"] * 3]))
    lam_sim = torch.tensor([0.1, 0.1, 0.0, 0.3, 0.0, 0.1], dtype=torch.float64)
    lam_rec = torch.tensor([0.0, 0.0, 1.0, 1.0, 0.5, 0.0], dtype=torch.float64)
    loss = _reference_loss(W, trials, D, lam_sim, lam_rec)
    loss.sum().backward()
    loss2, grad = superposition.toy_loss_and_grad(W.detach(), trials, D, lam_sim, lam_rec)
    assert torch.allclose(loss, loss2, atol=1e-12)
    assert torch.allclose(W.grad, grad, atol=1e-12)
    assert grad.abs().max() > 0.01


_SMALL = superposition.ToyConfig(n_stimuli=12, n_hidden=4, epochs=4, trials_per_epoch=200,
                                 batch_size=32, snapshot_epochs=(0, 4))


@pytest.mark.parametrize("dtype, atol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
def test_batched_training_equals_networks_trained_alone(dtype, atol):
    conditions = ["circle", "reconstruction", "segment", "circle"]  # not sorted by condition
    seeds_ = [5, 6, 5, 7]
    stack = superposition.train(conditions, seeds_, _SMALL, dtype=dtype, progress=False)
    assert stack.conditions == conditions and stack.seeds == seeds_
    for k, (c, s) in enumerate(zip(conditions, seeds_)):
        alone = superposition.train([c], [s], _SMALL, dtype=dtype, progress=False)
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
    cfg = superposition.ToyConfig(epochs=20)
    a = superposition.train(["circle", "reconstruction"], [0, 0], cfg, progress=False)
    b = superposition.train(["circle", "reconstruction"], [0, 0], cfg, progress=False)
    assert np.array_equal(a.p_s, b.p_s) and np.array_equal(a.p_i, b.p_i)
    # similarity training lifts p_S well above chance; reconstruction lifts p_I, not p_S
    assert a.p_s[0, -1] > a.p_s[0, 0] + 0.1
    assert a.p_i[1, -1] > a.p_i[1, 0] + 0.1 and abs(a.p_s[1, -1] - 0.5) < 0.05


def test_the_trainer_takes_the_chapters_settings():
    """The trainer's defaults are the settings' (the paper's protocol), and a profile's
    settings give the trainer its epochs and snapshots."""
    assert superposition.ToyConfig() == superposition.ToyConfig.of(
        settings.DEFAULT.replace(snapshots=()))
    config = superposition.ToyConfig.of(settings.QUICK)
    assert config.epochs == settings.QUICK.epochs
    assert config.snapshot_epochs == settings.QUICK.snapshots
    assert config.steps_per_epoch == 2000 // 128


def test_named_streams_seed_networks_and_pair_conditions():
    """A SeedSequence (a chapter's named stream) seeds a network as numpy would: the same
    stream in two conditions starts both from the same weights."""
    stream = seeds(0)
    a = superposition.train(["circle", "segment", "circle"],
                            [stream("toy network", 0), stream("toy network", 0),
                             stream("toy network", 1)], _SMALL, progress=False)
    assert np.array_equal(a.snapshots[0][0], a.snapshots[0][1])
    assert not np.allclose(a.snapshots[0][0], a.snapshots[0][2])
    expected = np.random.default_rng(stream("toy network", 1)).uniform(
        0.0, _SMALL.init_high, size=(_SMALL.n_hidden, _SMALL.n_stimuli))
    assert np.allclose(superposition.similarity_matrix(torch.tensor(expected)).numpy(),
                       a.snapshots[0][2], atol=1e-5)


@pytest.mark.parametrize("conditions, seeds_, name", [
    (["torus"], [0], "conditions"), (["circle"], [-1], "seeds"), (["circle"], [0, 1], "seeds"),
    (["circle"], [0.5], "seeds"),
])
def test_train_rejects_bad_input(conditions, seeds_, name):
    with pytest.raises(ValueError, match=name):
        superposition.train(conditions, seeds_, _SMALL, progress=False)


def test_a_config_whose_epoch_holds_no_batch_is_refused():
    with pytest.raises(ValueError, match="trials_per_epoch"):
        superposition.ToyConfig(trials_per_epoch=4, batch_size=8)
