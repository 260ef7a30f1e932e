"""Cost of one (α, seed) run of chapter 4, and what that implies for each profile.

Targets (issue 4): the quick profile's runs well under 2 minutes in all, the default profile's
18 runs (6 α × 3 seeds) under 15 minutes on a 2-core CPU. Prints the time to build the data,
the training time per epoch and per run, the evaluation time (exact curves over every test
triplet and the summaries), and the projected total per profile. Nothing is cached here.

    .venv/bin/python benchmarks/bench_resnet.py [--profile default] [--alpha 0.5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from semres import phylo, vision

# the chapter's settings (notebooks/04_resnet_phylogeny.py), repeated so this runs standalone
PROFILES = {
    "quick": {"n_species": 24, "images_per_species": 24, "size": 32, "runs": 3, "epochs": 10,
              "widths": (8, 16, 32), "depths": (1, 1, 1), "n_eps": 21},
    "default": {"n_species": 48, "images_per_species": 40, "size": 48, "runs": 18,
                "epochs": 20, "widths": (16, 32, 64), "depths": (1, 1, 1), "n_eps": 41},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(PROFILES), default="default")
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--epochs", type=int, default=0, help="0: the profile's")
    args = parser.parse_args()
    cfg = dict(PROFILES[args.profile])
    if args.epochs:
        cfg["epochs"] = args.epochs

    t0 = time.perf_counter()
    data = phylo.simulate_dataset(cfg["n_species"], cfg["images_per_species"], cfg["size"])
    t_data = time.perf_counter() - t0
    settings = {"epochs": cfg["epochs"], "batch_size": 64, "lr": 3e-3,
                "widths": cfg["widths"], "depths": cfg["depths"], "n_eps": cfg["n_eps"],
                "max_probes": 400}
    out = vision.train_and_evaluate(data.images, data.species, data.distances, data.split,
                                    args.alpha, 0, settings, progress=False)
    per_epoch = [row["seconds"] for row in out["history"]]
    evaluation = out["seconds"] - out["train_seconds"]
    per_run = out["seconds"]
    print(f"profile {args.profile}: {data.n_species} species, {len(data.images)} images of "
          f"{cfg['size']} px, train split {len(data.split['train'])}")
    print(f"data build           {t_data:8.2f} s")
    print(f"epoch (median)       {np.median(per_epoch):8.2f} s   (min {min(per_epoch):.2f}, "
          f"max {max(per_epoch):.2f})")
    print(f"training, one run    {out['train_seconds']:8.2f} s   ({cfg['epochs']} epochs)")
    print(f"evaluation, one run  {evaluation:8.2f} s")
    print(f"one run              {per_run:8.2f} s")
    print(f"projected, {cfg['runs']} runs  {cfg['runs'] * per_run / 60:8.2f} min   "
          f"(+ data and the theorem check)")
    print(f"measures: sim_accuracy {out['summary']['sim_accuracy']:.3f}, "
          f"id_auc {out['summary']['id_auc']:.3f}, "
          f"ood_sim_accuracy {out['summary']['ood_sim_accuracy']:.3f}, "
          f"final val accuracy {out['history'][-1]['val_accuracy']:.3f}")


if __name__ == "__main__":
    main()
