"""What chapter 3 reads off its trained networks: the peak, the trajectories' tidy table, the
predictions of each network's own profile and of the linear profile on the same stimuli, and
the reconstruction networks' floor against Theorem 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from scipy.ndimage import uniform_filter1d

from semres.core import fits, theory
from semres.core.intervals import mean_interval

from .evaluation import GEOMETRIES, TrialTable, exact_scores, stimulus_distances
from .profile_fit import (linear_profile, profile_fit_gof, profile_fit_report,
                          profile_fit_terms, profile_misfit_size)
from .settings import DEFAULT
from .superposition import CONDITIONS, ToyHistory, similarity_matrix


def held_out_peak(p_s, smooth: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each network's p_S at the epoch where the *other* networks peak: (values, epochs).

    The maximum of a network's own trajectory is biased upward (it picks the epoch where its
    training noise happened to be largest). Choosing the epoch from the mean trajectory of the
    other seeds, smoothed by a centred moving average of ``smooth`` epochs, makes the choice
    independent of the network it is applied to, so its value there is an unbiased estimate
    of the expected p_S at a peak epoch chosen in advance. With one network there are no
    others: its own smoothed maximum is returned (less biased than the raw one, not unbiased).
    """
    p_s = np.asarray(p_s, float)
    if p_s.ndim != 2 or p_s.shape[1] < 1:
        raise ValueError("p_s must be a (networks, epochs) array")
    if isinstance(smooth, bool) or not isinstance(smooth, (int, np.integer)) or smooth < 1:
        raise ValueError(f"smooth must be an integer >= 1; got {smooth!r}")
    k = len(p_s)
    if k == 1:
        sm = uniform_filter1d(p_s, smooth, axis=1, mode="nearest")
        e = sm.argmax(1)
        return sm[0, e], e
    others = (p_s.sum(0)[None, :] - p_s) / (k - 1)
    epochs = uniform_filter1d(others, smooth, axis=1, mode="nearest").argmax(1)
    return p_s[np.arange(k), epochs], epochs


def trajectory_table(history: ToyHistory, replicates) -> pd.DataFrame:
    """One row per network and epoch: the exact (p_S, p_I), the fitted profile (ε, Δ) with
    the fit's edge flags (``at_bound``, ``bound_params``: a fit on an edge of its search range
    is censored, not estimated) and, at the snapshot epochs where the per-pair similarities
    are kept, its goodness of fit (:func:`.profile_fit.profile_fit_gof`); elsewhere
    ``gof_tested`` is False and ``misfit`` empty. ``replicates`` labels each network (its
    ``seed`` column)."""
    cond = np.array(history.conditions)
    n_epochs = history.p_s.shape[1]
    dist_of = {g: stimulus_distances(history.final_W.shape[2], g) for g in GEOMETRIES}
    table = pd.DataFrame({
        "condition": np.repeat(cond, n_epochs),
        "seed": np.repeat(list(replicates), n_epochs),
        "epoch": np.tile(np.arange(n_epochs), len(cond)),
        "p_s": history.p_s.ravel(),
        "p_i": history.p_i.ravel(),
        "eps_fit": history.eps_fit.ravel(),
        "delta_fit": history.delta_fit.ravel(),
    })
    reports = [profile_fit_report(history.profile_d[history.geometry(c)], e, dl)
               for c, e, dl in zip(table.condition, table.eps_fit, table.delta_fit)]
    table["at_bound"] = [r["at_bound"] for r in reports]
    table["bound_params"] = [r["bound_params"] for r in reports]
    no_gof = fits.gof_none("the per-pair similarities are kept at snapshot epochs only")
    gofs = [profile_fit_gof(history.snapshots[ep][k], dist_of[history.geometry(c)], e, dl)
            if ep in history.snapshots else no_gof
            for k, c, ep, e, dl in zip(np.repeat(np.arange(len(cond)), n_epochs),
                                       table.condition, table.epoch, table.eps_fit,
                                       table.delta_fit)]
    return pd.concat([table, fits.gof_frame(gofs)], axis=1)


def own_profile_prediction(history: ToyHistory, condition: str, every: int):
    """Exact (p_S, p_I) of each ``condition`` network's own distance profile h(d_ij), every
    ``every`` epochs: what the network would do if its similarity depended on distance alone.
    Returns (epochs, p_s, p_i), the last two of shape (networks, epochs)."""
    geometry = history.geometry(condition)
    members = np.array(history.conditions) == condition
    dist = stimulus_distances(history.final_W.shape[2], geometry)
    table = TrialTable.from_distances(dist)
    levels = history.profile_d[geometry]
    level_of = np.searchsorted(levels, np.round(dist, 12))
    epochs = np.arange(0, history.p_s.shape[1], every)
    h = history.profiles[members][:, epochs, : len(levels)]  # (networks, epochs, levels)
    ps, pi = np.empty(h.shape[:2]), np.empty(h.shape[:2])
    for lo in range(0, len(epochs), 8):  # chunks keep the (.., 58 800) temporaries small
        chunk = torch.tensor(h[:, lo : lo + 8][..., level_of])
        a, c = exact_scores(chunk, table)
        ps[:, lo : lo + 8], pi[:, lo : lo + 8] = a.numpy(), c.numpy()
    return epochs, ps, pi


