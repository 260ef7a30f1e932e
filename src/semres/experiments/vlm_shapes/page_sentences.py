"""Chapter 6's sentences: what the page says about each fit, radius and verdict, written from
the numbers the science modules return and the rules of :mod:`.verdicts`."""

from __future__ import annotations

import numpy as np

from semres.core import fits, theory
from semres.report.verdicts import gof_pvalue
from semres.report import numbers
from semres.report.numbers import carried, pooled
from semres.experiments import released
from semres.report import fmt, plural

from . import authors, verdicts
from .nsweep import radii_difference
from .settings import AUTHORS, TASKS
from .verdicts import MISFIT


def ran_lines(cfg, profile: str, seed: int, model, device, shipped, paths,
              results_df) -> list:
    """What ran in this build, one line each."""
    return [
        f"profile **{profile}**, seed {seed}",
        "model: " + (f"a tiny LLaVA trained here on `{device}` "
                     f"({cfg.vision_steps} vision-stage and {cfg.steps} language-stage "
                     "steps)" if model is None else f"`{model}`, scored on `{device}`"),
        f"accuracy map on a {cfg.grid} × {cfg.grid} grid of X positions, "
        f"{cfg.fit_scenes} random four-shape scenes for the fits "
        f"({cfg.boot} least-squares and {cfg.choice_boot} likelihood bootstrap resamples)",
        f"both tasks at n = {', '.join(map(str, cfg.sweep_n))} "
        f"({cfg.sweep_scenes} scenes each)",
        ("the paper's models from the shipped count tables (" + ", ".join(shipped) + ")"
         if shipped else "no shipped tables of the paper's models"),
        (f"per-trial results from {len(paths)} path(s): {len(results_df)} trials of "
         + ", ".join(sorted(set(results_df['model']))) if paths else
         "no per-trial result files (`results=` not given)")]


def ran_numbers(cfg, seed: int, model, device, paths, results_df) -> dict:
    """What :func:`ran_lines` quotes: the settings, the seed, the files given and the names of
    the model and the device."""
    return {**{k: getattr(cfg, k) for k in ("vision_steps", "steps", "grid", "fit_scenes",
                                            "boot", "choice_boot", "sweep_scenes")},
            **{f"n{k}": n for k, n in enumerate(cfg.sweep_n)}, "seed": seed,
            "paths": len(paths or ()), "trials": 0 if results_df is None else len(results_df),
            **carried(model or "", device,
                      *(() if results_df is None else sorted(set(results_df["model"]))))}


def deviation_notes(cfg, model, canvas_px: int, shipped) -> tuple[list, list]:
    """How this build differs from the paper: what the model and the map are (``model``), and
    what the protocol adds or changes beside the settings (``protocol``)."""
    paper_px = AUTHORS["canvas_px"]
    model_lines = [
        "The model is a small LLaVA trained here on rendered scenes (a supervised vision stage "
        "stands in for CLIP pretraining), not Qwen2.5-VL or Gemma-3; its canvas is "
        f"{canvas_px} px, not {paper_px} px." if model is None else
        f"The model is `{model}` on a {canvas_px} px canvas (the paper: {paper_px} px).",
        f"The accuracy map puts the X on a {cfg.grid} × {cfg.grid} grid over a fixed "
        "layout of this book's (shapes inside the canvas), not at 400 random positions over the "
        "authors' corner layout; the scale is fitted on separate four-shape scenes with random "
        "layouts."]
    protocol = [
        "Answers are scored by the options' log-probabilities normalised over the shapes on the "
        "canvas (a Luce probability; nothing generated or parsed); the original parsed "
        "generated text and, as released, processed only five images per model (a guard meant "
        "to be removed).",
        f"Beyond the paper: both tasks at n = {', '.join(map(str, cfg.sweep_n))} "
        f"({cfg.sweep_scenes} scenes each), identification with the X on a shape, and a "
        "response-bias term in every fit.",
        "The paper's models are fitted from shipped grid counts (each X at its cell's mean), "
        "not from their per-trial positions; pass the authors' files as `results=` for those."
        if "spatial_grid" in shipped else ""]
    return model_lines, protocol


