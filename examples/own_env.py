"""Bring your own environment: ``formalize_and_plan`` on a world that is not a pddlkit PDDL world.

What pddlkit needs from an environment (``pddlkit.envs.api.check_env`` names whatever is
missing, in one error):

- ``id`` and ``task`` (the goal as a sentence);
- ``action_schema``: each PDDL action the model may use, with the command that performs it
  (``ActionTemplate("go", ("?from", "?to"), "go to {to}")``: ``{to}`` is filled from the plan,
  ``?from`` is implied by where the agent is);
- ``action_signatures``: the typed parameters of each action (``{"go": "?from - room ?to -
  room"}``), which the prompts show the LLM; a PDDL world gives its ``domain`` instead;
- ``reset(seed)`` -> (observation, info), ``step(command)`` -> ``Step``, and
  ``admissible_commands()`` (may return ``[]`` if your world cannot list them).

The world here is a dark house: rooms joined by doors, and the task is to switch on the light
in a room the agent has not seen yet. The LLM (or, offline, the small stand-in formalizer
below, which reads the same observations) writes PDDL; pddlkit checks it, plans with Fast
Downward and turns the plan into this world's commands; the agent runs them and reports
every (command, observation) pair back.

    python examples/own_env.py                           # offline: the stand-in formalizer
    python examples/own_env.py --llm local:gemma-3-270m  # a real model on a local server
    python examples/own_env.py --llm openai:gpt-4o-mini  # any LLM spec
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Optional

from pddlkit.envs.api import ActionTemplate, Step, info_dict
from pddlkit.formalizers import formalize_and_plan
from pddlkit.formalizers.answer import Files

DOORS = {"hall": ("kitchen", "corridor"), "kitchen": ("hall", "pantry"), "pantry": ("kitchen",),
         "corridor": ("hall", "study"), "study": ("corridor",)}


class DarkHouse:
    """Rooms joined by doors; ``switch on the light in X`` works only where the agent is."""

    id = "dark-house"
    action_schema = (ActionTemplate("go", ("?from", "?to"), "go to {to}"),
                     ActionTemplate("switch-on", ("?r",), "switch on the light in {r}"))
    action_signatures = {"go": "?from - room ?to - room", "switch-on": "?r - room"}

    def __init__(self, target: str = "study", max_steps: int = 30) -> None:
        self.target = target
        self.task = f"switch on the light in the {target}"
        self.max_steps = max_steps

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        self.at, self.lit, self.steps, self.won = "hall", set(), 0, False
        return self._look(), info_dict(False, 0, None, self.admissible_commands)

    def _look(self) -> str:
        light = "on" if self.at in self.lit else "off"
        return (f"You are in the {self.at}. The light here is {light}. Doors lead to: "
                f"{', '.join(DOORS[self.at])}.")

    def step(self, command: str) -> Step:
        self.steps += 1
        text = " ".join(command.lower().split())
        error = None
        if m := re.fullmatch(r"go to (?:the )?(\w+)", text):
            if m.group(1) in DOORS[self.at]:
                self.at = m.group(1)
                observation = self._look()
            else:
                observation, error = f"There is no door to {m.group(1)} here.", "precondition"
        elif m := re.fullmatch(r"switch on the light in (?:the )?(\w+)", text):
            if m.group(1) == self.at:
                self.lit.add(self.at)
                self.won = self.at == self.target
                observation = f"The light in the {self.at} is on now."
            else:
                observation, error = f"You are not in the {m.group(1)}.", "precondition"
        else:
            observation, error = "I don't understand that.", "unknown-command"
        truncated = not self.won and self.steps >= self.max_steps
        return Step(observation, float(self.won), self.won, truncated,
                    info_dict(self.won, self.steps, error, self.admissible_commands))

    def admissible_commands(self) -> list[str]:
        return [f"go to {r}" for r in DOORS[self.at]] + [f"switch on the light in {self.at}"]

    def snapshot(self):
        return (self.at, frozenset(self.lit), self.steps, self.won)

    def restore(self, snapshot) -> None:
        self.at, lit, self.steps, self.won = snapshot
        self.lit = set(lit)


class StandInFormalizer:
    """The offline stand-in: writes the PDDL an LLM should write, from the observations alone
    (the rooms seen, their doors, where the agent is). Its goal is the task once the target
    room has been seen, else a room not visited yet."""

    name = "dark-house-standin"

    def __init__(self, target: str) -> None:
        self.target = target

    def propose(self, context) -> Files:
        doors, visited, here = set(), [], None
        for _, observation in context.memory.history:
            m = re.search(r"You are in the (\w+)\..*Doors lead to: ([\w, ]+)\.", observation)
            if m:
                here = m.group(1)
                visited.append(here)
                doors |= {(here, other.strip()) for other in m.group(2).split(",")}
        rooms = sorted({r for pair in doors for r in pair} | {here})
        known = {r for pair in doors for r in pair}
        unvisited = [r for r in rooms if r not in visited]
        goal = f"(lit {self.target})" if self.target in known else \
            f"(at {unvisited[0]})" if unvisited else f"(lit {self.target})"
        domain = """(define (domain dark-house)
  (:requirements :strips :typing)
  (:types room)
  (:predicates (at ?r - room) (door ?a - room ?b - room) (lit ?r - room))
  (:action go :parameters (?from - room ?to - room)
    :precondition (and (at ?from) (door ?from ?to))
    :effect (and (not (at ?from)) (at ?to)))
  (:action switch-on :parameters (?r - room)
    :precondition (at ?r)
    :effect (lit ?r)))"""
        init = " ".join([f"(at {here})"] + [f"(door {a} {b})" for a, b in sorted(doors)])
        problem = (f"(define (problem house) (:domain dark-house)\n"
                   f"  (:objects {' '.join(rooms)} - room)\n  (:init {init})\n"
                   f"  (:goal {goal}))")
        return Files(domain, problem)


def run(llm: Optional[str] = None, budget: int = 20, quiet: bool = False) -> bool:
    """One episode; True when the light in the target room is on."""
    return play(llm, budget, quiet)["won"]


def play(llm: Optional[str] = None, budget: int = 20, quiet: bool = False) -> dict:
    """One episode: whether it was won, the actions run, and the LLM's calls and tokens."""
    env = DarkHouse()
    observation, _ = env.reset()
    say = (lambda *a: None) if quiet else print
    say(f"task: {env.task}\n{observation}")
    formalizer = llm or StandInFormalizer(env.target)
    result = formalize_and_plan(observation, llm=formalizer, env=env)
    outcome = {"won": False, "actions": 0, "llm_calls": 0, "prompt_tokens": 0,
               "completion_tokens": 0, "stand_in": None if llm else
               "stand-in (PDDL read from this world's own observations)"}

    def count(result) -> None:
        for key, name in (("llm_calls", "calls"), ("prompt_tokens", "prompt_tokens"),
                          ("completion_tokens", "completion_tokens")):
            outcome[key] += getattr(result.usage, name)

    count(result)
    while outcome["actions"] < budget:
        if not result.solved:
            say("no plan:\n  " + "\n  ".join(result.diagnostics[-3:]))
            return outcome
        say(f"plan: {result.commands}")
        pairs = []
        for command in result.commands:
            step = env.step(command)
            outcome["actions"] += 1
            pairs.append((command, step.observation))
            say(f"> {command}\n  {step.observation}")
            if step.won or step.error:
                break
        if env.won:
            say(f"done in {outcome['actions']} actions")
            outcome["won"] = True
            return outcome
        result = formalize_and_plan(pairs, memory=result.memory)
        count(result)
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--llm", help="an LLM spec (default: the offline stand-in)")
    parser.add_argument("--budget", type=int, default=20, help="environment actions at most")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON only")
    args = parser.parse_args()
    outcome = play(args.llm, args.budget, quiet=args.json)
    if args.json:
        print(json.dumps(outcome))
    return 0 if outcome["won"] else 1


if __name__ == "__main__":
    sys.exit(main())
