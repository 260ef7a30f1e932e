"""Chapter 3's page: its sentences, the numbers and tables it glues, its figures and its
result box, so that the chapter calls a few functions and holds no bookkeeping."""

from __future__ import annotations

import numpy as np
import pandas as pd
import sympy as sp
from myst_nb import glue

from semres.core import fits
from semres.report import tables
from semres.report import Z_MAX, find, fmt, measured, row_places

from . import page_figures, verdicts
from .analysis import ToyAnalysis
from .settings import DEFAULT, SETTINGS, ToySettings
from .superposition import CONDITIONS, ToyConfig, ToyHistory


def split_log2(name: str, expr) -> str:
    """LaTeX ``name = polynomial + ln 2 (polynomial)`` on two lines, so that a SymPy law with
    a ln 2 part fits a phone's column (chapter 3's segment law)."""
    expr = sp.expand(expr)
    c = expr.coeff(sp.log(2))
    rest = sp.expand(expr - c * sp.log(2))
    assert sp.simplify(rest + c * sp.log(2) - expr) == 0
    return (rf"\begin{{aligned}} {name} &= {sp.latex(rest)} \\ &\quad + \ln 2 \left("
            rf"{sp.latex(c)}\right) \end{{aligned}}")


# ---------------------------------------------------------------- sentences

#: how a verdict reads in a sentence comparing a measurement with a reference
VERDICT_VERBS = {"differs": "differs from", "does not hold": "differs from",
                 "inconclusive": "cannot be told apart from", "reproduced": "agrees with",
                 "holds": "agrees with"}


def against(verdict: str, what: str, ci: dict, ref: float, name: str, digits: int = 4,
            margin: float | None = None) -> str:
    """``"{what} {verb} {name}: it is +x from it (95% interval [lo, hi], Student's t over n
    seeds; practical margin ±m)"``, for a status ``verdict`` of :func:`semres.report.status`
    and a :func:`semres.core.intervals.mean_interval` ``ci`` of the measurement."""
    if verdict not in VERDICT_VERBS:
        raise ValueError(f"verdict must be one of {sorted(VERDICT_VERBS)}; got {verdict!r}")
    gap = f"{ci['mean'] - ref:+.{digits}f}"
    if not np.isfinite(ci["se"]):
        return f"{what} is {gap} from {name} (one seed: no interval)"
    said = "" if margin is None else f"; practical margin ±{margin:.{digits}f}"
    verb = VERDICT_VERBS[verdict]
    if margin is not None and verdict == "inconclusive":
        verb = "cannot be placed within or beyond the margin of"
    return (f"{what} {verb} {name}: it is {gap} from it (95% interval "
            f"[{ci['low'] - ref:+.{digits}f}, {ci['high'] - ref:+.{digits}f}], Student's t "
            f"over {ci['n']} seeds{said})")


def against_numbers(ci: dict, ref: float, margin: float | None = None) -> dict:
    """The numbers :func:`against` quotes, for the check that a sentence quotes only them."""
    numbers = {"gap": ci["mean"] - ref, "low": ci["low"] - ref, "high": ci["high"] - ref,
               "n": ci["n"]}
    return numbers if margin is None else {**numbers, "margin": margin}


def replicates_sentence(seeds: int) -> str:
    """What the chapter's replicates vary, and what they share."""
    return (f"The {seeds} seeds of each condition vary the initial weights and the trials "
            "drawn; every seed sees the same 50 stimuli and the same geometry (there is no data "
            "set to redraw), and a circle and a segment run with the same seed start from the "
            "same weights and draw the same trial indices (paired runs). Intervals over seeds "
            "use Student's t on one fewer degrees of freedom than seeds.")


def position_sentences(nearer_prop1: bool, closer_to_continuous: bool) -> dict:
    """Where the circle networks sit, in words: their peak against the two optima
    (``peak_nearer``: whether the peak's row passed, within half the distance between them:
    :func:`.verdicts.peak_margin`), and their late trajectory against the continuous law and
    the same profile on the 50 stimuli (``closer``)."""
    return {
        "peak_nearer": "nearer Proposition 1's optimum than the constant-similarity 3/4"
        if nearer_prop1 else "not shown to be nearer Proposition 1's optimum than the "
        "constant-similarity 3/4",
        "closer": "closer to the continuous law than to" if closer_to_continuous else
        "farther from the continuous law than from",
    }


