"""What chapter 3 reads off its trained networks: unbiased peaks, the trajectories, the
predictions of each network's own profile and of the linear profile, and the reconstruction
networks against Theorem 2."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import torch
from scipy.ndimage import uniform_filter1d

from semres.core import fits, theory
from semres.core.intervals import mean_interval

from .evaluation import GEOMETRIES, TrialTable, exact_scores, stimulus_distances
from .profile_fit import (linear_profile, profile_fit_report, profile_fit_test,
                          profile_misfit_size)
from .superposition import CONDITIONS, ToyHistory, similarity_matrix

#: why a row of ``trajectories.csv`` between snapshots has no goodness of fit
NOT_KEPT = "the per-pair similarities are kept at snapshot epochs only"


def held_out_peak(p_s, smooth: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each network's p_S at the epoch where the *other* networks' mean trajectory, smoothed
    over ``smooth`` epochs, peaks: (values, epochs). A network's own maximum picks its luckiest
    epoch (biased upward). One network: its own smoothed maximum."""
    p_s = np.asarray(p_s, float)
    k = len(p_s)
    others = p_s if k == 1 else (p_s.sum(0)[None, :] - p_s) / (k - 1)
    epochs = uniform_filter1d(others, smooth, axis=1, mode="nearest").argmax(1)
    if k == 1:
        return uniform_filter1d(p_s, smooth, axis=1, mode="nearest")[0, epochs], epochs
    return p_s[np.arange(k), epochs], epochs


def trajectory_table(history: ToyHistory, replicates) -> pd.DataFrame:
    """One row per network and epoch: exact (p_S, p_I), the fitted (ε, Δ) with its edge flags
    and, at the snapshots, its goodness of fit."""
    cond, n_epochs = np.array(history.conditions), history.p_s.shape[1]
    dist_of = {g: stimulus_distances(history.final_W.shape[2], g) for g in GEOMETRIES}
    table = pd.DataFrame({
        "condition": np.repeat(cond, n_epochs), "seed": np.repeat(list(replicates), n_epochs),
        "epoch": np.tile(np.arange(n_epochs), len(cond)), "p_s": history.p_s.ravel(),
        "p_i": history.p_i.ravel(), "eps_fit": history.eps_fit.ravel(),
        "delta_fit": history.delta_fit.ravel()})
    edges = [profile_fit_report(history.profile_d[history.geometry(c)], e, dl)
             for c, e, dl in zip(table.condition, table.eps_fit, table.delta_fit)]
    table["at_bound"] = [r["at_bound"] for r in edges]
    table["bound_params"] = [r["bound_params"] for r in edges]
    gofs = [profile_fit_test(history.snapshots[ep][k], dist_of[history.geometry(c)], e,
                             dl)["gof"] if ep in history.snapshots else fits.gof_none(NOT_KEPT)
            for k, c, ep, e, dl in zip(np.repeat(np.arange(len(cond)), n_epochs),
                                       table.condition, table.epoch, table.eps_fit,
                                       table.delta_fit)]
    return pd.concat([table, fits.gof_frame(gofs)], axis=1)


def own_profile_prediction(history: ToyHistory, condition: str, every: int):
    """(epochs, p_s, p_i): exact scores of each ``condition`` network's own distance profile
    h(d_ij) every ``every`` epochs, what it would do if its similarity depended on distance
    alone."""
    geometry = history.geometry(condition)
    dist = stimulus_distances(history.final_W.shape[2], geometry)
    table = TrialTable.from_distances(dist)
    levels = history.profile_d[geometry]
    level_of = np.searchsorted(levels, np.round(dist, 12))
    epochs = np.arange(0, history.p_s.shape[1], every)
    h = history.profiles[np.array(history.conditions) == condition][:, epochs, : len(levels)]
    ps, pi = np.empty(h.shape[:2]), np.empty(h.shape[:2])
    for lo in range(0, len(epochs), 8):  # chunks keep the (.., 58 800) temporaries small
        a, c = exact_scores(torch.tensor(h[:, lo : lo + 8][..., level_of]), table)
        ps[:, lo : lo + 8], pi[:, lo : lo + 8] = a.numpy(), c.numpy()
    return epochs, ps, pi


def linear_profile_scores(geometry: str, eps, n_stimuli: int):
    """Exact (p_S, p_I) of Proposition 1's linear profile at each ``eps`` on the stimuli."""
    dist = stimulus_distances(n_stimuli, geometry)
    G = torch.tensor(linear_profile(dist[None], np.asarray(eps)[:, None, None]))
    return tuple(v.numpy() for v in exact_scores(G, TrialTable.from_distances(dist)))


