"""The α-weighted ResNet of the phylogeny experiment and the runs the chapter caches: a
``transformers`` ResNet (small and from scratch, or a pretrained checkpoint on disk) trained
with L = (1 − α) CE + α L_sim, L_sim pulling the batch's embedding distances towards the
species' patristic distances, then measured by :mod:`.measures`."""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, stack_module_state, vmap
from tqdm.auto import tqdm

from semres.core.models import check_source
from semres.core.parallel import spread
from semres.core.seeds import int_seed, named_seed

from .measures import evaluate, evaluation_pool
from .phylo import PhyloData
from .settings import DEFAULT

#: AdamW's weight decay (an implementation constant of the optimiser)
WEIGHT_DECAY = 1e-4
#: the input normalisation of an ImageNet-pretrained checkpoint: mean and standard deviation
IMAGENET = ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))


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


def build_model(num_classes: int, model: str | None = None, widths=DEFAULT.widths,
                depths=DEFAULT.depths, seed=0) -> PhyloResNet:
    """A small ResNet from a config (``model=None``) or a pretrained one loaded offline; its
    initial weights (and the head's) come from the "initial weights" stream of ``seed``."""
    from transformers import ResNetConfig, ResNetModel

    if num_classes < 2:
        raise ValueError(f"num_classes must be an integer >= 2; got {num_classes!r}")
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
    return PhyloResNet(backbone, int(num_classes), *IMAGENET)


def _loss_terms(logits, emb, classes, species, distances):
    """CE and L_sim of one model's batch (vmapped over models by :func:`train_many`); the
    floor under the squared distances keeps the gradient finite at 0."""
    ce = F.cross_entropy(logits, classes)
    i, j = torch.triu_indices(len(emb), len(emb), offset=1)
    diff = emb[i] - emb[j]
    d_emb = torch.sqrt((diff * diff).sum(1) + 1e-12)
    d_phy = distances[species[i], species[j]]
    if len(d_emb) == 0:
        return ce, emb.sum() * 0
    l_sim = ((d_emb / d_emb.mean().clamp_min(1e-12)
              - d_phy / d_phy.mean().clamp_min(1e-12)) ** 2).mean()
    return ce, l_sim


@contextmanager
def _threads(n: int | None):
    """Torch on ``n`` threads, then as before: a second thread buys these small networks
    nothing, and its spin-waiting slowed each step 8x on 2 shared cores (measured)."""
    before = torch.get_num_threads()
    if n:
        torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train_many(models, data, alphas, seeds, *, epochs: int,
               batch_size: int = DEFAULT.batch_size, lr: float = DEFAULT.lr,
               checkpoint=None, device="cpu", progress: bool = True,
               threads: int | None = 1) -> list[list[dict]]:
    """Train independent runs (a model, α and seed each) in place as one network mapped over
    their stacked weights (``torch.func.vmap``: one kernel launch for all, what an accelerator
    needs); each keeps its own weights, batch order (stream ("batch order", epoch) of its
    seed), α and element-wise AdamW. A checkpoint per epoch lets a call resume exactly.
    Returns one history (a row per epoch) per run."""
    models = list(models)
    if not all(0 <= a <= 1 for a in alphas):
        raise ValueError(f"alpha must lie in [0, 1]; got {alphas!r}")
    if epochs < 1:
        raise ValueError(f"epochs must be an integer >= 1; got {epochs!r}")
    if not models or not len(models) == len(alphas) == len(seeds):
        raise ValueError(f"models, alphas and seeds must have one entry per run; got "
                         f"{len(models)}, {len(alphas)} and {len(seeds)}")
    with _threads(threads):
        device = torch.device(device)
        train_idx, val_idx = data.split["train"], data.split["val"]
        known = np.unique(data.species[train_idx])
        class_of = np.full(data.n_species, -1)
        class_of[known] = np.arange(len(known))
        images = torch.from_numpy(data.images).to(device)
        species = torch.from_numpy(data.species).long().to(device)
        classes = torch.from_numpy(class_of[data.species]).long().to(device)
        dist = torch.as_tensor(data.distances, dtype=torch.float32, device=device)
        alpha = torch.tensor(list(alphas), dtype=torch.float32, device=device)
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
        # the multi-tensor kernels: the same weights as the per-tensor loop, bit for bit
        # (tested), in 5% less time a run
        opt = torch.optim.AdamW(list(params.values()), lr=lr, weight_decay=WEIGHT_DECAY,
                                foreach=True)
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
                histories[r].append({**dict(zip(("loss", "ce", "l_sim"), row)),
                                     "epoch": epoch + 1, "seconds": seconds / runs,
                                     "val_accuracy": acc})
            last = [h[-1] for h in histories]
            bar.set_postfix(loss=f"{np.mean([h['loss'] for h in last]):.3f}",
                            val=f"{np.mean([h['val_accuracy'] for h in last]):.2f}")
            if checkpoint is not None:  # written whole, then renamed: never half a file
                checkpoint.parent.mkdir(parents=True, exist_ok=True)
                tmp = checkpoint.with_suffix(checkpoint.suffix + ".tmp")
                torch.save({"params": {k: v.detach() for k, v in params.items()},
                            "buffers": buffers, "optimizer": opt.state_dict(),
                            "histories": histories, "epoch": epoch + 1}, tmp)
                os.replace(tmp, checkpoint)
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
def embed(model: PhyloResNet, images: np.ndarray, device="cpu", threads: int | None = 1):
    """Embeddings (eval mode) of uint8 images, as a float64 numpy array."""
    model.eval().to(device)
    with _threads(threads):
        return torch.cat([model.embed(c.to(device)).cpu() for c in
                          torch.from_numpy(np.ascontiguousarray(images)).split(256)]
                         ).double().numpy()


