"""except-to-error: a broad `except` that answers Invalid answers Error."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..records import Call
from ..rules._snippets import tree
from .base import Codemod, Edit, Example, Skip
from .edits import RewriteCall, span_of

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Finding
    from .context import PlanContext


class ExceptToError(Codemod):
    name = "except-to-error"
    phase = 2
    order = 50
    fixes = ("RA304",)
    subjects = (Call,)
    doc = ("In an `except Exception` or bare `except` (RA304), an Invalid reply becomes an Error reply with the "
           "code [migrate.except-to-error] code (MCP-SYS-E-001 by default): the method is renamed to the one that "
           "builds E and the code argument replaced, keeping the payload. A code given as a registry reference "
           "(`Codes.X.code`) is replaced by the same registry's reference when it defines the new code. The code "
           "must be registered when the tree has a canonical registry; a builder without an error method is "
           "reported.")
    examples = [Example(
        before=tree(server='''
def notes_write(rb: ReplyBuilder, store, path, text):
    try:
        store[path] = text.strip()
    except KeyError:
        return rb.invalid("WA-RES-I-001", {"path": path})
    except Exception as exc:  # anything else is our fault
        return rb.invalid(
            "WA-RES-I-001",
            {"error": str(exc)},   # keep the detail
        )
    return rb.success("WA-RES-S-001", {"path": path})
'''),
        after={"server.py": '''
def notes_write(rb: ReplyBuilder, store, path, text):
    try:
        store[path] = text.strip()
    except KeyError:
        return rb.invalid("WA-RES-I-001", {"path": path})
    except Exception as exc:  # anything else is our fault
        return rb.error(
            "MCP-SYS-E-001",
            {"error": str(exc)},   # keep the detail
        )
    return rb.success("WA-RES-S-001", {"path": path})
'''},
        note="the narrow KeyError may answer Invalid and is left alone",
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        call = cast(Call, finding.subject)   # the planner hands it only findings about a Call
        profile = ctx.profile
        method = profile.method_for_type("E")
        code = str(profile.migrate_value("except_to_error.code") or "")
        if method is None or not code:
            return Skip("the profile names no Error method or no [migrate.except-to-error] code")
        if not ctx.registered(code):
            return Skip(f"{code} ([migrate.except-to-error] code) is not in the canonical registry")
        if not ctx.builder_has(call, method):
            return Skip(f"{call.builder} has no {method}()")
        if profile.method_code_argument(call.method) != profile.method_code_argument(method):
            return Skip(f"{call.method}() and {method}() take their code at different places ([builder.methods]): "
                        "rename it by hand")
        return RewriteCall(
            codemod=self.name, path=call.path, spans=[span_of(call)],
            description=f"{call.receiver}.{call.method}({call.code or call.code_ref}) -> {method}({code})",
            method=call.method, new_method=method, old_code=call.code, new_code=code,
            code_keyword=profile.method_code_argument(call.method)[0],
            code_position=profile.method_code_argument(call.method)[1],
            code_expression=ctx.code_expression(call.code_ref, code))
