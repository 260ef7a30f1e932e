"""Throughput of the causal-LM scorer on the paper's prompts; prints figures, asserts nothing.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_lm.py [--models smollm2-135m ...]
        [--trials 128] [--busy]

Per model: prompts/s for the gate's design (identification at n = 2, each pair in both orders
and asked about both people, packed by list; every name of the book, scored whole) in float32
and bfloat16, on 1 thread and on every core; with ``--busy`` the same again beside one
CPU-bound process (a matrix product on one thread, as other work on a shared machine), which
is what the scorer's ``threads`` bound is for. Then the precision check the chapter makes
(``dtype="auto"``). Target: Qwen2.5-Coder-0.5B at 10 prompts/s on 2 idle cores. Timings depend
on what else runs on the machine: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import multiprocessing as mp
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from semres.core.book import cores  # noqa: E402
from semres.experiments.llm import lm, settings, trials  # noqa: E402


def _spin(stop):
    import numpy as np
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        a = np.random.default_rng(0).random((400, 400))
        while not stop.is_set():
            a = a @ a
            a /= a.max()


@contextlib.contextmanager
def busy(on: bool):
    """One CPU-bound process running beside the scorer while ``on``."""
    if not on:
        yield
        return
    stop = mp.Event()
    proc = mp.Process(target=_spin, args=(stop,))
    proc.start()
    time.sleep(1.0)
    try:
        yield
    finally:
        stop.set()
        proc.join()


def rate(scorer, prompts, options, groups, net) -> float:
    scorer.logprobs(prompts[:8], options[:8], groups=groups[:8], progress=False, model=net)
    start = time.perf_counter()
    scorer.logprobs(prompts, options, groups=groups, progress=False, model=net)
    return len(prompts) / (time.perf_counter() - start)


def main():
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["smollm2-135m", "qwen2.5-coder-0.5b"])
    ap.add_argument("--trials", type=int, default=128)
    ap.add_argument("--busy", action="store_true", help="also measure beside a busy process")
    args = ap.parse_args()
    print(f"cores: {cores()}, load average: {os.getloadavg()[0]:.1f}")
    tr = trials.balanced_trials("identification", 2, args.trials // 4, 0,
                                n_names=len(settings.NAMES))
    prompts, options = lm.paper_prompts(tr, settings.NAMES)
    for name in args.models:
        start = time.perf_counter()
        scorer = lm.Scorer(name)
        tokens = sum(len(scorer.prefix_ids(p)) for p in prompts) / len(prompts)
        print(f"{name}: loaded in {time.perf_counter() - start:.1f} s, "
              f"{scorer.parameters / 1e6:.0f} M parameters, "
              f"{'chat template' if scorer.chat else 'completion prompt'}, "
              f"{tokens:.0f} tokens a prompt")
        half = copy.deepcopy(scorer.model).to(torch.bfloat16)
        for loaded in ((False, True) if args.busy else (False,)):
            with busy(loaded):
                for threads in sorted({1, cores()}):
                    scorer.threads = threads
                    figures = [f"{dtype} {rate(scorer, prompts, options, tr.group, net):5.1f}"
                               for dtype, net in (("float32", scorer.model),
                                                  ("bfloat16", half))]
                    print(f"  {'beside a busy process' if loaded else 'idle':<22s} "
                          f"{threads} thread{'s' if threads > 1 else ' '}: "
                          + ",  ".join(figures) + " prompts/s"
                          f"   (load {os.getloadavg()[0]:.1f})")
        scorer.threads = None  # the scorer's own choice: the cores others leave free
        with busy(args.busy):
            figures = [f"{dtype} {rate(scorer, prompts, options, tr.group, net):5.1f}"
                       for dtype, net in (("float32", scorer.model), ("bfloat16", half))]
            print(f"  {'beside a busy process' if args.busy else 'idle':<22s} "
                  f"{scorer.threads_used} thread{'s' if scorer.threads_used > 1 else ' '} "
                  "(chosen): " + ",  ".join(figures) + " prompts/s")
        check = lm.precision_check(scorer, half)
        print(f"  bfloat16 vs float32 on {check['prompts']} prompts: largest change of a choice "
              f"probability {check['max_change']:.3f}; mean mass on the correct option moves "
              f"{check['mean_shift']:+.4f} [{check['shift_low']:+.4f}, "
              f"{check['shift_high']:+.4f}] (tolerance ±{lm.BF16_TOLERANCE}): "
              f"{'bfloat16' if check['use_bfloat16'] else 'float32'}")


if __name__ == "__main__":
    main()
