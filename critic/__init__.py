"""The LoRA critic (``pddlkit.critic``; extra ``critic``): TWOSOME-style scoring of candidate
actions by a causal LM's likelihood, a value head, and PPO on an environment's reward.

    from pddlkit import critic
    c = critic.load("gemma-3-270m")                 # or a model folder, a .gguf file, "tinyllama"
    c.score(prompt, ["go to fridge 1", "open fridge 1"]).probs
    trainer = critic.PPOTrainer(c, critic.PPOConfig(policy_lr=1e-4))

Needs torch, peft and transformers (``pip install torch==2.13.0`` first, then
``pip install 'pddlkit[critic]'``). The core never imports it; CoPiC and the TWOSOME agent
(``pddlkit run twosome``) use it.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "Critic": ".model", "CriticSettings": ".model", "LoraSettings": ".model", "Scores": ".model",
    "Decision": ".model", "load": ".model", "resolve_device": ".model",
    "PPOConfig": ".ppo", "PPOTrainer": ".ppo", "Transition": ".ppo", "UpdateStats": ".ppo",
    "gae": ".ppo", "explained_variance": ".ppo",
    "PromptTemplate": ".template", "CriticError": ".errors", "CheckpointMismatch": ".errors",
    "TwosomeAgent": ".twosome",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Lazy: ``import pddlkit.critic`` works without torch; using a name needs it."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pddlkit.critic' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name], __name__), name)
