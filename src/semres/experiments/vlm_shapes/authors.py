"""Other models' spatial answers: the paper's two VLMs through the count tables derived from their
authors' released files (:mod:`semres.experiments.released`), and any per-trial results files in
the book's schema (:mod:`semres.core.results`)."""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2

from semres.core import choice, fits
from semres.core import results as tidy
from semres.core.seeds import named_seed
from semres.experiments import released

from . import luce
from .luce import choice_rows, weight_rows
from .nsweep import analyse_n, hue_curves, theorem3_curve
from .settings import AUTHORS


#: refitted draws for the mean deviance under a results file's fit (its misfit's size)
SIZE_DRAWS = 50
#: the random streams of the goodness of fit (``{}``: whether the fit is biased)
STREAMS = {"choices": "margin goodness of fit choices {}", "margin": "margin goodness of fit {}",
           "margin_null": "margin null mean {}", "grid": "grid goodness of fit {}",
           "grid_null": "grid null mean {}"}
#: the gof_test of a fit referred to chi-square
CHI2 = "chi-square reference"


def margin_rows(tab) -> list:
    """external.csv rows from a table of counts per margin bin (shipped, or
    :func:`semres.experiments.released.spatial_margin_table` of results files)."""
    return [{"model": r.model, "source": r.source, "task": r.task, "n": int(r.n), "bin": r.bin,
             "bin_mid": (r.bin_lo + r.bin_hi) / 2, "trials": int(r.trials),
             "correct": int(r.correct)} for r in tab.itertuples(index=False)]


def nearest_gof(d, names, choices, width: float, n_boot: int = 0, seed=0):
    """The goodness of fit of a biased Luce rule to a model's choices by its accuracy against the
    margin: the binomial deviance of the answered trials' correct answers in margin bins of
    ``width`` (:func:`semres.core.fits.gof_counts`)."""
    choices = np.asarray(choices)
    answered = np.flatnonzero(choices >= 0)
    d = [np.asarray(d[i], float) for i in answered]
    names = [names[i] for i in answered]
    choices = choices[answered]
    nearest = np.array([int(np.argmin(x)) for x in d])
    m = np.array([np.diff(np.sort(x)[:2])[0] for x in d])
    ok = np.array([x[c] == np.min(x) for x, c in zip(d, choices)])
    k = np.floor(m / width).astype(int)
    cells, row = np.unique(k, return_inverse=True)
    counts = np.zeros((len(cells), 2))
    np.add.at(counts, (row, 0), ok)
    np.add.at(counts, (row, 1), ~ok)

    def binned(probs) -> np.ndarray:
        q = np.array([p[j] for p, j in zip(probs, nearest)])
        mean = np.bincount(row, q, len(cells)) / np.bincount(row, minlength=len(cells))
        return np.c_[mean, 1 - mean]

    def gof(f, params):
        probs = choice.choice_probs(d, names, f["scale"], f["floor"], f["weights"])
        rng = np.random.default_rng(named_seed(seed, STREAMS["choices"].format(f["bias"])))

        def refit(sim):
            sim_choices = _rebuild(probs, nearest, row, sim[:, 0].astype(int), rng)
            g = choice.fit_choices(d, names, choice=sim_choices, bias=f["bias"],
                                   scale_range=f["scale_range"], start=f)
            return binned(choice.choice_probs(d, names, g["scale"], g["floor"], g["weights"]))

        q = binned(probs)
        gof = fits.gof_counts(counts, q, params, refit, n_boot,
                              named_seed(seed, STREAMS["margin"].format(f["bias"])))
        # how far it misses: against one accuracy for every margin bin (no similarity)
        totals = counts.sum(axis=1)
        pooled = np.tile([counts[:, 0].sum() / totals.sum(),
                          counts[:, 1].sum() / totals.sum()], (len(counts), 1))
        mean = gof["gof_df"] if CHI2 in gof["gof_test"] else \
            luce.refit_null_mean(counts, q, refit, min(int(n_boot), SIZE_DRAWS),
                                 named_seed(seed, STREAMS["margin_null"].format(f["bias"])))
        if not np.isfinite(mean) or not gof["gof_df"] >= 1:
            return gof
        return {**gof, **fits.misfit_size(gof["gof_stat"], fits.multinomial_deviance(
            counts, pooled), max(mean, 1e-9), counts[:, 0] / totals, q[:, 0], totals)}
    return gof


