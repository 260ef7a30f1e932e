"""The book's one status vocabulary and significance policy, and the one rule that assigns a
status to a result from its numbers (:func:`status`)."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from semres.core.fits import MISFIT_P, misfit_rule

from .numbers import as_float, as_number, missing, pvalue

#: a Monte Carlo cell further than this many standard errors from its closed form fails a check
Z_MAX = 5.0
#: the book's one status vocabulary: every status a result row can have, with what it means.
#: :func:`status` is the only place that assigns them; the glance page lists them from here.
VOCABULARY = {
    "reproduced": "a claim the paper makes holds here: its criterion passes (a derivation, a "
                  "Monte Carlo check within five standard errors of the closed form, a measured "
                  "effect whose 95% interval lies on the claimed side), or its interval lies "
                  "within the stated tolerance of a value computed here from the paper's law",
    "agrees within tolerance": "the 95% interval lies within the stated tolerance of a number "
                               "the paper gives (the row names the tolerance and its reason)",
    "holds": "a result beyond the paper, so there is nothing to reproduce: its criterion "
             "passes, or its interval lies within the tolerance of (or on the claimed side of) "
             "the value it is compared with",
    "differs": "against a number the paper gives, and only then: the criterion fails, or the "
               "95% interval clears the paper's value by more than the tolerance",
    "does not hold": "a claim with no number of the paper to compare (a qualitative claim of "
                     "the paper, or a result beyond it) that the data contradict: the criterion "
                     "fails, or the interval clears the compared value by more than the "
                     "tolerance, or lies on the other side of it",
    "inconclusive": "the 95% interval straddles the edge of the tolerance (or the compared "
                    "value): this build cannot decide",
    "not identified": "the data do not determine the quantity (its likelihood set is unbounded "
                      "or reaches the edge of what the design can resolve), so no number is "
                      "reported",
    "misfit": "the fit behind the row fails its goodness-of-fit test (p < 0.001, or, for a "
              "bootstrap with too few refits for that rule, p at the smallest value its refits "
              "can show, when no refit reached the observed statistic): the model does not describe the data, so its numbers are no "
              "measurement",
    "does not do the task": "the model fails its competence gate (it does not do the task "
                            "above chance), so its answers are not analysed further",
    "met": "a precondition of the findings holds (a model does the task above chance): shown "
           "beside the findings it allows, never counted among them",
    "check": "true by construction (an identity, a bound proved and computed by the same code, "
             "or a number checked by the quantity it asserts): it tests the code, not the "
             "claim, and is shown apart from the findings",
    "check failed": "a check that holds by construction does not: a defect in the code",
    "not run": "nothing was measured in this build (the chapter, or the model or data the "
               "result needs, was not part of it)",
}
STATUSES = tuple(VOCABULARY)
#: statuses of rows that measured nothing: their reference is not shown as a comparison
NOT_MEASURED = ("not identified", "misfit", "does not do the task", "not run")
#: a row is a finding (a claim the data could contradict), a check (true by construction) or
#: a precondition (a gate that decides whether a finding is measured: never a finding itself)
KINDS = ("finding", "check", "precondition")
#: the significance policy, one for the book. A theory's prediction (or a claimed effect) is
#: rejected at ALPHA; a descriptive fit is a misfit below MISFIT_P (stricter: the fit is a
#: summary, not the claim); a chapter's family of tests of one claim is corrected by Holm's
#: step-down method (:func:`holm`).
ALPHA = 0.05
#: power asked of a test that finds "no difference": the smallest deviation it detects with
#: this probability at ALPHA (two-sided) is reported beside every row that holds
POWER = 0.8
POLICY = (f"A theory's prediction, or a claimed effect, is rejected when its test gives p < "
          f"{ALPHA:g}; a descriptive fit (a kernel, a ball measure) is a misfit only below "
          f"p = {MISFIT_P:g}, because it summarises data rather than claims anything; where a "
          "chapter tests one claim many times, the p-values are adjusted by Holm's step-down "
          "method before they are read. A row that holds, is reproduced or agrees within "
          f"tolerance reports the smallest deviation its test detects with probability "
          f"{POWER:g} (at {ALPHA:g}, two-sided): (z₀.₉₇₅ + z₀.₈) standard errors. Gates that decide "
          "whether a finding is measured (a competence gate) are preconditions: they are shown "
          "beside the findings and never counted among them, and what a failed gate blocks is "
          "one row marked not run, with the reason")
#: the tolerance reason a row gets when no tolerance applies, by what decided its status
NO_TOLERANCE = {
    "z": f"none: a Monte Carlo check, passed when every cell lies within {Z_MAX:g} standard "
         "errors of its closed form",
    "passed": "none: a yes-or-no criterion, stated in the row",
    "direction": "none: a one-sided claim, decided by whether the 95% interval excludes the "
                 "compared value",
    "nothing": "none: no number is measured",
}
#: statuses that say a claim held, and those that say it did not
GOOD = ("reproduced", "agrees within tolerance", "holds", "check")
BAD = ("differs", "does not hold", "check failed")


def _check_tolerance(tolerance) -> float | None:
    if tolerance is None:
        return None
    tol = as_number(tolerance)
    if tol is None or tol < 0:
        raise ValueError(f"tolerance must be a finite number >= 0; got {tolerance!r}")
    return tol


def _compare(lo: float, hi: float, ref: float, tol: float | None, direction: str | None) -> str:
    """"pass", "fail" or "unsure": an interval against a reference, two-sided within ``tol``
    or one-sided (``direction``: the claim is that the value lies above/below ref + tol)."""
    tol = 0.0 if tol is None else tol
    if direction == "above":
        return "pass" if lo > ref + tol else "fail" if hi < ref + tol else "unsure"
    if direction == "below":
        return "pass" if hi < ref - tol else "fail" if lo > ref - tol else "unsure"
    if lo > ref + tol or hi < ref - tol:
        return "fail"
    return "pass" if ref - tol <= lo and hi <= ref + tol else "unsure"


def status(*, passed: bool | None = None, check_max_z: float | None = None,
           headline: float | None = None, ci=None, paper_value: float | None = None,
           compared_with: float | None = None, tolerance: float | None = None,
           direction: str | None = None, misfit: bool = False, new: bool = False,
           kind: str = "finding", identified: bool = True, does_task: bool = True,
           detectable: float | None = None, matters: float | None = None) -> str:
    """A row's status, from its numbers: one of :data:`VOCABULARY`, by these rules.

    1. ``kind="check"`` (true by construction): ``check`` when its criterion (``passed``, and
       ``check_max_z`` below :data:`Z_MAX`) holds, ``check failed`` otherwise.
       ``kind="precondition"`` (a gate that decides whether a finding is measured): ``met``
       when ``passed``, else ``does not do the task`` (or ``not identified``); never a finding.
    2. A finding whose fit fails its goodness-of-fit test is ``misfit``; a model that fails its
       competence gate (``does_task=False``) is ``does not do the task``; a quantity the data do
       not determine (``identified=False``) is ``not identified``. None of them is a measurement.
    3. Otherwise every criterion is judged: ``passed``; ``check_max_z`` below :data:`Z_MAX`;
       and the 95% interval ``ci`` against the reference (``paper_value``, a number the paper
       gives, or ``compared_with``, any other reference), two-sided within ``tolerance`` or,
       with ``direction`` ("above"/"below"), one-sided: the interval must lie on that side.
       Any criterion failing gives ``differs`` against a paper value and ``does not hold``
       without one; an interval straddling the edge gives ``inconclusive``; all passing give
       ``agrees within tolerance`` (an interval within the tolerance of the paper's value),
       ``holds`` (a result beyond the paper, ``new=True``) or ``reproduced``; but a row whose
       test could not have detected the deviation that ``matters`` (its ``detectable``, the
       smallest deviation found with 80 % power, is larger or unknown) is ``inconclusive``.
    4. Nothing to judge: ``not run``.

    Bad arguments raise ValueError naming them: a negative tolerance, an unknown kind or
    direction, both references at once, or an interval and a reference with neither a
    tolerance nor a direction to compare them by.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    if direction not in (None, "above", "below"):
        raise ValueError(f"direction must be None, 'above' or 'below'; got {direction!r}")
    tol = _check_tolerance(tolerance)
    if paper_value is not None and compared_with is not None:
        raise ValueError("paper_value and compared_with: give one reference, not both "
                         "(paper_value only for a number the paper gives)")
    outcomes = []
    if passed is not None:
        outcomes.append("pass" if bool(passed) else "fail")
    if check_max_z is not None and np.isfinite(check_max_z):
        outcomes.append("pass" if float(check_max_z) < Z_MAX else "fail")
    if kind == "check":
        if not outcomes:
            raise ValueError("passed: a check needs a criterion (passed or check_max_z)")
        return "check" if all(o == "pass" for o in outcomes) else "check failed"
    if kind == "precondition":
        if passed is None:
            raise ValueError("passed: a precondition needs its criterion")
        if bool(passed) and does_task and identified:
            return "met"
        return "not identified" if does_task and not identified else "does not do the task"
    if misfit:
        return "misfit"
    if not does_task:
        return "does not do the task"
    if not identified:
        return "not identified"
    ref = paper_value if paper_value is not None else compared_with
    lo, hi = (math.nan, math.nan) if ci is None else map(as_float, ci)
    interval = bool(np.isfinite(lo) and np.isfinite(hi))
    compared = False
    if ref is not None and interval:
        if tol is None and direction is None:
            if not outcomes:
                raise ValueError("tolerance: an interval compared with a reference needs a "
                                 "tolerance (0 for an exact claim) or a direction")
        else:
            outcomes.append(_compare(lo, hi, float(ref), tol, direction))
            compared = direction is None
    if not outcomes:
        return "not run"
    if "fail" in outcomes:
        return "differs" if paper_value is not None else "does not hold"
    if "unsure" in outcomes:
        return "inconclusive"
    if matters is not None and not (as_number(detectable) is not None
                                    and as_number(detectable) <= float(matters)):
        return "inconclusive"  # "not rejected" by a test that could not see what matters
    if paper_value is not None and (compared or tol is not None):
        return "agrees within tolerance"  # a tolerance applied to a number the paper gives
    return "holds" if new else "reproduced"


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (the same order back): the k-th
    smallest is multiplied by m - k + 1, and no adjusted value falls below an earlier one.
    It controls the chance of any false rejection in the family at the stated level."""
    p = np.asarray(pvalues, float)
    if p.ndim != 1 or not np.isfinite(p).all() or ((p < 0) | (p > 1)).any():
        raise ValueError("pvalues must be a list of numbers in [0, 1]")
    order = np.argsort(p)
    m = len(p)
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adjusted
    return out


def detectable_at(se: float, power: float = POWER, alpha: float = ALPHA) -> float:
    """The smallest deviation a test with standard error ``se`` detects with probability
    ``power`` at level ``alpha`` (two-sided): (z_(1 - alpha/2) + z_power) standard errors."""
    return float((norm.ppf(1 - alpha / 2) + norm.ppf(power)) * float(se))


def smallest_detectable(ci, power: float = POWER, alpha: float = ALPHA) -> float:
    """:func:`detectable_at` for a test whose 95 % interval is ``ci`` (its standard error read
    off the interval); NaN without an interval."""
    lo, hi = (math.nan, math.nan) if ci is None else map(as_float, ci)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return math.nan
    return detectable_at((hi - lo) / (2 * norm.ppf(0.975)), power, alpha)


def z_check_detectable(se: float, power: float = POWER) -> float:
    """The smallest deviation a Monte Carlo check detects with probability ``power``: it
    fails a cell beyond :data:`Z_MAX` standard errors, so a cell off by (Z_MAX + z_power)
    standard errors ``se`` (the largest among its cells) fails with that probability."""
    return float((Z_MAX + norm.ppf(power)) * float(se))


def counted(rows) -> list:
    """The rows a tally counts: findings that measured something (preconditions, checks and
    results not run are shown, never counted)."""
    return [r for r in rows if r.get("kind", "finding") == "finding"
            and r.get("status") != "not run"]


def outcome(rows) -> str:
    """A chapter's outcome for the colour of its box: "good" when every row held, "bad" when
    none held and some failed, "mixed" otherwise (rows that measured nothing count as neither
    held nor failed)."""
    statuses = [r.get("status") for r in rows]
    if statuses and all(s in GOOD for s in statuses):
        return "good"
    if any(s in BAD for s in statuses) and not any(s in GOOD for s in statuses):
        return "bad"
    return "mixed"


def reference(row: dict) -> tuple[str, float | str | None]:
    """What a row is compared with, in words, and the number: ``("the paper", value)`` for a
    number the paper gives, ``("compared with <label>", value)`` for any other reference, and
    ``("", None)`` for none."""
    paper = row.get("paper_value")
    if not missing(paper) and str(paper).strip():
        return "the paper", as_number(paper) if as_number(paper) is not None else str(paper)
    other = as_number(row.get("compared_with"))
    if other is not None:
        label = "" if missing(row.get("compared_with_label")) else \
            " ".join(str(row.get("compared_with_label")).split())
        return ("compared with " + label).strip(), other
    return "", None


def gof_pvalue(fit: dict) -> str:
    """A fit's goodness-of-fit p-value as prose states it, at the resolution of its test (a
    bootstrap's 1/(B + 1) reads "p ≤ ...", never as a smaller p than it can show)."""
    return pvalue(fit["gof_p"], fit.get("gof_resolution") or 0.0)


def misfit_warning(what: str, fit: dict) -> str | None:
    """One line for the page when ``fit`` fails its goodness-of-fit test (None when it passes
    or was not tested)."""
    if not fit.get("misfit"):
        return None
    rule = misfit_rule(fit.get("gof_resolution", 0.0) or 0.0)
    return (f"The fit of {what} does not describe its data ({fit['gof_test']}: statistic "
            f"{fit['gof_stat']:.1f} on {fit['gof_df']:g} degrees of freedom, {gof_pvalue(fit)}; "
            f"a fit is a misfit at {rule}), so its parameters describe the wrong curve and no "
            "verdict is drawn from them.")
