"""The paper's LLM protocol on causal language models, from the gate to the resolution."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.special import softmax

from semres.core.clustered import cluster_bootstrap, clustered_mean, psd, shared_members
from semres.core.results import COLUMNS, correct_mask, split_list
from semres.core.seeds import named_seed

from . import competence, kernel_fits, lm, near
from .models import resolve
from .settings import NAME_POOL, TASKS
from .trials import balanced_trials

__all__ = ["assess", "score_near", "all_rows", "masses", "greedy", "interval", "sweep_table",
           "KERNEL_BINS", "KERNEL_BOOT", "kernel_replicates",
           "temperature_sweep", "analyse", "available"]


def assess(model, *, device: str, seed: int, cfg, names=None, progress: bool = True) -> dict:
    """Score one causal LM on the paper's questions: the gate, the question asked backwards, the
    probe and the near design (:mod:`semres.experiments.llm.near`) for every model; the n-sweep
    only when it passes the gate.

    ``cfg`` holds the chapter's settings (:class:`semres.experiments.llm.settings.LlmYearsSettings`:
    ``sweep_years``, ``gate_trials``, ``reverse_trials``, ``lm_dtype``, ``probe``,
    ``probe_permutations``, ``lm_ns``, ``causal_trials`` (about as many trials per n-sweep
    cell), ``near_Ds``, ``near_xs``, ``near_pairs``, ``near_centres``, ``near_names``,
    ``near_probes``; the near design's pairs come from ``names`` or else the first
    ``near_names`` of :data:`~semres.experiments.llm.settings.NAME_POOL`). Every random stream is
    named from the chapter's root ``seed`` after the model and the part
    (:func:`semres.core.seeds.named_seed`), so adding a model or a part moves no other numbers.

    Scoring is the cost, so each part scores only the trials a verdict reads. The gate and the
    question asked backwards stop at the first look that settles them
    (:func:`semres.experiments.llm.competence.sequential`). Similarity at n = 2 gets as many
    trials as the gate scored, for a point on the front as precise as p_I: the first trials of
    the design a full gate's cell would draw. The near design is scored in two stages: the
    probes its does-it-do-similarity verdict reads (:func:`near.verdict_probes`), then the other
    distances only for a model that does similarity there, the only one with a curve to fit
    (``near_stages`` records the trials of each stage scored). Each trial's answer is drawn
    from the model's choice probabilities, as the paper sampled its models' answers, where the
    whole design would draw it (:func:`lm.join`). Returns plain data: the summaries and
    ``rows``, every scored trial in the tidy schema with its exact prompt.
    """
    scorer = lm.Scorer(model, device=device, dtype=cfg.lm_dtype)
    key = scorer.name

    def s(part: str, *keys: int):
        return named_seed(seed, f"lm {key} {part}", *keys)

    span = tuple(cfg.sweep_years)
    gate = competence.gate(scorer, trials=cfg.gate_trials or None, seed=s("gate"), names=names,
                           years=span, progress=progress)
    pool = gate["pool"]
    gate_rows = lm.to_results(gate.pop("scored"), source="gate", seed=s("gate answers"))
    rows = [gate_rows]
    reverse = competence.reverse_direction(scorer, trials=cfg.reverse_trials or None,
                                           seed=s("reverse"), names=pool, years=span,
                                           progress=progress)
    rows.append(lm.to_results(reverse.pop("scored"), source="reverse question",
                              seed=s("reverse answers")))
    k_names, first, last, step = cfg.probe
    probe = competence.year_probe(scorer, pool[:k_names], range(first, last + 1, step),
                                  seed=s("probe"), permutations=cfg.probe_permutations,
                                  progress=progress)
    out = {"model": scorer.name, "dtype": scorer.dtype, "precision": scorer.precision,
           "parameters": scorer.parameters, "threads": scorer.threads_used, "gate": gate,
           "reverse": reverse, "probe": probe}
    if gate["verdict"] == "passes":
        for t, task in enumerate(TASKS):
            for n in cfg.lm_ns:
                if task == "identification" and n == 2:
                    continue  # the gate's trials are this cell
                # similarity at n = 2: the gate's design and as many of its trials as it scored
                trials = gate["planned"] if n == 2 else cfg.causal_trials
                lists = math.ceil(trials / (2 * n))  # 2 orders x n questions a list
                tr = balanced_trials(task, n, lists, s("sweep", t, n), years=span,
                                     n_names=len(pool))
                part = np.arange(len(gate_rows)) if n == 2 else None
                rows.append(lm.to_results(lm.score_trials(scorer, tr, pool, progress=progress,
                                                          rows=part),
                                          source="n-sweep", seed=s("sweep answers", t, n)))
    # the near design, for every model: whether it does similarity is judged there
    near_pool = NAME_POOL[:cfg.near_names] if names is None else tuple(names)
    out["near_stages"], near_rows = score_near(scorer, cfg, near_pool, s, progress=progress)
    rows.append(near_rows)
    out["rows"] = pd.concat(rows, ignore_index=True)
    return out


def score_near(scorer, cfg, pool, s, *, progress: bool = True) -> tuple[dict, pd.DataFrame]:
    """The near design scored in two stages (:func:`assess`): the trials of each stage scored,
    and every scored trial in the tidy schema. ``s(part)`` names the model's random streams."""
    tr = near.design(cfg.near_Ds, cfg.near_xs, cfg.near_pairs, s("near design"),
                     centres=cfg.near_centres, n_names=len(pool), probes=cfg.near_probes)
    first = np.flatnonzero(near.verdict_probes(tr, near=cfg.near_near, far=cfg.near_far))
    parts = [lm.score_trials(scorer, tr, pool, progress=progress, rows=first)]
    judged = near.competence(near.trial_table(lm.to_results(parts[0], source=near.SOURCE)),
                             near=cfg.near_near, far=cfg.near_far)
    rest = np.setdiff1d(np.arange(len(tr)), first)
    if judged["does"] and len(rest):
        parts.append(lm.score_trials(scorer, tr, pool, progress=progress, rows=rest))
    stages = {"design": len(tr), "stage 1": len(first),
              "stage 2": len(rest) if len(parts) > 1 else 0}
    return stages, lm.to_results(lm.join(tr, parts), source=near.SOURCE,
                                 seed=s("near design answers"))


