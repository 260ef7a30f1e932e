"""The paper's LLM protocol on causal language models, from the gate to the resolution."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import softmax

from semres.core.clustered import cluster_bootstrap, clustered_mean, psd, shared_members
from semres.core.results import COLUMNS, correct_mask, split_list
from semres.core.seeds import named_seed

from . import competence, kernel_fits, lm, near
from .models import resolve
from .settings import NAME_POOL, TASKS
from .trials import balanced_trials


def assess(model, *, device: str, seed: int, cfg, names=None, progress: bool = True) -> dict:
    """Score one causal LM: the gate, the question asked backwards, the probe and the near
    design for every model, the n-sweep only when it passes the gate. Every random stream is
    named after the model and the part, so adding either moves no other number.

    Scoring is the cost, so each part scores only the trials a verdict reads: the gate and the
    reverse question stop at the first look that settles them; similarity at n = 2 gets as many
    trials as the gate scored; the near design's other distances are scored only for a model
    that does similarity at its verdict's probes. Answers are drawn where the whole design would
    draw them (:func:`lm.join`). Returns plain data, ``rows`` every scored trial with its
    prompt."""
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
    """The near design scored in two stages (:func:`assess`): the trials of each, and the
    rows."""
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
    """Every scored trial of every assessed model, with the prompt each read."""
    if not assessed:
        return pd.DataFrame(columns=[*COLUMNS, "prompt"])
    return pd.concat([a["rows"] for a in assessed.values()], ignore_index=True)


# --------------------------------------------------------------------------- from rows to numbers

def _scores(rows) -> list:
    return [np.array([float(v) for v in split_list(s)]) for s in rows.scores]


def masses(rows, temperature: float = 1.0) -> np.ndarray:
    """Luce mass on the correct option(s) per row at ``temperature`` (1: the model's own)."""
    ok = correct_mask(rows)
    return np.array([(softmax(s / temperature) * m).sum() for s, m in zip(_scores(rows), ok)])


def greedy(rows) -> np.ndarray:
    """1 where the model's most probable option is a correct one, per row."""
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
    """The mean of per-row ``values`` with the wider of its clustered intervals, over lists
    of names or over names (``unit`` says which)."""
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
    pairs = np.array([(ba, bc) for ba, _, bc, _ in dist])
    graph = coo_matrix((np.ones(len(pairs)), pairs.T), shape=(len(edges),) * 2)
    label = connected_components(graph, directed=False)[1]
    keep = np.flatnonzero(label == label[pairs.min()])
    use = label[pairs[:, 0]] == label[pairs.min()]
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
    at = np.array(dist)[use]  # (bin, distance) of both options; distances are whole years
    sums = sum(np.bincount(at[:, k].astype(int), at[:, k + 1], len(edges)) for k in (0, 2))
    counts = sum(np.bincount(at[:, k].astype(int), None, len(edges)) for k in (0, 2))
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
    """p_S and p_I at n = 2 with a model's option scores divided by T (its own: T = 1), from
    any model's scored rows."""
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
