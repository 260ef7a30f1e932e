"""Training the tiny VLM: batches built without the processor, stage-1 targets, checkpoints
that resume exactly, a frozen tower, determinism, and a damaged saved model trained again."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
import torch

from semres.core import profiles
from semres.experiments.vlm_shapes import scenes as sc
from semres.experiments.vlm_shapes import settings, training, vlm

os.environ.setdefault("HF_HUB_OFFLINE", "1")
SIZE, PATCH = 48, 12
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.fixture(scope="module")
def tiny():
    processor = vlm.build_processor(SIZE, PATCH)
    return vlm.build_model(processor, hidden=32, layers=1, heads=2, seed=0), processor


def test_training_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    """An interrupted run resumed from its checkpoint ends with the uninterrupted run's weights."""
    processor = vlm.build_processor(SIZE, PATCH)
    kw = dict(steps=4, batch_size=8, lr=3e-3, seed=5, ns=[2, 3], progress=False)
    whole, losses = training.train(vlm.build_model(processor, 32, 1, 2, seed=1), processor, **kw)

    ckpt = tmp_path / "ckpt.pt"
    real = training._training_batch
    calls = []

    def dies_after_two(*args):
        calls.append(1)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(training, "_training_batch", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        training.train(vlm.build_model(processor, 32, 1, 2, seed=1), processor, checkpoint=ckpt,
                       checkpoint_every=2, **kw)
    monkeypatch.setattr(training, "_training_batch", real)
    resumed, losses2 = training.train(vlm.build_model(processor, 32, 1, 2, seed=1), processor,
                                      checkpoint=ckpt, checkpoint_every=2, **kw)
    np.testing.assert_allclose(losses2, losses, rtol=1e-5)
    for a, b in zip(whole.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_fast_training_batch_matches_the_processor(tiny):
    """Training builds batches without the processor; they must equal what it would give."""
    _, processor = tiny
    batch, labels = training._training_batch(processor, np.random.default_rng(4), 6, [2, 5], SIZE)
    again = training._training_batch(processor, np.random.default_rng(4), 6, [2, 5], SIZE)[0]
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


def dense_targets(scene, grid: int) -> np.ndarray:
    """The per-scene reference for stage 1's labels, shape (3, grid²): the shape whose centre is nearest to the
    patch centre if it lies in the patch (else ``len(sc.SHAPES)``, none), whether the red mark's
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


def answer_target(scene, grid: int) -> np.ndarray:
    """Stage 1's fourth label, shape (grid²,): the scene's answer (the shape nearest to the X
    itself, not to a patch centre) on the patch that holds the X, ignored (-100) elsewhere."""
    out = np.full(grid * grid, -100)
    r = np.floor(scene.probe * grid).astype(int).clip(0, grid - 1)
    out[r[1] * grid + r[0]] = sc.SHAPES.index(scene.answer)
    return out


def test_dense_targets_follow_the_geometry():
    grid = 8
    for s in sc.sample_scenes(20, [2, 6, 12], "similarity", 9):
        cover, red, nearest = dense_targets(s, grid)
        centres = (np.stack(np.meshgrid(np.arange(grid), np.arange(grid)), -1).reshape(-1, 2)
                   + 0.5) / grid
        for k, c in enumerate(centres):  # brute force: nearest shape to each patch centre
            assert sc.SHAPES[nearest[k]] == s.names[int(np.argmin(
                np.linalg.norm(s.positions - c, axis=1)))]
        assert red.sum() == 1 and np.all((s.probe * grid).astype(int)[::-1]
                                         == np.unravel_index(np.argmax(red), (grid, grid)))
        labelled = {sc.SHAPES[c] for c in cover if c < len(sc.SHAPES)}
        assert labelled <= set(s.names) and len(labelled) >= s.n - 2


def test_damaged_saved_model_is_trained_again(tmp_path, capsys):
    """A truncated model.safetensors under the models folder is found, removed and retrained
    (one line says so), instead of failing every later run."""
    kw = dict(hidden=32, layers=1, vision_steps=3, steps=3, batch_size=4, progress=False)
    folder = training.trained_model(tmp_path, **kw)
    weights = folder / "model.safetensors"
    good = weights.read_bytes()
    weights.write_bytes(good[: len(good) // 2])
    with pytest.raises(Exception):   # what the chapter met on every rerun
        vlm.load(str(folder))
    capsys.readouterr()
    assert training.trained_model(tmp_path, **kw) == folder
    said = [line for line in capsys.readouterr().err.splitlines() if "[semres]" in line]
    assert len(said) == 1 and f"the saved model {folder} does not load" in said[0]
    assert weights.read_bytes() == good   # the same seed retrains the same weights
    model, _ = vlm.load(str(folder))
    assert sum(p.numel() for p in model.parameters()) > 0
    # a sound folder is returned as it is, without training
    stamp = weights.stat().st_mtime_ns
    assert training.trained_model(tmp_path, **kw) == folder and weights.stat().st_mtime_ns == stamp
    assert "[semres]" not in capsys.readouterr().err


def test_answer_target_is_the_answer_on_the_x_patch_only():
    grid = 8
    for s in (sc.sample_scenes(15, [2, 5, 12], "similarity", 1)
              + sc.sample_scenes(15, [2, 5, 12], "identification", 2)):
        t = answer_target(s, grid)
        x, y = (s.probe * grid).astype(int)
        assert np.sum(t != -100) == 1
        assert sc.SHAPES[t[y * grid + x]] == s.names[np.argmin(
            np.linalg.norm(s.positions - s.probe, axis=1))]


def test_vision_stage_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    """Stage 1 killed after two steps and resumed ends with the uninterrupted tower."""
    processor = vlm.build_processor(SIZE, PATCH)
    kw = dict(steps=4, batch_size=4, lr=3e-3, seed=2, ns=[2, 3], progress=False)
    whole = vlm.build_model(processor, 32, 1, 2, seed=1)
    losses = training.pretrain_vision(whole, processor, **kw)
    real, calls = training._scene_batch, []

    def dies_after_two(*args):
        calls.append(1)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return real(*args)

    ckpt = tmp_path / "vision.pt"
    monkeypatch.setattr(training, "_scene_batch", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        training.pretrain_vision(vlm.build_model(processor, 32, 1, 2, seed=1), processor,
                                 checkpoint=ckpt, checkpoint_every=2, **kw)
    monkeypatch.setattr(training, "_scene_batch", real)
    resumed = vlm.build_model(processor, 32, 1, 2, seed=1)
    losses2 = training.pretrain_vision(resumed, processor, checkpoint=ckpt, checkpoint_every=2,
                                       **kw)
    np.testing.assert_allclose(losses2, losses, rtol=1e-5)
    for a, b in zip(whole.model.vision_tower.state_dict().values(),
                    resumed.model.vision_tower.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_frozen_tower_stays_put():
    processor = vlm.build_processor(SIZE, PATCH)
    model = vlm.build_model(processor, 32, 1, 2, seed=1)
    before = [p.clone() for p in model.model.vision_tower.parameters()]
    lm = [p.clone() for p in model.model.language_model.parameters()]
    training.train(model, processor, steps=4, batch_size=4, seed=0, ns=[2], progress=False,
                   vision_lr=0)
    assert all(torch.equal(a, b) for a, b in zip(before, model.model.vision_tower.parameters()))
    assert not all(torch.equal(a, b) for a, b in zip(lm, model.model.language_model.parameters()))
    assert all(p.requires_grad for p in model.parameters())


def test_same_seed_same_model_and_scores(tmp_path):
    """The quick profile's model trained twice from one seed: identical weights, losses and
    option scores, so the chapter's scenes.csv, fit.csv and n_sweep.csv repeat exactly; another
    seed gives another model."""
    cfg = profiles.settings(settings.SETTINGS, "quick")
    kw = dict(hidden=cfg.hidden, layers=cfg.layers, vision=cfg.vision,
              vision_steps=cfg.vision_steps, steps=cfg.steps,
              batch_size=cfg.train_batch, vision_lr=cfg.vision_lr, progress=False)
    items = sc.sample_scenes(6, [2, 4], "similarity", 5) + sc.sample_scenes(
        6, [2, 4], "identification", 6)
    runs = []
    for root, seed in (("a", 0), ("b", 0), ("c", 1)):
        folder = training.trained_model(tmp_path / root, seed=seed, **kw)
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
def test_training_runs_on_cuda(tmp_path):
    """Scenes are drawn by PIL on the CPU on every device (the same pixels everywhere); the
    batch moves to the GPU, where the model trains and scores."""
    processor = vlm.build_processor(96, PATCH)
    items = training._scene_batch(np.random.default_rng(1), 6, np.array([2, 5]))
    assert training._pixels(processor, items, 96, "cuda").device.type == "cuda"
    folder = training.trained_model(tmp_path, hidden=32, layers=1, vision_steps=3, steps=3,
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
                                                pct_start=training._warmup(steps))
    for _ in range(steps):
        opt.step()
        sched.step()
    if steps >= 20:  # long stages warm up over exactly a tenth of the steps
        assert training._warmup(steps) == pytest.approx(0.1)


def test_the_training_summary_reads_the_first_and_last_tenth(tmp_path):
    assert all(np.isnan(v) for v in training.training_summary(None).values())
    (tmp_path / "training.json").write_text(json.dumps(
        {"losses": list(range(20)), "vision_losses": [5.0] * 3}))
    s = training.training_summary(tmp_path)
    assert s["loss_first"] == 0.5 and s["loss_last"] == 18.5 and s["vloss_last"] == 5.0


@pytest.mark.chapters
def test_chapter_6_runs_on_a_model_folder(tmp_path):
    """The reader's path: ``semres run 6 -p model=FOLDER`` scores a saved image-text-to-text
    model instead of training one (a folder name once crashed the page's model label)."""
    from semres.pipeline import runner

    folder = training.trained_model(tmp_path / "models", hidden=32, layers=1, vision_steps=3,
                                    steps=3, batch_size=4, progress=False)
    build = tmp_path / "build"
    runner.run_chapter(runner.resolve("6"), "quick", {"model": str(folder)}, build=build)
    nb = json.loads((build / "executed" / "06_vlm_shapes.ipynb").read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    fit = pd.read_csv(build / "results" / "06_vlm_shapes" / "fit.csv")
    assert str(folder) in set(fit.model)


def test_batch_targets_are_the_per_scene_targets():
    """Stage 1's labels for a whole batch at once equal the per-scene functions' labels."""
    for grid in (8, 5):
        items = training._scene_batch(np.random.default_rng(3), 64, np.arange(2, 13))
        want = np.stack([np.vstack([dense_targets(s, grid),
                                    answer_target(s, grid)]) for s in items])
        got = training._vision_targets(items, grid)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    # two shapes in one patch: the one nearer its patch centre is the patch's label
    s = sc.layout_scene("similarity", ("square", "star"), [(0.13, 0.13), (0.24, 0.24)],
                        probe=(0.8, 0.8))
    assert np.array_equal(training._vision_targets([s], 4)[0, :3], dense_targets(s, 4))


def test_pixels_are_the_processor_formula_bit_for_bit():
    """The lookup normalisation equals (v / 255 - mean) / std in float32, element for element,
    and the text batch's prompts are built once per processor and reused."""
    processor = vlm.build_processor(96, PATCH)
    items = training._scene_batch(np.random.default_rng(5), 12, np.arange(2, 13))
    ip = processor.image_processor
    arr = np.stack([np.asarray(sc.render(s, 96), dtype=np.float32) for s in items]) / 255.0
    want = ((arr - np.asarray(ip.image_mean, np.float32)) / np.asarray(ip.image_std, np.float32))
    got = training._pixels(processor, items, 96)
    assert got.dtype == torch.float32
    assert torch.equal(got, torch.from_numpy(want.transpose(0, 3, 1, 2).copy()))
    with pytest.raises(ValueError, match="canvases"):
        vlm.normalise(processor, np.zeros((1, 96, 96, 3), np.uint8))
    a = training._text_batch(processor, items, 96)
    assert training._token_ids(processor, 96, "similarity") is training._token_ids(
        processor, 96, "similarity")
    b = training._text_batch(processor, items, 96)
    assert all(torch.equal(a[0][k], b[0][k]) for k in a[0]) and torch.equal(a[1], b[1])
