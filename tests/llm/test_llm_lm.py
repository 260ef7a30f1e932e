"""semres.experiments.llm.lm: the option scorer on a tiny Llama built here, every score that of a
full forward of the prompt and the option, and the rows it writes rescored from their prompts."""

import numpy as np
import pytest
import torch
from tiny_lm import CHAT, NAMES, YEARS, hand_logprob, model, tokenizer

from semres.core import results
from semres.experiments.llm import lm, packing, settings, trials


@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize("packed", [False, True])
def test_scores_match_a_full_forward_by_hand(chat, packed):
    """Options of 1, 2 and 3 tokens, prompts alone or packed by the people they list (each
    question then attends only to its list and itself): every score is that of one full
    forward of the prompt followed by the option."""
    tok = tokenizer()
    if chat:
        tok.chat_template = CHAT
    net = model(len(tok), 1)
    scorer = lm.Scorer((net, tok), batch_tokens=150)  # several batches of mixed lengths
    assert scorer.chat is chat
    forms = (lambda x: x, lambda x: f"{x} {NAMES[0]}", lambda x: f"{NAMES[1]} {x} {NAMES[2]}")
    prompts, options, groups = [], [], []
    for task in settings.TASKS:
        for n in (2, 3):
            tr = trials.balanced_trials(task, n, 2, 7, years=YEARS, n_names=len(NAMES))
            p, o = lm.paper_prompts(tr, NAMES)
            prompts += p
            options += [[f(x) for f, x in zip(forms, row)] for row in o]
            groups += [f"{task}{n}-{g}" for g in tr.group]
    got = scorer.logprobs(prompts, options, groups=groups if packed else None, progress=False)
    if chat:
        assert packing.common_prefix([scorer.prefix_ids(p) for p in prompts]) >= 10
    if packed:  # the lists really were read once per group
        pre = [scorer.prefix_ids(p) for p in prompts]
        rows = packing.pack(pre, [[scorer.option_ids(o) for o in opts] for opts in options],
                        packing.common_prefix(pre), groups, lm.Scorer.MAX_ROW)
        assert len(rows) == len(set(groups)) < len(prompts)
    worst = 0.0
    for p, opts, lp in zip(prompts, options, got):
        for o, v in zip(opts, lp):
            ids = scorer.prefix_ids(p) + scorer.option_ids(o)
            worst = max(worst, abs(v - hand_logprob(net, ids, len(scorer.option_ids(o)))))
    assert worst < 1e-5


def test_a_group_too_long_for_one_row_spills_into_more():
    tok = tokenizer()
    net = model(len(tok), 1)
    scorer = lm.Scorer((net, tok))
    tr = trials.balanced_trials("identification", 6, 1, 3, years=YEARS, n_names=len(NAMES))
    p, o = lm.paper_prompts(tr, NAMES)
    full = scorer.logprobs(p, o, progress=False)
    scorer.MAX_ROW = 40  # an instance setting: rows of at most ~40 tokens
    split = scorer.logprobs(p, o, groups=tr.group, progress=False)
    assert max(np.abs(a - b).max() for a, b in zip(full, split)) < 1e-5


def test_results_keep_the_prompt_and_rescore(tok, trained, tmp_path):
    scorer = lm.Scorer((trained, tok), batch_tokens=4096)
    tr = trials.balanced_trials("similarity", 3, 4, 3, years=YEARS, n_names=len(NAMES))
    scored = lm.score_trials(scorer, tr, NAMES, progress=False)
    df = lm.to_results(scored, seed=0)
    back = results.read_results(results.write_results(df, tmp_path / "r.csv"))
    assert list(back.prompt) == scored.texts
    for row in back.itertuples():  # anyone can re-score a trial from its row
        ids = list(tok(row.prompt)["input_ids"])
        for o, s in zip(results.split_list(row.options), results.split_list(row.scores)):
            opt = scorer.option_ids(o)
            assert abs(float(s) - hand_logprob(trained, ids + opt, len(opt))) < 1e-4


# --------------------------------------------------------------------------- faster arithmetic

def test_auto_runs_int8_where_it_passes_the_precision_check(tok, trained, monkeypatch):
    monkeypatch.setattr(lm, "fast_bfloat16", lambda device: False)  # a CPU without AMX
    monkeypatch.setattr(lm, "fast_int8", lambda device: True)  # with int8 dot products
    scorer = lm.Scorer((trained, tok), dtype="auto")
    assert scorer.dtype == "int8" and scorer.batch_tokens == 512 and scorer.float32 is trained
    check = scorer.precision["int8"]
    assert check["passes"] and check["prompts"] == 48
    assert max(abs(check["shift_low"]), abs(check["shift_high"])) <= lm.PRECISION_TOLERANCE
    assert list(scorer.precision) == ["int8"]  # the first to pass is used, no other is tried
    full = lm.Scorer((trained, tok))
    tr = trials.balanced_trials("similarity", 2, 3, 5, years=YEARS, n_names=len(NAMES))
    a, b = (lm.score_trials(s, tr, NAMES, progress=False).mass for s in (full, scorer))
    assert np.abs(a - b).max() < 0.05
    with pytest.raises(ValueError, match="dtype must be one of float32, bfloat16, int8, auto"):
        lm.Scorer((trained, tok), dtype="int4")


