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
# {cite}`nurisso2026bound` shows two vision-language models (Qwen2.5-VL-7B and Gemma-3-12B) a
# canvas with four black shapes and a red X and asks which shape is closest to the X: accuracy
# falls near the decision boundaries, within a model-specific spatial scale. This chapter
# derives, in SymPy, what a finite spatial resolution predicts on a 2-D canvas (the band around
# each boundary where a model must err, and accuracy as a function of the distance margin),
# checks it by simulation, and then measures it on a vision-language model: the accuracy map,
# the fitted spatial scale with a bootstrap interval, and — beyond the paper — both
# generalization (closest shape) and identification (which shape is red) for 2 to 12 shapes,
# against Theorem 3 with the ball measure read off the canvas. **No pretrained VLM can be loaded
# where this book is built**, so the default model is a *small LLaVA-style model trained here
# from scratch*, on the same scenes; a reader with a hub VLM passes its id as `model` and the
# same code scores it.

# %% tags=["parameters"]
profile = "default"  # quick | default | paper
seed = 0
device = "auto"  # where the default model trains and any model is scored
model = None  # a hub id or folder of an image-text-to-text model; None trains the tiny default
image_size = 0  # canvas pixels for a hub model; 0: the model's own (96 for the tiny default)
batch_size = 32  # rows (scene x answer option) per forward pass when scoring
threads = 1  # torch CPU threads; 1 avoids thrashing on a shared 2-core machine, 0: torch default

# %%
# %matplotlib inline
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sympy as sp
import torch
import transformers
from IPython.display import Markdown, display
from myst_nb import glue

import semres.book
import semres.profiles
import semres.plotting as splot
from semres import kernels, scenes, spaces, theory, vlm
from semres.simulate import luce_success

splot.use_style()
CHAPTER = "06_vlm_shapes"
cfg = semres.profiles.settings(CHAPTER, profile)
if int(batch_size) < 1:
    raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
if int(image_size) < 0:
    raise ValueError(f"image_size must be >= 0; got {image_size!r}")
torch_device = semres.book.torch_device(device)
if int(threads) < 0:
    raise ValueError(f"threads must be >= 0; got {threads!r}")
if int(threads):
    torch.set_num_threads(int(threads))
transformers.logging.disable_progress_bar()  # weight-loading bars, not our progress
SIZE = scenes.SHAPE_SIZE
Z_MAX = 4.0  # simulation vs theory: |z| must stay below this

# %% [markdown]
# ## The task
#
# A scene is a square canvas with $n$ black shapes at random, non-overlapping positions. In the
# **similarity** (generalization) task a red X is the probe, placed at least a shape's width from
# every shape as in the paper, and the answer is the nearest shape. In the **identification**
# task one shape is drawn red and the answer is its name: the probe is an exact copy of one
# item's position, as in the identification test of chapter 1. Both tasks live in the same 2-D
# space, so one spatial resolution should govern both. Geometry is recorded in canvas units
# (the canvas is $[0,1]^2$), so every scene renders at any resolution; the four shapes of the
# paper come first and eight more let $n$ run to 12.

# %%
rng = np.random.default_rng(seed)
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
glue("ch6-fig-scenes", fig, display=False)
plt.close(fig)
glue("ch6_shape_frac", float(SIZE), display=False)

# %% [markdown]
# ```{glue:figure} ch6-fig-scenes
# :name: ch6-fig-scenes
#
# Example scenes (rendered at 192 px; the default model sees 96 px). Top: similarity — which
# black shape is closest to the red X (the first panel is the fixed four-shape layout of the
# accuracy map). Bottom: identification — which shape is red. Titles give the recorded answer.
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
# $P(\text{correct}) = 1 / \bigl(1 + \sum_{j \ge 2} e^{-(d_j - d_1)/\lambda}\bigr)$; with two
# shapes this is the logistic $\sigma(m/\lambda)$ of the margin alone, wherever the probe is. A
# margin resolution gives the step $\tfrac12 + \tfrac12 \mathbb 1[m > \varepsilon]$. Both lose
# the same accuracy across a boundary, $\int_0^\infty (1 - P)\,dm$, when
# $\varepsilon = 2 \lambda \ln 2$. A noise floor, $g = e^{-d/\lambda} + \Delta$, breaks the
# shift invariance: accuracy then also falls with the distance $d_1$ itself.
# ```

