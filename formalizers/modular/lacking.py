"""The ``lacked_literals`` help's part of :class:`~.formalizer.ModularFormalizer`: the
``lacked A`` part, asked before a refuted schema's rewrite (see
:mod:`pddlkit.formalizers.helps.lacked_literals` for what and why)."""

from __future__ import annotations

from typing import Optional

from ..base import Context


class Lacking:
    """The lacked-literal methods of :class:`~.formalizer.ModularFormalizer`."""

    def _ask_lacked(self, finding, context: Context, signatures: dict) -> bool:
        """Before a refuted schema is asked for again: False when ``finding`` is a command
        the agent ran and the world refused whose lack no literal over the predicates can
        say (no draw can succeed); else True, once the model chose the literal it lacked
        (when some can: see the module)."""
        if not (self.lacked_literals and self.schema_slots) \
                or finding.kind != "precondition-too-weak":
            return True
        candidates = self._lacked_candidates(finding, signatures)
        if candidates is None:
            return True   # not a command the agent ran (a listed or left-out one)
        if not candidates:
            self.acted["lacked-literals"] += 1
            self.schema_refuted[-1] += (" (no literal over the predicates was false before it "
                                        "and true before every such command the world took: "
                                        "not drawn again)")
            return False
        action = finding.schema
        self._lacked_offer[action] = (finding.format(), candidates)
        self.acted["lacked-literals"] += 1
        if self._write(f"lacked {action}", context, signatures):
            chosen = self._lacked_chosen
            self._lacking.setdefault(action, {}).setdefault(_predicate(chosen), set()).add(
                chosen)
        return True

    def _lacked_candidates(self, finding, signatures: dict) -> Optional[list[str]]:
        """The lifted literals (see the module), in the predicates' order; None when the
        finding is not about a command the agent ran."""
        from ..helps.lacked_literals import lacked_literals

        ran = self.evidence.transitions
        i = finding.index
        if i is None or not 0 <= i < len(ran) or ran[i].action != finding.action \
                or ran[i].succeeded or finding.schema not in signatures:
            return None
        params = [(v, t or None) for v, t in signatures[finding.schema][0]]
        variables = [v.lower() for v, _t in params]

        def state(t) -> tuple[dict, set]:
            args = t.action.strip("() ").lower().split()[1:]
            return dict(zip(variables, args)), {" ".join(f.lower().split()) for f in t.before}
        took = [state(t) for t in ran if t.succeeded and t.name == finding.schema.lower()]
        return lacked_literals(self._kinds(), params, self._player_predicates(),
                               state(ran[i]), took)

    def _lacked_prompt(self, action: str, common: str) -> str:
        finding, candidates = self._lacked_offer[action]
        return self.templates["lacked"].substitute(
            context=common, finding=finding, action=action, literals="\n".join(candidates))

    def _lacked_grammar(self, action: str):
        from pddlkit.llm.grammar import Grammar
        from pddlkit.llm.lark_subset import choice

        return Grammar(f"start: {choice(self._lacked_offer[action][1])}\n",
                       "the literal the refused command lacked", 4)

    def _read_lacked(self, action: str, text: str):
        said = " ".join(text.replace("(", " ( ").replace(")", " ) ").split()) \
            .replace("( ", "(").replace(" )", ")")
        candidates = self._lacked_offer[action][1]
        if said.lower() in candidates:
            return said.lower(), []
        return None, [f"not one of the literals {', '.join(candidates)}"]

    def _lacked_rules(self, action: str) -> dict[str, set[str]]:
        """For ``action``'s slot grammar: predicate -> the literals its line must require."""
        return {name: set(literals) for name, literals in self._lacking.get(action, {}).items()}


def _predicate(literal: str) -> str:
    return literal.replace("(not ", "(").strip("() ").split()[0]

