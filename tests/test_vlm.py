"""The tiny LLaVA: offline processor/model round trip, option scoring, resumable training."""

import os

import numpy as np
import pytest
import torch

from semres.experiments.vlm_shapes import scenes as sc
from semres.experiments.vlm_shapes import vlm

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
    probs = vlm.option_probs(model, processor, images, questions, options, batch_size=64)
    for p, lp in zip(probs, batched):
        np.testing.assert_allclose(p, np.exp(lp) / np.exp(lp).sum(), rtol=1e-6)
    assert vlm.native_size(processor) == SIZE
    pc = vlm.score_scenes(model, processor, scenes)
    np.testing.assert_allclose(pc[1:], [p[s.target] for p, s in zip(probs[1:], scenes[1:])])


def test_unavailable_model_is_one_clear_error(tmp_path):
    with pytest.raises(vlm.ModelUnavailableError, match="cannot be loaded"):
        vlm.load(str(tmp_path / "no-such-model"))
    with pytest.raises(vlm.ModelUnavailableError, match="Qwen/Qwen2.5-VL-3B-Instruct"):
        vlm.load("Qwen/Qwen2.5-VL-3B-Instruct")


def test_training_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    """An interrupted run resumed from its checkpoint ends with the uninterrupted run's weights."""
    processor = vlm.build_processor(SIZE, PATCH)
    kw = dict(steps=4, batch_size=8, lr=3e-3, seed=5, ns=[2, 3], progress=False)
    whole, losses = vlm.train(vlm.build_model(processor, 32, 1, 2, seed=1), processor, **kw)

    ckpt = tmp_path / "ckpt.pt"
    real = vlm._training_batch
    calls = []

    def dies_after_two(*args):
        calls.append(1)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(vlm, "_training_batch", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        vlm.train(vlm.build_model(processor, 32, 1, 2, seed=1), processor, checkpoint=ckpt,
                  checkpoint_every=2, **kw)
    monkeypatch.setattr(vlm, "_training_batch", real)
    resumed, losses2 = vlm.train(vlm.build_model(processor, 32, 1, 2, seed=1), processor,
                                 checkpoint=ckpt, checkpoint_every=2, **kw)
    np.testing.assert_allclose(losses2, losses, rtol=1e-5)
    for a, b in zip(whole.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_bad_arguments_raise(tiny):
    model, processor = tiny
    with pytest.raises(ValueError, match="patch_size"):
        vlm.build_processor(50, 12)
    with pytest.raises(ValueError, match="heads"):
        vlm.build_model(processor, hidden=30, heads=4)
    with pytest.raises(ValueError, match="same length"):
        vlm.option_logprobs(model, processor, [], ["q"], [["a"]])


def test_kernel_fits_recover_the_scale_that_made_the_data():
    """Luce probabilities generated from a known kernel on real scene geometry are fitted back."""
    scenes = sc.sample_scenes(300, 4, "similarity", seed=11)
    d = np.array([s.distances for s in scenes])
    t = np.array([s.target for s in scenes])
    p = vlm.luce_exponential(d, t, 0.04, 0.02)
    # the exponential kernel is shift invariant without a floor: two shapes give a logistic
    two = np.array([[0.2, 0.27], [0.5, 0.51]])
    np.testing.assert_allclose(vlm.luce_exponential(two, [0, 0], 0.05),
                               1 / (1 + np.exp(-np.array([0.07, 0.01]) / 0.05)))
    fit = vlm.fit_exponential(d, t, p + np.random.default_rng(0).normal(0, 0.01, len(p)))
    assert fit["scale"] == pytest.approx(0.04, rel=0.1)
    assert fit["floor"] == pytest.approx(0.02, abs=0.01)
    assert not fit["at_bound"]
    q = vlm.luce_margin(d, t, 0.06)
    m = vlm.fit_margin(d, t, q)
    assert m["eps"] == pytest.approx(0.06, abs=0.002) and not m["at_bound"]
    margins = np.array([s.margin for s in scenes])
    assert np.all(q[margins > 0.06 + 1e-9] == 1) and np.all(q[margins <= 0.06] <= 0.5)


def test_exponential_floor_can_reach_zero():
    """Data made without a floor fit a floor of exactly 0 (not a pinned lower bound), and that
    is not reported as a censored fit; data with a tiny floor keep it."""
    scenes = sc.sample_scenes(300, [3, 4], "similarity", seed=12)
    d = [s.distances for s in scenes]
    t = [s.target for s in scenes]
    fit = vlm.fit_exponential(d, t, vlm.luce_exponential(d, t, 0.03))
    assert fit["floor"] == 0 and fit["scale"] == pytest.approx(0.03, rel=1e-3)
    assert not fit["at_bound"]
    tiny = vlm.fit_exponential(d, t, vlm.luce_exponential(d, t, 0.03, 1e-7))
    assert tiny["floor"] == pytest.approx(1e-7, rel=0.05)


def test_mixed_n_scenes_need_no_padding_tricks():
    """Scenes with 2 to 12 shapes in one call: ragged rows, or rows padded with inf or nan,
    give what each scene gives alone, floor or not (padding must not collect the floor)."""
    scenes = sc.sample_scenes(40, range(2, 13), "similarity", seed=13)
    rows = [s.distances for s in scenes]
    t = [s.target for s in scenes]
    alone = [vlm.luce_exponential(r[None], [k], 0.05, 0.01)[0] for r, k in zip(rows, t)]
    padded = np.full((len(rows), 12), np.inf)
    for i, r in enumerate(rows):
        padded[i, :len(r)] = r
    for arg in (rows, padded, np.where(np.isinf(padded), np.nan, padded)):
        np.testing.assert_allclose(vlm.luce_exponential(arg, t, 0.05, 0.01), alone)
        np.testing.assert_allclose(vlm.luce_margin(arg, t, 0.05),
                                   [vlm.luce_margin(r[None], [k], 0.05)[0]
                                    for r, k in zip(rows, t)])
    # the closed form for one scene: (e^{-d_t/s} + f) / sum_j (e^{-d_j/s} + f)
    r, k = rows[0], t[0]
    g = np.exp(-r / 0.05) + 0.01
    assert alone[0] == pytest.approx(g[k] / g.sum())
    # large distances over a small scale: no overflow, the floor alone sets the ratios
    far = np.array([[5.0, 6.0, np.inf]])
    assert vlm.luce_exponential(far, [0], 0.01, 1e-3)[0] == pytest.approx(0.5)


def test_fits_report_their_bounds():
    """A curve with no distance dependence pins the scale to the top of its range and the
    margin to the top of its grid (censored); the generated curves above do not."""
    scenes = sc.sample_scenes(200, 4, "similarity", seed=14)
    d = np.array([s.distances for s in scenes])
    t = np.array([s.target for s in scenes])
    flat = np.full(len(d), 0.25)
    fit = vlm.fit_exponential(d, t, flat)
    assert fit["at_bound"] and "scale=upper" in fit["bound_params"]
    m = vlm.fit_margin(d, t, flat)
    assert m["at_bound"] and m["bound_params"] == "eps=upper"
    sure = vlm.fit_margin(d, t, np.ones(len(d)))
    assert sure["at_bound"] and sure["bound_params"] == "eps=lower"
    assert sure["eps"] == 0


def test_fast_training_batch_matches_the_processor(tiny):
    """Training builds batches without the processor; they must equal what it would give."""
    _, processor = tiny
    batch, labels = vlm._training_batch(processor, np.random.default_rng(4), 6, [2, 5], SIZE)
    again = vlm._training_batch(processor, np.random.default_rng(4), 6, [2, 5], SIZE)[0]
    rng = np.random.default_rng(4)
    tasks = rng.choice(sc.TASKS, 6)
    items = [sc.sample_scene(rng, int(rng.choice([2, 5])), t) for t in tasks]
    for j, s in enumerate(items):
        enc = processor(images=sc.render(s, SIZE),
                        text=vlm.prompt_text(processor, s.question) + " " + s.answer,
                        return_tensors="pt")
        k = int(batch["attention_mask"][j].sum())
        assert torch.equal(batch["input_ids"][j, :k], enc["input_ids"][0])
        assert torch.allclose(batch["pixel_values"][j], enc["pixel_values"][0], atol=1e-6)
        answer = processor.tokenizer.convert_tokens_to_ids(s.answer)
        assert labels[j].tolist() == [-100] * (k - 1) + [answer] + [-100] * (labels.shape[1] - k)
    assert torch.equal(batch["input_ids"], again["input_ids"])


def test_dense_targets_follow_the_geometry():
    grid = 8
    for s in sc.sample_scenes(20, [2, 6, 12], "similarity", 9):
        cover, red, nearest = vlm._dense_targets(s, grid)
        centres = (np.stack(np.meshgrid(np.arange(grid), np.arange(grid)), -1).reshape(-1, 2)
                   + 0.5) / grid
        for k, c in enumerate(centres):  # brute force: nearest shape to each patch centre
            assert sc.SHAPES[nearest[k]] == s.names[int(np.argmin(
                np.linalg.norm(s.positions - c, axis=1)))]
        assert red.sum() == 1 and np.all((s.probe * grid).astype(int)[::-1]
                                         == np.unravel_index(np.argmax(red), (grid, grid)))
        labelled = {sc.SHAPES[c] for c in cover if c < len(sc.SHAPES)}
        assert labelled <= set(s.names) and len(labelled) >= s.n - 2


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
    want = [vlm.luce_exponential(x[None], [s.target], 0.1)[0] for x, s in zip(d, scenes)]
    # the X is read back to within a pixel (1/96 of the canvas), i.e. 0.1 in logit units
    np.testing.assert_allclose(got, want, atol=0.03)
    assert min(got[:3]) > 0.95 > max(got[3:])  # on a shape: sure; between shapes: less so
    # swapping the names in the layout the scorer knows makes identification wrong
    swapped = _XReader(processor, dict(zip(names[::-1], pos)), scale=0.1)
    assert vlm.score_scenes(swapped, processor, [scenes[0]])[0] < 0.1


def test_model_sources_name_what_is_wrong(tiny, tmp_path):
    """A missing folder is named as missing and a folder that is not a model by the file it
    lacks, never as a malformed hub id; hub ids pass through to the loaders."""
    import re

    from semres.core import models

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
    from semres.experiments.phylogeny import vision

    with pytest.raises(ValueError, match=f"^model: {re.escape(str(no_config))} is not a model "
                                         "folder: it has no config.json$"):
        vision.check_inputs(model=str(no_config))


def test_damaged_saved_model_is_trained_again(tmp_path, capsys):
    """A truncated model.safetensors under the models folder is found, removed and retrained
    (one line says so), instead of failing every later run."""
    kw = dict(hidden=32, layers=1, vision_steps=3, steps=3, batch_size=4, progress=False)
    folder = vlm.trained_model(tmp_path, **kw)
    weights = folder / "model.safetensors"
    good = weights.read_bytes()
    weights.write_bytes(good[: len(good) // 2])
    with pytest.raises(Exception):   # what the chapter met on every rerun
        vlm.load(str(folder))
    capsys.readouterr()
    assert vlm.trained_model(tmp_path, **kw) == folder
    said = [line for line in capsys.readouterr().err.splitlines() if "[semres]" in line]
    assert len(said) == 1 and f"the saved model {folder} does not load" in said[0]
    assert weights.read_bytes() == good   # the same seed retrains the same weights
    model, _ = vlm.load(str(folder))
    assert sum(p.numel() for p in model.parameters()) > 0
    # a sound folder is returned as it is, without training
    stamp = weights.stat().st_mtime_ns
    assert vlm.trained_model(tmp_path, **kw) == folder and weights.stat().st_mtime_ns == stamp
    assert "[semres]" not in capsys.readouterr().err


# ---------------------------------------------------------------- verdicts on a spatial scale

def _scale_fit(lo_px, hi_px, misfit=False, canvas=900.0):
    return {"profile_ci": (lo_px / canvas, hi_px / canvas), "profile_bounded": True,
            "misfit": misfit, "gof_p": 1e-9 if misfit else 0.4}


def test_a_precise_scale_larger_than_a_grid_cell_is_identified():
    cell = 150 / 900
    # Gemma-3-12B's released answers: a likelihood set of 151-200 px on 150 px cells. The set
    # is narrower than a cell, and that is a precise measurement of a scale larger than a cell
    ok, why = vlm.scale_identification(_scale_fit(151, 200), cell, 1.0, px=900)
    assert ok and not why
    # what a grid limits is the scale itself: a set reaching below one cell is not identified
    ok, why = vlm.scale_identification(_scale_fit(120, 200), cell, 1.0, px=900)
    assert not ok and "not bounded inside the design" in why[0]
    ok, why = vlm.scale_identification(_scale_fit(151, 200, misfit=True), cell, 1.0, px=900)
    assert not ok and vlm.MISFIT in why[0]
    assert not vlm.scale_identification(_scale_fit(151, 200), cell, 1.0, agree=False)[0]
    with pytest.raises(ValueError, match="resolution"):
        vlm.scale_identification(_scale_fit(151, 200), 0.5, 0.4)


def _sweep_curves(ns, grid):
    from semres.core import theory

    b = np.minimum(2 * grid, 1.0)
    return {task: {n: theory.n_item(b, n)[k] for n in ns}
            for k, task in enumerate(("similarity", "identification"))}


def test_the_ball_fit_flags_an_n_sweep_that_theorem_3_cannot_describe():
    ns, grid = [2, 4, 6, 8, 10, 12], np.linspace(0, 1.5, 301)
    curves = _sweep_curves(ns, grid)
    # a model's p_S falling from 0.93 to 0.83: no ball radius gives p_S above 3/4 at n = 2
    p = np.linspace(0.93, 0.83, len(ns))
    f = vlm.ball_fit(ns, p, np.full(len(ns), 0.01), curves["similarity"], grid)
    assert f["misfit"] and not f["identified"] and f["gof_p"] < 1e-3
    assert vlm.MISFIT in vlm.radius_text("similarity", f, 900)
    # rates on Theorem 3's curve at eps = 0.1 fit and identify the radius
    true = np.array([np.interp(0.1, grid, curves["identification"][n]) for n in ns])
    g = vlm.ball_fit(ns, true, np.full(len(ns), 0.01), curves["identification"], grid)
    assert not g["misfit"] and g["identified"] and g["ci_low"] < 0.1 < g["ci_high"]
    with pytest.raises(ValueError, match="curves"):
        vlm.ball_fit([2, 3], p[:2], np.full(2, 0.01), curves["similarity"], grid)


def test_two_radii_are_compared_by_a_likelihood_ratio_not_by_overlap():
    from semres import report

    ns, grid = [2, 4, 6, 8, 10, 12], np.linspace(0, 1.5, 301)
    curves = _sweep_curves(ns, grid)["identification"]
    rng = np.random.default_rng(0)

    def fit(eps, se):
        p = np.array([np.interp(eps, grid, curves[n]) for n in ns])
        return vlm.ball_fit(ns, p + rng.normal(0, se, len(ns)), np.full(len(ns), se), curves,
                            grid)

    # radii 0.10 and 0.12 measured to 0.003: different, and the test says so
    apart = vlm.one_radius("m", fit(0.10, 0.003), fit(0.12, 0.003))
    assert apart["identified"] and apart["ci"][1] < 0 and apart["p_equal"] < 0.05
    assert "different radii" in apart["text"]
    # the same radii measured ten times less precisely: the intervals overlap, which proves
    # nothing; the difference's interval covers 0, and the status is inconclusive, not a pass
    a, b = fit(0.10, 0.03), fit(0.12, 0.03)
    assert a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"]  # they overlap
    vague = vlm.one_radius("m", a, b)
    lo, hi = vague["ci"]
    assert vague["identified"] and lo < 0 < hi and "not rejected" in vague["text"]
    assert report.status(ci=vague["ci"], compared_with=0.0, tolerance=0.0, new=True) == \
        "inconclusive"
    same = vlm.one_radius("m", fit(0.10, 0.003), fit(0.10, 0.003))
    assert same["ci"][0] < 0 < same["ci"][1] and same["p_equal"] > 0.05
    bad = vlm.ball_fit(ns, np.linspace(0.93, 0.83, len(ns)), np.full(len(ns), 0.01),
                       _sweep_curves(ns, grid)["similarity"], grid)
    assert vlm.one_radius("m", bad, fit(0.1, 0.003))["misfit"]
    assert vlm.one_radius("m", None, fit(0.1, 0.003))["text"] is None
