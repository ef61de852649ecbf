"""Candidate log-likelihoods under a causal LM, TWOSOME's way, with the prompt encoded once.

A candidate's score is the sum of its tokens' log-probabilities given the prompt and the tokens
before it, divided by its length (TWOSOME's normalizations: ``"token"`` divides by the number of
tokens, ``"word"`` by the number of whitespace-separated words, which CoPiC uses, ``"sum"`` does
not divide). The policy is the softmax of the normalized scores over the candidates.

Why one packed pass: every candidate shares the prompt (hundreds of tokens) and differs in a
few tokens, so :func:`shared_prefix_logprobs` runs the prompt once and every candidate after it
in the same sequence, ``prompt + c1 + c2 + ...``, with an attention mask that lets each
candidate's tokens see the prompt and their own earlier tokens only, and position ids that
restart after the prompt for each candidate. Each candidate's tokens then get exactly the
logits they get after the prompt alone, and the whole scoring is one forward call: on a CPU
with a small model the per-call overhead is most of the cost, so a key/value cache reused by a
second, batched call (the previous design) reached 4.1x naive, one call 5x and more
(``benchmarks/critic.py``). The output layer is computed only where a candidate token is
predicted. Attention implementations that cannot take such a mask (flash attention) fall back
to the cached two-call path, :func:`cached_prefix_logprobs`. :func:`naive_logprobs` (prompt +
candidate, one sequence at a time) is the reference the tests and the benchmark compare with.

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


def _gather(log_probs, targets):
    return log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)


#: attention implementations that honour a custom 4D mask (the packed pass needs one)
PACKED_ATTENTION = ("sdpa", "eager")


def shared_prefix_logprobs(net, encoded: Encoded, pad_id: int):
    """``(sums, last_hidden)``: each candidate's summed token log-probabilities (a tensor of n,
    differentiable when grad is enabled) and the prompt's last-layer hidden state at its last
    token (for a value head), from one packed forward pass (see the module docstring)."""
    if getattr(net.config, "_attn_implementation", "sdpa") not in PACKED_ATTENTION:
        return cached_prefix_logprobs(net, encoded, pad_id)
    return packed_logprobs(net, encoded)


def packed_logprobs(net, encoded: Encoded):
    """The prompt and every candidate in one sequence and one forward call."""
    import torch

    device = next(net.parameters()).device
    start = len(encoded.prompt)
    flat = [t for cand in encoded.candidates for t in cand]
    total = start + len(flat)
    ids = torch.tensor([encoded.prompt + flat], device=device)
    # which candidate each position belongs to (-1: the prompt) and its position id
    owner = torch.full((total,), -1, dtype=torch.long)
    positions = torch.arange(total)
    at = start
    for i, cand in enumerate(encoded.candidates):
        owner[at:at + len(cand)] = i
        positions[at:at + len(cand)] = torch.arange(start, start + len(cand))
        at += len(cand)
    index = torch.arange(total)
    causal = index.unsqueeze(1) >= index.unsqueeze(0)
    # a key is visible when it is the prompt's or the query's own candidate's (and not after it)
    visible = causal & ((owner.unsqueeze(0) == -1) | (owner.unsqueeze(0) == owner.unsqueeze(1)))
    out = net(input_ids=ids, position_ids=positions.unsqueeze(0).to(device),
              attention_mask=visible[None, None].to(device), use_cache=False,
              output_hidden_states=True, logits_to_keep=1)
    hidden = out.hidden_states[-1][0]
    # the rows that predict a candidate token: the prompt's last position predicts every
    # candidate's first token, a candidate's token predicts its next one
    rows, targets, owners = [], [], []
    at = start
    for i, cand in enumerate(encoded.candidates):
        rows += [start - 1] + list(range(at, at + len(cand) - 1))
        targets += cand
        owners += [i] * len(cand)
        at += len(cand)
    rows_t = torch.tensor(rows, device=device)
    logits = output_logits(net, hidden[rows_t])
    token = _gather(torch.log_softmax(logits.float(), dim=-1),
                    torch.tensor(targets, device=device))
    sums = torch.zeros(len(encoded.candidates), dtype=token.dtype, device=device)
    sums = sums.index_add(0, torch.tensor(owners, device=device), token)
    return sums, hidden[start - 1]


def cached_prefix_logprobs(net, encoded: Encoded, pad_id: int):
    """Two calls: the prompt with its key/value cache, then every candidate as one right-padded
    batch over the repeated cache (for attention implementations without custom masks)."""
    import torch

    device = next(net.parameters()).device
    prompt = torch.tensor([encoded.prompt], device=device)
    # only the last position's logits are needed: the output layer over the whole prompt would
    # cost as much as the model's body for a large vocabulary (Gemma's 262k tokens)
    out = net(input_ids=prompt, use_cache=True, output_hidden_states=True, logits_to_keep=1)
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
    sums = _gather(first.unsqueeze(0).expand(n, -1), ids[:, 0])
    if width > 1:
        # the output layer only where a real token is predicted: with a large vocabulary it
        # costs more than the model's body, and padding would add a third to it
        rest = net(input_ids=ids[:, :-1], past_key_values=cache, position_ids=positions[:, :-1],
                   use_cache=False, output_hidden_states=True, logits_to_keep=1)
        real = mask[:, 1:]
        logits = output_logits(net, rest.hidden_states[-1][real])
        token = _gather(torch.log_softmax(logits.float(), dim=-1), ids[:, 1:][real])
        owner = torch.arange(n, device=device).unsqueeze(1).expand(-1, width - 1)[real]
        sums = sums.index_add(0, owner, token)
    return sums, last_hidden


def output_logits(net, hidden):
    """The model's logits from its last hidden states (after the final norm), as its own forward
    pass computes them: the output layer, then Gemma 2's soft-capping or Cohere's scale where the
    configuration has them."""
    logits = net.get_output_embeddings()(hidden)
    config = net.config
    cap = getattr(config, "final_logit_softcapping", None)
    if cap:
        logits = (logits / cap).tanh() * cap
    scale = getattr(config, "logit_scale", None)
    if scale:
        logits = logits * scale
    return logits


def naive_logprobs(net, encoded: Encoded, *, lean: bool = True):
    """The reference: one forward pass over prompt + candidate for each candidate. ``lean``
    computes the output layer only where the candidate's tokens are predicted, as an efficient
    naive scorer would; ``lean=False`` takes the logits of every position, as a plain
    ``model(ids).logits`` call does."""
    import torch

    device = next(net.parameters()).device
    sums = []
    for cand in encoded.candidates:
        seq = torch.tensor([encoded.prompt + cand], device=device)
        keep = len(cand) + 1 if lean else 0
        logits = net(input_ids=seq, logits_to_keep=keep).logits[0, -(len(cand) + 1):]
        log_probs = torch.log_softmax(logits[:-1].float(), dim=-1)
        targets = seq[0, len(encoded.prompt):]
        sums.append(_gather(log_probs, targets).sum())
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
