"""RA301: a builder call with a code the canonical registry does not define."""

from collections.abc import Iterator

from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class UnknownCode(Rule):
    id = "RA301"
    name = "unknown-code"
    severity = "high"
    category = "call"
    requirement = "registered-codes"
    chunk = "call-sites"
    spec = "spec 000 §6, §12"
    doc = ("Replies are registry-backed: every code a tool emits is defined in the canonical registry. An "
           "unregistered code has no message, no owner check and no stable meaning. (Legacy codes are RA108.) A "
           "registry class or Enum is checked like a type: `Codes.MISSING`, an attribute it does not define, is an "
           "AttributeError at run time (no [codes] enums entry needed; a class with a base the scan cannot see may "
           "inherit the name and is not judged). A code string that is not even well formed (`GEN-E-001` where "
           "codes are LAYER-AREA-TYPE-NNN) is reported too, never dropped.")
    fix = ("Register the code, or use the registered one meant.")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-001", {})\n')),
             Example(tree(server='''
class MoreCodes(BaseCodes):
    READ_OK = "WA-READ-S-001"
    READ_MISSING = "WA-READ-I-001"
    READ_BROKE = "WA-READ-E-001"

def f(rb: ReplyBuilder):
    return rb.success(MoreCodes.INHERITED_OK, {})
'''), note="a registry class whose base the scan cannot see may inherit the attribute")]
    invalid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-099", {})\n'),
        findings=[
            ("server.py", 2, 12, "'WA-READ-S-099' is not defined in the canonical registry"),
        ]),
               Example({"pyproject.toml": '[tool.reply-audit.codes]\nenums = ["ErrorCode"]\n'
                                          '[tool.reply-audit.builder.functions]\n'
                                          'error_response = { type = "E", code-keyword = "error_code" }\n',
                        "server.py": """
from enum import Enum

class ErrorCode(str, Enum):
    NOT_FOUND = "not_found"

def a():
    return error_response("gone", error_code=ErrorCode.NOT_FOUND)

def b():
    return error_response("gone", error_code=ErrorCode.MISSING)

def c():
    return error_response("gone", error_code="missing")
"""}, note="codes that are Enum members ([codes] enums)",
        findings=[
            ("server.py", 11, 12,
             "ErrorCode.MISSING: registry ErrorCode defines no MISSING (an AttributeError at run time)"),
            ("server.py", 14, 12, "'missing' is not a member of ErrorCode"),
        ]),
               Example(tree(server='''
class ErrorCodes:
    READ_OK = "WA-READ-S-001"
    READ_MISSING = "WA-READ-I-001"
    READ_BROKE = "WA-READ-E-001"

def f(rb: ReplyBuilder):
    return rb.invalid(ErrorCodes.READ_MISSING, {})

def g(rb: ReplyBuilder):
    return rb.invalid(ErrorCodes.READ_GONE, {})
'''), note="a plain class of code constants, checked like a type: ErrorCodes.READ_GONE is not defined",
        findings=[
            ("server.py", 11, 12,
             "ErrorCodes.READ_GONE: registry ErrorCodes defines no READ_GONE (an AttributeError at run time)"),
        ]),
               Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.error("GEN-E-001", {})\n'),
                       note="a malformed code string",
        findings=[
            ("server.py", 2, 12,
             "'GEN-E-001' is not a well-formed code (the profile's code pattern) and no registry defines it"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        inv = ctx.inventory
        attributes = _registry_attributes(ctx)
        members = ctx.profile.member_registries
        for c in ctx.non_test_calls():
            code = c.code
            if code is None and c.code_ref:
                missing = _missing_attribute(c.code_ref, attributes)
                if missing:
                    owner, attr = missing
                    yield self.finding(c.path, c.line, f"{c.code_ref}: registry {owner} defines no {attr} "
                                       "(an AttributeError at run time)", col=c.col, function=c.function,
                                       key=f"{c.method}:{c.code_ref}", subject=c)
                continue
            if not code or not inv.canonical_codes or code in inv.canonical_codes or code in inv.legacy_code_set:
                continue
            if members or ctx.profile.is_code(code):
                where = f"a member of {', '.join(sorted(members))}" if members else "defined in the canonical registry"
                yield self.finding(c.path, c.line, f"{code!r} is not {where}",
                                   col=c.col, function=c.function, key=f"{c.method}:{code}", subject=c)
            elif _spelled_like_a_code(code):
                yield self.finding(c.path, c.line, f"{code!r} is not a well-formed code (the profile's code "
                                   "pattern) and no registry defines it", col=c.col, function=c.function,
                                   key=f"{c.method}:{code}", subject=c)


def _registry_attributes(ctx: RuleContext) -> dict[str, set[str]]:
    """Registry classes and Enums of product code whose every attribute is known: name -> the names it binds."""
    out: dict[str, set[str]] = {}
    for reg in ctx.inventory.registries:
        if reg.style in ("class", "enum") and reg.names is not None and not ctx.is_test(reg.path):
            out.setdefault(reg.name, set()).update(reg.names)
    return out


def _missing_attribute(ref: str, attributes: dict[str, set[str]]) -> tuple[str, str] | None:
    """(registry, attribute) when REF reads an attribute a registry class does not define (`Codes.MISSING`)."""
    parts = ref.split(".")
    for i, part in enumerate(parts[:-1]):
        if part in attributes:
            attr = parts[i + 1]
            return None if attr in attributes[part] else (part, attr)
    return None


def _spelled_like_a_code(text: str) -> bool:
    """A token such as `GEN-E-001` or `not_found`, not a sentence passed where a code goes."""
    return 0 < len(text) <= 64 and not any(ch.isspace() for ch in text)
