# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Vision-language models and shapes
#
# {cite}`nurisso2026bound` shows two vision-language models (Qwen2.5-VL-7B
# {cite}`bai2025qwen25vl` and Gemma-3-12B {cite}`gemmateam2025gemma3`) a canvas with four
# black shapes and a red X and asks which shape is closest to the X: accuracy falls near the
# decision boundaries, within a model-specific spatial scale. This chapter
# derives, in SymPy, what a finite spatial resolution predicts on a 2-D canvas (the band around
# each boundary where a model must err, and accuracy as a function of the distance margin),
# checks it by simulation, and then measures it: on a vision-language model run here, and on
# the paper's own two models through the outputs their authors released. Beyond the paper, the
# model run here answers two questions about the same canvases for 2 to 12 shapes — which shape
# is nearest to the X (generalization) and which shape the X lies on (identification) — so one
# spatial resolution can be tested against both through Theorem 3. Every answer is read through
# a Luce choice model with a per-answer response bias, fitted by maximum likelihood.
#
# ````{admonition} The result
# :class: tip
#
# ```{glue:md} ch6_result_box
# :format: myst
# ```
# ````

# %% tags=["parameters", "hide-cell"]
profile = "default"  # quick | default | paper
seed = 0
device = "auto"  # where the default model trains and any model is scored
model = None  # a hub id or folder of an image-text-to-text model; None trains the tiny default
image_size = 0  # canvas pixels for a hub model; 0: the model's own (96 for the tiny default)
batch_size = 32  # rows (scene x answer option) per forward pass when scoring
threads = 1  # torch CPU threads; 1 avoids thrashing on a shared 2-core machine, 0: torch default
results = ""  # per-trial result files or folders in the semres.results schema, comma-separated

# %% tags=["hide-input"]
# %matplotlib inline
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import pandas as pd
import sympy as sp
import torch
import transformers
from IPython.display import display

import semres.book
import semres.profiles
import semres.plotting as splot
from semres import choice, fits, kernels, released, scenes, spaces, theory, vlm
from semres import results as tidy
from semres.report import Z_MAX, Report
from semres.simulate import luce_success

splot.use_style()
CHAPTER = "06_vlm_shapes"
cfg = semres.profiles.settings(CHAPTER, profile)
torch_device = semres.book.torch_device(device)
stream = semres.book.seeds(seed)
report = Report(CHAPTER)
if int(threads):
    torch.set_num_threads(int(threads))
transformers.logging.disable_progress_bar()  # weight-loading bars, not our progress
result_paths = [p.strip() for p in str(results or "").split(",") if p.strip()]
# schema CSVs, or the authors' raw CSVs through their adapters; fails early if bad
results_df = released.load_results(result_paths) if result_paths else None
SHIPPED = released.tables()

ran = [f"profile **{profile}**, seed {seed}",
       "model: " + (f"a tiny LLaVA trained here on `{torch_device}` "
                    f"({cfg['vision_steps']} vision-stage and {cfg['steps']} language-stage "
                    "steps)" if model is None else f"`{model}`, scored on `{torch_device}`"),
       f"accuracy map on a {cfg['grid']} × {cfg['grid']} grid of X positions, "
       f"{cfg['fit_scenes']} random four-shape scenes for the fits "
       f"({cfg['boot']} least-squares and {cfg['choice_boot']} likelihood bootstrap resamples)",
       f"both tasks at n = {', '.join(map(str, cfg['sweep_n']))} "
       f"({cfg['sweep_scenes']} scenes each)",
       ("the paper's models from the shipped count tables (" + ", ".join(SHIPPED) + ")"
        if SHIPPED else "no shipped tables of the paper's models"),
       (f"per-trial results from {len(result_paths)} path(s): {len(results_df)} trials of "
        + ", ".join(sorted(set(results_df['model']))) if result_paths else
        "no per-trial result files (`results=` not given)")]
report.text("ran", "\n".join(f"- {r}" for r in ran), markdown=True)
SIZE = scenes.SHAPE_SIZE
GOF_KEYS = fits.GOF_KEYS
FLOOR_LR = 2.706  # the 95% likelihood-ratio test of a floor on its bound of 0

# %% [markdown]
# ````{admonition} What ran in this build
# :class: note
#
# ```{glue:md} ch6_ran
# :format: myst
# ```
# ````
#
# ## The task
#
# A scene is a square canvas with $n$ black shapes at random, non-overlapping positions and one
# red X. In the **similarity** (generalization) task the X lies at least a shape's width from
# every shape, as in the paper, and the answer is the nearest shape. In the **identification**
# task the X lies exactly on one of the shapes — the probe is a copy of an item, as in the
# identification test of chapter 1 — and the answer is the shape at the X. Both questions are
# about where the X is among the same shapes, both are answered by naming a shape on the
# canvas, so one spatial resolution should govern both. Geometry is recorded in canvas units
# (the canvas is $[0,1]^2$), so every scene renders at any resolution; the four shapes of the
# paper come first and eight more let $n$ run to 12.

# %% tags=["hide-input"]
rng = np.random.default_rng(stream("example_scenes"))
examples = [scenes.map_scenes(5)[7],
            scenes.sample_scene(rng, 8, "similarity"),
            scenes.sample_scene(rng, 12, "similarity"),
            scenes.sample_scene(rng, 4, "identification"),
            scenes.sample_scene(rng, 8, "identification"),
            scenes.sample_scene(rng, 12, "identification")]
