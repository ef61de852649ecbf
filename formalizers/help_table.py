"""The PDDLego+ formalizer's helps, one line each (issue 74): the table every other place
reads (:mod:`pddlkit.agents.helps`).

From it come ``PDDLegoOptions``' switches, the ``--small-model`` preset and its ``--help``
text, the checks of what each help needs, which helps read what the environment may not
give, and each row's ``helps_acted`` column. Adding a help is one line here (and its code
where it acts); the order is the preset's, as rows list it.

``events`` are the record events that say a help changed something; a help that acts inside
the modular formalizer counts itself there (``ModularFormalizer.acted``, written as
``help-acted`` events), under its label. ``hooks`` say where a help's code runs: a
``files_pass`` is code's edit of each answer's files before planning (:mod:`.passes`), a
``goal_policy`` chooses the goals the modular formalizer offers (:mod:`.helps`).
"""

from __future__ import annotations

from typing import Optional

from pddlkit.agents.helps import Help

_MODULAR = ("modular",)
#: the options that freeze the domain: a help of the domain the model writes conflicts with them
FROZEN = ("domain", "reuse_domain")
#: what a help needs of the environment to act: a refused command's reason in the domain's
#: terms (``info["failed"]``): pddlkit's own simulators give it, real TextWorld and ALFWorld
#: do not
FAILURES = "failures"


def _pass(where: str) -> tuple:
    """A help's pass over the files before planning (:mod:`.passes`): the class, in
    ``pddlkit.formalizers``, made once per episode."""
    return (("files_pass", f"pddlkit.formalizers.{where}"),)


#: the modular formalizer's slots (:mod:`pddlkit.formalizers.helps`): slot -> the function
#: a help's file defines for it
SLOTS = {"goal_policy": "offer", "sentence_facts": "facts"}
#: a help whose code keeps state of its own over an episode: its file's class, one object
#: an episode, asked at the points the file documents (``ModularFormalizer.strategies``)
STRATEGY = "strategy"


def _modular(name: str, text: str, *, reads: Optional[str] = None, events: tuple = (),
             slot: Optional[str] = None, strategy: Optional[str] = None,
             requires: tuple = (), preset: bool = True, conflicts: tuple = ()) -> Help:
    """A help of the modular formalizer: it needs ``--modular`` and an LLM, and counts itself
    under its label (``ModularFormalizer.acted``) unless ``events`` says otherwise. With a
    ``slot``, its code is ``formalizers/helps/<name>.py``'s function for that slot
    (:data:`SLOTS`), run in the formalizer's slot (:mod:`pddlkit.formalizers.helps`); with a
    ``strategy``, that file's class of that name, one object an episode (:data:`STRATEGY`)."""
    hooks: tuple = ()
    if strategy:
        hooks = ((STRATEGY, f"pddlkit.formalizers.helps.{name}:{strategy}"),)
    elif slot:
        hooks = ((slot, f"pddlkit.formalizers.helps.{name}:{SLOTS[slot]}"),)
    return Help(name, "with --modular: " + text, requires=_MODULAR + requires, needs_llm=True,
                reads=reads, events=events or (name.replace("_", "-"),), hooks=hooks,
                preset=preset, conflicts=conflicts)


