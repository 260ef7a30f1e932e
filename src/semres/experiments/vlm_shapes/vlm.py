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

    texts = list(texts or []) + list(QUESTIONS.values()) + list(SHAPES) + ["answer:"]
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


def build_model(processor, hidden: int = 64, layers: int = 2, heads: int = 4, seed=0,
                init_std: float | None = None, vision: str = "clip"):
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
                       initializer_range=hidden**-0.5 if init_std is None else init_std,
                       pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                       eos_token_id=tok.eos_token_id)
    config = LlavaConfig(vision_config=vision, text_config=text,
                         image_token_index=tok.convert_tokens_to_ids(IMAGE_TOKEN),
                         vision_feature_select_strategy="default", vision_feature_layer=-1)
    # the weights it starts from: the stream "vlm_init" of the chapter's seed
    torch.manual_seed(int_seed(seed, "vlm_init"))
    return LlavaForConditionalGeneration(config).eval()


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


def load_failure(folder, device: str) -> str | None:
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
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive; got {batch_size}")
    tok = processor.tokenizer
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    rows = []  # (encoding, continuation, [(score index, option ids)])
    k = 0
    for img, q, opts in zip(images, questions, options):
        enc = _encode(processor, img, q)
        ids = [tok(o, add_special_tokens=False)["input_ids"] for o in opts]
        for o, i in zip(opts, ids):
            if not i:
                raise ValueError(f"options: {o!r} tokenizes to nothing")
        targets = list(zip(range(k, k + len(ids)), ids))
        k += len(ids)
        if all(len(i) == 1 for i in ids):
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


@lru_cache(maxsize=8)
def _levels(mean: tuple, std: tuple) -> np.ndarray:
    """Each channel's normalised value of each of the 256 grey levels, shape (3, 256), by the
    same float32 operations as ``(v / 255 - mean) / std`` on the image itself."""
    mean = np.asarray(mean, dtype=np.float32)[:, None]
    std = np.asarray(std, dtype=np.float32)[:, None]
    return (np.arange(256, dtype=np.float32)[None] / 255.0 - mean) / std



def normalise(processor, canvases):
    """Normalised pixels ``(B, 3, H, W)`` of uint8 canvases ``(B, 3, H, W)`` (as
    :func:`scenes.render_arrays` draws them): a lookup of each channel's 256 levels (training
    normalises 32 canvases a step), equal bit for bit to rescaling and normalising them."""
    import torch

    ip = processor.image_processor
    levels = _levels(tuple(ip.image_mean), tuple(ip.image_std))
    canvases = np.asarray(canvases)
    if canvases.dtype != np.uint8 or canvases.ndim != 4 or canvases.shape[1] != 3:
        raise ValueError(f"canvases must be uint8 of shape (B, 3, H, W); got {canvases.dtype} "
                         f"{canvases.shape}")
    out = np.empty(canvases.shape, dtype=np.float32)
    for c in range(3):
        np.take(levels[c], canvases[:, c], out=out[:, c])
    return torch.from_numpy(out)


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


def p_correct(probs, scene_list) -> np.ndarray:
    """P(correct) of each scene from its option probabilities (in the order of its names)."""
    return np.array([p[s.target] for p, s in zip(probs, scene_list)])
