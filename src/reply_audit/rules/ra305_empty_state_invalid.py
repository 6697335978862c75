"""RA305: an empty state in a read or status path answered Invalid (F7; heuristic)."""

import re

from ._snippets import tree
from .base import Example, Rule

READ_WORDS = re.compile(r"(?i)\b(status|list|search|get|read|show|query|find|count|describe|info|briefing)\b")
READ_NAME = re.compile(r"(?i)(^|_)(status|list|search|get|read|show|query|find|count|describe|info)(_|$)")
EMPTY_TEXT = re.compile(r"(?i)\bno (active|results?|matches|data|items?|entries|records|session|contract)\b|"
                        r"\bnothing\b|\bempty\b|\bnone (found|active)\b")
# An existence or validity check of the caller's input is a resolution failure: Invalid is right there.
INPUT_CHECK = re.compile(r"(?i)exists|found|is_file|is_dir|valid|resolv|isinstance")
EMPTY_TEST = re.compile(r"^not \w[\w.()\[\]'\"]*$|\bis None\b|==\s*0\b|len\(.+\)\s*==\s*0|==\s*\[\]|==\s*\{\}|"
                        r"^not \(.*\.get\(")


INPUT_AREAS = frozenset({"RES", "VAL"})  # resolution and validation failures are the caller's mistake


class EmptyStateInvalid(Rule):
    id = "RA305"
    name = "empty-state-invalid"
    severity = "low"
    category = "call"
    spec = "spec 000 §3 (002 §5.3)"
    heuristic = True
    doc = ("\"No results\" or \"no active X\" in answer to a valid read or status query is a valid state, not a "
           "bad request: it is Success with empty data (`{has_active_contract: false}`, `{results: []}`). "
           "This rule is a heuristic: it looks for an Invalid built in a read/status path (the function name or "
           "an enclosing test mentions status, list, search, get, read ...) under an emptiness test (`not x`, "
           "`is None`, `== 0`; not an existence or validity check, and not a test of the function's own "
           "parameters, which checks the request) or with a message saying no "
           "result / no active; codes of the RES and VAL areas (resolution, validation) are left alone. Confidence is high when both "
           "signals are there, medium with one of them in a status path. Fix: rb.success(..., data={...: empty}).")
    valid = [Example(tree(server='''
def notes_status(rb: ReplyBuilder, session):
    if not session:
        return rb.success("CT-GATE-S-001", {"has_active_session": False})
    return rb.success("CT-GATE-S-001", {"user": session})

def notes_read(rb: ReplyBuilder, path, notes):
    if path not in notes:
        return rb.invalid("WA-RES-I-001", {"path": path})
    return rb.success("WA-READ-S-001", {})
'''), note="a missing path in a read is a bad request, rightly Invalid")]
    invalid = [Example(tree(server='''
SESSION = {}

def session_status(rb: ReplyBuilder):
    if not SESSION.get("user"):
        return rb.invalid("CT-GATE-I-001", {})
    return rb.success("CT-GATE-S-001", {"user": SESSION["user"]})

def contract(rb: ReplyBuilder, command, result):
    if command == "status":
        if result.get("active"):
            return rb.success("CT-GATE-S-001", result)
        return rb.invalid("CT-GATE-I-002", result, message="No active contract.")
    return rb.success("CT-GATE-S-001", result)
'''), expect=2)]

    def check(self, ctx):
        for c in ctx.non_test_calls():
            if ctx.profile.call_type(c) != "I":
                continue
            parts = ctx.profile.parse_code(c["code"]) if c["code"] else None
            if parts and parts.area in INPUT_AREAS:
                continue
            function = (c["function"] or "").rsplit(".", 1)[-1]
            guards = c.get("guards") or []
            read_path = bool(READ_NAME.search(function)) or any(
                READ_WORDS.search(g) and ("==" in g or " in " in g) for g in guards)
            empty_test = bool(guards) and bool(EMPTY_TEST.search(guards[-1])) and not INPUT_CHECK.search(guards[-1]) \
                and not c.get("guard_on_params")  # `if not table:` on a parameter checks the request itself
            empty_text = bool(c.get("message") and EMPTY_TEXT.search(c["message"]))
            if read_path and (empty_text or empty_test):
                confidence = "high" if (empty_text or (empty_test and "status" in (function + " ".join(guards))))\
                    else "medium"
                why = f"message {c['message']!r}" if empty_text else f"under `if {guards[-1]}`"
                yield self.finding(c["path"], c["line"], f"{c['receiver']}.{c['method']}() for an empty state "
                                   f"({why}) in a read/status path: an empty result is a Success",
                                   col=c["col"], function=c["function"], key=f"{c['method']}:{c['code']}",
                                   confidence=confidence)
