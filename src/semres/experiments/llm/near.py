"""The year resolution where it lives: probes within years of a person, a kernel fitted across
distances."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy.stats import t as student

from semres.core import spaces
from semres.core.clustered import clustered_mean
from semres.core.fits import (bootstrap_at_bound, bound_report, gof_none, gof_p_bootstrap,
                              gof_result, misfit_rule, percentile_interval)
from semres.core.seeds import named_seed
from semres.core.results import correct_mask, split_list
from semres.core.simulate import luce_success
from semres.core.validate import at_least

from .settings import NAMES, QUESTIONS, TASKS
from .kernel_fits import (ALPHA, LEVEL, graded, shape_half_decay, shape_chance_return,
                          trend_finding)
from .trials import Trials
from .two_reference import (binomial_nll, chance_crossover, cluster_tables, fit_logs,
                            two_reference, two_reference_counts)


#: the rows of this design in a model's tidy table
SOURCE = "near design"
#: the similarity shapes k(d / s) fitted on a floor; the last adds an exact-match term w [d = 0]
#: to the exponential, as the encoder's second exponential does (a model that weighs the very
#: year apart from its neighbours, then decays)
SHAPES = ("exponential", "gaussian", "step", "exact + exponential")
#: their names among the kernel's shapes
_NAMED = {"exponential": "exp_floor", "gaussian": "gaussian", "step": "step",
          "exact + exponential": "exp_floor"}
#: search ranges of the scale s (years), the floor Delta and the exact-match weight w
BOUNDS = {"scale": (0.05, 1e4), "floor": (1e-6, 10.0)}
EXACT_BOUNDS = {**BOUNDS, "exact": (1e-4, 1e3)}
#: the parameters each shape fits, and the grid its fit starts from
PARAMS = {s: ("scale", "floor", "exact") if s == "exact + exponential" else ("scale", "floor")
          for s in SHAPES}
_STARTS = {"scale": (3.0, 10.0, 30.0, 100.0), "floor": (0.02, 0.3, 3.0), "exact": (0.01, 0.3, 3.0)}


def design(Ds, xs, pairs_per_D: int, seed, *, centres=(1500, 1700), n_names: int = len(NAMES),
           n_templates: int | None = None, probes: int = 0) -> Trials:
    """The near design: for each D, pairs of people (each its own centre) born at c -/+ D,
    probes x years beyond the pair for every x in ``xs`` and inside it for 0 < x < D, on both
    sides, each pair in both orders (one group per pair and order). ``probes`` > 0 gives each
    pair that many of its distances at random: precision rests on pairs, the clusters of every
    interval, more than on probes per pair."""
    Ds = [at_least(int(D), 1, "Ds") for D in Ds]
    xs = sorted({int(x) for x in xs})
    if not xs or xs[0] < 0:
        raise ValueError(f"xs must be distances >= 0 years; got {xs!r}")
    pairs_per_D = at_least(int(pairs_per_D), 2, "pairs_per_D")
    probes = at_least(int(probes), 0, "probes")
    if 2 * pairs_per_D * len(Ds) > n_names:
        raise ValueError(f"pairs_per_D: {pairs_per_D} pairs for each of {len(Ds)} gaps need "
                         f"{2 * pairs_per_D * len(Ds)} distinct names; the pool holds {n_names}")
    lo, hi = (int(v) for v in centres)
    rng = np.random.default_rng(seed)
    pairs = rng.permutation(n_names)[:2 * pairs_per_D * len(Ds)].reshape(len(Ds), pairs_per_D, 2)
    n_templates = len(QUESTIONS["similarity"]) if n_templates is None else n_templates
    rows = {k: [] for k in ("names", "years", "probe", "correct", "template", "group")}
    group = 0
    for di, D in enumerate(Ds):
        for pi in range(pairs_per_D):
            c = int(rng.integers(lo, hi))
            reach = [D + x for x in xs] + [D - x for x in xs if 0 < x < D]
            if probes and probes < len(reach):
                reach = sorted(rng.choice(reach, probes, replace=False).tolist())
            offsets = [s * r for r in reach for s in (-1, 1)]
            template = rng.integers(0, n_templates, len(offsets))
            for order in ((0, 1), (1, 0)):
                ys = np.array([c - D, c + D])[list(order)]
                for o, t in zip(offsets, template):
                    dist = np.abs(ys - (c + o))
                    rows["names"].append(pairs[di, pi][list(order)])
                    rows["years"].append(ys)
                    rows["probe"].append(c + o)
                    rows["correct"].append(dist == dist.min())
                    rows["template"].append(t)
                    rows["group"].append(group)
                group += 1
    return Trials("similarity", *(np.asarray(rows[k]) for k in rows))


def verdict_probes(trials: Trials, *, near: float, far: float) -> np.ndarray:
    """The trials :func:`competence` reads (probes beyond the pair, at most ``near`` or at
    least ``far`` years out): scored first, they judge a model; the rest matter only to one
    that does similarity."""
    if not 0 <= near < far:
        raise ValueError(f"near and far must satisfy 0 <= near < far; got {near!r}, {far!r}")
    years = np.asarray(trials.years, float)
    D = np.abs(years[:, 1] - years[:, 0]) / 2
    offset = np.abs(np.asarray(trials.probe, float) - years.mean(1))
    x = np.abs(offset - D)  # as trial_table measures it
    return (offset >= D) & ((x <= near) | (x >= far))


def trial_table(rows) -> pd.DataFrame:
    """One row per trial of the near design from a model's tidy rows: the pair (its cluster),
    D, offset, x, beyond or between, and three answers (the Luce mass on the nearer person,
    greedy, sampled)."""
    d = rows[rows.source == SOURCE]
    if d.empty:
        raise ValueError(f"rows: no trial of the {SOURCE}")
    years = np.array([[float(v) for v in split_list(p)] for p in d.position])
    scores = np.array([[float(v) for v in split_list(s)] for s in d.scores])
    ok = np.array(correct_mask(d))
    if ok.shape[1] != 2 or (ok.sum(1) != 1).any():
        raise ValueError("rows: the near design lists two people and never probes the midpoint")
    prob = np.exp(scores - scores.max(1, keepdims=True))
    prob /= prob.sum(1, keepdims=True)
    chose = np.array([split_list(o).index(c) for o, c in zip(d.options, d.choice)])
    names = [sorted(split_list(o)) for o in d.options]
    centre = years.mean(1)
    D = np.abs(years[:, 1] - years[:, 0]) / 2
    offset = d.probe.astype(float).to_numpy() - centre
    x = np.abs(np.abs(offset) - D)
    return pd.DataFrame({
        "model": d.model.to_numpy(), "pair": ["|".join(n) for n in names],
        "name_a": [n[0] for n in names], "name_b": [n[1] for n in names], "D": D,
        "offset": offset, "x": x,
        "where": np.where(np.abs(offset) >= D, "beyond", "between"),
        "mass": (prob * ok).sum(1), "greedy": ok[np.arange(len(ok)), scores.argmax(1)],
        "sampled": ok[np.arange(len(ok)), chose], "first": prob[:, 0]})


def _members(t: pd.DataFrame) -> np.ndarray:
    codes = {n: i for i, n in enumerate(sorted(set(t.name_a) | set(t.name_b)))}
    return np.array([[codes[a], codes[b]] for a, b in zip(t.name_a, t.name_b)])


def curve_table(trials: pd.DataFrame) -> pd.DataFrame:
    """P(correct) per model, D, side and x: the mean mass with its interval over pairs of
    names, greedy accuracy and the share of sampled answers."""
    out = []
    for (m, D, where, x), sub in trials.groupby(["model", "D", "where", "x"]):
        c = _pair_t(sub.groupby("pair").mass.mean().to_numpy(), 0.5)
        out.append({"model": m, "D": D, "where": where, "x": x, "mass": c["p"],
                    "mass_ci_low": c["ci_low"], "mass_ci_high": c["ci_high"],
                    "greedy": float(sub.greedy.mean()), "sampled": float(sub.sampled.mean()),
                    "pairs": sub.pair.nunique(), "trials": len(sub)})
    return pd.DataFrame(out)


def _pair_t(values: np.ndarray, alternative_above: float = 0.0) -> dict:
    """Mean over pairs with Student's t (pairs - 1 degrees of freedom), one-sided p of
    "mean > ``alternative_above``"."""
    v = np.asarray(values, float)
    k = len(v)
    mean = float(v.mean())
    se = float(v.std(ddof=1) / math.sqrt(k)) if k > 1 else math.nan
    half = float(student.ppf(0.975, k - 1)) * se if k > 1 else math.nan
    p = float(student.sf((mean - alternative_above) / se, k - 1)) if k > 1 and se > 0 else \
        (0.0 if mean > alternative_above else 1.0)
    return {"p": mean, "se": se, "ci_low": mean - half, "ci_high": mean + half, "pairs": k,
            "p_value": p}


def competence(trials: pd.DataFrame, *, near: float = 5, far: float = 50) -> dict:
    """Whether a model does similarity where a resolution would show: near the pair its mass on
    the nearer person exceeds 1/2 and the mass ``far`` or more years beyond (a decaying curve,
    not a flat one), both one-sided tests over pairs of names at the trend's level ``ALPHA``."""
    beyond = trials[trials["where"] == "beyond"]
    by_pair = beyond.assign(near=beyond.x <= near, far=beyond.x >= far)
    close = by_pair[by_pair.near].groupby("pair").mass.mean()
    away = by_pair[by_pair.far].groupby("pair").mass.mean()
    both = close.index.intersection(away.index)
    if len(both) < 2 or len(close) < 2:
        raise ValueError("trials: too few pairs with probes near and far to judge similarity")
    above = _pair_t(close.to_numpy(), 0.5)
    decay = _pair_t((close[both] - away[both]).to_numpy(), 0.0)
    greedy = by_pair[by_pair.near].groupby("pair").greedy.mean()
    does = above["p_value"] < ALPHA and decay["p_value"] < ALPHA
    return {"near": near, "far": far, "above": above, "decay": decay,
            "trend": decay_trend(trials),
            "greedy_near": float(greedy.mean()), "far_mass": float(away.mean()),
            "x_range": (float(beyond.x.min()), float(beyond.x.max())),
            "verdict": "passes" if does else "does not do the task", "does": bool(does)}


