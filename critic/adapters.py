"""The critic's LoRA adapters through peft's LoRA tuner (``peft.LoraModel``), not its
``PeftModel`` wrapper.

Why: ``PeftModel``'s constructor (``get_peft_model``, ``PeftModel.from_pretrained``; peft 0.21.2,
the newest release) reads ``model.is_gradient_checkpointing``, which transformers 5 deprecated
for ``is_activation_checkpointing``: every critic load printed a transformers
``FutureWarning`` to the user (issue 71). The wrapper reads it only to prepare the model for
gradient checkpointing, which the critic never turns on, and the critic uses nothing else of
the wrapper: the tuner injects the same layers, runs the same forward pass and disables its
adapters the same way. The folder an adapter is saved in keeps ``PeftModel.save_pretrained``'s
layout (``adapter_config.json``, and ``adapter_model.safetensors`` with its
``base_model.model.`` names), so peft itself reads it, and critics saved before load.
"""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path

#: peft's name for a model's one adapter
NAME = "default"
#: the file of the adapters' weights, and the prefix ``PeftModel`` gives their names
WEIGHTS = "adapter_model.safetensors"
PREFIX = "base_model."


def attach(net, config):
    """``net`` with LoRA adapters as ``config`` (a ``peft.LoraConfig``) says, trainable."""
    import peft

    return peft.LoraModel(net, config, NAME)


def load(net, folder: Path):
    """``net`` with the adapters saved in ``folder`` (by :func:`save`, or by peft's
    ``save_pretrained``), trainable; a ValueError when the weights do not fit the config."""
    import peft
    from safetensors.torch import load_file

    config = peft.LoraConfig.from_pretrained(str(folder))
    config.inference_mode = False   # saved as True, as peft saves it: the critic trains on
    model = attach(net, config)
    weights = {k[len(PREFIX):] if k.startswith(PREFIX) else k: v
               for k, v in load_file(str(folder / WEIGHTS)).items()}
    loaded = peft.set_peft_model_state_dict(model, weights, adapter_name=NAME)
    missing = [k for k in loaded.missing_keys if "lora_" in k]
    if loaded.unexpected_keys or missing:
        raise ValueError(f"the weights do not fit the adapters' config (unexpected "
                         f"{loaded.unexpected_keys[:3]}, missing {missing[:3]})")
    return model


def save(model, folder: Path) -> None:
    """``model``'s adapters in ``folder``, as ``PeftModel.save_pretrained`` writes them."""
    import peft
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = peft.get_peft_model_state_dict(model, adapter_name=NAME)
    save_file({PREFIX + k: v.detach().cpu().contiguous() for k, v in state.items()},
              str(folder / WEIGHTS), metadata={"format": "pt"})
    config = copy.copy(model.peft_config[NAME])
    config.inference_mode = True
    config.save_pretrained(str(folder))


@contextlib.contextmanager
def disabled(model):
    """The base model's outputs inside the block (the adapters off, then on again)."""
    model.disable_adapter_layers()
    try:
        yield
    finally:
        model.enable_adapter_layers()
