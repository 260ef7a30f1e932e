"""Chapter 6's rules (when a scale is identified, whether two radii are one, where a model lies
against chapter 7's front) and its overview rows; every threshold and statement is named here."""

from __future__ import annotations

import numpy as np

from semres.core import theory
from semres.core.fits import SIZE_KEYS, quasi_interval
from semres.report.verdicts import gof_pvalue
from semres.report import ALPHA, fmt

#: what a misfit means, in the chapter's words
MISFIT = "the model does not describe the data"
#: share of points on which the band formula and the distance gap must agree (the rest sit on
#: the boundary to rounding)
BAND_AGREEMENT = 0.9999
#: a two-item point lies above (below) chapter 7's front beyond this many standard errors
FRONT_Z = 2.0
#: the two layouts' accuracy differs below the book's level for rejecting "no effect"
LAYOUT_P = ALPHA
#: the canvas check's margin (a success probability)
CANVAS_MARGIN = 0.02
CANVAS_MARGIN_REASON = ("two hundredths of a success probability, below the standard error of "
                        "every p(n) this chapter measures (a few hundredths at up to 300 "
                        "scenes a cell): a smaller gap could not change a reading of p(n)")
#: one radius (or one scale) for both tasks: equal within this share of their mean
SAME_SHARE = 0.1
SAME_REASON = ("a tenth of the two radii's mean: two resolutions that close are one for the "
               "paper's purpose (the ball measure, which grows as the radius squared, moves by "
               "about a fifth)")
#: chapter 7's smallest floor: a floor below it is no floor for the n-item bound
FLOOR_MARGIN = 0.01
FLOOR_REASON = ("0.01 of an exact match's weight, the smallest floor at which chapter 7 "
                "computes its n-item bound: a smaller floor is no floor for that bound")
SCALE_REASON = ("none beyond the design's own: what a grid cell or an image patch limits is the "
                "scale itself, so any scale above one is measured and one below it cannot be "
                "told from none")

#: the overview rows' claims and statements
LIVE_CLAIM = ("a spatial scale of the biased Luce rule, measured from the model's option "
              "probabilities (pixels of its canvas); identified when the rule fits, its "
              "likelihood set lies above an image patch and below the largest distance, and the "
              "estimators' intervals overlap")
LIVE_STAND_IN = "a small VLM trained here, not the paper's models"
GRID_CLAIM = ("a spatial scale of the biased Luce rule, measured from {}'s released four-shape "
              "answers (pixels of the 900 px canvas); identified when the rule fits and its "
              "likelihood set lies above one 150 px grid cell and below the largest distance")
TWO_TASK_CLAIM = ("the ball radius fitted to p_S(n) equals that fitted to p_I(n): headline, "
                  "their difference (canvas units) with its 95% profile interval")
COLOUR_CLAIM = ("the hue radius fitted to generalization equals that fitted to identification: "
                "headline, their difference (hue circle) with its 95% profile interval")
BAND = ("the hyperbolic error band agrees with the distance gap on {:.5f} of the points (at "
        "least {} required: the rest sit on the boundary to rounding); the logistic margin law "
        "equals the engine's Luce rule (derived here)")
CANVAS = ("the heterogeneous Theorem 3, p^n = E_p[p^n(b_p)], matches the engine's Luce rule with "
          "a constant kernel on the canvas (derived here); headline: the worst cell's deviation "
          "(eps = {:g}, n = {}, {}), simulated less the closed form")
#: the overview rows' names (``{}``: the model)
RESULT = {"band": "Error band and margin law on a canvas (SymPy, simulation)",
          "canvas": "Theorem 3 on a canvas (each probe's own ball measure) against simulation",
          "scale": "{}: spatial scale of the biased Luce rule",
          "two_task": "{}: one Theorem 3 radius for both tasks (new)",
          "colour": "{}, colour variant: one Theorem 3 radius for p_S(n) and p_I(n) (new)",
          "one_scale": "{}: one floor-free exponential scale for both tasks' p(n)",
          "floor": "{}: Theorem 3 with a floor across n, both tasks"}
