"""What a causal LM can do with years, before the paper's protocol: the competence gate, the
question asked backwards, and a probe of what its hidden states hold about a year."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import norm
from threadpoolctl import threadpool_limits

from semres.core.clustered import clustered_mean
from semres.core.validate import at_least

from .lm import Scorer, ScoredTrials, join, score_trials
from .settings import ITEM_TEMPLATE, NAMES
from .trials import balanced_trials


# --------------------------------------------------------------------------- the competence gate

def gate_size(p0: float = 0.5, p1: float = 0.55, *, alpha: float = 0.05,
              power: float = 0.8) -> int:
    """Trials for a one-sided z-test at level ``alpha`` to detect a mean mass ``p1`` over ``p0``
    with probability ``power``."""
    if not (0 < p0 < p1 < 1):
        raise ValueError(f"p0 and p1 must satisfy 0 < p0 < p1 < 1; got {p0!r}, {p1!r}")
    for v, k in ((alpha, "alpha"), (power, "power")):
        if not (0 < v < 1):
            raise ValueError(f"{k} must lie in (0, 1); got {v!r}")
    z = norm.ppf(1 - alpha) * math.sqrt(p0 * (1 - p0)) + norm.ppf(power) * math.sqrt(p1 * (1 - p1))
    return int(math.ceil((z / (p1 - p0)) ** 2))


def above_chance(mass, members, p0: float = 0.5, alpha: float = 0.05) -> dict:
    """Mean mass, its 95 % interval over names, and the one-sided test against ``p0``."""
    out = clustered_mean(mass, members, p0=p0)
    out["verdict"] = "passes" if out["p_value"] < alpha else "does not do the task"
    return out


#: when a sequential test looks, as shares of its sized design
LOOKS = (0.25, 0.5, 0.75, 1.0)
#: the z whose one-sided p an interim look must beat to stop for a pass (Haybittle–Peto)
INTERIM_Z = 3.0


def look_sizes(trials: int, block: int, looks=LOOKS) -> list[int]:
    """Trials scored by each look of a design of ``trials`` in blocks of ``block`` (a list of
    names in both orders, every question asked): the first share of the blocks, rounded up,
    so each look is a balanced design of its own; looks that round to one size are one."""
    looks = [float(f) for f in looks]
    if not looks or looks != sorted(set(looks)) or looks[0] <= 0 or looks[-1] != 1:
        raise ValueError(f"looks must be increasing shares in (0, 1] ending at 1; got {looks}")
    block = at_least(int(block), 1, "block")
    if trials % block or trials < block:
        raise ValueError(f"trials must be a positive multiple of block ({block}); got {trials}")
    blocks = trials // block
    return sorted({max(1, math.ceil(f * blocks - 1e-9)) * block for f in looks})


def sequential(mass_of, members, *, p1: float = 0.55, alpha: float = 0.05) -> dict:
    """The one-sided test of a mean mass against 1/2 (:func:`above_chance`) on a design sized
    for a fixed number of trials (``members``: the names of each, in the order scored), scored
    in :data:`LOOKS` (:func:`look_sizes`) until the verdict is settled; ``mass_of(rows)``
    scores the design's trials at ``rows``.

    An interim look stops for a pass when the one-sided p-value is below that of z =
    :data:`INTERIM_Z` (on the test's own Student's t, so a first look with few names needs a
    larger statistic), and for a fail when the 95 % interval ends below ``p1``, the effect the
    design is sized to see. The last look is the fixed design's test at ``alpha``.

    This is the Haybittle–Peto rule, and why it keeps the level: the looks add a pass the fixed
    design would not give only on a path that crosses the bound at an interim look (p about
    0.00135 each) yet ends below the final test's line; under the null the looks share their
    trials, so such a path is rarer than the crossings: a level of about 0.051 for 0.05 (the
    tests check it by simulation). Stopping for a fail only removes passes, so it can lower the
    level, never raise it, and it is non-binding.

    Returns :func:`above_chance` of the trials scored, with ``look``, ``looks``, ``planned``
    and ``stopped`` ("pass", "fail" or "last look")."""
    members = np.asarray(members)
    sizes = look_sizes(len(members), 4)
    mass = np.zeros(0)
    for k, stop in enumerate(sizes, start=1):
        rows = np.arange(len(mass), stop)
        mass = np.concatenate([mass, np.asarray(mass_of(rows), float)])
        out = above_chance(mass, members[:stop], 0.5, alpha)
        out.update(look=k, looks=len(sizes), planned=len(members), stopped="last look")
        if k == len(sizes):
            return out
        if out["p_value"] < norm.sf(INTERIM_Z):
            out.update(verdict="passes", stopped="pass")
            return out
        if out["ci_high"] < p1:
            out.update(verdict="does not do the task", stopped="fail")
            return out
    raise AssertionError("unreachable: the last look returns")


def _scored_in_looks(scorer: Scorer, trials, names, seed, years, progress,
                     score=None) -> tuple:
    """The identification design at n = 2 of at least ``trials`` (None: :func:`gate_size`),
    scored in looks until settled (:func:`sequential`); ``score(pool, tr)`` gives prompts and
    options other than the paper's. Returns the verdict, the pool and the trials scored."""
    pool = tuple(NAMES if names is None else names)
    if len(pool) < 2:
        raise ValueError("names: at least two are needed")
    m = gate_size() if trials is None else at_least(trials, 2, "trials")
    tr = balanced_trials("identification", 2, math.ceil(m / 4), seed, years=years,
                         n_names=len(pool))
    extra = score(pool, tr) if score else {}
    parts = []

    def mass_of(rows):
        parts.append(score_trials(scorer, tr, pool, progress=progress, rows=rows, **extra))
        return parts[-1].mass

    return sequential(mass_of, tr.names), pool, join(tr, parts)


