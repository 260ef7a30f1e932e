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

The "share a name" matrix (:func:`shared_members`) is not positive semi-definite, so a
multivariate sandwich built on it can give negative variances (a mean's variance is kept at
least its independent-trials one by :func:`clustered_mean`). For several estimates at once
(a kernel's bins) use the cluster bootstrap (:func:`cluster_bootstrap`: clusters resampled with
replacement, the estimate recomputed from each resample's weights), or project a sandwich onto
the positive semi-definite matrices (:func:`psd`, the eigenvalue fix of Cameron, Gelbach and
Miller 2011).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse
from scipy.stats import t as student

__all__ = ["clustered_mean", "shared_members", "cluster_bootstrap", "bootstrap_mean", "psd"]


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


def psd(cov) -> np.ndarray:
    """The covariance matrix ``cov`` with its negative eigenvalues set to 0 (the eigenvalue fix
    of Cameron, Gelbach and Miller 2011 for multiway cluster sandwiches): positive
    semi-definite, and no variance on its diagonal below the one it had."""
    cov = np.asarray(cov, float)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1] or not np.isfinite(cov).all():
        raise ValueError("cov must be a finite square matrix")
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2)
    return (vecs * np.clip(vals, 0, None)) @ vecs.T


def cluster_bootstrap(statistic, clusters, n_boot: int, seed) -> np.ndarray:
    """Replicates of ``statistic`` over resamples of whole clusters.

    ``clusters`` labels each row (any hashable values); each resample draws as many clusters as
    there are, with replacement, and calls ``statistic(weights)`` with each row's weight (how
    many times its cluster was drawn; 0 when it was not). Returns the replicates stacked,
    shape (n_boot, ...). ``seed``: a named stream (:func:`semres.core.seeds.named_seed`).
    Rows of one cluster move together, so whatever correlates within a cluster is carried; what
    correlates across clusters is not. The variance of the replicates estimates the sampling
    variance of the statistic over designs with the same number of clusters (for a mean, with
    the factor (G - 1) / G of the plug-in estimate over G clusters).
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


def bootstrap_mean(values, clusters, *, n_boot: int, seed, level: float = 0.95) -> dict:
    """Mean of per-row ``values`` with a cluster-bootstrap interval (:func:`cluster_bootstrap`):
    ``p``, ``se`` (the replicates' standard deviation), ``ci_low``/``ci_high`` (percentile
    interval at ``level``), ``clusters``, ``trials``."""
    x = np.asarray(values, float)
    if x.ndim != 1 or len(x) < 2 or not np.isfinite(x).all():
        raise ValueError("values must hold at least two finite trials")
    if len(np.asarray(clusters)) != len(x):
        raise ValueError(f"clusters must label each of the {len(x)} trials")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    reps = cluster_bootstrap(lambda w: (w @ x) / w.sum(), clusters, n_boot, seed)
    lo, hi = np.percentile(reps, [50 * (1 - level), 50 * (1 + level)])
    return {"p": float(x.mean()), "se": float(reps.std(ddof=1)), "ci_low": float(lo),
            "ci_high": float(hi), "clusters": int(len(np.unique(clusters))), "trials": len(x)}
