"""RA310: a reply code that `reply-audit migrate` chose by default, waiting for a human decision."""

from collections.abc import Iterator

from ..directives import DEFAULT_CODE
from ..records import Call
from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class MigrationDefaultCode(Rule):
    id = "RA310"
    name = "migration-default-code"
    severity = "low"
    category = "call"
    requirement = "specific-codes"
    chunk = "strict-mode"
    spec = "plan 001 phase 2"
    doc = ("When `reply-audit migrate` (dict-returns) turns a raw dict into a builder call and no mapping file "
           "names the handler's code ([tools.HANDLER]), it uses the profile's default ([migrate.dict-returns]) and "
           "marks the line `# reply-audit: default-code`. A default is a placeholder: MCP-SYS-S-001 says nothing "
           "about what succeeded.")
    fix = ("Replace it with the specific registry code and delete the marker (or name the code in a mapping file "
           "before migrating).")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-001", data={})\n'))]
    invalid = [Example(tree(server='''
def f(rb: ReplyBuilder):
    return rb.success("MCP-SYS-S-001", data={"n": 1})  # reply-audit: default-code
'''),
        findings=[
            ("server.py", 3, 1,
             "rb.success('MCP-SYS-S-001'): the code is a migration default; pick the specific registry code and "
             "delete the marker"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        calls: dict[tuple[str, int], Call] = {}
        for c in ctx.inventory.calls:
            for line in {c.line, c.end_line}:
                calls.setdefault((c.path, line), c)
        for m in ctx.inventory.markers:
            if m.marker != DEFAULT_CODE or ctx.is_test(m.path):
                continue
            call = calls.get((m.path, m.line))
            callee = (f"{call.receiver}.{call.method}" if call.receiver else call.method) if call else ""
            what = f"{callee}({call.code!r})" if call else "this reply"
            yield self.finding(m.path, m.line, f"{what}: the code is a migration default; pick the "
                               "specific registry code and delete the marker",
                               function=call.function if call else None,
                               key=f"{call.method}:{call.code}" if call else "", subject=m)
