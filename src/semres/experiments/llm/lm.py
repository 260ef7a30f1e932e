"""One scorer for any causal LM: the log-probability of each answer option as the continuation of
the paper's prompt."""

from __future__ import annotations

import contextlib
import copy
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import softmax
from scipy.stats import t as student
from tqdm.auto import tqdm

from semres.core.book import torch_device
from semres.core.fingerprint import digest as code_digest
from semres.core.seeds import named_seed
from semres.core.validate import at_least

from .int8 import INT8_KEEP, INT8_KEEP_WIDE, outlier_channels, quantise_int8
from .packing import common_prefix, pack, row_mask, token_batches
from .models import dequantised_path, free_cores, identity, kept_json, load_pair, resolve
from .settings import NAMES, TASKS
from .trials import Trials, draw_trials, trials_to_results, year_prompt

#: The largest shift that a faster arithmetic (int8 matmuls, bfloat16) may make in the mean Luce
#: mass on the correct option (both ends of its 95 % interval over the calibration prompts) for
#: the scorer to use it (``dtype="auto"``). Every verdict in the chapter rests on such means; the
#: smallest effect any of them is sized to see is the gate's 0.05, and 0.01 is a fifth of it and
#: half the gate's standard error, so no verdict or interval turns on the precision.
PRECISION_TOLERANCE = 0.01

#: the arithmetics a scorer can run: "auto" takes the fastest that passes :func:`precision_check`
DTYPES = ("float32", "bfloat16", "int8", "auto")

#: the completion cue of a base model; options follow it after a space
ANSWER_CUE = "\nAnswer:"

#: the root of the precision check's calibration prompts: fixed, not the chapter's seed, because
#: the check is a property of the model file, measured once and kept beside its dequantised copy
#: (``precision.json``), the same for every build and every chapter seed
CALIBRATION_SEED = 0

# --------------------------------------------------------------------------- the scorer

