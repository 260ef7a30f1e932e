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
# # The universal Pareto front
#
# ````{admonition} The result
# :class: tip
#
# ```{glue:md} ch1_result_box
# :format: myst
# ```
# ````
#
# ```{glue:figure} ch1-fig-front
# :name: ch1-fig-front
# :alt: Success rates against the ball measure with the three regimes shaded, and the same curves as a front in the identification-generalization plane with the optimum at three quarters.
#
# The universal two-item law ({prf:ref}`thm-two-item`; homogeneous space, no noise). (a) Both
# success rates against the ball measure $b$, three regimes shaded (the edge at $b = 0.1$ is a
# visual cut). (b) The same curves as a front: dotted, its closed form; star, the optimum
# $p_S = p_I = 3/4$. Each interference point has the $p_S$ of an efficient point with a higher
# $p_I$.
# ```
#
# This chapter derives the two-item laws of {cite}`nurisso2026bound` (Theorems 1–2) with SymPy
# and checks them by Monte Carlo on four spaces. How each check was made, and where this build
# differs from the paper, is on the page {doc}`Methods and checks <01_pareto_front_methods>`.

# %% tags=["parameters", "hide-cell"]
profile = "default"  # quick | default | paper
seed = 0
device = "auto"  # unused here (no neural network); every chapter takes the same flags
mc_trials = 0  # Monte Carlo trials per table cell; 0 takes the profile's setting

# %% tags=["hide-input"]
# %matplotlib inline
import numpy as np
import pandas as pd
import sympy as sp
from IPython.display import display
from matplotlib.patches import Arc, Circle as CirclePatch, Patch
from myst_nb import glue
from tqdm.auto import tqdm

from semres.core import kernels, spaces, theory
from semres.core.simulate import check_row, check_table, exact_two_item, luce_success
from semres.experiments.pareto import discrete, figures, settings, verdicts
from semres.report import GOOD, Z_MAX, fmt, open_chapter, tables, tally
from semres.report import plotting as splot

cfg, report, stream, cache = open_chapter(settings.SETTINGS, profile, seed, mc_trials=mc_trials)

# %% [markdown]
# ## Two tests, one similarity
#
# A model compares a probe $p$ with stored items $x_1, \dots, x_n$ of a metric probability space
# $(M, d, \nu)$ through a similarity $g(d(x, p))$, and picks item $i$ with the Luce rule
# {cite}`luce1959`, $D_i = g(x_i, p) / \sum_k g(x_k, p)$. Its *success* is the Luce mass on the
# correct item. Two tests pull apart. In *similarity* (generalization) the probe is a new draw
# from $\nu$ and the nearest item is correct (all of them, on a tie): a coarse similarity helps.
# In *identification* the probe is a copy of one item, which is correct: a fine similarity
# helps. Here $n = 2$ (the paper's "3-item test") and $g = 1$ within distance $\varepsilon$,
# $\Delta$ beyond, a step caricature of Shepard's generalization gradient {cite}`shepard1987`.
# The geometry enters only through the *ball measure* $b_p = \nu(B_\varepsilon(p))$, by its mean
# $\langle b\rangle$ and variance $\operatorname{Var}(b)$ over probes. A space is *homogeneous*
# when every ball has one measure $b$.
#
# ```{glue:figure} ch1-fig-setup
# :name: ch1-fig-setup
# :alt: Three panels: a probe on a circle with its resolution ball and two items, bar charts of similarity and Luce choice probability for the two items, and sketches of the similarity and identification tests.
#
# The setup. (a) A probe $p$ on a circle, its resolution ball (blue arc) of measure $b_p$, and
# two items, $x_1$ inside and $x_2$ outside. (b) The Luce rule turns their similarities, 1 and
# $\Delta$, into choice probabilities. (c) The two tests.
# ```

# %% [markdown]
# ## The two-item laws
#
# ```{prf:theorem} Two items, no noise (paper Thm. 1)
# :label: thm-two-item
#
# With the constant similarity $g_{\varepsilon;0}$ and $n = 2$ items, on a space where
# distances tie with probability zero,
#
# $$
# \begin{aligned}
# p_S &= \tfrac12 + \langle b\rangle - \langle b\rangle^2 - \operatorname{Var}(b), \\
# p_I &= 1 - \tfrac12\langle b\rangle .
# \end{aligned}
# $$
#
# On a homogeneous space the pairs $(p_I, p_S)$ lie on the front
# $p_S = \tfrac12 + 2(1 - p_I) - 4(1 - p_I)^2$, $p_I \in [\tfrac12, 1]$, whose Pareto-efficient
# branch is $b \le \tfrac12$; $p_S$ peaks at $b = \tfrac12$, where $p_S = p_I = \tfrac34$.
# ```
#
# ```{prf:theorem} Two items with noise (paper Thm. 2)
# :label: thm-two-item-noise
#
# With $g_{\varepsilon;\Delta}$, $\Delta \ge 0$, and $n = 2$ items (again without ties),
#
# $$
# \begin{aligned}
# p_S &= \tfrac12 + \frac{1-\Delta}{1+\Delta}\left(\langle b\rangle - \langle b\rangle^2
# - \operatorname{Var}(b)\right), \\
# p_I &= \frac{\langle b\rangle}{2} + \frac{1 - \langle b\rangle}{1+\Delta},
# \end{aligned}
# $$
#
# and both decrease monotonically in $\Delta$.
# ```
#
# The proof is one case analysis (the paper states $\Delta = 0$; the noisy form is derived here).
# Given the probe, the number $K$ of items in its ball is $\mathrm{Bin}(2, b_p)$. In similarity,
# $K = 1$ gives the correct item the mass $1/(1+\Delta)$, and $K = 0$ or $2$ gives it
# $\tfrac12$. In identification the copied item is inside; the other is inside with probability
# $b_p$ (mass $\tfrac12$) or outside (mass $1/(1+\Delta)$). SymPy averages over the probe and
# asserts both theorems:

