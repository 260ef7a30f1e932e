"""The α-weighted ResNet of the phylogeny experiment: model, loss, training and measures.

The network is a ``transformers`` ResNet (built from a small config and trained from scratch by
default, or a pretrained checkpoint such as ``microsoft/resnet-50`` when its weights are on
disk). It is trained with L = (1 − α) CE + α L_sim, where L_sim pulls the batch's embedding
distances towards the species' patristic distances. Its similarity is then read as
g = 1[‖f − f_p‖ ≤ ε] and measured on held-out test images, exactly (every triplet of the test
set counted, not sampled), with exact distance ties resolved by the Luce rule.
"""

from __future__ import annotations

import copy
import hashlib
import math
import os
import time
from contextlib import contextmanager
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from joblib import Parallel, cpu_count, delayed
from scipy.spatial.distance import cdist
from scipy.stats import kendalltau, mannwhitneyu
from scipy.stats import t as student
from torch import nn
from torch.func import functional_call, stack_module_state, vmap
from tqdm.auto import tqdm

from semres.core import plotting as splot
from semres.core import theory
from semres.core.seeds import int_seed, named_seed
from semres.core.intervals import difference_interval
from semres.core.models import check_source
from .phylo import PhyloData
from semres.core.profiles import Settings, positive_ints, require

__all__ = [
    "ps_at_matched_pi",
    "common_pi",
    "PhyloResNet",
    "build_model",
    "phylo_loss",
    "train",
    "train_many",
    "embed",
    "pairwise_distances",
    "eps_grid",
    "similarity_curve",
    "check_inputs",
    "identification_curve",
    "ball_stats",
    "triplet_accuracy",
    "identification_auc",
    "evaluation_pool",
    "evaluate",
    "train_and_evaluate",
    "train_and_evaluate_many",
    "effects",
    "METRICS",
    "result_tables",
    "compared_alphas",
    "effect_row",
    "describe_effect",
    "traded",
    "alpha_verdict",
    "effects_display",
    "welch_words",
    "replicates_sentence",
    "run_sentences",
    "peak_points",
    "deviation_lines",
    "fig_tradeoff",
    "fig_summaries",
]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


class PhyloResNet(nn.Module):
    """A ResNet backbone whose pooled features are the embedding, plus a linear classifier."""

    def __init__(self, backbone, num_classes: int, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25)):
        super().__init__()
        backbone.pooler = nn.Identity()  # pooled below: vmap has no fast rule for adaptive pooling
        self.backbone = backbone
        self.head = nn.Linear(backbone.config.hidden_sizes[-1], num_classes)
        self.register_buffer("mean", torch.tensor(mean).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(1, 3, 1, 1))

    def embed(self, images: torch.Tensor) -> torch.Tensor:
        """Embeddings of uint8 ``(B, H, W, 3)`` images."""
        x = images.permute(0, 3, 1, 2).float().div(255.0)
        x = (x - self.mean) / self.std
        return self.backbone(pixel_values=x).last_hidden_state.mean(dim=(2, 3))

    def forward(self, images):
        emb = self.embed(images)
        return self.head(emb), emb


def check_inputs(cub_dir=None, newick=None, model=None) -> None:
    """Fail on the chapter's first cell, not after the data are built: a CUB folder needs its
    tree, and a model id must load offline (ValueError naming the argument)."""
    if cub_dir is not None and newick is None:
        raise ValueError("newick: a Newick tree is needed with cub_dir")
    if model is not None:
        build_model(2, model=check_source(model, "model"))


def build_model(num_classes: int, model: str | None = None, widths=(16, 32, 64),
                depths=(1, 1, 1), seed=0) -> PhyloResNet:
    """A small ResNet from a config (``model=None``) or a pretrained one loaded offline; its
    initial weights (and the head's) come from the "initial weights" stream of ``seed`` (an
    int or a SeedSequence)."""
    from transformers import ResNetConfig, ResNetModel

    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) \
            or num_classes < 2:
        raise ValueError(f"num_classes must be an integer >= 2; got {num_classes!r}")
    if len(widths) != len(depths) or not widths:
        raise ValueError("widths and depths must be non-empty and of equal length")
    torch.manual_seed(int_seed(seed, "initial weights"))
    if model is None:
        config = ResNetConfig(num_channels=3, embedding_size=int(widths[0]),
                              hidden_sizes=[int(w) for w in widths],
                              depths=[int(d) for d in depths], layer_type="basic")
        return PhyloResNet(ResNetModel(config), int(num_classes))
    try:
        backbone = ResNetModel.from_pretrained(model)
    except OSError as err:
        raise ValueError(f"model {model!r} cannot be loaded offline: {err}") from None
    return PhyloResNet(backbone, int(num_classes), IMAGENET_MEAN, IMAGENET_STD)


def _pdist(emb: torch.Tensor) -> torch.Tensor:
    """Upper-triangle Euclidean distances; the floor keeps the gradient finite at 0."""
    i, j = torch.triu_indices(len(emb), len(emb), offset=1)
    diff = emb[i] - emb[j]
    return torch.sqrt((diff * diff).sum(1) + 1e-12)


def _loss_terms(logits, emb, classes, species, distances):
    """CE and L_sim of one model's batch (vmapped over models by :func:`train_many`)."""
    ce = F.cross_entropy(logits, classes)
    d_emb = _pdist(emb)
    i, j = torch.triu_indices(len(emb), len(emb), offset=1)
    d_phy = distances[species[i], species[j]]
    if len(d_emb) == 0:
        return ce, emb.sum() * 0
    l_sim = ((d_emb / d_emb.mean().clamp_min(1e-12)
              - d_phy / d_phy.mean().clamp_min(1e-12)) ** 2).mean()
    return ce, l_sim