class Scorer:
    """Log-probabilities of answer options as continuations of a prompt, for any causal LM."""

    #: longest packed sequence, in tokens (under every shipped model's sliding window)
    MAX_ROW = 480

    def __init__(self, model, *, dtype: str = "float32", batch_tokens: int | None = None,
                 device: str = "cpu"):
        import torch

        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}; got {dtype!r}")
        self.threads = self.threads_used = None  # None: the cores others leave free
        self.device = torch_device(device)
        if batch_tokens is None:
            batch_tokens = 512 if self.device.type == "cpu" else 4096
        self.batch_tokens = at_least(batch_tokens, 1, "batch_tokens")
        kept = None  # where a GGUF model keeps its dequantised copy (and its precision checks)
        if isinstance(model, tuple):
            net, self.tokenizer = model
            self.name = type(net).__name__
        else:
            where, gguf = resolve(model)
            net, self.tokenizer = load_pair(where, gguf)
            self.name = str(model)
            if gguf is not None and Path(where, gguf).is_file():
                kept = dequantised_path(where, gguf)
        self.chat = getattr(self.tokenizer, "chat_template", None) is not None
        self.torch = torch
        self.model = self.float32 = net.to(self.device)
        self.parameters = int(sum(p.numel() for p in net.parameters()))
        self.dtype = "float32"
        self.precision = None
        self.kept = kept
        if dtype == "auto":
            self.precision = {}
            # the fastest first: bfloat16 where the device has its matrix units (on a CPU
            # with AMX it ran 1.7 to 1.9 times int8's prompts a second), then int8 on a CPU
            for path in (["bfloat16"] if fast_bfloat16(self.device) else []) + (
                    ["int8"] if fast_int8(self.device) else []):
                fast = self.faster(path)
                self.precision[path] = _stored_precision_check(self, path, fast)
                if self.precision[path]["passes"]:
                    self.model, self.dtype = fast, path
                    break
        elif dtype != "float32":
            self.model, self.dtype = self.faster(dtype), dtype

    def faster(self, path: str):
        """This scorer's float32 model run in ``path`` ("int8" or "bfloat16"): a copy, made
        without a check. int8 keeps in float32 the outlier channels of each layer, found on
        calibration prompts (and kept in ``self.kept``, beside a GGUF model's dequantised
        copy, with the precision checks)."""
        if path not in ("int8", "bfloat16"):
            raise ValueError(f"path must be 'int8' or 'bfloat16'; got {path!r}")
        if path == "int8" and self.device.type != "cpu":
            raise ValueError("int8 matmuls run on a CPU only")
        with self.limited_threads():  # two threads beside a busy process crawl
            if path == "bfloat16":
                return copy.deepcopy(self.float32).to(self.device, self.torch.bfloat16)
            return quantise_int8(self.float32, _stored_channels(self))

    @contextlib.contextmanager
    def limited_threads(self):
        """Run with at most the scorer's threads (by default the cores others leave free)."""
        torch = self.torch
        before = torch.get_num_threads()
        self.threads_used = self.threads or free_cores()
        torch.set_num_threads(self.threads_used)
        try:
            yield
        finally:
            torch.set_num_threads(before)

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

    # ------------------------------------------------------------------ scores
    def logprobs(self, prompts, options, *, groups=None, progress: bool = True,
                 model=None) -> list:
        """Summed log p(option tokens | prompt) per prompt and option (a list of arrays)."""
        torch = self.torch

        if len(prompts) != len(options):
            raise ValueError("prompts and options must have the same length")
        if groups is not None and len(groups) != len(prompts):
            raise ValueError("groups must give one key per prompt")
        net = self.model if model is None else model
        pre = [self.prefix_ids(p) for p in prompts]
        opt = [[self.option_ids(o) for o in opts] for opts in options]
        common = common_prefix(pre)
        rows = pack(pre, opt, common, groups, self.MAX_ROW)
        out = [np.zeros(len(o)) for o in options]
        batches = token_batches([len(r.ids) for r in rows], self.batch_tokens)
        with self.limited_threads(), torch.inference_mode():
            shared = None
            if common:
                shared = net(input_ids=torch.tensor([pre[0][:common]], device=self.device),
                             use_cache=True, logits_to_keep=1).past_key_values
            for batch in tqdm(batches, desc=f"scoring {self.name}", leave=False,
                              disable=not progress or len(batches) < 2):
                self._score(net, [rows[i] for i in batch], shared, common, out)
        return out

    def _score(self, net, rows, shared, common: int, out) -> None:
        torch = self.torch
        hidden = self._forward(net, rows, shared, common).last_hidden_state
        B, L = hidden.shape[:2]
        # the options of a prompt are read at one position: its vocabulary row once, not per
        # option (a 150k-token head is a third of a small model's arithmetic)
        where = torch.tensor([b * L + t for b, r in enumerate(rows) for (_, _, t, _) in r.targets])
        at, row = torch.unique(where, return_inverse=True)
        h = hidden.reshape(B * L, -1)[at.to(hidden.device)]
        logits = net.get_output_embeddings()(h).float()
        cap = getattr(net.config, "final_logit_softcapping", None)
        if cap:
            logits = torch.tanh(logits / cap) * cap
        target = torch.tensor([tok for r in rows for (_, _, _, tok) in r.targets],
                              device=logits.device)
        lp = torch.log_softmax(logits, -1)[row.to(logits.device), target].double().cpu()
        k = 0
        for r in rows:
            for i, j, _, _ in r.targets:
                out[i][j] += float(lp[k])
                k += 1

    def _forward(self, net, rows, shared, common: int, hidden_states: bool = False):
        """The decoder on packed rows: each token at its own position, seeing the shared
        prefix (``shared``, ``common`` tokens) and its ancestors in the row only."""
        torch = self.torch
        B, L = len(rows), max(len(r.ids) for r in rows)
        ids = torch.zeros((B, L), dtype=torch.long)
        pos = torch.zeros((B, L), dtype=torch.long)
        allowed = torch.zeros((B, 1, L, common + L), dtype=torch.bool)
        allowed[:, :, :, :common] = True
        allowed[:, 0, torch.arange(L), common + torch.arange(L)] = True  # padding sees itself
        for b, r in enumerate(rows):
            n = len(r.ids)
            ids[b, :n] = torch.tensor(r.ids)
            pos[b, :n] = torch.tensor(r.pos)
            pos[b, n:] = r.pos[-1]
            allowed[b, 0, :n, common:common + n] = torch.from_numpy(row_mask(r))
        dtype = next(net.parameters()).dtype
        mask = torch.zeros(allowed.shape, dtype=dtype)
        mask.masked_fill_(~allowed, torch.finfo(dtype).min)
        cache = None
        if shared is not None:
            cache = copy.deepcopy(shared)
            cache.batch_repeat_interleave(B)
        return net.get_decoder()(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                 position_ids=pos.to(self.device), past_key_values=cache,
                                 use_cache=cache is not None, output_hidden_states=hidden_states)

    def last_hidden(self, texts, *, model=None, progress: bool = True) -> np.ndarray:
        """(texts, layers + 1, width) hidden states at each text's last token, every layer, the
        texts packed as :meth:`logprobs` packs prompts (a start they share is read once)."""
        torch = self.torch
        net = self.model if model is None else model
        enc = [list(self.tokenizer(t, add_special_tokens=True)["input_ids"]) for t in texts]
        rows = pack(enc, [[] for _ in enc], 0, [0] * len(enc), self.MAX_ROW)
        batches = token_batches([len(r.ids) for r in rows], self.batch_tokens)
        out = None
        with self.limited_threads(), torch.inference_mode():
            for batch in tqdm(batches, desc=f"hidden states {self.name}", leave=False,
                              disable=not progress or len(batches) < 2):
                part = [rows[i] for i in batch]
                hs = self._forward(net, part, None, 0, hidden_states=True).hidden_states
                L = hs[0].shape[1]
                which = [i for r in part for i, _ in r.ends]
                at = torch.tensor([b * L + t for b, r in enumerate(part) for _, t in r.ends])
                h = torch.stack([x.reshape(-1, x.shape[-1])[at].float() for x in hs], 1)
                if out is None:
                    out = np.empty((len(texts), *h.shape[1:]), np.float32)
                out[which] = h.cpu().numpy()
        return out


