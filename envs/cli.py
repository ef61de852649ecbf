"""``pddlkit envs``: every registered environment id with its summary, kind and options.

Registered by this package through the ``pddlkit.commands`` entry point, since the registry
lives here and the core never imports environments.
"""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("envs", help="list the environment ids (for envs.make and pddlkit run "
                                    "--env) with their options")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=envs_command)


def _plain(text: str) -> str:
    from pddlkit.markup import plain

    return plain(text)


def envs_command(args) -> int:
    from .registry import list_envs

    rows = []
    for s in list_envs():
        options = s.options()
        rows.append({"id": s.id, "kind": s.kind, "entry_point": s.target,
                     "summary": _plain(s.summary), "kwargs": s.kwargs,
                     "max_episode_steps": s.max_episode_steps,
                     "step_budget": s.step_budget(),
                     "options": {k: v for k, v in options.items()}})
    if args.json:
        print(json.dumps(rows, indent=2, default=repr))
        return 0
    width = max((len(r["id"]) for r in rows), default=0)
    for r in rows:
        kind = "" if r["kind"] == "text" else f" [{r['kind']}]"
        print(f"{r['id']:<{width}}  {r['summary']}{kind}")
        if r["options"]:
            shown = ", ".join(f"{k}={v!r}" for k, v in r["options"].items())
            print(f"{'':<{width}}  options: {shown}")
        if r["step_budget"]:
            keyword, default = r["step_budget"]
            default = "the environment's own" if default is None else default
            print(f"{'':<{width}}  step budget: {keyword}, default {default} (pddlkit run "
                  f"--max-steps N; make(id, max_episode_steps=N))")
    return 0
