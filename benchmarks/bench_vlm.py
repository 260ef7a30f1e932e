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

    .venv/bin/python benchmarks/bench_vlm.py --runs BASE_BUILD BUILD... --out CSV

tabulates finished ``semres run 6`` builds (the first the baseline): training steps, wall and
CPU seconds, accuracies, the live scale with its interval, and whether every status and every
live scale stays the baseline's. How the default's steps were chosen (issue 58, one core on a
shared 2-core machine, load 4-8, so wall seconds are inflated; ``benchmarks/vlm_training_steps.csv``):

    vision/language steps   train s (wall)  fit_acc  map_acc  mean p_I  live scale px (95%)   statuses
    1600/800 (baseline)          424        0.880    0.969    0.983    5.30 (4.58-6.13)      -
    800/400                      403        0.754    0.737    0.897    8.36 (7.13-9.48)      one changes
    1200/600                     778        0.892    0.943    0.972    4.41 (3.77-5.02)      same

Half the steps moves every result and a status; three quarters keep the statuses but put the
live scale (4 of 9 live scales) and 4 of 7 identification accuracies outside the baseline's
intervals, so the default keeps 1600/800. (The 800/400 run's CPU seconds are an undercount:
polling began mid-training.)
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
    print(f"render a 96 px scene: PIL {t_pil * 1e3:.2f} ms, PIL to arrays {t_arr * 1e3:.2f} ms  "
          f"({load()})")
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


#: the live model's fits whose scale the runs table sets against the baseline's interval
LIVE_SCALE = "exponential + response bias (ML)"


def _cell(notebook: Path, marker: str) -> dict:
    """papermill's record (duration, start and end) of the executed notebook's first cell whose
    source holds ``marker``."""
    for cell in json.loads(notebook.read_text())["cells"]:
        if marker in "".join(cell["source"]):
            return cell["metadata"].get("papermill", {})
    return {}


def _cpu_seconds(build: Path, cell: dict) -> tuple:
    """(the cell's, the whole kernel's) CPU seconds, from ``kernel_cpu.txt`` (epoch seconds and
    the kernel's CPU seconds, polled every few seconds while it ran); NaN without it. On a
    shared machine wall seconds grow with the load; CPU seconds do not."""
    from datetime import datetime

    path = build / "kernel_cpu.txt"
    if not path.is_file() or "start_time" not in cell:
        return float("nan"), float("nan")
    t, cpu = np.loadtxt(path, unpack=True)
    at = [datetime.fromisoformat(cell[k].replace("Z", "+00:00")).timestamp()
          for k in ("start_time", "end_time")]
    return float(np.diff(np.interp(at, t, cpu))[0]), float(cpu[-1])


def run_row(build: Path, base: dict | None = None) -> dict:
    """What one ``semres run 6`` gave (``build``: its ``_build``, or a copy with ``results/`` and
    ``executed/``): its training steps and seconds, the chapter's accuracies and the live scale,
    and, against the run ``base`` (the first row), whether every status and misfit flag is the
    same and every live fit's scale inside the baseline's interval."""
    import pandas as pd

    res, ex = build / "results" / "06_vlm_shapes", build / "executed"
    cfg = pd.read_csv(res / "settings.csv").set_index("setting")["value"]
    q = pd.read_csv(res / "quantities.csv").set_index("quantity")["value"]
    fit = pd.read_csv(res / "fit.csv")
    live = fit[fit.source == "live"].set_index("kernel")
    sweep = pd.read_csv(res / "n_sweep.csv")
    ide = sweep[sweep.task == "identification"]
    cell = _cell(ex / "06_vlm_shapes.ipynb", "training.trained_model(")
    train_cpu, chapter_cpu = _cpu_seconds(build, cell)
    row = {"vision_steps": int(cfg["vision_steps"]), "steps": int(cfg["steps"]),
           "train_seconds": float(cell.get("duration", np.nan)), "train_cpu_seconds": train_cpu,
           "chapter_seconds": json.loads((ex / "06_vlm_shapes.json").read_text())["seconds"],
           "chapter_cpu_seconds": chapter_cpu,
           "fit_acc": q["fit_acc"], "map_acc": q["map_acc"], "p_I_mean": ide.p.mean(),
           "p_S_mean": sweep[sweep.task == "similarity"].p.mean(),
           "scale_px": live.loc[LIVE_SCALE, "scale_px"],
           "scale_ci_low_px": live.loc[LIVE_SCALE, "ci_low_px"],
           "scale_ci_high_px": live.loc[LIVE_SCALE, "ci_high_px"],
           "statuses": ";".join(pd.read_csv(res / "summary.csv")["status"]),
           "misfits": ";".join(fit["misfit"].astype(str)), "_live": live, "_ide": ide}
    if base is not None:
        old, new = base["_live"], live
        inside = [(old.ci_low_px[k] <= new.scale_px[k] <= old.ci_high_px[k])
                  for k in old.index if np.isfinite(old.ci_low_px[k])]
        b_ide = base["_ide"].set_index("n")
        row.update(same_statuses=row["statuses"] == base["statuses"],
                   same_misfits=row["misfits"] == base["misfits"],
                   live_scales_inside=f"{sum(inside)} of {len(inside)}",
                   p_I_within_2se=f"{sum(abs(r.p - b_ide.p[r.n]) <= 2 * b_ide.se[r.n] for r in ide.itertuples())} of {len(ide)}")
    return row


def runs(builds: list[str], out: str | None) -> None:
    """The accuracy-per-CPU-minute table behind the default profile's training steps: one row
    per run, the first the baseline the others are judged against (written to ``out``)."""
    import pandas as pd

    rows = [run_row(Path(builds[0]))]
    rows += [run_row(Path(b), rows[0]) for b in builds[1:]]
    table = pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")} for r in rows])
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(table.drop(columns=["statuses", "misfits"]).to_string(index=False))
    if out:
        table.to_csv(out, index=False)
        print(f"written to {out}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--profile", choices=profiles.PROFILES, default="default")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda to measure the GPU path")
    ap.add_argument("--train", action="store_true", help="train the profile's model and score it")
    ap.add_argument("--root", default=None, help="folder for the trained model (default: temp)")
    ap.add_argument("--probe", type=int, default=0, metavar="STEPS",
                    help="linear probes of each tower after a vision stage of STEPS steps")
    ap.add_argument("--runs", nargs="+", metavar="BUILD",
                    help="tabulate finished `semres run 6` builds (_build folders, the baseline "
                         "first) instead of timing anything")
    ap.add_argument("--out", default=None, help="CSV for the --runs table")
    args = ap.parse_args()
    if args.runs:
        return runs(args.runs, args.out)
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