def size_words(f: dict) -> str:
    """How far a misfit misses, in words (:func:`semres.core.fits.misfit_size`): its
    dispersion, the deviance it explains against no similarity and against the saturated
    model, and its RMS gap beside sampling's. Empty without the size."""
    size = verdicts.fit_size(f)
    if not size:
        return ""
    return (f"deviance {size['dispersion']:.2f} times its mean under the fit, "
            f"{size['explained_null']:.0%} of no similarity's deviance explained "
            f"({size['explained_saturated']:.0%} of the structure beyond sampling), cell "
            f"accuracy off by {size['rms_gap']:.3f} root-mean-square against "
            f"{size['rms_sampling']:.3f} from sampling alone")


def size_numbers(f: dict) -> dict:
    """What :func:`size_words` quotes (the shares as percentages too)."""
    size = verdicts.fit_size(f)
    return {**size, **{f"{k}_pct": 100 * size[k] for k in ("explained_null",
                                                             "explained_saturated")
                       if k in size}}


def radius_text(task: str, f: dict, px: float, unit: str = "px") -> str:
    """One task's Theorem 3 radius (a ball fit) in words, in ``unit`` (``px`` per unit of the
    fit)."""
    span = f"{fmt(f['ci_low'] * px)}–{fmt(f['ci_high'] * px)} {unit}"
    end = f["profile_eps"][-1]
    if f.get("misfit"):
        return (f"{task}: {MISFIT} (χ² = {f['gof_stat']:.1f} on {f['gof_df']:g} degrees of "
                f"freedom, {gof_pvalue(f)}" + (f"; {size_words(f)}" if size_words(f) else "")
                + f"); the radius is ε = {fmt(f['eps'] * px)} {unit} (approximate)")
    if f["identified"]:
        return (f"{task}: ε = {fmt(f['eps'] * px)} {unit} (95% set {span}"
                + ("" if f["one_interval"] else ", not one interval") + ")")
    if f["ci_low"] == 0 and f["ci_high"] < end:
        return (f"{task}: ε is only bounded above, at {fmt(f['ci_high'] * px)} {unit} "
                "(not identified)")
    if not f.get("inside", True):
        return (f"{task}: the 95% set {span} reaches the design's edge, where the scenes make "
                "the prediction flat (not identified)")
    if f["ci_high"] >= end and f["ci_low"] > 0:
        return (f"{task}: ε is only bounded below, at {fmt(f['ci_low'] * px)} {unit} "
                "(not identified)")
    return f"{task}: ε is not identified (every radius fits within the 95% level)"


def one_radius(label: str, fs: dict | None, fi: dict | None, px: float = 1.0,
               unit: str = "of the canvas") -> dict:
    """Is one Theorem 3 radius enough for both tasks? The comparison of
    :func:`semres.experiments.vlm_shapes.nsweep.radii_difference` with ``text``, its sentence
    (None without both fits)."""
    v = radii_difference(fs, fi)
    text = None
    if v["compared"] and not v["identified"]:
        text = (f"For {label}, Theorem 3 cannot test one resolution for both tasks: the "
                "radius is not identified by both.")
    elif v["identified"]:
        lo, hi = v["ci"]
        diff = (f"the radius of generalization minus that of identification is "
                f"{v['difference'] * px:+.3g} {unit} (95% profile interval "
                f"{lo * px:+.3g} to {hi * px:+.3g}; equal radii: likelihood ratio "
                f"{v['lr']:.2f}, {numbers.pvalue(v['p_equal'])})")
        margin = verdicts.SAME_SHARE * v["mean"] * px
        approx = (" (approximate: Theorem 3's ball kernel does not describe "
                  + " and ".join(v["bad"]) + ", so each profile is widened by its dispersion)"
                  if v["misfit"] else "")
        if lo * px > margin or hi * px < -margin:
            verdict = (f": the two tasks need radii further apart than the margin of "
                       f"±{margin:.3g} {unit}, so Theorem 3's prediction of one spatial "
                       "resolution for both does not hold")
        elif -margin <= lo * px and hi * px <= margin:
            verdict = (f": within the margin of ±{margin:.3g} {unit}, one resolution serves "
                       "both tasks")
        else:
            verdict = (f": the interval reaches across the margin of ±{margin:.3g} {unit}, so "
                       "this build cannot tell whether one resolution serves both")
        joint = v.get("joint")
        fit_words = ("" if not joint else
                     f" One radius fitted to both tasks: χ² = {joint['gof_stat']:.1f} on "
                     f"{joint['gof_df']:g} degrees of freedom, {gof_pvalue(joint)}"
                     + (f" ({size_words(joint)})" if joint.get("misfit") and size_words(joint)
                        else "") + ".")
        text = f"For {label}, {diff}{approx}{verdict}.{fit_words}"
    return {**v, "text": text}