LABELS = {"canvas": "the closed form (no deviation)", "scale": "the finest distance the design "
          "resolves", "one_scale": "one scale (the two tasks' scales equal)",
          "floor": "no floor (the paper's Theorem 3)"}
SCALE_MISFIT = MISFIT + ": the scale is approximate (the test was: {})"
WHY = {"misfit": MISFIT + " (goodness of fit {})",
       "bounds": "its likelihood set ({}–{} {}) is not bounded inside the design ({}–{} {})",
       "agree": "the estimators' intervals do not overlap"}
TWO_TASK = {"unidentified": "; the radius is not identified by both tasks",
            "p": " (equal radii: {})", "misfit": "; " + MISFIT + " for {}, so the interval is "
            "approximate", "label": "equal radii (Theorem 3: one resolution for both tasks)"}
ONE_SCALE = ("g(d) = exp(-d / lambda) fitted to p_S(n) and to p_I(n) apart gives one scale; "
             "headline: the similarity scale less the identification one (px), with an "
             "approximate 95% interval; one scale for both: {:.1f} px, goodness of fit {}")
FLOOR = ("the constant kernel with a floor (b = {:.3f}, Delta) describes p_S(n) and p_I(n) "
         "together (goodness of fit {}; without the floor: deviance {:.1f} on {} df, {}); "
         "headline: the floor Delta")


def p_words(p) -> str:
    """A p-value as the book's prose states it."""
    return gof_pvalue({"gof_p": p})


def band_row(band_agree: float) -> dict:
    """The error band and the margin law: true by construction, so a check."""
    return dict(result=RESULT["band"], statement=BAND.format(band_agree, BAND_AGREEMENT),
                kind="check", passed=band_agree > BAND_AGREEMENT)


def canvas_row(canvas_check) -> dict:
    """Theorem 3 on the canvas against the engine, headed by the worst cell (whose 95% interval
    reaches farthest from 0), judged within :data:`CANVAS_MARGIN`."""
    dev = (canvas_check["simulated"] - canvas_check["theory"]).to_numpy(float)
    se = canvas_check["se"].to_numpy(float)
    k = int(np.argmax(np.abs(dev) + 1.96 * se))
    row = canvas_check.iloc[k]
    return dict(result=RESULT["canvas"],
                statement=CANVAS.format(row["eps"], int(row["n"]), row["task"]),
                headline=float(dev[k]), ci=(float(dev[k] - 1.96 * se[k]),
                                             float(dev[k] + 1.96 * se[k])),
                compared_with=0.0, compared_with_label=LABELS["canvas"],
                margin=CANVAS_MARGIN, margin_reason=CANVAS_MARGIN_REASON,
                check_max_z=float(np.abs(canvas_check["z"]).max()), new=True)


def scale_identification(fit: dict, resolution: float, design_hi: float, agree=None,
                         px: float = 1.0, unit: str = "px") -> tuple[bool, list[str]]:
    """Whether a fitted scale is identified, and why not: it fits its data, its 95% likelihood set
    lies above ``resolution`` (a grid cell, an image patch) and below ``design_hi``, and the
    estimators agree (``agree``)."""
    if not resolution >= 0 or not design_hi > resolution:
        raise ValueError(f"resolution and design_hi must satisfy 0 <= resolution < design_hi; "
                         f"got {resolution!r}, {design_hi!r}")
    lo, hi = fit["profile_ci"]
    why = []
    if fit.get("misfit"):
        why.append(WHY["misfit"].format(gof_pvalue(fit)))
    if not fit["profile_bounded"] or lo <= resolution or hi >= design_hi:
        why.append(WHY["bounds"].format(fmt(lo * px), fmt(hi * px), unit, fmt(resolution * px),
                                        fmt(design_hi * px), unit))
    if agree is False:
        why.append(WHY["agree"])
    return not why, why


def fit_size(f: dict) -> dict:
    """The misfit's size a fit carries (:data:`semres.core.fits.SIZE_KEYS`), empty without."""
    size = {k: f.get(k) for k in SIZE_KEYS}
    return size if all(v is not None and np.isfinite(v) for v in size.values()) else {}


