"""Chapter 5 on the page: the exponential with a floor on the shared engine, the answers from
elsewhere, and the chapter's close (its rows of the overview, the deviations from the paper,
the result box).

The causal LMs' sections are :mod:`.page_lm` and :mod:`.page_near`, the encoder's
:mod:`.page_encoder`; the decisions are :mod:`.verdicts`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import sympy as sp

from semres.report import plotting as splot
from semres.report.numbers import as_number, carried, mathify, pooled
from semres.core import theory
from semres.core.book import torch_device
from semres.report.verdicts import judge

from . import page_lm, verdicts
from .kernel_fits import SHAPE_LABELS
from .settings import SETTINGS, THE_PAPER

__all__ = ["fig_lambda", "publish_derivation", "publish_lambda", "publish_external",
           "deviation_lines", "lead", "close"]

#: the columns of ``resolution_by_window.csv``
WINDOW_COLUMNS = ["model", "measure", "window", "resolution", "ci_low", "ci_high", "headline",
                  "at_bound", "boot_at_bound", "gof_p", "misfit"]


def _sentence(report, name: str, text: str, cites=None) -> None:
    """Glue a sentence for ``{glue:md}`` (plain weight, its math typeset), not as bold text,
    with the numbers of the row it describes (``cites``)."""
    report.text(name, mathify(text), markdown=True, cites=cites)


def fig_lambda(lam_df):
    """p_S, p_I against lambda, and the same runs on the plane, per floor."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    for (fl, sub), color in zip(lam_df.groupby("floor"), splot.CYCLE):
        axes[0].plot(sub["lambda"], sub.p_s, color=color, label=f"$p_S$, $\\Delta$ = {fl:g}")
        axes[0].plot(sub["lambda"], sub.p_i, color=color, ls="--",
                     label=f"$p_I$, $\\Delta$ = {fl:g}")
        axes[1].plot(sub.p_i, sub.p_s, "o-", ms=3, color=color)
    axes[0].set(xscale="log", xlabel="decay length $\\lambda$ (segment length 1)",
                ylabel="success", title="two items on the unit segment")
    p_line = np.linspace(0.5, 1, 200)
    axes[1].plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1,
                 label="constant-$g$ front")
    axes[1].set(xlabel="$p_I$", ylabel="$p_S$", title="the same runs in the $(p_I, p_S)$ plane")
    splot.legend_outside(fig, axes, ncol=4)
    return fig


def publish_derivation(report, half) -> None:
    """The half-advantage distance the derivation solved for, as LaTeX for the prose."""
    report.text("half_expr", f"${sp.latex(half)}$")


def publish_lambda(report, lam_df, verdict: dict) -> None:
    """The lambda sweep (``lambda_sweep``), its figure and the floored curve's turn
    (:func:`verdicts.floor_tradeoff`)."""
    report.table(lam_df, "lambda_sweep")
    report.figure("lambda", fig_lambda(lam_df))
    report.number("lam_peak_ps", verdict["peak_ps"])
    report.number("lam_peak_lam", verdict["peak_lambda"])
    report.number("lam_small_ps", verdict["finest_ps"])


def publish_external(report, windows, ext_windows: list, ext_n, ext_ref: dict, thm3, temps_ext,
                     *, decided: bool, ref_stable):
    """The answers from elsewhere: Theorem 3 per model (``fit_theorem3``), every resolution
    window by window, the encoder's and theirs (``resolution_by_window``), accuracy against n
    (``external``), the temperature from their scores, and one sentence per model. Returns the
    window table."""
    if len(thm3):
        report.table(thm3.assign(measure="Theorem 3 ball measure"), "fit_theorem3")
    window_table = pd.concat([windows, *ext_windows], ignore_index=True)[WINDOW_COLUMNS]
    report.table(window_table, "resolution_by_window")
    report.table(ext_n, "external")
    if len(temps_ext):
        report.table(temps_ext, "temperature_external")
    ext_models = sorted(set(ext_n.model) | set(ext_ref))
    _sentence(report, "ext_text", " ".join(
        verdicts.external_verdict(m, thm3, window_table, decided=decided, ref_stable=ref_stable)
        for m in ext_models) or
        f"No such data here: the paper's LLMs ({', '.join(THE_PAPER.models)}) left their "
        "answers only as binary pickles, and no result files were given. Given the authors' "
        "saved results (the chapter's results parameter), with pickles allowed, this section "
        "fills in.", cites=pooled(
            carried(*THE_PAPER.models),
            *(verdicts.external_numbers(m, thm3, window_table) for m in ext_models)))
    return window_table


