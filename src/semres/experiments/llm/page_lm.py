"""The causal LMs on the page: which ran and what they are, the gate, the protocol on the models
that pass, their figures, their tables, their sentences and their overview rows.

The science is in :mod:`.lm_protocol` (with :mod:`.competence` and :mod:`.near`); this module
says what it found.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from semres.report import plotting as splot
from semres.report import numbers
from semres.report.numbers import carried, mathify, pooled
from semres.core import theory
from semres.report.verdicts import gof_pvalue
from semres.report import ALPHA

from . import kernel_fits, lm_protocol, models, page_near, verdicts
from .page_near import LM_STAND_IN
from .settings import NAMES
from .verdicts import fit_numbers, scalars

__all__ = ["gate_table", "identity_row", "models_text", "model_details", "gate_text",
           "gate_statement", "probe_text", "mass_text", "similarity_text", "theorem3_text",
           "theorem3_statement", "kernel_text", "temperature_text", "temperature_statement",
           "protocol_summary", "fig_gates",
           "fig_protocol", "protocol_tables", "report_results", "publish_gates",
           "publish_protocol", "gate_numbers", "details_numbers", "protocol_numbers", "FAR"]

#: the kernel read from the choices: how far it is said to keep its weight beyond (years)
FAR = 100


def _sentence(report, name: str, text: str, cites=None) -> None:
    """Glue a sentence for ``{glue:md}`` (plain weight, its math typeset), not as bold text,
    with the numbers of the row it describes (``cites``)."""
    report.text(name, mathify(text), markdown=True, cites=cites)


def gate_table(assessed: dict):
    """One row per model and question (the gate, the question asked backwards)."""
    rows = []
    for a in assessed.values():
        for key, question, source in (("gate", "who was born in P? (n = 2)", "gate"),
                                      ("reverse", "when was X born? (n = 2)",
                                       "reverse question")):
            g = a[key]
            greedy = lm_protocol.greedy(a["rows"][a["rows"].source == source])
            rows.append({"model": a["model"], "question": question, "p": g["p"],
                         "ci_low": g["ci_low"], "ci_high": g["ci_high"],
                         "greedy": float(greedy.mean()),
                         "p_value": g["p_value"], "verdict": g["verdict"], "trials": g["trials"],
                         "names": g["names"],
                         "dtype": a["dtype"]})
    return pd.DataFrame(rows)


def identity_row(model) -> dict:
    """One row of the models table: what the file says it is, and where it came from."""
    who = models.identity(model)
    licence = who.get("licence") or who["file_licence"] or "not stated in the file"
    if who.get("licence") and who["file_licence"] and who["file_licence"] != who["licence"]:
        licence += f" (the file says {who['file_licence']})"
    return {"model": str(model), "the file's name for it": who["name"] or "—",
            "architecture": who["architecture"] or "—", "size": who["size_label"] or "—",
            "quantisation": who["quantisation"] or "—", "licence": licence,
            "packages": ", ".join(who.get("packages", [])) or "—",
            "sha256 (first 12 hex digits)": (who.get("sha256") or "—")[:12]}


def models_text(identities, skipped: dict) -> str:
    """Which models ran, and which defaults were left out and why."""
    ran = ", ".join(identities.model) if len(identities) else "none"
    left = "; ".join(f"{m} was left out ({why})" for m, why in skipped.items())
    return f"this build ran {ran}" + (f"; {left}" if left else "")


def model_details(a: dict) -> str:
    """What else one model does, beyond its gate: the question asked backwards, its biases
    (which the balanced design cancels) and what its hidden states hold of the year."""
    r, b = a["reverse"], a["gate"]["biases"]
    back = (f"asked backwards it {'does' if r['verdict'] == 'passes' else 'does not'} find the "
            f"year ({r['p']:.3f}, 95 % interval {r['ci_low']:.3f}–{r['ci_high']:.3f})")
    pos = b["position"]
    bias = (f"it puts {pos['p']:+.3f} ({pos['ci_low']:+.3f} to {pos['ci_high']:+.3f}) more "
            "mass on the first-listed person than an unbiased reader")
    if b["length"] is not None:
        ln = b["length"]
        bias += (f" and {ln['p']:+.3f} ({ln['ci_low']:+.3f} to {ln['ci_high']:+.3f}) on the "
                 "name of fewer tokens")
    return f"**{a['model']}:** {back}; {bias}; {probe_text(a)}."


def gate_statement(a: dict) -> str:
    """The gate's row in one line (its number and interval come with the row)."""
    verdict = "passes" if a["gate"]["verdict"] == "passes" else "fails"
    return (f"{a['model']} {verdict}: its mass on the person born in the asked year, two "
            "people listed, against chance (½)")


