"""A tiny LLaVA-style vision-language model trained here, and option scoring shared with hub VLMs.

No pretrained VLM can be downloaded where the book is built, so the default model is built from
transformers configs (a small CLIP vision tower, a small Llama), with a word-level tokenizer
trained locally and a ``LlavaProcessor`` assembled offline. It is saved with ``save_pretrained``
and read back through ``AutoProcessor`` / ``AutoModelForImageTextToText``: exactly the path a hub
id such as ``Qwen/Qwen2.5-VL-3B-Instruct`` takes, so :func:`option_probs` scores both alike.

Scoring never generates or parses text: every answer option is appended to the chat prompt, the
option tokens' log-probabilities are summed in one batched forward pass, and a softmax over the
options gives the Luce probability of each answer.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

from semres.core import models
from semres.core import plotting as splot
from . import scenes as sc
from semres.core.seeds import seeds
from semres.core.choice import FLOOR_LOG_RANGE, compare_radii, fit_ball, pad
from semres.core.fingerprint import digest as code_digest
from semres.core.fits import bound_report, gof_chi2, gof_pvalue
from semres.core.profiles import Settings, positive_ints, require
from semres.report import ALPHA, fmt

IMAGE_TOKEN = "<image>"
SPECIAL = ["<pad>", "<unk>", "<s>", "</s>", IMAGE_TOKEN]
# A minimal chat template so the tiny model takes the same ``apply_chat_template`` path as hub VLMs.
CHAT_TEMPLATE = (
    "{% for message in messages %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}<image>{% else %} {{ c['text'] }}{% endif %}"
    "{% endfor %}{% endfor %}{% if add_generation_prompt %} answer:{% endif %}"
)


class ModelUnavailableError(OSError, ValueError):
    """A model id or folder that cannot be loaded here (offline and not cached, a missing folder,
    a folder that is not a model); a ValueError too, as every bad parameter is."""


def train_tokenizer(texts=None):
    """A word-level tokenizer trained on the task's words: every shape name is one token."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = list(texts or []) + list(sc.QUESTIONS.values()) + list(sc.SHAPES) + ["answer:"]
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=SPECIAL))
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>",
                                   bos_token="<s>", eos_token="</s>",
                                   extra_special_tokens={"image_token": IMAGE_TOKEN})


def build_processor(image_size: int = 96, patch_size: int = 12):
    """A ``LlavaProcessor`` from the local tokenizer and a CLIP image processor, built offline."""
    from transformers import LlavaProcessor
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    if image_size % patch_size:
        raise ValueError(f"patch_size must divide image_size; got {patch_size} and {image_size}")
    images = CLIPImageProcessorPil(size={"shortest_edge": image_size},
                                   crop_size={"height": image_size, "width": image_size})
    return LlavaProcessor(image_processor=images, tokenizer=train_tokenizer(),
                          patch_size=patch_size, vision_feature_select_strategy="default",
                          image_token=IMAGE_TOKEN, num_additional_image_tokens=1,
                          chat_template=CHAT_TEMPLATE)


VISION_TOWERS = ("clip", "dinov3")


def build_model(processor, hidden: int = 64, layers: int = 2, heads: int = 4, seed: int = 0,
                init_std: float | None = None, vision: str = "clip"):
    """An untrained LLaVA: vision tower + projector + Llama, sized from the processor.

    ``vision`` picks the tower: ``"clip"`` (LLaVA's own, learned absolute position embeddings)
    or ``"dinov3"`` (a DINOv3 ViT: same patch grid and CLS token, but 2-D rotary position
    encoding, so an attention score is a function of the offset between two patches and
    "attend to the nearest shape" needs no learned map of the canvas). Measured with linear
    probes after 1600 vision-stage steps (64 wide, 4 layers, batch 32; ``benchmarks/bench_vlm.py
    --probe 1600``), the X's patch names the shape nearest to the X on 0.285 of four-shape scenes
    with CLIP and 0.935 with DINOv3 (the shape under the X: 0.945 and 1.000). ``init_std`` (default
    ``hidden ** -0.5``) sets the language side's weight scale: the usual 0.02 is made for wide
    models and leaves a 64-wide one stuck at chance for thousands of steps.
    """
    import torch
    from transformers import (CLIPVisionConfig, DINOv3ViTConfig, LlamaConfig, LlavaConfig,
                              LlavaForConditionalGeneration)

    if hidden % heads:
        raise ValueError(f"heads must divide hidden; got {heads} and {hidden}")
    if vision not in VISION_TOWERS:
        raise ValueError(f"vision must be one of {VISION_TOWERS}; got {vision!r}")
    tok = processor.tokenizer
    size = processor.image_processor.crop_size["height"]
    shared = dict(hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
                  num_attention_heads=heads, image_size=size, patch_size=processor.patch_size)
    if vision == "clip":
        vision = CLIPVisionConfig(**shared)
    else:  # no random rescaling of patch coordinates while training: positions are the task
        vision = DINOv3ViTConfig(**shared, pos_embed_rescale=None)
    text = LlamaConfig(vocab_size=len(tok), hidden_size=hidden, intermediate_size=2 * hidden,
                       num_hidden_layers=layers, num_attention_heads=heads,
                       num_key_value_heads=heads, max_position_embeddings=512,
                       initializer_range=hidden**-0.5 if init_std is None else init_std,
                       pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                       eos_token_id=tok.eos_token_id)
    config = LlavaConfig(vision_config=vision, text_config=text,
                         image_token_index=tok.convert_tokens_to_ids(IMAGE_TOKEN),
                         vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(torch_seed(seed))
    return LlavaForConditionalGeneration(config).eval()


def torch_seed(seed: int) -> int:
    """The seed of torch's generator for the weights the model starts from: the named stream
    ``vlm_init`` of ``seed`` (:func:`semres.core.seeds.seeds`), as one integer."""
    return int(seeds(seed)("vlm_init").generate_state(1)[0])


def _unavailable(name_or_path: str, err: Exception) -> ModelUnavailableError:
    return ModelUnavailableError(
        f"model {name_or_path!r} cannot be loaded: it is neither a local folder nor in the "
        f"Hugging Face cache (download it first with `hf download {name_or_path}`, or pass a "
        f"folder); {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")


def load_processor(name_or_path: str):
    """The processor alone (cheap), with the same clear error as :func:`load`; a missing folder
    or a folder that is not a model is named as such (:func:`semres.core.models.problem`)."""
    from transformers import AutoProcessor

    problem = models.problem(name_or_path)
    if problem:
        raise ModelUnavailableError(f"model {name_or_path!r} cannot be loaded: {problem}")
    try:
        return AutoProcessor.from_pretrained(name_or_path)
    except (OSError, ValueError) as err:
        raise _unavailable(name_or_path, err) from None


def load(name_or_path: str, device: str = "cpu"):
    """``(model, processor)`` for a hub id or folder, through the Auto classes; one clear error
    when it is not available offline."""
    import torch
    from transformers import AutoModelForImageTextToText

    processor = load_processor(name_or_path)
    try:
        model = AutoModelForImageTextToText.from_pretrained(name_or_path, dtype="auto")
    except (OSError, ValueError) as err:
        raise _unavailable(name_or_path, err) from None
    return model.to(torch.device(device)).eval(), processor


@lru_cache(maxsize=1)
def _load_once(name_or_path: str, device: str):
    return load(name_or_path, device)


def _load_failure(folder, device: str) -> str | None:
    """Why a saved model folder does not load (None: it does; it is then kept loaded for
    :func:`evaluate`). A truncated weights file would otherwise fail every later run."""
    try:
        _load_once(str(folder), device)
    except Exception as err:  # safetensors, transformers and torch each raise their own
        return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")
    return None


def prompt_text(processor, question: str) -> str:
    """The chat prompt (image first, then the question) up to where the answer starts."""
    messages = [{"role": "user", "content": [{"type": "image"},
                                             {"type": "text", "text": question}]}]
    return processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)


