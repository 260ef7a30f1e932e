"""Chapter 7's n-item certificate: how many linear programs the branch-and-bound needs, and how
long it takes, per (n, floor) and identification, on one profile's grid of levels.

Issue 38 asks for certified frontiers at n = 4 and 8 within a tolerance (1e-3); the chapter's
budget per point is ``floor_nodes`` of its profile. This prints, for the largest gain and
``--targets`` identification levels per (n, floor), the best similarity found, the proven bound,
the gap, whether it closed within ``--nodes`` linear programs, the projection's rank and the
wall seconds, so that a profile's budget can be chosen from measurements.

    .venv/bin/python benchmarks/bench_frontier.py                    # quick grid, 2 targets
    .venv/bin/python benchmarks/bench_frontier.py --profile default --nodes 1000
    .venv/bin/python benchmarks/bench_frontier.py --profile paper --delta 0.01   # one floor
    .venv/bin/python benchmarks/bench_frontier.py --why 4 0.01    # why the chords fail there

``--why N DELTA`` measures, at the middle identification target of (N, DELTA), why small floors
are hard: the sizes of V and C (each of order 1 / (N DELTA) while p_S <= 1), and the node bound
of the envelope on boxes around the optimum shrinking towards it, beside the bound with
:func:`.branch.shift` (V's curvature moved onto C where C's cancels it). (The per-t chords alone,
the first relaxation, did far worse: the git history has that comparison.)

Wall time on a shared machine overstates the work; CPU time (this process) shows it too.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from semres.experiments.frontier import branch, floor_n, settings, verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("quick", "default", "paper"), default="quick")
    parser.add_argument("--targets", type=int, default=2, help="targets per (n, floor)")
    parser.add_argument("--nodes", type=int, default=0,
                        help="linear programs per point (0: the profile's floor_nodes)")
    parser.add_argument("--delta", type=float, nargs="+",
                        help="only these floors (of the profile's)")
    parser.add_argument("--n", type=int, nargs="+", help="only these numbers of items")
    parser.add_argument("--why", nargs=2, metavar=("N", "DELTA"),
                        help="measure the envelope against the shift at one (n, floor)")
    args = parser.parse_args(argv)
    if args.targets < 0 or args.nodes < 0:
        parser.error("--targets and --nodes must be >= 0")
    cfg = settings.SETTINGS.profiles[args.profile]
    if args.why:
        return why(int(args.why[0]), float(args.why[1]), cfg.floor_grid)
    nodes = args.nodes or cfg.floor_nodes
    deltas, ns = tuple(args.delta or cfg.deltas), tuple(args.n or cfg.floor_ns)
    if not (set(deltas) <= set(cfg.deltas) and set(ns) <= set(cfg.floor_ns)):
        parser.error(f"--delta and --n must be among the profile's {cfg.deltas} and "
                     f"{cfg.floor_ns}")
    clock, cpu = time.perf_counter(), time.process_time()
    front = floor_n.frontier(ns, deltas, cfg.floor_grid, cfg.targets, 0, 0)
    peaks = floor_n.largest_gain(front, cfg.floor_grid)
    print(f"{args.profile}: {cfg.floor_grid} levels; optima found in "
          f"{time.perf_counter() - clock:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")
    clock, cpu = time.perf_counter(), time.process_time()
    out = pd.concat([
        branch.certify_table(front, verdicts.CERTIFY_TOL, nodes, args.targets)
        .loc[lambda t: t.nodes > 0].assign(point="target"),
        branch.certify_table(peaks, verdicts.CERTIFY_TOL, nodes).assign(point="largest gain")])
    cols = ["n", "delta", "point", "p_i", "p_s", "proposition_bound", "bb_bound", "gap",
            "certified", "nodes", "bb_seconds"]
    print(out[cols].round(5).to_string(index=False))
    print(f"{int(out.certified.sum())} of {len(out)} certified within {verdicts.CERTIFY_TOL:g} "
          f"({nodes} linear programs at most each): {time.perf_counter() - clock:.1f} s wall, "
          f"{time.process_time() - cpu:.1f} s CPU")



def why(n: int, delta: float, grid: int) -> None:
    """The envelope's node bound beside the shifted one's, on boxes around the optimum at the
    middle target, the same tangent planes (at the optimum) in both."""
    opt = floor_n.best_step(float(floor_n.targets(n, delta, 3)[1]), n, delta, grid)
    m0 = opt["masses"]
    new = branch._Problem(opt["levels"], n, delta, m0, verdicts.CERTIFY_TOL)
    L = new.E @ m0
    print(f"n = {n}, delta = {delta:g}, {grid} levels, p_I = {opt['p_i']:.4f}: best p_S "
          f"{opt['p_s']:.4f} = V {new.w @ L ** n:.3f} + C {new.concave(m0)[0].sum():.3f}; "
          f"projection rank {new.rank} ({2 ** new.rank} vertices)")
    target = new.rates(m0)[1]
    lo0, hi0 = new.box()
    z0 = new.B.T @ m0
    for frac in (1.0, 0.3, 0.1, 0.03):
        lo = np.maximum(lo0, z0 - frac * (hi0 - lo0) / 2)
        hi = np.minimum(hi0, z0 + frac * (hi0 - lo0) / 2)
        envelope = branch._relaxation(new, target, lo, hi, [new.cut(m0)])[0]
        shifted = branch._relaxation(new, target, lo, hi, [new.cut(m0)],
                                     shifted=([new.point(m0)], branch.shift(new, lo, hi, 1e-3)))[0]
        print(f"  box {frac:4.2f} of the root's widths around the optimum: bound "
              f"by the envelope {envelope:.4f}, with the shift {shifted:.4f}")


if __name__ == "__main__":
    main()
