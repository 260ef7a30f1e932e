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
# # {{title}}
#
# ````{admonition} The result
# :class: tip
#
# ```{glue:md} ch{{number}}_result_box
# :format: myst
# ```
# ````
#
# What the chapter asks, in one paragraph.

# %% tags=["parameters", "hide-cell"]
profile = "default"  # quick | default | paper
seed = 0
device = "auto"  # unused here; every chapter takes the same flags
mc_trials = 0  # Monte Carlo trials per cell; 0 takes the profile's setting

# %%
import sympy as sp

from semres.experiments.{{name}} import figures, method, settings, verdicts
from semres.report import GOOD, fmt, open_chapter

cfg, report, stream, cache = open_chapter(settings.SETTINGS, profile, seed, mc_trials=mc_trials)

# %% [markdown]
# ## The law
#
# With two items on the circle and a constant similarity of ball measure $b$, the nearer item
# wins the similarity test with probability $p_S = \tfrac12 + b - b^2$.

# %%
b = sp.symbols("b", positive=True)
assert sp.simplify(sp.Rational(1, 2) + b - b**2 - (sp.Rational(1, 2) + b * (1 - b))) == 0

# %% [markdown]
# ## The check
#
# The engine plays both tests; every cell lies within {glue:text}`ch{{number}}_mc_maxz:.1f`
# standard errors of its closed form.

# %%
mc = method.check_theorem_1(cfg.eps, cfg.trials, stream)
report.table(mc, "mc_check")
report.number("mc_maxz", mc["z"].abs().max())
report.figure("check", figures.check(mc))
row = verdicts.theorem_row(mc)
status = report.result(**row)
report.deviations(cfg, settings.SETTINGS.paper)
report.save()

# %% tags=["remove-input"]
# the box's lead: a sentence whose wording depends on the outcome is written here, beside its data
report.box(f"profile `{profile}`, seed {seed}; {cfg.trials:,} trials per cell", methods=True,
           lead=f"Theorem 1 {'holds' if status in GOOD else status}: every Monte Carlo "
           f"cell lies within {fmt(max(map(abs, row['ci'])), 2)} of its closed form.")

# %% [markdown]
# ```{glue:figure} ch{{number}}-fig-check
# :name: ch{{number}}-fig-check
#
# Success rate against the ball measure: closed forms (lines) and the engine (dots).
# ```
#
# ## Exercises
#
# 1. Halve the trials, `semres run {{number}} -p mc_trials=…`: the theory predicts the same
#    rates, with standard errors larger by $\sqrt 2$.
# 2. Another seed, `semres run {{number}} -p seed=1`: the closed forms do not move; each
#    Monte Carlo cell moves by about its standard error.
#
# ## Methods and checks
#
# Everything from this heading on is the chapter's second page (the book splits it off): the
# machinery a reader opens on purpose (fit windows, tests, full tables).
#
# ### Where this build differs from the paper's protocol
#
# ```{glue:md} ch{{number}}_deviations
# :format: myst
# ```
