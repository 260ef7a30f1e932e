"""The learned similarity's profile h(d) (mean similarity at distance d over the mean
self-similarity) and its fit h(d) = Δ + (1 − Δ) max(0, 1 − d/ε), with goodness of fit."""

from __future__ import annotations

import numpy as np
import torch
from scipy.stats import chi2

from semres.core.fits import bound_report, gof_chi2, gof_none, misfit_size

#: why a network's fit has no goodness-of-fit test (the ``gof_test`` column of its table)
DEAD, TOO_FEW = ("no self-similarity (every unit dead)",
                 "{} distance levels with a spread, for 2 parameters")


def profile_basis(distances):
    """Distinct distance levels and the (l·l, levels) matrix that averages G over each level."""
    D = np.asarray(distances, dtype=float)
    levels, inverse = np.unique(np.round(D, 12), return_inverse=True)
    onehot = np.zeros((D.size, len(levels)))
    onehot[np.arange(D.size), inverse.ravel()] = 1.0
    return levels, torch.as_tensor(onehot / onehot.sum(0))


def profile_on_basis(G, basis):
    """(d, h): the distinct distances and each level's mean similarity over the mean
    self-similarity (ratios of means: a dead unit cannot divide by zero)."""
    # torch, not numpy: a BLAS call this small is dominated by OpenBLAS thread start-up.
    levels, average = basis
    G = torch.as_tensor(G)
    means = (G.flatten(-2).to(average.dtype) @ average).numpy()
    self_sim = means[..., :1]
    return levels, np.divide(means, self_sim, out=np.zeros_like(means), where=self_sim > 0)


def linear_profile(d, eps, delta=0.0):
    """g(d) = Δ + (1 − Δ) max(0, 1 − d/ε): linear decay to a noise floor Δ (g(0) = 1)."""
    d, eps, delta = np.asarray(d, float), np.asarray(eps, float), np.asarray(delta, float)
    return delta + (1.0 - delta) * np.maximum(0.0, 1.0 - d / eps)


def _fit_on_grid(d, h, eps_grid):
    """Best (ε, Δ, squared error) over a grid of ε, Δ in closed form for each ε."""
    phi = np.maximum(0.0, 1.0 - d[..., None, :] / eps_grid[..., :, None])  # (..., grid, k)
    q = 1.0 - phi
    resid = h[..., None, :] - phi
    qq = (q * q).sum(-1)
    delta = np.clip(np.divide((resid * q).sum(-1), qq, out=np.zeros(resid.shape[:-1]),
                              where=qq > 0), 0.0, 1.0)
    sse = ((resid - delta[..., None] * q) ** 2).sum(-1)
    best = sse.argmin(-1)[..., None]
    pick = lambda a: np.take_along_axis(np.broadcast_to(a, sse.shape), best, -1)[..., 0]
    return pick(eps_grid), pick(delta), pick(sse)


def fit_linear_profile(d, h) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares (ε, Δ) of ``linear_profile`` to profiles h (..., len(d)): Δ in closed form
    for each ε on a grid over [0.2 min d, 1.2 max d], refined 40-fold around its best."""
    keep = np.asarray(d, float) > 0
    d, h = np.asarray(d, float)[keep], np.asarray(h, float)[..., keep]
    coarse = np.linspace(0.2 * d.min(), 1.2 * d.max(), 200)
    step = coarse[1] - coarse[0]
    eps0, _, _ = _fit_on_grid(d, h, coarse)
    fine = eps0[..., None] + np.linspace(-step, step, 81)
    eps, delta, _ = _fit_on_grid(d, h, np.maximum(fine, 0.2 * d.min()))
    return eps, delta


def profile_fit_report(d, eps, delta) -> dict:
    """``fits.bound_report`` of a fit against its search range: on an edge it is censored (a
    flat profile has no resolution to find)."""
    d = np.asarray(d, float)[np.asarray(d, float) > 0]
    return bound_report({"eps": eps, "delta": delta},
                        {"eps": (0.2 * d.min(), 1.2 * d.max()), "delta": (0.0, 1.0)})


def _level_stats(G, distances):
    """Each level's mean ratio G_ij / mean(G_ii) over its pairs and its standard error, for
    the levels with a spread; None when every unit is dead."""
    G = np.asarray(G, float)
    D = np.round(np.asarray(distances, float), 12)
    scale = np.mean(np.diag(G))
    if not scale > 0:
        return None
    iu = np.triu_indices(len(D), 1)
    x, d = G[iu] / scale, D[iu]
    levels, inv = np.unique(d, return_inverse=True)
    count = np.bincount(inv).astype(float)
    mean = np.bincount(inv, x) / count
    var = np.bincount(inv, (x - mean[inv]) ** 2) / np.maximum(count - 1, 1)
    se = np.sqrt(var / count)
    ok = (count > 1) & (se > 1e-12 * max(1.0, float(np.abs(mean).max())))
    return levels[ok], mean[ok], se[ok]


def profile_fit_test(G, distances, eps, delta) -> dict:
    """One network's fit against each distance level's mean ratio, with the standard error of
    a mean over its pairs (taken as independent: a strict test): its chi-square ``gof`` and,
    where tested, what :func:`profile_misfit_size` pools (``observed``, ``predicted``, a
    ``flat`` profile's, ``se``)."""
    stats = _level_stats(G, distances)
    if stats is None or len(stats[0]) <= 2:
        return {"gof": gof_none(DEAD if stats is None else TOO_FEW.format(len(stats[0])))}
    levels, mean, se = stats
    fit = linear_profile(levels, eps, delta)
    return {"gof": gof_chi2(mean, fit, se, 2), "observed": mean, "predicted": fit,
            "flat": np.full_like(mean, mean.mean()), "se": se}


def profile_misfit_size(terms) -> dict:
    """How far the lines miss, pooled over the tested fits (:func:`semres.core.fits.misfit_size`
    by squared gaps, as the lines were fitted), with the pooled ``gof_p`` and the ``fits``."""
    terms = [t for t in terms if "se" in t]
    if not terms:
        raise ValueError("terms: no testable fit to pool")
    obs, pred, flat, se = (np.concatenate([t[k] for t in terms])
                           for k in ("observed", "predicted", "flat", "se"))
    sampling = sum(float(np.sum(t["se"] ** 2)) * t["gof"]["gof_df"] / len(t["se"])
                   for t in terms)
    size = misfit_size(float(np.sum((obs - pred) ** 2)), float(np.sum((obs - flat) ** 2)),
                       sampling, obs, pred, np.ones_like(obs))
    # the levels are means of ratios, not binomial rates: sampling leaves their errors
    size["rms_sampling"] = float(np.sqrt(np.mean(se**2)))
    stat = sum(t["gof"]["gof_stat"] for t in terms)
    df = sum(t["gof"]["gof_df"] for t in terms)
    return {**size, "gof_p": float(chi2.sf(stat, df)), "fits": len(terms)}
