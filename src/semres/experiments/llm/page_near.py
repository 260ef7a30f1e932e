"""The near design on the page: its figure, its sentences, its tables and its overview rows.

The science is in :mod:`.near`; this module only says what it found.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.ticker import NullLocator

from semres.report import plotting as splot
from semres.report import numbers
from semres.report.numbers import carried, mathify, pooled
from semres.report.verdicts import gof_pvalue

from semres.core.fits import quasi_interval

from . import near, verdicts
from .settings import NAMES, THE_PAPER
from .verdicts import scalars

__all__ = ["fig_near", "competence_text", "resolution_text", "box_sentence", "sizing_text",
           "front_text", "bias_table", "bias_rows", "publish", "blind_text", "paper_reading",
           "design_text", "fits_table", "report_rows", "near_summary", "near_details",
           "competence_statement", "resolution_statement", "SHAPE_NAMES", "LM_STAND_IN",
           "tests_text", "blind_spots", "blind_words", "near_numbers", "sizing"]

SHAPE_NAMES = {"exponential": "exponential", "gaussian": "Gaussian",
               "step": "step (Definition 1)"}
#: what stands in for the paper's chat LLMs, on every causal-LM row of the overview
LM_STAND_IN = "a small causal LM that installs from the registry, not the paper's 2–7B models"


def _sentence(report, name: str, text: str, cites=None) -> None:
    """Glue a sentence for ``{glue:md}`` (plain weight, its math typeset), not as bold text,
    with the numbers of the row it describes (``cites``)."""
    report.text(name, mathify(text), markdown=True, cites=cites)


def _years(x: float) -> str:
    return f"{x:.0f} year{'s' if round(x) != 1 else ''}"


def design_text(cfg) -> str:
    """The design in one sentence, with the distances it probes."""
    xs = cfg.near_xs
    return (f"two people born $D$ years either side of a centre ($D =$ "
            f"{', '.join(map(str, cfg.near_Ds))}; {cfg.near_pairs} pairs of names for each "
            f"$D$, each with its own centre in {cfg.near_centres[0]}–{cfg.near_centres[1]}), "
            f"probes $x =$ {', '.join(map(str, xs))} years beyond the nearer person and, where "
            "$x < D$, between the two, each on both sides and with the pair in both orders")


def tests_text(r: dict) -> str:
    """The near design's two tests over pairs of names, in words: the mass near a person
    against ½ (with its greedy answers), and against the mass far from both people."""
    c = r["competence"]
    a, d = c["above"], c["decay"]
    return (f"{numbers.pvalue(a['p_value'])} against ½ over {a['pairs']} pairs of names; its "
            f"greedy answers pick the nearer person {c['greedy_near']:.3f} of the time. Its mass "
            f"there exceeds its mass {_years(c['far'])} or more away by {d['p']:+.3f} "
            f"(95 % interval {d['ci_low']:+.3f} to {d['ci_high']:+.3f}, "
            f"{numbers.pvalue(d['p_value'])})")


def competence_text(r: dict) -> str:
    """Whether the model does similarity where its resolution would show, in words."""
    c = r["competence"]
    a = c["above"]
    lo, hi = c["x_range"]
    head = (f"Probed at most {_years(c['near'])} beyond the nearer person, {r['model']} puts "
            f"{a['p']:.3f} [{a['ci_low']:.3f}, {a['ci_high']:.3f}] of its mass on that person: "
            f"{tests_text(r)}")
    if r["does"]:
        return head + ". It does similarity, with a preference that fades with distance."
    return (head + f". It does not do similarity at the distances tested ({lo:.0f}–{hi:.0f} "
            "years), so no resolution is fitted.")


def _bound(best: dict) -> bool:
    return bool(best["upper_bound"])


def resolution_text(r: dict) -> str:
    """The fitted resolution, its interval, its fit and the crossover beside it."""
    if not r["does"]:
        return (f"{r['model']} has no resolution to fit: it does not prefer the nearer person "
                "even a few years away.")
    b, fits, cross = r["best"], r["fits"], r["crossover"]
    shape = SHAPE_NAMES[b["shape"]]
    if _bound(b):
        value = f"below {_years(b['finest_x'])}, the finest distance tested"
    else:
        value = (f"{b['resolution']:.0f} years (95 % interval over pairs of names "
                 f"{b['ci_low']:.0f}–{b['ci_high']:.0f})")
    if b["misfit"]:
        fit = (f"but no shape describes it (the best, the {shape}, fails its test of lack of fit "
               f"against the scatter between pairs of names, {gof_pvalue(b)}): the number "
               "describes the wrong curve")
    else:
        others = "; ".join(f"{SHAPE_NAMES[f.shape]} {f.resolution:.0f} years, ΔAIC "
                           f"{f.delta_aic:.1f}" for f in fits.itertuples() if not f.best)
        fit = (f"the {shape} describes it (lack of fit against the scatter between pairs of "
               f"names {gof_pvalue(b)}; the other shapes: {others})")
    floor = (f"on a floor of {b['relative_floor']:.2f} of an exact match's weight")
    crossing = (f"still distinguishable from chance at the last probe, {_years(cross['x_max'])}"
                if cross["at_bound"] else
                f"{_years(cross['resolution'])} ({cross['ci_low']:.0f}–{cross['ci_high']:.0f})")
    return (f"Fitted to every distance and gap at once, {r['model']}'s similarity stays above "
            f"halfway to its floor within {value}, {floor}; {fit}. The chance crossover, the "
            f"distance beyond the nearer person at which its preference can no longer be told "
            f"from ½ with these trials, is {crossing}.")


def competence_statement(r: dict) -> str:
    """The near design's precondition in one line, for the overview (its numbers come with
    the row)."""
    c = r["competence"]
    verdict = "prefers" if r["does"] else "does not prefer"
    return (f"{r['model']} {verdict} the nearer person: its mass on that person within "
            f"{_years(c['near'])} of them, against ½ and against its mass "
            f"{_years(c['far'])} or more away")


def resolution_statement(r: dict) -> str:
    """The fitted resolution's row in one line: the return-to-chance distance (its number and
    interval come with the row) against the paper's 70–80 years, and the half-decay beside it,
    a different measure."""
    b = r["best"]
    shape = SHAPE_NAMES[b["shape"]]
    half = b.get("half_decay", b["resolution"])
    lo = b.get("half_decay_ci_low", b["ci_low"])
    hi = b.get("half_decay_ci_high", b["ci_high"])
    head = (f"where its similarity ({shape}, fitted to every gap and distance at once) falls to "
            "its floor, so that answers return to chance (lambda ln(1/Delta) for the "
            "exponential), against the paper's 70–80 years, the same measure; its half-decay, "
            f"a different measure, is {half:.0f} years [{lo:.0f}, {hi:.0f}]")
    if _bound(b):
        head += ", below the finest distance tested"
    if b["misfit"]:
        head += (f"; the {shape} fails its test of lack of fit, so the distance is approximate "
                 "and its interval widened by the dispersion")
    return head


def near_summary(r: dict) -> str:
    """What the near design found for one model, in one sentence for the page (MyST): the
    preference near a person and, for a model that has one, the resolution."""
    c = r["competence"]
    a = c["above"]
    mass = (f"{r['model']} puts {a['p']:.3f} [{a['ci_low']:.3f}, {a['ci_high']:.3f}] on the "
            f"nearer person within {_years(c['near'])}")
    if not r["does"]:
        return (f"{mass}, not detectably more than ½ or than {_years(c['far'])} or more away: "
                "no similarity, so no resolution.")
    b = r["best"]
    value = (f"below {_years(b['finest_x'])}, the finest distance tested" if _bound(b) else
             f"{b['resolution']:.0f} years [{b['ci_low']:.0f}, {b['ci_high']:.0f}]")
    fit = ("" if not b["misfit"] else
           f", though the {SHAPE_NAMES[b['shape']]} fails its test of lack of fit")
    return (f"{mass}, and less farther away; its fitted {SHAPE_NAMES[b['shape']]} stays above "
            f"halfway to its floor within {value} (its half-decay), on a floor of "
            f"{b['relative_floor']:.2f} of an exact match's weight{_back_words(b)}{fit}.")


def near_details(r: dict) -> str:
    """The tests and fits behind :func:`near_summary`, for a dropdown (MyST): the tests over
    pairs of names, every shape's fit, the chance crossover and the interval's width."""
    c = r["competence"]
    lo, hi = c["x_range"]
    text = (f"**{r['model']}.** Near a person ({_years(c['near'])} or less): {tests_text(r)}; "
            f"the probes span {lo:.0f}–{hi:.0f} years.")
    if not r["does"]:
        return text
    b, fits, cross = r["best"], r["fits"], r["crossover"]
    shape = SHAPE_NAMES[b["shape"]]
    others = "; ".join(f"{SHAPE_NAMES[f.shape]} {f.resolution:.0f} years, ΔAIC "
                       f"{f.delta_aic:.1f}" for f in fits.itertuples() if not f.best)
    text += (f" The {shape} fits best: lack of fit against the scatter between pairs of names "
             f"{gof_pvalue(b)}; the other shapes give {others}.")
    crossing = (f"still distinguishable from chance at the last probe, {_years(cross['x_max'])}"
                if cross["at_bound"] else
                f"{_years(cross['resolution'])} ({cross['ci_low']:.0f}–{cross['ci_high']:.0f})")
    text += (" The chance crossover, the distance beyond the nearer person at which its "
             f"preference can no longer be told from ½ with these trials, is {crossing}.")
    return text + (" " + sizing_text(r) if sizing_text(r) else "")


def paper_reading() -> str:
    """What the paper's 70–80 years is, said once."""
    lo, hi = THE_PAPER.resolution
    return (f"The paper's {lo}–{hi} years for Gemma-2-2B, Llama-3.2-3B and Qwen2.5-7B is a "
            "reading of its Figure 5b, not a fitted number: its notebook stores, per probe, the "
            "share of answers naming the earlier-born person, computes no fit and no crossover, "
            "and draws a scale-free theory curve beside the data")


