"""RA308: a tool handler without the safety wrapper."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


def has_decorator(decorators: list[str], wanted: str) -> bool:
    return any(d == wanted or d.endswith("." + wanted) for d in decorators)


class HandlerNotWrapped(Rule):
    id = "RA308"
    name = "handler-not-wrapped"
    severity = "medium"
    category = "call"
    requirement = "handlers-wrapped"
    chunk = "safety-net"
    spec = "spec 000 §11; plan 001 phase 1"
    doc = ("Every tool handler runs inside the safety wrapper ([handlers] safety-decorator, `@mcp_safe_tool`): it "
           "gives each reply its trace id, turns an unhandled exception into an Error reply instead of a crashed "
           "transport, and in phase 1 wraps a legacy raw payload as MCP-SYS-S-900. A handler registered without it "
           "has none of that.")
    fix = ("Put the decorator directly below the registration decorator (`reply-audit migrate --select "
           "safety-wrapper`).")
    valid = [Example('''
@mcp.tool()
@mcp_safe_tool
def notes_read(path):
    return {"path": path}
''')]
    invalid = [Example('''
@mcp.tool()
def notes_read(path):
    return {"path": path}

@server.mcp.tool()
async def notes_list():
    return []
''',
        findings=[
            ("mod.py", 2, 1, "handler notes_read is not wrapped by @mcp_safe_tool"),
            ("mod.py", 6, 1, "handler notes_list is not wrapped by @mcp_safe_tool"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        safety = ctx.profile.safety_decorator
        if not safety:
            return
        for h in ctx.inventory.handlers:
            if not ctx.is_test(h.path) and not has_decorator(h.decorators, safety):
                # reported on the first decorator, where the wrapper goes (and a suppression comment sits)
                yield self.finding(h.path, h.first_line or h.line,
                                   f"handler {h.name} is not wrapped by @{safety}",
                                   function=h.qualname, key=h.name, subject=h)
