"""Answers from elsewhere (any model's per-trial rows, the authors' released files) as accuracy
against n and two-reference counts, which the chapter's analyses treat as its own."""

from __future__ import annotations

import numpy as np
import pandas as pd

from semres.core.results import choice_index, correct_mask, split_list
from semres.experiments import released

from .two_reference import two_reference_counts


def results_by_n(df):
    """Accuracy per model, task and n (the paper's: correct among answers naming a listed
    option; the others are nulls)."""
    if df.empty:
        raise ValueError("df: no rows")
    ch = choice_index(df)
    ok = [bool(m[c]) if c >= 0 else False for m, c in zip(correct_mask(df), ch)]
    t = pd.DataFrame({"model": df.model.to_numpy(), "source": df.source.to_numpy(),
                      "task": df.task.to_numpy(), "n": df.n.astype(int).to_numpy(),
                      "answered": ch >= 0, "ok": ok})
    out = (t.groupby(["model", "source", "task", "n"])
           .agg(trials=("answered", "sum"), correct=("ok", "sum"),
                nulls=("answered", lambda a: int((~a).sum()))).reset_index())
    out["p"] = out.correct / out.trials.where(out.trials > 0)
    out["se"] = np.sqrt(out.p * (1 - out.p) / out.trials.where(out.trials > 0))
    return out


def two_reference_from_results(df):
    """Two-option similarity rows on the year line as two-reference counts."""
    sel = ((df.task == "similarity") & (df.n.astype(int) == 2) & (df.space == "years")).to_numpy()
    if not sel.any():
        return None
    sub = df[sel]
    pos = np.array([[float(v) for v in split_list(p)] for p in sub.position])
    probe = sub.probe.astype(float).to_numpy()
    ch = choice_index(sub)
    mask = correct_mask(sub)
    correct = np.array([float(m[c]) if c >= 0 else np.nan for m, c in zip(mask, ch)])
    # a probe exactly on the centre is a tie: both options count as correct, no information
    centre = pos.mean(1)
    return two_reference_counts(np.round(centre, 6), np.abs(pos[:, 1] - pos[:, 0]) / 2,
                                probe - centre, correct)


def external_answers(shipped: list, counts: list, curves: list, tidy_rows):
    """Accuracy by (model, task, n) and two-reference counts per model from every source the
    encoder did not produce: the shipped tables, the authors' files, and tidy per-trial rows."""
    cols = ["model", "source", "task", "n", "trials", "correct"]
    ext_n, ext_ref = [], {}
    for name in shipped:
        tab = released.load_table(name)
        if name == "llm_n":
            ext_n.append(tab.assign(trials=tab.answered)[cols])
        else:  # means over centres: one pseudo-centre, so no interval over centres
            for m, sub in tab.groupby("model"):
                ext_ref[m] = pd.DataFrame({"centre": 0.0, "D": sub.D.astype(float),
                                           "offset": sub.offset.astype(float),
                                           "trials": sub.prompts.astype(float),
                                           "correct": sub.p_correct_mean * sub.prompts}).dropna()
    for tab in counts:  # the authors' n-sweep pickles, read by released.gather
        ext_n.append(tab.assign(trials=tab.answered)[cols])
    for long in curves:  # their resolution pickles
        long = long.dropna(subset=["p_correct"])
        if len(long):
            ext_ref[long.model.iloc[0]] = pd.DataFrame({
                "centre": long.centre.astype(float), "D": long.D, "offset": long.offset,
                "trials": long.nrep.astype(float), "correct": long.p_correct * long.nrep})
    if tidy_rows is not None and len(tidy_rows):
        ext_n.append(results_by_n(tidy_rows)[cols])
        for m, sub in tidy_rows.groupby("model"):
            c = two_reference_from_results(sub)
            if c is not None and (c.offset.abs() > c.D).any():
                ext_ref[m] = c
    ext_n = pd.concat(ext_n, ignore_index=True) if ext_n else pd.DataFrame(columns=cols)
    ext_n = ext_n.groupby(["model", "task", "n"], as_index=False).agg(
        source=("source", "first"), trials=("trials", "sum"), correct=("correct", "sum"))
    ext_n["p"] = ext_n.correct / ext_n.trials.where(ext_n.trials > 0)
    ext_n["se"] = np.sqrt(ext_n.p * (1 - ext_n.p) / ext_n.trials.where(ext_n.trials > 0))
    return ext_n, ext_ref