def box_sentence(r: dict, gate: dict | None = None) -> str:
    """One sentence per model for the top of the page: what it does (identification, from its
    ``gate`` when given), and at what resolution it generalises."""
    m = r["model"]
    if gate is not None and gate["verdict"] == "passes":
        m = f"{m} identifies a person by birth year ({gate['p']:.2f} at $n = 2$) and"
    if not r["does"]:
        c = r["competence"]
        return (f"{m} does not prefer the nearer person even {_years(c['near'])} away "
                f"(mass {c['above']['p']:.2f}): it has no resolution to measure.")
    b = r["best"]
    if b["misfit"]:
        return (f"{m} prefers the nearer person within a few years, but no similarity shape "
                "describes how that preference fades.")
    lo, hi = THE_PAPER.resolution
    scale = (f"its similarity halves within {_years(b['finest_x'])}" if _bound(b) else
             f"its similarity halves within about {_years(b['resolution'])} "
             f"[{b['ci_low']:.0f}, {b['ci_high']:.0f}]")
    return (f"{m} generalizes to nearby birth years: {scale}, on a floor of "
            f"{b['relative_floor']:.2f} of an exact match's weight{_back_words(b)}.")


def _back_words(b: dict) -> str:
    """The return-to-chance distance of a fit, with its interval and the paper's 70–80 years
    (the same measure) beside it; empty where the shape has none (the step)."""
    back = b.get("chance_return", b.get("floor_distance", math.nan))
    lo, hi = b.get("chance_return_ci_low", math.nan), b.get("chance_return_ci_high", math.nan)
    p_lo, p_hi = THE_PAPER.resolution
    if not np.isfinite(back):
        return ""
    if back <= 0:  # lambda ln(1/Delta) with Delta >= 1: the row reads "not identified"
        return (", on a floor at or above the decaying part's peak, so no distance of return "
                f"to chance is defined to set beside the paper's {p_lo}–{p_hi} years")
    ci = f" [{lo:.0f}, {hi:.0f}]" if np.isfinite(lo) and np.isfinite(hi) else ""
    return (f", and its answers return to chance about {_years(back)}{ci} away, the measure of "
            f"the paper's {p_lo}–{p_hi} years")


