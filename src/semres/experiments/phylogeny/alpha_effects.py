"""What raising α changes: each measure's effect from the baseline α with its Welch interval
over seeds, and p_S at *matched* identification (read off each model's ε-sweep: at equal
ε-quantiles two models differ in identification too)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from semres.core.intervals import difference_interval

from .settings import DEFAULT

#: the measures whose change with α chapter 4 reports, with their names in its tables
METRICS = {
    "sim_accuracy": "triplet accuracy, trained species",
    "ood_sim_accuracy": "triplet accuracy, held-out species",
    "best_p_s": "best p_S over ε",
    "id_auc": "identification ROC AUC",
    "mean_p_i": "p_I at equal ε-quantiles (mean)",
    "final_val_accuracy": "validation accuracy (classifier)",
}
#: the columns of ``matched_curve.csv`` and of ``tradeoff.csv``, in order
MATCHED_COLUMNS = ["p_i", "effect", "ci_low", "ci_high"]
TRADEOFF_COLUMNS = ["alpha", "seed", "eps", "p_s", "p_s_all", "p_i", "p_s_ood", "p_s_theory",
                    "p_i_theory", "mean_b", "var_b"]


def result_tables(results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs as ``tradeoff`` (a row per run and ε) and ``by_alpha`` (a row per run: its
    summaries, final validation accuracy, training time, mean p_I and best p_S)."""
    tradeoff = pd.concat([pd.DataFrame({"alpha": r["alpha"], "seed": r["seed"], **r["curve"]})
                          for r in results], ignore_index=True)[TRADEOFF_COLUMNS]
    curve_stats = tradeoff.groupby(["alpha", "seed"]).agg(
        mean_p_i=("p_i", "mean"), best_p_s=("p_s", "max")).reset_index()
    by_alpha = pd.DataFrame([{"alpha": r["alpha"], "seed": r["seed"], **r["summary"],
                              "final_val_accuracy": r["history"][-1]["val_accuracy"],
                              "train_seconds": r["train_seconds"]} for r in results])
    return tradeoff, by_alpha.merge(curve_stats, on=["alpha", "seed"])


def compared_alphas(alphas) -> tuple[float, float | None, float | None]:
    """The baseline (smallest α), the largest α below 1 (the cross-entropy still on) and 1 (the
    cross-entropy off); None for one not run."""
    alphas = sorted(alphas)
    baseline = alphas[0]
    below_one = [a for a in alphas if baseline < a < 1]
    largest_below_one = below_one[-1] if below_one else None
    ce_off = 1.0 if 1.0 in alphas and baseline < 1.0 else None
    return baseline, largest_below_one, ce_off


def by_eps(tradeoff: pd.DataFrame, alpha):
    """The runs of ``alpha`` grouped by their place on the ε grid (seeds share the grid of
    ε-quantiles)."""
    runs = tradeoff[tradeoff.alpha == alpha]
    return runs.assign(k=runs.groupby("seed").cumcount()).groupby("k")


def effect_row(effects: pd.DataFrame, column: str, alpha_to):
    """The row of :func:`effects` for ``column`` at ``alpha_to`` (None: not measured)."""
    row = effects[(effects.column == column) & (effects.alpha_to == alpha_to)]
    return row.iloc[0] if len(row) else None


def _envelope_at(x: np.ndarray, y: np.ndarray, p_i: float) -> float:
    """The highest crossing of ``p_i`` by the piecewise-linear path through a sweep's points
    (NaN where it never reaches it)."""
    hits = list(y[x == p_i])
    for k in range(x.size - 1):
        a, b = x[k], x[k + 1]
        if a != b and min(a, b) < p_i < max(a, b):
            hits.append(y[k] + (y[k + 1] - y[k]) * (p_i - a) / (b - a))
    return float(max(hits)) if hits else math.nan