def peak_verdict(status: str, ci: dict, p_star: float, disc_peak: float,
                 stimuli: int = DEFAULT.n_stimuli, margin: float | None = None) -> str:
    """The circle peak against Proposition 1's optimum within its margin, and where the
    stimuli put the same law."""
    return (against(status, "the circle networks' peak", ci, p_star, "Proposition 1's optimum",
                    margin=margin)
            + f"; on these {stimuli} stimuli the linear profile itself peaks at {disc_peak:.4f}")


def misfit_words(size: dict) -> str:
    """How far the linear profiles miss the networks' learned similarity, in one clause
    (:func:`.analysis.linear_fit_size`)."""
    return (f"pooled over {size['fits']} fits after initialisation, the lines' chi-square is "
            f"{size['dispersion']:.1f} times its degrees of freedom; they remove "
            f"{100 * size['explained_null']:.1f}% of a flat profile's chi-square, and miss the "
            f"mean similarity at each distance by {size['rms_gap']:.4f} (root mean square) where "
            f"the pairs' scatter alone leaves {size['rms_sampling']:.4f}")


def misfit_numbers(size: dict) -> dict:
    """The numbers :func:`misfit_words` quotes."""
    return {"fits": size["fits"], "dispersion": size["dispersion"],
            "explained": size["explained_null"], "rms_gap": size["rms_gap"],
            "rms_sampling": size["rms_sampling"]}


def shortfall_verdict(status: str, ci: dict, disc_short: float, continuum_short: float,
                      stimuli: int = DEFAULT.n_stimuli, margin: float | None = None,
                      size: dict | None = None) -> str:
    """The segment's shortfall against the linear profile's on the same stimuli within its
    margin; a shortfall of the law's sign but not its size says so; a reference the networks
    do not follow says that instead, with how far the line misses them (``size``)."""
    if status == "misfit":
        return (f"the segment's shortfall is {ci['mean']:.4f}; the linear profile's on the same "
                f"{stimuli} stimuli ({disc_short:.4f}) is no reference for it, since most "
                "networks' similarity is not linear in distance (their linear fits fail their "
                "goodness of fit" + (f": {misfit_words(size)})" if size else ")"))
    text = against(status, "the segment's shortfall", ci, disc_short,
                   f"the linear profile's on the same {stimuli} stimuli ({disc_short:.4f}; "
                   f"{continuum_short:.4f} in the continuum)", margin=margin)
    if np.isfinite(ci["se"]) and ci["low"] > 0 and status == "does not hold":
        text += ": it has the sign of the derived law (the segment peaks lower) but not its size"
    return text


def reconstruction_verdict(status: str, ci: dict, predicted: float, gap_mid: float,
                           mid: int, jensen: float) -> str:
    """Reconstruction p_I against Theorem 2's 1/(1 + Δ) within its margin, the Jensen term of
    the final weights: what fixes the gap's sign and what makes up its size."""
    gap = ci["mean"] - predicted
    return against(status, "The reconstruction networks' p_I", ci, predicted,
                   "Theorem 2's 1/(1 + Δ) at the fitted floor", margin=jensen) + (
        ". The margin is the Jensen term of the final weights: Theorem 2 assumes one floor "
        "for every pair, and the spread of the learned floor alone raises p_I by "
        f"{jensen:.4f} (mean 1/(1 + x) − 1/(1 + mean x) over the off-diagonal similarity "
        "ratios x of the final weights; Jensen's inequality fixes its sign, p_I ≥ 1/(1 + Δ) "
        "for any spread, Δ the mean ratio), so a gap within it is what a spread floor gives, "
        "the paper's 'lands near'. The gap is "
        f"{gap:+.4f} at the last epoch against {gap_mid:+.4f} at epoch {mid}; the fitted floor "
        f"Δ differing from the mean ratio accounts for {gap - jensen:+.4f} beside the Jensen "
        "term")