def phylo_loss(logits, emb, classes, species, distances, alpha: float):
    """(1 − α) CE + α L_sim; returns ``(loss, ce, l_sim)``.

    L_sim is the mean squared mismatch between the batch's embedding distances and the
    species' patristic distances, each divided by its batch mean so that neither's scale
    matters (only the geometry is matched).
    """
    _check_alpha(alpha)
    ce, l_sim = _loss_terms(logits, emb, classes, species, distances)
    return (1 - alpha) * ce + alpha * l_sim, ce, l_sim


def _check_alpha(alpha) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.number)) \
            or not 0 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [0, 1]; got {alpha!r}")


@contextmanager
def _threads(n: int | None):
    """Run torch on ``n`` threads, then restore the previous setting.

    These networks are so small that a second thread buys nothing on an idle machine and, on a
    busy one, its spin-waiting makes each step several times slower (measured: 8x on 2 shared
    cores); one thread per run is the robust default.
    """
    before = torch.get_num_threads()
    if n:
        torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _save_atomic(obj, path: Path) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def train(model: PhyloResNet, data, alpha: float, *, epochs: int, batch_size: int = 64,
          lr: float = 2e-3, weight_decay: float = 1e-4, seed=0, checkpoint=None,
          device="cpu", progress: bool = True, threads: int | None = 1) -> list[dict]:
    """Train one model on ``data.split['train']``; returns one history row per epoch.

    One run of :func:`train_many`: the same batches, initial weights and optimiser.
    """
    return train_many([model], data, [alpha], [seed], epochs=epochs, batch_size=batch_size,
                      lr=lr, weight_decay=weight_decay, checkpoint=checkpoint, device=device,
                      progress=progress, threads=threads)[0]


def train_many(models, data, alphas, seeds, *, epochs: int, batch_size: int = 64,
               lr: float = 2e-3, weight_decay: float = 1e-4, checkpoint=None, device="cpu",
               progress: bool = True, threads: int | None = 1) -> list[list[dict]]:
    """Train independent runs (one model, α and seed each) as one vectorised model.

    A small ResNet leaves an accelerator idle between kernel launches; stacking the runs'
    weights and mapping the network over them (``torch.func.vmap``) launches each kernel once
    for all runs. The runs stay independent: each sees its own initial weights, its own seed's
    batch order (epoch ``e`` draws from the stream ("batch order", e) of its seed, an int or a
    SeedSequence), its own α and an element-wise
    AdamW, so the result equals separate runs up to floating-point summation order. A
    checkpoint written after every epoch lets an interrupted call resume exactly. The models
    are trained in place; returns one history (a row per epoch) per run. ``threads``: torch
    threads while training (None leaves torch's setting alone).
    """
    with _threads(threads):
        return _train_many(list(models), data, list(alphas), [_seed(s) for s in seeds],
                           epochs=epochs, batch_size=batch_size, lr=lr,
                           weight_decay=weight_decay, checkpoint=checkpoint, device=device,
                           progress=progress)


