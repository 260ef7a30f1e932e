"""Chapter 5's verdicts: the rules that turn its numbers into decisions, each threshold named.

Which measure of the encoder's resolution is reported (:func:`headline_measure`) and whether that
choice survives every choice of windows (:func:`window_choices`); whether the mean kernel's
prediction meets the n-sweep (:func:`sweep_verdict`); whether the temperature trades p_S for p_I
(:func:`tradeoff`); whether a floor turns the exponential into a tradeoff on the shared engine
(:func:`floor_tradeoff`); Theorem 3 on a causal LM's n-sweep after Holm's adjustment
(:func:`theorem3_verdict`); and the sentences that state these verdicts. The page
(:mod:`.page`, :mod:`.page_encoder`, :mod:`.page_lm`, :mod:`.page_near`) writes the rows of the
overview from them through :func:`semres.report.status`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import norm

from semres.core.fits import censored_warning
from semres.report.verdicts import gof_pvalue
from semres.report import ALPHA, POWER, detectable_at, holm
from semres.report.numbers import as_number, carried

from .kernel_fits import SHAPE_LABELS, window_stability
from .settings import THE_PAPER

__all__ = ["MIN_BOOT", "BOTH_RISE", "TURN_SE", "WITHIN_Z", "CLEAR_SE", "TAIL_SE", "TRADE_SE",
           "WING_Z", "MISS_MATTERS", "PAPER_RESOLUTION", "floor_tradeoff", "measure_name",
           "Headline", "headline_measure", "window_choices", "same_for_every_choice",
           "choice_verdict", "tail_trend", "window_verdict", "shape_verdict", "sweep_verdict",
           "tradeoff", "tradeoff_verdict", "wing_asymmetry", "theorem3_verdict",
           "resolution_claim", "external_verdict", "WING_BEYOND", "scalars",
           "fit_numbers", "shape_numbers", "window_numbers", "choice_numbers",
           "tradeoff_numbers", "external_numbers"]

#: a 95% percentile interval needs at least 1/0.025 = 40 resamples to put one in each tail; with
#: fewer, "moves less than its interval" compares against noise, so no window verdict is given
MIN_BOOT = 40
#: without a floor, p_S and p_I on the finest lambda of the sweep both reach this: a finer
#: kernel wins both tests (Proposition ch5-prop-two-reference's last claim, on the engine)
BOTH_RISE = 0.97
#: with a floor, p_S turns: its peak exceeds its value at both ends of the lambda grid by more
#: than this many standard errors of the end
TURN_SE = 5
#: a prediction meets measured rates when every cell lies within this many standard errors
WITHIN_Z = 3
#: one kernel shape predicts held-out units clearly better than the next when ahead by more
#: than this many fold standard errors of the difference
CLEAR_SE = 2
#: the kernel is still falling at the end of its range when the slope of log g lies more than
#: this many standard errors below zero
TAIL_SE = 2
#: p_S turns down on cooling (and p_I does not fall) by more than this many standard errors
TRADE_SE = 2
#: the two wings of the two-reference design differ at |z| above this
WING_Z = 3
#: the wings compare the probes more than this many years past the nearer reference
WING_BEYOND = 150.0
#: the miss of Theorem 3's prediction that matters: 0.05 of mass on the correct person, the
#: effect the competence gate is sized to see (0.55 against 0.5); a test that could not see it
#: leaves the theorem inconclusive, never "holds"
MISS_MATTERS = 0.05
#: the paper's stated resolution of its chat LLMs, "roughly 70–80 years": its middle and the
#: half-width of the range, the reference and tolerance of a comparison on its own measure
PAPER_RESOLUTION = (sum(THE_PAPER.resolution) / 2,
                    (THE_PAPER.resolution[1] - THE_PAPER.resolution[0]) / 2)


def floor_tradeoff(lam_df) -> dict:
    """Proposition ch5-prop-two-reference on the engine's lambda sweep (columns floor, lambda,
    p_s, p_s_se, p_i; lambda ascending within each floor): without a floor both rates rise
    together as lambda -> 0 (``both_rise``, both above :data:`BOTH_RISE` at the finest lambda);
    with the smallest floor > 0 p_S rises and falls again (``turns``: its peak above both ends
    by more than :data:`TURN_SE` standard errors of the end). Returns both, ``holds`` (both),
    and the floored curve's peak and finest-lambda p_S."""
    no_fl = lam_df[lam_df.floor == 0]
    fl = lam_df[lam_df.floor == min(f for f in lam_df.floor.unique() if f > 0)]
    both_rise = bool(no_fl.p_s.iloc[0] > BOTH_RISE and no_fl.p_i.iloc[0] > BOTH_RISE)
    top = fl.p_s.idxmax()
    turns = bool(fl.p_s[top] - fl.p_s.iloc[0] > TURN_SE * fl.p_s_se.iloc[0] and
                 fl.p_s[top] - fl.p_s.iloc[-1] > TURN_SE * fl.p_s_se.iloc[-1])
    # the smallest turn this test sees with 80 % power: TURN_SE plus z_0.8 standard errors
    se = float(max(fl.p_s_se.iloc[0], fl.p_s_se.iloc[-1]))
    return {"both_rise": both_rise, "turns": turns, "holds": both_rise and turns,
            "floor": float(fl.floor.iloc[0]), "peak_ps": fl.p_s[top],
            "peak_lambda": fl["lambda"][top], "finest_ps": fl.p_s.iloc[0],
            "detectable": (TURN_SE + float(norm.ppf(POWER))) * se}