def all_rows(assessed: dict) -> pd.DataFrame:
    """Every scored trial of every assessed model (:func:`assess`), in the tidy schema with the
    prompt each model read; with no model, the schema's columns and no row."""
    if not assessed:
        return pd.DataFrame(columns=[*COLUMNS, "prompt"])
    return pd.concat([a["rows"] for a in assessed.values()], ignore_index=True)


# --------------------------------------------------------------------------- from rows to numbers

def _scores(rows) -> list:
    return [np.array([float(v) for v in split_list(s)]) for s in rows.scores]


def masses(rows, temperature: float = 1.0) -> np.ndarray:
    """Luce mass on the correct option(s) per row, from its option scores at ``temperature``
    (1: the model's own probabilities)."""
    ok = correct_mask(rows)
    return np.array([(softmax(s / temperature) * m).sum() for s, m in zip(_scores(rows), ok)])


def greedy(rows) -> np.ndarray:
    """1 where the option the model finds most probable is a correct one (its greedy answer,
    the paper's measure beside the mass), per row."""
    return np.array([float(m[int(np.argmax(s))]) for s, m in zip(_scores(rows),
                                                                  correct_mask(rows))])


def _members(rows) -> np.ndarray:
    """The names each row lists (its options), as integer codes: the clusters of its trial."""
    opts = [split_list(o) for o in rows.options]
    k = max(len(o) for o in opts)
    flat = sorted({x for o in opts for x in o})
    code = {x: i for i, x in enumerate(flat)}
    # rows with fewer options repeat their first name (a name counted twice is still one cluster)
    return np.array([[code[x] for x in o] + [code[o[0]]] * (k - len(o)) for o in opts])


def _lists(rows) -> np.ndarray:
    """The list of names each row asks about, whatever its order, as an integer code."""
    return pd.factorize(pd.Series(["|".join(sorted(split_list(o))) for o in rows.options]))[0]


def interval(values, rows, p0: float | None = None) -> dict:
    """The mean of per-row ``values`` with the wider of its two clustered intervals, over the
    lists of names and over the names (:func:`sweep_table` says why both); ``unit`` says
    which, ``names`` counts its clusters."""
    return max(({**clustered_mean(values, units, p0=p0), "unit": unit} for unit, units in
                (("lists of names", _lists(rows)[:, None]), ("names", _members(rows)))),
               key=lambda c: c["ci_high"] - c["ci_low"])


