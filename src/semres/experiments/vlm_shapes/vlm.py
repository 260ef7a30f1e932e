"""A tiny LLaVA-style vision-language model built here, and option scoring shared with hub VLMs."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from tqdm.auto import tqdm

from semres.core import models
from semres.core.seeds import int_seed

from . import scenes as sc
from .settings import QUESTIONS, SHAPES

IMAGE_TOKEN = "<image>"
VISION_TOWERS = ("clip", "dinov3")
# a minimal chat template: the tiny model takes the ``apply_chat_template`` path of hub VLMs
CHAT_TEMPLATE = (
    "{% for message in messages %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}<image>{% else %} {{ c['text'] }}{% endif %}"
    "{% endfor %}{% endfor %}{% if add_generation_prompt %} answer:{% endif %}"
)


class ModelUnavailableError(OSError, ValueError):
    """A model id or folder that cannot be loaded here (offline and not cached, a missing folder,
    a folder that is not a model); a ValueError too, as every bad parameter is."""


def build_processor(image_size: int = 96, patch_size: int = 12):
    """A ``LlavaProcessor`` built offline: a word-level tokenizer of the task's words (each shape
    one token) and a CLIP image processor."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import LlavaProcessor, PreTrainedTokenizerFast
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    if image_size % patch_size:
        raise ValueError(f"patch_size must divide image_size; got {patch_size} and {image_size}")
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([*QUESTIONS.values(), *SHAPES, "answer:"], trainers.WordLevelTrainer(
        special_tokens=["<pad>", "<unk>", "<s>", "</s>", IMAGE_TOKEN]))
    tok = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>",
                                  bos_token="<s>", eos_token="</s>",
                                  extra_special_tokens={"image_token": IMAGE_TOKEN})
    images = CLIPImageProcessorPil(size={"shortest_edge": image_size},
                                   crop_size={"height": image_size, "width": image_size})
    return LlavaProcessor(image_processor=images, tokenizer=tok, patch_size=patch_size,
                          vision_feature_select_strategy="default", image_token=IMAGE_TOKEN,
                          num_additional_image_tokens=1, chat_template=CHAT_TEMPLATE)


def build_model(processor, hidden: int = 64, layers: int = 2, heads: int = 4, seed=0,
                vision: str = "clip"):
    """An untrained LLaVA: vision tower + projector + Llama, sized from the processor."""
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
                       initializer_range=hidden**-0.5, pad_token_id=tok.pad_token_id,
                       bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    config = LlavaConfig(vision_config=vision, text_config=text,
                         image_token_index=tok.convert_tokens_to_ids(IMAGE_TOKEN),
                         vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(int_seed(seed, "vlm_init"))  # the stream "vlm_init" of the chapter's seed
    return LlavaForConditionalGeneration(config).eval()


def load_processor(name_or_path: str):
    """The processor alone (cheap), with the same clear error as :func:`load`."""
    from transformers import AutoProcessor

    return _from_pretrained(AutoProcessor, name_or_path)


def _from_pretrained(auto, name_or_path: str, **kwargs):
    """``auto.from_pretrained``, or one clear error naming what is wrong or how to get it."""
    problem = models.problem(name_or_path)
    if problem:
        raise ModelUnavailableError(f"model {name_or_path!r} cannot be loaded: {problem}")
    try:
        return auto.from_pretrained(name_or_path, **kwargs)
    except (OSError, ValueError) as err:
        raise ModelUnavailableError(
            f"model {name_or_path!r} cannot be loaded: it is neither a local folder nor in the "
            f"Hugging Face cache (download it first with `hf download {name_or_path}`, or pass "
            f"a folder); {type(err).__name__}: {_first_line(err)}") from None


def _first_line(err: Exception) -> str:
    return str(err).splitlines()[0] if str(err) else ""


def load(name_or_path: str, device: str = "cpu"):
    """``(model, processor)`` for a hub id or folder, through the Auto classes."""
    import torch
    from transformers import AutoModelForImageTextToText

    processor = load_processor(name_or_path)
    model = _from_pretrained(AutoModelForImageTextToText, name_or_path, dtype="auto")
    return model.to(torch.device(device)).eval(), processor


@lru_cache(maxsize=1)
def _load_once(name_or_path: str, device: str):
    return load(name_or_path, device)


def load_failure(folder, device: str) -> str | None:
    """Why a saved model folder does not load (None: it does; it is then kept loaded for
    :func:`evaluate`). A truncated weights file would otherwise fail every later run."""
    try:
        _load_once(str(folder), device)
    except Exception as err:  # safetensors, transformers and torch each raise their own
        return f"{type(err).__name__}: {_first_line(err)}".rstrip(": ")
    return None


def prompt_text(processor, question: str) -> str:
    """The chat prompt (image first, then the question) up to where the answer starts."""
    messages = [{"role": "user", "content": [{"type": "image"},
                                             {"type": "text", "text": question}]}]
    return processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)


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
            dtype = e[key].dtype
            fill = torch.tensor(c, dtype=dtype) if key == "input_ids" else (
                torch.full((len(c),), int(key == "attention_mask"), dtype=dtype))
            pad = pad_id if key == "input_ids" else 0
            rows.append(torch.cat([e[key][0], fill, torch.full((width - n,), pad, dtype=dtype)]))
        batch[key] = torch.stack(rows)
    for key, value in first.items():
        if key not in per_token and torch.is_tensor(value):
            batch[key] = torch.cat([e[key] for e in encodings])
    return batch, [e["input_ids"].shape[1] for e in encodings]