HELPS: tuple[Help, ...] = (
    Help("modular", "the LLM writes one small part of the files per call (predicates, each "
                    "action, new facts, the goal); code assembles the files and aims each "
                    "revision at one part", needs_llm=True, events=("parts",)),
    Help("repair", "fix trivial PDDL slips in code before spending an LLM call",
         events=("repair",), hooks=_pass("helps.repair:RepairPass")),
    Help("declare_objects", "declare in code the objects a problem file uses without "
                            "declaring them, typed by the predicates",
         events=("objects-declared",), hooks=_pass("helps.declare_objects:DeclarePass")),
    Help("fresh_answers", "never plan files identical to ones already refused; ask for new "
                          "ones, saying why, without spending a solver retry (5 a step; a "
                          "6th ends the episode)", events=("repeated-answer",)),
    Help("fact_memory", "merge facts confirmed in earlier steps into each new problem file",
         events=("facts-merged",), hooks=_pass("helps.fact_memory:FactMemory")),
    Help("problem_only", "with a frozen domain (--reuse-domain), ask for the problem file "
                         "alone", events=("problem-only",)),
    Help("refuted_facts", "keep facts the world refuted out of later problem files until an "
                          "action adds them (reads pddlkit's own simulators' machine-readable "
                          "failures, info['failed']: not in real TextWorld or ALFWorld)",
         reads=FAILURES, events=("facts-refuted", "facts-kept-out"),
         hooks=_pass("helps.refuted_facts:RefutedFacts")),
    _modular("novel_goals", "the goal is chosen among the atoms never true so far in the "
                            "episode while any is reachable (a room not yet visited), not "
                            "one that takes the agent back", slot="goal_policy"),
    _modular("local_facts", "a sentence's facts name only what the sentence names and where "
                            "the agent is, not every place it knows", slot="sentence_facts"),
    _modular("typed_objects", "declare every name the model typed with a domain type as an "
                              "object, even one no fact names (a receptacle seen but not "
                              "described can be gone to); one the world says is not there "
                              "is withdrawn (that part reads pddlkit's own simulators' "
                              "info['failed']; real TextWorld and ALFWorld never trigger it)",
             strategy="TypedObjects"),
    _modular("ask_missing", "when the planner finds an action's precondition never true over "
                            "a predicate no known fact holds (where the agent is), ask for "
                            "that predicate's facts alone; also, once no place is left to go, "
                            "for a precondition predicate no action adds (what can be "
                            "opened)", strategy="AskMissing"),
    _modular("world_literals", "when the world names the literal a command failed on, "
                               "correct the facts in code (the literal and what it implies "
                               "through the failed step's precondition), not by asking the "
                               "model which predicate; a thing the world says is not there "
                               "loses the facts about it until a sentence names it again "
                               "(reads pddlkit's own simulators' machine-readable failures, "
                               "info['failed']: not in real TextWorld or ALFWorld)",
             reads=FAILURES, events=("facts-corrected",), strategy="WorldLiterals"),
    _modular("task_goals", "the goals offered that name a thing the task names come first",
             slot="goal_policy"),
    _modular("command_facts", "read the environment's valid commands through the action "
                              "templates: their names get the parameter's type, and the "
                              "precondition atoms of a command the world can run now are "
                              "facts (\"take vase 1 from drawer 2\" -> (inreceptacle vase_1 "
                              "drawer_2)); a name the world refused as no such thing, "
                              "typed as what the commands fill, is typed again (that part "
                              "reads pddlkit's own simulators' info['failed']; real "
                              "TextWorld and ALFWorld never trigger it)",
             events=("facts-from-commands",),
             strategy="CommandFacts"),
    _modular("task_focus", "while a goal naming every thing the task names is reachable, "
                           "only such goals are offered, and a thing already so is left "
                           "there", slot="goal_policy"),
    _modular("here_facts", "a fact over two places, read in a sentence, has where the agent "
                           "is in the argument an action takes it from ((connected here ?to "
                           "?dir)), and one naming here twice leads to a place the sentence "
                           "does not name (a placeholder)", strategy="HereFacts"),
    _modular("schema_check", "while the model writes the domain (no --domain, no "
                             "--reuse-domain), each action schema is checked against every "
                             "command the agent ran (the facts believed before it, whether "
                             "the world took it, what the next observation stated) and every "
                             "command the game lists as one it would take now; a schema "
                             "a transition refutes is asked for again alone, naming the "
                             "transition and the literal, and is never kept again; a "
                             "schema with no precondition is also checked against the "
                             "commands a complete list leaves out",
             conflicts=FROZEN),
    _modular("predicate_slots", "while the model writes the domain, its predicates are asked "
                                "for under one labelled line per aspect of a state (where the "
                                "player is, which places connect, doors and containers, where "
                                "things are, what is held, other states), each line the "
                                "predicates the model names and types for it, or none",
             conflicts=FROZEN),
    _modular("schema_slots", "while the model writes the domain, each action's schema is "
                             "asked for one predicate a line, what holds before the command "
                             "and after it (player: before (player ?from) after (player "
                             "?to)); code writes the precondition and effect from the lines",
             conflicts=FROZEN),
    _modular("place_goals", "while the model writes the domain, and no goal offered names a "
                            "thing the task names (its place aside), only goals of where "
                            "the player is are "
                            "offered (the next place to look), as the predicates written "
                            "for where the player is say (--predicate-slots), and the "
                            "opening of a container the facts say is closed; over a "
                            "learned domain reused (--reuse-domain) too, by the aspects "
                            "its entry was learnt under",
             slot="goal_policy", requires=("predicate_slots|reuse_domain",),
             conflicts=("domain",)),
    _modular("refused_steps", "with --schema-check, while the model writes the domain: a "
                              "plan's first step is never a command the world refused from "
                              "the very facts the plan starts from, nor one a complete list "
                              "of the commands it would take now leaves out, and an "
                              "action refused over two different commands from the same "
                              "facts is no step of a plan from them, nor is a command "
                              "naming a name the game never used (a guard of "
                              "code's given to the planner alone; the files recorded, "
                              "checked and saved are the model's); over a learned domain "
                              "reused (--reuse-domain) too, where its entry says which "
                              "predicates are the player's place",
             strategy="RefusedSteps", requires=("schema_check|reuse_domain",),
             conflicts=("domain",)),
    _modular("listed_types", "with --command-facts, over a frozen domain too: where the "
                             "environment lists every command it would take now "
                             "(admissible_complete), a type the listed commands fill may "
                             "name only the names they give it, as while the model writes "
                             "the domain (TextWorld's prose words typed as directions, 'go "
                             "exit', are refused); not in the preset: built from test-seed "
                             "records, to be measured on seeds never used",
             requires=("command_facts",), preset=False),
    _modular("try_untried", "with --schema-check, while the model writes the domain: a "
                            "command the game lists now, of an action no command has run "
                            "for yet, is run once as a one-command plan, so the schema check "
                            "sees what it does (not in the preset)",
             requires=("schema_check",), preset=False, conflicts=FROZEN),
    _modular("lacked_literals", "with --schema-check and --schema-slots, while the model "
                                "writes the domain: when the world refused a command its "
                                "schema allowed, the model chooses the literal the command "
                                "lacked among those over the action's parameters false "
                                "before it and true before every command of it the world "
                                "took, and the rewrite requires it; with none, no draw is "
                                "spent (not in the preset: built from the household, to be "
                                "measured on CoinCollector)",
             requires=("schema_check", "schema_slots"), preset=False, conflicts=FROZEN),
    _modular("unlisted_refusals", "with --schema-check, where the environment lists every "
                                  "command it would take now (admissible_complete: pddlkit's "
                                  "own simulators), a command of the model's actions over "
                                  "the objects believed that the list leaves out is evidence "
                                  "the world would refuse it: a schema whose precondition "
                                  "holds there is refuted and asked for again (not in "
                                  "the preset: with the predicates Qwen writes it refuted "
                                  "every close-door, and learning saved nothing)",
             requires=("schema_check",), preset=False,
             conflicts=FROZEN),
    _modular("door_slots", "with --predicate-slots, while the model writes the domain: one "
                           "more line among the predicates asked for, which doors or "
                           "containers there are, open or closed (two arguments at least: "
                           "a place and its side), a predicate no schema may change and no "
                           "sentence without a door, closed or open states (not in the "
                           "preset: for CoinCollector's doors; measured once with Qwen, "
                           "dev seed 1, nothing saved)",
             requires=("predicate_slots",), preset=False, conflicts=FROZEN),
    _modular("final_effects", "with --schema-check, while the model writes the domain: the "
                              "world's answer to the command that won the episode is read "
                              "like any observation, so that command's schema meets what it "
                              "did (CoinCollector's take was never checked); the finding is "
                              "asked in the next episode (one more facts call per win)",
             requires=("schema_check",), conflicts=FROZEN),
)