def mass_text(g: dict, unit: str, whom: str) -> str:
    """A model's mean mass on the right person, with its 95 % interval over the clusters it was
    resampled by (``unit``: names, lists of names) and its number of trials."""
    return (f"puts {g['p']:.3f} (95 % interval over {g['names']} {unit} {g['ci_low']:.3f}–"
            f"{g['ci_high']:.3f}, {g['trials']} trials) on {whom}")


def gate_text(a: dict) -> str:
    """The gate's verdict for one model, with its interval over names."""
    g = a["gate"]
    return (f"{a['model']} {'passes' if g['verdict'] == 'passes' else 'does not do the task'}: "
            f"it {mass_text(g, 'names', 'the person born in $P$')}")


def probe_text(a: dict) -> str:
    """What the probe shows for one model, and only that: it beats shuffled years at the book's
    level (:data:`semres.report.ALPHA`), and beats the digits alone when its interval against
    them lies below 0."""
    pr = a["probe"]
    vs = pr["vs_digits"]
    beats_shuffled = pr["p_value"] < ALPHA
    beats_digits = vs["ci_high"] < 0
    head = (f"a linear read-out of layer {pr['best_layer']} (of {pr['layers']}) puts the birth "
            f"year of people and decades it was not trained on within {pr['mae']:.0f} years on "
            f"average (shuffled years: {pr['shuffled_mae']:.0f}, {numbers.pvalue(pr['p_value'])} "
            f"over {pr['permutations']} shuffles; the digits alone: {pr['digits_mae']:.0f})")
    if beats_shuffled and beats_digits:
        tail = ("so its hidden states hold the year as a quantity, beyond the identity of its "
                "digit tokens")
    elif beats_shuffled:
        tail = ("so its hidden states hold the year, but no better than a read-out of its digit "
                "tokens")
    else:
        tail = "so no year can be read from its hidden states"
    return f"{head}: {tail}"


def similarity_text(r: dict) -> str:
    g = r["uniform"]
    return (f"asked who was born closest to a year drawn uniformly at $n = 2$, {r['model']} "
            f"{mass_text(g, g['unit'], 'the nearer person')}: uniform probes mostly land far "
            "from both people, where any finite resolution answers at chance")


def theorem3_text(r: dict) -> str:
    """Theorem 3 on one model's n-sweep, in words: both predictions, their p-values (Holm),
    and the largest miss with the n it belongs to."""
    t3 = r["theorem3"]
    v = verdicts.theorem3_verdict(t3)
    fit = t3["fit"]
    ns = ", ".join(map(str, t3["n"]))
    adj = v["p_adjusted"]
    if "identification" not in adj:
        ide = (f"one ball measure b = {t3['b']:.3f} is fitted to its identification at n = {ns}, "
               "with no test of whether it describes it")
    elif adj["identification"] >= ALPHA:
        ide = (f"one ball measure b = {t3['b']:.3f} describes its identification at n = {ns} "
               f"({numbers.pvalue(adj['identification'])} after Holm's adjustment; goodness of "
               f"fit {gof_pvalue(fit)})")
    else:
        ide = (f"no single ball measure describes its identification at n = {ns} (b = "
               f"{t3['b']:.3f}: goodness of fit {gof_pvalue(fit)}, "
               f"{numbers.pvalue(adj['identification'])} after Holm's adjustment, below "
               f"{ALPHA:g})")
    if "similarity" not in adj:
        return ide
    verdict = "predicts" if adj["similarity"] >= ALPHA else "does not predict"
    return (f"{ide}; it {verdict} its similarity ({numbers.pvalue(adj['similarity'])} after "
            f"Holm's adjustment; the largest miss {t3['max_gap']:+.3f} at n = {t3['max_z_n']}, z = "
            f"{t3['max_z'] * np.sign(t3['max_gap']):+.1f}; a miss of "
            f"{v['detectable']:.3f} would be detected with 80 % power)")