def measure_name(measure: str) -> str:
    """A measure's name for prose: kernel shapes (``kernel exp_floor``) by their label."""
    if measure.startswith("kernel "):
        return f"kernel fit ({SHAPE_LABELS[measure[7:]]})"
    return measure


@dataclass(frozen=True)
class Headline:
    """The measure a chapter reports for one model, and why the others were passed over."""

    measure: str
    stable: bool
    decided: bool  # False when too few resamples to judge stability
    reasons: tuple
    row: dict  # the measure's last (widest) window
    checks: dict = field(default_factory=dict)  # each measure's windows and stability numbers


def headline_measure(table, *, best_kernel: str | None, ref_stable, kernel_stable,
                     n_boot: int) -> Headline:
    """The first measure stable across its upper windows, in the order: the paper's
    operational crossover, the two-reference fit, the best kernel shape.

    Stable means no fit stopped on a bound, none failed its goodness-of-fit test (a ``misfit``
    column, where the table has one), and the resolution moved by less than its narrowest 95%
    interval across the upper windows (:func:`window_stability`). With fewer than
    :data:`MIN_BOOT` resamples nothing is decided.
    """
    order = [("chance crossover", ref_stable), ("two-reference fit", ref_stable)]
    if best_kernel is not None:
        order.append((best_kernel, kernel_stable))
    checks, reasons = {}, []
    for measure, (lo, hi) in order:
        sub = table[table.measure == measure]
        wins = [w for w in sub.window if lo <= w <= hi]
        if len(wins) < 2:
            continue
        st = window_stability(sub, wins)
        misfit = bool(sub[sub.window.isin(wins)].get("misfit", pd.Series(False)).fillna(False)
                      .astype(bool).any())
        st["stable"] = st["stable"] and not misfit
        checks[measure] = {**st, "lo": lo, "hi": hi}
        if misfit:
            reasons.append(f"the {measure_name(measure)} does not describe the data in windows "
                           f"{lo}–{hi} (goodness of fit p < 0.001)")
        elif st["censored"]:
            reasons.append(f"the {measure_name(measure)} stops on a bound of its range in "
                           f"windows {lo}–{hi}")
        elif not st["stable"]:
            reasons.append(f"the {measure_name(measure)} moves by {st['spread']:.0f} years "
                           f"across windows {lo}–{hi}, more than its narrowest interval "
                           f"({st['ci_width']:.0f})")
    decided = int(n_boot) >= MIN_BOOT
    chosen = next((m for m, _ in order if m in checks and checks[m]["stable"]), order[0][0])
    rows = table[table.measure == chosen]
    row = rows.iloc[-1].to_dict() if len(rows) else {}
    return Headline(chosen, decided and chosen in checks and checks[chosen]["stable"], decided,
                    tuple(reasons), row, checks)