#: what each help that acts on the domain the model writes does, for the refusal of one
#: asked for with a frozen domain
_WRITES = {"schema_check": "checks the action schemas the model writes",
           "predicate_slots": "asks for the predicates the model writes",
           "schema_slots": "asks for the action schemas the model writes",
           "place_goals": "offers goals of where the player is, as the predicates the model "
                          "writes say",
           "unlisted_refusals": "refutes the schemas the model writes with the commands the "
                                "game leaves out",
           "door_slots": "asks for the predicates the model writes",
           "final_effects": "checks the schema of the command that won against its answer",
           "refused_steps": "keeps the commands the world refused, or would, out of the "
                            "first step of the plans the model's domain gives",
           "lacked_literals": "asks which literal a refused command lacked, for the "
                              "schemas the model writes",
           "try_untried": "runs a listed command of an action the model's schemas have no "
                          "evidence for yet"}
#: the helps that act while the model writes the domain (their lines' ``conflicts``: a domain
#: frozen so leaves them nothing to do; ``place_goals`` and ``refused_steps`` conflict with
#: ``--domain`` alone: over a learned entry reused they play by the aspects it was learnt
#: under), with what each does
DOMAIN_WRITING = {h.name: _WRITES.get(h.name, "acts on the domain the model writes")
                  for h in HELPS if set(FROZEN) & set(h.conflicts)}

#: the helps of the modular formalizer (they need it, and an LLM)
MODULAR_HELPS = tuple(h.name for h in HELPS if "modular" in h.requires)
#: the helps that read the world's machine-readable failures, as rows spell them
READS_FAILURES = tuple(h.label for h in HELPS if h.reads == FAILURES)
