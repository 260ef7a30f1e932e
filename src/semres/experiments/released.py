"""The paper authors' released outputs, in this book's per-trial schema, and small derived tables.

The authors released per-trial outputs of the models the paper is about in the public repository
``nplresearch/generalization`` (Nurisso et al., ICLR 2026). That repository has no licence file, so
the book ships **no raw rows**: it ships counts derived from them (``src/semres/data/released/``,
read with :func:`load_table`) and a provenance record (:func:`provenance`: repository, path,
commit and sha256 of every source file, row counts, the citation). A reader with the files runs
the same adapters on them and gets the per-trial analyses.

Adapters (authors' format -> rows of :mod:`semres.core.results`, plus the extra columns
``experiment``, ``trial`` and ``scores_usable``):

- :func:`read_spatial` — ``VLM_shapes/data/spatial_resolution_{gemma,qwen}_results_far.csv``
  (experiment ``spatial_far``: square, triangle, heart, star at the corners of a 900 px canvas,
  stencils of 50 px centred 25 px from the edges, the red X anywhere) and
  ``random_stencil_{gemma,qwen}_results.csv`` (``random_stencil``: the same corners, shapes
  shuffled per scene). Space ``canvas``: pixel / 900, ``y`` down, as
  :data:`semres.experiments.vlm_shapes.scenes.AUTHORS`.
  Task ``similarity`` (which shape is closest to the X), n = 4.
- :func:`read_colour` — ``color_{similarity,identification}_{gemma,qwen}_results.csv``
  (experiment ``colour``): n = 4, 6, 8, 10, 12 lettered patches of fully saturated hues (integer
  degrees), a target patch (similarity: a random hue; identification: a copy of one patch). Space
  ``hue``: degrees / 360 on the circle; options are the letters ``A``... Not a canvas scene: the
  patches' places in the picture play no part in the task.
- :func:`read_llm_counts` — ``LLM_dates/saved_results/experiment_{similarity,identification}_*
  _year.pkl``: these hold per-n aggregates only (``performance`` = correct / answers naming a
  listed person, ``n_nulls``, ``seq_lens`` = 2, 4, ..., 98, ``nrep`` = 200 prompts per batch, 5
  batches per n in the authors' notebook, not saved). Per-trial rows cannot be rebuilt; the
  adapter returns counts (trials, answered, correct). The saved ``test_type`` is ``"id"`` in both
  files (the notebook overwrites the variable before saving), so the task is read from the name.
- :func:`read_llm_resolution` — ``experiment_resolution_years_*_small.pkl``: per centre (40,
  drawn in 1500-1699) and half-gap D in 2, 5, 20, 50, 100, 200, the fraction of parsed answers
  naming the person born in the *lower* year at 120 probes centre-300, ..., centre+295 (20
  prompts each; NaN where no answer parsed; the number parsed was not saved). Returned long:
  one row per (centre, D, probe) with ``p_low`` and ``p_correct`` (= ``p_low`` left of the
  centre, ``1 - p_low`` right of it, NaN at the centre, where both are equally close).

Pickles run code when loaded: the two pickle readers refuse (ValueError) unless called with
``trust_pickle=True``. The authors' pickles are binary and cannot be read from the public code
index this book was built from, so the LLM tables are not shipped; the readers are tested on
synthetic pickles of the structure their notebook (``LLM_dates/LLM_analysis.ipynb``) writes.

Known trap in the VLM files: Qwen2.5-VL's score columns are generation-processed (logits divided
by a 1e-6 temperature, ``-inf`` where top-k filtered, the chosen option's score overwritten), so
they are effectively 0/1. Files whose scores look like that (non-finite, or |score| > 1e4) get an
empty ``scores`` column and ``scores_usable = False`` (``keep_unusable_scores=True`` keeps them):
analyse those models' choices by likelihood, never their scores by least squares. Gemma-3's
columns are first-token logits of the option names (``scores_usable = True``).

Derived tables (``python -m semres.experiments.released derive --source DIR --out DIR``; shipped
ones:
:func:`tables`), all with ``model, source, experiment, task, n, bin, trials, answered, correct``:

- ``spatial_margin``: per margin bin (nearest-to-second-nearest distance gap, canvas units,
  width 0.05; ``bin_lo``, ``bin_hi``) with ``chose_<shape>`` counts.
- ``spatial_grid``: ``spatial_far`` only (fixed layout), per cell of a 6 x 6 grid over the X's
  position (``ix, iy, x_lo, x_hi, y_lo, y_hi``, the mean X ``x_mean, y_mean`` in canvas units)
  with ``chose_<shape>`` counts: enough to fit P(k) ∝ w_k g(d_k) with one weight per shape by
  multinomial likelihood (take the shapes at :data:`semres.experiments.vlm_shapes.scenes.AUTHORS`).
  The grid is coarse
  enough that every cell of the released files holds at least 6 trials: no row can be read back.
- ``spatial_confusion``: per nearest shape (``bin`` = its name; exact ties dropped), the
  ``chose_<shape>`` counts: the answer bias at a glance.
- ``spatial_corner``: per corner of the nearest shape (``bin``: ``top_left``, ...; ties
  dropped), ``chose_<corner>`` counts: a bias for a place, told apart from a bias for a name by
  ``random_stencil``, where the shapes change corners from scene to scene.
- ``colour_margin``: per task, n and hue-margin bin (width 0.01 of the hue circle) with
  ``chose_<letter>`` counts (letter position bias).
- ``llm_n`` (from pickles): per task and n, ``trials`` (nrep x 5), ``answered``, ``correct``
  and the released ``performance``.
- ``llm_resolution`` (from pickles): per D and probe offset (``bin``, years), ``centres`` with
  an answer, ``prompts`` (nrep x centres; parsed answers were not counted), ``p_low_mean``,
  ``p_correct_mean``.

``answered`` counts trials whose answer named one of the options; accuracy over all trials is
``correct / trials`` (unparsed answers count as wrong), over answers ``correct / answered``.

Shipped in this package (``provenance()`` lists the files with commit and sha256): the
``spatial_far`` files (400 scenes per model) and the ``random_stencil`` files (1000 per model),
copied from the public code index page by page and checked against the index's size and the
files' own distance columns. Not shipped: the colour files (1.8-2.3 MB each, beyond what can
be paged through the index in a session; a sample of 30-48 rows per end agrees with the
figures quoted in the issue) and the LLM pickles (binary, not stored as text in the index).

With the full files (``git clone https://github.com/nplresearch/generalization``):

- per-trial analyses: ``results=/path/to/generalization/VLM_shapes/data`` in a chapter (or
  :func:`gather` / :func:`load_results` in code) reads the raw CSVs through the adapters, and
  ``results=.../LLM_dates/saved_results`` with ``trust_pickle=True`` the LLM pickles; ``python
  -m semres.experiments.released convert --source .../VLM_shapes/data --out DIR`` writes them in the
  schema
  (keep such files local: the authors' repository has no licence);
- tables: ``python -m semres.experiments.released derive --source .../generalization
[--trust-pickle]``
  writes counts and provenance (colour and LLM tables included when those files are present)
  to ``_build/released``; ``--out src/semres/data/released`` replaces the shipped ones. Nothing
  is written unless every file was read, and never an empty provenance.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import re
import string
import sys
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

from semres.core import results as _results
from semres.core.book import build_dir
from semres.experiments.vlm_shapes.scenes import AUTHORS

__all__ = ["REPOSITORY", "CITATION", "COMMITS", "VLM_MODELS", "LLM_NBATCHES", "RESOLUTION_D",
           "TABLES", "kind_of", "model_of", "read_spatial", "read_colour", "read_llm_counts",
           "read_llm_resolution", "read_authors", "gather", "Gathered", "load_results",
           "find_files", "margins", "spatial_margin_table", "spatial_grid_table",
           "spatial_confusion_table", "spatial_corner_table", "colour_margin_table", "grid_design",
           "llm_n_table", "llm_resolution_table", "derive", "convert", "load_table", "provenance",
           "tables", "main"]

REPOSITORY = "nplresearch/generalization"
CITATION = {
    "key": "nurisso2026bound",
    "text": ("Nurisso, M., Fernando, J., Deshpande, R., Perotti, A., Marjieh, R., "
             "Frankland, S. M., "
             "Lewis, R. L., Webb, T. W., Campbell, D., Vaccarino, F., Cohen, J. D., Petri, G. "
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
SPATIAL_BIN, HUE_BIN, GRID = 0.05, 0.01, 6   # 6 x 6: every cell of the far files holds >= 6 trials
_DATA = "data/released"
#: the derived tables (:func:`derive`), each a CSV named after it
TABLES = ("spatial_margin", "spatial_grid", "spatial_confusion", "spatial_corner", "colour_margin",
          "llm_n", "llm_resolution")

_PATTERNS = (
    ("spatial", re.compile(r"spatial_resolution_(\w+?)_results\w*\.csv$")),
    ("spatial", re.compile(r"random_stencil_(\w+?)_results\w*\.csv$")),
    ("colour", re.compile(r"colou?r_(similarity|identification)_(\w+?)_results\w*\.csv$")),
    ("llm_counts", re.compile(r"experiment_(similarity|identification)_(.+)_year\.pkl$")),
    ("llm_resolution", re.compile(r"experiment_resolution_years_(.+)_small\.pkl$")),
)


def kind_of(path) -> str | None:
    """Which adapter reads ``path`` (by its name): spatial, colour, llm_counts, llm_resolution."""
    name = Path(path).name
    for kind, pat in _PATTERNS:
        if pat.search(name):
            return kind
    return None


def model_of(path) -> str:
    """The model a released file holds, from its name (VLM short names mapped to hub names)."""
    name = Path(path).name
    for kind, pat in _PATTERNS:
        m = pat.search(name)
        if m:
            short = m.group(m.lastindex)
            return VLM_MODELS.get(short.lower(), short)
    raise ValueError(f"path: {name!r} is not a released file this module knows")


def _repo_path(path) -> str:
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
        more = f" ({rows - 1} more bad rows)" if rows > 1 else ""
        cell = raw[cols[j]].iat[i]
        cell = cell.item() if isinstance(cell, np.generic) else cell
        raise ValueError(f"{path} line {i + 2}: column {cols[j]} {cell!r}: expected "
                         f"{expected}{more}")


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
    return bool((~np.isfinite(v)).any() or (np.abs(v) > 1e4).any())


def _rows(model, source, experiment, task, n, space, options, position, probe, correct, choice,
          scores, trial, usable, where) -> pd.DataFrame:
    df = pd.DataFrame({
        "model": model, "source": source, "task": task, "n": n, "space": space,
        "options": options, "position": position, "probe": probe, "correct": correct,
        "choice": choice, "scores": scores, "experiment": experiment, "trial": trial,
        "scores_usable": usable})
    return _results.validate(df, where=where)


def read_spatial(path, model: str | None = None, source: str | None = None,
                 keep_unusable_scores: bool = False) -> pd.DataFrame:
    """Per-trial rows from a four-shape file (``spatial_resolution_*_far`` or ``random_stencil_*``).

    Options are the four shapes in the file's ``D00``...``D03`` order with their centres;
    ``correct`` is every shape at the smallest distance (exact ties kept, distances from integer
    pixels); ``choice`` is the answer when it names a shape, else empty.
    """
    path = Path(path)
    cols = [f"D0{k}_{a}" for k in range(4) for a in ("X", "Y", "SHAPE")]
    raw = _read_raw(path, ["ID", "target_X", "target_Y", "answer", *cols, *SPATIAL_SHAPES])
    px = float(AUTHORS["canvas_px"])
    xy = _numbers(raw, [f"D0{k}_{a}" for k in range(4) for a in "XY"], path)
    pos = xy.reshape(len(raw), 4, 2)
    probe = _numbers(raw, ["target_X", "target_Y"], path)
    shape_cols = [f"D0{k}_SHAPE" for k in range(4)]
    names = raw[shape_cols].to_numpy(str)
    _bad_cell(raw, ~np.isin(names, SPATIAL_SHAPES), shape_cols, path,
              f"one of {', '.join(SPATIAL_SHAPES)}")
    d2 = ((pos - probe[:, None, :]) ** 2).sum(axis=2)          # exact: integer pixels
    best = d2 == d2.min(axis=1, keepdims=True)
    score_cols = raw[list(SPATIAL_SHAPES)].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    usable = not _processed(score_cols)
    experiment = "random_stencil" if "random_stencil" in path.name else "spatial_far"
    options, position, correct, choice, scores = [], [], [], [], []
    col_of = {s: i for i, s in enumerate(SPATIAL_SHAPES)}
    for i in range(len(raw)):
        opts = list(names[i])
        options.append("|".join(opts))
        position.append("|".join(f"{_fmt(x / px)},{_fmt(y / px)}" for x, y in pos[i]))
        correct.append("|".join(o for o, b in zip(opts, best[i]) if b))
        ans = str(raw["answer"].iat[i]).strip().strip(".").lower()
        choice.append(ans if ans in opts else "")
        keep = usable or keep_unusable_scores
        scores.append("|".join(_fmt(score_cols[i, col_of[o]]) for o in opts) if keep else "")
    return _rows(model or model_of(path), source or _repo_path(path), experiment, "similarity", 4,
                 "canvas", options,
                 position, [f"{_fmt(x / px)},{_fmt(y / px)}" for x, y in probe], correct, choice,
                 scores, raw["ID"].to_numpy(), usable, str(path))


def read_colour(path, model: str | None = None, task: str | None = None,
                source: str | None = None, keep_unusable_scores: bool = False) -> pd.DataFrame:
    """Per-trial rows from a colour file (``color_{similarity,identification}_*_results.csv``).

    Options are the first ``N_STENCILS`` letters with hue/360 as position; the probe is the
    target's hue; ``correct`` is every patch at the smallest circular hue distance (integer
    degrees, so exact ties are kept); ``choice`` is the answered letter if it is an option.
    """
    path = Path(path)
    if task is None:
        m = re.search(r"(similarity|identification)", path.name)
        if not m:
            raise ValueError(f"task: cannot tell the task from {path.name!r}; pass task=")
        task = m.group(1)
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
    usable = not _processed(np.concatenate([letter_scores[i, :n] for i, n in enumerate(ns)]))
    keep = usable or keep_unusable_scores
    options, position, correct, choice, scores = [], [], [], [], []
    for i, n in enumerate(ns):
        h = hues[i, :n]
        a = np.abs(h - target[i]) % 360
        d = np.minimum(a, 360 - a)
        opts = list(LETTERS[:n])
        options.append("|".join(opts))
        position.append("|".join(_fmt(v / 360) for v in h))
        correct.append("|".join(o for o, b in zip(opts, d == d.min()) if b))
        ans = str(raw["answer"].iat[i]).strip().strip(".").upper()
        choice.append(ans if ans in opts else "")
        scores.append("|".join(_fmt(v) for v in letter_scores[i, :n]) if keep else "")
    return _rows(model or model_of(path), source or _repo_path(path), "colour", task, ns, "hue",
                 options, position, [_fmt(t / 360) for t in target], correct, choice, scores,
                 raw["ID"].to_numpy(), usable, str(path))


#: the adapter of each kind of released CSV (pickles hold no per-trial rows)
_CSV_READERS = {"spatial": read_spatial, "colour": read_colour}


def _load_pickle(path, trust_pickle: bool):
    if trust_pickle is not True:
        raise ValueError(f"trust_pickle: refusing to unpickle {Path(path).name}: loading a "
                         f"pickle runs code from the file; pass trust_pickle=True only for a "
                         f"file you trust")
    with open(path, "rb") as f:
        try:
            return pickle.load(f)
        except Exception as err:  # a damaged or foreign file fails in many ways
            raise ValueError(f"{path}: not a readable pickle ({type(err).__name__}: "
                             f"{str(err).splitlines()[0] if str(err) else 'no detail'})") from None


def _array(data: dict, key: str, dtype, path) -> np.ndarray:
    """``data[key]`` as an array of ``dtype``; ValueError naming the file and key otherwise."""
    try:
        return np.asarray(data[key], dtype=dtype)
    except (TypeError, ValueError):
        kind = "integers" if dtype is int else "numbers"
        raise ValueError(f"{path}: {key} must hold {kind}; got {str(data[key])[:60]!r}") from None


def read_llm_counts(path, trust_pickle: bool = False, model: str | None = None,
                    source: str | None = None, nbatches: int = LLM_NBATCHES) -> pd.DataFrame:
    """Per-n counts from a similarity/identification pickle (aggregates only were saved).

    ``trials`` = nrep x ``nbatches``; ``answered`` = trials - n_nulls; ``correct`` =
    performance x answered, rounded (the file stores the ratio); ``performance`` as released.
    """
    path = Path(path)
    data = _load_pickle(path, trust_pickle)
    keys = ("performance", "n_nulls", "seq_lens", "nrep")
    if not isinstance(data, dict) or not set(keys) <= set(data):
        raise ValueError(f"{path}: expected a dict with {', '.join(keys)}; got "
                         f"{sorted(data) if isinstance(data, dict) else type(data).__name__}")
    m = re.search(r"experiment_(similarity|identification)_", path.name)
    if not m:
        raise ValueError(f"path: cannot tell the task from {path.name!r}")
    perf = _array(data, "performance", float, path)
    nulls = _array(data, "n_nulls", int, path)
    ns = _array(data, "seq_lens", int, path)
    if not len(perf) == len(nulls) == len(ns):
        raise ValueError(f"{path}: performance, n_nulls and seq_lens differ in length "
                         f"({len(perf)}, {len(nulls)}, {len(ns)})")
    trials = int(_array(data, "nrep", int, path)) * int(nbatches)
    answered = trials - nulls
    if (answered < 0).any():
        raise ValueError(f"nbatches: n_nulls exceed nrep x nbatches = {trials} in {path}")
    return pd.DataFrame({
        "model": model or model_of(path), "source": source or _repo_path(path),
        "experiment": "years", "task": m.group(1), "n": ns, "bin": "all", "trials": trials,
        "answered": answered, "correct": np.rint(perf * answered).astype(int),
        "performance": perf, "n_nulls": nulls})


def read_llm_resolution(path, trust_pickle: bool = False, model: str | None = None,
                        source: str | None = None) -> pd.DataFrame:
    """Long table of the two-reference curves: one row per (centre, D, probe).

    ``performances`` maps each centre to one curve per D (fraction of parsed answers naming the
    person born in the lower year, at probes ``centre + RESOLUTION_OFFSETS``); ``ages_list`` (of
    the last centre) gives the D values as half the gap.
    """
    path = Path(path)
    data = _load_pickle(path, trust_pickle)
    if not isinstance(data, dict) or not {"performances", "ages_list", "nrep"} <= set(data):
        raise ValueError(f"{path}: expected a dict with performances, ages_list, nrep")
    ages = _array(data, "ages_list", float, path)
    if ages.ndim != 2 or ages.shape[1] != 2:
        raise ValueError(f"{path}: ages_list must be pairs of years; got shape {ages.shape}")
    if not isinstance(data["performances"], dict) or not data["performances"]:
        raise ValueError(f"{path}: performances must be a non-empty dict centre -> curves")
    ds = (ages[:, 1] - ages[:, 0]) / 2
    # pspace and ages_list are those of the last centre drawn: offsets are relative to it
    centre_last = ages[0].mean()
    offsets = (_array(data, "pspace", float, path) - centre_last if "pspace" in data
               else RESOLUTION_OFFSETS.astype(float))
    frames = []
    for centre, curves in data["performances"].items():
        key = f"performances[{centre}]"
        curves = _array({key: curves}, key, float, path)
        if curves.shape != (len(ds), len(offsets)):
            raise ValueError(f"{path}: centre {centre} has curves of shape {curves.shape}; "
                             f"expected {(len(ds), len(offsets))}")
        for k, d in enumerate(ds):
            p_low = curves[k]
            p_correct = np.where(offsets < 0, p_low, np.where(offsets > 0, 1 - p_low, np.nan))
            frames.append(pd.DataFrame({"centre": int(centre), "D": float(d), "offset": offsets,
                                        "probe": centre + offsets, "p_low": p_low,
                                        "p_correct": p_correct}))
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "nrep", int(data["nrep"]))
    out.insert(0, "source", source or _repo_path(path))
    out.insert(0, "model", model or model_of(path))
    return out


def find_files(source) -> list:
    """Every released file this module reads under ``source`` (a file, folder, or list)."""
    if isinstance(source, (str, Path)):
        source = [p for p in str(source).split(",") if p]
    found = []
    for p in map(Path, source):
        if p.is_dir():
            found += sorted(f for f in p.rglob("*") if f.is_file() and kind_of(f))
        elif p.is_file() and kind_of(p):
            found.append(p)
        elif not p.exists():
            raise ValueError(f"source: no such file or folder {str(p)!r}")
    return found


def read_authors(paths, keep_unusable_scores: bool = False) -> pd.DataFrame:
    """Per-trial rows (the :mod:`semres.core.results` schema) from every released CSV under
    ``paths``.

    Pickles hold no per-trial rows and are skipped here (read them with :func:`read_llm_counts`
    / :func:`read_llm_resolution`).
    """
    frames = [_CSV_READERS[kind_of(f)](f, keep_unusable_scores=keep_unusable_scores)
              for f in find_files(paths) if kind_of(f) in _CSV_READERS]
    if not frames:
        raise ValueError(f"paths: no released CSV files under {paths!r}")
    return pd.concat(frames, ignore_index=True)


_PICKLES = ("llm_counts", "llm_resolution")
_WHAT = {"schema": "per-trial rows in the book's schema",
         "spatial": "the authors' four-shape VLM answers",
         "colour": "the authors' colour VLM answers",
         "llm_counts": "the authors' LLM n-sweep counts",
         "llm_resolution": "the authors' LLM two-reference curves"}
_PICKLE_NAMES = ("experiment_{similarity,identification}_MODEL_year.pkl or "
                 "experiment_resolution_years_MODEL_small.pkl")


@dataclass
class Gathered:
    """Everything ``results=`` named, read and checked (see :func:`gather`).

    ``rows``: per-trial rows (the :mod:`semres.core.results` schema; the authors' CSVs add
    ``experiment``, ``trial``, ``scores_usable``), None if no file held any; ``counts`` and
    ``curves``: the frames of :func:`read_llm_counts` and :func:`read_llm_resolution`;
    ``files``: each file read and its kind; ``report``: one line per file, read or skipped and why.
    """
    rows: pd.DataFrame | None
    counts: list = field(default_factory=list)
    curves: list = field(default_factory=list)
    files: dict = field(default_factory=dict)
    report: list = field(default_factory=list)


def _listing(paths) -> list:
    """``(file, named)`` pairs: each named file, and each entry of each named folder."""
    if isinstance(paths, (str, Path)):
        paths = str(paths).split(",")
    found = []
    for p in (Path(str(p).strip()) for p in paths if str(p).strip()):
        if p.is_dir():
            found += [(f, False) for f in sorted(p.iterdir())]
        elif p.is_file():
            found.append((p, True))
        else:
            raise ValueError(f"results: no such file or folder {str(p)!r}")
    return found


def _skip_reason(f, kind, trust_pickle: bool, llm: bool) -> str | None:
    """Why ``f`` is not read (None: it is)."""
    if kind in _PICKLES:
        if not llm:
            return "one of the authors' LLM pickles, which this chapter does not use"
        if trust_pickle is not True:
            return ("one of the authors' pickles, not unpickled: loading a pickle runs code from "
                    "the file (pass trust_pickle=True for files you trust)")
        return None
    if f.suffix.lower() == ".csv":
        return None
    if f.suffix.lower() in (".pkl", ".pickle"):
        return f"a pickle not named as the authors' LLM files ({_PICKLE_NAMES})"
    return "not a results file (a CSV, or one of the authors' LLM pickles)"


def _read_one(f, kind, keep_unusable_scores: bool):
    """(kind, frame) of one file that :func:`_skip_reason` lets through."""
    if kind in _PICKLES:
        reader = read_llm_counts if kind == "llm_counts" else read_llm_resolution
        return kind, reader(f, trust_pickle=True)
    header = _results.read_csv(f, nrows=0).columns
    if set(_results.COLUMNS) <= set(header):
        return "schema", _results.read_file(f)
    if kind in _CSV_READERS:
        return kind, _CSV_READERS[kind](f, keep_unusable_scores=keep_unusable_scores)
    missing = [c for c in _results.COLUMNS if c not in header]
    raise ValueError(f"{f}: lacks column(s) {', '.join(missing)} of the results schema, and its "
                     f"name is not one of the authors' files")


def gather(paths, trust_pickle: bool = False, keep_unusable_scores: bool = False,
           llm: bool = True) -> Gathered:
    """Read every results file ``paths`` names, checking each in full before any analysis.

    ``paths``: files and folders (a list, or the chapter-parameter form ``"a,b"``). A folder
    gives its files (not its subfolders): CSVs in the schema, the authors' CSVs and, with
    ``trust_pickle=True``, the authors' LLM pickles (``llm=False``: skip those); anything
    else in a folder is skipped and said so in the report. A named file that cannot be read, a
    CSV that is neither in the schema nor one of the authors', and nothing read at all raise
    ValueError with one line naming the file (and the line and column, for a bad row).
    """
    got = Gathered(rows=None)
    rows, skipped = [], []
    for f, named in _listing(paths):
        kind = kind_of(f)
        why = _skip_reason(f, kind, trust_pickle, llm)
        if why and named:
            raise ValueError(f"results: {f}: {why}")
        if why:
            skipped.append((f, why))
            got.report.append(f"skipped {f}: {why}")
            continue
        kind, frame = _read_one(f, kind, keep_unusable_scores)
        {"llm_counts": got.counts, "llm_resolution": got.curves}.get(kind, rows).append(frame)
        got.files[f] = kind
        models = ", ".join(sorted(set(frame["model"].astype(str))))
        got.report.append(f"read {f}: {_WHAT[kind]}, {len(frame)} rows ({models})")
    if not got.files:
        named = ", ".join(str(p).strip() for p in (paths.split(",") if isinstance(paths, str)
                                                   else paths) if str(p).strip())
        reasons = pd.Series([w for _, w in skipped], dtype=str).value_counts()
        detail = "; ".join(f"{n} skipped as {w}" for w, n in reasons.items()) or "it is empty"
        raise ValueError(f"results: nothing read from {named}: {detail}")
    got.rows = pd.concat(rows, ignore_index=True) if rows else None
    return got


def load_results(paths, keep_unusable_scores: bool = False) -> pd.DataFrame:
    """Per-trial rows from schema CSVs and/or the authors' raw CSVs, in one call (the rows of
    :func:`gather` with ``llm=False``)."""
    return gather(paths, keep_unusable_scores=keep_unusable_scores, llm=False).rows


def margins(df) -> np.ndarray:
    """Per row, the gap between the second-nearest and nearest option (0 for exact ties)."""
    return np.array([np.diff(np.sort(d)[:2])[0] for d in _results.distances(df)])


def _outcomes(df) -> pd.DataFrame:
    """Per row: answered, correct (chosen option among the correct ones)."""
    choice = df["choice"].astype(str)
    ok = [c in _results.split_list(k) for c, k in zip(choice, df["correct"])]
    return pd.DataFrame({"answered": (choice != "").to_numpy(int),
                         "correct": np.asarray(ok, dtype=int)}, index=df.index)


def _counts(df, keys, options, chosen=None, dropna: bool = False) -> pd.DataFrame:
    """Trials, answered, correct and chose_<option> counts per group of ``keys``; ``chosen``
    (per row, default the ``choice`` column) is what the chose_ counts compare with."""
    chosen = df["choice"].astype(str).to_numpy() if chosen is None else chosen
    work = df[keys].copy()
    work[["answered", "correct"]] = _outcomes(df)
    work["trials"] = 1
    for o in options:
        work[f"chose_{o}"] = (chosen == o).astype(int)
    cols = ["trials", "answered", "correct", *[f"chose_{o}" for o in options]]
    return work.groupby(keys, sort=True, dropna=dropna)[cols].sum().reset_index()


def _untied_canvas(df) -> pd.DataFrame:
    """The four-shape rows with one nearest shape (exact ties dropped)."""
    df = df[df["space"] == "canvas"]
    return df[~df["correct"].astype(str).str.contains("|", regex=False)].copy()


_ID = ["model", "source", "experiment", "task", "n"]


def _binned(df, width: float, options) -> pd.DataFrame:
    df = df.copy()
    k = np.floor(margins(df) / width + 1e-9).astype(int)
    df["bin"] = k
    out = _counts(df, _ID + ["bin"], options)
    out["bin_lo"] = np.round(out["bin"] * width, 10)
    out["bin_hi"] = np.round((out["bin"] + 1) * width, 10)
    out["bin"] = [f"[{lo:g},{hi:g})" for lo, hi in zip(out["bin_lo"], out["bin_hi"])]
    return out[_ID + ["bin", "bin_lo", "bin_hi"] + [c for c in out.columns
                                                    if c not in _ID + ["bin", "bin_lo", "bin_hi"]]]


def spatial_margin_table(df, width: float = SPATIAL_BIN) -> pd.DataFrame:
    """Counts per model, experiment and margin bin (canvas units) of the four-shape trials."""
    return _binned(df[df["space"] == "canvas"], width, SPATIAL_SHAPES)


def colour_margin_table(df, width: float = HUE_BIN) -> pd.DataFrame:
    """Counts per model, task, n and hue-margin bin (fraction of the hue circle)."""
    return _binned(df[df["space"] == "hue"], width, LETTERS)


def spatial_grid_table(df, grid: int = GRID) -> pd.DataFrame:
    """Counts per cell of a ``grid`` x ``grid`` lattice over the X (fixed-layout trials only)."""
    if int(grid) < 1:
        raise ValueError(f"grid must be a positive integer; got {grid!r}")
    df = df[(df["space"] == "canvas") & (df["experiment"] == "spatial_far")].copy()
    xy = np.array([[float(v) for v in p.split(",")] for p in df["probe"]]).reshape(-1, 2)
    # positions are written to 12 digits (300 px -> 0.333333333333): an X on a cell edge must
    # not fall into the cell below it, so snap to the edge within that rounding
    ij = np.clip(np.floor(xy * grid + 1e-9).astype(int), 0, grid - 1)
    df["ix"], df["iy"], df["x"], df["y"] = ij[:, 0], ij[:, 1], xy[:, 0], xy[:, 1]
    out = _counts(df, _ID + ["ix", "iy"], SPATIAL_SHAPES)
    means = df.groupby(_ID + ["ix", "iy"])[["x", "y"]].mean().reset_index()
    out = out.merge(means.rename(columns={"x": "x_mean", "y": "y_mean"}), on=_ID + ["ix", "iy"])
    out.insert(len(_ID), "bin", [f"{i},{j}" for i, j in zip(out["ix"], out["iy"])])
    for a, b in (("x", "ix"), ("y", "iy")):
        out[f"{a}_lo"], out[f"{a}_hi"] = out[b] / grid, (out[b] + 1) / grid
    return out


def grid_design(table, model: str) -> dict:
    """One model's ``spatial_grid`` rows as arrays for a Luce fit with per-shape weights.

    Returns ``names`` (the four shapes), ``d`` (cells x 4: distance in canvas units from each
    cell's mean X to each shape of :data:`semres.experiments.vlm_shapes.scenes.AUTHORS`), ``counts``
    (cells x 4: how often
    each shape was chosen), ``trials`` (per cell; unparsed answers are trials minus the counts)
    and ``nearest`` (cells x 4: the shape nearest the cell's mean X).
    """
    sub = table[table["model"] == model]
    if sub.empty:
        raise ValueError(f"model: no rows for {model!r}; have {sorted(set(table['model']))}")
    px = float(AUTHORS["canvas_px"])
    names = list(SPATIAL_SHAPES)
    pos = np.array([AUTHORS["layout"][s] for s in names], dtype=float) / px
    xy = sub[["x_mean", "y_mean"]].to_numpy(float)
    d = np.linalg.norm(xy[:, None, :] - pos[None], axis=2)
    return {"names": names, "d": d, "counts": sub[[f"chose_{s}" for s in names]].to_numpy(int),
            "trials": sub["trials"].to_numpy(int), "nearest": d == d.min(axis=1, keepdims=True)}


def spatial_confusion_table(df) -> pd.DataFrame:
    """Choice counts per nearest shape (``bin``), exact ties dropped: the answer bias."""
    df = _untied_canvas(df)
    df["bin"] = df["correct"].astype(str)
    return _counts(df, _ID + ["bin"], SPATIAL_SHAPES)


CORNERS = ("top_left", "top_right", "bottom_left", "bottom_right")


def _corner(point: str) -> str:
    x, y = (float(v) for v in point.split(","))
    return f"{'top' if y < 0.5 else 'bottom'}_{'left' if x < 0.5 else 'right'}"


def spatial_corner_table(df) -> pd.DataFrame:
    """Choice counts by canvas corner, per corner of the nearest shape (``bin``; ties dropped).

    Separates a bias for a place (e.g. the bottom-left corner) from a bias for a shape's name:
    in ``random_stencil`` the shapes change corners from scene to scene.
    """
    df = _untied_canvas(df)
    corners = [[_corner(p) for p in _results.split_list(pos)] for pos in df["position"]]
    opts = [_results.split_list(o) for o in df["options"]]
    df["bin"] = [c[o.index(k)] for c, o, k in zip(corners, opts, df["correct"].astype(str))]
    idx = _results.choice_index(df)
    chosen = np.array([c[i] if i >= 0 else "" for c, i in zip(corners, idx)])
    return _counts(df, _ID + ["bin"], CORNERS, chosen, dropna=True)


def llm_n_table(frames) -> pd.DataFrame:
    """The per-n count frames of :func:`read_llm_counts`, stacked in one table."""
    return pd.concat(list(frames), ignore_index=True)


def llm_resolution_table(frames) -> pd.DataFrame:
    """Mean two-reference curves over centres, per model, D and probe offset (``bin``)."""
    long = pd.concat(list(frames), ignore_index=True)
    g = long.groupby(["model", "source", "D", "offset"])
    out = g.agg(centres=("p_low", "count"), nrep=("nrep", "first"),
                p_low_mean=("p_low", "mean"), p_correct_mean=("p_correct", "mean")).reset_index()
    out["prompts"] = out["nrep"] * out["centres"]
    out.insert(2, "experiment", "years_resolution")
    out.insert(3, "task", "similarity")
    out.insert(4, "n", 2)
    out.insert(5, "bin", out["offset"].astype(int))
    return out.drop(columns="nrep")


def _sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _source_files(source, csv: bool = False) -> list:
    """The released files under ``source`` (only CSVs, with ``csv``); ValueError when none."""
    files = [f for f in find_files(source) if not csv or kind_of(f) in _CSV_READERS]
    if not files:
        names = ("spatial_resolution_*_results_far.csv, random_stencil_*_results.csv, "
                 "color_*_results.csv" + ("" if csv else f", {_PICKLE_NAMES}"))
        raise ValueError(f"source: no released {'CSV ' if csv else ''}files under {source} "
                         f"(expected the authors' names: {names}); nothing written")
    return files


def derive(source, out, trust_pickle: bool = False, commits: dict | None = None) -> dict:
    """Read every released file under ``source``; write the derived tables and
    ``provenance.json`` to ``out``; return the provenance record.

    Pickles are read only with ``trust_pickle=True`` (else listed as skipped). Every file is read
    and every table made before anything is written; nothing read means nothing written
    (ValueError), so a provenance never loses its files. Tables of :data:`TABLES` in ``out`` that
    this source does not give are removed: ``out`` then holds exactly what its provenance lists.
    """
    files = _source_files(source)
    commits = {**COMMITS, **(commits or {})}
    trials, counts, curves, records, skipped = [], [], [], [], []
    for f in files:
        kind, rel = kind_of(f), _repo_path(f)
        if kind in ("llm_counts", "llm_resolution") and not trust_pickle:
            skipped.append({"path": rel, "why": "pickle not trusted (pass --trust-pickle)"})
            continue
        if kind in _CSV_READERS:
            frame = _CSV_READERS[kind](f)
            trials.append(frame)
        elif kind == "llm_counts":
            frame = read_llm_counts(f, trust_pickle=True)
            counts.append(frame)
        else:
            frame = read_llm_resolution(f, trust_pickle=True)
            curves.append(frame)
        records.append({"path": rel, "commit": commits.get(rel, "unknown"), "sha256": _sha256(f),
                        "bytes": f.stat().st_size, "kind": kind, "model": model_of(f),
                        "rows": int(len(frame)),
                        "scores_usable": (bool(frame["scores_usable"].iloc[0])
                                          if "scores_usable" in frame else None)})
    if not records:
        raise ValueError(f"source: nothing read under {source}: {len(skipped)} pickle(s) not "
                         f"trusted (pass --trust-pickle, or trust_pickle=True); nothing written")
    made = {}
    if trials:
        df = pd.concat(trials, ignore_index=True)
        made["spatial_margin"] = spatial_margin_table(df)
        made["spatial_grid"] = spatial_grid_table(df)
        made["spatial_confusion"] = spatial_confusion_table(df)
        made["spatial_corner"] = spatial_corner_table(df)
        made["colour_margin"] = colour_margin_table(df)
    if counts:
        made["llm_n"] = llm_n_table(counts)
    if curves:
        made["llm_resolution"] = llm_resolution_table(curves)
    made = {name: table for name, table in made.items() if len(table)}
    written = {name: {"rows": int(len(t)), "columns": list(t.columns)} for name, t in made.items()}
    record = {"repository": REPOSITORY, "citation": CITATION,
              "licence": ("the repository has no licence file: only counts derived from its "
                          "files are shipped, no per-trial rows"),
              "generated_by": "python -m semres.experiments.released derive --source DIR --out DIR",
              "bins": {"spatial_margin": SPATIAL_BIN, "colour_margin": HUE_BIN,
                       "spatial_grid": GRID},
              "files": records, "skipped": skipped, "tables": written}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, table in made.items():
        _results.write_atomic(out / f"{name}.csv", table.to_csv(index=False))
    for name in set(TABLES) - set(made):
        (out / f"{name}.csv").unlink(missing_ok=True)
    _results.write_atomic(out / "provenance.json", json.dumps(record, indent=1) + "\n")
    return record


def convert(source, out, keep_unusable_scores: bool = False) -> list:
    """Write each released CSV under ``source`` as a schema CSV in ``out`` (for ``results=``).

    These are per-trial rows of the authors' files: keep them local, never commit them.
    """
    files = _source_files(source, csv=True)
    frames = [_CSV_READERS[kind_of(f)](f, keep_unusable_scores=keep_unusable_scores)
              for f in files]   # all read and checked before anything is written
    return [_results.write_results(frame, Path(out) / f.name) for f, frame in zip(files, frames)]


def _package_dir():
    return files("semres").joinpath(_DATA)


def tables() -> list:
    """Names of the derived tables shipped with the package."""
    d = _package_dir()
    return sorted(p.name[:-4] for p in d.iterdir() if p.name.endswith(".csv")) if d.is_dir() else []


def load_table(name: str) -> pd.DataFrame:
    """A shipped derived table (see :func:`tables`) as a DataFrame."""
    if name not in tables():
        raise ValueError(f"name: no shipped table {name!r}; shipped: "
                         f"{', '.join(tables()) or 'none'}")
    with _package_dir().joinpath(f"{name}.csv").open() as f:
        return pd.read_csv(f, keep_default_na=False, na_values=[""])


def provenance() -> pd.DataFrame:
    """The shipped provenance: one row per source file (repository, path, commit, sha256, rows,
    ...); the whole record (citation, tables, skipped files) is in ``.attrs``."""
    p = _package_dir().joinpath("provenance.json")
    if not p.is_file():
        raise ValueError("no shipped provenance.json: run "
                         "python -m semres.experiments.released derive")
    record = json.loads(p.read_text())
    df = pd.DataFrame(record["files"])
    df.insert(0, "repository", record["repository"])
    df.attrs.update(record)
    return df


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv=None) -> int:
    """The command line: usage errors and a missing source exit 2, unreadable sources 1, each
    with one line; nothing is written unless every file was read."""
    prog = "python -m semres.experiments.released"
    parser = _Parser(prog=prog, description="The paper authors' released outputs.")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    d = sub.add_parser("derive", help="write derived count tables and provenance.json")
    d.add_argument("--source", required=True, help="folder with the authors' files")
    d.add_argument("--out", default=str(build_dir() / "released"),
                   help="folder to write (default: _build/released); the shipped tables are "
                        f"rewritten only when this is src/semres/{_DATA}")
    d.add_argument("--trust-pickle", action="store_true",
                   help="unpickle the LLM files (pickles run code: only for files you trust)")
    c = sub.add_parser("convert", help="write the released CSVs in the per-trial schema")
    c.add_argument("--source", required=True, help="folder with the authors' CSVs")
    c.add_argument("--out", required=True, help="folder to write (keep it local)")
    c.add_argument("--keep-unusable-scores", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # usage errors and --help
        return int(exit_.code or 0)
    missing = [p for p in str(args.source).split(",") if p and not Path(p).exists()]
    if missing:
        print(f"{prog}: error: source: no such file or folder {missing[0]!r}", file=sys.stderr)
        return 2
    try:
        if args.cmd == "derive":
            rec = derive(args.source, args.out, trust_pickle=args.trust_pickle)
            for name, t in rec["tables"].items():
                print(f"{name}: {t['rows']} rows")
            for s in rec["skipped"]:
                print(f"skipped {s['path']}: {s['why']}", file=sys.stderr)
            print(f"wrote {len(rec['tables'])} tables and provenance.json to {args.out}")
        else:
            for p in convert(args.source, args.out,
                             keep_unusable_scores=args.keep_unusable_scores):
                print(p)
    except ValueError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
