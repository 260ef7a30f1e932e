"""The paper's LLM protocol on causal language models, from the gate to the resolution.

Every model first answers the competence gate (identification at n = 2) and the same facts
asked backwards, and its hidden states are probed for the year (:mod:`semres.experiments.llm.lm`). A
model
that passes then gets the paper's whole protocol, in the balanced designs of
:mod:`semres.experiments.llm.language`: identification and similarity at several n against Theorem
3's 1/n
law, the two-reference resolution design window by window, the kernel read from its own
choices, and the tradeoff along a softmax temperature. Every mean carries an interval over the
names its trials list (:func:`semres.core.clustered.clustered_mean`), every fit its goodness of fit.

``assess`` scores (cacheable plain data); the other functions analyse its rows, so they run the
same on any model's per-trial files that carry option scores.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.special import softmax
from scipy.stats import chi2

from . import language, lm, near, near_page, years
from semres.core import plotting, theory
from semres.core.clustered import clustered_mean, shared_members
from semres.core.fits import gof_pvalue
from semres.core.plotting import number, pvalue
from semres.core.results import correct_mask, split_list
from semres.core.seeds import seeds
from .near_page import LM_STAND_IN
from semres.report import ALPHA, detectable_at, holm
from .years import PAPER_RANGE

__all__ = ["assess", "masses", "greedy", "sweep_table", "theorem3", "choice_kernel",
           "temperature_sweep", "analyse", "tables", "gate_table", "bias_table", "gate_text",
           "similarity_text", "probe_text", "theorem3_text", "kernel_text",
           "temperature_text", "fig_gates", "fig_protocol", "available", "identity_row",
           "models_text", "model_text", "report_results", "LM_STAND_IN", "PAPER_RESOLUTION"]

#: the paper's stated resolution of its chat LLMs, "roughly 70–80 years": its middle and the
#: half-width of the range it gives, used as the tolerance of a comparison
PAPER_RESOLUTION = ((PAPER_RANGE[0] + PAPER_RANGE[1]) / 2, (PAPER_RANGE[1] - PAPER_RANGE[0]) / 2)


def assess(model, *, device: str, seed: int, cfg: dict, names=None,
           progress: bool = True) -> dict:
    """Score one causal LM on the paper's questions: the gate, the question asked backwards, the
    probe and the near design (:mod:`semres.experiments.llm.near`) for every model; the n-sweep
    only when it passes the gate.

    ``cfg`` holds the chapter's settings (``sweep_years``, ``gate_trials``, ``reverse_trials``,
    ``lm_dtype``, ``probe``, ``probe_permutations``, ``lm_ns``, ``causal_trials`` (about as
    many trials per n-sweep cell), ``near_Ds``, ``near_xs``, ``near_pairs``,
    ``near_centres``). Random streams are named after the model and the part
    (:func:`semres.core.seeds.seeds`), so adding a model or a part moves no other numbers. Similarity
    at n = 2 gets as many trials as the gate, for a point on the front as precise as p_I. Each
    trial's answer is drawn from the model's choice probabilities, as the paper sampled its
    models' answers. Returns plain data: the summaries and ``rows``, every scored trial in the
    tidy schema with its exact prompt.
    """
    stream = seeds(seed)
    scorer = lm.Scorer(model, device=device, dtype=cfg["lm_dtype"])
    key = scorer.name

    def s(part: str, *keys: int):
        return stream(f"lm {key} {part}", *keys)

    span = tuple(cfg["sweep_years"])
    gate = lm.gate(scorer, trials=cfg["gate_trials"] or None, seed=s("gate"), names=names,
                   years=span, progress=progress)
    pool = gate["pool"]
    gate_rows = lm.to_results(gate.pop("scored"), source="gate", seed=s("gate answers"))
    rows = [gate_rows]
    reverse = lm.reverse_direction(scorer, trials=cfg["reverse_trials"] or None,
                                   seed=s("reverse"), names=pool, years=span,
                                   progress=progress)
    rows.append(lm.to_results(reverse.pop("scored"), source="reverse question",
                              seed=s("reverse answers")))
    k_names, first, last, step = cfg["probe"]
    probe = lm.year_probe(scorer, pool[:k_names], range(first, last + 1, step), seed=s("probe"),
                          permutations=cfg["probe_permutations"], progress=progress)
    out = {"model": scorer.name, "dtype": scorer.dtype, "precision": scorer.precision,
           "parameters": scorer.parameters, "threads": scorer.threads_used, "gate": gate,
           "reverse": reverse, "probe": probe}
    if gate["verdict"] == "passes":
        for t, task in enumerate(language.TASKS):
            for n in cfg["lm_ns"]:
                if task == "identification" and n == 2:
                    continue  # the gate's trials are this cell
                # similarity at n = 2: as many trials as the gate, for the front's point
                trials = len(gate_rows) if n == 2 else cfg["causal_trials"]
                lists = math.ceil(trials / (2 * n))  # 2 orders x n questions a list
                tr = language.balanced_trials(task, n, lists, s("sweep", t, n), years=span,
                                              n_names=len(pool))
                rows.append(lm.to_results(lm.score_trials(scorer, tr, pool, progress=progress),
                                          source="n-sweep", seed=s("sweep answers", t, n)))
    # the near design, for every model: whether it does similarity is judged there
    tr = near.design(cfg["near_Ds"], cfg["near_xs"], cfg["near_pairs"], s("near design"),
                     centres=cfg["near_centres"], n_names=len(pool))
    rows.append(lm.to_results(lm.score_trials(scorer, tr, pool, progress=progress),
                              source=near.SOURCE, seed=s("near design answers")))
    out["rows"] = pd.concat(rows, ignore_index=True)
    return out


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


def _interval(values, rows, p0: float | None = None) -> dict:
    """The mean of per-row ``values`` with the wider of its two clustered intervals, over the
    lists of names and over the names (:func:`sweep_table` says why both); ``unit`` says
    which, ``names`` counts its clusters."""
    return max(({**clustered_mean(values, units, p0=p0), "unit": unit} for unit, units in
                (("lists of names", _lists(rows)[:, None]), ("names", _members(rows)))),
               key=lambda c: c["ci_high"] - c["ci_low"])


def sweep_table(rows):
    """Mean mass per model, task and n, and greedy accuracy, against 1/n.

    The interval counts the units that were replicated: trials that share a list of names
    (both orders, every question about it) are one cluster, and so are trials that share a
    name, which recurs across lists. Each clustering gives an interval (Student's t with one
    degree of freedom fewer than its clusters); the wider one is kept. At n = 8 a sweep of 160
    trials has only 10 lists, and the names' interval was half as wide as the lists'; at n = 2
    (155 lists of two of 60 names) a name's pull spans many lists and the names' is wider.
    """
    out = []
    for (m, task, n), sub in rows.groupby(["model", "task", "n"]):
        c = _interval(masses(sub), sub)
        out.append({"model": m, "task": task, "n": int(n), "p": c["p"], "se": c["se"],
                    "ci_low": c["ci_low"], "ci_high": c["ci_high"],
                    "greedy": float(greedy(sub).mean()), "trials": c["trials"],
                    "clustered_on": c["unit"],
                    "names": c["names"], "chance": 1 / int(n)})
    return pd.DataFrame(out)


#: the miss of Theorem 3's prediction that matters: 0.05 of mass on the correct person, the
#: effect the competence gate is sized to see (0.55 against 0.5); a test that could not see it
#: leaves the theorem inconclusive, never "holds"
MISS_MATTERS = 0.05


def theorem3(sweep) -> dict:
    """Theorem 3 on a model's n-sweep: one ball measure b fitted to identification at every n
    predicts similarity at every n.

    Each cell's mean and clustered standard error become effective binomial counts (Kish:
    trials p (1 - p) / se², so the likelihood carries the interval over lists and names), b is
    fitted by binomial likelihood, and the theory makes two predictions, each tested at the
    book's level (:data:`semres.report.ALPHA`) after Holm's adjustment for the pair: that one b
    describes identification at every n (the fit's goodness of fit) and that it predicts
    similarity at every n (the sum of the squared z over the similarity cells, against
    chi-square with as many degrees of freedom). ``detectable``: the smallest deviation of a
    similarity cell the test detects with 80 % power. Returns the fit, a per-cell table and the
    verdict fields.
    """
    ide = sweep[sweep.task == "identification"].sort_values("n")
    if len(ide) < 2:
        raise ValueError("sweep: identification needs at least two values of n")
    p = ide.p.clip(1e-6, 1 - 1e-6).to_numpy()
    eff = p * (1 - p) / np.maximum(ide.se.to_numpy(), 1e-9) ** 2
    fit = years.fit_ball_measure(ide.n.to_numpy(), eff, p * eff)
    table = sweep.copy()
    pred_s, pred_i = (np.asarray(v, float)
                      for v in theory.n_item(fit["b"], table.n.to_numpy()))
    table["theory"] = np.where(table.task == "similarity", pred_s, pred_i)
    table["z"] = (table.p - table.theory) / table.se
    sim = table[table.task == "similarity"]
    worst = sim.loc[sim.z.abs().idxmax()] if len(sim) else None
    p_sim = float(chi2.sf((sim.z ** 2).sum(), len(sim))) if len(sim) else math.nan
    # the two predictions by name: an untested one (no p-value) is left out of the family
    tested = {k: v for k, v in (("identification", fit["gof_p"]), ("similarity", p_sim))
              if np.isfinite(v)}
    adjusted = dict(zip(tested, holm(list(tested.values())))) if tested else {}
    return {"b": fit["b"], "fit": fit, "table": table, "p_identification": fit["gof_p"],
            "p_similarity": p_sim, "p_adjusted": adjusted,
            "max_z": float(abs(worst.z)) if worst is not None else math.nan,
            "max_z_n": int(worst.n) if worst is not None else None,
            "max_gap": float(worst.p - worst.theory) if worst is not None else math.nan,
            "within": len(adjusted) == 2 and all(p >= ALPHA for p in adjusted.values()),
            "detectable": detectable_at(sim.se.max()) if len(sim) else math.nan,
            "n": sorted(set(sweep.n))}


#: distance bins of the kernel read from choices (years, inclusive upper edges)
KERNEL_BINS = (0, 2, 5, 10, 20, 35, 60, 100, 150, 220, 320, 450, 650)


def choice_kernel(rows, bins=KERNEL_BINS) -> "pd.DataFrame":
    """The similarity kernel read from the model's own choices.

    Under the Luce rule the log-odds between two options of a trial is log g(d_a) - log g(d_b),
    d the distance of each person's year from the probe; with log g piecewise constant in
    distance bins, every pair of options in every similarity trial is one equation, solved by
    least squares relative to the nearest bin measured (bins no pair links to it are left
    out). Standard errors are the cluster-robust sandwich over the names the trials list.
    Returns distance (bin mean), log g, its standard error, g (1 in the nearest bin), and the
    option pairs per bin.
    """
    sim = rows[(rows.task == "similarity") & rows.scores.fillna("").astype(str).str.len().gt(0)]
    if sim.empty:
        raise ValueError("rows: no similarity trials with option scores")
    edges = np.asarray(bins)
    scores = _scores(sim)
    pos = [np.array([float(v) for v in split_list(p)]) for p in sim.position]
    probe = sim.probe.astype(float).to_numpy()
    members = _members(sim)
    X, y, who, dist = [], [], [], []
    for s, ys, pr, mem in zip(scores, pos, probe, members):
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
                dist.append((b[a], d[a], b[c], d[c]))
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
    XtX = X.T @ X
    coef = np.linalg.solve(XtX, X.T @ y)
    e = (y - X @ coef)[:, None] * X
    shared = shared_members(who)
    bread = np.linalg.inv(XtX)
    names = len(np.unique(who))
    cov = bread @ (e.T @ (shared @ e)) @ bread * names / max(names - 1, 1)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    sums, counts = np.zeros(len(edges)), np.zeros(len(edges))
    for (ba, da, bc, dc), u in zip(dist, use):
        if u:
            sums[ba] += da
            counts[ba] += 1
            sums[bc] += dc
            counts[bc] += 1
    log_g = np.concatenate([[0.0], coef])
    log_se = np.concatenate([[0.0], se])
    return pd.DataFrame({"bin_high": edges[keep], "distance": sums[keep] / counts[keep],
                         "log_g": log_g, "log_g_se": log_se, "g": np.exp(log_g),
                         "pairs": counts[keep].astype(int)})


def temperature_sweep(rows, temperatures):
    """p_S and p_I at n = 2 when the model's option scores are divided by a temperature T (its
    own answers are T = 1), each with its interval over names: the causal LM's tradeoff."""
    two = rows[(rows.n.astype(int) == 2) & rows.source.isin(["gate", "n-sweep"])]
    out = []
    for T in temperatures:
        row = {"temperature": float(T)}
        for task, key in (("similarity", "p_s"), ("identification", "p_i")):
            sub = two[two.task == task]
            c = _interval(masses(sub, float(T)), sub)
            row[key], row[key + "_se"] = c["p"], c["se"]
        out.append(row)
    return pd.DataFrame(out).sort_values("temperature", ignore_index=True)


