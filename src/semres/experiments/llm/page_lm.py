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
from semres.core.fits import quasi_interval
from semres.report.numbers import as_number
from semres.report.verdicts import gof_pvalue
from semres.report import ALPHA

from . import kernel_fits, lm_protocol, models, page_near, verdicts
from .page_near import LM_STAND_IN
from .settings import NAMES
from .verdicts import fit_numbers, scalars

__all__ = ["gate_table", "identity_row", "models_text", "model_details", "gate_text",
           "gate_statement", "probe_text", "mass_text", "similarity_text", "theorem3_text",
           "trend_text", "kernel_row", "extend", "kernel_text", "temperature_text",
           "temperature_statement", "protocol_summary", "fig_gates",
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


def _t3_status(r: dict, form: str) -> str:
    """The status of Theorem 3 in ``form`` ("free" or "floor") on one model, as its row has it."""
    fit = r["theorem3_forms"][form]
    return verdicts.grid_status(verdicts.theorem3_grid(fit, r["sweep"]),
                                verdicts.theorem3_common(fit), new=form == "floor")


def _t3_words(fit: dict, sweep, state: str) -> str:
    """One form of Theorem 3 in words: its parameters, its largest miss and its fit's size."""
    q = verdicts.theorem3_params(fit)
    cells = verdicts.theorem3_grid(fit, sweep)
    worst = max(cells, key=lambda c: max(abs(c["ci"][0]), abs(c["ci"][1])))
    par = f"$b =$ {q['b']:.3f} [{q['b_ci'][0]:.3f}, {q['b_ci'][1]:.3f}]"
    if fit["floor"]:
        par += (f" and a floor $\\Delta =$ {q['delta']:.3f} [{q['delta_ci'][0]:.3f}, "
                f"{q['delta_ci'][1]:.3f}]")
    verdict = {"reproduced": "meets every cell within 0.05",
               "holds": "meets every cell within 0.05",
               "does not hold": "misses a cell by more than 0.05",
               "inconclusive": "cannot be told within 0.05 of every cell"}.get(state, state)
    return (f"{par} {verdict} (largest miss {worst['headline']:+.3f} [{worst['ci'][0]:+.3f}, "
            f"{worst['ci'][1]:+.3f}] at {worst['cell'].replace('n = ', '$n =$ ')}; goodness of "
            f"fit {gof_pvalue(fit)}, dispersion {fit['dispersion']:.1f}, root-mean-square gap "
            f"{fit['rms_gap']:.3f} against {fit['rms_sampling']:.3f} from sampling alone)")


def theorem3_text(r: dict) -> str:
    """Theorem 3 on one model's n-sweep, in words: the paper's floor-free form and the form
    with a floor, each fitted to both tasks, and the measured rates against chapter 7's floor
    bound at the fitted floor."""
    forms = r["theorem3_forms"]
    ns = ", ".join(map(str, sorted(set(r["sweep"].n))))
    return (f"fitted to both tasks at $n =$ {ns}, Theorem 3 without a floor "
            f"{_t3_words(forms['free'], r['sweep'], _t3_status(r, 'free'))}; with a floor, "
            f"{_t3_words(forms['floor'], r['sweep'], _t3_status(r, 'floor'))}. "
            f"{verdicts.floor_bound_text(r['model'], r['floor_bound'])}")


def _trend(r: dict) -> dict:
    """The trend test on the kernel read from the choices (``kernel_trend`` of
    :func:`lm_protocol.analyse`, or the ``trend_*`` keys of the kernel fit): its verdict and
    numbers, with ``estimate``, ``ci_low``, ``ci_high`` and ``p_value``; {} without one."""
    t = r.get("kernel_trend")
    if not isinstance(t, dict):
        kf = r.get("kernel_fit", {})
        t = {k[len("trend_"):]: v for k, v in kf.items() if k.startswith("trend_")}
        if "decays" in kf:
            t["decays"] = kf["decays"]
    if "decays" not in t:
        return {}
    t = dict(t)
    t.setdefault("estimate", t.get("slope"))
    t.setdefault("p_value", t.get("p"))
    return t


def trend_text(r: dict, near_r: dict | None = None) -> str:
    """Whether the kernel read from the choices decays with distance, by the trend test, and
    whether the near design's finding confirms it, and if not why (``trend_agreement`` of
    :func:`lm_protocol.analyse` where it gives one); empty without a test."""
    t = _trend(r)
    if not t:
        return ""
    nums = [t.get(k) for k in ("estimate", "ci_low", "ci_high")]
    said = (f" (trend {nums[0]:+.3f} [{nums[1]:+.3f}, {nums[2]:+.3f}]"
            if all(as_number(v) is not None for v in nums) else "")
    if said and as_number(t.get("p_value")) is not None:
        said += f", {numbers.pvalue(t['p_value'])}"
    said += ")" if said else ""
    head = ("by a trend test its weight falls with distance" if t["decays"] else
            "a trend test finds no fall of its weight with distance")
    agreement = r.get("trend_agreement")
    if isinstance(agreement, dict) and agreement.get("why"):
        return f"{head}{said}; set beside the near design, {agreement['why']}"
    if near_r is None or "competence" not in near_r:
        return head + said
    near_decays = bool(near_r["competence"]["decay"]["ci_low"] > 0)
    if near_decays == bool(t["decays"]):
        return head + said + ("; the near design agrees, its mass near a person exceeding its "
                              "mass far away" if near_decays else
                              "; the near design agrees, finding no fall either")
    return head + said + ("; the near design disagrees: its mass near a person exceeds its mass "
                          "far away, a test on probes a few years from a person, where the "
                          "kernel read from uniform probes pools distant bins"
                          if near_decays else
                          "; the near design disagrees, finding no fall near a person: the "
                          "two analyse different probes")


def kernel_text(r: dict, near_r: dict | None = None) -> str:
    if not r["does_similarity"]:
        return f"{r['model']} does not do the similarity task, so its choices carry no kernel"
    k, f = r["kernel"], r["kernel_fit"]
    near = (f"a person born {k.distance.iloc[1]:.0f} years from the probe weighs "
            f"{numbers.number(k.g.iloc[1], figures=2)} of one {k.distance.iloc[0]:.0f} years "
            "from it"
            if len(k) > 1
            else "only one distance was measured")
    trend = trend_text(r, near_r)
    trend = f"; {trend}" if trend else ""
    if "error" in f:
        return (f"read from {r['model']}'s own choices, {near}{trend}; no exponential with a "
                f"floor was fitted ({f['error']})")
    far = k[k.distance >= FAR]
    gfar = (f"; beyond {FAR} years it keeps {numbers.number(far.g.min(), figures=2)}–"
            f"{numbers.number(far.g.max(), figures=2)} of that weight"
            if len(far) else "")
    back = f.get("chance_return", f["resolution"])
    half = f.get("half_decay", f["lambda"] * np.log(2))
    measures = (f"it halves within $\\lambda\\ln 2 =$ {half:.0f} years and returns to chance "
                f"at $\\lambda\\ln(1/\\Delta) =$ {back:.0f} years")
    fit = (f"an exponential with a floor describes it ($\\lambda =$ {f['lambda']:.0f} years, "
           f"$\\Delta =$ {numbers.number(f['floor'], figures=2)}: {measures})"
           if not f["misfit"] else
           f"an exponential with a floor does not describe it (goodness of fit "
           f"{gof_pvalue(f)}; at its best {measures})")
    return f"read from {r['model']}'s own choices, {near}{gfar}{trend}; {fit}"


def temperature_text(r: dict) -> str:
    """What sharpening or flattening one model's probabilities does on the (p_I, p_S) plane
    (MyST), by :func:`verdicts.turn_finding`."""
    t = r["temperature"]
    if not r["does_similarity"]:
        return (f"Sharpening {r['model']}'s probabilities moves $p_I$ from {t.p_i.iloc[-1]:.3f} "
                f"($T =$ {t.temperature.iloc[-1]:g}) to {t.p_i.iloc[0]:.3f} ($T =$ "
                f"{t.temperature.iloc[0]:g}) while $p_S$ stays between {t.p_s.min():.3f} and "
                f"{t.p_s.max():.3f}: with no similarity there is nothing to trade.")
    f = verdicts.turn_finding(t)
    return (f"Sharpening {r['model']}'s own probabilities {verdicts.turn_words(f)} ($p_I$ "
            f"{f['cold_pi']:.3f} at $T =$ {f['cold_T']:g}).")


def temperature_statement(r: dict) -> str:
    """The temperature row in one line (its turn and interval come with the row)."""
    f = verdicts.turn_finding(r["temperature"])
    return (f"the fall of p_S on cooling from its peak (T = {f['peak_T']:g}) to T = "
            f"{f['cold_T']:g}, against a quarter of its advantage above chance; a fall this "
            f"test detects with 80 % power: {f['detectable']:.3f}")


def _trades(r: dict) -> str:
    """"trades", "does not trade" or "may or may not trade" (the turn's status)."""
    state = verdicts.turn_finding(r["temperature"])["status"]
    return {"holds": "trades", "does not hold": "does not trade"}.get(
        state, "cannot be told to trade or not to trade")


def protocol_summary(r: dict) -> str:
    """One model's protocol in one sentence for the page (MyST)."""
    u = r["uniform"]
    words = {"reproduced": "meets", "holds": "meets", "does not hold": "misses",
             "inconclusive": "cannot be told to meet or miss"}
    free, floor = (words.get(_t3_status(r, f), _t3_status(r, f)) for f in ("free", "floor"))
    return (f"**{r['model']}** puts {u['p']:.3f} on the nearer person for a uniform probe at "
            f"$n = 2$; Theorem 3 without a floor {free} its success across $n$ within 0.05, "
            f"with a floor it {floor} it, and sharpening its probabilities {_trades(r)} $p_S$ "
            "for $p_I$.")


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
    probes, the predicted p_S, both forms of Theorem 3 with their cells and the floor bound,
    the kernel read from the choices with its trend test, and the temperatures."""
    t = r["temperature"]
    out = {**scalars(r["uniform"], "uniform"), **scalars(near_r.get("front", {}), "front"),
           **carried(r["model"]), "margin": verdicts.MISS_MATTERS, "eighty": 80}
    for form, fit in r.get("theorem3_forms", {}).items():
        out.update(scalars({k: v for k, v in fit.items() if k != "table"}, f"t3.{form}"))
        out.update(scalars(verdicts.theorem3_params(fit), f"t3q.{form}"))
        for c in verdicts.theorem3_grid(fit, r["sweep"]):
            out.update(scalars(c, f"t3c.{form}.{c['cell']}"))
    out.update(scalars(sorted(set(r["sweep"].n)), "ns"))
    fb = r.get("floor_bound")
    if fb is not None and len(fb):
        out.update(scalars(fb.drop(columns=["within"]).to_dict("list"), "bound"))
        out.update(values=len(fb), held=int(fb.within.sum()), seven=7)
    for where, row in (("cold", t.iloc[0]), ("warm", t.iloc[-1])):
        out.update(scalars(row[["temperature", "p_s", "p_i"]].to_dict(), where))
    out.update(p_s_min=t.p_s.min(), p_s_max=t.p_s.max(), two=2)
    if r.get("does_similarity"):
        out.update(verdicts.turn_numbers(verdicts.turn_finding(t)))
        k = r["kernel"]
        far = k[k.distance >= FAR]
        out.update(far=FAR, **scalars(list(k.distance.iloc[:2]), "distance"),
                   **scalars(list(k.g.iloc[:2]), "g"),
                   **scalars([far.g.min(), far.g.max()] if len(far) else [], "g_far"),
                   **scalars(_trend(r), "trend"),
                   **scalars(near_r.get("competence", {}).get("trend") or {}, "near_trend"))
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
        t = r["sweep"]
        forms = r["theorem3_forms"]
        for task, marker in (("identification", "o"), ("similarity", "s")):
            sub = t[t.task == task].sort_values("n")
            ax_n.errorbar(sub.n, sub.p, yerr=[sub.p - sub.ci_low, sub.ci_high - sub.p],
                          fmt=marker, color=color, capsize=2, label=f"{r['model']}: {task}")
            for form, ls in (("floor", "-"), ("free", ":")):
                th = forms[form]["table"]
                th = th[th.task == task].sort_values("n")
                ax_n.plot(th.n, th.theory, color=color, ls=ls, lw=1,
                          label=(f"Theorem 3 {'with a floor' if form == 'floor' else 'no floor'}"
                                 if k == 0 and task == "similarity" else None))
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
    nn = np.array(sorted({n for r in results.values() for n in r["sweep"].n}), float)
    ax_n.plot(nn, 1 / nn, color=splot.THEORY_ALT, ls=":", label="$1/n$ (chance)")
    ax_n.set(xscale="log", yscale="log", xlabel="number of people $n$",
             ylabel="success (mass on the correct answer)",
             title="$p_I^n$, $p_S^n$ and Theorem 3 (solid: with a floor)")
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





def extend(r: dict, *, gof_boot: int, seed) -> dict:
    """What the page reports of one model's protocol beyond :func:`lm_protocol.analyse`:
    Theorem 3 fitted to both tasks across n with and without its floor
    (:func:`verdicts.theorem3_forms`, ``gof_boot`` refits where chi-square does not apply),
    the measured rates against chapter 7's floor bound at the fitted floor
    (:func:`verdicts.floor_bound_table`) and, for a model whose choices carry a kernel, the
    approximate interval of its return-to-chance distance (:func:`verdicts.kernel_interval`).
    Every draw is named from ``seed``. Returns ``r``, extended."""
    r["theorem3_forms"] = verdicts.theorem3_forms(r["sweep"], gof_boot=gof_boot, seed=seed)
    r["floor_bound"] = verdicts.floor_bound_table(r["theorem3_forms"]["floor"], r["sweep"])
    if r.get("does_similarity") and "error" not in r.get("kernel_fit", {"error": ""}):
        r["kernel_ci"] = verdicts.kernel_interval(r["kernel"], seed=seed)
    return r


def protocol_tables(results: dict) -> dict:
    """The protocol's tables over every model that passed, for ``report.table``: the n-sweep
    (``lm_n_sweep``), Theorem 3 in both forms cell by cell (``lm_theorem3``) and the measured
    rates against chapter 7's floor bound at the fitted floor (``lm_floor_bound``), the
    temperature sweep (``lm_temperature``) and, for the models that do similarity, the kernel
    read from their choices (``lm_kernel``)."""
    def stack(key, get):
        parts = [get(r).assign(model=m) for m, r in results.items() if key in r]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    def both_forms(r):
        return pd.concat([f["table"].assign(form="with a floor" if f["floor"] else "no floor",
                                            b=f["b"], delta=f["delta"])
                          for f in r["theorem3_forms"].values()], ignore_index=True)

    return {"lm_n_sweep": stack("sweep", lambda r: r["sweep"]),
            "lm_theorem3": stack("theorem3_forms", both_forms),
            "lm_floor_bound": stack("floor_bound", lambda r: r["floor_bound"]),
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
            report.not_run(f"{a['model']}: Theorem 3 across n (with and without its floor)",
                           f"not run, because {a['model']} does not identify a person by "
                           "birth year", stand_in=LM_STAND_IN)
    page_near.report_rows(report, near_results)
    for m, r in protocol.items():
        sim_ok = r["does_similarity"]
        ns = sorted(set(r["sweep"].n))
        for form, title in (("free", "Theorem 3 across n, without a floor (the paper's form)"),
                            ("floor", "Theorem 3 across n, with its floor")):
            fit = r["theorem3_forms"][form]
            report.grid_result(f"{m}: {title}", verdicts.theorem3_statement(fit, ns),
                               verdicts.theorem3_grid(fit, r["sweep"]),
                               f"theorem3_{form}_{_slug(m)}", new=form == "floor",
                               stand_in=LM_STAND_IN, **verdicts.theorem3_common(fit))
        own = r["temperature"].set_index("temperature").loc[1.0]
        report.point(f"{m} (n = 2)", own.p_i, own.p_s, own.p_i_se, own.p_s_se)
        if not sim_ok:
            continue
        kernel_row(report, m, r)
        turn = verdicts.turn_finding(r["temperature"])
        report.result(f"{m}: tradeoff along the temperature", temperature_statement(r),
                      **{k: turn[k] for k in ("headline", "ci", "margin", "margin_reason",
                                              "claim", "compared_with", "compared_with_label")},
                      new=True, stand_in=LM_STAND_IN)
        front = near_results[m]["front"]
        report.point(f"{m}, p_S its fitted kernel predicts (n = 2)", own.p_i, front["p_s"],
                     own.p_i_se, front["p_s_se"])


def _slug(model: str) -> str:
    """A model's name as part of a file name."""
    return "".join(c if c.isalnum() else "_" for c in str(model)).strip("_").lower()


def kernel_row(report, m: str, r: dict) -> None:
    """The kernel read from one model's choices, as a finding: its return-to-chance distance
    (lambda ln(1/Delta) of the exponential with a floor) against the paper's 70–80 years, with
    an approximate interval (:func:`verdicts.kernel_interval`); when the exponential does not
    describe the kernel, a misfit with its size (:func:`verdicts.kernel_fit_size`) and the
    interval widened by its dispersion."""
    kf = r.get("kernel_fit", {})
    title = f"{m}: kernel read from its choices (exponential + floor)"
    if "error" in kf:  # too few bins, or nothing to fit
        report.not_run(title, f"not run, because {kf['error']}", stand_in=LM_STAND_IN)
        return
    k = r["kernel"]
    back = kf.get("chance_return", kf.get("resolution"))
    ci = r.get("kernel_ci") or (np.nan, np.nan)
    try:
        size = verdicts.kernel_fit_size(k.distance, k.g, k.g * k.log_g_se, kf)
    except ValueError:  # fewer than three bins with a weight and an error
        size = {}
    misfit = bool(kf.get("misfit")) and bool(size)
    if misfit and np.isfinite(ci[0]) and np.isfinite(ci[1]):
        ci = quasi_interval(back, ci, size["dispersion"])
    if kf.get("misfit") and not misfit:
        report.not_run(title, "not run: the exponential with a floor fails its goodness of fit, "
                       "and too few bins say by how much", stand_in=LM_STAND_IN)
        return
    report.result(title, "where an exponential with a floor fitted to the kernel read from "
                  "its choices returns to chance, lambda ln(1/Delta) (approximate interval: "
                  "its bins redrawn from their standard errors), against the paper's 70–80 "
                  "years", headline=back, ci=ci, paper_value=verdicts.PAPER_RESOLUTION[0],
                  margin=verdicts.PAPER_RESOLUTION[1],
                  margin_reason=verdicts.PAPER_RESOLUTION_REASON, misfit=misfit,
                  fit_size=size or None, gof_p=kf.get("gof_p"), approximate=True,
                  stand_in=LM_STAND_IN)


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
        f"{theorem3_text(r)} "
        f"Its kernel: {kernel_text(r, near_results[m])}. {temperature_text(r)}"
        for m, r in protocol.items())) or "No causal LM passed its gate in this build.",
        markdown=True, cites=said)
    report.text("lm_protocol_summary", " ".join(
        protocol_summary(r) for r in protocol.values())
        or "No causal LM passed its gate in this build, so none gets the protocol.",
        markdown=True, cites=said)
