"""Means of trials that share people: intervals that count a repeated name once.

A language-model trial lists several people and the same names recur across trials, so trials are
not independent (with 6 names, ±0.025 becomes ±0.15). The variance is the cluster-robust sandwich
for trials in several clusters at once (the dyadic-robust estimator of Aronow, Samii and Assenova
2015): two trials covary when they list a common name. Its reference is Student's t on names - 1
degrees of freedom; with very few names it runs short, as every sandwich does
(``tests/test_clustered.py``). The share-a-name matrix is not positive semi-definite, so for
several estimates at once use :func:`cluster_bootstrap` or :func:`psd`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse
from scipy.stats import t as student

__all__ = ["clustered_mean", "shared_members", "cluster_bootstrap", "psd"]


def shared_members(members) -> "scipy.sparse.csr_matrix":  # noqa: F821
    """(m, m) 0/1 sparse matrix, 1 where two trials list a common name (and on the diagonal), from
    an (m, k) array of name indices.
    """
    members = np.asarray(members)
    if members.ndim != 2 or len(members) == 0:
        raise ValueError("members must be a non-empty (trials, names per trial) array")
    m, k = members.shape
    codes, cols = np.unique(members.ravel(), return_inverse=True)
    incidence = sparse.csr_matrix((np.ones(m * k), (np.repeat(np.arange(m), k), cols)),
                                  shape=(m, len(codes)))
    incidence.sum_duplicates()
    incidence.data[:] = 1.0
    shared = (incidence @ incidence.T).tocsr()
    shared.data[:] = 1.0
    return shared


def clustered_mean(values, members, *, p0: float | None = None, level: float = 0.95) -> dict:
    """Mean of per-trial ``values`` with an interval over the names the trials list: ``p``, ``se``
    (cluster-robust, never below ``se_iid``), ``ci_low``/``ci_high`` (t on names - 1 df),
    ``names``, ``trials``, and with ``p0`` the one-sided p-value of "mean > p0".
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


def psd(cov) -> np.ndarray:
    """``cov`` with its negative eigenvalues set to 0 (Cameron, Gelbach and Miller 2011)."""
    cov = np.asarray(cov, float)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1] or not np.isfinite(cov).all():
        raise ValueError("cov must be a finite square matrix")
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2)
    return (vecs * np.clip(vals, 0, None)) @ vecs.T


def cluster_bootstrap(statistic, clusters, n_boot: int, seed) -> np.ndarray:
    """``statistic(weights)`` over ``n_boot`` resamples of whole clusters (each row weighted by how
    often its cluster was drawn), stacked. ``seed``: a named stream.
    """
    if seed is None:
        raise ValueError("seed must be given (a named stream): a bootstrap is a random draw")
    n_boot = int(n_boot)
    if n_boot < 2:
        raise ValueError(f"n_boot must be >= 2; got {n_boot!r}")
    labels = np.asarray(clusters)
    if labels.ndim != 1 or len(labels) == 0:
        raise ValueError("clusters must label each row (a non-empty 1-D array)")
    codes = np.unique(labels, return_inverse=True)[1].ravel()
    g = int(codes.max()) + 1
    if g < 2:
        raise ValueError("clusters: a bootstrap needs at least two clusters")
    rng = np.random.default_rng(seed)
    out = [np.asarray(statistic(np.bincount(rng.integers(0, g, g), minlength=g)[codes]
                                .astype(float)), float) for _ in range(n_boot)]
    return np.stack(out)