def window_choices(table, *, best_kernel: str | None, kernel_windows, ref_windows, ref_stable,
                   kernel_stable, n_boot: int) -> "pd.DataFrame":
    """The verdict of :func:`headline_measure` for every choice of "upper windows": each run
    of at least two windows that ends at the widest one, for the design and for the kernel
    (the other kept at the chapter's choice, ``ref_stable`` or ``kernel_stable``). Whether the
    resolution is identifiable must not hinge on that choice; this table says whether it does.
    """
    def upper(ws):
        ws = sorted(ws)
        return [(ws[i], ws[-1]) for i in range(len(ws) - 1)]

    choices = [("design", r, tuple(kernel_stable)) for r in upper(ref_windows)]
    if best_kernel is not None:  # the chapter's own choice is already among the design rows
        choices += [("kernel", tuple(ref_stable), k) for k in upper(kernel_windows)
                    if k != tuple(kernel_stable)]
    rows = []
    for family, ref, kern in choices:
        h = headline_measure(table, best_kernel=best_kernel, ref_stable=ref,
                             kernel_stable=kern, n_boot=n_boot)
        lo, hi = ref if family == "design" else kern
        rows.append({"family": family, "upper_windows": f"{lo}–{hi}", "measure": h.measure,
                     "stable": h.stable, "resolution": h.row.get("resolution") if h.stable
                     else np.nan})
    return pd.DataFrame(rows)


def same_for_every_choice(choices) -> bool:
    """Whether every choice of upper windows gives the same verdict: none finds a stable
    measure, or all find the same one."""
    stable = choices[choices.stable]
    return stable.empty or (len(stable) == len(choices) and stable.measure.nunique() == 1)


def choice_verdict(choices) -> str:
    """One sentence: does the identifiability verdict depend on which windows count as upper?"""
    stable = choices[choices.stable]
    if stable.empty:
        return (f"The verdict does not depend on which windows count as upper: no measure is "
                f"stable for any of the {len(choices)} choices (every run of two or more windows "
                "ending at the widest, for the design and for the kernel).")
    if same_for_every_choice(choices):
        return ("The verdict does not depend on which windows count as upper: the "
                f"{measure_name(stable.measure.iloc[0])} is stable for all {len(choices)} "
                "choices.")
    found = "; ".join(f"the {measure_name(r.measure)} with {r.family} windows {r.upper_windows} "
                      f"({r.resolution:.0f} years)" for r in stable.itertuples())
    verb = "finds" if len(stable) == 1 else "find"
    rest = ("the others find none" if len(stable) < len(choices) else
            "not the same measure for every choice")
    return (f"The verdict depends on which windows count as upper: {len(stable)} of "
            f"{len(choices)} choices {verb} a stable measure, {found}; {rest}. A resolution "
            "that depends on the choice of window is not identified.")


#: the years the kernel's tail slope is given per
SLOPE_YEARS = 100


def tail_trend(distance, similarity, se, *, span: float = 200.0) -> dict:
    """Is the kernel still falling at the end of the measured range, or flat on a floor?

    A weighted straight line through log g over the last ``span`` years; its slope (per 100
    years) is "falling" when it lies more than two standard errors below zero.
    """
    d = np.asarray(distance, float)
    g = np.asarray(similarity, float)
    s = np.asarray(se, float)
    sel = (d >= d.max() - span) & (g > 0) & np.isfinite(s)
    if sel.sum() < 3:
        raise ValueError("distance: fewer than 3 points in the tail span")
    w = (g[sel] / np.maximum(s[sel], 1e-300)) ** 2  # var(log g) ~ (se / g)^2
    coef, cov = np.polyfit(d[sel], np.log(g[sel]), 1, w=np.sqrt(w), cov="unscaled")
    slope, slope_se = SLOPE_YEARS * coef[0], SLOPE_YEARS * math.sqrt(cov[0, 0])
    return {"from": float(d[sel].min()), "to": float(d[sel].max()), "slope": float(slope),
            "slope_se": float(slope_se), "falling": bool(slope < -TAIL_SE * slope_se),
            "g_from": float(g[sel][0]), "g_to": float(g[sel][-1])}


