"""Chapter 6's rules: when a spatial scale is identified, when two layouts differ, where a model
lies against chapter 7's front, and the overview rows (the keyword arguments of
``Report.result``, whose status :func:`semres.report.status` computes). Every threshold a rule
uses is named here."""

from __future__ import annotations

import numpy as np

from semres.core.fits import SIZE_KEYS, quasi_interval
from semres.report.verdicts import gof_pvalue
from semres.report import ALPHA, fmt

#: what a misfit means, in the chapter's words
MISFIT = "the model does not describe the data"
#: the error band's check: the share of points on which the band formula and the distance gap
#: must agree (the rest sit on the boundary to rounding)
BAND_AGREEMENT = 0.9999
#: a model's two-item point lies above (below) chapter 7's front when it clears it by more
#: than this many standard errors
FRONT_Z = 2.0
#: the two layouts' accuracy differs when the deviance's p-value is below the book's level for
#: rejecting "no effect" (:data:`semres.report.ALPHA`): p = 0.010 is a difference, not "none
#: detected"
LAYOUT_P = ALPHA

#: the overview rows' claims
LIVE_CLAIM = ("a spatial scale of the biased Luce rule, measured from the model's option "
              "probabilities (pixels of its canvas); identified when the rule fits, its "
              "likelihood set lies above an image patch and below the largest distance, and the "
              "estimators' intervals overlap")
LIVE_STAND_IN = "a small VLM trained here, not the paper's models"
TWO_TASK_CLAIM = ("the ball radius fitted to p_S(n) equals that fitted to p_I(n): headline, "
                  "their difference (canvas units) with its 95% profile interval")
COLOUR_CLAIM = ("the hue radius fitted to generalization equals that fitted to identification: "
                "headline, their difference (hue circle) with its 95% profile interval")


def p_words(p) -> str:
    """A p-value as the book's prose states it."""
    return gof_pvalue({"gof_p": p})


def grid_claim(label: str) -> str:
    """The claim of a paper model's row, from its released grid counts."""
    return (f"a spatial scale of the biased Luce rule, measured from {label}'s released "
            "four-shape answers (pixels of the 900 px canvas); identified when the rule fits "
            "and its likelihood set lies above one 150 px grid cell and below the largest "
            "distance")


#: the canvas check's margin (a success probability): two hundredths
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


def band_row(band_agree: float) -> dict:
    """The check of the band and the margin law: true by construction (the band is the
    distance gap's level set, and the margin law the Luce rule itself), so a check."""
    return dict(result="Error band and margin law on a canvas (SymPy, simulation)",
                statement="the hyperbolic error band agrees with the distance gap on "
                f"{band_agree:.5f} of the points (at least {BAND_AGREEMENT} required: the rest "
                "sit on the boundary to rounding); the logistic margin law equals the engine's "
                "Luce rule (derived here)", kind="check", passed=band_agree > BAND_AGREEMENT)


def canvas_row(canvas_check) -> dict:
    """Theorem 3 on the canvas (each probe's own ball measure) against the engine: a finding,
    headed by the worst cell's deviation (simulated less the closed form, the cell whose 95%
    interval reaches farthest from 0) and its interval against 0 within
    :data:`CANVAS_MARGIN`; the largest |z| is recorded."""
    dev = (canvas_check["simulated"] - canvas_check["theory"]).to_numpy(float)
    se = canvas_check["se"].to_numpy(float)
    k = int(np.argmax(np.abs(dev) + 1.96 * se))
    row = canvas_check.iloc[k]
    return dict(result="Theorem 3 on a canvas (each probe's own ball measure) against simulation",
                statement="the heterogeneous Theorem 3, p^n = E_p[p^n(b_p)], matches the engine's "
                "Luce rule with a constant kernel on the canvas (derived here); headline: the "
                f"worst cell's deviation (eps = {row['eps']:g}, n = {int(row['n'])}, "
                f"{row['task']}), simulated less the closed form",
                headline=float(dev[k]), ci=(float(dev[k] - 1.96 * se[k]),
                                             float(dev[k] + 1.96 * se[k])),
                compared_with=0.0, compared_with_label="the closed form (no deviation)",
                margin=CANVAS_MARGIN, margin_reason=CANVAS_MARGIN_REASON,
                check_max_z=float(np.abs(canvas_check["z"]).max()), new=True)


