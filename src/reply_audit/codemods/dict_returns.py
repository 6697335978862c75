"""dict-returns: plan 001 phase 3, raw dicts returned by handlers become builder calls."""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

import libcst as cst

from ..rules._snippets import BUILDER, CODES
from ..scan import DEFAULT_CODE, marker_comment
from .base import Codemod, Edit, Example, Refused, Skip, Target

MARKER = marker_comment(DEFAULT_CODE)
_BUILTINS = frozenset(dir(builtins))


@dataclass
class ReturnPlan:
    method: str
    code: str
    drop: tuple[str, ...]      # success-flag keys removed from the payload
    marker: bool               # the code is a profile default: mark it for a human


@dataclass
class DictReturns(Edit):
    """All rewritten returns of one handler, plus the builder construction they need."""

    function: str = ""
    line: int = 0
    builder_name: str = "rb"
    data_keyword: str = "data"
    setup: list[str] = field(default_factory=list)
    returns: dict[tuple, ReturnPlan] = field(default_factory=dict)   # return span -> plan

    @property
    def key(self) -> tuple:
        return (self.codemod, self.path, "def", self.function, self.line)

    def absorb(self, other: Edit) -> None:
        assert isinstance(other, DictReturns)
        for span, plan in other.returns.items():
            if span not in self.returns:
                self.returns[span] = plan
                self.spans.append(span)
        self.description = f"{self.function}: {len(self.returns)} raw dict return(s) -> {self.builder_name} calls"

    def targets(self) -> list[Target]:
        found = [Target("return", span) for span in self.returns]
        return found + ([Target("def", (self.function, self.line))] if self.setup else [])

    def rewrite(self, target, original, updated, ctx):
        if target.kind == "def":
            return self._insert_setup(updated)
        plan = self.returns[target.where]
        value = updated.value
        if isinstance(value, cst.Dict):
            elements, carried = _drop(list(value.elements), plan.drop)
            payload: cst.BaseExpression = value.with_changes(elements=elements, lpar=[], rpar=[])
            if not elements:
                payload = cst.Dict(elements=[])
            elif carried is not None and not _has_comment(value.lbrace.whitespace_after):
                payload = payload.with_changes(lbrace=value.lbrace.with_changes(whitespace_after=carried))
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
            args, carried = _drop(list(value.args), plan.drop)
            payload = value.with_changes(args=args, lpar=[], rpar=[])
            if args and carried is not None and not _has_comment(value.whitespace_before_args):
                payload = payload.with_changes(whitespace_before_args=carried)
        else:
            raise Refused("expected a dict literal or dict(...) in the return")
        call = cst.Call(
            func=cst.Attribute(value=cst.Name(self.builder_name), attr=cst.Name(plan.method)),
            args=[cst.Arg(value=ctx.string(plan.code), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                  cst.Arg(keyword=cst.Name(self.data_keyword), value=payload,
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))],
            lpar=value.lpar, rpar=value.rpar)
        if plan.marker:
            ctx.comment_statement(MARKER)
        return updated.with_changes(value=call)

    def _insert_setup(self, node: cst.FunctionDef) -> cst.FunctionDef:
        body = node.body
        if not isinstance(body, cst.IndentedBlock):
            raise Refused("the handler's body is on its def line")
        statements = list(body.body)
        at = 0
        if statements and _is_docstring(statements[0]):
            at = 1
        while at < len(statements) and isinstance(statements[at], cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Global, cst.Nonlocal)) for s in statements[at].body):
            at += 1
        new = [cst.parse_statement(text) for text in self.setup]
        return node.with_changes(body=body.with_changes(body=[*statements[:at], *new, *statements[at:]]))


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) \
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _key_of(item) -> str | None:
    if isinstance(item, cst.DictElement) and isinstance(item.key, cst.SimpleString):
        return item.key.evaluated_value
    if isinstance(item, cst.Arg) and item.keyword is not None:
        return item.keyword.value
    return None


def _has_comment(ws) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace) and ws.first_line.comment is not None


def _drop(items: list, keys: tuple[str, ...]) -> tuple[list, object | None]:
    """ITEMS (dict elements or call arguments) without those keyed by KEYS, commas kept tidy.

    A comment after a dropped item moves to the separator before it (or, for the first item, comes back as
    the second value: the whitespace to put after the opening bracket), so no comment is lost."""
    out: list = []
    carried = None
    for i, item in enumerate(items):
        if _key_of(item) not in keys:
            out.append(item)
            continue
        if i == len(items) - 1 and out:
            out[-1] = out[-1].with_changes(comma=item.comma)   # the new last item ends as the old one did
        elif isinstance(item.comma, cst.Comma) and _has_comment(item.comma.whitespace_after):
            before = out[-1].comma if out else None
            if isinstance(before, cst.Comma) and not _has_comment(before.whitespace_after):
                out[-1] = out[-1].with_changes(comma=before.with_changes(whitespace_after=item.comma.whitespace_after))
            elif not out:
                carried = item.comma.whitespace_after
    return out, carried