def decay_trend(trials: pd.DataFrame) -> dict:
    """Whether P(correct) falls with the distance beyond the pair: each pair's slope of its
    mass on ln(1 + x), averaged over pairs (Student's t), in the kernel's form."""
    beyond = trials[trials["where"] == "beyond"]
    slopes = []
    for _, sub in beyond.groupby("pair"):
        x = np.log1p(sub.x.to_numpy(float))
        if np.ptp(x) > 0:
            xm = x - x.mean()
            slopes.append(float(np.sum(xm * sub.mass.to_numpy(float)) / np.sum(xm ** 2)))
    if len(slopes) < 2:
        raise ValueError("trials: fewer than two pairs probed at two distances beyond the pair")
    v = np.asarray(slopes)
    k = len(v)
    est = float(v.mean())
    se = float(v.std(ddof=1) / math.sqrt(k))
    q = float(student.ppf(0.5 + LEVEL / 2, k - 1))
    lo, hi = est - q * se, est + q * se
    p = float(student.cdf(est / se, k - 1)) if se > 0 else float(est >= 0)
    return trend_finding("slope of P(correct) on ln(1 + x) beyond the pair", est, lo, hi, p,
                         method=f"mean of {k} pairs' slopes, Student's t", points=k)


# --------------------------------------------------------------------------- the kernel fit

