"""Means of trials that share people: intervals that count a repeated name once.

A language-model trial lists several people, and the same names come back in many trials, so
trials are not independent: a model that happens to know one name's year well lifts every trial
that lists it. Treating the trials as independent understates the uncertainty (with a pool of 6
names, an interval of ±0.025 becomes ±0.15). The variance here is the cluster-robust sandwich for
trials that belong to several clusters at once (the dyadic-robust estimator of Aronow, Samii
and Assenova 2015, generalised to lists of any length): the covariance of two trials is counted
whenever they list a common name, and trials with no name in common are taken as independent.
Its reference is Student's t with one degree of freedom fewer than the number of names. With
many names it covers at its nominal level; with very few it runs short, as every sandwich
estimator does (95 % intervals over 6 names covered the true mean in about 88 % of synthetic
runs, against 29 % for intervals that treat trials as independent; over 60 names 96 % against
74 %; ``tests/test_clustered.py``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse
from scipy.stats import t as student

__all__ = ["clustered_mean", "shared_members"]


def shared_members(members) -> "scipy.sparse.csr_matrix":  # noqa: F821
    """(m, m) 0/1 sparse matrix: 1 where two trials list at least one common name (and on the
    diagonal). ``members`` is an (m, k) integer array of name indices (k names per trial)."""
    members = np.asarray(members)
    if members.ndim != 2 or len(members) == 0:
        raise ValueError("members must be a non-empty (trials, names per trial) array")
    m, k = members.shape
    codes, cols = np.unique(members.ravel(), return_inverse=True)
    incidence = sparse.csr_matrix((np.ones(m * k), (np.repeat(np.arange(m), k), cols)),
                                  shape=(m, len(codes)))
    incidence.data[:] = 1.0
    incidence.sum_duplicates()
    incidence.data[:] = 1.0
    shared = (incidence @ incidence.T).tocsr()
    shared.data[:] = 1.0
    return shared


def clustered_mean(values, members, *, p0: float | None = None, level: float = 0.95) -> dict:
    """Mean of per-trial ``values`` with an interval over the names the trials list.

    Returns ``p`` (the mean), ``se`` (cluster-robust, never below the standard error that
    treats trials as independent), ``se_iid`` (that one), ``ci_low``/``ci_high`` (Student's t
    with ``names - 1`` degrees of freedom), ``names`` (distinct names), ``trials``, and with
    ``p0`` the one-sided p-value of "mean > p0".
    """
    x = np.asarray(values, float)
    members = np.asarray(members)
    if x.ndim != 1 or len(x) < 2:
        raise ValueError("values must hold at least two trials")
    if len(members) != len(x):
        raise ValueError(f"members must give the names of each of the {len(x)} trials")
    if not np.isfinite(x).all():
        raise ValueError("values must be finite")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    m = len(x)
    mean = float(x.mean())
    e = x - mean
    shared = shared_members(members)
    names = len(np.unique(members))
    # the sandwich with the usual small-sample factor G / (G - 1) over G clusters (names)
    var = float(e @ (shared @ e)) / m ** 2 * names / max(names - 1, 1)
    var_iid = float(e @ e) / (m * (m - 1))
    se = math.sqrt(max(var, var_iid))
    df = max(names - 1, 1)
    half = float(student.ppf(0.5 + level / 2, df)) * se
    out = {"p": mean, "se": se, "se_iid": math.sqrt(var_iid), "ci_low": mean - half,
           "ci_high": mean + half, "names": names, "trials": m, "df": df}
    if p0 is not None:
        out["p_value"] = (float(student.sf((mean - p0) / se, df)) if se > 0
                          else float(mean <= p0))
    return out