def gof_sentences(trajectories: pd.DataFrame, size: dict | None = None) -> dict:
    """The prose's sentences on the profile fits (``gof_summary``, ``fit_bounds``,
    ``eps_peak_caveat``, ``eps_final_sentence``): how many fail their goodness-of-fit test,
    whether the circle networks' final ε is censored, and what the last snapshot's fitted
    line says (a summary of the shape, not a measurement, where it fails the test)."""
    last = trajectories[trajectories.epoch == trajectories.epoch.max()]
    eps_censored = last[(last.condition == "circle") & last.bound_params.str.contains("eps")]
    tested = trajectories[(trajectories.condition == "circle") & np.isfinite(trajectories.gof_p)]
    last_snap = tested[tested.epoch == tested.epoch.max()]
    n_bad = int(last_snap.misfit.sum())
    after_init = tested[tested.epoch > 0]
    return {
        "gof_summary": (
            f"{int(trajectories.misfit.sum())} of {int(trajectories.gof_tested.sum())} profile "
            "fits at the snapshot epochs fail their goodness-of-fit test (chi-square of the "
            f"level means against the fitted line, p < {fits.MISFIT_P:g}; the `gof_*` and "
            "`misfit` columns of `trajectories.csv`, where the other "
            f"{int((~trajectories.gof_tested).sum()):,} rows, between snapshots, are marked "
            "untested: `gof_tested` False and `misfit` empty)"
            + (f"; how far the lines miss the similarity networks: {misfit_words(size)}"
               if size and size.get("fits") else "")),
        "fit_bounds": fits.censored_warning(
            "the circle networks' final ε", {"at_bound": True, "bound_params": "eps"})
        if len(eps_censored) else (
            "No circle network's final ε sits on an edge of its search range. (A fitted floor "
            "Δ = 0, no floor at all, also lies on the edge of its range; the `at_bound` column "
            "of `trajectories.csv` flags every fit on an edge.)"),
        "eps_peak_caveat": (
            " (a summary of the profile's width, not a measurement: the line fails its "
            f"goodness-of-fit test at {int(after_init.misfit.sum())} of {len(after_init)} "
            "circle snapshots after initialisation)" if after_init.misfit.any() else
            " (the line passes its goodness-of-fit test at every circle snapshot)"),
        "eps_final_sentence": (
            f"At epoch {int(last_snap.epoch.iloc[0])} the fitted linear decay of the circle "
            f"networks has ε ≈ {last_snap.eps_fit.mean():.3f} and a floor Δ ≈ "
            f"{last_snap.delta_fit.mean():.4f}, "
            + (f"but it fails its goodness-of-fit test for {n_bad} of {len(last_snap)} "
               "networks: their profiles are peaked and clipped like the line, not on it, so "
               "these two numbers summarise the shape and are not measurements of it."
               if n_bad else f"and it passes its goodness-of-fit test for all {len(last_snap)} "
               "networks.")),
    }


# ---------------------------------------------------------------- what the chapter publishes


def publish_laws(report, cfg: ToySettings, b_star: float, p_star: float, seg_peak: float,
                 seg_eps_star: float) -> None:
    """Glue the derived optima of Proposition 1 and of the segment's law, and the Monte
    Carlo check's size and criterion."""
    report.number("mc_trials", cfg.mc_trials)
    report.number("zmax", Z_MAX)  # every Monte Carlo estimate must sit this close to theory
    report.number("b_star", b_star)
    report.number("eps_star", b_star / 2)
    report.number("p_star", p_star)
    report.number("seg_peak", seg_peak)
    report.number("seg_eps_star", seg_eps_star)
    report.number("theory_shortfall", p_star - seg_peak)


def monte_carlo_table(report, mc: pd.DataFrame):
    """Save and glue the Monte Carlo check of the closed forms; the table for the page."""
    report.table(mc, "mc_check")
    report.number("mc_max_z", mc["z"].abs().max())
    report.number("law_margin", verdicts.law_margin(mc)[0])
    report.number("mc_cells", len(mc))
    return tables.table(mc, decimals=5, stderr="{:.1e}", z="{:+.2f}", eps="{:.2f}",
                        headers={"theory": "Theory (probability)",
                                 "monte_carlo": "Monte Carlo (probability)"})


def publish_training(report, cfg: ToySettings, config: ToyConfig, history: ToyHistory,
                     trajectories: pd.DataFrame, seconds: float) -> None:
    """Glue what was trained and how long it took, and save every network's trajectory."""
    report.number("steps", config.steps_per_epoch)
    report.number("lambda_rec", config.lambda_rec)
    report.number("train_seconds", seconds)
    report.number("n_networks", len(history.conditions))
    report.number("n_seeds", cfg.seeds)
    report.number("n_stimuli", cfg.n_stimuli)
    report.number("n_hidden", cfg.n_hidden)
    report.number("epochs", cfg.epochs)
    report.table(trajectories, "trajectories")


#: the headline quantities as the page labels its rows (``quantities.csv`` keeps the names)
QUANTITY_LABELS = {
    "circle peak p_S (mean over seeds)": "Circle networks' peak generalization (mean over "
                                         "seeds)",
    "Proposition 1 optimum p_S": "Proposition 1's optimum generalization",
    "segment peak p_S": "Segment networks' peak generalization",
    "segment linear-decay optimum p_S": "The segment's linear-decay law, optimum "
                                        "generalization",
    "mean distance to Proposition 1 after the peak": "Mean distance to Proposition 1's curve "
                                                     "after the peak",
    "reconstruction p_I (final)": "Reconstruction networks' final identification",
    "Theorem 2 p_I = 1/(1 + Delta)": "Theorem 2's identification, 1/(1 + Δ)",
}