def cpu_flags() -> set[str]:
    """The CPU's feature flags (``/proc/cpuinfo``; empty where it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as f:
            return next((set(line.split(":", 1)[1].split()) for line in f
                         if line.startswith("flags")), set())
    except OSError:
        return set()


def fast_bfloat16(device) -> bool:
    """Whether bfloat16 matmuls beat float32 on ``device``: a GPU that has them, or a CPU with
    AMX tiles. Without AMX (AVX-512 BF16 alone) torch 2.13's bfloat16 linear layers run at half
    float32's speed (``benchmarks/bench_lm.py``), so "auto" does not try them there."""
    import torch

    device = torch.device(device)
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    return device.type == "cpu" and "amx_bf16" in cpu_flags()


#: the CPU features whose int8 dot products make int8 matmuls beat float32
INT8_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8")


def fast_int8(device) -> bool:
    """Whether int8 matmuls beat float32 on ``device``: a CPU with int8 dot-product
    instructions (:data:`INT8_FLAGS`). Without them (an AMD EPYC with AVX2 alone) torch 2.13's
    int8 matmuls ran SmolLM2-135M at 4 prompts a second on one core against float32's 48
    (64 prompts: 16.1 against 1.3 s), so "auto" keeps float32 there."""
    import torch

    return torch.device(device).type == "cpu" and any(f in cpu_flags() for f in INT8_FLAGS)