def front_text(r: dict, uniform: dict) -> str:
    """The p_S at n = 2 that the fitted similarity predicts for uniform probes, against the one
    measured (``uniform``: its clustered mean)."""
    if not r.get("does"):
        return ""
    f = r["front"]
    return (f"Its similarity fitted on the near design predicts $p_S =$ {f['p_s']:.3f} for "
            f"uniform probes at $n = 2$; it measured {uniform['p']:.3f} [{uniform['ci_low']:.3f}, "
            f"{uniform['ci_high']:.3f}].")


def fits_table(results: dict) -> pd.DataFrame:
    """Every shape fitted to every model that does similarity, for ``near_fits.csv``."""
    parts = [r["fits"] for r in results.values() if "fits" in r]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def fig_near(results: dict):
    """P(nearer person chosen) against the distance from that person, one panel per gap D:
    mean mass with its 95 % interval over names, beyond the pair (filled) and between the two
    (open), and the best shape fitted across all panels for each model that does similarity."""
    Ds = sorted({d for r in results.values() for d in r["curve"].D.unique()})
    cols = 2 if len(Ds) > 1 else 1
    rows_ = math.ceil(len(Ds) / cols)
    fig, axes = splot.subplots(rows_, cols, figsize=(9, 3.4 * rows_), sharey=True,
                               squeeze=False)
    axes = axes.ravel()
    for k, r in enumerate(results.values()):
        color = splot.CYCLE[k % len(splot.CYCLE)]
        curve = r["curve"]
        for ax, D in zip(axes, Ds):
            for where, fill in (("beyond", color), ("between", "white")):
                sub = curve[(curve.D == D) & (curve["where"] == where)].sort_values("x")
                if sub.empty:
                    continue
                ax.errorbar(sub.x, sub.mass, yerr=[sub.mass - sub.mass_ci_low,
                                                   sub.mass_ci_high - sub.mass],
                            fmt="o", ms=4, color=color, mfc=fill, capsize=2, lw=0.8,
                            label=f"{r['model']}, {where}" if D == Ds[0] else None)
            if not r["does"]:
                continue
            b = r["best"]
            for where, ls in (("beyond", "-"), ("between", "--")):
                top = curve[(curve.D == D) & (curve["where"] == where)].x.max()
                if not np.isfinite(top):
                    continue
                x = np.linspace(0, top, 300)
                off = D + x if where == "beyond" else D - x
                ax.plot(x, near.p_correct(b["shape"], b["scale"], b["floor"], D, off),
                        color=color, ls=ls, lw=1.2)
    curve_max = max(r["curve"].x.max() for r in results.values())
    for ax, D in zip(axes, Ds):
        ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8, ls=":")
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlim(-0.2, curve_max * 1.15)
        ticks = [v for v in (0, 1, 3, 10, 30, 100, 300) if v <= curve_max]
        ax.set_xticks(ticks, [str(v) for v in ticks])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set(title=f"people {2 * D:g} years apart (D = {D:g})",
               xlabel="years from the nearer person", ylabel="mass on the nearer person")
    for ax in axes[len(Ds):]:
        fig.delaxes(ax)
    splot.legend_outside(fig, [ax for ax in axes if ax in fig.axes], ncol=2)
    return fig