# %%
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

# %%
w_fn = sp.lambdify((y, c, eps), w_stated, "numpy")
pts = np.random.default_rng(seed).uniform(-1, 1, size=(200_000, 2))
c0, e0 = 0.3, 0.1
gap = np.abs(np.hypot(pts[:, 0] + c0, pts[:, 1]) - np.hypot(pts[:, 0] - c0, pts[:, 1]))
in_band = np.abs(pts[:, 0]) <= w_fn(pts[:, 1], c0, e0)
band_agree = float(np.mean(in_band == (gap <= e0)))
assert band_agree > 0.9999, band_agree

check = scenes.sample_scenes(500, 4, "similarity", seed)
dist = np.array([s.distances for s in check])
tgt = np.array([s.target for s in check])
g = kernels.Exponential(0.05)(dist)  # the engine's kernel object on real scene geometry
luce_direct = g[np.arange(len(g)), tgt] / g.sum(axis=1)
assert np.allclose(luce_direct, vlm.luce_exponential(dist, tgt, 0.05))
two = np.sort(dist, axis=1)[:, :2]
assert np.allclose(vlm.luce_exponential(two, np.zeros(len(two), int), 0.05),
                   1 / (1 + np.exp(-(two[:, 1] - two[:, 0]) / 0.05)))
glue("ch6_band_agree", float(band_agree), display=False)
glue("ch6_zmax", Z_MAX, display=False)


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
for e in (0.1, 0.25):
    b_p = canvas_ball(grid_p, e)
    for n in (2, 4, 8, 12):
        p_s, p_i = theory.n_item(b_p, n)
        for task, th in (("similarity", p_s.mean()), ("identification", p_i.mean())):
            est = luce_success(Canvas(), kernels.Constant(e), task, n, cfg["mc_trials"],
                               seed=seed)
            rows.append({"eps": e, "mean b": b_p.mean(), "task": task, "n": n,
                         "theory": th, "simulated": est.mean, "se": est.stderr,
                         "z": est.zscore(th)})
canvas_check = pd.DataFrame(rows)
assert canvas_check["z"].abs().max() < Z_MAX, canvas_check
glue("ch6_canvas_zmax", float(canvas_check["z"].abs().max()), display=False)
display(canvas_check.round(4))

# %% [markdown]
# The band formula and the distance gap agree on a fraction {glue:text}`ch6_band_agree:.5f` of
# the points (the rest sit on the boundary to rounding), and the heterogeneous Theorem 3 on the
# canvas matches the engine with $|z| \le$ {glue:text}`ch6_canvas_zmax:.2f` in every cell above.
#
# ## The model
#
# The default model is small and trained here: a LLaVA architecture from `transformers`
# configs — a CLIP vision transformer (96 px canvas, 12 px patches, 64 image tokens) whose
# features are projected into a small Llama — with a word-level tokenizer trained locally with
# `tokenizers` and a `LlavaProcessor` assembled offline. LLaVA itself starts from a pretrained
# CLIP encoder; with none available, training runs in two stages on freshly rendered scenes
# ($n = 2..12$, both tasks):
#
# 1. *Vision stage.* The CLIP tower alone learns, for every patch, which shape sits there,
#    whether the red mark is there, and which shape is nearest to the patch centre (three
#    linear heads, discarded afterwards).
# 2. *Language stage.* The whole model learns to answer the questions (the loss counts only the
#    answer token), with the vision tower at a 30 times smaller learning rate.
#
# Trained end to end from scratch instead, this tiny model never leaves chance: the vision
# features collapse to a constant before the language model learns where to look (it cannot
# even overfit eight scenes). The result is saved with `save_pretrained` and loaded back through
# `AutoProcessor` and `AutoModelForImageTextToText`, the path a hub id takes. It is *not* a
# pretrained VLM and not a reproduction of Qwen or Gemma: it is a controlled model whose
# spatial resolution we can measure with the paper's protocol; its 12 px patches set a natural
# scale to compare with.
#
# **Running a hub VLM instead.** Pass its id or folder:
# `semres run 6 -p model=Qwen/Qwen2.5-VL-3B-Instruct` (it must be in the local Hugging Face
# cache; otherwise the run stops with one clear error). Every answer option — the names of the
# shapes on the canvas — is appended to the model's own chat prompt, and the options'
# log-probabilities from one batched forward pass are normalised over the options: the model's
# Luce probability of each answer. Nothing is generated or parsed.

