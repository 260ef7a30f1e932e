"""Training the embedded VLM: batched rendering, stage-1 targets and checkpoints, determinism."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from semres.core import profiles
from semres.experiments.vlm_shapes import scenes as sc, vlm

SIZE, PATCH = 48, 12
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def _reference(scene_list, size):
    return torch.from_numpy(np.stack([np.asarray(sc.render(s, size)) for s in scene_list])
                            ).permute(0, 3, 1, 2).float()


def test_batched_renderer_draws_what_render_draws():
    """One scatter of PIL-drawn sprites gives render()'s canvases, up to a few edge pixels
    (sprite centres snap to 1/8 of a supersampled pixel); both tasks, every shape."""
    lst = (sc.sample_scenes(24, range(2, 13), "similarity", 3)
           + sc.sample_scenes(24, range(2, 13), "identification", 4))
    assert {n for s in lst for n in s.names} == set(sc.SHAPES)
    got = sc.render_batch(lst, 96)
    diff = (got - _reference(lst, 96)).abs()
    assert got.shape == (len(lst), 3, 96, 96)
    assert diff.mean() < 0.3 and (diff > 32).float().mean() < 0.002, (diff.mean(), diff.max())
    # a wrong picture is caught: the X moved by two pixels
    moved = [sc.layout_scene(s.task, s.names, s.positions, probe=s.probe + 2 / 96)
             if s.task == "similarity" else s for s in lst]
    off = (sc.render_batch(moved, 96) - _reference(lst, 96)).abs().sum((1, 2, 3))
    sim = [i for i, s in enumerate(lst) if s.task == "similarity"]
    assert (off[sim] > 2 * diff.sum((1, 2, 3))[sim]).float().mean() > 0.9


def test_batched_renderer_rejects_bad_input():
    s = sc.sample_scenes(2, 3, "similarity", 0)
    with pytest.raises(ValueError, match="scene_list"):
        sc.render_batch([], 96)
    with pytest.raises(ValueError, match="size"):
        sc.render_batch(s, 8)
    other = sc.sample_scene(np.random.default_rng(0), 3, "similarity", shape_size=0.15)
    with pytest.raises(ValueError, match="shape_size"):
        sc.render_batch([s[0], other], 96)


def test_pixels_on_either_path_agree():
    processor = vlm.build_processor(96, PATCH)
    items = vlm._scene_batch(np.random.default_rng(2), 8, np.array([2, 6]))
    pil = vlm._pixels(processor, items, 96, "cpu")
    batched = vlm._pixels(processor, items, 96, "cpu", batched=True)
    assert batched.shape == pil.shape and batched.device == pil.device
    # one grey level is 1 / (255 * 0.27) in normalised units
    assert (batched - pil).abs().mean() < 0.3 / (255 * 0.26)


def test_answer_target_is_the_answer_on_the_x_patch_only():
    grid = 8
    for s in (sc.sample_scenes(15, [2, 5, 12], "similarity", 1)
              + sc.sample_scenes(15, [2, 5, 12], "identification", 2)):
        t = vlm._answer_target(s, grid)
        x, y = (s.probe * grid).astype(int)
        assert np.sum(t != -100) == 1
        assert sc.SHAPES[t[y * grid + x]] == s.names[np.argmin(
            np.linalg.norm(s.positions - s.probe, axis=1))]


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


def test_vision_stage_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    """Stage 1 killed after two steps and resumed ends with the uninterrupted tower."""
    processor = vlm.build_processor(SIZE, PATCH)
    kw = dict(steps=4, batch_size=4, lr=3e-3, seed=2, ns=[2, 3], progress=False)
    whole = vlm.build_model(processor, 32, 1, 2, seed=1)
    losses = vlm.pretrain_vision(whole, processor, **kw)
    real, calls = vlm._scene_batch, []

    def dies_after_two(*args):
        calls.append(1)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return real(*args)

    ckpt = tmp_path / "vision.pt"
    monkeypatch.setattr(vlm, "_scene_batch", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        vlm.pretrain_vision(vlm.build_model(processor, 32, 1, 2, seed=1), processor,
                            checkpoint=ckpt, checkpoint_every=2, **kw)
    monkeypatch.setattr(vlm, "_scene_batch", real)
    resumed = vlm.build_model(processor, 32, 1, 2, seed=1)
    losses2 = vlm.pretrain_vision(resumed, processor, checkpoint=ckpt, checkpoint_every=2, **kw)
    np.testing.assert_allclose(losses2, losses, rtol=1e-5)
    for a, b in zip(whole.model.vision_tower.state_dict().values(),
                    resumed.model.vision_tower.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_frozen_tower_stays_put():
    processor = vlm.build_processor(SIZE, PATCH)
    model = vlm.build_model(processor, 32, 1, 2, seed=1)
    before = [p.clone() for p in model.model.vision_tower.parameters()]
    lm = [p.clone() for p in model.model.language_model.parameters()]
    vlm.train(model, processor, steps=4, batch_size=4, seed=0, ns=[2], progress=False,
              vision_lr=0)
    assert all(torch.equal(a, b) for a, b in zip(before, model.model.vision_tower.parameters()))
    assert not all(torch.equal(a, b) for a, b in zip(lm, model.model.language_model.parameters()))
    assert all(p.requires_grad for p in model.parameters())


def test_same_seed_same_model_and_scores(tmp_path):
    """The quick profile's model trained twice from one seed: identical weights, losses and
    option scores, so the chapter's scenes.csv, fit.csv and n_sweep.csv repeat exactly; another
    seed gives another model."""
    cfg = profiles.settings(vlm.SETTINGS, "quick")
    kw = dict(hidden=cfg["hidden"], layers=cfg["layers"], vision=cfg["vision"],
              vision_steps=cfg["vision_steps"], steps=cfg["steps"],
              batch_size=cfg["train_batch"], vision_lr=cfg["vision_lr"], progress=False)
    items = sc.sample_scenes(6, [2, 4], "similarity", 5) + sc.sample_scenes(
        6, [2, 4], "identification", 6)
    runs = []
    for root, seed in (("a", 0), ("b", 0), ("c", 1)):
        folder = vlm.trained_model(tmp_path / root, seed=seed, **kw)
        model, processor = vlm.load(str(folder))
        runs.append((json.loads((folder / "training.json").read_text()),
                     model.state_dict(), vlm.score_scenes(model, processor, items)))
    (rec_a, w_a, p_a), (rec_b, w_b, p_b), (_, _, p_c) = runs
    assert rec_a["losses"] == rec_b["losses"]
    assert rec_a["vision_losses"] == rec_b["vision_losses"]
    assert all(torch.equal(w_a[k], w_b[k]) for k in w_a)
    assert np.array_equal(p_a, p_b)
    assert not np.allclose(p_a, p_c)


@CUDA
def test_training_runs_on_cuda_with_pixels_drawn_there(tmp_path):
    processor = vlm.build_processor(96, PATCH)
    items = vlm._scene_batch(np.random.default_rng(1), 6, np.array([2, 5]))
    on_gpu = vlm._pixels(processor, items, 96, "cuda")
    assert on_gpu.device.type == "cuda"
    torch.testing.assert_close(on_gpu.cpu(), vlm._pixels(processor, items, 96, "cpu",
                                                         batched=True), atol=1e-4, rtol=0)
    folder = vlm.trained_model(tmp_path, hidden=32, layers=1, vision_steps=3, steps=3,
                               batch_size=4, device="cuda", progress=False)
    model, processor = vlm.load(str(folder), device="cuda")
    p = vlm.score_scenes(model, processor, items)
    assert np.all((p > 0) & (p < 1))


@pytest.mark.parametrize("steps", [1, 2, 3, 4, 5, 19, 20, 800])
def test_the_one_cycle_schedule_takes_any_number_of_steps(steps):
    """OneCycle divides by the length of each phase; a two-step stage used to divide by 0."""
    param = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.AdamW([param], lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=steps,
                                                pct_start=vlm._warmup(steps))
    for _ in range(steps):
        opt.step()
        sched.step()
    if steps >= 20:  # long stages warm up over exactly a tenth of the steps
        assert vlm._warmup(steps) == pytest.approx(0.1)


@pytest.mark.chapters
def test_chapter_6_runs_on_a_model_folder(tmp_path):
    """The reader's path: ``semres run 6 -p model=FOLDER`` scores a saved image-text-to-text
    model instead of training one (a folder name once crashed the page's model label)."""
    from semres.build import runner

    folder = vlm.trained_model(tmp_path / "models", hidden=32, layers=1, vision_steps=3,
                               steps=3, batch_size=4, progress=False)
    build = tmp_path / "build"
    runner.run_chapter(runner.resolve("6"), "quick", {"model": str(folder)}, build=build)
    nb = json.loads((build / "executed" / "06_vlm_shapes.ipynb").read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    fit = pd.read_csv(build / "results" / "06_vlm_shapes" / "fit.csv")
    assert str(folder) in set(fit.model)
