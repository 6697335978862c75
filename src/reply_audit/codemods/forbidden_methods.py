"""forbidden-methods: rb.info()/rb.warn() -> rb.success(), rb.fail() -> rb.error()."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..records import Call
from ..rules._snippets import BUILDER
from .base import Codemod, Edit, Example, Skip
from .edits import RewriteCall, span_of

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Finding
    from .context import PlanContext

_CODES = '''
class Codes:
    WA_READ_S_001 = ReplyCode("WA-READ-S-001")
    WA_READ_S_002 = ReplyCode("WA-READ-S-002")
    MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001")
'''


class ForbiddenMethods(Codemod):
    name = "forbidden-methods"
    phase = 2
    order = 40
    fixes = ("RA203",)
    subjects = (Call,)
    doc = ("Renames calls of the forbidden builder methods (RA203) to the canonical ones their profile names "
           "([builder.forbidden-methods]: info and warn become success, fail becomes error). A literal code "
           "whose TYPE letter no longer fits is changed to the code with the new letter only when the canonical "
           "registry defines it (WA-READ-I-002 -> WA-READ-S-002); otherwise the code is kept and RA302 reports "
           "it. A call whose builder lacks the target method is reported instead.")
    examples = [Example(
        before={"builder.py": BUILDER, "codes.py": _CODES, "server.py": '''
def notes_list(rb: ReplyBuilder, notes):
    if not notes:
        return rb.info("WA-READ-I-002",   # nothing to list
                       {"notes": []})
    if len(notes) > 100:
        return rb.warn("WA-READ-I-003", {"notes": notes[:100], "truncated": True})
    try:
        rows = sorted(notes)
    except TypeError as exc:
        return rb.fail(code="MCP-SYS-E-001", data={"error": str(exc)})
    return rb.success("WA-READ-S-001", {"notes": rows})
'''},
        after={"server.py": '''
def notes_list(rb: ReplyBuilder, notes):
    if not notes:
        return rb.success("WA-READ-S-002",   # nothing to list
                       {"notes": []})
    if len(notes) > 100:
        return rb.success("WA-READ-I-003", {"notes": notes[:100], "truncated": True})
    try:
        rows = sorted(notes)
    except TypeError as exc:
        return rb.error(code="MCP-SYS-E-001", data={"error": str(exc)})
    return rb.success("WA-READ-S-001", {"notes": rows})
'''},
        note="WA-READ-S-003 is not registered, so WA-READ-I-003 is kept (RA302 then reports it)",
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        call = cast(Call, finding.subject)   # the planner hands it only findings about a Call
        new_method = ctx.profile.forbidden_methods.get(call.method)
        if new_method is None:
            return None
        if not ctx.builder_has(call, new_method):
            return Skip(f"{call.builder} has no {new_method}(): kill the shadow builder first")
        new_code = call.code
        note = ""
        letter = ctx.profile.builder_methods.get(new_method)
        parts = ctx.profile.parse_code(call.code) if call.code else None
        if parts and letter and parts.type != letter and parts.type in ctx.profile.type_letters:
            candidate = f"{parts.layer}-{parts.area}-{letter}-{parts.number:03d}"
            if candidate in ctx.canonical:
                new_code = candidate
            else:
                note = f" (code {call.code} kept: {candidate} is not registered)"
        profile = ctx.profile
        if profile.method_code_argument(call.method) != profile.method_code_argument(new_method):
            return Skip(f"{call.method}() and {new_method}() take their code at different places "
                        "([builder.methods]): rename it by hand")
        return RewriteCall(
            codemod=self.name, path=call.path, spans=[span_of(call)],
            description=f"{call.receiver}.{call.method}() -> {new_method}()"
                        + (f", {call.code} -> {new_code}" if new_code != call.code else note),
            method=call.method, new_method=new_method, old_code=call.code, new_code=new_code,
            code_keyword=profile.method_code_argument(call.method)[0],
            code_position=profile.method_code_argument(call.method)[1])