fig, axes = splot.subplots(2, 3, figsize=(7.2, 5.0))
for ax, s in zip(axes.flat, examples):
    ax.imshow(scenes.render(s, 192))
    ax.set_title(f"{s.task}, n = {s.n}: {s.answer}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
report.number("shape_frac", SIZE)
report.figure("scenes", fig)

# %% [markdown]
# ```{glue:figure} ch6-fig-scenes
# :name: ch6-fig-scenes
# :alt: Six example canvases with black shapes and a red X, three for each task.
#
# Example scenes (rendered at 192 px). Top: similarity — which black shape is closest to the
# red X (the first panel is the fixed four-shape layout of the accuracy map). Bottom:
# identification — which black shape is at the X. Titles give the recorded answer.
# ```
#
# Shapes are {glue:text}`ch6_shape_frac:.2f` of the canvas wide ({numref}`ch6-fig-scenes`).
#
# ## Theory: spatial resolution on a canvas
#
# Two ways a model can have a finite spatial resolution lead to two kernels. Write
# $d_1 \le d_2 \le \dots \le d_n$ for the distances from the probe to the shapes and
# $m = d_2 - d_1$ for the **margin** between the nearest and the second-nearest.
#
# ```{prf:definition} Margin resolution
# :label: ch6-def-margin
#
# A model with margin resolution $\varepsilon$ cannot tell two distances apart when they differ
# by at most $\varepsilon$: under the Luce rule it splits its choice equally among the
# $K_\varepsilon = \#\{j : d_j \le d_1 + \varepsilon\}$ shapes, so $P(\text{correct}) =
# 1/K_\varepsilon$. This is the constant similarity $g_{\varepsilon;0}$ of chapter 1 applied to
# the excess distance $d_j - d_1$. In identification $d_1 = 0$ and it *is* $g_{\varepsilon;0}$.
# ```
#
# ```{prf:proposition} The error band
# :label: ch6-prop-band
#
# For two shapes at $(\pm c, 0)$, a model with margin resolution $\varepsilon < 2c$ must err
# (succeeds with probability $\tfrac12$) exactly in the band $|d_A - d_B| \le \varepsilon$
# around the bisector $x = 0$. The band is bounded by the hyperbola branches
# $|x| = w(y)$ with
#
# $$
# w(y) = \frac{\varepsilon}{2}\sqrt{1 + \frac{y^2}{c^2 - \varepsilon^2/4}} ,
# $$
#
# so it is $\varepsilon$ wide on the segment between the shapes and widens away from it.
# ```
#
# ```{prf:proposition} Accuracy against the margin
# :label: ch6-prop-margin
#
# With the exponential similarity $g(d) = e^{-d/\lambda}$, the Luce rule gives
# $P(\text{correct})$ as $1 / \bigl(1 + \sum_{j \ge 2} e^{-(d_j - d_1)/\lambda}\bigr)$; with two
# shapes this is the logistic $\sigma(m/\lambda)$ of the margin alone, wherever the probe is. A
# margin resolution gives the step $\tfrac12 + \tfrac12 \mathbb 1[m > \varepsilon]$. Both lose
# the same accuracy across a boundary, $\int_0^\infty (1 - P)\,dm$, when
# $\varepsilon = 2 \lambda \ln 2$. A noise floor, $g = e^{-d/\lambda} + \Delta$, breaks the
# shift invariance: accuracy then also falls with the distance $d_1$ itself.
# ```

# %% tags=["hide-input"]
x, y, c, eps, lam, m, d1, d2, dlt = sp.symbols("x y c epsilon lambda m d_1 d_2 Delta",
                                                positive=True)
# |d_A - d_B| = eps with d_A^2 - d_B^2 = 4 c x gives d_A + d_B = 4 c x / eps, so
# d_A = 2 c x / eps + eps / 2: square it and solve for the boundary x(y).
roots = sp.solve(sp.Eq((2 * c * x / eps + eps / 2) ** 2, (x + c) ** 2 + y**2), x)
w_stated = eps / 2 * sp.sqrt(1 + y**2 / (c**2 - eps**2 / 4))
w_derived = [r for r in roots if sp.simplify(r.subs({c: 1, eps: sp.Rational(1, 2), y: 1})) > 0][0]
assert sp.simplify(w_derived**2 - w_stated**2) == 0
assert sp.simplify(w_stated.subs(y, 0) * 2 - eps) == 0  # the band is eps wide between shapes

luce_two = sp.exp(-d1 / lam) / (sp.exp(-d1 / lam) + sp.exp(-d2 / lam))
assert sp.simplify(luce_two - 1 / (1 + sp.exp(-(d2 - d1) / lam))) == 0
loss_exp = sp.integrate(1 - 1 / (1 + sp.exp(-m / lam)), (m, 0, sp.oo))
loss_step = sp.integrate(sp.Rational(1, 2), (m, 0, eps))
assert sp.simplify(loss_exp - lam * sp.log(2)) == 0
eps_match = sp.solve(sp.Eq(loss_step, loss_exp), eps)[0]
assert sp.simplify(eps_match - 2 * lam * sp.log(2)) == 0
floored = (sp.exp(-d1 / lam) + dlt) / (sp.exp(-d1 / lam) + sp.exp(-(d1 + m) / lam) + 2 * dlt)
assert sp.simplify(sp.diff(floored.subs(dlt, 0), d1)) == 0  # no floor: margin alone matters
assert sp.simplify(sp.diff(floored, d1).subs({d1: 1, m: 1, lam: 1, dlt: 1})) != 0
display(sp.Eq(sp.Symbol("w(y)"), w_derived), sp.Eq(sp.Symbol("varepsilon_match"), eps_match))

# %% [markdown]
# SymPy derives the band's edge from the two distance equations and recovers
# {prf:ref}`ch6-prop-band`; it reduces the two-shape exponential Luce rule to a logistic in the
# margin, integrates the accuracy lost across a boundary ($\lambda \ln 2$ against
# $\varepsilon/2$), and confirms that only the floor makes $d_1$ matter
# ({prf:ref}`ch6-prop-margin`).
#
# **Check by simulation.** Points drawn uniformly around two shapes fall in the hyperbolic band
# exactly when their distance gap is at most $\varepsilon$; random four-shape scenes obey the
# exponential formula. For many shapes on the canvas, Theorem 3 of chapter 2 applies with the
# canvas's own, position-dependent ball measure $b_p = \nu(B_\varepsilon(p))$ (a disc clipped
# by the square): $p^n = \mathbb E_p[p^n(b_p)]$. The Monte Carlo engine runs the Luce rule on
# the canvas with a constant kernel and must agree within {glue:text}`ch6_zmax:.0f` standard
# errors.

# %% tags=["hide-input", "hide-output"]
w_fn = sp.lambdify((y, c, eps), w_stated, "numpy")
pts = np.random.default_rng(stream("band_points")).uniform(-1, 1, size=(200_000, 2))
c0, e0 = 0.3, 0.1
gap = np.abs(np.hypot(pts[:, 0] + c0, pts[:, 1]) - np.hypot(pts[:, 0] - c0, pts[:, 1]))
in_band = np.abs(pts[:, 0]) <= w_fn(pts[:, 1], c0, e0)
band_agree = float(np.mean(in_band == (gap <= e0)))
assert band_agree > 0.9999, band_agree

check = scenes.sample_scenes(500, 4, "similarity", stream("margin_law_scenes"))
dist = np.array([s.distances for s in check])
tgt = np.array([s.target for s in check])
g = kernels.Exponential(0.05)(dist)  # the engine's kernel object on real scene geometry
luce_direct = g[np.arange(len(g)), tgt] / g.sum(axis=1)
assert np.allclose(luce_direct, vlm.luce_exponential(dist, tgt, 0.05))
two = np.sort(dist, axis=1)[:, :2]
assert np.allclose(vlm.luce_exponential(two, np.zeros(len(two), int), 0.05),
                   1 / (1 + np.exp(-(two[:, 1] - two[:, 0]) / 0.05)))
report.number("band_agree", band_agree)
report.number("zmax", Z_MAX)


class Canvas(spaces.Space):
    """The unit square with uniform measure: the canvas as a space for the Monte Carlo engine."""

    def sample(self, rng, size):
        return rng.random((*np.atleast_1d(size), 2))

    def distance(self, a, b):
        return np.linalg.norm(np.asarray(a) - np.asarray(b), axis=-1)


def canvas_ball(p, radius, k=600):
    """b_p = area of the disc of ``radius`` around each point ``p`` clipped by the unit square."""
    u = ((np.arange(k) + 0.5) / k * 2 - 1) * radius
    half = np.sqrt(radius**2 - u**2)
    xs = p[:, :1] + u
    lo, hi = np.clip(p[:, 1:] - half, 0, 1), np.clip(p[:, 1:] + half, 0, 1)
    return (((hi - lo) * ((xs >= 0) & (xs <= 1))).sum(axis=1) * 2 * radius / k)


grid_p = np.stack(np.meshgrid((np.arange(100) + 0.5) / 100, (np.arange(100) + 0.5) / 100),
                  axis=-1).reshape(-1, 2)
rows = []
for i, e in enumerate((0.1, 0.25)):
    b_p = canvas_ball(grid_p, e)
    for n in (2, 4, 8, 12):
        p_s, p_i = theory.n_item(b_p, n)
        for k, (task, th) in enumerate((("similarity", p_s.mean()),
                                        ("identification", p_i.mean()))):
            est = luce_success(Canvas(), kernels.Constant(e), task, n, cfg["mc_trials"],
                               seed=stream("canvas_check", i, n, k))
            rows.append({"eps": e, "mean b": b_p.mean(), "task": task, "n": n,
                         "theory": th, "simulated": est.mean, "se": est.stderr,
                         "z": est.zscore(th)})
canvas_check = pd.DataFrame(rows)
canvas_zmax = canvas_check["z"].abs().max()
assert canvas_zmax < Z_MAX, canvas_check
report.number("canvas_zmax", canvas_zmax)
report.result("Error band and margin law on a canvas (SymPy, Monte Carlo)",
              "hyperbolic error band, logistic margin law, heterogeneous Theorem 3 on the "
              "canvas agree with simulation (derived here)", check_max_z=canvas_zmax, new=True)
splot.table(canvas_check, decimals=4)

# %% [markdown]
# The band formula and the distance gap agree on a fraction {glue:text}`ch6_band_agree:.5f` of
# the points (the rest sit on the boundary to rounding), and the heterogeneous Theorem 3 on the
# canvas matches the engine with $|z| \le$ {glue:text}`ch6_canvas_zmax:.2f` in every cell of
# the table above.
#
# ## The model
#
# The default model is small and trained here: a LLaVA architecture
# {cite}`liu2023llava` from `transformers` configs — a vision transformer
# ({glue:md}`ch6_tower`; 12 px patches) whose patch features
# are projected into a small Llama — with a word-level tokenizer trained locally with
# `tokenizers` and a `LlavaProcessor` assembled offline. LLaVA itself starts from a pretrained
# vision encoder (CLIP, {cite}`radford2021clip`); none can be downloaded where this book is
# built, so training runs in
# two stages on freshly rendered scenes ($n = 2..12$, both tasks):
#
# 1. *Vision stage, in place of pretraining.* The tower alone learns read-outs of every patch
#    (linear heads, discarded afterwards): which shape sits there, whether the X is there,
#    which shape is nearest to the patch centre and, on the X's own patch, the answer. This is
#    supervision on the task's own geometry, not general pretraining: it gives the tower what a
#    pretrained encoder gives a hub VLM, a picture it can already parse.
# 2. *Language stage.* The projector and the language model learn to answer the questions
#    (the loss counts only the answer token): to find the X among the image tokens and name
#    what the tower put there.
#
# The default tower is DINOv3 {cite}`simeoni2025dinov3` rather than LLaVA's usual CLIP: CLIP's
# position embeddings are
# learned from random, and the tiny tower learns what a patch shows long before it learns where
# the patch is; DINOv3 encodes positions by rotation, so every attention score is a function of
# the offset between two patches (the probe measurements are in `benchmarks/bench_vlm.py` and
# the `semres.vlm.build_model` docstring). The result is saved with `save_pretrained` and loaded
# back through `AutoProcessor` and `AutoModelForImageTextToText`, the path a hub id takes. It is
# *not* a pretrained VLM and not a reproduction of Qwen or Gemma: it is a controlled model whose
# spatial resolution we can measure with the paper's protocol. The same seed on the same
# machine gives the same model and the same tables; CPU numerics on another machine, or a GPU,
# can move the fitted scale within its interval.
#
# **Running a hub VLM instead.** Pass its id or folder:
# `semres run 6 -p model=Qwen/Qwen2.5-VL-3B-Instruct` (it must be in the local Hugging Face
# cache; otherwise the run stops with one clear error). Every answer option — the names of the
# shapes on the canvas — is appended to the model's own chat prompt, and the options'
# log-probabilities from one batched forward pass are normalised over the options: the model's
# Luce probability of each answer. Nothing is generated or parsed.

# %% tags=["hide-input"]
if model is None:
    model_ref = str(vlm.trained_model(
        semres.book.build_dir() / "models", hidden=cfg["hidden"], layers=cfg["layers"],
        heads=4 if cfg["hidden"] % 4 == 0 else 2, vision_steps=cfg["vision_steps"],
        steps=cfg["steps"], batch_size=cfg["train_batch"], seed=seed, device=str(torch_device),
        vision=cfg["vision"], stage1_lr=cfg["stage1_lr"], vision_lr=cfg["vision_lr"]))
    model_name = "tiny-llava (trained here)"
    import json
    from pathlib import Path

    record = json.loads((Path(model_ref) / "training.json").read_text())
    losses, vision_losses = record["losses"], record["vision_losses"]
    tail, vtail = max(1, len(losses) // 10), max(1, len(vision_losses) // 10)
    report.number("vloss_first", np.mean(vision_losses[:vtail]))
    report.number("vloss_last", np.mean(vision_losses[-vtail:]))
    report.number("loss_first", np.mean(losses[:tail]))
    report.number("loss_last", np.mean(losses[-tail:]))
else:
    model_ref, model_name = str(model), str(model)
    for key in ("loss_first", "loss_last", "vloss_first", "vloss_last"):
        report.number(key, float("nan"))
# fails here, with one line, if the model is unavailable
canvas_px = int(image_size) or vlm.native_size(vlm.load_processor(model_ref))
# as code: IPython reads a Markdown string that names an existing path as a file
report.text("model", model_name if model is None else f"`{model_name}`", markdown=True)
report.text("tower", f"{cfg['vision']} tower" if model is None else "the model's own",
            markdown=True)
report.number("steps", cfg["steps"])
report.number("vision_steps", cfg["vision_steps"])
report.number("canvas_px", canvas_px)
report.number("guess_loss", np.log(len(scenes.SHAPES)))
report.number("n_names", len(scenes.SHAPES))

evaluate = semres.book.cache().cache(vlm.evaluate, ignore=["progress"])


def score(scene_list):
    """Option probabilities (one array per scene, in the order of its names) and P(correct)."""
    probs = evaluate(model_ref, scene_list, canvas_px, int(batch_size), str(torch_device),
                     options=True)
    return probs, np.array([p[s.target] for p, s in zip(probs, scene_list)])


# %% [markdown]
# Model: **{glue:md}`ch6_model`**, canvas {glue:text}`ch6_canvas_px` px. The vision stage
# ({glue:text}`ch6_vision_steps` steps) took its summed per-patch loss from
# {glue:text}`ch6_vloss_first:.2f` to {glue:text}`ch6_vloss_last:.2f` nats; in the language
# stage ({glue:text}`ch6_steps` steps) the answer loss fell from
# {glue:text}`ch6_loss_first:.2f` to {glue:text}`ch6_loss_last:.2f` nats (first and last tenth
# of training; guessing uniformly among all {glue:text}`ch6_n_names` names costs
# {glue:text}`ch6_guess_loss:.2f`). Both stages checkpoint and the finished model is cached under
# `_build/models/`, so a rebuild does not retrain.
#
# ## The accuracy map
#
# As in the paper, the four shapes stay fixed and the X moves over a grid; each cell shows the
# model's probability of naming the nearest shape.

# %% tags=["hide-input"]
map_list = scenes.map_scenes(cfg["grid"])
map_probs, map_p = score(map_list)
fit_list = scenes.sample_scenes(cfg["fit_scenes"], 4, "similarity", stream("fit_scenes"))
fit_probs, fit_p = score(fit_list)
fit_d = np.array([s.distances for s in fit_list])
fit_t = np.array([s.target for s in fit_list])
fit_m = np.array([s.margin for s in fit_list])
fit_names = [list(s.names) for s in fit_list]


MISFIT = vlm.MISFIT


def binned_gof(d, names, target, p, m, f, params):
    """Goodness of fit of a fitted biased Luce rule to P(correct) in equal-count margin bins
    (the rule's own weights and floor; ``params`` counted against the bins)."""
    pred = np.array([q[t] for q, t in zip(choice.choice_probs(
        d, names, f["scale"], f["floor"], f.get("weights")), target)])
    return margin_gof(p, pred, m, params)


def margin_gof(p, pred, m, params):
    """Chi-square of binned mean P(correct) against a prediction, equal-count margin bins."""
    cut = np.unique(np.quantile(m, np.linspace(0, 1, cfg["bins"] + 1)))
    k = np.clip(np.digitize(m, cut[1:-1]), 0, len(cut) - 2)
    tab = pd.DataFrame({"k": k, "p": p, "q": pred}).groupby("k").agg(
        p=("p", "mean"), q=("q", "mean"), sd=("p", "std"), n=("p", "size"))
    se = np.maximum(tab.sd.fillna(0) / np.sqrt(tab.n), 1e-3)
    return fits.gof_chi2(tab.p, tab.q, se, params)


def choice_rows(label, source, d, names, px, choices=None, probs=None, gof=None):
    """The likelihood fits every model gets on its similarity trials: the Luce rule with the
    exponential kernel, without and with one response weight per answer, each with its scale's
    likelihood profile and (``gof(fit, params)``) its goodness of fit. Rows for fit.csv, and
    the biased fit itself."""
    out, biased = [], None
    for bias in (False, True):
        f = choice.fit_choices(d, names, choice=choices, probs=probs, bias=bias,
                               boot=cfg["choice_boot"], seed=stream("choice_bootstrap"),
                               progress=True, profile=41)
        params = 1 + int(f["floor"] > 0) + (len(f["weights"]) - 1 if bias else 0)
        f.update(gof(f, params))
        out.append({"model": label, "source": source,
                    "kernel": "exponential + response bias (ML)" if bias else
                    "exponential (ML)", "scale_frac": f["scale"], "scale_px": f["scale"] * px,
                    "ci_low_px": f["scale_ci"][0] * px, "ci_high_px": f["scale_ci"][1] * px,
                    "floor": f["floor"], "trials": f["trials"], "distance_p": f["distance_p"],
                    "boot_at_bound": f["boot_at_bound"], "at_bound": f["at_bound"],
                    "bound_params": ",".join(x for x in (f["bound_params"], (
                        "floor=0 (LR {:.2g})".format(f["floor_lr"])
                        if 0 < f["floor_lr"] < FLOOR_LR else "")) if x),
                    "profile_low_px": f["profile_ci"][0] * px,
                    "profile_high_px": f["profile_ci"][1] * px,
                    "scale_no_floor_px": f["scale_no_floor"] * px,
                    **{key: f[key] for key in GOF_KEYS}})
        biased = f if bias else biased
    return out, biased


def weight_rows(label, f):
    """The fitted response weights with their bootstrap intervals, for fit_weights.csv."""
    return [{"model": label, "answer": n, "weight": w, "ci_low": f["weights_ci"][n][0],
             "ci_high": f["weights_ci"][n][1],
             "at_bound": f"weight[{n}]=" in f["bound_params"]}
            for n, w in f["weights"].items()]


def scale_verdict(label, f, px, resolution, design_hi, statement=None, agree=None,
                  unit="px", stand_in=""):
    """Whether the answers carry an identified spatial scale (``vlm.scale_identification``), in
    words, and with a ``statement`` an overview row: reproduced when identified, not identified
    (with why) when not, misfit when the rule does not describe the answers."""
    ok, why = vlm.scale_identification(f, resolution, design_hi, agree, px, unit)
    misfit = bool(f["misfit"])
    if statement:
        report.result(f"{label}: spatial scale of the biased Luce rule",
                      f"{MISFIT}, so no scale is measured (the test was: {statement})" if misfit
                      else statement + ("" if ok else "; why not: " + "; ".join(why)),
                      misfit=misfit, identified=ok, passed=ok, stand_in=stand_in,
                      # only an identified scale is quoted as a number
                      headline=f["scale"] * px if ok and not misfit else None,
                      ci=(f["scale_ci"][0] * px, f["scale_ci"][1] * px)
                      if ok and not misfit else None)
    fit_text = (f"{f['gof_test']} {f['gof_stat']:.1f} on {f['gof_df']:g} degrees of freedom, "
                f"p = {f['gof_p']:.2g}")
    if misfit:
        return (f"For {label}, {MISFIT}: the biased Luce rule's {fit_text}; its scale "
                f"({f['scale'] * px:.3g} {unit}) is not a measurement.")
    if not ok:
        return (f"{label}'s spatial scale is not identified: " + "; ".join(why)
                + f" (fit: {fit_text}; the scale's likelihood set "
                f"{f['profile_ci'][0] * px:.3g}–{f['profile_ci'][1] * px:.3g} {unit}, "
                f"{f['scale_no_floor'] * px:.3g} {unit} without a floor).")
    return (f"{label}'s spatial scale is identified: {f['scale'] * px:.3g} {unit} (likelihood "
            f"set {f['profile_ci'][0] * px:.3g}–{f['profile_ci'][1] * px:.3g} {unit}; {fit_text}).")


fe = vlm.fit_exponential(fit_d, fit_t, fit_p)
fm = vlm.fit_margin(fit_d, fit_t, fit_p)


def refit(i):
    """Both least-squares fits on one resample of the fit scenes."""
    be, bm = (fit(fit_d[i], fit_t[i], fit_p[i]) for fit in (vlm.fit_exponential, vlm.fit_margin))
    return be["scale"], bm["eps"], be["at_bound"], bm["at_bound"]


boot = np.array(fits.bootstrap_map(refit, len(fit_p), cfg["boot"],
                                   stream("least_squares_bootstrap"), progress=True,
                                   desc="least-squares bootstrap"))
ci = np.percentile(boot[:, :2], [2.5, 97.5], axis=0)
live_rows, live_fit = choice_rows(
    model_name, "live", fit_d, fit_names, canvas_px, probs=fit_probs,
    # the bins test P(correct) against the kernel: its scale and floor count against them (the
    # weights are set by which wrong names are chosen, which the bins do not see)
    gof=lambda f, k: binned_gof(fit_d, fit_names, fit_t, fit_p, fit_m, f,
                                1 + int(f["floor"] > 0)))
gof_ls = margin_gof(fit_p, vlm.luce_exponential(fit_d, fit_t, fe["scale"], fe["floor"]), fit_m,
                    1 + int(fe["floor"] > 0))
gof_mar = margin_gof(fit_p, vlm.luce_margin(fit_d, fit_t, fm["eps"]), fit_m, 1)
no_profile = {"profile_low_px": np.nan, "profile_high_px": np.nan, "scale_no_floor_px": np.nan}
fit_rows = [
    {"model": model_name, "source": "live", "kernel": "exponential (least squares)",
     "scale_frac": fe["scale"], "scale_px": fe["scale"] * canvas_px,
     "ci_low_px": ci[0, 0] * canvas_px, "ci_high_px": ci[1, 0] * canvas_px,
     "floor": fe["floor"], "trials": len(fit_p), "distance_p": np.nan,
     "boot_at_bound": fits.bootstrap_at_bound(boot[:, 2]), "at_bound": fe["at_bound"],
     "bound_params": fe["bound_params"], **no_profile, **gof_ls},
    {"model": model_name, "source": "live", "kernel": "margin resolution (least squares)",
     "scale_frac": fm["eps"], "scale_px": fm["eps"] * canvas_px,
     "ci_low_px": ci[0, 1] * canvas_px, "ci_high_px": ci[1, 1] * canvas_px, "floor": np.nan,
     "trials": len(fit_p), "distance_p": np.nan,
     "boot_at_bound": fits.bootstrap_at_bound(boot[:, 3]), "at_bound": fm["at_bound"],
     "bound_params": fm["bound_params"], **no_profile, **gof_mar},
    *live_rows]
weights = weight_rows(model_name, live_fit)
scale, floor, eps_fit = live_fit["scale"], live_fit["floor"], fm["eps"]
live_weights = live_fit["weights"]
# the estimators of the scale: least squares (P(correct) only), ML without and with weights
est = {"least squares": (ci[0, 0], ci[1, 0]),
       "ML": (live_rows[0]["ci_low_px"] / canvas_px, live_rows[0]["ci_high_px"] / canvas_px),
       "ML with weights": live_fit["scale_ci"]}
est_agree = max(lo for lo, hi in est.values()) <= min(hi for lo, hi in est.values())
_proc = vlm.load_processor(model_ref)
_patch = getattr(_proc, "patch_size", None) or getattr(
    getattr(_proc, "image_processor", None), "patch_size", None)
if isinstance(_patch, dict):
    _patch = _patch.get("height") or max(_patch.values())
patch_px = float(_patch) if _patch else 1.0
report.number("patch_px", patch_px)
report.text("estimators", "; ".join(
    f"{k} {v[0] * canvas_px:.3g}–{v[1] * canvas_px:.3g} px" for k, v in est.items())
    + (": their intervals overlap." if est_agree else
       ": their intervals do not overlap."), markdown=True)
report.text("live_scale_verdict", scale_verdict(
    model_name, live_fit, canvas_px, patch_px / canvas_px, float(fit_d.max()),
    "a spatial scale of the biased Luce rule, measured from the model's option probabilities "
    "(pixels of its canvas); identified when the rule fits, its likelihood set lies above an "
    "image patch and below the largest distance, and the estimators' intervals overlap",
    agree=est_agree, stand_in="" if model else "a small VLM trained here, not the paper's "
    "models"), markdown=True)
top = max(live_weights, key=live_weights.get)
report.text("top_answer", f"“{top}”", markdown=True)
for key, val in {"scale_px": scale * canvas_px, "scale_frac": scale, "floor": floor,
                 "scale_lo": live_fit["scale_ci"][0] * canvas_px,
                 "scale_hi": live_fit["scale_ci"][1] * canvas_px,
                 "ls_scale_px": fe["scale"] * canvas_px,
                 "eps_px": eps_fit * canvas_px, "eps_frac": eps_fit,
                 "eps_lo": ci[0, 1] * canvas_px, "eps_hi": ci[1, 1] * canvas_px,
                 "eps_match": 2 * np.log(2) * scale, "fit_acc": fit_p.mean(),
                 "map_acc": map_p.mean(), "choice_boot": cfg["choice_boot"],
                 "fit_n": len(fit_list), "top_weight": live_weights[top],
                 "uniform_weight": 1 / len(live_weights)}.items():
    report.number(key, val)

# %% tags=["hide-input"]
probe_xy = np.array([s.probe for s in map_list])
layout = np.array(list(scenes.PAPER_LAYOUT.values()))
map_d = np.array([s.distances for s in map_list])
map_pred = np.array([q[s.target] for q, s in zip(
    choice.choice_probs(map_d, [list(s.names) for s in map_list], scale, floor, live_weights),
    map_list)])
fine = (np.arange(300) + 0.5) / 300
fx, fy = np.meshgrid(fine, fine)
fd = np.linalg.norm(np.stack([fx, fy], -1)[..., None, :] - layout, axis=-1)
nearest = np.argmin(fd, axis=-1)
fd_sorted = np.sort(fd, axis=-1)
fig, axes = splot.subplots(1, 2, figsize=(7.2, 3.9), sharey=True)
cells = np.floor(probe_xy * cfg["grid"]).astype(int)
for ax, vals, title in ((axes[0], map_p, "model"),
                        (axes[1], map_pred, "fitted biased Luce rule")):
    img = np.full((cfg["grid"], cfg["grid"]), np.nan)
    img[cells[:, 1], cells[:, 0]] = vals
    im = ax.imshow(img, extent=(0, 1, 1, 0), cmap="viridis", vmin=0, vmax=1,
                   interpolation="nearest")
    ax.contour(fine, fine, nearest, levels=np.arange(3) + 0.5, colors="w", linewidths=1)
    gap_field = fd_sorted[..., 1] - fd_sorted[..., 0]
    if not fm["at_bound"] and gap_field.min() < eps_fit < gap_field.max():
        ax.contour(fine, fine, gap_field, levels=[eps_fit], colors="w", linewidths=0.6,
                   linestyles=":")
    for name, (px, py) in scenes.PAPER_LAYOUT.items():
        ax.annotate(name, (px, py), ha="center", va="center", fontsize=9, color="w",
                    weight="bold")
    ax.set(xlim=(0, 1), ylim=(1, 0), aspect="equal", title=title, xlabel="X position (canvas)")
    ax.grid(False)
axes[0].set_ylabel("y (canvas, down)")
fig.colorbar(im, ax=axes, shrink=0.8, label="P(correct)")
report.figure("map", fig)

# %% [markdown]
# ```{glue:figure} ch6-fig-map
# :name: ch6-fig-map
# :alt: Two square heat maps of accuracy over X positions with the four shapes and white boundary lines.
#
# Accuracy map for the four-shape layout: each square is one X position, coloured by the
# probability the model gives to the nearest shape (left) and by the fitted biased Luce rule's
# prediction for the same scenes (right). Solid white lines: the decision boundaries (Voronoi
# edges); dotted (drawn only when that fit is not censored): the edges of the error band
# $|d_1 - d_2| \le \varepsilon$ of the fitted margin resolution. Blank discs: positions closer
# than a shape's width to a shape, excluded as in the paper.
# ```
#
# Mean accuracy over the map is {glue:text}`ch6_map_acc:.3f` ({numref}`ch6-fig-map`).
#
# ## Accuracy against the margin, and the spatial scale
#
# Over {glue:text}`ch6_fit_n` random four-shape scenes we fit the Luce rule with the
# exponential kernel $g(d) = e^{-d/\lambda} + \Delta$ to the model's answers. A model may
# prefer some answers whatever the geometry; a fit to accuracy alone then lets $\lambda$ absorb
# that bias. So the headline fit is the **biased Luce rule**
# $P(k) \propto w_k\, g(d_k)$ with one weight per answer (normalised to sum to 1), fitted
# jointly with $\lambda$ and $\Delta \ge 0$ by multinomial maximum likelihood of the model's
# option probabilities ({glue:text}`ch6_choice_boot` bootstrap resamples of the scenes for
# intervals). Least-squares fits to P(correct) of the same kernel and of a margin resolution
# $\varepsilon$ are in the table for comparison.

# %% tags=["hide-input"]
edges = np.unique(np.quantile(fit_m, np.linspace(0, 1, cfg["bins"] + 1)))
which = np.clip(np.digitize(fit_m, edges[1:-1]), 0, len(edges) - 2)
pred_bias = np.array([q[t] for q, t in zip(
    choice.choice_probs(fit_d, fit_names, scale, floor, live_weights), fit_t)])
pred_mar = vlm.luce_margin(fit_d, fit_t, eps_fit)
binned = pd.DataFrame({"bin": which, "m": fit_m, "p": fit_p, "bias": pred_bias,
                       "mar": pred_mar})
agg = binned.groupby("bin").agg(m=("m", "mean"), p=("p", "mean"), sd=("p", "std"),
                                k=("p", "size"), bias=("bias", "mean"), mar=("mar", "mean"))
fig, ax = splot.subplots(figsize=(6.2, 3.8))
ax.scatter(fit_m * canvas_px, fit_p, s=6, alpha=0.25, color=splot.CYCLE[0], label="scenes")
ax.errorbar(agg["m"] * canvas_px, agg["p"], yerr=agg["sd"] / np.sqrt(agg["k"]), fmt="o",
            color=splot.CYCLE[0], label="binned mean ± s.e.")
ax.plot(agg["m"] * canvas_px, agg["bias"], "-", color=splot.THEORY,
        label="biased Luce rule (ML fit)")
ax.plot(agg["m"] * canvas_px, agg["mar"], "--", color=splot.THEORY_ALT,
        label="margin resolution (LS fit)")
ax.axhline(0.25, color="0.7", lw=0.8, label="chance (1/4)")
ax.set(xlabel="margin $d_2 - d_1$ (pixels)", ylabel="P(correct)", ylim=(0, 1.02))
splot.legend_outside(fig, ax, ncol=2)
report.figure("margin", fig)
splot.table(pd.DataFrame(fit_rows)[["kernel", "scale_px", "ci_low_px", "ci_high_px", "floor",
                                    "distance_p", "at_bound"]], decimals=3)

# %% [markdown]
# ```{glue:figure} ch6-fig-margin
# :name: ch6-fig-margin
# :alt: Accuracy of the model against the distance margin, with fitted curves.
#
# The model's probability of naming the nearest of four shapes against the margin between the
# nearest and second-nearest distance (dots: scenes; circles: equal-count bins with standard
# errors). Lines: the fitted biased Luce rule and margin resolution, averaged over the same
# bins.
# ```
#
# The biased Luce rule puts the scale at $\lambda =$ {glue:text}`ch6_scale_px:.1f` px
# ({glue:text}`ch6_scale_frac:.3f` of the canvas; 95% bootstrap interval
# {glue:text}`ch6_scale_lo:.1f`–{glue:text}`ch6_scale_hi:.1f` px) with floor
# $\Delta =$ {glue:text}`ch6_floor:.3g`; the least-squares fit without bias terms gives
# {glue:text}`ch6_ls_scale_px:.1f` px. The most favoured answer is
# {glue:md}`ch6_top_answer` with weight {glue:text}`ch6_top_weight:.3f` (no bias:
# {glue:text}`ch6_uniform_weight:.3f`; all weights with intervals are in `fit_weights.csv`).
# Mean accuracy on these scenes: {glue:text}`ch6_fit_acc:.3f` ({numref}`ch6-fig-margin`).
# {glue:md}`ch6_live_scale_verdict`
#
# The chapter's estimator is the biased Luce rule by maximum likelihood: it uses the
# probability the model gives every option, not only the correct one, and separates a
# preference for an answer from distance. The least-squares fits to P(correct) are there to
# check it: a scale is called identified only when the estimators' intervals overlap
# ({glue:md}`ch6_estimators`; a necessary condition, not a test that they are equal) and its
# likelihood profile is bounded on both sides inside the design (above one image patch,
# {glue:text}`ch6_patch_px` px, below the largest distance). What a patch or a grid cell
# limits is the scale itself, so a set narrower than a patch is a precise measurement. Every
# fit in `fit.csv` carries its goodness of fit (`gof_test`, `gof_stat`, `gof_df`, `gof_p`,
# `gof_resolution`, `misfit`: $\chi^2$ of equal-count margin bins for the live model, the
# multinomial deviance of the grid cells for the paper's models).
#
# %% [markdown]
# ## Many shapes: generalization, identification and the $1/n$ test
#
# The paper predicts the $1/n$ collapse but never varies $n$. Here the same model answers both
# tasks for several $n$. The reference is Theorem 3 with the ball kernel
# $g_{\varepsilon;0}$ in its heterogeneous form: each scored scene has its own ball measure
# $b_p = \nu(B_\varepsilon(p))$ at its probe $p$ — the chance that another shape's centre
# falls within $\varepsilon$ of the X, shapes being uniform where the scene sampler puts them
# and outside the probe's clearance — and the prediction is the average of Theorem 3 over the
# scenes, $p^n(\varepsilon) = \tfrac1N \sum_p p^n(b_p)$. The radius is fitted to each task
# separately by a $\chi^2$ profile over a grid that runs past the canvas diagonal (where every
# prediction is chance), with the set of radii within the 95% level as the interval. Shapes
# keep $1.3$ widths apart and the similarity X one width from every shape, so a small radius
# leaves no shape in the ball: identification is then perfect for every radius below the
# spacing and cannot tell those radii apart. The fit says when a radius is bounded from one
# side only.

# %% tags=["hide-input"]
EPS_GRID = np.linspace(0, 1.5, 301)
rows, scene_rows, curves, sweep_geom = [], [], {}, {}
for k, task in enumerate(scenes.TASKS):
    for n in cfg["sweep_n"]:
        lst = scenes.sample_scenes(cfg["sweep_scenes"], n, task, stream("sweep_scenes", k, n))
        probs, p = score(lst)
        d = [s.distances for s in lst]
        names = [list(s.names) for s in lst]
        t = [s.target for s in lst]
        probes = np.array([s.probe for s in lst])
        b_p = scenes.ball_measures(probes, EPS_GRID, task)  # (scenes, radii)
        curves[task, n] = theory.n_item(b_p, n)[0 if task == "similarity" else 1].mean(axis=0)
        sweep_geom[task, n] = (np.array(d), np.array(t))
        kern = [q[k] for q, k in zip(choice.choice_probs(d, names, scale, floor, live_weights), t)]
        rows.append({"model": model_name, "task": task, "n": n, "p": p.mean(),
                     "se": p.std(ddof=1) / np.sqrt(len(p)), "p_kernel": float(np.mean(kern))})
        scene_rows += [{"model": model_name, "task": task, "n": n, "x": s.probe[0],
                        "y": s.probe[1], "target": s.answer, "p_correct": q,
                        "margin": s.margin, "set": "sweep"} for s, q in zip(lst, p)]
sweep = pd.DataFrame(rows)


CLEARANCE = {"similarity": SIZE, "identification": 1.3 * SIZE}  # below it p = 1 by design


def ball_fit(tab, task, curve, clear=0.0):
    """Theorem 3's radius for one task's p(n) rows (columns n, p, se): ``vlm.ball_fit``."""
    return vlm.ball_fit(tab["n"], tab["p"], tab["se"], {n: curve[task, n] for n in tab["n"]},
                        EPS_GRID, clear)


ball = {task: ball_fit(sweep[sweep.task == task], task, curves, CLEARANCE[task])
        for task in scenes.TASKS}
for task in scenes.TASKS:  # each task's curve at the other task's radius, and its own
    for which in scenes.TASKS:
        sweep.loc[sweep.task == task, f"p_theory_{which[:3]}"] = [
            np.interp(ball[which]["eps"], EPS_GRID, curves[task, n])
            for n in sweep.loc[sweep.task == task, "n"]]
report.table(sweep, "n_sweep")
for name, lst, p in (("map", map_list, map_p), ("fit", fit_list, fit_p)):
    scene_rows += [{"model": model_name, "task": s.task, "n": s.n, "x": s.probe[0],
                    "y": s.probe[1], "target": s.answer, "p_correct": q, "margin": s.margin,
                    "set": name} for s, q in zip(lst, p)]
report.table(pd.DataFrame(scene_rows), "scenes")
for task in scenes.TASKS:
    fit_rows.append({"model": model_name, "source": "live",
                     "kernel": f"Theorem 3 ball radius, {task}",
                     "scale_frac": ball[task]["eps"], "scale_px": ball[task]["eps"] * canvas_px,
                     "ci_low_px": ball[task]["ci_low"] * canvas_px,
                     "ci_high_px": ball[task]["ci_high"] * canvas_px, "floor": np.nan,
                     "trials": int(cfg["sweep_scenes"] * len(cfg["sweep_n"])),
                     "distance_p": np.nan, "boot_at_bound": np.nan,
                     "at_bound": ball[task]["at_bound"],
                     "bound_params": ball[task]["bound_params"], **no_profile,
                     **{key: ball[task][key] for key in GOF_KEYS}})
sim, ide = (sweep[sweep.task == t].set_index("n") for t in scenes.TASKS)
if 2 in cfg["sweep_n"]:
    report.point(f"{model_name}, n = 2", ide.p[2], sim.p[2], ide.se[2], sim.se[2])
n_lo, n_hi = min(cfg["sweep_n"]), max(cfg["sweep_n"])
for key, val in {"ps_lo": sim.p[n_lo], "ps_hi": sim.p[n_hi], "pi_lo": ide.p[n_lo],
                 "pi_hi": ide.p[n_hi]}.items():
    report.number(key, val)
report.number("n_lo", n_lo)
report.number("n_hi", n_hi)


radius_text = vlm.radius_text


def two_task_verdict(label, fitted, result, statement, px=1.0, unit="of the canvas"):
    """One resolution for both tasks? ``vlm.one_radius`` on the two radius fits: a sentence
    (None without both fits), and an overview row ``result`` with the difference of the radii
    and its interval against 0: inconclusive when the interval covers 0 (equal radii are not
    rejected, which is no measurement that they are equal), does not hold when it excludes 0."""
    v = vlm.one_radius(label, fitted.get("similarity"), fitted.get("identification"), px, unit)
    if result and v["text"]:
        report.result(
            result, f"{MISFIT}, so no radius is compared (the test was: {statement})"
            if v["misfit"] else statement + ("" if v["identified"] else "; the radius is not "
                                             "identified by both tasks") +
            ("" if v["p_equal"] is None else f" (equal radii: p = {v['p_equal']:.2g})"),
            misfit=v["misfit"], identified=v["identified"], new=True,
            headline=v["difference"], ci=v["ci"], compared_with=0.0,
            compared_with_label="equal radii", tolerance=0.0, tolerance_reason="no allowance: "
            "nothing sets how different two radii may be and still count as one")
    return v["text"]


report.text("two_task", two_task_verdict(
    model_name, ball, f"{model_name}: one Theorem 3 radius for both tasks (new)",
    "the ball radius fitted to p_S(n) equals that fitted to p_I(n): headline, their difference "
    "(canvas units) with its 95% profile interval", canvas_px, "px"), markdown=True)
# the graded kernel without a floor, g = exp(-d / lambda), fitted to p(n) the same way: per task
# and one scale for both tasks
LAM_GRID = np.geomspace(1e-3, 3.0, 161)
lam_pred = {(task, n): np.array([vlm.luce_exponential(*sweep_geom[task, n], lam).mean()
                                 for lam in LAM_GRID]) for task, n in sweep_geom}
graded = {}
for name_, tasks_ in (("similarity", ["similarity"]), ("identification", ["identification"]),
                      ("both tasks", list(scenes.TASKS))):
    part = sweep[sweep.task.isin(tasks_)]
    se_ = np.maximum(part.se.to_numpy(), 1e-3)
    pred = np.array([lam_pred[t, n] for t, n in zip(part.task, part.n)])  # (rows, lambdas)
    stat = (((part.p.to_numpy()[:, None] - pred) / se_[:, None]) ** 2).sum(axis=0)
    j = int(np.argmin(stat))
    graded[name_] = {"lam": float(LAM_GRID[j]), "at_bound": j in (0, len(LAM_GRID) - 1),
                     **fits.gof_chi2(part.p, pred[:, j], se_, 1)}
    fit_rows.append({"model": model_name, "source": "live",
                     "kernel": f"exponential without floor on p(n), {name_}",
                     "scale_frac": LAM_GRID[j], "scale_px": LAM_GRID[j] * canvas_px,
                     "ci_low_px": np.nan, "ci_high_px": np.nan, "floor": 0.0,
                     "trials": int(cfg["sweep_scenes"] * len(part)), "distance_p": np.nan,
                     "boot_at_bound": np.nan, "at_bound": graded[name_]["at_bound"],
                     "bound_params": "lambda=grid" if graded[name_]["at_bound"] else "",
                     **no_profile, **{key: graded[name_][key] for key in GOF_KEYS}})


def gof_words(g):
    return (f"χ² = {g['gof_stat']:.1f} on {g['gof_df']} df, p = {g['gof_p']:.2g}"
            + (f": {MISFIT}" if g["misfit"] else ""))


report.text("kernels", "Three kernels against p(n): the step (Theorem 3's ball) — "
            + "; ".join(f"{t} {gof_words(ball[t])}" for t in scenes.TASKS)
            + "; the graded exponential without a floor — "
            + "; ".join(f"{t}, λ = {g['lam'] * canvas_px:.3g} px, {gof_words(g)}"
                        for t, g in graded.items())
            + "; the biased Luce rule of the four-shape fit (not refitted) misses by the "
            "root-mean-square below.", markdown=True)
if 2 in cfg["sweep_n"] and ide.p[2] >= 0.5:
    front_ps = float(theory.front(ide.p[2]))
    gap_ = float(sim.p[2] - front_ps)
    z_ = gap_ / max(float(sim.se[2]), 1e-9)
    where_ = ("above" if z_ > 2 else "below" if z_ < -2 else "within two standard errors of")
    report.text("frontier", (
        f"At n = 2 the model's (p_I, p_S) = ({ide.p[2]:.3f}, {sim.p[2]:.3f}) lies {where_} "
        f"chapter 7's universal two-item front (p_S = {front_ps:.3f} at that p_I; "
        f"{gap_:+.3f}, {z_:+.1f} standard errors). "
        + ("Chapter 7 proves a kernel with a floor cannot pass above the front and a graded "
           "kernel without a floor can: the model behaves as a graded similarity without a "
           "floor, which a constant (ball) kernel is not." if z_ > 2 else
           "A kernel with a floor stays on or below the front (chapter 7), so this does not "
           "separate the kernels.")), markdown=True)
else:
    report.text("frontier", "The sweep has no n = 2 with p_I ≥ 1/2, so the model is not placed "
                "against chapter 7's two-item front.", markdown=True)
report.text("radii", "; ".join(radius_text(t, ball[t], canvas_px) for t in scenes.TASKS) + ".",
            markdown=True)
kern_rmse = {t: float(np.sqrt(np.mean((tab.p - tab.p_kernel) ** 2)))
             for t, tab in (("similarity", sim), ("identification", ide))}
report.number("kern_rmse_s", kern_rmse["similarity"])
report.number("kern_rmse_i", kern_rmse["identification"])

fig, axes = splot.subplots(1, 2, figsize=(7.2, 3.6), sharey=True)
for ax, (task, tab) in zip(axes, (("similarity", sim), ("identification", ide))):
    ax.errorbar(tab.index, tab.p, yerr=tab.se, fmt="o", color=splot.CYCLE[0], label="model")
    ax.plot(tab.index, tab["p_theory_sim"], "-", color=splot.THEORY,
            label=r"Theorem 3, $\varepsilon$ fitted to $p_S$")
    ax.plot(tab.index, tab["p_theory_ide"], "-.", color=splot.CYCLE[1],
            label=r"Theorem 3, $\varepsilon$ fitted to $p_I$")
    ax.plot(tab.index, tab.p_kernel, "--", color=splot.THEORY_ALT,
            label="biased Luce rule of the margin fit")
    nn = np.arange(2, n_hi + 1)
    ax.plot(nn, 1 / nn, ":", color="0.6", label="chance, 1/n")
    letter = "S" if task == "similarity" else "I"
    ax.set(xlabel="number of shapes n", title=f"{task} ($p_{letter}$)", ylim=(0, 1.02))
axes[0].set_ylabel("P(correct)")
splot.legend_outside(fig, axes, ncol=2)
report.figure("nsweep", fig)

# %% [markdown]
# ```{glue:figure} ch6-fig-nsweep
# :name: ch6-fig-nsweep
# :alt: Two panels of accuracy against the number of shapes for both tasks, with Theorem 3 curves.
#
# Generalization $p_S$ (left, nearest shape to the X) and identification $p_I$ (right, the
# shape at the X) against the number of shapes, with standard errors over scenes. Solid and
# dash-dotted: Theorem 3 averaged over each scene's own ball measure $b_p$, at the radius
# fitted to $p_S$ and to $p_I$; dashed: the biased Luce rule fitted to the four-shape
# similarity scenes, evaluated on each scene (identification included: the X on a shape is a
# distance of 0); dotted: chance.
# ```
#
# From $n =$ {glue:text}`ch6_n_lo` to {glue:text}`ch6_n_hi`, $p_S$ goes from
# {glue:text}`ch6_ps_lo:.3f` to {glue:text}`ch6_ps_hi:.3f` and $p_I$ from
# {glue:text}`ch6_pi_lo:.3f` to {glue:text}`ch6_pi_hi:.3f`. Theorem 3's radius:
# {glue:md}`ch6_radii` {glue:md}`ch6_two_task` The similarity fit's biased Luce rule, carried
# to all $n$ and to identification, misses by {glue:text}`ch6_kern_rmse_s:.3f` (similarity) and
# {glue:text}`ch6_kern_rmse_i:.3f` (identification) root-mean-square ({numref}`ch6-fig-nsweep`).
# {glue:md}`ch6_kernels` {glue:md}`ch6_frontier`
#
# A fit whose goodness-of-fit p-value is below 0.001 is reported as a misfit — the model does
# not describe the data — and its parameter is not read as a measurement; a radius is called
# identified only when its fit passes and its 95% set lies inside the design (above the
# clearance below which the scenes make the task perfect, and wider than a grid step).
#
# %% [markdown]
# ## The paper's models: Gemma-3-12B and Qwen2.5-VL-7B
#
# The authors released the per-scene answers of both models on their four-shape task (a
# 900 px canvas, 50 px shapes centred 25 px from the corners, the X anywhere; 400 scenes per
# model). Their repository has no licence file, so this book ships only counts derived from
# those files (per margin bin, and per cell of a coarse grid over the X's position, with how
# often each shape was named), with a provenance record; the same analyses run on the full
# per-trial files when a reader passes them as `results=` (below). From the grid counts, each
# trial's X is placed at its cell's mean position, which blurs distances by up to half a cell;
# the per-trial fit has no such blur.

# %% tags=["hide-input", "hide-output"]
AUTH_PX = float(scenes.AUTHORS["canvas_px"])
AUTH_NAMES = list(scenes.AUTHORS["layout"])
external, ext_fits, ext_verdicts = [], [], []


def margin_counts(label, source, task, n, m, correct, width):
    """Trials and correct answers per margin bin of ``width`` (canvas or hue units)."""
    k = np.floor(np.asarray(m) / width + 1e-9).astype(int)
    tab = pd.DataFrame({"k": k, "c": np.asarray(correct, int)}).groupby("k")["c"].agg(
        ["size", "sum"]).reset_index()
    return [{"model": label, "source": source, "task": task, "n": int(n),
             "bin": f"[{kk * width:g},{(kk + 1) * width:g})", "bin_mid": (kk + 0.5) * width,
             "trials": int(tr), "correct": int(c)} for kk, tr, c in tab.itertuples(index=False)]


def analyse_choices(label, source, d, names, choices, px, resolution, gof=None,
                    statement=None):
    """Biased and plain Luce fits of a model's similarity choices; fit rows, weights, verdict
    (and an overview row with a ``statement``). ``resolution``: the finest distance the data
    resolve (a grid cell, a pixel); ``gof(fit, params)`` defaults to a binomial deviance of the
    correct answers in margin bins of a twentieth of the canvas."""
    dd, _ = choice.pad(d)
    if gof is None:
        m_ = np.array([np.diff(np.sort(x)[:2])[0] for x in d])
        ok_ = np.array([c >= 0 and x[c] == np.min(x) for x, c in zip(d, choices)])
        k_ = np.floor(m_ / 0.05).astype(int)

        def gof(f, params):
            q = np.array([pr[np.argmin(x)] for pr, x in zip(choice.choice_probs(
                d, names, f["scale"], f["floor"], f["weights"]), d)])
            tab = pd.DataFrame({"k": k_, "ok": ok_, "q": q}).groupby("k").agg(
                ok=("ok", "sum"), n=("ok", "size"), q=("q", "mean"))
            return fits.gof_multinomial(np.c_[tab.ok, tab.n - tab.ok], np.c_[tab.q, 1 - tab.q],
                                          params)
    rows_, f = choice_rows(label, source, d, names, px, choices=choices, gof=gof)
    return rows_, weight_rows(label, f), scale_verdict(
        label, f, px, resolution, float(np.nanmax(np.where(np.isfinite(dd), dd, np.nan))),
        statement), f


def margin_rows(tab):
    """external.csv rows from a shipped table of counts per margin bin."""
    return [{"model": r.model, "source": r.source, "task": r.task, "n": int(r.n), "bin": r.bin,
             "bin_mid": (r.bin_lo + r.bin_hi) / 2, "trials": int(r.trials),
             "correct": int(r.correct)} for r in tab.itertuples(index=False)]


if "spatial_margin" in SHIPPED:
    external += margin_rows(released.load_table("spatial_margin"))
auth_fits = {}
if "spatial_grid" in SHIPPED:
    grid_tab = released.load_table("spatial_grid")
    for label in sorted(set(grid_tab["model"])):
        g = released.grid_design(grid_tab, label)
        cell, k = np.nonzero(g["counts"])
        reps = g["counts"][cell, k]
        d_trials = np.repeat(g["d"][cell], reps, axis=0)
        c_trials = np.repeat(k, reps)
        src = str(grid_tab.loc[grid_tab.model == label, "source"].iloc[0])
        assert AUTH_NAMES == g["names"]

        def grid_gof(f, params, g=g):
            q = choice.choice_probs(g["d"], [AUTH_NAMES] * len(g["d"]), f["scale"], f["floor"],
                                    f["weights"])
            return fits.gof_multinomial(g["counts"], np.array(q), params)

        r_, w_, verdict, f = analyse_choices(
            label, src + " (shipped grid counts)", d_trials, [AUTH_NAMES] * len(c_trials),
            c_trials, AUTH_PX, 1 / released.GRID, grid_gof,
            f"a spatial scale of the biased Luce rule, measured from {label}'s released "
            "four-shape answers (pixels of the 900 px canvas); identified when the rule fits "
            "and its likelihood set lies above one 150 px grid cell and below the largest "
            "distance")
        auth_fits[label] = f
        ext_fits += r_
        weights += w_
        ext_verdicts.append(verdict)
# The random stencils: the same corners, names shuffled per scene, so a bias for a name and a
# bias for a place come apart. The shipped tables hold the confusion by name and by corner.
stencil_rows = []
if {"spatial_confusion", "spatial_corner"} <= set(SHIPPED):
    conf_tab = released.load_table("spatial_confusion")
    corner_tab = released.load_table("spatial_corner")
    for j, label in enumerate(sorted(set(conf_tab["model"]))):
        sel = lambda t: t[(t.model == label) & (t.experiment == "random_stencil")].set_index("bin")
        nt = sel(conf_tab).reindex(list(released.SPATIAL_SHAPES))[
            [f"chose_{x}" for x in released.SPATIAL_SHAPES]].to_numpy()
        ct = sel(corner_tab).reindex(list(released.CORNERS))[
            [f"chose_{x}" for x in released.CORNERS]].to_numpy()
        if np.isnan(nt).any() or np.isnan(ct).any():
            continue
        nc = choice.fit_name_corner(nt, ct, boot=cfg["stencil_boot"],
                                    seed=stream("stencil_bootstrap", j))
        for kind, keys, w, wci in (
                ("name", released.SPATIAL_SHAPES, nc["name_weights"], nc["name_weights_ci"]),
                ("place", released.CORNERS, nc["place_weights"], nc["place_weights_ci"])):
            stencil_rows += [{"model": label, "weight_of": kind, "answer": key, "weight": ww,
                              "ci_low": lo, "ci_high": hi} for key, ww, (lo, hi) in
                             zip(keys, w, wci)]
        misfit = bool(nc["misfit"])
        top_n = released.SPATIAL_SHAPES[int(np.argmax(nc["name_weights"]))]
        top_p = released.CORNERS[int(np.argmax(nc["place_weights"]))]
        place_bias = bool(np.any((nc["place_weights_ci"][:, 0] > 0.25)
                                 | (nc["place_weights_ci"][:, 1] < 0.25)))
        name_bias = bool(np.any((nc["name_weights_ci"][:, 0] > 0.25)
                                | (nc["name_weights_ci"][:, 1] < 0.25)))
        spread = {k_: float(np.max(w_) / np.min(w_)) for k_, w_ in (
            ("name", nc["name_weights"]), ("place", nc["place_weights"]))}
        main = max(spread, key=spread.get)
        ext_verdicts.append(
            f"On the random stencils, {label}'s answers weigh names and places: name weights "
            f"from {min(nc['name_weights']):.2f} to {max(nc['name_weights']):.2f} (highest "
            f"“{top_n}”), place weights from {min(nc['place_weights']):.2f} to "
            f"{max(nc['place_weights']):.2f} (highest {top_p.replace('_', '-')}), correct-answer "
            f"advantage {nc['advantage']:.2f} (95% {nc['advantage_ci'][0]:.2f}–"
            f"{nc['advantage_ci'][1]:.2f}); goodness of fit (parametric bootstrap, "
            f"{cfg['stencil_boot']} datasets; misfit rule "
            f"{fits.misfit_rule(nc['gof_resolution'])}) p = {nc['gof_p']:.3g}"
            + (" (no simulated deviance reached the observed one)"
               if nc["gof_p"] <= nc["gof_resolution"] * (1 + 1e-9) else "")
            + (f": {MISFIT} — one advantage for every geometry is too coarse, and the weights "
               "are a description, not a measurement. " if misfit else ". ")
            + (f"The bias is mainly a bias for a {main} (weights span {spread[main]:.1f}×, "
               f"against {min(spread.values()):.1f}×)"
               + (", and " + ("a place bias" if main == "name" else "a name bias")
                  + " is present too (an interval excludes 1/4)."
                  if (place_bias if main == "name" else name_bias) else ".")))
    report.table(pd.DataFrame(stencil_rows), "stencil_weights")

# does accuracy against the margin carry over from the fixed corners to the random stencils?
if "spatial_margin" in SHIPPED:
    mt = released.load_table("spatial_margin")
    for label, part in mt.groupby("model"):
        piv = part.pivot_table(index="bin_lo", columns="experiment",
                               values=["correct", "answered"], aggfunc="sum").dropna()
        if piv.empty or piv.shape[1] < 4:
            continue
        stat_, df_ = 0.0, 0
        for _, r in piv.iterrows():
            c = np.array([[r["correct", e], r["answered", e] - r["correct", e]]
                          for e in ("spatial_far", "random_stencil")])
            if c.sum(axis=1).min() == 0:
                continue
            pool = c[:, 0].sum() / c.sum()
            g_ = fits.gof_multinomial(c, np.tile([pool, 1 - pool], (2, 1)), 1)
            stat_, df_ = stat_ + g_["gof_stat"], df_ + g_["gof_df"]
        from scipy.stats import chi2 as _chi2
        p_ = float(_chi2.sf(stat_, df_))
        ext_verdicts.append(
            f"{label}: the shipped tables hold no per-trial positions for the random stencils, "
            "so a scale cannot be fitted there and whether the scale carries over from one "
            "layout to the other cannot be tested from them; what they allow is accuracy "
            f"against the margin, which {'differs' if p_ < 0.01 else 'does not differ detectably'}"
            f" between the two layouts (deviance {stat_:.1f} on {df_:.0f} margin bins, p = {p_:.2g}).")
report.text("auth_verdicts", " ".join(ext_verdicts) or
            "No tables of the paper's models are shipped.", markdown=True)

colour_n = None
if "colour_margin" in SHIPPED:
    ctab = released.load_table("colour_margin")
    external += margin_rows(ctab)
    colour_n = ctab.groupby(["model", "task", "n"])[["trials", "correct"]].sum().reset_index()
    colour_n["space"] = "hue"


def hue_curves(ns):
    """Theorem 3 on the hue circle (homogeneous, b = 2 eps up to 1), per task and n."""
    b = np.minimum(2 * EPS_GRID, 1.0)
    return {(t, n): theory.n_item(b, n)[0 if t == "similarity" else 1]
            for t in scenes.TASKS for n in ns}


def analyse_n(label, source, tab, curve, unit, result=None, statement=None):
    """p_S and p_I against n for one model (columns task, n, trials, correct): Theorem 3's
    radius per task, the two-task verdict (and an overview row ``result``), rows for fit.csv
    and points for the plane."""
    tab = tab.assign(p=tab.correct / tab.trials,
                     se=np.sqrt(np.maximum(tab.correct, 0.5) * np.maximum(
                         tab.trials - tab.correct, 0.5)) / tab.trials ** 1.5)
    out_rows, fitted = [], {}
    for task in scenes.TASKS:
        part = tab[tab.task == task].sort_values("n")
        if part["n"].nunique() < 2:
            continue
        f = ball_fit(part, task, curve)
        fitted[task] = f
        out_rows.append({"model": label, "source": source,
                         "kernel": f"Theorem 3 ball radius, {task}", "scale_frac": f["eps"],
                         "scale_px": np.nan, "ci_low_px": np.nan, "ci_high_px": np.nan,
                         "floor": np.nan, "trials": int(part.trials.sum()),
                         "distance_p": np.nan, "boot_at_bound": np.nan,
                         "at_bound": f["at_bound"], "bound_params": f["bound_params"],
                         **no_profile, **{key: f[key] for key in GOF_KEYS}})
    verdict = two_task_verdict(label, fitted, result, statement, unit=unit)
    if verdict:
        verdict += " Theorem 3's radius: " + "; ".join(
            radius_text(t, f, 1.0, unit) for t, f in fitted.items()) + "."
    return tab, fitted, out_rows, verdict


colour_results = {}
if colour_n is not None:
    cc = hue_curves(sorted(set(colour_n["n"])))
    for label, part in colour_n.groupby("model"):
        colour_results[label] = analyse_n(
            label, "shipped colour counts", part, cc, "of the hue circle",
            f"{label}, colour variant: one Theorem 3 radius for p_S(n) and p_I(n) (new)",
            "the hue radius fitted to generalization equals that fitted to identification: "
            "headline, their difference (hue circle) with its 95% profile interval") + (cc,)
        ext_fits += colour_results[label][2]
ext_table = pd.DataFrame(external)

fig, ax = splot.subplots(figsize=(6.2, 3.8))
for k, (label, part) in enumerate(ext_table[ext_table.task == "similarity"].groupby("model")
                                  if len(ext_table) else []):
    part = part[part.n == 4].groupby("bin_mid")[["trials", "correct"]].sum().reset_index()
    if part.empty or part.bin_mid.max() > 1:
        continue
    p = part.correct / part.trials
    ax.errorbar(part.bin_mid * AUTH_PX, p, yerr=np.sqrt(p * (1 - p) / part.trials), fmt="o-",
                ms=4, color=splot.CYCLE[k + 1], label=f"{label} (released, 900 px canvas)")
ax.errorbar(agg["m"] * AUTH_PX, agg["p"], yerr=agg["sd"] / np.sqrt(agg["k"]), fmt="s",
            ms=4, color=splot.CYCLE[0], label=f"{model_name} (canvas rescaled to 900 px)")
ax.axhline(0.25, color="0.7", lw=0.8, label="chance (1/4)")
ax.set(xlabel="margin $d_2 - d_1$ (pixels of a 900 px canvas)", ylabel="P(correct)",
       ylim=(0, 1.02))
splot.legend_outside(fig, ax, ncol=1)
report.figure("released", fig)
if ext_fits:
    display(splot.table(pd.DataFrame(ext_fits)[["model", "kernel", "scale_px", "ci_low_px",
                                                "ci_high_px", "floor", "distance_p",
                                                "at_bound"]], decimals=3))

# %% [markdown]
# ```{glue:figure} ch6-fig-released
# :name: ch6-fig-released
# :alt: Accuracy against margin for the paper's two models and the model run here.
#
# Accuracy against the margin for the paper's models (circles: the authors' released answers,
# margin bins with binomial standard errors) and for the model run here (squares: its
# four-shape scenes, margins rescaled to a 900 px canvas). Chance is 1/4.
# ```
#
# {glue:md}`ch6_auth_verdicts` The fitted response weights of every model, with their
# intervals, are in `fit_weights.csv`; the table above gives the fits with and without them
# ({numref}`ch6-fig-released`).
#
# %% [markdown]
# ### The colour variant: the $1/n$ test on real models
#
# The authors also asked both models about lettered patches of saturated hues, $n = 4$ to 12
# patches, in both tasks: which patch is closest in hue to a target colour (similarity) and
# which patch has exactly the target's hue (identification). Hue is a circle, a homogeneous
# space, so Theorem 3 applies with $b = 2\varepsilon$ (hue distance as a fraction of the
# circle). Each task's radius is fitted by the same $\chi^2$ profile as above.

# %% tags=["hide-input"]
colour_verdicts = []
fig, axes = splot.subplots(1, 3, figsize=(7.2, 3.2))
for k, (label, (tab, fitted, _, verdict, cc)) in enumerate(colour_results.items()):
    colour = splot.CYCLE[k + 1]
    for ax, task in zip(axes[:2], scenes.TASKS):
        part = tab[tab.task == task].sort_values("n")
        ax.errorbar(part.n, part.p, yerr=part.se, fmt="o", ms=4, color=colour, label=label)
        if task in fitted:
            ax.plot(part.n, [np.interp(fitted[task]["eps"], EPS_GRID, cc[task, n])
                             for n in part.n], "-", color=colour, lw=1)
    both = tab.pivot_table(index="n", columns="task", values="p")
    if set(scenes.TASKS) <= set(both.columns):
        axes[2].plot(both["identification"], both["similarity"], "o-", ms=4, color=colour,
                     label=label)
        for n in (both.index.min(), both.index.max()):
            bb = np.linspace(0, 1, 101)
            ps, pi = theory.n_item(bb, n)
            axes[2].plot(pi, ps, ":", color="0.5", lw=1)
            axes[2].annotate(f"n = {n}", (pi[5], ps[5]), fontsize=9, color="0.4")
    colour_verdicts.append(verdict or f"{label}: one task only, no two-task test.")
for ax, task in zip(axes[:2], scenes.TASKS):
    ax.set(xlabel="number of patches n", title=task, ylim=(0, 1.02))
axes[0].set_ylabel("P(correct)")
axes[2].set(xlabel="$p_I$", ylabel="$p_S$", title="both tasks", xlim=(0, 1.02),
            ylim=(0, 1.02))
splot.legend_outside(fig, axes, ncol=2)
report.text("colour_verdict", " ".join(colour_verdicts) if colour_verdicts else
            "The colour tables are not shipped in this build, so the colour variant is not "
            "analysed.", markdown=True)
report.figure("colour", fig)

# %% [markdown]
# ```{glue:figure} ch6-fig-colour
# :name: ch6-fig-colour
# :alt: Accuracy against the number of hue patches for both tasks, and the two tasks on one plane.
#
# The colour variant (empty when its tables are not shipped). Left and middle: $p_S$ and $p_I$
# against the number of patches, with Theorem 3 at each task's fitted radius. Right: both
# tasks on the $(p_I, p_S)$ plane, one point per $n$, over Theorem 3's curves (dotted, $b$
# from 0 to 1) for the smallest and largest $n$.
# ```
#
# {glue:md}`ch6_colour_verdict`
#
# ## Your own results files
#
# Any model's per-trial answers in the book's results schema (`semres.results`: task, $n$,
# options with their positions, probe, correct option, choice) go through exactly the analyses
# above with `semres run 6 -p results=PATH[,PATH...]` (files or folders of CSV files): per model,
# the biased and plain Luce fits of its similarity choices with bootstrap intervals and bound
# flags, accuracy against the margin, and, where the files hold several $n$, $p_S$ and $p_I$
# against $n$ with Theorem 3's radius for each task. The authors' released CSV files can be
# passed as they are (they are read through their adapters in `semres.released`).

# %% tags=["hide-input"]
file_verdicts = []
if results_df is not None:
    results_df = results_df.assign(_d=tidy.distances(results_df),
                                   _c=tidy.choice_index(results_df),
                                   _ok=[bool(m[c]) if c >= 0 else False for m, c in zip(
                                       tidy.correct_mask(results_df),
                                       tidy.choice_index(results_df))])
    skipped = sorted(set(results_df.loc[~results_df.space.isin(["canvas", "hue"]), "model"]))
    if skipped:  # birth years and the like belong to chapter 5
        file_verdicts.append("Rows outside a canvas or hue space are left to their own "
                             "chapter: " + ", ".join(skipped) + ".")
    if "experiment" not in results_df:
        results_df["experiment"] = ""
    results_df["experiment"] = results_df["experiment"].fillna("").astype(str)
    for (model_, space, exp), part in results_df[
            results_df.space.isin(["canvas", "hue"])].groupby(["model", "space", "experiment"]):
        src = ";".join(sorted(set(part["source"].astype(str))))
        label = f"{model_} ({exp})" if exp else model_  # one analysis per experiment
        px = AUTH_PX if space == "canvas" else 1.0
        simp = part[part.task == "similarity"]
        if len(simp) >= 10:
            d_ = list(simp["_d"])
            names_ = [tidy.split_list(o) for o in simp["options"]]
            r_, w_, verdict, f = analyse_choices(label, src, d_, names_,
                                                 simp["_c"].to_numpy(), px, 1 / px)
            ext_fits += r_
            weights += w_
            file_verdicts.append(verdict)
            m_ = np.array([np.diff(np.sort(x)[:2])[0] for x in d_])
            width = 0.05 if space == "canvas" else 0.01
            for n, sub in simp.assign(_m=m_).groupby("n"):
                external += margin_counts(label, src, "similarity", n, sub["_m"], sub["_ok"],
                                          width)
        counts = (part.groupby(["task", "n"])["_ok"].agg(["size", "sum"]).reset_index()
                  .rename(columns={"size": "trials", "sum": "correct"}))
        if counts.groupby("task")["n"].nunique().ge(2).any():
            if space == "hue":
                cur = hue_curves(sorted(set(counts.n)))
            else:  # each trial's own ball measure, in this book's scene geometry
                cur = {}
                for (task, n), sub in part.groupby(["task", "n"]):
                    pr = np.array([[float(v) for v in p.split(",")] for p in sub["probe"]])
                    b_p = scenes.ball_measures(pr, EPS_GRID, task)
                    cur[task, n] = theory.n_item(b_p, n)[
                        0 if task == "similarity" else 1].mean(axis=0)
            _, fitted, r_, verdict = analyse_n(
                label, src, counts, cur, "of the canvas" if space == "canvas" else
                "of the hue circle" if space == "hue" else "years")
            ext_fits += r_
            if verdict:
                file_verdicts.append(verdict)
    # the shipped grid counts blur each X to its cell: does the per-trial fit agree?
    for label, f in auth_fits.items():
        row = [r for r in ext_fits if r["model"] == f"{label} (spatial_far)"
               and r["kernel"] == "exponential + response bias (ML)"]
        if row:
            r = row[0]
            lo, hi = f["scale_ci"][0] * AUTH_PX, f["scale_ci"][1] * AUTH_PX
            within = r["ci_low_px"] <= f["scale"] * AUTH_PX <= r["ci_high_px"]
            # the same trials, so not two independent estimates to test for equality: how far
            # the grid's blur moves the scale, against the per-trial interval
            file_verdicts.append(
                f"{label}: the per-trial scale is {r['scale_px']:.0f} px "
                f"({r['ci_low_px']:.0f}–{r['ci_high_px']:.0f}), the one from the shipped grid "
                f"counts of the same trials {f['scale'] * AUTH_PX:.0f} px ({lo:.0f}–{hi:.0f}): "
                f"the grid's blur moves it by {f['scale'] * AUTH_PX - r['scale_px']:+.0f} px, "
                + ("inside" if within else "outside") + " the per-trial interval.")

# %% [markdown]
# {glue:md}`ch6_file_verdicts`
#
# ## What this shows, and where it differs from the paper

# %% tags=["hide-input"]
fit_table = pd.DataFrame(fit_rows + ext_fits)
fit_table["at_bound"] = fit_table["at_bound"].astype(bool)
fit_table["misfit"] = fit_table["misfit"].astype("boolean")  # empty where untested
report.table(fit_table, "fit")
report.table(pd.DataFrame(weights), "fit_weights")
ext_table = pd.DataFrame(external, columns=["model", "source", "task", "n", "bin", "trials",
                                            "correct"])
report.table(ext_table, "external")

report.text("file_verdicts", " ".join(file_verdicts) if file_verdicts else (
    "No results files were given in this build." if results_df is None else
    "The results files hold too few similarity trials or too few n for these analyses."),
            markdown=True)
censored = fit_table[fit_table.at_bound | fit_table.bound_params.fillna("").str.contains(
    "floor=0", regex=False)]
misfits = fit_table[fit_table.misfit.fillna(False).astype(bool)]
report.text("misfits", ("Fits that fail their goodness-of-fit test (p < 0.001, or p at its "
                        "smallest value 1/(B + 1) for a bootstrap of B < 999) — the model does not "
                        "describe the data, so their parameters are not measurements: "
                        + "; ".join(f"{r.model}, {r.kernel} ({r.gof_test} {r.gof_stat:.1f} on "
                                    f"{r.gof_df:.0f} df)" for r in misfits.itertuples()) + ".")
            if len(misfits) else "Every fit that was tested passes its goodness-of-fit test.",
            markdown=True)
censored_list = "; ".join(f"{r.model}, {r.kernel} ({r.bound_params})"
                          for r in censored.itertuples())
report.text("censored", "Fits that stopped on an edge of their search range, or whose floor "
            f"sits at its bound of 0 (censored, no verdict drawn from them): {censored_list}."
            if len(censored) else "No fit in this build stopped on an edge of its search range.",
            markdown=True)

report.deviations(
    None, None,
    "The model is a small LLaVA trained here on rendered scenes (a supervised vision stage "
    "stands in for CLIP pretraining), not Qwen2.5-VL or Gemma-3; its canvas is "
    f"{canvas_px} px, not 900 px." if model is None else
    f"The model is `{model}` on a {canvas_px} px canvas (the paper: 900 px).",
    f"The accuracy map puts the X on a {cfg['grid']} × {cfg['grid']} grid over a fixed layout "
    "of this book's (shapes inside the canvas), not at 400 random positions over the authors' "
    "corner layout; the scale is fitted on separate four-shape scenes with random layouts.")
report.deviations(
    cfg, vlm.SETTINGS.paper,
    "Answers are scored by the options' log-probabilities normalised over the shapes on the "
    "canvas (a Luce probability; nothing generated or parsed); the original parsed generated "
    "text and, as released, processed only five images per model (a guard meant to be removed).",
    f"Beyond the paper: both tasks at n = {', '.join(map(str, cfg['sweep_n']))} "
    f"({cfg['sweep_scenes']} scenes each), identification with the X on a shape, and a "
    "response-bias term in every fit.",
    "The paper's models are fitted from shipped grid counts (each X at its cell's mean), "
    "not from their per-trial positions; pass the authors' files as `results=` for those."
    if "spatial_grid" in SHIPPED else "")
report.save()
summary = report.summary
report.box("; ".join(ran))
splot.table(summary[["result", "headline", "ci_low", "ci_high", "status"]], decimals=3)

# %% [markdown]
# - On a canvas a finite resolution has a precise footprint: a band of width $\varepsilon$
#   around each decision boundary, widening along hyperbolas away from the shapes
#   ({prf:ref}`ch6-prop-band`), and an accuracy that depends on the distance margin —
#   logistically for an exponential similarity ({prf:ref}`ch6-prop-margin`). The accuracy map
#   and the margin curve are the measurements those statements are about.
# - {glue:md}`ch6_live_scale_verdict`
# - {glue:md}`ch6_two_task`
# - {glue:md}`ch6_censored`
# - {glue:md}`ch6_misfits`
# - Theorem 3 assumes items drawn independently; shapes here cannot overlap and keep clear of
#   the canvas edge (the ball measures account for the clearance around the probe only), and a
#   model's errors are not all spatial (it can also misread a shape), so the Theorem 3 curves
#   are an idealisation to read against.
# - CPU numerics on another machine may move the trained model, and with it the fitted scale,
#   within its interval.
#
# Where this build differs from the paper's protocol:
#
# ```{glue:md} ch6_deviations
# :format: myst
# ```