def approximate_ci(estimate: float, ci, f: dict, scale: float = 1.0):
    """A nonnegative parameter's interval (times ``scale``), widened by a misfit's dispersion
    (:func:`semres.core.fits.quasi_interval`), and whether it is approximate."""
    lo, hi = (float(x) for x in ci)
    size = fit_size(f)
    if f.get("misfit") and size:
        lo, hi = quasi_interval(estimate, (lo, hi), size["dispersion"])
        return (max(lo, 0.0) * scale, hi * scale), True
    return (lo * scale, hi * scale), bool(f.get("misfit"))


def scale_verdict(label: str, f: dict, px: float, resolution: float, design_hi: float,
                  statement: str, agree=None, stand_in: str = "", resolution_label: str = ""):
    """``(ok, why, row)``: :func:`scale_identification` and the row of a scale claimed above the
    finest distance the design resolves; a misfit keeps its scale, approximate, its interval
    widened by the dispersion."""
    ok, why = scale_identification(f, resolution, design_hi, agree, px)
    misfit = bool(f.get("misfit"))
    quoted = ok or misfit
    ci, approximate = approximate_ci(f["scale"], f["scale_ci"], f, px)
    return ok, why, dict(
        result=RESULT["scale"].format(label),
        statement=(SCALE_MISFIT.format(statement) if misfit else statement + (
            "" if ok else "; why not: " + "; ".join(why))),
        misfit=misfit, identified=ok or misfit, stand_in=stand_in, new=True,
        headline=f["scale"] * px if quoted else None, ci=ci if quoted else None,
        compared_with=resolution * px, compared_with_label=resolution_label or LABELS["scale"],
        claim="above", margin=0.0, margin_reason=SCALE_REASON,
        fit_size=fit_size(f) if misfit else None, gof_p=f.get("gof_p"), approximate=approximate)


def two_task_row(v: dict, result: str, statement: str) -> dict:
    """One radius for both tasks (``v``: :func:`.nsweep.radii_difference`): their difference
    against 0 within :data:`SAME_SHARE` of their mean; approximate where a task misfits."""
    margin = SAME_SHARE * v["mean"] if v.get("mean") is not None else 0.0
    joint = v.get("joint") or {}
    return dict(
        result=result, statement=statement + (
            "" if v["identified"] else TWO_TASK["unidentified"])
        + ("" if v["p_equal"] is None else TWO_TASK["p"].format(p_words(v["p_equal"])))
        + (TWO_TASK["misfit"].format(" and ".join(v["bad"])) if v["misfit"] else ""),
        identified=v["identified"], new=True,
        headline=v["difference"], ci=v["ci"], compared_with=0.0,
        compared_with_label=TWO_TASK["label"],
        margin=margin, margin_reason=SAME_REASON, approximate=bool(v["misfit"]),
        fit_size=fit_size(joint) or None, gof_p=joint.get("gof_p"))


def same_radius(v: dict) -> str | None:
    """The two radii (``v``): "apart" beyond the margin, "one" within it, "unclear" across its
    edge, None when not identified."""
    if not v["identified"]:
        return None
    lo, hi = v["ci"]
    margin = SAME_SHARE * v["mean"]
    if lo > margin or hi < -margin:
        return "apart"
    return "one" if -margin <= lo and hi <= margin else "unclear"


def single_scale_row(graded: dict, px: float, label: str, stand_in: str = "") -> dict:
    """One floor-free exponential for both tasks' p(n): the two scales equal within
    :data:`SAME_SHARE` of their mean (profile intervals read as normal ones, so approximate)."""
    sim, ide, both = graded["similarity"], graded["identification"], graded["both tasks"]
    se = [(g["lam_ci"][1] - g["lam_ci"][0]) / (2 * 1.959964) * px for g in (sim, ide)]
    diff = (sim["lam"] - ide["lam"]) * px
    half = 1.959964 * float(np.hypot(*se))
    mean = (sim["lam"] + ide["lam"]) / 2 * px
    return dict(result=RESULT["one_scale"].format(label),
                statement=ONE_SCALE.format(both["lam"] * px, p_words(both["gof_p"])),
                headline=diff, ci=(diff - half, diff + half), compared_with=0.0,
                compared_with_label=LABELS["one_scale"],
                margin=SAME_SHARE * mean, margin_reason=SAME_REASON.replace("radii", "scales"),
                misfit=bool(both.get("misfit")), fit_size=fit_size(both) or None,
                gof_p=both["gof_p"], approximate=True,
                identified=bool(sim["identified"] and ide["identified"]), new=True,
                stand_in=stand_in)


