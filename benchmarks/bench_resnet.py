"""Cost of chapter 4's (α, seed) runs, one at a time and stacked, and the projected chapter.

Trains ``--runs`` runs of the profile's network for ``--epochs`` epochs, first one at a time,
then all at once (one network mapped over their stacked weights, as the chapter does on an
accelerator), measures one run's evaluation (exact curves over every test triplet and the
summaries), and projects the profile's training and evaluation. Nothing is cached here.

    .venv/bin/python benchmarks/bench_resnet.py [--profile default] [--device cpu]
        [--runs 4] [--epochs 2]

Measured on the 2-core CPU build machine, one torch thread as in the chapter: default profile
(4 runs, 2 epochs) 0.46 s per run-epoch alone against 0.96 s stacked; paper profile (2 runs,
1 epoch) 11.5 s against 13.8 s, 490 TFLOP of training in all. Stacking does not pay on a CPU,
so the chapter stacks runs only on an accelerator, where it removes the launch overhead that
left the GPU idle. No GPU figure has been measured yet.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from semres.core import profiles
from semres.experiments.phylogeny import measures, phylo, settings, vision


def step_flops(net, cfg) -> float:
    """FLOPs of one training step of one run (a device-independent yardstick for a GPU)."""
    from torch.utils.flop_counter import FlopCounterMode

    x = torch.zeros(cfg.batch_size, cfg.size, cfg.size, 3, dtype=torch.uint8)
    with FlopCounterMode(display=False) as counter:
        logits, emb = net.cpu().train()(x)
        (logits.sum() + emb.sum()).backward()
    return float(counter.get_total_flops())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=profiles.PROFILES, default="default")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--runs", type=int, default=4, help="runs to time each way")
    parser.add_argument("--epochs", type=int, default=2, help="epochs to time")
    args = parser.parse_args()
    if args.runs < 1 or args.epochs < 1:
        parser.error("--runs and --epochs must be >= 1")
    cfg = profiles.settings(settings.SETTINGS, args.profile)
    device = torch.device(args.device)

    t0 = time.perf_counter()
    data = phylo.simulate_dataset(cfg.n_species, cfg.images_per_species, cfg.size)
    t_data = time.perf_counter() - t0
    n_classes = len(np.unique(data.species[data.split["train"]]))
    seeds = list(range(args.runs))

    def nets():
        return [vision.build_model(n_classes, widths=cfg.widths, depths=cfg.depths,
                                   seed=s) for s in seeds]

    def timed(fn) -> float:
        if device.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return (time.perf_counter() - t) / (args.runs * args.epochs)

    kw = dict(epochs=args.epochs, batch_size=cfg.batch_size, lr=cfg.lr, device=device,
              progress=False)  # one torch thread per run, as in the chapter
    vision.train_many(nets()[:1], data, [0.5], [0], **{**kw, "epochs": 1})  # warm-up
    alone = timed(lambda: [vision.train_many([n], data, [0.5], [s], **kw)
                           for n, s in zip(nets(), seeds)])
    stacked = timed(lambda: vision.train_many(nets(), data, [0.5] * args.runs, seeds, **kw))
    net = nets()[0]
    t = time.perf_counter()
    pool, is_ood = measures.evaluation_pool(data)
    emb = vision.embed(net, data.images[pool], device=device, threads=None)
    measures.evaluate(emb, data.species[pool], is_ood, data.distances, n_eps=cfg.n_eps,
                      max_probes=cfg.max_probes)
    evaluation = time.perf_counter() - t

    n_runs = len(cfg.alphas) * cfg.replicates
    epochs = cfg.epochs
    flops = step_flops(net, cfg) * n_runs * epochs * -(-len(data.split["train"])
                                                      // cfg.batch_size)
    print(f"profile {args.profile} on {device}: {data.n_species} species, {len(data.images)} "
          f"images of {cfg.size} px, train split {len(data.split['train'])}, "
          f"{n_runs} runs x {epochs} epochs")
    print(f"data build                    {t_data:8.2f} s")
    print(f"one run-epoch, alone          {alone:8.3f} s")
    print(f"one run-epoch, {args.runs} stacked     {stacked:8.3f} s   "
          f"({alone / stacked:.2f}x)")
    print(f"evaluation, one run           {evaluation:8.2f} s")
    print(f"training compute, all runs    {flops / 1e12:8.3g} TFLOP (forward and backward)")
    for name, per in (("alone", alone), ("stacked", stacked)):
        total = n_runs * (epochs * per + evaluation) + t_data
        print(f"projected chapter runs, {name:8s}{total / 60:8.2f} min")


if __name__ == "__main__":
    main()
