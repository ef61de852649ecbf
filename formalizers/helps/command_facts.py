"""``command_facts``: the environment's valid commands read through the action templates:
their names get the parameter's type, and the precondition atoms of a command the world can
run now are facts ("take vase 1 from drawer 2" -> ``(inreceptacle vase_1 drawer_2)``).

Measured with Qwen2.5-Coder 1.5B on the household (dev seeds), with the other helps: 5 and 2
of the 8 receptacles typed as objects (the agent went back and forth between the others),
``none`` for which receptacles can be opened in all 4 episodes, and "On the countertop 1, you
see a ladle 1" written as ``(holds ladle_1)``; on CoinCollector it types "move east"'s
``east`` as a direction. Nothing is read from a command that is not in the list, and an
environment that lists none gives nothing.

A strategy of the modular formalizer (its ``strategy`` hook): one object per episode, which
keeps what the commands said: the names they filled (:attr:`CommandFacts.names`), the type
each was given (:attr:`CommandFacts.typed`), the types whose every name the commands list
(:attr:`CommandFacts.closed`: a fact or a type label may give such a type only those names;
the formalizer's typing reads it) and the facts said in this request. The formalizer asks it
to read the commands at each request and after each facts part (:meth:`CommandFacts.read`), to
leave the commands' own words untyped (:meth:`CommandFacts.untype`), and, when the world
refuses a name at a type the commands fill, whether the type was wrong
(:meth:`CommandFacts.close_type`). What it adds or drops is recorded in the formalizer's
``command_derived`` and ``command_dropped`` (a ``facts-from-commands`` event).
"""

from __future__ import annotations

from pddlkit.pddl.model import Atom
from pddlkit.formalizers.atoms import fact_text
from pddlkit.formalizers.helps.listed_types import closes_listed
from pddlkit.formalizers.modular.parts import (MAX_NAME, _bind_command, _conjuncts, _reserved,
                                               observed_names, template_words)