# --- the runs the chapter caches --------------------------------------------------------------

def train_and_evaluate_many(images, species, distances, split, runs, settings: dict,
                            model: str | None = None, checkpoint_dir=None, device="cpu",
                            progress: bool = True, seed=0) -> list[dict]:
    """Train every ``(alpha, replicate)`` run, ``settings["runs_at_once"]`` at a time (default:
    one on a CPU, where stacking buys nothing, all on an accelerator, where it saves launches),
    then measure each; plain inputs, so the set can be cached. Replicate ``r`` draws everything
    from the stream ("replicate", r) of ``seed``: its runs start from the same weights whatever
    their α, and adding a run moves no other. With ``checkpoint_dir`` an interrupted call
    resumes; ``train_seconds`` is a run's share of its group's training time."""
    runs = [(float(a), int(r)) for a, r in runs]
    cpu = torch.device(device).type == "cpu"
    at_once = settings.get("runs_at_once")
    if at_once is None:
        at_once = 1 if cpu else len(runs)
    if int(at_once) != at_once or at_once < 1:
        raise ValueError(f"runs_at_once must be an integer >= 1; got {at_once!r}")
    data = PhyloData(np.asarray(images), np.asarray(species), [str(i) for i in
                     range(len(distances))], np.asarray(distances), dict(split))
    groups = [runs[first:first + at_once] for first in range(0, len(runs), at_once)]
    run = functools.partial(_run_group, data=data, settings=settings, model=model,
                            checkpoint_dir=checkpoint_dir, device=device, seed=seed,
                            progress=progress and len(groups) == 1)
    # on a CPU the groups (one run each, single-threaded) also go to the cores a finished lane
    # of the book frees: every run is the same wherever it trains
    if cpu:
        done = spread(run, groups, desc=f"{len(runs)} runs" if progress else None)
    else:
        done = [run(g) for g in tqdm(groups, desc=f"{len(runs)} runs, {at_once} at a time",
                                     disable=not progress or len(groups) < 2)]
    return [row for rows in done for row in rows]


def _run_group(group, *, data, settings, model, checkpoint_dir, device, seed, progress):
    """Train one group of :func:`train_and_evaluate_many`'s runs together, then measure each."""
    def stream(replicate):
        return named_seed(seed, "replicate", replicate)

    n_classes = len(np.unique(data.species[data.split["train"]]))
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
    measured = spread(
        lambda job: evaluate(*job[:4], n_eps=settings["n_eps"],
                             max_probes=settings["max_probes"], seed=job[4]),
        [(emb, data.species[pool], is_ood, data.distances, stream(r))
         for emb, (pool, is_ood), (_, r) in zip(embs, pools, group)],
        desc="measuring" if progress else None)
    per_run = (time.perf_counter() - t1) / len(group)
    out = [{"alpha": alpha, "seed": r, "history": history, "curve": curve,
            "summary": summary, "train_seconds": share,
            "seconds": share + per_run, "trained_with": len(group)}
           for (alpha, r), history, (curve, summary) in zip(group, histories, measured)]
    if ckpt is not None and ckpt.exists():
        ckpt.unlink()
    return out
