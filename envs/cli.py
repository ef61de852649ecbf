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
    """Each id with what its spec declares (:mod:`pddlkit.agents.contract`): kind, what it
    offers agents, step budget, and each option with its default, values and help, as
    ``pddlkit run AGENT --env ID`` takes them (``--rooms N``)."""
    from .registry import list_envs

    rows = []
    for s in list_envs():
        declared = s.declared_options()
        rows.append({"id": s.id, "kind": s.kind, "entry_point": s.target,
                     "summary": _plain(s.summary), "kwargs": s.kwargs,
                     "offers": list(s.offers),
                     "max_episode_steps": s.max_episode_steps,
                     "step_budget": s.step_budget(),
                     "options": {o.name: o.default for o in declared},
                     "declared": [{"name": o.name, "default": o.default,
                                   "type": o.type.__name__ if o.type else None,
                                   "help": o.help, "choices": list(o.choices),
                                   "minimum": o.minimum, "maximum": o.maximum,
                                   "flag": o.flag if o.flaggable else None}
                                  for o in declared]})
    if args.json:
        print(json.dumps(rows, indent=2, default=repr))
        return 0
    width = max((len(r["id"]) for r in rows), default=0)
    pad = " " * width
    for r in rows:
        offers = f"; offers {', '.join(r['offers'])}" if r["offers"] else ""
        print(f"{r['id']:<{width}}  {r['summary']} [{r['kind']}{offers}]")
        budget = r["step_budget"][0] if r["step_budget"] else None
        for o in r["declared"]:
            if o["name"] in ("seed", budget):
                continue
            values = f" {{{','.join(map(str, o['choices']))}}}" if o["choices"] else ""
            default = "" if o["default"] is None else f" (default {o['default']!r})"
            spelled = o["flag"] or f"{o['name']}= (Python only)"
            print(f"{pad}  {spelled}{values}{default}" + (f": {o['help']}" if o["help"]
                                                         else ""))
        if r["step_budget"]:
            keyword, default = r["step_budget"]
            default = "the environment's own" if default is None else default
            print(f"{pad}  step budget: {keyword}, default {default} (pddlkit run "
                  f"--max-steps N; make(id, max_episode_steps=N))")
    return 0
