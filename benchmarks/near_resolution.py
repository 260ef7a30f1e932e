"""One causal LM on chapter 5's near design, outside the book: its competence, every shape
fitted across distances and the chance crossover, printed as the chapter would state them.

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
from semres.experiments.llm import lm, near, page_near, settings


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
    print(page_near.competence_text(r))
    if r["does"]:
        print(page_near.resolution_text(r))
        print(page_near.sizing_text(r))
        with pd.option_context("display.width", 160, "display.max_columns", 20):
            print(r["fits"][["shape", "resolution", "ci_low", "ci_high", "relative_floor",
                             "gof_p", "misfit", "delta_aic"]].round(3).to_string(index=False))
    print(page_near.box_sentence(r))


if __name__ == "__main__":
    main()
