"""RA604: an error returned as a bare string instead of an error object."""

from ._results_rule import ResultProblemRule
from .base import Example
from .ra601_result_envelope_missing import IAR


class BareStringError(ResultProblemRule):
    id = "RA604"
    name = "bare-string-error"
    severity = "high"
    requirement = "error-objects"
    chunk = "error-objects"
    spec = "seed 004 §2, §4 (error: null or Error Object)"
    kinds = ("bare-error",)
    doc = ("The result's error (`[result] error-key`) is null or an object with `error_object_keys` (IAR: code, "
           "message, details). A string such as `str(e)` or an f-string carries no code to branch on and no "
           "details.")
    fix = ("{\"code\": \"RES-ERR-ACTN-0001\", \"message\": str(e), \"details\": {...}} (`migrate --select "
           "result-envelope` does it, marking the code for review).")
    valid = [Example(IAR)]
    invalid = [Example('''
def search(query):
    try:
        return {"error": None, "data": {}, "reflection": {"status": "ok"}}
    except ValueError as e:
        return {"error": str(e), "data": {}, "reflection": {"status": "error"}}
    except Exception as e:
        return {"error": f"failed: {e}", "data": {}, "reflection": {"status": "error"}}

registry.register_action("search", search)
''',
        findings=[
            ("mod.py", 6, 1, "action search: error is a bare string, not an object with code, message, details"),
            ("mod.py", 8, 1, "action search: error is a bare string, not an object with code, message, details"),
        ])]
