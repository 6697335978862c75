"""Converting one handler onto replies, as one edit: every return, the builder, the wrapper and the annotation.

A handler is converted whole or not at all, because the parts depend on each
other: the builder's construction may need the wrapper's context (a trace id
it sets), the wrapper may turn any result that is not a reply into an Error
(plan 001 phase 3's strict wrapper), and a `-> dict` annotation over replies
is a type error. `plan_handler(handler, ctx)` decides, from the inventory and
the typed facts (signatures, the wrapper's behaviour), one `HandlerReplies`
edit or the reason it cannot:

* a literal dict whose flags, error keys and status are literals becomes a
  builder call decided now: Success, else Invalid (Error inside an `except`);
  a failure is never written as a Success. Its own code key becomes the code
  argument when it is (or maps to) a registered code of that type, else it
  moves to `legacy_code`; its error or message text becomes `message=` when
  the builder method takes one;
* any other dict (through a variable, from a helper, with a flag computed at
  run time) goes through a small module-level function written once per file,
  which classifies the result at run time by the same keys;
* the handler gets the safety decorator when it lacks it, the builder's
  construction (checked against the constructor's required parameters), and
  the return annotation the builder's methods declare (`-> Reply`), with
  their imports.

Under a wrapper that rejects raw results (or one that cannot be read), a handler
that lacks the wrapper is converted only when every return becomes a reply.
"""

from __future__ import annotations

import ast
import json
from dataclasses import field
from typing import TYPE_CHECKING, Any, cast

from ..directives import DEFAULT_CODE, marker_comment
from ..facts.registries import last_name
from ..facts.signatures import is_dict_annotation
from ..lazy import lazy_module
from ..meaning import NOTHING, Verdict, classify_dict, failure_verdict
from ..record_class import record
from ..records import Handler, Return
from ..rules.ra308_handler_not_wrapped import has_decorator
from . import reply_api
from .base import Edit, Refused, Skip, Target
from .code_choice import CodeChoice, legacy_type, rank
from .decisions import RUNTIME, Choice, Decision, fingerprint, mapping_choice
from .edits import returning

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ..facts.model import BuilderFact
    from ..profile import CodeParts, Profile
    from .context import PlanContext
    from .ftypes import Span
    from .rewrite_context import RewriteContext
else:
    cst = lazy_module("libcst")

MARKER = marker_comment(DEFAULT_CODE)
REPLY_KINDS = frozenset({"builder", "reply"})


@record
class ReturnPlan:
    """What one return becomes: a builder call decided now, or (runtime) the helper's classification."""

    method: str = ""
    code: str = ""
    marker: bool = False
    drop: tuple[str, ...] = ()                 # keys that leave the payload (flags, the code key)
    rename: tuple[tuple[str, str], ...] = ()   # (key, new key): a code that is not the reply's code
    message_key: str | None = None             # the key whose value becomes message=
    runtime: tuple[str, str, str, str] | None = None  # (success method, code, failure method, code)
    refused: tuple[str, str] | None = None     # runtime: (Denied method, code) for a result that refuses
    candidates: tuple[str, ...] = ()            # a marked code: the best registry candidates, for the reviewer
    decision: Decision | None = None            # the type and code decided, with evidence (the decisions file)
    evidenced: bool = False                     # the code was chosen by evidence (not a placeholder or default)


@record
class HandlerReplies(Edit):
    """All of one handler's conversion: its returns, the builder construction, decorator and annotation."""

    function: str = ""
    line: int = 0
    builder_name: str = "rb"
    data_keyword: str = "data"
    setup: list[str] = field(default_factory=list)
    returns: dict[Span, ReturnPlan] = field(default_factory=dict)   # return span -> plan
    decorator: str = ""                       # the safety decorator to add below the registration ("" = none)
    after: tuple[str, ...] = ()               # decorators that register a handler
    annotation: str | None = None             # the new return annotation (None: unchanged)
    helper: str = ""                          # the run-time classifier's name (runtime plans)
    unwrap_legacy: bool = False               # remove the legacy auto-wrap decorator (every return converted)
    api: reply_api.ReplyAPI | None = None     # the project's own reply API, or None
    letters: dict[str, str] = field(default_factory=dict)   # method -> TYPE letter, for the API's templates

    @property
    def key(self) -> tuple[str, str, str, int]:
        return ("handler-replies", self.path, self.function, self.line)

    def absorb(self, other: Edit) -> None:
        """The same handler planned again for another of its findings: it is the same edit."""

    def targets(self) -> list[Target]:
        found = [Target("return", span) for span in self.returns]
        if self.setup or self.decorator or self.annotation is not None:
            found.append(Target("def", (self.function, self.line)))
        return found

    def rewrite(self, target: Target, original: cst.CSTNode, updated: cst.CSTNode,
                ctx: RewriteContext) -> cst.CSTNode:
        if target.kind == "def":
            updated = cast(cst.FunctionDef, updated)   # a "def" target is the handler's FunctionDef
            node = _insert_setup(updated, self.setup) if self.setup else updated
            if self.decorator:
                node = add_decorator(node, self.decorator, self.after)
            if self.unwrap_legacy:   # its returns are all replies now: the legacy auto-wrap has nothing to do
                node = _without_decorator(node, LEGACY_WRAP)
            if self.annotation is not None and node.returns is not None:
                node = node.with_changes(returns=node.returns.with_changes(
                    annotation=cst.parse_expression(self.annotation)))
            return node
        updated = cast(cst.Return, updated)   # every other target is one of its returns (apply._KINDS)
        plan = self.returns[cast("Span", target.where)]
        if plan.runtime is not None:
            call = self._runtime_call(updated.value, plan.runtime, ctx, plan.refused)
        else:
            call = self._static_call(updated.value, plan, ctx)
        if plan.marker:
            ctx.comment_statement(MARKER)
        return returning(updated, call)

    @staticmethod
    def _payload(value: cst.Dict | cst.Call, items: list[Any], opening: cst.BaseParenthesizableWhitespace,
                 plan: ReturnPlan, message: cst.BaseExpression | None) -> cst.BaseExpression:
        """VALUE without the dropped keys (and the message's), renamed keys renamed, comments kept."""
        kept, carried = _drop(items, plan.drop + ((plan.message_key,) if message is not None and plan.message_key
                                                  else ()))
        kept = [_renamed(item, plan.rename) for item in kept]
        if isinstance(value, cst.Dict):
            payload: cst.Dict | cst.Call = value.with_changes(elements=kept, lpar=[], rpar=[])
            if carried is not None and not _has_comment(opening):
                payload = payload.with_changes(lbrace=value.lbrace.with_changes(whitespace_after=carried))
            elif not kept and not _has_comment(value.rbrace.whitespace_before):
                payload = cst.Dict(elements=[])
            return payload
        payload = value.with_changes(args=kept, lpar=[], rpar=[])
        if carried is not None and not _has_comment(opening):
            payload = payload.with_changes(whitespace_before_args=carried)
        return payload

    def _method(self, name: str) -> cst.Attribute:
        return cst.Attribute(value=cst.Name(self.builder_name), attr=cst.Name(name))

    def _runtime_call(self, value: cst.BaseExpression | None, runtime: tuple[str, str, str, str], ctx: RewriteContext,
                      refused: tuple[str, str] | None = None) -> cst.Call:
        if value is None:
            raise Refused("a bare return has no value to classify")
        if isinstance(value, cst.Tuple) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        ok, ok_code, fail, fail_code = runtime
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [cst.Arg(value=value, comma=comma), cst.Arg(value=self._method(ok), comma=comma),
                cst.Arg(value=ctx.string(ok_code), comma=comma), cst.Arg(value=self._method(fail), comma=comma),
                cst.Arg(value=ctx.string(fail_code))]
        if refused is not None:
            args[-1] = args[-1].with_changes(comma=comma)
            args += [cst.Arg(keyword=cst.Name("refused"), value=self._method(refused[0]), comma=comma,
                             equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                   whitespace_after=cst.SimpleWhitespace(""))),
                     cst.Arg(keyword=cst.Name("refused_code"), value=ctx.string(refused[1]),
                             equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                   whitespace_after=cst.SimpleWhitespace("")))]
        return cst.Call(func=cst.Name(self.helper), args=args)

    def _static_call(self, value: cst.BaseExpression | None, plan: ReturnPlan, ctx: RewriteContext) -> cst.Call:
        message = None
        items: list[Any]
        if isinstance(value, cst.Dict):
            items, opening = list(value.elements), value.lbrace.whitespace_after
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
            items, opening = list(value.args), value.whitespace_before_args
        else:
            raise Refused("expected a dict literal or dict(...) in the return")
        if plan.message_key:
            message = next((item.value for item in items if _key_of(item) == plan.message_key), None)
        payload = self._payload(value, items, opening, plan, message)
        bare = value.with_changes(lpar=[], rpar=[])
        held = _comments(bare) if ctx.may_hold_comment() else 0   # (no `#` on its lines: no comment to count)
        if held and _comments(payload) + (_comments(message) if message is not None else 0) < held:
            message = None   # a comment would be lost with a dropped key: every key stays
            payload = self._payload(value, items, opening, ReturnPlan(rename=plan.rename), None)
        if self.api is not None:   # the project's own API: its template, placeholders filled
            call = self.api.call(self.letters[plan.method], ctx.string(plan.code), payload,
                                 _as_text(message) if message is not None else None)
            # a template is a call (reply_api._load checks it) and filling it replaces only its arguments
            return cast(cst.Call, call).with_changes(lpar=value.lpar, rpar=value.rpar)
        tight = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [cst.Arg(value=ctx.string(plan.code), comma=comma),
                cst.Arg(keyword=cst.Name(self.data_keyword), value=payload, equal=tight)]
        if message is not None:
            args[-1] = args[-1].with_changes(comma=comma)
            args.append(cst.Arg(keyword=cst.Name("message"), value=_as_text(message), equal=tight))
        return cst.Call(func=self._method(plan.method), args=args, lpar=value.lpar, rpar=value.rpar)