def gate(scorer: Scorer, *, seed, trials: int | None = None, names=None,
         years=(1500, 2000), progress: bool = True) -> dict:
    """Whether a model does identification at n = 2 better than chance: the balanced design
    sized to tell a mean mass 0.55 from 1/2 (or ``trials``), scored in looks until settled;
    ``scored`` holds the trials scored."""
    out, pool, scored = _scored_in_looks(scorer, trials, names, seed, years, progress)
    out.update(pool=pool, scored=scored, biases=biases(scored))
    return out


def biases(scored: ScoredTrials) -> dict:
    """How much the model's choices lean on things that are not the answer, in trials with two
    options: the mass on the first-listed option minus 1/2 (position), and, in trials whose
    options differ in token count, the mass on the shorter one minus 1/2 (length). In the
    balanced designs each is correct in exactly half of those trials, so a model without the
    bias scores 0. Each with its 95 % interval over names (None where no trial qualifies)."""
    if scored.scores.shape[1] != 2:
        raise ValueError("biases are measured on trials with two options")
    p = scored.probs
    members = scored.trials.names
    out = {"position": clustered_mean(p[:, 0] - 0.5, members)}
    unequal = scored.lengths[:, 0] != scored.lengths[:, 1]
    if unequal.sum() >= 2:
        shorter = np.where(scored.lengths[:, 0] < scored.lengths[:, 1], p[:, 0], p[:, 1])
        out["length"] = clustered_mean(shorter[unequal] - 0.5, members[unequal])
    else:
        out["length"] = None
    return out


# --------------------------------------------------------------------------- asked backwards

#: the question in the direction small models can do: a name given, its year asked for
REVERSE_QUESTION = "When was {name} born?"
REVERSE_INSTRUCTION = "Answer with a single year."


def reverse_prompt(names, years, who: str) -> str:
    """The paper's items, then "When was {who} born?" and "Answer with a single year."."""
    lines = [ITEM_TEMPLATE.format(name=n, year=int(y)) for n, y in zip(names, years)]
    return "\n".join(lines + [REVERSE_QUESTION.format(name=who), REVERSE_INSTRUCTION])


def reverse_direction(scorer: Scorer, *, seed, trials: int | None = None, names=None,
                      years=(1500, 2000), progress: bool = True) -> dict:
    """The identification question asked backwards at n = 2: given a listed name, which of the
    two listed years is theirs, in the gate's design, scored and stopped like it."""
    def score(pool, tr):
        people = [[pool[k] for k in row] for row in tr.names]
        return {"prompts": [reverse_prompt(p, y, p[int(c.argmax())])
                            for p, y, c in zip(people, tr.years, tr.correct)],
                "options": [[str(int(y)) for y in ys] for ys in tr.years], "kind": "years"}

    out, pool, scored = _scored_in_looks(scorer, trials, names, seed, years, progress,
                                         score=score)
    out.update(option_tokens=sorted(set(scored.lengths.ravel().tolist())), pool=pool,
               scored=scored)
    return out


# ------------------------------------------------------------------- what hidden states hold

def _hidden(scorer: Scorer, texts, progress: bool) -> np.ndarray:
    """(texts, layers + 1, width) hidden states at each text's last token, every layer."""
    return scorer.last_hidden(texts, model=scorer.float32, progress=progress)