def two_task_verdict(label: str, fitted: dict, result: str | None, statement: str | None,
                     px: float = 1.0, unit: str = "of the canvas"):
    """One resolution for both tasks? :func:`one_radius` on the two radius fits: a sentence
    (None without both fits), and the overview row ``result`` (keyword arguments of
    ``Report.result``, :func:`semres.experiments.vlm_shapes.verdicts.two_task_row`, or None)."""
    v = one_radius(label, fitted.get("similarity"), fitted.get("identification"), px, unit)
    row = verdicts.two_task_row(v, result, statement) if result and v["text"] else None
    return v["text"], row


def n_verdict(label: str, fitted: dict, unit: str, result: str | None = None,
              statement: str | None = None):
    """The two-task verdict of a model's p(n) with its radii in words, and its overview row
    (with ``result``)."""
    verdict, row = two_task_verdict(label, fitted, result, statement, unit=unit)
    if verdict:
        verdict += " Theorem 3's radius: " + "; ".join(
            radius_text(t, f, 1.0, unit) for t, f in fitted.items()) + "."
    return verdict, row


def scale_verdict(label: str, f, px: float, resolution: float, design_hi: float,
                  statement: str | None = None, agree=None, unit: str = "px",
                  stand_in: str = "", resolution_label: str = ""):
    """Whether the answers carry an identified spatial scale
    (:func:`semres.experiments.vlm_shapes.verdicts.scale_identification`), in words; with a
    ``statement``, also the overview row (:func:`~semres.experiments.vlm_shapes.verdicts.
    scale_row`, else None)."""
    ok, why = verdicts.scale_identification(f, resolution, design_hi, agree, px, unit)
    row = verdicts.scale_row(label, f, ok, why, px, statement, stand_in, resolution,
                             resolution_label) if statement else None
    fit_text = (f"{f['gof_test']} {f['gof_stat']:.1f} on {f['gof_df']:g} degrees of freedom, "
                f"{gof_pvalue(f)}")
    if f["misfit"]:
        (lo, hi), _ = verdicts.approximate_ci(f["scale"], f["scale_ci"], f, px)
        size = size_words(f)
        text = (f"For {label}, {MISFIT} exactly: the biased Luce rule's {fit_text}"
                + (f"; it misses by little: {size}" if size else "")
                + f". Its scale is λ = {fmt(f['scale'] * px)} {unit} (approximate: "
                f"{fmt(lo)}–{fmt(hi)} {unit}, the interval widened by the dispersion).")
    elif not ok:
        text = (f"{label}'s spatial scale is not identified: " + "; ".join(why)
                + f" (fit: {fit_text}; the scale's likelihood set "
                f"{fmt(f['profile_ci'][0] * px)}–{fmt(f['profile_ci'][1] * px)} {unit}, "
                f"{fmt(f['scale_no_floor'] * px)} {unit} without a floor).")
    else:
        text = (f"{label}'s spatial scale is identified: {fmt(f['scale'] * px)} {unit} "
                f"(likelihood set {fmt(f['profile_ci'][0] * px)}–{fmt(f['profile_ci'][1] * px)} "
                f"{unit}; {fit_text}).")
    return text, row


def choices_verdict(a: dict, statement: str | None = None):
    """:func:`scale_verdict` of a model's choices (what
    :func:`semres.experiments.vlm_shapes.authors.analyse_choices` returns)."""
    return scale_verdict(a["label"], a["fit"], a["px"], a["resolution"], a["design_hi"],
                         statement, resolution_label="the design's resolution "
                         f"({fmt(a['resolution'] * a['px'])} px: a grid cell or a pixel)")


def paper_models_summary(grid_fits: dict) -> tuple[str, dict]:
    """The paper's models in one plain sentence, before the fits in detail: for how many of
    them the biased Luce rule describes their shipped grid counts; and the numbers it quotes.
    Empty without grid fits."""
    if not grid_fits:
        return "", {}
    n = len(grid_fits)
    misfits = sum(bool(a["fit"].get("misfit")) for a in grid_fits.values())
    described = n - misfits
    text = (f"On their shipped grid counts the biased Luce rule describes {described or 'none'} "
            f"of the paper's {plural(n, 'model')} exactly"
            + (f": {misfits} {'fails' if misfits == 1 else 'fail'} its goodness-of-fit test, so "
               + ("its spatial scale is approximate" if misfits == 1 else
                  "their spatial scales are approximate") if misfits else "."))
    shares = [verdicts.fit_size(a["fit"]).get("explained_saturated") for a in grid_fits.values()
              if a["fit"].get("misfit")]
    shares = [x for x in shares if x is not None]
    cites = {"described": described, "models": n, "misfits": misfits}
    if misfits:
        text += ((f", yet the rule captures {min(shares):.0%} or more of the structure their "
                  "answers have beyond sampling noise." if len(shares) > 1 else
                  f", yet the rule captures {shares[0]:.0%} of the structure the answers have "
                  "beyond sampling noise.") if shares else ".")
        if shares:
            cites["share"] = round(min(shares), 2)  # as the sentence rounds it (79% is 0.79)
    return text, cites


