"""terminal-return: a terminal builder call used as a bare statement becomes `return ...`."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..lazy import lazy_module
from ..record_class import record
from ..records import Call
from ..rules._snippets import tree
from .base import Codemod, Edit, Example, Refused, Skip, Target
from .edits import span_of

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ..rules.base import Finding
    from .context import PlanContext
    from .rewrite_context import RewriteContext
else:
    cst = lazy_module("libcst")


@record
class ReturnCall(Edit):
    """The expression statement `rb.denied(...)` -> `return rb.denied(...)`."""

    def targets(self) -> list[Target]:
        return [Target("expr", self.spans[0])]

    def rewrite(self, target: Target, original: cst.CSTNode, updated: cst.CSTNode,
                ctx: RewriteContext) -> cst.CSTNode:
        updated = cast(cst.Expr, updated)   # an "expr" target is an Expr (apply._KINDS)
        if not isinstance(updated.value, cst.Call):
            raise Refused("expected a call statement there")
        return cst.Return(value=updated.value, semicolon=updated.semicolon)


class TerminalReturn(Codemod):
    name = "terminal-return"
    phase = 2
    order = 60
    fixes = ("RA303",)
    subjects = (Call,)
    doc = ("A terminal builder call (Invalid, Denied, Error) written as a bare statement (RA303) becomes "
           "`return <the call>`, so the reply is not lost and nothing runs after it. Only calls that end their "
           "block are rewritten: when statements follow in the same block, returning would skip them, and a "
           "human decides. A terminal reply stored in a variable, or built outside a function, in `__init__` or in "
           "a generator (where a returned value ends the iteration unseen), is reported.")
    examples = [Example(
        before=tree(server='''
def notes_write(rb: ReplyBuilder, store, path, text):
    if path.startswith("/system"):
        # system notes are read-only
        rb.denied("EN-WRITE-D-001", {"path": path})  # refused
    elif not text:
        rb.invalid("WA-RES-I-001", {"path": path})
        print("empty note")
    else:
        store[path] = text
    return rb.success("WA-RES-S-001", {"path": path})
'''),
        after={"server.py": '''
def notes_write(rb: ReplyBuilder, store, path, text):
    if path.startswith("/system"):
        # system notes are read-only
        return rb.denied("EN-WRITE-D-001", {"path": path})  # refused
    elif not text:
        rb.invalid("WA-RES-I-001", {"path": path})
        print("empty note")
    else:
        store[path] = text
    return rb.success("WA-RES-S-001", {"path": path})
'''},
        note="the Invalid is followed by a print: reported, left alone",
        skipped=("statements follow it in its block: returning here would skip them; decide by hand",),
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        call = cast(Call, finding.subject)   # the planner hands it only findings about a Call
        if not call.bare:
            return Skip(f"the {call.method}() reply is stored or passed on, not dropped: return it by hand")
        if call.followed:
            return Skip("statements follow it in its block: returning here would skip them; decide by hand")
        if call.in_generator:
            return Skip("the function is a generator: a returned reply would end the iteration unseen")
        function = call.function
        if not function or function.rsplit(".", 1)[-1] == "__init__":
            return Skip("not inside a function that may return a reply")
        return ReturnCall(codemod=self.name, path=call.path, spans=[span_of(call)],
                          description=f"return {call.receiver}.{call.method}(...)")