# --------------------------------------------------------------------- summaries and verdicts

def gate_table(assessed: dict):
    """One row per model and question (the gate, the question asked backwards)."""
    rows = []
    for a in assessed.values():
        for key, question, source in (("gate", "who was born in P? (n = 2)", "gate"),
                                      ("reverse", "when was X born? (n = 2)",
                                       "reverse question")):
            g = a[key]
            rows.append({"model": a["model"], "question": question, "p": g["p"],
                         "ci_low": g["ci_low"], "ci_high": g["ci_high"],
                         "greedy": float(greedy(a["rows"][a["rows"].source == source]).mean()),
                         "p_value": g["p_value"], "verdict": g["verdict"], "trials": g["trials"],
                         "names": g["names"],
                         "dtype": a["dtype"]})
    return pd.DataFrame(rows)


def bias_table(assessed: dict):
    """Position and length bias of every model at n = 2 (the gate's trials)."""
    rows = []
    for a in assessed.values():
        for kind, what in (("position", "mass on the first-listed person − 1/2"),
                           ("length", "mass on the name of fewer tokens − 1/2")):
            b = a["gate"]["biases"][kind]
            rows.append({"model": a["model"], "bias": kind, "measure": what,
                         "value": np.nan if b is None else b["p"],
                         "ci_low": np.nan if b is None else b["ci_low"],
                         "ci_high": np.nan if b is None else b["ci_high"],
                         "trials": 0 if b is None else b["trials"]})
    return pd.DataFrame(rows)


