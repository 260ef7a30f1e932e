"""Four families of similarity shapes on the circle (constant, linear, exponential, Gaussian,
each with or without a floor), their exact two-item rates against the engine and over a sweep
of scales, and the bound of chapter 7's floor proposition."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from semres.core import shapes, spaces, theory
from semres.core.simulate import TASKS, luce_success

from .settings import DEFAULT


def floor_bound(p_i, delta):
    """The floor proposition's bound on p_S at ``p_i`` (two items, delta <= g <= 1)."""
    m = np.minimum(1 - delta, 4 * (1 - (1 + delta) * np.asarray(p_i)))
    return 0.5 + 0.5 * m / (m + 2 * delta)


def family_check(trials: int, stream, scales=DEFAULT.check_scales,
                 deltas=DEFAULT.check_deltas) -> pd.DataFrame:
    """Each (family, scale, floor) cell's exact two-item rates against the engine; ``z`` the
    larger of the two tests'."""
    rows = []
    jobs = [(f, s, dl) for f, ss in scales.items() for s in ss for dl in deltas]
    for j, (fam, scale, dl) in enumerate(tqdm(jobs, desc="families, Monte Carlo",
                                              mininterval=2)):
        kern = shapes.Family(fam, scale, dl)
        p_s, p_i = shapes.circle_two_item(kern)
        est = {task: luce_success(spaces.Circle(), kern, task, 2, trials,
                                  seed=stream("family_check", j, k))
               for k, task in enumerate(TASKS)}
        z_s, z_i = est["similarity"].zscore(p_s), est["identification"].zscore(p_i)
        rows.append({"family": fam, "scale": scale, "delta": dl, "p_i": p_i, "p_s": p_s,
                     "p_i_mc": est["identification"].mean, "p_s_mc": est["similarity"].mean,
                     "z": z_s if abs(z_s) >= abs(z_i) else z_i,
                     "se_i": est["identification"].stderr, "se_s": est["similarity"].stderr})
    return pd.DataFrame(rows)


def family_sweep(count: int, ranges=DEFAULT.sweep, deltas=DEFAULT.sweep_deltas) -> pd.DataFrame:
    """Each family's exact (p_I, p_S) over ``count`` geometric scales per floor, with the
    front (no floor) and the floor bound."""
    rows = []
    for fam, (lo, hi) in tqdm(ranges.items(), desc="families, exact sweep"):
        for dl in deltas:
            for scale in np.geomspace(lo, hi, count):
                p_s, p_i = shapes.circle_two_item(shapes.Family(fam, scale, dl))
                rows.append({"family": fam, "scale": float(scale), "delta": dl,
                             "p_i": p_i, "p_s": p_s})
    sweep = pd.DataFrame(rows)
    sweep["front"] = np.where(sweep.delta == 0, theory.front(np.clip(sweep.p_i, 0.5, 1)),
                              np.nan)
    sweep["bound"] = floor_bound(sweep.p_i, sweep.delta.where(sweep.delta > 0, np.nan))
    return sweep


def linear_peak_b() -> float:
    """Proposition 1's optimum ball measure b* = 1 / (2 (3/2 - log 2)) (chapter 3)."""
    return 1 / (2 * (1.5 - math.log(2)))