def _encode(processor, image, question):
    return processor(images=image, text=prompt_text(processor, question), return_tensors="pt")


def _assemble(encodings, continuations, pad_id: int):
    """Right-padded batch of prompt + continuation rows; per-token tensors are extended, image
    tensors concatenated (works for LLaVA pixels and Qwen-VL's flattened patches alike)."""
    import torch

    lengths = [e["input_ids"].shape[1] + len(c) for e, c in zip(encodings, continuations)]
    width = max(lengths)
    first = encodings[0]
    per_token = [k for k, v in first.items()
                 if torch.is_tensor(v) and v.ndim == 2 and v.shape == first["input_ids"].shape]
    batch = {}
    for key in per_token:
        rows = []
        for e, c, n in zip(encodings, continuations, lengths):
            fill = torch.tensor(c, dtype=e[key].dtype) if key == "input_ids" else (
                torch.ones(len(c), dtype=e[key].dtype) if key == "attention_mask"
                else torch.zeros(len(c), dtype=e[key].dtype))
            pad = pad_id if key == "input_ids" else 0
            rows.append(torch.cat([e[key][0], fill,
                                   torch.full((width - n,), pad, dtype=e[key].dtype)]))
        batch[key] = torch.stack(rows)
    for key, value in first.items():
        if key not in per_token and torch.is_tensor(value):
            batch[key] = torch.cat([e[key] for e in encodings])
    starts = [e["input_ids"].shape[1] for e in encodings]
    return batch, starts


def _to(batch, model):
    import torch

    dtype = next(model.parameters()).dtype
    return {k: (v.to(model.device, dtype) if torch.is_floating_point(v) else v.to(model.device))
            for k, v in batch.items()}


def option_logprobs(model, processor, images, questions, options, batch_size: int = 32,
                    progress: bool = False) -> list:
    """Summed log-probability of each option's tokens after each (image, question) prompt.

    ``options[i]`` lists the answers for item ``i``; rows (item × option) are scored in batches
    of ``batch_size`` forward passes. Returns one float array per item.
    """
    import torch
    from tqdm.auto import tqdm

    if not len(images) == len(questions) == len(options):
        raise ValueError("images, questions and options must have the same length")
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive; got {batch_size}")
    tok = processor.tokenizer
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    rows = []  # (item, encoding, option ids)
    for i, (img, q, opts) in enumerate(zip(images, questions, options)):
        enc = _encode(processor, img, q)
        for o in opts:
            ids = tok(o, add_special_tokens=False)["input_ids"]
            if not ids:
                raise ValueError(f"options: {o!r} tokenizes to nothing")
            rows.append((i, enc, ids))
    scores = np.empty(len(rows))
    chunks = range(0, len(rows), batch_size)
    with torch.inference_mode():
        for lo in tqdm(chunks, desc="scoring", disable=not progress):
            part = rows[lo:lo + batch_size]
            batch, starts = _assemble([r[1] for r in part], [r[2] for r in part], pad)
            logp = torch.log_softmax(model(**_to(batch, model)).logits.float(), dim=-1)
            for j, ((_, _, ids), s) in enumerate(zip(part, starts)):
                pos = torch.arange(s - 1, s - 1 + len(ids), device=logp.device)
                tgt = torch.tensor(ids, device=logp.device)
                scores[lo + j] = logp[j, pos, tgt].sum().item()
    out, k = [], 0
    for opts in options:
        out.append(scores[k:k + len(opts)])
        k += len(opts)
    return out


def option_probs(model, processor, images, questions, options, **kwargs) -> list:
    """Luce probabilities over each item's options: softmax of the options' log-probabilities."""
    out = []
    for lp in option_logprobs(model, processor, images, questions, options, **kwargs):
        p = np.exp(lp - lp.max())
        out.append(p / p.sum())
    return out


def native_size(processor, default: int = 448) -> int:
    """The canvas size a processor was built for (the tiny model's), else ``default`` pixels."""
    crop = getattr(processor.image_processor, "crop_size", None)
    height = crop.get("height") if isinstance(crop, dict) else getattr(crop, "height", None)
    if height and getattr(processor, "patch_size", None):
        return int(height)
    return default


def score_options(model, processor, scene_list, image_size: int | None = None,
                  **kwargs) -> list:
    """Luce probability of every shape on each scene's canvas (one array per scene, in the
    order of ``scene.names``)."""
    image_size = image_size or native_size(processor)
    images = [sc.render(s, image_size) for s in scene_list]
    return option_probs(model, processor, images, [s.question for s in scene_list],
                        [list(s.names) for s in scene_list], **kwargs)


def score_scenes(model, processor, scene_list, image_size: int | None = None,
                 **kwargs) -> np.ndarray:
    """P(correct) for each scene: the Luce mass on its answer among the shapes on its canvas."""
    probs = score_options(model, processor, scene_list, image_size, **kwargs)
    return np.array([p[s.target] for p, s in zip(probs, scene_list)])


