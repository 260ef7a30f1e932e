"""Chapter 6's rules: when a spatial scale is identified, when two layouts differ, where a model
lies against chapter 7's front, and the overview rows (the keyword arguments of
``Report.result``, whose status :func:`semres.report.status` computes). Every threshold a rule
uses is named here."""

from __future__ import annotations

import numpy as np

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


def canvas_row(canvas_zmax: float, canvas_se: float) -> dict:
    """The row of the chapter's checks: the band, the margin law and Theorem 3 on the canvas
    against the engine, by the largest |z| of the canvas check."""
    return dict(result="Error band and margin law on a canvas (SymPy, Monte Carlo)",
                statement="hyperbolic error band, logistic margin law, heterogeneous Theorem 3 "
                "on the canvas agree with simulation (derived here)",
                check_max_z=canvas_zmax, check_se=canvas_se, new=True)


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


def scale_row(label: str, f: dict, ok: bool, why: list, px: float, statement: str,
              stand_in: str = "") -> dict:
    """The overview row of a spatial scale (``ok``, ``why``: :func:`scale_identification`):
    holds when identified, not identified (with why) when not, misfit when the rule does not
    describe the answers. A scale the paper never gives is beyond it ("holds"), never
    "reproduced"; only an identified scale is quoted as a number."""
    misfit = bool(f["misfit"])
    quoted = ok and not misfit
    return dict(result=f"{label}: spatial scale of the biased Luce rule",
                statement=f"{MISFIT}, so no scale is measured (the test was: {statement})"
                if misfit else statement + ("" if ok else "; why not: " + "; ".join(why)),
                misfit=misfit, identified=ok, passed=ok, stand_in=stand_in, new=True,
                headline=f["scale"] * px if quoted else None,
                ci=(f["scale_ci"][0] * px, f["scale_ci"][1] * px) if quoted else None)


def two_task_row(v: dict, result: str, statement: str) -> dict:
    """The overview row of one radius for both tasks (``v``:
    :func:`semres.experiments.vlm_shapes.nsweep.radii_difference`): the difference of the
    radii and its interval against 0, inconclusive when the interval covers 0 (equal radii are
    not rejected, which is no measurement that they are equal), does not hold when it excludes
    0; misfit when Theorem 3 does not describe a task."""
    return dict(
        result=result, statement=f"{MISFIT}, so no radius is compared (the test was: "
        f"{statement})" if v["misfit"] else statement + (
            "" if v["identified"] else "; the radius is not identified by both tasks")
        + ("" if v["p_equal"] is None else f" (equal radii: {p_words(v['p_equal'])})"),
        misfit=v["misfit"], identified=v["identified"], new=True,
        headline=v["difference"], ci=v["ci"], compared_with=0.0,
        compared_with_label="equal radii", tolerance=0.0, tolerance_reason="no allowance: "
        "nothing sets how different two radii may be and still count as one")


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
