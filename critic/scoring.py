"""Candidate log-likelihoods under a causal LM, TWOSOME's way, with the prompt encoded once.

A candidate's score is the sum of its tokens' log-probabilities given the prompt and the tokens
before it, divided by its length (TWOSOME's normalizations: ``"token"`` divides by the number of
tokens, ``"word"`` by the number of whitespace-separated words, which CoPiC uses, ``"sum"`` does
not divide). The policy is the softmax of the normalized scores over the candidates.

Why a key/value cache: every candidate shares the prompt (hundreds of tokens) and differs in a
few tokens, so :func:`shared_prefix_logprobs` runs the prompt once, repeats its cache once per
candidate, and runs all candidates as one right-padded batch. Right padding needs no attention
mask: a pad token only ever follows the real tokens, and causal attention keeps it out of their
logits. :func:`naive_logprobs` (prompt + candidate, one sequence at a time) is the reference the
tests and the benchmark compare with.

Token boundaries: the prompt and each candidate are tokenized separately (the candidate with a
leading space, as ``prompt + " " + action`` reads in TWOSOME) and concatenated as ids, so both
functions see exactly the same token sequences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

NORMALIZATIONS = ("token", "word", "sum")


@dataclass
class Encoded:
    """A prompt's ids and each candidate's ids (at least one token each)."""

    prompt: list[int]
    candidates: list[list[int]]


def prompt_ids(tokenizer, prompt: str) -> list[int]:
    ids = list(tokenizer(prompt, add_special_tokens=True)["input_ids"])
    if not ids:  # a tokenizer that adds no BOS and an empty prompt: start from BOS or EOS
        ids = [tokenizer.bos_token_id if tokenizer.bos_token_id is not None
               else tokenizer.eos_token_id]
    return ids


def encode(tokenizer, prompt: str, candidates: Sequence[str]) -> Encoded:
    ids = []
    for text in candidates:
        tokens = list(tokenizer(" " + text.strip(), add_special_tokens=False)["input_ids"])
        if not tokens:
            raise ValueError(f"candidate {text!r} has no tokens; candidates must be non-empty")
        ids.append(tokens)
    return Encoded(prompt_ids(tokenizer, prompt), ids)


def _gather(torch, log_probs, targets):
    return log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)


def shared_prefix_logprobs(net, encoded: Encoded, pad_id: int):
    """``(sums, last_hidden)``: each candidate's summed token log-probabilities (a tensor of n,
    differentiable when grad is enabled) and the prompt's last-layer hidden state at its last
    token (for a value head)."""
    import torch

    device = next(net.parameters()).device
    prompt = torch.tensor([encoded.prompt], device=device)
    out = net(input_ids=prompt, use_cache=True, output_hidden_states=True)
    last_hidden = out.hidden_states[-1][0, -1]
    first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)  # the first candidate token
    n = len(encoded.candidates)
    width = max(len(c) for c in encoded.candidates)
    ids = torch.full((n, width), pad_id, dtype=torch.long, device=device)
    mask = torch.zeros((n, width), dtype=torch.bool, device=device)
    for i, cand in enumerate(encoded.candidates):
        ids[i, :len(cand)] = torch.tensor(cand, device=device)
        mask[i, :len(cand)] = True
    cache = out.past_key_values
    cache.batch_repeat_interleave(n)
    start = len(encoded.prompt)
    positions = torch.arange(start, start + width, device=device).unsqueeze(0).expand(n, -1)
    sums = _gather(torch, first.unsqueeze(0).expand(n, -1), ids[:, 0])
    if width > 1:
        rest = net(input_ids=ids[:, :-1], past_key_values=cache, position_ids=positions[:, :-1],
                   use_cache=False).logits
        log_probs = torch.log_softmax(rest.float(), dim=-1)
        token = _gather(torch, log_probs, ids[:, 1:])
        sums = sums + (token * mask[:, 1:]).sum(dim=1)
    return sums, last_hidden


def naive_logprobs(net, encoded: Encoded):
    """The reference: one forward pass over prompt + candidate for each candidate."""
    import torch

    device = next(net.parameters()).device
    sums = []
    for cand in encoded.candidates:
        seq = torch.tensor([encoded.prompt + cand], device=device)
        log_probs = torch.log_softmax(net(input_ids=seq).logits[0].float(), dim=-1)
        start = len(encoded.prompt)
        targets = seq[0, start:]
        sums.append(_gather(torch, log_probs[start - 1:-1], targets).sum())
    return torch.stack(sums)


def normalize(sums, encoded: Encoded, candidates: Sequence[str], mode: str):
    """Divide summed log-probabilities by each candidate's length in tokens or words."""
    import torch

    if mode == "sum":
        return sums
    if mode == "token":
        lengths = [len(c) for c in encoded.candidates]
    elif mode == "word":
        lengths = [max(1, len(text.split())) for text in candidates]
    else:
        raise ValueError(f"normalization must be one of {', '.join(NORMALIZATIONS)}, got {mode!r}")
    return sums / torch.tensor(lengths, dtype=sums.dtype, device=sums.device)
