"""The project's own reply API, for codebases with no builder object: one call template per reply type.

`[migrate.reply-api]` gives, for each TYPE letter, the call dict-returns writes instead of `rb.<method>(…)`:

    S = "MCPResponse(success=True, message={message}, data={data})"
    I = "MCPResponse(success=False, error={message}, error_code={code}, data={data})"
    imports = ["from app.models import MCPResponse"]

`{code}` becomes the chosen code as a string, `{message}` the dict's message (its message_keys), `{data}` the
rest of the dict. A template is Python: each placeholder is a one-name set display, so it parses as it is.

Before anything is written, every template is checked against the callee's definition in the scanned tree
(a class's `__init__`, or its annotated fields for a dataclass or model, or a function's parameters): each
keyword must be a parameter, each required parameter must be given. A return without a message drops the
`{message}` keyword, which the callee must then not require. A callee that is not defined in the tree cannot be
checked, and nothing is written for it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..facts.model import BuilderFact, Signature
from ..facts.signatures import signature
from ..facts.walking import source_text
from ..lazy import lazy_module
from ..record_class import record
from .base import Refused, Skip

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from .context import PlanContext
else:
    cst = lazy_module("libcst")

PLACEHOLDERS = ("code", "message", "data")
LETTERS = ("S", "I", "D", "E")


@record(frozen=True)
class ReplyTemplate:
    """One type's call: the callee, which keyword (or positional index, as "#N") each placeholder fills."""

    letter: str
    text: str
    callee: str
    fills: dict[str, str] = field(default_factory=dict)   # placeholder -> keyword or "#index"
    keywords: tuple[str, ...] = ()


@record
class ReplyAPI:
    """The templates of one profile, with the callee's signature and the type its calls build."""

    templates: dict[str, ReplyTemplate]
    signatures: dict[str, Signature]                     # callee -> its signature
    returns: dict[str, str | None]                       # callee -> the type a call builds (a class, or an annotation)
    imports: list[str]

    @property
    def label(self) -> str:
        return "[migrate.reply-api]"

    def builder_fact(self, method_for_type: Callable[[str], str | None]) -> BuilderFact:
        """The API as the builder the conversion plans against: one method per templated type, whose signature
        says whether it takes a message."""
        methods: dict[str, int] = {}
        signatures: dict[str, Signature] = {}
        for letter, template in self.templates.items():
            method = method_for_type(letter)
            if method is None:
                continue
            methods[method] = 0
            params = ["code", "data"] + (["message"] if "message" in template.fills else [])
            signatures[method] = Signature(params=params, required=["code"], returns=self.returns.get(template.callee))
        return BuilderFact(name=self.label, qualname=self.label, line=0, kind="api", methods=methods,
                           signatures=signatures)

    def message_required(self, letter: str) -> str | None:
        """The parameter `{message}` fills in LETTER's template when the callee requires it, else None."""
        template = self.templates.get(letter)
        if template is None or "message" not in template.fills:
            return None
        target = template.fills["message"]
        sig = self.signatures[template.callee]
        name = sig.params[int(target[1:])] if target.startswith("#") and int(target[1:]) < len(sig.params) \
            else target
        return name if name in sig.required else None

    def call(self, letter: str, code: cst.BaseExpression, data: cst.BaseExpression,
             message: cst.BaseExpression | None) -> cst.BaseExpression:
        """LETTER's template with its placeholders filled; without MESSAGE, the argument `{message}` fills is left
        out."""
        template = self.templates[letter]
        if message is None and self.message_required(letter):
            raise Refused(f"{template.callee} requires {self.message_required(letter)}, and this return has no "
                          "message to give it")
        values = {"code": code, "data": data, "message": message}
        filled = cst.parse_expression(template.text).visit(_filler()(values))
        assert isinstance(filled, cst.BaseExpression)   # the filler replaces arguments, never the call itself
        return filled


@cache
def _filler() -> Callable[[dict[str, cst.BaseExpression | None]], cst.CSTTransformer]:
    """The transformer that fills a template's placeholders (a class made on first use: libcst is imported
    only when a file is rewritten)."""

    class Filler(cst.CSTTransformer):
        def __init__(self, values: dict[str, cst.BaseExpression | None]) -> None:
            super().__init__()
            self.values = values

        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
            args = [a for a in updated.args
                    if not ((name := _placeholder(a.value)) and self.values[name] is None)]
            if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT:
                args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(args=args)

        def leave_Set(self, original: cst.Set, updated: cst.Set) -> cst.BaseExpression:
            name = _placeholder(original)
            value = self.values.get(name) if name else None
            return value if value is not None else updated

    return Filler


