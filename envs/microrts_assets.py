"""MicroRTS's engine files: ``microrts.jar``, the CoacAI bot (``Coac.jar``), the maps and the
licence, taken from the ``gym-microrts`` 0.4.3 source distribution on the package index (its
Python wrapper pins gym 0.18, which does not install on Python 3.11, so only the files are
used). MicroRTS is GPL-3.0; the files are installed, never vendored in this repository.

    python -m pddlkit.envs.microrts_assets [--dest DIR]     # make test runs this

The files go to ``$PDDLKIT_MICRORTS_HOME`` or, by default, ``<venv>/share/pddlkit-microrts``;
:func:`home` finds them, or says how to install them. Nothing is downloaded at run time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SDIST = "gym-microrts==0.4.3"
INNER = "gym_microrts/microrts/"
KEEP = ("microrts.jar", "Coac.jar", "LICENSE", "maps/")


class MicroRTSMissing(RuntimeError):
    """The engine files or Java are not installed; the message says how to install them."""


def default_home() -> Path:
    return Path(os.environ.get("PDDLKIT_MICRORTS_HOME") or
                Path(sys.prefix) / "share" / "pddlkit-microrts")


def home() -> Path:
    """The folder with ``microrts.jar``; :class:`MicroRTSMissing` if it is not installed."""
    folder = default_home()
    if not (folder / "microrts.jar").is_file():
        raise MicroRTSMissing(
            f"MicroRTS is not installed in {folder}: run `python -m pddlkit.envs.microrts_assets`"
            f" (make test does), or set PDDLKIT_MICRORTS_HOME to a folder with microrts.jar")
    if shutil.which("java") is None:
        raise MicroRTSMissing("MicroRTS needs Java 11 or newer: install openjdk-17-jre-headless "
                              "(make test does with apt where java is missing)")
    return folder


def install(dest: Path | None = None, quiet: bool = False) -> Path:
    dest = Path(dest or default_home())
    if (dest / "microrts.jar").is_file():
        return dest
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", "-q", "-d", tmp, SDIST], check=True)
        archive = next(Path(tmp).glob("gym-microrts-*.tar.gz"))
        staging = Path(tmp) / "out"
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                _, _, inner = member.name.partition("/")
                if not inner.startswith(INNER) or not member.isfile():
                    continue
                rel = inner[len(INNER):]
                if not any(rel == k or (k.endswith("/") and rel.startswith(k)) for k in KEEP):
                    continue
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(member) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            shutil.rmtree(dest)
        shutil.move(str(staging), dest)
    if not quiet:
        print(f"MicroRTS installed in {dest}")
    return dest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="install MicroRTS's engine files")
    parser.add_argument("--dest", type=Path)
    args = parser.parse_args(argv)
    install(args.dest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