def kernel(shape: str, d, scale: float, exact: float = 0.0) -> np.ndarray:
    """k(d / s), 1 at d = 0: the graded part of the similarity, without its floor; the exact
    + exponential shape adds ``exact`` where d < 1/2 (the very year; years are whole)."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}; got {shape!r}")
    k = graded(_NAMED[shape], d, {"lambda": scale})
    return k + exact * (np.abs(np.asarray(d, float)) < 0.5) if PARAMS[shape][2:] else k


def half_decay_of(shape: str, scale: float, floor: float) -> float:
    """Where k(d / s) falls to 1/2, whatever the floor (the decay alone for exact +
    exponential, whose exact-match term is gone one year away)."""
    return shape_half_decay(_NAMED[shape], {"lambda": scale, "floor": floor})


def chance_return_of(shape: str, scale: float, floor: float) -> float:
    """Where the graded part falls to the floor, so answers return to chance."""
    return shape_chance_return(_NAMED[shape], {"lambda": scale, "floor": floor})


def p_correct(shape: str, scale: float, floor: float, D, offset, exact: float = 0.0) -> np.ndarray:
    """The Luce share of the nearer person, people at c -/+ D, probe at c + offset."""
    return two_reference(offset, D, lambda d: kernel(shape, d, scale, exact), floor)


def exact_of(fit) -> float:
    """A fit's exact-match weight: 0 for a shape without one (NaN in a table of shapes)."""
    w = fit.get("exact", 0.0)
    return float(w) if w is not None and np.isfinite(w) else 0.0


