"""Chapter 5's result tables, shaped from the analyses' outputs."""

from __future__ import annotations

import math
from importlib.resources import files

import numpy as np
import pandas as pd

from semres.core.fits import GOF_KEYS

from . import lm_protocol, near, verdicts
from .settings import NAME_POOL

#: the columns of ``resolution_by_window.csv``
WINDOW_COLUMNS = ["model", "measure", "window", "resolution", "ci_low", "ci_high", "headline",
                  "at_bound", "boot_at_bound", "gof_p", "misfit"]
#: the headers of the tables the page shows, in words with units
HEADERS = {"shape": "Shape", "heldout_rmse": "Held-out error (RMSE of ln <i>g</i>)",
           "heldout_se": "Its standard error", "resolution": "Resolution (years)",
           "half_decay": "Half-decay λ ln 2 (years)",
           "half_decay_ci_low": "Half-decay's 95 % interval from (years)",
           "half_decay_ci_high": "to (years)",
           "floor": "Floor Δ (weight)", "at_bound": "Fit on a bound of its range",
           "measure": "Measure", "window": "Window <i>w</i> (years)",
           "ci_low": "95 % interval from (years)", "ci_high": "to (years)",
           "boot_at_bound": "Resampled fits on a bound (share)",
           "gof_p": "Goodness-of-fit <i>p</i>-value", "misfit": "Fails its goodness-of-fit test",
           "task": "Question", "n": "People listed <i>n</i>",
           "p": "Success (mass on the correct people)", "se": "Its standard error",
           "p_theory": "Engine's prediction (probability)",
           "theory_se": "Its standard error"}


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
                         "names": g["names"], "look": g["look"], "looks": g["looks"],
                         "stopped": g["stopped"], "planned_trials": g["planned"],
                         "dtype": a["dtype"]})
    return pd.DataFrame(rows)


def extend(r: dict, *, gof_boot: int, seed) -> dict:
    """``r`` of :func:`lm_protocol.analyse` with Theorem 3 in both forms, the rates against
    chapter 7's floor bound and, for a kernel read from choices, its interval."""
    r["theorem3_forms"] = verdicts.theorem3_forms(r["sweep"], gof_boot=gof_boot, seed=seed)
    r["floor_bound"] = verdicts.floor_bound_table(r["theorem3_forms"]["floor"], r["sweep"])
    if r.get("does_similarity") and "error" not in r.get("kernel_fit", {"error": ""}):
        r["kernel_ci"] = verdicts.kernel_interval(r["kernel"], seed=seed)
    return r


def protocol_tables(results: dict) -> dict:
    """The protocol's tables over every model that passed, for ``report.table``."""
    def stack(key, get):
        parts = [get(r).assign(model=m) for m, r in results.items() if key in r]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    return {"lm_n_sweep": stack("sweep", lambda r: r["sweep"]),
            "lm_theorem3": stack("theorem3_forms", lambda r: theorem3_table(r["theorem3_forms"])),
            "lm_floor_bound": stack("floor_bound", lambda r: r["floor_bound"]),
            "lm_temperature": stack("temperature", lambda r: r["temperature"]),
            "lm_kernel": stack("kernel", lambda r: r["kernel"])}


def theorem3_table(forms: dict) -> pd.DataFrame:
    """Theorem 3 in both forms cell by cell, one table."""
    return pd.concat([f["table"].assign(form="with a floor" if f["floor"] else "no floor",
                                        b=f["b"], delta=f["delta"])
                      for f in forms.values()], ignore_index=True)


def slug(model: str) -> str:
    """A model's name as part of a file name."""
    return "".join(c if c.isalnum() else "_" for c in str(model)).strip("_").lower()


def bias_table(assessed: dict) -> pd.DataFrame:
    """Position and length bias of every causal LM on the gate's trials."""
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


def bias_rows(results: dict) -> pd.DataFrame:
    """The pull towards the first-listed person on the near design, as :func:`bias_table`."""
    return pd.DataFrame([{"model": m, "bias": "position, near design",
                          "measure": "mass on the first-listed person − 1/2",
                          "value": r["position"]["p"], "ci_low": r["position"]["ci_low"],
                          "ci_high": r["position"]["ci_high"],
                          "trials": r["position"]["trials"]} for m, r in results.items()])