def publish(report, cfg: ToySettings, history: ToyHistory, trajectories: pd.DataFrame,
            found: ToyAnalysis, statuses: dict, p_star: float, seg_peak: float) -> None:
    """Glue the chapter's measurements and verdict sentences, save the table of headline
    quantities and glue it (``ch3_quantities``, rows labelled in words, for a dropdown), place
    each condition on the overview figure. ``statuses`` are :func:`.verdicts.record`'s."""
    cond = np.array(history.conditions)
    n_epochs = history.p_s.shape[1]
    rec, peaks, after = found.rec, found.peaks, found.after
    circ = cond == "circle"
    stimuli = {"stimuli": cfg.n_stimuli}
    peak_m = verdicts.peak_margin(p_star)[0]
    short_m = verdicts.shortfall_margin(found.disc_short)[0]
    size = found.linear_size
    report.text("peak_verdict", peak_verdict(statuses["peak"], found.peak_ci, p_star,
                                             found.disc_peak, cfg.n_stimuli, peak_m),
                cites={**against_numbers(found.peak_ci, p_star, peak_m), **stimuli,
                       "disc_peak": found.disc_peak})
    report.text("short_verdict", shortfall_verdict(statuses["short"], found.short_ci,
                                                   found.disc_short, p_star - seg_peak,
                                                   cfg.n_stimuli, short_m, size),
                cites={**against_numbers(found.short_ci, found.disc_short, short_m), **stimuli,
                       "mean": found.short_ci["mean"], "disc_short": found.disc_short,
                       "continuum_short": p_star - seg_peak, **misfit_numbers(size)})
    gap = rec["ci"]["mean"] - rec["predicted"]
    report.text("rec_verdict", reconstruction_verdict(statuses["rec"], rec["ci"],
                                                      rec["predicted"], rec["gap_mid"],
                                                      rec["mid"], rec["jensen"]),
                cites={**against_numbers(rec["ci"], rec["predicted"], rec["jensen"]),
                       "one": 1, "gap_mid": rec["gap_mid"], "mid": rec["mid"],
                       "jensen": rec["jensen"], "rest": gap - rec["jensen"]})
    report.text("replicates", replicates_sentence(cfg.seeds))
    for key, sentence in position_sentences(
            statuses["nearer"],
            found.d_prop[after].mean() < found.d_disc[after].mean()).items():
        report.text(key, sentence)
    for key, value in {
            "late_dist": found.d_prop[after].mean(), "late_dist_max": found.d_prop[after].max(),
            "late_dist_discrete": found.d_disc[after].mean(),
            "peak_epoch": np.median(found.held["circle"][1]),
            "eps_at_peak": found.eps_at_peak.mean(), "peak_ps": peaks["circle"].mean(),
            "peak_ps_sd": peaks["circle"].std(ddof=1) if cfg.seeds > 1 else 0.0,
            "peak_ps_seg": peaks["segment"].mean(), "peak_se": found.peak_ci["se"],
            "peak_ps_raw": found.raw_peaks["circle"].mean(), "peak_smooth": found.smooth,
            "disc_short": found.disc_short, "jensen": rec["jensen"], "rec_gap": rec["gap"],
            "rec_gap_mid": rec["gap_mid"], "gof_rows": int(trajectories.gof_tested.sum()),
            "gof_misfits": int(trajectories.misfit.sum())}.items():
        report.number(key, value)
    report.number("shortfall", found.short.mean())
    report.number("shortfall_se", found.short_ci["se"])
    report.number("discrete_peak", found.disc_s.max())
    report.number("fit_err_s", np.abs(found.fit_s - history.p_s[circ])[after].mean())
    report.number("fit_err_i", np.abs(found.fit_i - history.p_i[circ])[after].mean())
    for c in ("circle", "segment"):
        report.number(f"own_gap_s_{c}", found.own_gap[c]["s"])
        report.number(f"own_gap_i_{c}", found.own_gap[c]["i"])
        report.number(f"own_gap_s_early_{c}", found.own_gap[c]["s_early"])
    report.number("delta_rec", rec["delta"])
    report.number("rec_pi", rec["ci"]["mean"])
    report.number("rec_ps", rec["p_s"])
    report.number("rec_pred_pi", rec["predicted"])
    for key, sentence in gof_sentences(trajectories, size).items():  # MyST: they name columns
        report.text(key, sentence, markdown=key != "eps_peak_caveat")
    quantities = pd.DataFrame({
        "quantity": ["circle peak p_S (mean over seeds)", "Proposition 1 optimum p_S",
                     "segment peak p_S", "segment linear-decay optimum p_S",
                     "mean distance to Proposition 1 after the peak",
                     "reconstruction p_I (final)", "Theorem 2 p_I = 1/(1 + Delta)"],
        "value": [peaks["circle"].mean(), p_star, peaks["segment"].mean(), seg_peak,
                  found.d_prop[after].mean(), rec["ci"]["mean"], rec["predicted"]],
    })
    report.table(quantities, "quantities")
    for c in CONDITIONS:  # the overview figure: each condition at its peak (or last) epoch
        m = cond == c
        at = found.held[c][1] if c != "reconstruction" else np.full(m.sum(), n_epochs - 1)
        pi_, ps_ = history.p_i[m, at], history.p_s[m, at]
        se_i, se_s = ((x.std(ddof=1) / np.sqrt(m.sum()) if m.sum() > 1 else None)
                      for x in (pi_, ps_))
        report.point(f"toy ReLU net, {c} "
                     f"({'peak p_S' if c != 'reconstruction' else 'last epoch'})",
                     pi_.mean(), ps_.mean(), se_i, se_s)
    shown = quantities.assign(quantity=[QUANTITY_LABELS.get(q, q) for q in quantities.quantity])
    glue(report.prefix + "quantities",
         tables.table(shown.set_index("quantity").rename_axis(None)), display=False)


