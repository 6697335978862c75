"""Rule documentation from the rule classes themselves: the `rules` command and docs/rules.md."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tabulate import tabulate

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Example, Rule


def rules_table(rules: Sequence[Rule]) -> str:
    return str(tabulate([[r.id, r.name, r.severity, r.category, r.spec] for r in rules],
                    headers=["id", "name", "severity", "category", "spec"], tablefmt="simple")) + "\n"


def _examples(examples: list[Example]) -> str:
    out = []
    for ex in examples:
        for path, source in ex.tree().items():
            lang = "yaml" if path.endswith((".yaml", ".yml")) else "toml" if path.endswith(".toml") else "python"
            note = f" — {ex.note}" if ex.note else ""
            # an INVALID example keeps its leading blank lines: its findings' line numbers count them
            text = textwrap.dedent(source).rstrip() if ex.findings else textwrap.dedent(source).strip()
            out.append(f"`{path}`{note}\n\n```{lang}\n{text}\n```\n")
        if ex.findings:
            out.append("Findings:\n\n```text\n" + "".join(_finding(f) + "\n" for f in ex.findings) + "```\n")
    return "\n".join(out)


def _finding(pinned: tuple[str, int, int, str]) -> str:
    path, line, column, message = pinned
    return f"{path}:{line}:{column}: {message}"


def _fix_safety(rule: Rule) -> str:
    """Which findings `migrate` fixes, and how safely: ruff's "fix safety", in our terms."""
    fixers = fixed_by(rule)
    if not fixers:
        return "No codemod fixes it: the fix is a decision for a human."
    names = ", ".join(f"[{n}](codemods.md#{n})" for n in fixers)
    return (f"`reply-audit migrate` fixes what it can with {names}: the scan marks those findings `[*]`. A rewrite "
            "never changes behaviour silently; a finding it cannot fix safely is left with the reason "
            "(docs/migrate.md).")


def fixed_by(rule: Rule) -> list[str]:
    """Names of the codemods that fix some findings of RULE."""
    from ..codemods import all_codemods

    return [c.name for c in all_codemods() if rule.id in c.fixes]


def _row(rule: Rule) -> str:
    from ..compliance import REQUIREMENTS

    return REQUIREMENTS[rule.requirement][0].replace("{target}", "the target")


def _chunk(rule: Rule) -> str:
    from ..compliance import CHUNKS

    return CHUNKS[rule.chunk][0]


def explain(rule: Rule) -> str:
    fixers = fixed_by(rule)
    lines = [f"{rule.id} {rule.name}", f"severity: {rule.severity}   category: {rule.category}   "
             f"enforces: {rule.spec}{'   (heuristic)' if rule.heuristic else ''}"
             + (f"   fixed by: {', '.join(fixers)}" if fixers else ""),
             f"scorecard row: {_row(rule)}   execution plan: {_chunk(rule)}", ""]
    lines += textwrap.wrap(rule.doc, 100)
    lines += ["", *textwrap.wrap("Fix: " + rule.fix, 100)]
    if rule.invalid:
        example = rule.invalid[0]
        tree = example.tree()
        shown = next((f[0] for f in example.findings if f[0] in tree), next(iter(tree)))   # the file it flags
        numbered = [f"{n:4} | {text}" for n, text in enumerate(textwrap.dedent(tree[shown]).rstrip().split("\n"), 1)]
        lines += ["", f"Invalid example ({shown}):", *numbered, "", "gives:"]
        lines += [f"    {_finding(f)}" for f in rule.invalid[0].findings]
    return "\n".join(lines) + "\n"


def rules_markdown(rules: Sequence[Rule]) -> str:
    out = ["# Rules", "",
           "Generated from the rule classes by `reply-audit rules --format md`; a test keeps this page current.",
           "Each rule's page is laid out as ruff's are: what it does and why, an example with the findings it "
           "gives, what to write instead, and how to fix it. "
           "Each rule reads the scan's inventory (never a syntax tree); its examples are run by the test-suite: "
           "VALID examples give no finding of the rule, INVALID ones exactly the findings shown (path, line, "
           "column, message).", "",
           tabulate([[f"[{r.id}](#{r.id.lower()}-{r.name})", r.name, r.severity, r.category, r.spec] for r in rules],
                    headers=["id", "name", "severity", "category", "spec"], tablefmt="github"), ""]
    for r in rules:
        out += [f"## {r.id} {r.name}", "",
                f"Severity **{r.severity}** · category {r.category} · enforces {r.spec}"
                f"{' · heuristic (findings carry a confidence)' if r.heuristic else ''}"
                + (f" · fixed by `migrate`: {', '.join(f'[{n}](codemods.md#{n})' for n in fixed_by(r))}"
                   if fixed_by(r) else ""), "",
                f"Scorecard row: {_row(r)} · execution plan: {_chunk(r)}", "",
                "### What it does, and why", "", r.doc, "",
                "### Example", "", _examples(r.invalid),
                "### Use instead", "", _examples(r.valid),
                "### How to fix", "", r.fix, "", _fix_safety(r), ""]
    return "\n".join(out).rstrip() + "\n"