def evaluate(model_ref: str, scene_list, image_size: int | None = None, batch_size: int = 32,
             device: str = "cpu", progress: bool = True, options: bool = False):
    """:func:`score_scenes` (or, with ``options``, :func:`score_options`) for a model id or
    folder; a pure function of its arguments, so a chapter can cache it (the tiny model's
    folder name carries its training settings)."""
    model, processor = _load_once(model_ref, device)  # one load for the chapter's many calls
    fn = score_options if options else score_scenes
    return fn(model, processor, list(scene_list), image_size, batch_size=batch_size,
              progress=progress)


def pixel_values(processor, images):
    """The processor's image path (rescale, CLIP normalisation) as one array operation, for
    canvases already at the processor's size; training calls it on every batch."""
    import torch

    ip = processor.image_processor
    mean = np.asarray(ip.image_mean, dtype=np.float32)
    std = np.asarray(ip.image_std, dtype=np.float32)
    arr = np.stack([np.asarray(im, dtype=np.float32) for im in images]) / 255.0
    return torch.from_numpy(((arr - mean) / std).transpose(0, 3, 1, 2).copy())


def _scene_batch(rng, batch_size, ns):
    """``batch_size`` fresh scenes, tasks and shape counts drawn uniformly (in that order)."""
    tasks = rng.choice(sc.TASKS, batch_size)
    return [sc.sample_scene(rng, int(rng.choice(ns)), t) for t in tasks]