def ps_at_matched_pi(tradeoff, p_i: float):
    """Each model's (alpha, seed) p_S at identification ``p_i``, read off its ε-sweep. p_I may
    rise and fall back along a sweep: the higher crossing, the best this model does at that
    identification, counts."""
    runs = tradeoff.sort_values("eps", kind="stable").groupby(["alpha", "seed"], sort=True)
    return pd.DataFrame([{"alpha": a, "seed": s, "p_s": _envelope_at(
        g.p_i.to_numpy(float), g.p_s.to_numpy(float), float(p_i))} for (a, s), g in runs])


def _change(hi, lo) -> dict:
    """The difference of the means over seeds, ``hi`` less ``lo``, and its 95 % Welch interval."""
    r = difference_interval(hi, lo)
    return {"effect": r["effect"], "se": r["se"], "df": r["df"], "t": r["t"],
            "ci_low": r["low"], "ci_high": r["high"], "detected": r["excludes_zero"],
            "seeds_from": len(lo), "seeds_to": len(hi)}


def effects(by_alpha, tradeoff, alpha_lo: float, targets, metrics: dict):
    """Each measure of ``metrics`` (column -> name) from ``alpha_lo`` to each α of ``targets``
    (α -> regime), and a last row per target for p_S at matched identification."""
    def one(table, col, a_hi):
        hi, lo = (table.loc[table.alpha == a, col].dropna().to_numpy(float)
                  for a in (a_hi, alpha_lo))
        return _change(hi, lo)

    rows = []
    for a_hi, regime in targets.items():
        base = {"alpha_from": alpha_lo, "alpha_to": a_hi, "regime": regime}
        for col, name in metrics.items():
            rows.append({"measure": name, "column": col, **base, **one(by_alpha, col, a_hi)})
        pi_star = common_pi(tradeoff, [alpha_lo, a_hi])
        if np.isfinite(pi_star):
            at = ps_at_matched_pi(tradeoff[tradeoff.alpha.isin([alpha_lo, a_hi])], pi_star)
            rows.append({"measure": "p_S at matched p_I", "column": "p_s_matched", **base,
                         **one(at, "p_s", a_hi), "p_i": pi_star})
    return pd.DataFrame(rows)


def shared_pi(sub) -> tuple[float, float]:
    """The p_I range every model (α, seed) of ``sub`` reaches."""
    if sub.empty:
        return math.nan, math.nan
    span = sub.groupby(["alpha", "seed"]).p_i.agg(["min", "max"])
    return float(span["min"].max()), float(span["max"].min())


def common_pi(tradeoff, alphas) -> float:
    """Where to match models: where the first α's mean sweep peaks in p_S, moved into the p_I
    range every model of ``alphas`` reaches (NaN when they share none)."""
    sub = tradeoff[tradeoff.alpha.isin(list(alphas))]
    lo, hi = shared_pi(sub)
    if not lo <= hi:
        return math.nan
    base = by_eps(sub, alphas[0])[["p_i", "p_s"]].mean()
    return float(np.clip(base.p_i.loc[base.p_s.idxmax()], lo, hi))


def matched_curve(tradeoff, alpha_lo: float, alpha_hi: float,
                  points: int = DEFAULT.matched_points):
    """The effect on p_S at matched p_I at ``points`` p_I across the range every model of both
    α reaches: how much the headline, fixed at the baseline's peak before looking, depends on
    that choice."""
    sub = tradeoff[tradeoff.alpha.isin([alpha_lo, alpha_hi])]
    lo, hi = shared_pi(sub)
    if not lo < hi:
        return pd.DataFrame(columns=[*MATCHED_COLUMNS, "se", "df"])
    rows = []
    for p_i in np.linspace(lo, hi, int(points)):
        at = ps_at_matched_pi(sub, float(p_i))
        hi_ps, lo_ps = (at.loc[at.alpha == a, "p_s"].to_numpy(float) for a in (alpha_hi, alpha_lo))
        rows.append({"p_i": float(p_i), **_change(hi_ps, lo_ps)})
    return pd.DataFrame(rows)

