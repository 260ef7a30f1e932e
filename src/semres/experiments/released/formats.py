"""The formats of the paper authors' released files, and one adapter per format: each reads a
file into rows of this book's per-trial schema (plus ``experiment``, ``trial`` and
``scores_usable``), or, for the LLM pickles that hold aggregates only, counts and curves."""

from __future__ import annotations

import pickle
import re
import string
from pathlib import Path

import numpy as np
import pandas as pd

from semres.core import results as _results
from semres.experiments.vlm_shapes.settings import AUTHORS

REPOSITORY = "nplresearch/generalization"
CITATION = {
    "key": "nurisso2026bound",
    "text": ("Nurisso, M., Fernando, J., Deshpande, R., Perotti, A., Marjieh, R., "
             "Frankland, S. M., Lewis, R. L., Webb, T. W., Campbell, D., Vaccarino, F., "
             "Cohen, J. D., Petri, G. "
             "Bound by Semanticity: Universal Laws Governing the Generalization-Identification "
             "Tradeoff. ICLR 2026. arXiv:2506.14797"),
    "code": "https://github.com/nplresearch/generalization",
}
#: the commit each released file was read at (from the public code index)
COMMITS = {
    **{f"VLM_shapes/data/{name}": "2f4153202c308cb04473d2b218071a32c193659d" for name in (
        "spatial_resolution_gemma_results_far.csv", "spatial_resolution_qwen_results_far.csv",
        "random_stencil_gemma_results.csv", "random_stencil_qwen_results.csv",
        "color_similarity_gemma_results.csv", "color_similarity_qwen_results.csv",
        "color_identification_gemma_results.csv", "color_identification_qwen_results.csv")},
    **{f"LLM_dates/saved_results/experiment_{exp}_{m}_{tail}":
       "f93019c42443df7ed27ceb53ef5edfb26a46a309"
       for m in ("gemma-2-2b-it", "Llama-3.2-3B-Instruct", "Qwen2.5-7B-Instruct")
       for exp, tail in (("similarity", "year.pkl"), ("identification", "year.pkl"),
                         ("resolution_years", "small.pkl"))},
}
VLM_MODELS = {"gemma": "gemma-3-12b-it", "qwen": "Qwen2.5-VL-7B-Instruct"}
LLM_NBATCHES = 5                      # batches of nrep prompts per n in the authors' notebook
RESOLUTION_D = (2, 5, 20, 50, 100, 200)
RESOLUTION_OFFSETS = np.arange(-300, 300, 5)
SPATIAL_SHAPES = tuple(AUTHORS["layout"])
LETTERS = string.ascii_uppercase[:12]

_PATTERNS = (
    ("spatial", re.compile(r"spatial_resolution_(\w+?)_results\w*\.csv$")),
    ("spatial", re.compile(r"random_stencil_(\w+?)_results\w*\.csv$")),
    ("colour", re.compile(r"colou?r_(similarity|identification)_(\w+?)_results\w*\.csv$")),
    ("llm_counts", re.compile(r"experiment_(similarity|identification)_(.+)_year\.pkl$")),
    ("llm_resolution", re.compile(r"experiment_resolution_years_(.+)_small\.pkl$")),
)


def _match(path):
    """``(kind, match)`` of the first of the authors' names ``path`` bears; ``(None, None)``."""
    for kind, pat in _PATTERNS:
        m = pat.search(Path(path).name)
        if m:
            return kind, m
    return None, None


def kind_of(path) -> str | None:
    """Which adapter reads ``path``, by its name."""
    return _match(path)[0]


def model_of(path) -> str:
    """The model a released file holds, from its name (VLM short names mapped to hub names)."""
    if (m := _match(path)[1]) is None:
        raise ValueError(f"path: {Path(path).name!r} is not a released file this module knows")
    return VLM_MODELS.get(m.group(m.lastindex).lower(), m.group(m.lastindex))


def repo_path(path) -> str:
    """The file's path inside the authors' repository (or its name, if it is not under one)."""
    parts = Path(path).parts
    for top in ("VLM_shapes", "LLM_dates"):
        if top in parts:
            return "/".join(parts[parts.index(top):])
    return Path(path).name


def _read_raw(path, cols) -> pd.DataFrame:
    """An authors' CSV with its ``cols`` present and at least one row (errors name the file)."""
    raw = _results.read_csv(path, dtype={"answer": str}, keep_default_na=False)
    missing = [c for c in cols if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: lacks column(s) {', '.join(missing)} of the authors' "
                         f"{kind_of(path)} files")
    if raw.empty:
        raise ValueError(f"{path}: has a header but no rows")
    return raw


