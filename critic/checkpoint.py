"""Saving and loading a critic: adapters, value head, and what they were trained on.

A saved critic is a folder:

    critic.json          model name, base fingerprint, settings, template SHA-256, pddlkit version
    adapter/             the LoRA adapters (as peft's save_pretrained writes them: .adapters)
    value_head.safetensors
    template.txt         the prompt template the critic learned on

Loading checks that the base model is the one the adapters were trained on (by fingerprint, not
only by name) and that the template is the same text; either mismatch is a
:class:`~pddlkit.critic.errors.CheckpointMismatch` naming both sides and the fix
(:meth:`~.model.Critic.load`, which builds the critic; this module only writes and reads the
folder, so it does not import the model). The base weights are never saved: they are the
model's own and are loaded by name.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Union

from . import adapters
from .errors import CriticError

FORMAT = 1


def save(critic, folder: Union[str, Path]) -> Path:
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    adapters.save(critic.net, folder / "adapter")
    save_file({k: v.detach().cpu().contiguous() for k, v in critic.value_head.state_dict().items()},
              str(folder / "value_head.safetensors"))
    (folder / "template.txt").write_text(critic.template.text)
    meta = {"format": FORMAT, "model": critic.model_name, "fingerprint": critic.fingerprint,
            "base": _resolved(critic), "settings": asdict(critic.settings),
            "template_sha256": critic.template.sha256, "pddlkit": _version()}
    (folder / "critic.json").write_text(json.dumps(meta, indent=2) + "\n")
    return folder


def read_meta(folder: Union[str, Path]) -> dict:
    path = Path(folder) / "critic.json"
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise CriticError(f"{folder} is not a saved critic (no critic.json)",
                          hint="give the folder that Critic.save() wrote") from None
    except json.JSONDecodeError as exc:
        raise CriticError(f"{path}: not valid JSON ({exc})",
                          hint="the file was damaged; save the critic again") from None
    if meta.get("format") != FORMAT:
        raise CriticError(f"{path}: format {meta.get('format')!r}, this pddlkit reads {FORMAT}",
                          hint="save the critic again with this version of pddlkit")
    return meta


def _resolved(critic) -> str:
    """Where the base model can be loaded from again: a known name as it is, a folder or a
    file as its absolute path (the name alone is a basename, useless from elsewhere)."""
    name = getattr(critic, "base_reference", None) or critic.model_name
    path = Path(name).expanduser()
    return str(path.resolve()) if path.exists() else name


def base_reference(meta: dict) -> str:
    """What to load the base model from: the resolved base a critic saved now, or the model
    name older critics kept."""
    return meta.get("base") or meta["model"]


def read_part(folder: Union[str, Path], name: str) -> str:
    """A saved critic's text file, or a :class:`CriticError` naming it."""
    path = Path(folder) / name
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CriticError(f"{path} is missing from the saved critic",
                          hint="copy the whole folder Critic.save() wrote") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CriticError(f"{path} cannot be read ({exc})",
                          hint="the file was damaged; save the critic again") from None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pddlkit")
    except PackageNotFoundError:
        return "unknown"