def kernel_text(r: dict) -> str:
    if not r["does_similarity"]:
        return f"{r['model']} does not do the similarity task, so its choices carry no kernel"
    k, f = r["kernel"], r["kernel_fit"]
    near = (f"a person born {k.distance.iloc[1]:.0f} years from the probe weighs "
            f"{numbers.number(k.g.iloc[1], figures=2)} of one {k.distance.iloc[0]:.0f} years from it"
            if len(k) > 1
            else "only one distance was measured")
    if "error" in f:
        return (f"read from {r['model']}'s own choices, {near}; no exponential with a floor "
                f"was fitted ({f['error']})")
    far = k[k.distance >= FAR]
    gfar = (f"; beyond {FAR} years it keeps {numbers.number(far.g.min(), figures=2)}–"
            f"{numbers.number(far.g.max(), figures=2)} of that weight"
            if len(far) else "")
    fit = (f"an exponential with a floor describes it ($\\lambda =$ {f['lambda']:.0f} years, "
           f"$\\Delta =$ {numbers.number(f['floor'], figures=2)}: a resolution "
           f"$\\lambda\\ln(1/\\Delta) =$ {f['resolution']:.0f} years)"
           if not f["misfit"] else
           f"an exponential with a floor does not describe it (goodness of fit "
           f"{gof_pvalue(f)}; its best $\\lambda\\ln(1/\\Delta)$ would be "
           f"{f['resolution']:.0f} years)")
    return f"read from {r['model']}'s own choices, {near}{gfar}; {fit}"


def temperature_text(r: dict) -> str:
    """What sharpening or flattening one model's probabilities does on the (p_I, p_S) plane
    (MyST)."""
    t = r["temperature"]
    if not r["does_similarity"]:
        return (f"Sharpening {r['model']}'s probabilities moves $p_I$ from {t.p_i.iloc[-1]:.3f} "
                f"($T =$ {t.temperature.iloc[-1]:g}) to {t.p_i.iloc[0]:.3f} ($T =$ "
                f"{t.temperature.iloc[0]:g}) while $p_S$ stays between {t.p_s.min():.3f} and "
                f"{t.p_s.max():.3f}: with no similarity there is nothing to trade.")
    peak, trades = verdicts.tradeoff(t)
    cold, top = t.iloc[0], t.iloc[peak]
    if trades:
        return (f"Sharpening {r['model']}'s own probabilities trades: $p_S$ peaks at "
                f"{top.p_s:.3f} at $T =$ {top.temperature:g} and falls to {cold.p_s:.3f} at "
                f"$T =$ {cold.temperature:g}, while $p_I$ stays at {cold.p_i:.3f}.")
    return (f"Sharpening {r['model']}'s own probabilities does not trade: $p_S$ is highest at "
            f"the coldest temperature, or its fall is within two standard errors ($T =$ "
            f"{cold.temperature:g}: $p_S =$ {cold.p_s:.3f}, $p_I =$ {cold.p_i:.3f}).")


def temperature_statement(r: dict) -> str:
    """The temperature row in one line."""
    if verdicts.tradeoff(r["temperature"])[1]:
        return "sharpening its own probabilities trades: p_S turns down on cooling, p_I holds"
    return ("sharpening its own probabilities does not trade: p_S does not turn down on "
            "cooling by more than two standard errors")


def theorem3_statement(r: dict) -> str:
    """Theorem 3's row in one line (b comes with the row): does one ball measure fitted to
    identification describe it, and predict similarity, at every n?"""
    t3 = r["theorem3"]
    adj = verdicts.theorem3_verdict(t3)["p_adjusted"]
    ns = ", ".join(map(str, t3["n"]))
    ide = ("is fitted to its identification, untested" if "identification" not in adj else
           "describes its identification" if adj["identification"] >= ALPHA else
           "does not describe its identification")
    sim = ("" if "similarity" not in adj else
           " and predicts its similarity" if adj["similarity"] >= ALPHA else
           " and does not predict its similarity")
    return (f"one ball measure b {ide}{sim} at n = {ns} (tests at {100 * ALPHA:g} %, "
            "Holm-adjusted)")


def protocol_summary(r: dict) -> str:
    """One model's protocol in one sentence for the page (MyST)."""
    v = verdicts.theorem3_verdict(r["theorem3"])
    trades = verdicts.tradeoff(r["temperature"])[1]
    u = r["uniform"]
    law = "meets" if v["within"] else "misses"
    return (f"**{r['model']}** puts {u['p']:.3f} on the nearer person for a uniform probe at "
            f"$n = 2$; Theorem 3 {law} its success across $n$, and sharpening its "
            f"probabilities {'trades' if trades else 'does not trade'} $p_S$ for $p_I$.")


