"""The α-weighted ResNet of the phylogeny experiment: model, loss, training and measures.

The network is a ``transformers`` ResNet (built from a small config and trained from scratch by
default, or a pretrained checkpoint such as ``microsoft/resnet-50`` when its weights are on
disk). It is trained with L = (1 − α) CE + α L_sim, where L_sim pulls the batch's embedding
distances towards the species' patristic distances. Its similarity is then read as
g = 1[‖f − f_p‖ ≤ ε] and measured on held-out test images, exactly (every triplet of the test
set counted, not sampled), with exact distance ties resolved by the Luce rule.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "PhyloResNet",
    "build_model",
    "phylo_loss",
    "train",
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
]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


class PhyloResNet(nn.Module):
    """A ResNet backbone whose pooled features are the embedding, plus a linear classifier."""

    def __init__(self, backbone, num_classes: int, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25)):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(backbone.config.hidden_sizes[-1], num_classes)
        self.register_buffer("mean", torch.tensor(mean).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(1, 3, 1, 1))

    def embed(self, images: torch.Tensor) -> torch.Tensor:
        """Embeddings of uint8 ``(B, H, W, 3)`` images."""
        x = images.permute(0, 3, 1, 2).float().div(255.0)
        x = (x - self.mean) / self.std
        return self.backbone(pixel_values=x).pooler_output.flatten(1)

    def forward(self, images):
        emb = self.embed(images)
        return self.head(emb), emb


def check_inputs(cub_dir=None, newick=None, model=None) -> None:
    """Fail on the chapter's first cell, not after the data are built: a CUB folder needs its
    tree, and a model id must load offline (ValueError naming the argument)."""
    if cub_dir is not None and newick is None:
        raise ValueError("newick: a Newick tree is needed with cub_dir")
    if model is not None:
        build_model(2, model=model)


def build_model(num_classes: int, model: str | None = None, widths=(16, 32, 64),
                depths=(1, 1, 1), seed: int = 0) -> PhyloResNet:
    """A small ResNet from a config (``model=None``) or a pretrained one loaded offline."""
    from transformers import ResNetConfig, ResNetModel

    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) \
            or num_classes < 2:
        raise ValueError(f"num_classes must be an integer >= 2; got {num_classes!r}")
    if len(widths) != len(depths) or not widths:
        raise ValueError("widths and depths must be non-empty and of equal length")
    torch.manual_seed(seed)
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


def phylo_loss(logits, emb, classes, species, distances, alpha: float):
    """(1 − α) CE + α L_sim; returns ``(loss, ce, l_sim)``.

    L_sim is the mean squared mismatch between the batch's embedding distances and the
    species' patristic distances, each divided by its batch mean so that neither's scale
    matters (only the geometry is matched).
    """
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [0, 1]; got {alpha!r}")
    ce = F.cross_entropy(logits, classes)
    d_emb = _pdist(emb)
    i, j = torch.triu_indices(len(emb), len(emb), offset=1)
    d_phy = distances[species[i], species[j]]
    if len(d_emb) == 0:
        l_sim = emb.sum() * 0
    else:
        l_sim = ((d_emb / d_emb.mean().clamp_min(1e-12)
                  - d_phy / d_phy.mean().clamp_min(1e-12)) ** 2).mean()
    return (1 - alpha) * ce + alpha * l_sim, ce, l_sim


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
          lr: float = 2e-3, weight_decay: float = 1e-4, seed: int = 0, checkpoint=None,
          device="cpu", progress: bool = True, threads: int | None = 1) -> list[dict]:
    """Train on ``data.split['train']``; returns one history row per epoch.

    The batch order of epoch ``e`` depends only on ``(seed, e)``, and a checkpoint is written
    after every epoch, so an interrupted run resumed from ``checkpoint`` continues exactly where
    it stopped and ends with the same weights as an uninterrupted one. ``threads``: torch
    threads while training (None leaves torch's setting alone).
    """
    with _threads(threads):
        return _train(model, data, alpha, epochs=epochs, batch_size=batch_size, lr=lr,
                      weight_decay=weight_decay, seed=seed, checkpoint=checkpoint,
                      device=device, progress=progress)


def _train(model, data, alpha, *, epochs, batch_size, lr, weight_decay, seed, checkpoint,
           device, progress):
    from tqdm.auto import tqdm

    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [0, 1]; got {alpha!r}")
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f"epochs must be an integer >= 1; got {epochs!r}")
    if batch_size < 2:
        raise ValueError(f"batch_size must be >= 2; got {batch_size!r}")
    device = torch.device(device)
    train_idx, val_idx = data.split["train"], data.split["val"]
    known = np.unique(data.species[train_idx])
    class_of = np.full(data.n_species, -1)
    class_of[known] = np.arange(len(known))
    if model.head.out_features != len(known):
        raise ValueError(f"model has {model.head.out_features} classes; the training split "
                         f"has {len(known)} species")
    images = torch.from_numpy(data.images)
    species = torch.from_numpy(data.species).long()
    classes = torch.from_numpy(class_of[data.species]).long()
    dist = torch.as_tensor(data.distances, dtype=torch.float32, device=device)
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    history, start = [], 0
    checkpoint = Path(checkpoint) if checkpoint is not None else None
    if checkpoint is not None and checkpoint.is_file():
        state = torch.load(checkpoint, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        history, start = state["history"], state["epoch"]
    bar = tqdm(range(start, epochs), desc=f"alpha={alpha:g} seed={seed}", disable=not progress,
               initial=start, total=epochs, leave=False)
    for epoch in bar:
        model.train()
        gen = torch.Generator().manual_seed(seed * 100_003 + epoch)
        order = torch.from_numpy(train_idx)[torch.randperm(len(train_idx), generator=gen)]
        totals, n_seen, t0 = np.zeros(3), 0, time.perf_counter()
        for chunk in order.split(batch_size):
            if len(chunk) < 2:
                continue
            logits, emb = model(images[chunk].to(device))
            loss, ce, l_sim = phylo_loss(logits, emb, classes[chunk].to(device),
                                         species[chunk].to(device), dist, alpha)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            totals += len(chunk) * np.array([loss.item(), ce.item(), l_sim.item()])
            n_seen += len(chunk)
        row = dict(zip(("loss", "ce", "l_sim"), totals / max(n_seen, 1)))
        row.update(epoch=epoch + 1, seconds=time.perf_counter() - t0,
                   val_accuracy=_accuracy(model, images, classes, val_idx, device))
        history.append(row)
        bar.set_postfix(loss=f"{row['loss']:.3f}", val=f"{row['val_accuracy']:.2f}")
        if checkpoint is not None:
            checkpoint.parent.mkdir(parents=True, exist_ok=True)
            _save_atomic({"model": model.state_dict(), "optimizer": opt.state_dict(),
                          "history": history, "epoch": epoch + 1}, checkpoint)
    return history


@torch.no_grad()
def _accuracy(model, images, classes, idx, device) -> float:
    if len(idx) == 0:
        return float("nan")
    model.eval()
    logits = torch.cat([model(images[c].to(device))[0].cpu()
                        for c in torch.from_numpy(idx).split(256)])
    return float((logits.argmax(1) == classes[idx]).float().mean())


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
    from scipy.spatial.distance import cdist

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
    from scipy.stats import kendalltau

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
    from scipy.stats import mannwhitneyu

    E, species = _check_square(E, species)
    iu = np.triu_indices(len(E), 1)
    d = E[iu]
    same = (species[:, None] == species[None, :])[iu]
    if same.all() or not same.any():
        raise ValueError("need both same-species and different-species pairs")
    u = mannwhitneyu(-d[same], -d[~same]).statistic
    return float(u / (same.sum() * (~same).sum()))


# --- one trained model, measured -------------------------------------------------------------

def evaluation_pool(data, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Test images of the trained species plus as many images per held-out species.

    Held-out species have all their images available; taking as many per species as the
    trained species have test images keeps ν (the image distribution of the tests) balanced.
    Returns the pool's image indices and a mask of which are held-out (OOD).
    """
    test, ood = data.split["test"], data.split["ood"]
    per_species = int(np.median(np.bincount(data.species[test])[np.unique(data.species[test])]))
    rng = np.random.default_rng(seed)
    picked = [rng.permutation(ood[data.species[ood] == k])[:per_species]
              for k in np.unique(data.species[ood])]
    ood = np.sort(np.concatenate(picked)) if picked else np.array([], dtype=np.int64)
    pool = np.concatenate([test, ood])
    return pool, np.isin(pool, ood)


def evaluate(emb, species, is_ood, D, *, n_eps: int = 41, max_probes: int = 400, seed: int = 0):
    """The tradeoff curve over ε and the threshold-free summaries of one embedding.

    ``emb`` are the pool's embeddings (trained species' test images and held-out species'
    images, marked by ``is_ood``). ε is swept over quantiles of the trained species' test
    distances; the theory curve (Theorem 1) takes ⟨b⟩ and Var(b) of that same test set in the
    embedding space, the space where ε acts. ``p_s`` (and ``p_s_ood``) draw the references from
    other species than the probe's, as the paper's triplets do; ``p_s_all`` draws them from every
    image (the theorem's ν), for comparison. ``max_probes`` caps the probes of the triplet
    accuracy (a seeded subset) for large test sets such as CUB's.
    """
    from . import theory

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
    rng = np.random.default_rng(seed)

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


def train_and_evaluate(images, species, distances, split, alpha: float, seed: int,
                       settings: dict, model: str | None = None, checkpoint_dir=None,
                       device="cpu", progress: bool = True) -> dict:
    """Train one model at one α and seed, then measure it; plain inputs so it can be cached.

    ``settings`` holds ``epochs``, ``batch_size``, ``lr``, ``widths``, ``depths``, ``n_eps``
    and ``max_probes``. With ``checkpoint_dir`` an interrupted run resumes from its last
    epoch; the checkpoint is removed once the run is complete (the caller caches the result).
    """
    from .phylo import PhyloData

    data = PhyloData(np.asarray(images), np.asarray(species), [str(i) for i in
                     range(len(distances))], np.asarray(distances), dict(split))
    n_classes = len(np.unique(data.species[data.split["train"]]))
    net = build_model(n_classes, model=model, widths=settings["widths"],
                      depths=settings["depths"], seed=seed)
    ckpt = None
    if checkpoint_dir is not None:
        ckpt = Path(checkpoint_dir) / f"alpha{alpha:g}_seed{seed}.pt"
    t0 = time.perf_counter()
    history = train(net, data, alpha, epochs=settings["epochs"],
                    batch_size=settings["batch_size"], lr=settings["lr"], seed=seed,
                    checkpoint=ckpt, device=device, progress=progress)
    train_seconds = time.perf_counter() - t0
    pool, is_ood = evaluation_pool(data, seed=seed)
    emb = embed(net, data.images[pool], device=device)
    curve, summary = evaluate(emb, data.species[pool], is_ood, data.distances,
                              n_eps=settings["n_eps"], max_probes=settings["max_probes"],
                              seed=seed)
    if ckpt is not None and ckpt.exists():
        ckpt.unlink()
    return {"alpha": alpha, "seed": seed, "history": history, "curve": curve,
            "summary": summary, "train_seconds": train_seconds,
            "seconds": time.perf_counter() - t0}