def _text_batch(processor, items, image_size):
    """Token ids, attention mask and labels (the answer token only) for ``items``, built without
    the processor: its image placeholder expanded to one token per image feature."""
    import torch

    tok = processor.tokenizer
    prompts = {t: tok(prompt_text(processor, sc.QUESTIONS[t]), add_special_tokens=False)
               ["input_ids"] for t in sc.TASKS}
    image_id = tok.convert_tokens_to_ids(IMAGE_TOKEN)
    n_image = (image_size // processor.patch_size) ** 2 + processor.num_additional_image_tokens
    if processor.vision_feature_select_strategy == "default":
        n_image -= 1
    prompts = {t: [x for i in ids for x in ([i] * n_image if i == image_id else [i])]
               for t, ids in prompts.items()}
    rows = [prompts[s.task] + tok(s.answer, add_special_tokens=False)["input_ids"] for s in items]
    width = max(map(len, rows))
    ids = torch.full((len(items), width), tok.pad_token_id)
    labels = torch.full((len(items), width), -100)
    mask = torch.zeros((len(items), width), dtype=torch.long)
    for j, (s, r) in enumerate(zip(items, rows)):
        ids[j, :len(r)] = torch.tensor(r)
        mask[j, :len(r)] = 1
        start = len(prompts[s.task])
        labels[j, start:len(r)] = ids[j, start:len(r)]
    return {"input_ids": ids, "attention_mask": mask}, labels


def _pixels(processor, items, image_size, device="cpu", batched: bool | None = None):
    """Normalised pixels of ``items`` on ``device``: PIL's :func:`scenes.render` on a CPU (ten
    times faster there), the batched :func:`scenes.render_batch` on an accelerator (drawn on the
    device, so the step does not wait on one CPU thread); ``batched`` forces either."""
    import torch

    device = torch.device(device)
    if not (device.type != "cpu" if batched is None else batched):
        return pixel_values(processor, [sc.render(s, image_size) for s in items]).to(device)
    ip = processor.image_processor
    mean = torch.tensor(ip.image_mean, device=device).view(1, 3, 1, 1)
    std = torch.tensor(ip.image_std, device=device).view(1, 3, 1, 1)
    return (sc.render_batch(items, image_size, device=device) / 255.0 - mean) / std


def _training_batch(processor, rng, batch_size, ns, image_size, device="cpu"):
    """One language-stage batch as the processor would build it, ``(inputs, labels)``; pixels
    on ``device`` (drawn there on an accelerator)."""
    items = _scene_batch(rng, batch_size, ns)
    batch, labels = _text_batch(processor, items, image_size)
    batch["pixel_values"] = _pixels(processor, items, image_size, device)
    return batch, labels


def _dense_targets(scene, grid: int) -> np.ndarray:
    """Per-patch labels for stage 1, shape (3, grid²): the shape whose centre is nearest to the
    patch centre if it lies in the patch (else ``len(SHAPES)``, none), whether the red mark's
    centre lies in it, and the shape nearest to the patch centre (the Voronoi map)."""
    centres = (np.stack(np.meshgrid(np.arange(grid), np.arange(grid)), -1).reshape(-1, 2)
               + 0.5) / grid
    d = np.linalg.norm(centres[:, None] - scene.positions[None], axis=2)
    names = np.array([sc.SHAPES.index(n) for n in scene.names])
    nearest = names[np.argmin(d, axis=1)]
    cell = np.floor(scene.positions * grid).astype(int)
    cover = np.full(grid * grid, len(sc.SHAPES))
    for k in np.argsort(-d.min(axis=0)):  # nearer shapes written last win a shared patch
        cover[cell[k, 1] * grid + cell[k, 0]] = names[k]
    red = np.zeros(grid * grid, dtype=int)
    r = np.floor(scene.probe * grid).astype(int).clip(0, grid - 1)
    red[r[1] * grid + r[0]] = 1
    return np.stack([cover, red, nearest])


def _answer_target(scene, grid: int) -> np.ndarray:
    """Stage 1's fourth label, shape (grid²,): the scene's answer (the shape nearest to the X
    itself, not to a patch centre) on the patch that holds the X, ignored (-100) elsewhere."""
    out = np.full(grid * grid, -100)
    r = np.floor(scene.probe * grid).astype(int).clip(0, grid - 1)
    out[r[1] * grid + r[0]] = sc.SHAPES.index(scene.answer)
    return out


def _warmup(steps: int) -> float:
    """OneCycle's warm-up share: a tenth of training and at least one step, with the decay at
    least as long. OneCycle divides by both phases' lengths, which end at ``pct·steps − 1`` and
    ``steps − 1``, so neither may be zero (two steps need a warm-up ending at step ½)."""
    if steps < 2:
        return 0.5
    end = min(max(0.1 * steps, 2) - 1, (steps - 1) / 2)
    return (end + 1) / steps


def _resume(path, modules, opt, sched):
    """``(step, losses)`` from a checkpoint written by :func:`_checkpoint`, or ``(0, [])``."""
    import torch

    if not (path and Path(path).is_file()):
        return 0, []
    state = torch.load(path, weights_only=False)
    for name, module in modules.items():
        module.load_state_dict(state[name])
    opt.load_state_dict(state["opt"])
    sched.load_state_dict(state["sched"])
    return state["step"], state["losses"]


def _checkpoint(path, modules, opt, sched, step, losses):
    """Write the training state atomically (a killed run never leaves half a checkpoint)."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {name: module.state_dict() for name, module in modules.items()}
    state.update(opt=opt.state_dict(), sched=sched.state_dict(), step=step, losses=losses)
    torch.save(state, str(path) + ".tmp")
    os.replace(str(path) + ".tmp", path)


def _fit_loop(step_fn, params, opt, sched, steps, start, losses, checkpoint, checkpoint_every,
              modules, desc, progress):
    """The loop both stages share: a step, clipped gradients, the schedule, a progress bar and a
    checkpoint every ``checkpoint_every`` steps and at the end."""
    import torch
    from tqdm.auto import tqdm

    bar = tqdm(range(start, steps), desc=desc, disable=not progress, initial=start, total=steps)
    for step in bar:
        loss = step_fn(step)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
        bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}")
        if checkpoint and ((step + 1) % checkpoint_every == 0 or step + 1 == steps):
            _checkpoint(checkpoint, modules, opt, sched, step + 1, losses)
    return losses


def vision_heads(hidden: int):
    """Stage 1's linear read-outs of a patch: which shape is there, the X, the shape nearest to
    the patch centre, and (on the X's patch) the answer."""
    import torch

    k = len(sc.SHAPES)
    return torch.nn.ModuleList([torch.nn.Linear(hidden, k + 1), torch.nn.Linear(hidden, 2),
                                torch.nn.Linear(hidden, k), torch.nn.Linear(hidden, k)])


def pretrain_vision(model, processor, steps: int, batch_size: int = 64, lr: float = 2e-3,
                    seed: int = 0, ns=range(2, 13), progress: bool = True,
                    checkpoint: str | os.PathLike | None = None, checkpoint_every: int = 200,
                    heads=None) -> list:
    """Stage 1, in place of a pretrained encoder: teach the vision tower, per patch, which shape
    sits there, where the X is, which shape is nearest to the patch and, on the X's own patch,
    the answer (linear :func:`vision_heads`, then dropped). Returns the losses.

    From scratch and end to end, the tower's features collapse before the language model learns
    to look at them (a tiny LLaVA cannot even overfit eight scenes); LLaVA itself starts from a
    pretrained CLIP. The answer target (the shape nearest to the X itself, not to its patch
    centre) puts the answer on the X's patch, where the language model reads it. Step ``k``
    draws from the named stream ``("vlm_vision_batch", k)`` of ``seed``, so a run resumed from
    ``checkpoint`` sees the scenes an uninterrupted one would.
    """
    import torch

    if steps < 1 or batch_size < 1:
        raise ValueError(f"steps and batch_size must be positive; got {steps}, {batch_size}")
    tower = model.model.vision_tower
    size = native_size(processor)
    grid = size // processor.patch_size
    heads = vision_heads(tower.config.hidden_size) if heads is None else heads
    heads = heads.to(model.device)
    params = list(tower.parameters()) + list(heads.parameters())
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps,
                                                pct_start=_warmup(steps))
    modules = {"tower": tower, "heads": heads}
    start, losses = _resume(checkpoint, modules, opt, sched)
    ns = np.asarray(list(ns), dtype=int)
    layer = model.config.vision_feature_layer
    stream = seeds(seed)

    def step_fn(step):
        items = _scene_batch(np.random.default_rng(stream("vlm_vision_batch", step)),
                             batch_size, ns)
        target = torch.from_numpy(np.stack([np.vstack([_dense_targets(s, grid),
                                                       _answer_target(s, grid)])
                                            for s in items])).to(model.device)
        feats = tower(_pixels(processor, items, size, model.device), output_hidden_states=True
                      ).hidden_states[layer][:, 1:]  # the features LLaVA passes on
        return sum(torch.nn.functional.cross_entropy(h(feats).flatten(0, 1),
                                                     target[:, i].flatten(), ignore_index=-100)
                   for i, h in enumerate(heads))

    tower.train()
    losses = _fit_loop(step_fn, params, opt, sched, steps, start, losses, checkpoint,
                       checkpoint_every, modules, "stage 1: vision tower", progress)
    tower.eval()
    return losses


def train(model, processor, steps: int, batch_size: int = 64, lr: float = 3e-3, seed: int = 0,
          ns=range(2, 13), checkpoint: str | os.PathLike | None = None,
          checkpoint_every: int = 100, progress: bool = True,
          vision_lr: float | None = None) -> tuple:
    """Train on fresh scenes of both tasks (answer tokens only in the loss); ``(model, losses)``.

    The vision tower learns at ``vision_lr`` (default ``lr / 30``; 0 freezes it): at the
    language model's rate its features collapse to a constant within a few dozen steps and the
    model stops looking at the image (found by failing to overfit eight scenes).

    Batch ``k`` is drawn from the named stream ``("vlm_language_batch", k)`` of ``seed``, so a
    run resumed from ``checkpoint`` sees exactly the batches an uninterrupted run would.
    """
    import torch

    if steps < 1 or batch_size < 1:
        raise ValueError(f"steps and batch_size must be positive; got {steps}, {batch_size}")
    ns = np.asarray(list(ns), dtype=int)
    size = native_size(processor)
    vision_lr = lr / 30 if vision_lr is None else vision_lr
    tower = model.model.vision_tower
    frozen = vision_lr == 0
    tower.requires_grad_(not frozen)
    in_tower = {id(p) for p in tower.parameters()}
    groups = [{"params": [p for p in model.parameters() if id(p) not in in_tower], "lr": lr}]
    if not frozen:
        groups.append({"params": list(tower.parameters()), "lr": vision_lr})
    opt = torch.optim.AdamW(groups, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[g["lr"] for g in groups],
                                                total_steps=steps, pct_start=_warmup(steps))
    modules = {"model": model}
    start, losses = _resume(checkpoint, modules, opt, sched)
    stream = seeds(seed)

    def step_fn(step):
        batch, labels = _training_batch(processor,
                                        np.random.default_rng(stream("vlm_language_batch", step)),
                                        batch_size, ns, size, model.device)
        return model(**_to(batch, model), labels=labels.to(model.device)).loss

    model.train()
    if frozen:
        tower.eval()
    losses = _fit_loop(step_fn, [p for g in groups for p in g["params"]], opt, sched, steps,
                       start, losses, checkpoint, checkpoint_every, modules, "training VLM",
                       progress)
    tower.requires_grad_(True)
    return model.eval(), losses


def trained_model(root, image_size: int = 96, patch_size: int = 12, hidden: int = 64,
                  layers: int = 4, heads: int = 4, vision_steps: int = 1600, steps: int = 800,
                  batch_size: int = 32, lr: float = 3e-3, vision_lr: float = 0.0,
                  seed: int = 0, ns=range(2, 13), device: str = "cpu",
                  progress: bool = True, stage1_lr: float | None = None,
                  vision: str = "dinov3") -> Path:
    """Folder of the default model trained with these settings (stage 1: :func:`pretrain_vision`
    at ``stage1_lr``, default ``lr``; stage 2: :func:`train`), saved with ``save_pretrained`` on
    first use and reused afterwards. Both stages checkpoint, so an interrupted run resumes where
    it stopped."""
    stage1_lr = lr if stage1_lr is None else stage1_lr
    params = dict(image_size=image_size, patch_size=patch_size, hidden=hidden, layers=layers,
                  heads=heads, vision_steps=vision_steps, steps=steps, batch_size=batch_size,
                  lr=lr, vision_lr=vision_lr, stage1_lr=stage1_lr, seed=seed,
                  vision=vision,
                  ns=[int(n) for n in ns],
                  code=code_digest(trained_model))  # new training code, new model
    key = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]
    root = Path(root)
    folder = root / f"tiny-llava-{key}"
    if folder.exists():
        damage = _load_failure(folder, device)
        if damage is None:
            return folder
        print(f"[semres] the saved model {folder} does not load ({damage}): removed, training it "
              f"again", file=sys.stderr, flush=True)
        shutil.rmtree(folder)
    import torch

    root.mkdir(parents=True, exist_ok=True)
    processor = build_processor(image_size, patch_size)
    model = build_model(processor, hidden, layers, heads, seed, vision=vision).to(
        torch.device(device))
    stage1 = root / f"tiny-llava-{key}.vision.pt"
    clock = time.perf_counter()
    if stage1.is_file():
        saved = torch.load(stage1, weights_only=False)
        model.model.vision_tower.load_state_dict(saved["tower"])
        losses1 = saved["losses"]
    else:
        losses1 = pretrain_vision(model, processor, vision_steps, batch_size, lr=stage1_lr,
                                  seed=seed, ns=ns, progress=progress,
                                  checkpoint=root / f"tiny-llava-{key}.vision.ckpt.pt")
        torch.save({"tower": model.model.vision_tower.state_dict(), "losses": losses1},
                   str(stage1) + ".tmp")
        os.replace(str(stage1) + ".tmp", stage1)
    seconds = {"vision": time.perf_counter() - clock}
    clock = time.perf_counter()
    model, losses = train(model, processor, steps, batch_size, lr, seed, ns,
                          checkpoint=root / f"tiny-llava-{key}.ckpt.pt", progress=progress,
                          vision_lr=vision_lr)
    seconds["language"] = time.perf_counter() - clock  # this run's share, if it resumed
    partial = root / f"tiny-llava-{key}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    processor.save_pretrained(partial)
    (partial / "training.json").write_text(json.dumps(
        {"params": params, "vision_losses": losses1, "losses": losses, "seconds": seconds}))
    os.replace(partial, folder)  # only a complete folder ever carries the final name
    for done in (stage1, root / f"tiny-llava-{key}.ckpt.pt",
                 root / f"tiny-llava-{key}.vision.ckpt.pt"):
        done.unlink(missing_ok=True)
    return folder


