"""The critic's speed: candidates scored per second, naive (prompt + candidate, one sequence at
a time) against shared-prefix batched (the prompt encoded once, its key/value cache reused by all
candidates in one padded batch); one PPO update's wall time; peak memory. Each model runs in its
own process, so that peak memory is its own.

    .venv/bin/python benchmarks/critic.py [--models tiny,gemma-3-270m,tinyllama-shape]
                                          [--device auto] [--ppo-steps 128] [--repeats 3]

Two naive references: "naive" takes the logits of every position, as a plain
``model(ids).logits`` call gives them; "lean" computes the output layer only where candidate
tokens are predicted (the stronger baseline; Gemma's 262k-token output layer makes the
difference large). Targets (issue 16): batched >= 5x naive on CPU at 8 candidates of ~10
tokens after a ~300-token prompt; on a GPU, >= 2,000 candidates/s in bf16 for a
TinyLlama-sized model. "tiny" is the toy Llama of ``pddlkit.critic.toy``; "tinyllama-shape" is
a random model of TinyLlama 1.1B's shape (22 layers, hidden 2048, 32,000 tokens), since its
weights cannot be downloaded here; speed does not depend on the weights. The largest score
difference between the paths is printed (gap).
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
                "speedup_lean": naive_s / batched_s,
                "max_score_gap": gap, "ppo_steps": ppo_steps, "rollout_s": rollout_s,
                "update_s": update_s,
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "peak_gpu_mib": gpu_peak}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="tiny,gemma-3-270m")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--ppo-steps", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.device, args.ppo_steps, args.repeats)))
        return
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
          f"{'lean/s':>8} {'batched/s':>10} {'speedup':>8} {'vs lean':>8} {'target':>14} "
          f"{'gap':>8} {'rollout s':>9} "
          f"{'update s':>9} {'peak RSS MiB':>12} {'peak GPU MiB':>12}")
    for r in rows:
        target = ">= 2000/s" if r["device"].startswith("cuda") else ">= 5x"
        met = (r["batched_per_s"] >= 2000) if r["device"].startswith("cuda") else \
            (r["speedup"] >= 5)
        gpu_mem = f"{r['peak_gpu_mib']:.0f}" if r["peak_gpu_mib"] is not None else "-"
        print(f"{r['model']:<16} {r['device']:<6} {r['dtype']:<9} {r['prompt_tokens']:>6} "
              f"{r['plain_per_s']:>8.1f} {r['naive_per_s']:>8.1f} {r['batched_per_s']:>10.1f} "
              f"{r['speedup']:>7.1f}x {r['speedup_lean']:>7.1f}x "
              f"{target + (' met' if met else ' MISSED'):>14} {r['max_score_gap']:>8.1e} "
              f"{r['rollout_s']:>9.1f} {r['update_s']:>9.1f} {r['peak_rss_mib']:>12.0f} "
              f"{gpu_mem:>12}")
    print("naive: one forward pass per candidate over prompt + candidate, logits of every "
          "position (a plain model(ids).logits); lean: the same, the output layer only where "
          "candidate tokens are predicted; speedup and target are against naive")
    if not gpu:
        print("GPU: not run (no CUDA device on this machine)")


if __name__ == "__main__":
    main()
