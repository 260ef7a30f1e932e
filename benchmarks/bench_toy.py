"""Chapter 3's training run: all networks as one batch against the same networks one by one.

Targets (issue 3): the default run (3 conditions x 10 seeds x 500 epochs, exact evaluation every
epoch) in under 60 s on a 2-core CPU, and at least 5x faster than training the networks one at a
time. Prints wall and CPU seconds for both, the speedup, and whether each network of the batch
equals the same network trained alone (it must: the batch changes nothing but speed).

    .venv/bin/python benchmarks/bench_toy.py              # the full default run, both ways
    .venv/bin/python benchmarks/bench_toy.py --alone 6    # time 6 networks alone, extrapolate

Wall time on a shared machine overstates the work; CPU time (this process) shows it too.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from semres.experiments.toy import evaluation, superposition


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=10, help="networks per condition")
    parser.add_argument("--torch-eval", action="store_true",
                        help="evaluate with torch even when numba is installed")
    parser.add_argument("--alone", type=int, default=0,
                        help="networks to train one by one (0: all); the rest is extrapolated")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.seeds < 1 or args.alone < 0:
        parser.error("--epochs and --seeds must be >= 1, --alone >= 0")

    conditions = [c for c in superposition.CONDITIONS for _ in range(args.seeds)]
    seeds = [k for _ in superposition.CONDITIONS for k in range(args.seeds)]
    config = superposition.ToyConfig(epochs=args.epochs)
    n = len(conditions)
    compiled = False if args.torch_eval else None
    compiled_loop = evaluation.numba is not None and not args.torch_eval
    engine = "compiled (numba)" if compiled_loop else "torch"
    print(f"{n} networks, {args.epochs} epochs of {config.steps_per_epoch} batches, "
          f"exact evaluation every epoch ({engine})")

    batch, b_wall, b_cpu = timed(lambda: superposition.train(
        conditions, seeds, config, progress=False, compiled=compiled))
    print(f"batched   : {b_wall:7.1f} s wall {b_cpu:7.1f} s CPU")

    # spread the timed networks over the three conditions
    picked = list(range(n)) if args.alone in (0, n) else list(
        np.linspace(0, n - 1, min(args.alone, n)).round().astype(int))
    a_wall = a_cpu = 0.0
    equal = True
    for k in picked:
        alone, w, c = timed(lambda: superposition.train(
            [conditions[k]], [seeds[k]], config, progress=False, compiled=compiled))
        a_wall += w
        a_cpu += c
        equal &= bool(np.allclose(alone.final_W[0], batch.final_W[k], rtol=0, atol=1e-10)
                      and np.allclose(alone.p_s[0], batch.p_s[k], rtol=0, atol=1e-12))
    scale = n / len(picked)
    label = "one by one" if scale == 1 else f"one by one ({len(picked)} timed, x{scale:.1f})"
    print(f"{label}: {a_wall * scale:7.1f} s wall {a_cpu * scale:7.1f} s CPU")
    print(f"speedup   : {a_wall * scale / b_wall:7.1f}x wall {a_cpu * scale / b_cpu:7.1f}x CPU")
    print(f"batched == alone for the {len(picked)} timed networks: {equal}")
    print(f"targets   : batched < 60 s wall: {b_wall < 60} (CPU {b_cpu < 60}); "
          f">= 5x faster: {a_wall * scale / b_wall >= 5}")


if __name__ == "__main__":
    main()