def scale_identification(fit: dict, resolution: float, design_hi: float, agree=None,
                         px: float = 1.0, unit: str = "px") -> tuple[bool, list[str]]:
    """Whether a fitted scale (a :func:`semres.core.choice.fit_choices` fit with its goodness of
    fit) is identified, and why not. It must describe its data (no ``misfit``), and its 95%
    likelihood set must be bounded on both sides inside the design: above ``resolution``, the
    finest distance the data resolve (a grid cell, an image patch), and below ``design_hi``, the
    largest distance. What a grid limits is the scale itself, so a set narrower than a cell is
    a precise measurement, not a failure. With ``agree`` False (the other estimators' intervals
    do not overlap) it is not identified either. ``px`` and ``unit`` only format the reasons.
    """
    if not resolution >= 0 or not design_hi > resolution:
        raise ValueError(f"resolution and design_hi must satisfy 0 <= resolution < design_hi; "
                         f"got {resolution!r}, {design_hi!r}")
    lo, hi = fit["profile_ci"]
    why = []
    if fit.get("misfit"):
        why.append(f"{MISFIT} (goodness of fit {gof_pvalue(fit)})")
    if not fit["profile_bounded"] or lo <= resolution or hi >= design_hi:
        why.append(f"its likelihood set ({fmt(lo * px)}–{fmt(hi * px)} {unit}) is not bounded "
                   f"inside the design ({fmt(resolution * px)}–{fmt(design_hi * px)} {unit})")
    if agree is False:
        why.append("the estimators' intervals do not overlap")
    return not why, why


def fit_size(f: dict) -> dict:
    """The misfit's size a fit carries (:data:`semres.core.fits.SIZE_KEYS`), empty without."""
    size = {k: f.get(k) for k in SIZE_KEYS}
    return size if all(v is not None and np.isfinite(v) for v in size.values()) else {}


def approximate_ci(estimate: float, ci, f: dict, scale: float = 1.0):
    """A nonnegative parameter's interval (times ``scale``), widened by its fit's dispersion
    (:func:`semres.core.fits.quasi_interval`) when the fit is a misfit, and whether it is
    approximate."""
    lo, hi = (float(x) for x in ci)
    size = fit_size(f)
    if f.get("misfit") and size:
        lo, hi = quasi_interval(estimate, (lo, hi), size["dispersion"])
        lo = max(lo, 0.0)  # every parameter widened here (a scale, a radius, a floor) is >= 0
        return (lo * scale, hi * scale), True
    return (lo * scale, hi * scale), bool(f.get("misfit"))


def scale_row(label: str, f: dict, ok: bool, why: list, px: float, statement: str,
              stand_in: str = "", resolution: float = 0.0, unit_label: str = "") -> dict:
    """The overview row of a spatial scale (``ok``, ``why``: :func:`scale_identification`):
    a scale beyond the paper, claimed to exist above the finest distance the design resolves
    (``resolution``, canvas units: a grid cell, an image patch), so "holds" when its interval
    lies above it; not identified (with why) when its likelihood set is not bounded inside the
    design; a misfit when the rule does not describe the answers, with how far it misses
    (:func:`fit_size`) and the scale kept, its interval widened by the dispersion and marked
    approximate."""
    misfit = bool(f.get("misfit"))
    quoted = ok or misfit
    ci, approximate = approximate_ci(f["scale"], f["scale_ci"], f, px)
    return dict(result=f"{label}: spatial scale of the biased Luce rule",
                statement=(f"{MISFIT}: the scale is approximate (the test was: {statement})"
                           if misfit else statement + ("" if ok else "; why not: "
                                                       + "; ".join(why))),
                misfit=misfit, identified=ok or misfit, stand_in=stand_in, new=True,
                headline=f["scale"] * px if quoted else None, ci=ci if quoted else None,
                compared_with=resolution * px,
                compared_with_label=unit_label or "the finest distance the design resolves",
                claim="above", margin=0.0,
                margin_reason="none beyond the design's own: what a grid cell or an image "
                "patch limits is the scale itself, so any scale above one is measured and one "
                "below it cannot be told from none",
                fit_size=fit_size(f) if misfit else None,
                gof_p=f.get("gof_p"), approximate=approximate)


def two_task_row(v: dict, result: str, statement: str) -> dict:
    """The overview row of one radius for both tasks (``v``:
    :func:`semres.experiments.vlm_shapes.nsweep.radii_difference`): Theorem 3's prediction that
    the two radii are equal, judged by their difference's 95% interval against 0 within
    :data:`SAME_SHARE` of their mean (does not hold when the interval clears that margin; its
    headline is the miss). The one-radius fit to both tasks gives the misfit's size beside it;
    where a task's own fit is a misfit the interval is widened by its dispersion and marked
    approximate."""
    margin = SAME_SHARE * v["mean"] if v.get("mean") is not None else 0.0
    joint = v.get("joint") or {}
    return dict(
        result=result, statement=statement + (
            "" if v["identified"] else "; the radius is not identified by both tasks")
        + ("" if v["p_equal"] is None else f" (equal radii: {p_words(v['p_equal'])})")
        + (f"; {MISFIT} for " + " and ".join(v["bad"]) + ", so the interval is approximate"
           if v["misfit"] else ""),
        identified=v["identified"], new=True,
        headline=v["difference"], ci=v["ci"], compared_with=0.0,
        compared_with_label="equal radii (Theorem 3: one resolution for both tasks)",
        margin=margin, margin_reason=SAME_REASON, approximate=bool(v["misfit"]),
        fit_size=fit_size(joint) or None, gof_p=joint.get("gof_p"))


