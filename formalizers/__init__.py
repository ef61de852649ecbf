"""Formalizers turn observations into PDDL (``pddlkit.formalizers``).

Home of the PDDLego+ loop's formalizers (LLM-driven and offline), added by the
formalize_and_plan issue. The core (``pddlkit``) never imports this package.
"""
