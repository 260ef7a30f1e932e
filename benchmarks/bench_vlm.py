"""Chapter 6 speed figures: scene rendering, a step of each training stage and option scoring
of the tiny LLaVA at the default profile's size (targets: default chapter < 10 min, quick
< 2 min on 2 CPU cores). Prints numbers; asserts nothing.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_vlm.py [--threads 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from semres import scenes, vlm


def timed(fn, repeat: int) -> float:
    fn()  # warm-up
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=1500)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    rng = np.random.default_rng(0)
    batch = scenes.sample_scenes(200, range(2, 13), "similarity", 0)
    t_render = timed(lambda: [scenes.render(s, 96) for s in batch], 3) / len(batch)
    print(f"render 96 px scene:        {t_render * 1e3:7.2f} ms")

    processor = vlm.build_processor(96, 12)
    model = vlm.build_model(processor, args.hidden, args.layers, 4)
    t_batch = timed(lambda: vlm._training_batch(processor, rng, args.batch, range(2, 13), 96), 3)
    print(f"training batch of {args.batch}:     {t_batch * 1e3:7.1f} ms")
    inputs, labels = vlm._training_batch(processor, rng, args.batch, range(2, 13), 96)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()

    def step():
        loss = model(**inputs, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()

    t_step = timed(step, 5)
    print(f"language step (batch {args.batch}):  {t_step * 1e3:7.1f} ms "
          f"-> {args.steps} steps ~ {(t_step + t_batch) * args.steps / 60:.1f} min")
    start = time.perf_counter()
    vlm.pretrain_vision(model, processor, 10, args.batch, progress=False)
    t_vis = (time.perf_counter() - start) / 10
    print(f"vision step (batch {args.batch}):    {t_vis * 1e3:7.1f} ms "
          f"-> {args.steps} steps ~ {t_vis * args.steps / 60:.1f} min")
    model.eval()
    four = scenes.sample_scenes(64, 4, "similarity", 1)
    t_score = timed(lambda: vlm.score_scenes(model, processor, four, batch_size=32), 2)
    print(f"score a 4-shape scene:     {t_score / len(four) * 1e3:7.1f} ms "
          f"({t_score / len(four) / 4 * 1e3:.1f} ms per option)")


if __name__ == "__main__":
    main()
