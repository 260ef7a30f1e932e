"""Chapter 5's verdicts: the rules that turn its numbers into decisions, each threshold named.

Which measure of the encoder's resolution is reported (:func:`headline_measure`) and whether that
choice survives every choice of windows (:func:`window_choices`); whether the mean kernel's
prediction meets the n-sweep (:func:`sweep_verdict`); whether the temperature trades p_S for p_I
(:func:`tradeoff`); whether a floor turns the exponential into a tradeoff on the shared engine
(:func:`floor_tradeoff`); Theorem 3 across n with and without its floor, cell by cell against
a practical margin (:func:`theorem3_forms`, :func:`theorem3_grid`), beside chapter 7's floor
bound (:func:`floor_bound_table`); how far a misfit misses (:func:`kernel_fit_size`,
:func:`near_fit_size`); and the sentences that state these verdicts. The page
(:mod:`.page`, :mod:`.page_encoder`, :mod:`.page_lm`, :mod:`.page_near`) writes the rows of the
overview from them through :func:`semres.report.status`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import norm

from semres.core.fits import SIZE_KEYS, censored_warning, misfit_size, quasi_interval
from semres.core.nsweep import fit_theorem3
from semres.core.seeds import named_seed
from semres.experiments.frontier.floor_n import floor_bound
from semres.report.verdicts import gof_pvalue, status, weakest
from semres.report import detectable_at
from semres.report.numbers import as_number, carried

from .near import p_correct
from .kernel_fits import SHAPE_LABELS, fit_shape, shape_kernel, window_stability
from .settings import THE_PAPER

__all__ = ["MIN_BOOT", "BOTH_RISE", "TURN_SE", "WITHIN_Z", "CLEAR_SE", "TAIL_SE",
           "WING_Z", "MISS_MATTERS", "PAPER_RESOLUTION", "floor_tradeoff", "measure_name",
           "Headline", "headline_measure", "window_choices", "same_for_every_choice",
           "choice_verdict", "tail_trend", "window_verdict", "shape_verdict", "sweep_verdict",
           "tradeoff_verdict", "turn_finding", "turn_words", "turn_numbers", "interval",
           "sweep_cells", "theorem3_forms", "theorem3_grid", "theorem3_common",
           "theorem3_params", "theorem3_statement", "grid_status", "floor_bound_table",
           "floor_bound_text", "kernel_fit_size", "kernel_interval", "near_fit_size", "MISS_REASON",
           "ENGINE_TURN", "TURN_SHARE", "THEOREM3_BOOT", "SHAPE_MARGIN",
           "PAPER_RESOLUTION_REASON",
           "wing_asymmetry",
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
#: the two wings of the two-reference design differ at |z| above this
WING_Z = 3
#: the wings compare the probes more than this many years past the nearer reference
WING_BEYOND = 150.0
#: the miss of Theorem 3's prediction that matters: 0.05 of mass on the correct person, the
#: effect the competence gate is sized to see (0.55 against 0.5); a test that could not see it
#: leaves the theorem inconclusive, never "holds"
MISS_MATTERS = 0.05
#: the paper's stated resolution of its chat LLMs, "roughly 70–80 years": its middle and the
#: half-width of the range, the reference and margin of a comparison on its own measure (the
#: return-to-chance distance, lambda ln(1/Delta); never the half-decay lambda ln 2)
PAPER_RESOLUTION = (sum(THE_PAPER.resolution) / 2,
                    (THE_PAPER.resolution[1] - THE_PAPER.resolution[0]) / 2)
#: why a return-to-chance distance outside 70-80 years is a different resolution
PAPER_RESOLUTION_REASON = ("the paper states roughly 70–80 years, where its models' answers "
                           "return to chance: a distance outside that range is not its number")
#: why a Theorem 3 cell that misses its prediction by more than MISS_MATTERS matters
MISS_REASON = ("0.05 of mass on the correct person is the effect the competence gate is sized "
               "to see (0.55 against ½): a smaller miss is below what the chapter calls an "
               "effect")
#: the engine's turn that matters: p_S falling by less than this on the finest lambda would be
#: no visible tradeoff beside the chapter's measured points (their standard errors ~0.01)
ENGINE_TURN = 0.01
ENGINE_TURN_REASON = ("a fall of p_S smaller than 0.01 would be no visible tradeoff beside the "
                      "chapter's measured points, whose standard errors are about 0.01")
#: the share of a model's similarity advantage above chance (p_S - 1/2 at its peak) that a turn
#: on cooling must take back to be the tradeoff the floor predicts
TURN_SHARE = 0.25
#: the held-out error (RMSE of ln g) by which the paper's exponential with a floor may trail the
#: best shape before the difference matters: 0.05 in ln g is a 5 % error in a Luce weight
SHAPE_MARGIN = 0.05
SHAPE_REASON = ("0.05 in ln g is a 5 % error in a Luce weight, which moves a two-person choice "
                "by at most about 0.0125")
#: at most this many refits for Theorem 3's bootstrap goodness of fit, where chi-square does
#: not apply (a floored refit of the encoder's 22 cells took about 0.7 s on a shared CPU, so
#: the chapter's 999 would take minutes; 199 resolve p to 0.005)
THEOREM3_BOOT = 199
#: two-sided 95 % normal quantile, for an interval from a standard error
Z95 = float(norm.ppf(0.975))


def interval(estimate: float, se: float) -> tuple[float, float]:
    """The 95 % normal interval of ``estimate`` with standard error ``se``."""
    return float(estimate - Z95 * se), float(estimate + Z95 * se)


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
    # the finding: the smaller of the two falls from the peak (to the finest and to the
    # coarsest lambda), with its standard error; the claim is a fall beyond ENGINE_TURN
    falls = [(fl.p_s[top] - fl.p_s.iloc[j], float(np.hypot(fl.p_s_se[top], fl.p_s_se.iloc[j])))
             for j in (0, -1)]
    turn, turn_se = min(falls)
    return {"both_rise": both_rise, "turns": turns, "holds": both_rise and turns,
            "floor": float(fl.floor.iloc[0]), "peak_ps": fl.p_s[top],
            "peak_lambda": fl["lambda"][top], "finest_ps": fl.p_s.iloc[0],
            "coarsest_ps": fl.p_s.iloc[-1], "turn": float(turn), "turn_se": turn_se,
            "ci": interval(turn, turn_se), "margin": ENGINE_TURN}


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


def tradeoff_verdict(temp_df) -> tuple[dict, bool, str]:
    """(the data's turn, :func:`turn_finding`; whether the mean kernel predicts a trade; the
    sentence)."""
    data = turn_finding(temp_df)
    theory = turn_finding(temp_df, "p_s_theory", "p_i_theory")
    trade_th = theory["status"] == "holds"
    cold = temp_df.iloc[0]
    th = ("From the mean kernel, which has no floor, the engine predicts no tradeoff: cooling "
          f"raises both rates, $p_S$ up to {cold.p_s_theory:.3f} at $T =$ "
          f"{cold.temperature:g}." if not trade_th else
          f"Even the mean kernel predicts a tradeoff: $p_S$ peaks at $T =$ "
          f"{theory['peak_T']:g} and falls on further cooling.")
    why = (" Its similarities fluctuate around the mean kernel; once the softmax is sharper "
           "than those fluctuations, the choice follows them, and they act as the floor of "
           "the noisy exponential: where a floor appears, so does the tradeoff."
           if data["status"] == "holds" else "")
    return data, trade_th, f"{th} The model itself {turn_words(data)}.{why}"


def turn_numbers(f: dict, name: str = "turn") -> dict:
    """What :func:`turn_words` quotes of a turn: its numbers, and the move (the turn's
    negative) with its interval."""
    return {**scalars({k: v for k, v in f.items() if k != "status"}, name),
            f"{name}.move": -f["headline"], f"{name}.move_lo": -f["ci"][1],
            f"{name}.move_hi": -f["ci"][0]}


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


def turn_finding(temp, ps: str = "p_s", pi: str = "p_i") -> dict:
    """The tradeoff along the temperature as a finding: does p_S turn down on cooling?

    ``temp`` is sorted by temperature, coldest first, with ``<col>_se`` columns. The turn is
    p_S at its peak among the warmer temperatures less p_S at the coldest, with the interval
    from the two standard errors (the peak is the largest of several: a turn is if anything
    favoured). The claim is a turn beyond a margin of :data:`TURN_SHARE` of the model's
    similarity advantage above chance at the peak (p_S - 1/2): cooling with a floor takes p_S
    back towards 1/2 (Proposition ch5-prop-two-reference), so a model barely above chance has
    little to give back, and a turn it could not show reads inconclusive, never "does not
    hold". Returns the keyword arguments of a finding (``headline``, ``ci``, ``margin``,
    ``margin_reason``, ``claim``, ``compared_with``, ``compared_with_label``), its ``status``
    under the book's rule, and what the sentences quote: the two temperatures, the rates
    there, the ``advantage`` and ``detectable``, the smallest turn the test sees with 80 %
    power.
    """
    if len(temp) < 2:
        raise ValueError("temp: a turn needs at least two temperatures")
    cold = temp.iloc[0]
    k = int(temp[ps].iloc[1:].to_numpy().argmax()) + 1
    top = temp.iloc[k]
    turn = float(top[ps] - cold[ps])
    se = float(np.hypot(top[ps + "_se"], cold[ps + "_se"]))
    advantage = float(top[ps] - 0.5)
    margin = TURN_SHARE * max(advantage, 0.0)
    args = {"headline": turn, "ci": interval(turn, se), "margin": margin,
            "margin_reason": f"a quarter of its advantage above chance at the peak (p_S − ½ = "
                             f"{advantage:.3f}): with a floor, cooling takes p_S back towards ½, "
                             "and a smaller fall is no tradeoff",
            "claim": "above", "compared_with": 0.0,
            "compared_with_label": "no turn (p_S at its peak less p_S at the coldest T)"}
    return {**args, "status": status(ci=args["ci"], compared_with=0.0, margin=margin,
                                     claim="above", new=True),
            "peak_T": float(top.temperature), "cold_T": float(cold.temperature),
            "peak_ps": float(top[ps]), "cold_ps": float(cold[ps]), "cold_pi": float(cold[pi]),
            "peak_pi": float(top[pi]), "advantage": advantage, "se": se,
            "detectable": detectable_at(se)}


def turn_words(f: dict) -> str:
    """What :func:`turn_finding` found, in words: a trade, none, or why this test cannot tell."""
    if f["status"] == "holds":
        return (f"trades: $p_S$ falls by {f['headline']:.3f} [{f['ci'][0]:.3f}, "
                f"{f['ci'][1]:.3f}] from its peak at $T =$ {f['peak_T']:g} to $T =$ "
                f"{f['cold_T']:g}, beyond a quarter of its advantage above chance "
                f"({f['margin']:.3f})")
    if f["status"] == "does not hold":
        return (f"does not trade: from $T =$ {f['peak_T']:g} to $T =$ {f['cold_T']:g} $p_S$ "
                f"moves by {-f['headline']:+.3f} [{-f['ci'][1]:+.3f}, {-f['ci'][0]:+.3f}], "
                f"which rules out a fall of a quarter of its advantage above chance "
                f"({f['margin']:.3f})")
    why = (f"a fall this test detects with 80 % power ({f['detectable']:.3f}) exceeds its "
           f"whole advantage above chance ({f['advantage']:.3f}), so no turn it could see is "
           "possible here" if f["detectable"] > f["advantage"] else
           f"it detects a fall of {f['detectable']:.3f} with 80 % power, and the interval "
           f"reaches across a quarter of its advantage above chance ({f['margin']:.3f})")
    return (f"cannot tell whether it trades: from $T =$ {f['peak_T']:g} to $T =$ "
            f"{f['cold_T']:g} $p_S$ moves by {-f['headline']:+.3f} [{-f['ci'][1]:+.3f}, "
            f"{-f['ci'][0]:+.3f}]; {why}")


def sweep_cells(sweep) -> pd.DataFrame:
    """A sweep's cells (columns task, n, p, se) as effective binomial counts for
    :func:`semres.core.nsweep.fit_theorem3`: trials = p (1 - p) / se² (Kish), correct = p
    trials, both rounded to whole counts, so that the likelihood carries each cell's interval
    (over names and lists for a causal LM). Cells without a positive standard error are left
    out."""
    df = sweep[["task", "n", "p", "se"]].copy()
    df = df[np.isfinite(df.se) & (df.se > 0) & (df.p > 0) & (df.p < 1)]
    # whole counts (each moves by under half a trial), so that chi-square refers the deviance
    # wherever every cell expects five answers either way, and no bootstrap is needed there
    trials = np.maximum(np.round(df.p * (1 - df.p) / df.se ** 2), 1.0)
    return pd.DataFrame({"task": df.task.to_numpy(), "n": df.n.astype(int).to_numpy(),
                         "trials": trials.to_numpy(),
                         "correct": np.round(df.p * trials).to_numpy(),
                         "se": df.se.to_numpy()})


def theorem3_forms(sweep, *, gof_boot: int, seed) -> dict:
    """Theorem 3 fitted to a sweep's both tasks across n (:func:`sweep_cells`), in the paper's
    floor-free form (``free``) and with its floor (``floor``), each by
    :func:`semres.core.nsweep.fit_theorem3` (its bootstrap goodness of fit, where chi-square
    does not apply, from a stream named after the form)."""
    cells = sweep_cells(sweep)
    return {form: fit_theorem3(cells, floor=form == "floor", gof_boot=gof_boot,
                               seed=named_seed(seed, f"theorem 3 {form}"))
            for form in ("free", "floor")}


def theorem3_grid(fit: dict, sweep) -> list[dict]:
    """Theorem 3's claim cell by cell, for :meth:`semres.report.Report.grid_result`: each
    (task, n) cell's miss, measured rate less the fitted prediction, with its 95 % interval
    from the cell's own standard error (the fitted parameters' uncertainty left out)."""
    se = {(r.task, int(r.n)): float(r.se) for r in sweep.itertuples()}
    out = []
    for r in fit["table"].sort_values(["task", "n"]).itertuples():
        gap = float(r.observed - r.theory)
        out.append({"cell": f"{r.task}, n = {int(r.n)}", "headline": gap,
                    "ci": interval(gap, se[(r.task, int(r.n))])})
    return out


def theorem3_common(fit: dict) -> dict:
    """What every cell of a Theorem 3 grid shares: the reference (the fitted prediction), the
    margin :data:`MISS_MATTERS` and its reason, the fit's goodness of fit and size."""
    form = "with its floor" if fit["floor"] else "without a floor (the paper's form)"
    return {"compared_with": 0.0,
            "compared_with_label": f"Theorem 3's prediction {form}, fitted to both tasks",
            "margin": MISS_MATTERS, "margin_reason": MISS_REASON, "claim": "equal",
            "fit_size": {k: fit.get(k) for k in SIZE_KEYS}, "gof_p": fit.get("gof_p")}