# Kernels read off behaviour: the Luce rule on a scene's probe-to-shape distances.

def luce_exponential(distances, target, scale: float, floor: float = 0.0) -> np.ndarray:
    """P(correct) under g(d) = exp(-d / scale) + floor, one row of ``distances`` per scene.

    Scenes with different numbers of shapes: pass a list of rows, or a 2-D array padded with
    ``inf``/``nan``; padded cells are not options (they get no floor).
    """
    if not scale > 0 or not floor >= 0:
        raise ValueError(f"scale must be > 0 and floor >= 0; got {scale}, {floor}")
    d, mask = pad(distances)
    # shift by each scene's nearest distance: same ratios, no underflow to 0 / 0
    near = np.where(mask, d, np.inf).min(axis=1, keepdims=True)
    with np.errstate(over="ignore"):
        lift = floor * np.exp(near / scale) if floor else 0.0
    g = np.where(mask, np.exp(-(d - near) / scale) + lift, 0.0)
    if not np.isfinite(g).all():  # the floor dwarfs the kernel: it alone sets the ratios
        g = np.where(mask, np.exp(-d / scale) + floor, 0.0)
    return g[np.arange(len(d)), np.asarray(target)] / g.sum(axis=1)


def luce_margin(distances, target, eps: float) -> np.ndarray:
    """P(correct) for a model that cannot tell distances apart within ``eps``: a constant kernel
    on the excess over the nearest distance, so every shape within ``eps`` of the nearest ties."""
    d, mask = pad(distances)
    if eps < 0:
        raise ValueError(f"eps must be >= 0; got {eps}")
    inside = mask & (d <= np.where(mask, d, np.inf).min(axis=1, keepdims=True) + eps)
    return inside[np.arange(len(d)), np.asarray(target)] / inside.sum(axis=1)


def _spread(distances) -> tuple:
    """(smallest positive gap between a scene's distances, largest spread within a scene)."""
    d, mask = pad(distances)
    dd = np.where(mask, d, np.nan)
    gaps = np.diff(np.sort(dd, axis=1), axis=1)
    gaps = gaps[np.isfinite(gaps) & (gaps > 0)]
    spread = float(np.nanmax(np.nanmax(dd, axis=1) - np.nanmin(dd, axis=1)))
    return (float(gaps.min()) if gaps.size else spread / 100), spread


