"""Throughput of the Monte Carlo engine: one thread, every core, the random-number generator's
own limit, and a straightforward numpy implementation, all from one run.

Targets (issue 29): on a 2-core CPU, two threads at least 1.8x one thread, at least 180 million
two-item trials per second (circle, constant kernel, similarity task), near the limit of the
engine's random numbers: the same PCG64 draws on the same threads, with nothing computed from
them (a two-item trial takes one 64-bit word, two float32 distances). The default thread count
must be the fastest. Issue 2's targets stand: >= 25 M trials/s and >= 3x plain numpy.

Each figure is the best of --repeats timings; the configurations take turns within each
repeat, so a busy moment of a shared machine does not hit one figure only. The spread (slowest
over fastest timing) and the load average before and after say how quiet the machine was.
The figures are also written to ``_build/benchmarks/engine.json`` (``--record``), from which
the book's reproducibility page quotes them.

    .venv/bin/python benchmarks/bench_engine.py [--trials 40000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import subprocess
import time
from pathlib import Path

import numba
import numpy as np

from semres.core import book, kernels, spaces, theory
from semres.core.simulate import (BLOCK_STEPS, STEP_ELEMENTS, _run_blocks, _uniforms,
                                  luce_success)


def straightforward(trials: int, eps: float, seed: int, chunk: int = 1_000_000):
    """What one would write first: float64 points, argmin, fancy indexing, np.where."""
    rng = np.random.default_rng(seed)
    total = total_sq = 0.0
    for start in range(0, trials, chunk):
        m = min(chunk, trials - start)
        probe = rng.random(m)
        items = rng.random((m, 2))
        d = np.abs(items - probe[:, None])
        d = np.minimum(d, 1 - d)
        g = (d <= eps).astype(float)
        nearest = d.argmin(axis=1)
        tot = g.sum(axis=1)
        correct = g[np.arange(m), nearest]
        mass = np.where(tot > 0, correct / np.where(tot > 0, tot, 1), 0.5)
        total += mass.sum()
        total_sq += (mass**2).sum()
    mean = total / trials
    return mean, math.sqrt((total_sq / trials - mean**2) / (trials - 1))


@numba.njit(nogil=True, cache=True)
def _draws_only(bitgen, trials, step):
    """The engine's draws for ``trials`` two-item circle trials, step by step, unscored."""
    u = np.empty(2 * step)
    carry = np.zeros(2, np.uint64)
    last = 0.0
    for start in range(0, trials, step):
        m = min(step, trials - start)
        _uniforms(bitgen, u, 2 * m, carry)
        last += u[m - 1]
    return last