def _bad_cell(raw, bad, cols, path, expected: str) -> None:
    """Raise naming the first True cell of ``bad`` (rows x ``cols``) by file line and column."""
    if bad.any():
        i, j = np.argwhere(bad)[0]
        rows = int(bad.any(axis=1).sum())
        cell = raw[cols[j]].iat[i]
        raise ValueError(f"{path} line {i + 2}: column {cols[j]} "
                         f"{cell.item() if isinstance(cell, np.generic) else cell!r}: expected "
                         f"{expected}{f' ({rows - 1} more bad rows)' if rows > 1 else ''}")


def _numbers(raw, cols, path, integer: bool = False) -> np.ndarray:
    """Columns ``cols`` as floats, every cell a finite number (an integer, with ``integer``)."""
    cols = list(cols)
    num = raw[cols].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    bad = ~np.isfinite(num)
    if integer:
        bad |= ~bad & (num != np.round(np.nan_to_num(num)))
    _bad_cell(raw, bad, cols, path, "an integer" if integer else "a number")
    return num


def _fmt(v: float) -> str:
    return format(float(v), ".12g")


def _processed(values) -> bool:
    """Scores that generation post-processing made useless (non-finite, or |s| > 1e4)."""
    v = np.asarray(values, dtype=float)
    return bool(not np.isfinite(v).all() or (np.abs(v) > 1e4).any())


def _rows(path, raw, experiment, task, n, space, opts, position, probe, best, case, scores,
          usable, keep) -> pd.DataFrame:
    """One file's trials in the schema: per trial its options, their positions, the nearest
    (``best``), the answer when it names an option (after ``case``), and its scores when
    usable or kept."""
    answers = [case(str(a).strip().strip(".")) for a in raw["answer"]]
    return _results.validate(pd.DataFrame({
        "model": model_of(path), "source": repo_path(path), "task": task, "n": n, "space": space,
        "options": ["|".join(o) for o in opts], "position": ["|".join(p) for p in position],
        "probe": probe, "correct": ["|".join(x for x, b in zip(o, bs) if b)
                                    for o, bs in zip(opts, best)],
        "choice": [a if a in o else "" for a, o in zip(answers, opts)],
        "scores": ["|".join(map(_fmt, v)) if keep else "" for v in scores],
        "experiment": experiment, "trial": raw["ID"].to_numpy(), "scores_usable": usable}),
        where=str(path))


def read_spatial(path, keep_unusable_scores: bool = False) -> pd.DataFrame:
    """Per-trial rows from a four-shape file (``spatial_resolution_*_far``,
    ``random_stencil_*``)."""
    path = Path(path)
    cols = [f"D0{k}_{a}" for k in range(4) for a in ("X", "Y", "SHAPE")]
    raw = _read_raw(path, ["ID", "target_X", "target_Y", "answer", *cols, *SPATIAL_SHAPES])
    px = float(AUTHORS["canvas_px"])
    pos = _numbers(raw, [f"D0{k}_{a}" for k in range(4) for a in "XY"], path).reshape(-1, 4, 2)
    probe = _numbers(raw, ["target_X", "target_Y"], path)
    shape_cols = [f"D0{k}_SHAPE" for k in range(4)]
    names = raw[shape_cols].to_numpy(str)
    _bad_cell(raw, ~np.isin(names, SPATIAL_SHAPES), shape_cols, path,
              f"one of {', '.join(SPATIAL_SHAPES)}")
    d2 = ((pos - probe[:, None, :]) ** 2).sum(axis=2)          # exact: integer pixels
    score_cols = raw[list(SPATIAL_SHAPES)].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    usable = not _processed(score_cols)
    col_of = {s: i for i, s in enumerate(SPATIAL_SHAPES)}
    return _rows(path, raw, "random_stencil" if "random_stencil" in path.name else "spatial_far",
                 "similarity", 4, "canvas", [list(o) for o in names],
                 [[f"{_fmt(x / px)},{_fmt(y / px)}" for x, y in p] for p in pos],
                 [f"{_fmt(x / px)},{_fmt(y / px)}" for x, y in probe],
                 d2 == d2.min(axis=1, keepdims=True), str.lower,
                 [[score_cols[i, col_of[o]] for o in opts] for i, opts in enumerate(names)],
                 usable, usable or keep_unusable_scores)