def probe_text(a: dict) -> str:
    """What the probe shows for one model, and only that."""
    pr = a["probe"]
    vs = pr["vs_digits"]
    beats_shuffled = pr["p_value"] < 0.05
    beats_digits = vs["ci_high"] < 0
    head = (f"a linear read-out of layer {pr['best_layer']} (of {pr['layers']}) puts the birth "
            f"year of people and decades it was not trained on within {pr['mae']:.0f} years on "
            f"average (shuffled years: {pr['shuffled_mae']:.0f}, {pvalue(pr['p_value'])} over "
            f"{pr['permutations']} shuffles; the digits alone: {pr['digits_mae']:.0f})")
    if beats_shuffled and beats_digits:
        tail = ("so its hidden states hold the year as a quantity, beyond the identity of its "
                "digit tokens")
    elif beats_shuffled:
        tail = ("so its hidden states hold the year, but no better than a read-out of its digit "
                "tokens")
    else:
        tail = "so no year can be read from its hidden states"
    return f"{head}: {tail}"


def gate_text(a: dict) -> str:
    """The gate's verdict for one model, with its interval over names."""
    g = a["gate"]
    return (f"{a['model']} {'passes' if g['verdict'] == 'passes' else 'does not do the task'}: "
            f"it puts {g['p']:.3f} (95% interval over {g['names']} names {g['ci_low']:.3f}–"
            f"{g['ci_high']:.3f}, {g['trials']} trials) on the person "
            "born in P")


