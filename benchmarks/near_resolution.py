"""One causal LM on chapter 5's near design, outside the book: its competence, every shape
fitted across distances and the chance crossover, printed as numbers.

For models too slow for the default book on two CPU cores (the README's Qwen2.5-Coder-1.5B
figures come from here): ``python benchmarks/near_resolution.py qwen2.5-coder-1.5b``. The
design, its seeds and every setting are the chapter's ``--profile`` (default: ``default``).
Every scored trial is written to ``_build/results/near_resolution/<model>.csv`` (the tidy
schema of ``lm_trials.csv``); ``--rows FILE`` re-analyses such a file without scoring again.
"""

import argparse
import time

import pandas as pd

from semres.core import book, profiles
from semres.core.seeds import seeds
from semres.experiments.llm import lm, near, settings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a shipped name (qwen2.5-coder-1.5b), hub id, folder or .gguf")
    ap.add_argument("--profile", default="default", choices=("quick", "default", "paper"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rows", help="a CSV this script wrote: analyse it, score nothing")
    args = ap.parse_args()
    cfg = profiles.settings(settings.SETTINGS, args.profile)
    stream = seeds(args.seed)
    start = time.perf_counter()
    if args.rows:
        rows = pd.read_csv(args.rows)
        key, trials, dtype = str(rows.model.iloc[0]), len(rows), "read from " + args.rows
    else:
        scorer = lm.Scorer(args.model, device="cpu", dtype=cfg.lm_dtype)
        key, dtype = scorer.name, scorer.dtype
        tr = near.design(cfg.near_Ds, cfg.near_xs, cfg.near_pairs,
                         stream(f"lm {key} near design"), centres=cfg.near_centres,
                         n_names=len(settings.NAMES))
        rows = lm.to_results(lm.score_trials(scorer, tr, settings.NAMES),
                             source=near.SOURCE, seed=stream(f"lm {key} near design answers"))
        trials = len(tr)
        book.save_table(rows, "near_resolution", key)
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
    if r["does"]:
        c, f = r["crossover"], r["front"]
        print(f"chance crossover: {c['resolution']:.0f} years [{c['ci_low']:.0f}, "
              f"{c['ci_high']:.0f}]{' (censored)' if c['at_bound'] else ''}")
        print(f"best shape {r['best']['shape']} predicts p_S = {f['p_s']:.3f}, "
              f"p_I = {f['p_i']:.3f} for uniform probes")
        with pd.option_context("display.width", 160, "display.max_columns", 20):
            print(r["fits"][["shape", "half_decay", "ci_low", "ci_high", "chance_return",
                             "relative_floor", "gof_p", "misfit", "delta_aic"]]
                  .round(3).to_string(index=False))

if __name__ == "__main__":
    main()
