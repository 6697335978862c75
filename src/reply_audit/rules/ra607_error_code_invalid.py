"""RA607: a literal error code outside the profile's code format, families or number range."""

from ._results_rule import ResultProblemRule
from .base import Example
from .ra601_result_envelope_missing import IAR


class ErrorCodeInvalid(ResultProblemRule):
    id = "RA607"
    name = "error-code-invalid"
    severity = "high"
    requirement = "error-objects"
    chunk = "error-objects"
    spec = "seed 004 §4; compliance_and_error_codes (RES-ERR-ACTN|SCHE|WFLW|POLI|BRID-NNNN)"
    kinds = ("error-code",)
    doc = ("An error object's code (`[result] error-code-key`) follows `[codes] pattern` and names a family of the "
           "`[areas]` list with a number in range (IAR: RES-ERR-ACTN-0001 ... RES-ERR-BRID-9999).")
    fix = ("Use the family the failure belongs to: ACTN action execution, SCHE schema, WFLW workflow, POLI policy, "
           "BRID bridge/transport.")
    valid = [Example(IAR), Example('''
def search(query):
    return {"error": {"code": "RES-ERR-SCHE-0002", "message": "bad query", "details": {}}, "data": {},
            "reflection": {"status": "error"}}

registry.register_action("search", search)
''')]
    invalid = [Example('''
def search(query):
    if query:
        return {"error": {"code": "RES-ERR-NET-0001", "message": "down", "details": {}}, "data": {},
                "reflection": {"status": "error"}}
    return {"error": {"code": "ERR_EMPTY", "message": "empty", "details": {}}, "data": {},
            "reflection": {"status": "error"}}

registry.register_action("search", search)
''',
        findings=[
            ("mod.py", 4, 1, "action search: RES-ERR-NET-0001: family NET is not one of ACTN, BRID, POLI, SCHE, WFLW"),
            ("mod.py", 6, 1, "action search: 'ERR_EMPTY' is not RES-ERR-FAMILY-NNNN"),
        ])]
