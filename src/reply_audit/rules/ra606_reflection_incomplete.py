"""RA606: a literal reflection without every key of `[result] required-nested`."""

from ._results_rule import ResultProblemRule
from .base import Example
from .ra601_result_envelope_missing import IAR


class ReflectionIncomplete(ResultProblemRule):
    id = "RA606"
    name = "reflection-incomplete"
    severity = "medium"
    requirement = "reflections"
    chunk = "reflection-vocabulary"
    spec = "seed 004 §1 (IAR: status, confidence, alignment_check, potential_issues)"
    kinds = ("nested-missing",)
    doc = ("A reflection written as a dict literal carries every key of `[result] required-nested` (IAR: status, "
           "confidence, alignment_check, potential_issues); the engine augments a partial one, which is compliance "
           "L1. A reflection built by a helper call is not reported: its defaults are in its signature.")
    fix = ("Add the missing keys.")
    valid = [Example(IAR)]
    invalid = [Example('''
def search(query):
    return {"error": None, "data": {}, "reflection": {"status": "ok", "confidence": 0.4}}

registry.register_action("search", search)
''',
        findings=[
            ("mod.py", 3, 1, "action search: reflection lacks alignment_check, potential_issues"),
        ])]
