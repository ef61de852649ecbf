"""The critic: a frozen causal LM with LoRA adapters (the actor) and a value head.

``Critic.score(prompt, candidates)`` gives each candidate its log-likelihood, normalized as
TWOSOME compares (by words by default, as CoPiC does), and the softmax policy over them;
``Critic.value(prompt)`` is the value head's estimate. PPO (:mod:`pddlkit.critic.ppo`) trains
the adapters and the head; the base weights never change.

Choices where the papers are silent or differ (written down here, as the guide asks):

- LoRA follows TWOSOME: r = 8, alpha = 16, dropout 0, ``q_proj``/``v_proj`` on every layer
  (:class:`LoraSettings`; ``layers=[-1]`` gives CoPiC's "final transformer block" reading).
- The value head reads the prompt's last hidden state **with the adapters disabled**, as TWOSOME
  does, so its features do not drift while the actor learns; ``value_features="policy"`` reads
  the adapted model's hidden state instead (one forward pass less per step).
- ``device="auto"``: CUDA in bfloat16 when there is a GPU, else CPU in float32. Adapters and the
  value head stay in float32 on both (small learning rates vanish in bfloat16).
- **Work not done twice** (a CoPiC step's time on a CPU, ``benchmarks/critic.py --parts
  step``): a prompt's tokens and its base-model features are kept for the last
  :data:`REMEMBERED` prompts (the base never changes, so a prompt's value features are fixed;
  a PPO update's bootstrap value and the next decision read the same prompt, and PPO's epochs
  re-read every stored prompt); a choice among one candidate is no choice, so
  :meth:`Critic.act` scores nothing then (its log-probability is 0 and PPO's gradient for it
  is exactly zero, so :mod:`~pddlkit.critic.ppo` skips its forward pass too). Decisions carry
  their token counts, so a ledger need not tokenize again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from pddlkit.llm.errors import LLMError
from pddlkit.llm.models import load_causal_lm

from . import adapters, scoring
from .errors import CriticError
from .heads import value_head
from .template import PromptTemplate


#: prompts whose tokens and base features a critic keeps (least recently used first out)
REMEMBERED = 512


class _Remembered(OrderedDict):
    """A small least-recently-used map."""

    def __init__(self, size: int = REMEMBERED) -> None:
        super().__init__()
        self.size = size

    def get_or(self, key, make):
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = self[key] = make()
        if len(self) > self.size:
            self.popitem(last=False)
        return value


@dataclass
class LoraSettings:
    r: int = 8
    alpha: int = 16
    dropout: float = 0.0
    target_modules: tuple[str, ...] = ("q_proj", "v_proj")
    layers: Optional[tuple[int, ...]] = None  # None: every layer; negative counts from the end


@dataclass
class CriticSettings:
    normalization: str = "word"
    lora: LoraSettings = field(default_factory=LoraSettings)
    value_layers: tuple[int, ...] = (1024, 512)
    value_features: str = "base"

    def __post_init__(self) -> None:
        if isinstance(self.lora, dict):
            self.lora = LoraSettings(**{k: tuple(v) if isinstance(v, list) else v
                                        for k, v in self.lora.items()})
        self.value_layers = tuple(self.value_layers)
        if self.normalization not in scoring.NORMALIZATIONS:
            raise CriticError(f"normalization must be one of "
                              f"{', '.join(scoring.NORMALIZATIONS)}, got {self.normalization!r}")
        if self.value_features not in ("base", "policy"):
            raise CriticError(f"value_features must be 'base' or 'policy', got "
                              f"{self.value_features!r}")


@dataclass
class Scores:
    """One scoring: per candidate, the summed log-likelihood, its normalized logit and the
    policy's probability; ``tokens`` and ``words`` are the lengths used."""

    candidates: list[str]
    logprobs: list[float]
    logits: list[float]
    probs: list[float]
    tokens: list[int]
    words: list[int]

    @property
    def best(self) -> int:
        return max(range(len(self.probs)), key=self.probs.__getitem__)


@dataclass
class Decision:
    """A sampled (or greedy) choice with what PPO needs to learn from it later."""

    index: int
    logprob: float
    value: float
    probs: list[float]
    features: Any  # the value head's input (a float32 tensor on the CPU)
    prompt_tokens: int = 0
    candidate_tokens: int = 0