def _placeholder(node: cst.CSTNode) -> str | None:
    """`{code}` -> "code" (a one-name set display naming a placeholder), else None."""
    if isinstance(node, cst.Set) and len(node.elements) == 1 and isinstance(node.elements[0], cst.Element) \
            and isinstance(node.elements[0].value, cst.Name) and node.elements[0].value.value in PLACEHOLDERS:
        return node.elements[0].value.value
    return None


def load(ctx: PlanContext) -> ReplyAPI | Skip | None:
    """The profile's reply API checked against the tree (memoized), None when it has no templates, or why it
    cannot be used."""
    cache: dict[str, ReplyAPI | Skip | None] = ctx.__dict__
    if "_reply_api" not in cache:
        cache["_reply_api"] = _load(ctx)
    return cache["_reply_api"]


def _load(ctx: PlanContext) -> ReplyAPI | Skip | None:
    section = ctx.profile.migrate_value("reply_api") or {}
    texts = {letter: str(section.get(letter, "") or "") for letter in LETTERS}
    if not any(texts.values()):
        return None
    templates: dict[str, ReplyTemplate] = {}
    for letter, text in texts.items():
        if not text:
            continue
        try:
            node = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return Skip(f"[migrate.reply-api] {letter} is not a Python call: {text!r}")
        if not isinstance(node, cst.Call):
            return Skip(f"[migrate.reply-api] {letter} is not a call: {text!r}")
        fills: dict[str, str] = {}
        for i, arg in enumerate(node.args):
            name = _placeholder(arg.value)
            if name:
                fills[name] = arg.keyword.value if arg.keyword is not None else f"#{i}"
        nested = _nested_placeholders(node)
        if nested:
            return Skip(f"[migrate.reply-api] {letter}: {{{nested}}} must be an argument of the call itself, not "
                        f"inside another expression: {text!r}")
        if fills.get("message", "").startswith("#"):
            return Skip(f"[migrate.reply-api] {letter}: pass {{message}} by keyword (`message={{message}}`): a return "
                        "without a message leaves it out, and the arguments after it would shift")
        if "data" not in fills:
            return Skip(f"[migrate.reply-api] {letter} has no {{data}}: the dict's other keys would be lost")
        if "code" not in fills and letter in ctx.profile.code_required_types:
            return Skip(f"[migrate.reply-api] {letter} has no {{code}}, but [builder] code-required asks replies of "
                        f"type {letter} for one")
        keywords = tuple(a.keyword.value for a in node.args if a.keyword is not None)
        templates[letter] = ReplyTemplate(letter, text, _dotted(node.func), fills, keywords)
    from ..names import Names

    replies = Names([*ctx.profile.builder_functions, *ctx.profile.builder_list("reply_classes")])
    unknown = sorted(t.callee for t in templates.values() if t.callee not in replies)
    if unknown:   # else the scan would still report every converted return as no reply (RA306)
        return Skip(f"[migrate.reply-api] calls {', '.join(unknown)}, which the scan does not count as a reply: "
                    "declare it in [builder.functions] (or [builder] reply-classes) first")
    signatures: dict[str, Signature] = {}
    returns: dict[str, str | None] = {}
    for callee in sorted({t.callee for t in templates.values()}):
        found = definition(callee, ctx)
        if isinstance(found, Skip):
            return found
        signatures[callee], returns[callee] = found
    for template in templates.values():
        problem = _misfit(template, signatures[template.callee])
        if problem:
            return Skip(f"[migrate.reply-api] {template.letter}: {problem}")
    return ReplyAPI(templates, signatures, returns, list(section.get("imports", []) or []))


def _nested_placeholders(node: cst.Call) -> str | None:
    """The first placeholder of NODE that is not one of its own arguments (`str({message})`), or None."""
    direct = {id(a.value) for a in node.args}
    found: list[str] = []

    class _Find(cst.CSTVisitor):
        def visit_Set(self, sub: cst.Set) -> None:
            name = _placeholder(sub)
            if name and id(sub) not in direct:
                found.append(name)

    node.visit(_Find())
    return found[0] if found else None


