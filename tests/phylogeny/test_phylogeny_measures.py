"""The exact measures of an embedding, against brute-force enumeration of every triplet on
small sets and against the Monte Carlo engine on a discrete space (the tree itself as the
embedding)."""

import itertools

import numpy as np
import pytest

from semres.core.kernels import Constant
from semres.core.simulate import luce_success
from semres.core.spaces import Discrete
from semres.experiments.phylogeny import measures, phylo


def _toy(seed=0):
    """9 images of 3 species with integer distances, so exact ties occur."""
    rng = np.random.default_rng(seed)
    species = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2])
    x = rng.integers(0, 4, (9, 2))
    E = np.abs(x[:, None] - x[None]).sum(-1).astype(float)  # L1: a metric with many ties
    D = np.array([[0, 2, 4], [2, 0, 4], [4, 4, 0]], dtype=float)
    return E, species, D


def _luce(g, correct):
    return (g * correct).sum() / g.sum() if g.sum() > 0 else correct.sum() / len(g)


def _brute_similarity(E, species, D, eps, probes, ties, references="all"):
    """Probe uniform, references i.i.d. uniform over the pool (weight 1/|pool|² each)."""
    n, out, weight = len(E), [], []
    for p in probes:
        refs = [x for x in range(n) if references == "all" or species[x] != species[p]]
        for a, b in itertools.product(refs, repeat=2):
            r = D[species[p], species[[a, b]]]
            if ties == "exclude" and r[0] == r[1]:
                continue
            out.append(_luce((E[p, [a, b]] <= eps).astype(float), (r == r.min()).astype(float)))
            weight.append(1 / len(refs) ** 2)
    return np.average(out, weights=weight)


def _brute_identification(E, species, eps):
    n, total, weight = len(E), 0.0, 0.0
    for x1 in range(n):
        mates = [q for q in range(n) if species[q] == species[x1] and q != x1]
        for q in mates:
            for x2 in range(n):
                w = 1 / len(mates) / n
                g = (E[q, [x1, x2]] <= eps).astype(float)
                total += w * _luce(g, np.array([1.0, 0.0]))
                weight += w
    return total / weight


@pytest.mark.parametrize("eps", [0.0, 1.0, 2.0, 3.5, 10.0])
def test_exact_curves_match_brute_force_enumeration(eps):
    E, species, D = _toy()
    for ties in ("exclude", "correct"):
        ps = measures.similarity_curve(E, species, D, [eps], ties=ties)[0]
        assert ps == pytest.approx(_brute_similarity(E, species, D, eps, range(9), ties),
                                   abs=1e-12)
        sub = measures.similarity_curve(E, species, D, [eps], probes=[5, 6, 7], ties=ties)[0]
        assert sub == pytest.approx(_brute_similarity(E, species, D, eps, [5, 6, 7], ties),
                                    abs=1e-12)
        other = measures.similarity_curve(E, species, D, [eps], ties=ties,
                                        references="other_species")[0]
        assert other == pytest.approx(
            _brute_similarity(E, species, D, eps, range(9), ties, "other_species"), abs=1e-12)
    pi = measures.identification_curve(E, species, [eps])[0]
    assert pi == pytest.approx(_brute_identification(E, species, eps), abs=1e-12)


def test_similarity_curve_rejects_unknown_reference_pool():
    E, species, D = _toy()
    with pytest.raises(ValueError, match="references"):
        measures.similarity_curve(E, species, D, [1.0], references="same_species")


def test_measures_agree_with_the_engine_when_the_tree_is_the_embedding():
    """A perfect model embeds every image at its species' point: E = D between species."""
    tree = phylo.simulate_tree(7, seed=1)
    D = phylo.patristic_matrix(tree)
    counts = np.array([3, 5, 2, 4, 6, 2, 3])
    species = np.repeat(np.arange(7), counts)
    E = D[species][:, species]
    space = Discrete(D, counts / counts.sum())
    for eps in np.quantile(D[D > 0], [0.1, 0.5, 0.9]):
        ps = measures.similarity_curve(E, species, D, [eps], ties="correct")[0]
        pi = measures.identification_curve(E, species, [eps])[0]
        sim = luce_success(space, Constant(eps), "similarity", 2, 200_000, seed=3)
        ide = luce_success(space, Constant(eps), "identification", 2, 200_000, seed=4)
        assert abs(ps - sim.mean) <= 4.5 * sim.stderr + 1e-9, (eps, ps, sim)
        assert abs(pi - ide.mean) <= 4.5 * ide.stderr + 1e-9, (eps, pi, ide)


def test_ball_stats_and_threshold_free_summaries():
    E, species, D = _toy()
    mean, var = measures.ball_stats(E, np.array([1.0, 2.0]))
    b = (E <= 2.0).mean(1)
    assert mean[1] == pytest.approx(b.mean()) and var[1] == pytest.approx(b.var())
    # triplet accuracy by enumeration
    hits = pairs = 0
    for p in range(9):
        others = [x for x in range(9) if species[x] != species[p]]
        for a, b_ in itertools.permutations(others, 2):
            if D[species[p], species[a]] < D[species[p], species[b_]]:
                pairs += 1
                hits += (E[p, a] < E[p, b_]) + 0.5 * (E[p, a] == E[p, b_])
    assert measures.triplet_accuracy(E, species, D) == pytest.approx(hits / pairs)
    # AUC by enumeration of (same, different) pair pairs
    iu = np.triu_indices(9, 1)
    same = (species[:, None] == species[None])[iu]
    d = E[iu]
    auc = np.mean([(s < t) + 0.5 * (s == t) for s in d[same] for t in d[~same]])
    assert measures.identification_auc(E, species) == pytest.approx(auc)
    # a perfect embedding identifies perfectly
    assert measures.identification_auc(D[species][:, species], species) == 1.0


def test_a_misspelt_tie_rule_is_refused_by_name():
    E = np.zeros((3, 3))
    with pytest.raises(ValueError, match="ties"):
        measures.similarity_curve(E, np.array([0, 1, 2]), np.ones((3, 3)), [0.5], ties="corect")
