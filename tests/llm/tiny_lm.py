"""A tiny Llama and a word-level tokenizer built here, for the causal-LM tests of chapter 5:
trained to do identification (or to name a listed person at random), and untrained."""

import numpy as np
import torch

from semres.experiments.llm import competence, lm, packing, settings, trials

NAMES = ("Alice", "Bernard", "Chiara", "Dmitri", "Elena", "Farid")
YEARS = (1500, 1515)  # 16 single-token years
FILLER = (r"\b(was|born|in|Who|Which|person|the|year|Whose|birth|is|closest|nearest|to|with|a|"
          r"single|name|When)\b")
CHAT = ("{% for m in messages %}[BOS] system : You are a helpful assistant . [SEP] user : "
        "{{ m['content'] }} [SEP]{% endfor %}{% if add_generation_prompt %} assistant :"
        "{% endif %}")


def tokenizer():
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors
    from tokenizers import trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    # filler words read as nothing: each name sits next to its year, as short as the task gets
    tok.normalizer = normalizers.Replace(Regex(FILLER), "")
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = [trials.year_prompt(NAMES[:2], (y, y), y, t, k) + " Answer : " + " ".join(NAMES)
              for y in range(YEARS[0], YEARS[1] + 1) for t in settings.TASKS
              for k in range(len(settings.QUESTIONS[t]))]
    corpus.append(competence.reverse_prompt(NAMES[:2], YEARS, NAMES[0]) + " system user "
                  "assistant You are a helpful")
    tok.train_from_iterator(corpus, trainers.WordLevelTrainer(
        special_tokens=["[PAD]", "[BOS]", "[SEP]", "[UNK]"]))
    tok.post_processor = processors.TemplateProcessing(
        single="[BOS] $A", special_tokens=[("[BOS]", tok.token_to_id("[BOS]"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="[BOS]", pad_token="[PAD]",
                                   unk_token="[UNK]", sep_token="[SEP]")


def model(vocab: int, seed: int):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                      max_position_embeddings=128, tie_word_embeddings=False)
    return LlamaForCausalLM(cfg).eval()


def train(net, tok, steps: int, seed: int, shuffle: bool = False):
    """Teach the answer token of identification prompts at n = 2 (or a random listed name).

    Two layers must learn an induction circuit (a name's year points back to the name); the
    loss sits at ln 2 (either listed name) for ~800 steps before it does (~15 s on one core)."""
    scorer = lm.Scorer((net, tok), batch_tokens=4096)
    tr = trials.draw_trials("identification", 2, 4096, seed, years=YEARS, n_names=len(NAMES))
    prompts, people = lm.paper_prompts(tr, NAMES)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, 2, len(tr)) if shuffle else tr.correct.argmax(1)
    target = torch.tensor([tok.convert_tokens_to_ids(p[k]) for p, k in zip(people, pick)])
    ids = [scorer.prefix_ids(p) for p in prompts]
    groups = [np.array(b) for b in packing.length_batches([len(i) for i in ids], len(ids))]
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


def hand_logprob(net, ids, k):
    """Full-sequence forward, the option's k token log-probabilities summed by hand."""
    with torch.no_grad():
        logp = torch.log_softmax(net(input_ids=torch.tensor([ids])).logits[0].double(), -1)
    return sum(float(logp[len(ids) - k - 1 + t, ids[len(ids) - k + t]]) for t in range(k))