def resolve_device(device: str = "auto"):
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if str(device).startswith("cuda") else torch.float32
    return device, dtype


def base_fingerprint(net) -> str:
    """Names a base model by its architecture and a sample of its weights, so that an adapter is
    never put on another model that happens to share a name or a shape."""
    import torch

    config = net.config
    parts = [getattr(config, "model_type", "?"), getattr(config, "hidden_size", "?"),
             getattr(config, "num_hidden_layers", "?"), getattr(config, "vocab_size", "?")]
    embedding = net.get_input_embeddings().weight
    with torch.no_grad():
        # through bfloat16, so that the same model loaded in float32 (CPU) or bfloat16 (CUDA)
        # has the same fingerprint
        sample = embedding[:8, :16].to(torch.bfloat16).float().cpu().flatten().tolist()
    parts += [f"{x:.6e}" for x in sample]
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:16]


class Critic:
    """``Critic(net, tokenizer, model_name=...)`` wraps a loaded causal LM; most users call
    :func:`load` (a model name, folder or GGUF file) or :meth:`Critic.load` (a saved critic)."""

    #: what the base model was loaded from (a known name, a folder, a file): saved so the
    #: critic can be loaded again from anywhere
    base_reference: Optional[str] = None

    def __init__(self, net, tokenizer, *, model_name: str,
                 settings: Optional[CriticSettings] = None,
                 template: Optional[PromptTemplate] = None, device: str = "auto", seed: int = 0,
                 adapter: Optional[os.PathLike] = None) -> None:
        try:
            import peft
            import torch
        except ImportError as exc:
            raise CriticError(f"the critic needs torch, peft and transformers ({exc})",
                              hint="pip install torch==2.13.0 first, then "
                                   "pip install 'pddlkit[critic]'") from None
        self._torch = torch
        self.settings = settings or CriticSettings()
        self.template = template or PromptTemplate.load()
        self.model_name = model_name
        self.device, self.dtype = resolve_device(device)
        self.tokenizer = tokenizer
        self._encoded = _Remembered()
        self._base_features = _Remembered()
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None \
            else tokenizer.eos_token_id
        self.fingerprint = base_fingerprint(net)
        for p in net.parameters():
            p.requires_grad_(False)
        lora = self.settings.lora
        layers = None
        if lora.layers is not None:
            count = net.config.num_hidden_layers
            layers = sorted({i % count for i in lora.layers})
        net = net.to(self.device, self.dtype)
        try:
            # through peft's LoRA tuner, not PeftModel (see .adapters: a FutureWarning)
            if adapter is not None:  # a saved critic's adapters (pddlkit.critic.checkpoint)
                self.net = adapters.load(net, Path(adapter))
            else:
                config = peft.LoraConfig(
                    r=lora.r, lora_alpha=lora.alpha, lora_dropout=lora.dropout,
                    target_modules=list(lora.target_modules), bias="none",
                    task_type="CAUSAL_LM", layers_to_transform=layers)
                self.net = adapters.attach(net, config)
        except ValueError as exc:
            raise CriticError(f"LoRA cannot be put on {model_name}: {exc}",
                              hint="set LoraSettings.target_modules to this model's attention "
                                   "projection names") from None
        for p in self.net.parameters():  # adapters in float32 (see the docstring)
            if p.requires_grad:
                p.data = p.data.float()
        self.net.eval()
        with torch.random.fork_rng(devices=[]):  # a seeded head, the caller's RNG untouched
            torch.manual_seed(seed)
            self.value_head = value_head(net.config.hidden_size, self.settings.value_layers)
        self.value_head.to(self.device)

    # -- parameters -----------------------------------------------------------------------
    def policy_parameters(self) -> list:
        return [p for p in self.net.parameters() if p.requires_grad]

    def value_parameters(self) -> list:
        return list(self.value_head.parameters())

    # -- scoring --------------------------------------------------------------------------
    def encode(self, prompt: str, candidates: Sequence[str]) -> scoring.Encoded:
        if not candidates:
            raise CriticError("no candidates to score", hint="pass at least one candidate")
        candidates = tuple(candidates)
        return self._encoded.get_or((prompt, candidates),
                                    lambda: scoring.encode(self.tokenizer, prompt, candidates))

    def policy_logits(self, prompt: str, candidates: Sequence[str]):
        """Normalized logits (a tensor, with grad if enabled) and the adapted model's last hidden
        state of the prompt."""
        encoded = self.encode(prompt, candidates)
        sums, hidden = scoring.shared_prefix_logprobs(self.net, encoded, self.pad_id)
        return scoring.normalize(sums, encoded, candidates, self.settings.normalization), \
            sums, encoded, hidden

    def score(self, prompt: str, candidates: Sequence[str]) -> Scores:
        torch = self._torch
        candidates = list(candidates)
        with torch.no_grad():
            logits, sums, encoded, _ = self.policy_logits(prompt, candidates)
            probs = torch.softmax(logits, dim=-1)
        return Scores(candidates, sums.tolist(), logits.tolist(), probs.tolist(),
                      [len(c) for c in encoded.candidates], [len(c.split()) for c in candidates])

    def features(self, prompt: str, hidden=None):
        """The value head's input for a prompt (float32, CPU, no grad)."""
        torch = self._torch
        if self.settings.value_features == "policy" and hidden is not None:
            return hidden.detach().float().cpu()
        base = self.settings.value_features == "base"

        def forward():
            ids = torch.tensor([scoring.prompt_ids(self.tokenizer, prompt)], device=self.device)
            with torch.no_grad(), (adapters.disabled(self.net) if base
                                   else contextlib.nullcontext()):
                out = self.net(input_ids=ids, output_hidden_states=True, logits_to_keep=1)
            return out.hidden_states[-1][0, -1].float().cpu()

        # the base never changes: its features for a prompt are fixed (the adapted ones are not)
        return self._base_features.get_or(prompt, forward) if base else forward()

    def value_of(self, features) -> float:
        with self._torch.no_grad():
            return float(self.value_head(features.to(self.device)).squeeze(-1))

    def value(self, prompt: str) -> float:
        return self.value_of(self.features(prompt))

    def act(self, prompt: str, candidates: Sequence[str], *, sample: bool = True,
            generator=None) -> Decision:
        """Choose a candidate: sampled from the policy (training, as TWOSOME and CoPiC do) or
        the most probable one (``sample=False``)."""
        torch = self._torch
        candidates = list(candidates)
        encoded = self.encode(prompt, candidates)
        tokens = (len(encoded.prompt), sum(len(c) for c in encoded.candidates))
        if len(candidates) == 1:   # no choice: nothing to score (log-probability 0)
            features = self.features(prompt)
            return Decision(0, 0.0, self.value_of(features), [1.0], features, *tokens)
        with torch.no_grad():
            logits, _, _, hidden = self.policy_logits(prompt, candidates)
            log_probs = torch.log_softmax(logits, dim=-1)
            if sample:
                index = int(torch.multinomial(log_probs.exp().cpu(), 1, generator=generator))
            else:
                index = int(torch.argmax(log_probs))
        features = self.features(prompt, hidden)
        return Decision(index, float(log_probs[index]), self.value_of(features),
                        log_probs.exp().tolist(), features, *tokens)

    # -- saving ---------------------------------------------------------------------------
    def save(self, folder) -> os.PathLike:
        from .checkpoint import save

        return save(self, folder)

    @classmethod
    def load(cls, folder, *, model: Optional[str] = None, device: str = "auto",
             template: Optional[PromptTemplate] = None, net=None, tokenizer=None) -> "Critic":
        """The critic saved in ``folder``, on ``model`` (default: the model it names) or on an
        already loaded ``net``/``tokenizer``; a base model or template other than the one it
        learned on is a :class:`CheckpointMismatch` naming both."""
        from safetensors.torch import load_file

        from .checkpoint import base_reference, read_meta, read_part
        from .errors import CheckpointMismatch

        folder = Path(folder)
        meta = read_meta(folder)
        settings = CriticSettings(**meta["settings"])
        saved_template = PromptTemplate(read_part(folder, "template.txt"), str(folder))
        template = template or saved_template
        if template.sha256 != meta["template_sha256"]:
            raise CheckpointMismatch(
                f"{folder}: the critic learned on prompt template "
                f"{meta['template_sha256'][:12]}, but {template.source} is "
                f"{template.sha256[:12]}",
                hint=f"use the saved template ({folder / 'template.txt'}), or train a new critic "
                     "on the changed template")
        name = model or base_reference(meta)
        if net is None:
            net, tokenizer, name = load_base(name, device)
        fingerprint = base_fingerprint(net)
        if fingerprint != meta["fingerprint"]:
            raise CheckpointMismatch(
                f"{folder}: the adapters were trained on {meta['model']} (fingerprint "
                f"{meta['fingerprint']}), not on {name} (fingerprint {fingerprint})",
                hint=f"load it with model={base_reference(meta)!r}, the base model it was "
                     "trained on")
        adapter = folder / "adapter"
        if not (adapter / "adapter_config.json").is_file():
            raise CriticError(f"{adapter}: the saved LoRA adapters are missing",
                              hint="copy the whole folder Critic.save() wrote, or train and "
                                   "save the critic again")
        try:
            critic = cls(net, tokenizer, model_name=name, settings=settings, template=template,
                         device=device, adapter=adapter)
        except CriticError:
            raise
        except Exception as exc:  # noqa: BLE001 - a damaged file, in peft's or torch's words
            raise CriticError(f"{adapter}: the saved LoRA adapters cannot be read "
                              f"({type(exc).__name__}: {str(exc)[:200]})",
                              hint="the files were damaged; save the critic again") from None
        head = folder / "value_head.safetensors"
        try:
            critic.value_head.load_state_dict(load_file(str(head)))
        except FileNotFoundError:
            raise CriticError(f"{head}: the saved value head is missing",
                              hint="copy the whole folder Critic.save() wrote") from None
        except Exception as exc:  # noqa: BLE001 - safetensors' or torch's own words
            raise CriticError(f"{head}: the saved value head cannot be read "
                              f"({type(exc).__name__}: {str(exc)[:200]})",
                              hint="the file was damaged; save the critic again") from None
        critic.value_head.to(critic.device)
        critic.base_reference = model or base_reference(meta)
        return critic

    def describe(self) -> dict:
        return {"model": self.model_name, "fingerprint": self.fingerprint,
                "device": str(self.device), "dtype": str(self.dtype).replace("torch.", ""),
                "settings": asdict(self.settings), "template_sha256": self.template.sha256,
                "trainable": sum(p.numel() for p in self.policy_parameters()),
                "value_head": sum(p.numel() for p in self.value_parameters())}