def theorem3_params(fit: dict) -> dict:
    """A Theorem 3 fit's parameters with their intervals, widened by the dispersion where the
    fit misses by more than sampling (quasi-likelihood, ``approximate``)."""
    disp = as_number(fit.get("dispersion"))
    wide = disp is not None and disp > 1
    out = {"b": fit["b"], "delta": fit["delta"], "approximate": bool(wide)}
    for key in ("b", "delta"):
        lo, hi = fit[f"{key}_ci"]
        out[f"{key}_ci"] = quasi_interval(fit[key], (lo, hi), disp) if wide else (lo, hi)
        out[f"{key}_ci"] = (max(out[f"{key}_ci"][0], 0.0), min(out[f"{key}_ci"][1], 1.0))
    return out


def theorem3_statement(fit: dict, ns) -> str:
    """A Theorem 3 row's statement: the form, its parameters with their intervals, its fit."""
    q = theorem3_params(fit)
    b_lo, b_hi = q["b_ci"]
    par = f"b = {q['b']:.3f} [{b_lo:.3f}, {b_hi:.3f}]"
    if fit["floor"]:
        d_lo, d_hi = q["delta_ci"]
        par += f", Delta = {q['delta']:.3f} [{d_lo:.3f}, {d_hi:.3f}]"
    wide = " (intervals widened by the dispersion, approximate)" if q["approximate"] else ""
    form = "with a floor" if fit["floor"] else "without a floor"
    return (f"one constant kernel {form} ({par}{wide}) fitted to both tasks at n = "
            f"{', '.join(map(str, ns))} predicts every cell within 0.05: deviance "
            f"{fit['deviance']:.1f} on {fit['df']} degrees of freedom, goodness of fit "
            f"{gof_pvalue(fit)}")