def report_rows(report, results: dict) -> None:
    """The overview rows: for every model, whether it does similarity near a person (a
    precondition, counted once); for those that do, the resolution fitted across distances;
    for those that do not, the resolution as not run, with the reason."""
    for m, r in results.items():
        c = r["competence"]
        report.result(f"{m}: similarity within {_years(c['near'])} of a person",
                      competence_statement(r), headline=c["above"]["p"],
                      ci=(c["above"]["ci_low"], c["above"]["ci_high"]), passed=r["does"],
                      does_task=r["does"], kind="precondition", stand_in=LM_STAND_IN)
        if not r["does"]:
            report.not_run(f"{m}: year resolution, fitted across distances",
                           f"not run, because {m} does not prefer the nearer person even "
                           f"{_years(c['near'])} away", stand_in=LM_STAND_IN)
            continue
        b = r["best"]
        back = b.get("chance_return", b.get("floor_distance", np.nan))
        ci = (b.get("chance_return_ci_low", np.nan), b.get("chance_return_ci_high", np.nan))
        size = verdicts.near_fit_size(r["trials"], b) if "trials" in r else {}
        misfit = bool(b["misfit"])
        if misfit and size and all(np.isfinite(ci)):
            ci = quasi_interval(back, ci, size["dispersion"])
        report.result(f"{m}: year resolution, fitted across distances "
                      f"({SHAPE_NAMES[b['shape']]})", resolution_statement(r),
                      headline=back, ci=ci, paper_value=verdicts.PAPER_RESOLUTION[0],
                      margin=verdicts.PAPER_RESOLUTION[1],
                      margin_reason=verdicts.PAPER_RESOLUTION_REASON, misfit=misfit,
                      fit_size=size or None, gof_p=b.get("gof_p"), approximate=misfit,
                      # a floor at or above the kernel's peak (Delta >= 1) leaves lambda
                      # ln(1/Delta) at 0: P(correct) never stands clear of chance, so no
                      # distance of return is defined, whatever the half-decay says
                      identified=not bool(b.get("at_bound")) and np.isfinite(back)
                      and back > 0,
                      stand_in=LM_STAND_IN)