# --------------------------------------------------------------------------- one passing model

def analyse(a: dict, cfg: dict, does_similarity: bool) -> dict:
    """Every analysis of the protocol for one model that passed its gate, from its rows.

    The n-sweep with Theorem 3 (similarity at n = 2 with uniform probes is its first cell, no
    gate) and the temperature sweep; and only for a model that does similarity where a
    resolution would show (``does_similarity``, judged on the near design by
    :func:`semres.experiments.llm.near.competence`), the kernel read from its choices with its
    exponential-with-floor fit.
    """
    model = a["model"]
    rows = a["rows"]
    sweep = sweep_table(rows[rows.source.isin(["gate", "n-sweep"])])
    sim2 = rows[(rows.task == "similarity") & (rows.n.astype(int) == 2) &
                (rows.source == "n-sweep")]
    out = {"model": model, "sweep": sweep, "theorem3": theorem3(sweep),
           "uniform": _interval(masses(sim2), sim2, p0=0.5),
           "does_similarity": bool(does_similarity),
           "temperature": temperature_sweep(rows, cfg["lm_temperatures"])}
    out["peak"], out["trades"] = years.tradeoff(out["temperature"])
    if not out["does_similarity"]:
        return out
    kernel = choice_kernel(rows)
    try:
        kfit = years.fit_shape(kernel.distance, kernel.g, "exp_floor",
                               se=kernel.g * kernel.log_g_se)
    except ValueError as err:  # too few points, or no decay to fit a kernel to
        kfit = {"error": str(err).split(":")[0]}
    out.update(kernel=kernel, kernel_fit=kfit)
    return out


