"""RA501: no reply-code guard in the repository's pre-commit configuration (F9)."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class NoPrecommitGuard(Rule):
    id = "RA501"
    name = "no-precommit-guard"
    severity = "medium"
    category = "tooling"
    requirement = "guard-hook"
    chunk = "guard-hook"
    spec = "spec 000 §13"
    doc = ("Linting, pre-commit hooks and runtime guards must enforce the standard. Without a hook, every "
           "invariant here can come back in the next commit. Detected from .pre-commit-config.yaml: a hook whose "
           "id, name or entry matches the profile's [tooling] guard-patterns.")
    fix = ("Add the reply-audit hook (see docs/ci.md) to .pre-commit-config.yaml.")
    valid = [Example({
        "mod.py": "x = 1\n",
        ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: reply-audit\n"
                                   "        name: reply-audit\n        entry: reply-audit scan .\n"
                                   "        language: system\n",
    })]
    invalid = [Example({"mod.py": "x = 1\n",
                        ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: black\n"},
        findings=[
            (".pre-commit-config.yaml", 1, 1, ".pre-commit-config.yaml has no reply-code guard hook"),
        ]),
               Example({"mod.py": "x = 1\n"}, note="no pre-commit configuration at all",
        findings=[
            (".pre-commit-config.yaml", 0, 1, "no pre-commit configuration, so no reply-code guard"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        config = ctx.tooling.get("precommit_config")
        if config and ctx.tooling.get("guard_hooks"):
            return
        if config:
            yield self.finding(config, 1, f"{config} has no reply-code guard hook", key=config)
        else:
            yield self.finding(".pre-commit-config.yaml", 0, "no pre-commit configuration, so no reply-code guard",
                               key="missing")