def sizing(r: dict, target: float = 1.5) -> dict:
    """How wide the resolution's interval came out against the ``target`` factor (``spread``)
    and, when wider, how many pairs of names the target would take (``need``, ``more`` times
    this build's: an interval narrows as one over the square root of the pairs) against the
    most the names make (``most``); {} without a resolution, only the target when the
    interval reaches down to the finest distance."""
    if not r["does"] or "best" not in r:
        return {}
    b = r["best"]
    est, lo, hi = b["resolution"], b["ci_low"], b["ci_high"]
    if _bound(b) or not (est > 0 and lo > 0 and np.isfinite(hi)):
        return {"target": target}
    spread = max(hi / est, est / lo)
    more = (math.log(spread) / math.log(target)) ** 2
    return {"target": target, "spread": spread, "more": more, "pairs": b["pairs"],
            "trials": b["trials"], "need": math.ceil(more * b["pairs"]), "names": len(NAMES),
            "most": len(NAMES) // 2, "lift": r["competence"]["above"]["p"] - 0.5}


def sizing_text(r: dict, target: float = 1.5) -> str:
    """How wide the resolution's interval came out against the ``target`` factor, and how many
    pairs of names the target would take (:func:`sizing`)."""
    z = sizing(r, target)
    if not z:
        return ""
    if "spread" not in z:
        return (f"For {r['model']} the interval reaches down to the finest distance tested, so "
                "its width is no guide to the design's size.")
    if z["spread"] <= target:
        return (f"For {r['model']} the interval lies within a factor {z['spread']:.2f} of its "
                f"estimate, inside the factor {target:g} the design aims at.")
    return (f"For {r['model']} the interval reaches a factor {z['spread']:.1f} from its "
            f"estimate, not the {target:g} the design aims at: with {z['pairs']} pairs of names "
            f"({z['trials']:,} trials) a preference {z['lift']:+.3f} above ½ near a person leaves "
            f"its scale loose. A factor {target:g} would take about {z['need']:,} pairs "
            f"({z['more']:.0f} times this build's trials); the {z['names']} names make at most "
            f"{z['most']} pairs with no name in two, so no profile reaches it without reusing "
            "names across pairs or a larger pool of names.")


def near_numbers(r: dict) -> dict:
    """What :func:`near_summary` and :func:`near_details` quote of one model: its tests near a
    person, its fits (every shape's resolution and ΔAIC), the crossover and the interval's
    width against the design's aim (:func:`sizing`)."""
    fits = r.get("fits")
    return {**scalars({k: r[k] for k in ("competence", "best", "crossover") if k in r}),
            **scalars(fits[["resolution", "delta_aic"]].to_dict("list") if fits is not None
                      else {}, "fits"),
            **scalars(sizing(r), "sizing"), **scalars(THE_PAPER.resolution, "paper"),
            **carried(r["model"])}


def bias_rows(results: dict) -> pd.DataFrame:
    """The pull towards the first-listed person on the near design (mass on it - 1/2), in the
    columns of :func:`bias_table`."""
    return pd.DataFrame([{"model": m, "bias": "position, near design",
                          "measure": "mass on the first-listed person − 1/2",
                          "value": r["position"]["p"], "ci_low": r["position"]["ci_low"],
                          "ci_high": r["position"]["ci_high"],
                          "trials": r["position"]["trials"]} for m, r in results.items()])


def blind_spots(cfg, seed, floor: float = 0.05, reaches=(10, 20), D: float = 20,
                close=(1, 5)) -> dict:
    """What uniform probes see of a resolution of a few decades: for exponentials that reach
    ``floor`` within each of ``reaches`` years, the mass on the nearer person for a uniform
    probe (``uniform0``, ``uniform1``) and for one ``close`` years beyond one of two people
    ``apart`` years apart (``near0``, ``near1``), by
    :func:`semres.experiments.llm.near.blind_spot`; with the design's numbers."""
    lo, hi = cfg.sweep_years
    spots = [near.blind_spot(r, floor, (lo, hi), trials=cfg.front_trials, seed=seed, D=D,
                             close=range(close[0], close[1] + 1)) for r in reaches]
    return {"year_lo": lo, "year_hi": hi, "floor": floor, "reach0": reaches[0],
            "reach1": reaches[1], "apart": 2 * D, "close0": close[0], "close1": close[1],
            "uniform0": spots[0][0], "uniform1": spots[1][0], "near0": spots[0][1],
            "near1": spots[1][1]}


def blind_text(cfg, seed, **design) -> str:
    """Why uniform probes cannot see a resolution of a few decades, in words
    (:func:`blind_spots`, with its ``design``)."""
    return blind_words(blind_spots(cfg, seed, **design))


def blind_words(b: dict) -> str:
    """:func:`blind_spots`' numbers in words."""
    return (f"With two people and a probe drawn uniformly from {b['year_lo']}–{b['year_hi']}, "
            f"an exponential similarity that falls to a floor of {b['floor']:g} within "
            f"{b['reach0']} years puts {b['uniform0']:.3f} of its mass on the nearer person, and "
            f"one that falls to it within {b['reach1']} years {b['uniform1']:.3f}, since most "
            f"probes land far from both people. The same similarities pick the nearer of two "
            f"people {b['apart']:g} years apart {b['near0']:.2f} and {b['near1']:.2f} of the "
            f"time when the probe is {b['close0']}–{b['close1']} years beyond one of them.")


def bias_table(assessed: dict) -> pd.DataFrame:
    """Position and length bias of every causal LM at n = 2 (the gate's trials), in the columns
    of :func:`bias_rows`."""
    rows = []
    for a in assessed.values():
        for kind, what in (("position", "mass on the first-listed person − 1/2"),
                           ("length", "mass on the name of fewer tokens − 1/2")):
            b = a["gate"]["biases"][kind]
            rows.append({"model": a["model"], "bias": kind, "measure": what,
                         "value": np.nan if b is None else b["p"],
                         "ci_low": np.nan if b is None else b["ci_low"],
                         "ci_high": np.nan if b is None else b["ci_high"],
                         "trials": 0 if b is None else b["trials"]})
    return pd.DataFrame(rows)


def publish(report, results: dict, assessed: dict, cfg, *, seed) -> None:
    """The near design's tables (``lm_resolution``, ``lm_resolution_fits``, ``lm_bias`` with the
    gate's biases of the ``assessed`` models), its figure and its glued sentences, the blind
    spot of uniform probes (:func:`blind_text`, drawn from ``seed``) among them."""
    gate_biases = bias_table(assessed)
    spots = blind_spots(cfg, seed)
    _sentence(report, "blind_text", blind_words(spots), cites=spots)
    report.table(pd.concat([r["curve"] for r in results.values()], ignore_index=True)
                 if results else pd.DataFrame(), "lm_resolution")
    report.table(fits_table(results), "lm_resolution_fits")
    report.table(pd.concat([gate_biases, bias_rows(results)], ignore_index=True)
                 if results else gate_biases, "lm_bias")
    if results:
        report.figure("near", fig_near(results))
    report.text("near_design", design_text(cfg), markdown=True,
                cites=scalars({k: getattr(cfg, k) for k in ("near_Ds", "near_pairs",
                                                            "near_centres", "near_xs")}))
    for key in ("near_near", "near_far"):
        report.number(key, getattr(cfg, key))
    said = pooled(*map(near_numbers, results.values()))
    report.text("near_text", " ".join(near_summary(r) for r in results.values())
                or "No causal LM ran in this build.", markdown=True, cites=said)
    report.text("near_details", mathify("\n\n".join(near_details(r) for r in results.values()))
                or "No causal LM ran in this build.", markdown=True, cites=said)
    _sentence(report, "paper_reading", paper_reading(),
              cites={**scalars(THE_PAPER.resolution), **carried(*THE_PAPER.models)})