def tables(results: dict) -> dict:
    """The protocol's tables over every model that passed, for ``report.table``: the n-sweep
    with Theorem 3 (``lm_n_sweep``), the temperature sweep (``lm_temperature``) and, for the
    models that do similarity, the kernel read from their choices (``lm_kernel``)."""
    def stack(key, get):
        parts = [get(r).assign(model=m) for m, r in results.items() if key in r]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    return {"lm_n_sweep": stack("theorem3", lambda r: r["theorem3"]["table"]),
            "lm_temperature": stack("temperature", lambda r: r["temperature"]),
            "lm_kernel": stack("kernel", lambda r: r["kernel"])}


def similarity_text(r: dict) -> str:
    g = r["uniform"]
    return (f"asked who was born closest to a year drawn uniformly at n = 2, {r['model']} puts "
            f"{g['p']:.3f} (95% interval over {g['names']} {g['unit']} {g['ci_low']:.3f}–"
            f"{g['ci_high']:.3f}, {g['trials']} trials) on the nearer person: uniform probes "
            "mostly land far from both people, where any finite resolution answers at chance")


def theorem3_text(r: dict) -> str:
    """Theorem 3 on one model's n-sweep, in words: both predictions, their p-values (Holm),
    and the largest miss with the n it belongs to."""
    t3 = r["theorem3"]
    fit = t3["fit"]
    ns = ", ".join(map(str, t3["n"]))
    adj = t3["p_adjusted"]
    if "identification" not in adj:
        ide = (f"one ball measure b = {t3['b']:.3f} is fitted to its identification at n = {ns}, "
               "with no test of whether it describes it")
    elif adj["identification"] >= ALPHA:
        ide = (f"one ball measure b = {t3['b']:.3f} describes its identification at n = {ns} "
               f"({pvalue(adj['identification'])} after Holm's adjustment; goodness of fit "
               f"{gof_pvalue(fit)})")
    else:
        ide = (f"no single ball measure describes its identification at n = {ns} (b = "
               f"{t3['b']:.3f}: goodness of fit {gof_pvalue(fit)}, "
               f"{pvalue(adj['identification'])} after Holm's adjustment, below {ALPHA:g})")
    if "similarity" not in adj:
        return ide
    verdict = "predicts" if adj["similarity"] >= ALPHA else "does not predict"
    return (f"{ide}; it {verdict} its similarity ({pvalue(adj['similarity'])} after Holm's "
            f"adjustment; the largest miss {t3['max_gap']:+.3f} at n = {t3['max_z_n']}, z = "
            f"{t3['max_z'] * np.sign(t3['max_gap']):+.1f}; a miss of "
            f"{t3['detectable']:.3f} would be detected with 80 % power)")