def fits_table(results: dict) -> pd.DataFrame:
    """Every shape fitted to every model that does similarity, for ``near_fits.csv``."""
    parts = [r["fits"] for r in results.values() if "fits" in r]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def blind_spots(cfg, seed, floor: float = 0.05, reaches=(10, 20), D: float = 20,
                close=(1, 5)) -> dict:
    """:func:`near.blind_spot` for exponentials reaching ``floor`` within each of ``reaches``
    years, with the design's numbers."""
    lo, hi = cfg.sweep_years
    spots = [near.blind_spot(r, floor, (lo, hi), trials=cfg.front_trials, seed=seed, D=D,
                             close=range(close[0], close[1] + 1)) for r in reaches]
    return {"year_lo": lo, "year_hi": hi, "floor": floor, "reach0": reaches[0],
            "reach1": reaches[1], "apart": 2 * D, "close0": close[0], "close1": close[1],
            "uniform0": spots[0][0], "uniform1": spots[1][0], "near0": spots[0][1],
            "near1": spots[1][1]}


def sizing(r: dict, target: float = 1.5) -> dict:
    """How wide the resolution's interval came out against the ``target`` factor and, when
    wider, the pairs and trials the target would take (an interval narrows as one over the
    square root of the pairs); {} without a resolution."""
    if not r["does"] or "best" not in r:
        return {}
    b = r["best"]
    est, lo, hi = b["half_decay"], b["half_decay_ci_low"], b["half_decay_ci_high"]
    if b["upper_bound"] or not (est > 0 and lo > 0 and np.isfinite(hi)):
        return {"target": target}
    spread = max(hi / est, est / lo)
    more = (math.log(spread) / math.log(target)) ** 2
    return {"target": target, "spread": spread, "more": more, "pairs": b["pairs"],
            "trials": b["trials"], "need": math.ceil(more * b["pairs"]),
            "need_trials": math.ceil(more * b["trials"]), "names": len(NAME_POOL),
            "lift": r["competence"]["above"]["p"] - 0.5}


#: the `paper` profile's near design as ``benchmarks/near_resolution.py --record`` wrote it
PAPER_NEAR = "near_paper.csv"


def paper_near() -> pd.DataFrame:
    """The `paper` profile's near design, run outside the book (too slow for it on two cores),
    with the factor its half-decay's interval reaches (``spread``); empty without a record."""
    try:
        rec = pd.read_csv(files("semres") / "data" / PAPER_NEAR)
    except FileNotFoundError:
        return pd.DataFrame()
    est, lo, hi = rec.half_decay, rec.half_decay_ci_low, rec.half_decay_ci_high
    return rec.assign(spread=np.maximum(hi / est, est / lo), minutes=rec.seconds / 60,
                      pool=len(NAME_POOL))


def fit_table(model: str, shape_fits: dict, shape_df, two_fit: dict, cfg):
    """``fit.csv``: every fit of the chapter's encoder (a ``misfit`` row is no measurement)."""
    keep = ("resolution", "floor", "at_bound", "bound_params", *GOF_KEYS)
    heldout = shape_df.set_index("shape").heldout_rmse
    rows = [{"model": model, "measure": f"kernel {s}", "window": int(cfg.fit_max),
             "lambda": f.get("lambda"), **{k: f.get(k) for k in keep},
             "heldout_rmse": float(heldout[s]), "ci_low": np.nan, "ci_high": np.nan}
            for s, f in shape_fits.items()]
    rows.append({"model": model, "measure": "two-reference fit",
                 "window": int(np.abs(cfg.offsets).max()), "lambda": two_fit["lambda"],
                 **{k: two_fit.get(k) for k in keep}, "heldout_rmse": np.nan,
                 "ci_low": two_fit["ci_low"], "ci_high": two_fit["ci_high"]})
    return pd.DataFrame(rows)