# ---------------------------------------------------------------------------
# syntax helpers
# ---------------------------------------------------------------------------
def _as_text(node: cst.BaseExpression) -> cst.BaseExpression:
    """NODE when it is certainly a str (a literal, an f-string, `str(...)`), else `str(NODE)`."""
    if isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return node
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "str":
        return node
    return cst.Call(func=cst.Name("str"), args=[cst.Arg(value=node)])


_FIELDS: dict[type, tuple[str, ...]] = {}


def _comments(node: cst.CSTNode | list[cst.CSTNode]) -> int:
    """How many comments a node (or a list of nodes) holds. (It reads each node's fields: libcst's matchers or
    `children` take three times as long, and a rewrite counts the comments of every dict it converts.)"""
    count, todo = 0, list(node) if isinstance(node, list) else [node]
    while todo:
        item = todo.pop()
        kind = type(item)
        if kind is cst.Comment:
            count += 1
            continue
        names = _FIELDS.get(kind)
        if names is None:
            names = _FIELDS[kind] = tuple(kind.__dataclass_fields__)
        for name in names:
            value = getattr(item, name)
            if isinstance(value, cst.CSTNode):
                todo.append(value)
            elif isinstance(value, (list, tuple)):
                todo += [v for v in value if isinstance(v, cst.CSTNode)]
    return count


def _renamed(item: cst.BaseDictElement | cst.Arg, rename: tuple[tuple[str, str], ...]) \
        -> cst.BaseDictElement | cst.Arg:
    new = dict(rename).get(_key_of(item) or "")
    if new is None:
        return item
    if isinstance(item, cst.DictElement) and isinstance(item.key, cst.SimpleString):
        quote = item.key.quote
        return item.with_changes(key=cst.SimpleString(f"{quote}{new}{quote}"))
    return item.with_changes(keyword=cst.Name(new))


def _insert_setup(node: cst.FunctionDef, setup: list[str]) -> cst.FunctionDef:
    body = node.body
    if not isinstance(body, cst.IndentedBlock):
        raise Refused("the handler's body is on its def line")
    statements = list(body.body)
    at = 1 if statements and _is_docstring(statements[0]) else 0
    while at < len(statements) and isinstance(line := statements[at], cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Global, cst.Nonlocal)) for s in line.body):
        at += 1
    new = [cst.parse_statement(text) for text in setup]
    return node.with_changes(body=body.with_changes(body=[*statements[:at], *new, *statements[at:]]))


def add_decorator(node: cst.FunctionDef, name: str, after: tuple[str, ...]) -> cst.FunctionDef:
    """`@NAME` right below the last registration decorator (none added when it is there already)."""
    decorators = list(node.decorators)
    names = [_dotted(d.decorator) for d in decorators]
    if any(n == name or n.endswith("." + name) for n in names):
        return node
    place = max((i + 1 for i, n in enumerate(names) if any(n == a or n.endswith("." + a) for a in after)),
                default=None)
    if place is None:
        raise Refused("no registration decorator found on the function")
    decorators.insert(place, cst.Decorator(decorator=cst.parse_expression(name)))
    return node.with_changes(decorators=decorators)


def _without_decorator(node: cst.FunctionDef, name: str) -> cst.FunctionDef:
    kept = [d for d in node.decorators if _dotted(d.decorator) != name]
    return node if len(kept) == len(node.decorators) else node.with_changes(decorators=kept)


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


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) \
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _key_of(item: cst.BaseDictElement | cst.Arg) -> str | None:
    if isinstance(item, cst.DictElement) and isinstance(item.key, cst.SimpleString):
        key = item.key.evaluated_value
        return key if isinstance(key, str) else None   # a bytes key is no key of ours
    if isinstance(item, cst.Arg) and item.keyword is not None:
        return item.keyword.value
    return None


def _has_comment(ws: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace) and ws.first_line.comment is not None


