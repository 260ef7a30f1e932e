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
# ````{admonition} The result
# :class: tip
#
# ```{glue:md} ch5_result_box
# :format: myst
# ```
# ````
#
# {cite}`nurisso2026bound` read a resolution of 70–80 years off language models asked "who was
# born closest to year $P$?"; this chapter also sets identification ($p_I$) against
# generalization ($p_S$) and varies the number of people $n$, on small models that run on a
# laptop. First, how much they prefer the nearer of two people:
#
# ```{glue:figure} ch5-fig-near
# :name: ch5-fig-near
#
# The mass each model puts on the nearer of two people $2D$ years apart, against the probe's
# distance from that person, beyond the pair (filled) and between them (open), with 95 %
# intervals over pairs of names; lines, the fitted shape; dotted, chance (½). One panel per gap.
# A model without similarity is asked only where its verdict reads: within
# {glue:text}`ch5_near_near` and {glue:text}`ch5_near_far` or more years beyond the pair.
# ```
#
# A fitted similarity has a **half-decay**, where it falls halfway to its floor, and a **return
# to chance**, where it reaches the floor and the answers become a coin flip (the paper's
# measure).
#
# ```{glue:md} ch5_near_text
# :format: myst
# ```
#
# ```{glue:md} ch5_near_paper_text
# :format: myst
# ```
#
# Every fit and check: {doc}`Methods and checks <05_llm_years_methods>`.

# %% tags=["parameters", "hide-cell"]
profile = "default"  # quick | default | paper
seed = 0
device = "auto"  # auto picks CUDA when present
encoder = None  # a sentence-encoder folder or hub id; None: the bundled all-MiniLM-L6-v2
causal_lm = None  # causal LMs (names, ids, folders), comma-separated; None: the profile's
causal_trials = 0  # trials per n for a causal LM that passes the gate; 0: the profile's
results = None  # per-trial result files or folders, comma-separated (see the end); None: none
trust_pickle = False  # read the authors' LLM pickles among `results` (pickles run code)

# %% tags=["hide-input"]
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sympy as sp
from matplotlib.colors import LogNorm
from myst_nb import glue
from tqdm.auto import tqdm

from semres.core import kernels, models, spaces, theory
from semres.core.simulate import luce_success
from semres.experiments import released
from semres.core.book import torch_device
from semres.core.fits import censored_warning
from semres.experiments.llm import (answers, competence, figures, kernel_fits, language,
                                    lm_protocol, near, settings, tables, trials, two_reference,
                                    verdicts)
from semres.experiments.llm.kernel_fits import SHAPE_LABELS, SHAPES, shape_kernel
from semres.experiments.llm.verdicts import measure_name
from semres.experiments.llm.settings import THE_PAPER
from semres.report import ALPHA, open_chapter
from semres.report import plotting as splot
from semres.report import tables as report_tables
from semres.report.numbers import mathify, pvalue
from semres.report.verdicts import gof_pvalue, misfit_warning

# the settings with the reader's parameters, the report, named random streams and the cache
cfg, report, stream, cache = open_chapter(settings.SETTINGS, profile, seed,
                                          causal_trials=causal_trials, causal_lm=causal_lm)
ENCODER = models.check_source(encoder, "encoder") if encoder else language.minilm_path()
MODEL = "all-MiniLM-L6-v2" if not encoder else str(encoder)
T = language.TEMPERATURE
QUESTIONS = {task: q[:cfg.phrasings] for task, q in settings.QUESTIONS.items()}
quantities = {}  # numbers the prose derives, saved in quantities.csv beside the tables
# a model asked for that cannot be found stops here in one line; a default one whose packages
# are missing is left out, and the chapter says so
LMS, lm_skipped = lm_protocol.available(cfg.lms, strict=causal_lm is not None)
for m, why in lm_skipped.items():
    print(f"left out {m}: {why}")
# every result file is read and checked now, before any heavy cell, and the reader told how
given = released.gather(results, trust_pickle=trust_pickle) if results else None
if given is not None:
    print("\n".join(given.report))

# %% [markdown]
# ## The noise floor
#
# The paper's similarity of years decays exponentially onto a floor; the Luce rule turns it into
# a choice between two people.
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
# SymPy derives each claim from the Luce rule, for a probe beyond the later reference (the other
# side mirrors it).

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
# with no floor a finer similarity wins both tests: g(d1)/(g(d1)+g(d2)) -> 1
d1, gap = sp.symbols("d_1 gap", positive=True)
assert sp.limit(sp.exp(-d1 / lam) / (sp.exp(-d1 / lam) + sp.exp(-(d1 + gap) / lam)), lam, 0,
                "+") == 1
report.text("half_expr", f"${sp.latex(half)}$")

# %% [markdown]
# The last assertion is why the floor matters: without $\Delta$ a finer similarity wins both
# tests; with it, items beyond $\approx \lambda\ln(1/\Delta)$ all weigh $\Delta$, so
# generalization falls back to a coin flip while identification stays good. On the shared
# engine, two items on the unit segment with $\Delta = 0.01$, $p_S$ peaks at
# {glue:text}`ch5_lam_peak_ps:.3f` near $\lambda =$ {glue:text}`ch5_lam_peak_lam:.3f` and drops
# to {glue:text}`ch5_lam_small_ps:.3f` at the finest $\lambda$: the floor turns a finite
# resolution into a tradeoff ({numref}`ch5-fig-lambda`, on the methods page).
#
# ## Who does the task?
#
# Small causal LMs that install with their weights from the package registry stand in for the
# paper's 2–7B chat models ({glue:text}`ch5_lm_list`). A model's Luce mass on each listed
# person is the softmax of their names' log-probabilities. A gate comes first: "who was born
# in $P$?", two people listed.

# %% tags=["hide-input"]
assessed = {name: cache.cache(lm_protocol.assess)(name, device=device, seed=seed, cfg=cfg)
            for name in LMS}
lm_rows = lm_protocol.all_rows(assessed)  # every scored trial, with the exact prompt it read
passed = {m: a for m, a in assessed.items() if a["gate"]["verdict"] == "passes"}
report.table(lm_rows, "lm_trials")
report.table(tables.gate_table(assessed), "lm_gate")
# the sequential gate and question asked backwards, and the near design's first stage, which the
# methods quote: the designs' sizes do not depend on the model
sequential_sizes = {
    "gate planned trials": 4 * math.ceil((cfg.gate_trials or competence.gate_size()) / 4),
    "reverse planned trials": 4 * math.ceil((cfg.reverse_trials or competence.gate_size()) / 4),
    "sequential looks": len(competence.LOOKS), "interim z bound": competence.INTERIM_Z}
near_design = near.design(cfg.near_Ds, cfg.near_xs, cfg.near_pairs, stream("near design size"),
                          centres=cfg.near_centres, n_names=cfg.near_names,
                          probes=cfg.near_probes)  # its size; its stage 1 too, unless thinned
sequential_sizes.update({
    "near design trials": len(near_design),
    "near stage 1 trials": int(near.verdict_probes(near_design, near=cfg.near_near,
                                                   far=cfg.near_far).sum())})
quantities.update(sequential_sizes)
for key, value in zip(("gate_planned", "reverse_planned", "looks", "interim_z",
                       "near_design_trials", "near_stage1"), sequential_sizes.values()):
    report.number(key, value)
report.table(pd.concat([a["probe"]["profile"] for a in assessed.values()], ignore_index=True)
             if assessed else pd.DataFrame(), "lm_probe")
if assessed:  # every causal LM: the gate and the question asked backwards (left), what a
    # linear read-out recovers of the year from each layer (right)
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    k_models = len(assessed)
    for k, a in enumerate(assessed.values()):
        color = splot.CYCLE[k % len(splot.CYCLE)]
        for j, key in enumerate(("gate", "reverse")):
            r = a[key]
            x = j + (k - (k_models - 1) / 2) * 0.18
            axes[0].errorbar([x], [r["p"]], yerr=[[r["p"] - r["ci_low"]],
                                                  [r["ci_high"] - r["p"]]],
                             fmt="o", color=color, capsize=3, label=a["model"] if j == 0 else None)
        probe = a["probe"]["profile"]
        depth = probe.layer / max(probe.layer.max(), 1)
        axes[1].plot(depth, probe.mae, color=color, marker=".")
        axes[1].plot(depth, probe.shuffled_mae_q05, color=color, ls=":", lw=1)
        axes[1].axhline(probe.digits_mae.iloc[0], color=color, ls="--", lw=1)
    axes[0].axhline(0.5, color=splot.THEORY_ALT, ls="--", lw=1, label="chance")
    axes[0].set(xticks=[0, 1], xticklabels=["who was born\nin P?", "when was\nX born?"],
                ylabel="mass on the correct option ($n = 2$)", xlim=(-0.5, 1.5),
                title="answers, both directions")
    axes[1].plot([], [], color="0.3", marker=".", label="hidden states")
    axes[1].plot([], [], color="0.3", ls=":", label="shuffled years (5 %)")
    axes[1].plot([], [], color="0.3", ls="--", label="the digits alone")
    axes[1].set(xlabel="layer (fraction of depth)", ylabel="error of the read-out (years)",
                title="hidden states: the year, read out", ylim=(0, None))
    splot.legend_outside(fig, axes, ncol=3)
    report.figure("lms", fig)
report.text("lm_list", ", ".join(assessed) or "none", )
report.number("n_names", len(settings.NAMES))
gate_lines, detail_lines = [], []
for a in assessed.values():
    g, r, b, pr = a["gate"], a["reverse"], a["gate"]["biases"], a["probe"]
    ok = g["verdict"] == "passes"
    backwards = (f"Asked backwards (\"when was X born?\", two years listed) it "
                 + ("picks" if r["verdict"] == "passes" else "does not pick")
                 + f" the right year ({r['p']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}])")
    held = (": it holds the facts, but cannot use them to pick a person by year"
            if r["verdict"] == "passes" and not ok else "")
    gate_lines.append(
        f"- **{a['model']}** {'passes' if ok else 'fails'}: {g['p']:.3f} [{g['ci_low']:.3f}, "
        f"{g['ci_high']:.3f}] of its mass on the person born in $P$ (95 % interval over "
        f"{g['names']} names, {g['trials']} of the {g['planned']} trials it was sized for)."
        + ("" if ok else f" {backwards}{held}."))
    beats_shuffled, beats_digits = pr["p_value"] < ALPHA, pr["vs_digits"]["ci_high"] < 0
    probe_words = ("the year as a quantity, beyond its digit tokens" if beats_shuffled and
                   beats_digits else "the year, but no better than its digit tokens"
                   if beats_shuffled else "no year")
    length = b["length"]
    detail_lines.append(
        f"**{a['model']}.** " + (f"{backwards}. " if ok else "")
        + f"It puts {b['position']['p']:+.3f} [{b['position']['ci_low']:+.3f}, "
        f"{b['position']['ci_high']:+.3f}] more mass on the first-listed person than an unbiased "
        "reader" + (f" and {length['p']:+.3f} [{length['ci_low']:+.3f}, {length['ci_high']:+.3f}] "
                    "on the name of fewer tokens" if length is not None else "")
        + f". A linear read-out of layer {pr['best_layer']} (of {pr['layers']}) finds the birth "
        f"year of unseen names and decades within {pr['mae']:.0f} years on average (shuffled years: "
        f"{pr['shuffled_mae']:.0f}, {pvalue(pr['p_value'])}; the digits alone: "
        f"{pr['digits_mae']:.0f}): its hidden states hold {probe_words}.")
report.text("lm_gates", mathify("\n".join(gate_lines)) or "No causal LM ran in this build.",
            markdown=True)
report.text("lm_details", mathify("\n\n".join(detail_lines)) or "No causal LM ran.",
            markdown=True)

# %% tags=["hide-input"]
near_args = dict(near=cfg.near_near, far=cfg.near_far, n_boot=cfg.n_boot,
                 gof_boot=cfg.gof_boot, front_trials=cfg.front_trials,
                 years=cfg.sweep_years)