def shape_row(report, model: str, best_shape: str, shape_fits: dict, shape_df, kernel: tuple,
              stand_in: str) -> None:
    """The encoder's kernel shape as a finding: the paper's exponential with a floor predicts
    held-out units no worse than the best other shape by more than :data:`verdicts.SHAPE_MARGIN`
    in ln g; a misfit when its fit fails its goodness-of-fit test, with its size
    (:func:`verdicts.kernel_fit_size`)."""
    ranked = shape_df.set_index("shape")
    exp = ranked.loc["exp_floor"]
    other = ranked.drop(index="exp_floor").sort_values("heldout_rmse").iloc[0]
    gap = float(exp.heldout_rmse - other.heldout_rmse)
    fit = shape_fits["exp_floor"]
    distance, g, se = kernel
    report.result(f"Kernel shape of {model}",
                  f"the held-out error (RMSE of ln g) of the paper's exponential with a floor "
                  f"less that of the best other shape ({SHAPE_LABELS[other.name]}); best "
                  f"overall: {SHAPE_LABELS[best_shape]}", headline=gap,
                  ci=verdicts.interval(gap, float(np.hypot(exp.heldout_se, other.heldout_se))),
                  compared_with=0.0, compared_with_label="the best other shape's error",
                  margin=verdicts.SHAPE_MARGIN, margin_reason=verdicts.SHAPE_REASON,
                  claim="at most", misfit=bool(fit.get("misfit")),
                  fit_size=verdicts.kernel_fit_size(distance, g, se, fit),
                  gof_p=fit.get("gof_p"), stand_in=stand_in)


def deviation_lines(cfg, encoder: str, lms: list, ns: list, n_names: int) -> list[str]:
    """How this build's protocol differs from the paper's, beyond the settings in
    ``SETTINGS.paper`` (which :meth:`semres.report.Report.deviations` compares itself)."""
    *first, last = THE_PAPER.models
    return [
        f"models: the encoder {encoder} and the causal LMs {', '.join(lms) or '(none)'}, "
        f"instead of {', '.join(first)} and {last}",
        "read-out: the Luce mass on the correct people (a probability per prompt), instead of "
        "parsing one generated answer; every draw is seeded",
        f"resolution design: {len(cfg.centres)} centres on a grid {min(cfg.centres)}–"
        f"{max(cfg.centres)} (paper: {THE_PAPER.centres})",
        f"the causal LMs' resolution: the near design (gaps $D =$ "
        f"{', '.join(map(str, cfg.near_Ds))}, {cfg.near_pairs} pairs of names each, probes "
        f"{', '.join(map(str, cfg.near_xs))} years from the nearer person, both sides, both "
        "orders) fitted across distances, instead of probes every 5 years over $c \\pm 300$ "
        "read off a figure",
        f"$n$-sweep: $n =$ {', '.join(map(str, ns))} with {cfg.trials} prompts each, years "
        f"{cfg.sweep_years[0]}–{cfg.sweep_years[1]}, {n_names} names (paper: "
        f"{THE_PAPER.n_sweep})",
        "the kernel is measured from the model and its shape chosen by held-out error; the "
        "two-reference fit and the crossover are refitted window by window; the tradeoff and "
        "the $1/n$ law, which the paper did not test, are measured here",
    ]


def lead_numbers(assessed: dict, near_results: dict) -> dict:
    """What :func:`lead` quotes: each model's gate and nearer-person masses with their
    intervals, its half-decay and return-to-chance distance, the paper's range and the
    numbers in the models' names."""
    keys = ("p", "ci_low", "ci_high", "resolution", "finest_x", "half_decay",
            "half_decay_ci_low", "half_decay_ci_high", "chance_return",
            "chance_return_ci_low", "chance_return_ci_high")
    out = {"paper": THE_PAPER.resolution[0], "paper_high": THE_PAPER.resolution[1],
           **carried(*assessed)}
    for m, a in assessed.items():
        r = near_results.get(m) or {}
        for part, row in (("gate", a["gate"]), ("near", r.get("competence", {}).get("above")),
                          ("best", r.get("best"))):
            out.update({f"{m}.{part}.{k}": (row or {}).get(k) for k in keys
                        if as_number((row or {}).get(k)) is not None})
    return out


def _paper_words(best: dict) -> str:
    """Where a model's return-to-chance distance stands against the paper's 70–80 years (the
    same measure), by the book's rule on its interval; empty without one."""
    lo, hi = best.get("chance_return_ci_low"), best.get("chance_return_ci_high")
    if as_number(lo) is None or as_number(hi) is None or not (np.isfinite(lo) and
                                                              np.isfinite(hi)):
        return ""
    state = judge(lo, hi, verdicts.PAPER_RESOLUTION[0], verdicts.PAPER_RESOLUTION[1])
    return {"pass": "within", "fail": "outside"}.get(state, "not told apart from")


