"""RA107: more than one registry active at runtime (F2)."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class MultipleRegistries(Rule):
    id = "RA107"
    name = "multiple-registries"
    severity = "high"
    category = "registry"
    requirement = "one-registry"
    chunk = "registry"
    spec = "spec 000 §12"
    doc = ("The canonical registry is the only active registry; multiple registries at runtime are a forbidden "
           "state. A legacy registry that product code still imports keeps old codes and messages alive.")
    fix = ("Move what is still read (messages, lookups) to the canonical registry, stop importing the legacy "
           "module outside tests, then delete or deprecate it.")
    valid = [Example({
        "legacy.py": 'OLD = {"FILE-OP-S-001": "x", "FILE-OP-E-001": "y"}\n',
        "codes.py": 'class Codes:\n    A = ReplyCode("WA-RES-I-001")\n    B = ReplyCode("MCP-SYS-E-001")\n',
        "server.py": "from codes import Codes\n",
        "tests/test_legacy.py": "from legacy import OLD\n",
    }, note="the legacy registry is only imported by tests")]
    invalid = [Example({
        "legacy.py": 'OLD = {"FILE-OP-S-001": "x", "FILE-OP-E-001": "y"}\n',
        "codes.py": 'class Codes:\n    A = ReplyCode("WA-RES-I-001")\n    B = ReplyCode("MCP-SYS-E-001")\n',
        "server.py": "from codes import Codes\nfrom legacy import OLD\n",
    },
        findings=[
            ("legacy.py", 1, 1,
             "legacy registry OLD is imported at runtime (server.py:2) beside the canonical registry"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        runtime: dict[str, list[str]] = {}
        for imp in ctx.inventory.registry_imports:
            if imp.runtime:
                runtime.setdefault(imp.registry_path, []).append(f"{imp.path}:{imp.line}")
        if not ctx.canonical_registries():
            return
        for reg in ctx.active_registries():
            if reg.role != "legacy":
                continue
            importers = runtime.get(reg.path, [])
            if importers:
                shown = ", ".join(importers[:3]) + (f" and {len(importers) - 3} more" if len(importers) > 3 else "")
                yield self.finding(reg.path, reg.line, f"legacy registry {reg.name} is imported at runtime "
                                   f"({shown}) beside the canonical registry", key=reg.name)