def estimators_text(est: dict, agree: bool, px: float) -> str:
    """The three estimators' intervals (:func:`semres.experiments.vlm_shapes.luce.estimators`)
    and whether they overlap."""
    return "; ".join(f"{k} {fmt(v[0] * px)}–{fmt(v[1] * px)} px" for k, v in est.items()) + (
        ": their intervals overlap." if agree else ": their intervals do not overlap.")


def gof_words(g) -> str:
    """A fit's chi-square in words, and "misfit" when it is one."""
    return (f"χ² = {g['gof_stat']:.1f} on {g['gof_df']} df, {gof_pvalue(g)}"
            + (f": {MISFIT}" if g["misfit"] else ""))


def frontier_text(sim, ide) -> str:
    """Where the model's two-item point lies against chapter 7's universal front, and what
    that says of its kernel (:func:`semres.experiments.vlm_shapes.verdicts.front_side`: above
    by more than two standard errors is graded, without a floor)."""
    if not (2 in sim.index and ide.p[2] >= 0.5):
        return ("The sweep has no n = 2 with p_I ≥ 1/2, so the model is not placed against "
                "chapter 7's two-item front.")
    front_ps = float(theory.front(ide.p[2]))
    gap = float(sim.p[2] - front_ps)
    z = gap / max(float(sim.se[2]), 1e-9)
    side = verdicts.front_side(z)
    where = side if side != "within" else "within two standard errors of"
    return (f"At n = 2 the model's (p_I, p_S) = ({ide.p[2]:.3f}, {sim.p[2]:.3f}) lies {where} "
            f"chapter 7's universal two-item front (p_S = {front_ps:.3f} at that p_I; "
            f"{gap:+.3f}, {z:+.1f} standard errors). "
            + ("Chapter 7 proves a kernel with a floor cannot pass above the front and a graded "
               "kernel without a floor can: the model behaves as a graded similarity without a "
               "floor, which a constant (ball) kernel is not." if side == "above" else
               "A kernel with a floor stays on or below the front (chapter 7), so this does not "
               "separate the kernels."))


def sweep_glue(sweep, ball, graded, px: float) -> dict:
    """What the n-sweep section quotes: p_S and p_I at the smallest and largest n, the radii
    in words, the three kernels' goodness of fit, the chapter 7 placement and the biased Luce
    rule's root-mean-square miss."""
    sim, ide = (sweep[sweep.task == t].set_index("n") for t in TASKS)
    n_lo, n_hi = int(sweep.n.min()), int(sweep.n.max())
    rmse = {t: float(np.sqrt(np.mean((tab.p - tab.p_kernel) ** 2)))
            for t, tab in (("similarity", sim), ("identification", ide))}
    return {
        "ps_lo": sim.p[n_lo], "ps_hi": sim.p[n_hi], "pi_lo": ide.p[n_lo], "pi_hi": ide.p[n_hi],
        "n_lo": n_lo, "n_hi": n_hi,
        "kernels": "Three kernels against p(n): the step (Theorem 3's ball) — "
        + "; ".join(f"{t} {gof_words(ball[t])}" for t in TASKS)
        + "; the graded exponential without a floor — "
        + "; ".join(f"{t}, λ = {fmt(g['lam'] * px)} px, {gof_words(g)}"
                    for t, g in graded.items())
        + "; the biased Luce rule of the four-shape fit (not refitted) misses by the "
        "root-mean-square below.",
        "frontier": frontier_text(sim, ide),
        "radii": "; ".join(radius_text(t, ball[t], px) for t in TASKS) + ".",
        "kern_rmse_s": rmse["similarity"], "kern_rmse_i": rmse["identification"]}


