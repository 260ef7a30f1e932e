"""The Luce choice rule with response bias, fitted to choices by multinomial maximum likelihood.

A model asked "which option is nearest?" may prefer some answers whatever the geometry (the
paper's Gemma-3-12B says "triangle" in half its answers). Fitting a kernel to accuracy alone
then lets the kernel's scale absorb the bias. Here the bias is part of the model:

    P(k) = w_k g(d_k) / sum_j w_j g(d_j),   g(d) = exp(-d / scale) + floor,

with one weight per option name (normalised to sum to 1 over the names seen, so 1/K is no
bias), a floor that may be exactly 0, and the scale, all fitted jointly to the choices (or, for
a model whose option probabilities are known, to those probabilities as soft counts).

Trials may have different numbers of options: they are padded with a mask, never with a
distance that would still receive the floor.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np
from scipy.optimize import minimize
from scipy.stats import chi2

from .fits import (bootstrap_at_bound, bootstrap_map, bound_report, gof_multinomial,
                   gof_p_bootstrap, gof_result, misfit_rule, percentile_interval)

__all__ = ["pad", "fit_choices", "choice_probs", "fit_ball", "compare_radii", "fit_name_corner"]

FLOOR_LOG_RANGE = (-30.0, 30.0)   # log floor relative to the kernel at the typical distance
WEIGHT_LOG_RANGE = (-15.0, 15.0)  # log weight relative to the reference name
SCALE_STARTS = 5                  # extra starting scales of the full-data fit (see fit_choices)
#: half the 95% chi-square(1) quantile: a profile-likelihood interval's drop in log-likelihood
PROFILE_DROP = 1.920729410347062


def pad(rows, fill=np.inf) -> tuple:
    """``(array, mask)`` from ragged rows (a list of 1-D arrays) or a 2-D array; in a 2-D array
    non-finite entries mark absent options. ``mask`` is True where an option exists."""
    if isinstance(rows, np.ndarray) and rows.ndim == 2:
        arr = rows.astype(float)
        return np.where(np.isfinite(arr), arr, fill), np.isfinite(arr)
    rows = [np.asarray(r, dtype=float).ravel() for r in rows]
    if not rows:
        raise ValueError("distances: no trials")
    width = max(len(r) for r in rows)
    arr = np.full((len(rows), width), fill, dtype=float)
    mask = np.zeros((len(rows), width), dtype=bool)
    for i, r in enumerate(rows):
        arr[i, :len(r)] = r
        mask[i, :len(r)] = np.isfinite(r)
    return np.where(mask, arr, fill), mask


def _probs(logits):
    m = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - m)
    return e / e.sum(axis=1, keepdims=True)


def choice_probs(distances, options, scale: float, floor: float = 0.0, weights=None) -> list:
    """Predicted probability of each option per trial (list of arrays) under the biased Luce
    rule; ``weights`` maps option names to weights (missing names weigh the mean weight)."""
    if not scale > 0 or floor < 0:
        raise ValueError(f"scale must be > 0 and floor >= 0; got {scale}, {floor}")
    d, mask = pad(distances)
    lw = np.zeros(d.shape)
    if weights is not None:
        weights = dict(weights)
        mean = float(np.mean(list(weights.values())))
        for i, opts in enumerate(options):
            lw[i, :len(opts)] = np.log([weights.get(o, mean) for o in opts])
    lf = np.log(floor) if floor > 0 else -np.inf
    with np.errstate(invalid="ignore"):
        lg = np.where(mask, np.logaddexp(-d / scale, lf), -np.inf)
    p = _probs(lw + lg)
    return [p[i, :int(mask[i].sum())] for i in range(len(p))]


def _targets(options, choice, probs, width):
    y = np.zeros((len(options), width))
    if (choice is None) == (probs is None):
        raise ValueError("choice, probs: give exactly one (chosen indices or option probabilities)")
    if choice is not None:
        choice = np.asarray(choice, dtype=int)
        if len(choice) != len(options):
            raise ValueError("choice: one index per trial (-1: no option read)")
        for i, (c, opts) in enumerate(zip(choice, options)):
            if c >= len(opts):
                raise ValueError(f"choice: trial {i} chose {c} of {len(opts)} options")
            if c >= 0:
                y[i, c] = 1.0
    else:
        if len(probs) != len(options):
            raise ValueError("probs: one array per trial")
        for i, (p, opts) in enumerate(zip(probs, options)):
            p = np.asarray(p, dtype=float)
            if len(p) != len(opts) or (p < 0).any() or not np.isclose(p.sum(), 1, atol=1e-6):
                raise ValueError(f"probs: trial {i} must give {len(opts)} probabilities "
                                 f"summing to 1")
            y[i, :len(p)] = p
    return y


class _Problem:
    """The options of all trials as one flat array (trial by trial), and the negative
    log-likelihood with its gradient."""

    def __init__(self, d, mask, names_idx, y, k, ref, d_typ, bias):
        self.d, self.idx, self.y = d[mask], names_idx[mask], y[mask]
        self.tid = np.repeat(np.arange(len(d)), mask.sum(axis=1))
        self.starts = np.r_[0, np.cumsum(mask.sum(axis=1))[:-1]]
        self.ysum = y.sum(axis=1)[self.tid]
        self.k, self.ref, self.d_typ, self.bias = k, ref, d_typ, bias
        self.free = [j for j in range(k) if j != ref] if bias else []

    def unpack(self, x):
        a = np.zeros(self.k)
        a[self.free] = x[2:]
        return x[0], x[1], a

    def nll(self, x, with_floor=True):
        u, v, a = self.unpack(x)
        lam = np.exp(u)
        lf = v - self.d_typ / lam if with_floor else -np.inf
        lg = np.logaddexp(-self.d / lam, lf)
        logits = a[self.idx] + lg
        m = np.maximum.reduceat(logits, self.starts)[self.tid]
        z = np.exp(logits - m)
        tot = np.add.reduceat(z, self.starts)[self.tid]
        logp = logits - m - np.log(tot)
        ll = float((self.y * logp).sum())
        r = self.y - z / tot * self.ysum  # d ll / d logit
        # d lg / d u = (d / lam) e^{-d/lam - lg} + (d_typ / lam) e^{lf - lg} (the floor is
        # anchored at the kernel's value at d_typ); d lg / d v = e^{lf - lg}
        ek = np.exp(-self.d / lam - lg)
        ef = np.exp(lf - lg) if with_floor else np.zeros_like(ek)
        du = (r * (ek * self.d / lam + ef * self.d_typ / lam)).sum()
        dv = (r * ef).sum()
        da = np.bincount(self.idx, r, minlength=self.k)
        return -ll, -np.concatenate([[du, dv], da[self.free]])


def _fit_once(prob, bounds, x0, floor_starts=(-8.0, 0.0), from_start=False):
    """Best of the model without a floor and the one with (started where the first ended,
    at each log floor of ``floor_starts``; with ``from_start`` also at ``x0`` itself, whose
    basin the model without a floor may have left)."""
    lo, hi = np.array(bounds).T
    b0 = list(bounds)
    b0[1] = (x0[1], x0[1])
    plain = minimize(prob.nll, np.clip(x0, lo, hi), args=(False,), jac=True,
                     method="L-BFGS-B", bounds=b0)
    best = (plain, False)
    origins = (plain.x, np.clip(x0, lo, hi)) if from_start else (plain.x,)
    for origin, v in ((o, v) for o in origins for v in floor_starts):
        start = origin.copy()
        start[1] = v
        res = minimize(prob.nll, start, args=(True,), jac=True, method="L-BFGS-B",
                       bounds=bounds)
        if res.fun < best[0].fun - 1e-6:  # a floor is kept only when it raises the fit
            best = (res, True)
    return best


def fit_choices(distances, options, choice=None, probs=None, *, bias: bool = True,
                boot: int = 0, seed: int = 0, scale_range=None, progress: bool = False,
                profile: int = 0, start: dict | None = None) -> dict:
    """Multinomial maximum-likelihood fit of the biased Luce rule to ``n``-option trials.

    ``distances[i]`` and ``options[i]`` give trial ``i``'s option distances and names; the
    answers are ``choice`` (index into the options, -1 where none was read: dropped) or
    ``probs`` (option probabilities, used as soft counts). ``bias=False`` fixes every weight
    equal. ``scale_range`` defaults to a range that covers the data (a twentieth of the
    smallest positive distance gap to twenty times the largest distance spread); ``boot``
    resamples trials for percentile intervals.

    Returns scale, floor (may be exactly 0: the model without a floor is fitted too and kept
    when the floor does not raise the likelihood), ``weights`` (name -> weight, summing to 1),
    log-likelihood, trials, ``at_bound``/``bound_params`` (the search range, not the natural
    ``floor = 0``), ``distance_p`` (likelihood-ratio p-value against the same weights with no
    distance dependence: a large value means the scale is not identified, wherever it lies)
    and, with ``boot``, ``scale_ci``, ``floor_ci``, ``weights_ci`` and the share
    of resamples at a bound. Also ``scale_no_floor`` and ``floor_lr`` (twice the log-likelihood
    the floor adds: below 2.71, the 95% test of a parameter on its bound, the floor is at its
    bound of 0 in all but name).

    ``profile`` (a number of scales, 0: none) adds the scale's likelihood profile (every other
    parameter refitted at each scale, on a log grid over ``scale_range`` and again on a finer
    one around the 95% set): ``profile_ci`` (the scales within 1.92 log-likelihood units of the
    best) and ``profile_bounded`` (the set ends inside the grid on both sides). With ``probs``
    the soft counts are read as one trial per row, so the profile is a quasi-likelihood one.

    The full-data fit runs L-BFGS-B from the scale ``d_typ / 3`` (a third of the median
    nearest-option distance) and from ``SCALE_STARTS`` more scales spread log-uniformly over
    ``scale_range``, the model with a floor also from each starting scale itself (not only from
    where the model without one ended), and keeps the best likelihood (another start's optimum
    only when it is better by more than 1e-6). The likelihood can have several optima: a sharp
    kernel with a floor (the far answers then look like bias alone) and a broad kernel without
    one, and from one start every run may end on the worse (the test has a case 60
    log-likelihood units apart). Each bootstrap resample starts from the full fit's optimum
    only: resamples are many and their optima lie near it.

    ``start``, a fit this function returned on data of the same shape (with the same
    ``scale_range``), refits from its optimum alone and returns only the fit itself (no
    model without a floor, no test of distance, no profile, no bootstrap): what a
    parametric-bootstrap goodness of fit needs for each simulated data set.
    """
    if int(boot) < 0:
        raise ValueError(f"boot must be >= 0; got {boot!r}")
    d, mask = pad(distances)
    options = [list(map(str, o)) for o in options]
    if len(options) != len(d) or any(len(o) != int(m.sum()) for o, m in zip(options, mask)):
        raise ValueError("options: one list of names per trial, one name per distance")
    y = _targets(options, choice, probs, d.shape[1])
    keep = y.sum(axis=1) > 0
    if keep.sum() < 2:
        raise ValueError("choice: fewer than two trials with an answer")
    d, mask, y = d[keep], mask[keep], y[keep]
    options = [o for o, k in zip(options, keep) if k]
    names = sorted({n for o in options for n in o})
    lookup = {n: j for j, n in enumerate(names)}
    idx = np.full(d.shape, -1)
    for i, o in enumerate(options):
        idx[i, :len(o)] = [lookup[n] for n in o]
    counts = np.bincount(idx[mask], minlength=len(names))
    ref = int(np.argmax(counts))
    dd = np.where(mask, d, np.nan)
    d_typ = float(np.nanmedian(np.nanmin(dd, axis=1)))
    if scale_range is None:
        gaps = np.diff(np.sort(dd[np.isfinite(dd)]))
        lo = max(float(gaps[gaps > 0].min()) if (gaps > 0).any() else 1e-6, 1e-9) / 20
        spread = float(np.nanmax(np.nanmax(dd, axis=1) - np.nanmin(dd, axis=1)))
        scale_range = (lo, 20 * max(spread, lo * 40))
    s_lo, s_hi = map(float, scale_range)
    if not 0 < s_lo < s_hi:
        raise ValueError(f"scale_range must be 0 < low < high; got {scale_range}")
    k = len(names)
    bounds = [(np.log(s_lo), np.log(s_hi)), FLOOR_LOG_RANGE] + \
        [WEIGHT_LOG_RANGE] * ((k - 1) if bias else 0)

    def solve(sel, x0=None, floor_starts=(-8.0, 0.0)):
        prob = _Problem(d[sel], mask[sel], idx[sel], y[sel], k, ref, d_typ, bias)
        if x0 is not None:
            res, with_floor = _fit_once(prob, bounds, x0, floor_starts)
        else:  # the full data: several starting scales, the best optimum (see the docstring)
            best = None
            for s in np.r_[d_typ / 3 + s_lo, np.geomspace(s_lo, s_hi, SCALE_STARTS + 2)[1:-1]]:
                fit = _fit_once(prob, bounds, np.r_[np.log(s), 0.0, np.zeros(len(prob.free))],
                                floor_starts, from_start=True)
                if best is None or fit[0].fun < best[0].fun - 1e-6:
                    best = fit
            res, with_floor = best
        u, v, a = prob.unpack(res.x)
        scale = float(np.exp(u))
        floor = float(np.exp(v - d_typ / scale)) if with_floor else 0.0
        w = np.exp(a - a.max())
        w = w / w.sum()
        values = {"log_scale": u}
        rng_ = {"log_scale": bounds[0]}
        if with_floor:
            values["log_floor"], rng_["log_floor"] = v, (-np.inf, FLOOR_LOG_RANGE[1])
        for j in prob.free:
            values[f"weight[{names[j]}]"] = a[j]
            rng_[f"weight[{names[j]}]"] = WEIGHT_LOG_RANGE
        rep = bound_report(values, rng_)
        scale_rep = bound_report({"log_scale": u}, {"log_scale": bounds[0]})
        return {"scale": scale, "floor": floor, "weights": dict(zip(names, w.tolist())),
                "loglik": float(-res.fun), "scale_at_bound": scale_rep["at_bound"], **rep,
                "_x": res.x, "_floor": with_floor}

    if start is not None:
        x0 = start["x"]
        fit = solve(np.arange(len(d)), x0, (x0[1] if start["floor"] > 0 else -8.0,))
        fit["x"] = fit.pop("_x")
        del fit["_floor"]
        return fit
    out = solve(np.arange(len(d)))
    plain = solve(np.arange(len(d)), floor_starts=())
    out["scale_no_floor"] = plain["scale"]
    out["floor_lr"] = max(0.0, 2 * (out["loglik"] - plain["loglik"])) if out["_floor"] else 0.0
    if int(profile):
        prob = _Problem(d, mask, idx, y, k, ref, d_typ, bias)

        def profile_ll(us):
            lls = []
            for u in us:
                b = list(bounds)
                b[0] = (u, u)
                x0 = out["_x"].copy()
                x0[0] = u
                lls.append(-_fit_once(prob, b, x0, from_start=True)[0].fun)
            return np.array(lls)

        us = np.linspace(*bounds[0], int(profile))
        ll = profile_ll(us)
        top = max(ll.max(), out["loglik"])
        inside = np.flatnonzero(ll >= top - PROFILE_DROP)
        if len(inside):
            fine = np.linspace(us[max(inside[0] - 1, 0)], us[min(inside[-1] + 1, len(us) - 1)],
                               int(profile))
            us, order = np.unique(np.r_[us, fine], return_index=True)
            ll = np.r_[ll, profile_ll(fine)][order]
            top = max(ll.max(), out["loglik"])
            inside = np.flatnonzero(ll >= top - PROFILE_DROP)
        out["profile_scale"], out["profile_loglik"] = np.exp(us), ll
        out["profile_ci"] = ((float(np.exp(us[inside[0]])), float(np.exp(us[inside[-1]])))
                             if len(inside) else (float(np.exp(out["_x"][0])),) * 2)
        out["profile_bounded"] = bool(len(inside) and inside[0] > 0
                                      and inside[-1] < len(us) - 1)
    # the same answers without any distance dependence (weights alone): does distance matter?
    flat = _Problem(d, mask, idx, y, k, ref, d_typ, bias)
    big = np.log(s_hi) + 30
    fb = [(big, big), (0.0, 0.0)] + bounds[2:]
    res = minimize(flat.nll, np.r_[big, 0.0, np.zeros(len(flat.free))], args=(False,),
                   jac=True, method="L-BFGS-B", bounds=fb)
    lr = max(0.0, 2 * (out["loglik"] + res.fun))
    out.update({"trials": int(len(d)), "names": names, "scale_range": (s_lo, s_hi),
                "bias": bool(bias), "flat_loglik": float(-res.fun),
                "distance_p": float(chi2.sf(lr, 2 if out["floor"] > 0 else 1))})
    if boot:
        # resamples start where the full fit ended (one start for the floored model)
        starts = (out["_x"][1] if out["_floor"] else -8.0,)
        fits = bootstrap_map(lambda sel: solve(sel, out["_x"], starts), len(d), boot, seed,
                             progress=progress)
        sc = np.array([f["scale"] for f in fits])
        fl = np.array([f["floor"] for f in fits])
        w = np.array([[f["weights"][n] for n in names] for f in fits])
        out["scale_ci"], out["floor_ci"] = percentile_interval(sc), percentile_interval(fl)
        out["weights_ci"] = {n: percentile_interval(w[:, j]) for j, n in enumerate(names)}
        out["boot_at_bound"] = bootstrap_at_bound([f["at_bound"] for f in fits])
        out["boot_scale_at_bound"] = bootstrap_at_bound([f["scale_at_bound"] for f in fits])
        out["boot_floor_zero"] = float(np.mean(fl == 0))
    out["x"] = out.pop("_x")
    del out["_floor"]
    return out


def fit_ball(p, se, curve, grid, level: float = 0.95) -> dict:
    """Theorem 3's ball radius from measured success rates by a chi-square profile.

    ``p`` and ``se`` are the measured rates and their standard errors (one per condition, e.g.
    per n), ``curve(eps)`` the predicted rates at radius ``eps``, searched on ``grid`` (which
    should run from 0 to beyond the largest distance, where every prediction is chance) and
    then on 201 radii spanning the confidence set and one grid step either side, so that a set
    narrower than a grid step is not reported as a single point. Returns the best ``eps``, the
    confidence set's ends (``ci_low``, ``ci_high``: every searched radius whose chi-square is
    within the ``level`` quantile of the minimum), whether that set is one interval, the bound
    report, and ``identified``: False when the set reaches an end of the grid (the data only
    bound the radius from one side, or not at all).
    """
    p, se = np.asarray(p, float), np.asarray(se, float)
    if p.shape != se.shape or p.ndim != 1 or not len(p):
        raise ValueError("p, se: one rate and one standard error per condition")
    grid = np.asarray(grid, float)
    if grid.ndim != 1 or len(grid) < 3 or np.any(np.diff(grid) <= 0):
        raise ValueError("grid: at least three increasing radii")
    se = np.maximum(se, 1e-3)  # a rate measured as exactly 0 or 1 still has some error

    def profile(radii):
        return np.array([np.sum(((p - np.asarray(curve(e), float)) / se) ** 2) for e in radii])

    def confidence_set(stat):
        return np.flatnonzero(stat <= stat.min() + chi2.ppf(level, 1))

    stat = profile(grid)
    inside = confidence_set(stat)
    fine = np.linspace(grid[max(inside[0] - 1, 0)], grid[min(inside[-1] + 1, len(grid) - 1)],
                       201)
    grid, order = np.unique(np.concatenate([grid, fine]), return_index=True)
    stat = np.concatenate([stat, profile(fine)])[order]
    best, inside = int(np.argmin(stat)), confidence_set(stat)
    one = bool(np.all(np.diff(inside) == 1))
    rep = bound_report({"eps": grid[best]}, {"eps": (grid[0], grid[-1])})
    touches = bool(inside[0] == 0 or inside[-1] == len(grid) - 1)
    return {"eps": float(grid[best]), "ci_low": float(grid[inside[0]]),
            "ci_high": float(grid[inside[-1]]), "one_interval": one, "chi2": float(stat[best]),
            "dof": int(len(p) - 1), "identified": not (touches or rep["at_bound"]),
            "at_bound": bool(rep["at_bound"] or touches),
            "bound_params": rep["bound_params"] or ("eps=interval" if touches else ""),
            "profile_eps": grid, "profile_chi2": stat}


def compare_radii(a: dict, b: dict, level: float = 0.95, points: int = 2001) -> dict:
    """Are two radii fitted by :func:`fit_ball` to independent data equal? A likelihood-ratio
    test, not an overlap of intervals (two wide intervals overlap however different the radii).

    The two chi-square profiles add (the data are independent): equality costs
    ``lr = min_e [S_a(e) + S_b(e)] - min S_a - min S_b``, referred to chi-square with one degree
    of freedom (``p_equal``). The difference ``delta = eps_a - eps_b`` gets its own profile
    interval, ``D(delta) = min_e [S_a(e + delta) + S_b(e)] - min S_a - min S_b`` within the
    ``level`` quantile, on ``points`` differences spanning the grids; ``bounded`` is False when
    that set reaches the end of the differences searched. Meaningful only for fits that pass
    their goodness-of-fit test.
    """
    for name, f in (("a", a), ("b", b)):
        if not isinstance(f, dict) or "profile_eps" not in f:
            raise ValueError(f"{name} must be a fit of fit_ball (with its profile)")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    ga, sa = np.asarray(a["profile_eps"], float), np.asarray(a["profile_chi2"], float)
    gb, sb = np.asarray(b["profile_eps"], float), np.asarray(b["profile_chi2"], float)
    base = sa.min() + sb.min()
    common = np.union1d(ga[(ga >= gb[0]) & (ga <= gb[-1])], gb[(gb >= ga[0]) & (gb <= ga[-1])])
    if not common.size:
        raise ValueError("a and b: the two fits share no radius on their grids")
    lr = float(max(0.0, np.min(np.interp(common, ga, sa) + np.interp(common, gb, sb)) - base))
    span = max(ga[-1], gb[-1]) - min(ga[0], gb[0])
    deltas = np.union1d(np.linspace(-span, span, int(points)), [a["eps"] - b["eps"]])

    def cost(delta):
        e = gb[(gb + delta >= ga[0]) & (gb + delta <= ga[-1])]
        if not e.size:
            return np.inf
        return float(np.min(np.interp(e + delta, ga, sa) + np.interp(e, gb, sb)) - base)

    limit = chi2.ppf(level, 1)
    prof = np.array([cost(d) for d in deltas])
    inside = np.flatnonzero(prof <= limit)
    bounded = bool(inside[0] > 0 and inside[-1] < len(deltas) - 1)
    # refined between the differences either side of the set, so that a set narrower than the
    # first search's step is not reported as a single point
    fine = np.linspace(deltas[max(inside[0] - 1, 0)], deltas[min(inside[-1] + 1, len(deltas) - 1)],
                       int(points))
    deltas = np.union1d(deltas, fine)
    prof = np.array([cost(d) for d in deltas])
    inside = np.flatnonzero(prof <= limit)
    return {"difference": float(a["eps"] - b["eps"]), "ci_low": float(deltas[inside[0]]),
            "ci_high": float(deltas[inside[-1]]), "lr": lr, "p_equal": float(chi2.sf(lr, 1)),
            "bounded": bounded}


@lru_cache(maxsize=8)
def _arrangements(k: int):
    """The k! arrangements ``arr[p, place] = name``; ``sel[c, r, p]``, the arrangements with
    name c at place r, each equally likely; ``named[p, place, name]``, which name sits where.
    Fixed per k, so computed once (a fit evaluates the probabilities thousands of times)."""
    arr = np.array(list(permutations(range(k))))
    fits_ = arr[:, None, :] == np.arange(k)[None, :, None]       # (p, name, place)
    sel = np.transpose(fits_, (1, 2, 0)).astype(float)          # (c, r, p)
    sel /= sel.sum(axis=2, keepdims=True)
    return arr, sel, fits_.transpose(0, 2, 1).astype(float)


@lru_cache(maxsize=8)
def _eye(k: int) -> np.ndarray:
    return np.eye(k)[None]


def _name_corner_probs(x, k):
    """For log weights ``x`` = (k-1 name, k-1 place, log advantage of the correct option): the
    arrangements ``arr[p, place] = name``, the option probabilities ``q[p, r, place]`` with the
    correct option at place ``r``, and the predicted table rows given the correct name ``c`` and
    place ``r`` (the other names arranged uniformly): ``pn[c, r, name]``, ``pc[c, r, place]``."""
    a = np.concatenate(([0.0], x[:k - 1]))  # not np.r_: hundreds of thousands of calls a fit
    b = np.concatenate(([0.0], x[k - 1:2 * k - 2]))
    arr, sel, named = _arrangements(k)
    logit = a[arr][:, None, :] + b[None, None, :] + x[-1] * _eye(k)
    q = _probs(logit.reshape(-1, k)).reshape(len(arr), k, k)
    pc = np.einsum("crp,prs->crs", sel, q)
    pn = np.einsum("crp,prj->crj", sel, np.einsum("prs,psj->prj", q, named))
    return arr, q, pn, pc


def _name_corner_nll(x, k, no, co, qn, qc, grad: bool):
    """Both tables' negative log-likelihood at ``x``, their predicted rows and (with ``grad``)
    the gradient in ``x``, by the chain rule through the option softmax: one evaluation, not
    the 2k of a numerical gradient."""
    arr, q, pn, pc = _name_corner_probs(x, k)
    rn = np.einsum("r,crj->cj", qc, pn)          # name table rows
    rc = np.einsum("c,crs->rs", qn, pc)          # corner table rows
    value = -(no * np.log(rn + 1e-300)).sum() - (co * np.log(rc + 1e-300)).sum()
    if not grad:
        return value, rn, rc, None
    _, sel, named = _arrangements(k)
    wn, wc = no / (rn + 1e-300), co / (rc + 1e-300)
    # d value / d q[p, r, s]
    dq = -(np.einsum("cj,r,crp,psj->prs", wn, qc, sel, named)
           + np.einsum("rs,c,crp->prs", wc, qn, sel))
    dlogit = q * (dq - (q * dq).sum(axis=2, keepdims=True))  # through the softmax over places
    g_name = np.zeros(k)
    np.add.at(g_name, arr, dlogit.sum(axis=1))               # a[arr[p, s]] enters logit[p, :, s]
    g_place = dlogit.sum(axis=(0, 1))
    g_adv = np.einsum("prr->", dlogit)
    return value, rn, rc, np.concatenate((g_name[1:], g_place[1:], [g_adv]))


def fit_name_corner(name_counts, corner_counts, boot: int = 0, seed=0) -> dict:
    """A bias for a name told apart from a bias for a place, from two confusion tables of the
    same trials in which names are shuffled over fixed places (the paper's random stencils).

    ``name_counts[c, j]``: trials whose correct option had name ``c`` and whose answer named
    ``j``; ``corner_counts[r, s]``: the same trials by the correct option's place ``r`` and the
    chosen place ``s``. The model: P(option) ∝ w_name v_place G^[correct], the other names at a
    uniformly random arrangement over the other places, the correct name independent of the
    correct place. Fitted by maximising the sum of both tables' multinomial log-likelihoods (a
    composite likelihood: the trials are counted twice), so its intervals and goodness of fit
    come from a parametric bootstrap (``boot`` datasets simulated from the fit and refitted):
    ``gof_p`` is (1 + the number of simulated deviances at least the observed one) / (1 +
    ``boot``), with its resolution; without ``boot`` the fit is not tested (``misfit`` None).

    Returns ``name_weights`` and ``place_weights`` (each summing to 1), ``advantage`` G, their
    ``*_ci`` with ``boot``, and the goodness-of-fit keys of :data:`semres.core.fits.GOF_KEYS`.
    """
    n_obs, c_obs = (np.asarray(t, float) for t in (name_counts, corner_counts))
    k = len(n_obs)
    if n_obs.shape != (k, k) or c_obs.shape != (k, k) or k < 2 or (n_obs < 0).any() \
            or (c_obs < 0).any() or not np.isclose(n_obs.sum(), c_obs.sum()):
        raise ValueError("name_counts, corner_counts: two k x k count tables of the same trials")
    if int(boot) < 0:
        raise ValueError(f"boot must be >= 0; got {boot!r}")

    def fit(no, co, start=np.zeros(2 * k - 1)):
        qn, qc = no.sum(axis=1) / no.sum(), co.sum(axis=1) / co.sum()

        def nll(x, grad=True):
            value, rn, rc, g = _name_corner_nll(x, k, no, co, qn, qc, grad)
            return (value, g) if grad else (value, rn, rc)

        res = minimize(nll, start, jac=True, method="L-BFGS-B",
                       bounds=[WEIGHT_LOG_RANGE] * (2 * k - 1))
        _, rn, rc = nll(res.x, grad=False)
        dev = gof_multinomial(no, rn, 0)["gof_stat"] + gof_multinomial(co, rc, 0)["gof_stat"]
        return res.x, dev, rn, rc

    def weights(x):
        w = np.exp(np.r_[0.0, x])
        return w / w.sum()

    x, dev, rn, rc = fit(n_obs, c_obs)
    df = 2 * k * (k - 1) - (2 * k - 1)
    out = {"name_weights": weights(x[:k - 1]), "place_weights": weights(x[k - 1:2 * k - 2]),
           "advantage": float(np.exp(x[-1])), "deviance": dev,
           # a composite deviance has no chi-square reference: untested without a bootstrap
           **gof_result("composite deviance, not tested (no bootstrap)", dev, df)}
    if boot:
        rng = np.random.default_rng(seed)
        qn, qc = n_obs.sum(axis=1) / n_obs.sum(), c_obs.sum(axis=1) / c_obs.sum()
        arr, q, _, _ = _name_corner_probs(x, k)
        total = int(round(n_obs.sum()))
        sims = []
        for _ in range(int(boot)):
            cc, rr = rng.choice(k, total, p=qn), rng.choice(k, total, p=qc)
            # one arrangement per trial with its correct name at its correct place
            u = rng.random(total)
            cand = arr[:, rr].T == cc[:, None]                   # (trials, arrangements)
            pick = np.argmax(np.cumsum(cand, axis=1) > (u * cand.sum(axis=1))[:, None], axis=1)
            probs = q[pick, rr]                                  # (trials, places)
            s_ = np.minimum((np.cumsum(probs, axis=1) < rng.random(total)[:, None]).sum(axis=1),
                            k - 1)
            j_ = arr[pick, s_]
            no, co = np.zeros((k, k)), np.zeros((k, k))
            np.add.at(no, (cc, j_), 1)
            np.add.at(co, (rr, s_), 1)
            sims.append(fit(no, co, x))  # from the fit that drew it: fewer steps
        xs = np.array([s[0] for s in sims])
        p, resolution = gof_p_bootstrap(dev, [s[1] for s in sims])
        out.update(gof_result(f"composite deviance, parametric bootstrap ({len(sims)} "
                              f"datasets; misfit rule {misfit_rule(resolution)})", dev, df, p,
                              resolution))
        nw = np.array([weights(v[:k - 1]) for v in xs])
        pw = np.array([weights(v[k - 1:2 * k - 2]) for v in xs])
        out["name_weights_ci"] = np.percentile(nw, [2.5, 97.5], axis=0).T
        out["place_weights_ci"] = np.percentile(pw, [2.5, 97.5], axis=0).T
        out["advantage_ci"] = tuple(np.percentile(np.exp(xs[:, -1]), [2.5, 97.5]).tolist())
    return out