class CommandFacts:
    """What the valid commands said in this episode."""

    def __init__(self) -> None:
        self.names: set[str] = set()       # every name a command filled
        self.typed: dict[str, str] = {}    # name -> the type a command gave it
        self.closed: set[str] = set()      # types whose names the commands list
        self.said: set[Atom] = set()       # facts said in this request
        self.headed: set[str] = set()      # the rooms a heading named (..modular.rooms)

    def new_request(self) -> None:
        """A new request of the loop: a fact read again is said again once."""
        self.said = set()

    def read(self, formalizer, context, signatures: dict) -> None:
        """What the environment's valid commands say, in code: each command read through its
        action's command template gives its names their parameter's type, and a ground
        action the world says it can run now, whose precondition's atoms (those of its
        conjunction, all of whose arguments the command names) hold; they join the new
        facts, replacing a single-valued fact of the same slot and a fact the domain never
        lets hold with them. A known fact that gives a name a command typed in this call a
        type the command's is not (a subtype of) is dropped. A name two commands type
        differently is left alone. The facts only with a frozen domain: a learned
        precondition is the model's guess, not the world's; the types also while the model
        writes the domain (the parameters' types are the environment's: measured with
        Qwen2.5-Coder 1.5B writing CoinCollector's domain, dev seed 0 at 3d8c556, "door" and
        "open" were typed as directions and "close door to door" was planned). Recorded in
        the formalizer's ``command_derived`` and ``command_dropped``."""
        dom = formalizer._domain_model()
        if dom is None:
            return
        read = self._commands_read(formalizer, context, signatures, dom)
        clash, command_types = _command_types(read, {t.name.lower() for t in dom.types})
        self.typed.update(command_types)
        for value, kind in command_types.items():
            if formalizer.name_types.get(value) != kind:
                formalizer.name_types[value] = kind
                formalizer.command_derived.append(f"{value} - {kind}")
        if closes_listed(formalizer, context):
            self.close_listed(formalizer, set(command_types.values()),
                              counting=bool(getattr(formalizer, "listed_types", False)))
        if not formalizer.fixed_domain:
            return
        derived = self._preconditions(formalizer, read, clash)
        from ..modular.rooms import heading_place, renamed_reached

        heading = heading_place(formalizer, context)   # the room a heading names
        if heading is not None:
            fact, kind = heading
            name = fact.args[0]
            # the place a plan reached under a placeholder is this one (its ways kept); the
            # fact joins the known ones (the chunk is written anew from the sentences, which
            # say no other place: Facts._unstated_predicates)
            formalizer._merge_placeholders(formalizer._single_valued(), [fact])
            formalizer.base = [f for f in renamed_reached(formalizer.base, fact, self.headed)
                               if f.predicate != fact.predicate] + [fact]
            self.headed.add(name)
            derived.append(fact)
            if fact not in self.said:   # said in the facts-from-commands event, once
                formalizer.command_derived.append(fact_text(fact))
                self.said.add(fact)
            command_types[name] = kind
            if formalizer.name_types.get(name) != kind:
                formalizer.name_types[name] = kind
                formalizer.command_derived.append(f"{name} - {kind}")
        wrong = self._contradicted(formalizer, derived, command_types, dom.type_parents)
        known = set(formalizer._facts()) - wrong
        if context.commands_complete:   # the exits the list names (see ..modular.rooms)
            from ..modular.rooms import listed_exits

            derived += listed_exits(formalizer, read, known | set(derived),
                                    here=heading[0].args[0] if heading else None)
        new = [f for f in derived if f not in known]
        if wrong:
            formalizer.base = [f for f in formalizer.base if f not in wrong]
            formalizer.chunk = [f for f in formalizer.chunk if f not in wrong]
            formalizer.command_dropped += sorted(map(fact_text, wrong))
        formalizer.chunk = formalizer.chunk + new
        # the chunk is written anew after the facts parts: a fact read again is said once
        formalizer.command_derived += [fact_text(f) for f in new if f not in self.said]
        self.said.update(new)

    def _commands_read(self, formalizer, context, signatures: dict, dom) -> list:
        """(action, binding) of each valid command its action's template reads, whose values
        are things' names (not "go to and", "take receptacle from obj")."""
        reserved = _reserved(dom)
        read = []
        for command in context.valid_actions:
            bound = _bind_command(str(command), signatures)
            if bound is None:
                continue
            name, binding = bound
            try:
                action = dom.action(name)
            except KeyError:
                continue
            if not set(binding) <= {p.name.lower() for p in action.parameters} or any(
                    v in reserved or len(v) > MAX_NAME for v in binding.values()):
                continue
            read.append((action, binding))
        return read

    def _preconditions(self, formalizer, read: list, clash: set) -> list[Atom]:
        """The precondition atoms of the commands read, over names no two commands type
        differently, once each, in order."""
        kinds = formalizer._kinds()
        derived: list[Atom] = []
        for action, binding in read:
            if set(binding.values()) & clash:
                continue
            self.names.update(binding.values())
            for atom in _conjuncts(action.precondition):
                args = [binding.get(a.lower()) if a.startswith("?") else a.lower()
                        for a in atom.args]
                if all(args) and atom.predicate.lower() in kinds:
                    derived.append(Atom(atom.predicate.lower(), tuple(args)))
        return list(dict.fromkeys(derived))

    def _contradicted(self, formalizer, derived: list[Atom], command_types: dict,
                      parents: dict) -> set:
        """The known facts the commands contradict: one typing a name the commands typed
        otherwise, another value of a single-valued slot a command fills, and one the domain
        says cannot hold with a command's (an object held and in a receptacle; the hand
        empty and an object held)."""
        kinds = formalizer._kinds()
        vouched = set(derived)
        wrong = {f for f in formalizer.base + formalizer.chunk if f not in vouched and any(
            a in command_types and k is not None
            and not _is_subtype(command_types[a], k, parents)
            for a, k in zip(f.args, kinds.get(f.predicate, [])))}
        single = formalizer._single_valued()
        exclusive = formalizer._exclusive()
        for atom in derived:
            for other in formalizer.base + formalizer.chunk:
                if other in vouched:
                    continue
                if atom.predicate in single and other.predicate == atom.predicate and (
                        len(atom.args) < 2 or other.args[:1] == atom.args[:1]):
                    wrong.add(other)
                elif other.predicate in exclusive.get(atom.predicate, ()) and (
                        not atom.args or not other.args or other.args[0] == atom.args[0]):
                    wrong.add(other)
        return wrong

    def untype(self, formalizer, signatures: dict) -> None:
        """While the model writes the domain: a word of the sentence that
        is a fixed word of a command template (``open`` and ``door`` of "open door to
        {dir}") and that no command gave as a name is typed NONE in code, not asked: it is
        the commands' own word, not a thing. Measured with Qwen2.5-Coder 1.5B writing
        CoinCollector's domain (dev seeds 0 and 1 at abe5bba, seed 1 again at 144ebd2):
        "You open the front door, revealing the corridor." typed ``open`` as a direction,
        and "close door to open" was planned and refused. Over a frozen domain the types
        are asked as when the committed rows were measured (their records replay so)."""
        fixed = template_words(signatures)
        stated = formalizer._state_words()
        for word in observed_names([formalizer._sentence]):
            if (word in fixed or word.split("_")[0] in stated) \
                    and word not in formalizer.name_types and word not in self.typed:
                formalizer.name_types[word] = "NONE"
                formalizer.command_derived.append(
                    f"{word}: a word of the commands, not a name" if word in fixed else
                    f"{word}: a word that states a fact, not a name")

    def close_listed(self, formalizer, kinds: set, counting: bool = False) -> None:
        """While the model writes the domain, where the environment lists
        every command it would take now (``Context.commands_complete``): a type the commands
        fill is closed from the step its first command is listed, as a refusal closes it
        otherwise (:meth:`close_type`): a fact or a type label may give it only the names
        the commands gave it, and a name the model gave it before is typed again. Why:
        measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seeds 0-1 at
        4f43d75), the banner's and the intro's words were typed as receptacles ("-= Welcome to
        TextWorld, ALFRED! =-" gave ``alfred``; also ``middle``, ``room``), became goals, and
        "go to alfred" was refused 5 times; the game's "go to {r}" commands named every
        receptacle from the first step. The facts read before that naming such a name go
        (recorded as dropped): measured again at 5331ac8 (dev seed 0), the first observation's
        facts still named ``alfred`` after the closure, and the first plan began with "close
        alfred". Only while the model writes the domain (the rows over a frozen domain, and
        their records, are unchanged), or with ``listed_types`` over a frozen domain too
        (:mod:`.listed_types`, off by default, ``counting`` it)."""
        for kind in sorted(kinds - self.closed):
            self.closed.add(kind)
            if counting:
                formalizer.acted["listed-types"] += 1
            named = sorted(n for n, k in self.typed.items() if k == kind)
            formalizer.command_derived.append(f"{kind}: only {', '.join(named)} (the game "
                                              "lists every command it would take)")
            wrong = [n for n, k in formalizer.name_types.items()
                     if k == kind and self.typed.get(n) != kind]
            for n in wrong:
                formalizer.name_types.pop(n, None)
                formalizer.command_derived.append(f"{n}: not a {kind}; asked again")
            self._drop_naming(formalizer, set(wrong))
            formalizer._reread = formalizer._reread or bool(wrong)

    @staticmethod
    def _drop_naming(formalizer, names: set) -> None:
        """The known and new facts that name one of ``names`` go, recorded as dropped."""
        gone = [f for f in formalizer.base + formalizer.chunk if set(f.args) & names]
        if gone:
            formalizer.base = [f for f in formalizer.base if f not in gone]
            formalizer.chunk = [f for f in formalizer.chunk if f not in gone]
            formalizer.command_dropped += [fact_text(f) for f in dict.fromkeys(gone)]

    def close_type(self, formalizer, name: str, gone: list) -> bool:
        """The world refused ``name`` as no such thing, and the type the
        model gave it is one the commands fill (``move east``: a direction). From now on a
        fact may give that type only the names the commands gave it. Measured with
        Qwen2.5-Coder 1.5B on CoinCollector 5 rooms (seed 0, commit 030c575): after a door
        was opened, the model named the way `door`, then `open`, `unknown_open`,
        `unknown_door`, `unknown_wooden_door`, `unknown_wooden`; each move was refused as
        "not a direction" and each refuted name replaced by a new one, until the simulation
        retries ran out. The model's other names of that type, and ``name`` itself when its
        facts (``gone``) used it, are typed again with the last observation's facts
        (measured, 3 rooms seed 14 at daadc89: "the corridor" typed as a direction kept the
        agent, by the model's facts, in the room it had left). Recorded as
        ``facts-from-commands`` lines. True when ``name`` is to be typed again."""
        kind = formalizer.name_types.get(name)
        if not kind or kind == "NONE":
            kind = formalizer._fact_types().get(name, (None,))[0]
        if not kind or kind not in self.typed.values() \
                or self.typed.get(name) == kind:
            return False
        retyped = [name] if gone else []
        if kind not in self.closed:
            self.closed.add(kind)
            listed = sorted(n for n, k in self.typed.items() if k == kind)
            formalizer.command_derived.append(f"{kind}: only {', '.join(listed)} (the "
                                              f"commands' names; the world has no {name})")
            retyped += [n for n, k in formalizer.name_types.items()
                        if k == kind and n != name and self.typed.get(n) != kind]
        for n in retyped:
            formalizer.name_types.pop(n, None)
            formalizer._withdrawn_names.discard(n)
            formalizer.command_derived.append(f"{n}: not a {kind}; asked again")
        formalizer._reread = bool(retyped)
        return bool(gone)


def _command_types(read: list, types: set) -> tuple[set, dict]:
    """(names two commands type differently, as in "take drawer 1 from drawer 1"; each other
    name's type from the commands, where it is a domain type)."""
    told: dict[str, set[str]] = {}
    for action, binding in read:
        for p in action.parameters:
            value = binding.get(p.name.lower())
            if value:
                told.setdefault(value, set()).add(
                    p.types[0].lower() if len(p.types) == 1 else "")
    clash = {n for n, ts in told.items() if len(ts) > 1}
    return clash, {n: next(iter(ts)) for n, ts in told.items()
                   if n not in clash and next(iter(ts)) in types}


def _is_subtype(name_type: str, wanted: str, parents: dict) -> bool:
    """``name_type`` is ``wanted`` or below it in the domain's type tree."""
    seen, todo = set(), [name_type]
    while todo:
        t = todo.pop()
        if t == wanted or wanted == "object":
            return True
        if t not in seen:
            seen.add(t)
            todo.extend(parents.get(t, ()))
    return False
