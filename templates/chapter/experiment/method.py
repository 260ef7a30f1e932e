"""The science: the engine's two-item rates on the circle beside their closed form."""

from __future__ import annotations

import pandas as pd

from semres.core import kernels, spaces, theory
from semres.core.simulate import luce_success


def check_theorem_1(eps, trials: int, stream) -> pd.DataFrame:
    """One row per resolution and test: closed form, Monte Carlo, its standard error and z."""
    rows = []
    for k, e in enumerate(eps):
        closed = theory.two_item(2 * e)
        for t, task in enumerate(("similarity", "identification")):
            est = luce_success(spaces.Circle(), kernels.Constant(e), task, 2, trials,
                               seed=stream("theorem 1", k, t))
            rows.append({"eps": e, "task": task, "theory": float(closed[t]), "mc": est.mean,
                         "stderr": est.stderr, "z": est.zscore(float(closed[t]))})
    return pd.DataFrame(rows)