def _train_many(models, data, alphas, seeds, *, epochs, batch_size, lr, weight_decay,
                checkpoint, device, progress):
    for alpha in alphas:
        _check_alpha(alpha)
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f"epochs must be an integer >= 1; got {epochs!r}")
    if batch_size < 2:
        raise ValueError(f"batch_size must be >= 2; got {batch_size!r}")
    if not models or not len(models) == len(alphas) == len(seeds):
        raise ValueError(f"models, alphas and seeds must have one entry per run; got "
                         f"{len(models)}, {len(alphas)} and {len(seeds)}")
    device = torch.device(device)
    train_idx, val_idx = data.split["train"], data.split["val"]
    known = np.unique(data.species[train_idx])
    class_of = np.full(data.n_species, -1)
    class_of[known] = np.arange(len(known))
    shapes = {k: v.shape for k, v in models[0].state_dict().items()}
    for m in models:
        if m.head.out_features != len(known):
            raise ValueError(f"model has {m.head.out_features} classes; the training split "
                             f"has {len(known)} species")
        if {k: v.shape for k, v in m.state_dict().items()} != shapes:
            raise ValueError("models: every run must have the same architecture")
    images = torch.from_numpy(data.images).to(device)
    species = torch.from_numpy(data.species).long().to(device)
    classes = torch.from_numpy(class_of[data.species]).long().to(device)
    dist = torch.as_tensor(data.distances, dtype=torch.float32, device=device)
    alpha = torch.tensor(alphas, dtype=torch.float32, device=device)
    params, buffers = stack_module_state([m.to(device) for m in models])
    skeleton = copy.deepcopy(models[0]).to("meta")

    def forward(p, b, x):
        return functional_call(skeleton, (p, b), (x,))

    def terms(logits, emb, cls, sp):
        return _loss_terms(logits, emb, cls, sp, dist)

    if len(models) > 1:
        forward_all, terms_all = vmap(forward), vmap(terms)
    else:  # nothing to map over: skip vmap's bookkeeping (~13 % of a CPU step)
        def forward_all(p, b, x):
            one = forward({k: v[0] for k, v in p.items()}, {k: v[0] for k, v in b.items()},
                          x[0])
            return tuple(t[None] for t in one)

        def terms_all(*tensors):
            return tuple(t[None] for t in terms(*(t[0] for t in tensors)))
    stacked = {**params, **buffers}  # views of the same tensors: one name -> tensor lookup
    opt = torch.optim.AdamW(list(params.values()), lr=lr, weight_decay=weight_decay)
    runs = len(models)
    histories, start = [[] for _ in models], 0
    checkpoint = Path(checkpoint) if checkpoint is not None else None
    if checkpoint is not None and checkpoint.is_file():
        state = torch.load(checkpoint, map_location=device, weights_only=False)
        with torch.no_grad():
            for k, v in {**state["params"], **state["buffers"]}.items():
                stacked[k].copy_(v)
        opt.load_state_dict(state["optimizer"])
        histories, start = state["histories"], state["epoch"]
    desc = f"alpha={alphas[0]:g}" if runs == 1 else f"{runs} runs at once"
    bar = tqdm(range(start, epochs), desc=desc, disable=not progress, initial=start,
               total=epochs, leave=False)
    for epoch in bar:
        skeleton.train()
        orders = torch.stack([
            torch.from_numpy(train_idx)[torch.randperm(
                len(train_idx),
                generator=torch.Generator().manual_seed(int_seed(s, "batch order", epoch)))]
            for s in seeds]).to(device)
        totals, n_seen, t0 = torch.zeros(3, runs, device=device), 0, time.perf_counter()
        for chunk in orders.split(batch_size, dim=1):
            if chunk.shape[1] < 2:
                continue
            logits, emb = forward_all(params, buffers, images[chunk])
            ce, l_sim = terms_all(logits, emb, classes[chunk], species[chunk])
            loss = (1 - alpha) * ce + alpha * l_sim
            opt.zero_grad(set_to_none=True)
            loss.sum().backward()
            opt.step()
            totals += chunk.shape[1] * torch.stack([loss, ce, l_sim]).detach()
            n_seen += chunk.shape[1]
        skeleton.eval()
        val = _accuracy_many(forward_all, params, buffers, images, classes, val_idx)
        seconds = time.perf_counter() - t0
        for r, (row, acc) in enumerate(zip((totals / max(n_seen, 1)).T.tolist(), val)):
            histories[r].append({**dict(zip(("loss", "ce", "l_sim"), row)), "epoch": epoch + 1,
                                 "seconds": seconds / runs, "val_accuracy": acc})
        last = [h[-1] for h in histories]
        bar.set_postfix(loss=f"{np.mean([h['loss'] for h in last]):.3f}",
                        val=f"{np.mean([h['val_accuracy'] for h in last]):.2f}")
        if checkpoint is not None:
            checkpoint.parent.mkdir(parents=True, exist_ok=True)
            _save_atomic({"params": {k: v.detach() for k, v in params.items()},
                          "buffers": buffers, "optimizer": opt.state_dict(),
                          "histories": histories, "epoch": epoch + 1}, checkpoint)
    with torch.no_grad():
        for r, m in enumerate(models):
            m.load_state_dict({k: v[r] for k, v in stacked.items()})
    return histories


@torch.no_grad()
def _accuracy_many(forward_all, params, buffers, images, classes, idx) -> list[float]:
    """Validation accuracy of every stacked run (eval mode), in chunks of 256 images."""
    runs = len(next(iter(params.values())))
    if len(idx) == 0:
        return [float("nan")] * runs
    idx = torch.from_numpy(idx).to(images.device)
    hits = sum((forward_all(params, buffers, images[c].expand(runs, *images[c].shape))[0]
                .argmax(-1) == classes[c]).sum(1) for c in idx.split(256))
    return (hits.float() / len(idx)).tolist()


@torch.no_grad()
def embed(model: PhyloResNet, images: np.ndarray, batch_size: int = 256, device="cpu",
          threads: int | None = 1):
    """Embeddings (eval mode) of uint8 images, as a float64 numpy array."""
    model.eval().to(device)
    x = torch.from_numpy(np.ascontiguousarray(images))
    with _threads(threads):
        return torch.cat([model.embed(c.to(device)).cpu()
                          for c in x.split(batch_size)]).double().numpy()


# --- measures ---------------------------------------------------------------------------------

def pairwise_distances(emb) -> np.ndarray:
    emb = np.asarray(emb, dtype=float)
    return cdist(emb, emb)


def eps_grid(E, n: int = 41) -> np.ndarray:
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


def evaluate(emb, species, is_ood, D, *, n_eps: int = 41, max_probes: int = 400, seed=0):
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


def train_and_evaluate(images, species, distances, split, alpha: float, seed,
                       settings: dict, model: str | None = None, checkpoint_dir=None,
                       device="cpu", progress: bool = True) -> dict:
    """Train one model at one α, replicate 0 of ``seed``, then measure it (one run of
    :func:`train_and_evaluate_many`)."""
    return train_and_evaluate_many(images, species, distances, split, [(alpha, 0)],
                                   settings, model=model, checkpoint_dir=checkpoint_dir,
                                   device=device, progress=progress, seed=seed)[0]