def _drop(items: list[Any], keys: tuple[str, ...]) -> tuple[list[Any], object | None]:
    """ITEMS (dict elements or call arguments) without those keyed by KEYS, commas kept tidy.

    A comment after a dropped item moves to the separator before it (or, for the first item, comes back as
    the second value: the whitespace to put after the opening bracket), so no comment is lost."""
    out: list[Any] = []
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
            elif not out and carried is None:
                carried = item.comma.whitespace_after
    return out, carried


# ---------------------------------------------------------------------------
# planning
# ---------------------------------------------------------------------------
@record
class HandlerPlan:
    """The conversion of one handler: an edit, or why there is none; returns it leaves, with the reason."""

    edit: HandlerReplies | None = None
    skip: str | None = None
    left: dict[int, str] = field(default_factory=dict)   # return line -> why it stays as it is


def plan_handler(handler: Handler, ctx: PlanContext) -> HandlerPlan:
    """The one conversion of HANDLER for this scan (memoized on the context)."""
    cache: dict[tuple[str, str, int], HandlerPlan] = ctx.__dict__.setdefault("_handler_plans", {})
    key = (handler.path, handler.name, handler.line)
    if key not in cache:
        found = _plan(handler, ctx)
        cache[key] = HandlerPlan(skip=found.reason) if isinstance(found, Skip) else found
    return cache[key]


def _plan(handler: Handler, ctx: PlanContext) -> HandlerPlan | Skip:
    profile = ctx.profile
    name = str(profile.migrate_value("builder_name"))
    if handler.inline_body:
        return Skip(f"the body of {handler.name} is on its def line: put it on lines of its own first")
    api = reply_api.load(ctx)
    if isinstance(api, Skip):
        return api
    builder: str | None
    fact: BuilderFact | None
    if api is not None:   # the project's own reply API: no builder to construct
        builder, fact = api.label, api.builder_fact(profile.method_for_type)
    else:
        builder = ctx.primary_builder
        if builder is None:
            return Skip("no builder to construct: set [migrate] builder-class (the scan found none, or several)")
        fact = ctx.builder_fact(builder)
        if fact is None:
            if isinstance(reply_api.definition(builder, ctx), Skip):
                return Skip(f"{builder} is not defined in the scanned tree (or defined twice): its constructor and "
                            "methods cannot be checked, so no call to it is written")
            return Skip(f"{builder} is no builder class (it defines no builder methods): name the project's own "
                        "reply API in [migrate.reply-api] instead of [migrate] builder-class")
    typed = ctx.handler_fact(handler)
    annotation = typed.annotation if typed is not None else None
    helper = str(profile.migrate_value("dict_returns.helper"))
    plans: dict[Span, ReturnPlan] = {}
    left: dict[int, str] = {}
    needs_helper = False
    seen: dict[str, int] = {}
    planned: list[tuple[Return, str, ReturnPlan | Skip]] = []
    for ret in handler.returns:
        if ret.kind in REPLY_KINDS:
            continue
        base = fingerprint(handler, ret, 0)
        ordinal = seen[base] = seen.get(base, -1) + 1
        fp = fingerprint(handler, ret, ordinal)
        planned.append((ret, fp, _return_plan(ret, handler, annotation, fact, ctx, fp)))
    siblings = frozenset(p.code for r, f, p in planned if isinstance(p, ReturnPlan) and p.evidenced)
    for ret, fp, plan in planned:
        if siblings and isinstance(plan, ReturnPlan) and plan.marker and plan.runtime is None \
                and plan.decision is not None and plan.decision.origin == "proposed":
            plan = _return_plan(ret, handler, annotation, fact, ctx, fp, siblings)   # the handler's codes help
        if api is not None and isinstance(plan, ReturnPlan):
            plan = _api_problem(plan, api, profile) or plan
        if isinstance(plan, Skip):
            left[ret.line] = plan.reason
            continue
        needs_helper = needs_helper or plan.runtime is not None
        plans[(ret.line, ret.col, ret.end_line, ret.end_col)] = plan
    if not plans:   # each return keeps its own reason; the handler as a whole, the first
        return HandlerPlan(skip=next(iter(left.values()), "nothing to convert"), left=left)
    wrapped = not ctx.safety_decorator or has_decorator(handler.decorators, ctx.safety_decorator) \
        or _unwrapped_by_choice(handler, ctx)
    if left and not wrapped and ctx.wrapper.requires:
        return Skip(typed_wrapper_words(ctx, handler))
    if left and not wrapped and not ctx.wrapper_takes_dicts:
        lines = ", ".join(str(n) for n in sorted(left))
        return Skip(f"{ctx.wrapper.name} {wrapper_words(ctx)}; {len(left)} return(s) of {handler.name} cannot "
                    f"become replies (line {lines}: {next(iter(left.values()))}), so it is neither wrapped nor "
                    "converted")
    setup = _setup(handler, plans, builder, name, fact, ctx) if api is None else _api_imports(api, plans, handler,
                                                                                             profile, ctx)
    if isinstance(setup, Skip):
        return setup
    setup_lines, imports = setup
    decorator = ""
    if not wrapped:
        found = safety_decoration(handler, ctx)
        if isinstance(found, Skip):
            return found
        decorator, more = found
        imports = more + imports
    reply_type = _reply_type(fact, plans)
    new_annotation = None
    if annotation is not None and reply_type and annotation.strip("'\"") != reply_type:
        new_annotation = reply_type if not left else f"{annotation} | {reply_type}"
    if new_annotation is not None or needs_helper:
        if not reply_type:
            return Skip(f"{builder}'s methods declare no return type: the handler's annotation and the run-time "
                        "check cannot name the reply class")
        if api is None or reply_type not in {t.callee.split(".")[0] for t in api.templates.values()}:
            reply_import = _import_of(reply_type, handler.path, "reply_imports", ctx)
            if isinstance(reply_import, Skip):
                return reply_import
            imports += reply_import
    definitions = {}
    if needs_helper:
        clash = _helper_clash(helper, handler, ctx)
        if clash:
            return Skip(clash)
        assert reply_type   # a helper is needed only where the builder's methods declare the reply class
        definitions[helper] = helper_source(helper, reply_type, profile, _takes_message(fact, plans))
    registration = tuple(d for d in profile.handler_decorators if d != ctx.safety_decorator)
    edit = HandlerReplies(
        codemod="dict-returns", path=handler.path, spans=sorted(plans), description="", imports=imports,
        definitions=definitions, function=handler.name, line=handler.line, builder_name=name,
        data_keyword=str(profile.migrate_value("data_keyword")), setup=setup_lines, returns=plans,
        decorator=decorator, after=registration, annotation=new_annotation, helper=helper, unwrap_legacy=not left,
        api=api, letters={m: t for m, t in profile.builder_methods.items()})
    parts = [f"{len(plans)} return(s) -> " + (f"{name} calls" if api is None else "the [migrate.reply-api] calls")]
    if decorator:
        parts.append(f"@{decorator}")
    if new_annotation:
        parts.append(f"-> {new_annotation}")
    review = [f"line {span[0]}: {' | '.join(plan.candidates)}" for span, plan in sorted(plans.items())
              if plan.marker and plan.candidates]
    if review:
        parts.append("candidates for the marked codes: " + "; ".join(review[:5])
                     + (f"; {len(review) - 5} more" if len(review) > 5 else ""))
    edit.description = f"{handler.name}: " + ", ".join(parts)
    return HandlerPlan(edit=edit, left=left)