def stencil_verdict(label: str, nc: dict, boot: int) -> str:
    """What a name-and-corner fit says of a model's biases on the random stencils: the
    spread of each set of weights, the correct-answer advantage, the goodness of fit, which
    bias dominates and whether the other is present too (an interval excludes 1/4)."""
    misfit = bool(nc["misfit"])
    top_n = released.SPATIAL_SHAPES[int(np.argmax(nc["name_weights"]))]
    top_p = released.CORNERS[int(np.argmax(nc["place_weights"]))]
    uniform = 1 / len(released.CORNERS)
    place_bias = verdicts.bias_present(nc["place_weights_ci"], uniform)
    name_bias = verdicts.bias_present(nc["name_weights_ci"], uniform)
    spread = {k: float(np.max(w) / np.min(w)) for k, w in (
        ("name", nc["name_weights"]), ("place", nc["place_weights"]))}
    main = max(spread, key=spread.get)
    return (f"On the random stencils, {label}'s answers weigh names and places: name weights "
            f"from {min(nc['name_weights']):.2f} to {max(nc['name_weights']):.2f} (highest "
            f"“{top_n}”), place weights from {min(nc['place_weights']):.2f} to "
            f"{max(nc['place_weights']):.2f} (highest {top_p.replace('_', '-')}), "
            f"correct-answer advantage {nc['advantage']:.2f} (95% {nc['advantage_ci'][0]:.2f}–"
            f"{nc['advantage_ci'][1]:.2f}); goodness of fit (parametric bootstrap, "
            f"{boot} datasets; misfit rule "
            f"{fits.misfit_rule(nc['gof_resolution'])}) {gof_pvalue(nc)}"
            + (" (no simulated deviance reached the observed one)"
               if verdicts.no_refit_reached(nc) else "")
            + (f": {MISFIT} — one advantage for every geometry is too coarse, and the weights "
               "are a description, not a measurement. " if misfit else ". ")
            + (f"The bias is mainly a bias for a {main} (weights span {spread[main]:.1f}×, "
               f"against {min(spread.values()):.1f}×)"
               + (", and " + ("a place bias" if main == "name" else "a name bias")
                  + " is present too (an interval excludes 1/4)."
                  if (place_bias if main == "name" else name_bias) else ".")))


def layout_carryover(margin_tab) -> list:
    """Does accuracy against the margin carry over from the fixed corners to the random
    stencils? The verdict sentences of
    :func:`semres.experiments.vlm_shapes.authors.layout_tests`."""
    return [f"{t['model']}: the shipped tables hold no per-trial positions for the random "
            "stencils, so a scale cannot be fitted there and whether the scale carries over "
            "from one layout to the other cannot be tested from them; what they allow is "
            "accuracy against the margin, which "
            f"{'differs' if verdicts.layouts_differ(t['p']) else 'does not differ detectably'}"
            f" between the two layouts (deviance {t['stat']:.1f} on {t['df']:.0f} margin bins, "
            f"{numbers.pvalue(t['p'])})." for t in authors.layout_tests(margin_tab)]


def files_verdicts(findings) -> list:
    """The results files' sentences, from the findings of
    :func:`semres.experiments.vlm_shapes.authors.results_files` in their order."""
    out = []
    canvas_px = float(AUTHORS["canvas_px"])
    for kind, *what in findings:
        if kind == "skipped":
            out.append("Rows outside a canvas or hue space are left to their own chapter: "
                       + ", ".join(what[0]) + ".")
        elif kind == "scale":
            out.append(choices_verdict(what[0])[0])
        elif kind == "radii":
            label, a, _, unit = what
            verdict = n_verdict(label, a["fitted"], unit)[0]
            if verdict:
                out.append(verdict)
        else:  # the same trials, so not two independent estimates to test for equality: how
            # far the grid's blur moves the scale, against the per-trial interval
            label, r, f = what
            lo, hi = f["scale_ci"][0] * canvas_px, f["scale_ci"][1] * canvas_px
            within = r["ci_low_px"] <= f["scale"] * canvas_px <= r["ci_high_px"]
            out.append(
                f"{label}: the per-trial scale is {r['scale_px']:.0f} px "
                f"({r['ci_low_px']:.0f}–{r['ci_high_px']:.0f}), the one from the shipped grid "
                f"counts of the same trials {f['scale'] * canvas_px:.0f} px ({lo:.0f}–{hi:.0f}):"
                f" the grid's blur moves it by {f['scale'] * canvas_px - r['scale_px']:+.0f} px, "
                + ("inside" if within else "outside") + " the per-trial interval.")
    return out