def window_verdict(model: str, head: Headline, tail: dict, n_boot: int) -> str:
    """The chapter's sentence on whether ``model``'s resolution is identifiable."""
    if not head.decided:
        return (f"With {n_boot} bootstrap resamples per window (this build's profile) a 95% "
                f"interval has no resample in its tails, so whether the resolution of {model} "
                f"depends on the window is not decided here; {MIN_BOOT} or more decide it.")
    if head.stable:
        r = head.row
        return (f"The {measure_name(head.measure)} is stable across its upper windows: {model} "
                f"resolves years to about {r['resolution']:.0f} years (95% interval "
                f"{r['ci_low']:.0f}–{r['ci_high']:.0f}, window {r['window']}).")
    shape = (f"the kernel is still falling at the end of the measured range ($\\ln g$ drops "
             f"by {-tail['slope']:.2f} ± {TAIL_SE * tail['slope_se']:.2f} per {SLOPE_YEARS} "
             f"years over "
             f"$d =$ {tail['from']:.0f}–{tail['to']:.0f}), so every fitted floor is set by "
             "where the window ends" if tail["falling"] else
             f"the kernel flattens at the end of the measured range ($g$ from "
             f"{tail['g_from']:.4f} to {tail['g_to']:.4f} over $d =$ "
             f"{tail['from']:.0f}–{tail['to']:.0f}, no significant slope), yet no fit settles "
             "on one resolution")
    return (f"No measure is stable across the upper windows, so the resolution of {model} is "
            "not identifiable from these data: " + "; ".join(head.reasons) + f". Here {shape}.")


def _best_two(shape_df):
    """The two shapes that predict held-out units best, best first."""
    ranked = shape_df.sort_values("heldout_rmse").reset_index(drop=True)
    return ranked.iloc[0], ranked.iloc[1]


def _all_misfit(fits: dict | None):
    """Of fits that all fail their goodness-of-fit test, the one closest to passing (None when
    any passes or there are none)."""
    if fits and all(f.get("misfit") for f in fits.values()):
        return max(fits.values(), key=lambda f: f["gof_p"])
    return None


def shape_verdict(shape_df, fits: dict | None = None) -> tuple[str, str]:
    """Which kernel shape predicts held-out units best, and whether clearly: (shape, sentence).

    With ``fits`` (shape -> fit with a goodness-of-fit test), a ranking among shapes that all
    fail their test is said to be only that: none describes the kernel within its errors.
    """
    best, second = _best_two(shape_df)
    gap_se = float(np.hypot(best.heldout_se, second.heldout_se))
    clear = float(second.heldout_rmse - best.heldout_rmse) > CLEAR_SE * gap_se
    text = (f"the {SHAPE_LABELS[best['shape']]} predicts held-out units best (log-RMSE "
            f"{best.heldout_rmse:.3f}" + (f", ahead of the {SHAPE_LABELS[second['shape']]} by "
                                          "more than two fold standard errors)" if clear else
                                          f"), though within two fold standard errors of the "
                                          f"{SHAPE_LABELS[second['shape']]}"))
    worst = _all_misfit(fits)
    if worst is not None:
        text += ("; but no shape describes the kernel within its standard errors (every fit "
                 f"fails its goodness-of-fit test, the best at "
                 f"{gof_pvalue(worst)}), so the ranking "
                 "compares misfits")
    return str(best["shape"]), text


