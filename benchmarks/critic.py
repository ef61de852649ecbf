"""The critic's speed: candidates scored per second, naive (prompt + candidate, one sequence at
a time) against packed scoring (the prompt and every candidate in one sequence, an attention
mask letting each candidate see the prompt and its own earlier tokens only; for attention
without custom masks, the prompt's key/value cache reused by all candidates in one padded
batch); one PPO update's wall time; peak memory. Each model runs in its own process, so that
peak memory is its own.

    .venv/bin/python benchmarks/critic.py [--models tiny,gemma-3-270m,tinyllama-shape]
                                          [--device auto] [--ppo-steps 128] [--repeats 3]
                                          [--parts scoring,step] [--episodes 3]

Two naive references: "naive" takes the logits of every position, as a plain
``model(ids).logits`` call gives them; "lean" computes the output layer only where candidate
tokens are predicted (the stronger baseline; Gemma's 262k-token output layer makes the
difference large). Targets (issue 16): batched >= 5x naive on CPU at 8 candidates of ~10
tokens after a ~300-token prompt; on a GPU, >= 2,000 candidates/s in bf16 for a
TinyLlama-sized model. "tiny" is the toy Llama of ``pddlkit.critic.toy``; "tinyllama-shape" is
a random model of TinyLlama 1.1B's shape (22 layers, hidden 2048, 32,000 tokens), since its
weights cannot be downloaded here; speed does not depend on the weights. The largest score
difference between the paths is printed (gap).

``--parts step`` answers where a CoPiC step's time goes: CoPiC learns with PPO on SC2 Easy
(the stand-in writer's three programs, K = ``--ppo-steps`` transitions per update, shaping 0.5)
for ``--episodes`` episodes, and each part's own time (time spent in parts it calls is theirs)
is printed per decision: the programs in the sandbox, the simulator, the prompt's rendering,
tokenizing, the policy's forward pass, the value head's base-model features, the ledger, and
per PPO update. Counts say how often the model ran and how often it did not have to (a
single distinct plan, base features already computed for that prompt). Run it at an older
commit for the before figures: it wraps only functions both have.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

WORDS = ("you arrive at the cabinet 1 . on the countertop 1 you see a apple 1 , a mug 2 , and a "
         "knife 1 . the fridge 1 is closed . your task is to put a clean mug in the coffeemachine"
         " .").split()
CANDIDATES = ["go to countertop 1 and look at it", "take mug 2 from countertop 1 now",
              "open the fridge 1 and look inside", "go to sinkbasin 1 to clean the mug",
              "put mug 2 in/on coffeemachine 1 please", "examine the knife 1 on the countertop",
              "close the fridge 1 and go back", "go to the cabinet 1 and open it"]
TOY = {"tiny": {}, "tinyllama-shape": dict(hidden=2048, layers=22, heads=32, kv_heads=4,
                                           intermediate=5632, vocab_size=32000, init=0.02)}


def _prompt(tokenizer, tokens: int = 300) -> str:
    rng = random.Random(0)
    words: list[str] = []
    while len(tokenizer(" ".join(words))["input_ids"]) < tokens:
        words += rng.sample(WORDS, 10)
    return " ".join(words)


def measure(model: str, device: str, ppo_steps: int, repeats: int) -> dict:
    import torch

    from pddlkit import critic
    from pddlkit.critic import scoring, toy

    with tempfile.TemporaryDirectory() as tmp:
        if model in TOY:
            toy.build(tmp, **TOY[model])
            c = critic.load(tmp, device=device)
        else:
            c = critic.load(model, device=device)
        prompt = _prompt(c.tokenizer)
        encoded = c.encode(prompt, CANDIDATES)
        sync = torch.cuda.synchronize if str(c.device).startswith("cuda") else (lambda: None)

        def timed(fn):
            with torch.no_grad():
                fn()  # warm-up
                sync()
                best = float("inf")
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    out = fn()
                    sync()
                    best = min(best, time.perf_counter() - t0)
            return best, out

        plain_s, plain = timed(lambda: scoring.naive_logprobs(c.net, encoded, lean=False))
        naive_s, naive = timed(lambda: scoring.naive_logprobs(c.net, encoded))
        batched_s, (batched, _) = timed(
            lambda: scoring.shared_prefix_logprobs(c.net, encoded, c.pad_id))
        cached_s, _ = timed(lambda: scoring.cached_prefix_logprobs(c.net, encoded, c.pad_id))
        gap = max(float((naive.float() - batched.float()).abs().max()),
                  float((plain.float() - batched.float()).abs().max()))
        trainer = critic.PPOTrainer(c, critic.PPOConfig(steps_per_update=ppo_steps,
                                                        policy_lr=1e-5, target_kl=None))
        g = torch.Generator().manual_seed(0)
        t0 = time.perf_counter()
        for i in range(ppo_steps):
            d = c.act(prompt, CANDIDATES, generator=g)
            trainer.add(critic.Transition(prompt, CANDIDATES, d.index, d.logprob, d.value,
                                          float(d.index == 1), i % 16 == 15, d.features))
        rollout_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        trainer.update()
        sync()
        update_s = time.perf_counter() - t0
        gpu_peak = torch.cuda.max_memory_allocated() / 2**20 if torch.cuda.is_available() else None
        return {"model": model if model in TOY else c.model_name, "device": str(c.device),
                "dtype": str(c.dtype).replace("torch.", ""), "prompt_tokens": len(encoded.prompt),
                "candidate_tokens": [len(x) for x in encoded.candidates],
                "plain_per_s": len(CANDIDATES) / plain_s, "naive_per_s": len(CANDIDATES) / naive_s,
                "batched_per_s": len(CANDIDATES) / batched_s, "speedup": plain_s / batched_s,
                "cached_per_s": len(CANDIDATES) / cached_s,
                "speedup_lean": naive_s / batched_s,
                "max_score_gap": gap, "ppo_steps": ppo_steps, "rollout_s": rollout_s,
                "update_s": update_s,
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "peak_gpu_mib": gpu_peak}


class Profile:
    """Exclusive wall time per named part: a part's time excludes the parts it calls, except
    inside a part named in ``absorbing`` (a PPO update's forward passes are the update's)."""

    def __init__(self, absorbing: tuple[str, ...] = ("PPO update",)) -> None:
        self.own: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.stack: list[list] = []
        self.absorbing = absorbing

    def wrap(self, owner, attr: str, name: str) -> None:
        inner = getattr(owner, attr)

        def timed(*args, **kwargs):
            if any(frame[0] in self.absorbing for frame in self.stack):
                return inner(*args, **kwargs)
            frame = [name, time.perf_counter(), 0.0]
            self.stack.append(frame)
            try:
                return inner(*args, **kwargs)
            finally:
                self.stack.pop()
                spent = time.perf_counter() - frame[1]
                self.own[name] = self.own.get(name, 0.0) + spent - frame[2]
                self.calls[name] = self.calls.get(name, 0) + 1
                if self.stack:
                    self.stack[-1][2] += spent

        setattr(owner, attr, timed)


def step_breakdown(model: str, device: str, episodes: int, ppo_steps: int) -> dict:
    """CoPiC learning on SC2 Easy with ``model`` as the critic, every part timed."""
    from pddlkit import critic
    from pddlkit.critic import scoring, toy
    from pddlkit.critic.model import CriticSettings
    from pddlkit.critic.ppo import PPOConfig, PPOTrainer
    from pddlkit.programs.copic.loop import Copic, CopicConfig
    from pddlkit.programs.copic.sc2_world import SC2World
    from pddlkit.programs.copic.standin import DEFAULT_SETS, CopicWriter

    prof = Profile()
    tmp = tempfile.mkdtemp(prefix="critic-step-")
    if model in TOY:
        toy.build(tmp, **TOY[model])
        c = critic.load(tmp, device=device, template="copic",
                        settings=CriticSettings(normalization="token"))
    else:
        c = critic.load(model, device=device, template="copic")
    forwards = [0]
    c.net.register_forward_hook(lambda *a: forwards.__setitem__(0, forwards[0] + 1))
    prof.wrap(scoring, "shared_prefix_logprobs", "policy forward")
    prof.wrap(scoring, "encode", "tokenize")
    prof.wrap(c, "features", "base features")
    prof.wrap(type(c.template), "render", "prompt render")
    prof.wrap(PPOTrainer, "update", "PPO update")
    world = SC2World("easy")
    prof.wrap(world, "execute", "simulator")
    prof.wrap(world, "potential", "shaping estimate")
    config = CopicConfig(critic="ppo", programs=3, evolve=False, episodes_per_round=episodes,
                         summary_episodes=1, max_rounds=0, shaping=0.5)
    copic = Copic(world, CopicWriter("sc2", DEFAULT_SETS["sc2"]).llm(), c, config,
                  ppo=PPOConfig(steps_per_update=ppo_steps, policy_batch=32, epochs=2))
    prof.wrap(copic, "_propose", "programs (sandbox)")
    prof.wrap(copic, "_record_critic", "ledger")
    single = [0]
    act = c.act

    def counting_act(prompt, candidates, **kwargs):
        single[0] += len(candidates) == 1
        return act(prompt, candidates, **kwargs)

    c.act = counting_act
    with copic:
        copic.program_set(world.task_type)   # programs are written before the clock starts
        prof.own.clear()
        prof.calls.clear()
        forwards[0] = 0
        single[0] = 0
        t0 = time.perf_counter()
        records = copic.learn(range(100, 100 + episodes))
        total = time.perf_counter() - t0
    decisions = prof.calls.get("simulator", 0)
    return {"model": model if model in TOY else c.model_name, "device": str(c.device),
            "episodes": episodes, "decisions": decisions, "total_s": total,
            "own": prof.own, "calls": prof.calls, "forwards": forwards[0],
            "single": single[0], "updates": prof.calls.get("PPO update", 0),
            "rounds": len(records)}


def print_breakdown(r: dict) -> None:
    n = max(1, r["decisions"])
    print(f"\nwhere a CoPiC step's time goes: {r['model']} on {r['device']}, SC2 Easy, "
          f"{r['episodes']} learning episodes, {r['decisions']} steps, {r['updates']} PPO "
          f"update(s); {r['total_s']:.1f} s in all, {1000 * r['total_s'] / n:.1f} ms a step")
    update = r["own"].get("PPO update", 0.0)
    parts = sorted(((k, v) for k, v in r["own"].items() if k != "PPO update"),
                   key=lambda kv: -kv[1])
    accounted = sum(r["own"].values())
    for name, spent in parts:
        print(f"  {name:<20} {1000 * spent / n:>9.2f} ms/step  {r['calls'].get(name, 0):>6} calls")
    print(f"  {'the loop itself':<20} {1000 * (r['total_s'] - accounted) / n:>9.2f} ms/step")
    if r["updates"]:
        print(f"  {'PPO update':<20} {update / r['updates']:>9.2f} s/update  "
              f"({1000 * update / n:.2f} ms/step amortized)")
    print(f"  model forward passes: {r['forwards']} ({r['forwards'] / n:.2f} a step, PPO's "
          f"included); "
          f"single-candidate steps (no scoring needed): {r['single']}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="tiny,gemma-3-270m")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--ppo-steps", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parts", default="scoring,step")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--step-one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    print(f"benchmarks/critic.py: critic scoring, naive vs packed, and where a CoPiC step's time goes (loads torch and the models first)", flush=True)  # a first line at once
    if args.one:
        print(json.dumps(measure(args.one, args.device, args.ppo_steps, args.repeats)))
        return
    if args.step_one:
        print(json.dumps(step_breakdown(args.step_one, args.device, args.episodes,
                                        args.ppo_steps)))
        return
    parts = args.parts.split(",")
    if "scoring" in parts:
        scoring_table(args)
    if "step" in parts:
        for model in args.models.split(","):
            out = subprocess.run([sys.executable, __file__, "--step-one", model, "--device",
                                  args.device, "--episodes", str(args.episodes),
                                  "--ppo-steps", str(args.ppo_steps)],
                                 capture_output=True, text=True, env={**os.environ})
            if out.returncode != 0:
                print(f"{model}: step breakdown failed\n{out.stderr[-1500:]}")
                continue
            print_breakdown(json.loads(out.stdout.strip().splitlines()[-1]))


def scoring_table(args) -> None:
    rows = []
    for model in args.models.split(","):
        out = subprocess.run([sys.executable, __file__, "--one", model, "--device", args.device,
                              "--ppo-steps", str(args.ppo_steps), "--repeats", str(args.repeats)],
                             capture_output=True, text=True, env={**os.environ})
        if out.returncode != 0:
            print(f"{model}: failed\n{out.stderr[-1500:]}")
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    gpu = any(r["device"].startswith("cuda") for r in rows)
    print(f"8 candidates of ~10 tokens after a ~300-token prompt; PPO update of "
          f"{args.ppo_steps} transitions")
    print(f"{'model':<16} {'device':<6} {'dtype':<9} {'prompt':>6} {'naive/s':>8} "
          f"{'lean/s':>8} {'2-call/s':>9} {'batched/s':>10} {'speedup':>8} {'vs lean':>8} {'target':>14} "
          f"{'gap':>8} {'rollout s':>9} "
          f"{'update s':>9} {'peak RSS MiB':>12} {'peak GPU MiB':>12}")
    for r in rows:
        target = ">= 2000/s" if r["device"].startswith("cuda") else ">= 5x"
        met = (r["batched_per_s"] >= 2000) if r["device"].startswith("cuda") else \
            (r["speedup"] >= 5)
        gpu_mem = f"{r['peak_gpu_mib']:.0f}" if r["peak_gpu_mib"] is not None else "-"
        print(f"{r['model']:<16} {r['device']:<6} {r['dtype']:<9} {r['prompt_tokens']:>6} "
              f"{r['plain_per_s']:>8.1f} {r['naive_per_s']:>8.1f} {r['cached_per_s']:>9.1f} "
              f"{r['batched_per_s']:>10.1f} "
              f"{r['speedup']:>7.1f}x {r['speedup_lean']:>7.1f}x "
              f"{target + (' met' if met else ' MISSED'):>14} {r['max_score_gap']:>8.1e} "
              f"{r['rollout_s']:>9.1f} {r['update_s']:>9.1f} {r['peak_rss_mib']:>12.0f} "
              f"{gpu_mem:>12}")
    print("naive: one forward pass per candidate over prompt + candidate, logits of every "
          "position (a plain model(ids).logits); lean: the same, the output layer only where "
          "candidate tokens are predicted; 2-call: the prompt's key/value cache reused by one "
          "padded batch of candidates (the design before the packed pass, still the fallback "
          "for attention without custom masks); batched: one packed pass; speedup and target "
          "are against naive")
    if not gpu:
        print("GPU: not run (no CUDA device on this machine)")


if __name__ == "__main__":
    from interrupt import run

    run(main, kept="the tables above are complete")