def rng_limit(trials: int, seed: int, threads: int) -> float:
    """The random numbers alone, in the engine's blocks, streams and thread pool."""
    step = STEP_ELEMENTS // 2
    block = step * BLOCK_STEPS
    sizes = [block] * (trials // block) + ([trials % block] if trials % block else [])
    root = np.random.SeedSequence(seed)

    def run(i):
        stream = np.random.SeedSequence(root.entropy, spawn_key=(i,))
        return _draws_only(np.random.PCG64(stream), sizes[i], step)

    return sum(_run_blocks(run, len(sizes), threads))


_BARRIER = None


def _start(barrier) -> None:
    global _BARRIER
    _BARRIER = barrier


def _engine_alone(args) -> None:
    """One process's share: waits for the others, so that each process takes one share."""
    space, kern, trials = args
    _BARRIER.wait()
    luce_success(space, kern, "similarity", 2, trials, 0, threads=1)


def commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=Path(__file__).parent)
    return out.stdout.strip() or "unknown"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40_000_000)
    parser.add_argument("--baseline-trials", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--eps", type=float, default=0.1)
    parser.add_argument("--record", default=str(book.build_dir() / "benchmarks" / "engine.json"),
                        help="where to write the figures as JSON ('' for nowhere)")
    parser.add_argument("--others", action=argparse.BooleanOptionalAction, default=True,
                        help="also time other spaces, kernels and tasks")
    args = parser.parse_args(argv)

    circle, kern = spaces.Circle(), kernels.Constant(args.eps)
    expected = theory.two_item(circle.ball_measure(args.eps)[0])[0]
    cpus = book.cores()
    trials = args.trials

    def engine(threads):
        return lambda: luce_success(circle, kern, "similarity", 2, trials, 0, threads=threads)

    # the machine's own scaling: the same work in separate processes, one thread each (forked
    # before any thread starts)
    fork = multiprocessing.get_context("fork")
    processes = fork.Pool(cpus, initializer=_start, initargs=(fork.Barrier(cpus),))
    runs = {  # name: (what it runs, trials per call)
        "engine, 1 thread": (engine(1), trials),
        f"engine, {cpus} threads": (engine(cpus), trials),
        "engine, default threads": (engine(None), trials),
        f"engine, {cpus} processes of 1 thread": (
            lambda: processes.map(_engine_alone, [(circle, kern, trials)] * cpus), trials * cpus),
        "PCG64 draws alone, 1 thread": (lambda: rng_limit(trials, 0, 1), trials),
        f"PCG64 draws alone, {cpus} threads": (lambda: rng_limit(trials, 0, cpus), trials),
        "straightforward numpy": (lambda: straightforward(args.baseline_trials, args.eps, 0),
                                  args.baseline_trials),
    }
    for fn, _ in runs.values():  # compile, load caches, start threads
        fn()
    load_before = os.getloadavg()
    times = {name: [] for name in runs}
    outputs = {}
    for _ in range(args.repeats):
        for name, (fn, _) in runs.items():
            t0 = time.perf_counter()
            outputs[name] = fn()
            times[name].append(time.perf_counter() - t0)
    load_after = os.getloadavg()
    processes.close()
    rates = {name: runs[name][1] / min(t) for name, t in times.items()}
    spread = {name: max(t) / min(t) for name, t in times.items()}

    print(f"circle, Constant(eps={args.eps}), similarity, n = 2: {trials:,} trials a call "
          f"(numpy: {args.baseline_trials:,}); {cpus} CPUs ({platform.processor() or '?'}); "
          f"best of {args.repeats}")
    print(f"load average (1, 5, 15 min): before {load_before[0]:.2f} {load_before[1]:.2f} "
          f"{load_before[2]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f} "
          f"{load_after[2]:.2f}")
    print(f"Theorem 1: p_S = {expected:.6f}\n")
    print(f"{'':34s} {'M trials/s':>10s}   spread")
    for name in runs:
        line = f"{name:34s} {rates[name] / 1e6:10.1f}   x{spread[name]:.2f}"
        out = outputs[name]
        if name.startswith("engine") and not isinstance(out, list):
            line += f"   p_S = {out.mean:.6f} +- {out.stderr:.1e} (z = {out.zscore(expected):+.2f})"
        elif name.startswith("straightforward"):
            mean, se = out
            line += f"   p_S = {mean:.6f} +- {se:.1e} (z = {(mean - expected) / se:+.2f})"
        print(line)

    one, many = rates["engine, 1 thread"], rates[f"engine, {cpus} threads"]
    default = rates["engine, default threads"]
    limit = rates[f"PCG64 draws alone, {cpus} threads"]
    base = rates["straightforward numpy"]
    best = max(one, many)
    alone = rates[f"engine, {cpus} processes of 1 thread"]
    print(f"\n{cpus} threads / 1 thread      = {many / one:.2f}x   (PCG64 alone: "
          f"{limit / rates['PCG64 draws alone, 1 thread']:.2f}x; {cpus} processes: "
          f"{alone / one:.2f}x, the machine's own scaling)")
    print(f"engine / PCG64 limit         = {many / limit:.2f}   ({cpus} threads; 1 thread: "
          f"{one / rates['PCG64 draws alone, 1 thread']:.2f})")
    print(f"engine / straightforward     = {best / base:.1f}x")
    checks = {
        f"{cpus} threads >= 1.8x one": many >= 1.8 * one or cpus < 2,
        ">= 180 M trials/s": best >= 180e6,
        "default within 5% of the fastest": default >= 0.95 * best,
        ">= 25 M trials/s and >= 3x numpy": best >= 25e6 and best >= 3 * base,
    }
    print("targets: " + "; ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in checks.items()))

    others = []
    if args.others:
        print(f"\nother configurations ({trials // 10:,} trials, best of {args.repeats}; "
              f"M trials/s on 1 and {cpus} threads):")
        configs = [
            ("circle   Constant(0.1)        identification n=2", spaces.Circle(), kern,
             "identification", 2),
            ("circle   Constant(0.1, .2)    similarity     n=10", spaces.Circle(),
             kernels.Constant(0.1, 0.2), "similarity", 10),
            ("circle   Linear(0.2)          similarity     n=2", spaces.Circle(),
             kernels.Linear(0.2), "similarity", 2),
            ("segment  Constant(0.1)        similarity     n=2", spaces.Segment(), kern,
             "similarity", 2),
            ("sphere   Exponential(0.3,.05) similarity     n=2", spaces.Sphere(),
             kernels.Exponential(0.3, 0.05), "similarity", 2),
            ("discrete 200 pts, ties        similarity     n=2", spaces.Discrete(
                np.abs(np.subtract.outer(np.arange(200), np.arange(200))) / 199.0), kern,
             "similarity", 2),
            ("circle   a callable kernel    similarity     n=2 (general path)", spaces.Circle(),
             lambda d: (d <= 0.1).astype(d.dtype), "similarity", 2),
            ("slots(3) Slotwise(Constant)   similarity     n=2 (general path)", spaces.Slots(3),
             kernels.Slotwise(kern), "similarity", 2),
        ]
        for label, space, k, task, n in configs:
            row = {"configuration": label}
            for threads in (1, cpus):
                best_t = min(_timed(lambda: luce_success(space, k, task, n, trials // 10, 0,
                                                         threads=threads))
                             for _ in range(args.repeats))
                row[f"{threads} thread(s)"] = trials // 10 / best_t
            others.append(row)
            print(f"  {label}: " + "  ".join(f"{v / 1e6:7.1f}" for k_, v in row.items()
                                              if k_ != "configuration"))

    if args.record:
        record = {
            "when": time.strftime("%Y-%m-%d %H:%M %Z"), "commit": commit(),
            "machine": f"{platform.platform()}, {cpus} CPUs", "repeats": args.repeats,
            "trials": trials, "baseline_trials": args.baseline_trials,
            "load_before": load_before, "load_after": load_after,
            "rates": rates, "spread": spread, "threads": cpus,
            "ratio_threads": many / one, "ratio_processes": alone / one,
            "ratio_limit": many / limit, "ratio_numpy": best / base,
            "checks": checks, "others": others,
        }
        path = Path(args.record)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=1))
        os.replace(tmp, path)
        print(f"\nrecorded in {path}")


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