def sweep_table(rows):
    """Mean mass per model, task and n, and greedy accuracy, against 1/n."""
    out = []
    for (m, task, n), sub in rows.groupby(["model", "task", "n"]):
        c = interval(masses(sub), sub)
        out.append({"model": m, "task": task, "n": int(n), "p": c["p"], "se": c["se"],
                    "ci_low": c["ci_low"], "ci_high": c["ci_high"],
                    "greedy": float(greedy(sub).mean()), "trials": c["trials"],
                    "clustered_on": c["unit"],
                    "names": c["names"], "chance": 1 / int(n)})
    return pd.DataFrame(out)


#: distance bins of the kernel read from choices (years, inclusive upper edges)
KERNEL_BINS = (0, 2, 5, 10, 20, 35, 60, 100, 150, 220, 320, 450, 650)


#: resamples of the lists of names behind the kernel read from choices
KERNEL_BOOT = 400


def kernel_replicates(rows, bins=KERNEL_BINS, *, seed, n_boot: int = KERNEL_BOOT):
    """The similarity kernel read from the model's own choices, and its bootstrap replicates."""
    sim = rows[(rows.task == "similarity") & rows.scores.fillna("").astype(str).str.len().gt(0)]
    if sim.empty:
        raise ValueError("rows: no similarity trials with option scores")
    edges = np.asarray(bins)
    scores = _scores(sim)
    pos = [np.array([float(v) for v in split_list(p)]) for p in sim.position]
    probe = sim.probe.astype(float).to_numpy()
    members = _members(sim)
    lists = _lists(sim)
    X, y, who, dist, unit = [], [], [], [], []
    for s, ys, pr, mem, li in zip(scores, pos, probe, members, lists):
        d = np.abs(ys - pr)
        b = np.searchsorted(edges, d, side="left").clip(0, len(edges) - 1)
        for a in range(len(s)):
            for c in range(a + 1, len(s)):
                if b[a] == b[c]:
                    continue
                row = np.zeros(len(edges))
                row[b[a]] += 1
                row[b[c]] -= 1
                X.append(row)
                y.append(s[a] - s[c])
                who.append(mem)
                unit.append(li)
                dist.append((b[a], d[a], b[c], d[c]))
    if not X:
        raise ValueError("rows: no pair of options falls in two different distance bins")
    # the bins joined to the nearest one by some pair of options: log g is fixed relative to it
    pairs = [(ba, bc) for ba, _, bc, _ in dist]
    ref = min(min(p) for p in pairs)
    linked, grew = {ref}, True
    while grew:
        grew = False
        for ba, bc in pairs:
            if (ba in linked) != (bc in linked):
                linked |= {ba, bc}
                grew = True
    keep = np.array(sorted(linked))
    use = np.array([ba in linked for ba, _ in pairs])
    X = np.array(X)[use][:, keep[1:]]
    y = np.array(y)[use]
    who = np.array(who)[use]
    unit = np.array(unit)[use]
    XtX = X.T @ X
    coef = np.linalg.solve(XtX, X.T @ y)
    resid = y - X @ coef
    e = resid[:, None] * X
    bread = np.linalg.inv(XtX)
    names = len(np.unique(who))
    cov_names = psd(bread @ (e.T @ (shared_members(who) @ e)) @ bread * names
                    / max(names - 1, 1))
    cov_hc = bread @ (e.T @ e) @ bread * len(y) / max(len(y) - X.shape[1], 1)

    def refit(w):
        a = X.T @ (w[:, None] * X)
        try:  # singular when a bin lost its link to the reference in this resample
            if (np.diag(a) > 0).all() and np.linalg.matrix_rank(a) == len(a):
                return np.linalg.solve(a, X.T @ (w * y))
        except np.linalg.LinAlgError:
            pass
        return np.full(X.shape[1], np.nan)

    reps = (cluster_bootstrap(refit, unit, n_boot, named_seed(seed, "choice kernel lists"))
            if X.shape[1] else np.zeros((int(n_boot), 0)))
    ok = np.isfinite(reps).all(1)
    se_lists = (reps[ok].std(0, ddof=1) if ok.sum() > 1 else np.full(X.shape[1], np.nan))
    se_names = np.sqrt(np.clip(np.diag(cov_names), 0, None))
    se_hc = np.sqrt(np.clip(np.diag(cov_hc), 0, None))
    se = np.fmax(se_lists, se_names)
    sums, counts = np.zeros(len(edges)), np.zeros(len(edges))
    for (ba, da, bc, dc), u in zip(dist, use):
        if u:
            sums[ba] += da
            counts[ba] += 1
            sums[bc] += dc
            counts[bc] += 1
    log_g = np.concatenate([[0.0], coef])
    log_se = np.concatenate([[0.0], se])
    table = pd.DataFrame({
        "bin_high": edges[keep], "distance": sums[keep] / counts[keep], "log_g": log_g,
        "log_g_se": log_se, "g": np.exp(log_g), "pairs": counts[keep].astype(int),
        "log_g_ci_low": log_g - 1.96 * log_se, "log_g_ci_high": log_g + 1.96 * log_se,
        "log_g_se_lists": np.concatenate([[0.0], se_lists]),
        "log_g_se_names": np.concatenate([[0.0], se_names]),
        "log_g_se_hc": np.concatenate([[0.0], se_hc]),
        "se_from": ["reference"] + ["lists of names" if a >= b else "names"
                                    for a, b in zip(se_lists, se_names)],
        "boot_used": float(ok.mean())})
    replicates = np.concatenate([np.zeros((len(reps), 1)), reps], axis=1)
    return table, replicates


