"""The Luce choice rule with response bias, fitted to choices by multinomial maximum likelihood.

A model may prefer some answers whatever the geometry (the paper's Gemma-3-12B says "triangle" in
half its answers); fitted to accuracy alone, a kernel's scale would absorb that bias. So the bias
is part of the model: P(k) = w_k g(d_k) / sum_j w_j g(d_j), g(d) = exp(-d / scale) + floor, one
weight per option name (summing to 1), fitted jointly. Ragged trials are padded with a mask, never
with a distance that would still receive the floor.
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
    """``(array, mask)`` from ragged rows or a 2-D array (non-finite: absent), True where present.
    """
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
    """Each trial's option probabilities under the biased Luce rule; ``weights`` maps names to
    weights (missing names weigh the mean weight).
    """
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
    if (choice is None) == (probs is None):
        raise ValueError("choice, probs: give exactly one (chosen indices or option "
                         "probabilities)")
    y = np.zeros((len(options), width))
    given = np.asarray(choice, dtype=int) if probs is None else probs
    if len(given) != len(options):
        raise ValueError("choice: one index per trial (-1: no option read)" if probs is None
                         else "probs: one array per trial")
    for i, (c, opts) in enumerate(zip(given, options)):
        if probs is None and c >= len(opts):
            raise ValueError(f"choice: trial {i} chose {c} of {len(opts)} options")
        if probs is None and c >= 0:
            y[i, c] = 1.0
        elif probs is not None:
            p = np.asarray(c, dtype=float)
            if len(p) != len(opts) or (p < 0).any() or not np.isclose(p.sum(), 1, atol=1e-6):
                raise ValueError(f"probs: trial {i} must give {len(opts)} probabilities "
                                 f"summing to 1")
            y[i, :len(p)] = p
    return y


class _Problem:
    """All trials' options as one flat array, and the negative log-likelihood with its gradient."""

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
    """Best of the model without a floor and with one (started where the first ended, at each log
    floor of ``floor_starts``; with ``from_start`` also at ``x0``)."""
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
    """Multinomial maximum-likelihood fit of the biased Luce rule.

    ``distances[i]``, ``options[i]``: trial i's option distances and names; answers are ``choice``
    (indices, -1: none read, dropped) or ``probs`` (soft counts). ``bias=False`` fixes the weights
    equal; ``boot`` resamples trials for percentile intervals (``*_ci``). Returns scale, floor (0
    when a floor does not raise the likelihood), ``weights``, loglik, the bound report,
    ``distance_p`` (against no distance dependence: large means the scale is not identified),
    ``scale_no_floor`` and ``floor_lr``; ``profile`` (a number of scales) adds ``profile_ci`` and
    ``profile_bounded``. The likelihood has several optima, so the full fit starts from several
    scales; ``start``, an earlier fit on data of the same shape, refits from its optimum alone (for
    a parametric bootstrap).
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
            us, ll = _refine(us, ll, inside, profile_ll, int(profile))
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


def _refine(grid, values, inside, evaluate, points: int) -> tuple:
    """``grid`` and its profile ``values`` with ``points`` more from ``evaluate`` across the
    confidence set ``inside`` (indices), so that a set narrower than a step is not one point."""
    fine = np.linspace(grid[max(inside[0] - 1, 0)], grid[min(inside[-1] + 1, len(grid) - 1)],
                       points)
    grid, order = np.unique(np.concatenate([grid, fine]), return_index=True)
    return grid, np.concatenate([values, evaluate(fine)])[order]


def fit_ball(p, se, curve, grid, level: float = 0.95) -> dict:
    """Theorem 3's ball radius from rates ``p`` (standard errors ``se``) by a chi-square profile
    of ``curve(eps)`` over ``grid``, refined on 201 radii around the confidence set: ``eps``,
    ``ci_low``/``ci_high``, ``one_interval``, the bound report and ``identified`` (False when the
    set reaches a grid end)."""
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
    grid, stat = _refine(grid, stat, confidence_set(stat), profile, 201)
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
    """Likelihood-ratio test that two :func:`fit_ball` radii of independent data are equal (``lr``,
    ``p_equal``), with a profile interval for their difference (``bounded``: inside the differences
    searched). Meaningful only for fits that pass goodness of fit."""
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
    def profile(differences):
        return np.array([cost(d) for d in differences])

    prof = profile(deltas)
    inside = np.flatnonzero(prof <= limit)
    bounded = bool(inside[0] > 0 and inside[-1] < len(deltas) - 1)
    deltas, prof = _refine(deltas, prof, inside, profile, int(points))
    inside = np.flatnonzero(prof <= limit)
    return {"difference": float(a["eps"] - b["eps"]), "ci_low": float(deltas[inside[0]]),
            "ci_high": float(deltas[inside[-1]]), "lr": lr, "p_equal": float(chi2.sf(lr, 1)),
            "bounded": bounded}


@lru_cache(maxsize=8)
def _arrangements(k: int):
    """The k! arrangements ``arr[p, place]``, ``sel[c, r, p]`` (those with name c at place r,
    equally likely) and ``named[p, place, name]``."""
    arr = np.array(list(permutations(range(k))))
    fits_ = arr[:, None, :] == np.arange(k)[None, :, None]       # (p, name, place)
    sel = np.transpose(fits_, (1, 2, 0)).astype(float)          # (c, r, p)
    sel /= sel.sum(axis=2, keepdims=True)
    return arr, sel, fits_.transpose(0, 2, 1).astype(float)


@lru_cache(maxsize=8)
def _eye(k: int) -> np.ndarray:
    return np.eye(k)[None]


def _name_corner_probs(x, k):
    """For log weights ``x`` (k-1 name, k-1 place, the correct option's log advantage): ``arr``,
    ``q[p, r, place]`` and the predicted rows ``pn[c, r, name]`` and ``pc[c, r, place]``."""
    a = np.concatenate(([0.0], x[:k - 1]))  # not np.r_: hundreds of thousands of calls a fit
    b = np.concatenate(([0.0], x[k - 1:2 * k - 2]))
    arr, sel, named = _arrangements(k)
    logit = a[arr][:, None, :] + b[None, None, :] + x[-1] * _eye(k)
    q = _probs(logit.reshape(-1, k)).reshape(len(arr), k, k)
    pc = np.einsum("crp,prs->crs", sel, q)
    pn = np.einsum("crp,prj->crj", sel, np.einsum("prs,psj->prj", q, named))
    return arr, q, pn, pc


def _name_corner_nll(x, k, no, co, qn, qc, grad: bool):
    """Both tables' negative log-likelihood, predicted rows and (``grad``) analytic gradient."""
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
    """A bias for a name told apart from one for a place, from two confusion tables of the same
    trials with names shuffled over fixed places (the paper's random stencils).

    ``name_counts[c, j]``: correct name c answered j; ``corner_counts[r, s]``: correct place r,
    chosen s. Model: P(option) ∝ w_name v_place G^[correct]. The two likelihoods are summed (a
    composite likelihood), so intervals and goodness of fit come from a parametric bootstrap of
    ``boot`` datasets. Returns ``name_weights``, ``place_weights``, ``advantage`` G, their ``*_ci``
    with ``boot``, and the goodness-of-fit keys.
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
