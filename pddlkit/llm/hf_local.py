"""HFLocal: a Hugging Face causal LM from a local folder, with an optional PEFT adapter.

For users with a fine-tuned or small model on disk and no server: the model's own chat
template builds the prompt, decoding is greedy at temperature 0 and sampled above it, and
token counts come from the model's tokenizer. Nothing is downloaded: the folder must hold the
weights, config and tokenizer (``save_pretrained`` output). torch and transformers are imported
only when an HFLocal is made (``pip install 'pddlkit[hf]'``, torch first; see the README).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Optional, Union

from .base import BaseLLM, CacheSpec, Completion, Request
from .errors import LLMError
from .models import KNOWN_MODELS, import_torch_transformers, resolve_model


class HFLocal(BaseLLM):
    """``HFLocal("/models/qwen2.5-0.5b-instruct", adapter="/runs/critic-lora")``.

    ``device`` defaults to CUDA when available, else CPU; ``dtype`` to the model's own.
    """

    def __init__(self, path: Union[str, os.PathLike], *, adapter: Union[str, os.PathLike, None] = None,
                 device: Optional[str] = None, dtype: Optional[str] = None,
                 max_new_tokens: int = 512, model: Optional[str] = None, cache: CacheSpec = None,
                 ledger=None, transcript=None) -> None:
        super().__init__(cache=cache, ledger=ledger, transcript=transcript)
        self.path = Path(path).expanduser()
        load_args: dict = {}
        name = self.path.name
        if not self.path.is_dir() and (str(path) in KNOWN_MODELS or self.path.suffix == ".gguf"):
            # a known name (hf:gemma-3-270m) or a GGUF file: resolved as the critic resolves it
            source = resolve_model(str(path))
            self.path, load_args, name = source.folder, source.from_pretrained_args(), \
                source.name
        elif not (self.path / "config.json").is_file():
            raise LLMError(f"{self.path} is not a Hugging Face model folder (no config.json)",
                           hint="give the folder that save_pretrained() wrote, a .gguf file, or "
                                f"a known model ({', '.join(KNOWN_MODELS)}); models are never "
                                "downloaded by pddlkit")
        self.adapter = Path(adapter).expanduser() if adapter else None
        self.model = model or name + (f"+{self.adapter.name}" if self.adapter else "")
        self.max_new_tokens = max_new_tokens
        torch, transformers = import_torch_transformers("HFLocal", "hf")
        self._torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(self.path), **load_args)
        kwargs = {"dtype": getattr(torch, dtype)} if dtype else {}
        net = transformers.AutoModelForCausalLM.from_pretrained(str(self.path), **kwargs,
                                                                **load_args)
        if self.adapter is not None:
            try:
                import peft
            except ImportError:
                raise LLMError("an adapter needs peft", hint="pip install peft") from None
            net = peft.PeftModel.from_pretrained(net, str(self.adapter))
        self.net = net.to(self.device).eval()
        self._lock = threading.Lock()  # generate() is not safe to call from two threads

    def prompt_ids(self, request: Request) -> list[int]:
        """The chat template applied to the messages, ready for the assistant's turn."""
        if getattr(self.tokenizer, "chat_template", None):
            ids = self.tokenizer.apply_chat_template(request.message_dicts,
                                                     add_generation_prompt=True, tokenize=True)
            if isinstance(ids, dict) or hasattr(ids, "keys"):  # BatchEncoding in newer versions
                ids = ids["input_ids"]
            return list(ids)
        # no template: plain "role: content" lines, as base models expect text
        text = "".join(f"{r}: {c}\n" for r, c in request.messages) + "assistant:"
        return self.tokenizer(text)["input_ids"]

    def _generate(self, request: Request) -> Completion:
        torch = self._torch
        ids = self.prompt_ids(request)
        start = time.monotonic()
        options: dict = {"max_new_tokens": request.max_tokens or self.max_new_tokens}
        if request.temperature > 0:
            options.update(do_sample=True, temperature=request.temperature, top_p=1.0, top_k=0)
        else:
            options.update(do_sample=False)
        if request.stop:  # stop generating at a stop string, not just cut the text afterwards
            options.update(stop_strings=list(request.stop), tokenizer=self.tokenizer)
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id
        with self._lock, torch.no_grad():
            if request.seed is not None:
                torch.manual_seed(request.seed)
            inputs = torch.tensor([ids], device=self.device)
            output = self.net.generate(input_ids=inputs,
                                       attention_mask=torch.ones_like(inputs),
                                       pad_token_id=pad, **options)
        new = output[0, len(ids):].tolist()
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        for stop in request.stop:  # cut at the first stop string, as servers do
            cut = text.find(stop)
            if cut >= 0:
                text = text[:cut]
        return Completion(text, len(ids), len(new), self.model, time.monotonic() - start,
                          raw={"device": self.device, "generated_ids": len(new)})
