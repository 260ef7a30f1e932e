"""Chapter 6's embedded VLM: speed of each training piece, and (``--train``) what a profile's
recipe buys per training minute, against the recipe it replaced. Prints numbers; asserts nothing.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_vlm.py [--threads 1] [--train]
        [--profile default] [--device cpu] [--root DIR] [--probe STEPS]

Accuracy is the mean probability of the right answer (the chapter's P(correct)) scored by the
same code as a hub VLM: four-shape similarity overall, in margin terciles and where the margin
exceeds one shape width; n = 2 similarity (p_S) and identification (p_I). On a shared machine
the timings are inflated by other jobs: the load average is printed with them. With
``--device cuda`` the steps run (and training scenes are drawn) on the GPU, as in the chapter.
Each stage's FLOPs (forward and backward) are counted too: a yardstick that does not depend on
the device.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from semres.core import profiles
from semres.experiments.vlm_shapes import scenes, settings, training, vlm

# The recipe this one replaced (CLIP tower, random position embeddings, no answer target):
# default profile, 2 CPU cores, as measured when issue 12 was filed.
PREVIOUS = {"recipe": "previous (issue 12)", "train_min": 9.4, "sim4": 0.40, "sim4_wide": None,
            "p_S2": 0.555, "p_I2": None}


def _sync(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def timed(fn, repeat: int, device="cpu") -> float:
    fn()  # warm-up
    _sync(device)
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    _sync(device)
    return (time.perf_counter() - start) / repeat


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def cpu_timed(fn, repeat: int) -> tuple:
    """(wall, CPU) seconds per call; CPU seconds are what a shared machine cannot inflate."""
    fn()  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - wall) / repeat, (time.process_time() - cpu) / repeat


def speed(cfg: dict, device: str) -> None:
    batch = scenes.sample_scenes(128, range(2, 13), "similarity", 0)
    t_pil = timed(lambda: [scenes.render(s, 96) for s in batch], 2) / len(batch)
    t_arr = timed(lambda: scenes.render_arrays(batch, 96), 2) / len(batch)
    t_bat = timed(lambda: scenes.render_batch(batch, 96, device=device), 2, device) / len(batch)
    print(f"render a 96 px scene: PIL {t_pil * 1e3:.2f} ms, PIL to arrays {t_arr * 1e3:.2f} ms, "
          f"batched on {device} {t_bat * 1e3:.2f} ms  ({load()})")
    processor = vlm.build_processor(96, 12)
    b = cfg["train_batch"]
    rng = np.random.default_rng(0)
    ns = np.arange(2, 13)
    for name, fn in (("draw scenes", lambda: training._scene_batch(rng, b, ns)),
                     ("pixels", lambda: training._pixels(processor, batch[:b], 96)),
                     ("vision targets", lambda: training._vision_targets(batch[:b], 8)),
                     ("text batch", lambda: training._text_batch(processor, batch[:b], 96))):
        wall, cpu = cpu_timed(fn, 20)
        print(f"data per step, {name} (batch {b}): {cpu * 1e3:.2f} ms CPU, {wall * 1e3:.2f} ms")
    model = vlm.build_model(processor, cfg["hidden"], cfg["layers"], 4, vision=cfg["vision"]
                            ).to(device)
    for name, steps, fn in (("vision", cfg["vision_steps"], training.pretrain_vision),
                            ("language", cfg["steps"], training.train)):
        extra = {"vision_lr": cfg["vision_lr"]} if fn is training.train else {}
        from torch.utils.flop_counter import FlopCounterMode

        with FlopCounterMode(display=False) as counter:  # also the warm-up
            fn(model, processor, 1, b, progress=False, **extra)
        flops = counter.get_total_flops()
        _sync(device)
        start, cpu = time.perf_counter(), time.process_time()
        fn(model, processor, 20, b, progress=False, **extra)
        _sync(device)
        t, c = (time.perf_counter() - start) / 20, (time.process_time() - cpu) / 20
        print(f"{name} step (batch {b}): {t * 1e3:7.1f} ms, {c * 1e3:7.1f} ms CPU -> {steps} "
              f"steps ~ {t * steps / 60:.1f} min; {flops * steps / 1e12:.3g} TFLOP in all  "
              f"({load()})")
    four = scenes.sample_scenes(96, 4, "similarity", 1)
    wall, cpu = cpu_timed(lambda: vlm.score_scenes(model.eval(), processor, four), 2)
    print(f"scoring four-shape scenes: {cpu / len(four) * 1e3:.2f} ms CPU a scene, "
          f"{wall / len(four) * 1e3:.2f} ms  ({load()})")


def accuracy(folder: Path, seed: int = 0, device: str = "cpu") -> dict:
    model, processor = vlm.load(str(folder), device=device)
    four = scenes.sample_scenes(400, 4, "similarity", seed + 1)  # the chapter's fit scenes
    p = vlm.score_scenes(model, processor, four)
    m = np.array([s.margin for s in four])
    third = np.quantile(m, [1 / 3, 2 / 3])
    out = {"sim4": p.mean(), "sim4_wide": p[m > scenes.SHAPE_SIZE].mean(),
           "narrow3": p[m <= third[0]].mean(), "mid3": p[(m > third[0]) & (m <= third[1])].mean(),
           "wide3": p[m > third[1]].mean()}
    for task, key in (("similarity", "p_S2"), ("identification", "p_I2")):
        out[key] = vlm.score_scenes(model, processor,
                                    scenes.sample_scenes(200, 2, task, seed + 102)).mean()
    return {k: float(v) for k, v in out.items()}


def probe(cfg: dict, steps: int) -> None:
    """The diagnosis behind the tower choice: train each tower's vision stage alone and read its
    linear heads on held-out scenes. "nearest@X" is the answer head on the X's patch (the shape
    nearest to the X), "at@X" the same on identification scenes, "voronoi" the shape nearest
    to each patch centre."""
    processor = vlm.build_processor(96, 12)
    sim4 = scenes.sample_scenes(200, 4, "similarity", 97)
    ide = scenes.sample_scenes(200, [2, 4, 8], "identification", 98)
    for vision in vlm.VISION_TOWERS:
        model = vlm.build_model(processor, cfg["hidden"], cfg["layers"], 4, vision=vision)
        heads = training.vision_heads(cfg["hidden"])
        start = time.perf_counter()
        training.pretrain_vision(model, processor, steps, cfg["train_batch"],
                                 lr=cfg["stage1_lr"], progress=False, heads=heads)
        minutes = (time.perf_counter() - start) / 60
        out = {}
        with torch.no_grad():
            for name, lst in (("nearest@X", sim4), ("at@X", ide)):
                grid = 96 // 12
                feats = model.model.vision_tower(
                    training._pixels(processor, lst, 96),
                    output_hidden_states=True).hidden_states[-1][:, 1:]
                t = training._vision_targets(lst, grid)
                at_x = np.argmax(t[:, 1], axis=1)
                guess = heads[3](feats).argmax(-1).numpy()[np.arange(len(lst)), at_x]
                out[name] = np.mean(guess == t[np.arange(len(lst)), 3, at_x])
                if name == "nearest@X":
                    out["voronoi"] = np.mean(heads[2](feats).argmax(-1).numpy() == t[:, 2])
        print(f"probe {vision:7s} {steps} steps, {minutes:.1f} min: "
              + ", ".join(f"{k} {v:.3f}" for k, v in out.items()) + f"  ({load()})")


def train(cfg: dict, root: Path, device: str) -> dict:
    start = time.perf_counter()
    folder = training.trained_model(root, hidden=cfg["hidden"], layers=cfg["layers"],
                               heads=4 if cfg["hidden"] % 4 == 0 else 2,
                               vision_steps=cfg["vision_steps"], steps=cfg["steps"],
                               batch_size=cfg["train_batch"], vision=cfg["vision"],
                               vision_lr=cfg["vision_lr"], stage1_lr=cfg["stage1_lr"],
                               device=device)
    minutes = (time.perf_counter() - start) / 60
    record = json.loads((folder / "training.json").read_text())
    print(f"trained in {minutes:.1f} min ({load()}); stage seconds {record.get('seconds')}")
    return {"recipe": "current", "train_min": minutes, **accuracy(folder, device=device)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--profile", choices=profiles.PROFILES, default="default")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda to measure the GPU path")
    ap.add_argument("--train", action="store_true", help="train the profile's model and score it")
    ap.add_argument("--root", default=None, help="folder for the trained model (default: temp)")
    ap.add_argument("--probe", type=int, default=0, metavar="STEPS",
                    help="linear probes of each tower after a vision stage of STEPS steps")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    cfg = profiles.settings(settings.SETTINGS, args.profile).as_dict()
    if torch.device(args.device).type == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: no CUDA device here")
    speed(cfg, args.device)
    if args.probe:
        probe(cfg, args.probe)
    if not args.train:
        return
    with tempfile.TemporaryDirectory() as tmp:
        rows = [PREVIOUS, train(cfg, Path(args.root or tmp), args.device)]
    print(f"\n{'recipe':22s} {'min':>5s} {'sim4':>6s} {'wide':>6s} {'p_S2':>6s} {'p_I2':>6s} "
          f"{'(sim4-1/4)/min':>15s}")
    for r in rows:
        cell = [("   n/a" if r.get(k) is None else f"{r[k]:6.3f}")
                for k in ("sim4", "sim4_wide", "p_S2", "p_I2")]
        print(f"{r['recipe']:22s} {r['train_min']:5.1f} {' '.join(cell)} "
              f"{(r['sim4'] - 0.25) / r['train_min']:15.4f}")
    cur = rows[-1]
    print(f"margin terciles (narrow, mid, wide): {cur['narrow3']:.3f} {cur['mid3']:.3f} "
          f"{cur['wide3']:.3f}")


if __name__ == "__main__":
    main()
