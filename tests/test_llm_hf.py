"""HFLocal on a tiny model built here: random weights, a small Llama config, a word-level
tokenizer assembled locally, a chat template; saved to a temporary folder. Nothing is
downloaded (HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import pytest

from conftest import need_module
from pddlkit.llm import LLMError
from pddlkit.llm.usage import UsageLedger

WORDS = ("( ) define domain problem move pick drop room coin north south east west at holding "
         "the a is to and of plan objects init goal :action").split()
TEMPLATE = ("{% for m in messages %}<|im_start|> {{ m['role'] }} {{ m['content'] }} <|im_end|> "
            "{% endfor %}{% if add_generation_prompt %}<|im_start|> assistant {% endif %}")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    torch = need_module("torch", "pip install torch==2.13.0")
    transformers = need_module("transformers", "pip install 'pddlkit[hf]'")
    from tokenizers import Tokenizer, models, pre_tokenizers

    specials = ["[UNK]", "[PAD]", "<|im_start|>", "<|im_end|>", "user", "system", "assistant"]
    vocab = {w: i for i, w in enumerate(dict.fromkeys(specials + WORDS))}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", eos_token="<|im_end|>",
        bos_token="<|im_start|>", chat_template=TEMPLATE)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=256,
        pad_token_id=vocab["[PAD]"], eos_token_id=vocab["<|im_end|>"],
        bos_token_id=vocab["<|im_start|>"])
    net = transformers.LlamaForCausalLM(config)
    path = tmp_path_factory.mktemp("tiny-llama")
    net.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path, tokenizer


def test_hf_local_loads_from_the_folder_and_generates(tiny_model, monkeypatch):
    from pddlkit.llm.hf_local import HFLocal
    from pddlkit.llm.spec import load_llm

    path, tokenizer = tiny_model
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    llm = load_llm(f"hf:{path}", cache=False, ledger=UsageLedger())
    assert isinstance(llm, HFLocal) and llm.device == "cpu" and llm.model == path.name
    messages = [{"role": "system", "content": "the plan is"},
                {"role": "user", "content": "move the coin to the room"}]
    a = llm.complete(messages, max_tokens=8)
    b = llm.complete(messages, max_tokens=8)
    assert a.text == b.text  # greedy at temperature 0
    expected_prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                    tokenize=True)
    if hasattr(expected_prompt, "keys"):
        expected_prompt = expected_prompt["input_ids"]
    assert a.prompt_tokens == len(expected_prompt) == 17
    assert 1 <= a.completion_tokens <= 8
    assert llm.ledger.run.calls == 2 and llm.ledger.run.cost_usd == 0.0
    sampled = {llm.complete(messages, max_tokens=8, temperature=1.5, seed=s).text
               for s in range(6)}
    assert len(sampled) > 1  # sampling with different seeds explores


def test_hf_local_with_a_peft_adapter(tiny_model, tmp_path):
    peft = need_module("peft", "pip install peft")
    import transformers

    from pddlkit.llm.hf_local import HFLocal

    path, _ = tiny_model
    base = transformers.AutoModelForCausalLM.from_pretrained(str(path))
    lora = peft.get_peft_model(base, peft.LoraConfig(r=4, target_modules=["q_proj", "v_proj"],
                                                     init_lora_weights=False))
    adapter = tmp_path / "critic-lora"
    lora.save_pretrained(adapter)
    llm = HFLocal(path, adapter=adapter, cache=False, ledger=UsageLedger())
    assert isinstance(llm.net, peft.PeftModel)
    assert llm.model == f"{path.name}+critic-lora"
    out = llm.complete("pick the coin", max_tokens=4)
    assert 1 <= out.completion_tokens <= 4


def test_hf_local_rejects_a_folder_without_a_model(tmp_path):
    from pddlkit.llm.hf_local import HFLocal

    with pytest.raises(LLMError, match="no config.json") as err:
        HFLocal(tmp_path)
    assert "never downloaded" in err.value.hint
