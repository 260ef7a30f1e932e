"""Throughput of the causal-LM scorer on the paper's prompts; prints figures, asserts nothing.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_lm.py [--models smollm2-135m gemma3-270m]
        [--prompts 64] [--threads 2]

Per model: prompts/s for identification prompts at n = 2 in float32 and bfloat16, with the
paper's names (many are several tokens: their options continue from the prompt's cache) and
with the names the model keeps whole (one LM-head row per prompt), and the largest difference
of a choice probability between the two dtypes. Target (2-core CPU, SmolLM2): 25 prompts/s.
Timings depend on what else runs on the machine; say so when quoting them.
"""

from __future__ import annotations

import argparse
import copy
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from semres import language, lm  # noqa: E402


def main():
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=list(lm.SHIPPED))
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch threads: {torch.get_num_threads()}, load average: {os.getloadavg()[0]:.1f}")
    for name in args.models:
        start = time.perf_counter()
        scorer = lm.Scorer(name, batch_size=args.prompts)
        print(f"{name}: loaded in {time.perf_counter() - start:.1f} s "
              f"({'chat template' if scorer.chat else 'completion prompt'})")
        half = copy.deepcopy(scorer.model).to(torch.bfloat16)
        pool = scorer.whole(language.NAMES)
        for label, names in (("paper names", language.NAMES), ("whole names", pool)):
            tr = language.draw_trials("identification", 2, args.prompts, 0, n_names=len(names))
            prompts, options = lm.paper_prompts(tr, names)
            tokens = sum(len(scorer.prefix_ids(p)) for p in prompts) / len(prompts)
            for dtype, net in (("float32", scorer.model), ("bfloat16", half)):
                scorer.logprobs(prompts[:4], options[:4], progress=False, model=net)  # warm-up
                start = time.perf_counter()
                scorer.logprobs(prompts, options, progress=False, model=net)
                rate = len(prompts) / (time.perf_counter() - start)
                print(f"  {label:<12s} ({len(names):2d}) {dtype:<9s} {rate:7.1f} prompts/s"
                      f"   ({tokens:.0f} tokens a prompt)")
            diff = lm.bf16_difference(scorer, prompts, options, half=half)
            print(f"  {label:<12s} bf16 vs fp32: max |delta p| = {diff:.4f} "
                  f"(tolerance {lm.BF16_TOLERANCE})")


if __name__ == "__main__":
    main()
