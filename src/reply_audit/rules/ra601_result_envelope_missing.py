"""RA601: a handler return without the result envelope ([result] required-keys)."""

from collections.abc import Iterator

from ..records import HandlerReturn
from ..results import ENVELOPE, HELPER, UNKNOWN, analyse
from .base import Example, Finding, Rule, RuleContext

IAR = '''
def search(query):
    return {"error": None, "data": {"hits": []},
            "reflection": {"status": "ok", "confidence": 0.8, "alignment_check": "pass", "potential_issues": []}}

registry.register_action("search", search)
'''


class ResultEnvelopeMissing(Rule):
    id = "RA601"
    name = "result-envelope-missing"
    severity = "high"
    category = "envelope"
    requirement = "result-envelope"
    chunk = "envelope-results"
    spec = "seed 004 §1, §2 (every action result MUST include the envelope)"
    profile = "iar"
    doc = ("Every return of a registered action is a result with every key of `[result] required-keys` (IAR: "
           "error, data, reflection). A raw dict, a dict with only some of them, None or a bare value leaves the "
           "engine to synthesize a minimal envelope (compliance L0). Returns whose value cannot be known "
           "statically (a call to another function) are not reported; they count as unverifiable in the compliance "
           "table.")
    fix = ("`reply-audit migrate --select result-envelope` wraps literal dicts.")
    valid = [Example(IAR), Example('''
def helper():
    return {"x": 1}

def search(query):
    return make_result(query)

registry.register_action("search", search)
''', note="an unregistered function, and a return whose value is not known")]
    invalid = [Example('''
def search(query):
    if not query:
        return None
    if query == "x":
        return {"result": [], "reflection": {"status": "ok"}}
    return {"results": []}

registry.register_action("search", search)
''',
        findings=[
            ("mod.py", 4, 1, "action search returns None without error, data, reflection"),
            ("mod.py", 6, 1, "action search returns a dict without error, data"),
            ("mod.py", 7, 1, "action search returns a dict without error, data, reflection"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for result in analyse(ctx):
            h = result.handler
            for r in result.returns:
                if r.verdict in (ENVELOPE, HELPER, UNKNOWN):
                    continue
                record = r.record
                what = "None" if record.kind == "none" else "a dict" if record.kind == "dict" or record.shape \
                    else "a value"
                yield self.finding(h.path, r.line, f"action {h.name} returns {what} without "
                                   f"{', '.join(r.missing)}", function=h.qualname,
                                   key=",".join(r.missing) + "|" + ",".join(record.keys or []),
                                   subject=HandlerReturn(handler=h, ret=record))
