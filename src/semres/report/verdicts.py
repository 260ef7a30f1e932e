"""The book's one status vocabulary and significance policy, and the one rule that assigns a
status to a result from its numbers (:func:`status`): an interval against a practical margin."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from semres.core.fits import MISFIT_P, misfit_rule

from .numbers import as_float, as_number, missing, pvalue

#: a Monte Carlo cell further than this many standard errors from its closed form fails a check
Z_MAX = 5.0
#: every status a row can have; :func:`status` alone assigns them, the glance page lists them
VOCABULARY = {
    "reproduced": "a claim of the paper survives here: the 95% interval lies within the "
                  "practical margin of what the paper predicts (or, for an effect the paper "
                  "says exists, beyond the margin on the side it says)",
    "holds": "the same for a claim beyond the paper",
    "differs": "a number the paper gives is missed by more than the margin: the whole 95% "
               "interval lies outside the margin around it",
    "does not hold": "a claim is contradicted: the whole 95% interval lies beyond the margin "
                     "on the wrong side (outside it for a prediction, short of it for an "
                     "effect claimed to exist); the row gives the size of the miss",
    "inconclusive": "the 95% interval reaches across the edge of the margin, so this build "
                    "cannot tell; the row gives the smallest deviation its test could detect",
    "misfit": "the fitted model does not describe the data (goodness of fit p < 0.001); "
              "the row says by how much (dispersion, deviance explained, the gap between "
              "predicted and observed accuracy), and its parameter is approximate",
    "not identified": "the data do not pin the quantity down (its likelihood set is unbounded "
                      "or reaches the edge of what the design can resolve)",
    "does not do the task": "the model is at chance on the task, so its answers are not "
                            "analysed further",
    "met": "a precondition holds (a model does the task above chance): shown beside the "
           "findings it allows, never counted among them",
    "check": "true by construction (an identity, a bound computed by the code that proves "
             "it): it tests the code, not a claim, and is shown apart",
    "check failed": "a check that holds by construction does not: a defect in the code",
    "not run": "nothing was measured in this build (the chapter, model or data was not part "
               "of it)",
}
STATUSES = tuple(VOCABULARY)
#: statuses of rows that measured nothing: their reference is not shown as a comparison
NOT_MEASURED = ("not identified", "misfit", "does not do the task", "not run")
#: a finding (a claim the data could contradict), a check (true by construction) or a
#: precondition (a gate that decides whether a finding is measured, never counted)
KINDS = ("finding", "check", "precondition")
#: what a finding claims of its interval against reference ref and margin m: "equal" (within
#: ref ± m), "above"/"below" (beyond ref + m, below ref - m), "at least"/"at most" (above
#: ref - m, below ref + m)
CLAIMS = ("equal", "above", "below", "at least", "at most")
#: every interval is 95 % (each side of an equivalence test at 2.5 %)
ALPHA = 0.05
#: power at which the smallest detectable deviation of a test is stated
POWER = 0.8
POLICY = (f"Each finding states a practical margin: the smallest deviation that would matter to "
          f"the claim, with its reason. Its status compares the 95% interval with that margin: "
          f"inside it (or beyond it on the claimed side) the claim holds; beyond it on the "
          f"wrong side it does not; across its edge the build cannot tell, and the row gives "
          f"the smallest deviation its test detects with probability {POWER:g}. A fit is a "
          f"misfit when its goodness-of-fit test gives p < {MISFIT_P:g}, and then the row "
          f"says how far it misses. Where a chapter judges a family of claims on one set of "
          f"runs, their intervals are widened for the family (Bonferroni). Gates that decide "
          f"whether a finding is "
          f"measured are preconditions, shown beside the findings and never counted; a claim "
          f"over a grid of settings is one finding, decided by its weakest cell")
NO_MARGIN = {
    "z": f"none: a check, passed when every Monte Carlo cell lies within {Z_MAX:g} standard "
         "errors of its closed form",
    "passed": "none: a yes-or-no criterion, stated in the row",
    "nothing": "none: no number is measured",
}
GOOD = ("reproduced", "holds", "check")
BAD = ("differs", "does not hold", "check failed")
#: the order in which a grid's cells decide its claim: the first status any cell has wins
WEAKEST_FIRST = ("check failed", "differs", "does not hold", "misfit", "not identified",
                 "does not do the task", "inconclusive", "reproduced", "holds", "check",
                 "met", "not run")


def _claim(claim: str) -> None:
    if claim not in CLAIMS:
        raise ValueError(f"claim must be one of {CLAIMS}; got {claim!r}")


def judge(lo: float, hi: float, ref: float, margin: float, claim: str = "equal") -> str:
    """"pass", "fail" or "unsure": a 95 % interval [lo, hi] against ``ref`` ± ``margin`` for
    the kind of ``claim`` (two one-sided tests for "equal"; the margin's edge otherwise)."""
    _claim(claim)
    if claim == "equal":
        if lo > ref + margin or hi < ref - margin:
            return "fail"
        return "pass" if ref - margin <= lo and hi <= ref + margin else "unsure"
    edge = ref + margin if claim in ("above", "at most") else ref - margin
    if claim in ("above", "at least"):
        return "pass" if lo > edge else "fail" if hi < edge else "unsure"
    return "pass" if hi < edge else "fail" if lo > edge else "unsure"


def status(*, ci=None, paper_value: float | None = None, compared_with: float | None = None,
           margin: float | None = None, claim: str = "equal", passed: bool | None = None,
           check_max_z: float | None = None, misfit: bool = False, new: bool = False,
           kind: str = "finding", identified: bool = True, does_task: bool = True) -> str:
    """A row's status from its numbers. A check passes on ``passed`` and ``check_max_z`` <
    :data:`Z_MAX`; a precondition is "met" when ``passed``; a finding is a misfit, not doing the
    task or not identified first, else its ``ci`` is judged against its reference (``paper_value``
    or ``compared_with``) and ``margin`` (:func:`judge`), and without an interval is "not run"."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    _claim(claim)
    m = None if margin is None else as_number(margin)
    if margin is not None and (m is None or m < 0):
        raise ValueError(f"margin must be a finite number >= 0; got {margin!r}")
    if paper_value is not None and compared_with is not None:
        raise ValueError("paper_value and compared_with: give one reference, not both "
                         "(paper_value only for a number the paper gives)")
    if kind == "check":
        outcomes = [] if passed is None else [bool(passed)]
        if check_max_z is not None and np.isfinite(check_max_z):
            outcomes.append(float(check_max_z) < Z_MAX)
        if not outcomes:
            raise ValueError("passed: a check needs a criterion (passed or check_max_z)")
        return "check" if all(outcomes) else "check failed"
    if kind == "precondition":
        if passed is None:
            raise ValueError("passed: a precondition needs its criterion")
        if bool(passed) and does_task and identified:
            return "met"
        return "not identified" if does_task and not identified else "does not do the task"
    if passed is not None:
        raise ValueError("passed: a finding is decided by its interval against its margin, "
                         "not by a yes-or-no criterion (that is a check or a precondition)")
    if misfit:
        return "misfit"
    if not does_task:
        return "does not do the task"
    if not identified:
        return "not identified"
    lo, hi = (math.nan, math.nan) if ci is None else map(as_float, ci)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "not run"
    ref = paper_value if paper_value is not None else compared_with
    if ref is None or as_number(ref) is None:
        raise ValueError("compared_with: a finding compares its interval with a reference "
                         "(paper_value or compared_with)")
    if m is None:
        raise ValueError("margin: a finding needs a practical margin (0 for an exact claim)")
    verdict = judge(lo, hi, float(ref), m, claim)
    if verdict == "fail":
        return "differs" if paper_value is not None else "does not hold"
    if verdict == "unsure":
        return "inconclusive"
    return "holds" if new else "reproduced"


def slack(lo: float, hi: float, ref: float, margin: float, claim: str = "equal") -> float:
    """How far a 95 % interval lies inside the region where its claim passes (negative: how
    far past it): from its nearer end to the margin's edge it must not cross."""
    _claim(claim)
    return {"equal": min(lo - (ref - margin), (ref + margin) - hi),
            "above": lo - (ref + margin), "at least": lo - (ref - margin),
            "below": (ref - margin) - hi, "at most": (ref + margin) - hi}[claim]


def weakest(statuses, slacks=None) -> int:
    """The index of the cell that decides a claim over a grid: the first status in
    :data:`WEAKEST_FIRST`, and among those the smallest :func:`slack`."""
    statuses = list(statuses)
    if not statuses:
        raise ValueError("statuses: a grid needs at least one cell")
    slacks = [0.0] * len(statuses) if slacks is None else [
        math.inf if not np.isfinite(as_float(x)) else float(x) for x in slacks]
    rank = {s: k for k, s in enumerate(WEAKEST_FIRST)}
    return min(range(len(statuses)),
               key=lambda k: (rank.get(statuses[k], len(rank)), slacks[k]))


def detectable_at(se: float, power: float = POWER, alpha: float = ALPHA) -> float:
    """The smallest deviation a two-sided test with standard error ``se`` detects with
    probability ``power`` at level ``alpha``."""
    return float((norm.ppf(1 - alpha / 2) + norm.ppf(power)) * float(se))


def smallest_detectable(ci, power: float = POWER, alpha: float = ALPHA) -> float:
    """:func:`detectable_at` with the standard error read off a 95 % interval (NaN without)."""
    lo, hi = (math.nan, math.nan) if ci is None else map(as_float, ci)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return math.nan
    return detectable_at((hi - lo) / (2 * norm.ppf(0.975)), power, alpha)


def z_check_detectable(se: float, power: float = POWER) -> float:
    """The smallest deviation a Monte Carlo check (failing beyond :data:`Z_MAX` standard
    errors ``se``) detects with probability ``power``."""
    return float((Z_MAX + norm.ppf(power)) * float(se))


def counted(rows) -> list:
    """The rows a tally counts: findings that measured something."""
    return [r for r in rows if r.get("kind", "finding") == "finding"
            and r.get("status") != "not run"]


def outcome(rows) -> str:
    """The colour of a chapter's box: "good" when every row held, "bad" when none held and
    some failed, "mixed" otherwise."""
    statuses = [r.get("status") for r in rows]
    if statuses and all(s in GOOD for s in statuses):
        return "good"
    if any(s in BAD for s in statuses) and not any(s in GOOD for s in statuses):
        return "bad"
    return "mixed"


def reference(row: dict) -> tuple[str, float | str | None]:
    """What a row is compared with, in words, and the number: ("the paper", value),
    ("compared with <label>", value) or ("", None)."""
    paper = row.get("paper_value")
    if not missing(paper) and str(paper).strip():
        return "the paper", as_number(paper) if as_number(paper) is not None else str(paper)
    other = as_number(row.get("compared_with"))
    if other is None:
        return "", None
    label = row.get("compared_with_label")
    label = "" if missing(label) else " ".join(str(label).split())
    return ("compared with " + label).strip(), other


def gof_pvalue(fit: dict) -> str:
    """A fit's goodness-of-fit p-value at the resolution of its test (a bootstrap's 1/(B + 1)
    reads "p ≤ ...")."""
    return pvalue(fit["gof_p"], fit.get("gof_resolution") or 0.0)


def misfit_warning(what: str, fit: dict) -> str | None:
    """One line for the page when ``fit`` fails its goodness-of-fit test (else None)."""
    if not fit.get("misfit"):
        return None
    rule = misfit_rule(fit.get("gof_resolution", 0.0) or 0.0)
    return (f"The fit of {what} does not describe its data ({fit['gof_test']}: statistic "
            f"{fit['gof_stat']:.1f} on {fit['gof_df']:g} degrees of freedom, {gof_pvalue(fit)}; "
            f"a fit is a misfit at {rule}), so its parameters describe the wrong curve and no "
            "verdict is drawn from them.")