def sweep_verdict(sweep) -> dict:
    """How the engine's prediction from the mean kernel meets the n-sweep, per task.

    ``sweep`` has task, n, p, se, p_theory, theory_se. For each task: the cell farthest from
    the prediction in standard errors, with its n, gap and z (all from that one cell, so the
    sentence never pairs one n's gap with another's z), whether the data and the prediction
    fall at every step, and a sentence.
    """
    out = {}
    for task, sub in sweep.groupby("task"):
        sub = sub.sort_values("n")
        gap = (sub.p - sub.p_theory).to_numpy()
        z = gap / np.hypot(sub.se, sub.theory_se).to_numpy()
        k = int(np.nanargmax(np.abs(z)))
        falls = bool((np.diff(sub.p.to_numpy()) < 0).all())
        within = bool(abs(z[k]) < WITHIN_Z)
        out[task] = {"max_gap": float(gap[k]), "gap_n": int(sub.n.iloc[k]),
                     "max_z": float(abs(z[k])), "within": within, "falls": falls,
                     "text": (f"the prediction meets {task} within three standard errors at every "
                              f"n (farthest: {gap[k]:+.3f} at n = {int(sub.n.iloc[k])})"
                              if within else
                              f"the prediction misses {task} most at n = {int(sub.n.iloc[k])}, by "
                              f"{gap[k]:+.3f} (z = {z[k]:+.1f})")}
    return out


def tradeoff(df, ps: str = "p_s", pi: str = "p_i") -> tuple[int, bool]:
    """Does p_S turn down on cooling while p_I does not? (index of the p_S peak, found).

    ``df`` is sorted by temperature, coldest first, with ``<col>_se`` columns.
    """
    k = int(df[ps].to_numpy().argmax())
    cold, top = df.iloc[0], df.iloc[k]
    se = float(np.hypot(top[ps + "_se"], cold[ps + "_se"]))
    se_i = float(np.hypot(top[pi + "_se"], cold[pi + "_se"]))
    found = k > 0 and top[ps] - cold[ps] > TRADE_SE * se and cold[pi] > top[pi] - TRADE_SE * se_i
    return k, bool(found)


def tradeoff_verdict(temp_df) -> tuple[bool, bool, str]:
    """(the data trade, the mean kernel predicts a trade, the sentence)."""
    k_data, trade_data = tradeoff(temp_df, "p_s", "p_i")
    k_th, trade_th = tradeoff(temp_df, "p_s_theory", "p_i_theory")
    cold, top = temp_df.iloc[0], temp_df.iloc[k_data]
    th = ("The mean kernel has no floor, so from it the engine predicts no tradeoff: cooling "
          f"raises both rates, p_S up to {cold.p_s_theory:.3f} at T = {cold.temperature:g}."
          if not trade_th else
          f"Even the mean kernel predicts a tradeoff: p_S peaks at T = "
          f"{temp_df.temperature.iloc[k_th]:g} and falls on further cooling.")
    data = (f"The model itself does trade: p_S peaks at {top.p_s:.3f} at T = "
            f"{top.temperature:g} and falls to {cold.p_s:.3f} at T = {cold.temperature:g}, "
            f"while p_I stays at {cold.p_i:.3f} or above its value at the peak. Its similarities "
            "fluctuate around the mean kernel; once the softmax is sharper than those "
            "fluctuations, the choice follows them, and they act as the floor of the noisy "
            "exponential: where a floor appears, so does the tradeoff." if trade_data else
            f"The model does not trade either: p_S is highest at the coldest temperature, "
            f"T = {cold.temperature:g} (p_S = {cold.p_s:.3f}, p_I = {cold.p_i:.3f}), or falls "
            "within two standard errors.")
    return trade_data, trade_th, th + " " + data


def wing_asymmetry(counts, *, beyond: float = WING_BEYOND, D: float | None = None) -> dict:
    """Do the two wings of the design (probe before / after the pair) differ?

    Pools probes more than ``beyond`` years past the nearer reference on each side (at one
    ``D``, or all) and compares P(correct) with a two-proportion z-test.
    """
    sel = counts.offset.abs() - counts.D > beyond
    if D is not None:
        sel &= counts.D == D
    out = {}
    for side, s in (("before", counts.offset < 0), ("after", counts.offset > 0)):
        sub = counts[sel & s]
        t, k = float(sub.trials.sum()), float(sub.correct.sum())
        out[side] = (k / t if t else math.nan, t)
    (p1, n1), (p2, n2) = out["before"], out["after"]
    pooled = (p1 * n1 + p2 * n2) / (n1 + n2) if n1 + n2 else math.nan
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2)) if n1 and n2 else math.nan
    z = (p1 - p2) / se if se and np.isfinite(se) and se > 0 else math.nan
    return {"p_before": p1, "p_after": p2, "z": z,
            "differ": bool(np.isfinite(z) and abs(z) > WING_Z), "beyond": beyond}