def default_model() -> str:
    """What ``model="auto"`` means: TinyLlama (CoPiC's critic) where the local Hugging Face cache
    has it, else Gemma 3 270M where its package is installed."""
    from pddlkit.llm.models import KNOWN_MODELS, ModelNotFound, resolve_model

    tried = []
    for name in ("tinyllama", "gemma-3-270m"):
        try:
            resolve_model(name)
            return name
        except ModelNotFound as exc:
            tried.append(f"{name}: {exc.message}")
    raise CriticError("no critic model on this machine (" + "; ".join(tried) + ")",
                      hint=f"pip install {KNOWN_MODELS['gemma-3-270m'].pip_name} gguf, or pass "
                           "a model folder or .gguf file")


def load_base(model: str, device: str = "auto"):
    """``(net, tokenizer, name)`` of a base model (``"auto"``: :func:`default_model`), errors as
    :class:`CriticError`."""
    if model == "auto":
        model = default_model()
    device, dtype = resolve_device(device)
    try:
        net, tokenizer, source = load_causal_lm(model, dtype=dtype, device=device)
    except LLMError as exc:
        raise CriticError(exc.message, hint=exc.hint) from None
    return net, tokenizer, source.name


def load(model: str = "auto", *, settings: Optional[CriticSettings] = None,
         template=None, device: str = "auto", seed: int = 0) -> Critic:
    """A fresh critic on a model: a known name (``"gemma-3-270m"``, ``"tinyllama"``), a model
    folder or a ``.gguf`` file (``"auto"``: :func:`default_model`). Nothing is downloaded; a
    missing model says what to install."""
    net, tokenizer, name = load_base(model, device)
    if not isinstance(template, PromptTemplate):
        template = PromptTemplate.load(template)
    critic = Critic(net, tokenizer, model_name=name, settings=settings, template=template,
                    device=device, seed=seed)
    critic.base_reference = name if model == "auto" else model   # what save() records
    return critic
