"""Chapter 4's page: what α did in words, the numbers, tables and figures it glues, and its
result box, so that the chapter calls a few functions and holds no bookkeeping."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd
from scipy.stats import norm as normal
from scipy.stats import t as student

from semres.report import GOOD, find, mathify, measured, prose, tables

from . import page_figures
from .alpha_effects import MATCHED_COLUMNS, compared_alphas, effect_row, peak_points
from .phylo import PhyloData
from .settings import SETTINGS, PhylogenySettings
from .verdicts import CLAIMS, family_ci, seed_spread, shown_intervals, traded

# ---------------------------------------------------------------- sentences

#: the effects the verdict in words describes (:func:`alpha_verdict`)
VERDICT_COLUMNS = ("sim_accuracy", "id_auc", "p_s_matched", "final_val_accuracy", "mean_p_i")


def detectable_change(r) -> float:
    """The change an effect's Welch interval detects four times in five (80 % power at a
    two-sided 5 %), so that "no detectable change" says how large a change would have been."""
    return float((student.ppf(0.975, r.df) + student.ppf(0.8, r.df)) * r.se)


def _interval(r) -> tuple[float, float]:
    """The interval the page shows of an effect row: the family's for a claim
    (:func:`.verdicts.shown_intervals`), else its 95% interval read alone."""
    if "interval_low" in r.index and np.isfinite(r.interval_low):
        return float(r.interval_low), float(r.interval_high)
    return float(r.ci_low), float(r.ci_high)


def _margin(r) -> float:
    return float(r.margin) if "margin" in r.index else float(seed_spread(r))


def effect_numbers(effects: pd.DataFrame, column: str, alpha_to) -> dict:
    """The numbers :func:`describe_effect` quotes of one effect ({} when not measured)."""
    r = effect_row(effects, column, alpha_to)
    if r is None:
        return {}
    low, high = _interval(r) if np.isfinite(r.se) else (r.ci_low, r.ci_high)
    numbers = {"effect": r.effect, "ci_low": low, "ci_high": high, "p_i": r.p_i}
    if np.isfinite(r.se):
        numbers["detectable"] = detectable_change(r)
        numbers["margin"] = _margin(r)
    return {f"{column}_{alpha_to:g}_{k}": v for k, v in numbers.items()}


def describe_effect(effects: pd.DataFrame, column: str, alpha_to) -> str:
    """An effect in words, its interval (the family's for a claim) against its practical
    margin (:func:`.verdicts.shown_intervals`; the spread between seeds where the effects
    carry none): it rises or falls when the
    interval lies beyond the margin, changes by less than the margin when the interval lies
    within it (two one-sided tests), and otherwise the build cannot tell, with the change its
    test would have detected; with one seed there is no interval to say so."""
    r = effect_row(effects, column, alpha_to)
    if r is None:
        return "not measured"
    if not np.isfinite(r.se):
        return f"changes by {r.effect:+.3f} (one seed: no interval)"
    low, high = _interval(r)
    m = _margin(r)
    which = ("95% interval for the family of claims" if "interval" in r.index
             and str(r.interval).startswith("family") else "95% interval")
    said = f"{r.effect:+.3f}, {which} [{low:+.3f}, {high:+.3f}]"
    if low > m or high < -m:
        move = "rises" if low > m else "falls"
        return f"{move} by more than its practical margin, ±{m:.3f} ({said})"
    if -m <= low and high <= m:
        return f"changes by less than its practical margin, ±{m:.3f} ({said})"
    power = detectable_change(r)
    return (f"cannot be told apart from a change within its practical margin, ±{m:.3f} "
            f"({said}; a change of ±{power:.3f} would have been detected four times in five)")


def alpha_verdict(effects: pd.DataFrame, by_alpha: pd.DataFrame, replicates: int) -> str:
    """What this build says of α: whether raising it traded identification for generalization
    with the cross-entropy on, only at α = 1, or not at all; then p_S at matched identification
    and p_I at equal ε-quantiles. One seed per α draws no conclusion."""
    alpha_lo, alpha_ce, alpha_one = compared_alphas(by_alpha.alpha.unique())

    def describe(column, alpha_to):
        return describe_effect(effects, column, alpha_to)

    if replicates < 2:
        return ("with one seed per α this build has no standard errors, so it draws no "
                "conclusion about α (the quick profile is a smoke test; the default profile "
                "is the result)")
    if alpha_ce is not None and traded(effects, alpha_ce):
        verdict = (f"raising α from {alpha_lo:g} to {alpha_ce:g}, with the classifier still "
                   "trained, traded identification for generalization: the triplet accuracy "
                   f"{describe('sim_accuracy', alpha_ce)} and the identification AUC "
                   f"{describe('id_auc', alpha_ce)}")
    elif alpha_one is not None and traded(effects, alpha_one):
        verdict = (f"the trade appears only at α = 1, where the cross-entropy is off "
                   f"(validation accuracy "
                   f"{by_alpha.loc[by_alpha.alpha == 1.0, 'final_val_accuracy'].mean():.3f}): "
                   f"up to α = {alpha_ce:g} the triplet accuracy "
                   f"{describe('sim_accuracy', alpha_ce)} and the identification AUC "
                   f"{describe('id_auc', alpha_ce)}")
    else:
        verdict = ("this build shows no trade of identification for generalization beyond "
                   "the practical margins between the α values it ran (see the effects below)")
    if alpha_ce is None:
        return verdict
    matched = effect_row(effects, "p_s_matched", alpha_ce)
    if matched is not None:
        verdict += (f". At matched identification (p_I = {matched.p_i:.3f}, read off each "
                    f"model's ε-sweep), p_S {describe('p_s_matched', alpha_ce)} from "
                    f"α = {alpha_lo:g} to {alpha_ce:g}, while the identification AUC "
                    f"{describe('id_auc', alpha_ce)} and the classifier's validation accuracy "
                    f"{describe('final_val_accuracy', alpha_ce)}")
    else:
        verdict += ("; the models of the two α values share no p_I on their ε-sweeps, so p_S "
                    "is not compared at matched identification")
    verdict += (f"; at equal ε-quantiles p_I {describe('mean_p_i', alpha_ce)} up to "
                f"α = {alpha_ce:g}")
    if alpha_one is not None:
        verdict += f" and {describe('mean_p_i', alpha_one)} at α = 1"
    return verdict


def alpha_verdict_numbers(effects: pd.DataFrame, by_alpha: pd.DataFrame) -> dict:
    """The numbers :func:`alpha_verdict` may quote: the compared α values, the validation
    accuracy at α = 1 and each described effect (:func:`effect_numbers`)."""
    alpha_lo, alpha_ce, alpha_one = compared_alphas(by_alpha.alpha.unique())
    numbers = {"alpha_lo": alpha_lo, "alpha_ce": alpha_ce, "alpha_one": alpha_one,
               "val_accuracy_one": by_alpha.loc[by_alpha.alpha == 1.0,
                                                "final_val_accuracy"].mean()}
    for alpha_to in (alpha_ce, alpha_one):
        for column in VERDICT_COLUMNS if alpha_to is not None else ():
            numbers.update(effect_numbers(effects, column, alpha_to))
    return numbers


def effects_display(effects: pd.DataFrame, alpha_lo: float) -> pd.DataFrame:
    """The effects for readers: one row per measure, one column per compared α, each cell the
    change with the interval the page gives it (:func:`.verdicts.shown_intervals`: a dagger
    marks the family's interval of a claim, the one the result box judges) and a star where
    the interval lies beyond its practical margin."""
    def cell(r):
        if not np.isfinite(r.se):
            return f"{r.effect:+.3f}"
        low, high = _interval(r)
        m = _margin(r)
        family = "interval" in r.index and str(r.interval).startswith("family")
        return (f"{r.effect:+.3f} [{low:+.3f}, {high:+.3f}]" + (" †" if family else "")
                + (" *" if low > m or high < -m else ""))

    shown = effects.assign(cell=effects.apply(cell, axis=1)).pivot_table(
        index="measure", columns="alpha_to", values="cell", aggfunc="first", sort=False)
    shown.columns = [f"Change from α = {alpha_lo:g} to {a:g}" for a in shown.columns]
    return shown.reset_index()


def welch_words(effects: pd.DataFrame, replicates: int) -> str:
    """How wide a Welch interval over this many seeds is, in standard errors, and how the
    table's intervals are to be read (each alone: exploratory)."""
    if not effects.t.notna().any():
        return "with one seed per α there is no interval"
    return (f"with {replicates} seeds a side, a median of {effects.df.median():.1f} degrees of "
            f"freedom, so an interval spans ± {effects.t.median():.1f} standard errors, not ± 2; "
            f"the table's intervals are exploratory, each read alone, except those of the "
            f"result box's claims, marked †, which are widened for their family (Bonferroni) "
            "and are the same intervals the box gives")


def welch_numbers(effects: pd.DataFrame, replicates: int) -> dict:
    """The numbers :func:`welch_words` quotes ("not ± 2" is the normal 95 % quantile,
    rounded)."""
    return {"replicates": replicates, "df": effects.df.median(), "t": effects.t.median(),
            "intervals": len(effects), "normal": normal.ppf(0.975)}


def matched_numbers(curve, pi_star: float) -> dict:
    """The numbers :func:`matched_words` quotes."""
    if curve.empty:
        return {}
    lo, hi = curve.iloc[curve.effect.argmin()], curve.iloc[curve.effect.argmax()]
    return {"p_i_min": curve.p_i.min(), "p_i_max": curve.p_i.max(), "low": lo.effect,
            "low_at": lo.p_i, "high": hi.effect, "high_at": hi.p_i, "pi_star": pi_star}


def matched_words(curve, pi_star: float) -> str:
    """How the matched-p_I effect moves across the matching range, in one clause."""
    if curve.empty:
        return "the models share no range of p_I to match them over"
    lo, hi = curve.iloc[curve.effect.argmin()], curve.iloc[curve.effect.argmax()]
    return (f"across the p_I both reach ({curve.p_i.min():.2f}–{curve.p_i.max():.2f}) the "
            f"effect runs from {lo.effect:+.3f} (at {lo.p_i:.2f}) to {hi.effect:+.3f} (at "
            f"{hi.p_i:.2f}); the headline reads it at {pi_star:.2f}, the baseline's peak, "
            "fixed before looking")


def replicates_sentence(replicates: int, real: bool) -> str:
    """What the chapter's replicates vary, and what they share."""
    seeds = f"{replicates:,} seed" + ("" if replicates == 1 else "s")
    return (f"The {seeds} per α vary the initial weights, the order of the batches and which "
            "images of the held-out species are probed; every seed shares one "
            + ("tree and one image set (CUB-200-2011)" if real else
               "simulated tree, one set of rendered images")
            + " and one split, so the intervals measure training noise on this data set, not "
            "how a new tree or a new draw of images would move the effects.")


def run_sentences(results, seconds: float, train_seconds: float) -> dict:
    """How the runs were obtained, in words: ``at_once`` (stacked, or each alone) and
    ``run_source`` (trained now or loaded from the cache: loading takes less than half the
    training time the runs record)."""
    at_once = max(r["trained_with"] for r in results)
    return {
        "at_once": "each network on its own on one core, side by side where more cores were "
                   "free" if at_once == 1 else f"{at_once} at once, as one network "
                   "mapped over their stacked weights with `torch.func.vmap`",
        "run_source": "were loaded from the cache of an earlier build with the same code and "
                      "settings" if seconds < 0.5 * train_seconds else "were trained in this build",
    }


def deviation_lines(data, cfg: PhylogenySettings, *, cub_dir=None, newick=None,
                    model=None) -> tuple:
    """The data and the model of this build against the paper's (CUB-200-2011 and an
    ImageNet-pretrained ResNet-50); an empty line where they agree."""
    if cub_dir is not None:
        data_line = (f"data: CUB-200-2011 from `{cub_dir}` with the tree `{newick}`, "
                     f"{data.n_species} species at {data.images.shape[1]} px")
    else:
        data_line = (f"data: a simulated tree of {data.n_species} species and "
                     f"{len(data.images)} rendered images of {data.images.shape[1]} px, "
                     "instead of CUB-200-2011 and a bird phylogeny")
    if model is None:
        model_line = (f"model: a ResNet with widths {', '.join(map(str, cfg.widths))} and "
                      f"depths {', '.join(map(str, cfg.depths))}, trained from scratch, "
                      "instead of an ImageNet-pretrained ResNet-50")
    else:
        model_line = ("" if model == "microsoft/resnet-50" else
                      f"model: `{model}` instead of an ImageNet-pretrained ResNet-50")
    return data_line, model_line


# ---------------------------------------------------------------- what the chapter publishes


def publish_opening(report, cfg: PhylogenySettings) -> None:
    """Glue the design's size: seeds per α, epochs and the number of α values."""
    for key, value in {"replicates": cfg.replicates, "epochs": cfg.epochs,
                       "n_alphas": len(cfg.alphas)}.items():
        report.number(key, value)


def theorem_table(report, cfg: PhylogenySettings, check: pd.DataFrame, max_z: float,
                  gap: float):
    """Save and glue the check of the theorem on a tree (its largest gap to the exact sum, its
    largest Monte Carlo |z|, its size and the tie probability); the table for the page."""
    report.table(check, "theorem_on_tree")
    report.small("check_gap", gap)
    for key, value in {"check_maxz": max_z, "check_cells": len(check),
                       "check_trials": cfg.mc_trials,
                       "check_tau": check.mean_tau.iloc[0]}.items():
        report.number(key, value)
    return tables.table(check[["eps", "mean_b", "var_b", "mean_tau", "p_s_theorem", "p_s_exact",
                              "p_s_mc", "z_s", "p_i_theorem", "p_i_exact", "p_i_mc", "z_i",
                              "p_s_untied"]], z_s="{:+.2f}", z_i="{:+.2f}",
                        headers={"mean_tau": "Tie probability ⟨τ⟩"})


def publish_data(report, data: PhyloData) -> None:
    """Glue the data set's size and splits, and the figure of its tree and images."""
    split_sizes = {k: len(v) for k, v in data.split.items()}
    for key, value in {"n_species": data.n_species, "n_images": len(data.images),
                       "image_size": data.images.shape[1],
                       "n_ood_species": len(np.unique(data.species[data.split["ood"]])),
                       **{f"split_{k}": v for k, v in split_sizes.items()}}.items():
        report.number(key, value)
    report.figure("data", page_figures.fig_tree_gallery(data))


def publish_runs(report, cfg: PhylogenySettings, results, tradeoff: pd.DataFrame,
                 by_alpha: pd.DataFrame, seconds: float, real: bool) -> str:
    """Save the runs' tables (``tradeoff``, ``by_alpha``: :func:`.alpha_effects.result_tables`),
    glue how the runs were obtained (trained or loaded, stacked or not, their time) and what
    the replicates vary; returns that sentence (the result box repeats it)."""
    for name, table in (("tradeoff", tradeoff), ("by_alpha", by_alpha)):
        report.table(table, name)
    report.text("widths", ", ".join(map(str, cfg.widths)),
                cites={f"width_{k}": w for k, w in enumerate(cfg.widths)})
    train_seconds = by_alpha.train_seconds.sum()
    said = {"at_once": {"at_once": max(r["trained_with"] for r in results)},
            "run_source": {"seconds": seconds, "train_seconds": train_seconds}}
    for key, sentence in run_sentences(results, seconds, train_seconds).items():
        report.text(key, sentence, cites=said[key])
    for key, value in {"run_seconds": by_alpha.train_seconds.mean(),
                       "n_runs": len(results)}.items():
        report.number(key, value)
    replicates_vary = replicates_sentence(cfg.replicates, real)
    report.text("replicates_vary", replicates_vary, cites={"replicates": cfg.replicates})
    return replicates_vary


def publish_effects(report, cfg: PhylogenySettings, effects: pd.DataFrame,
                    by_alpha: pd.DataFrame, curve: pd.DataFrame | None):
    """Save and glue the effects of α and the verdict in words, with the matched effect across
    the matching range (``curve``, :func:`.alpha_effects.matched_curve`; None where no matched
    comparison was possible); returns the effects table for the page."""
    alpha_lo, alpha_ce, _ = compared_alphas(by_alpha.alpha.unique())
    effects = shown_intervals(effects, alpha_ce)  # one effect, one interval on the page
    report.table(effects, "effects")
    report.text("welch_words", welch_words(effects, cfg.replicates),
                cites=welch_numbers(effects, cfg.replicates))
    report.text("verdict", alpha_verdict(effects, by_alpha, cfg.replicates),
                cites=alpha_verdict_numbers(effects, by_alpha))
    if curve is not None:
        report.table(curve[MATCHED_COLUMNS], "matched_curve")
        pi_star = effects[effects.column == "p_s_matched"].p_i.iloc[0]
        report.text("matched_words", matched_words(curve, pi_star),
                    cites=matched_numbers(curve, pi_star))
    else:
        report.text("matched_words", "no matched comparison was possible in this build",
                    cites={})
    report.number("alpha_min", alpha_lo)
    report.number("alpha_ce", alpha_ce if alpha_ce is not None else float("nan"))
    return effects_display(effects, alpha_lo).style.hide(axis="index")


def runs_table(by_alpha: pd.DataFrame):
    """Every run's summaries, for the page."""
    return tables.table(by_alpha.drop(columns=["train_seconds"]), decimals=3, alpha="{:g}")


def matched_band(curve: pd.DataFrame | None, effects: pd.DataFrame, alpha_ce):
    """The matched effect across its matching points with the interval the result box gives
    its claims (:func:`.verdicts.family_ci` for the family of :data:`.verdicts.CLAIMS`:
    columns ``family_low``, ``family_high``), and the headline's point on it (p_I, effect,
    low, high; NaN interval with one seed); (None, None) without a matched comparison."""
    if curve is None or not len(curve):
        return None, None
    band = [family_ci(r, len(CLAIMS)) for r in curve.itertuples()]
    matched = curve.assign(family_low=[lo for lo, _ in band], family_high=[hi for _, hi in band])
    r = effect_row(effects, "p_s_matched", alpha_ce)
    if r is None:
        return matched, None
    low, high = family_ci(r, len(CLAIMS)) if np.isfinite(r.se) else (np.nan, np.nan)
    return matched, (r.p_i, r.effect, low, high)


def publish_tradeoff(report, tradeoff: pd.DataFrame, effects: pd.DataFrame,
                     curve: pd.DataFrame | None) -> None:
    """Glue the tradeoff figure, with the matched effect across its matching points and the
    headline's point on it in a second panel when there is a matched comparison, and how far
    each model falls short of what its own ball profile allows."""
    alphas = sorted(tradeoff.alpha.unique())
    alpha_lo, alpha_ce, _ = compared_alphas(alphas)
    matched, headline = matched_band(curve, effects, alpha_ce)
    report.figure("tradeoff", page_figures.fig_tradeoff(tradeoff, matched, headline,
                                                   (alpha_lo, alpha_ce), len(CLAIMS)))
    # the best p_S each model's own ball profile allows, against the best it reaches
    best = tradeoff.groupby(["alpha", "seed"]).p_s.max().groupby("alpha").mean()
    best_theory = tradeoff.groupby(["alpha", "seed"]).p_s_theory.max().groupby("alpha").mean()
    for key, value in {"gap_a0": best_theory.iloc[0] - best.iloc[0],
                       "gap_a1": best_theory.iloc[-1] - best.iloc[-1], "alpha_max": alphas[-1],
                       "refs_gap": (tradeoff.p_s - tradeoff.p_s_all).abs().max()}.items():
        report.number(key, value)


def publish_summaries(report, by_alpha: pd.DataFrame) -> None:
    """Glue the figure of the threshold-free summaries against α."""
    report.figure("summaries", page_figures.fig_summaries(by_alpha))


def close(report, cfg: PhylogenySettings, data: PhyloData, tradeoff: pd.DataFrame,
          replicates_vary: str, ran: str, *, cub_dir=None, newick=None, model=None) -> None:
    """Place each α on the book's overview (at the ε where its mean p_S peaks), list how this
    build differs from the paper's protocol, save the result tables and glue the result box
    (``ran``: the profile, seed and device)."""
    for point in peak_points(tradeoff):
        report.point(*point)
    data_line, model_line = deviation_lines(data, cfg, cub_dir=cub_dir, newick=newick,
                                            model=model)
    report.deviations(None, None, data_line, model_line)
    report.deviations(
        cfg, SETTINGS.paper,
        "the similarity test asks only untied triplets, with ties in the tree handled by the "
        "Luce rule ({prf:ref}`thm-two-item-discrete`)",
        "$p_S$ and $p_I$ are exact expectations over every triplet of the test images, not "
        "samples",
        "identification uses a new image of the chosen species, so a model's $p_I$ can fall "
        "short of the theory's copy-based $1 - \\langle b\\rangle/2$ when same-species images "
        "lie far apart in its embedding",
        "the theory overlay uses the ball measures of the embedding, where ε acts (see "
        "{ref}`original-code-units`), and only test images enter the tests (see "
        "{ref}`original-code-leakage`)")
    report.save()  # summary.csv and front.csv for the book's overview page
    report.box(f"{ran}; " + "; ".join(line for line in (data_line, model_line) if line),
               lead=lead(report.rows))


def lead(rows) -> str:
    """The box's first sentences: each claim of the paper's α experiment, its change with its
    interval and its status, in one sentence."""
    said = []
    for _, measure, claim in CLAIMS:
        row = find(rows, f"ResNet: {measure} change")
        if row is None or row["status"] == "not run":
            continue
        said.append(f"{measure} changes by {measured(row)} ({row['status']}: the paper says "
                    f"the loss {claim})")
    if not said:
        theorem = find(rows, "Theorem 4")
        return ((f"On the species of a simulated tree, the two-item law with ties "
                 f"{'holds' if theorem['status'] in GOOD else theorem['status']}. "
                 if theorem is not None else "")
                + "This build measured none of the paper's claims about the loss: each is "
                "marked not run, with the reason, below.")
    alpha = find(rows, "ResNet:")["result"].split(", ", 1)[-1]
    return (f"Weighting the tree's distances more in the loss ({prose(alpha)}): "
            + "; ".join(mathify(s) for s in said)
            + " (95% intervals corrected for the family of claims).")


def publish_names(report, cfg: PhylogenySettings) -> None:
    """Glue the probe cap on CUB and how many classes of the shipped names table are marked
    low or medium confidence."""
    names = pd.read_csv(resources.files("semres") / "data/cub_scientific_names.csv")
    for key, value in {"max_probes": cfg.max_probes,
                       "names_low": (names.confidence == "low").sum(),
                       "names_medium": (names.confidence == "medium").sum()}.items():
        report.number(key, value)