near_results = {m: near.analyse(a["rows"], seed=stream(f"near {m}"), **near_args)
                for m, a in assessed.items()}
spots = tables.blind_spots(cfg, stream("blind spot"))
for key, value in (("blind_y0", spots["year_lo"]), ("blind_y1", spots["year_hi"]),
                   ("blind_u0", spots["uniform0"]), ("blind_u1", spots["uniform1"]),
                   ("blind_n0", spots["near0"]), ("blind_n1", spots["near1"]),
                   ("near_near", cfg.near_near), ("near_far", cfg.near_far)):
    report.number(key, value)
quantities.update({f"blind spot {k}": spots[k]
                   for k in ("uniform0", "uniform1", "near0", "near1")})
report.table(pd.concat([r["curve"] for r in near_results.values()], ignore_index=True)
             if near_results else pd.DataFrame(), "lm_resolution")
report.table(tables.fits_table(near_results), "lm_resolution_fits")
gate_biases = tables.bias_table(assessed)
report.table(pd.concat([gate_biases, tables.bias_rows(near_results)], ignore_index=True)
             if near_results else gate_biases, "lm_bias")
if near_results:
    report.figure("near", figures.fig_near(near_results))
SHAPE_NAMES = {"exponential": "exponential", "gaussian": "Gaussian",
               "step": "step (Definition 1)", "exact + exponential": "exact match on an exponential"}
near_lines, near_detail, near_points = [], [], []
for m, r in near_results.items():
    c = r["competence"]
    a, d = c["above"], c["decay"]
    said = (f"**{m}** puts {a['p']:.3f} [{a['ci_low']:.3f}, {a['ci_high']:.3f}] of its mass on "
            f"the nearer person within {c['near']:g} years")
    tests = (f"**{m}.** Its greedy answers pick the nearer person {c['greedy_near']:.3f} of the "
             f"time within {c['near']:g} years; the test of its mass there against its mass "
             f"{c['far']:g} or more years away gives {pvalue(d['p_value'])}.")
    if not r["does"]:
        near_lines.append(f"- {said}, not detectably more than ½ ({pvalue(a['p_value'])}) or "
                          f"than {c['far']:g} or more years away: it shows no similarity of "
                          "years, so it has no resolution to measure.")
        near_detail.append(tests)
        continue
    b, cross, pts = r["best"], r["crossover"], r["curve"]
    # single points whose interval reaches chance
    reach = int((pts.mass_ci_low <= verdicts.CHANCE_OF_TWO).sum())
    near_points.append({"model": m, "points": len(pts), "reach_half": reach})
    half = (f"below {b['finest_x']:g} years, the finest distance tested" if b["upper_bound"]
            else f"{b['half_decay']:.0f} years [{b['half_decay_ci_low']:.0f}, "
                 f"{b['half_decay_ci_high']:.0f}]")
    back = b["chance_return"]
    back_words = (f"; its answers return to chance about {back:.0f} years "
                  f"[{b['chance_return_ci_low']:.0f}, {b['chance_return_ci_high']:.0f}] away"
                  if np.isfinite(back) and back > 0 else
                  ". A floor that high reaches the decaying part's peak, so its answers never "
                  "stand clear of chance by more than a few hundredths and no distance of return "
                  f"to chance is defined: the result files record {back:.0f} years, and the "
                  "resolution reads *not identified*" if np.isfinite(back) else "")
    near_lines.append(
        f"- {said} ({pvalue(a['p_value'])} against ½, over {a['pairs']} pairs of names), "
        f"and {d['p']:.3f} [{d['ci_low']:.3f}, {d['ci_high']:.3f}] more than it puts there "
        f"{c['far']:g} or more years away. The preference is a few hundredths, so the "
        f"interval of {reach} of its "
        f"{len(pts)} single points in the figure reaches ½; only the probes within "
        f"{c['near']:g} years, pooled, tell it from chance. Its fitted "
        f"{SHAPE_NAMES[b['shape']]} halves within {half}, on a floor of "
        f"{b['relative_floor']:.2f} of an exact match's weight{back_words}"
        + (f" (though the {SHAPE_NAMES[b['shape']]} fails its lack-of-fit test)"
           if b["misfit"] else "") + ".")
    others = "; ".join(f"{SHAPE_NAMES[f.shape]} {f.half_decay:.0f} years, ΔAIC {f.delta_aic:.1f}"
                       for f in r["fits"].itertuples() if not f.best)
    unit = "year" if round(cross["resolution"]) == 1 else "years"
    crossing = (f"is beyond the last probe, {cross['x_max']:.0f} years" if cross["at_bound"] else
                f"is {cross['resolution']:.0f} {unit} [{cross['ci_low']:.0f}, "
                f"{cross['ci_high']:.0f}]")
    z = tables.sizing(r)
    quantities.update({f"near sizing {m} {k}": v for k, v in z.items() if k != "target"})
    size_words = ("" if "spread" not in z else
                  f" Its half-decay's interval reaches a factor {z['spread']:.1f} from the "
                  f"estimate: a factor {z['target']:g} would take about {z['need']:,} pairs of "
                  f"names with as many trials each ({z['need_trials']:,} trials), pairs the "
                  f"`paper` profile draws from the book's {z['names']} names (below)."
                  if z["spread"] > z["target"] else
                  f" Its half-decay's interval lies within a factor {z['spread']:.2f} of the "
                  "estimate.")
    near_detail.append(
        tests + f" The {SHAPE_NAMES[b['shape']]} fits best (lack of fit against the scatter "
        f"between pairs of names {gof_pvalue(b)}); the other shapes give {others}. The chance "
        f"crossover, the last distance at which the preference can be told from ½ with these "
        f"trials, {crossing}: a preference only {a['p'] - 0.5:+.3f} above ½ is lost in the "
        "noise almost at once, so the crossover measures this design's power, not the "
        "similarity's width, which the half-decay measures." + size_words)
report.table(pd.DataFrame(near_points, columns=["model", "points", "reach_half"]),
             "lm_near_points")
# the near design's competence tests, which the sentences quote, on the trials scored
report.table(pd.DataFrame([
    {"model": m, "near": c["near"], "far": c["far"], "p_near": c["above"]["p"],
     "p_near_ci_low": c["above"]["ci_low"], "p_near_ci_high": c["above"]["ci_high"],
     "p_value_vs_half": c["above"]["p_value"], "pairs": c["above"]["pairs"],
     "greedy_near": c["greedy_near"], "near_minus_far": c["decay"]["p"],
     "near_minus_far_ci_low": c["decay"]["ci_low"],
     "near_minus_far_ci_high": c["decay"]["ci_high"],
     "near_minus_far_p_value": c["decay"]["p_value"],
     "trials": len(r["trials"])}  # scored: the verdict's probes, or every probe for a model
    for m, r in near_results.items() for c in [r["competence"]]]), "lm_near_competence")
report.text("near_text", mathify("\n".join(near_lines)) or "No causal LM ran in this build.",
            markdown=True)
report.text("near_details", mathify("\n\n".join(near_detail)) or "No causal LM ran.",
            markdown=True)
for key in ("near_Ds", "near_xs"):
    report.text(key, ", ".join(map(str, getattr(cfg, key))), )
for key, value in (("near_pairs", cfg.near_pairs), ("near_c0", cfg.near_centres[0]),
                   ("near_c1", cfg.near_centres[1]), ("paper_lo", THE_PAPER.resolution[0]),
                   ("paper_hi", THE_PAPER.resolution[1])):
    report.number(key, value)

# %% tags=["hide-input"]
# the `paper` profile's near design, run outside this build (benchmarks/near_resolution.py
# --profile paper --record): its record ships with the package, its numbers are glued from it
paper_near = tables.paper_near()
report.table(paper_near, "lm_near_paper")
paper_best = paper_near[paper_near.best.eq(True)].set_index("model") if len(paper_near) else {}
paper_lines = []  # one line per model; the lead sentence compares the sizes
for m, f in (paper_near.groupby("model", sort=False).first().iterrows()
             if len(paper_near) else []):
    scored = f"{f.scored:,.0f} trials scored in {f.minutes:.0f} min"
    if not f.does:
        paper_lines.append(f"- **{m}** stays flat: {f.p_near:.3f} [{f.p_near_ci_low:.3f}, "
                           f"{f.p_near_ci_high:.3f}] of its mass on the nearer person within "
                           f"{cfg.near_near} years ({scored}).")
        continue
    b = paper_best.loc[m]
    fits = paper_near[paper_near.model == m]
    exact = (f" with an exact-match weight {b.exact:.2f}"
             if b["shape"] == "exact + exponential" else "")
    back = (f"; its answers return to chance {b.chance_return:.0f} years "
            f"[{b.chance_return_ci_low:.0f}, {b.chance_return_ci_high:.0f}] away"
            if b.chance_return > 0 else "; no return to chance is defined, its floor at or above "
            "the decay's peak")
    misfit = fits.misfit.astype(bool).all()
    miss = (f", its curve {b.rms_gap:.3f} from the cells' means in RMS against "
            f"{b.rms_sampling:.3f} from the scatter between pairs alone, a dispersion of "
            f"{b.dispersion:.1f}" if misfit else "")
    paper_lines.append(
        f"- **{m}**: the {SHAPE_NAMES[b['shape']]}{exact} "
        + ("(best by AIC; every shape fails its lack-of-fit test, the best "
           if misfit else "(lack of fit ") + f"{gof_pvalue(b)}{miss}) halves within "
        f"{b.half_decay:.1f} years [{b.half_decay_ci_low:.1f}, {b.half_decay_ci_high:.1f}], "
        f"a factor {b.spread:.2f} from its estimate{back} ({scored}).")