def distance_to_curve(ps, pi, curve_s, curve_i):
    """Distance in the (p_I, p_S) plane from each point to a densely sampled curve."""
    return np.sqrt((ps[..., None] - curve_s) ** 2 + (pi[..., None] - curve_i) ** 2).min(-1)


def jensen_term(W) -> float:
    """Mean over networks of mean 1/(1 + x) − 1/(1 + mean x), x the off-diagonal ratios
    G_ij / G_jj: what a spread floor adds to p_I above Theorem 2's 1/(1 + Δ) (never < 0)."""
    G = similarity_matrix(torch.tensor(W)).numpy()
    x = G / np.diagonal(G, axis1=1, axis2=2)[:, :, None]
    x = x[:, ~np.eye(x.shape[1], dtype=bool)]
    return float(np.mean(np.mean(1 / (1 + x), 1) - 1 / (1 + x.mean(1))))


def reconstruction_floor(history: ToyHistory) -> dict:
    """The reconstruction networks against Theorem 2: final floor ``delta``, p_I's ``ci``, the
    ``predicted`` 1/(1 + Δ), the ``gap`` (also at epoch ``mid``), the ``jensen`` term."""
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
    """How far the linear fits miss the networks' similarity, pooled over the snapshots after
    initialisation."""
    cond = np.array(history.conditions)
    terms = [profile_fit_test(history.snapshots[ep][k],
                               stimulus_distances(history.final_W.shape[2],
                                                  history.geometry(cond[k])),
                               history.eps_fit[k, ep], history.delta_fit[k, ep])
             for ep in sorted(history.snapshots) if ep > 0
             for k in np.flatnonzero(np.isin(cond, list(conditions)))]
    if not any("se" in t for t in terms):
        return {key: math.nan for key in (*fits.SIZE_KEYS, "gof_p")} | {"fits": 0}
    return profile_misfit_size(terms)


def analyse(history: ToyHistory, n_stimuli: int) -> SimpleNamespace:
    """The chapter's predictions for the trained networks (each one's own profile every 1 % of
    the epochs, the linear profile on the same stimuli, Proposition 1) and its measurements:
    each peak held out with 2 % of the epochs smoothed. Circle and segment runs are paired, so
    the shortfall's interval is that of the per-seed differences."""
    cond = np.array(history.conditions)
    circ, n_epochs = cond == "circle", history.p_s.shape[1]
    own = {c: own_profile_prediction(history, c, max(1, n_epochs // 100)) for c in CONDITIONS}
    eps_line = np.linspace(0.005, 0.5, 300)
    disc_s, disc_i = linear_profile_scores("circle", eps_line, n_stimuli)
    disc_seg_s = linear_profile_scores("segment", eps_line, n_stimuli)[0]
    prop_s, prop_i = theory.linear_circle(np.linspace(0, 1, 2001))
    smooth = max(1, n_epochs // 50)
    held = {c: held_out_peak(history.p_s[cond == c], smooth) for c in CONDITIONS}
    after = np.arange(n_epochs)[None, :] >= held["circle"][1][:, None]
    peaks = {c: held[c][0] for c in GEOMETRIES}
    short = peaks["circle"] - peaks["segment"]
    own_gap = {}  # own-profile prediction minus measurement, after the peak and at the start
    for c in GEOMETRIES:
        ep_, ps_, pi_ = own[c]
        late = ep_[None, :] >= held[c][1][:, None]
        gap_s, gap_i = ps_ - history.p_s[cond == c][:, ep_], pi_ - history.p_i[cond == c][:, ep_]
        own_gap[c] = {"s": gap_s[late].mean(), "i": gap_i[late].mean(),
                      "s_early": gap_s[:, :2].mean()}
    fit_s, fit_i = theory.linear_circle(np.minimum(2 * history.eps_fit[circ], 1.0))
    return SimpleNamespace(
        own=own, disc_s=disc_s, disc_i=disc_i, disc_peak=float(disc_s.max()),
        disc_short=float(disc_s.max() - disc_seg_s.max()), prop_s=prop_s, prop_i=prop_i,
        smooth=smooth, held=held, after=after,
        d_prop=distance_to_curve(history.p_s[circ], history.p_i[circ], prop_s, prop_i),
        d_disc=distance_to_curve(history.p_s[circ], history.p_i[circ], disc_s, disc_i),
        eps_at_peak=history.eps_fit[circ][np.arange(circ.sum()), held["circle"][1]],
        peaks=peaks, raw_peaks={c: history.p_s[cond == c].max(1) for c in GEOMETRIES},
        peak_ci=mean_interval(peaks["circle"]), short=short, short_ci=mean_interval(short),
        fit_s=fit_s, fit_i=fit_i, own_gap=own_gap, rec=reconstruction_floor(history),
        linear_size=linear_fit_size(history))