def grid_status(cells: list[dict], common: dict, *, new: bool = False) -> str:
    """The status :meth:`semres.report.Report.grid_result` gives a claim over ``cells`` (the
    weakest cell's, by the book's rule), for the sentences that say it."""
    keys = ("ci", "compared_with", "margin", "claim")
    got = [status(**{k: {**common, **c}[k] for k in keys if k in {**common, **c}}, new=new)
           for c in cells]
    return got[weakest(got)] if got else "not run"


def floor_bound_table(fit: dict, sweep) -> pd.DataFrame:
    """Chapter 7's n-item floor bound at the floor Theorem 3 fits (``fit``, the floored form):
    at each n with both tasks, the largest p_S any similarity with that floor reaches at the
    measured p_I (:func:`semres.experiments.frontier.floor_n.floor_bound`), at p_I's estimate
    and at the lower end of its interval (where the bound is most generous), against the
    measured p_S and its interval. ``within``: p_S's interval reaches below the generous bound
    (the measurement is consistent with it); ``slack``: the bound at p_I's estimate less p_S.
    Empty when the fitted floor is not in (0, 1)."""
    delta = float(fit["delta"])
    cols = ["n", "p_i", "p_i_ci_low", "p_s", "p_s_ci_low", "p_s_ci_high", "delta", "bound",
            "bound_generous", "slack", "within"]
    if not 0 < delta < 1:
        return pd.DataFrame(columns=cols)
    rows = []
    for n, sub in sweep.groupby("n"):
        task = sub.set_index("task")
        if not {"similarity", "identification"} <= set(task.index):
            continue
        i, s_ = task.loc["identification"], task.loc["similarity"]
        pi_lo, (ps_lo, ps_hi) = interval(i.p, i.se)[0], interval(s_.p, s_.se)
        bound = floor_bound(min(max(float(i.p), 0.0), 1.0), int(n), delta)
        generous = floor_bound(min(max(pi_lo, 0.0), 1.0), int(n), delta)
        rows.append({"n": int(n), "p_i": float(i.p), "p_i_ci_low": pi_lo, "p_s": float(s_.p),
                     "p_s_ci_low": ps_lo, "p_s_ci_high": ps_hi, "delta": delta,
                     "bound": float(bound), "bound_generous": float(generous),
                     "slack": float(bound - s_.p), "within": bool(ps_lo <= generous)})
    return pd.DataFrame(rows, columns=cols)


