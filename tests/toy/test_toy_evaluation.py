"""The toy task's stimuli and trials, and the exact evaluator against brute force."""

import itertools

import numpy as np
import pytest
import torch

from semres.core import theory
from semres.experiments.toy import evaluation
from semres.experiments.toy.profile_fit import linear_profile


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


def test_distances():
    c = evaluation.stimulus_distances(50, "circle")
    s = evaluation.stimulus_distances(50, "segment")
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
        evaluation.stimulus_distances(**kwargs)


def test_sample_trials_distinct_and_uniform():
    rng = np.random.default_rng(0)
    t = evaluation.sample_trials(rng, (60_000,), 4)
    assert ((t[:, 0] != t[:, 1]) & (t[:, 0] != t[:, 2]) & (t[:, 1] != t[:, 2])).all()
    codes = t @ np.array([16, 4, 1])
    counts = np.bincount(codes, minlength=64)
    seen = counts[counts > 0]
    assert len(seen) == 24  # every ordered triple of distinct stimuli out of 4
    expected = len(t) / 24
    # multinomial counts: each within 5 standard deviations of uniform
    assert np.abs(seen - expected).max() < 5 * np.sqrt(expected * (1 - 1 / 24))


@pytest.mark.parametrize("geometry", ["circle", "segment"])
def test_exact_scores_equal_brute_force_enumeration(geometry):
    rng = np.random.default_rng(2)
    D = evaluation.stimulus_distances(8, geometry)  # the circle has ties, the segment too
    G = _random_G(8, rng)
    table = evaluation.TrialTable.from_distances(D)
    b_s, b_i = _brute_force(G, D)
    for compiled in [False] + ([True] if evaluation.numba is not None else []):
        p_s, p_i = evaluation.exact_scores(torch.tensor(G), table, compiled=compiled)
        assert p_s.item() == pytest.approx(b_s, abs=1e-12)
        assert p_i.item() == pytest.approx(b_i, abs=1e-12)
    assert table.n_trials == 8 * 7 * 6 and table.n_ties > 0


def test_exact_scores_match_sampled_estimate():
    """l = 50: the exact sums against a plain sampled Luce estimate, within 4 standard errors."""
    rng = np.random.default_rng(3)
    D = evaluation.stimulus_distances(50, "circle")
    G = _random_G(50, rng, zero_fraction=0.5)
    p_s, p_i = (v.item() for v in evaluation.exact_scores(
        torch.tensor(G), evaluation.TrialTable.from_distances(D)))
    r1, r2, p = evaluation.sample_trials(rng, (200_000,), 50).T
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
    D = evaluation.stimulus_distances(90, "circle")
    table = evaluation.TrialTable.from_distances(D)
    eps = np.array([0.1, 0.2, 0.31, 0.45])
    G = torch.tensor(linear_profile(D[None], eps[:, None, None]))
    p_s, p_i = evaluation.exact_scores(G, table)
    t_s, t_i = theory.linear_circle(2 * eps)
    # discretisation error is O(1/l); the continuous values differ between eps by >> 0.01
    assert np.abs(p_s.numpy() - t_s).max() < 0.01
    assert np.abs(p_i.numpy() - t_i).max() < 0.01


def test_exact_scores_reject_wrong_shape():
    table = evaluation.TrialTable.from_distances(evaluation.stimulus_distances(5))
    with pytest.raises(ValueError, match="G"):
        evaluation.exact_scores(torch.zeros(4, 4), table)
    with pytest.raises(ValueError, match="distances"):
        evaluation.TrialTable.from_distances(np.zeros((3, 4)))


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.skipif(
    evaluation.numba is None, reason="numba not installed"))])
def test_evaluation_paths_agree(compiled):
    """torch and compiled sums, float64 and float32 (the trainer's), agree to rounding."""
    rng = np.random.default_rng(5)
    G = torch.tensor(np.stack([_random_G(50, rng) for _ in range(3)]))
    table = evaluation.TrialTable.from_distances(evaluation.stimulus_distances(50))
    reference = evaluation.exact_scores(G, table, compiled=False)
    for a, b in zip(reference, evaluation.exact_scores(G, table, compiled=compiled)):
        assert torch.allclose(a, b, rtol=0, atol=1e-12)
    for a, b in zip(reference, evaluation.exact_scores(G.float(), table, compiled=compiled)):
        assert torch.allclose(a, b.double(), rtol=0, atol=1e-6)
