"""What chapter 6 publishes: the functions its notebook calls once per section to glue numbers
and sentences, add overview rows, write tables and show figures, so the notebook holds the
science and none of the bookkeeping. Sentences are :mod:`.page_sentences`, figures
:mod:`.page_figures`, the rules :mod:`.verdicts`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import myst_nb

from semres.report import tables
from semres.report import GOOD, NOT_MEASURED, Z_MAX, find, fmt, plural

from . import page_figures as figures
from . import page_sentences as sentences
from . import settings, verdicts
from .nsweep import scene_rows
from .settings import AUTHORS, SHAPE_SIZE, SHAPES, TASKS
from .training import training_summary


def publish_ran(report, cfg, profile: str, seed: int, model, device, shipped, paths,
                results_df) -> list:
    """Glue what ran in this build (``ch6_ran``); return its lines for the result box."""
    ran = sentences.ran_lines(cfg, profile, seed, model, device, shipped, paths, results_df)
    report.text("ran", "\n".join(f"- {r}" for r in ran), markdown=True,
                cites=sentences.ran_numbers(cfg, seed, model, device, paths, results_df))
    return ran


def publish_cited(report, values: dict, cites: dict, small=()) -> None:
    """Glue what a section quotes (``Report.numbers``), each sentence among ``values`` with the
    numbers of the row it describes (``cites``, by the sentence's key)."""
    report.numbers({k: v for k, v in values.items() if k not in cites}, small=small)
    for key, numbers in cites.items():
        report.text(key, values[key], markdown=True, cites=numbers)


def publish_figure(report, name: str, fig, alt: str, caption: str,
                   folded: str | None = None) -> None:
    """A figure and its caption as one MyST block (``ch6_<name>_figure``, for a ``{glue:md}``
    block), inside a dropdown titled ``folded`` when given, or an empty block when ``fig`` is
    None: no figure is drawn without its data, and the section's sentence says what is
    missing."""
    block = ""
    if fig is not None:
        report.figure(name, fig)
        label = f"{report.prefix.rstrip('_')}-fig-{name}"
        block = f"```{{glue:figure}} {label}\n:name: {label}\n:alt: {alt}\n\n{caption}\n```"
        if folded:
            block = f":::{{dropdown}} {folded}\n{block}\n:::"
    report.text(f"{name}_figure", block, markdown=True)


def publish_scenes(report, examples) -> None:
    """The example scenes' figure and the shapes' width."""
    report.figure("scenes", figures.fig_scenes(examples))
    report.number("shape_frac", SHAPE_SIZE)


def publish_checks(report, band_agree: float, canvas_zmax: float, canvas_check):
    """The checks' overview row and numbers; the canvas check's table to show."""
    report.result(**verdicts.band_row(band_agree))
    report.result(**verdicts.canvas_row(canvas_check))
    for key, value in {"band_agree": band_agree, "zmax": Z_MAX,
                       "canvas_zmax": canvas_zmax}.items():
        report.number(key, value)
    return tables.table(canvas_check, decimals=4, headers={
        "theory": "Theory (probability)", "simulated": "Simulated (probability)"})


def publish_model(report, cfg, model, model_ref: str, model_name: str, canvas_px: int) -> None:
    """The model's name, tower, canvas and training losses (first and last tenth of each
    stage; NaN for a model not trained here)."""
    glue = training_summary(model_ref if model is None else None)
    glue.update(steps=cfg.steps, vision_steps=cfg.vision_steps, canvas_px=canvas_px,
                guess_loss=np.log(len(SHAPES)), n_names=len(SHAPES))
    for key, value in glue.items():
        report.number(key, value)
    # as code: IPython reads a Markdown string that names an existing path as a file
    report.text("model", model_name if model is None else f"`{model_name}`", markdown=True)
    report.text("tower", f"{cfg.vision} tower" if model is None else "the model's own",
                markdown=True)


def option_table(scene, probs) -> pd.DataFrame:
    """One scene's option probabilities, one column per shape on its canvas."""
    return pd.Series(probs, index=scene.names).round(3).to_frame("P(name)").T


def publish_scale(report, cfg, model, model_name: str, live_fit, fe, fm, ci, estimates,
                  agree: bool, fit, fit_p, map_list, map_p, agg, canvas_px: int,
                  patch_px: float) -> None:
    """The live model's spatial scale: its overview row (identified when the rule fits, its
    likelihood set lies inside the design and the estimators agree), the numbers and sentences
    the margin section quotes, the accuracy map and the margin figure."""
    verdict, row = sentences.scale_verdict(
        model_name, live_fit, canvas_px, patch_px / canvas_px, float(fit.d.max()),
        verdicts.LIVE_CLAIM, agree=agree, stand_in="" if model else verdicts.LIVE_STAND_IN,
        resolution_label=f"one image patch ({fmt(patch_px)} px)")
    report.result(**row)
    weights = live_fit["weights"]
    top = max(weights, key=weights.get)
    glue = {"scale_px": live_fit["scale"] * canvas_px, "scale_frac": live_fit["scale"],
            "floor": live_fit["floor"], "scale_lo": live_fit["scale_ci"][0] * canvas_px,
            "scale_hi": live_fit["scale_ci"][1] * canvas_px, "ls_scale_px": fe["scale"] * canvas_px,
            "eps_px": fm["eps"] * canvas_px, "eps_frac": fm["eps"], "eps_lo": ci[0, 1] * canvas_px,
            "eps_hi": ci[1, 1] * canvas_px, "eps_match": 2 * np.log(2) * live_fit["scale"],
            "fit_acc": fit_p.mean(), "map_acc": map_p.mean(), "choice_boot": cfg.choice_boot,
            "fit_n": len(fit_p), "top_weight": weights[top], "uniform_weight": 1 / len(weights),
            "top_answer": f"“{top}”", "patch_px": patch_px,
            "estimators": sentences.estimators_text(estimates, agree, canvas_px),
            "live_scale_verdict": verdict}
    publish_cited(report, glue, {
        "estimators": sentences.estimators_numbers(estimates, canvas_px),
        "live_scale_verdict": sentences.scale_numbers(model_name, live_fit, canvas_px,
                                                      patch_px / canvas_px,
                                                      float(fit.d.max()))},
        small=("floor",))
    report.figure("map", figures.fig_map(map_list, map_p, live_fit, fm, cfg.grid))
    report.figure("margin", figures.fig_margin(fit.m, fit_p, agg, canvas_px))


def fits_shown(report, rows) -> None:
    """Glue the live model's fits as the margin section shows them (``ch6_live_fits``, for a
    dropdown)."""
    myst_nb.glue(report.prefix + "live_fits", tables.table(
        pd.DataFrame(rows)[["kernel", "scale_px", "ci_low_px", "ci_high_px", "floor",
                            "distance_p", "at_bound"]], decimals=3), display=False)


#: the n sweep's columns as the page heads them
SWEEP_HEADERS = {"p": "Success (probability)", "se": "Its standard error",
                 "p_kernel": "The biased Luce rule's prediction (probability)",
                 "p_theory_sim": "Theorem 3 at the similarity radius (probability)",
                 "p_theory_ide": "Theorem 3 at the identification radius (probability)"}


def publish_sweep(report, model_name: str, sweep, ball, graded, canvas_px: int,
                  patch: float, floor: dict, stand_in: str = "") -> None:
    """The n sweep: its table (saved, and glued as ``ch6_sweep_table`` for a dropdown), the
    one-radius row and sentence (Theorem 3's prediction), the one-scale row and sentence (one
    floor-free exponential for both tasks; ``patch``, an image patch in canvas units), Theorem
    3 with its floor (``floor``: :func:`semres.experiments.vlm_shapes.nsweep.theorem3_floor`)
    with chapter 7's bound, the numbers and sentences the section quotes, the model's two-item
    point and the figure."""
    report.table(sweep, "n_sweep")
    two_task, row = sentences.two_task_verdict(
        model_name, ball, f"{model_name}: one Theorem 3 radius for both tasks (new)",
        verdicts.TWO_TASK_CLAIM, canvas_px, "px")
    if row:
        report.result(**row, stand_in=stand_in)
    report.result(**verdicts.single_scale_row(graded, canvas_px, model_name, stand_in))
    report.result(**verdicts.floor_row(model_name, floor["floor"], floor["free"], stand_in))
    report.table(pd.DataFrame(floor["rows"]), "theorem3_floor")
    report.table(pd.DataFrame(floor["bound"]), "floor_bound")
    report.text("one_scale", sentences.one_scale_text(model_name, graded["both tasks"],
                                                      canvas_px), markdown=True,
                cites=sentences.one_scale_numbers(model_name, graded["both tasks"], canvas_px))
    report.text("theorem3_floor", sentences.floor_text(model_name, floor), markdown=True,
                cites=sentences.floor_numbers(model_name, floor))
    sim, ide = (sweep[sweep.task == t].set_index("n") for t in TASKS)
    if 2 in sim.index and 2 in ide.index:
        report.point(f"{model_name}, n = 2", ide.p[2], sim.p[2], ide.se[2], sim.se[2])
    glue = sentences.sweep_glue(sweep, ball, graded, canvas_px)
    cites = sentences.sweep_numbers(sweep, ball, graded, canvas_px)
    glue["two_task"] = two_task
    if two_task is not None:
        cites["two_task"] = sentences.two_task_numbers(model_name, ball, canvas_px)
    publish_cited(report, glue, cites)
    report.figure("nsweep", figures.fig_nsweep(sweep))
    myst_nb.glue(report.prefix + "sweep_table", tables.table(
        sweep, decimals=3, csv="n_sweep", headers=SWEEP_HEADERS), display=False)


def publish_scenes_table(report, model_name: str, sweep_lists: dict, sweep_p: dict, map_list,
                         map_p, fit_list, fit_p) -> None:
    """scenes.csv: every scored scene of the sweep, the map and the fit."""
    rows = [r for key, lst in sweep_lists.items()
            for r in scene_rows(model_name, lst, sweep_p[key], "sweep")]
    rows += scene_rows(model_name, map_list, map_p, "map")
    report.table(pd.DataFrame(rows + scene_rows(model_name, fit_list, fit_p, "fit")), "scenes")


def colour_verdict(label: str, a: dict):
    """A model's colour variant in words, and its overview row."""
    return sentences.n_verdict(
        label, a["fitted"], "of the hue circle",
        f"{label}, colour variant: one Theorem 3 radius for p_S(n) and p_I(n) (new)",
        verdicts.COLOUR_CLAIM)


def publish_paper_models(report, grid_fits: dict, stencils, margins, colour: dict,
                         stencil_boot: int, external, agg, model_name: str):
    """The paper's models: each grid fit's row and sentence, a plain sentence before them
    (``auth_summary``), the random stencils' weights and sentences, whether accuracy against the margin carries over between the layouts, the
    colour variant's rows, and, where released answers are shipped or given, the figure
    against the model run here (:func:`publish_figure`). Returns their fit and weight rows, and
    the fits' table to show (None without fits)."""
    ext_fits, weights, said, quoted = [], [], [], []
    for a in grid_fits.values():
        ext_fits += a["fits"]
        weights += a["weights"]
        text, row = sentences.choices_verdict(a, verdicts.grid_claim(a["label"]))
        said.append(text)
        quoted.append(sentences.choices_numbers(a))
        report.result(**row)
    if stencils is not None:
        rows, fitted = stencils
        said += [sentences.stencil_verdict(label, nc, stencil_boot)
                 for label, nc in fitted.items()]
        quoted += [sentences.stencil_numbers(label, nc, stencil_boot)
                   for label, nc in fitted.items()]
        report.table(pd.DataFrame(rows), "stencil_weights")
    if margins is not None:  # does accuracy against the margin carry over to them?
        said += sentences.layout_carryover(margins)
        quoted.append(sentences.layout_numbers(margins))
    for label, a in colour.items():
        ext_fits += a["fits"]
        row = colour_verdict(label, a)[1]
        if row:
            report.result(**row)
        if a.get("theorem3"):
            report.result(**verdicts.floor_row(f"{label}, colour variant", a["theorem3"]["floor"],
                                               a["theorem3"]["free"]))
    report.text("auth_verdicts", " ".join(said) or
                "No tables of the paper's models are shipped.", markdown=True,
                cites=sentences.pooled(*quoted))
    summary, summary_numbers = sentences.paper_models_summary(grid_fits)
    report.text("auth_summary", summary, markdown=True, cites=summary_numbers)
    px = float(AUTHORS["canvas_px"])
    publish_figure(
        report, "released", figures.fig_released(external, agg, model_name, px)
        if figures.released_margins(external) else None,
        "Accuracy against margin for the paper's two models and the model run here.",
        "Accuracy against the margin for the paper's models (circles: the authors' released "
        "answers, margin bins with binomial standard errors) and for the model run here "
        f"(squares: its four-shape scenes, margins rescaled to a {px:g} px canvas). Chance is "
        "1/4.")
    shown = tables.table(pd.DataFrame(ext_fits)[["model", "kernel", "scale_px", "ci_low_px",
                                                "ci_high_px", "floor", "distance_p",
                                                "at_bound"]], decimals=3) if ext_fits else None
    return ext_fits, weights, shown


def publish_colour(report, colour: dict) -> None:
    """The colour variant's figure and sentences."""
    said = [colour_verdict(label, a)[0] or f"{label}: one task only, no two-task test."
            for label, a in colour.items()]
    report.text("colour_verdict", " ".join(said) if said else
                "The colour tables are not shipped in this build, so the colour variant is not "
                "analysed.", markdown=True,
                cites=sentences.pooled(*(sentences.n_numbers(label, a["fitted"])
                                         for label, a in colour.items())))
    publish_figure(
        report, "colour", figures.fig_colour(colour) if colour else None,
        "Accuracy against the number of hue patches for both tasks, and the two tasks on one "
        "plane.",
        "The colour variant. Left and middle: $p_S$ and $p_I$ against the number of patches, "
        "with Theorem 3 at each task's fitted radius. Right: both tasks on the $(p_I, p_S)$ "
        "plane, one point per $n$, over Theorem 3's curves (dotted, $b$ from 0 to 1) for the "
        "smallest and largest $n$.", folded="The colour variant, drawn")


def publish_files(report, files: dict | None) -> None:
    """The results files' sentences (``files``:
    :func:`semres.experiments.vlm_shapes.authors.results_files`, None without files)."""
    said = sentences.files_verdicts(files["findings"]) if files is not None else []
    report.text("file_verdicts", sentences.files_text(said, files is not None), markdown=True,
                cites=sentences.files_numbers(files["findings"]) if files is not None else {})


def fit_table(rows) -> pd.DataFrame:
    """fit.csv: every fit of every model, its bound flags as booleans and ``misfit`` empty
    where untested."""
    table = pd.DataFrame(rows)
    table["at_bound"] = table["at_bound"].astype(bool)
    table["misfit"] = table["misfit"].astype("boolean")  # empty where untested
    return table


#: how a row of a model's spatial scale ends its result's name
SCALE_RESULT = "spatial scale of the biased Luce rule"


def lead(rows) -> str:
    """The box's first sentences: the canvas laws against simulation, then how many of the
    models' spatial scales the biased Luce rule could measure."""
    canvas = find(rows, "Theorem 3 on a canvas")
    scales = [r for r in rows if r["result"].endswith(SCALE_RESULT)]
    first = ("" if canvas is None else
             f"On a 2-D canvas, simulation "
             f"{'agrees' if canvas['status'] in GOOD else 'does not clearly agree'} with "
             f"Theorem 3 (the worst cell off by {fmt(canvas['headline'], places=4)}, within "
             f"a margin of {fmt(canvas['margin'], places=2)}). ")
    if not scales:
        return first.strip()
    measured_ = [r for r in scales if r["status"] not in NOT_MEASURED]
    misfits = [r for r in scales if r["status"] == "misfit"]
    return (first + f"Of the {plural(len(scales), 'vision-language model')} asked which shape "
            f"is nearest the X, the biased Luce rule describes {len(measured_) or 'none'} "
            f"exactly; {len(misfits)} fail its goodness-of-fit test, and their spatial scales "
            "are read as approximate, with how far the rule misses.")


def publish_end(report, cfg, model, canvas_px: int, shipped, fits, weights, external,
                ran) -> None:
    """The chapter's end: fit.csv, fit_weights.csv and external.csv, the closing sentences on
    misfits and censored fits, the deviations from the paper, summary.csv and the result box
    (which lists every result: the page shows no second table of them)."""
    table = fit_table(fits)
    report.table(table, "fit")
    report.table(pd.DataFrame(weights), "fit_weights")
    report.table(pd.DataFrame(external, columns=["model", "source", "task", "n", "bin",
                                                 "trials", "correct"]), "external")
    cites = sentences.fit_numbers(table)
    for key, value in sentences.fit_glue(table).items():
        report.text(key, value, markdown=True, cites=cites[key])
    model_notes, protocol_notes = sentences.deviation_notes(cfg, model, canvas_px, shipped)
    report.deviations(None, None, *model_notes)
    report.deviations(cfg, settings.SETTINGS.paper, *protocol_notes)
    report.save()
    scales = [r for r in report.rows if r["result"].endswith(SCALE_RESULT)]
    report.box("; ".join(ran), lead=lead(report.rows), lead_cites={
        "models": len(scales), "misfits": sum(r["status"] == "misfit" for r in scales),
        "measured": sum(r["status"] not in NOT_MEASURED for r in scales)})