def publish_figures(report, cfg: ToySettings, history: ToyHistory, found: ToyAnalysis,
                    segment_law, p_star: float, b_star: float, seg_eps_star: float) -> None:
    """Glue the chapter's three figures (``ch3-fig-trajectories``, ``-similarity``, ``-eps``)
    and the floor above which a profile's ε is not drawn."""
    report.figure("trajectories", page_figures.fig_trajectories(
        history, found.own, (found.disc_s, found.disc_i), found.rec["delta"], segment_law,
        p_star))
    report.figure("similarity", page_figures.fig_similarity(history))
    report.number("flat_delta", cfg.flat_delta)
    report.figure("eps", page_figures.fig_resolution(history, b_star / 2, seg_eps_star,
                                                cfg.flat_delta))


def lead(rows) -> str:
    """The box's first sentences: where the networks' best generalization lands between the
    constant similarity's optimum and Proposition 1's, as the peak's row judged it."""
    peak = find(rows, "toy ReLU net: circle peak p_S")
    if peak is None:
        return ""
    places = row_places(peak)
    optimum = fmt(peak["paper_value"], places=places)
    side = {"reproduced": f"within {fmt(peak['margin'], places=places)} of Proposition 1's "
                          f"optimum for a linear similarity, {optimum}, so nearer it than the "
                          f"constant similarity's {fmt(verdicts.CONSTANT_OPTIMUM)}",
            "differs": f"farther from Proposition 1's optimum for a linear similarity, "
                       f"{optimum}, than half the way to the constant similarity's "
                       f"{fmt(verdicts.CONSTANT_OPTIMUM)}"}.get(
        peak["status"], f"{peak['status']} against Proposition 1's optimum for a linear "
                        f"similarity, {optimum}")
    return (f"Small ReLU networks trained on the similarity test learn a similarity that decays "
            f"with distance. At their best they generalise with $p_S$ = {measured(peak)}: "
            f"{side}.")


def close(report, cfg: ToySettings, config: ToyConfig, history: ToyHistory, profile: str,
          seed: int) -> None:
    """List how this build differs from the paper's protocol, save the result tables and
    glue the result box."""
    report.deviations(
        cfg, SETTINGS.paper,
        f"the reconstruction condition trains with λ_rec = {config.lambda_rec:g} and "
        "λ_sim = 0 (the paper gives no λ_rec for it)",
        "the learning rate is constant (the original trainer also carried a plateau "
        f"scheduler); an epoch is {config.steps_per_epoch} whole batches of "
        f"{config.batch_size} trials",
        "the three conditions share each seed's initial weights and trials (paired runs)",
        "evaluation is exact over every trial at every epoch, not on sampled trials, and ties "
        "between equally near references are split by the Luce rule in the loss too")
    report.save()
    report.box(f"profile `{profile}`, seed {seed}; "
               f"{len(history.conditions)} toy ReLU networks (three conditions × {cfg.seeds} "
               f"seeds), {history.p_s.shape[1]} epochs each",
               lead=lead(report.rows), lead_cites={"constant": verdicts.CONSTANT_OPTIMUM})
