"""RA305: an empty state in a read or status path answered Invalid (F7; heuristic)."""

from collections.abc import Iterator

from ..meaning import empty_state, empty_state_confidence, input_evidence
from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class EmptyStateInvalid(Rule):
    id = "RA305"
    name = "empty-state-invalid"
    severity = "low"
    category = "call"
    requirement = "empty-success"
    chunk = "call-sites"
    spec = "spec 000 §3 (002 §5.3)"
    heuristic = True
    doc = ("\"No results\" or \"no active X\" in answer to a valid read or status query is a valid state, not a "
           "bad request: it is Success with empty data (`{has_active_contract: false}`, `{results: []}`). This "
           "rule is a heuristic, and it asks the same classifier as `migrate` (so the scan never contradicts a "
           "type migrate wrote with evidence): it looks for an Invalid in a read or status path (the function's "
           "name, or an enclosing `==`/`in` test, holds one of [classify] read-names) with a message saying "
           "nothing was found (empty_patterns) or under an emptiness test (`not x`, `is None`, `== 0`: "
           "empty_tests, but not an existence or validity check: input_checks). It leaves alone every sign of bad "
           "input, where Invalid is right: a test that reads one of the function's parameters, a message that "
           "quotes one, a code of an area in input_areas (resolution, validation), a missing resource or "
           "credential named in the test or the message (precondition_words: `if not api_token`). Confidence is "
           "high with a message that says so, or an emptiness test in a status path; medium otherwise.")
    fix = ("rb.success(..., data={...: empty}).")
    valid = [Example(tree(server='''
def notes_status(rb: ReplyBuilder, session):
    if not session:
        return rb.success("CT-GATE-S-001", {"has_active_session": False})
    return rb.success("CT-GATE-S-001", {"user": session})

def notes_read(rb: ReplyBuilder, path, notes):
    if path not in notes:
        return rb.invalid("WA-RES-I-001", {"path": path})
    return rb.success("WA-READ-S-001", {})
'''), note="a missing path in a read is a bad request, rightly Invalid"),
             Example(tree(server='''
PLAYSETS = {}

def get_playset(rb: ReplyBuilder, name):
    found = PLAYSETS.get(name)
    if not found:
        return rb.invalid("CT-GATE-I-001", {}, message=f"No playset named {name!r} found")
    return rb.success("CT-GATE-S-001", {"playset": found})
'''), note="the message quotes the caller's own argument: the request named something that is not there"),
             Example(tree(server='''
def launcher(rb: ReplyBuilder, command):
    db = find_launcher_db()
    if command == "query":
        return rb.success("WA-READ-S-001", {"rows": []})
    elif not db:
        return rb.invalid("CT-GATE-I-001", {}, message="No launcher database")
    return rb.success("CT-GATE-S-001", {"repaired": True})
'''), note="outside the `query` branch the command is not a read: a missing database blocks a repair"),
             Example(tree(server='''
import os
def get_instructions(rb: ReplyBuilder, mode):
    api_token = os.environ.get("API_TOKEN", "")
    if not api_token:
        return rb.invalid("CT-GATE-I-001", {"requires_token": True})
    return rb.success("CT-GATE-S-001", {"mode": mode})
'''), note="a read without its credential: a precondition not met (precondition_words), not an empty result"),
             Example(tree(server='''
def notes_status(rb: ReplyBuilder, note_id):
    if not note_id:
        return rb.invalid("CT-GATE-I-001", {})
    return rb.success("CT-GATE-S-001", {"id": note_id})
'''), note="the emptiness test reads the caller's own parameter: a missing argument, rightly Invalid")]
    invalid = [Example(tree(server='''
SESSION = {}

def session_status(rb: ReplyBuilder):
    if not SESSION.get("user"):
        return rb.invalid("CT-GATE-I-001", {})
    return rb.success("CT-GATE-S-001", {"user": SESSION["user"]})

def contract(rb: ReplyBuilder, command):
    result = load_contract()
    if command == "status":
        if result.get("active"):
            return rb.success("CT-GATE-S-001", result)
        return rb.invalid("CT-GATE-I-002", result, message="No active contract.")
    return rb.success("CT-GATE-S-001", result)
'''),
        findings=[
            ("server.py", 6, 16,
             "rb.invalid() for an empty state (session_status answers a read (status), under the emptiness test "
             "`if not SESSION.get('user')`): an empty result is a Success"),
            ("server.py", 14, 16,
             "rb.invalid() for an empty state (under `if command == 'status'` (a read or status command), and "
             "its message 'No active contract.' says nothing was found): an empty result is a Success"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        profile = ctx.profile
        for c in ctx.non_test_calls():
            if profile.call_type(c) != "I":
                continue
            parts = profile.parse_code(c.code) if c.code else None
            if input_evidence(c, profile, parts.area if parts else None):
                continue   # the caller's mistake: Invalid is right, and migrate would write it too
            function = c.function or ""
            guards = c.guards or []
            signal = empty_state(function, guards, c.message, profile)
            if signal is None:
                continue
            yield self.finding(c.path, c.line, f"{c.receiver}.{c.method}() for an empty state "
                               f"({signal}): an empty result is a Success",
                               col=c.col, function=c.function, key=f"{c.method}:{c.code}",
                               confidence=empty_state_confidence(signal, function, guards))