def _seed(seed):
    """A seed as the streams take it: a SeedSequence as is, an integer as an int."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0 or a SeedSequence; got {seed!r}")
    return int(seed)


def train_and_evaluate_many(images, species, distances, split, runs, settings: dict,
                            model: str | None = None, checkpoint_dir=None, device="cpu",
                            progress: bool = True, seed=0) -> list[dict]:
    """Train every ``(alpha, replicate)`` run, ``settings["runs_at_once"]`` at a time (default:
    one at a time on a CPU, all at once on an accelerator), then measure each; plain inputs so
    that the whole set can be cached.

    Replicate ``r`` draws its initial weights, batch order, evaluation pool and probe subset
    from the stream ("replicate", r) of ``seed`` (an int or a SeedSequence, say a chapter's
    named stream), so runs of one replicate start from the same weights whatever their α, and
    adding a replicate or an α moves no other run. A run's ``seed`` in the result is its
    replicate. ``settings`` holds ``epochs``, ``batch_size``, ``lr``, ``widths``, ``depths``,
    ``n_eps`` and ``max_probes``. With
    ``checkpoint_dir`` an interrupted call resumes from the last epoch of the group it was
    training; each checkpoint is removed once its group is measured (the caller caches the
    result). ``train_seconds`` of a run is its share of its group's training time, and
    ``trained_with`` the size of the group it trained in.
    """
    runs = [(float(a), int(r)) for a, r in runs]
    if any(r < 0 for _, r in runs):
        raise ValueError("runs: replicates must be integers >= 0")
    seed = _seed(seed)

    def stream(replicate):
        return named_seed(seed, "replicate", replicate)

    at_once = settings.get("runs_at_once")
    if at_once is None:  # measured: stacking buys nothing on a CPU, launches on an accelerator
        at_once = 1 if torch.device(device).type == "cpu" else len(runs)
    if isinstance(at_once, bool) or not isinstance(at_once, (int, np.integer)) or at_once < 1:
        raise ValueError(f"runs_at_once must be an integer >= 1; got {at_once!r}")
    data = PhyloData(np.asarray(images), np.asarray(species), [str(i) for i in
                     range(len(distances))], np.asarray(distances), dict(split))
    n_classes = len(np.unique(data.species[data.split["train"]]))
    out = []
    groups = range(0, len(runs), at_once)
    for first in tqdm(groups, desc=f"{len(runs)} runs, {at_once} at a time",
                      disable=not progress or len(groups) < 2):
        group = runs[first:first + at_once]
        nets = [build_model(n_classes, model=model, widths=settings["widths"],
                            depths=settings["depths"], seed=stream(r)) for _, r in group]
        ckpt = None
        if checkpoint_dir is not None:  # named by the group's runs and the seed they draw from
            tag = hashlib.sha1(repr((group, [stream(r).entropy for _, r in group],
                                     [stream(r).spawn_key for _, r in group])).encode())
            ckpt = Path(checkpoint_dir) / f"runs_{tag.hexdigest()[:16]}.pt"
        t0 = time.perf_counter()
        histories = train_many(nets, data, [a for a, _ in group], [stream(r) for _, r in group],
                               epochs=settings["epochs"], batch_size=settings["batch_size"],
                               lr=settings["lr"], checkpoint=ckpt, device=device,
                               progress=progress)
        share = (time.perf_counter() - t0) / len(group)
        t1 = time.perf_counter()
        pools = [evaluation_pool(data, seed=stream(r)) for _, r in group]
        embs = [embed(net, data.images[pool], device=device)
                for net, (pool, _) in zip(nets, pools)]
        # the exact curves are CPU work: a stacked group is measured on every core
        measured = Parallel(n_jobs=min(len(group), cpu_count()), return_as="generator")(
            delayed(evaluate)(emb, data.species[pool], is_ood, data.distances,
                              n_eps=settings["n_eps"], max_probes=settings["max_probes"],
                              seed=stream(r))
            for emb, (pool, is_ood), (_, r) in zip(embs, pools, group))
        measured = list(tqdm(measured, total=len(group), desc="measuring", leave=False,
                             disable=not progress))
        per_run = (time.perf_counter() - t1) / len(group)
        for (alpha, r), history, (curve, summary) in zip(group, histories, measured):
            out.append({"alpha": alpha, "seed": r, "history": history, "curve": curve,
                        "summary": summary, "train_seconds": share,
                        "seconds": share + per_run, "trained_with": len(group)})
        if ckpt is not None and ckpt.exists():
            ckpt.unlink()
    return out


# --------------------------------------------------------------------------- α effects

def _envelope_at(x: np.ndarray, y: np.ndarray, p_i: float) -> float:
    """The largest p_S of a sweep (points in sweep order) at identification ``p_i``: the
    upper envelope of the piecewise-linear path through the points, NaN where it never
    reaches ``p_i``."""
    if not x.size:
        return math.nan
    hits = list(y[x == p_i])
    for k in range(x.size - 1):
        a, b = x[k], x[k + 1]
        if a != b and min(a, b) < p_i < max(a, b):
            hits.append(y[k] + (y[k + 1] - y[k]) * (p_i - a) / (b - a))
    return float(max(hits)) if hits else math.nan


def ps_at_matched_pi(tradeoff, p_i: float):
    """Each model's p_S at identification ``p_i``, read off its ε-sweep curve.

    Comparing α values at the same ε-quantile compares models at different identification; a
    trade of identification for generalization is a claim at *matched* p_I. ``tradeoff`` has
    columns alpha, seed, p_i, p_s (one row per ε of each model's sweep, in the order of ε, or
    with an ``eps`` column to order them by). Along the sweep p_I need not be monotone: it can
    rise to a peak and fall back, so one p_I is crossed on two branches, one of them
    inefficient (lower p_S at the same identification). The path through the sweep's points is
    interpolated linearly, segment by segment in the order of ε, and the model's p_S at
    ``p_i`` is the highest crossing: the efficient branch, the best this model achieves at that
    identification with any ε. NaN for a model whose sweep never reaches ``p_i``. Returns a
    DataFrame alpha, seed, p_s.
    """
    need = {"alpha", "seed", "p_i", "p_s"}
    if not need <= set(tradeoff.columns):
        raise ValueError(f"tradeoff must have columns {sorted(need)}")
    if not (isinstance(p_i, (int, float, np.floating)) and 0 <= p_i <= 1):
        raise ValueError(f"p_i must be a number in [0, 1]; got {p_i!r}")
    rows = []
    for (a, s), grp in tradeoff.groupby(["alpha", "seed"], sort=True):
        if "eps" in grp:
            grp = grp.sort_values("eps", kind="stable")
        rows.append({"alpha": a, "seed": s, "p_s": _envelope_at(
            grp.p_i.to_numpy(float), grp.p_s.to_numpy(float), float(p_i))})
    return pd.DataFrame(rows)


def effects(by_alpha, tradeoff, alpha_lo: float, targets, metrics: dict):
    """How each measure changes from ``alpha_lo`` to each α of ``targets`` (``{α: regime}``):
    the difference of the means over seeds with its 95% Welch interval (Student's t on the
    Welch–Satterthwaite degrees of freedom; :func:`semres.core.intervals.difference_interval`),
    ``detected`` when the interval excludes 0. ``metrics`` maps a column of ``by_alpha`` to its
    name; a last row per target compares p_S at matched identification
    (:func:`common_pi`, :func:`ps_at_matched_pi`). One row per (target, measure)."""
    def one(table, col, a_hi):
        hi = table.loc[table.alpha == a_hi, col].dropna().to_numpy(float)
        lo = table.loc[table.alpha == alpha_lo, col].dropna().to_numpy(float)
        r = difference_interval(hi, lo)
        return {"effect": r["effect"], "se": r["se"], "df": r["df"], "t": r["t"],
                "ci_low": r["low"], "ci_high": r["high"], "detected": r["excludes_zero"],
                "seeds_from": len(lo), "seeds_to": len(hi)}

    rows = []
    for a_hi, regime in targets.items():
        base = {"alpha_from": alpha_lo, "alpha_to": a_hi, "regime": regime}
        for col, name in metrics.items():
            rows.append({"measure": name, "column": col, **base, **one(by_alpha, col, a_hi)})
        pi_star = common_pi(tradeoff, [alpha_lo, a_hi])
        if np.isfinite(pi_star):
            at = ps_at_matched_pi(tradeoff[tradeoff.alpha.isin([alpha_lo, a_hi])], pi_star)
            rows.append({"measure": "p_S at matched p_I", "column": "p_s_matched", **base,
                         **one(at, "p_s", a_hi), "p_i": pi_star})
    return pd.DataFrame(rows)


def shared_pi(sub) -> tuple[float, float]:
    """The p_I range every model (α, seed) of ``sub`` reaches; (NaN, NaN) for none."""
    if sub.empty:
        return math.nan, math.nan
    span = sub.groupby(["alpha", "seed"]).p_i.agg(["min", "max"])
    return float(span["min"].max()), float(span["max"].min())


def common_pi(tradeoff, alphas) -> float:
    """The p_I at which to match models: where the first α's mean sweep peaks in p_S, moved
    into the p_I range that every model of ``alphas`` reaches (NaN when they share none)."""
    sub = tradeoff[tradeoff.alpha.isin(list(alphas))]
    lo, hi = shared_pi(sub)
    if not lo <= hi:
        return math.nan
    base = sub[sub.alpha == alphas[0]]
    base = base.assign(k=base.groupby("seed").cumcount()).groupby("k")[["p_i", "p_s"]].mean()
    return float(np.clip(base.p_i.loc[base.p_s.idxmax()], lo, hi))


def matched_curve(tradeoff, alpha_lo: float, alpha_hi: float, points: int = 15):
    """The effect on p_S at matched p_I across the whole p_I range every model of both α
    reaches, not at one point: per p_I, the difference of the means over seeds with its 95 %
    Welch interval (columns p_i, effect, ci_low, ci_high). The headline stays at the point
    :func:`common_pi` fixes before looking (the baseline's peak); this says how much the
    effect depends on that choice."""
    sub = tradeoff[tradeoff.alpha.isin([alpha_lo, alpha_hi])]
    lo, hi = shared_pi(sub)
    if not lo < hi:
        return pd.DataFrame(columns=["p_i", "effect", "ci_low", "ci_high"])
    rows = []
    for p_i in np.linspace(lo, hi, int(points)):
        at = ps_at_matched_pi(sub, float(p_i))
        r = difference_interval(at.loc[at.alpha == alpha_hi, "p_s"].to_numpy(float),
                                at.loc[at.alpha == alpha_lo, "p_s"].to_numpy(float))
        rows.append({"p_i": float(p_i), "effect": r["effect"], "ci_low": r["low"],
                     "ci_high": r["high"]})
    return pd.DataFrame(rows)


def matched_words(curve, pi_star: float) -> str:
    """How the matched-p_I effect moves across the matching range, in one clause."""
    if curve.empty:
        return "the models share no range of p_I to match them over"
    lo, hi = curve.iloc[curve.effect.argmin()], curve.iloc[curve.effect.argmax()]
    return (f"across the p_I both reach ({curve.p_i.min():.2f}–{curve.p_i.max():.2f}) the "
            f"effect runs from {lo.effect:+.3f} (at {lo.p_i:.2f}) to {hi.effect:+.3f} (at "
            f"{hi.p_i:.2f}); the headline reads it at {pi_star:.2f}, the baseline's peak, "
            "fixed before looking")


# --------------------------------------------------------------------------- the chapter's analysis

#: the measures whose change with α chapter 4 reports, with their names in its tables
METRICS = {
    "sim_accuracy": "triplet accuracy, trained species",
    "ood_sim_accuracy": "triplet accuracy, held-out species",
    "best_p_s": "best p_S over ε",
    "id_auc": "identification ROC AUC",
    "mean_p_i": "p_I at equal ε-quantiles (mean)",
    "final_val_accuracy": "validation accuracy (classifier)",
}
#: the columns of ``tradeoff.csv``, in order
TRADEOFF_COLUMNS = ["alpha", "seed", "eps", "p_s", "p_s_all", "p_i", "p_s_ood", "p_s_theory",
                    "p_i_theory", "mean_b", "var_b"]


def result_tables(results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs of :func:`train_and_evaluate_many` as two tidy tables: ``tradeoff`` (one row per
    run and ε of its sweep) and ``by_alpha`` (one row per run: the threshold-free summaries,
    the final validation accuracy, the training time, and the curve's mean p_I over the shared
    ε-quantile grid and best p_S over ε)."""
    tradeoff = pd.concat([pd.DataFrame({"alpha": r["alpha"], "seed": r["seed"], **r["curve"]})
                          for r in results], ignore_index=True)[TRADEOFF_COLUMNS]
    curve_stats = tradeoff.groupby(["alpha", "seed"]).agg(
        mean_p_i=("p_i", "mean"), best_p_s=("p_s", "max")).reset_index()
    by_alpha = pd.DataFrame([{"alpha": r["alpha"], "seed": r["seed"], **r["summary"],
                              "final_val_accuracy": r["history"][-1]["val_accuracy"],
                              "train_seconds": r["train_seconds"]} for r in results])
    return tradeoff, by_alpha.merge(curve_stats, on=["alpha", "seed"])


def compared_alphas(alphas) -> tuple[float, float | None, float | None]:
    """Which α values the chapter compares: the smallest (the baseline), the largest below 1
    (the cross-entropy still trains the classifier; None if there is none above the baseline)
    and 1 (the cross-entropy off; None if not run or the baseline itself)."""
    alphas = sorted(alphas)
    alpha_lo = alphas[0]
    below_one = [a for a in alphas if alpha_lo < a < 1]
    alpha_ce = below_one[-1] if below_one else None
    alpha_one = 1.0 if 1.0 in alphas and alpha_lo < 1.0 else None
    return alpha_lo, alpha_ce, alpha_one


def effect_row(effects: pd.DataFrame, column: str, alpha_to):
    """The row of :func:`effects` for ``column`` at ``alpha_to`` (None when not measured)."""
    row = effects[(effects.column == column) & (effects.alpha_to == alpha_to)]
    return row.iloc[0] if len(row) else None


def describe_effect(effects: pd.DataFrame, column: str, alpha_to) -> str:
    """An effect in words: it rises or falls when its 95% interval excludes zero, else it
    shows no detectable change; with one seed there is no interval to say so."""
    r = effect_row(effects, column, alpha_to)
    if r is None:
        return "not measured"
    if not np.isfinite(r.se):
        return f"changes by {r.effect:+.3f} (one seed: no interval)"
    if r.detected:
        move = "rises" if r.effect > 0 else "falls"
        return f"{move} ({r.effect:+.3f}, 95% interval [{r.ci_low:+.3f}, {r.ci_high:+.3f}])"
    # "none detected" says how large a change would have been: 80 % power at 5 %, two-sided
    power = (student.ppf(0.975, r.df) + student.ppf(0.8, r.df)) * r.se
    return (f"shows no detectable change ({r.effect:+.3f}, 95% interval [{r.ci_low:+.3f}, "
            f"{r.ci_high:+.3f}]; a change of ±{power:.3f} would have been detected four times "
            "in five)")


def traded(effects: pd.DataFrame, alpha_to) -> bool:
    """The paper's claim at ``alpha_to``: generalization (triplet accuracy) up and
    identification (AUC) down, both detected."""
    g, i = effect_row(effects, "sim_accuracy", alpha_to), effect_row(effects, "id_auc", alpha_to)
    return (g is not None and i is not None and bool(g.detected) and bool(i.detected)
            and g.effect > 0 and i.effect < 0)


def alpha_verdict(effects: pd.DataFrame, by_alpha: pd.DataFrame, replicates: int) -> str:
    """What this build says of α: whether raising it traded identification for generalization
    with the cross-entropy on, only at α = 1, or not at all; then p_S at matched identification
    and p_I at equal ε-quantiles. One seed per α draws no conclusion."""
    alpha_lo, alpha_ce, alpha_one = compared_alphas(by_alpha.alpha.unique())

    def describe(column, alpha_to):
        return describe_effect(effects, column, alpha_to)

    if replicates < 2:
        return ("with one seed per α this build has no standard errors, so it draws no "
                "conclusion about α (the quick profile is a smoke test; the default profile "
                "is the result)")
    if alpha_ce is not None and traded(effects, alpha_ce):
        verdict = (f"raising α from {alpha_lo:g} to {alpha_ce:g}, with the classifier still "
                   "trained, traded identification for generalization: the triplet accuracy "
                   f"{describe('sim_accuracy', alpha_ce)} and the identification AUC "
                   f"{describe('id_auc', alpha_ce)}")
    elif alpha_one is not None and traded(effects, alpha_one):
        verdict = (f"the trade appears only at α = 1, where the cross-entropy is off "
                   f"(validation accuracy "
                   f"{by_alpha.loc[by_alpha.alpha == 1.0, 'final_val_accuracy'].mean():.3f}): "
                   f"up to α = {alpha_ce:g} the triplet accuracy "
                   f"{describe('sim_accuracy', alpha_ce)} and the identification AUC "
                   f"{describe('id_auc', alpha_ce)}")
    else:
        verdict = ("this build shows no detected trade of identification for generalization "
                   "between the α values it ran (see the effects below)")
    if alpha_ce is None:
        return verdict
    matched = effect_row(effects, "p_s_matched", alpha_ce)
    if matched is not None:
        verdict += (f". At matched identification (p_I = {matched.p_i:.3f}, read off each "
                    f"model's ε-sweep), p_S {describe('p_s_matched', alpha_ce)} from "
                    f"α = {alpha_lo:g} to {alpha_ce:g}, while the identification AUC "
                    f"{describe('id_auc', alpha_ce)} and the classifier's validation accuracy "
                    f"{describe('final_val_accuracy', alpha_ce)}")
    else:
        verdict += ("; the models of the two α values share no p_I on their ε-sweeps, so p_S "
                    "is not compared at matched identification")
    verdict += (f"; at equal ε-quantiles p_I {describe('mean_p_i', alpha_ce)} up to "
                f"α = {alpha_ce:g}")
    if alpha_one is not None:
        verdict += f" and {describe('mean_p_i', alpha_one)} at α = 1"
    return verdict


def effects_display(effects: pd.DataFrame, alpha_lo: float) -> pd.DataFrame:
    """The effects for readers: one row per measure, one column per compared α, each cell the
    change with its 95% interval and a star where the interval excludes zero."""
    def cell(r):
        return (f"{r.effect:+.3f}" if not np.isfinite(r.se) else
                f"{r.effect:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
                + (" *" if r.detected else ""))

    shown = effects.assign(cell=effects.apply(cell, axis=1)).pivot_table(
        index="measure", columns="alpha_to", values="cell", aggfunc="first", sort=False)
    shown.columns = [f"α = {alpha_lo:g} → {a:g}" for a in shown.columns]
    return shown.reset_index()


def welch_words(effects: pd.DataFrame, replicates: int) -> str:
    """How wide a Welch interval over this many seeds is, in standard errors, and how the
    table's intervals are to be read (each alone: exploratory)."""
    if not effects.t.notna().any():
        return "with one seed per α there is no interval"
    return (f"with {replicates} seeds a side, a median of {effects.df.median():.1f} degrees of "
            f"freedom, so an interval spans ± {effects.t.median():.1f} standard errors, not ± 2; "
            f"the table's {len(effects)} intervals are exploratory, each read alone, while the "
            "claims of the result box are judged as one family (Bonferroni)")


def family_ci(row, claims: int, alpha: float = 0.05) -> tuple[float, float]:
    """A Welch interval of ``row`` (effect, se, df) widened for a family of ``claims`` tested
    together: level 1 - alpha / claims (Bonferroni), so that the family's chance of any false
    claim stays below ``alpha``. With three seeds a side the 95 % interval of one claim is not
    enough: three such claims read together overstate what was found."""
    if claims < 1:
        raise ValueError(f"claims must be >= 1; got {claims!r}")
    half = float(student.ppf(1 - alpha / (2 * claims), row.df)) * row.se
    return row.effect - half, row.effect + half


def replicates_sentence(replicates: int, real: bool) -> str:
    """What the chapter's replicates vary, and what they share."""
    seeds = f"{replicates:,} seed" + ("" if replicates == 1 else "s")
    return (f"The {seeds} per α vary the initial weights, the order of the batches and which "
            "images of the held-out species are probed; every seed shares one "
            + ("tree and one image set (CUB-200-2011)" if real else
               "simulated tree, one set of rendered images")
            + " and one split, so the intervals measure training noise on this data set, not "
            "how a new tree or a new draw of images would move the effects.")


def run_sentences(results, seconds: float, train_seconds: float) -> dict:
    """How the runs were obtained, in words: ``at_once`` (stacked or one at a time) and
    ``run_source`` (trained now or loaded from the cache: loading takes less than half the
    training time the runs record)."""
    at_once = max(r["trained_with"] for r in results)
    return {
        "at_once": "one at a time" if at_once == 1 else f"{at_once} at once, as one network "
                   "mapped over their stacked weights with `torch.func.vmap`",
        "run_source": "were loaded from the cache of an earlier build with the same code and "
                      "settings" if seconds < 0.5 * train_seconds else "were trained in this build",
    }


def peak_points(tradeoff: pd.DataFrame) -> list[tuple]:
    """Each α's point for the book's overview, at the ε where its mean p_S peaks:
    (system, p_I, p_S, their standard errors over seeds)."""
    points = []
    for a in sorted(tradeoff.alpha.unique()):
        grp = tradeoff[tradeoff.alpha == a]
        grp = grp.assign(k=grp.groupby("seed").cumcount())
        stats = grp.groupby("k")[["p_i", "p_s"]].agg(["mean", "sem"])
        k = stats[("p_s", "mean")].idxmax()
        points.append((f"ResNet, α = {a:g}", stats.loc[k, ("p_i", "mean")],
                       stats.loc[k, ("p_s", "mean")], stats.loc[k, ("p_i", "sem")],
                       stats.loc[k, ("p_s", "sem")]))
    return points


def deviation_lines(data, cfg: dict, *, cub_dir=None, newick=None, model=None) -> tuple:
    """The data and the model of this build against the paper's (CUB-200-2011 and an
    ImageNet-pretrained ResNet-50); an empty line where they agree."""
    if cub_dir is not None:
        data_line = (f"data: CUB-200-2011 from `{cub_dir}` with the tree `{newick}`, "
                     f"{data.n_species} species at {data.images.shape[1]} px")
    else:
        data_line = (f"data: a simulated tree of {data.n_species} species and "
                     f"{len(data.images)} rendered images of {data.images.shape[1]} px, "
                     "instead of CUB-200-2011 and a bird phylogeny")
    if model is None:
        model_line = (f"model: a ResNet with widths {', '.join(map(str, cfg['widths']))} and "
                      f"depths {', '.join(map(str, cfg['depths']))}, trained from scratch, "
                      "instead of an ImageNet-pretrained ResNet-50")
    else:
        model_line = ("" if model == "microsoft/resnet-50" else
                      f"model: `{model}` instead of an ImageNet-pretrained ResNet-50")
    return data_line, model_line


# --------------------------------------------------------------------------- the chapter's figures

#: the panels of the summaries figure
PANELS = ["sim_accuracy", "ood_sim_accuracy", "id_auc", "final_val_accuracy"]


def fig_tradeoff(tradeoff: pd.DataFrame):
    """Each α's (p_I, p_S) sweep over ε (mean over seeds at equal ε-quantiles), its own-ball
    consistency curve (dashed) and the universal front."""
    alphas = sorted(tradeoff.alpha.unique())
    fig, ax = splot.subplots(figsize=(7.0, 4.4))
    pi_front = np.linspace(0.5, 1.0, 200)
    ax.plot(pi_front, theory.front(pi_front), color=splot.THEORY, lw=1.2,
            label="universal front")
    colours = matplotlib.colormaps["viridis"](np.linspace(0.05, 0.9, len(alphas)))
    for a, c in zip(alphas, colours):
        grp = tradeoff[tradeoff.alpha == a]
        # seeds share the quantile grid of ε, so the k-th rows of each seed belong together
        grp = grp.assign(k=grp.groupby("seed").cumcount()).groupby("k").mean(numeric_only=True)
        ax.plot(grp.p_i, grp.p_s, "-o", ms=2.5, color=c, label=f"α = {a:g}")
        ax.plot(grp.p_i_theory, grp.p_s_theory, "--", color=c, lw=1)
    ax.plot([], [], "--", color="0.4", lw=1, label="own-ball consistency check")
    ax.set_xlabel("identification $p_I$")
    ax.set_ylabel(r"generalization $p_S^{\neq}$")
    ax.set_xlim(0.45, 1.01)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def fig_summaries(by_alpha: pd.DataFrame):
    """The threshold-free summaries against α, one dot per seed and a line through the means."""
    fig, axes = splot.subplots(2, 2, figsize=(7.0, 5.4), sharex=True)
    for ax, col in zip(axes.ravel(), PANELS):
        ax.plot(by_alpha.alpha, by_alpha[col], "o", color=splot.CYCLE[0], alpha=0.5, ms=4,
                label="one seed")
        m = by_alpha.groupby("alpha")[col].mean()
        ax.plot(m.index, m.values, "-", color=splot.CYCLE[0], label="mean over seeds")
        if col != "final_val_accuracy":
            ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8, ls=":", label="chance")
        ax.set_title(METRICS[col])
    for ax in axes[-1]:
        ax.set_xlabel("α")
    splot.legend_outside(fig, axes[0, 0], ncol=3)
    return fig


