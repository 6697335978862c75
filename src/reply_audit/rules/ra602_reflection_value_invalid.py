"""RA602: a literal reflection value outside the values the profile allows ([result.values])."""

from ._results_rule import ResultProblemRule
from .base import Example
from .ra601_result_envelope_missing import IAR


class ReflectionValueInvalid(ResultProblemRule):
    id = "RA602"
    name = "reflection-value-invalid"
    severity = "medium"
    requirement = "reflections"
    chunk = "reflection-vocabulary"
    spec = "seed 004 §1 (status ok|error|skipped, alignment_check pass|concern|fail)"
    kinds = ("value",)
    doc = ("Keys listed in `[result.values]` take only the listed literals (IAR: reflection.status is ok, error or "
           "skipped; reflection.alignment_check is pass, concern or fail). The check reads literals written in the "
           "returned dict or passed to a reflection helper ([result.helpers]); \"Success\", \"Aligned\" or a dict "
           "of scores are other vocabularies the engine cannot gate on.")
    fix = ("Use the listed values.")
    valid = [Example(IAR)]
    invalid = [Example('''
def search(query):
    return {"error": None, "data": {},
            "reflection": {"status": "Success", "confidence": 0.8, "alignment_check": {"score": 1.0},
                           "potential_issues": []}}

registry.register_action("search", search)
''',
        findings=[
            ("mod.py", 3, 1, "action search: reflection.alignment_check is a dict, not one of pass, concern, fail"),
            ("mod.py", 3, 1, "action search: reflection.status is 'Success', not one of ok, error, skipped"),
        ])]
