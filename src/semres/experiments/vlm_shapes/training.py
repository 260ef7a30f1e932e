"""Training the tiny VLM of :mod:`.vlm` on freshly rendered scenes, in two stages."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
import weakref
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from semres.core.book import record_cache_use
from semres.core.fingerprint import digest as code_digest
from semres.core.seeds import named_seed

from . import scenes as sc
from . import vlm
from .settings import QUESTIONS, SHAPES, TASKS

NS = range(2, 13)  # numbers of shapes a training scene holds


def _scene_batch(rng, batch_size, ns):
    """``batch_size`` fresh scenes, tasks and shape counts drawn uniformly (in that order)."""
    tasks = rng.choice(TASKS, batch_size)
    return [sc.sample_scene(rng, int(rng.choice(ns)), t) for t in tasks]


_PROMPTS = weakref.WeakKeyDictionary()  # processor -> {(image_size, task or answer): ids}


def _token_ids(processor, image_size: int, key: str) -> list:
    """The prompt ids of task ``key`` (one image token per image feature) or the ids of answer
    ``key``, built once per processor (the chat template costs more than the rest)."""
    memo = _PROMPTS.setdefault(processor, {})
    if (image_size, key) not in memo:
        tok = processor.tokenizer
        if key not in TASKS:
            memo[image_size, key] = tok(key, add_special_tokens=False)["input_ids"]
        else:
            image_id = tok.convert_tokens_to_ids(vlm.IMAGE_TOKEN)
            n_image = ((image_size // processor.patch_size) ** 2
                       + processor.num_additional_image_tokens)
            if processor.vision_feature_select_strategy == "default":
                n_image -= 1  # the CLS token is dropped
            prompt = tok(vlm.prompt_text(processor, QUESTIONS[key]), add_special_tokens=False)
            memo[image_size, key] = [x for i in prompt["input_ids"]
                                     for x in ([i] * n_image if i == image_id else [i])]
    return memo[image_size, key]


def _text_batch(processor, items, image_size):
    """Token ids, attention mask and labels (the answer token only) for ``items``, built without
    the processor."""
    import torch

    prompts = [_token_ids(processor, image_size, s.task) for s in items]
    rows = [p + _token_ids(processor, image_size, s.answer) for p, s in zip(prompts, items)]
    shape = (len(items), max(map(len, rows)))
    ids = np.full(shape, processor.tokenizer.pad_token_id, dtype=np.int64)
    labels = np.full(shape, -100, dtype=np.int64)
    mask = np.zeros(shape, dtype=np.int64)
    for j, (p, r) in enumerate(zip(prompts, rows)):
        ids[j, :len(r)] = r
        mask[j, :len(r)] = 1
        labels[j, len(p):len(r)] = r[len(p):]
    return ({"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask)},
            torch.from_numpy(labels))


def _pixels(processor, items, image_size, device="cpu"):
    """Normalised pixels of ``items`` on ``device``, drawn by PIL (:func:`scenes.render_arrays`):
    the same pixels on every device."""
    return vlm.normalise(processor, sc.render_arrays(items, image_size)).to(device)


def _training_batch(processor, rng, batch_size, ns, image_size, device="cpu"):
    """One language-stage batch as the processor would build it, ``(inputs, labels)``."""
    items = _scene_batch(rng, batch_size, ns)
    batch, labels = _text_batch(processor, items, image_size)
    batch["pixel_values"] = _pixels(processor, items, image_size, device)
    return batch, labels


def _vision_targets(items, grid: int) -> np.ndarray:
    """Stage 1's labels (B, 4, grid²) per patch: the shape centred in it (``len(SHAPES)``: none;
    the nearer wins a shared patch), whether the X is in it, the shape nearest to its centre,
    and the answer on the X's patch (-100 elsewhere)."""
    k = max(s.n for s in items)
    pos = np.full((len(items), k, 2), 1e6)
    names = np.zeros((len(items), k), dtype=int)
    for b, s in enumerate(items):
        pos[b, :s.n] = s.positions
        names[b, :s.n] = [SHAPES.index(n) for n in s.names]
    real = np.arange(k) < np.array([s.n for s in items])[:, None]
    centres = (np.stack(np.meshgrid(np.arange(grid), np.arange(grid)), -1).reshape(-1, 2)
               + 0.5) / grid
    d = np.linalg.norm(centres[None, :, None] - pos[:, None], axis=3)   # (B, grid², k)
    rows = np.arange(len(items))
    out = np.empty((len(items), 4, grid * grid), dtype=int)
    out[:, 2] = np.take_along_axis(names, np.argmin(d, axis=2), axis=1)
    cell = np.floor(pos * grid).astype(int)
    cell = np.where(real, cell[..., 1] * grid + cell[..., 0], 0)
    out[:, 0] = len(SHAPES)
    order = np.argsort(-np.where(real, d.min(axis=1), np.inf), axis=1)  # padding first
    for j in range(k):  # nearer shapes written last win a shared patch
        o = order[:, j]
        w = real[rows, o]
        out[rows[w], 0, cell[rows, o][w]] = names[rows, o][w]
    r = np.floor(np.array([s.probe for s in items]) * grid).astype(int).clip(0, grid - 1)
    x_cell = r[:, 1] * grid + r[:, 0]
    out[:, 1] = 0
    out[rows, 1, x_cell] = 1
    out[:, 3] = -100
    out[rows, 3, x_cell] = [SHAPES.index(s.answer) for s in items]
    return out