RUNTIME_WITH_API = ("its value is known only at run time, and the project's reply API ([migrate.reply-api]) has no "
                    "run-time classifier: convert it by hand")


def _api_problem(plan: ReturnPlan, api: reply_api.ReplyAPI, profile: Profile) -> Skip | None:
    """Why a return cannot become a call of the project's own reply API, or None (a return known only at run time
    never gets here: _runtime_plan refuses it under the API)."""
    letter = profile.builder_methods.get(plan.method, "")
    required = api.message_required(letter)
    if plan.message_key is None and required:
        callee = api.templates[letter].callee
        return Skip(f"{callee} requires {required}, and this return has no message to give it")
    return None


def _api_imports(api: reply_api.ReplyAPI, plans: dict[Span, ReturnPlan], handler: Handler, profile: Profile,
                 ctx: PlanContext) \
        -> tuple[list[str], list[str]] | Skip:
    """No setup; the imports that make the templates' callees visible in the handler's file."""
    if api.imports:
        return [], list(api.imports)
    imports: list[str] = []
    for plan in plans.values():
        head = api.templates[profile.builder_methods[plan.method]].callee.split(".")[0]
        found = _import_of(head, handler.path, "reply_api.imports", ctx)
        if isinstance(found, Skip):
            return found
        imports += [i for i in found if i not in imports]
    return [], imports


def _unwrapped_by_choice(handler: Handler, ctx: PlanContext) -> bool:
    """A `# reply-audit: ignore[RA308]` on the handler says it stays outside the wrapper: none is added."""
    rules = ctx.files[handler.path].suppressions.get(str(handler.first_line or handler.line))
    return rules is not None and (not rules or "RA308" in rules)


def typed_wrapper_words(ctx: PlanContext, handler: Handler) -> str:
    wrapper = ctx.wrapper
    return (f"{wrapper.name} takes only functions that return {wrapper.requires}; {handler.name} would still "
            "return raw dicts, a type error: convert all its returns first (phase 3), or widen the wrapper's "
            "annotation")


def wrapper_words(ctx: PlanContext) -> str:
    behaviour = ctx.wrapper.behaviour
    if behaviour == "reject":
        return f"turns a result that is not a reply into an Error ({ctx.wrapper.detail})"
    return f"may not accept a raw dict ({ctx.wrapper.detail}; set [migrate] wrapper if it does)"


def _return_plan(ret: Return, handler: Handler, annotation: str | None, fact: BuilderFact, ctx: PlanContext, fp: str,
                 siblings: frozenset[str] = frozenset()) -> ReturnPlan | Skip:
    """What one return of a handler becomes, or why it stays (SIBLINGS: the codes evidence chose for the
    handler's other returns)."""
    choice = _choice(ret, handler, fp, ctx)
    if choice is not None and choice.skip:
        return Skip(f"{choice.origin} says to leave it as it is (type = \"skip\")")
    kind = ret.kind
    if kind == "dict" and ret.literal and ret.value_span:
        verdict = classify_dict(ret, handler.name, ctx.profile)
        if verdict.skipped:
            return Skip(verdict.skipped)
        if verdict.outcome != "runtime" and (choice is None or choice.type != RUNTIME):
            return _static_plan(ret, handler, verdict, fact, ctx, fp, choice, siblings)
        signals = verdict.signals
    elif kind == "none":
        return Skip("it returns None, which is no reply: decide what it should say")
    elif ret.literal_type:
        return Skip(f"it returns a {ret.literal_type}, which is no dict (`return {{...}}, 400`?): the run-time "
                    "classifier would raise TypeError on it; decide what it should say")
    elif kind != "dict" and not is_dict_annotation(annotation):
        return Skip("it returns a value the scan cannot see (not a dict literal, and the handler is not "
                    "annotated as returning a dict)")
    else:
        signals = ("the returned value is known only at run time",)
    if choice is not None and choice.type in ("S", "I", "D", "E"):
        return Skip(f"{choice.origin}: type {choice.type} for a return that can only be classified at run time "
                    "(keep type = \"runtime\" and choose failure_type)")
    return _runtime_plan(ret, handler, fact, ctx, fp, choice, signals)


def _choice(ret: Return, handler: Handler, fp: str, ctx: PlanContext) -> Choice | None:
    """A human's choice for this site: the decisions file's row, else a mapping file's site table."""
    decisions = ctx.decisions
    found = decisions.take(fp) if decisions is not None else None
    if found is None and ctx.site_choices:
        texts = ret.texts
        said = " ".join(texts[k] for k in ctx.profile.migrate_value("dict_returns.message_keys") if k in texts)
        found = mapping_choice(ctx.site_choices, handler, ret, fp, said)
    return found