def _rebuild(probs, nearest, row, correct, rng) -> np.ndarray:
    """Choices with ``correct[k]`` right answers in margin bin ``k``: which trials were right
    drawn without replacement in proportion to their chance of being right (Gumbel keys), the
    others naming a wrong shape in proportion to its fitted probability."""
    q = np.array([p[j] for p, j in zip(probs, nearest)])
    keys = np.log(np.maximum(q, 1e-300)) + rng.gumbel(size=len(q))
    right = np.zeros(len(q), bool)
    for k, c in enumerate(correct):
        members = np.flatnonzero(row == k)
        right[members[np.argsort(-keys[members])[:c]]] = True
    out = nearest.copy()
    for i in np.flatnonzero(~right):
        w = np.array(probs[i], float)
        w[nearest[i]] = 0.0
        w = w / w.sum() if w.sum() > 0 else np.where(np.arange(len(w)) == nearest[i], 0.0,
                                                      1.0 / (len(w) - 1))
        out[i] = int(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"))
        out[i] = min(out[i], len(w) - 1)
    return out


def analyse_choices(label: str, source: str, d, names, choices, px: float, resolution: float,
                    boot: int, seed, gof) -> dict:
    """:func:`.luce.choice_rows` of a model's similarity choices: fit and weight rows, the biased
    fit, and what its verdict needs (``resolution``, the finest distance the data resolve, a
    grid cell or a pixel; ``design_hi``, the largest distance)."""
    dd, _ = choice.pad(d)
    rows, f = choice_rows(label, source, d, names, px, boot, seed, choices=choices, gof=gof)
    return {"label": label, "fits": rows, "weights": weight_rows(label, f), "fit": f, "px": px,
            "resolution": resolution,
            "design_hi": float(np.nanmax(np.where(np.isfinite(dd), dd, np.nan)))}


def _grid_trials(g: dict, counts) -> tuple:
    """Counts per (grid cell, shape) as trials: each one's distances (its cell's) and choice."""
    cell, k = np.nonzero(counts)
    reps = np.asarray(counts)[cell, k].astype(int)
    return np.repeat(g["d"][cell], reps, axis=0), np.repeat(k, reps)


def authors_grid(grid_tab, boot: int, seed, gof_boot: int = 0, size_boot: int = 0) -> dict:
    """The paper's models from the shipped grid counts (each trial's X at its cell's mean
    position): the biased Luce rule, judged by the multinomial deviance over the cells
    (``gof_boot`` parametric-bootstrap refits where they are sparse), and how far it misses
    (:func:`.luce.choice_size`; the deviance's mean under the fit from ``size_boot`` refits
    where chi-square does not hold)."""
    px, names = float(AUTHORS["canvas_px"]), list(AUTHORS["layout"])
    out = {}
    for label in sorted(set(grid_tab["model"])):
        g = released.grid_design(grid_tab, label)
        d_trials, c_trials = _grid_trials(g, g["counts"])
        src = str(grid_tab.loc[grid_tab.model == label, "source"].iloc[0])
        if g["names"] != names:
            raise ValueError(f"{label}: the grid's shapes {g['names']} are not {names}")

        def grid_gof(f, params, g=g):
            def probs(fit):
                return np.array(choice.choice_probs(g["d"], [names] * len(g["d"]), fit["scale"],
                                                    fit["floor"], fit["weights"]))

            def refit(counts):
                d, c = _grid_trials(g, counts)
                return probs(choice.fit_choices(d, [names] * len(c), choice=c, bias=f["bias"],
                                                scale_range=f["scale_range"], start=f))

            q = probs(f)
            gof = fits.gof_counts(g["counts"], q, params, refit, gof_boot,
                                  named_seed(seed, STREAMS["grid"].format(f["bias"])))
            # how far it misses: accuracy per cell (the share naming the nearest shape)
            rows = np.flatnonzero(g["counts"].sum(axis=1) > 0)
            near = np.argmin(g["d"][rows], axis=1)
            totals = g["counts"][rows].sum(axis=1)
            chi2_ref = CHI2 in gof["gof_test"]
            mean = gof["gof_df"] if chi2_ref else luce.refit_null_mean(
                g["counts"], q, refit, size_boot,
                named_seed(seed, STREAMS["grid_null"].format(f["bias"])))
            return {**gof, **luce.choice_size(f, gof, g["counts"][rows, near] / totals,
                                              q[rows, near], totals, mean)}

        out[label] = analyse_choices(
            label, src + " (shipped grid counts)", d_trials, [names] * len(c_trials), c_trials,
            px, 1 / released.GRID, boot, seed, grid_gof)
    return out


def stencils(conf_tab, corner_tab, boot: int, stream) -> tuple[list, dict]:
    """The random stencils (names shuffled over the corners per scene, so a bias for a name and
    one for a place come apart): each model's name and place weights, from the shipped
    confusion tables."""
    rows, fitted = [], {}
    for j, label in enumerate(sorted(set(conf_tab["model"]))):
        def sel(t):
            return t[(t.model == label) & (t.experiment == "random_stencil")].set_index("bin")
        nt = sel(conf_tab).reindex(list(released.SPATIAL_SHAPES))[
            [f"chose_{x}" for x in released.SPATIAL_SHAPES]].to_numpy()
        ct = sel(corner_tab).reindex(list(released.CORNERS))[
            [f"chose_{x}" for x in released.CORNERS]].to_numpy()
        if np.isnan(nt).any() or np.isnan(ct).any():
            continue
        nc = choice.fit_name_corner(nt, ct, boot=boot, seed=stream("stencil_bootstrap", j))
        for kind, keys, w, wci in (
                ("name", released.SPATIAL_SHAPES, nc["name_weights"], nc["name_weights_ci"]),
                ("place", released.CORNERS, nc["place_weights"], nc["place_weights_ci"])):
            rows += [{"model": label, "weight_of": kind, "answer": key, "weight": ww,
                      "ci_low": lo, "ci_high": hi} for key, ww, (lo, hi) in zip(keys, w, wci)]
        fitted[label] = nc
    return rows, fitted


def layout_tests(margin_tab) -> list:
    """Does accuracy against the margin carry over from the fixed corners to the random
    stencils? Per model, the deviance of the two layouts' correct answers from their pooled rate,
    summed over margin bins."""
    out = []
    for label, part in margin_tab.groupby("model"):
        piv = part.pivot_table(index="bin_lo", columns="experiment",
                               values=["correct", "answered"], aggfunc="sum").dropna()
        if piv.empty or piv.shape[1] < 4:
            continue
        stat, df = 0.0, 0
        for _, r in piv.iterrows():
            c = np.array([[r["correct", e], r["answered", e] - r["correct", e]]
                          for e in ("spatial_far", "random_stencil")])
            if c.sum(axis=1).min() == 0:
                continue
            pool = c[:, 0].sum() / c.sum()
            g = fits.gof_multinomial(c, np.tile([pool, 1 - pool], (2, 1)), 1)
            stat, df = stat + g["gof_stat"], df + g["gof_df"]
        out.append({"model": label, "stat": stat, "df": df, "p": float(chi2.sf(stat, df))})
    return out


def colour_models(colour_tab, gof_boot: int = 0, seed=0) -> dict:
    """The colour variant per model from the shipped colour tables: Theorem 3 on the hue circle
    for both tasks (:func:`.nsweep.analyse_n`), its curves and the two radii compared."""
    colour_n = colour_tab.groupby(["model", "task", "n"])[["trials", "correct"]].sum()
    colour_n = colour_n.reset_index().assign(space="hue")
    curves = hue_curves(sorted(set(colour_n["n"])))
    return {label: {**analyse_n(label, "shipped colour counts", part, curves, gof_boot, seed),
                    "curves": curves} for label, part in colour_n.groupby("model")}


def results_files(results_df, boot: int, seed, grid_fits: dict, margin_bin: float,
                  hue_bin: float, gof_boot: int) -> dict:
    """Per-trial results files (``semres.core.results``) through the same analyses, per model and
    experiment: the Luce fits of the similarity choices (judged by :func:`nearest_gof`),
    accuracy against the margin (bins of ``margin_bin`` on a canvas, ``hue_bin`` on the hue
    circle), and Theorem 3 per task where the files hold several n."""
    out = {"fits": [], "weights": [], "external": [], "findings": []}
    canvas_px = float(AUTHORS["canvas_px"])
    binned = {"canvas": (released.spatial_margin_table, margin_bin),
              "hue": (released.colour_margin_table, hue_bin)}
    choices = tidy.choice_index(results_df)
    df = results_df.assign(_d=tidy.distances(results_df), _c=choices,
                           _ok=[bool(m[c]) if c >= 0 else False for m, c in zip(
                               tidy.correct_mask(results_df), choices)])
    skipped = sorted(set(df.loc[~df.space.isin(["canvas", "hue"]), "model"]))
    if skipped:  # birth years and the like belong to chapter 5
        out["findings"].append(("skipped", skipped))
    if "experiment" not in df:
        df["experiment"] = ""
    df["experiment"] = df["experiment"].fillna("").astype(str)
    for (model, space, exp), part in df[df.space.isin(["canvas", "hue"])].groupby(
            ["model", "space", "experiment"]):
        src = ";".join(sorted(set(part["source"].astype(str))))
        label = f"{model} ({exp})" if exp else model  # one analysis per experiment
        px = canvas_px if space == "canvas" else 1.0
        simp = part[part.task == "similarity"]
        if len(simp) >= 10:
            d = list(simp["_d"])
            names = [tidy.split_list(o) for o in simp["options"]]
            c = simp["_c"].to_numpy()
            # the goodness of fit bins margins by the canvas's width in either space
            a = analyse_choices(label, src, d, names, c, px, 1 / px, boot, seed,
                                nearest_gof(d, names, c, margin_bin, gof_boot, seed))
            out["fits"] += a["fits"]
            out["weights"] += a["weights"]
            out["findings"].append(("scale", a))
            table, width = binned[space]
            out["external"] += margin_rows(table(simp.assign(model=label, source=src), width))
        counts = (part.groupby(["task", "n"])["_ok"].agg(["size", "sum"]).reset_index()
                  .rename(columns={"size": "trials", "sum": "correct"}))
        if counts.groupby("task")["n"].nunique().ge(2).any():
            if space == "hue":
                curves = hue_curves(sorted(set(counts.n)))
            else:  # each trial's own ball measure, in this book's scene geometry
                curves = {(task, n): theorem3_curve(
                    np.array([[float(v) for v in p.split(",")] for p in sub["probe"]]), n, task)
                    for (task, n), sub in part.groupby(["task", "n"])}
            a = analyse_n(label, src, counts, curves, gof_boot, seed)
            out["fits"] += a["fits"]
            out["findings"].append(("radii", label, a, a["radii"], space))
    # the shipped grid counts blur each X to its cell: does the per-trial fit agree?
    for label, a in grid_fits.items():
        row = [r for r in out["fits"] if r["model"] == f"{label} (spatial_far)"
               and r["kernel"] == luce.KERNEL["biased"]]
        if row:
            out["findings"].append(("blur", label, row[0], a["fit"]))
    return out
