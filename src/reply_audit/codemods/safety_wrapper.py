"""safety-wrapper: plan 001 phase 1, every handler under the safety decorator."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..rules.ra308_handler_not_wrapped import has_decorator
from .base import Codemod, Example, Refused, Skip, Target
from .base import Edit

_SAFETY = '''
def mcp_safe_tool(func):
    return func
'''


@dataclass
class AddDecorator(Edit):
    """Add `@NAME` to a function, right below its last registration decorator."""

    name: str = ""
    line: int = 0
    function: str = ""
    after: tuple[str, ...] = ()   # decorators (dotted, without call) that register a handler

    def targets(self) -> list[Target]:
        return [Target("def", (self.function, self.line))]

    def rewrite(self, target, original, updated, ctx):
        decorators = list(updated.decorators)
        names = [_dotted(d.decorator) for d in decorators]
        if any(n == self.name or n.endswith("." + self.name) for n in names):
            return updated
        place = max((i + 1 for i, n in enumerate(names)
                     if any(n == a or n.endswith("." + a) for a in self.after)), default=None)
        if place is None:
            raise Refused("no registration decorator found on the function")
        decorators.insert(place, cst.Decorator(decorator=cst.parse_expression(self.name)))
        return updated.with_changes(decorators=decorators)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Call):
        node = node.func
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
    return ".".join(reversed(parts))


class SafetyWrapper(Codemod):
    name = "safety-wrapper"
    phase = 1
    order = 10
    fixes = ("RA308",)
    doc = ("Plan 001 phase 1: every tool handler without the safety decorator (RA308) gets it, directly below "
           "its registration decorator as the spec's usage shows (`@mcp.tool()` then `@mcp_safe_tool`), and the "
           "file gets its import: [migrate] safety_imports, or an import of the decorator found elsewhere in the "
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

    def plan(self, finding, ctx):
        handler = finding.subject
        profile = ctx.profile
        safety = str(profile.section("handlers").get("safety_decorator", "") or "")
        if not safety or has_decorator(handler["decorators"], safety):
            return None
        root, _, rest = safety.partition(".")
        aliases = ctx.files[handler["path"]].import_aliases
        local = next((alias for alias, name in sorted(aliases.items()) if name == root), None)
        if local is not None:  # the file imports it under another name: use that name, no import needed
            return self._edit(handler, local + (f".{rest}" if rest else ""), [], profile)
        imports = list(profile.migrate_value("safety_imports", []) or [])
        if not imports and not ctx.imports.binds(handler["path"], root):
            found = ctx.imports.statement_for(root, handler["path"])
            if found is None:
                return Skip(f"no import of {root} is known for {handler['path']}: define the wrapper, or set "
                            "[migrate] safety_imports")
            imports = [found]
        return self._edit(handler, safety, imports, profile)

    def _edit(self, handler, decorator: str, imports: list[str], profile) -> "AddDecorator":
        safety = str(profile.section("handlers").get("safety_decorator", ""))
        registration = tuple(d for d in profile.handler_decorators if d != safety)
        return AddDecorator(codemod=self.name, path=handler["path"],
                            spans=[(handler["line"], -1, handler["line"], -1)],
                            description=f"@{decorator} on {handler['name']}", imports=imports,
                            name=decorator, line=handler["line"], function=handler["name"], after=registration)