def _fit_cells(shape, D, offset, n, k, start=None) -> dict:
    """Maximum likelihood of a shape's parameters (:data:`PARAMS`) on binomial cells."""
    if shape == "step":  # P is 1/2, or q = (1 + Delta) / (1 + 2 Delta) where near <= s < far
        near, far = np.abs(np.abs(offset) - D), np.abs(offset) + D
        cuts = np.unique(np.concatenate([near, far]))
        best = None
        for s in np.concatenate([[BOUNDS["scale"][0]], (cuts[:-1] + cuts[1:]) / 2]):
            inside = (near <= s) & (far > s)
            q = min(max(k[inside].sum() / max(n[inside].sum(), 1e-12), 0.5 + 1e-9), 1 - 1e-9)
            fl = float(np.clip((1 - q) / (2 * q - 1), *BOUNDS["floor"]))
            p = p_correct("step", s, fl, D, offset)
            nll = binomial_nll(p, n, k)
            if best is None or nll < best[0] - 1e-9:
                best = (nll, float(s), fl, p)
        nll, scale, fl, p = best
    else:  # maximum likelihood on the logs of the shape's parameters, from a grid of starts
        names = PARAMS[shape]
        starts = [start] if start is not None else [
            np.log(v) for v in itertools.product(*(_STARTS[name] for name in names))]
        (scale, fl, *exact), nll = fit_logs(
            lambda s, f, *w: p_correct(shape, s, f, D, offset, *w), n, k,
            tuple(zip(*(EXACT_BOUNDS[name] for name in names))), starts)
        p = p_correct(shape, scale, fl, D, offset, *exact)
    out = {"shape": shape, "scale": scale, "floor": fl, "relative_floor": fl / (1 + fl),
           "nll": nll, "p_fit": p, "half_decay": half_decay_of(shape, scale, fl),
           "chance_return": chance_return_of(shape, scale, fl)}
    if PARAMS[shape][2:]:
        out["exact"] = exact[0]
    return out


def _cells(trials: pd.DataFrame) -> pd.DataFrame:
    """Trials, masses and sampled answers per (D, |offset|) cell. Both sides of a pair share a
    cell, so a pair's pull towards one of its names (which the curve does not model) cancels
    inside every cell."""
    return trials.groupby(["D", "offset"]).agg(n=("mass", "size"), mass=("mass", "sum"),
                                               sampled=("sampled", "sum")).reset_index()