def floor_row(label: str, t: dict, free: dict, stand_in: str = "") -> dict:
    """Theorem 3 with its floor across n on both tasks: the floor claimed beyond
    :data:`FLOOR_MARGIN`."""
    ci, approximate = approximate_ci(t["delta"], t["delta_ci"], t)
    return dict(result=RESULT["floor"].format(label),
                statement=FLOOR.format(t["b"], p_words(t["gof_p"]), free["deviance"],
                                       free["df"], p_words(free["gof_p"])),
                headline=t["delta"], ci=ci, compared_with=0.0,
                compared_with_label=LABELS["floor"], claim="above",
                margin=FLOOR_MARGIN, margin_reason=FLOOR_REASON, misfit=bool(t.get("misfit")),
                fit_size=fit_size(t) or None, gof_p=t["gof_p"], approximate=approximate,
                new=True, stand_in=stand_in)


def front_point(sweep) -> dict | None:
    """The sweep's two-item point against chapter 7's front: the gap, its z and the side
    (beyond :data:`FRONT_Z` standard errors, or "within"); None without n = 2 at p_I >= 1/2."""
    sim, ide = (sweep[sweep.task == t].set_index("n") for t in ("similarity", "identification"))
    if not (2 in sim.index and 2 in ide.index and ide.p[2] >= 0.5):
        return None
    front = float(theory.front(ide.p[2]))
    gap = float(sim.p[2] - front)
    z = gap / max(float(sim.se[2]), 1e-9)
    side = "above" if z > FRONT_Z else "below" if z < -FRONT_Z else "within"
    return {"p_i": ide.p[2], "p_s": sim.p[2], "front": front, "gap": gap, "z": z, "side": side}


def stencil_biases(nc: dict, uniform: float) -> dict:
    """Which bias dominates a name-and-corner fit (the larger max/min of weights), and whether
    the other is present too (some weight's interval excludes ``uniform``)."""
    spread = {k: float(np.max(nc[f"{k}_weights"]) / np.min(nc[f"{k}_weights"]))
              for k in ("name", "place")}
    main = max(spread, key=spread.get)
    other = "place" if main == "name" else "name"
    ci = np.asarray(nc[f"{other}_weights_ci"])
    return {"main": main, "other": other, "spread": spread[main], "other_spread": spread[other],
            "other_present": bool(np.any((ci[:, 0] > uniform) | (ci[:, 1] < uniform)))}


def censored(table):
    """The fits that stopped on an edge of their search range or put their floor on 0."""
    return table[table.at_bound | table.bound_params.fillna("").str.contains("floor=0",
                                                                              regex=False)]


#: what a Theorem 3 radius fit allows (:func:`radius_status`), in words
RADIUS = {"misfit": MISFIT + " (the radius is approximate)", "identified": "identified",
          "above": "only bounded above (not identified)",
          "edge": "its 95% set reaches the design's edge, where the scenes make the prediction "
                  "flat (not identified)",
          "below": "only bounded below (not identified)",
          "none": "not identified (every radius fits within the 95% level)"}


def radius_status(f: dict) -> str:
    """A key of :data:`RADIUS`: what a ball fit (:func:`.nsweep.ball_fit`) allows of its radius."""
    end = f["profile_eps"][-1]
    if f.get("misfit"):
        return "misfit"
    if f["identified"]:
        return "identified"
    if f["ci_low"] == 0 and f["ci_high"] < end:
        return "above"
    if not f.get("inside", True):
        return "edge"
    return "below" if f["ci_high"] >= end and f["ci_low"] > 0 else "none"