def _ridge_dual(X, Y, Xt, alphas):
    """Ridge predictions for ``Xt`` from (X, Y) (columns of Y fitted separately), the penalty
    chosen per column by generalised cross-validation over ``alphas``; X is standardised on
    its own mean and spread, Y centred. One eigendecomposition of the Gram matrix serves every
    penalty and column: in its eigenbasis the residuals are (1 - shrink) U^T y."""
    mu, sd = X.mean(0), X.std(0) + 1e-6
    X, Xt = (X - mu) / sd, (Xt - mu) / sd
    ym = Y.mean(0)
    lam, U = np.linalg.eigh(X @ X.T)
    lam = np.clip(lam, 0, None)
    UtY = U.T @ (Y - ym)                                        # (n, columns)
    alphas = np.asarray(alphas, float)
    shrink = lam[None, :] / (lam[None, :] + alphas[:, None])    # (alphas, n)
    rss = np.einsum("an,nc->ac", (1 - shrink) ** 2, UtY ** 2)
    gcv = rss / (len(X) - shrink.sum(1))[:, None] ** 2
    best = alphas[gcv.argmin(0)]                                # one penalty per column
    return (Xt @ X.T) @ (U @ (UtY / (lam[:, None] + best[None, :]))) + ym


def _digit_features(years) -> np.ndarray:
    """One-hot digits of each year, place by place: what a reader of digit tokens has."""
    digits = np.array([[int(c) for c in f"{int(y):04d}"] for y in years])
    return np.concatenate([np.eye(10)[digits[:, k]] for k in range(4)], axis=1)


def year_probe(scorer: Scorer, names=NAMES[:8], years=range(1500, 2000, 5), *, seed,
               permutations: int = 99, folds: int = 2, progress: bool = True) -> dict:
    """Can a linear read-out recover a person's birth year from the model's hidden states?"""
    names = tuple(names)
    years = np.asarray(list(years), int)
    folds = at_least(folds, 2, "folds")
    if len(names) < folds:
        raise ValueError(f"names: {folds} folds need at least {folds} names; got {len(names)}")
    tens = (years // 10) % 10
    if len(set(tens)) < 2:
        raise ValueError("years must span at least two tens digits")
    texts = [ITEM_TEMPLATE.format(name=n, year=int(y)) for n in names for y in years]
    H = _hidden(scorer, texts, progress).astype(np.float64)        # (N, layers, width)
    with threadpool_limits(1):  # hundreds of small solves: threads only wait on each other
        return _probe(scorer, H, names, years, seed, permutations, folds)


def _probe(scorer, H, names, years, seed, permutations, folds) -> dict:
    tens = (years // 10) % 10
    who = np.repeat(np.arange(len(names)), len(years))
    y = np.tile(years, len(names)).astype(float)
    ten = np.tile(tens, len(names))
    rng = np.random.default_rng(seed)
    name_fold = rng.permutation(len(names)) % folds
    perm = np.stack([y] + [rng.permutation(y) for _ in range(permutations)], 1)
    alphas = np.geomspace(1e-2, 1e5, 15)
    n_layers = H.shape[1]
    pred = np.zeros((n_layers, len(y), 1 + permutations))
    digits_pred, chance_pred = np.zeros(len(y)), np.zeros(len(y))
    D = _digit_features(y)
    for f in range(folds):
        for d in np.unique(ten):
            test = (name_fold[who] == f) & (ten == d)
            train = (name_fold[who] != f) & (ten != d)
            if not test.any() or train.sum() < 3:
                continue
            for layer in range(n_layers):
                pred[layer][test] = _ridge_dual(H[train, layer], perm[train], H[test, layer],
                                                alphas)
            digits_pred[test] = _ridge_dual(D[train], y[train, None], D[test], alphas)[:, 0]
            chance_pred[test] = y[train].mean()
    err = np.abs(pred - y[None, :, None])                         # against the true years
    mae = err.mean(1)                                             # (layers, 1 + permutations)
    r2 = 1 - ((pred[:, :, 0] - y) ** 2).sum(1) / ((y - y.mean()) ** 2).sum()
    best = int(mae[:, 0].argmin())
    null_best = mae[:, 1:].min(0)
    p_value = float((1 + (null_best <= mae[best, 0]).sum()) / (1 + permutations))
    digits_err = np.abs(digits_pred - y)
    profile = pd.DataFrame({"model": scorer.name, "layer": np.arange(n_layers),
                            "mae": mae[:, 0], "r2": r2,
                            "shuffled_mae_median": np.median(mae[:, 1:], 1),
                            "shuffled_mae_q05": np.quantile(mae[:, 1:], 0.05, axis=1),
                            "digits_mae": digits_err.mean(),
                            "chance_mae": np.abs(chance_pred - y).mean()})
    members = who[:, None]
    return {"profile": profile, "best_layer": best, "layers": n_layers,
            "mae": float(mae[best, 0]), "r2": float(r2[best]),
            "digits_mae": float(digits_err.mean()),
            "chance_mae": float(np.abs(chance_pred - y).mean()),
            "shuffled_mae": float(np.median(null_best)), "p_value": p_value,
            "permutations": permutations,
            "vs_digits": clustered_mean(err[best, :, 0] - digits_err, members),
            "sentences": len(y), "names": len(names)}