def temperature_sweep(rows, temperatures):
    """p_S and p_I at n = 2 when a model's option scores are divided by a temperature T (its
    own answers are T = 1), each with its interval over names: the tradeoff, from any model's
    scored rows (a causal LM's gate and n-sweep, or result files)."""
    two = rows[rows.n.astype(int) == 2]
    out = []
    for T in temperatures:
        row = {"temperature": float(T)}
        for task, key in (("similarity", "p_s"), ("identification", "p_i")):
            sub = two[two.task == task]
            c = interval(masses(sub, float(T)), sub)
            row[key], row[key + "_se"] = c["p"], c["se"]
        out.append(row)
    return pd.DataFrame(out).sort_values("temperature", ignore_index=True)


def analyse(a: dict, *, temperatures, does_similarity: bool, seed, near_trend=None) -> dict:
    """Every analysis of the protocol for one model that passed its gate, from its rows."""
    model = a["model"]
    rows = a["rows"]
    sweep = sweep_table(rows[rows.source.isin(["gate", "n-sweep"])])
    sim2 = rows[(rows.task == "similarity") & (rows.n.astype(int) == 2) &
                (rows.source == "n-sweep")]
    out = {"model": model, "sweep": sweep,
           "uniform": interval(masses(sim2), sim2, p0=0.5),
           "does_similarity": bool(does_similarity),
           "temperature": temperature_sweep(rows[rows.source.isin(["gate", "n-sweep"])],
                                            temperatures)}
    if not out["does_similarity"]:
        return out
    kernel, reps = kernel_replicates(rows, seed=seed)
    try:
        trend = kernel_fits.decay_trend(kernel.distance, kernel.g, replicates=reps)
    except ValueError:  # too few resamples reached every bin: the standard errors instead
        trend = kernel_fits.decay_trend(kernel.distance, kernel.g,
                                        se=kernel.g * kernel.log_g_se)
    if trend["decays"]:
        try:
            kfit = kernel_fits.fit_shape(kernel.distance, kernel.g, "exp_floor",
                                         se=kernel.g * kernel.log_g_se, require_decay=False)
        except ValueError as err:  # too few points
            kfit = {"error": str(err).split(":")[0]}
    else:
        kfit = {"error": "no decay"}
    out.update(kernel=kernel, kernel_fit=kfit, kernel_trend=trend)
    if near_trend is not None:
        out["trend_agreement"] = kernel_fits.trend_agreement(trend, near_trend)
    return out


def available(models: str, *, strict: bool) -> tuple[list, dict]:
    """The comma-separated ``models`` that resolve, and why the others do not."""
    ok, skipped = [], {}
    for m in (x.strip() for x in str(models).split(",")):
        if not m:
            continue
        try:
            resolve(m)
        except ValueError as err:
            if strict:
                raise
            skipped[m] = str(err)
        else:
            ok.append(m)
    return ok, skipped
