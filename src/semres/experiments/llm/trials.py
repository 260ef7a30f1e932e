"""The paper's tests as trials: who is listed, born when, which probe, which answers are correct."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from semres.core.validate import at_least, one_of

from .settings import ITEM_TEMPLATE, NAMES, QUESTIONS, TASKS


def check_task(task: str) -> str:
    """``task``, refused unless it is one of :data:`semres.experiments.llm.settings.TASKS`."""
    return one_of(task, TASKS, "task")


@dataclass(frozen=True)
class Trials:
    """Prompts as arrays: which names (indices into a name pool), born when, and the probe."""

    task: str
    names: np.ndarray      # (m, n) indices, distinct within a row
    years: np.ndarray      # (m, n)
    probe: np.ndarray      # (m,)
    correct: np.ndarray    # (m, n) bool
    template: np.ndarray   # (m,) phrasing index
    #: (m,) trials of one group list the same people in one order: a causal LM reads their
    #: shared lines once; None: every trial alone
    group: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.probe)

    def subset(self, rows) -> "Trials":
        """The trials at ``rows`` (in the order given), with their groups."""
        rows = np.asarray(rows, int)
        if rows.ndim != 1 or (len(rows) and (rows.min() < 0 or rows.max() >= len(self))):
            raise ValueError(f"rows must be indices of the {len(self)} trials; got {rows!r}")
        return Trials(self.task, self.names[rows], self.years[rows], self.probe[rows],
                      self.correct[rows], self.template[rows],
                      None if self.group is None else self.group[rows])


def _distinct_names(rng, m: int, n: int, pool: int) -> np.ndarray:
    if n > pool:
        raise ValueError(f"n must be <= the number of names ({pool}) so names stay distinct; "
                         f"got {n}")
    return np.argsort(rng.random((m, pool)), axis=1)[:, :n]


def draw_trials(task: str, n: int, trials: int, seed, *, years=(1500, 2000),
                n_names: int = len(NAMES), n_templates: int | None = None) -> Trials:
    """The paper's tests on the year line: n people with i.i.d. uniform integer birth years."""
    check_task(task)
    n, trials = at_least(int(n), 2, "n"), at_least(int(trials), 1, "trials")
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
    """The paper's resolution design: two people at c - D and c + D, probe at c + offset."""
    centres = np.asarray(centres, int)
    offsets = np.asarray(offsets, int)
    D = at_least(int(D), 1, "D")
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


def balanced_trials(task: str, n: int, lists: int, seed, *, years=(1500, 2000),
                    n_names: int = len(NAMES), n_templates: int | None = None) -> Trials:
    """The paper's tests balanced for causal LMs: ``lists`` draws of n people with distinct
    names and years, each listed in both orders, each asked n questions (identification: about
    every listed person; similarity: n uniform probes, the same in both orders)."""
    check_task(task)
    n, lists = at_least(int(n), 2, "n"), at_least(int(lists), 1, "lists")
    lo, hi = (int(v) for v in years)
    if hi - lo + 1 < n:
        raise ValueError(f"years must hold at least n = {n} distinct years; got {years!r}")
    rng = np.random.default_rng(seed)
    n_templates = len(QUESTIONS[task]) if n_templates is None else int(n_templates)
    names = _distinct_names(rng, lists, n, n_names)
    y = lo + np.argsort(rng.random((lists, hi - lo + 1)), axis=1)[:, :n]
    if task == "similarity":
        probes = rng.integers(lo, hi + 1, size=(lists, n))
    else:
        probes = y.copy()
    template = rng.integers(0, n_templates, size=(lists, n))
    rows = {k: [] for k in ("names", "years", "probe", "correct", "template", "group")}
    for i in range(lists):
        for o, order in enumerate((np.arange(n), np.arange(n)[::-1])):
            ys = y[i, order]
            for q in range(n):
                dist = np.abs(ys - probes[i, q])
                rows["names"].append(names[i, order])
                rows["years"].append(ys)
                rows["probe"].append(probes[i, q])
                rows["correct"].append(dist == dist.min())
                rows["template"].append(template[i, q])
                rows["group"].append(2 * i + o)
    return Trials(task, *(np.asarray(rows[k]) for k in
                          ("names", "years", "probe", "correct", "template", "group")))


# --------------------------------------------------------------------------- the paper's prompt

def year_prompt(names, years, probe: int, task: str, template: int = 0) -> str:
    """The paper's prompt: one line per person, the question, "Answer with a single name."."""
    lines = [ITEM_TEMPLATE.format(name=n, year=int(y)) for n, y in zip(names, years)]
    question = QUESTIONS[check_task(task)][template].format(year=int(probe))
    return "\n".join(lines + [question, "Answer with a single name."])


# --------------------------------------------------------------------------- per-trial result files

def trials_to_results(trials: Trials, choice, *, model: str, names=NAMES, source: str = "live",
                      scores=None, options=None):
    """Trials and the model's choices as rows of the tidy schema of :mod:`semres.core.results`;
    the options are the listed people, or ``options`` given per trial."""
    choice = np.asarray(choice, int)
    if choice.shape != (len(trials),):
        raise ValueError("choice must give one option index per trial")
    names = tuple(names)
    opts = options or [[names[k] for k in row] for row in trials.names]
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