def lead(assessed: dict, near_results: dict, protocol: dict, trade: tuple) -> str:
    """The box's opening (MyST): what the causal LMs do and do not do, with the main number and
    its interval, and what that means for the paper's claim; built from the results, so that it
    says what this build found, whichever models passed. A half-decay (lambda ln 2) and a
    return-to-chance distance (lambda ln(1/Delta)) are both given, and only the second is set
    beside the paper's 70–80 years, which is that measure."""
    lo_p, hi_p = THE_PAPER.resolution
    parts, doers = [], []
    for m in protocol:  # the models that pass the gate
        g, r = assessed[m]["gate"], near_results[m]
        head = (f"{m} identifies people by birth year ({g['p']:.2f} [{g['ci_low']:.2f}, "
                f"{g['ci_high']:.2f}] of its mass on the right one)")
        if not r["does"]:
            c = r["competence"]["above"]
            parts.append(f"{head} but shows no similarity of years ({c['p']:.2f} "
                         f"[{c['ci_low']:.2f}, {c['ci_high']:.2f}] on the nearer of two people)")
            continue
        doers.append(m)
        b = r["best"]
        half = (f"finer than {b['finest_x']:g} years" if b["upper_bound"] else
                f"within about {b['resolution']:.0f} years [{b['ci_low']:.0f}, "
                f"{b['ci_high']:.0f}]")
        back = b.get("chance_return", math.nan)
        blo, bhi = b.get("chance_return_ci_low", math.nan), b.get("chance_return_ci_high",
                                                                  math.nan)
        where = _paper_words(b)
        back_words = (f", and its answers return to chance about {back:.0f} years [{blo:.0f}, "
                      f"{bhi:.0f}] away, {where} the paper's {lo_p}–{hi_p} years (the same "
                      "measure)" if where and np.isfinite(back) and back > 0 else
                      ", but on a floor at or above its peak its answers never stand clear of "
                      "chance by more than a few hundredths, so no distance of return to "
                      f"chance is set beside the paper's {lo_p}–{hi_p} years"
                      if np.isfinite(back) else "")
        words = {"reproduced": "meets", "holds": "meets", "does not hold": "misses",
                 "inconclusive": "cannot be told to meet or miss"}
        free = words.get(page_lm._t3_status(protocol[m], "free"), "is not judged on")
        floor = words.get(page_lm._t3_status(protocol[m], "floor"), "is not judged on")
        parts.append(f"{head} and prefers the nearer of two people: its similarity halves "
                     f"{half}{back_words}; sharpening it {page_lm._trades(protocol[m])} $p_S$ "
                     f"for $p_I$, and Theorem 3 {free} its success across $n$ without a "
                     f"floor and {floor} it with one")
    failing = [a["model"] for a in assessed.values() if a["gate"]["verdict"] != "passes"]
    if failing:
        parts.append(f"{' and '.join(failing)} {'does' if len(failing) == 1 else 'do'} not "
                     "identify anyone by birth year")
    first = ("; ".join(parts) if parts else "No causal LM ran in this build") + "."
    if doers:
        trades = [page_lm._trades(protocol[m]) for m in doers]
        returns = any(0 < near_results[m]["best"].get("chance_return", math.nan) < math.inf
                      for m in doers)
        meaning = ("So a small model has a finite resolution too, "
                   + ("measured in the paper's terms where it returns to chance"
                      if returns else "seen as a half-decay, on a floor too high for the "
                      "paper's return-to-chance measure") + "; the tradeoff it implies "
                   + ("shows up too." if "trades" in trades else
                      "does not show up." if all(t == "does not trade" for t in trades) else
                      "cannot be told here."))
    else:
        meaning = (f"So these small models cannot test the paper's {lo_p}–{hi_p}-year "
                   "resolution; the sentence encoder "
                   + ("does trade along its temperature." if trade[0]["status"] == "holds"
                      else "shows no tradeoff either." if trade[0]["status"] == "does not hold"
                      else "cannot be told to trade along its temperature."))
    return f"{first} {meaning}"


