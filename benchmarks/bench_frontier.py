"""Chapter 7's n-item certificate: how many linear programs the branch-and-bound needs, and how
long it takes, per (n, floor) and identification, on one profile's grid of levels.

Issue 38 asks for certified frontiers at n = 4 and 8 within a tolerance (1e-3); the chapter's
budget per point is ``floor_nodes`` of its profile. This prints, for the largest gain and
``--targets`` identification levels per (n, floor), the best similarity found, the proven bound,
the gap, whether it closed within ``--nodes`` linear programs, the projection's rank and the
wall seconds, so that a profile's budget can be chosen from measurements.

    .venv/bin/python benchmarks/bench_frontier.py                    # quick grid, 2 targets
    .venv/bin/python benchmarks/bench_frontier.py --profile default --nodes 1000

Wall time on a shared machine overstates the work; CPU time (this process) shows it too.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from semres.experiments.frontier import branch, floor_n, settings, verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("quick", "default", "paper"), default="quick")
    parser.add_argument("--targets", type=int, default=2, help="targets per (n, floor)")
    parser.add_argument("--nodes", type=int, default=0,
                        help="linear programs per point (0: the profile's floor_nodes)")
    args = parser.parse_args(argv)
    if args.targets < 0 or args.nodes < 0:
        parser.error("--targets and --nodes must be >= 0")
    cfg = settings.SETTINGS.profiles[args.profile]
    nodes = args.nodes or cfg.floor_nodes
    clock, cpu = time.perf_counter(), time.process_time()
    front = floor_n.frontier(cfg.floor_ns, cfg.deltas, cfg.floor_grid, cfg.targets, 0, 0)
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


if __name__ == "__main__":
    main()