def single_scale_row(graded: dict, px: float, label: str, stand_in: str = "") -> dict:
    """The overview row of one floor-free exponential for both tasks' p(n) (``graded``:
    :func:`semres.experiments.vlm_shapes.nsweep.graded_fits`), the counterpart of the radius
    row: the scale fitted to p_S(n) alone equals the one fitted to p_I(n) alone within
    :data:`SAME_SHARE` of their mean. Each profile interval is read as a normal one (its half
    width over 1.96 a standard error), so the difference's interval is approximate; the fit of
    one scale to both tasks gives the goodness of fit and, for a misfit, its size."""
    sim, ide, both = graded["similarity"], graded["identification"], graded["both tasks"]
    se = [(g["lam_ci"][1] - g["lam_ci"][0]) / (2 * 1.959964) * px for g in (sim, ide)]
    diff = (sim["lam"] - ide["lam"]) * px
    half = 1.959964 * float(np.hypot(*se))
    mean = (sim["lam"] + ide["lam"]) / 2 * px
    return dict(result=f"{label}: one floor-free exponential scale for both tasks' p(n)",
                statement="g(d) = exp(-d / lambda) fitted to p_S(n) and to p_I(n) apart gives "
                "one scale; headline: the similarity scale less the identification one (px), "
                f"with an approximate 95% interval; one scale for both: {both['lam'] * px:.1f} "
                f"px, goodness of fit {p_words(both['gof_p'])}",
                headline=diff, ci=(diff - half, diff + half), compared_with=0.0,
                compared_with_label="one scale (the two tasks' scales equal)",
                margin=SAME_SHARE * mean, margin_reason=SAME_REASON.replace("radii", "scales"),
                misfit=bool(both.get("misfit")), fit_size=fit_size(both) or None,
                gof_p=both["gof_p"], approximate=True,
                identified=bool(sim["identified"] and ide["identified"]), new=True,
                stand_in=stand_in)


def floor_row(label: str, t: dict, free: dict, stand_in: str = "") -> dict:
    """The overview row of Theorem 3 with its floor across n on both tasks (``t``, ``free``:
    :func:`semres.core.nsweep.fit_theorem3` with and without the floor): the floor Delta,
    claimed to exist beyond :data:`FLOOR_MARGIN`, with its profile interval; a misfit carries
    its size and an interval widened by the dispersion, marked approximate."""
    misfit = bool(t.get("misfit"))
    ci, approximate = approximate_ci(t["delta"], t["delta_ci"], t)
    return dict(result=f"{label}: Theorem 3 with a floor across n, both tasks",
                statement=f"the constant kernel with a floor (b = {t['b']:.3f}, Delta) "
                f"describes p_S(n) and p_I(n) together (goodness of fit {p_words(t['gof_p'])};"
                f" without the floor: deviance {free['deviance']:.1f} on {free['df']} df, "
                f"{p_words(free['gof_p'])}); headline: the floor Delta",
                headline=t["delta"], ci=ci, compared_with=0.0,
                compared_with_label="no floor (the paper's Theorem 3)", claim="above",
                margin=FLOOR_MARGIN, margin_reason=FLOOR_REASON, misfit=misfit,
                fit_size=fit_size(t) or None, gof_p=t["gof_p"], approximate=approximate,
                new=True, stand_in=stand_in)


def radii_differ(v: dict) -> bool:
    """The two tasks need different radii: the difference's 95% interval excludes 0."""
    return v["ci"][0] > 0 or v["ci"][1] < 0


def front_side(z: float) -> str:
    """Where a two-item point lies against chapter 7's front, by its distance in standard
    errors: "above", "below" or "within"."""
    return "above" if z > FRONT_Z else "below" if z < -FRONT_Z else "within"


def layouts_differ(p: float) -> bool:
    """The fixed corners and the random stencils give different accuracy against the margin."""
    return p < LAYOUT_P


def bias_present(weights_ci, uniform: float) -> bool:
    """A set of response weights is biased: some weight's interval excludes ``uniform``."""
    ci = np.asarray(weights_ci)
    return bool(np.any((ci[:, 0] > uniform) | (ci[:, 1] < uniform)))


def no_refit_reached(fit: dict) -> bool:
    """A bootstrap goodness of fit in which no simulated statistic reached the observed one."""
    return fit["gof_p"] <= fit["gof_resolution"] * (1 + 1e-9)