# %%
b, Delta, mean_b, var_b, p_I = sp.symbols(
    r"b_p Delta \langle{b}\rangle \operatorname{Var}(b) p_I", nonnegative=True
)
half = sp.Rational(1, 2)
pmf = {k: sp.binomial(2, k) * b**k * (1 - b) ** (2 - k) for k in range(3)}
success_similarity = {0: half, 1: 1 / (1 + Delta), 2: half}  # given K items inside the ball
success_identification = {"other inside": half, "other outside": 1 / (1 + Delta)}

pS_given_p = sum(pmf[k] * success_similarity[k] for k in range(3))
pI_given_p = (b * success_identification["other inside"]
              + (1 - b) * success_identification["other outside"])


def average_over_probe(expr):  # derivation
    """E_p of a polynomial in b_p: replace b_p^j by the j-th moment of the ball measure."""
    moments = {0: 1, 1: mean_b, 2: mean_b**2 + var_b}
    poly = sp.Poly(sp.expand(expr), b)
    return sp.expand(sum(c * moments[m] for (m,), c in poly.terms()))


pS_derived = average_over_probe(pS_given_p)
pI_derived = average_over_probe(pI_given_p)

# the statements, typed from the theorem blocks above
pS_thm2 = half + (1 - Delta) / (1 + Delta) * (mean_b - mean_b**2 - var_b)
pI_thm2 = mean_b / 2 + (1 - mean_b) / (1 + Delta)
pS_thm1 = half + mean_b - mean_b**2 - var_b
pI_thm1 = 1 - mean_b / 2

assert sp.simplify(pS_derived - pS_thm2) == 0
assert sp.simplify(pI_derived - pI_thm2) == 0
assert sp.simplify(pS_derived.subs(Delta, 0) - pS_thm1) == 0
assert sp.simplify(pI_derived.subs(Delta, 0) - pI_thm1) == 0
display(sp.Eq(sp.Symbol("p_S"), half + sp.factor(pS_derived - half)),
        sp.Eq(sp.Symbol("p_I"), mean_b / 2 + sp.factor(pI_derived - mean_b / 2)))

# %% [markdown]
# The rest (monotonicity in $\Delta$, the front, its peak at $b^\ast =$
# {glue:text}`ch1_b_opt:.2f`, which noise lowers without moving) is asserted on the methods
# page. From $b = 0$ to $b = 1$ the front crosses three regimes ({numref}`ch1-fig-front`):
#
# 1. **small $\varepsilon$** ($b \to 0$): every probe is its own class, $p_I \to 1$ and $p_S \to
#    \tfrac12$ (chance);
# 2. **tradeoff** ($0 < b < \tfrac12$): a coarser resolution buys generalization with
#    identification, at the rate $\mathrm{d}p_S/\mathrm{d}p_I = -2(1 - 2b)$;
# 3. **interference** ($b > \tfrac12$): balls overlap so much that both rates fall; a point of
#    the tradeoff branch matches each of these in $p_S$ with a higher $p_I$.

# %% [markdown]
# ## Uneven spaces and ties
#
# On the segment $[0, 1]$ the balls near the ends are cut off. Since $p_I$ depends on
# $\langle b\rangle$ alone, at equal $p_I$ the segment's $p_S$ lies below the homogeneous front by
# exactly $\operatorname{Var}(b)$, the **cost of heterogeneity**: {glue:text}`ch1_seg_cost:.4f`
# at $\varepsilon =$ {glue:text}`ch1_seg_cost_eps:.2f`, {glue:text}`ch1_seg_cost_max:.4f` at
# $\varepsilon = \tfrac12$. Any space without distance ties pays it. The same quantity, the
# spread of a representation relative to its resolution, governs few-shot generalization in
# {cite}`sorscher2022neural`.
#
# Ties change this. When both items are equally far from the probe, both are correct: $p_S$
# gains $\tfrac12\tau$, with $\tau$ the probability of a tie, and $p_I$ is unchanged. The
# discrete space ({glue:text}`ch1_disc_points` weighted grid points, city-block distance) has
# $\tau =$ {glue:text}`ch1_disc_tau:.3f` and $\operatorname{Var}(b) =$
# {glue:text}`ch1_disc_var:.4f` at $\varepsilon =$ {glue:text}`ch1_disc_eps:.0f`, so it lies
# {glue:text}`ch1_disc_excess:+.4f` from the front, {glue:text}`ch1_disc_side` it. The front bounds
# homogeneous spaces without ties, not every space (the original code got the tie term wrong:
# {ref}`original-code-ties`).

