"""The domain-adaptive LoRA critic of CoPiC (``pddlkit.critic``; extra ``critic``).

Needs torch, peft and transformers (``make install-critic``). The core never imports it.
"""