def files_text(verdicts_, given: bool) -> str:
    """The results files' verdicts, or why there are none."""
    if verdicts_:
        return " ".join(verdicts_)
    return ("The results files hold too few similarity trials or too few n for these analyses."
            if given else "No results files were given in this build.")


def censored_fits(table):
    """The fits that stopped on an edge of their search range or put their floor on its bound
    of 0 (censored)."""
    return table[table.at_bound | table.bound_params.fillna("").str.contains("floor=0",
                                                                              regex=False)]


def fit_glue(table) -> dict:
    """The closing sentences: which fits fail their goodness-of-fit test, and which stopped on
    an edge of their search range or put their floor on its bound (:func:`censored_fits`)."""
    censored = censored_fits(table)
    misfits = table[table.misfit.fillna(False).astype(bool)]
    listed = "; ".join(f"{r.model}, {r.kernel} ({r.bound_params})"
                       for r in censored.itertuples())
    return {
        "misfits": ("Fits that fail their goodness-of-fit test (p < 0.001, or, for a bootstrap "
                    "of fewer than 999 refits, p at the smallest value its refits can show) — the "
                    "model does not "
                    "describe the data exactly, so their parameters are approximate (each "
                    "row of fit.csv gives how far it misses: dispersion, deviance explained, "
                    "RMS gap): "
                    + "; ".join(f"{r.model}, {r.kernel} ({r.gof_test} {r.gof_stat:.1f} on "
                                f"{r.gof_df:.0f} df)" for r in misfits.itertuples()) + ".")
        if len(misfits) else "Every fit that was tested passes its goodness-of-fit test.",
        "censored": "Fits that stopped on an edge of their search range, or whose floor "
        f"sits at its bound of 0 (censored, no verdict drawn from them): {listed}."
        if len(censored) else "No fit in this build stopped on an edge of its search range."}


# ------------------------------------------------------- the numbers each sentence quotes
# Each sentence is glued with the row it describes (``Report.text(..., cites=...)``), and the
# book's test finds every number it quotes among them: these functions read those numbers off
# the same fits and tables the sentences are written from.




def gof_numbers(f: dict) -> dict:
    """What a fit's goodness of fit in words quotes (:func:`gof_words`, :func:`gof_pvalue`,
    the misfit rule): its test, statistic, degrees of freedom, p-value and its resolution,
    and a bootstrap's number of refits."""
    r = f.get("gof_resolution") or 0.0
    out = {key: f.get(key) for key in ("gof_stat", "gof_df", "gof_p")}
    out.update(gof_resolution=r, refits=round(1 / r) - 1 if r else None,
               fine_refits=fits.MIN_GOF_BOOT - 1, **carried(f.get("gof_test", "")))
    return out


def radius_numbers(f: dict, px: float) -> dict:
    """What :func:`radius_text` quotes of one task's radius fit."""
    return {"eps": f["eps"] * px, "ci_low": f["ci_low"] * px, "ci_high": f["ci_high"] * px,
            **gof_numbers(f), **size_numbers(f)}


def one_scale_text(label: str, g: dict, px: float) -> str:
    """One floor-free exponential for both tasks' p(n), in words: its scale, its interval and
    its goodness of fit (and how far it misses, where it does)."""
    lo, hi = g["lam_ci"]
    return (f"One floor-free exponential g(d) = exp(−d/λ) fitted to both tasks of {label} "
            f"together: λ = {fmt(g['lam'] * px)} px (95% profile set {fmt(lo * px)}–"
            f"{fmt(hi * px)} px), χ² = {g['gof_stat']:.1f} on {g['gof_df']:g} degrees of "
            f"freedom, {gof_pvalue(g)}"
            + (f": {MISFIT} exactly ({size_words(g)})." if g.get("misfit") and size_words(g)
               else ": one graded scale describes both tasks." if g.get("misfit") is False
               else "."))


def one_scale_numbers(label: str, g: dict, px: float) -> dict:
    """What :func:`one_scale_text` quotes."""
    return {"lam": g["lam"] * px, "low": g["lam_ci"][0] * px, "high": g["lam_ci"][1] * px,
            **gof_numbers(g), **size_numbers(g), **carried(label)}