# %% [markdown]
# ## The Monte Carlo check
#
# The engine plays both tests with {glue:text}`ch1_trials:,` trials per cell on four spaces:
# circle and sphere (homogeneous), segment (unequal balls) and the discrete space (ties). All
# {glue:text}`ch1_mc_cells` cells agree with the closed forms, the largest deviation being
# {glue:text}`ch1_mc_maxerr:.4f` and the largest $|z|$ {glue:text}`ch1_mc_maxz:.2f`
# ({numref}`ch1-fig-noise-segment`). A law is confirmed when each cell's 95% interval lies within
# {glue:text}`ch1_mc_margin:.3f` of its closed form: the paper's three laws are then
# *reproduced*, the tie term, new here, *holds*.
#
# ```{glue:figure} ch1-fig-noise-segment
# :name: ch1-fig-noise-segment
# :alt: Fronts for several noise levels with circle Monte Carlo points, and the circle front against the lower segment front with an inset of the variance cost.
#
# (a) Fronts of {prf:ref}`thm-two-item-noise` on a homogeneous space for several noise levels
# $\Delta$, with circle Monte Carlo estimates (dots; bars of $\pm 2$ standard errors hide behind
# them): noise shrinks the front towards chance. (b) Circle against segment for
# $\varepsilon \in [0, 1/2]$, with Monte Carlo estimates (open circles): the segment runs below
# by $\operatorname{Var}(b)$ (inset).
# ```

# %% [markdown]
# ## Explore the front
#
# The explorer draws Theorem 3 of {doc}`02_many_items`, which for $n = 2$ is this chapter's front,
# from closed forms embedded in the page.

# %% tags=["hide-input"]
figures.front_explorer()

# %% [markdown]
# ## Exercises
#
# 1. **Fewer trials:** `semres run 1 -p mc_trials=20000`, against this build's
#    {glue:text}`ch1_trials:,` per cell. The laws are exact, so each cell stays within a few
#    standard errors of its closed form, but those errors grow as one over the square root of
#    the trials, and the 95% intervals outgrow the margin. Look for: laws
#    marked *inconclusive* instead of *reproduced* in the result box.
# 2. **Another random space:** `semres run 1 -p seed=1` draws a new discrete space; the run still
#    asserts the tie term against exact enumeration. Look for: the new $\tau$ and
#    $\operatorname{Var}(b)$ under "Uneven spaces and ties"; the space lies above the front
#    exactly when $\tau/2$ exceeds $\operatorname{Var}(b)$.
# 3. **The paper's budget:** `semres run 1 --profile paper` (minutes) runs more trials per cell.
#    Look for: a smaller reach in the result box's last sentence, while the largest $|z|$ does
#    not shrink.

# %% [markdown]
# ## Methods and checks
#
# This part holds the machinery behind {doc}`the chapter <01_pareto_front>`: the rest of the
# derivation, the segment's moments, the tie term against an exact enumeration, the Monte Carlo
# engine with its full table, and the rule that turns a law's cells into one verdict.
#
# ### Every result, with its numbers
#
# ```{glue:md} ch1_result_details
# :format: myst
# ```
#
# ### The rest of the derivation
#
# The chapter asserts that the derived laws equal {prf:ref}`thm-two-item` and
# {prf:ref}`thm-two-item-noise`. Their monotonicity in $\Delta$ follows from the derivatives,
# which SymPy puts in a form whose sign is evident:
# $\langle b\rangle - \langle b\rangle^2 - \operatorname{Var}(b) = \mathbb{E}_p[b_p(1 - b_p)]$ is
# half the probability that exactly one of the two items falls in the ball, hence $\ge 0$.

# %%
dpS = sp.factor(sp.diff(pS_derived, Delta))
dpI = sp.factor(sp.diff(pI_derived, Delta))
display(sp.Eq(sp.Derivative(sp.Symbol("p_S"), Delta), dpS),
        sp.Eq(sp.Derivative(sp.Symbol("p_I"), Delta), dpI))
one_inside_half = mean_b - mean_b**2 - var_b
assert sp.simplify(dpS - (-2 * one_inside_half / (1 + Delta) ** 2)) == 0
assert sp.simplify(dpI - (-(1 - mean_b) / (1 + Delta) ** 2)) == 0

# %% [markdown]
# On a homogeneous space ($\operatorname{Var}(b) = 0$, $\langle b\rangle = b$) the front comes from
# eliminating $b$: solve the identification law for it and substitute into the similarity law,
# first without noise and then with $\Delta$. The optimum of generalization solves
# $\mathrm{d}p_S/\mathrm{d}b = 0$; the cell also asserts the efficient branch and the exchange
# rate quoted in the chapter.

