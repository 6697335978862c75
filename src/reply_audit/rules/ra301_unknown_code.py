"""RA301: a builder call with a code the canonical registry does not define."""

from ._snippets import tree
from .base import Example, Rule


class UnknownCode(Rule):
    id = "RA301"
    name = "unknown-code"
    severity = "high"
    category = "call"
    requirement = "registered-codes"
    chunk = "call-sites"
    spec = "spec 000 §6, §12"
    doc = ("Replies are registry-backed: every code a tool emits is defined in the canonical registry. An "
           "unregistered code has no message, no owner check and no stable meaning. (Legacy codes are RA108.) "
           "Fix: register the code, or use the registered one meant.")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-001", {})\n'))]
    invalid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-099", {})\n')),
               Example({"pyproject.toml": '[tool.reply-audit.codes]\nenums = ["ErrorCode"]\n'
                                          '[tool.reply-audit.builder.functions]\n'
                                          'error_response = { type = "E", code_keyword = "error_code" }\n',
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
"""}, expect=2, note="codes that are Enum members ([codes] enums)")]

    def check(self, ctx):
        inv = ctx.inventory
        if not inv.canonical_codes:
            return
        members = ctx.profile.member_registries
        for c in ctx.non_test_calls():
            code = c["code"]
            if code and (members or ctx.profile.is_code(code)) and code not in inv.canonical_codes \
                    and code not in inv.legacy_code_set:
                where = f"a member of {', '.join(sorted(members))}" if members else "defined in the canonical registry"
                yield self.finding(c["path"], c["line"], f"{code!r} is not {where}",
                                   col=c["col"], function=c["function"], key=f"{c['method']}:{code}", subject=c)
            elif code is None and c["code_ref"] and members:
                parts = c["code_ref"].split(".")
                owner = next((p for p in parts[:-1] if p in members), None)
                if owner is not None:
                    yield self.finding(c["path"], c["line"], f"{c['code_ref']} is not a member of {owner}",
                                       col=c["col"], function=c["function"], key=f"{c['method']}:{c['code_ref']}",
                                       subject=c)