#: a fitted floor below this is no floor: chapter 7's bound there allows nearly any p_S
NO_FLOOR = 1e-3


def floor_bound_text(model: str, table) -> str:
    """One sentence: the measured (p_I, p_S) against chapter 7's floor bound at the fitted
    floor (:func:`floor_bound_table`)."""
    if table.empty:
        return (f"For {model} Theorem 3's fitted floor is not inside (0, 1), so chapter 7's "
                "floor bound says nothing here.")
    if float(table.delta.iloc[0]) < NO_FLOOR:
        return (f"For {model} Theorem 3's fitted floor sits at the bottom of its range (no floor "
                "found), where chapter 7's floor bound allows nearly any $p_S$: it tests "
                "nothing here.")
    k = int(table.slack.to_numpy().argmin())
    near = table.iloc[k]
    held = int(table.within.sum())
    return (f"At the floor Theorem 3 fits for {model} ($\\Delta =$ {near.delta:.3f}), chapter "
            f"7's $n$-item bound allows $p_S$ up to {near.bound:.3f} at its measured $p_I$ "
            f"({near.p_i:.3f}) at $n =$ {int(near.n)}, where it measured {near.p_s:.3f} (the "
            f"closest approach, slack {near.slack:+.3f}); its $p_S$ is consistent with the "
            f"bound at {held} of {len(table)} values of $n$.")