def floor_text(label: str, tf: dict) -> str:
    """Theorem 3 with its floor across n on both tasks, beside the floor-free form, and chapter
    7's n-item floor bound at the fitted floor (``tf``:
    :func:`semres.experiments.vlm_shapes.nsweep.theorem3_floor`)."""
    t, free = tf["floor"], tf["free"]
    words = (f"Theorem 3's constant kernel with a floor, fitted to both tasks of {label} across "
             f"n: b = {t['b']:.3f} ({t['b_ci'][0]:.3f}–{t['b_ci'][1]:.3f}), Δ = "
             f"{t['delta']:.3f} ({t['delta_ci'][0]:.3f}–{t['delta_ci'][1]:.3f}), deviance "
             f"{t['deviance']:.1f} on {t['df']} degrees of freedom, {gof_pvalue(t)}"
             + (f" ({size_words(t)})" if t.get("misfit") and size_words(t) else "")
             + f"; the paper's floor-free form: b = {free['b']:.3f}, deviance "
             f"{free['deviance']:.1f} on {free['df']} degrees of freedom, {gof_pvalue(free)}"
             + (f" ({size_words(free)})" if free.get("misfit") and size_words(free) else "")
             + ".")
    gaps = [r["p_s_less_bound"] for r in tf["bound"] if np.isfinite(r["p_s_less_bound"])]
    if gaps:
        above = sum(g > 0 for g in gaps)
        words += (f" Against chapter 7's n-item floor bound at Δ = {t['delta']:.3f} (the most "
                  "p_S a similarity with that floor reaches at the observed p_I), p_S sits "
                  f"between {min(gaps):+.3f} and {max(gaps):+.3f} from it over "
                  f"{plural(len(gaps), 'n')}"
                  + (f"; above it at {above}, which a similarity with that floor cannot do."
                     if above else ", on or below it at every n, as the bound requires."))
    return words


def floor_numbers(label: str, tf: dict) -> dict:
    """What :func:`floor_text` quotes."""
    t, free = tf["floor"], tf["free"]
    gaps = [r["p_s_less_bound"] for r in tf["bound"] if np.isfinite(r["p_s_less_bound"])]
    out = {"b": t["b"], "b_low": t["b_ci"][0], "b_high": t["b_ci"][1], "delta": t["delta"],
           "delta_low": t["delta_ci"][0], "delta_high": t["delta_ci"][1],
           "deviance": t["deviance"], "df": t["df"], **gof_numbers(t), **size_numbers(t),
           "free_b": free["b"], "free_deviance": free["deviance"], "free_df": free["df"],
           **{"free_" + k: v for k, v in {**gof_numbers(free), **size_numbers(free)}.items()},
           **carried(label)}
    if gaps:
        out.update(gap_min=min(gaps), gap_max=max(gaps), n_gaps=len(gaps),
                   above=sum(g > 0 for g in gaps))
    return out


def one_radius_numbers(label: str, v: dict, px: float = 1.0) -> dict:
    """What :func:`one_radius` quotes (``v``, what it returns)."""
    lo, hi = v["ci"] or (None, None)
    scaled = {k: None if x is None else x * px
              for k, x in (("difference", v["difference"]), ("low", lo), ("high", hi),
                           ("margin", None if v.get("mean") is None else
                            verdicts.SAME_SHARE * v["mean"]))}
    joint = v.get("joint") or {}
    return {**scaled, "lr": v["lr"], "p_equal": v["p_equal"], **carried(label),
            **({"joint_" + k: x for k, x in {**gof_numbers(joint), **size_numbers(joint)}.items()}
               if joint else {})}


def two_task_numbers(label: str, fitted: dict, px: float = 1.0) -> dict:
    """What :func:`two_task_verdict` quotes of the two radius fits."""
    v = radii_difference(fitted.get("similarity"), fitted.get("identification"))
    return one_radius_numbers(label, v, px)


def n_numbers(label: str, fitted: dict, px: float = 1.0) -> dict:
    """What :func:`n_verdict` quotes: the comparison of the radii and each task's radius."""
    return pooled(two_task_numbers(label, fitted, px),
                  *(radius_numbers(f, px) for f in fitted.values()))


def scale_numbers(label: str, f: dict, px: float, resolution: float, design_hi: float) -> dict:
    """What :func:`scale_verdict` quotes: the fit's scale, its likelihood set, the scale without
    a floor, the design's range and the goodness of fit."""
    lo, hi = f["profile_ci"]
    (qlo, qhi), _ = verdicts.approximate_ci(f["scale"], f["scale_ci"], f, px)
    return {"scale": f["scale"] * px, "low": lo * px, "high": hi * px,
            "no_floor": f["scale_no_floor"] * px, "resolution": resolution * px,
            "design_hi": design_hi * px, "q_low": qlo, "q_high": qhi, **gof_numbers(f),
            **size_numbers(f), **carried(label)}


