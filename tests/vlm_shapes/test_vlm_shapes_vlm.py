"""The tiny LLaVA and the option scoring shared with hub VLMs: the offline processor and model
round trip through the Auto classes, batched option scores, clear errors for unavailable
models, and the model's design helpers."""

import os
import re

import numpy as np
import pytest
import torch

from semres.core import models
from semres.experiments.phylogeny import vision
from semres.experiments.vlm_shapes import luce, vlm
from semres.experiments.vlm_shapes import scenes as sc

os.environ.setdefault("HF_HUB_OFFLINE", "1")
SIZE, PATCH = 48, 12


@pytest.fixture(scope="module")
def tiny():
    processor = vlm.build_processor(SIZE, PATCH)
    return vlm.build_model(processor, hidden=32, layers=1, heads=2, seed=0), processor


def test_tokenizer_and_prompt(tiny):
    _, processor = tiny
    tok = processor.tokenizer
    for name in sc.SHAPES:  # one token per answer: options are scored without sub-words
        ids = tok(name, add_special_tokens=False)["input_ids"]
        assert len(ids) == 1 and ids[0] != tok.unk_token_id
    enc = processor(images=sc.render(sc.sample_scenes(1, 4, "similarity", 0)[0], SIZE),
                    text=vlm.prompt_text(processor, sc.QUESTIONS["similarity"]),
                    return_tensors="pt")
    image_id = tok.convert_tokens_to_ids(vlm.IMAGE_TOKEN)
    assert int((enc["input_ids"] == image_id).sum()) == (SIZE // PATCH) ** 2
    assert tok.unk_token_id not in enc["input_ids"][0].tolist()


def test_save_and_load_through_auto_classes(tiny, tmp_path):
    from transformers import LlavaForConditionalGeneration, LlavaProcessor

    model, processor = tiny
    model.save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    model2, processor2 = vlm.load(str(tmp_path))
    assert isinstance(processor2, LlavaProcessor)
    assert isinstance(model2, LlavaForConditionalGeneration)
    img = sc.render(sc.sample_scenes(1, 5, "identification", 1)[0], SIZE)
    text = vlm.prompt_text(processor, sc.QUESTIONS["identification"])
    a = processor(images=img, text=text, return_tensors="pt")
    b = processor2(images=img, text=vlm.prompt_text(processor2, sc.QUESTIONS["identification"]),
                   return_tensors="pt")
    assert torch.equal(a["input_ids"], b["input_ids"])
    assert torch.allclose(a["pixel_values"], b["pixel_values"])
    with torch.no_grad():
        assert torch.allclose(model(**a).logits, model2(**b).logits, atol=1e-6)


def _direct_logprob(model, processor, image, question, option):
    """One unpadded forward pass on prompt + option, summing the option tokens' log-probs."""
    enc = processor(images=image, text=vlm.prompt_text(processor, question) + " " + option,
                    return_tensors="pt")
    k = len(processor.tokenizer(option, add_special_tokens=False)["input_ids"])
    ids = enc["input_ids"][0]
    with torch.no_grad():
        logp = torch.log_softmax(model(**enc).logits[0], dim=-1)
    return sum(logp[len(ids) - k - 1 + j, ids[len(ids) - k + j]].item() for j in range(k))


def test_batched_option_scores_match_direct_log_probs(tiny):
    model, processor = tiny
    scenes = (sc.sample_scenes(2, [2, 5], "similarity", 2)
              + sc.sample_scenes(2, [3, 7], "identification", 3))
    images = [sc.render(s, SIZE) for s in scenes]
    questions = [s.question for s in scenes]
    options = [list(s.names) for s in scenes]
    options[0] = options[0] + ["heart star"]  # a two-token option exercises the padding
    batched = vlm.option_logprobs(model, processor, images, questions, options, batch_size=5)
    for img, q, opts, got in zip(images, questions, options, batched):
        want = [_direct_logprob(model, processor, img, q, o) for o in opts]
        np.testing.assert_allclose(got, want, atol=1e-4)
    probs = vlm.score_options(model, processor, scenes, batch_size=64)
    for p, lp in zip(probs[1:], batched[1:]):  # the first scene's options gained one
        np.testing.assert_allclose(p, np.exp(lp) / np.exp(lp).sum(), rtol=1e-6)
    first = np.exp(batched[0][:-1])  # its own options, scored in another batch
    np.testing.assert_allclose(probs[0], first / first.sum(), atol=1e-4)
    assert vlm.native_size(processor) == SIZE
    pc = vlm.score_scenes(model, processor, scenes)
    np.testing.assert_allclose(pc, [p[s.target] for p, s in zip(probs, scenes)])


def test_unavailable_model_is_one_clear_error(tmp_path):
    with pytest.raises(vlm.ModelUnavailableError, match="cannot be loaded"):
        vlm.load(str(tmp_path / "no-such-model"))
    with pytest.raises(vlm.ModelUnavailableError, match="Qwen/Qwen2.5-VL-3B-Instruct"):
        vlm.load("Qwen/Qwen2.5-VL-3B-Instruct")


def test_bad_arguments_raise(tiny):
    model, processor = tiny
    with pytest.raises(ValueError, match="patch_size"):
        vlm.build_processor(50, 12)
    with pytest.raises(ValueError, match="heads"):
        vlm.build_model(processor, hidden=30, heads=4)
    with pytest.raises(ValueError, match="same length"):
        vlm.option_logprobs(model, processor, [], ["q"], [["a"]])


class _XReader(torch.nn.Module):
    """A hand-built scorer that runs through the real option-scoring path: it finds the red X
    in the pixels it is given and scores each shape name by exp(-distance / scale) from the X to
    where that shape sits in a known layout."""

    def __init__(self, processor, layout, scale):
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(1))
        tok = processor.tokenizer
        self.vocab = len(tok)
        self.ids = [tok.convert_tokens_to_ids(n) for n in layout]
        self.pos = torch.tensor(list(layout.values()), dtype=torch.float32)
        ip = processor.image_processor
        self.mean = torch.tensor(ip.image_mean).view(1, 3, 1, 1)
        self.std = torch.tensor(ip.image_std).view(1, 3, 1, 1)
        self.scale = scale
        self.device = torch.device("cpu")

    def forward(self, input_ids, pixel_values, **_):
        from types import SimpleNamespace

        rgb = pixel_values * self.std + self.mean
        red = ((rgb[:, 0] > 0.47) & (rgb[:, 1] < 0.35)).float()
        size = red.shape[-1]
        grid = (torch.arange(size, dtype=torch.float32) + 0.5) / size
        mass = red.sum(dim=(1, 2))
        x = (red.sum(dim=1) * grid).sum(dim=1) / mass
        y = (red.sum(dim=2) * grid).sum(dim=1) / mass
        d = torch.cdist(torch.stack([x, y], 1), self.pos)
        logits = torch.full((*input_ids.shape, self.vocab), -1e4)
        logits[..., self.ids] = (-d / self.scale)[:, None, :]
        return SimpleNamespace(logits=logits)


