"""The value head: TWOSOME's MLP (hidden -> 1024 -> 512 -> 1, ReLU, no biases), in float32
whatever the language model's dtype, on the prompt's last-token, last-layer hidden state."""

from __future__ import annotations

from typing import Sequence


def value_head(hidden_size: int, layers: Sequence[int] = (1024, 512)):
    import torch

    sizes = [hidden_size, *layers]
    parts: list = []
    for a, b in zip(sizes, sizes[1:]):
        parts += [torch.nn.Linear(a, b, bias=False), torch.nn.ReLU()]
    parts.append(torch.nn.Linear(sizes[-1], 1, bias=False))
    return torch.nn.Sequential(*parts)