def theorem3_verdict(t3: dict) -> dict:
    """The verdict on :func:`semres.experiments.llm.lm_protocol.theorem3`: its two predictions
    (one b describes identification at every n; it predicts similarity at every n), each tested
    at the book's level (:data:`semres.report.ALPHA`) after Holm's adjustment for the pair
    (an untested one, with no p-value, is left out of the family); ``within`` when both hold;
    ``detectable``, the smallest deviation of a similarity cell the test detects with 80 %
    power."""
    tested = {k: v for k, v in (("identification", t3["p_identification"]),
                                ("similarity", t3["p_similarity"])) if np.isfinite(v)}
    adjusted = dict(zip(tested, holm(list(tested.values())))) if tested else {}
    return {"p_adjusted": adjusted,
            "within": len(adjusted) == 2 and all(p >= ALPHA for p in adjusted.values()),
            "detectable": detectable_at(t3["sim_se_max"]) if np.isfinite(t3["sim_se_max"])
            else math.nan}


def resolution_claim(head, robust: bool) -> dict:
    """How the encoder's resolution enters the overview: ``identified`` when the reported
    measure is stable across its upper windows and every choice of windows agrees
    (``robust``); then its number and interval, and, for the paper's own measure (the chance
    crossover), the comparison with the paper's 70–80 years (:data:`PAPER_RESOLUTION`)."""
    identified = bool(head.stable and robust)
    out = {"identified": identified}
    if identified:
        out.update(headline=head.row.get("resolution"),
                   ci=(head.row.get("ci_low"), head.row.get("ci_high")))
        if head.measure == "chance crossover":
            out.update(paper_value=PAPER_RESOLUTION[0], tolerance=PAPER_RESOLUTION[1],
                       tolerance_reason="the paper reports roughly 70–80 years")
    return out


def external_verdict(model: str, thm3, windows, *, decided: bool, ref_stable) -> str:
    """One sentence per model on Theorem 3 and its resolution against the paper's 70–80 years."""
    bits = []
    t3 = thm3[thm3.model == model]
    if len(t3):
        r = t3.iloc[0]
        bits.append(censored_warning(f"b for {model}", r.to_dict()) or (
            f"Theorem 3 with b = {r.b:.3f} fitted to identification predicts its similarity "
            "accuracy " + ("within 3 standard errors at every n" if r.max_z_sim <= WITHIN_Z else
                           f"with deviations up to {r.max_z_sim:.1f} standard errors")
            if np.isfinite(r.max_z_sim) else f"Theorem 3 fits b = {r.b:.3f} to identification"))
    w = windows[(windows.model == model) & windows.headline]
    if len(w):
        last = w.iloc[-1]
        lo_paper, hi_paper = THE_PAPER.resolution
        overlap = last.ci_low <= hi_paper and last.ci_high >= lo_paper
        lo, hi = ref_stable
        stable = window_stability(w, [x for x in w.window if lo <= x <= hi])
        bits.append(f"its {last.measure} is {last.resolution:.0f} years (95% interval "
                    f"{last.ci_low:.0f}–{last.ci_high:.0f}, window {last.window}), "
                    + ("stability across windows not decided (too few resamples)" if not decided
                       else "stable across windows" if stable["stable"] else
                       "not stable across windows")
                    + ("; the same measure on the paper's 70–80 years "
                       + ("overlaps" if overlap else "does not overlap") + " it"
                       if last.measure == "chance crossover" else ""))
    return f"{model}: " + "; ".join(bits) + "." if bits else ""