# %%
homog = {var_b: 0, mean_b: b}
pS_h, pI_h = pS_derived.subs(homog), pI_derived.subs(homog)

b_of_pI = sp.solve(sp.Eq(p_I, pI_h.subs(Delta, 0)), b)
assert len(b_of_pI) == 1
front_derived = sp.expand(pS_h.subs(Delta, 0).subs(b, b_of_pI[0]))
front_stated = half + 2 * (1 - p_I) - 4 * (1 - p_I) ** 2
assert sp.simplify(front_derived - front_stated) == 0

b_of_pI_noisy = sp.solve(sp.Eq(p_I, pI_h), b)
assert len(b_of_pI_noisy) == 1
front_noisy = sp.simplify(pS_h.subs(b, b_of_pI_noisy[0]))
assert sp.simplify(front_noisy.subs(Delta, 0) - front_stated) == 0

b_opt = sp.solve(sp.diff(pS_h.subs(Delta, 0), b), b)
assert b_opt == [half]
pS_opt = pS_h.subs({Delta: 0, b: half})
pI_opt = pI_h.subs({Delta: 0, b: half})
assert pS_opt == pI_opt == sp.Rational(3, 4)
# Pareto efficiency: along b, p_I always falls; p_S rises only for b < 1/2
assert sp.diff(pI_h.subs(Delta, 0), b) == -half
assert sp.solve(sp.diff(pS_h.subs(Delta, 0), b) > 0, b) == (b < half)
# the exchange rate along the efficient branch, quoted in the text below
rate = sp.diff(pS_h.subs(Delta, 0), b) / sp.diff(pI_h.subs(Delta, 0), b)
assert sp.simplify(rate - (-2 * (1 - 2 * b))) == 0
# the noisy optimum is at the same b, with a lower peak
assert sp.solve(sp.diff(pS_h, b), b) == [half]

display(sp.Eq(sp.Symbol("b"), b_of_pI[0]), sp.Eq(sp.Symbol("p_S"), front_derived))
glue("ch1_b_of_pI_noisy", sp.Eq(sp.Symbol("b"), sp.factor(b_of_pI_noisy[0])), display=False)

# %% [markdown]
# With noise, the identification law inverts to
#
# ```{glue:math} ch1_b_of_pI_noisy
# :label: ch1-eq-b-noisy
# ```
#
# and the front is $p_S = \tfrac12 + \frac{1-\Delta}{1+\Delta}\, b(1-b)$ at that $b$; at
# $\Delta = 0$ it reduces to the universal front (asserted above).

# %% [markdown]
# ### The segment's moments
#
# On the segment $[0, 1]$ with the uniform measure,
# $b_p = \min(p + \varepsilon, 1) - \max(p - \varepsilon, 0)$. SymPy integrates $b_p$ and $b_p^2$
# over the three pieces of $[0, 1]$ (for $\varepsilon \le \tfrac12$) and feeds the moments into
# {prf:ref}`thm-two-item`.

# %% tags=["hide-input"]
p, eps = sp.symbols("p varepsilon", positive=True)
b_p = sp.Min(p + eps, 1) - sp.Max(p - eps, 0)
# on each piece Min/Max resolve to one branch; we check the branch against Min/Max itself at a
# point inside the piece for a few eps <= 1/2 before integrating it
pieces = [(p + eps, 0, eps), (2 * eps, eps, 1 - eps), (1 - p + eps, 1 - eps, 1)]
for branch, lo, hi in pieces:
    for e in (sp.Rational(1, 10), sp.Rational(1, 4), sp.Rational(1, 2)):
        pt = ((lo + hi) / 2).subs(eps, e)
        assert (b_p - branch).subs({eps: e, p: pt}) == 0
seg_mean = sp.expand(sum(sp.integrate(f, (p, lo, hi)) for f, lo, hi in pieces))
seg_m2 = sp.expand(sum(sp.integrate(f**2, (p, lo, hi)) for f, lo, hi in pieces))
seg_var = sp.expand(seg_m2 - seg_mean**2)
seg_pS = sp.expand(pS_derived.subs(Delta, 0).subs({mean_b: seg_mean, var_b: seg_var}))
seg_pI = sp.expand(pI_derived.subs(Delta, 0).subs({mean_b: seg_mean}))
assert sp.simplify(seg_mean - (2 * eps - eps**2)) == 0
assert sp.simplify(seg_var - (sp.Rational(2, 3) * eps**3 - eps**4)) == 0
assert sp.simplify(seg_pS - (half + 2 * eps - 5 * eps**2 + sp.Rational(10, 3) * eps**3)) == 0
assert sp.simplify(seg_pI - (1 - eps + eps**2 / 2)) == 0
display(sp.Eq(sp.Symbol(r"\langle b\rangle"), seg_mean),
        sp.Eq(sp.Symbol(r"\operatorname{Var}(b)"), seg_var),
        sp.Eq(sp.Symbol("p_S"), seg_pS), sp.Eq(sp.Symbol("p_I"), seg_pI))

