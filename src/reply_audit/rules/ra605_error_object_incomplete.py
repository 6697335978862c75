"""RA605: an error object without every key of `[result] error-object-keys`."""

from ._results_rule import ResultProblemRule
from .base import Example
from .ra601_result_envelope_missing import IAR


class ErrorObjectIncomplete(ResultProblemRule):
    id = "RA605"
    name = "error-object-incomplete"
    severity = "medium"
    requirement = "error-objects"
    chunk = "error-objects"
    spec = "seed 004 §4 (Error Object: code, message, details)"
    kinds = ("error-object",)
    doc = ("A literal error object carries every key of `[result] error-object-keys` (IAR: code, message, "
           "details), so consumers can read them without guarding each one.")
    fix = ("Add the missing keys (details may be {}).")
    valid = [Example(IAR)]
    invalid = [Example('''
def search(query):
    return {"error": {"message": "no index"}, "data": {}, "reflection": {"status": "error"}}

registry.register_action("search", search)
''',
        findings=[
            ("mod.py", 3, 1, "action search: error object lacks code, details"),
        ])]