def close(report, cfg, *, profile: str, device: str, model: str, lam: dict, assessed: dict,
          protocol: dict, near_results: dict, head, robust: bool, choices, tail: dict,
          best_shape: str, shape_fits: dict, shape_df, kernel: tuple, sweep_df,
          enc_theorem3: dict, trade: tuple, temp_df, ns: list, n_names: int) -> None:
    """The chapter's rows of the overview, in the book's status vocabulary, its points on the
    (p_I, p_S) plane, the deviations from the paper, ``summary.csv`` and the result box.

    The rows: Proposition ch5-prop-two-reference on the engine (``lam``,
    :func:`verdicts.floor_tradeoff`: the floored curve's turn, a finding, and the floor-free
    rise, a check); the causal LMs (:func:`page_lm.report_results`); the encoder's resolution
    against the paper's 70–80 years (:func:`verdicts.resolution_claim`; not run when too few
    resamples decide nothing), its kernel shape (``kernel`` = distance, g, se, for the
    misfit's size), p_S against n from its mean kernel, Theorem 3 across n with and without a
    floor (``enc_theorem3``, :func:`verdicts.theorem3_forms`) and the tradeoff along the
    temperature (``trade``, :func:`verdicts.tradeoff_verdict`)."""
    report.result("Two references under an exponential with a floor",
                  f"with a floor Delta = {lam['floor']:g}, p_S on the engine rises and falls "
                  "again as lambda shrinks: the smaller of its falls from the peak (to the "
                  "finest and the coarsest lambda), against no fall (SymPy, engine)",
                  headline=lam["turn"], ci=lam["ci"], compared_with=0.0,
                  compared_with_label="no fall of p_S from its peak", margin=lam["margin"],
                  margin_reason=verdicts.ENGINE_TURN_REASON, claim="above")
    report.result("Two references without a floor: a finer kernel wins both tests",
                  f"without a floor p_S and p_I both exceed {verdicts.BOTH_RISE} at the finest "
                  "lambda on the engine, as the SymPy limit proves", passed=lam["both_rise"],
                  kind="check")
    page_lm.report_results(report, assessed, protocol, near_results)
    stand_in = f"a sentence encoder ({model}), not the paper's chat LLMs"
    if not head.decided:
        report.not_run(f"Year resolution of {model}",
                       f"not run: {cfg.window_boot} bootstrap resamples per window decide "
                       f"nothing; {verdicts.MIN_BOOT} or more do", stand_in=stand_in)
    else:
        res = verdicts.resolution_claim(head, robust)
        identified = res.pop("identified")
        report.result(f"Year resolution of {model} ({verdicts.measure_name(head.measure)})",
                      "where its answers return to chance, refitted on growing windows, "
                      "against the paper's 70–80 years (the same measure): "
                      + ("it settles, whichever windows count as upper" if identified else
                         "it keeps moving with the window, or settles only for some choices "
                         "of windows"), identified=identified, stand_in=stand_in, **res)
    shape_row(report, model, best_shape, shape_fits, shape_df, kernel, stand_in)
    cells = [{"cell": f"n = {int(r.n)}", "headline": float(r.p - r.p_theory),
              "ci": verdicts.interval(float(r.p - r.p_theory), float(np.hypot(r.se,
                                                                          r.theory_se)))}
             for r in sweep_df[sweep_df.task == "similarity"].sort_values("n").itertuples()]
    report.grid_result(f"p_S against n for {model}, predicted from its mean kernel",
                       "p_S less the engine's prediction from the mean kernel at every n",
                       cells, "n_sweep_prediction", compared_with=0.0,
                       compared_with_label="the engine's prediction from the mean kernel",
                       margin=verdicts.MISS_MATTERS, margin_reason=verdicts.MISS_REASON,
                       new=True, stand_in=stand_in)
    for form, title in (("free", "Theorem 3 across n, without a floor (the paper's form)"),
                        ("floor", "Theorem 3 across n, with its floor")):
        fit = enc_theorem3[form]
        report.grid_result(f"{model}: {title}", verdicts.theorem3_statement(fit, ns),
                           verdicts.theorem3_grid(fit, sweep_df),
                           f"theorem3_{form}_encoder", new=form == "floor", stand_in=stand_in,
                           **verdicts.theorem3_common(fit))
    turn, trade_th, _ = trade
    report.result(f"Tradeoff along the temperature ({model})",
                  f"the fall of p_S on cooling from its peak (T = {turn['peak_T']:g}) to T = "
                  f"{turn['cold_T']:g}, against a quarter of its advantage above chance; from "
                  f"the mean kernel the engine predicts {'a tradeoff' if trade_th else 'none'}",
                  **{k: turn[k] for k in ("headline", "ci", "margin", "margin_reason", "claim",
                                          "compared_with", "compared_with_label")},
                  new=True, stand_in=stand_in)
    for r in temp_df.itertuples():
        report.point(f"{model}, T = {r.temperature:g}", r.p_i, r.p_s, r.p_i_se, r.p_s_se)
    report.deviations(cfg, SETTINGS.paper,
                      *deviation_lines(cfg, model, [a["model"] for a in assessed.values()], ns,
                                       n_names))
    report.save()
    report.box(f"the encoder `{model}`; the causal LMs "
               + (", ".join(f"`{a['model']}` ({a['dtype']})" for a in assessed.values())
                  or "none")
               + f"; profile `{profile}`, device `{torch_device(device).type}`. "
               "The reasons are in the sections below; the full tables are in the chapter's "
               "result files", lead=lead(assessed, near_results, protocol, trade),
               lead_cites=lead_numbers(assessed, near_results))
