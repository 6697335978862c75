"""RA304: a broad except that answers Invalid instead of Error."""

from collections.abc import Iterator

from ..profile import Profile
from ..records import Call
from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class BroadExceptInvalid(Rule):
    id = "RA304"
    name = "broad-except-invalid"
    severity = "high"
    category = "call"
    requirement = "except-error"
    chunk = "call-sites"
    spec = "spec 000 §3, §11"
    doc = ("Invalid and Error are mutually exclusive: Invalid tells the agent to fix its request and retry, Error "
           "that the system broke. An `except Exception` (or bare except) catches system failures, so answering "
           "Invalid there sends the agent into a retry loop. Narrow excepts (KeyError, ValueError) may answer "
           "Invalid.")
    fix = ("Return an Error (`reply-audit migrate --select except-to-error`).")
    valid = [Example(tree(server='''
def f(rb: ReplyBuilder, d, k):
    try:
        v = d[k]
    except KeyError:
        return rb.invalid("WA-RES-I-001", {})
    except Exception:
        return rb.error("MCP-SYS-E-001", {})
    return rb.success("WA-RES-S-001", {"v": v})
'''))]
    invalid = [Example(tree(server='''
def f(rb: ReplyBuilder, d, k):
    try:
        v = d[k]
    except Exception as exc:
        return rb.invalid("WA-RES-I-001", {"error": str(exc)})
    return rb.success("WA-RES-S-001", {"v": v})
'''),
        findings=[
            ("server.py", 6, 16, "rb.invalid() inside a broad except: a system failure must be an Error"),
        ])]

    @staticmethod
    def applies(call: Call, profile: Profile) -> bool:
        """The rule's predicate, which the audit's except section counts by too: an Invalid built in an except
        that catches everything (`except Exception`, `except BaseException`, a bare `except`)."""
        return call.except_kind in ("broad", "bare") and profile.call_type(call) == "I"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for c in ctx.non_test_calls():
            if self.applies(c, ctx.profile):
                yield self.finding(c.path, c.line, f"{c.receiver}.{c.method}() inside a "
                                   f"{c.except_kind} except: a system failure must be an Error", col=c.col,
                                   function=c.function, key=f"{c.method}:{c.code}", subject=c)