def _static_plan(ret: Return, handler: Handler, verdict: Verdict, fact: BuilderFact, ctx: PlanContext, fp: str,
                 choice: Choice | None, siblings: frozenset[str] = frozenset()) -> ReturnPlan | Skip:
    profile = ctx.profile
    if verdict.outcome == "refused":
        denied = _denied_possible(fact, ctx)
        verdict = verdict if denied is None else failure_verdict(ret, handler.name, profile, Verdict(
            "failure", signals=(*verdict.signals, f"a refusal, but {denied}")))
    verdict = _named_by_legacy_code(ret, verdict, fact, ctx)
    letter = verdict.letter
    if choice is not None and choice.type in ("S", "I", "D", "E"):
        letter = choice.type
    elif choice is not None and choice.code and profile.parse_code(choice.code) is not None:
        letter = cast("CodeParts", profile.parse_code(choice.code)).type or letter
    method = profile.method_for_type(letter)
    if method is None or method not in fact.methods:
        if fact.kind == "api":
            return Skip(f"[migrate.reply-api] has no template for a reply of type {letter}")
        return Skip(f"{fact.name} has no builder method for a reply of type {letter}")
    problem = _call_problem(fact, method, ctx)
    if problem:
        return Skip(problem)
    code_key = profile.code_keyword
    values = ret.key_values
    drop = tuple(k for k in profile.migrate_value("dict_returns.success_flags") if k in values)
    picked = _pick_code(letter, method, ret, handler, ctx, choice, siblings)
    if isinstance(picked, Skip):
        return picked
    code, found, from_own = picked
    uncertain = verdict.confidence == "low" and not (choice is not None and choice.reviewed)
    placeholder = str(profile.migrate_value(f"dict_returns.{method}_code") or "")
    if uncertain and found.code is not None and not found.given and placeholder:
        # the type itself waits for a human (an empty state: Success?): so does the code
        found = CodeChoice(None, "low", (f"the reply type is uncertain (alternative {verdict.alternative}): the "
                                         f"code waits for the review; the ranking chose {found.code}",
                                         *found.evidence), found.candidates or (found.code,))
        code = placeholder
    elif found.code is not None and verdict.default and not found.corroborated and placeholder \
            and not (choice is not None and choice.reviewed):
        # a failure with no sign of its kind is Invalid by default: a code the evidence chose by area alone does
        # not confirm it ("Database disk is full" is no DB_INPUT_MISSING); a key or legacy code spelled, or a
        # message that reads like the code's text, does (COMMAND_UNKNOWN for "Unknown command")
        found = CodeChoice(None, "low", (f"the reply type {letter} is the classifier's default and {found.code}'s "
                                         "evidence does not confirm it: type and code wait for a human",
                                         *found.evidence), found.candidates or (found.code,))
        code = placeholder
    rename: tuple[tuple[str, str], ...] = ()
    if from_own:
        drop += (code_key,)
    elif code_key in values:
        rename = ((code_key, str(profile.migrate_value("dict_returns.legacy_code_key"))),)
    message_key = None
    if fact.signatures.get(method) is not None and fact.signatures[method].accepts("message"):
        message_key = next((k for k in profile.migrate_value("dict_returns.message_keys")
                            if k in values and values[k] in ("str", "text")
                            and k not in drop and k != code_key), None)
    marker = found.code is None
    texts = ret.texts
    decision = Decision(
        fingerprint=fp, path=handler.path, function=handler.name, line=ret.line, type=letter, code=code,
        message=next((texts[k] for k in profile.migrate_value("dict_returns.message_keys") if k in texts), ""),
        type_confidence="high" if choice is not None and choice.reviewed and choice.type else verdict.confidence,
        type_evidence=((f"chosen in {choice.origin}",) if choice is not None and choice.reviewed and choice.type
                       else ()) + verdict.signals,
        type_alternative=verdict.alternative, code_confidence=found.confidence, code_evidence=found.evidence,
        alternatives=found.candidates, marked=marker,
        origin="proposed" if choice is None else choice.origin, reviewed=choice is not None and choice.reviewed)
    return ReturnPlan(method=method, code=code, marker=marker, drop=drop, rename=rename,
                      candidates=found.candidates if marker else (), message_key=message_key, decision=decision,
                      evidenced=not marker and not found.by_default)


def _named_by_legacy_code(ret: Return, verdict: Verdict, fact: BuilderFact, ctx: PlanContext) -> Verdict:
    """VERDICT, or the failure type the dict's own legacy code names: a mapping table or file always wins (a
    human wrote it); a registered message key spelled inside the legacy code wins over a verdict that is not
    of high confidence."""
    if verdict.outcome not in ("failure", "refused"):
        return verdict
    letters = ("I", "E") + (("D",) if _denied_possible(fact, ctx) is None else ())
    named = legacy_type(ret, ctx, letters)
    if named is None or named[0] == verdict.letter:
        return verdict
    letter, _, why = named
    mapped = bool(ret.code) and ctx.code_map.get(str(ret.code)) == named[1]
    if not mapped and (verdict.confidence == "high" or verdict.outcome == "refused"):
        return verdict
    return Verdict("refused" if letter == "D" else "failure", letter,
                   (*verdict.signals, f"{why}: not {verdict.letter}"), "high" if mapped else "medium")


def _denied_possible(fact: BuilderFact, ctx: PlanContext) -> str | None:
    """Why a refusal cannot be written as Denied here, or None."""
    profile = ctx.profile
    method = profile.method_for_type("D")
    if method is None or method not in fact.methods:
        return f"{fact.name} has no builder method for Denied"
    owners = list(profile.migrate_value("remap").get("D", []) or [])
    if not profile.migrate_value("dict_returns.denied_code") and not any(
            (p := profile.parse_code(c)) is not None and p.type == "D" and (not owners or p.layer in owners)
            for c in ctx.canonical):
        return "the registry has no Denied code of a layer that owns D"
    return None


def _pick_code(letter: str, method: str, ret: Return | None, handler: Handler, ctx: PlanContext,
               choice: Choice | None, siblings: frozenset[str] = frozenset()) -> tuple[str, CodeChoice, bool] | Skip:
    """(the code to write, the evidence for it (code None: the placeholder, marked), whether it is the dict's own
    code key) for a reply of type LETTER; a Skip when the chosen code cannot be written."""
    profile = ctx.profile
    own = ret.code if ret is not None else None
    api = reply_api.load(ctx)
    if isinstance(api, reply_api.ReplyAPI) and letter in api.templates and "code" not in api.templates[letter].fills:
        return "", CodeChoice("", "high", (f"the {api.label} {letter} template takes no code",), given=True,
                              corroborated=True), False
    if choice is not None and choice.code:
        found = CodeChoice(choice.code if choice.unmarked else None, "high" if choice.unmarked else "low",
                           (f"chosen in {choice.origin}",), given=True, corroborated=True)
        code, origin = choice.code, choice.origin
    else:
        found = None
        for candidate in (own, ctx.code_map.get(own) if own else None):
            parts = profile.parse_code(candidate) if candidate else None
            if parts is not None and _of_type(parts, letter, profile) and candidate in ctx.canonical:
                why = "the dict's own code" if candidate == own else f"its legacy code {own!r} maps to it"
                found = CodeChoice(candidate, "high", (why,), given=True, corroborated=True)
                break
        mapped = ctx.tool_codes.get(handler.name, {}).get(method)
        if found is None and mapped:
            found = CodeChoice(mapped, "high", (f"[tools.{handler.name}] {method} in a mapping file",),
                               given=True, corroborated=True)
        broad = str(profile.migrate_value("except_to_error.code") or "")
        if found is None and letter == "E" and ret is not None and ret.except_kind in ("broad", "bare") \
                and broad:
            found = CodeChoice(broad, "medium", (f"caught by a {ret.except_kind} except: the profile's code for "
                                                 "that ([migrate.except-to-error] code)",), by_default=True)
        if found is None:
            owners = list(profile.migrate_value("remap").get("D", []) or []) if letter == "D" else None
            found = rank(letter, ret, handler, ctx, owners, siblings)
        code = found.code or str(profile.migrate_value(f"dict_returns.{method}_code") or "")
        if not code and letter == "D":   # no clear winner: the best candidate, else the first, marked
            code = next(iter(found.candidates), "") or next(iter(sorted(
                c for c in ctx.canonical if (p := profile.parse_code(c)) is not None and p.type == "D"
                and (not owners or p.layer in owners))), "")
        origin = f"[tools.{handler.name}] {method}" if mapped and found.code == mapped \
            else f"[migrate.dict-returns] {method}-code"
        if not code:
            return Skip(f"no code for {method}(): set [migrate.dict-returns] {method}-code or a [tools."
                        f"{handler.name}] entry in a mapping file")
    parts = profile.parse_code(code)
    if parts is None or not _of_type(parts, letter, profile):
        return Skip(f"{code} ({origin}) is not a code of type {letter}")
    if not ctx.registered(code):
        return Skip(f"{code} ({origin}) is not in the canonical registry")
    if not profile.obeys_layer_rules(code):
        return Skip(f"{code} ({origin}) breaks the layer rules: its layer may not emit {letter}")
    assert found is not None   # rank() always answers
    return code, found, bool(own) and code in (own, ctx.code_map.get(cast(str, own)))   # own is set: bool(own)


