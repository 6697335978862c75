"""A base for rules that report one kind of problem found in handler results (`results.Problem`)."""

from collections.abc import Iterator

from ..records import HandlerReturn
from ..results import analyse
from .base import Finding, Rule, RuleContext


class ResultProblemRule(Rule):
    """Subclasses set `kinds`: the `Problem.kind`s they report."""

    kinds: tuple[str, ...] = ()
    profile = "iar"
    category = "envelope"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for result in analyse(ctx):
            h = result.handler
            for r in result.returns:
                for p in r.problems:
                    if p.kind in self.kinds:
                        yield self.finding(h.path, r.line, f"action {h.name}: {p.detail}",
                                           function=h.qualname, key=f"{p.key}:{p.detail}",
                                           subject=HandlerReturn(handler=h, ret=r.record))
