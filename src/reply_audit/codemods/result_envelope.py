"""result-envelope: a handler's literal dict return becomes the profile's result ([migrate.result])."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from ..directives import DEFAULT_CODE, DEFAULT_REFLECTION, marker_comment
from ..lazy import lazy_module
from ..record_class import record
from ..records import HandlerReturn, Return
from ..results import ResultJudge
from .base import Codemod, Edit, Example, Refused, Skip, Target
from .edits import returning

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ..profile import Profile
    from ..rules.base import Finding
    from .context import PlanContext
    from .rewrite_context import RewriteContext
else:
    cst = lazy_module("libcst")

REFLECTION_MARKER = marker_comment(DEFAULT_REFLECTION)
CODE_MARKER = marker_comment(DEFAULT_CODE)
_PROFILE = '[tool.reply-audit]\nprofile = "iar"\n'


def _is_text(node: cst.BaseExpression) -> bool:
    """A bare string error: a literal, an f-string, a concatenation or `str(e)`."""
    if isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("str", "repr")


def _key(element: cst.BaseDictElement) -> str | None:
    if isinstance(element, cst.DictElement) and isinstance(element.key, (cst.SimpleString, cst.ConcatenatedString)):
        value = element.key.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _comments(node: cst.CSTNode) -> list[str]:
    """The text of every comment in NODE, without its `#`."""
    return [c.value.lstrip("#").strip() for c in _all_comments(node)]


def _all_comments(node: cst.CSTNode) -> list[cst.Comment]:
    found = [node] if isinstance(node, cst.Comment) else []
    for child in node.children:
        found += _all_comments(child)
    return found


def _comment(ws: cst.BaseParenthesizableWhitespace) -> str | None:
    """The text of the end-of-line comment in a whitespace node, without its `#`."""
    if isinstance(ws, cst.ParenthesizedWhitespace) and ws.first_line.comment is not None:
        return ws.first_line.comment.value.lstrip("#").strip()
    return None


def _without(value: cst.Dict, kept: list[cst.BaseDictElement], moved: list[str]) -> cst.Dict:
    """VALUE with only the KEPT elements, the new last one ending as the old last one did (its comma or
    none); a comment after the new last one stays on its line, before the closing brace. A comment that
    ended the line of a dropped last element is added to MOVED."""
    last = value.elements[-1]
    rbrace = value.rbrace
    if not kept or kept[-1] is last:
        return value.with_changes(elements=kept, lpar=[], rpar=[])
    own = _comment(rbrace.whitespace_before)
    if own:
        moved.append(own)
        rbrace = rbrace.with_changes(whitespace_before=rbrace.whitespace_before.with_changes(
            first_line=cst.TrailingWhitespace()))
    tail = kept[-1]
    if isinstance(tail.comma, cst.Comma) and _comment(tail.comma.whitespace_after):
        closing = rbrace.whitespace_before
        ws = tail.comma.whitespace_after
        if isinstance(closing, cst.ParenthesizedWhitespace):
            ws = ws.with_changes(last_line=closing.last_line, empty_lines=[], indent=closing.indent)
        kept[-1] = tail.with_changes(comma=tail.comma.with_changes(whitespace_after=cst.SimpleWhitespace("")))
        rbrace = rbrace.with_changes(whitespace_before=ws)
    else:
        kept[-1] = tail.with_changes(comma=last.comma)
    return value.with_changes(elements=kept, rbrace=rbrace, lpar=[], rpar=[])


@record
class WrapResult(Edit):
    """`return {...}` -> `return <template filled from the dict>`."""

    template: str = ""
    default_reflection: str = ""
    error_object: str = ""
    error_key: str = "error"
    data_key: str = "data"
    reflection_key: str = "reflection"
    failed: str = ""                 # why the dict is a failure without an error value: its status, a flag, an except
    message_keys: tuple[str, ...] = ()   # keys whose value can say what failed

    def targets(self) -> list[Target]:
        return [Target("return", self.spans[0])]

    def rewrite(self, target: Target, original: cst.CSTNode, updated: cst.CSTNode,
                ctx: RewriteContext) -> cst.CSTNode:
        value = cast(cst.Return, updated).value   # a "return" target is a Return (apply._KINDS)
        if not isinstance(value, cst.Dict):
            raise Refused("expected a dict literal in the return")
        if any(not isinstance(e, cst.DictElement) for e in value.elements):
            raise Refused("the dict has a ** spread: decide by hand which keys are data")
        code = cst.Module([]).code_for_node
        by_key = {_key(e): e for e in value.elements}
        envelope = (self.error_key, self.data_key, self.reflection_key)
        others = []
        moved: list[str] = []   # comments that ended the lines of entries that move: kept on the statement
        for element in value.elements:
            if _key(element) not in envelope:
                others.append(element)
            elif isinstance(element.comma, cst.Comma) and (comment := _comment(element.comma.whitespace_after)):
                moved.append(comment)
        if not others and value.elements and _key(value.elements[-1]) in envelope:
            own = _comment(value.rbrace.whitespace_before)
            if own:
                moved.append(own)
        if self.data_key in by_key and others:
            raise Refused(f"the dict has {self.data_key!r} beside other keys: decide by hand what the data is")
        if self.data_key in by_key:
            data = code(by_key[self.data_key].value)
        elif others:
            data = code(_without(value, others, moved))
        else:
            data = "{}"
        markers = []
        error_node = by_key[self.error_key].value if self.error_key in by_key else None
        if isinstance(error_node, cst.Name) and error_node.value == "None":
            error_node = None
        if error_node is None and self.failed:
            # a failure never gets "error": None: an error object with the default code, the dict's own words
            said = next((by_key[k].value for k in self.message_keys if k in by_key
                         and isinstance(by_key[k].value, (cst.SimpleString, cst.FormattedString, cst.Name,
                                                         cst.Attribute, cst.ConcatenatedString))), None)
            message = code(said) if said is not None else json.dumps(f"failed ({self.failed}); the result says no more")
            error = self.error_object.format(message=message)
            markers.append(CODE_MARKER)
        elif error_node is None:
            error = "None"
        elif _is_text(error_node) and self.error_object:
            error = self.error_object.format(message=code(error_node))
            markers.append(CODE_MARKER)
        else:
            error = code(error_node)
        failed = bool(self.failed) or error_node is not None
        if self.reflection_key in by_key:
            reflection = code(by_key[self.reflection_key].value)
        else:
            reflection = self.default_reflection.format(status="error" if failed else "ok")
            markers.insert(0, REFLECTION_MARKER)
        try:
            new = cst.parse_expression(self.template.format(error=error, data=data, reflection=reflection))
        except (cst.ParserSyntaxError, KeyError, IndexError, ValueError) as exc:
            raise Refused(f"[migrate.result] template does not give an expression: {exc}") from None
        kept = _comments(new) + moved
        for comment in _comments(value):
            if comment in kept:
                kept.remove(comment)
            else:
                raise Refused(f"the rewrite would drop the comment {comment!r}: move it out of the dict first")
        if markers or moved:
            ctx.comment_statement(" # ".join([*moved, *markers]))
        return returning(cast(cst.Return, updated), new.with_changes(lpar=value.lpar, rpar=value.rpar))


def _template_lacks(template: str, required: list[str]) -> list[str]:
    """Required keys a dict-literal template does not write (none for a helper-call template)."""
    import ast

    try:
        tree = ast.parse(template.format(error="None", data="{}", reflection="{}"), mode="eval").body
    except (SyntaxError, KeyError, IndexError, ValueError):
        return []
    if not isinstance(tree, ast.Dict):
        return []
    keys = {k.value for k in tree.keys if isinstance(k, ast.Constant)}
    return [k for k in required if k not in keys]


class ResultEnvelope(Codemod):
    name = "result-envelope"
    phase = 3
    order = 75
    fixes = ("RA601",)
    subjects = (HandlerReturn,)
    doc = ("For profiles with a `[result]` table (IAR): a literal dict returned by an action without the result "
           "envelope (RA601) becomes `[migrate.result] template`, by default "
           "`{\"error\": …, \"data\": …, \"reflection\": …}`. The dict's own error and reflection keep their "
           "place; every other key goes into data, keeping its formatting and comments. A dict without a "
           "reflection gets `default_reflection` and the marker `# reply-audit: default-reflection` (RA608); a "
           "bare-string error becomes `error_object` with the marker `# reply-audit: default-code` (RA310). "
           "A template such as `make_result({data}, error={error}, reflection={reflection})` rewrites to a "
           "helper call instead (`imports` adds its import). Dicts returned through a variable, with a ** "
           "spread, or with a data key beside other keys are reported.")
    examples = [Example(
        before={"pyproject.toml": _PROFILE, "actions.py": '''
def calculate(expression):
    try:
        value = eval(expression)
    except Exception as e:
        return {"result": None, "error": str(e)}
    return {
        "result": value,  # the number
        "reflection": {"status": "ok", "confidence": 1.0, "alignment_check": "pass", "potential_issues": []},
    }

registry.register_action("calculate", calculate)
'''},
        after={"actions.py": '''
def calculate(expression):
    try:
        value = eval(expression)
    except Exception as e:
        return {"error": {"code": "RES-ERR-ACTN-0001", "message": str(e), "details": {}}, "data": {"result": None}, "reflection": {"status": "error", "confidence": None, "alignment_check": "concern", "potential_issues": ["reflection added by reply-audit migrate: review it"]}}  # reply-audit: default-reflection # reply-audit: default-code
    return {"error": None, "data": {
        "result": value,  # the number
    }, "reflection": {"status": "ok", "confidence": 1.0, "alignment_check": "pass", "potential_issues": []}}

registry.register_action("calculate", calculate)
'''},  # noqa: E501 (the rewritten line, pinned whole)
        note="the error becomes an object with a default code, the missing reflection a default one; both "
             "are marked for review",
    ), Example(
        before={"pyproject.toml": _PROFILE + '[tool.reply-audit.migrate.result]\n'
                'template = "make_result({data}, error={error}, reflection={reflection})"\n'
                'imports = ["from engine.results import make_result"]\n',
                "actions.py": '''
def ping(host):
    return {"host": host, "reflection": make_reflection("ok", 0.9)}

registry.register_action("ping", ping)
'''},
        after={"actions.py": '''
from engine.results import make_result
def ping(host):
    return make_result({"host": host}, error=None, reflection=make_reflection("ok", 0.9))

registry.register_action("ping", ping)
'''},
        note="a configured helper instead of the literal envelope",
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        subject = finding.subject
        if not isinstance(subject, HandlerReturn):
            return None
        ret = subject.ret
        profile = ctx.profile
        template = str(profile.migrate_value("result.template") or "")
        if not template:
            return Skip("set [migrate.result] template to say what a result looks like")
        if ret.kind != "dict" or not ret.literal:
            what = "None" if ret.kind == "none" else "a value that is not a dict literal"
            if ret.kind == "dict":
                what = "a dict through a variable or dict(...)"
            return Skip(f"the action returns {what}: build the result by hand")
        if "**" in (ret.shape or {}):
            return Skip("the dict has a ** spread: decide by hand which keys are data")
        judge = ResultJudge(profile)   # the one reading of [result]: the judge the rules and the scorecard use
        required, error_key, nested = judge.required, judge.error_key, judge.nested
        reflection_key = nested[0].split(".", 1)[0] if nested else "reflection"
        data_key = next((k for k in required if k not in (error_key, reflection_key)), "data")
        missing = _template_lacks(template, required)
        if missing:
            return Skip(f"[migrate.result] template gives no {', '.join(missing)}: the result would still lack "
                        "them; extend the template")
        span = (ret.line, ret.col, ret.end_line, ret.end_col)
        handler = subject.handler
        shape = ret.shape or {}
        failed = _failed(ret, shape, profile)
        error_object = str(profile.migrate_value("result.error_object") or "")
        if failed and not error_object and not _has_error(shape, error_key):
            return Skip(f"the result failed ({failed}) but has no error, and [migrate.result] error-object is not "
                        "set: it would read as a success")
        return WrapResult(codemod=self.name, path=handler.path, spans=[span],
                          description=f"{handler.name}: a raw dict -> the result envelope",
                          imports=list(profile.migrate_value("result.imports") or []),
                          template=template,
                          default_reflection=str(profile.migrate_value("result.default_reflection") or "{{}}"),
                          error_object=error_object,
                          error_key=error_key, data_key=data_key, reflection_key=reflection_key,
                          failed=failed, message_keys=tuple(
                              profile.migrate_value("dict_returns.message_keys") or ()))


def _has_error(shape: dict[str, list[Any]], error_key: str) -> bool:
    return error_key in shape and shape[error_key][0] != "none"


def _failed(ret: Return, shape: dict[str, list[Any]], profile: Profile) -> str:
    """Why a returned dict is a failure (its status value, a success flag that is False, an except), or ""."""
    failures = {str(v).lower() for v in profile.migrate_value("result.failure_values") or []}
    for key in profile.migrate_value("result.status_keys") or []:
        kind, value = (shape.get(key) or [None, None])[:2]
        if kind == "str" and str(value).lower() in failures:
            return f"{key} {value!r}"
    for key in profile.migrate_value("dict_returns.success_flags") or []:
        if (shape.get(key) or [None])[0] == "bool" and shape[key][1] is False:
            return f"{key} False"
    if ret.in_except:
        return "returned from an except"
    return ""