def on_model(batch, model):
    """A batch's tensors on the model's device, floats in the model's dtype."""
    import torch

    dtype = next(model.parameters()).dtype
    return {k: (v.to(model.device, dtype) if torch.is_floating_point(v) else v.to(model.device))
            for k, v in batch.items()}


def option_logprobs(model, processor, images, questions, options, batch_size: int = 32,
                    progress: bool = False) -> list:
    """Summed log-probability of each option's tokens after each (image, question) prompt."""
    import torch

    if not len(images) == len(questions) == len(options):
        raise ValueError("images, questions and options must have the same length")
    tok = processor.tokenizer
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    rows = []  # (encoding, continuation, [(score index, option ids)])
    k = 0
    for img, q, opts in zip(images, questions, options):
        enc = processor(images=img, text=prompt_text(processor, q), return_tensors="pt")
        ids = [tok(o, add_special_tokens=False)["input_ids"] for o in opts]
        if not all(ids):
            raise ValueError(f"options: one of {opts} tokenizes to nothing")
        targets = list(zip(range(k, k + len(ids)), ids))
        k += len(ids)
        if all(len(i) == 1 for i in ids):  # one pass scores every single-token option
            rows.append((enc, [], targets))
        else:
            rows += [(enc, i, [t]) for t, i in zip(targets, ids)]
    scores = np.empty(k)
    with torch.inference_mode():
        for lo in tqdm(range(0, len(rows), batch_size), desc="scoring", disable=not progress):
            part = rows[lo:lo + batch_size]
            batch, starts = _assemble([r[0] for r in part], [r[1] for r in part], pad)
            logp = torch.log_softmax(model(**on_model(batch, model)).logits.float(), dim=-1)
            for j, ((_, _, targets), s) in enumerate(zip(part, starts)):
                for at, ids in targets:
                    pos = torch.arange(s - 1, s - 1 + len(ids), device=logp.device)
                    tgt = torch.tensor(ids, device=logp.device)
                    scores[at] = logp[j, pos, tgt].sum().item()
    return np.split(scores, np.cumsum([len(o) for o in options])[:-1])


def native_size(processor, default: int = 448) -> int:
    """The canvas size a processor was built for (the tiny model's), else ``default`` pixels."""
    crop = getattr(processor.image_processor, "crop_size", None)
    height = crop.get("height") if isinstance(crop, dict) else getattr(crop, "height", None)
    return int(height) if height and getattr(processor, "patch_size", None) else default


def score_options(model, processor, scene_list, image_size: int | None = None,
                  **kwargs) -> list:
    """Luce probability of every shape on each scene's canvas (one array per scene, in the
    order of ``scene.names``): the softmax of the options' log-probabilities."""
    image_size = image_size or native_size(processor)
    out = []
    for lp in option_logprobs(model, processor, [sc.render(s, image_size) for s in scene_list],
                              [s.question for s in scene_list],
                              [list(s.names) for s in scene_list], **kwargs):
        p = np.exp(lp - lp.max())
        out.append(p / p.sum())
    return out


def p_correct(probs, scene_list) -> np.ndarray:
    """P(correct) of each scene from its option probabilities (in the order of its names)."""
    return np.array([p[s.target] for p, s in zip(probs, scene_list)])


def score_scenes(model, processor, scene_list, image_size: int | None = None,
                 **kwargs) -> np.ndarray:
    """P(correct) for each scene: the Luce mass on its answer among the shapes on its canvas."""
    return p_correct(score_options(model, processor, scene_list, image_size, **kwargs),
                     scene_list)


def evaluate(model_ref: str, scene_list, image_size: int | None = None, batch_size: int = 32,
             device: str = "cpu", progress: bool = True):
    """:func:`score_options` for a model id or folder: a pure function of its arguments, which
    a chapter caches (the tiny model's folder name carries its training settings)."""
    model, processor = _load_once(model_ref, device)  # one load for the chapter's many calls
    return score_options(model, processor, list(scene_list), image_size, batch_size=batch_size,
                         progress=progress)


def normalise(processor, canvases):
    """Normalised float32 pixels ``(B, 3, H, W)`` of uint8 canvases ``(B, 3, H, W)``, by the
    float32 operations of rescaling and normalising them."""
    import torch

    ip = processor.image_processor
    canvases = np.asarray(canvases)
    if canvases.dtype != np.uint8 or canvases.ndim != 4 or canvases.shape[1] != 3:
        raise ValueError(f"canvases must be uint8 of shape (B, 3, H, W); got {canvases.dtype} "
                         f"{canvases.shape}")
    mean, std = (np.asarray(v, dtype=np.float32)[:, None, None]
                 for v in (ip.image_mean, ip.image_std))
    return torch.from_numpy((canvases.astype(np.float32) / 255.0 - mean) / std)


def heads_for(hidden: int) -> int:
    """Attention heads of the tiny model: four when they divide its width, else two."""
    return 4 if hidden % 4 == 0 else 2


def patch_px(processor) -> float:
    """The pixels of an image patch of a processor (1 when it names none): the finest distance
    a model's picture resolves."""
    patch = getattr(processor, "patch_size", None) or getattr(
        getattr(processor, "image_processor", None), "patch_size", None)
    if isinstance(patch, dict):
        patch = patch.get("height") or max(patch.values())
    return float(patch) if patch else 1.0