# --------------------------------------------------------------------------- settings

def _check_settings(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "n_species", "images_per_species", "size", "replicates", "epochs",
                   "batch_size", "n_eps", "max_probes", "mc_trials")
    alphas = list(cfg["alphas"])
    require(alphas == sorted(set(alphas)) and 0 <= alphas[0] and alphas[-1] <= 1, ch,
             f"alphas must be increasing values in [0, 1]; got {alphas}")
    require(len(cfg["widths"]) == len(cfg["depths"]), ch, "widths and depths must pair up")
    require(cfg["n_species"] >= 8, ch, "n_species must be >= 8 (15% are held out)")
    require(cfg["images_per_species"] >= 4, ch, "images_per_species must be >= 4 (splits)")


SETTINGS = Settings(
    chapter="04_resnet_phylogeny",
    profiles={
        "quick": {"n_species": 24, "images_per_species": 24, "size": 32,
                  "alphas": [0.0, 0.5, 1.0], "replicates": 1, "epochs": 10, "batch_size": 64,
                  "lr": 3e-3, "widths": (8, 16, 32), "depths": (1, 1, 1), "n_eps": 21,
                  "max_probes": 400, "mc_trials": 100_000},
        "default": {"n_species": 48, "images_per_species": 40, "size": 48,
                    "alphas": [0.0, 0.25, 0.5, 0.75, 0.9, 1.0], "replicates": 3, "epochs": 20,
                    "batch_size": 64, "lr": 3e-3, "widths": (16, 32, 64), "depths": (1, 1, 1),
                    "n_eps": 41, "max_probes": 400, "mc_trials": 1_000_000},
        "paper": {"n_species": 96, "images_per_species": 60, "size": 64,
                  "alphas": [0.0, 0.25, 0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0], "replicates": 5,
                  "epochs": 15, "batch_size": 64, "lr": 3e-3, "widths": (32, 64, 128, 256),
                  "depths": (2, 2, 2, 2), "n_eps": 61, "max_probes": 1000,
                  "mc_trials": 4_000_000},
    },
    check=_check_settings, parameters={"image_size": "size"}, minimums={"max_per_class": 0},
    paper={"alphas": ([0.0, 0.25, 0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0], "α grid"),
           "replicates": (5, "seeds per α"), "epochs": (15, "epochs")})
