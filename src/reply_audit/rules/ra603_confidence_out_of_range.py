"""RA603: a literal value outside its numeric range ([result.ranges]), e.g. confidence 1.5."""

from ._results_rule import ResultProblemRule
from .base import Example
from .ra601_result_envelope_missing import IAR


class ConfidenceOutOfRange(ResultProblemRule):
    id = "RA603"
    name = "confidence-out-of-range"
    severity = "medium"
    requirement = "reflections"
    chunk = "reflection-vocabulary"
    spec = "seed 004 §1 (confidence 0.0..1.0)"
    kinds = ("range",)
    doc = ("Keys listed in `[result.ranges]` hold a number within the range (IAR: reflection.confidence in 0..1). "
           "A literal outside it, or a string such as \"high\", breaks every consumer that compares confidences "
           "(escalation on low confidence, phase gates).")
    fix = ("A number in range.")
    valid = [Example(IAR)]
    invalid = [Example('''
def search(query):
    if not query:
        return {"error": None, "data": {}, "reflection": _create_reflection("ok", "empty", 1.5, "pass", [], "")}
    return {"error": None, "data": {},
            "reflection": {"status": "ok", "confidence": "high", "alignment_check": "pass", "potential_issues": []}}

registry.register_action("search", search)
''', note="a helper's positional argument is checked too",
        findings=[
            ("mod.py", 4, 1, "action search: reflection.confidence is 1.5, outside 0..1"),
            ("mod.py", 5, 1, "action search: reflection.confidence is 'high', not a number in 0..1"),
        ])]
