"""A compositional pilot: stimuli with K slots, each a point on its own circle, judged slot
by slot with a constant kernel and combined by max, product or mean; the codes' rates by the
engine and in closed form, the max code's wrong preferences, and the codes at equal
identification."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.stats import binom
from tqdm.auto import tqdm

from semres.core import kernels, spaces, theory
from semres.core.simulate import TASKS, luce_success
from semres.core.validate import one_of

from .settings import DEFAULT


def slot_sweep(eps, trials: int, stream, jobs=DEFAULT.slot_jobs) -> pd.DataFrame:
    """(p_I, p_S) of each slot code in ``jobs`` by the engine, per per-slot radius."""
    rows = []
    for j, (K, comb) in enumerate(tqdm(jobs, desc="slots, Monte Carlo")):
        space = spaces.Slots(K)
        for i, e in enumerate(eps):
            kern = kernels.Slotwise(kernels.Constant(float(e)),
                                    "max" if comb == "single" else comb)
            est = {task: luce_success(space, kern, task, 2, trials,
                                      seed=stream("slot_sweep", j, i, k))
                   for k, task in enumerate(TASKS)}
            rows.append({"K": K, "combine": comb, "scale": float(e),
                         "p_i": est["identification"].mean, "p_s": est["similarity"].mean,
                         "se_i": est["identification"].stderr,
                         "se_s": est["similarity"].stderr})
    return pd.DataFrame(rows)


def slot_match(comb: str, b, K):
    """The measure of the similar set of a 0/1 code: any slot matches (max), or every one."""
    one_of(comb, ("max", "product"), "comb")  # a 0/1 code; the mean code has its own form
    return 1 - (1 - b) ** K if comb == "max" else b**K


def slot_identification(comb: str, b: float, K: int) -> float:
    """Closed-form p_I of a slot code with per-slot ball measure ``b`` (the mean code gives
    the other item 1 / (1 + J / K), J ~ Bin(K, b))."""
    if comb == "mean":
        j = np.arange(K + 1)
        return float((binom.pmf(j, K, b) / (1 + j / K)).sum())
    return float(theory.two_item(slot_match(comb, b, K))[1])


def sorted_mean_code(b: float, K: int) -> float:
    """p_S of the mean code's values sorted by distance: the most any ordering reaches."""
    j = np.arange(K + 1)
    P = binom.pmf(j, K, b)
    with np.errstate(invalid="ignore"):
        share = np.where(j[:, None] + j[None] > 0, np.maximum.outer(j, j)
                         / np.add.outer(j, j), 0.5)
    return float(P @ share @ P)


def wrong_preference(K: int, e: float, trials: int, rng) -> float:
    """The max code's share of trials preferring the farther item: the deficit w."""
    d = spaces.Slots(K).distances(rng, 2, trials)
    g = kernels.Slotwise(kernels.Constant(e), "max")(d)
    far = spaces.Slots(K).combine(d).argmax(axis=0)[None]
    return float((np.take_along_axis(g, far, 0) > np.take_along_axis(g, 1 - far, 0)).mean())


def slots_at_equal_identification(trials: int, stream, levels=DEFAULT.equal_pi,
                                  K: int = DEFAULT.equal_slots) -> pd.DataFrame:
    """Each code at the per-slot radius giving each identification level: its p_S by the
    engine, the front and (mean code) its sorted bound, with z of p_S above each."""
    rows = []
    for i, p_target in enumerate(levels):
        for k, comb in enumerate(("max", "product", "mean")):
            b_ = brentq(lambda x: slot_identification(comb, x, K) - p_target, 1e-9, 1 - 1e-9)
            kern = kernels.Slotwise(kernels.Constant(b_ / 2), comb)
            est = luce_success(spaces.Slots(K), kern, "similarity", 2, trials,
                               seed=stream("slot_equal_pi", i, k))
            rows.append({"p_i": p_target, "combine": comb, "scale": b_ / 2,
                         "p_s": est.mean, "se_s": est.stderr,
                         "front": float(theory.front(p_target)),
                         "sorted_bound": sorted_mean_code(b_, K) if comb == "mean"
                         else float(theory.front(p_target))})
    equal = pd.DataFrame(rows)
    equal["above_z"] = (equal.p_s - equal.front) / equal.se_s
    equal["bound_z"] = (equal.p_s - equal.sorted_bound) / equal.se_s
    return equal


def heights(sweep: pd.DataFrame):
    """Each cell's height above the front (and in standard errors), and per (K, code) the
    highest cell."""
    out = sweep.assign(above=sweep.p_s - theory.front(np.clip(sweep.p_i, 0.5, 1)))
    out["above_z"] = out.above / out.se_s
    best = out.loc[out.groupby(["K", "combine"]).above_z.idxmax()].set_index(["K", "combine"])
    return out, best


def checked_sweep(slots: pd.DataFrame, slot_eps, trials: int, wrong_eps: float, stream,
                  z_max: float) -> dict:
    """The sweep's exact checks (AssertionError on a miss): one slot is Theorem 1, the 0/1
    codes' p_I their closed forms, and the max code's deficit below the front its share ``w``
    of wrong preferences. Returns the sweep with heights, the best cells, z, w and its p_I."""
    one = slots[slots.K == 1]
    ps1, pi1 = theory.two_item(2 * one.scale.to_numpy())
    z1 = np.r_[(one.p_s - ps1) / one.se_s, (one.p_i - pi1) / one.se_i]
    assert np.all(np.abs(z1) < z_max), z1
    for comb in ("max", "product"):
        sel = slots[slots["combine"] == comb]
        match = slot_match(comb, 2 * sel.scale.to_numpy(), sel.K.to_numpy())
        se = np.sqrt(match * (1 - match) / 4 / trials)
        assert np.all(np.abs((sel.p_i - theory.two_item(match)[1]) / se) < z_max), comb
    slots, best = heights(slots)
    e_wrong = float(slot_eps[np.argmin(np.abs(slot_eps - wrong_eps))])  # the radius nearest
    wrong = {K: wrong_preference(K, e_wrong, trials,
                                 np.random.default_rng(stream("wrong_slot_preference", K)))
             for K in (1, 2, 4)}
    sel = slots[slots["combine"].isin(["max", "single"]) & np.isclose(slots.scale, e_wrong)]
    sel = sel.set_index("K")
    for K in (2, 4):
        deficit = theory.front(sel.loc[K].p_i) - sel.loc[K].p_s
        assert abs(deficit - wrong[K]) < z_max * np.hypot.reduce(
            [sel.loc[K].se_s, 2 * sel.loc[K].se_i, np.sqrt(wrong[K] / trials)])
    return {"slots": slots, "best": best, "z1": z1, "wrong": wrong, "e_wrong": e_wrong,
            "p_i": sel.p_i}