def own_profile_gaps(history: ToyHistory, own: dict, held: dict) -> dict:
    """Each similarity condition's own-profile prediction (``own``, from
    :func:`own_profile_prediction`) minus its measurement: ``s`` and ``i`` averaged after each
    network's peak epoch (``held``, from :func:`held_out_peak`), ``s_early`` over the first two
    sampled epochs."""
    cond = np.array(history.conditions)
    gaps = {}
    for c in ("circle", "segment"):
        ep_, ps_, pi_ = own[c]
        m = cond == c
        late = ep_[None, :] >= held[c][1][:, None]
        gaps[c] = {"s": (ps_ - history.p_s[m][:, ep_])[late].mean(),
                   "i": (pi_ - history.p_i[m][:, ep_])[late].mean(),
                   "s_early": (ps_ - history.p_s[m][:, ep_])[:, :2].mean()}
    return gaps


def linear_profile_scores(geometry: str, eps, n_stimuli: int = DEFAULT.n_stimuli):
    """Exact (p_S, p_I) of the linear profile max(0, 1 - d/ε) at each ``eps`` on the
    ``n_stimuli`` stimuli of ``geometry``: Proposition 1's similarity on the same discrete
    space the networks see."""
    dist = stimulus_distances(n_stimuli, geometry)
    G = torch.tensor(linear_profile(dist[None], np.asarray(eps)[:, None, None]))
    return tuple(v.numpy() for v in exact_scores(G, TrialTable.from_distances(dist)))


def distance_to_curve(ps, pi, curve_s, curve_i):
    """Euclidean distance in the (p_I, p_S) plane from each point to a densely sampled curve."""
    return np.sqrt((ps[..., None] - curve_s) ** 2 + (pi[..., None] - curve_i) ** 2).min(-1)


def jensen_term(W) -> float:
    """Mean over networks of mean 1/(1 + x) − 1/(1 + mean x), x the off-diagonal similarity
    ratios G_ij / G_jj of the weights ``W``: what the spread of a learned floor adds to p_I
    above Theorem 2's 1/(1 + Δ) (1/(1 + x) is convex, so it is never negative)."""
    G = similarity_matrix(torch.tensor(W)).numpy()
    x = G / np.diagonal(G, axis1=1, axis2=2)[:, :, None]
    x = x[:, ~np.eye(x.shape[1], dtype=bool)]
    return float(np.mean(np.mean(1 / (1 + x), 1) - 1 / (1 + x.mean(1))))