def kernel_fit_size(distance, g, se, fit: dict, shape: str = "exp_floor") -> dict:
    """How far a kernel fit on ln g (:func:`semres.experiments.llm.kernel_fits.fit_shape`,
    chi-square on ln g with standard errors se / g) misses its kernel: the statistic of the fit
    and of the kernel without similarity (ln g flat, its weighted mean) over the same
    distances, the fit's degrees of freedom as the null mean, and the gap between the measured
    and fitted weights beside the standard errors alone (``rms_sampling`` is their root mean
    square) (:func:`semres.core.fits.misfit_size`)."""
    d, g, se = (np.asarray(x, float) for x in (distance, g, se))
    sel = (d >= 1) & (g > 0) & np.isfinite(se) & (se > 0)
    if sel.sum() < 3:
        raise ValueError("distance: fewer than 3 points with a positive weight and error")
    d, g, se = d[sel], g[sel], se[sel]
    y, s = np.log(g), se / g
    pred = np.asarray(shape_kernel(shape, fit)(d), float)
    dev_fit = float(np.sum(((y - np.log(pred)) / s) ** 2))
    w = 1 / s ** 2
    dev_null = float(np.sum(((y - np.sum(w * y) / np.sum(w)) / s) ** 2))
    df = as_number(fit.get("gof_df"))
    out = misfit_size(dev_fit, dev_null, df if df and df > 0 else max(len(d) - 3, 1), g, pred,
                      np.ones_like(g))
    out["rms_sampling"] = float(np.sqrt(np.mean(se ** 2)))
    return out