sizes = [m for m in ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b") if m in paper_best.index] \
    if len(paper_best) else []
run = paper_near.iloc[0] if len(paper_near) else None
design = (f"In the `paper` profile's near design ({run.design:,.0f} trials over "
          f"{run.pairs:.0f} pairs of names from the book's {run.pool:.0f} names, run outside "
          f"this build by `benchmarks/near_resolution.py` on {run.threads:.0f} cores of an "
          f"{run.machine})" if run is not None else "")
lead = "The `paper` profile's near design has not been recorded."
if len(sizes) == 2:
    small, large = (paper_best.loc[m] for m in sizes)
    missing = [m for m in sizes if paper_near[paper_near.model == m].misfit.astype(bool).all()]
    halves = (f"{small.half_decay:.1f} years [{small.half_decay_ci_low:.1f}, "
              f"{small.half_decay_ci_high:.1f}] for the 0.5B and {large.half_decay:.1f} "
              f"[{large.half_decay_ci_low:.1f}, {large.half_decay_ci_high:.1f}] for the 1.5B")
    if missing:
        lead = (f"Not measurably. {design}, " + (
            "no shape describes either model" if len(missing) == 2 else
            f"no shape describes {missing[0]}") + f", so their half-decays, {halves}, are no "
            "measurement of resolution and no change with size is read from them.")
    else:
        ratio = large.half_decay / small.half_decay
        quantities["paper near: 1.5B half-decay over 0.5B's"] = ratio
        apart = (small.half_decay_ci_low > large.half_decay_ci_high
                 or large.half_decay_ci_low > small.half_decay_ci_high)
        lead = (f"{design}, the half-decays are {halves}: the 1.5B's is {ratio:.2f} times the "
                "0.5B's, " + ("and the intervals do not overlap." if apart else
                              "and the intervals overlap, so these runs cannot tell them apart."))
elif run is not None:
    lead = f"{design}:"
report.text("near_paper_text", mathify(
    "**Does resolution change with size?** " + lead + "\n\n" + "\n".join(paper_lines)),
    markdown=True)

# %% [markdown]
# ```{glue:md} ch5_lm_gates
# :format: myst
# ```
#
# A model does similarity when its mass on the nearer person, within
# {glue:text}`ch5_near_near` years, exceeds ½ and its mass {glue:text}`ch5_near_far` or more
# years away ({numref}`ch5-fig-near`). Probes must sit that close: a probe drawn uniformly from
# {glue:text}`ch5_blind_y0`–{glue:text}`ch5_blind_y1` leaves an exponential similarity that
# falls to its floor within 10 years only {glue:text}`ch5_blind_u0:.3f` of its mass on the
# nearer person.
#
# ## The protocol
#
# A model that passes the gate is also asked at $n =$ {glue:text}`ch5_lm_ns`
# ({glue:text}`ch5_causal_trials` trials per task and $n$; similarity at $n = 2$ as many as its
# gate scored), against Theorem 3's $1/n$ law (fitted with and without a floor), and along a
# softmax temperature applied to its scores. A miss of Theorem 3 matters beyond 0.05 of mass, the effect the gate is sized to see.

# %% tags=["hide-input"]
protocol = {m: tables.extend(lm_protocol.analyse(a, temperatures=cfg.lm_temperatures,
                                                 does_similarity=near_results[m]["does"],
                                                 seed=stream(f"protocol {m}"),
                                                 near_trend=near_results[m]["competence"]
                                                 .get("trend")),
                             gof_boot=min(cfg.gof_boot, verdicts.THEOREM3_BOOT),
                             seed=stream(f"protocol {m} theorem 3"))
            for m, a in passed.items()}
for name, table in tables.protocol_tables(protocol).items():
    report.table(table, name)
if protocol:
    report.figure("lm_protocol", figures.fig_protocol(protocol, near_results))
report.text("lm_ns", ", ".join(map(str, cfg.lm_ns)), )
report.number("causal_trials", cfg.causal_trials)

# %% [markdown]
# ```{glue:figure} ch5-fig-lm_protocol
# :name: ch5-fig-lm_protocol
#
# The models that pass the gate. (a) Success against $n$ with Theorem 3 fitted with a floor
# (solid) and without (dotted). (b) The $(p_I, p_S)$ plane for uniform probes at $n = 2$, with
# the front at the model's fitted floor. (c) The same plane along the softmax temperature.
# (d) The kernel read from the model's choices, with an exponential and a floor.
# ```
#
# ```{glue:md} ch5_lm_protocol_summary
# :format: myst
# ```
#
# ## The encoder
#
# A sentence encoder's similarity of years can be read directly: all-MiniLM-L6-v2
# {cite}`reimers2019sentence` weighs "{Name} was born in {Y}." against the question by
# $\exp(\cos/T)$ of their embeddings, at its trained $T =$ {glue:text}`ch5_temperature:.2f`.
# Its weights are read directly, over centuries, while a causal LM's similarity shows only
# through its choices a few decades from a person: nothing requires the two to agree.

# %% tags=["hide-input"]
emb_k = language.year_embeddings(settings.NAMES[:cfg.kernel_names],
                                 range(cfg.kernel_years[0], cfg.kernel_years[1] + 1),
                                 QUESTIONS, ENCODER, device="cpu")
same = (cfg.kernel_names, cfg.kernel_years) == (cfg.sweep_names, cfg.sweep_years)
emb_s = emb_k if same else language.year_embeddings(
    settings.NAMES[:cfg.sweep_names], range(cfg.sweep_years[0], cfg.sweep_years[1] + 1),
    QUESTIONS, ENCODER, device="cpu", reuse=emb_k)
for key, value in (("temperature", T), ("kernel_names", len(emb_k.names)),
                   ("kernel_y0", emb_k.years[0]), ("kernel_y1", emb_k.years[-1])):
    report.number(key, value)

# %% tags=["hide-input"]
def fig_kernel(prof_d, g, se, fits: dict, model: str, fit_max: int):
    """The measured kernel (log scale) with each fitted shape, whole range and first 60 years."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    for ax, xmax in zip(axes, (fit_max, 60)):
        sel = prof_d <= xmax
        ax.fill_between(prof_d[sel], (g - 2 * se)[sel], (g + 2 * se)[sel],
                        color=splot.CYCLE[0], alpha=0.25, lw=0)
        ax.plot(prof_d[sel], g[sel], ".", ms=3, color=splot.CYCLE[0],
                label="measured $g(d)$ ± 2 se")
        dd = np.linspace(1, xmax, 400)
        for (s, f), color, ls in zip(fits.items(), [splot.THEORY, *splot.CYCLE[1:4]],
                                     ("-", "--", "-.", ":")):
            ax.plot(dd, shape_kernel(s, f)(dd), color=color, ls=ls, lw=1.3,
                    label=SHAPE_LABELS[s])
        ax.set(xlabel="year distance $d$", ylabel="relative Luce weight $g(d)$", yscale="log",
               xlim=(-1, xmax))
    axes[0].set_title(f"{model} year kernel")
    axes[1].set_title("first 60 years")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


prof = language.measure_kernel(emb_k, None, max_distance=cfg.fit_max)
g_meas, g_se = prof.similarity(T), prof.se(T)
shape_df = kernel_fits.compare_shapes(prof, temperature=T, folds=cfg.folds,
                                      seed=stream("kernel_shapes"))
shape_fits = {s: kernel_fits.fit_shape(prof.distance, g_meas, s, se=g_se)
              for s in kernel_fits.SHAPES}
shape = verdicts.shape_verdict(shape_df, shape_fits)
best_shape = shape["best"]
tail = verdicts.tail_trend(prof.distance, g_meas, g_se)
report.table(pd.DataFrame({"model": MODEL, "distance": prof.distance, "similarity": g_meas,
                           "se": g_se}), "kernel")
report.figure("kernel", fig_kernel(prof.distance, g_meas, g_se, shape_fits, MODEL,
                                           cfg.fit_max))
report.text("shape_verdict", mathify(
    f"the {SHAPE_LABELS[best_shape]} predicts held-out units best (log-RMSE {shape['rmse']:.3f}"
    + (f", ahead of the {SHAPE_LABELS[shape['second']]} by more than two fold standard errors)"
       if shape["clear"] else f"), though within two fold standard errors of the "
       f"{SHAPE_LABELS[shape['second']]}")
    + (f"; but no shape describes the kernel within its standard errors (every fit fails its "
       f"goodness-of-fit test, the best at {gof_pvalue(shape['all_misfit'])}), so the ranking "
       "compares misfits" if shape["all_misfit"] else "")), markdown=True)
report.text("exp_verdict", "is" if best_shape == "exp_floor" else "is not", )
far = min(500, int(prof.distance.max()))  # the farthest distance quoted (400 in `quick`)
for key, value in (("exp_rmse", shape_df.set_index("shape").heldout_rmse["exp_floor"]),
                   ("g1_inv", 1 / g_meas[1]), ("g100", g_meas[100]), ("g300", g_meas[300]),
                   ("far", far), ("g_far", g_meas[far]), ("fit_max", cfg.fit_max),
                   ("folds", cfg.folds)):
    report.number(key, value)
quantities["g1_inv"] = 1 / g_meas[1]
glue(report.prefix + "shape_table", report_tables.table(
    shape_df.assign(shape=shape_df["shape"].map(SHAPE_LABELS))
    [["shape", "heldout_rmse", "heldout_se", "resolution", "floor", "at_bound"]],
    decimals=3, headers=tables.HEADERS, floor="{:.2e}"), display=False)

# %% [markdown]
# Its year kernel $g(d)$, the Luce weight of a person born $d$ years from the probe year relative
# to one born in it, is a spike at the exact year: one year off divides the weight by
# {glue:text}`ch5_g1_inv:.1f`, a token-identity signal that identification can use. Beyond it the
# weight decays over centuries ($g(100) \approx$ {glue:text}`ch5_g100:.3f`,
# $g(300) \approx$ {glue:text}`ch5_g300:.3f`, and {glue:text}`ch5_g_far:.3f` at
# {glue:text}`ch5_far` years); the paper's single exponential with a floor
# {glue:text}`ch5_exp_verdict` the best description of it ({numref}`ch5-fig-kernel`).

# %% tags=["hide-input"]
def fig_resolution(res_df, Ds=(20, 50, 100, 200)):
    """P(correct) against the probe offset, one panel per half-gap D."""
    show = [D for D in Ds if D in set(res_df.D)]
    fig, axes = splot.subplots(2, 2, figsize=(9, 6.4), sharex=True, sharey=True)
    for ax, D in zip(axes.ravel(), show):
        sub = res_df[res_df.D == D]
        ax.errorbar(sub.offset, sub.p_correct, yerr=2 * sub.se, fmt=".", ms=3, lw=0.8,
                    color=splot.CYCLE[0], label="model ± 2 se")
        ax.plot(sub.offset, sub.p_fit, color=splot.THEORY, label="two-reference fit (exp + floor)")
        ax.plot(sub.offset, sub.p_kernel, color=splot.CYCLE[1], ls="--", lw=1.2,
                label="measured kernel, Luce rule")
        ax.axhline(0.5, color=splot.THEORY_ALT, lw=0.8)
        for s in (-D, D):
            ax.axvline(s, color=splot.THEORY_ALT, ls=":", lw=0.8)
        ax.set_title(f"D = {D}")
    for ax in axes[-1]:
        ax.set_xlabel("probe offset $\\delta$ from the centre (years)")
    for ax in axes[:, 0]:
        ax.set_ylabel("P(correct)")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


kern_meas = kernel_fits.MeasuredKernel(prof.distance, g_meas)
res_rows, count_rows = [], []
for i, Dv in enumerate(tqdm(cfg.Ds, desc="resolution design")):
    tr = trials.resolution_trials(Dv, cfg.centres, cfg.offsets, cfg.prompts,
                                  stream("resolution_design", i), n_names=len(emb_k.names),
                                  n_templates=len(emb_k.templates["similarity"]))
    mass = language.encoder_mass(emb_k, tr, temperature=T)
    centre = tr.years.mean(1)
    count_rows.append(two_reference.two_reference_counts(centre, np.full(len(tr), Dv),
                                                         tr.probe - centre, mass))
    res_rows.append(two_reference.offset_curve(mass, model=MODEL, D=Dv, offsets=cfg.offsets,
                                               n_centres=len(cfg.centres), kernel=kern_meas))
live_counts = pd.concat(count_rows, ignore_index=True)
res_df = pd.concat(res_rows, ignore_index=True)
two_fit = two_reference.fit_two_reference(live_counts, cfg.n_boot, stream("two_reference"))
cross = two_reference.chance_crossover(live_counts, cfg.n_boot, stream("crossover"))
res_df["p_fit"] = two_reference.fitted_curve(res_df, two_fit)
wings = verdicts.wing_asymmetry(live_counts, D=max(cfg.Ds))
offsets = np.asarray(cfg.offsets)
report.table(res_df, "resolution")
report.figure("resolution", fig_resolution(res_df))
far = res_df[res_df.offset.abs() >= res_df.D + 100]
for key, value in (("n_centres", len(cfg.centres)), ("off_lo", -offsets.min()),
                   ("off_hi", offsets.max()), ("off_step", np.diff(offsets).min()),
                   ("prompts", cfg.prompts), ("n_boot", cfg.n_boot),
                   ("two_lambda", two_fit["lambda"]), ("two_floor", two_fit["floor"]),
                   ("two_res", two_fit["resolution"]), ("two_lo", two_fit["ci_low"]),
                   ("two_hi", two_fit["ci_high"]), ("cross", cross["resolution"]),
                   ("cross_lo", cross["ci_low"]), ("cross_hi", cross["ci_high"]),
                   ("cross_xmax", cross["x_max"]),
                   ("far_gap_fit", (far.p_correct - far.p_fit).abs().mean()),
                   ("far_gap_kernel", (far.p_correct - far.p_kernel).abs().mean())):
    report.number(key, value)
    quantities[key] = value
report.table(tables.fit_table(MODEL, shape_fits, shape_df, two_fit, cfg), "fit")
two_warning = (misfit_warning("the two-reference curve", two_fit)
               or censored_warning("the two-reference curve", two_fit))
report.text("two_note", mathify(two_warning or "The fit describes its data."), markdown=True)
report.text("cross_note", "still told apart from chance at the last probe, so the crossover "
            "lies beyond the design (a censored number)" if cross.get("at_bound") else
            "lost within the design", )
report.text("wing_text", mathify(
    f"The crossover pools the two wings of the design; at $D =$ {max(cfg.Ds):g} they "
    + ("differ" if wings["differ"] else "do not differ detectably")
    + f" ($P$(correct) more than {wings['beyond']:g} years past the nearer reference: "
    f"{wings['p_before']:.3f} before the pair, {wings['p_after']:.3f} after it, |z| = "
    f"{abs(wings['z']):.1f})"
    + (": the kernel depends on the years themselves, not only on their distance."
       if wings["differ"] else ".")) if np.isfinite(wings["z"]) else "", markdown=True)

# %% [markdown]
# On the paper's design, two people born $D$ years either side of a centre and probes every
# {glue:text}`ch5_off_step` years out to {glue:text}`ch5_off_hi` years,
# {glue:md}`ch5_enc_res_short:myst`
#
# ### $p_S$ and $p_I$ against $n$
#
# The reviewers' test: $n$ people born uniformly in
# {glue:text}`ch5_sweep_y0`–{glue:text}`ch5_sweep_y1`, a uniform probe year for similarity and a
# listed one for identification. The shared engine predicts both from the measured kernel, with
# nothing fitted to the success rates.

# %% tags=["hide-input"]
lo, hi = cfg.sweep_years
yrs = emb_s.years[(emb_s.years >= lo) & (emb_s.years <= hi)]
year_space = spaces.Discrete(np.abs(yrs[:, None] - yrs[None, :]).astype(float))
task_prof = {task: language.measure_kernel(emb_s, task, probe_years=yrs,
                                           max_distance=int(yrs[-1] - yrs[0]),
                                           n_names=min(len(emb_s.names), cfg.kernel_names))
             for task in settings.TASKS}
ns = [n for n in cfg.ns if n <= len(emb_s.names)]
rows = []
for task in settings.TASKS:
    kern = kernel_fits.MeasuredKernel(task_prof[task].distance, task_prof[task].similarity(T))
    for n in tqdm(ns, desc=f"{task} sweep"):
        tr = trials.draw_trials(task, n, cfg.trials, stream("n_sweep", n, task == "similarity"),
                                years=cfg.sweep_years, n_names=len(emb_s.names),
                                n_templates=len(emb_s.templates[task]))
        mean, se = language.summarise(language.encoder_mass(emb_s, tr, temperature=T))
        est = luce_success(year_space, kern, task, n, cfg.engine_trials,
                           stream("n_sweep_engine", n, task == "similarity"))
        rows.append({"model": MODEL, "task": task, "n": n, "p": mean, "se": se,
                     "p_theory": est.mean, "theory_se": est.stderr})
sweep_df = pd.DataFrame(rows)
sweep = verdicts.sweep_verdict(sweep_df)
enc_theorem3 = verdicts.theorem3_forms(sweep_df,
                                       gof_boot=min(cfg.gof_boot, verdicts.THEOREM3_BOOT),
                                       seed=stream("encoder theorem 3"))
report.table(sweep_df, "n_sweep")
report.figure("nsweep", figures.fig_nsweep(sweep_df, MODEL))
sim = sweep_df[sweep_df.task == "similarity"].set_index("n")
ide = sweep_df[sweep_df.task == "identification"].set_index("n")
for key, value in (("sweep_y0", yrs[0]), ("sweep_y1", yrs[-1]), ("ps2", sim.p.loc[2]),
                   ("pi2", ide.p.loc[2]), ("ps_hi", sim.p.loc[max(ns)]),
                   ("pi_hi", ide.p.loc[max(ns)]), ("n_hi", max(ns)),
                   ("nps_hi", max(ns) * sim.p.loc[max(ns)])):
    report.number(key, value)
    quantities[key] = value
quantities.update({f"{task} fit z": v["z"] for task, v in sweep.items()})
fit_words = {task: (f"the prediction meets {task} within three standard errors at every $n$ "
                    f"(farthest: {v['max_gap']:+.3f} at $n =$ {v['gap_n']})" if v["within"] else
                    f"the prediction misses {task} most at $n =$ {v['gap_n']}, by "
                    f"{v['max_gap']:+.3f} (z = {v['z']:+.1f})") for task, v in sweep.items()}
report.text("sim_fit", fit_words["similarity"], markdown=True)
report.text("id_fit", fit_words["identification"], markdown=True)
report.text("falls", "both fall at every added person" if sweep["similarity"]["falls"] and
            sweep["identification"]["falls"] else "they do not fall at every step", )
glue(report.prefix + "sweep_table", report_tables.table(
    sweep_df.drop(columns=["model"]), decimals=3, headers=tables.HEADERS, csv="n_sweep"),
    display=False)
report.table(tables.theorem3_table(enc_theorem3), "theorem3_encoder")
enc_bound = verdicts.floor_bound_table(enc_theorem3["floor"], sweep_df)
report.table(enc_bound, "floor_bound_encoder")

# %% [markdown]
# Generalization and identification {glue:text}`ch5_falls`: $p_S$ from {glue:text}`ch5_ps2:.3f`
# to {glue:text}`ch5_ps_hi:.3f` at $n =$ {glue:text}`ch5_n_hi` (still
# {glue:text}`ch5_nps_hi:.1f` times chance), $p_I$ from {glue:text}`ch5_pi2:.3f` to
# {glue:text}`ch5_pi_hi:.3f`. From the mean kernel, {glue:md}`ch5_sim_fit:myst`: the real weights
# fluctuate with the name and the years, the "noise" of the paper's noisy exponential
# ({numref}`ch5-fig-nsweep`). {glue:md}`ch5_enc_t3_short:myst`
#
# ### The temperature
#
# By {prf:ref}`ch5-prop-two-reference`, sharpening a kernel without a floor raises $p_S$ and
# $p_I$ together; with a floor, $p_S$ turns down. Each softmax temperature gives a point at
# $n = 2$, which the engine predicts from the mean kernel at that temperature.

# %% tags=["hide-input"]
def fig_temperature(temp_df, model: str, own_T: float):
    """The model on the (p_I, p_S) plane, one point per softmax temperature, with the
    engine's prediction from the mean kernel at each and the universal front."""

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
                    s=36, zorder=3, label=f"{model} ± 2 se")
    own = temp_df.iloc[(temp_df.temperature - own_T).abs().argmin()]
    ax.scatter([own.p_i], [own.p_s], s=150, facecolors="none", edgecolors=splot.CYCLE[1],
               lw=1.5, zorder=4, label=f"its trained T = {own_T:g}")
    fig.colorbar(sc, ax=ax, label="softmax temperature $T$", format="%g")
    top_y = max(0.8, float(temp_df[["p_s", "p_s_theory"]].max().max()) + 0.02)
    ax.set(xlabel="identification $p_I$ ($n = 2$)", ylabel="generalization $p_S$ ($n = 2$)",
           xlim=(0.45, 1.02), ylim=(0.45, top_y))
    splot.legend_outside(fig, ncol=2)
    return fig


