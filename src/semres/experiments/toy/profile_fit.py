"""The learned similarity's distance profile h(d), and its fit by a linear decay to a floor.

h(d) is the mean similarity at distance d relative to the mean self-similarity; the fitted
h(d) = Δ + (1 − Δ) max(0, 1 − d/ε) gives the resolution ε a network has given itself and its
noise floor Δ, with the fit's edge flags and its goodness of fit.
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.stats import chi2

from semres.core.fits import bound_report, gof_chi2, gof_none, misfit_size


def profile_basis(distances):
    """Distinct distance levels and the (l·l, levels) matrix that averages G over each level."""
    D = np.asarray(distances, dtype=float)
    levels, inverse = np.unique(np.round(D, 12), return_inverse=True)
    onehot = np.zeros((D.size, len(levels)))
    onehot[np.arange(D.size), inverse.ravel()] = 1.0
    return levels, torch.as_tensor(onehot / onehot.sum(0))


def profile_on_basis(G, basis):
    """:func:`distance_profile` on a :func:`profile_basis` computed once (the trainer's every
    epoch)."""
    # torch, not numpy: a BLAS call this small is dominated by OpenBLAS thread start-up.
    levels, average = basis
    G = torch.as_tensor(G)
    means = (G.flatten(-2).to(average.dtype) @ average).numpy()
    self_sim = means[..., :1]
    return levels, np.divide(means, self_sim, out=np.zeros_like(means), where=self_sim > 0)


def distance_profile(G, distances) -> tuple[np.ndarray, np.ndarray]:
    """Mean learned similarity at each distinct distance, relative to the mean self-similarity.

    Returns (d, h) with d the sorted distinct distances (d[0] = 0, h[..., 0] = 1) and h of shape
    (..., len(d)). Ratios of means, so a dead unit (w_i = 0) cannot divide by zero.
    """
    return profile_on_basis(G, profile_basis(distances))


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


def fit_linear_profile(d, h, eps_grid=None) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares (ε, Δ) of ``linear_profile`` to profiles h (..., len(d)), vectorised.

    For fixed ε the model is linear in Δ (h − φ = Δ(1 − φ) with φ = max(0, 1 − d/ε)), so Δ has a
    closed form and ε is searched on a grid: no iterative optimiser, no starting point. Without
    ``eps_grid``, a coarse grid over [0.2 min d, 1.2 max d] is refined 40-fold around its best
    point. When ε exceeds every distance (g never reaches zero), only the slope (1 − Δ)/ε is
    identified.
    """
    d = np.asarray(d, float)
    h = np.asarray(h, float)
    keep = d > 0
    d, h = d[keep], h[..., keep]
    if eps_grid is not None:
        eps, delta, _ = _fit_on_grid(d, h, np.asarray(eps_grid, float))
        return eps, delta
    coarse = np.linspace(0.2 * d.min(), 1.2 * d.max(), 200)
    step = coarse[1] - coarse[0]
    eps0, _, _ = _fit_on_grid(d, h, coarse)
    fine = eps0[..., None] + np.linspace(-step, step, 81)
    eps, delta, _ = _fit_on_grid(d, h, np.maximum(fine, 0.2 * d.min()))
    return eps, delta


def profile_fit_report(d, eps, delta) -> dict:
    """``fits.bound_report`` of one ``fit_linear_profile`` result against its search range.

    The default search runs ε over [0.2 min d, 1.2 max d] (positive distances) and Δ over
    [0, 1]; a fit on an edge is censored (a flat profile, say, has no resolution to find).
    """
    d = np.asarray(d, float)
    d = d[d > 0]
    return bound_report({"eps": eps, "delta": delta},
                        {"eps": (0.2 * d.min(), 1.2 * d.max()), "delta": (0.0, 1.0)})