def gate_numbers(a: dict) -> dict:
    """What :func:`gate_text` quotes of one model's gate."""
    g = a["gate"]
    return {**{k: g[k] for k in ("p", "ci_low", "ci_high", "names", "trials")},
            **carried(a["model"])}


def details_numbers(a: dict) -> dict:
    """What :func:`model_details` quotes: the question asked backwards, the biases and the
    probe of one model."""
    return {**scalars({k: a[k] for k in ("reverse", "probe")}),
            **scalars(a["gate"]["biases"], "biases"), **carried(a["model"])}


def protocol_numbers(r: dict, near_r: dict) -> dict:
    """What one model's paragraph of the protocol quotes (:func:`similarity_text`,
    :func:`~semres.experiments.llm.page_near.front_text`, :func:`theorem3_text`,
    :func:`kernel_text`, :func:`temperature_text`, :func:`protocol_summary`): the uniform
    probes, the predicted p_S, Theorem 3 with its Holm-adjusted p-values and the miss it
    detects, the kernel read from the choices and the temperatures."""
    t3, t = r["theorem3"], r["temperature"]
    v = verdicts.theorem3_verdict(t3)
    out = {**scalars(r["uniform"], "uniform"), **scalars(near_r.get("front", {}), "front"),
           **scalars({k: w for k, w in t3.items() if k != "table"}, "theorem3"),
           **scalars(v["p_adjusted"], "holm"), "detectable": v["detectable"],
           **carried(r["model"])}
    peak = verdicts.tradeoff(t)[0]
    for where, row in (("cold", t.iloc[0]), ("warm", t.iloc[-1]), ("peak", t.iloc[peak])):
        out.update(scalars(row[["temperature", "p_s", "p_i"]].to_dict(), where))
    out.update(p_s_min=t.p_s.min(), p_s_max=t.p_s.max())
    if r.get("does_similarity"):
        k = r["kernel"]
        far = k[k.distance >= FAR]
        out.update(far=FAR, **scalars(list(k.distance.iloc[:2]), "distance"),
                   **scalars(list(k.g.iloc[:2]), "g"),
                   **scalars([far.g.min(), far.g.max()] if len(far) else [], "g_far"))
        out.update({**fit_numbers(r["kernel_fit"]), "one": 1})
    return out


def fig_gates(assessed: dict):
    """Every causal LM: the gate and the question asked backwards (left), what a linear
    read-out recovers of the year from each layer (right)."""
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
            ax_k.plot(dd, kernel_fits.shape_kernel("exp_floor", kf)(dd - 1), color=color, lw=1)
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





def protocol_tables(results: dict) -> dict:
    """The protocol's tables over every model that passed, for ``report.table``: the n-sweep
    with Theorem 3 (``lm_n_sweep``), the temperature sweep (``lm_temperature``) and, for the
    models that do similarity, the kernel read from their choices (``lm_kernel``)."""
    def stack(key, get):
        parts = [get(r).assign(model=m) for m, r in results.items() if key in r]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    return {"lm_n_sweep": stack("theorem3", lambda r: r["theorem3"]["table"]),
            "lm_temperature": stack("temperature", lambda r: r["temperature"]),
            "lm_kernel": stack("kernel", lambda r: r["kernel"])}