def _stored_channels(scorer: Scorer) -> dict:
    """The int8 outlier channels on 8 calibration prompts a cell (apart from the check's)."""
    p, o, _ = calibration_prompts(8, stream="int8 channels")
    key = f"per_cell=8 seed={CALIBRATION_SEED} keep={INT8_KEEP},{INT8_KEEP_WIDE} " \
          f"chat={scorer.chat} v1"
    return kept_json(scorer.kept and scorer.kept / "int8_channels.json", key,
                      lambda: outlier_channels(scorer.float32, lambda: scorer.logprobs(
                          p, o, progress=False, model=scorer.float32)))


def _stored_precision_check(scorer: Scorer, path: str, fast) -> dict:
    """:func:`precision_check` of ``path``, kept beside the model's dequantised copy."""
    key = (f"{path} per_cell=12 seed={CALIBRATION_SEED} tolerance={PRECISION_TOLERANCE} "
           f"chat={scorer.chat}" + (f" keep={INT8_KEEP},{INT8_KEEP_WIDE} v1" * (path == "int8")))
    return kept_json(scorer.kept and scorer.kept / "precision_checks.json", key,
                      lambda: precision_check(scorer, fast))


def calibration_prompts(per_cell: int = 12, *, stream: str = "precision") -> tuple:
    """(prompts, options, correct option masks): the paper's prompts for both tasks at n = 2
    and 4, ``per_cell`` each."""
    seed = CALIBRATION_SEED
    prompts, options, correct = [], [], []
    for task in TASKS:
        for n in (2, 4):
            tr = draw_trials(task, n, per_cell, named_seed(seed, f"{stream} {task} {n}"),
                             n_names=len(NAMES))
            p, o = paper_prompts(tr, NAMES)
            prompts += p
            options += o
            correct += list(tr.correct)
    return prompts, options, correct


def precision_check(scorer: Scorer, fast) -> dict:
    """How far a faster arithmetic (``fast``, :meth:`Scorer.faster`) moves this model's answers
    on the calibration prompts."""
    prompts, options, correct = calibration_prompts()
    full = scorer.logprobs(prompts, options, progress=False, model=scorer.float32)
    low = scorer.logprobs(prompts, options, progress=False, model=fast)
    pf, pl = [softmax(a) for a in full], [softmax(b) for b in low]
    shift = np.array([(b - a)[c].sum() for a, b, c in zip(pf, pl, correct)])
    m = len(shift)
    half_width = float(student.ppf(0.975, m - 1) * shift.std(ddof=1) / math.sqrt(m))
    lo, hi = float(shift.mean() - half_width), float(shift.mean() + half_width)
    return {"max_change": float(max(np.abs(a - b).max() for a, b in zip(pf, pl))),
            "mean_shift": float(shift.mean()), "shift_low": lo, "shift_high": hi,
            "prompts": m, "passes": bool(max(abs(lo), abs(hi)) <= PRECISION_TOLERANCE)}


def prepare(names, dtype: str = "auto") -> None:
    """Make each model ready once per machine (``make env``): joined, dequantised, its outlier
    channels found and its faster arithmetic checked, all kept in the model cache. A model not
    installed is left out; one this code made ready before is not loaded again."""
    code = code_digest(Scorer, _stored_channels, _stored_precision_check, identity)
    for name in names:
        start = time.perf_counter()
        try:
            where, gguf = resolve(name)
        except ValueError as err:
            print(f"{name}: left out ({err})", file=sys.stderr)
            continue
        kept = dequantised_path(where, gguf) if gguf and Path(where, gguf).is_file() else None
        stamp = kept / f"prepared-{dtype}-{code}" if kept else None
        if stamp is not None and stamp.is_file():
            print(f"{name}: ready (made ready before by this code)", file=sys.stderr)
            continue
        scorer = Scorer(name, dtype=dtype)
        identity(name)  # its file's header, read once
        if stamp is not None and stamp.parent.is_dir():
            stamp.touch()
        print(f"{name}: ready in {time.perf_counter() - start:.0f} s; it runs {scorer.dtype}",
              file=sys.stderr)


# --------------------------------------------------------------------------- the paper's trials

