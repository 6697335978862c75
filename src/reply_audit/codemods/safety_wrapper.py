"""safety-wrapper: plan 001 phase 1, every handler under the safety decorator."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..lazy import lazy_module
from ..record_class import record
from ..records import Handler
from ..rules.ra308_handler_not_wrapped import has_decorator
from .base import Codemod, Edit, Example, Skip, Target
from .convert import (
    LEGACY_WRAP,
    REPLY_KINDS,
    add_decorator,
    legacy_wrap,
    plan_handler,
    safety_decoration,
    typed_wrapper_words,
    wrapper_words,
)

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ..rules.base import Finding
    from .context import PlanContext
    from .rewrite_context import RewriteContext
else:
    cst = lazy_module("libcst")

_SAFETY = '''
def mcp_safe_tool(func):
    return func
'''


@record
class AddDecorator(Edit):
    """Add `@NAME` to a function, right below its last registration decorator."""

    name: str = ""
    line: int = 0
    function: str = ""
    after: tuple[str, ...] = ()   # decorators (dotted, without call) that register a handler
    below: str = ""               # a decorator to put directly below it (the legacy auto-wrap)

    def targets(self) -> list[Target]:
        return [Target("def", (self.function, self.line))]

    def rewrite(self, target: Target, original: cst.CSTNode, updated: cst.CSTNode,
                ctx: RewriteContext) -> cst.CSTNode:
        node = add_decorator(cast(cst.FunctionDef, updated), self.name, self.after)
        return add_decorator(node, self.below, (self.name,)) if self.below else node


class SafetyWrapper(Codemod):
    name = "safety-wrapper"
    phase = 1
    order = 10
    fixes = ("RA308",)
    subjects = (Handler,)
    doc = ("Plan 001 phase 1: every tool handler without the safety decorator (RA308) gets it, directly below "
           "its registration decorator as the spec's usage shows (`@mcp.tool()` then `@mcp_safe_tool`), and the "
           "file gets its import: [migrate] safety-imports, or an import of the decorator found elsewhere in the "
           "tree. With neither, the handler is reported: the wrapper must exist before handlers can use it.")
    examples = [Example(
        before={"safety.py": _SAFETY, "__init__.py": "", "server.py": '''
"""Notes tools."""
from __future__ import annotations

from .app import mcp


@mcp.tool()
@cached  # keeps its place
def notes_read(path: str) -> dict:
    return {"path": path}


@mcp.tool()
@mcp_safe_tool
def notes_list() -> dict:
    return {"notes": []}
'''},
        after={"server.py": '''
"""Notes tools."""
from __future__ import annotations

from .app import mcp
from .safety import mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
@cached  # keeps its place
def notes_read(path: str) -> dict:
    return {"path": path}


@mcp.tool()
@mcp_safe_tool
def notes_list() -> dict:
    return {"notes": []}
'''},
        note="the import is derived from safety.py, a module of the same package",
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        handler = cast(Handler, finding.subject)   # the planner hands it only findings about a Handler
        safety = ctx.safety_decorator
        if not safety or has_decorator(handler.decorators, safety):
            return None
        raw = [r for r in handler.returns if r.kind not in REPLY_KINDS]
        if raw and not ctx.wrapper_takes_dicts:
            # wrapping alone would break every raw return: only together with their conversion
            if "dict-returns" in ctx.selected:
                found = plan_handler(handler, ctx)
                return Skip(found.skip) if found.skip is not None else found.edit
            if not ctx.profile.migrate_value("legacy_wrap"):
                return Skip(f"{ctx.wrapper.name} {wrapper_words(ctx)}, and {len(raw)} return(s) of "
                            f"{handler.name} are not replies yet (line {raw[0].line}): it is wrapped together "
                            "with their conversion (dict-returns, phase 3), or under [migrate] legacy-wrap")
            legacy = legacy_wrap(handler, ctx)
            if isinstance(legacy, Skip):
                return legacy
            definitions, more = legacy
            decoration = safety_decoration(handler, ctx)
            if isinstance(decoration, Skip):
                return decoration
            decorator, imports = decoration
            edit = self._edit(handler, decorator, imports + more, ctx)
            edit.below, edit.definitions = LEGACY_WRAP, definitions
            edit.description += f" with @{LEGACY_WRAP}"
            return edit
        if raw and ctx.wrapper.requires:
            return Skip(typed_wrapper_words(ctx, handler))
        decoration = safety_decoration(handler, ctx)
        if isinstance(decoration, Skip):
            return decoration
        decorator, imports = decoration
        return self._edit(handler, decorator, imports, ctx)

    def _edit(self, handler: Handler, decorator: str, imports: list[str], ctx: PlanContext) -> AddDecorator:
        registration = tuple(d for d in ctx.profile.handler_decorators if d != ctx.safety_decorator)
        return AddDecorator(codemod=self.name, path=handler.path,
                            spans=[(handler.line, -1, handler.line, -1)],
                            description=f"@{decorator} on {handler.name}", imports=imports,
                            name=decorator, line=handler.line, function=handler.name, after=registration)