def lack_of_fit(trials: pd.DataFrame, cells: pd.DataFrame, fit: dict, refit, n_boot: int,
                seed) -> dict:
    """Whether a fitted curve describes the model: the lack-of-fit F test against pure error
    between pairs of names, referred to a residual bootstrap with refits."""
    units = trials.groupby(["pair", "D", "offset"]).mass.agg(["mean", "size"]).reset_index()
    cell = pd.MultiIndex.from_frame(cells[["D", "offset"]]).get_indexer(
        pd.MultiIndex.from_frame(units[["D", "offset"]]))
    w, y = units["size"].to_numpy(float), units["mean"].to_numpy(float)
    df_lof, df_pe = len(cells) - len(PARAMS[fit["shape"]]), len(units) - len(cells)
    if df_lof < 1 or df_pe < 1:
        return gof_none(f"{len(cells)} cells and {len(units)} pair means: no degrees of freedom")
    weight = np.bincount(cell, w, len(cells))
    pairs = np.bincount(cell, None, len(cells))

    def stat(values, p_cell):
        mean = np.bincount(cell, w * values, len(cells)) / weight
        lof = float(np.sum(weight * (mean - p_cell) ** 2)) / df_lof
        pe = float(np.sum(w * (values - mean[cell]) ** 2)) / df_pe
        return lof / pe if pe > 0 else math.inf, mean

    observed, mean = stat(y, fit["p_fit"])
    resid = (y - mean[cell]) * np.sqrt(pairs[cell] / np.maximum(pairs[cell] - 1, 1))
    rng = np.random.default_rng(seed)
    sims = np.empty(int(n_boot))
    for b in range(int(n_boot)):
        ys = np.clip(fit["p_fit"][cell] + rng.choice(resid, len(resid)), 0, 1)
        sims[b] = stat(ys, refit(np.bincount(cell, w * ys, len(cells))))[0]
    pval, res = gof_p_bootstrap(observed, sims)
    return gof_result(f"lack of fit against pure error between pairs of names (F on {df_lof} "
                      f"and {df_pe} degrees of freedom), residual bootstrap ({int(n_boot)} "
                      f"refits; misfit rule {misfit_rule(res)})", observed, df_lof, pval, res)


def fit_shape(trials: pd.DataFrame, shape: str, *, n_boot: int, gof_boot: int, seed) -> dict:
    """One shape fitted to every D and x by maximum likelihood on the model's masses, with
    intervals over pairs of names (resampled within each D, refitted), the AIC and its lack of
    fit."""
    trials = trials.assign(offset=trials.offset.abs())  # the curve depends on |offset| alone
    cells = _cells(trials)
    D, off, n = (cells[k].to_numpy(float) for k in ("D", "offset", "n"))
    fit = _fit_cells(shape, D, off, n, cells.mass.to_numpy(float))
    bounds = EXACT_BOUNDS if PARAMS[shape][2:] else BOUNDS
    fit.update(bound_report(fit, bounds, log=tuple(bounds)))
    start = None if shape == "step" else np.log([fit[k] for k in PARAMS[shape]])
    if gof_boot:
        fit.update(lack_of_fit(trials, cells, fit,
                               lambda k: _fit_cells(shape, D, off, n, k, start)["p_fit"],
                               gof_boot, named_seed(seed, f"near goodness of fit {shape}")))
    else:
        fit.update(gof_none("no bootstrap asked for"))
    # pair x cell tables: a resample of pairs within each D is a weighted sum of their rows
    pairs = np.unique(trials.pair)
    cell_of = pd.MultiIndex.from_frame(cells[["D", "offset"]]).get_indexer(
        pd.MultiIndex.from_frame(trials[["D", "offset"]]))
    pair_of = np.searchsorted(pairs, trials.pair)
    tab_n, tab_k = cluster_tables(pair_of, cell_of, (len(pairs), len(cells)),
                                  np.ones(len(trials)), trials.mass.to_numpy(float))
    pair_D = trials.groupby("pair").D.first().reindex(pairs).to_numpy()
    strata = [np.flatnonzero(pair_D == d) for d in np.unique(pair_D)]
    rng = np.random.default_rng(named_seed(seed, f"near pairs {shape}"))
    res, back, hit = [], [], []
    for _ in range(int(n_boot)):
        w = np.zeros(len(pairs))
        for s in strata:
            np.add.at(w, rng.choice(s, len(s)), 1.0)
        fb = _fit_cells(shape, D, off, w @ tab_n, w @ tab_k, start)
        res.append(fb["half_decay"])
        back.append(fb["chance_return"])
        hit.append(bound_report(fb, bounds, log=tuple(bounds))["at_bound"])
    fit["half_decay_ci_low"], fit["half_decay_ci_high"] = percentile_interval(res)
    fit["chance_return_ci_low"], fit["chance_return_ci_high"] = (
        percentile_interval(back) if shape != "step" else (math.nan, math.nan))
    fit["boot_at_bound"] = bootstrap_at_bound(hit)
    fit["aic"] = 2 * fit["nll"] + 2 * len(PARAMS[shape])
    fit["pairs"], fit["cells"], fit["trials"] = len(pairs), len(cells), int(n.sum())
    x = trials.x[trials.x > 0]
    fit["finest_x"] = float(x.min()) if len(x) else math.nan
    fit["x_max"] = float(trials.x.max())
    del fit["p_fit"]
    return fit


