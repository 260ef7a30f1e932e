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

    .venv/bin/python benchmarks/bench_resnet.py --compare OLD_RESULTS NEW_RESULTS

compares two builds' verdicts (:func:`verdict_shifts`), to size the training by them. Training
is a prefix: epoch k of a longer run is the same as the last epoch of a k-epoch run (the batch
order is drawn per epoch, the learning rate is constant; checked bit for bit on the validation
accuracies), so a run's ``history`` shows what a shorter training gives. Against the 20-epoch
default build: at 15 epochs every status was the same and every effect stayed within its
interval (largest shift 0.78 half-widths, best p_S, α 0 → 0.9) but one, the classifier's
validation accuracy from α 0 to 1 (−0.625 against [−0.698, −0.679], 6.5 half-widths: it
still rose by 0.058 from epoch 15 to 20 at α = 0); at 12 epochs five estimates left their
intervals, among them the claim p_S at matched p_I (0.099 against [0.101, 0.143]). That
effect leaves its interval at every epoch below 20 (the 20-epoch histories), so the default
keeps 20 epochs. Training is 95% of the runs' cell (316 of 332 s cold on one core); measuring
the curves took 0.6 s a run and the data 3.7 s, so neither is worth sizing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
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


def verdict_shifts(old: Path, new: Path) -> pd.DataFrame:
    """Every verdict of two builds of chapter 4 side by side: each result row's status and
    headline (``summary.csv``) and each effect (``effects.csv``), with how far the new estimate
    lies from the old one in half-widths of the old interval. A training is long enough when
    no status changes and no estimate leaves the longer training's interval (``|shift| <= 1``):
    the verdicts are read against those intervals, so a move inside one buys them nothing."""
    rows = []
    summary = [pd.read_csv(Path(d) / "summary.csv").set_index("result") for d in (old, new)]
    for result, a in summary[0].iterrows():
        b = summary[1].loc[result]
        rows.append(("summary", result, a.status, b.status, a.headline, b.headline, a.ci_low,
                     a.ci_high))
    effects = [pd.read_csv(Path(d) / "effects.csv").set_index(["column", "alpha_to"])
               for d in (old, new)]
    for (column, alpha_to), a in effects[0].iterrows():
        b = effects[1].loc[(column, alpha_to)]
        rows.append(("effects", f"{column}, α {a.alpha_from:g} → {alpha_to:g}", "", "",
                     a.effect, b.effect, a.interval_low, a.interval_high))
    out = pd.DataFrame(rows, columns=["table", "row", "status_old", "status_new", "old", "new",
                                      "old_low", "old_high"])
    half = (out.old_high - out.old_low) / 2
    out["shift_in_half_widths"] = (out.new - out.old) / half
    out["within"] = out.new.between(out.old_low, out.old_high) | out.old.isna()
    return out


def compare(argv) -> None:
    """``--compare OLD NEW``: print :func:`verdict_shifts` and whether the verdicts hold."""
    parser = argparse.ArgumentParser(description=verdict_shifts.__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), required=True,
                        help="two result folders _build/results/04_resnet_phylogeny")
    args = parser.parse_args(argv)
    shifts = verdict_shifts(*map(Path, args.compare))
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(shifts.round(4).to_string(index=False))
    same = (shifts.status_old == shifts.status_new).all() and shifts.within.all()
    print(f"\nlargest |shift| {shifts.shift_in_half_widths.abs().max():.2f} half-widths; "
          + ("every status the same and every estimate within the old interval" if same
             else "a status changed or an estimate left the old interval"))


def main() -> None:
    if "--compare" in sys.argv[1:]:
        return compare(sys.argv[1:])
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