def _misfit(template: ReplyTemplate, sig: Signature) -> str | None:
    """Why the template's call does not fit the callee's signature, or None."""
    positional = [a for a in ast.parse(template.text, mode="eval").body.args]   # type: ignore[attr-defined]
    if len(positional) > len(sig.params) and not sig.var_positional:
        return f"{template.callee}() takes {len(sig.params)} positional argument(s), the template passes " \
               f"{len(positional)}"
    repeated = sorted({k for k in template.keywords if template.keywords.count(k) > 1})
    if repeated:
        return f"the keyword {', '.join(repeated)} is given twice"
    twice = sorted(set(sig.params[:len(positional)]) & set(template.keywords))
    if twice:
        return f"{template.callee}() would get {', '.join(twice)} both by position and by keyword"
    unknown = [k for k in template.keywords if not sig.accepts(k)]
    if unknown:
        return f"{template.callee}() has no parameter {', '.join(unknown)}"
    given = set(sig.params[:len(positional)]) | set(template.keywords)
    missing = [p for p in sig.required if p not in given]
    if missing:
        return f"{template.callee}() requires {', '.join(missing)}, which the template does not pass"
    return None


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def definition(callee: str, ctx: PlanContext) -> tuple[Signature, str | None] | Skip:
    """(signature, the type a call builds) of CALLEE (a class or function; `Cls.method` for a classmethod),
    defined once in the scanned tree."""
    head, _, attr = callee.partition(".")
    found = []
    for facts in ctx.result.files:
        if head not in facts.bound_names:
            continue
        try:
            tree = ast.parse((Path(ctx.result.root) / facts.path).read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue
        found += [(facts.path, node) for node in tree.body
                  if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == head]
    if len(found) != 1:
        return Skip(f"{head} is {'not defined' if not found else 'defined more than once'} in the scanned tree: "
                    "the [migrate.reply-api] templates cannot be checked against it, so nothing is written")
    path, node = found[0]
    if attr:
        method = next((m for m in getattr(node, "body", []) if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and m.name == attr), None)
        if not isinstance(node, ast.ClassDef) or method is None:
            return Skip(f"{callee} is not a method defined in {path}")
        kinds = {_decorator_name(d) for d in method.decorator_list}
        if not kinds & {"classmethod", "staticmethod"}:
            return Skip(f"{callee} is an instance method: called on the class, it raises (its first parameter "
                        "would be missing)")
        sig = signature(method, True)
        return sig, (sig.returns or head).strip("'\"")
    if isinstance(node, ast.ClassDef):
        found_sig = _class_signature(node)
        if found_sig is None:
            return Skip(f"the constructor of {head} ({path}) cannot be read: it defines no __init__ and is neither a "
                        "dataclass nor a pydantic model; nothing is written")
        return found_sig, node.name
    sig = signature(node, False)
    return sig, sig.returns.strip("'\"") if sig.returns else None


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return source_text(target).rpartition(".")[2]


def _class_signature(node: ast.ClassDef) -> Signature | None:
    """A class's constructor: its `__init__`; else, for a dataclass, its fields in order (`kw_only`, `KW_ONLY`,
    `field(init=False)` and defaults read); for a pydantic model (a base named BaseModel), its fields as keywords;
    for a class with neither and no base, no parameter at all. None when it cannot be told (another base may
    define the constructor)."""
    init = next((m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
    if init is not None:
        return signature(init, True)
    dataclass = next((d for d in node.decorator_list if _decorator_name(d) == "dataclass"), None)
    model = any(source_text(b).rpartition(".")[2] == "BaseModel" for b in node.bases)
    if dataclass is None and not model:
        return Signature() if not node.bases and not node.keywords else None
    keyword_only = model or any(k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value is True
                                for k in getattr(dataclass, "keywords", []))
    params: list[str] = []
    keywords: list[str] = []
    required: list[str] = []
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        annotation = source_text(stmt.annotation)
        if "KW_ONLY" in annotation:
            keyword_only = True
            continue
        if "ClassVar" in annotation or _field_call(stmt.value, "init") is False:
            continue
        (keywords if keyword_only else params).append(stmt.target.id)
        has_default = stmt.value is not None and not (
            isinstance(stmt.value, ast.Call) and _decorator_name(stmt.value) in ("field", "Field")
            and not any(k.arg in ("default", "default_factory") for k in stmt.value.keywords)
            and not (stmt.value.args and not (isinstance(stmt.value.args[0], ast.Constant)
                                              and stmt.value.args[0].value is Ellipsis)))
        if not has_default:
            required.append(stmt.target.id)
    return Signature(params=params, required=required, keyword_only=keywords)


def _field_call(value: ast.expr | None, keyword: str) -> Any:   # a constant's value, of any type
    """The literal value of KEYWORD in a `field(...)` call, or None."""
    if isinstance(value, ast.Call) and _decorator_name(value) == "field":
        found = next((k.value for k in value.keywords if k.arg == keyword), None)
        if isinstance(found, ast.Constant):
            return found.value
    return None
