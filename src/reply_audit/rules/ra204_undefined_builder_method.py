"""RA204: a call to a method the builder does not define (F6: crashes at runtime)."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class UndefinedBuilderMethod(Rule):
    id = "RA204"
    name = "undefined-builder-method"
    severity = "critical"
    category = "builder"
    requirement = "one-builder"
    chunk = "one-builder"
    spec = "spec 000 §9"
    doc = ("A call to a builder method the resolved builder class does not define raises AttributeError when that "
           "path runs: the caller gets a crash instead of a reply (the safety wrapper turns it into an Error at "
           "best).")
    fix = ("Use the one canonical builder, which defines all four methods.")
    valid = [Example('''
class ReplyBuilder:
    def success(self, code, data=None): ...
    def invalid(self, code, data=None): ...

def f(path):
    rb = ReplyBuilder()
    return rb.invalid("WA-RES-I-001", {"path": path})
''')]
    invalid = [Example('''
def _make():
    class _Shadow:
        def success(self, code, data=None): ...
        def error(self, code, data=None): ...
    return _Shadow()

def f(path):
    rb = _make()
    if not path:
        return rb.invalid("WA-RES-I-001", {})
    return rb.success("WA-RES-S-001", {})
''',
        findings=[
            ("mod.py", 11, 16, "_make._Shadow has no invalid(): this call raises AttributeError"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        defined = {f"{b.path}::{b.qualname}": set(b.methods) for b in ctx.inventory.builders}
        names = {f"{b.path}::{b.qualname}": b.qualname for b in ctx.inventory.builders}
        for c in ctx.inventory.calls:
            builder = c.builder
            if builder and c.method not in defined.get(builder, {c.method}) and not ctx.is_test(c.path):
                yield self.finding(c.path, c.line, f"{names[builder]} has no {c.method}(): this call "
                                   "raises AttributeError", col=c.col, function=c.function,
                                   key=f"{c.method}:{c.code}")