rows = []
for i, temp in enumerate(tqdm(cfg.temperatures, desc="temperatures")):
    row = {"model": MODEL, "temperature": temp}
    for task in settings.TASKS:
        key = "p_s" if task == "similarity" else "p_i"
        tr = trials.draw_trials(task, 2, cfg.trials, stream("temperature", i, task == "similarity"),
                                years=cfg.sweep_years, n_names=len(emb_s.names),
                                n_templates=len(emb_s.templates[task]))
        row[key], row[key + "_se"] = language.summarise(
            language.encoder_mass(emb_s, tr, temperature=temp))
        kern = kernel_fits.MeasuredKernel(task_prof[task].distance,
                                          task_prof[task].similarity(temp))
        est = luce_success(year_space, kern, task, 2, cfg.engine_trials,
                           stream("temperature_engine", i, task == "similarity"))
        row[key + "_theory"], row[key + "_theory_se"] = est.mean, est.stderr
    rows.append(row)
temp_df = pd.DataFrame(rows).sort_values("temperature", ignore_index=True)
# the turn of the data, and of the engine's prediction from the mean kernel
turn = verdicts.turn_finding(temp_df)
turn_theory = verdicts.turn_finding(temp_df, "p_s_theory", "p_i_theory")
report.table(temp_df, "temperature")
report.figure("front", fig_temperature(temp_df, MODEL, T))
own = temp_df.iloc[(temp_df.temperature - T).abs().argmin()]
cold = temp_df.iloc[0]
for key, value in (("front_ps", own.p_s), ("front_pi", own.p_i),
                   ("front_gap", own.p_s - theory.front(min(max(own.p_i, 0.5), 1.0)))):
    report.number(key, value)
    quantities[key] = value

# %% [markdown]
# {glue:md}`ch5_tradeoff_verdict:myst`
#
# (ch5-external)=
# ## Others' answers
#
# The same analyses run on answers this build did not compute: result files in the book's tidy
# schema, or the authors' LLM pickles where the reader allows them (unpickling runs code).
#
# ```{glue:md} ch5_ext_text
# :format: myst
# ```
#
# ## Exercises
#
# 1. **Four times the questions.** `semres run 5 -p causal_trials=640` (it scores the models
#    anew: long on a CPU). {glue:md}`ch5_exercise_t3:myst` Look at the Theorem 3 lines in the
#    result box.
# 2. **Another draw.** `semres run 5 -p seed=1` draws new names, pairs, centres and trials.
#    By {prf:ref}`ch5-prop-two-reference` a similarity without a floor, like the encoder's mean
#    kernel, shows no tradeoff at any draw: the sentence on the temperature should again find
#    none, and a causal LM's preference for the nearer person should again be a few hundredths
#    above ½.

# %% [markdown]
# ## Methods and checks
#
# How each number of {doc}`the chapter <05_llm_years>` is measured: the engine's curves, how
# the models are asked, the near design and every fit, the protocol in numbers, the encoder's
# kernel and the paper's design window by window, the rates at every $n$, the temperature, and
# where this build differs from the paper.
#
# ### Every result, with its numbers
#
# ```{glue:md} ch5_result_details
# :format: myst
# ```
#
# ### The engine's curves
#
# The floor's tradeoff on the shared engine, two items on the unit segment.