def fit_exponential(distances, target, p_correct, scale_range=None) -> dict:
    """Least-squares ``scale`` and ``floor`` of :func:`luce_exponential` to measured P(correct).

    The scale is searched over ``scale_range`` (default: a twentieth of the smallest distance
    gap to twenty times the largest spread, which covers the data); the floor may be exactly 0
    (the fit without a floor is made too and kept unless the floor lowers the error). Returns
    ``scale``, ``floor``, ``sse`` and the bound report (``at_bound``, ``bound_params``) of the
    search range.
    """
    p = np.asarray(p_correct, dtype=float)
    d, mask = pad(distances)
    if len(p) != len(d):
        raise ValueError("p_correct: one value per scene")
    gap, spread = _spread(distances)
    lo, hi = scale_range or (gap / 20, 20 * spread)
    if not 0 < lo < hi:
        raise ValueError(f"scale_range must be 0 < low < high; got {scale_range}")
    d_typ = float(np.median(np.where(mask, d, np.inf).min(axis=1)))
    u_lo, u_hi = np.log(lo), np.log(hi)

    def model(x, with_floor):
        scale = np.exp(x[0])
        # the floor relative to the kernel at the typical nearest distance, on a log scale
        floor = np.exp(x[1] - d_typ / scale) if with_floor else 0.0
        return scale, floor

    def resid(x, with_floor):
        return luce_exponential(d, target, *model(x, with_floor)) - p

    plain, floored = [], []
    for u0 in np.linspace(u_lo, u_hi, 5)[1:-1]:
        r0 = least_squares(lambda z: resid([z[0], 0.0], False), [u0], bounds=([u_lo], [u_hi]))
        plain.append((r0.cost, [r0.x[0], -np.inf], False))
        for v0 in (-8.0, 0.0):
            r = least_squares(resid, [r0.x[0], v0], args=(True,),
                              bounds=([u_lo, FLOOR_LOG_RANGE[0]], [u_hi, FLOOR_LOG_RANGE[1]]))
            floored.append((r.cost, list(r.x), True))
    best0, best1 = (min(f, key=lambda f: f[0]) for f in (plain, floored))
    # a floor is kept only when it lowers the error beyond rounding
    cost, x, with_floor = best1 if best1[0] < best0[0] * (1 - 1e-6) - 1e-12 else best0
    scale, floor = model(x, with_floor)
    values, bounds = {"scale": scale}, {"scale": (lo, hi)}
    if with_floor:  # the floor's upper end is a search limit; 0 is its natural one
        values["floor_rel"], bounds["floor_rel"] = x[1], (-np.inf, FLOOR_LOG_RANGE[1])
    return {"scale": float(scale), "floor": float(floor), "sse": float(2 * cost),
            "scale_range": (float(lo), float(hi)),
            **bound_report(values, bounds, log=("scale",))}


def fit_margin(distances, target, p_correct, grid=None) -> dict:
    """Least-squares ``eps`` of :func:`luce_margin` (a step function: searched on ``grid``,
    default 501 points from 0 to the largest distance spread in the data, beyond which every
    shape ties). Returns ``eps``, ``sse`` and the bound report: ``eps`` at 0 means finer than
    every margin in the data, at the top end no resolution at all — both censored."""
    p = np.asarray(p_correct, dtype=float)
    if grid is None:
        grid = np.linspace(0, _spread(distances)[1], 501)
    grid = np.asarray(grid, dtype=float)
    sse = np.array([np.sum((luce_margin(distances, target, e) - p) ** 2) for e in grid])
    best = float(grid[int(np.argmin(sse))])
    return {"eps": best, "sse": float(sse.min()), "grid": (float(grid[0]), float(grid[-1])),
            **bound_report({"eps": best}, {"eps": (float(grid[0]), float(grid[-1]))})}


# --------------------------------------------------------------------------- verdicts

#: what a misfit means, in the chapter's words
MISFIT = "the model does not describe the data"


def scale_identification(fit: dict, resolution: float, design_hi: float, agree=None,
                         px: float = 1.0, unit: str = "px") -> tuple[bool, list[str]]:
    """Whether a fitted scale (a :func:`semres.core.choice.fit_choices` fit with its goodness of
    fit) is identified, and why not. It must describe its data (no ``misfit``), and its 95%
    likelihood set must be bounded on both sides inside the design: above ``resolution``, the
    finest distance the data resolve (a grid cell, an image patch), and below ``design_hi``, the
    largest distance. What a grid limits is the scale itself, so a set narrower than a cell is
    a precise measurement, not a failure. With ``agree`` False (the other estimators' intervals
    do not overlap) it is not identified either. ``px`` and ``unit`` only format the reasons.
    """
    if not resolution >= 0 or not design_hi > resolution:
        raise ValueError(f"resolution and design_hi must satisfy 0 <= resolution < design_hi; "
                         f"got {resolution!r}, {design_hi!r}")
    lo, hi = fit["profile_ci"]
    why = []
    if fit.get("misfit"):
        why.append(f"{MISFIT} (goodness of fit {gof_pvalue(fit)})")
    if not fit["profile_bounded"] or lo <= resolution or hi >= design_hi:
        why.append(f"its likelihood set ({fmt(lo * px)}–{fmt(hi * px)} {unit}) is not bounded "
                   f"inside the design ({fmt(resolution * px)}–{fmt(design_hi * px)} {unit})")
    if agree is False:
        why.append("the estimators' intervals do not overlap")
    return not why, why


def ball_fit(ns, p, se, curves: dict, grid, clear: float = 0.0) -> dict:
    """Theorem 3's ball radius for one task's measured rates ``p`` (standard errors ``se``) at
    the numbers of items ``ns``, from the predicted rates ``curves[n]`` on the radii ``grid``
    (:func:`semres.core.choice.fit_ball`), with its chi-square goodness of fit. ``identified`` only
    when the rule fits and the 95% set lies inside the design: above ``clear``, the radius
    below which the design makes the task perfect (plus a grid step), and below the grid's end.
    A set narrower than a grid step is a precise radius, not a failure (the profile is refined
    there)."""
    ns, grid = [int(n) for n in ns], np.asarray(grid, float)
    p, se = np.asarray(p, float), np.asarray(se, float)
    missing = [n for n in ns if n not in curves]
    if missing:
        raise ValueError(f"curves: no prediction for n = {missing}")
    f = fit_ball(p, se, lambda e: [np.interp(e, grid, curves[n]) for n in ns], grid)
    pred = [np.interp(f["eps"], grid, curves[n]) for n in ns]
    f.update(gof_chi2(p, pred, np.maximum(se, 1e-3), 1))
    step = grid[1] - grid[0]
    f["inside"] = bool(f["ci_low"] > clear + step and f["ci_high"] < grid[-1])
    f["identified"] = bool(f["identified"] and f["inside"] and not f["misfit"])
    return f


