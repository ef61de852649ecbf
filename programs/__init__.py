"""Code-as-policy front ends: the LLM writes Python, pddlkit runs it in its sandbox.

IPP (:mod:`.ipp`, seed 001) writes one program per task and refines it on its worst
instances; CoPiC comes next. Tasks (:mod:`.tasks`) say what the program is told and how its
answer is scored; the offline writer (:mod:`.standin`) stands in for the LLM.
"""

from .answer import ProgramAnswerError, extract_program
from .ipp import IPP, IPPResult, Round

__all__ = ["IPP", "IPPResult", "Round", "extract_program", "ProgramAnswerError"]