def paper_prompts(trials: Trials, names=NAMES) -> tuple[list, list]:
    """The paper's prompts and their options, per trial."""
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
    lengths: np.ndarray    # (m, n) tokens per option
    options: str = "names"
    #: where these trials sit in the design they were drawn from (indices) and that design's
    #: size: a part of a design draws its answers where the whole design would
    #: (:meth:`sample`); None: the trials are the whole design
    rows: np.ndarray | None = None
    drawn: int | None = None

    @property
    def probs(self) -> np.ndarray:
        return softmax(self.scores, axis=1)

    @property
    def mass(self) -> np.ndarray:
        """Luce mass on the correct option(s), per trial."""
        return (self.probs * self.trials.correct).sum(1)

    def sample(self, seed) -> np.ndarray:
        """One answer per trial drawn from the model's choice probabilities, as the paper
        sampled its models' answers (seeded)."""
        p = self.probs
        u = np.random.default_rng(seed).random(len(p) if self.rows is None else self.drawn)
        if self.rows is not None:  # a part of a design: the uniforms of its own rows
            u = u[self.rows]
        return np.minimum((np.cumsum(p, axis=1) < u[:, None]).sum(1), p.shape[1] - 1)


def score_trials(scorer: Scorer, trials: Trials, names=NAMES, *, progress: bool = True,
                 prompts=None, options=None, kind: str = "names", rows=None) -> ScoredTrials:
    """Score each trial's options with the paper's prompt (or the ``prompts`` and ``options``
    given), trials of one group packed together; with ``rows``, only those trials, a part of
    the design (:func:`join`)."""
    names = tuple(names)
    drawn = None
    if rows is not None:
        rows, drawn = np.asarray(rows, int), len(trials)
        trials = trials.subset(rows)
        if prompts is not None:
            prompts, options = [prompts[i] for i in rows], [options[i] for i in rows]
    if trials.names.max() >= len(names):
        raise ValueError(f"names: trials use {trials.names.max() + 1} names; {len(names)} given")
    if prompts is None:
        prompts, options = paper_prompts(trials, names)
    scores = np.stack(scorer.logprobs(prompts, options, groups=trials.group, progress=progress))
    lengths = np.array([[len(scorer.option_ids(o)) for o in opts] for opts in options])
    return ScoredTrials(trials, names, [scorer.prompt_text(p) for p in prompts], scores,
                        scorer.name, lengths, kind, rows, drawn)


def join(design: Trials, parts) -> ScoredTrials:
    """Parts of one ``design`` scored apart as one :class:`ScoredTrials`, in design order,
    drawing the answers the whole design would: scoring in stages moves no answer."""
    parts = list(parts)
    if not parts:
        raise ValueError("parts: at least one scored part is needed")
    whole = np.arange(len(design))
    at = np.concatenate([whole if p.rows is None else p.rows for p in parts])
    if any(p.drawn not in (None, len(design)) for p in parts) or len(np.unique(at)) != len(at):
        raise ValueError("parts must be disjoint parts of this design")
    order = np.argsort(at, kind="stable")
    first = parts[0]
    texts = [t for p in parts for t in p.texts]
    complete = len(at) == len(design)
    return ScoredTrials(design if complete else design.subset(at[order]), first.names,
                        [texts[i] for i in order],
                        np.concatenate([p.scores for p in parts])[order], first.model,
                        np.concatenate([p.lengths for p in parts])[order], first.options,
                        None if complete else at[order], None if complete else len(design))


def to_results(scored: ScoredTrials, *, source: str = "live", seed=None):
    """Scored trials as rows of the tidy schema with the prompt each read, the choice drawn
    from the model's probabilities with ``seed`` (None: the most probable option)."""
    choice = scored.scores.argmax(1) if seed is None else scored.sample(seed)
    tr = scored.trials
    years = None if scored.options == "names" else [[str(int(y)) for y in ys] for ys in tr.years]
    df = trials_to_results(tr, choice, model=scored.model, names=scored.names, source=source,
                           scores=scored.scores, options=years)
    df["prompt"] = scored.texts
    return df

