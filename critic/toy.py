"""A toy causal LM for smoke tests and benchmarks: a Llama with random weights and a byte-level
BPE tokenizer trained on household-like commands, saved as a model folder that every loader
(``critic.load(folder)``, ``hf:folder``) reads as it reads a real one. Nothing is downloaded.

``build(folder, hidden=2048, layers=22, heads=32, kv_heads=4, intermediate=5632,
vocab_size=32000, init=0.02)`` gives a model
of TinyLlama 1.1B's shape (not its knowledge) for timing where its weights cannot be had.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

CORPUS = ("go to cabinet 1 go to countertop 1 go to desk 1 go to drawer 1 go to fridge 1 "
          "go to microwave 1 go to sinkbasin 1 go to sofa 1 take creditcard 1 from drawer 1 "
          "put creditcard 1 in/on countertop 1 open fridge 1 close fridge 1 look inventory "
          "examine task observation possible actions next action you are in the middle of a "
          "room looking quickly around you see nothing happens red blue green door the goal is "
          "open the red door open the blue door wait here go north apple mug plate").split()


def build(folder: Path, seed: int = 0, hidden: int = 32, layers: int = 2, init: float = 0.2,
          heads: int = 4, kv_heads: int = 4, intermediate: Optional[int] = None,
          vocab_size: Optional[int] = None):
    """Save a tiny Llama and its tokenizer in ``folder``; return ``(folder, tokenizer)``.

    ``init`` is the weights' standard deviation: at transformers' 0.02 a model this small gives
    every token nearly the same logit, so no adapter could make one candidate confident.
    ``vocab_size`` widens the output layer beyond the tokenizer's few hundred tokens (TinyLlama
    has 32,000), for timings where the output layer's cost matters."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    core = Tokenizer(models.BPE(unk_token=None))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<pad>", "<s>", "</s>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    core.train_from_iterator([" ".join(CORPUS)] * 4, trainer)
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=max(core.get_vocab_size(), vocab_size or 0), hidden_size=hidden,
        intermediate_size=intermediate or 2 * hidden, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads,
        max_position_embeddings=4096, pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        initializer_range=init)
    net = transformers.LlamaForCausalLM(config)
    folder = Path(folder)
    net.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, tokenizer


if __name__ == "__main__":  # python -m pddlkit.critic.toy FOLDER: says so before torch loads
    import sys

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "toy-lm")
    print(f"building a tiny random Llama and its tokenizer in {target} (loading torch first)",
          flush=True)
    build(target)
    print(f"saved in {target}: use it as --critic-model {target}")
