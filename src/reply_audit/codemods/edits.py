"""Edits shared by several codemods: replace a code literal, rewrite a builder call.

Each rewrites exactly the node it targets and checks first that the node is
what the plan saw (the same string value, the same method name); if not it
refuses, and the rewriter drops it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..lazy import lazy_module
from ..record_class import record
from .base import Edit, Refused, Span, Target

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from .rewrite_context import RewriteContext
else:
    cst = lazy_module("libcst")


def returning(node: cst.Return, value: cst.BaseExpression) -> cst.Return:
    """NODE returning VALUE instead; `return{...}` gets its space back when VALUE needs one (`return rb.x()`)."""
    try:
        return node.with_changes(value=value)
    except cst.CSTValidationError:   # "Must have at least one space after 'return'"
        return node.with_changes(value=value, whitespace_after_return=cst.SimpleWhitespace(" "))


def replace_string(node: cst.SimpleString, old: str | bytes, new: str) -> cst.SimpleString:
    """NODE with its text OLD replaced by NEW, keeping prefix and quotes."""
    if node.evaluated_value != old:
        raise Refused(f"expected the string {old!r} there, found {node.value}")
    quote = node.quote
    prefix = node.value[:node.value.index(quote)]   # as written: `R"..."` stays `R"..."`
    return node.with_changes(value=f"{prefix}{quote}{new}{quote}")


@record
class ReplaceCode(Edit):
    """`"OLD-CODE"` -> `"NEW-CODE"` at one string literal."""

    old: str = ""
    new: str = ""

    def targets(self) -> list[Target]:
        return [Target("string", self.spans[0])]

    def rewrite(self, target: Target, original: cst.CSTNode, updated: cst.CSTNode,
                ctx: RewriteContext) -> cst.CSTNode:
        return replace_string(cast(cst.SimpleString, updated), self.old, self.new)


@record
class RewriteCall(Edit):
    """`rb.OLD(code, ...)` -> `rb.NEW(new_code, ...)`: the method name and/or the code argument.

    `code_expression`, when set, replaces a non-literal code argument (a registry reference such as
    `Codes.X.code`) with this expression text; a literal code keeps its quotes.
    """

    method: str = ""
    new_method: str | None = None
    old_code: str | None = None
    new_code: str | None = None
    code_keyword: str = "code"
    code_position: int = 0
    code_expression: str | None = None

    def targets(self) -> list[Target]:
        return [Target("call", self.spans[0])]

    def rewrite(self, target: Target, original: cst.CSTNode, updated: cst.CSTNode,
                ctx: RewriteContext) -> cst.CSTNode:
        updated = cast(cst.Call, updated)   # a "call" target is a Call (apply._KINDS)
        func = updated.func
        if not isinstance(func, cst.Attribute) or func.attr.value != self.method:
            raise Refused(f"expected a call of .{self.method}() there")
        if self.new_method:
            updated = updated.with_changes(func=func.with_changes(attr=cst.Name(self.new_method)))
        if self.new_code is not None and self.new_code != self.old_code:
            updated = updated.with_changes(args=self._args(list(updated.args), ctx))
        return updated

    def _args(self, args: list[cst.Arg], ctx: RewriteContext) -> list[cst.Arg]:
        index = next((i for i, a in enumerate(args) if a.keyword and a.keyword.value == self.code_keyword), None)
        if index is None:
            positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
            if len(positional) <= self.code_position:
                raise Refused("the call has no code argument")
            index = positional[self.code_position]
        value = args[index].value
        if isinstance(value, cst.SimpleString):
            if self.old_code is not None and value.evaluated_value != self.old_code:
                raise Refused(f"expected the code {self.old_code!r}, found {value.value}")
            assert self.new_code is not None   # _args runs only for a new code
            new_value: cst.BaseExpression = replace_string(value, value.evaluated_value, self.new_code)
        elif self.code_expression:
            new_value = cst.parse_expression(self.code_expression)
        else:
            new_value = ctx.string(cast(str, self.new_code))   # _args runs only for a new code
        args[index] = args[index].with_changes(value=new_value)
        return args


def span_of(record: Any, prefix: str = "") -> Span:
    """The span of an inventory record with line/col/end_line/end_col fields (a typed record, or one of the kinds
    still held as dicts)."""
    fields = (f"{prefix}line", f"{prefix}col", f"{prefix}end_line", f"{prefix}end_col")
    if isinstance(record, dict):
        return (record[fields[0]], record[fields[1]], record[fields[2]], record[fields[3]])
    return (getattr(record, fields[0]), getattr(record, fields[1]), getattr(record, fields[2]),
            getattr(record, fields[3]))
