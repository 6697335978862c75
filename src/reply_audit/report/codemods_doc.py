"""Codemod documentation from the codemod classes: the `codemods` command and docs/codemods.md."""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tabulate import tabulate

from ..codemods import PHASES

if TYPE_CHECKING:  # pragma: no cover
    from ..codemods.base import Codemod, Example


def codemods_table(codemods: Sequence[Codemod]) -> str:
    return str(tabulate([[c.name, f"{c.phase} ({PHASES[c.phase]})", ", ".join(c.fixes)] for c in codemods],
                    headers=["codemod", "phase", "fixes"], tablefmt="simple")) + "\n"


def _changes(example: Example) -> list[tuple[str, str, str]]:
    """(path, before, after) of each file an example changes."""
    before = example.before_tree()
    return [(path, textwrap.dedent(before.get(path, "")).strip() + "\n", textwrap.dedent(after).strip() + "\n")
            for path, after in example.after_tree().items()]


def explain_codemod(codemod: Codemod) -> str:
    lines = [f"{codemod.name}", f"phase {codemod.phase} ({PHASES[codemod.phase]})   fixes: {', '.join(codemod.fixes)}",
             ""]
    lines += textwrap.wrap(codemod.doc, 100)
    for example in codemod.examples[:1]:
        for path, old, new in _changes(example):
            lines += ["", f"Example ({path}):"]
            lines += [line.rstrip("\n") for line in difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), "before", "after", n=1)][2:]
    return "\n".join(lines) + "\n"


def codemods_markdown(codemods: Sequence[Codemod]) -> str:
    out = ["# Codemods", "",
           "Generated from the codemod classes by `reply-audit codemods --format md`; a test keeps this page "
           "current. `reply-audit migrate PATH` runs them (docs/migrate.md); each example below is run by the "
           "test-suite, which checks the exact rewritten source and that a second run changes nothing.", "",
           tabulate([[f"[{c.name}](#{c.name})", f"{c.phase} ({PHASES[c.phase]})", ", ".join(c.fixes)]
                     for c in codemods], headers=["codemod", "phase", "fixes"], tablefmt="github"), ""]
    for c in codemods:
        out += [f"## {c.name}", "", f"Phase **{c.phase}** ({PHASES[c.phase]}) · fixes {', '.join(c.fixes)}", "",
                c.doc, ""]
        for example in c.examples:
            for path, old, new in _changes(example):
                note = f" — {example.note}" if example.note else ""
                diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                    f"a/{path}", f"b/{path}"))
                out += [f"`{path}`{note}", "", "```diff", diff.rstrip("\n"), "```", ""]
            if example.skipped:
                if not example.after:
                    out += [f"Left as it is{' — ' + example.note if example.note else ''}:", ""]
                out += ["Skipped, with the reason the summary shows:", ""]
                out += [f"- {reason}" for reason in example.skipped] + [""]
    return "\n".join(out).rstrip() + "\n"
