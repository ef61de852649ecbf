"""PDDLego+'s helps that are one piece of code in one of the loop's or the modular
formalizer's slots, a file each (issue 74). A help's line in
:data:`pddlkit.formalizers.help_table.HELPS` names its hook
(``hooks=(("goal_policy", "pddlkit.formalizers.helps.novel_goals:offer"),)``).

Slots:

* ``goal_policy(formalizer, reached) -> reached``: which goals the model is offered, and in
  what order. ``reached`` is a list of ``(true before in the episode, relaxed cost, atom)``
  for every atom the known facts can reach, never-reached-then-nearest first; a policy
  returns the list to offer (a subset, or the same atoms reordered).
* ``sentence_facts(formalizer, known) -> known``: while the model reads one sentence, the
  known facts (pddlkit ``Atom``s: :mod:`..atoms`) whose names it is offered besides the
  sentence's own.
* ``files_pass``: a class, one object an episode, whose ``apply(files, context)`` edits each
  answer's files before they are planned (``repair``, ``declare_objects``; the loop runs it:
  :mod:`pddlkit.formalizers.passes`).
* ``strategy``: a class, one object an episode, for a help that keeps state of its own
  and acts at more than one point (``ask_missing``: what it asked, after a why-no-plan and
  before a goal; ``here_facts``: which arguments are where the agent is, for the grammar and
  the reading; ``typed_objects``, ``world_literals``, ``command_facts``; ``refused_steps``:
  the guard of the files the planner is given). The formalizer
  asks it by the role it plays, while the help's switch is on: each point is a protocol of
  :mod:`pddlkit.formalizers.modular.roles`, and every strategy that has that protocol's
  methods is asked there, in the table's order (``ModularFormalizer._roles(role)``).

The domain-writing helps (``schema_check``, ``predicate_slots``, ``schema_slots``,
``unlisted_refusals``) are files here too: their data and their reading of answers and
evidence, called by the modular formalizer's parts that write the domain. Every line of the
table has its file here but three (:data:`WITHOUT_FILE`).

A goal policy, a sentence-facts filter and a files pass are run by the formalizer or the
loop for every help that is on, in the table's order (a slot help counts as having acted when
its hook changed what it was given; a pass by its record event): adding one is its file and
its table line. So is a strategy at one of the roles' points; one that needs a new point also
needs the protocol and the formalizer's call of it. Either way its flag, its place in
``--small-model``, its requirement checks and its row's helps column come from the line.
"""

#: the helps whose code is not a file here, with where it is: the formalizer itself, and two
#: switches of the loop and of the LLM formalizer's prompt
WITHOUT_FILE = {"modular": "formalizers/modular/ (the formalizer itself)",
                "fresh_answers": "formalizers/loop.py (the episode's refused files)",
                "problem_only": "formalizers/llm_formalizer.py (the prompt asks for the "
                                "problem file alone)"}