seg_moments = sp.lambdify(eps, (seg_mean, seg_var), "numpy")
grid = np.linspace(0, 0.5, 11)  # the engine's segment has these moments
assert np.allclose(seg_moments(grid), spaces.Segment().ball_measure(grid), rtol=0, atol=1e-14)
# the cost of heterogeneity: at equal p_I (equal <b>) the segment loses exactly Var(b) in p_S
seg_cost = float(seg_var.subs(eps, sp.Rational(cfg.cost_eps)))
report.number("seg_cost_eps", cfg.cost_eps)

# %% [markdown]
# So the segment has $\langle b\rangle = 2\varepsilon - \varepsilon^2$ and
# $\operatorname{Var}(b) = \tfrac23\varepsilon^3 - \varepsilon^4$, hence
# $p_S = \tfrac12 + 2\varepsilon - 5\varepsilon^2 + \tfrac{10}{3}\varepsilon^3$ and
# $p_I = 1 - \varepsilon + \tfrac12\varepsilon^2$; the engine's segment has the same moments
# (asserted).

# %% [markdown]
# ### Ties: the corrected law against exact enumeration
#
# In a discrete space the two items can be equally far from the probe, $x_1 = x_2$ included.
# Conditioning on a tie adds $\tfrac12\,\tau$ to $p_S$ of {prf:ref}`thm-two-item-noise` for any
# $\Delta$, because tied items sit on the same side of the ball's boundary; the identification
# law is unchanged, since the ball of a point contains the point. The cell checks this corrected
# theory against an exact enumeration (`exact_two_item`) that applies the Luce rule to every
# triple $(p, x_1, x_2)$, for each radius of the check and two noise levels. The grid is
# {glue:text}`ch1_disc_grid` × {glue:text}`ch1_disc_grid`.

# %%
disc = discrete.discrete_space(cfg.discrete_grid, cfg.discrete_points, stream("discrete_space"))
for eps_d in cfg.eps["discrete"]:
    mean_d, var_d = disc.ball_measure(eps_d)
    for delta_d in cfg.enumeration_deltas:
        # Theorem 2 with the space's ball moments plus the tie term, against the exact sum
        theorem = theory.two_item(mean_d, delta=delta_d, var_b=var_d,
                                  tau=disc.tie_probability())
        exact = exact_two_item(disc, kernels.Constant(eps_d, delta=delta_d))
        assert np.allclose(theorem, exact, rtol=0, atol=1e-12), (eps_d, delta_d)
_, var_d = disc.ball_measure(cfg.tie_eps)
tau_d = disc.tie_probability()
disc_excess = tau_d / 2 - var_d  # p_S above the homogeneous front at the same p_I
report.number("disc_points", len(disc))
report.number("disc_eps", cfg.tie_eps)

# the derived quantities the text quotes, saved as quantities.csv and glued from its rows
quantities = pd.DataFrame([
    ("b_opt", b_opt[0], "ball measure b* at which p_S peaks on a homogeneous space, any noise"),
    ("p_opt", pS_opt, "p_S = p_I at b* without noise"),
    ("seg_cost", seg_cost, f"segment's Var(b) at ε = {cfg.cost_eps:g}: its p_S below the "
                           "homogeneous front at equal p_I (cost of heterogeneity)"),
    ("seg_cost_max", seg_var.subs(eps, half), "the same at ε = 1/2"),
    ("disc_tau", tau_d, "discrete space's tie probability τ = P(d(p, x1) = d(p, x2))"),
    ("disc_var", var_d, f"discrete space's Var(b) at ε = {cfg.tie_eps:g}"),
    ("disc_excess", disc_excess, "τ/2 - Var(b): the discrete space's p_S above the "
                                 "homogeneous front at equal p_I"),
], columns=["quantity", "value", "what"]).astype({"value": float})
report.table(quantities, "quantities")
quantity = quantities.set_index("quantity")["value"]
report.numbers(quantity.to_dict())
report.text("disc_side", "above" if quantity.disc_excess > 0 else "below")

# %% [markdown]
# The corrected theory agrees with the exact enumeration to machine precision for every
# $\varepsilon$ and $\Delta$ tried. The derived quantities the chapter quotes (the optimum, the
# segment's cost, the discrete space's $\tau$, $\operatorname{Var}(b)$ and offset) are saved in
# `quantities.csv`.

# %% [markdown]
# ### The Monte Carlo engine and its table
#
# One cell is a space, a radius $\varepsilon$, a noise level $\Delta$ and a test. On the sphere
# with geodesic distance a cap of angular radius $\varepsilon$ has measure
# $b = (1 - \cos\varepsilon)/2$. Each cell draws from its own named random stream, and the cell
# asserts that every estimate lies within {glue:text}`ch1_zmax:.0f` standard errors of its
# closed form. The table below has one row per space, $\varepsilon$ and $\Delta$, with both tests
# side by side; it is saved as `mc_check.csv`.

# %%
space_of = {"circle": spaces.Circle(), "segment": spaces.Segment(), "sphere": spaces.Sphere(),
            "discrete": disc}
