"""Throughput of the causal-LM scorer on the paper's prompts, before and after its int8 path;
prints figures, asserts nothing.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_lm.py [--models smollm2-135m ...]
        [--trials 128] [--rounds 3] [--threads 1 2] [--busy]

Per model, the gate's design (identification at n = 2, each pair in both orders and asked about
both people, packed by list; every name of the book, scored whole) scored by

- ``before``: the scorer as it was (float32, batches of 4096 padded tokens; and bfloat16, which
  its ``dtype="auto"`` chose for every shipped model),
- ``after``: float32 in batches of 512 tokens (the new default on a CPU) and int8, and
  bfloat16 where the CPU has AMX tiles (:func:`semres.experiments.llm.lm.fast_bfloat16`):
  ``dtype="auto"`` takes the first of bfloat16 (where fast) and int8 that passes the precision
  check,

in rounds, each arithmetic once a round in turn, so that the load of a shared machine falls on
all alike; each figure is the median over rounds of prompts per second of wall time and of
process CPU time (one thread: the CPU figure is per core whatever else runs). ``--busy`` adds
rounds beside one CPU-bound process (a matrix product on one thread), which is what the
scorer's ``threads`` bound is for. Then the precision check ``dtype="auto"`` makes, int8 (and
bfloat16) against float32. Timings depend on what else runs: the load average is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

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


def rate(scorer, prompts, options, groups, net, batch_tokens) -> tuple[float, float]:
    """(prompts per second of wall time, per second of this process's CPU time)."""
    scorer.batch_tokens = batch_tokens
    scorer.logprobs(prompts[:8], options[:8], groups=groups[:8], progress=False, model=net)
    wall, cpu = time.perf_counter(), time.process_time()
    scorer.logprobs(prompts, options, groups=groups, progress=False, model=net)
    return (len(prompts) / (time.perf_counter() - wall),
            len(prompts) / (time.process_time() - cpu))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["qwen2.5-coder-0.5b", "smollm2-135m"])
    ap.add_argument("--trials", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1])
    ap.add_argument("--no-bf16", action="store_true", help="leave out bfloat16 (slow here)")
    ap.add_argument("--busy", action="store_true", help="also measure beside a busy process")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    tr = trials.balanced_trials("identification", 2, args.trials // 4, 0,
                                n_names=len(settings.NAMES))
    prompts, options = lm.paper_prompts(tr, settings.NAMES)
    for name in args.models:
        start = time.perf_counter()
        scorer = lm.Scorer(name)
        tokens = sum(len(scorer.prefix_ids(p)) for p in prompts) / len(prompts)
        print(f"\n{name}: loaded in {time.perf_counter() - start:.1f} s, "
              f"{scorer.parameters / 1e6:.0f} M parameters, "
              f"{'chat template' if scorer.chat else 'completion prompt'}, "
              f"{tokens:.0f} tokens a prompt, {len(prompts)} prompts")
        start = time.perf_counter()
        stored = bool(scorer.kept) and (scorer.kept / "int8_channels.json").is_file()
        int8 = scorer.faster("int8")
        print(f"  int8 copy made in {time.perf_counter() - start:.1f} s (outlier channels "
              f"{'read from' if stored else 'found on calibration prompts, kept in'} "
              f"{scorer.kept})")
        ways = {"before float32 @4096": (scorer.model, 4096)}
        if not args.no_bf16:
            ways["before bfloat16 @4096"] = (scorer.faster("bfloat16"), 4096)
        ways["after float32 @512"] = (scorer.model, 512)
        ways["after int8 @512"] = (int8, 512)
        if not args.no_bf16 and lm.fast_bfloat16(scorer.device):  # what "auto" tries first
            ways["after bfloat16 @512"] = (ways["before bfloat16 @4096"][0], 512)
        for loaded in ((False, True) if args.busy else (False,)):
            for threads in args.threads:
                scorer.threads = threads
                got = {w: [] for w in ways}
                with busy(loaded):
                    for _ in range(args.rounds):
                        for w, (net, bt) in ways.items():
                            got[w].append(rate(scorer, prompts, options, tr.group, net, bt))
                load = os.getloadavg()[0]
                base = statistics.median(c for _, c in got["before float32 @4096"])
                print(f"  {threads} thread{'s' if threads > 1 else ''}"
                      f"{', beside a busy process' if loaded else ''} (load {load:.2f}), "
                      f"median of {args.rounds} rounds:")
                for w, figures in got.items():
                    wall = statistics.median(f for f, _ in figures)
                    cpu = statistics.median(c for _, c in figures)
                    print(f"    {w:<22s} {wall:6.2f} prompts/s  {cpu:6.2f} prompts/CPU-s  "
                          f"x{cpu / base:4.2f}   (rounds: "
                          + ", ".join(f"{c:.2f}" for _, c in figures) + ")")
        scorer.threads = None
        scorer.batch_tokens = 512
        for path in ("int8",) + (() if args.no_bf16 else ("bfloat16",)):
            net = int8 if path == "int8" else ways["before bfloat16 @4096"][0]
            check = lm.precision_check(scorer, net)
            print(f"  {path} vs float32 on {check['prompts']} calibration prompts: largest "
                  f"change of a choice probability {check['max_change']:.3f}; mean mass on the "
                  f"correct option moves {check['mean_shift']:+.4f} [{check['shift_low']:+.4f}, "
                  f"{check['shift_high']:+.4f}] (tolerance ±{lm.PRECISION_TOLERANCE}): "
                  f"{'passes' if check['passes'] else 'fails'}")
    print("\nload average at the end: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