def choices_numbers(a: dict) -> dict:
    """What :func:`choices_verdict` quotes of a model's choices."""
    return scale_numbers(a["label"], a["fit"], a["px"], a["resolution"], a["design_hi"])


def estimators_numbers(est: dict, px: float) -> dict:
    """What :func:`estimators_text` quotes: each estimator's interval."""
    return {f"{k}_{end}": v[i] * px for k, v in est.items()
            for i, end in enumerate(("low", "high"))}


def frontier_numbers(sim, ide) -> dict:
    """What :func:`frontier_text` quotes: the two-item point, the front there, the gap and its
    z (or, without a point, n = 2 and p_I's 1/2)."""
    out = {"n": 2, "one": 1, "half": 0.5}
    if 2 in sim.index and 2 in ide.index:
        front_ps = float(theory.front(ide.p[2])) if ide.p[2] >= 0.5 else np.nan
        gap = float(sim.p[2] - front_ps)
        out.update(p_i=ide.p[2], p_s=sim.p[2], front=front_ps, gap=gap,
                   z=gap / max(float(sim.se[2]), 1e-9))
    return out


def sweep_numbers(sweep, ball, graded, px: float) -> dict:
    """What each sentence of :func:`sweep_glue` quotes, by its key."""
    sim, ide = (sweep[sweep.task == t].set_index("n") for t in TASKS)
    return {"kernels": pooled(*(gof_numbers(ball[t]) for t in TASKS),
                              *({"lam": g["lam"] * px, **gof_numbers(g)}
                                for g in graded.values())),
            "frontier": frontier_numbers(sim, ide),
            "radii": pooled(*(radius_numbers(ball[t], px) for t in TASKS))}


def stencil_numbers(label: str, nc: dict, boot: int) -> dict:
    """What :func:`stencil_verdict` quotes: the weights' ranges and spreads, the advantage and
    its interval, the bootstrap's size and goodness of fit, and the uniform weight 1/4."""
    spread = [float(np.max(w) / np.min(w)) for w in (nc["name_weights"], nc["place_weights"])]
    weights = {f"{k}_{end}": f(nc[f"{k}_weights"]) for k in ("name", "place")
               for end, f in (("min", np.min), ("max", np.max))}
    return {**weights, "advantage": nc["advantage"], "advantage_low": nc["advantage_ci"][0],
            "advantage_high": nc["advantage_ci"][1], "boot": boot, "spread_name": spread[0],
            "spread_place": spread[1], "one": 1, "corners": len(released.CORNERS),
            **gof_numbers(nc), **carried(label)}


def layout_numbers(margin_tab) -> dict:
    """What :func:`layout_carryover` quotes: each model's deviance, its margin bins and p."""
    return pooled(*({"stat": t["stat"], "df": t["df"], "p": t["p"], **carried(t["model"])}
                    for t in authors.layout_tests(margin_tab)))


def files_numbers(findings) -> dict:
    """What :func:`files_verdicts` quotes, finding by finding."""
    canvas_px = float(AUTHORS["canvas_px"])
    parts = []
    for kind, *what in findings:
        if kind == "scale":
            parts.append(choices_numbers(what[0]))
        elif kind == "radii":
            label, a, _, _ = what
            parts.append(n_numbers(label, a["fitted"]))
        elif kind != "skipped":
            label, r, f = what
            parts.append({"scale_px": r["scale_px"], "low_px": r["ci_low_px"],
                          "high_px": r["ci_high_px"], "grid": f["scale"] * canvas_px,
                          "grid_low": f["scale_ci"][0] * canvas_px,
                          "grid_high": f["scale_ci"][1] * canvas_px,
                          "moved": f["scale"] * canvas_px - r["scale_px"], **carried(label)})
    return pooled(*parts)


def fit_numbers(table) -> dict:
    """What each of :func:`fit_glue`'s sentences quotes, by its key: the misfits' statistics
    and the names, tests and bounds of the fits it lists."""
    misfits = table[table.misfit.fillna(False).astype(bool)]
    return {"misfits": pooled({"fine_refits": fits.MIN_GOF_BOOT - 1, "one": 1},
                              *({"stat": r.gof_stat, "df": r.gof_df,
                                 **carried(r.model, r.kernel, r.gof_test)}
                                for r in misfits.itertuples())),
            "censored": pooled(*(carried(r.model, r.kernel, r.bound_params)
                                 for r in censored_fits(table).itertuples()))}