jobs = [(name, i, e, k, dl) for name, es in cfg.eps.items() for i, e in enumerate(es)
        for k, dl in enumerate(cfg.deltas)]
rows = []
for name, i, e, k, dl in tqdm(jobs, desc="Monte Carlo", mininterval=2):
    space = space_of[name]
    mean, var = space.ball_measure(e)
    ps_t, pi_t = theory.two_item(mean, delta=dl, var_b=var, tau=space.tie_probability())
    for task, th in (("similarity", ps_t), ("identification", pi_t)):
        # one stream per test, space and (eps, Delta) cell
        est = luce_success(space, kernels.Constant(e, delta=dl), task=task, n=2,
                           trials=cfg.trials, seed=stream(f"{task} test on {name}", i, k))
        rows.append(check_row(est, th, space=name, eps=round(e, 4), delta=dl,
                              mean_b=float(mean), task=task))
mc = pd.DataFrame(rows)
assert (mc["z"].abs() < Z_MAX).all(), mc.loc[mc["z"].abs() >= Z_MAX]
report.table(mc, "mc_check")
report.number("trials", cfg.trials)
report.number("zmax", Z_MAX)  # every Monte Carlo estimate must sit this close to theory
report.number("mc_cells", len(mc))
report.number("mc_maxz", mc["z"].abs().max())
report.number("mc_maxerr", (mc["mc"] - mc["theory"]).abs().max())
report.number("mc_margin", settings.MC_MARGIN)  # the practical margin of every law
report.number("disc_grid", cfg.discrete_grid)
mc.groupby("space")["z"].agg(lambda z: z.abs().max()).rename("max |z|").round(2).to_frame().T

# %% tags=["hide-input"]
# the table, one row per space, eps and Delta, both tests side by side
tables.table(check_table(mc, ["space", "eps", "delta"]), decimals=4,
             **{"p_S z": "{:+.2f}", "p_I z": "{:+.2f}", "delta": "{:.1f}"})

# %% [markdown]
# ### How a law is judged
#
# Each law is one finding over its cells. A cell's deviation (estimate minus closed form) and its
# 95% interval are set against a practical margin of {glue:text}`ch1_mc_margin:.3f`, half a
# percentage point of success probability, which is thinner than a plotted line in the paper's
# figures. A law is confirmed when every cell's interval lies inside the margin; the cell whose
# interval reaches farthest from its closed form names the law's row under "Every result, with
# its numbers" above. Each law's cells are saved beside `mc_check.csv` (`cells_*.csv`). The cell
# below also builds the result box's lead from these rows.

# %%
# the book's overview: each law one finding over its Monte Carlo cells (their deviations from
# the closed form against the practical margin, the weakest cell deciding), saved with its cells
laws = {
    "cells_theorem1_circle": ("Theorem 1 (paper Thm. 1) on the circle",
                              "Monte Carlo minus the closed form, p_S = 1/2 + <b> - <b>^2 and "
                              "p_I = 1 - <b>/2 on the circle"),
    "cells_theorem2_noise": ("Theorem 2 (paper Thm. 2), noise",
                             "Monte Carlo minus the noisy two-item law, on every space with "
                             "Delta > 0"),
    "cells_segment": ("Theorem 1 with heterogeneity (segment)",
                      "Monte Carlo minus the law with the segment's Var(b): p_S lower by Var(b) "
                      "at equal p_I"),
    "cells_ties": ("ties in a discrete space (new)",
                   "Monte Carlo minus Theorem 2 with the tie term: p_S gains tau/2 (the same "
                   "theory matches an exact enumeration)"),
}
side = ("below" if verdicts.margin_separates(quantity.seg_cost) else
        "not below (so this row cannot tell the segment from the homogeneous front)")
reasons = {"cells_segment": f"{settings.MC_MARGIN_REASON}; {side} the segment's cost of "
                            f"heterogeneity, Var(b) = {quantity.seg_cost:.4f} at "
                            f"ε = {cfg.cost_eps:g}"}
cells = verdicts.law_cells(mc)
for table, (result, statement) in laws.items():
    report.grid_result(result, statement, **verdicts.against_closed_form(mc[cells[table]], table),
                       margin_reason=reasons.get(table, settings.MC_MARGIN_REASON),
                       new=table == "cells_ties")
report.save()

# %% tags=["hide-input"]
# the result box at the top of the page: its lead is the chapter's finding, opened by what came out
reach, largest_z = verdicts.reach(report.rows), float(mc["z"].abs().max())
confirmed = (f"Monte Carlo on four spaces matches every law within {fmt(reach, places=4)}"
             if all(r["status"] in GOOD for r in report.rows) else
             f"Monte Carlo does not confirm every law in this build "
             f"({tally(r['status'] for r in report.rows)}, against a margin of "
             f"{fmt(settings.MC_MARGIN)}), though each of its {len(mc)} cells lies within "
             f"{fmt(largest_z, places=1)} standard errors of its closed form")
ties = ("a space with distance ties above it" if quantity.disc_excess > 0 else
        "and so does this build's space with distance ties")