def report_results(report, assessed: dict, protocol: dict, near_results: dict) -> None:
    """The overview rows of the causal LMs, in the book's status vocabulary: every model's gate;
    the near design's rows (:func:`semres.experiments.llm.page_near.report_rows`); and for the
    models that pass the gate, Theorem 3 across n, the kernel from the choices and the
    temperature tradeoff of those that do similarity, and each one's points on the (p_I, p_S)
    plane: measured, and with the p_S its fitted similarity predicts."""
    for a in assessed.values():
        ok = a["gate"]["verdict"] == "passes"
        report.result(f"{a['model']}: identification at n = 2 (competence gate)",
                      gate_statement(a), headline=a["gate"]["p"],
                      ci=(a["gate"]["ci_low"], a["gate"]["ci_high"]), passed=ok, does_task=ok,
                      kind="precondition", stand_in=LM_STAND_IN)
        if not ok:
            report.not_run(f"{a['model']}: Theorem 3 across n",
                           f"not run, because {a['model']} does not identify a person by "
                           "birth year", stand_in=LM_STAND_IN)
    page_near.report_rows(report, near_results)
    for m, r in protocol.items():
        t3, sim_ok = r["theorem3"], r["does_similarity"]
        v = verdicts.theorem3_verdict(t3)
        report.result(f"{m}: Theorem 3 across n", theorem3_statement(r), headline=t3["b"],
                      passed=v["within"], detectable=v["detectable"],
                      matters=verdicts.MISS_MATTERS,
                      new=True, stand_in=LM_STAND_IN)
        own = r["temperature"].set_index("temperature").loc[1.0]
        report.point(f"{m} (n = 2)", own.p_i, own.p_s, own.p_i_se, own.p_s_se)
        if not sim_ok:
            continue
        kf = r.get("kernel_fit", {})
        if "error" in kf:  # no decay in the binned kernel: nothing to judge
            report.not_run(f"{m}: kernel read from its choices (exponential + floor)",
                           f"not run, because {kf['error']}", stand_in=LM_STAND_IN)
        else:
            report.result(f"{m}: kernel read from its choices (exponential + floor)",
                          "an exponential with a floor fitted to the kernel read from its "
                          "choices: its resolution lambda ln(1/Delta)",
                          headline=kf.get("resolution"),
                          passed=True,
                          misfit=bool(kf.get("misfit")), new=True, stand_in=LM_STAND_IN)
        report.result(f"{m}: tradeoff along the temperature", temperature_statement(r),
                      passed=verdicts.tradeoff(r["temperature"])[1], new=True,
                      stand_in=LM_STAND_IN)
        front = near_results[m]["front"]
        report.point(f"{m}, p_S its fitted kernel predicts (n = 2)", own.p_i, front["p_s"],
                     own.p_i_se, front["p_s_se"])


def publish_gates(report, assessed: dict, skipped: dict, rows) -> None:
    """Which causal LMs ran (and which defaults were left out, ``skipped``), every scored trial
    (``rows``, ``lm_trials``), the gate and the question asked backwards (``lm_gate``), the
    probe (``lm_probe``), their figure and their sentences (the gate on the page, the rest for
    a dropdown). Where each file comes from is the book's models page."""
    identities = pd.DataFrame([identity_row(m) for m in assessed])
    report.table(rows, "lm_trials")  # every scored trial, with the exact prompt the model read
    report.table(gate_table(assessed), "lm_gate")
    report.table(pd.concat([a["probe"]["profile"] for a in assessed.values()], ignore_index=True)
                 if assessed else pd.DataFrame(), "lm_probe")
    if assessed:
        report.figure("lms", fig_gates(assessed))
    _sentence(report, "lm_list", models_text(identities, skipped))
    report.number("n_names", len(NAMES))
    report.text("lm_verdict", mathify(" ".join(gate_text(a) + "." for a in assessed.values()))
                or "No causal LM ran in this build.", markdown=True,
                cites=pooled(*map(gate_numbers, assessed.values())))
    report.text("lm_details", mathify("\n\n".join(model_details(a) for a in assessed.values()))
                or "No causal LM ran in this build.", markdown=True,
                cites=pooled(*map(details_numbers, assessed.values())))


def publish_protocol(report, protocol: dict, near_results: dict, lm_ns) -> None:
    """The protocol on the models that pass: its tables (:func:`protocol_tables`), its figure,
    the n it ran at, one paragraph per model for a dropdown and one sentence each for the page
    (:func:`protocol_summary`)."""
    for name, table in protocol_tables(protocol).items():
        report.table(table, name)
    if protocol:
        report.figure("lm_protocol", fig_protocol(protocol, near_results))
    report.text("lm_ns", ", ".join(map(str, lm_ns)), cites=scalars(list(lm_ns)))
    said = pooled(*(protocol_numbers(r, near_results[m]) for m, r in protocol.items()))
    report.text("lm_protocol_text", mathify("\n\n".join(
        f"**{m}.** {similarity_text(r)[0].upper()}{similarity_text(r)[1:]}. "
        f"{page_near.front_text(near_results[m], r['uniform'])} Against $n$: "
        f"{theorem3_text(r)}. "
        f"Its kernel: {kernel_text(r)}. {temperature_text(r)}"
        for m, r in protocol.items())) or "No causal LM passed its gate in this build.",
        markdown=True, cites=said)
    report.text("lm_protocol_summary", " ".join(
        protocol_summary(r) for r in protocol.values())
        or "No causal LM passed its gate in this build, so none gets the protocol.",
        markdown=True, cites=said)
