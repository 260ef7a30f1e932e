"""The exact measures of one embedding: the tradeoff curve over ε and the threshold-free
summaries.

The model's similarity is g = 1[‖f − f_p‖ ≤ ε]; on held-out test images every triplet is
counted exactly (not sampled), with exact distance ties resolved by the Luce rule. The
summaries need no ε: the triplet accuracy (is the probe nearer the species that is nearer in
the tree?) and the identification ROC AUC (same species against different species).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from scipy.stats import kendalltau, mannwhitneyu

from semres.core import theory
from semres.core.seeds import named_seed

from .settings import DEFAULT


def pairwise_distances(emb) -> np.ndarray:
    emb = np.asarray(emb, dtype=float)
    return cdist(emb, emb)


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
    """Exact p_S(ε) of g = 1[E ≤ ε], two references drawn i.i.d. from all images in ``E``.

    The correct reference is the one whose species is patristically nearer (``D``) to the
    probe's. In a tree many species are equally far from a probe (all those across the root,
    say); such a triplet has no nearer species. ``ties="exclude"`` leaves those triplets out
    (the experiment: "which species is closer?" needs an answer), ``ties="correct"`` counts
    both references correct, as the Luce rule does in a discrete space (the engine's rule).
    ``probes`` restricts the probe images (e.g. to held-out species). ``references="all"``
    draws the references from every image, the probe's own species and image included (the
    theorem's protocol: ν is the image distribution); ``"other_species"`` draws them only from
    images of other species, so probe and references are three distinct species whenever the
    references differ (the paper's triplets). For a probe p the sum
    over triplets is N²(1 − τ_p)/2 + Σ_x 1[E_px ≤ ε](G_px − L_px), with G (L) the number of
    images farther (nearer) in the tree than x and τ_p the chance of a tree-distance tie.
    """
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
    """Exact p_I(ε): references i.i.d. from all images; the probe is a *new* image of one.

    The probe is another image of the chosen reference's species (not a copy of it: the
    paper's protocol), and only the chosen reference is correct, as in the theory, where the
    probe is a copy; a second reference of the same species takes its Luce share. Species with
    a single image cannot supply a new image and are never chosen. The expected mass is
    ½ + ½ E[1[E(q, x1) ≤ ε] − 1[E(q, x2) ≤ ε]], a sum of steps in ε.
    """
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
    _, counts = np.unique(values, return_counts=True)
    return float(np.sum(counts * (counts - 1) / 2))


def triplet_accuracy(E, species, D, probes=None) -> float:
    """Threshold-free generalization: P(the probe is nearer the patristically nearer species).

    Over every probe and every pair of references from two other species at different tree
    distances from the probe's species; embedding ties count ½. Per probe this is
    ½ + (C − D)/(2 P), with C − D the concordant minus discordant pairs of (tree distance,
    embedding distance) and P the pairs untied in the tree: Kendall's τ_b gives C − D in
    O(N log N), where counting pairs directly costs O(N²) per probe.
    """
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


# --- one trained model, measured -------------------------------------------------------------

def evaluation_pool(data, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """Test images of the trained species plus as many images per held-out species.

    Held-out species have all their images available; taking as many per species as the
    trained species have test images keeps ν (the image distribution of the tests) balanced;
    which ones comes from the "evaluation pool" stream of ``seed``. Returns the pool's image
    indices and a mask of which are held-out (OOD).
    """
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
    """The tradeoff curve over ε and the threshold-free summaries of one embedding.

    ``emb`` are the pool's embeddings (trained species' test images and held-out species'
    images, marked by ``is_ood``). ε is swept over quantiles of the trained species' test
    distances; the theory curve (Theorem 1) takes ⟨b⟩ and Var(b) of that same test set in the
    embedding space, the space where ε acts. ``p_s`` (and ``p_s_ood``) draw the references from
    other species than the probe's, as the paper's triplets do; ``p_s_all`` draws them from every
    image (the theorem's ν), for comparison. ``max_probes`` caps the probes of the triplet
    accuracy (a subset from the "probe subset" stream of ``seed``) for large test sets such as
    CUB's.
    """
    species, is_ood = np.asarray(species), np.asarray(is_ood, dtype=bool)
    E = pairwise_distances(emb)
    ind = ~is_ood
    E_id, sp_id = E[np.ix_(ind, ind)], species[ind]
    eps = eps_grid(E_id, n_eps)
    mean_b, var_b = ball_stats(E_id, eps)
    var_b = np.minimum(var_b, mean_b * (1 - mean_b))
    ps_th, pi_th = theory.two_item(mean_b, var_b=var_b)
    curve = {
        "eps": eps,
        "mean_b": mean_b,
        "var_b": var_b,
        "p_s": similarity_curve(E_id, sp_id, D, eps, references="other_species"),
        "p_s_all": similarity_curve(E_id, sp_id, D, eps),
        "p_i": identification_curve(E_id, sp_id, eps),
        "p_s_theory": ps_th,
        "p_i_theory": pi_th,
    }
    rng = np.random.default_rng(named_seed(seed, "probe subset"))

    def cap(idx):
        return np.sort(rng.choice(idx, max_probes, replace=False)) if len(idx) > max_probes else idx

    ood_probes = np.flatnonzero(is_ood)
    has_ood = len(np.unique(species[is_ood])) > 0
    curve["p_s_ood"] = (similarity_curve(E, species, D, eps, probes=ood_probes,
                                         references="other_species") if has_ood
                        else np.full(len(eps), np.nan))
    summary = {
        "sim_accuracy": triplet_accuracy(E_id, sp_id, D, probes=cap(np.arange(len(sp_id)))),
        "id_auc": identification_auc(E_id, sp_id),
        "ood_sim_accuracy": (triplet_accuracy(E, species, D, probes=cap(ood_probes))
                             if has_ood else float("nan")),
    }
    return curve, summary