lead = (f"With two stored items, a coarser similarity trades identification for generalization "
        f"along one curve: generalization peaks at a success probability of "
        f"{fmt(quantity.p_opt)}, where identification has dropped to {fmt(quantity.p_opt)}. "
        f"Spaces with unequal neighbourhoods lie below the curve, {ties}. {confirmed}.")
report.box(f"profile `{profile}`, seed {seed}; {cfg.trials:,} Monte Carlo trials per cell on "
           "the circle, segment, sphere and a discrete space", lead=lead, methods=True)

# %% [markdown]
# ### The figures
#
# The chapter's three figures are drawn here, after the computations they show, and placed on
# the chapter page.

# %% tags=["hide-input"]
# the setup in one picture: a ball on a circle, the Luce rule, and the two tests
# one row: a phone stacks the panels, (a) to (c), without a blank band below them
fig, axes = splot.subplot_mosaic([["a", "b", "c"]], figsize=(7.2, 2.9),
                                 width_ratios=[1.15, 1.0, 1.25])
blue, red, green = splot.CYCLE[0], splot.CYCLE[1], splot.CYCLE[2]

# (a) the space, the probe's resolution ball (50 degrees either side of it) and two items
ax = axes["a"]
angle = np.radians([90, 132, -30, 135, 22])  # the probe, x_1, x_2, x_1's label, the ball's label
on_circle = np.stack([np.cos(angle), np.sin(angle)], axis=1)
ax.add_patch(CirclePatch((0, 0), 1, fill=False, color="0.6", lw=1.2))
ax.add_patch(Arc((0, 0), 2, 2, theta1=40, theta2=140, color=blue, lw=6, alpha=0.35))
ax.plot(*on_circle[0], marker="*", ms=15, color="black")
ax.annotate("probe $p$", 1.22 * on_circle[0], ha="center")
ax.plot(*on_circle[1], "o", color=green, ms=9)
ax.annotate("$x_1$", 1.25 * on_circle[3], ha="center")
ax.plot(*on_circle[2], "o", color=red, ms=9)
ax.annotate("$x_2$", 1.22 * on_circle[2], ha="center")
ax.annotate(r"$B_\varepsilon(p)$", 0.66 * on_circle[4], color=blue, ha="center")
ax.text(0, -0.3, r"$b_p = \nu(B_\varepsilon(p))$", ha="center")
# anchored at the top of its cell: a square box centred lower than (b) would come after it
# in the phone layout, which orders panels by their top edge
ax.set(title="(a) probe and ball", xlim=(-1.45, 1.45), ylim=(-1.1, 1.55), aspect="equal",
       anchor="N")
ax.axis("off")

# (b) the Luce rule on the two items of panel (a), with noise Delta = 0.25 outside the ball;
# colour names the item, fill the quantity (the legend shows the fills in neutral grey)
ax = axes["b"]
similarity = np.array([1.0, 0.25])
ax.bar([0, 1], similarity, width=0.35, color=[green, red], alpha=0.35, hatch="//",
       edgecolor=[green, red])
ax.bar([0.38, 1.38], similarity / similarity.sum(), width=0.35, color=[green, red])
ax.set_xticks([0.19, 1.19], ["$x_1$ (in)", "$x_2$ (out)"])
ax.set(ylim=(0, 1.45), yticks=[0, 0.5, 1], title="(b) Luce rule",
       xlabel="$D_i = g_i / \\sum_k g_k$\n" + rf"($\Delta$ = {similarity[1]})")
ax.legend(handles=[Patch(facecolor="white", edgecolor="0.3", hatch="//",
                         label="similarity $g$"), Patch(facecolor="0.3", label="choice $D_i$")],
          loc="upper right")
ax.grid(False)

# (c) the two tests, each on a line: its title, where its probe lies, which item is correct
ax = axes["c"]
tests = (("identification: $p$ is a copy of $x_1$", 0.3, "correct: the copied item"),
         ("similarity: a new probe $p$", 0.42, "correct: the nearest item"))
for k, (title, p_x, note) in enumerate(tests):
    y = 1.4 * k  # each test's line, with room for its title above and its note below
    ax.hlines(y, 0, 1, color="0.7")
    ax.plot([0.3, 0.75], [y, y], "o", color="0.35", ms=9)
    ax.annotate("$x_1$", (0.3, y - 0.1), ha="center", va="top")
    ax.annotate("$x_2$", (0.75, y - 0.1), ha="center", va="top")
    ax.plot(p_x, y + 0.18, marker="*", ms=14, color="black")
    ax.annotate("", (0.3, y + 0.05), (p_x, y + 0.16),
                arrowprops={"arrowstyle": "->", "color": green})
    ax.text(0.5, y + 0.34, title, ha="center", va="bottom")
    ax.text(0.5, y - 0.34, note, ha="center", va="top", color=green)
ax.set(xlim=(-0.05, 1.05), ylim=(-0.65, 2.1), title="(c) the two tests")
ax.axis("off")
report.figure("setup", fig)

