"""RA609: a registration whose function is not found in the scanned tree."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext
from .ra601_result_envelope_missing import IAR


class RegistrationUnresolved(Rule):
    id = "RA609"
    name = "registration-unresolved"
    severity = "low"
    requirement = "registrations-resolve"
    chunk = "find-actions"
    category = "envelope"
    spec = "seed 004 (actions: action_registry)"
    profile = "iar"
    heuristic = True
    doc = ("A registration (`[handlers] register-calls` or `dispatch_tables`) names a function that the scan "
           "cannot find: defined outside the scanned tree, created at run time, or named ambiguously (several "
           "functions of that name and no import to tell them apart). Its results go unchecked.")
    fix = ("Scan the tree that defines it, or import it by name where it is registered.")
    valid = [Example(IAR)]
    invalid = [Example('''
registry.register_action("search", search_everything)
registry.register_action("fetch", make_fetcher())
''', note="a call's result is unwrapped to its first argument only when it has one",
        findings=[
            ("mod.py", 2, 1,
             "register_action 'search' names search_everything, which is not found in the scanned tree"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for reg in ctx.inventory.registrations:
            if reg.handler is None and not ctx.is_test(reg.path):
                name = f"{reg.name!r} " if reg.name else ""
                yield self.finding(reg.path, reg.line, f"{reg.via} {name}names {reg.target}, which is not found in "
                                   "the scanned tree", key=f"{reg.name}:{reg.target}", confidence="medium",
                                   subject=reg)