# %% tags=["hide-input"]
def fig_lambda(lam_df):
    """p_S, p_I against lambda, and the same runs on the plane, per floor."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    for (fl, sub), color in zip(lam_df.groupby("floor"), splot.CYCLE):
        axes[0].plot(sub["lambda"], sub.p_s, color=color, label=f"$p_S$, $\\Delta$ = {fl:g}")
        axes[0].plot(sub["lambda"], sub.p_i, color=color, ls="--",
                     label=f"$p_I$, $\\Delta$ = {fl:g}")
        axes[1].plot(sub.p_i, sub.p_s, "o-", ms=3, color=color)
    axes[0].set(xscale="log", xlabel="decay length $\\lambda$ (segment length 1)",
                ylabel="success", title="two items on the unit segment")
    p_line = np.linspace(0.5, 1, 200)
    axes[1].plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1,
                 label="constant-$g$ front")
    axes[1].set(xlabel="$p_I$", ylabel="$p_S$", title="the same runs in the $(p_I, p_S)$ plane")
    splot.legend_outside(fig, axes, ncol=4)
    return fig


lams = np.geomspace(*cfg.lam_range, cfg.lam_grid)
rows = []
for f, fl in enumerate(tqdm(cfg.lam_floors, desc="floors")):
    for k, lm_ in enumerate(lams):
        kern = kernels.Exponential(lm_, fl)
        ps, pi = (luce_success(spaces.Segment(), kern, task, 2, cfg.lam_trials,
                               stream("lambda_sweep", f, k, j))
                  for j, task in enumerate(settings.TASKS))
        rows.append({"floor": fl, "lambda": lm_, "p_s": ps.mean, "p_s_se": ps.stderr,
                     "p_i": pi.mean, "p_i_se": pi.stderr})
lam_df = pd.DataFrame(rows)
lam_verdict = verdicts.floor_tradeoff(lam_df)
report.table(lam_df, "lambda_sweep")
report.figure("lambda", fig_lambda(lam_df))
report.number("lam_peak_ps", lam_verdict["peak_ps"])
report.number("lam_peak_lam", lam_verdict["peak_lambda"])
report.number("lam_small_ps", lam_verdict["finest_ps"])

# %% [markdown]
# ```{glue:figure} ch5-fig-lambda
# :name: ch5-fig-lambda
#
# $p_S$ (solid) and $p_I$ (dashed) against $\lambda$, with and without a floor; right, the same
# runs on the $(p_I, p_S)$ plane.
# ```
#
# ### How the models are asked
#
# The profile chooses among SmolLM2-135M-Instruct {cite}`allal2025smollm2`, Gemma 3 270M
# {cite}`gemmateam2025gemma3` and Qwen2.5-Coder-0.5B- and 1.5B-Instruct
# {cite}`hui2024qwen25coder`. The prompt lists "{Name} was born in {Y}." per person, the question,
# and "Answer with a single name."; every listed name is scored by the summed log-probability of
# its tokens as the continuation, so every model draws from the same {glue:text}`ch5_n_names`
# names, without sampling or parsing. Each list is read in its order and reversed, and asked
# about every listed person in turn, so a pull towards the first-listed, a familiar or a short
# name cancels in every mean. Every interval counts a name once (cluster-robust, Student's $t$
# with one degree of freedom fewer than the names). The gate is sized to tell a mean mass of
# 0.55 from 0.5 (one-sided test at 5 % with 80 % power): {glue:text}`ch5_gate_planned` trials,
# and {glue:text}`ch5_reverse_planned` for the question asked backwards (below). Each design is
# drawn once and scored in {glue:text}`ch5_looks` looks, each a prefix of it, stopping at the
# first that settles the verdict, because a model far from the line is told apart in a fraction
# of the trials: a pass when the clustered test's one-sided $p$-value at an interim look is
# below that of $z =$ {glue:text}`ch5_interim_z` (Haybittle–Peto; the last look is the fixed
# design's own test, so the level stays 5 %), a fail when the 95 % interval ends below 0.55, the
# effect the gate is sized to see. `lm_gate.csv` records the trials each scored and the look it
# stopped at.
#
# Where each file comes from, and why it is the maker's own release:
# {doc}`../book/models`.
#
# Every model also answers the same facts backwards ("when was {Name} born?", the two listed
# years as options), and its hidden states are probed for the year: a linear read-out of each
# layer, scored on names and decades it never saw, against the read-out of the year's digits
# alone and of shuffled years ({numref}`ch5-fig-lms`).
#
# ```{glue:figure} ch5-fig-lms
# :name: ch5-fig-lms
#
# Left: each model's mass on the correct option, two options (95 % intervals over names), asked
# both ways; dashed, chance. Right: the error of the read-out of the birth year from each layer,
# against shuffled years and the digits alone.
# ```
#
# ```{glue:md} ch5_lm_details
# :format: myst
# ```
#
# ### The near design and every fit
#
# Uniform probes are blind to a resolution of a few decades: with two people and a probe drawn
# uniformly from {glue:text}`ch5_blind_y0`–{glue:text}`ch5_blind_y1`, an exponential
# similarity that falls to a floor of 0.05 within 10 years puts {glue:text}`ch5_blind_u0:.3f`
# of its mass on the nearer person, and one that falls to it within 20 years
# {glue:text}`ch5_blind_u1:.3f`; the same similarities pick the nearer of two people 40 years
# apart {glue:text}`ch5_blind_n0:.2f` and {glue:text}`ch5_blind_n1:.2f` of the time when the
# probe is 1–5 years beyond one of them. So the near design probes a few years from the nearer
# of two people. The half-decay is $\lambda\ln 2$ for the exponential, the return to chance
# $\lambda\ln(1/\Delta)$ ({prf:ref}`ch5-prop-two-reference`).
#
# Two people are born $D$ years either side of a centre ($D =$ {glue:text}`ch5_near_Ds`;
# {glue:text}`ch5_near_pairs` pairs of names for each $D$, each with its own centre in
# {glue:text}`ch5_near_c0`–{glue:text}`ch5_near_c1`), with probes $x =$
# {glue:text}`ch5_near_xs` years beyond the nearer person and, where $x < D$, between the two,
# each on both sides and with the pair in both orders. A pull towards one name of the pair, or
# the first-listed one, cancels in every mean, and each pair of names is one unit of every
# interval (one-sided tests over pairs at 5 %); whether a shape fits is judged against the
# scatter between pairs of names (a lack-of-fit test, by residual bootstrap). The design is
# scored in two stages: first the {glue:text}`ch5_near_stage1` of its
# {glue:text}`ch5_near_design_trials` trials the verdict on similarity reads (probes beyond the
# pair, within {glue:text}`ch5_near_near` years of the nearer person or
# {glue:text}`ch5_near_far` or more away), then the other distances only for a model that
# prefers the nearer person there. A model without similarity has no curve to fit, so the
# control is scored on the first stage alone; a model scored in both stages gets the trials and
# sampled answers of the whole design scored at once.
#
# ```{glue:md} ch5_near_details
# :format: myst
# ```
#
# The paper's {glue:text}`ch5_paper_lo`–{glue:text}`ch5_paper_hi` years for Gemma-2-2B,
# Llama-3.2-3B and Qwen2.5-7B is a reading of its Figure 5b, not a fitted number: its notebook
# stores, per probe, the share of answers naming the earlier-born person, computes no fit and
# no crossover, and draws a scale-free theory curve beside the data
# ({ref}`original-code-resolution-figure` describes that figure). Every scored trial is in
# `lm_trials.csv` (the exact prompt, each option's log-probability, one sampled answer), each
# curve in `lm_resolution.csv`, every shape's fit in `lm_resolution_fits.csv`, and the `paper`
# profile's record in `lm_near_paper.csv`.
#
# ### The protocol in numbers
#
# Theorem 3's constant kernel is fitted to both tasks at once in the paper's form, without a
# floor, and with the floor $\Delta$ a model's similarity has
# ({prf:ref}`ch5-prop-two-reference`); the measured rates are then set against chapter 7's
# $n$-item floor bound at the fitted $\Delta$, the most $p_S$ any similarity with that floor
# reaches at the measured $p_I$.
#
# ```{glue:md} ch5_lm_protocol_text
# :format: myst
# ```
#
# ### The encoder's kernel
#
# ```{glue:figure} ch5-fig-kernel
# :name: ch5-fig-kernel
#
# The encoder's year kernel (log scale, ±2 standard errors) with four fitted shapes; right, the
# first 60 years.
# ```
#
# The weight is $\exp\{(\cos(q_P, s_{P \pm d}) - \cos(q_P, s_P))/T\}$ for
# {glue:text}`ch5_kernel_names` names and probe years
# {glue:text}`ch5_kernel_y0`–{glue:text}`ch5_kernel_y1`, averaged over names, phrasings and
# probes; the mean is geometric, since the Luce
# rule acts on ratios of weights. Standard errors, held-out folds and the bootstrap run over units
# (phrasing $\times$ name $\times$ 50-year block of probes). Four shapes with a floor $\Delta$ are
# fitted to $1 \le d \le$ {glue:text}`ch5_fit_max` by least squares on $\ln g$:
# $A e^{-d/\lambda} + \Delta$ (the paper's), a sum of two exponentials,
# $A(1 + d/\lambda)^{-\beta} + \Delta$ and $A e^{-(d/\lambda)^\beta} + \Delta$. They are compared
# by their error on held-out units ({glue:text}`ch5_folds`-fold), since neighbouring distances of
# one unit are correlated: {glue:md}`ch5_shape_verdict:myst`. The single exponential's held-out
# error is {glue:text}`ch5_exp_rmse:.3f`. The small bumps every 10 and 100 years are the
# tokenizer showing through: years that share their last digits look alike to the model.
#
# ```{glue} ch5_shape_table
# ```
#
# ### The paper's design, window by window
#
# Two people are born at $c \pm D$ for {glue:text}`ch5_n_centres` centres $c$, with probe years
# from $c -$ {glue:text}`ch5_off_lo` to $c +$ {glue:text}`ch5_off_hi` every
# {glue:text}`ch5_off_step` years. Each point averages {glue:text}`ch5_prompts` random name
# pairs and phrasings; the person on the probe's side is correct. The two-reference curve of
# {prf:ref}`ch5-prop-two-reference` is fitted by binomial maximum likelihood of
# $\lambda$ and $\Delta$, with intervals from {glue:text}`ch5_n_boot` resamples of the centres;
# its return to chance is $\lambda\ln(1/\Delta)$. The paper's measure smooths
# $P(\text{correct})$ to fall monotonically and finds where it comes within two binomial
# standard errors of ½. The fit gives $\lambda =$ {glue:text}`ch5_two_lambda:.0f` years and
# $\Delta =$ {glue:text}`ch5_two_floor:.3f`. {glue:md}`ch5_two_note:myst` The preference is
# {glue:text}`ch5_cross_note` (the last probe lies {glue:text}`ch5_cross_xmax:.0f` years beyond
# the nearer reference).
#
# ```{glue:figure} ch5-fig-resolution
# :name: ch5-fig-resolution
#
# $P(\text{correct})$ against the probe's offset from the centre, references $D$ years either side
# (dotted), ±2 standard errors; black, the fitted two-reference curve; red dashed, the measured
# kernel.
# ```
#
# Far from the pair the fitted curve misses the data (mean absolute gap more than 100 years
# beyond $D$: {glue:text}`ch5_far_gap_fit:.3f`; for the measured kernel:
# {glue:text}`ch5_far_gap_kernel:.3f`). {glue:md}`ch5_wing_text:myst`
#
# The kernel shapes are refitted on $1 \le d \le w$ for $w$ in {glue:text}`ch5_windows`, the
# two-reference fit and the crossover on probes with $|\delta| \le w$ for $w$ in
# {glue:text}`ch5_ref_windows`, each with a bootstrap interval. A resolution is reported only if
# it moves by less than its own narrowest 95 % interval across the upper windows
# ({glue:text}`ch5_stable_range` years for the kernel, {glue:text}`ch5_ref_stable_range` for the
# design) and no fit in them stopped on a bound; the measures are tried in the order: the paper's
# crossover, the two-reference fit, the best kernel shape.

# %% tags=["hide-input"]
def fig_windows(table, title: str):
    """Resolution against the fit window, kernel shapes left, the design right."""
    fig, axes = splot.subplots(1, 2, figsize=(9, 4.2))
    styles = dict(zip([f"kernel {s}" for s in SHAPES] + ["two-reference fit", "chance crossover"],
                      [splot.THEORY, *splot.CYCLE[1:4], splot.CYCLE[0], splot.CYCLE[4]]))
    for ax, kind in zip(axes, ("kernel", "design")):
        sub_all = table[table.measure.str.startswith("kernel") == (kind == "kernel")]
        good = sub_all[~sub_all.at_bound.astype(bool) & np.isfinite(sub_all.ci_high)]
        top = 5 * float(good.ci_high.max() if len(good) else sub_all.resolution.median())
        for measure, sub in sub_all.groupby("measure", sort=False):
            label = measure_name(measure) + (" (reported)" if sub.headline.any() else "")
            y = sub.resolution.clip(upper=top)
            ax.errorbar(sub.window, y, yerr=[(y - sub.ci_low.clip(upper=top)).clip(lower=0),
                                             (sub.ci_high.clip(upper=top) - y).clip(lower=0)],
                        fmt="o-", ms=4, capsize=2, color=styles.get(measure, "0.3"),
                        lw=2.2 if sub.headline.any() else 1.2, label=label)
            cens = sub.at_bound.astype(bool).to_numpy()
            ax.plot(sub.window[cens], y[cens], "x", ms=9, color="0.2")
            bad = (sub["misfit"].fillna(False).astype(bool).to_numpy() if "misfit" in sub
                   else np.zeros(len(sub), bool))
            ax.plot(sub.window[bad], y[bad], "o", ms=6, mfc="white", zorder=4,
                    color=styles.get(measure, "0.3"))
        ax.plot([], [], "x", ms=9, color="0.2", label="fit on a bound (censored)")
        ax.plot([], [], "o", ms=6, mfc="white", color="0.2",
                label="fit fails its goodness-of-fit test")
        low = sub_all.ci_low[sub_all.ci_low > 0].clip(upper=top)
        ax.set_yscale("log")  # before the limits: a linear autoscale may put the bottom below 0
        ax.set_ylim(0.7 * float(low.min()) if len(low) else None, top * 1.2)
        ax.set(xlabel="kernel window $w$ (years; values above the axis are clipped to it)"
               if kind == "kernel" else "design window $|\\delta| \\leq w$ (years)",
               ylabel="resolution (years)")
    axes[0].set_title(f"{title}: kernel shapes")
    axes[1].set_title("two-reference design")
    splot.legend_outside(fig, axes, ncol=3)
    return fig


kernel_windows = kernel_fits.resolution_by_window(
    prof, cfg.windows, cfg.window_boot, stream("kernel_windows"), temperature=T,
    shapes=tuple(kernel_fits.SHAPES), model=MODEL)
kernel_windows["measure"] = "kernel " + kernel_windows.measure
live_windows = pd.concat([kernel_windows, two_reference.ref_by_window(
    live_counts, MODEL, cfg.ref_windows, cfg.window_boot, stream("design_windows"))],
    ignore_index=True)
head = verdicts.headline_measure(live_windows, best_kernel=f"kernel {best_shape}",
                                 ref_stable=cfg.ref_stable, kernel_stable=cfg.stable_windows,
                                 n_boot=cfg.window_boot)
live_windows["headline"] = live_windows.measure == head.measure
choices = verdicts.window_choices(live_windows, best_kernel=f"kernel {best_shape}",
                                  kernel_windows=cfg.windows, ref_windows=cfg.ref_windows,
                                  ref_stable=cfg.ref_stable, kernel_stable=cfg.stable_windows,
                                  n_boot=cfg.window_boot)
robust = verdicts.same_for_every_choice(choices)
REASON = {"misfit": "does not describe the data in windows {lo}–{hi} (goodness of fit "
                    "p < 0.001)",
          "bound": "stops on a bound of its range in windows {lo}–{hi}",
          "moves": "moves by {spread:.0f} years across windows {lo}–{hi}, more than its "
                   "narrowest interval ({width:.0f})"}
reasons = "; ".join(f"the {verdicts.measure_name(m)} " + REASON[why].format(
    lo=lo, hi=hi, spread=spread, width=width) for m, why, lo, hi, spread, width in head.reasons)
if not head.decided:
    window_text = (f"With {cfg.window_boot} bootstrap resamples per window (this profile) a "
                   f"95 % interval has no resample in its tails, so whether the resolution of "
                   f"{MODEL} depends on the window is not decided here.")
elif head.stable:
    window_text = (f"The {verdicts.measure_name(head.measure)} is stable across its upper "
                   f"windows: {MODEL} resolves years to about {head.row['resolution']:.0f} years "
                   f"(95 % interval {head.row['ci_low']:.0f}–{head.row['ci_high']:.0f}).")
else:
    window_text = (f"No measure is stable across the upper windows, so the resolution of {MODEL} "
                   f"is not identifiable from these data: {reasons}. "
                   + (f"The kernel is still falling at the end of the measured range ($\\ln g$ "
                      f"drops by {-tail['slope']:.2f} ± {2 * tail['slope_se']:.2f} per 100 years "
                      f"over $d =$ {tail['from']:.0f}–{tail['to']:.0f}), so every fitted floor "
                      "is set by where the window ends." if tail["falling"] else
                      "The kernel flattens at the end of the measured range, yet no fit settles "
                      "on one resolution."))
report.text("window_verdict", mathify(window_text), markdown=True)
# the main page's sentence on the encoder's resolution: both measures, why they differ, the verdict
report.text("enc_res_short", mathify(
    f"the return to chance of the fitted two-reference curve is "
    f"{two_fit['resolution']:.0f} years [{two_fit['ci_low']:.0f}, {two_fit['ci_high']:.0f}], and "
    f"the paper's own measure, where the preference can no longer be told from chance, "
    f"{cross['resolution']:.0f} years [{cross['ci_low']:.0f}, {cross['ci_high']:.0f}]. "
    + ("The two differ because the fitted curve misses the data, so its distance describes the "
       "wrong curve. " if two_fit.get("misfit") else "")
    + ("Too few resamples per window decide whether either settles as the fit window grows."
       if not head.decided else
       f"The {verdicts.measure_name(head.measure)} settles as the fit window grows: {MODEL} "
       f"resolves years to about {head.row['resolution']:.0f} years."
       if head.stable and robust else
       "Neither settles as the fit window grows, so the encoder's resolution is not identified.")
    ), markdown=True)
stable = choices[choices.stable]
report.text("window_choices", "" if not head.decided else
            f"The verdict does not depend on which windows count as upper: no measure is stable "
            f"for any of the {len(choices)} choices." if stable.empty else
            f"The verdict does not depend on which windows count as upper: the "
            f"{verdicts.measure_name(stable.measure.iloc[0])} is stable for all "
            f"{len(choices)} choices." if robust else
            f"The verdict depends on which windows count as upper: {len(stable)} of "
            f"{len(choices)} choices find a stable measure ("
            + "; ".join(f"the {verdicts.measure_name(r.measure)} with {r.family} windows "
                        f"{r.upper_windows}, {r.resolution:.0f} years" for r in stable.itertuples())
            + "), so the resolution is not identified.", markdown=True)
report.table(choices, "window_choices")
report.figure("windows", fig_windows(live_windows, MODEL))
exp_rows = live_windows[live_windows.measure == "kernel exp_floor"]
for key, value in (("exp_w_lo", exp_rows.resolution.iloc[0]),
                   ("exp_w_hi", exp_rows.resolution.iloc[-1]),
                   ("exp_w0", exp_rows.window.iloc[0]), ("exp_w1", exp_rows.window.iloc[-1]),
                   ("exp_w_misfits", int(exp_rows.misfit.sum())), ("exp_w_n", len(exp_rows))):
    report.number(key, value)
for key, sep in (("windows", ", "), ("ref_windows", ", "), ("stable_windows", "–"),
                 ("ref_stable", "–")):
    report.text({"stable_windows": "stable_range", "ref_stable": "ref_stable_range"}.get(key, key),
                sep.join(map(str, getattr(cfg, key))), )
glue(report.prefix + "window_table", report_tables.table(
    live_windows[live_windows.headline].drop(columns=["model", "headline"]), decimals=1,
    headers=tables.HEADERS, csv="resolution_by_window"), display=False)

# %% [markdown]
# ```{glue:figure} ch5-fig-windows
# :name: ch5-fig-windows
#
# Resolution against the fit window (95 % bootstrap intervals): the kernel shapes on
# $1 \le d \le w$ (left), the two-reference fit and the crossover on $|\delta| \le w$ (right).
# Crosses: fits on a bound; open circles: fits that fail their goodness-of-fit test; thick: the
# reported measure.
# ```
#
# {glue:md}`ch5_window_verdict:myst` {glue:md}`ch5_window_choices:myst` The single
# exponential with a floor alone goes from {glue:text}`ch5_exp_w_lo:.0f` years (window
# {glue:text}`ch5_exp_w0`) to {glue:text}`ch5_exp_w_hi:.0f` years (window
# {glue:text}`ch5_exp_w1`) and fails its goodness-of-fit test in
# {glue:text}`ch5_exp_w_misfits` of {glue:text}`ch5_exp_w_n` windows. The reported measure,
# window by window:
#
# ```{glue} ch5_window_table
# ```
#
# ### The rates at every $n$
#
# ```{glue:figure} ch5-fig-nsweep
# :name: ch5-fig-nsweep
#
# The encoder's success against $n$ (log–log, ±2 standard errors): (a) "who was born closest
# to $P$?", (b) "who was born in $P$?"; black, the engine's prediction from the mean kernel;
# dashed, chance $1/n$.
# ```
#
# A graded kernel keeps ranking near people above far ones, so $p_S$ falls more slowly than the
# $1/n$ of a coarse constant similarity; $p_I$ is carried by the exact-year spike. For
# identification, {glue:md}`ch5_id_fit:myst`: the more people are listed, the likelier one of them
# outweighs the exact match by chance. {glue:md}`ch5_enc_t3_text:myst`
#
# ```{glue} ch5_sweep_table
# ```
#
# ### The temperature
#
# ```{glue:figure} ch5-fig-front
# :name: ch5-fig-front
#
# The encoder on the $(p_I, p_S)$ plane at $n = 2$, one point per temperature (colour), its own
# circled; open squares, the engine; black, the constant-similarity front.
# ```
#
# At its own temperature ($p_I =$ {glue:text}`ch5_front_pi:.3f`, $p_S =$
# {glue:text}`ch5_front_ps:.3f`) the encoder sits {glue:text}`ch5_front_gap:+.3f` from the
# constant-similarity front, which binds no graded kernel (Proposition 1).
#
# ### Others' answers, computed
#
# The result files given through the `results` parameter are read in the chapter's opening
# cell; here they run through the same fits as this build's answers.

# %% tags=["hide-input"]
shipped_llm = [t for t in ("llm_n", "llm_resolution") if t in released.tables()]
tidy_rows = given.rows.query("space == 'years'") if given is not None and \
    given.rows is not None else lm_rows.iloc[:0]
ext_n, ext_ref = answers.external_answers(shipped_llm, given.counts if given else [],
                                          given.curves if given else [], tidy_rows)
# Theorem 3 in both forms, as for the models scored here, wherever both tasks have cells
t3_boot = min(cfg.gof_boot, verdicts.THEOREM3_BOOT)
ext_theorem3 = {m: verdicts.theorem3_forms(sub, gof_boot=t3_boot,
                                           seed=stream("external theorem 3", k))
                for k, (m, sub) in enumerate(ext_n.groupby("model"))
                if sub.task.nunique() == 2 and len(sub) > 2}
ext_windows = [two_reference.ref_by_window(counts, m, cfg.ref_windows, cfg.window_boot,
                                           stream("external_windows", k))
               for k, (m, counts) in enumerate(ext_ref.items())]
for k, tab in enumerate(ext_windows):
    h = verdicts.headline_measure(tab, best_kernel=None, ref_stable=cfg.ref_stable,
                                  kernel_stable=cfg.stable_windows, n_boot=cfg.window_boot)
    ext_windows[k] = tab.assign(headline=tab.measure == h.measure)
scored = tidy_rows[tidy_rows.scores.fillna("").astype(str).str.len().gt(0)]
temps_ext = pd.concat([lm_protocol.temperature_sweep(sub, cfg.temperatures).assign(model=m)
                       for m, sub in scored.groupby("model")], ignore_index=True) \
    if len(scored) else pd.DataFrame()
if ext_theorem3:
    report.table(pd.concat([tables.theorem3_table(f).assign(model=m)
                            for m, f in ext_theorem3.items()], ignore_index=True), "fit_theorem3")
window_table = pd.concat([live_windows, *ext_windows], ignore_index=True)[tables.WINDOW_COLUMNS]
report.table(window_table, "resolution_by_window")
report.table(ext_n, "external")
if len(temps_ext):
    report.table(temps_ext, "temperature_external")
STATUS_VERB = {"reproduced": "meets", "holds": "meets", "does not hold": "misses",
               "inconclusive": "cannot be told to meet or miss"}
ext_lines = []
for m in sorted(set(ext_n.model) | set(ext_ref)):
    bits = []
    for form, fit in ext_theorem3.get(m, {}).items():
        status = verdicts.grid_status(verdicts.theorem3_grid(fit, ext_n[ext_n.model == m]),
                                      verdicts.theorem3_common(fit), new=form == "floor")
        bits.append(f"Theorem 3 {'with' if fit['floor'] else 'without'} a floor ($b =$ "
                    f"{fit['b']:.3f}) {STATUS_VERB.get(status, 'is not judged on')} every cell "
                    "within 0.05")
    w = window_table[(window_table.model == m) & window_table.headline]
    if len(w):
        last = w.iloc[-1]
        st = kernel_fits.window_stability(w, [x for x in w.window if cfg.ref_stable[0] <= x <=
                                              cfg.ref_stable[1]])
        bits.append(f"its {last.measure} is {last.resolution:.0f} years (95 % interval "
                    f"{last.ci_low:.0f}–{last.ci_high:.0f}, window {last.window}), "
                    + ("stability not decided (too few resamples)" if not head.decided else
                       "stable across windows" if st["stable"] else "not stable across windows"))
    ext_lines.append(f"- **{m}**: " + "; ".join(bits) + ".")
report.text("ext_text", mathify("\n".join(ext_lines)) or (
    f"No such data here: the paper's LLMs ({', '.join(THE_PAPER.models)}) left their answers "
    "only as binary pickles, and no result files were given. Given the authors' saved results "
    "(the chapter's `results` parameter), with pickles allowed, this section fills in."),
    markdown=True)

# %% tags=["remove-cell"]
# the sentences whose words depend on the outcome: Theorem 3 in both forms, chapter 7's floor
# bound and the temperature's turn, for every causal LM that ran the protocol and the encoder
TURN_VERB = {"holds": "trades", "does not hold": "does not trade"}
fitted3 = {m: (r["theorem3_forms"], r["sweep"], r["floor_bound"]) for m, r in protocol.items()}
fitted3[MODEL] = (enc_theorem3, sweep_df, enc_bound)
t3_said, t3_status, bound_said = {}, {}, {}
for m, (forms, sw, bound) in fitted3.items():
    for form, fit in forms.items():
        q, cells = verdicts.theorem3_params(fit), verdicts.theorem3_grid(fit, sw)
        worst = max(cells, key=lambda c: max(map(abs, c["ci"])))
        t3_status[m, form] = verdicts.grid_status(cells, verdicts.theorem3_common(fit),
                                                  new=form == "floor")
        t3_said[m, form] = (
            f"$b =$ {q['b']:.3f} [{q['b_ci'][0]:.3f}, {q['b_ci'][1]:.3f}]"
            + (f", $\\Delta =$ {q['delta']:.3f} [{q['delta_ci'][0]:.3f}, {q['delta_ci'][1]:.3f}]"
               if fit["floor"] else "")
            + f" {STATUS_VERB.get(t3_status[m, form], 'is not judged on')} every cell within "
            f"0.05 (largest miss {worst['headline']:+.3f} [{worst['ci'][0]:+.3f}, "
            f"{worst['ci'][1]:+.3f}] at {worst['cell']}; goodness of fit {gof_pvalue(fit)}, "
            f"dispersion {fit['dispersion']:.1f}, root-mean-square gap {fit['rms_gap']:.3f} "
            f"against {fit['rms_sampling']:.3f} from sampling alone)")
    k = None if bound.empty else bound.iloc[int(bound.slack.to_numpy().argmin())]
    bound_said[m] = (
        "Theorem 3's fitted floor is not inside (0, 1), so chapter 7's floor bound tests "
        "nothing here." if k is None or k.delta < verdicts.NO_FLOOR else
        f"At that floor ($\\Delta =$ {k.delta:.3f}) chapter 7's $n$-item bound allows $p_S$ up "
        f"to {k.bound:.3f} at the measured $p_I$ ({k.p_i:.3f}, $n =$ {int(k.n)}), where it "
        f"measured {k.p_s:.3f}; its $p_S$ is consistent with the bound at "
        f"{int(bound.within.sum())} of {len(bound)} values of $n$.")
turns = {**{m: verdicts.turn_finding(r["temperature"]) for m, r in protocol.items()}, MODEL: turn}
turn_said = {m: f"{TURN_VERB.get(f['status'], 'cannot be told to trade or not')}: from $T =$ "
             f"{f['peak_T']:g} to $T =$ {f['cold_T']:g} $p_S$ moves by {-f['headline']:+.3f} "
             f"[{-f['ci'][1]:+.3f}, {-f['ci'][0]:+.3f}]"
             + ("" if f["status"] in TURN_VERB else
                f"; a fall this test detects with 80 % power is {f['detectable']:.3f}, against "
                f"an advantage above chance of {f['advantage']:.3f}")
             for m, f in turns.items()}
# Theorem 3's fitted parameters and the temperature's turn, which the sentences quote
report.table(pd.DataFrame([
    {"model": m, "form": form, "b": q["b"], "b_ci_low": q["b_ci"][0], "b_ci_high": q["b_ci"][1],
     "delta": q.get("delta", np.nan), "delta_ci_low": q.get("delta_ci", (np.nan,) * 2)[0],
     "delta_ci_high": q.get("delta_ci", (np.nan,) * 2)[1], "dispersion": fit["dispersion"],
     "rms_gap": fit["rms_gap"], "rms_sampling": fit["rms_sampling"]}
    for m, (forms, _, _) in fitted3.items() for form, fit in forms.items()
    for q in [verdicts.theorem3_params(fit)]]), "theorem3_params")
report.table(pd.DataFrame([
    {"model": m, "peak_T": f["peak_T"], "cold_T": f["cold_T"], "change": -f["headline"],
     "change_ci_low": -f["ci"][1], "change_ci_high": -f["ci"][0],
     "detectable": f.get("detectable", np.nan), "advantage": f.get("advantage", np.nan),
     "status": f["status"]} for m, f in turns.items()]), "temperature_turns")
proto_lines, proto_detail = [], []
for m, r in protocol.items():
    u, nr = r["uniform"], near_results[m]
    k, kf = r.get("kernel"), r.get("kernel_fit", {})
    quantities.update({f"{m} choice kernel {key}": kf[key] for key in ("lambda", "floor")
                       if key in kf})
    trend, agree = r.get("kernel_trend") or {}, r.get("trend_agreement") or {}
    nt = nr["competence"].get("trend") or {}
    # whether the kernel read from its choices and the near design say the same of the decay
    yes, no, ny, nn = ((trend, nt, "the kernel read from its choices", "the near design")
                       if trend.get("decays") else
                       (nt, trend, "the near design", "the kernel read from its choices"))
    why = "" if not agree else (
        (f"both find that similarity decays with distance (the kernel read from its choices: "
         f"one-sided p = {trend['p_value']:.2g}; the near design: p = {nt['p_value']:.2g})"
         if trend["decays"] else
         f"neither finds that similarity decays with distance (the kernel read from its "
         f"choices: p = {trend['p_value']:.2g}; the near design: p = {nt['p_value']:.2g})")
        if agree["agree"] else
        f"{ny} finds that similarity decays (one-sided p = {yes['p_value']:.2g}); "
        + (f"{nn} finds it rises (interval {no['ci_low']:.3g} to {no['ci_high']:.3g}, above 0): "
           "the two contradict each other" if agree["contradict"] else
           f"{nn} cannot tell (p = {no['p_value']:.2g}, its interval {no['ci_low']:.3g} to "
           f"{no['ci_high']:.3g} spans 0): too imprecise to confirm it, not a contradiction"))
    c = nr["competence"]["above"]
    proto_lines.append(
        f"- **{m}** puts {u['p']:.3f} [{u['ci_low']:.3f}, {u['ci_high']:.3f}] on the nearer "
        f"person when the probe year is drawn uniformly ($n = 2$), against {c['p']:.3f} a few "
        "years from a person: uniform probes mostly land far from both people, where any finite "
        "resolution answers at chance. Theorem 3 without a floor "
        f"{STATUS_VERB.get(t3_status[m, 'free'], 'is not judged on')} its success across $n$ "
        f"within 0.05, with a floor it {STATUS_VERB.get(t3_status[m, 'floor'], 'is not judged on')}"
        f" it, and sharpening its probabilities "
        f"{TURN_VERB.get(turns[m]['status'], 'cannot be told to trade or not')}."
        + (f" The exponential with a floor fitted to the kernel read from its choices on uniform "
           f"probes ($\\lambda =$ {kf['lambda']:.0f} years) is no second resolution: those "
           "probes pool people decades and centuries apart, so the far tail sets its scale, "
           "while the near design measures the first decades."
           if r["does_similarity"] and "error" not in kf else ""))
    proto_detail.append(
        f"**{m}.** "
        + (f"Its similarity fitted on the near design predicts {nr['front']['p_s']:.3f} for "
           "uniform probes at $n = 2$. " if nr.get("does") else "")
        + f"Theorem 3 without a floor: {t3_said[m, 'free']}; with a floor: "
        f"{t3_said[m, 'floor']}. {bound_said[m]}"
        + ((f" Read from its choices on uniform probes, a person born {k.distance.iloc[1]:.0f} "
            f"years from the probe weighs {k.g.iloc[1]:.2f} of one born in it, and "
            + ("its weight falls with distance" if trend.get("decays") else
               "a trend test finds no fall of its weight with distance")
            + (f" ({why})" if why else "") + ".") if r["does_similarity"] else "")
        + f" Sharpening its probabilities {turn_said[m]}.")
report.text("lm_protocol_summary", mathify("\n".join(proto_lines))
            or "No causal LM passed its gate in this build.", markdown=True)
report.text("lm_protocol_text", mathify("\n\n".join(proto_detail))
            or "No causal LM passed its gate in this build.", markdown=True)
ex = next(iter(protocol), None)
report.text("exercise_t3", mathify(
    "No model passes the gate in this build, so Theorem 3 is not tested and this tests nothing."
    if ex is None else
    "Each model that passes the gate answers four times as many questions at every $n$ above 2. "
    f"Theorem 3 with a floor cannot be told to meet or miss {ex}'s rates, because the interval "
    "of its largest miss straddles the margin of 0.05; four times the trials halve that "
    "interval, so it should then be told to meet or miss them."
    if t3_status[ex, "floor"] not in STATUS_VERB or t3_status[ex, "floor"] == "inconclusive" else
    "Each model that passes the gate answers four times as many questions at every $n$ above 2. "
    f"Theorem 3 with a floor {STATUS_VERB[t3_status[ex, 'floor']]} {ex}'s rates within 0.05; "
    "four times the trials halve the intervals, and the verdict should stay."), markdown=True)
report.text("enc_t3_short", mathify(
    "Theorem 3's constant kernel, fitted to both tasks at once, "
    f"{STATUS_VERB.get(t3_status[MODEL, 'free'], 'is not judged on')} these rates within 0.05 "
    f"without a floor and {STATUS_VERB.get(t3_status[MODEL, 'floor'], 'is not judged on')} them "
    "with one."), markdown=True)
report.text("enc_t3_text", mathify(
    f"Theorem 3's constant kernel, fitted to both tasks at once, without a floor: "
    f"{t3_said[MODEL, 'free']}; with a floor: {t3_said[MODEL, 'floor']}. {bound_said[MODEL]}"),
    markdown=True)
report.text("tradeoff_verdict", mathify(
    ("From the mean kernel, which has no floor, the engine predicts no tradeoff: cooling raises "
     f"both rates, $p_S$ up to {cold.p_s_theory:.3f} at $T =$ {cold.temperature:g}."
     if turn_theory["status"] != "holds" else
     f"Even the mean kernel predicts a tradeoff: $p_S$ peaks at $T =$ {turn_theory['peak_T']:g}.")
    + f" The model itself {turn_said[MODEL]}."), markdown=True)

# %% tags=["remove-cell"]
# the overview's rows, in the book's status vocabulary, and the chapter's points on the plane
LM_STAND_IN = "a small causal LM that installs from the registry, not the paper's 2–7B models"
ENC_STAND_IN = f"a sentence encoder ({MODEL}), not the paper's chat LLMs"
report.result("Two references under an exponential with a floor",
              f"with a floor Delta = {lam_verdict['floor']:g}, p_S on the engine rises and falls "
              "again as lambda shrinks: the smaller of its falls from the peak (to the finest "
              "and the coarsest lambda), against no fall (SymPy, engine)",
              headline=lam_verdict["turn"], ci=lam_verdict["ci"], compared_with=0.0,
              compared_with_label="no fall of p_S from its peak", margin=lam_verdict["margin"],
              margin_reason=verdicts.ENGINE_TURN_REASON, claim="above")
report.result("Two references without a floor: a finer kernel wins both tests",
              f"without a floor p_S and p_I both exceed {verdicts.BOTH_RISE} at the finest "
              "lambda on the engine, as the SymPy limit proves", passed=lam_verdict["both_rise"],
              kind="check")
for m, a in assessed.items():
    ok = a["gate"]["verdict"] == "passes"
    report.result(f"{m}: identification at n = 2 (competence gate)",
                  f"{m} {'passes' if ok else 'fails'}: its mass on the person born in the asked "
                  "year, two people listed, against chance (½)", headline=a["gate"]["p"],
                  ci=(a["gate"]["ci_low"], a["gate"]["ci_high"]), passed=ok, does_task=ok,
                  kind="precondition", stand_in=LM_STAND_IN)
    if not ok:
        report.not_run(f"{m}: Theorem 3 across n (with and without its floor)",
                       f"not run, because {m} does not identify a person by birth year",
                       stand_in=LM_STAND_IN)
for m, r in near_results.items():
    c = r["competence"]
    years = f"{c['near']:.0f} year{'s' if round(c['near']) != 1 else ''}"
    report.result(f"{m}: similarity within {years} of a person",
                  f"{m} {'prefers' if r['does'] else 'does not prefer'} the nearer person: its "
                  f"mass on that person within {years} of them, against ½ and against its mass "
                  f"{c['far']:.0f} years or more away", headline=c["above"]["p"],
                  ci=(c["above"]["ci_low"], c["above"]["ci_high"]), passed=r["does"],
                  does_task=r["does"], kind="precondition", stand_in=LM_STAND_IN)
    if not r["does"]:
        report.not_run(f"{m}: year resolution, fitted across distances",
                       f"not run, because {m} does not prefer the nearer person even {years} "
                       "away", stand_in=LM_STAND_IN)
        continue
    b = r["best"]
    report.result(f"{m}: year resolution, fitted across distances "
                  f"({SHAPE_NAMES[b['shape']]})",
                  "where its fitted similarity falls to its floor, so that answers return to "
                  "chance (lambda ln(1/Delta) for the exponential), against the paper's 70–80 "
                  f"years, the same measure; its half-decay, a different measure, is "
                  f"{b['half_decay']:.0f} years "
                  f"[{b['half_decay_ci_low']:.0f}, {b['half_decay_ci_high']:.0f}]",
                  stand_in=LM_STAND_IN, unit="years", **verdicts.near_resolution(r))
for m, r in protocol.items():
    for form, title in (("free", "Theorem 3 across n, without a floor (the paper's form)"),
                        ("floor", "Theorem 3 across n, with its floor")):
        fit = r["theorem3_forms"][form]
        report.grid_result(f"{m}: {title}", "one constant kernel fitted to both tasks at n = "
                           f"{', '.join(map(str, sorted(set(r['sweep'].n))))} predicts every "
                           "cell within 0.05", verdicts.theorem3_grid(fit, r["sweep"]),
                           f"theorem3_{form}_{tables.slug(m)}", new=form == "floor",
                           stand_in=LM_STAND_IN, **verdicts.theorem3_common(fit))
    own_lm = r["temperature"].set_index("temperature").loc[1.0]
    report.point(f"{m} (n = 2)", own_lm.p_i, own_lm.p_s, own_lm.p_i_se, own_lm.p_s_se)
    if not r["does_similarity"]:
        continue
    title = f"{m}: kernel read from its choices (exponential + floor)"
    row = verdicts.choice_kernel(r)
    if row is None:
        report.not_run(title, "not run: no exponential with a floor could be fitted or sized",
                       stand_in=LM_STAND_IN)
    else:
        report.result(title, "where an exponential with a floor fitted to the kernel read from "
                      "its choices returns to chance, lambda ln(1/Delta) (approximate interval: "
                      "its bins redrawn from their standard errors), against the paper's 70–80 "
                      "years", stand_in=LM_STAND_IN, unit="years", **row)
    report.result(f"{m}: tradeoff along the temperature",
                  f"the fall of p_S on cooling from its peak (T = {turns[m]['peak_T']:g}) to "
                  f"T = {turns[m]['cold_T']:g}, against a quarter of its advantage above "
                  f"chance; a fall this test detects with 80 % power: "
                  f"{turns[m]['detectable']:.3f}", new=True, stand_in=LM_STAND_IN,
                  **verdicts.turn_row(turns[m]))
    front = near_results[m]["front"]
    report.point(f"{m}, p_S its fitted kernel predicts (n = 2)", own_lm.p_i, front["p_s"],
                 own_lm.p_i_se, front["p_s_se"])
if not head.decided:
    report.not_run(f"Year resolution of {MODEL}",
                   f"not run: {cfg.window_boot} bootstrap resamples per window decide nothing; "
                   f"{verdicts.MIN_BOOT} or more do", stand_in=ENC_STAND_IN)
else:
    res = verdicts.resolution_claim(head, robust)
    report.result(f"Year resolution of {MODEL} ({verdicts.measure_name(head.measure)})",
                  "where its answers return to chance, refitted on growing windows, against the "
                  "paper's 70–80 years (the same measure): " + (
                      "it settles, whichever windows count as upper" if res["identified"] else
                      "it keeps moving with the window, or settles only for some choices of "
                      "windows"), stand_in=ENC_STAND_IN, unit="years", **res)
other, shape_row = verdicts.shape_finding(shape_df, shape_fits, (prof.distance, g_meas, g_se))
report.result(f"Kernel shape of {MODEL}",
              "the held-out error (RMSE of ln g) of the paper's exponential with a floor less "
              f"that of the best other shape ({SHAPE_LABELS[other]}); best overall: "
              f"{SHAPE_LABELS[best_shape]}", stand_in=ENC_STAND_IN, **shape_row)
report.grid_result(f"p_S against n for {MODEL}, predicted from its mean kernel",
                   "p_S less the engine's prediction from the mean kernel at every n",
                   verdicts.prediction_cells(sweep_df), "n_sweep_prediction", compared_with=0.0,
                   compared_with_label="the engine's prediction from the mean kernel",
                   margin=verdicts.MISS_MATTERS, margin_reason=verdicts.MISS_REASON,
                   new=True, stand_in=ENC_STAND_IN)
for form, title in (("free", "Theorem 3 across n, without a floor (the paper's form)"),
                    ("floor", "Theorem 3 across n, with its floor")):
    fit = enc_theorem3[form]
    report.grid_result(f"{MODEL}: {title}", "one constant kernel fitted to both tasks at n = "
                       f"{', '.join(map(str, ns))} predicts every cell within 0.05",
                       verdicts.theorem3_grid(fit, sweep_df), f"theorem3_{form}_encoder",
                       new=form == "floor", stand_in=ENC_STAND_IN,
                       **verdicts.theorem3_common(fit))
report.result(f"Tradeoff along the temperature ({MODEL})",
              f"the fall of p_S on cooling from its peak (T = {turn['peak_T']:g}) to T = "
              f"{turn['cold_T']:g}, against a quarter of its advantage above chance; from the "
              f"mean kernel the engine predicts "
              f"{'a tradeoff' if turn_theory['status'] == 'holds' else 'none'}",
              new=True, stand_in=ENC_STAND_IN, **verdicts.turn_row(turn))
for r in temp_df.itertuples():
    report.point(f"{MODEL}, T = {r.temperature:g}", r.p_i, r.p_s, r.p_i_se, r.p_s_se)

# %% tags=["remove-cell"]
# how this build differs from the paper, the result box and its lead
report.table(pd.DataFrame({"quantity": list(quantities),
                           "value": [float(v) for v in quantities.values()]}), "quantities")
# what the paper states of its own protocol, which the deviations quote
report.table(pd.DataFrame({"item": list(vars(THE_PAPER)),
                           "paper": [str(v) for v in vars(THE_PAPER).values()]}), "paper")
*first, last = THE_PAPER.models
report.deviations(cfg, settings.SETTINGS.paper,
    f"models: the encoder {MODEL} and the causal LMs {', '.join(assessed) or '(none)'}, instead "
    f"of {', '.join(first)} and {last}",
    "read-out: the Luce mass on the correct people (a probability per prompt), instead of "
    "parsing one generated answer; every draw is seeded",
    f"resolution design: {len(cfg.centres)} centres on a grid {min(cfg.centres)}–"
    f"{max(cfg.centres)} (paper: {THE_PAPER.centres})",
    f"the causal LMs' resolution: the near design (gaps $D =$ {', '.join(map(str, cfg.near_Ds))}, "
    f"{cfg.near_pairs} pairs of names each, probes {', '.join(map(str, cfg.near_xs))} years from "
    "the nearer person, both sides, both orders) fitted across distances, instead of probes "
    "every 5 years over $c \\pm 300$ read off a figure",
    f"$n$-sweep: $n =$ {', '.join(map(str, ns))} with {cfg.trials} prompts each, years "
    f"{cfg.sweep_years[0]}–{cfg.sweep_years[1]}, {len(emb_s.names)} names (paper: "
    f"{THE_PAPER.n_sweep})",
    "the kernel is measured from the model and its shape chosen by held-out error; the "
    "two-reference fit and the crossover are refitted window by window; the tradeoff and the "
    "$1/n$ law, which the paper did not test, are measured here")
report.save()
lead = []
for m in protocol:
    g, r = assessed[m]["gate"], near_results[m]
    c = r["competence"]["above"]
    said = f"{m} picks the person born in a given year ({g['p']:.3f} of its mass)"
    if not r["does"]:
        lead.append(f"{said} but not the nearer of two people ({c['p']:.3f})")
        continue
    b = r["best"]
    lead.append(
        f"{said} but the nearer of two people only slightly ({c['p']:.3f} within "
        f"{r['competence']['near']:g} years), a preference that halves within "
        + (f"{b['finest_x']:g} years" if b["upper_bound"] else
           f"about {b['half_decay']:.0f} years [{b['half_decay_ci_low']:.0f}, "
           f"{b['half_decay_ci_high']:.0f}]"))
failing = [m for m, a in assessed.items() if a["gate"]["verdict"] != "passes"]
traders = [m for m, f in turns.items() if f["status"] == "holds"]
who = ("Neither it nor a sentence encoder shows a" if len(protocol) == 1 else
       "None of them, nor a sentence encoder, shows a" if protocol else
       "A sentence encoder shows no")
lead_text = ("; ".join(lead) or "No causal LM passed the first test in this build") + ". " + (
    f"Only {' and '.join(traders)} trade{'s' if len(traders) == 1 else ''} generalization for "
    "identification as its answers sharpen" if traders else
    f"{who} detectable tradeoff between generalization and identification") + "".join(
    f"; {m} passes " + ("only the second test" if near_results[m]["does"] else "neither test")
    for m in failing) + "."
report.box(f"the encoder `{MODEL}`; the causal LMs "
           + (", ".join(f"`{a['model']}` ({a['dtype']})" for a in assessed.values()) or "none")
           + f"; profile `{profile}`, device `{torch_device(device).type}`. The reasons are in "
           "the sections below; the full tables are in the chapter's result files",
           lead=lead_text, methods=True)

# %% [markdown]
# ### Where this build differs from the paper
#
# ```{glue:md} ch5_deviations
# :format: myst
# ```