def radius_text(task: str, f: dict, px: float, unit: str = "px") -> str:
    """One task's Theorem 3 radius (a :func:`ball_fit`) in words, in ``unit`` (``px`` per
    unit of the fit)."""
    span = f"{fmt(f['ci_low'] * px)}–{fmt(f['ci_high'] * px)} {unit}"
    end = f["profile_eps"][-1]
    if f.get("misfit"):
        return (f"{task}: {MISFIT} (χ² = {f['gof_stat']:.1f} on {f['gof_df']:g} degrees of "
                f"freedom, {gof_pvalue(f)}); the radius {fmt(f['eps'] * px)} {unit} is not "
                "a measurement")
    if f["identified"]:
        return (f"{task}: ε = {fmt(f['eps'] * px)} {unit} (95% set {span}"
                + ("" if f["one_interval"] else ", not one interval") + ")")
    if f["ci_low"] == 0 and f["ci_high"] < end:
        return (f"{task}: ε is only bounded above, at {fmt(f['ci_high'] * px)} {unit} "
                "(not identified)")
    if not f.get("inside", True):
        return (f"{task}: the 95% set {span} reaches the design's edge, where the scenes make "
                "the prediction flat (not identified)")
    if f["ci_high"] >= end and f["ci_low"] > 0:
        return (f"{task}: ε is only bounded below, at {fmt(f['ci_low'] * px)} {unit} "
                "(not identified)")
    return f"{task}: ε is not identified (every radius fits within the 95% level)"


def one_radius(label: str, fs: dict | None, fi: dict | None, px: float = 1.0,
               unit: str = "of the canvas") -> dict:
    """Is one Theorem 3 radius enough for both tasks? From the radii fitted to generalization
    (``fs``) and identification (``fi``, :func:`ball_fit` on independent scenes): a
    likelihood-ratio test of equal radii and the 95% profile interval of their difference
    (:func:`semres.core.choice.compare_radii`), never an overlap of two intervals.

    Returns ``text`` (None without both fits), ``misfit``, ``identified`` (both radii), and with
    both identified ``difference``, ``ci`` and ``p_equal`` (in the fits' units)."""
    out = {"text": None, "misfit": False, "identified": False, "difference": None,
           "ci": None, "p_equal": None}
    if not (fs and fi):
        return out
    bad = [t for t, f in (("p_S(n)", fs), ("p_I(n)", fi)) if f.get("misfit")]
    if bad:
        out.update(misfit=True, text=(f"For {label}, Theorem 3's ball kernel does not describe "
                                      + " and ".join(bad) + ", so no radius is compared."))
        return out
    if not (fs["identified"] and fi["identified"]):
        out["text"] = (f"For {label}, Theorem 3 cannot test one resolution for both tasks: the "
                       "radius is not identified by both.")
        return out
    c = compare_radii(fs, fi)
    out.update(identified=True, difference=c["difference"], ci=(c["ci_low"], c["ci_high"]),
               p_equal=c["p_equal"])
    diff = (f"the radius of generalization minus that of identification is "
            f"{c['difference'] * px:+.3g} {unit} (95% profile interval "
            f"{c['ci_low'] * px:+.3g} to {c['ci_high'] * px:+.3g}; equal radii: likelihood ratio "
            f"{c['lr']:.2f}, {splot.pvalue(c['p_equal'])})")
    if c["ci_low"] > 0 or c["ci_high"] < 0:
        out["text"] = (f"For {label}, {diff}: the two tasks need different radii, so no single "
                       "spatial resolution of Theorem 3 accounts for both.")
    else:
        out["text"] = (f"For {label}, {diff}: equal radii are not rejected, which is not a "
                       "measurement that they are equal (a wider interval would pass as easily).")
    return out


# --------------------------------------------------------------------------- chapter 6's design
# The designs chapter 6 runs, fixed across profiles (the profiles below size them): here, in
# one place, rather than typed into the chapter.

#: the error band's check: two shapes at (±c, 0), a margin resolution eps, uniform points
BAND_CHECK = {"c": 0.3, "eps": 0.1, "points": 200_000}
#: the margin law's check: random four-shape scenes under an exponential kernel of this scale
MARGIN_CHECK = {"scenes": 500, "scale": 0.05}
#: Theorem 3 on the canvas against the engine: radii, numbers of shapes, probe grid per side
CANVAS_CHECK = {"radii": (0.1, 0.25), "ns": (2, 4, 8, 12), "grid": 100}
#: radii (canvas units) over which Theorem 3's ball radius is profiled: past the canvas
#: diagonal, where every prediction is chance
EPS_GRID = np.linspace(0, 1.5, 301)
#: decay lengths over which the graded kernel without a floor is fitted to p(n)
LAM_GRID = np.geomspace(1e-3, 3.0, 161)
#: below these radii the scenes make each task perfect by design: the similarity X keeps a
#: shape's width from every shape, and shapes keep 1.3 widths apart
CLEARANCE = {"similarity": sc.SHAPE_SIZE, "identification": 1.3 * sc.SHAPE_SIZE}
#: the 95% likelihood-ratio test of a floor on its bound of 0 (the 90% chi-square(1)
#: quantile, as the statistic is a 50:50 mixture at a bound)
FLOOR_LR = 2.706
#: points of a scale's likelihood profile
PROFILE_POINTS = 41
#: the standard error of a margin bin without spread
SE_MIN = 1e-3
#: width of the margin bins that count correct answers (canvas units, hue circle)
MARGIN_BIN = {"canvas": 0.05, "hue": 0.01}
#: the two layouts' accuracy differs when the deviance's p-value is below the book's level for
#: rejecting "no effect" (:data:`semres.report.ALPHA`): p = 0.010 is a difference, not "none
#: detected"
LAYOUT_P = ALPHA


def heads_for(hidden: int) -> int:
    """Attention heads of the tiny model: four when they divide its width, else two."""
    return 4 if hidden % 4 == 0 else 2