def _warmup(steps: int) -> float:
    """OneCycle's warm-up share: a tenth of training and at least one step, with the decay at
    least as long. OneCycle divides by both phases' lengths, which end at ``pct·steps − 1`` and
    ``steps − 1``, so neither may be zero (two steps need a warm-up ending at step ½)."""
    if steps < 2:
        return 0.5
    end = min(max(0.1 * steps, 2) - 1, (steps - 1) / 2)
    return (end + 1) / steps


def _fit(step_fn, groups, steps, checkpoint, checkpoint_every, modules, desc, progress):
    """Both stages' loop: AdamW on a OneCycle schedule, clipped gradients, and a checkpoint every
    ``checkpoint_every`` steps and at the end, from which a killed run resumes; the losses."""
    import torch

    opt = torch.optim.AdamW(groups, weight_decay=0.01, foreach=True)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[g["lr"] for g in groups],
                                                total_steps=steps, pct_start=_warmup(steps))
    start, losses = 0, []
    if checkpoint and Path(checkpoint).is_file():
        # onto the device the modules are on: a checkpoint a GPU run left resumes on a CPU
        where = next(next(iter(modules.values())).parameters()).device
        state = torch.load(checkpoint, weights_only=False, map_location=where)
        for name, module in modules.items():
            module.load_state_dict(state[name])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start, losses = state["step"], state["losses"]
    params = [p for g in groups for p in g["params"]]
    bar = tqdm(range(start, steps), desc=desc, disable=not progress, initial=start, total=steps)
    for step in bar:
        loss = step_fn(step)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
        opt.step()
        sched.step()
        losses.append(loss.item())
        bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}")
        if checkpoint and ((step + 1) % checkpoint_every == 0 or step + 1 == steps):
            Path(checkpoint).parent.mkdir(parents=True, exist_ok=True)
            torch.save({**{name: m.state_dict() for name, m in modules.items()},
                        "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step + 1,
                        "losses": losses}, str(checkpoint) + ".tmp")
            os.replace(str(checkpoint) + ".tmp", checkpoint)  # never half a checkpoint
    return losses


def vision_heads(hidden: int):
    """Stage 1's linear read-outs of a patch: which shape is there, the X, the shape nearest to
    the patch centre, and (on the X's patch) the answer."""
    import torch

    k = len(SHAPES)
    return torch.nn.ModuleList([torch.nn.Linear(hidden, k + 1), torch.nn.Linear(hidden, 2),
                                torch.nn.Linear(hidden, k), torch.nn.Linear(hidden, k)])


def pretrain_vision(model, processor, steps: int, batch_size: int = 64, lr: float = 2e-3,
                    seed=0, ns=NS, progress: bool = True, checkpoint=None,
                    checkpoint_every: int = 200, heads=None) -> list:
    """Stage 1, in place of a pretrained encoder: the vision tower learns :func:`_vision_targets`
    through linear :func:`vision_heads`, then dropped. Returns the losses."""
    import torch

    tower = model.model.vision_tower
    size = vlm.native_size(processor)
    grid = size // processor.patch_size
    heads = (vision_heads(tower.config.hidden_size) if heads is None else heads).to(model.device)
    ns = np.asarray(list(ns), dtype=int)
    layer = model.config.vision_feature_layer

    def step_fn(step):
        items = _scene_batch(np.random.default_rng(named_seed(seed, "vlm_vision_batch", step)),
                             batch_size, ns)
        target = torch.from_numpy(_vision_targets(items, grid)).to(model.device)
        feats = tower(_pixels(processor, items, size, model.device), output_hidden_states=True
                      ).hidden_states[layer][:, 1:]  # the features LLaVA passes on
        return sum(torch.nn.functional.cross_entropy(h(feats).flatten(0, 1),
                                                     target[:, i].flatten(), ignore_index=-100)
                   for i, h in enumerate(heads))

    tower.train()
    losses = _fit(step_fn, [{"params": list(tower.parameters()) + list(heads.parameters()),
                             "lr": lr}], steps, checkpoint, checkpoint_every,
                  {"tower": tower, "heads": heads}, "stage 1: vision tower", progress)
    tower.eval()
    return losses