def kernel_text(r: dict) -> str:
    if not r["does_similarity"]:
        return f"{r['model']} does not do the similarity task, so its choices carry no kernel"
    k, f = r["kernel"], r["kernel_fit"]
    near = (f"a person born {k.distance.iloc[1]:.0f} years from the probe weighs "
            f"{number(k.g.iloc[1], figures=2)} of one {k.distance.iloc[0]:.0f} years from it"
            if len(k) > 1
            else "only one distance was measured")
    if "error" in f:
        return (f"read from {r['model']}'s own choices, {near}; no exponential with a floor "
                f"was fitted ({f['error']})")
    far = k[k.distance >= 100]
    gfar = (f"; beyond 100 years it keeps {number(far.g.min(), figures=2)}–"
            f"{number(far.g.max(), figures=2)} of that weight"
            if len(far) else "")
    fit = (f"an exponential with a floor describes it (λ = {f['lambda']:.0f} years, Δ = "
           f"{number(f['floor'], figures=2)}: a resolution λ ln(1/Δ) = {f['resolution']:.0f} "
           "years)"
           if not f["misfit"] else
           f"an exponential with a floor does not describe it (goodness of fit "
           f"{gof_pvalue(f)}; its best λ ln(1/Δ) would be "
           f"{f['resolution']:.0f} years)")
    return f"read from {r['model']}'s own choices, {near}{gfar}; {fit}"


def temperature_text(r: dict) -> str:
    t = r["temperature"]
    if not r["does_similarity"]:
        return (f"Sharpening {r['model']}'s probabilities moves p_I from {t.p_i.iloc[-1]:.3f} "
                f"(T = {t.temperature.iloc[-1]:g}) to {t.p_i.iloc[0]:.3f} (T = "
                f"{t.temperature.iloc[0]:g}) while p_S stays between {t.p_s.min():.3f} and "
                f"{t.p_s.max():.3f}: with no similarity there is nothing to trade.")
    cold, top = t.iloc[0], t.iloc[r["peak"]]
    if r["trades"]:
        return (f"Sharpening {r['model']}'s own probabilities trades: p_S peaks at "
                f"{top.p_s:.3f} at T = {top.temperature:g} and falls to {cold.p_s:.3f} at "
                f"T = {cold.temperature:g}, while p_I stays at {cold.p_i:.3f}.")
    return (f"Sharpening {r['model']}'s own probabilities does not trade: p_S is highest at "
            f"the coldest temperature, or its fall is within two standard errors (T = "
            f"{cold.temperature:g}: p_S = {cold.p_s:.3f}, p_I = {cold.p_i:.3f}).")


# --------------------------------------------------------------------------- figures

def _plt():
    import matplotlib.pyplot as plt

    return plt, plotting


def fig_gates(assessed: dict):
    """Every causal LM: the gate and the question asked backwards (left), what a linear
    read-out recovers of the year from each layer (right)."""
    plt, splot = _plt()
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
        prof = a["probe"]["profile"]
        depth = prof.layer / max(prof.layer.max(), 1)
        axes[1].plot(depth, prof.mae, color=color, marker=".")
        axes[1].plot(depth, prof.shuffled_mae_q05, color=color, ls=":", lw=1)
        axes[1].axhline(prof.digits_mae.iloc[0], color=color, ls="--", lw=1)
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
    return fig


