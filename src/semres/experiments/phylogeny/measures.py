"""The exact measures of one embedding, with g = 1[‖f − f_p‖ ≤ ε]: the tradeoff curve over ε
(every triplet of the test images counted, not sampled) and the threshold-free summaries
(triplet accuracy, identification ROC AUC)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from scipy.stats import kendalltau, mannwhitneyu

from semres.core import theory
from semres.core.seeds import named_seed

from .settings import DEFAULT


def eps_grid(E, n: int = DEFAULT.n_eps) -> np.ndarray:
    """Thresholds at quantiles of the off-diagonal distances, so b sweeps (0, 1] evenly."""
    off = E[~np.eye(len(E), dtype=bool)]
    return np.quantile(off, np.linspace(0, 1, n)) if off.size else np.zeros(n)


def _step_sum(dist, weight, eps) -> np.ndarray:
    """Σ_k weight_k · 1[dist_k ≤ ε] for every ε, by one sort and a cumulative sum."""
    dist, weight = np.ravel(dist), np.ravel(weight)
    order = np.argsort(dist, kind="stable")
    cum = np.concatenate([[0.0], np.cumsum(weight[order])])
    return cum[np.searchsorted(dist[order], np.asarray(eps, dtype=float), side="right")]


def _check_square(E, species):
    E = np.asarray(E, dtype=float)
    species = np.asarray(species)
    if E.ndim != 2 or E.shape[0] != E.shape[1] or len(species) != len(E):
        raise ValueError("E must be a square matrix with one row per entry of species")
    return E, species


def similarity_curve(E, species, D, eps, probes=None, ties: str = "exclude",
                     references: str = "all") -> np.ndarray:
    """Exact p_S(ε) of g = 1[E ≤ ε]: correct is the reference whose species is nearer the
    probe's in ``D``. A triplet tied in the tree is left out (``ties="exclude"``) or counts
    both correct (``"correct"``, the Luce rule's). References come from every image (``"all"``,
    the theorem's ν) or from other species (``"other_species"``, the paper's triplets). Per
    probe p the sum is N²(1 − τ_p)/2 + Σ_x 1[E_px ≤ ε](G_px − L_px), G (L) counting images
    farther (nearer) in the tree than x."""
    if ties not in ("exclude", "correct"):
        raise ValueError(f"ties must be 'exclude' or 'correct'; got {ties!r}")
    if references not in ("all", "other_species"):
        raise ValueError(f"references must be 'all' or 'other_species'; got {references!r}")
    E, species = _check_square(E, species)
    D = np.asarray(D, dtype=float)
    probes = np.arange(len(E)) if probes is None else np.asarray(probes)
    untied, dists, weights = 0.0, [], []
    for p in probes:
        refs = (species != species[p]) if references == "other_species" else slice(None)
        r = D[species[p], species[refs]]
        n = len(r)
        if n == 0:
            raise ValueError("references: no image of another species to draw")
        _, inverse, counts = np.unique(r, return_inverse=True, return_counts=True)
        below = np.concatenate([[0], np.cumsum(counts)[:-1]])[inverse]
        above = n - below - counts[inverse]
        untied += 1 - np.sum(counts.astype(float) ** 2) / n**2
        dists.append(E[p, refs])
        weights.append((above - below) / n**2)
    steps = _step_sum(np.concatenate(dists), np.concatenate(weights), eps)
    if ties == "correct":
        return (len(probes) - untied / 2 + steps) / len(probes)
    if untied == 0:
        raise ValueError("every triplet is a tie in the tree: no nearer species to find")
    return 0.5 + steps / untied


def identification_curve(E, species, eps) -> np.ndarray:
    """Exact p_I(ε): the probe is a *new* image of the chosen reference's species (the
    paper's protocol) and only the chosen reference is correct; the mass is
    ½ + ½ E[1[E(q, x1) ≤ ε] − 1[E(q, x2) ≤ ε]], a sum of steps in ε."""
    E, species = _check_square(E, species)
    n = len(E)
    _, inverse, counts = np.unique(species, return_inverse=True, return_counts=True)
    m = counts[inverse].astype(float)  # species size of each image
    if (m < 2).all():
        raise ValueError("identification needs species with at least two images")
    chooser = (m >= 2) / np.sum(m >= 2)  # the chosen reference x1, uniform among eligible
    mates = (species[:, None] == species[None, :]) & ~np.eye(n, dtype=bool)
    to_probe = mates * (chooser / np.maximum(m - 1, 1))[:, None]  # P(x1, then probe q)
    w_q = to_probe.sum(0)  # P(probe = q)
    weights = to_probe / 2 - np.broadcast_to(w_q[:, None] / (2 * n), (n, n))
    return 0.5 + _step_sum(E, weights, eps)


def ball_stats(E, eps) -> tuple[np.ndarray, np.ndarray]:
    """⟨b⟩ and Var(b) of the empirical measure in the space of ``E`` (where ε acts)."""
    E = np.asarray(E, dtype=float)
    eps = np.asarray(eps, dtype=float)
    b = np.stack([(E <= e).mean(1) for e in eps.ravel()])  # (len(eps), N)
    return b.mean(1).reshape(eps.shape), b.var(1).reshape(eps.shape)


def _tied_pairs(values) -> float:
    counts = np.unique(values, return_counts=True)[1]
    return float(np.sum(counts * (counts - 1) / 2))


def triplet_accuracy(E, species, D, probes=None) -> float:
    """P(the probe is nearer the species nearer in the tree), over pairs of references from
    other species untied in the tree; per probe ½ + (C − D)/(2 P), with C − D from Kendall's
    τ_b in O(N log N)."""
    E, species = _check_square(E, species)
    D = np.asarray(D, dtype=float)
    probes = np.arange(len(E)) if probes is None else np.asarray(probes)
    hits, pairs = 0.0, 0.0
    for p in probes:
        keep = species != species[p]
        r, e = D[species[p], species[keep]], E[p, keep]
        n0 = len(r) * (len(r) - 1) / 2
        untied_r, untied_e = n0 - _tied_pairs(r), n0 - _tied_pairs(e)
        if untied_r == 0:
            continue
        c_minus_d = 0.0
        if untied_e > 0:
            c_minus_d = kendalltau(r, e).statistic * np.sqrt(untied_r * untied_e)
        hits += (c_minus_d + untied_r) / 2
        pairs += untied_r
    return float(hits / pairs) if pairs else float("nan")


def identification_auc(E, species) -> float:
    """ROC AUC of −distance separating same-species from different-species image pairs."""
    E, species = _check_square(E, species)
    iu = np.triu_indices(len(E), 1)
    d = E[iu]
    same = (species[:, None] == species[None, :])[iu]
    if same.all() or not same.any():
        raise ValueError("need both same-species and different-species pairs")
    u = mannwhitneyu(-d[same], -d[~same]).statistic
    return float(u / (same.sum() * (~same).sum()))


def evaluation_pool(data, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """The trained species' test images plus as many images per held-out species (ν stays
    balanced), drawn from the "evaluation pool" stream; the indices and an OOD mask."""
    test, ood = data.split["test"], data.split["ood"]
    per_species = int(np.median(np.bincount(data.species[test])[np.unique(data.species[test])]))
    rng = np.random.default_rng(named_seed(seed, "evaluation pool"))
    picked = [rng.permutation(ood[data.species[ood] == k])[:per_species]
              for k in np.unique(data.species[ood])]
    ood = np.sort(np.concatenate(picked)) if picked else np.array([], dtype=np.int64)
    pool = np.concatenate([test, ood])
    return pool, np.isin(pool, ood)


def evaluate(emb, species, is_ood, D, *, n_eps: int = DEFAULT.n_eps,
             max_probes: int = DEFAULT.max_probes, seed=0):
    """The tradeoff curve and the summaries of one pool's embeddings: ε at quantiles of the
    trained species' test distances, the theory from their ball measures in the embedding
    (where ε acts), ``p_s``/``p_s_ood`` with references of other species, ``p_s_all`` from
    every image; at most ``max_probes`` probes for the triplet accuracy."""
    species, is_ood = np.asarray(species), np.asarray(is_ood, dtype=bool)
    E = cdist(np.asarray(emb, dtype=float), np.asarray(emb, dtype=float))
    ind = ~is_ood
    E_id, sp_id = E[np.ix_(ind, ind)], species[ind]
    eps = eps_grid(E_id, n_eps)
    mean_b, var_b = ball_stats(E_id, eps)
    var_b = np.minimum(var_b, mean_b * (1 - mean_b))
    ps_th, pi_th = theory.two_item(mean_b, var_b=var_b)
    curve = {"eps": eps, "mean_b": mean_b, "var_b": var_b,
             "p_s": similarity_curve(E_id, sp_id, D, eps, references="other_species"),
             "p_s_all": similarity_curve(E_id, sp_id, D, eps),
             "p_i": identification_curve(E_id, sp_id, eps), "p_s_theory": ps_th,
             "p_i_theory": pi_th}
    rng = np.random.default_rng(named_seed(seed, "probe subset"))

    def cap(idx):
        return np.sort(rng.choice(idx, max_probes, replace=False)) if len(idx) > max_probes else idx

    ood_probes = np.flatnonzero(is_ood)
    has_ood = len(np.unique(species[is_ood])) > 0
    curve["p_s_ood"] = (similarity_curve(E, species, D, eps, probes=ood_probes,
                                         references="other_species") if has_ood
                        else np.full(len(eps), np.nan))
    summary = {"sim_accuracy": triplet_accuracy(E_id, sp_id, D,
                                                probes=cap(np.arange(len(sp_id)))),
               "id_auc": identification_auc(E_id, sp_id),
               "ood_sim_accuracy": (triplet_accuracy(E, species, D, probes=cap(ood_probes))
                                    if has_ood else float("nan"))}
    return curve, summary