def read_colour(path, keep_unusable_scores: bool = False) -> pd.DataFrame:
    """Per-trial rows from a colour file (``color_{similarity,identification}_*_results.csv``)."""
    path = Path(path)
    kind, m = _match(path)
    if kind != "colour":
        raise ValueError(f"path: {path.name!r} is not named as a colour file "
                         "(color_{similarity,identification}_*_results.csv)")
    hue_cols = [f"HUE_{c}" for c in LETTERS]
    raw = _read_raw(path, ["ID", "N_STENCILS", "target_col", "answer", *hue_cols, *LETTERS])
    ns = _numbers(raw, ["N_STENCILS"], path, integer=True)
    _bad_cell(raw, (ns < 2) | (ns > len(LETTERS)), ["N_STENCILS"], path,
              f"an integer in 2..{len(LETTERS)}")
    ns = ns[:, 0].astype(int)
    hues = _numbers(raw, hue_cols, path, integer=True).astype(int)
    _bad_cell(raw, (hues < 0) & (np.arange(len(LETTERS)) < ns[:, None]), hue_cols, path,
              "a hue in degrees >= 0 for each of the N_STENCILS patches")
    target = _numbers(raw, ["target_col"], path, integer=True)[:, 0].astype(int)
    letter_scores = raw[list(LETTERS)].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    scores = [letter_scores[i, :n] for i, n in enumerate(ns)]
    usable = not _processed(np.concatenate(scores))
    arcs = [np.abs(hues[i, :n] - target[i]) % 360 for i, n in enumerate(ns)]
    d = [np.minimum(a, 360 - a) for a in arcs]
    return _rows(path, raw, "colour", m.group(1), ns, "hue", [list(LETTERS[:n]) for n in ns],
                 [[_fmt(v / 360) for v in hues[i, :n]] for i, n in enumerate(ns)],
                 [_fmt(t / 360) for t in target], [x == x.min() for x in d], str.upper, scores,
                 usable, usable or keep_unusable_scores)


#: the adapter of each kind of released CSV (pickles hold no per-trial rows)
CSV_READERS = {"spatial": read_spatial, "colour": read_colour}
#: the kinds of the authors' pickles, and their names
PICKLES = ("llm_counts", "llm_resolution")
PICKLE_NAMES = ("experiment_{similarity,identification}_MODEL_year.pkl or "
                "experiment_resolution_years_MODEL_small.pkl")


def _load_pickle(path, trust_pickle: bool, keys) -> dict:
    """The dict a pickle holds, with its ``keys``; refused unless ``trust_pickle`` is True."""
    if trust_pickle is not True:
        raise ValueError(f"trust_pickle: refusing to unpickle {Path(path).name}: loading a "
                         f"pickle runs code from the file; pass trust_pickle=True only for a "
                         f"file you trust")
    with open(path, "rb") as f:
        try:
            data = pickle.load(f)
        except Exception as err:  # a damaged or foreign file fails in many ways
            raise ValueError(f"{path}: not a readable pickle ({type(err).__name__}: "
                             f"{str(err).splitlines()[0] if str(err) else 'no detail'})") from None
    if not isinstance(data, dict) or not set(keys) <= set(data):
        raise ValueError(f"{path}: expected a dict with {', '.join(keys)}; got "
                         f"{sorted(data) if isinstance(data, dict) else type(data).__name__}")
    return data


def read_llm_counts(path, trust_pickle: bool = False) -> pd.DataFrame:
    """Per-n counts from a similarity/identification pickle (aggregates only were saved)."""
    path = Path(path)
    data = _load_pickle(path, trust_pickle, ("performance", "n_nulls", "seq_lens", "nrep"))
    perf = np.asarray(data["performance"], dtype=float)
    nulls = np.asarray(data["n_nulls"], dtype=int)
    trials = int(data["nrep"]) * LLM_NBATCHES
    answered = trials - nulls
    if (answered < 0).any():
        raise ValueError(f"{path}: n_nulls exceed nrep x {LLM_NBATCHES} batches = {trials}")
    return pd.DataFrame({
        "model": model_of(path), "source": repo_path(path), "experiment": "years",
        "task": _match(path)[1].group(1), "n": np.asarray(data["seq_lens"], dtype=int),
        "bin": "all", "trials": trials, "answered": answered,
        "correct": np.rint(perf * answered).astype(int), "performance": perf, "n_nulls": nulls})


def read_llm_resolution(path, trust_pickle: bool = False) -> pd.DataFrame:
    """Long table of the two-reference curves: one row per (centre, D, probe)."""
    path = Path(path)
    data = _load_pickle(path, trust_pickle, ("performances", "ages_list", "nrep"))
    ages = np.asarray(data["ages_list"], dtype=float)
    ds = (ages[:, 1] - ages[:, 0]) / 2
    # pspace and ages_list are those of the last centre drawn: offsets are relative to it
    offsets = (np.asarray(data["pspace"], dtype=float) - ages[0].mean() if "pspace" in data
               else RESOLUTION_OFFSETS.astype(float))
    frames = []
    for centre, curves in data["performances"].items():
        for d, p_low in zip(ds, np.asarray(curves, dtype=float)):
            p_correct = np.where(offsets < 0, p_low, np.where(offsets > 0, 1 - p_low, np.nan))
            frames.append(pd.DataFrame({"centre": int(centre), "D": float(d), "offset": offsets,
                                        "probe": centre + offsets, "p_low": p_low,
                                        "p_correct": p_correct}))
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "nrep", int(data["nrep"]))
    out.insert(0, "source", repo_path(path))
    out.insert(0, "model", model_of(path))
    return out