def fit_kernels(trials: pd.DataFrame, *, n_boot: int, gof_boot: int, seed) -> pd.DataFrame:
    """Every shape fitted; ``best``: least AIC among those that describe the data (all, when
    none does); ``upper_bound``: a resolution below the finest distance tested."""
    fits = pd.DataFrame([fit_shape(trials, s, n_boot=n_boot, gof_boot=gof_boot, seed=seed)
                         for s in SHAPES])
    fits.insert(0, "model", trials.model.iloc[0])
    fits["delta_aic"] = fits.aic - fits.aic.min()
    ok = fits[fits.misfit.eq(False)]
    pick = (ok if len(ok) else fits).aic.idxmin()
    fits["best"] = fits.index == pick
    fits["upper_bound"] = fits.half_decay_ci_high < fits.finest_x
    return fits


def predicted_front(fit: dict, years=(1500, 2000), *, trials: int, seed) -> dict:
    """p_S and p_I at n = 2 a fitted similarity predicts for uniform probes on ``years``, and
    Delta / (1 + Delta) for Theorem 2's front."""
    span = float(years[1] - years[0])
    shape, scale, fl = fit["shape"], float(fit["scale"]), float(fit["floor"])

    def g(d):
        return kernel(shape, np.asarray(d, float) * span, scale, exact_of(fit)) + fl

    est = {task: luce_success(spaces.Segment(), g, task, 2, trials,
                              named_seed(seed, f"near front {task}"))
           for task in TASKS}
    return {"p_s": est["similarity"].mean, "p_s_se": est["similarity"].stderr,
            "p_i": est["identification"].mean, "p_i_se": est["identification"].stderr,
            "relative_floor": fl / (1 + fl)}


def blind_spot(reach: float, floor: float, years=(1500, 2000), *, trials: int, seed,
               D: float = 20, close=range(1, 6)) -> tuple[float, float]:
    """Why uniform probes cannot see a resolution of a few decades: for an exponential reaching
    ``floor`` within ``reach`` years, p_S at n = 2 for uniform probes, and P(nearer chosen) for
    probes ``close`` years beyond one of two people 2 D apart."""
    fit = {"shape": "exponential", "scale": reach / math.log(1 / floor), "floor": floor}
    uniform = predicted_front(fit, years, trials=trials,
                              seed=named_seed(seed, "blind spot", int(reach)))["p_s"]
    near_p = p_correct("exponential", fit["scale"], floor, D, D + np.asarray(close, float))
    return float(uniform), float(near_p.mean())


def analyse(rows, *, near: float, far: float, n_boot: int, gof_boot: int, seed,
            front_trials: int, years=(1500, 2000)) -> dict:
    """Everything the near design says about one model: the curve, competence, the pull towards
    the first-listed person and, for a model that does similarity, the fits, the chance
    crossover and the front its similarity predicts."""
    trials = trial_table(rows)
    comp = competence(trials, near=near, far=far)
    position = clustered_mean(trials["first"].to_numpy() - 0.5, _members(trials))
    out = {"model": str(trials.model.iloc[0]), "trials": trials, "curve": curve_table(trials),
           "competence": comp, "position": position, "does": comp["does"]}
    if not comp["does"]:
        return out
    fits = fit_kernels(trials, n_boot=n_boot, gof_boot=gof_boot, seed=seed)
    best = fits[fits.best].iloc[0].to_dict()
    out.update(fits=fits, best=best,
               crossover=chance_crossover(
                   two_reference_counts(pd.factorize(trials.pair)[0], trials.D, trials.offset,
                                        trials.sampled),
                   n_boot, named_seed(seed, "near crossover")),
               front=predicted_front(best, years, trials=front_trials, seed=seed))
    return out