def near_fit_size(trials, best: dict) -> dict:
    """How far the near design's best shape misses the model
    (:func:`semres.core.fits.misfit_size`), on the scale of its lack-of-fit test
    (:func:`semres.experiments.llm.near.lack_of_fit`): the cells' weighted squared distance
    from the curve over the pure error between pairs of names (the F statistic times its
    degrees of freedom, whose null mean is those degrees of freedom), the same from chance
    (1/2 in every cell), and the cells' observed and fitted masses; ``rms_sampling`` is the
    gap the pure error alone gives a cell's mean."""

    t = trials.assign(offset=trials.offset.abs())
    units = t.groupby(["pair", "D", "offset"]).mass.agg(["mean", "size"]).reset_index()
    cells = units.groupby(["D", "offset"]).apply(
        lambda u: pd.Series({"weight": u["size"].sum(),
                             "mean": np.average(u["mean"], weights=u["size"])}),
        include_groups=False).reset_index()
    df_lof, df_pe = len(cells) - 2, len(units) - len(cells)
    if df_lof < 1 or df_pe < 1:
        raise ValueError("trials: no degrees of freedom for a lack-of-fit test")
    merged = units.merge(cells, on=["D", "offset"])
    pe = float(np.sum(merged["size"] * (merged["mean_x"] - merged["mean_y"]) ** 2)) / df_pe
    pred = p_correct(best["shape"], best["scale"], best["floor"], cells.D.to_numpy(float),
                     cells.offset.to_numpy(float))
    w, obs = cells.weight.to_numpy(float), cells["mean"].to_numpy(float)
    out = misfit_size(float(np.sum(w * (obs - pred) ** 2)) / pe,
                      float(np.sum(w * (obs - 0.5) ** 2)) / pe, df_lof, obs, pred, w)
    out["rms_sampling"] = float(np.sqrt(np.mean(pe / w)))
    return out


def kernel_interval(kernel, *, key: str = "chance_return", n_boot: int = 200, seed,
                    shape: str = "exp_floor") -> tuple[float, float]:
    """An approximate 95 % interval of a distance of the kernel read from choices (``key``:
    the return-to-chance distance or the half-decay): ln g redrawn in every bin from its
    estimate and standard error (independent normal draws, the reference bin fixed), the shape
    refitted on each draw, the 2.5 and 97.5 % points. Approximate: the bins share their
    reference and names, which these draws ignore."""
    rng = np.random.default_rng(named_seed(seed, f"kernel interval {key}"))
    d = kernel.distance.to_numpy(float)
    lg, se = kernel.log_g.to_numpy(float), kernel.log_g_se.to_numpy(float)
    values = []
    for _ in range(int(n_boot)):
        draw = np.exp(lg + rng.standard_normal(len(lg)) * se)
        try:
            f = fit_shape(d, draw, shape)
            values.append(f.get(key, f.get("resolution") if key == "chance_return"
                                else math.nan))
        except ValueError:
            continue
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if len(v) < max(40, n_boot // 2):
        return (math.nan, math.nan)
    return float(np.quantile(v, 0.025)), float(np.quantile(v, 0.975))


def resolution_claim(head, robust: bool) -> dict:
    """How the encoder's resolution enters the overview: ``identified`` when the reported
    measure is stable across its upper windows and every choice of windows agrees
    (``robust``); its number and interval; and the comparison with the paper's 70–80 years
    (:data:`PAPER_RESOLUTION`, a return-to-chance distance): every measure the chapter refits
    window by window is one (the crossover, lambda ln(1/Delta) of the two-reference fit and the
    shapes' distance to their floor), so the comparison is like with like."""
    identified = bool(head.stable and robust)
    out = {"identified": identified, "paper_value": PAPER_RESOLUTION[0],
           "margin": PAPER_RESOLUTION[1], "margin_reason": PAPER_RESOLUTION_REASON}
    if identified:
        out.update(headline=head.row.get("resolution"),
                   ci=(head.row.get("ci_low"), head.row.get("ci_high")))
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
    """What :func:`tradeoff_verdict` quotes: the coldest temperature and the predicted rate
    there, the data's turn and the mean kernel's peak."""
    theory = turn_finding(temp_df, "p_s_theory", "p_i_theory")
    keep = ["temperature", "p_s", "p_i", "p_s_theory"]
    return {**scalars(temp_df.iloc[0][keep].to_dict(), "cold"),
            **turn_numbers(turn_finding(temp_df)), "theory_peak_temperature": theory["peak_T"]}


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