def train(model, processor, steps: int, batch_size: int = 64, lr: float = 3e-3, seed=0,
          ns=NS, checkpoint=None, checkpoint_every: int = 100, progress: bool = True,
          vision_lr: float | None = None) -> tuple:
    """Stage 2: train on fresh scenes of both tasks (answer tokens only in the loss), the tower
    at ``vision_lr`` (default ``lr / 30``; 0 freezes it); ``(model, losses)``."""
    import torch

    ns = np.asarray(list(ns), dtype=int)
    size = vlm.native_size(processor)
    vision_lr = lr / 30 if vision_lr is None else vision_lr
    tower = model.model.vision_tower
    frozen = vision_lr == 0
    tower.requires_grad_(not frozen)
    in_tower = {id(p) for p in tower.parameters()}
    groups = [{"params": [p for p in model.parameters() if id(p) not in in_tower], "lr": lr}]
    if not frozen:
        groups.append({"params": list(tower.parameters()), "lr": vision_lr})

    def step_fn(step):
        rng = np.random.default_rng(named_seed(seed, "vlm_language_batch", step))
        batch, labels = _training_batch(processor, rng, batch_size, ns, size, model.device)
        return model(**vlm.on_model(batch, model), labels=labels.to(model.device)).loss

    model.train()
    if frozen:
        tower.eval()
    losses = _fit(step_fn, groups, steps, checkpoint, checkpoint_every, {"model": model},
                  "training VLM", progress)
    tower.requires_grad_(True)
    return model.eval(), losses


def trained_model(root, hidden: int = 64, layers: int = 4, heads: int = 4,
                  vision_steps: int = 1600, steps: int = 800, batch_size: int = 32,
                  vision_lr: float = 0.0, stage1_lr: float = 3e-3, seed: int = 0,
                  device: str = "cpu", progress: bool = True, vision: str = "dinov3") -> Path:
    """Folder of the 96 px model (12 px patches) trained with these settings (stage 1:
    :func:`pretrain_vision` at ``stage1_lr``; stage 2: :func:`train`), saved with
    ``save_pretrained`` on first use and reused afterwards; a saved folder that does not load
    is trained again."""
    import torch

    params = dict(hidden=hidden, layers=layers, heads=heads, vision_steps=vision_steps,
                  steps=steps, batch_size=batch_size, vision_lr=vision_lr, stage1_lr=stage1_lr,
                  seed=seed, vision=vision,
                  code=code_digest(trained_model))  # new training code, new model
    key = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]
    root = Path(root)
    folder = root / f"tiny-llava-{key}"
    if folder.exists():
        damage = vlm.load_failure(folder, device)
        if damage is None:
            record_cache_use(f"model {folder.name}", folder.name, "reused")
            return folder
        print(f"[semres] the saved model {folder} does not load ({damage}): removed, training it "
              f"again", file=sys.stderr, flush=True)
        shutil.rmtree(folder)
    root.mkdir(parents=True, exist_ok=True)
    processor = vlm.build_processor(96, 12)
    model = vlm.build_model(processor, hidden, layers, heads, seed, vision=vision).to(
        torch.device(device))
    # a finished stage's checkpoint holds its final state: a rerun resumes past it at once
    work = [root / f"tiny-llava-{key}.{stage}.ckpt.pt" for stage in ("vision", "language")]
    clock = time.perf_counter()
    losses1 = pretrain_vision(model, processor, vision_steps, batch_size, lr=stage1_lr,
                              seed=seed, progress=progress, checkpoint=work[0])
    seconds = {"vision": time.perf_counter() - clock}
    clock = time.perf_counter()
    model, losses = train(model, processor, steps, batch_size, seed=seed, checkpoint=work[1],
                          progress=progress, vision_lr=vision_lr)
    seconds["language"] = time.perf_counter() - clock  # this run's share, if it resumed
    partial = root / f"tiny-llava-{key}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    processor.save_pretrained(partial)
    (partial / "training.json").write_text(json.dumps(
        {"params": params, "vision_losses": losses1, "losses": losses, "seconds": seconds}))
    os.replace(partial, folder)  # only a complete folder ever carries the final name
    record_cache_use(f"model {folder.name}", folder.name, "computed")
    for done in work:
        done.unlink(missing_ok=True)
    return folder


def training_summary(model_ref) -> dict:
    """Each stage's mean loss over its first and last tenth (``vloss_*``: vision, ``loss_*``:
    answer); NaN for a model not trained here (no ``training.json``)."""
    record = None if model_ref is None else Path(model_ref) / "training.json"
    if record is None or not record.is_file():
        return dict.fromkeys(("loss_first", "loss_last", "vloss_first", "vloss_last"), np.nan)
    record = json.loads(record.read_text())
    out = {}
    for prefix, losses in (("", record["losses"]), ("v", record["vision_losses"])):
        tail = max(1, len(losses) // 10)
        out[f"{prefix}loss_first"] = np.mean(losses[:tail])
        out[f"{prefix}loss_last"] = np.mean(losses[-tail:])
    return out
