"""Counts that unified-planning's PDDLReader reports for a domain/problem pair.

Run in worker processes by the conformance test (UP is slow on the large files). What is
counted, so that both sides count the same thing:
- actions: len(problem.actions)
- predicates: boolean fluents (numeric ones are not compared: UP folds total-cost into its
  action-cost metric and drops it from the fluents)
- objects: len(problem.all_objects) (domain constants + problem objects)
- init atoms: explicit initial values that are boolean and true
- goal atoms: occurrences of boolean fluent expressions in the goals
"""

from __future__ import annotations


def up_counts(domain_file: str, problem_file: str) -> dict:
    from unified_planning.io import PDDLReader

    problem = PDDLReader().parse_problem(domain_file, problem_file)
    fluents = problem.fluents
    n_bool = sum(1 for f in fluents if f.type.is_bool_type())
    init = sum(1 for k, v in problem.explicit_initial_values.items()
               if k.is_fluent_exp() and k.fluent().type.is_bool_type() and v.is_true())
    goal_atoms = 0
    stack = list(problem.goals)
    while stack:
        node = stack.pop()
        if node.is_fluent_exp() and node.fluent().type.is_bool_type():
            goal_atoms += 1
        else:
            stack.extend(node.args)
    return {"actions": len(problem.actions), "predicates": n_bool,
            "objects": len(problem.all_objects),
            "init": init, "goal": goal_atoms}