def _of_type(parts: CodeParts, letter: str, profile: Profile) -> bool:
    """Can a code with these PARTS build a reply of type LETTER? Its own type must say so, unless the code pattern
    names no type at all (`NOT_FOUND`: a code says nothing of its reply's type)."""
    return parts.type == letter or (parts.type is None and "type" not in profile.code_re.groupindex)


def _runtime_plan(ret: Return, handler: Handler, fact: BuilderFact, ctx: PlanContext, fp: str, choice: Choice | None,
                  signals: tuple[str, ...]) -> ReturnPlan | Skip:
    if isinstance(reply_api.load(ctx), reply_api.ReplyAPI):
        return Skip(RUNTIME_WITH_API)
    profile = ctx.profile
    failing = failure_verdict(ret, handler.name, profile)
    fail_letter = choice.failure_type if choice is not None and choice.failure_type else failing.letter
    ok = profile.method_for_type("S")
    fail = profile.method_for_type(fail_letter)
    codes = []
    marker = False
    picks = []
    for letter, method, chosen in (("S", ok, choice.code if choice else None),
                                   (fail_letter, fail, choice.failure_code if choice else None)):
        if method is None or method not in fact.methods:
            return Skip(f"{fact.name} has no builder method for a Success or a failure of type {fail_letter}")
        problem = _call_problem(fact, method, ctx)
        if problem:
            return Skip(problem)
        sub = Choice(origin=choice.origin, code=chosen, unmarked=choice.unmarked, reviewed=choice.reviewed) \
            if choice and chosen else None
        picked = _pick_code(letter, method, ret if method == fail else None, handler, ctx, sub)
        if isinstance(picked, Skip):
            return picked
        code, found, _ = picked
        # a result seen only at run time: its failure's type is a guess, so a fallback failure code is marked
        marker = marker or found.code is None or (method == fail and found.fallback)
        codes.append(code)
        picks.append(found)
    refused = None
    if fail_letter != "D" and _speaks_policy(handler, ctx) and _denied_possible(fact, ctx) is None \
            and _helper_takes_refused(handler, ctx):
        method = cast(str, profile.method_for_type("D"))   # there is one: _denied_possible() said so
        sub = Choice(origin=choice.origin, code=choice.refused_code, unmarked=choice.unmarked,
                     reviewed=choice.reviewed) if choice and choice.refused_code else None
        refused_code = _pick_code("D", method, ret, handler, ctx, sub) if not _call_problem(fact, method, ctx) \
            else None
        if refused_code is not None and not isinstance(refused_code, Skip):
            refused = (method, refused_code[0])
            marker = marker or refused_code[1].code is None
            picks.append(refused_code[1])
    decision = Decision(
        fingerprint=fp, path=handler.path, function=handler.name, line=ret.line, type=RUNTIME,
        code=codes[0], failure_type=fail_letter, failure_code=codes[1], type_confidence="low",
        refused_code=refused[1] if refused else "",
        type_evidence=(*signals, f"a failure would be {failing.letter}: " + "; ".join(failing.signals)),
        code_confidence=min((p.confidence for p in picks), key=("low", "medium", "high").index),
        code_evidence=tuple(e for p in picks for e in p.evidence),
        alternatives=tuple(c for p in picks for c in p.candidates), marked=marker,
        origin="proposed" if choice is None else choice.origin, reviewed=choice is not None and choice.reviewed)
    # ok and fail are set: the loop above returns a Skip when either method is missing
    return ReturnPlan(marker=marker, runtime=(cast(str, ok), codes[0], cast(str, fail), codes[1]), refused=refused,
                      decision=decision)


def _speaks_policy(handler: Handler, ctx: PlanContext) -> bool:
    """Does HANDLER deal in policy decisions (a literal dict of it carries a denied flag or a decision key)? Then a
    result seen only at run time may be a refusal, and the run-time classifier is given the Denied method."""
    keys = set(ctx.profile.migrate_value("dict_returns.denied_flags") or []) \
        | set(ctx.profile.migrate_value("dict_returns.decision_keys") or [])
    return any(keys & set(r.key_values) for r in handler.returns)


def _helper_takes_refused(handler: Handler, ctx: PlanContext) -> bool:
    """The run-time classifier of this module takes `refused=` (a new one does; one an earlier run wrote may not)."""
    helper = str(ctx.profile.migrate_value("dict_returns.helper"))
    params = ctx.files[handler.path].function_params.get(helper)
    return params is None or "refused" in params


def _call_problem(fact: BuilderFact, method: str, ctx: PlanContext) -> str | None:
    """Why `rb.METHOD(code, data=...)` would not fit the method's signature, or None."""
    sig = fact.signatures.get(method)
    if sig is None:
        return None
    keyword = str(ctx.profile.migrate_value("data_keyword"))
    if not sig.params and not sig.var_positional:
        return f"{fact.name}.{method}() takes no positional code argument"
    if not sig.accepts(keyword):
        return f"{fact.name}.{method}() takes no {keyword}= argument: set [migrate] data-keyword"
    missing = [p for p in sig.required[1:] if p != keyword]
    if missing:
        return f"{fact.name}.{method}() also requires {', '.join(missing)}, which the rewrite cannot supply"
    return None


def _takes_message(fact: BuilderFact, plans: dict[Span, ReturnPlan]) -> bool:
    methods = {m for p in plans.values() if p.runtime for m in (p.runtime[0], p.runtime[2])} | \
        {p.refused[0] for p in plans.values() if p.refused}
    return bool(methods) and all(fact.signatures.get(m) is not None and fact.signatures[m].accepts("message")
                                 for m in methods)


def _reply_type(fact: BuilderFact, plans: dict[Span, ReturnPlan]) -> str | None:
    """The type the builder methods used return, as their annotations name it (one name, or None)."""
    methods = {p.method for p in plans.values() if p.method} | \
        {m for p in plans.values() if p.runtime for m in (p.runtime[0], p.runtime[2])} | \
        {p.refused[0] for p in plans.values() if p.refused}
    found = {(fact.signatures[m].returns or "").strip("'\"") for m in methods if m in fact.signatures}
    if len(found) != 1:
        return None
    name = found.pop()
    return name if name.isidentifier() else None