def test_spatial_identification_is_scored_by_the_option_code():
    """Hand-made scenes on one layout, X on a shape (identification) or between shapes
    (similarity): a scorer that only reads where the X is gets, through the same option
    scoring, the Luce probability of its kernel on the scene's recorded geometry."""
    layout = {"square": (0.2, 0.2), "heart": (0.8, 0.3), "star": (0.5, 0.7)}
    names, pos = list(layout), list(layout.values())
    processor = vlm.build_processor(96, 12)
    reader = _XReader(processor, layout, scale=0.1)
    scenes = [sc.layout_scene("identification", names, pos, at=k) for k in range(3)]
    scenes += [sc.layout_scene("similarity", names, pos, probe=(0.45, 0.45)),
               sc.layout_scene("similarity", names, pos, probe=(0.62, 0.35))]
    assert [s.answer for s in scenes[:3]] == names
    got = vlm.score_scenes(reader, processor, scenes, batch_size=4)
    d = [s.distances for s in scenes]
    want = [luce.luce_exponential(x[None], [s.target], 0.1)[0] for x, s in zip(d, scenes)]
    # the X is read back to within a pixel (1/96 of the canvas), i.e. 0.1 in logit units
    np.testing.assert_allclose(got, want, atol=0.03)
    assert min(got[:3]) > 0.95 > max(got[3:])  # on a shape: sure; between shapes: less so
    # swapping the names in the layout the scorer knows makes identification wrong
    swapped = _XReader(processor, dict(zip(names[::-1], pos)), scale=0.1)
    assert vlm.score_scenes(swapped, processor, [scenes[0]])[0] < 0.1