def reconstruction_floor(history: ToyHistory) -> dict:
    """The reconstruction networks against Theorem 2: their final fitted floor ``delta``, p_I
    with its interval over seeds (``ci``, :func:`semres.core.intervals.mean_interval`), the
    prediction 1/(1 + Δ) (``predicted``) and the ``gap`` between them; the same gap at an early
    epoch (``gap_mid`` at ``mid``); the ``jensen`` term of the final weights (Jensen's
    inequality fixes the gap's sign: the mean success over pairs, mean 1/(1 + x_ij), is at
    least 1/(1 + mean x); it is what a spread floor adds to Theorem 2's single-floor law, the
    comparison's practical margin: :func:`.verdicts.reconstruction_margin`); and their final
    ``p_s``."""
    rec = np.array(history.conditions) == "reconstruction"
    n_epochs = history.p_s.shape[1]
    delta = float(history.delta_fit[rec, -1].mean())
    ci = mean_interval(history.p_i[rec, -1])
    predicted = float(theory.two_item(0.0, delta=delta)[1])
    mid = min(n_epochs - 1, max(1, (n_epochs - 1) // 5))
    return {"delta": delta, "ci": ci, "predicted": predicted, "gap": ci["mean"] - predicted,
            "jensen": jensen_term(history.final_W[rec]), "mid": mid,
            "gap_mid": float((history.p_i[rec, mid]
                              - 1 / (1 + history.delta_fit[rec, mid])).mean()),
            "p_s": history.p_s[rec, -1].mean()}


def linear_fit_size(history: ToyHistory, conditions=GEOMETRIES) -> dict:
    """How far the fitted linear profiles miss the learned similarities of the ``conditions``
    networks, pooled over every snapshot after initialisation
    (:func:`.profile_fit.profile_misfit_size`): the size that a misfit of the linear profile
    reports beside its p-value. NaNs where no fit could be tested."""
    cond = np.array(history.conditions)
    terms = [profile_fit_terms(history.snapshots[ep][k],
                               stimulus_distances(history.final_W.shape[2],
                                                  history.geometry(cond[k])),
                               history.eps_fit[k, ep], history.delta_fit[k, ep])
             for ep in sorted(history.snapshots) if ep > 0
             for k in np.flatnonzero(np.isin(cond, list(conditions)))]
    if not any(t is not None for t in terms):
        return {key: math.nan for key in (*fits.SIZE_KEYS, "gof_p")} | {"fits": 0}
    return profile_misfit_size(terms)


@dataclass
class ToyAnalysis:
    """Everything chapter 3 reads off its trained networks (:func:`analyse`)."""

    own: dict  # condition -> own-profile prediction (epochs, p_s, p_i)
    disc_s: np.ndarray  # the linear profile on the circle's stimuli, over eps_line
    disc_i: np.ndarray
    disc_peak: float  # its highest p_S
    disc_short: float  # its circle-minus-segment gap in peak p_S
    prop_s: np.ndarray  # Proposition 1's continuous curve
    prop_i: np.ndarray
    smooth: int  # epochs of the moving average that picks the held-out peak epoch
    held: dict  # condition -> held_out_peak (values, epochs)
    after: np.ndarray  # (circle networks, epochs): at or after each network's peak epoch
    d_prop: np.ndarray  # each circle point's distance to Proposition 1's curve
    d_disc: np.ndarray  # ... and to the linear profile on the 50 stimuli
    eps_at_peak: np.ndarray  # each circle network's fitted ε at its peak epoch
    peaks: dict  # "circle", "segment" -> each network's held-out peak p_S
    raw_peaks: dict  # ... its own maximum over epochs
    peak_ci: dict  # mean_interval of the circle peaks
    short: np.ndarray  # per-seed circle-minus-segment peak (paired runs)
    short_ci: dict  # its mean_interval
    fit_s: np.ndarray  # Proposition 1 at each circle network's fitted ε, every epoch
    fit_i: np.ndarray
    own_gap: dict  # own_profile_gaps
    rec: dict  # reconstruction_floor
    linear_size: dict  # linear_fit_size of the similarity networks


def analyse(history: ToyHistory, n_stimuli: int = DEFAULT.n_stimuli) -> ToyAnalysis:
    """The chapter's three predictions for the trained networks and its measurements of them.

    The predictions, from the most to the least specific: each network's own distance profile
    on the same stimuli (every 1 % of the epochs), the linear profile on the same
    ``n_stimuli`` stimuli, and Proposition 1's continuous curve. The circle networks' peak is
    each network's p_S at the epoch where the *other* seeds' mean trajectory, smoothed over
    2 % of the epochs, peaks (an unbiased estimate; a network's own maximum picks its
    luckiest epoch); after it, each point's distance to the two curves. Intervals over seeds
    are Student's t on n - 1 degrees of freedom; circle and segment runs share their seeds'
    initial weights and trials, so the shortfall's interval is that of the per-seed
    differences.
    """
    cond = np.array(history.conditions)
    n_epochs = history.p_s.shape[1]
    own = {c: own_profile_prediction(history, c, max(1, n_epochs // 100))
           for c in CONDITIONS}
    eps_line = np.linspace(0.005, 0.5, 300)
    disc_s, disc_i = linear_profile_scores("circle", eps_line, n_stimuli)
    disc_seg_s = linear_profile_scores("segment", eps_line, n_stimuli)[0]
    prop_s, prop_i = theory.linear_circle(np.linspace(0, 1, 2001))
    circ = cond == "circle"
    smooth = max(1, n_epochs // 50)
    held = {c: held_out_peak(history.p_s[cond == c], smooth)
            for c in CONDITIONS}
    peak_epoch = held["circle"][1]
    after = np.arange(n_epochs)[None, :] >= peak_epoch[:, None]
    peaks = {c: held[c][0] for c in ("circle", "segment")}
    short = peaks["circle"] - peaks["segment"]
    fit_s, fit_i = theory.linear_circle(np.minimum(2 * history.eps_fit[circ], 1.0))
    return ToyAnalysis(
        own=own, disc_s=disc_s, disc_i=disc_i, disc_peak=float(disc_s.max()),
        disc_short=float(disc_s.max() - disc_seg_s.max()), prop_s=prop_s, prop_i=prop_i,
        smooth=smooth, held=held, after=after,
        d_prop=distance_to_curve(history.p_s[circ], history.p_i[circ], prop_s, prop_i),
        d_disc=distance_to_curve(history.p_s[circ], history.p_i[circ], disc_s, disc_i),
        eps_at_peak=history.eps_fit[circ][np.arange(circ.sum()), peak_epoch],
        peaks=peaks, raw_peaks={c: history.p_s[cond == c].max(1) for c in ("circle", "segment")},
        peak_ci=mean_interval(peaks["circle"]), short=short, short_ci=mean_interval(short),
        fit_s=fit_s, fit_i=fit_i, own_gap=own_profile_gaps(history, own, held),
        rec=reconstruction_floor(history), linear_size=linear_fit_size(history))