def _import_of(name: str, path: str, key: str, ctx: PlanContext) -> list[str] | Skip:
    """The import statements that make NAME visible in PATH ([migrate] KEY, else learnt from the tree)."""
    configured = list(ctx.profile.migrate_value(key) or [])
    if configured:
        return configured
    if ctx.imports.binds(path, name):
        return []
    found = ctx.imports.statement_for(name, path)
    if found is None:
        return Skip(f"no import of {name} is known for {path}: set [migrate] {key}")
    return [found]


def safety_decoration(handler: Handler, ctx: PlanContext) -> tuple[str, list[str]] | Skip:
    """(the decorator as the file can name it, the imports that takes) for the safety decorator."""
    safety = ctx.safety_decorator
    root, _, rest = safety.partition(".")
    aliases = ctx.files[handler.path].import_aliases
    local = next((alias for alias, name in sorted(aliases.items()) if name == root), None)
    if local is not None:  # the file imports it under another name: use that name, no import needed
        return local + (f".{rest}" if rest else ""), []
    configured = list(ctx.profile.migrate_value("safety_imports") or [])
    if configured or ctx.imports.binds(handler.path, root):
        return safety, configured
    found = ctx.imports.statement_for(root, handler.path)
    if found is None:
        return Skip(f"no import of {root} is known for {handler.path}: define the wrapper, or set "
                    "[migrate] safety-imports")
    return safety, [found]


def _helper_clash(helper: str, handler: Handler, ctx: PlanContext) -> str | None:
    facts = ctx.files[handler.path]
    if helper in facts.bound_names and helper not in facts.functions:
        return f"{helper!r} already names something else in {handler.path}: set [migrate.dict-returns] helper"
    if helper in handler.local_names:
        return f"{helper!r} is a local name in {handler.name}: set [migrate.dict-returns] helper"
    return None


LEGACY_WRAP = "_legacy_reply"
_TOOL = "\x00tool\x00"


def legacy_wrap(handler: Handler, ctx: PlanContext) -> tuple[dict[str, str], list[str]] | Skip:
    """([migrate] legacy-wrap, plan 001's phase-1 auto-wrap under a wrapper that rejects raw results) the
    module-level functions and imports that let HANDLER be wrapped before its returns are converted: a
    decorator below the wrapper that turns a raw dict into a reply, classified by its own keys."""
    typed = ctx.handler_fact(handler)
    if typed is not None and typed.asynchronous:
        return Skip(f"{handler.name} is async: the legacy auto-wrap is written for plain functions")
    builder = ctx.primary_builder
    fact = ctx.builder_fact(builder) if builder else None
    if fact is None:
        return Skip("the legacy auto-wrap needs a builder defined in the scanned tree: set [migrate] builder-class")
    name = str(ctx.profile.migrate_value("builder_name"))
    try:
        setup = [t.format(name=name, builder=builder, tool=_TOOL) for t in
                 ctx.profile.migrate_value("builder_setup")]
    except (KeyError, IndexError, ValueError) as exc:
        return Skip(f"[migrate] builder-setup is not a valid template: {exc}")
    dynamic = []
    for line in setup:
        line = line.replace(f'"{_TOOL}"', "func.__name__").replace(f"'{_TOOL}'", "func.__name__")
        if _TOOL in line:
            return Skip("[migrate] builder-setup uses {tool} outside quotes: the legacy auto-wrap cannot name the "
                        "tool at run time")
        dynamic.append(line)
    try:
        free, _ = names_of(dynamic)
    except SyntaxError as exc:
        return Skip(f"[migrate] builder-setup is not valid Python: {exc}")
    problem = constructor_problem(dynamic, cast(str, builder), fact)   # fact is found: builder is set
    if problem:
        return Skip(problem)
    plans = {}
    codes = []
    for letter in ("S", "I"):
        method = ctx.profile.method_for_type(letter)
        code = str(ctx.profile.migrate_value(f"dict_returns.{method}_code") or "")
        if method is None or method not in fact.methods or not code or not ctx.registered(code):
            return Skip(f"the legacy auto-wrap needs a registered [migrate.dict-returns] {method}-code")
        problem = _call_problem(fact, method, ctx)
        if problem:
            return Skip(problem)
        codes.append((method, code))
    plans[(0, 0, 0, 0)] = ReturnPlan(runtime=(codes[0][0], codes[0][1], codes[1][0], codes[1][1]))
    reply = _reply_type(fact, plans)
    if not reply:
        return Skip(f"{builder}'s methods declare no return type: the legacy auto-wrap cannot name the reply class")
    imports = ["import functools", "import typing"]
    for needed in [n for n in free if n != "func"] + [reply]:
        found = _import_of(needed, handler.path, "reply_imports" if needed == reply else "builder_imports", ctx)
        if isinstance(found, Skip):
            return found
        imports += found
    helper = str(ctx.profile.migrate_value("dict_returns.helper"))
    for clash in (_helper_clash(helper, handler, ctx), _helper_clash(LEGACY_WRAP, handler, ctx)):
        if clash:
            return Skip(clash)
    body = "\n".join(f"        {line}" for line in dynamic)
    (ok, ok_code), (fail, fail_code) = codes
    source = (
        f'def {LEGACY_WRAP}(func: "typing.Callable[..., typing.Any]") -> "typing.Callable[..., {reply}]":\n'
        '    """Written by reply-audit migrate (plan 001 phase 1, legacy auto-wrap): a handler that still returns '
        "raw\n"
        "    dicts gets a reply, classified by the dict's own flags and keys (a failure is never a Success).\n"
        '    Remove it once the handler builds its replies."""\n'
        "    @functools.wraps(func)\n"
        "    def wrapper(*args, **kwargs):\n"
        "        result = func(*args, **kwargs)\n"
        f"        if isinstance(result, {reply}):\n"
        "            return result\n"
        f"{body}\n"
        f"        return {helper}(result, {name}.{ok}, {_py(ok_code)}, {name}.{fail}, {_py(fail_code)})"
        f"  # {MARKER}\n"
        "    return wrapper\n")
    definitions = {helper: helper_source(helper, reply, ctx.profile, _takes_message(fact, plans)),
                   LEGACY_WRAP: source}
    return definitions, imports