# %%
if model is None:
    model_ref = str(vlm.trained_model(
        semres.book.build_dir() / "models", hidden=cfg["hidden"], layers=cfg["layers"],
        heads=4 if cfg["hidden"] % 4 == 0 else 2, vision_steps=cfg["vision_steps"],
        steps=cfg["steps"], batch_size=cfg["train_batch"], seed=seed, device=str(torch_device)))
    model_name = "tiny-llava (trained here)"
    import json
    from pathlib import Path

    record = json.loads((Path(model_ref) / "training.json").read_text())
    losses, vision_losses = record["losses"], record["vision_losses"]
    tail, vtail = max(1, len(losses) // 10), max(1, len(vision_losses) // 10)
    glue("ch6_vloss_first", float(np.mean(vision_losses[:vtail])), display=False)
    glue("ch6_vloss_last", float(np.mean(vision_losses[-vtail:])), display=False)
    glue("ch6_loss_first", float(np.mean(losses[:tail])), display=False)
    glue("ch6_loss_last", float(np.mean(losses[-tail:])), display=False)
else:
    model_ref, model_name = str(model), str(model)
    for key in ("loss_first", "loss_last", "vloss_first", "vloss_last"):
        glue(f"ch6_{key}", float("nan"), display=False)
# fails here, with one line, if the model is unavailable
canvas_px = int(image_size) or vlm.native_size(vlm.load_processor(model_ref))
glue("ch6_model", Markdown(model_name), display=False)
glue("ch6_steps", cfg["steps"], display=False)
glue("ch6_vision_steps", cfg["vision_steps"], display=False)
glue("ch6_canvas_px", int(canvas_px), display=False)

evaluate = semres.book.cache().cache(vlm.evaluate, ignore=["progress"])


def score(scene_list):
    return evaluate(model_ref, scene_list, canvas_px, int(batch_size), str(torch_device))


# %% [markdown]
# Model: **{glue:md}`ch6_model`**, canvas {glue:text}`ch6_canvas_px` px. The vision stage
# ({glue:text}`ch6_vision_steps` steps) took its summed per-patch loss from
# {glue:text}`ch6_vloss_first:.2f` to {glue:text}`ch6_vloss_last:.2f` nats; in the language
# stage ({glue:text}`ch6_steps` steps) the answer loss fell from
# {glue:text}`ch6_loss_first:.2f` to {glue:text}`ch6_loss_last:.2f` nats (first and last tenth
# of training; guessing among all 12 names is 2.48). Both stages checkpoint and the finished
# model is cached under `_build/models/`, so a rebuild does not retrain.
#
# ## The accuracy map
#
# As in the paper, the four shapes stay fixed and the X moves over a grid; each cell shows the
# model's probability of naming the nearest shape.

# %%
map_list = scenes.map_scenes(cfg["grid"])
map_p = score(map_list)
fit_list = scenes.sample_scenes(cfg["fit_scenes"], 4, "similarity", seed + 1)
fit_p = score(fit_list)
fit_d = np.array([s.distances for s in fit_list])
fit_t = np.array([s.target for s in fit_list])
fit_m = np.array([s.margin for s in fit_list])

fit_e = vlm.fit_exponential(fit_d, fit_t, fit_p)
scale, floor = fit_e["scale"], fit_e["floor"]
eps_fit = vlm.fit_margin(fit_d, fit_t, fit_p)["eps"]
boot_rng = np.random.default_rng(seed + 2)
boot = []
for _ in range(cfg["boot"]):
    i = boot_rng.integers(0, len(fit_p), len(fit_p))
    boot.append((vlm.fit_exponential(fit_d[i], fit_t[i], fit_p[i])["scale"],
                 vlm.fit_margin(fit_d[i], fit_t[i], fit_p[i])["eps"]))
boot = np.array(boot)
ci = np.percentile(boot, [2.5, 97.5], axis=0)
fit_table = pd.DataFrame({
    "model": model_name, "kernel": ["exponential", "margin"],
    "scale_px": [scale * canvas_px, eps_fit * canvas_px], "scale_frac": [scale, eps_fit],
    "ci_low": ci[0] * canvas_px, "ci_high": ci[1] * canvas_px, "floor": [floor, np.nan]})
semres.book.save_table(fit_table, CHAPTER, "fit")
display(fit_table.round(4))
for key, val in {"scale_px": scale * canvas_px, "scale_frac": scale, "floor": floor,
                 "scale_lo": ci[0, 0] * canvas_px, "scale_hi": ci[1, 0] * canvas_px,
                 "eps_px": eps_fit * canvas_px, "eps_frac": eps_fit,
                 "eps_lo": ci[0, 1] * canvas_px, "eps_hi": ci[1, 1] * canvas_px,
                 "eps_match": 2 * np.log(2) * scale, "fit_acc": fit_p.mean(),
                 "map_acc": map_p.mean()}.items():
    glue(f"ch6_{key}", float(val), display=False)

# %%
probe_xy = np.array([s.probe for s in map_list])
layout = np.array(list(scenes.PAPER_LAYOUT.values()))
map_d = np.array([s.distances for s in map_list])
map_pred = vlm.luce_exponential(map_d, [s.target for s in map_list], scale, floor)
fine = (np.arange(300) + 0.5) / 300
fx, fy = np.meshgrid(fine, fine)
fd = np.linalg.norm(np.stack([fx, fy], -1)[..., None, :] - layout, axis=-1)
nearest = np.argmin(fd, axis=-1)
fd_sorted = np.sort(fd, axis=-1)
fig, axes = splot.subplots(1, 2, figsize=(8.4, 4.0), sharey=True)
cells = np.floor(probe_xy * cfg["grid"]).astype(int)
for ax, vals, title in ((axes[0], map_p, f"{model_name}"),
                        (axes[1], map_pred, "fitted exponential kernel")):
    img = np.full((cfg["grid"], cfg["grid"]), np.nan)
    img[cells[:, 1], cells[:, 0]] = vals
    im = ax.imshow(img, extent=(0, 1, 1, 0), cmap="viridis", vmin=0, vmax=1,
                   interpolation="nearest")
    ax.contour(fine, fine, nearest, levels=np.arange(3) + 0.5, colors="w", linewidths=1)
    gap_field = fd_sorted[..., 1] - fd_sorted[..., 0]
    if gap_field.min() < eps_fit < gap_field.max():  # no band to draw at chance-level fits
        ax.contour(fine, fine, gap_field, levels=[eps_fit], colors="w", linewidths=0.6,
                   linestyles=":")
    for name, (px, py) in scenes.PAPER_LAYOUT.items():
        ax.annotate(name, (px, py), ha="center", va="center", fontsize=8, color="w",
                    weight="bold")
    ax.set(xlim=(0, 1), ylim=(1, 0), aspect="equal", title=title, xlabel="X position (canvas)")
    ax.grid(False)
axes[0].set_ylabel("y (canvas, down)")
fig.colorbar(im, ax=axes, shrink=0.8, label="P(correct)")
glue("ch6-fig-map", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch6-fig-map
# :name: ch6-fig-map
#
# Accuracy map for the four-shape layout: each square is one X position, coloured by the
# probability the model gives to the nearest shape (left) and by the fitted exponential kernel's
# prediction for the same scenes (right). Solid white lines: the decision boundaries (Voronoi
# edges); dotted: the edges of the error band $|d_1 - d_2| \le \varepsilon$ of the fitted margin
# resolution. Blank discs: positions closer than a shape's width to a shape, excluded as in the
# paper.
# ```
#
# Mean accuracy over the map is {glue:text}`ch6_map_acc:.3f` ({numref}`ch6-fig-map`).
#
# ## Accuracy against the margin, and the spatial scale
#
# Over {glue:text}`ch6_fit_n` random four-shape scenes, we fit both kernels to the model's
# per-scene probabilities by least squares, and bootstrap the scenes for intervals.

# %%
glue("ch6_fit_n", len(fit_list), display=False)
fit_chance = abs(fit_p.mean() - 0.25) <= 3 * fit_p.std(ddof=1) / np.sqrt(len(fit_p))
glue("ch6_fit_note", Markdown(
    "These scenes are answered at chance (1/4), so the fitted scales below only mark the edge "
    "of the fitting range; see the end of the chapter." if fit_chance else
    "The fitted scales below summarise how accuracy depends on the margin."), display=False)
edges = np.quantile(fit_m, np.linspace(0, 1, cfg["bins"] + 1))
which = np.clip(np.digitize(fit_m, edges[1:-1]), 0, cfg["bins"] - 1)
pred_exp = vlm.luce_exponential(fit_d, fit_t, scale, floor)
pred_mar = vlm.luce_margin(fit_d, fit_t, eps_fit)
binned = pd.DataFrame({"bin": which, "m": fit_m, "p": fit_p, "exp": pred_exp, "mar": pred_mar})
agg = binned.groupby("bin").agg(m=("m", "mean"), p=("p", "mean"), sd=("p", "std"),
                                k=("p", "size"), exp=("exp", "mean"), mar=("mar", "mean"))
fig, ax = splot.subplots()
ax.scatter(fit_m * canvas_px, fit_p, s=6, alpha=0.25, color=splot.CYCLE[0], label="scenes")
ax.errorbar(agg["m"] * canvas_px, agg["p"], yerr=agg["sd"] / np.sqrt(agg["k"]), fmt="o",
            color=splot.CYCLE[0], label="binned mean ± s.e.")
ax.plot(agg["m"] * canvas_px, agg["exp"], "-", color=splot.THEORY,
        label=fr"exponential kernel, $\lambda$ = {scale * canvas_px:.1f} px, "
              fr"$\Delta$ = {floor:.2g}")
ax.plot(agg["m"] * canvas_px, agg["mar"], "--", color=splot.THEORY_ALT,
        label=fr"margin resolution, $\varepsilon$ = {eps_fit * canvas_px:.1f} px")
mm = np.linspace(0, fit_m.max(), 200)
ax.plot(mm * canvas_px, 1 / (1 + np.exp(-mm / scale)), ":", color=splot.THEORY,
        label=r"two shapes, no floor: $\sigma(m/\lambda)$")
ax.axhline(0.25, color="0.7", lw=0.8)
ax.set(xlabel="margin $d_2 - d_1$ (pixels)", ylabel="P(correct)", ylim=(0, 1.02))
ax.legend(loc="upper right")
glue("ch6-fig-margin", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch6-fig-margin
# :name: ch6-fig-margin
#
# The model's probability of naming the nearest of four shapes against the margin between the
# nearest and second-nearest distance (dots: scenes; circles: equal-count bins with standard
# errors). Lines: the fitted kernels' predictions averaged over the same bins, and the two-shape
# logistic of {prf:ref}`ch6-prop-margin`. The grey line is chance (1/4).
# ```
#
# {glue:md}`ch6_fit_note` The fitted exponential scale is $\lambda =$ {glue:text}`ch6_scale_px:.1f` px
# ({glue:text}`ch6_scale_frac:.3f` of the canvas; 95% bootstrap interval
# {glue:text}`ch6_scale_lo:.1f`–{glue:text}`ch6_scale_hi:.1f` px) with floor
# $\Delta =$ {glue:text}`ch6_floor:.3f`; the margin resolution is $\varepsilon =$
# {glue:text}`ch6_eps_px:.1f` px ({glue:text}`ch6_eps_frac:.3f`; interval
# {glue:text}`ch6_eps_lo:.1f`–{glue:text}`ch6_eps_hi:.1f` px), against $2\lambda\ln 2 =$
# {glue:text}`ch6_eps_match:.3f` canvas units from the equal-loss matching
# ({numref}`ch6-fig-margin`). Mean accuracy on these scenes: {glue:text}`ch6_fit_acc:.3f`.
#
# ## Many shapes: generalization, identification and the $1/n$ test
#
# The paper predicts the $1/n$ collapse but never varies $n$. Here the same model answers both
# tasks for $n$ from 2 to 12. The theory is Theorem 3 with its own kernel, the ball
# $g_{\varepsilon;0}$ around the probe, and $b$ measured on the canvas: the share of
# probe-to-shape distances in the scored scenes that are at most $\varepsilon$ (for
# identification, distances from the red shape to the others). One radius $\varepsilon$ is
# fitted to the identification curve alone; generalization is then *predicted* with the same
# $\varepsilon$ — the two-task test of one resolution that the reviewers asked for. The fitted
# exponential kernel of the previous section, evaluated on each scene's own geometry, is shown
# as well.

# %%
rows, scene_rows, others = [], [], {}
for task in scenes.TASKS:
    for n in cfg["sweep_n"]:
        lst = scenes.sample_scenes(cfg["sweep_scenes"], n, task, seed + 100 + n)
        p = score(lst)
        d = np.array([s.distances for s in lst])
        t = np.array([s.target for s in lst])
        # probe-to-item distances that can fall in the ball: every shape for similarity, the
        # other shapes for identification (the red one is the probe's own copy)
        keep = np.arange(n) != t[:, None] if task == "identification" else np.ones_like(d, bool)
        others[task, n] = d[keep]
        rows.append({"model": model_name, "task": task, "n": n, "p": p.mean(),
                     "se": p.std(ddof=1) / np.sqrt(len(p)),
                     "p_kernel": vlm.luce_exponential(d, t, scale, floor).mean()})
        scene_rows += [{"model": model_name, "task": task, "n": n, "x": s.probe[0],
                        "y": s.probe[1], "target": s.answer, "p_correct": q,
                        "margin": s.margin, "set": "sweep"} for s, q in zip(lst, p)]


def theorem3(task, n, eps):
    """Theorem 3 with b measured on the scored scenes: the share of probe-item distances <= eps."""
    b = float(np.mean(others[task, n] <= eps))
    return b, theory.n_item(b, n)[0 if task == "similarity" else 1]


# one ball radius, fitted to identification only, then used to predict generalization
eps_grid = np.linspace(0.005, 0.6, 120)
ide_p = {r["n"]: r["p"] for r in rows if r["task"] == "identification"}
sse = [sum((theorem3("identification", n, e)[1] - ide_p[n]) ** 2 for n in cfg["sweep_n"])
       for e in eps_grid]
eps_ball = float(eps_grid[int(np.argmin(sse))])
for r in rows:
    r["b"], r["p_theory"] = theorem3(r["task"], r["n"], eps_ball)
glue("ch6_eps_ball_px", float(eps_ball * canvas_px), display=False)
glue("ch6_eps_ball_frac", float(eps_ball), display=False)
sweep = pd.DataFrame(rows)
semres.book.save_table(sweep, CHAPTER, "n_sweep")
for name, lst, p in (("map", map_list, map_p), ("fit", fit_list, fit_p)):
    scene_rows += [{"model": model_name, "task": s.task, "n": s.n, "x": s.probe[0],
                    "y": s.probe[1], "target": s.answer, "p_correct": q, "margin": s.margin,
                    "set": name} for s, q in zip(lst, p)]
semres.book.save_table(pd.DataFrame(scene_rows), CHAPTER, "scenes")
display(sweep.round(4))

sim, ide = (sweep[sweep.task == t].set_index("n") for t in scenes.TASKS)
n_lo, n_hi = min(cfg["sweep_n"]), max(cfg["sweep_n"])
glue("ch6_ps_lo", float(sim.p[n_lo]), display=False)
glue("ch6_ps_hi", float(sim.p[n_hi]), display=False)
glue("ch6_pi_lo", float(ide.p[n_lo]), display=False)
glue("ch6_pi_hi", float(ide.p[n_hi]), display=False)
glue("ch6_pi_th_hi", float(ide.p_theory[n_hi]), display=False)
glue("ch6_n_hi", int(n_hi), display=False)
glue("ch6_pi_rmse", float(np.sqrt(np.mean((ide.p - ide.p_theory) ** 2))), display=False)
glue("ch6_ps_rmse", float(np.sqrt(np.mean((sim.p - sim.p_theory) ** 2))), display=False)
# Which regime the model is in, read off the numbers (so the prose stays true for any model):
# generalization within 3 standard errors of chance at every n, or not.
at_chance = bool(np.all(np.abs(sim.p - 1 / sim.index) <= 3 * sim.se + 1e-9))
if at_chance and ide.p.min() > 0.8:
    verdict = ("This model identifies the red shape almost perfectly, as a small resolution "
               "would, yet names the shape nearest to the X no better than chance at every n: "
               "worse than Theorem 3 predicts from the ball that fits its identification, since "
               "with a small ball a lone shape near the X would still be found. Its similarity "
               "answers do not depend on where the X is, so there is no spatial scale to read "
               "off generalization: the accuracy map is flat and the margin fits run to the "
               "edge of their range. The tiny model has learned identification, not the "
               "similarity task; a hub VLM run through the same code is where the paper's "
               "boundary effects can be measured.")
elif at_chance:
    verdict = ("This model's generalization is at chance at every n, so the accuracy map and "
               "the margin fits carry no spatial scale.")
elif ide.p.mean() - sim.p.mean() > 0.2:
    verdict = ("This model generalizes above chance but far below its near-perfect "
               "identification: the small-resolution side of the tradeoff. Its accuracy map and "
               "margin curve carry the spatial scale fitted above; Theorem 3 with the ball "
               "fitted to identification shows how much generalization a purely spatial "
               "resolution of that size would give.")
else:
    verdict = ("This model generalizes above chance; its accuracy map and margin curve carry "
               "the spatial scale fitted above, and Theorem 3 with the ball fitted to "
               "identification is the reference for its generalization.")
glue("ch6_verdict", Markdown(verdict), display=False)

fig, axes = splot.subplots(1, 2, figsize=(8.4, 3.6), sharey=True)
for ax, (task, tab) in zip(axes, (("similarity", sim), ("identification", ide))):
    ax.errorbar(tab.index, tab.p, yerr=tab.se, fmt="o", color=splot.CYCLE[0], label=model_name)
    ax.plot(tab.index, tab.p_theory, "-", color=splot.THEORY,
            label=r"Theorem 3, one $\varepsilon$ fitted to $p_I$")
    ax.plot(tab.index, tab.p_kernel, "--", color=splot.THEORY_ALT,
            label="fitted exponential kernel")
    nn = np.arange(2, n_hi + 1)
    ax.plot(nn, 1 / nn, ":", color="0.6", label="chance, 1/n")
    letter = "S" if task == "similarity" else "I"
    ax.set(xlabel="number of shapes n", title=f"{task} ($p_{letter}$)", ylim=(0, 1.02))
axes[0].set_ylabel("P(correct)")
axes[1].legend(loc="lower left")
glue("ch6-fig-nsweep", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch6-fig-nsweep
# :name: ch6-fig-nsweep
#
# Generalization $p_S$ (left, nearest shape to the X) and identification $p_I$ (right, the red
# shape) against the number of shapes, with standard errors over scenes. Solid: Theorem 3 with
# the ball measure $b$ measured on the scored scenes at one radius $\varepsilon$, fitted to the
# identification points and used unchanged for generalization; dashed: the exponential kernel
# fitted to the four-shape similarity scenes, on each scene's geometry; dotted: chance.
# ```
#
# From $n =$ 2 to {glue:text}`ch6_n_hi`, $p_S$ goes from {glue:text}`ch6_ps_lo:.3f` to
# {glue:text}`ch6_ps_hi:.3f` and $p_I$ from {glue:text}`ch6_pi_lo:.3f` to
# {glue:text}`ch6_pi_hi:.3f`. The ball radius fitted to $p_I$ is
# {glue:text}`ch6_eps_ball_px:.1f` px ({glue:text}`ch6_eps_ball_frac:.3f` of the canvas), and
# with it Theorem 3 gives $p_I =$ {glue:text}`ch6_pi_th_hi:.3f` at $n =$
# {glue:text}`ch6_n_hi`; root-mean-square gaps to Theorem 3 are {glue:text}`ch6_pi_rmse:.3f`
# for identification (fitted) and {glue:text}`ch6_ps_rmse:.3f` for generalization (predicted)
# ({numref}`ch6-fig-nsweep`).
#
# ## What this shows, and where it differs from the paper
#
# {glue:md}`ch6_verdict`
#
# - On a canvas a finite resolution has a precise footprint: a band of width $\varepsilon$
#   around each decision boundary, widening along hyperbolas away from the shapes
#   ({prf:ref}`ch6-prop-band`), and an accuracy that depends on the distance margin —
#   logistically for an exponential similarity ({prf:ref}`ch6-prop-margin`). The accuracy map
#   and the margin curve above are the measurements those statements are about.
# - The spatial scale is a fitted number with an interval, in pixels and in canvas units, not a
#   visual impression. One ball radius, fitted to identification alone, predicts generalization
#   through Theorem 3 for every $n$ — the reviewers' request to measure $p_S$ and $p_I$ on one
#   model and to test the $1/n$ law by varying $n$. How well it does is the root-mean-square gap
#   above, whatever the model.
# - Differences from the paper: the default model is a small LLaVA trained here in minutes on
#   rendered scenes (with a supervised vision stage standing in for CLIP pretraining), not
#   Qwen2.5-VL or Gemma-3, and its canvas is 96 px rather than 900 px, so
#   its spatial scale says nothing about those models; the paper's numbers come from running a
#   hub model through `model=`. Answers are scored by option log-probabilities normalised over
#   the shapes on the canvas (a Luce probability, no parsing); the original parsed generated
#   text and, through a leftover debugging break, processed only five images. Every scene is
#   seeded, and its positions, distances and answer are in `scenes.csv`.
# - Theorem 3 assumes items drawn independently and uniformly; shapes here cannot overlap and
#   keep clear of the canvas edge, and the model's errors are not all spatial (it can also
#   misread a shape), so the measured $b$ and the Theorem 3 curves are an idealisation to read
#   against, not a fit.