def test_auto_keeps_float32_where_no_faster_arithmetic_is_fast(tok, trained, monkeypatch):
    # a CPU with neither AMX nor int8 dot products (AVX2 alone): nothing is tried
    monkeypatch.setattr(lm, "cpu_flags", lambda: {"avx2", "fma"})
    scorer = lm.Scorer((trained, tok), dtype="auto")
    assert scorer.dtype == "float32" and scorer.model is trained and scorer.precision == {}
    monkeypatch.setattr(lm, "cpu_flags", lambda: {"avx2", "avx512_vnni"})
    assert lm.fast_int8("cpu") and not lm.fast_bfloat16("cpu")


def test_auto_tries_bfloat16_first_where_it_is_fast(tok, trained, monkeypatch):
    monkeypatch.setattr(lm, "fast_bfloat16", lambda device: True)  # a CPU with AMX
    monkeypatch.setattr(lm, "fast_int8", lambda device: True)
    scorer = lm.Scorer((trained, tok), dtype="auto")
    assert scorer.dtype == "bfloat16" and list(scorer.precision) == ["bfloat16"]
    assert next(scorer.model.parameters()).dtype == scorer.torch.bfloat16
    wrong = model(len(tok), 5)  # bfloat16 that moves the means: int8 is tried next
    monkeypatch.setattr(lm.Scorer, "faster", lambda self, path: (
        wrong if path == "bfloat16" else lm.quantise_int8(self.model, lm._stored_channels(self))))
    scorer = lm.Scorer((trained, tok), dtype="auto")
    assert scorer.dtype == "int8" and list(scorer.precision) == ["bfloat16", "int8"]
    assert not scorer.precision["bfloat16"]["passes"]


@pytest.mark.parametrize("amx", [False, True])
def test_a_faster_path_that_moves_the_means_is_not_used(tok, trained, monkeypatch, amx):
    monkeypatch.setattr(lm, "fast_bfloat16", lambda device: amx)
    monkeypatch.setattr(lm, "fast_int8", lambda device: True)
    wrong = model(len(tok), 5)  # untrained: its answers are not the model's
    monkeypatch.setattr(lm.Scorer, "faster", lambda self, path: wrong)
    scorer = lm.Scorer((trained, tok), dtype="auto")
    assert scorer.dtype == "float32" and scorer.model is trained
    assert list(scorer.precision) == (["bfloat16", "int8"] if amx else ["int8"])
    for check in scorer.precision.values():
        assert not check["passes"] and check["shift_low"] < -lm.PRECISION_TOLERANCE


def test_channels_and_checks_are_measured_once_and_kept(tok, trained, tmp_path, monkeypatch):
    calls = []
    for name in ("outlier_channels", "precision_check"):
        real = getattr(lm, name)
        monkeypatch.setattr(lm, name, lambda *a, real=real, name=name, **k: (
            calls.append(name), real(*a, **k))[1])
    for _ in range(2):
        scorer = lm.Scorer((trained, tok))
        scorer.kept = tmp_path  # as for a GGUF file, beside its dequantised copy
        fast = scorer.faster("int8")
        assert lm._stored_precision_check(scorer, "int8", fast)["passes"]
    assert calls == ["outlier_channels", "precision_check"]
    assert {p.name for p in tmp_path.iterdir()} == {"int8_channels.json", "precision_checks.json"}


@pytest.mark.parametrize("max_row", [lm.Scorer.MAX_ROW, 12])
def test_last_hidden_states_are_those_of_each_text_alone(max_row):
    """Sentences sharing their starts are read as one tree of tokens (spilling into more rows
    when one is too short): every layer's state at each sentence's last token is that of a
    forward of the sentence alone."""
    tok = tokenizer()
    net = model(len(tok), 2)
    scorer = lm.Scorer((net, tok), batch_tokens=40)
    scorer.MAX_ROW = max_row
    texts = [settings.ITEM_TEMPLATE.format(name=n, year=y) for n in NAMES[:3]
             for y in (1500, 1503, 1511)] + ["Alice", "Alice was born in 1500."]
    got = scorer.last_hidden(texts, progress=False)
    assert got.shape == (len(texts), 3, 32)
    for t, h in zip(texts, got):
        ids = torch.tensor([tok(t)["input_ids"]])
        with torch.inference_mode():
            want = torch.stack(net(input_ids=ids, output_hidden_states=True).hidden_states)
        np.testing.assert_allclose(h, want[:, 0, -1].numpy(), atol=1e-5)
    rows = packing.pack([tok(t)["input_ids"] for t in texts], [[] for _ in texts], 0,
                    [0] * len(texts), max_row)
    if max_row == lm.Scorer.MAX_ROW:  # one row, each shared start once
        assert len(rows) == 1 and len(rows[0].ids) < sum(len(tok(t)["input_ids"]) for t in texts)
    else:
        assert len(rows) > 1