def test_model_sources_name_what_is_wrong(tiny, tmp_path):
    """A missing folder is named as missing and a folder that is not a model by the file it
    lacks, never as a malformed hub id; hub ids pass through to the loaders."""
    model, processor = tiny
    good = tmp_path / "good"
    model.save_pretrained(good)
    processor.save_pretrained(good)
    assert models.check_source(good, "model") == str(good)
    assert models.check_source("Qwen/Qwen2.5-VL-3B-Instruct", "model") == \
        "Qwen/Qwen2.5-VL-3B-Instruct"
    no_config = tmp_path / "no_config"
    no_config.mkdir()
    (no_config / "model.safetensors").write_bytes(b"")
    no_weights = tmp_path / "no_weights"
    no_weights.mkdir()
    (no_weights / "config.json").write_text("{}")
    cases = {"/nonexistent/folder": "folder /nonexistent/folder does not exist",
             str(no_config): f"{no_config} is not a model folder: it has no config.json",
             str(no_weights): f"{no_weights} is not a model folder: it has no weights "
                              "(model.safetensors or pytorch_model.bin)",
             str(good / "config.json"): f"{good / 'config.json'} is a file, not a model folder"}
    for value, words in cases.items():
        with pytest.raises(ValueError, match=f"^encoder: {re.escape(words)}$"):
            models.check_source(value, "encoder")
    with pytest.raises(vlm.ModelUnavailableError, match="cannot be loaded: folder .* does not "
                                                        "exist$") as err:
        vlm.load(str(tmp_path / "missing"))
    assert isinstance(err.value, ValueError)
    # chapter 4's ResNet takes the same check on its first cell
    with pytest.raises(ValueError, match=f"^model: {re.escape(str(no_config))} is not a model "
                                         "folder: it has no config.json$"):
        vision.check_inputs(model=str(no_config))


@pytest.mark.parametrize("vision", vlm.VISION_TOWERS)
def test_both_towers_save_and_reload_through_auto_classes(vision, tmp_path):
    from transformers import AutoModelForImageTextToText, AutoProcessor

    processor = vlm.build_processor(SIZE, PATCH)
    model = vlm.build_model(processor, 32, 1, 2, seed=3, vision=vision)
    items = sc.sample_scenes(3, 3, "similarity", 0)
    want = vlm.score_scenes(model, processor, items)
    model.save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    again = AutoModelForImageTextToText.from_pretrained(tmp_path).eval()
    np.testing.assert_allclose(
        vlm.score_scenes(again, AutoProcessor.from_pretrained(tmp_path), items), want,
        rtol=1e-5)
    with pytest.raises(ValueError, match="vision"):
        vlm.build_model(processor, 32, 1, 2, vision="resnet")


def test_the_models_design_helpers():
    assert vlm.heads_for(64) == 4 and vlm.heads_for(30) == 2

    class Proc:  # the patch size where transformers keeps it, or in a dict
        patch_size = None
        image_processor = type("IP", (), {"patch_size": {"height": 14, "width": 14}})()
    assert vlm.patch_px(Proc()) == 14.0
    assert vlm.patch_px(object()) == 1.0
    s = sc.map_scenes(4)[:2]
    probs = [np.eye(4)[x.target] * 0.7 + 0.075 for x in s]
    assert vlm.p_correct(probs, s).tolist() == pytest.approx([0.775, 0.775])