def fig_protocol(results: dict, near_results: dict):
    """The protocol on the models that pass: success against n with Theorem 3; each model on
    the (p_I, p_S) plane, measured and as its similarity fitted on the near design predicts,
    against Theorem 2's front at its fitted floor; the temperature on the same plane; and the
    kernel read from the choices of the models that do similarity (a panel only when one
    does)."""
    plt, splot = _plt()
    with_kernel = [r for r in results.values() if r["does_similarity"]]
    fig, axes = splot.subplots(2, 2, figsize=(9, 7.6))
    ax_n, ax_d, ax_t, ax_k = axes.ravel()
    for k, r in enumerate(results.values()):
        color = splot.CYCLE[(k + 2) % len(splot.CYCLE)]
        t = r["theorem3"]["table"]
        for task, marker, ls in (("identification", "o", "-"), ("similarity", "s", "--")):
            sub = t[t.task == task].sort_values("n")
            ax_n.errorbar(sub.n, sub.p, yerr=[sub.p - sub.ci_low, sub.ci_high - sub.p],
                          fmt=marker, color=color, capsize=2, label=f"{r['model']}: {task}")
            ax_n.plot(sub.n, sub.theory, color=color, ls=ls, lw=1)
        own = r["temperature"].set_index("temperature").loc[1.0]
        ax_d.errorbar([own.p_i], [own.p_s], xerr=[2 * own.p_i_se], yerr=[2 * own.p_s_se],
                      fmt="o", color=color, capsize=2, label=f"{r['model']}: measured")
        nr = near_results.get(r["model"], {})
        if nr.get("does"):
            fl = nr["front"]["relative_floor"]
            b = np.linspace(0, 1, 300)
            ps, pi = theory.two_item(b, delta=fl)
            ax_d.plot(pi, ps, color=color, lw=1, ls="--",
                      label=f"front at its floor ({fl:.2f})")
            ax_d.plot([own.p_i], [nr["front"]["p_s"]], "s", mfc="white", color=color,
                      label=f"{r['model']}: $p_S$ its kernel predicts")
        temps = r["temperature"]
        ax_t.errorbar(temps.p_i, temps.p_s, xerr=2 * temps.p_i_se, yerr=2 * temps.p_s_se,
                      fmt="o-", color=color, ms=4, lw=0.8, capsize=2,
                      label=f"{r['model']}, T = {temps.temperature.min():g}…"
                            f"{temps.temperature.max():g}")
        if not r["does_similarity"]:
            continue
        kern = r["kernel"]
        low, high = np.exp(kern.log_g - 2 * kern.log_g_se), np.exp(kern.log_g + 2 * kern.log_g_se)
        ax_k.errorbar(kern.distance + 1, kern.g, yerr=[kern.g - low, high - kern.g], fmt="o",
                      color=color, ms=4, capsize=2, label=f"{r['model']}, from choices")
        kf = r["kernel_fit"]
        if "error" not in kf:
            dd = np.geomspace(1, kern.distance.max() + 1, 200)
            ax_k.plot(dd, years.shape_kernel("exp_floor", kf)(dd - 1), color=color, lw=1)
    nn = np.array(sorted({n for r in results.values() for n in r["theorem3"]["n"]}), float)
    ax_n.plot(nn, 1 / nn, color=splot.THEORY_ALT, ls=":", label="$1/n$ (chance)")
    ax_n.set(xscale="log", yscale="log", xlabel="number of people $n$",
             ylabel="success (mass on the correct answer)",
             title="$p_I^n$, $p_S^n$ and Theorem 3 (lines)")
    ax_n.set_xticks(nn)
    ax_n.xaxis.set_major_formatter(plt.ScalarFormatter())
    ax_n.xaxis.set_minor_formatter(plt.NullFormatter())
    p_line = np.linspace(0.5, 1, 200)
    ax_d.plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1, label="front (Theorem 1)")
    ax_d.set(xlabel="$p_I$ ($n = 2$)", ylabel="$p_S$ ($n = 2$)",
             title="on the front, uniform probes")
    ax_t.plot(p_line, theory.front(p_line), color=splot.THEORY, lw=1, label="front (Theorem 1)")
    ax_t.set(xlabel="$p_I$ ($n = 2$)", ylabel="$p_S$ ($n = 2$)", title="along the temperature")
    if with_kernel:
        ax_k.set(xscale="log", yscale="log", xlabel="distance from the probe + 1 (years)",
                 ylabel="weight relative to the nearest", title="kernel from the choices")
    else:
        fig.delaxes(ax_k)
    splot.legend_outside(fig, [ax for ax in axes.ravel() if ax in fig.axes], ncol=2)
    return fig




