"""A GGUF model shipped as numbered parts in several packages: assembled in order, every part's
sha256 checked, a damaged or missing part named with the package to reinstall."""

from __future__ import annotations

import hashlib
import os

import pytest

from pddlkit.llm import gguf_parts
from pddlkit.llm.gguf_parts import PartError, SplitGGUF, assemble
from pddlkit.llm.models import KNOWN_MODELS, ModelNotFound, known_gguf


def _packages(root, parts: list[bytes], prefix: str) -> None:
    for i, data in enumerate(parts, start=1):
        folder = root / f"{prefix}{i}" / "data"
        folder.mkdir(parents=True)
        (folder.parent / "__init__.py").write_text("")
        (folder / f"part{i:02d}.bin").write_bytes(data)


def _split(parts: list[bytes], prefix: str) -> SplitGGUF:
    whole = b"".join(parts)
    return SplitGGUF(prefix, prefix.replace("_", "-"), "0.2.0",
                     tuple(hashlib.sha256(p).hexdigest() for p in parts), len(whole),
                     hashlib.sha256(whole).hexdigest())


def test_parts_are_assembled_in_order_and_checked(tmp_path, monkeypatch):
    parts = [b"GGUF" + bytes(range(200)), b"middle" * 50, b"end"]
    _packages(tmp_path / "site", parts, "fake_model_part")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    target = assemble(_split(parts, "fake_model_part"), tmp_path / "out" / "m.gguf")
    assert target.read_bytes() == b"".join(parts)
    assert not list((tmp_path / "out").glob("*.partial*"))


def test_a_damaged_or_missing_part_is_named_and_nothing_half_written_stays(tmp_path, monkeypatch):
    parts = [b"one" * 10, b"two" * 10, b"three" * 10]
    split = _split(parts, "bad_model_part")
    _packages(tmp_path / "site", [parts[0], b"tw0" * 10, parts[2]], "bad_model_part")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with pytest.raises(PartError, match="part 2 .*bad-model-part2.* damaged") as err:
        assemble(split, tmp_path / "out" / "m.gguf")
    assert err.value.package == "bad-model-part2"
    assert not list((tmp_path / "out").iterdir())
    missing = SplitGGUF("absent_model_part", "absent-model-part", "0.2.0", split.part_sha256,
                        split.size, split.sha256)
    with pytest.raises(PartError, match="part 1 of 3 is not installed .*absent-model-part1"):
        assemble(missing, tmp_path / "out" / "m.gguf")



@pytest.mark.skipif(not os.path.exists("/proc/self"), reason="reads /proc (Linux)")
def test_what_a_killed_assembly_left_is_removed_and_a_living_ones_is_kept(tmp_path, monkeypatch):
    """Each process writes its own ``.partial-PID`` (two sweep workers may assemble the model at
    once); a partial whose process is gone (killed mid-write, 1 GB for Qwen) is removed by the
    next assembly, and one a living process is still writing is left alone."""
    import subprocess
    import sys

    out = tmp_path / "out"
    out.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (out / f"m.gguf.partial-{gone}").write_bytes(b"half")
    living = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (out / f"m.gguf.partial-{living.pid}").write_bytes(b"being written")
        parts = [b"GGUF" + b"x" * 20, b"y" * 20]
        _packages(tmp_path / "site", parts, "stale_model_part")
        monkeypatch.syspath_prepend(str(tmp_path / "site"))
        target = assemble(_split(parts, "stale_model_part"), out / "m.gguf")
        assert target.read_bytes() == b"".join(parts)
        assert sorted(p.name for p in out.iterdir()) == ["m.gguf", f"m.gguf.partial-{living.pid}"]
    finally:
        living.kill()
        living.wait()

def test_the_known_model_error_says_which_package_to_reinstall(tmp_path, monkeypatch):
    monkeypatch.setenv("PDDLKIT_CACHE_DIR", str(tmp_path / "cache"))
    parts = [b"a" * 10, b"b" * 10]
    split = _split(parts, "hint_model_part")
    _packages(tmp_path / "site", [parts[0], b"c" * 10], "hint_model_part")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(gguf_parts, "QWEN_CODER_1_5B", split)
    with pytest.raises(ModelNotFound) as err:
        known_gguf(KNOWN_MODELS["qwen2.5-coder-1.5b"])
    assert err.value.hint == "pip install --force-reinstall hint-model-part2==0.2.0"


def test_the_real_qwen_packages_hold_the_whole_model():
    """Every installed part matches its recorded sha256 (the whole file's hash is checked when
    it is assembled, in the real-model tests)."""
    from conftest import _missing

    split = gguf_parts.QWEN_CODER_1_5B
    try:
        files = [split.part_file(i) for i in range(1, len(split.part_sha256) + 1)]
    except PartError as exc:
        _missing(f"{exc} (pip install 'pddlkit[local-llm]')")
    assert sum(f.stat().st_size for f in files) == split.size
