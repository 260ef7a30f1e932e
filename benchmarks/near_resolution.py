"""One causal LM on chapter 5's near design, outside the book: its competence, every shape
fitted across distances and the chance crossover, printed as numbers.

For models too slow for the default book on two CPU cores (the README's Qwen2.5-Coder-1.5B
figures come from here): ``python benchmarks/near_resolution.py qwen2.5-coder-1.5b``. The
design, its seeds and every setting are the chapter's ``--profile`` (default: ``default``).
Every scored trial is written to ``_build/results/near_resolution/<model>.csv`` (the tidy
schema of ``lm_trials.csv``); ``--rows FILE`` re-analyses such a file without scoring again.
"""

import argparse
import json
import platform
import time
from pathlib import Path

import pandas as pd

from semres.core import book, profiles
from semres.core.seeds import seeds
from semres.experiments.llm import lm, lm_protocol, near, settings, verdicts


def _cpu() -> str:
    try:
        return next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                    if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a shipped name (qwen2.5-coder-1.5b), hub id, folder or .gguf")
    ap.add_argument("--profile", default="default", choices=("quick", "default", "paper"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rows", help="a CSV this script wrote: analyse it, score nothing")
    ap.add_argument("--record", metavar="CSV",
                    help="put this model's fits, with the run's size and time, in CSV (chapter "
                         "5 reads the paper profile's from src/semres/data/near_paper.csv)")
    args = ap.parse_args()
    cfg = profiles.settings(settings.SETTINGS, args.profile)
    stream = seeds(args.seed)
    start = time.perf_counter()
    if args.rows:
        rows = pd.read_csv(args.rows)
        key, trials, dtype = str(rows.model.iloc[0]), len(rows), "read from " + args.rows
        run = json.loads(Path(args.rows).with_suffix(".json").read_text())
    else:
        scorer = lm.Scorer(args.model, device="cpu", dtype=cfg.lm_dtype)
        key = scorer.name
        stages, rows = lm_protocol.score_near(  # as the chapter scores it
            scorer, cfg, settings.NAME_POOL[:cfg.near_names],
            lambda part: stream(f"lm {key} {part}"))
        trials = f"{len(rows)} of {stages['design']}"
        dtype = f"{scorer.dtype}, {scorer.threads_used} threads"
        path = book.save_table(rows, "near_resolution", key)
        run = {"model": key, "profile": args.profile, "seed": args.seed, **stages,
               "scored": len(rows), "seconds": round(time.perf_counter() - start),
               "dtype": scorer.dtype, "threads": scorer.threads_used,
               "machine": _cpu(),
               "date": time.strftime("%Y-%m-%d")}
        path.with_suffix(".json").write_text(json.dumps(run))
    scored = time.perf_counter() - start
    r = near.analyse(rows, near=cfg.near_near, far=cfg.near_far, n_boot=cfg.n_boot,
                     gof_boot=cfg.gof_boot, seed=stream(f"near {key}"),
                     front_trials=cfg.front_trials, years=cfg.sweep_years)
    print(f"{key}: {trials} trials in {scored:.0f} s ({dtype})")
    comp = r["competence"]
    print(f"competence: {comp['verdict']}; mass near {comp['above']['p']:.3f} "
          f"[{comp['above']['ci_low']:.3f}, {comp['above']['ci_high']:.3f}] (p = "
          f"{comp['above']['p_value']:.2g}), near - far {comp['decay']['p']:+.3f} "
          f"(p = {comp['decay']['p_value']:.2g}); first-listed pull "
          f"{r['position']['p']:+.3f} [{r['position']['ci_low']:+.3f}, "
          f"{r['position']['ci_high']:+.3f}]")
    beyond = r["trials"][r["trials"]["where"] == "beyond"]
    bands = []
    for lo, hi in ((0, 0), (1, 5), (8, 20), (30, 80), (130, 300)):  # the curve without a shape
        pair = beyond[beyond.x.between(lo, hi)].groupby("pair").mass.mean()
        if len(pair) > 1:
            bands.append(f"{lo}-{hi} years {pair.mean():.3f} "
                         f"(se {pair.std() / len(pair) ** 0.5:.3f}, {len(pair)} pairs)")
    print("mean mass on the nearer person beyond the pair: " + "; ".join(bands))
    if r["does"]:
        c, f = r["crossover"], r["front"]
        print(f"chance crossover: {c['resolution']:.0f} years [{c['ci_low']:.0f}, "
              f"{c['ci_high']:.0f}]{' (censored)' if c['at_bound'] else ''}")
        print(f"best shape {r['best']['shape']} predicts p_S = {f['p_s']:.3f}, "
              f"p_I = {f['p_i']:.3f} for uniform probes")
        with pd.option_context("display.width", 160, "display.max_columns", 20):
            print(r["fits"][["shape", "half_decay", "half_decay_ci_low", "half_decay_ci_high",
                             "chance_return", "exact", "relative_floor", "gof_p", "misfit",
                             "delta_aic"]]
                  .round(3).to_string(index=False))

    if args.record and r["does"]:
        keep = ["shape", "half_decay", "half_decay_ci_low", "half_decay_ci_high", "chance_return",
                "chance_return_ci_low", "chance_return_ci_high", "exact", "relative_floor",
                "at_bound", "boot_at_bound", "gof_p", "gof_resolution", "misfit", "delta_aic",
                "best", "trials"]
        fits = r["fits"].reindex(columns=keep)
        size = [verdicts.near_fit_size(r["trials"], f) for f in r["fits"].to_dict("records")]
        for k in ("dispersion", "rms_gap", "rms_sampling"):  # how far each shape misses
            fits[k] = [z[k] for z in size]
    elif args.record:
        fits = pd.DataFrame({"shape": ["none: does not do similarity"]})
    if args.record:
        comp = r["competence"]
        fits.insert(0, "model", key)
        for k, v in reversed(list({
                "profile": run["profile"], "design": run["design"], "scored": run["scored"],
                "pairs": r["trials"].pair.nunique(),
                "seconds": run["seconds"], "threads": run["threads"], "dtype": run["dtype"],
                "machine": run["machine"], "date": run["date"],
                "p_near": comp["above"]["p"], "p_near_ci_low": comp["above"]["ci_low"],
                "p_near_ci_high": comp["above"]["ci_high"],
                "near_minus_far": comp["decay"]["p"], "does": r["does"]}.items())):
            fits.insert(1, k, v)
        out = Path(args.record)
        if out.exists():
            old = pd.read_csv(out)
            fits = pd.concat([old[old.model != key], fits], ignore_index=True)
        fits.to_csv(out, index=False)
        print(f"recorded in {out}")


if __name__ == "__main__":
    main()