def _level_stats(G, distances):
    """Each distance level's mean ratio G_ij / mean(G_ii) over its unordered pairs, the
    standard error of that mean and the pair count, for the levels with a spread; None when
    every unit is dead."""
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
    return levels[ok], mean[ok], se[ok], count[ok]


def profile_fit_gof(G, distances, eps, delta) -> dict:
    """Goodness of fit of ``linear_profile(eps, delta)`` to one network's learned similarity G.

    Each distance level's mean ratio G_ij / mean(G_ii) gets the standard error of a mean over
    its unordered pairs (pairs that share a stimulus are treated as independent, so the errors
    are if anything too small and the test strict); the chi-square of the standardised
    residuals (2 parameters) is :func:`semres.core.fits.gof_chi2`. Levels with no spread (a single
    pair, or every pair alike) give no standard error and are left out.
    """
    stats = _level_stats(G, distances)
    if stats is None:
        return gof_none("no self-similarity (every unit dead)")
    levels, mean, se, _ = stats
    if len(levels) <= 2:
        return gof_none(f"{len(levels)} distance levels with a spread, for 2 parameters")
    return gof_chi2(mean, linear_profile(levels, eps, delta), se, 2)


def profile_fit_terms(G, distances, eps, delta) -> dict | None:
    """What :func:`profile_misfit_size` pools of one network's linear fit (the levels of
    :func:`profile_fit_gof`): the fit's chi-square ``chi2_fit`` on ``df`` degrees of freedom,
    and the levels' ``observed`` mean ratios, the line's ``predicted`` values, the flat
    profile's (``flat``: their plain mean, a similarity that does not depend on distance,
    fitted by least squares like the line) and the means' standard errors ``se``; None where
    the fit cannot be tested."""
    stats = _level_stats(G, distances)
    if stats is None or len(stats[0]) <= 2:
        return None
    levels, mean, se, _ = stats
    fit = linear_profile(levels, eps, delta)
    return {"chi2_fit": float(np.sum(((mean - fit) / se) ** 2)), "df": len(levels) - 2,
            "observed": mean, "predicted": fit, "flat": np.full_like(mean, mean.mean()),
            "se": se}


def profile_misfit_size(terms) -> dict:
    """How far linear profiles miss the networks' learned similarities, pooled over fits
    (``terms``, :func:`profile_fit_terms` of each), in the keys of
    :func:`semres.core.fits.misfit_size`, with the pooled chi-square's ``gof_p`` and the number
    of ``fits``. The lines are least-squares fits, so their miss is measured as they were
    fitted, by the summed squared gap between the levels' mean ratios and the line: the
    ``dispersion`` is that gap over what the levels' sampling alone leaves a true two-parameter
    line (their squared standard errors, times (levels - 2) / levels); ``explained_null`` the
    share of a flat profile's squared gap the lines remove, ``explained_saturated`` the share of
    the structure beyond sampling; ``rms_gap`` the root-mean-square gap beside ``rms_sampling``,
    the levels' root-mean-square standard error."""
    terms = [t for t in terms if t is not None]
    if not terms:
        raise ValueError("terms: no testable fit to pool")
    obs, pred, flat, se = (np.concatenate([t[k] for t in terms])
                           for k in ("observed", "predicted", "flat", "se"))
    sampling = sum(float(np.sum(t["se"] ** 2)) * t["df"] / len(t["se"]) for t in terms)
    size = misfit_size(float(np.sum((obs - pred) ** 2)), float(np.sum((obs - flat) ** 2)),
                       sampling, obs, pred, np.ones_like(obs))
    # the levels are means of similarity ratios, not binomial rates: sampling leaves their
    # standard errors, not sqrt(p (1 - p) / n)
    size["rms_sampling"] = float(np.sqrt(np.mean(se**2)))
    stat, df = sum(t["chi2_fit"] for t in terms), sum(t["df"] for t in terms)
    return {**size, "gof_p": float(chi2.sf(stat, df)), "fits": len(terms)}
