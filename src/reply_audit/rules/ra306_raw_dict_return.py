"""RA306: a handler returns a raw dict."""

from collections.abc import Iterator

from ..facts.signatures import is_dict_annotation
from ..records import HandlerReturn
from .base import Example, Finding, Rule, RuleContext


class RawDictReturn(Rule):
    id = "RA306"
    name = "raw-dict-return"
    severity = "medium"
    category = "call"
    requirement = "handlers-return-replies"
    chunk = "strict-mode"
    spec = "spec 000 §12; plan 001 phase 3"
    doc = ("Raw dict returns were allowed only in phase 1, behind the safety wrapper's legacy auto-wrap "
           "(MCP-SYS-S-900). In strict mode every handler returns a Reply. A handler annotated as returning a dict "
           "(`-> dict`, `Dict[str, Any]`) returns one at every return the scan cannot see into (`return result`, "
           "`return helper(...)`): those count too, and so does a conditional that is a dict on every branch "
           "(`result if isinstance(result, dict) else {\"success\": False, ...}`). A handler that returns a string "
           "(`return f\"Error: {e}\"`) returns no reply either: it is reported too.")
    fix = ("Build the reply (`reply-audit migrate --select dict-returns`): success-shaped dicts become "
           "rb.success(code, data={...}), error-shaped ones Invalid, or Error inside an except.")
    valid = [Example('''
@mcp.tool()
def notes_search(rb: ReplyBuilder, query):
    def _row(x):
        return {"name": x}
    return rb.success("WA-READ-S-001", {"results": [_row(q) for q in query]})
''', note="a dict returned by a nested helper is not the handler's return")]
    invalid = [Example('''
@mcp.tool()
def notes_search(query):
    if not query:
        return {"error": "empty query"}
    return dict(success=True, results=[])

@mcp.tool()
def notes_status() -> dict:
    return backend.status()

@mcp.tool()
def notes_run(name):
    result = backend.run(name)
    return result if isinstance(result, dict) else {"success": False, "message": str(result)}

@mcp.tool()
def notes_drop(name):
    try:
        backend.drop(name)
    except OSError as e:
        return f"Error: {e}"
    return rb.success("WA-WRITE-S-001", {})
''',
        findings=[
            ("mod.py", 5, 1, "handler notes_search returns a raw dict ({error})"),
            ("mod.py", 6, 1, "handler notes_search returns a raw dict ({success, results})"),
            ("mod.py", 10, 1, "handler notes_status returns a raw dict (its annotation says -> dict)"),
            ("mod.py", 15, 1, "handler notes_run returns a raw dict ({success, message})"),
            ("mod.py", 22, 1, "handler notes_drop returns a string, not a reply"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for h in ctx.inventory.handlers:
            if ctx.is_test(h.path):
                continue
            typed_dict = is_dict_annotation(h.annotation)
            for r in h.returns:
                if r.kind == "dict":
                    keys = ", ".join(r.keys[:4]) + ("…" if len(r.keys) > 4 else "")
                    yield self.finding(h.path, r.line, f"handler {h.name} returns a raw dict "
                                       f"({{{keys}}})", function=h.qualname, key=",".join(r.keys),
                                       subject=HandlerReturn(handler=h, ret=r))
                elif r.literal_type == "str":   # `return f"❌ {e}"`: a text where a reply belongs
                    yield self.finding(h.path, r.line, f"handler {h.name} returns a string, not a reply",
                                       function=h.qualname, key="str", subject=HandlerReturn(handler=h, ret=r))
                elif r.kind == "other" and typed_dict:
                    yield self.finding(h.path, r.line, f"handler {h.name} returns a raw dict (its "
                                       f"annotation says -> {h.annotation})", function=h.qualname,
                                       key=f"-> {h.annotation}",
                                       subject=HandlerReturn(handler=h, ret=r))