# ------------------------------------------------------- the numbers each sentence quotes
# Each sentence is glued with the row it describes (``Report.text(..., cites=...)``); the book's
# test finds every number it quotes among them. These read them off the same rows.


def scalars(row, name: str = "") -> dict:
    """Every number of a row (nested dicts and short lists; not truth values, text or tables),
    by its path: what a sentence written from the row may quote."""
    if isinstance(row, dict):
        return {k: v for key, item in row.items()
                for k, v in scalars(item, f"{name}.{key}" if name else str(key)).items()}
    if isinstance(row, (list, tuple)) and len(row) <= 16:
        return {k: v for i, item in enumerate(row) for k, v in scalars(item, f"{name}{i}").items()}
    if isinstance(row, (bool, np.bool_, str)) or as_number(row) is None:
        return {}
    return {name or "value": row}


def fit_numbers(fit: dict) -> dict:
    """What a fit's warnings quote (:func:`semres.report.verdicts.misfit_warning`,
    :func:`semres.core.fits.censored_warning`): its numbers, its test and bounds in words and a
    bootstrap's number of refits."""
    r = fit.get("gof_resolution") or 0.0
    return {**scalars(fit), "refits": round(1 / r) - 1 if r else None,
            **carried(fit.get("gof_test", ""), fit.get("bound_params", ""))}


def shape_numbers(shape_df, fits: dict | None = None) -> dict:
    """What :func:`shape_verdict` quotes: the best shape's held-out error and, when every shape
    fails its test, the goodness of fit of the one closest to passing."""
    worst = _all_misfit(fits)
    return {"rmse": _best_two(shape_df)[0].heldout_rmse,
            **(fit_numbers(worst) if worst is not None else {})}


def window_numbers(head: Headline, tail: dict, n_boot: int) -> dict:
    """What :func:`window_verdict` quotes: the resamples, the reported measure's widest window,
    each measure's windows and stability, and the kernel's tail (its drop at two standard
    errors)."""
    return {"n_boot": n_boot, "min_boot": MIN_BOOT, **scalars(head.row, "row"),
            **scalars(head.checks, "checks"), **scalars(tail, "tail"),
            "drop": -tail.get("slope", math.nan),
            "drop_se": TAIL_SE * tail.get("slope_se", math.nan), "per": SLOPE_YEARS}


def choice_numbers(choices) -> dict:
    """What :func:`choice_verdict` quotes: how many choices of windows there are and how many
    find a stable measure, with their windows and resolutions."""
    stable = choices[choices.stable]
    return {"choices": len(choices), "stable": len(stable),
            **scalars(list(stable.resolution), "resolution"),
            **carried(*stable.upper_windows)}


def tradeoff_numbers(temp_df) -> dict:
    """What :func:`tradeoff_verdict` quotes: the coldest temperature, the measured and predicted
    peaks, and the rates there."""
    k_data, _ = tradeoff(temp_df, "p_s", "p_i")
    k_th, _ = tradeoff(temp_df, "p_s_theory", "p_i_theory")
    keep = ["temperature", "p_s", "p_i", "p_s_theory"]
    return {**scalars(temp_df.iloc[0][keep].to_dict(), "cold"),
            **scalars(temp_df.iloc[k_data][keep].to_dict(), "top"),
            "theory_peak_temperature": temp_df.temperature.iloc[k_th]}


def external_numbers(model: str, thm3, windows) -> dict:
    """What :func:`external_verdict` quotes of one model: Theorem 3's b and its largest miss in
    standard errors, the rule's three, its resolution's last window, the paper's 70–80 years."""
    out = {"within_z": WITHIN_Z, **scalars(THE_PAPER.resolution, "paper"), **carried(model)}
    t3 = thm3[thm3.model == model]
    if len(t3):
        out.update(fit_numbers(t3.iloc[0].to_dict()))
    w = windows[(windows.model == model) & windows.headline]
    if len(w):
        out.update(scalars(w.iloc[-1].to_dict(), "window"))
    return out