def report_results(report, assessed: dict, protocol: dict, near_results: dict) -> None:
    """The overview rows of the causal LMs, in the book's status vocabulary: every model's gate;
    the near design's rows (:func:`semres.experiments.llm.near_page.report_rows`); and for the
    models that pass the gate, Theorem 3 across n, the kernel from the choices and the
    temperature tradeoff of those that do similarity, and each one's points on the (p_I, p_S)
    plane: measured, and with the p_S its fitted similarity predicts."""
    for a in assessed.values():
        ok = a["gate"]["verdict"] == "passes"
        report.result(f"{a['model']}: identification at n = 2 (competence gate)",
                      gate_text(a), headline=a["gate"]["p"],
                      ci=(a["gate"]["ci_low"], a["gate"]["ci_high"]), passed=ok, does_task=ok,
                      kind="precondition", stand_in=LM_STAND_IN)
        if not ok:
            report.not_run(f"{a['model']}: Theorem 3 across n",
                           f"not run, because {a['model']} does not identify a person by "
                           "birth year", stand_in=LM_STAND_IN)
    near_page.report_rows(report, near_results)
    for m, r in protocol.items():
        t3, sim_ok = r["theorem3"], r["does_similarity"]
        report.result(f"{m}: Theorem 3 across n", theorem3_text(r), headline=t3["b"],
                      passed=t3["within"], detectable=t3["detectable"], matters=MISS_MATTERS,
                      new=True, stand_in=LM_STAND_IN)
        own = r["temperature"].set_index("temperature").loc[1.0]
        report.point(f"{m} (n = 2)", own.p_i, own.p_s, own.p_i_se, own.p_s_se)
        if not sim_ok:
            continue
        kf = r.get("kernel_fit", {})
        if "error" in kf:  # no decay in the binned kernel: nothing to judge
            report.not_run(f"{m}: kernel read from its choices (exponential + floor)",
                           kernel_text(r), stand_in=LM_STAND_IN)
        else:
            report.result(f"{m}: kernel read from its choices (exponential + floor)",
                          kernel_text(r), headline=kf.get("resolution"), passed=True,
                          misfit=bool(kf.get("misfit")), new=True, stand_in=LM_STAND_IN)
        report.result(f"{m}: tradeoff along the temperature", temperature_text(r),
                      passed=r["trades"], new=True, stand_in=LM_STAND_IN)
        front = near_results[m]["front"]
        report.point(f"{m}, p_S its fitted kernel predicts (n = 2)", own.p_i, front["p_s"],
                     own.p_i_se, front["p_s_se"])


# ------------------------------------------------------------ which models, and what they are

def available(models: str, *, strict: bool) -> tuple[list, dict]:
    """The comma-separated ``models`` that resolve, and why the others do not.

    A model the reader asked for (``strict``) that cannot be found stops the chapter in one
    line; a default one whose packages are not installed is left out, and the chapter says so.
    """
    ok, skipped = [], {}
    for m in (x.strip() for x in str(models).split(",")):
        if not m:
            continue
        try:
            lm.resolve(m)
        except ValueError as err:
            if strict:
                raise
            skipped[m] = str(err)
        else:
            ok.append(m)
    return ok, skipped


def identity_row(model) -> dict:
    """One row of the models table: what the file says it is, and where it came from."""
    who = lm.identity(model)
    licence = who.get("licence") or who["file_licence"] or "not stated in the file"
    if who.get("licence") and who["file_licence"] and who["file_licence"] != who["licence"]:
        licence += f" (the file says {who['file_licence']})"
    return {"model": str(model), "the file's name for it": who["name"] or "—",
            "architecture": who["architecture"] or "—", "size": who["size_label"] or "—",
            "quantisation": who["quantisation"] or "—", "licence": licence,
            "packages": ", ".join(who.get("packages", [])) or "—",
            "sha256": (who.get("sha256") or "—")[:12]}


def models_text(identities, skipped: dict) -> str:
    """Which models ran, and which defaults were left out and why."""
    ran = ", ".join(identities.model) if len(identities) else "none"
    left = "; ".join(f"{m} was left out ({why})" for m, why in skipped.items())
    return f"this build ran {ran}" + (f"; {left}" if left else "")


def model_text(a: dict) -> str:
    """What one model does: the gate, the question asked backwards, its biases, its probe."""
    r, b = a["reverse"], a["gate"]["biases"]
    back = (f"asked backwards it {'does' if r['verdict'] == 'passes' else 'does not'} find the "
            f"year ({r['p']:.3f}, {r['ci_low']:.3f}–{r['ci_high']:.3f})")
    pos = b["position"]
    bias = (f"it puts {pos['p']:+.3f} ({pos['ci_low']:+.3f} to {pos['ci_high']:+.3f}) more "
            "mass on the first-listed person than an unbiased reader")
    if b["length"] is not None:
        ln = b["length"]
        bias += (f" and {ln['p']:+.3f} ({ln['ci_low']:+.3f} to {ln['ci_high']:+.3f}) on the "
                 "name of fewer tokens")
    return (f"{gate_text(a)}; {back}; {bias}, which the balanced design cancels in every "
            f"mean; {probe_text(a)}.")