def helper_source(name: str, reply: str, profile: Profile, message: bool) -> str:
    """The run-time classifier written once into a module: the same keys the static decision reads."""
    flags = list(profile.migrate_value("dict_returns.success_flags"))
    errors = list(profile.migrate_value("dict_returns.error_keys"))
    error_flags = list(profile.migrate_value("dict_returns.error_flags"))
    status = list(profile.migrate_value("dict_returns.status_keys"))
    failures = sorted({v.lower() for v in profile.migrate_value("dict_returns.failure_values")})
    messages = list(profile.migrate_value("dict_returns.message_keys"))
    prefixes = [v.lower() for v in profile.migrate_value("dict_returns.failure_prefixes")]
    code_key = profile.code_keyword
    legacy = str(profile.migrate_value("dict_returns.legacy_code_key"))
    denied_flags = list(profile.migrate_value("dict_returns.denied_flags"))
    decision_keys = list(profile.migrate_value("dict_returns.decision_keys"))
    denied_values = sorted({v.lower() for v in profile.migrate_value("dict_returns.denied_values")})
    lines = [
        f"def {name}(result, success, success_code, failure, failure_code,",
        " " * (len(name) + 5) + f"refused=None, refused_code=None) -> {reply}:",
        '    """Written by reply-audit migrate: a legacy dict result as a reply, classified by its own flags and',
        '    error keys (a failure is never a Success; a refusal by policy is one, Denied when `refused` is given)."""',
        f"    if isinstance(result, {reply}):",
        "        return result",
        "    if not isinstance(result, dict):",
        "        raise TypeError(f\"expected a dict or a reply, got {type(result).__name__}\")",
        "    data = dict(result)",
        f"    NOTHING = ({', '.join(_py(w) for w in NOTHING)})   # \"Error: none\" reports no error",
        f"    if {_py(code_key)} in data:",
        f"        data[{_py(legacy)}] = data.pop({_py(code_key)})",
        f"    flags = [data.pop(key) for key in {_py(flags)} if key in data]",
        "    flags = [flag.strip().lower() not in (\"false\", \"0\", \"no\", \"off\", \"none\", \"\")",
        "             if isinstance(flag, str) else flag for flag in flags]",
        f"    denied = any(data.get(key) is False for key in {_py(denied_flags)}) or any(",
        f"        str(data.get(key, \"\")).lower() in {_py(denied_values)}",
        f"        for key in {_py(decision_keys)})",
        "    failed = denied or False in flags or True not in flags and (",
        f"        any(data.get(key) for key in {_py(errors)})",
        "        or any(data.get(key) is True or str(data.get(key)).strip().lower() in (\"true\", \"yes\", \"1\")",
        f"               for key in {_py(error_flags)})",
        f"        or any(str(data.get(key, \"\")).lower() in {_py_wrapped(failures, 12)} for key in {_py(status)})",
        "        or any(str(data.get(key) or \"\").strip().lower().startswith(",
        "            tuple(" + _py(prefixes) + "))",
        "               and str(data.get(key)).split(\":\", 1)[-1].strip().lower() not in NOTHING",
        f"               for key in {_py(messages)}))",
    ]
    if message:
        lines += [
            f"    message = next((str(data.pop(key)) for key in {_py(messages)} if data.get(key)), None)",
            "    if denied and refused is not None:",
            "        return refused(refused_code, data=data, message=message)",
            "    if failed:",
            "        return failure(failure_code, data=data, message=message)",
            "    return success(success_code, data=data, message=message)",
        ]
    else:
        lines += [
            "    if denied and refused is not None:",
            "        return refused(refused_code, data=data)",
            "    if failed:",
            "        return failure(failure_code, data=data)",
            "    return success(success_code, data=data)",
        ]
    return "\n".join(lines) + "\n"


def _py(value: str | list[str]) -> str:
    """A str or list of str as Python source with double quotes (JSON's spelling is Python's here)."""
    return json.dumps(value, ensure_ascii=False)


def _py_wrapped(values: list[str], indent: int, width: int = 100) -> str:
    """A list of str as Python source, its items on lines of their own indented by INDENT spaces, none past
    WIDTH."""
    lines, line = [], ""
    for value in values:
        item = json.dumps(value, ensure_ascii=False) + ","
        if line and indent + len(line) + 1 + len(item) > width:
            lines.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    lines.append(line.rstrip(","))
    return "[\n" + "\n".join(" " * indent + text for text in lines) + "]"


def _setup(handler: Handler, plans: dict[Span, ReturnPlan], builder: str, name: str, fact: BuilderFact,
           ctx: PlanContext) -> tuple[list[str], list[str]] | Skip:
    """The statements to insert (none when the handler builds one already) and the imports they need."""
    first = min(span[0] for span in plans)
    bound = handler.top_calls.get(name)
    builder_names = {b.name for b in ctx.inventory.builders} | {builder}
    if bound and bound[0] in builder_names and bound[1] < first:
        return [], []
    templates = list(ctx.profile.migrate_value("builder_setup"))
    try:
        setup = [t.format(name=name, builder=builder, tool=handler.name) for t in templates]
        free, binds = names_of(setup)
    except (KeyError, IndexError, ValueError, SyntaxError) as exc:
        return Skip(f"[migrate] builder-setup is not a valid template: {exc}")
    problem = constructor_problem(setup, builder, fact)
    if problem:
        return Skip(problem)
    taken = sorted((binds | set(free)) & set(handler.local_names))
    if taken:
        return Skip(f"{', '.join(map(repr, taken))} already names something else in {handler.name}: "
                    "set [migrate] builder-name / builder-setup")
    shadowed = sorted(binds & set(ctx.files[handler.path].bound_names))
    if shadowed:
        return Skip(f"{', '.join(map(repr, shadowed))} is a module-level name in {handler.path} that the "
                    "builder would shadow: set [migrate] builder-name / builder-setup")
    configured = list(ctx.profile.migrate_value("builder_imports") or [])
    if configured:
        return setup, configured
    imports = []
    for needed in free:
        if ctx.imports.binds(handler.path, needed):
            continue
        found = ctx.imports.statement_for(needed, handler.path)
        if found is None:
            return Skip(f"no import of {needed} is known for {handler.path}: set [migrate] builder-imports")
        imports.append(found)
    return setup, imports


def constructor_problem(setup: list[str], builder: str, fact: BuilderFact) -> str | None:
    """Why a construction of BUILDER in the SETUP statements would raise (a required parameter missing, an
    unknown keyword, too many arguments), or None."""
    sig = fact.init
    for text in setup:
        for node in ast.walk(ast.parse(text)):
            if not (isinstance(node, ast.Call) and last_name(node.func) == builder):
                continue
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                return f"[migrate] builder-setup passes *args/**kwargs to {builder}(): it cannot be checked"
            params = sig.params if sig is not None else []
            if len(node.args) > len(params) and not (sig is not None and sig.var_positional):
                return f"{builder}() takes {len(params)} positional argument(s); [migrate] builder-setup passes " \
                       f"{len(node.args)}"
            covered = set(params[:len(node.args)]) | {k.arg for k in node.keywords}
            unknown = [k.arg for k in node.keywords if k.arg not in params
                       and not (sig is not None and (k.arg in sig.keyword_only or sig.var_keyword))]
            if unknown:
                return f"{builder}() takes no argument {unknown[0]!r}: set [migrate] builder-setup"
            missing = [p for p in (sig.required if sig is not None else []) if p not in covered]
            if missing:
                return f"{builder}() requires {', '.join(missing)}, which [migrate] builder-setup does not pass: " \
                       "set [migrate] builder-setup"
    return None


_BUILTINS = frozenset(dir(__import__("builtins")))


def names_of(statements: list[str]) -> tuple[list[str], set[str]]:
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