def _names(statements: list[str]) -> tuple[list[str], set[str]]:
    """(names the setup statements read without binding them first, builtins aside; names they bind)."""
    bound: set[str] = set()
    free: list[str] = []
    for text in statements:
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound \
                    and node.id not in _BUILTINS and node.id not in free:
                free.append(node.id)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
    return free, bound


class DictReturnsCodemod(Codemod):
    name = "dict-returns"
    phase = 3
    order = 70
    fixes = ("RA306",)
    doc = ("Plan 001 phase 3 (strict mode): a dict literal or `dict(...)` returned by a handler (RA306) becomes "
           "a builder call. A dict whose success flag ([migrate.dict_returns] success_flags) is literally True, or "
           "that has neither a flag nor an error key, is a Success; a flag that is literally False, or an error "
           "key ([...] error_keys) whose value is not None, makes it Invalid, or Error inside an `except`. Keys "
           "other than the flag go into `data=`, with the dict's own formatting. The code is the dict's own `code` "
           "key when it holds a registered code of the right TYPE (the key then leaves the payload), else the "
           "handler's [tools.HANDLER] entry in a mapping file, else the profile's default, marked "
           "`# reply-audit: default-code` and reported by RA310 until a human picks it. The builder is "
           "constructed once at the top of the handler ([migrate] builder_setup; an existing `rb = ...` of a "
           "builder before the returns is reused) and its imports added. A dict returned through a variable, "
           "or a flag that is no literal, is reported.")
    examples = [Example(
        before={"builder.py": BUILDER.replace("def __init__(self):", "def __init__(self, tool=None):"),
                "codes.py": CODES + '    MCP_SYS_I_001 = ReplyCode("MCP-SYS-I-001")\n',
                "codes.toml": '[tools.notes_search]\nsuccess = "WA-READ-S-001"\n',
                "pyproject.toml": '[tool.reply-audit.mappings]\nfiles = ["codes.toml"]\n',
                "server.py": '''
from builder import ReplyBuilder


@mcp.tool()
def notes_search(query: str) -> dict:
    """Search the notes."""
    if not query:
        return {"error": "empty query", "hint": "pass a word"}
    try:
        hits = [n for n in NOTES if query in n]
    except Exception as exc:
        return {"success": False, "error": str(exc)}
    return {
        "success": True,
        "results": hits,  # newest first
        "count": len(hits),
    }


@mcp.tool()
def notes_stats() -> dict:
    return dict(ok=True, count=len(NOTES))
'''},
        after={"server.py": '''
from builder import ReplyBuilder


@mcp.tool()
def notes_search(query: str) -> dict:
    """Search the notes."""
    rb = ReplyBuilder(tool="notes_search")
    if not query:
        return rb.invalid("MCP-SYS-I-001", data={"error": "empty query", "hint": "pass a word"})  # reply-audit: default-code
    try:
        hits = [n for n in NOTES if query in n]
    except Exception as exc:
        return rb.error("MCP-SYS-E-001", data={"error": str(exc)})  # reply-audit: default-code
    return rb.success("WA-READ-S-001", data={
        "results": hits,  # newest first
        "count": len(hits),
    })


@mcp.tool()
def notes_stats() -> dict:
    rb = ReplyBuilder(tool="notes_stats")
    return rb.success("MCP-SYS-S-001", data=dict(count=len(NOTES)))  # reply-audit: default-code
'''},
        note="notes_search's success code comes from a mapping file ([tools.notes_search] success)",
    )]

    def plan(self, finding, ctx):
        handler, ret = finding.subject["handler"], finding.subject["return"]
        profile = ctx.profile
        if not ret["literal"] or not ret.get("value_span"):
            return Skip("the dict is returned through a variable: build the reply where the dict is made")
        shape = self._shape(ret, profile)
        if isinstance(shape, Skip):
            return shape
        method = profile.method_for_type("S") if shape == "success" else \
            profile.method_for_type("E" if ret["in_except"] else "I")
        if method is None:
            return Skip("the profile has no builder method for this reply type")
        own = ret.get("code")
        own_parts = profile.parse_code(own) if own else None
        if own and own_parts and own_parts.type == profile.builder_methods.get(method) and own in ctx.canonical:
            override = own   # the dict names its own registered code: it becomes the reply's code
        else:
            own = None
            override = ctx.tool_codes.get(handler["name"], {}).get(method)
        default = str(profile.migrate_value(f"dict_returns.{method}_code", "") or "")
        code = override or default
        if not code:
            return Skip(f"no code for {method}(): set [migrate.dict_returns] {method}_code or a [tools."
                        f"{handler['name']}] entry in a mapping file")
        if not ctx.registered(code):
            origin = f"[tools.{handler['name']}] {method}" if override else f"[migrate.dict_returns] {method}_code"
            return Skip(f"{code} ({origin}) is not in the canonical registry")
        builder = ctx.primary_builder
        if builder is None:
            return Skip("no builder to construct: set [migrate] builder_class (the scan found none, or several)")
        known = {b["name"]: b for b in ctx.inventory.builders}
        if builder in known and method not in known[builder]["methods"]:
            return Skip(f"{builder} has no {method}()")
        name = str(profile.migrate_value("builder_name", "rb"))
        if handler.get("inline_body"):
            return Skip(f"the body of {handler['name']} is on its def line: put it on lines of its own first")
        setup = self._setup(handler, ret, builder, name, ctx)
        if isinstance(setup, Skip):
            return setup
        setup, imports = setup
        flags = tuple(k for k in profile.migrate_value("dict_returns.success_flags", []) if k in ret["key_values"])
        if own:
            flags += (str(profile.builder_value("code_keyword", "code")),)
        span = (ret["line"], ret["col"], ret["end_line"], ret["end_col"])
        edit = DictReturns(codemod=self.name, path=handler["path"], spans=[span],
                           description="", imports=imports, function=handler["name"], line=handler["line"],
                           builder_name=name, data_keyword=str(profile.migrate_value("data_keyword", "data")),
                           setup=setup, returns={span: ReturnPlan(method, code, flags, marker=not override)})
        edit.description = f"{handler['name']}: 1 raw dict return(s) -> {name} calls"
        return edit

    @staticmethod
    def _shape(ret, profile) -> str | Skip:
        values = ret["key_values"]
        flags = [k for k in profile.migrate_value("dict_returns.success_flags", []) if k in values]
        kinds = {values[k] for k in flags}
        if kinds - {"true", "false"}:
            return Skip(f"the success flag {flags[0]!r} is not a literal True/False: decide by hand")
        if kinds == {"true", "false"}:
            return Skip("the success flags disagree")
        if kinds:
            return "success" if kinds == {"true"} else "error"
        errors = [k for k in profile.migrate_value("dict_returns.error_keys", []) if k in values]
        return "error" if any(values[k] != "none" for k in errors) else "success"

    @staticmethod
    def _setup(handler, ret, builder: str, name: str, ctx) -> tuple[list[str], list[str]] | Skip:
        """The statements to insert (none when the handler builds one already) and the imports they need."""
        bound = handler["top_calls"].get(name)
        builder_names = {b["name"] for b in ctx.inventory.builders} | {builder}
        if bound and bound[0] in builder_names and bound[1] < ret["line"]:
            return [], []
        templates = list(ctx.profile.migrate_value("builder_setup", []))
        try:
            setup = [t.format(name=name, builder=builder, tool=handler["name"]) for t in templates]
            free, binds = _names(setup)
        except (KeyError, IndexError, ValueError, SyntaxError) as exc:
            return Skip(f"[migrate] builder_setup is not a valid template: {exc}")
        taken = sorted((binds | set(free)) & set(handler["local_names"]))
        if taken:
            return Skip(f"{', '.join(map(repr, taken))} already names something else in {handler['name']}: "
                        "set [migrate] builder_name / builder_setup")
        shadowed = sorted(binds & set(ctx.files[handler["path"]].bound_names))
        if shadowed:
            return Skip(f"{', '.join(map(repr, shadowed))} is a module-level name in {handler['path']} that the "
                        "builder would shadow: set [migrate] builder_name / builder_setup")
        configured = list(ctx.profile.migrate_value("builder_imports", []) or [])
        if configured:
            return setup, configured
        imports = []
        for needed in free:
            if ctx.imports.binds(handler["path"], needed):
                continue
            found = ctx.imports.statement_for(needed, handler["path"])
            if found is None:
                return Skip(f"no import of {needed} is known for {handler['path']}: set [migrate] builder_imports")
            imports.append(found)
        return setup, imports