def training_summary(model_ref) -> dict:
    """The losses of a model trained here, averaged over the first and last tenth of each
    stage (``vloss_*``: the vision stage's summed per-patch loss; ``loss_*``: the answer loss);
    NaN for a model that was not (``model_ref`` None, or no ``training.json`` beside it)."""
    keys = ("loss_first", "loss_last", "vloss_first", "vloss_last")
    record = None if model_ref is None else Path(model_ref) / "training.json"
    if record is None or not record.is_file():
        return dict.fromkeys(keys, float("nan"))
    record = json.loads(record.read_text())
    out = {}
    for prefix, losses in (("", record["losses"]), ("v", record["vision_losses"])):
        tail = max(1, len(losses) // 10)
        out[f"{prefix}loss_first"] = np.mean(losses[:tail])
        out[f"{prefix}loss_last"] = np.mean(losses[-tail:])
    return out


def patch_px(processor) -> float:
    """The pixels of an image patch of a processor (1 when it names none): the finest distance
    a model's picture resolves."""
    patch = getattr(processor, "patch_size", None) or getattr(
        getattr(processor, "image_processor", None), "patch_size", None)
    if isinstance(patch, dict):
        patch = patch.get("height") or max(patch.values())
    return float(patch) if patch else 1.0


def p_correct(probs, scene_list) -> np.ndarray:
    """P(correct) of each scene from its option probabilities (in the order of its names)."""
    return np.array([p[s.target] for p, s in zip(probs, scene_list)])


def ran_lines(cfg: dict, profile: str, seed: int, model, device, shipped, paths,
              results_df) -> list:
    """What ran in this build, one line each."""
    return [
        f"profile **{profile}**, seed {seed}",
        "model: " + (f"a tiny LLaVA trained here on `{device}` "
                     f"({cfg['vision_steps']} vision-stage and {cfg['steps']} language-stage "
                     "steps)" if model is None else f"`{model}`, scored on `{device}`"),
        f"accuracy map on a {cfg['grid']} × {cfg['grid']} grid of X positions, "
        f"{cfg['fit_scenes']} random four-shape scenes for the fits "
        f"({cfg['boot']} least-squares and {cfg['choice_boot']} likelihood bootstrap resamples)",
        f"both tasks at n = {', '.join(map(str, cfg['sweep_n']))} "
        f"({cfg['sweep_scenes']} scenes each)",
        ("the paper's models from the shipped count tables (" + ", ".join(shipped) + ")"
         if shipped else "no shipped tables of the paper's models"),
        (f"per-trial results from {len(paths)} path(s): {len(results_df)} trials of "
         + ", ".join(sorted(set(results_df['model']))) if paths else
         "no per-trial result files (`results=` not given)")]


def deviation_notes(cfg: dict, model, canvas_px: int, shipped) -> tuple[list, list]:
    """How this build differs from the paper: what the model and the map are (``model``), and
    what the protocol adds or changes beside the settings (``protocol``)."""
    model_lines = [
        "The model is a small LLaVA trained here on rendered scenes (a supervised vision stage "
        "stands in for CLIP pretraining), not Qwen2.5-VL or Gemma-3; its canvas is "
        f"{canvas_px} px, not 900 px." if model is None else
        f"The model is `{model}` on a {canvas_px} px canvas (the paper: 900 px).",
        f"The accuracy map puts the X on a {cfg['grid']} × {cfg['grid']} grid over a fixed "
        "layout of this book's (shapes inside the canvas), not at 400 random positions over the "
        "authors' corner layout; the scale is fitted on separate four-shape scenes with random "
        "layouts."]
    protocol = [
        "Answers are scored by the options' log-probabilities normalised over the shapes on the "
        "canvas (a Luce probability; nothing generated or parsed); the original parsed "
        "generated text and, as released, processed only five images per model (a guard meant "
        "to be removed).",
        f"Beyond the paper: both tasks at n = {', '.join(map(str, cfg['sweep_n']))} "
        f"({cfg['sweep_scenes']} scenes each), identification with the X on a shape, and a "
        "response-bias term in every fit.",
        "The paper's models are fitted from shipped grid counts (each X at its cell's mean), "
        "not from their per-trial positions; pass the authors' files as `results=` for those."
        if "spatial_grid" in shipped else ""]
    return model_lines, protocol


# --------------------------------------------------------------------------- settings

def _check_settings(cfg: dict, ch: str) -> None:
    MAX_SHAPES = len(sc.SHAPES)

    positive_ints(cfg, ch, "vision_steps", "steps", "hidden", "layers", "train_batch", "grid",
                   "fit_scenes", "sweep_scenes", "boot", "choice_boot", "mc_trials", "bins",
                   "stencil_boot", "grid_gof_boot")
    require(cfg["vision"] in ("clip", "dinov3"), ch,
             f"vision must be 'clip' or 'dinov3'; got {cfg['vision']!r}")
    require(cfg["stage1_lr"] > 0 and cfg["vision_lr"] >= 0, ch,
             f"stage1_lr must be > 0 and vision_lr >= 0; got {cfg['stage1_lr']}, "
             f"{cfg['vision_lr']}")
    require(min(cfg["sweep_n"]) >= 2 and max(cfg["sweep_n"]) <= MAX_SHAPES, ch,
             f"sweep_n must lie in [2, {MAX_SHAPES}]; got {cfg['sweep_n']}")


SETTINGS = Settings(
    chapter="06_vlm_shapes",
    profiles={
        "quick": {"vision_steps": 20, "steps": 20, "hidden": 32, "layers": 1, "train_batch": 16,
                  "vision": "dinov3", "stage1_lr": 3e-3, "vision_lr": 0.0,
                  "grid": 8, "fit_scenes": 48, "sweep_n": [2, 4, 8, 12], "sweep_scenes": 8,
                  "boot": 100, "choice_boot": 10, "mc_trials": 20_000, "bins": 6,
                  "stencil_boot": 100, "grid_gof_boot": 4},
        "default": {"vision_steps": 1600, "steps": 800, "hidden": 64, "layers": 4,
                    "train_batch": 32, "vision": "dinov3", "stage1_lr": 3e-3, "vision_lr": 0.0,
                    "grid": 20, "fit_scenes": 400,
                    "sweep_n": [2, 3, 4, 6, 8, 10, 12], "sweep_scenes": 60, "boot": 300,
                    "choice_boot": 200, "mc_trials": 200_000, "bins": 10,
                    "stencil_boot": 1000, "grid_gof_boot": 999},
        "paper": {"vision_steps": 6000, "steps": 3000, "hidden": 128, "layers": 4,
                  "train_batch": 64, "vision": "dinov3", "stage1_lr": 2e-3, "vision_lr": 0.0,
                  "grid": 40, "fit_scenes": 2000,
                  "sweep_n": list(range(2, 13)), "sweep_scenes": 300, "boot": 1000,
                  "choice_boot": 1000, "mc_trials": 1_000_000, "bins": 14,
                  "stencil_boot": 2000, "grid_gof_boot": 999},
    },
    check=_check_settings, minimums={"batch_size": 1, "image_size": 0, "threads": 0},
    # the authors' models each answered 400 four-shape scenes with the X at random positions
    paper={"fit_scenes": (400, "Four-shape scenes with a random X, per model")})