# %% tags=["hide-input"]
# Theorem 1 on a homogeneous space: p_S and p_I against b with the three regimes shaded, and
# the same curves as a front in the (p_I, p_S) plane
ball = np.linspace(0, 1, 401)
fig, (ax_b, ax_f) = splot.subplots(1, 2, figsize=(7.2, 4.4))
ps_curve, pi_curve = theory.two_item(ball)
ax_b.plot(ball, ps_curve, color=splot.THEORY, label="$p_S$ (similarity)")
ax_b.plot(ball, pi_curve, color=splot.THEORY_ALT, ls="--", label="$p_I$ (identification)")
# each regime: its span of b, its name, its colour and the angle of its name
# (the edge of the small-eps regime at b = 0.1 is a visual cut, not a law)
for lo, hi, name, colour, rotation in [(0, 0.1, "small ε", "#edae49", 90),
                                    (0.1, 0.5, "tradeoff", "#1b6ca8", 0),
                                    (0.5, 1, "interference", "#d1495b", 0)]:
    ax_b.axvspan(lo, hi, color=colour, alpha=0.12, lw=0)
    ax_b.text((lo + hi) / 2, 0.47, name, ha="center", fontsize=9, rotation=rotation, va="bottom")
    inside = (ball >= lo) & (ball <= hi)
    ax_f.plot(pi_curve[inside], ps_curve[inside], color=colour, lw=2.5, label=name)
ax_b.set(xlabel=r"ball measure $b$", ylabel="success probability", ylim=(0.45, 1.02),
         title="(a) both tests against $b$")
ax_f.plot(0.75, 0.75, "k*", ms=12, label=r"optimum $b = 1/2$")
identification = np.linspace(0.5, 1, 201)
ax_f.plot(identification, theory.front(identification), color=splot.THEORY, lw=0.8, ls=":",
          label="front $p_S(p_I)$")
ax_f.set(xlabel="identification $p_I$", ylabel="generalization $p_S$", xlim=(0.48, 1.01),
         title="(b) the front")
splot.legend_outside(fig, [ax_b, ax_f], ncol=3)
report.figure("front", fig)

# %% tags=["hide-input"]
# Theorem 2's fronts for several Delta with the circle's Monte Carlo cells at the check's noise
# levels; the circle against the segment (its moments derived above), the cost Var(b) inset
fig, (ax_d, ax_s) = splot.subplots(1, 2, figsize=(7.2, 4.6))
ball = np.linspace(0, 1, 301)
for i, dl in enumerate((0.0, 0.1, 0.2, 0.3, 0.5)):
    ps_curve, pi_curve = theory.two_item(ball, delta=dl)
    ax_d.plot(pi_curve, ps_curve, color=splot.CYCLE[i], label=rf"$\Delta$ = {dl}")
    if dl in cfg.deltas:
        at = mc[(mc.space == "circle") & (mc.delta == dl)]
        sim, ident = at[at.task == "similarity"], at[at.task == "identification"]
        ax_d.errorbar(ident["mc"].to_numpy(), sim["mc"].to_numpy(),
                      xerr=2 * ident["stderr"].to_numpy(), yerr=2 * sim["stderr"].to_numpy(),
                      fmt="o", ms=4, color=splot.CYCLE[i])
ax_d.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
         title="(a) noise (homogeneous)")
ax_d.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=2)

radius = np.linspace(0, 0.5, 201)
circ_ps, circ_pi = theory.two_item(2 * radius)
m_seg, v_seg = seg_moments(radius)
seg_ps, seg_pi = theory.two_item(m_seg, var_b=v_seg)
ax_s.plot(circ_pi, circ_ps, color=splot.THEORY, label="circle (homogeneous)")
ax_s.plot(seg_pi, seg_ps, color=splot.CYCLE[1], label="segment")
for name, colour in (("circle", splot.THEORY), ("segment", splot.CYCLE[1])):
    at = mc[(mc.space == name) & (mc.delta == 0)]
    ax_s.plot(at[at.task == "identification"]["mc"], at[at.task == "similarity"]["mc"],
              "o", ms=5, color=colour, mfc="white")
inset = ax_s.inset_axes([0.3, 0.17, 0.4, 0.35])
inset.plot(radius, v_seg, color=splot.CYCLE[1])
inset.set_xlabel(r"$\varepsilon$", fontsize=9)
inset.set_title(r"cost $\operatorname{Var}(b)$", fontsize=9)
inset.tick_params(labelsize=9)
inset.locator_params(nbins=3)
ax_s.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
         title="(b) circle vs segment")
ax_s.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)
report.figure("noise-segment", fig)

# %% [markdown]
# ### Where this build differs from the paper
#
# * the laws are checked by Monte Carlo with {glue:text}`ch1_trials:,` trials per cell on the
#   circle, the segment, the sphere and a discrete space of {glue:text}`ch1_disc_points` points
#   on a {glue:text}`ch1_disc_grid` × {glue:text}`ch1_disc_grid` grid, a check added here;
# * the noisy form, the explicit noisy front and the segment's moments are derived here, and the
#   tie term $\tau/2$ for discrete spaces is new here.
