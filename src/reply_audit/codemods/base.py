"""What a codemod is, and what it hands to the rewriter.

A codemod is one small class (Fixit's layout): a name, the migration phase of
plan 001 it belongs to, the rule ids whose findings it fixes, a doc paragraph
and BEFORE/AFTER examples that the tests run. Its `plan(finding, ctx)` reads
the inventory only (never a syntax tree) and answers with

* an `Edit`: what to rewrite, where (spans in `ast` coordinates) and how;
* a `Skip`: this finding is of its kind but cannot be fixed safely, and why;
* `None`: not its kind of finding (another codemod may take it).

An `Edit` names the syntax nodes it rewrites as `Target`s, keyed the way the
rewriter (`apply.py`) finds them in a libcst tree, and rewrites each node it
is handed. Spans serve to keep two edits off the same source in one pass.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar

from ..record_class import record
from .ftypes import Refused, Skip, Span, Target

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ..rules.base import Finding
    from .context import PlanContext
    from .rewrite_context import RewriteContext

__all__ = ["Codemod", "Edit", "Example", "Refused", "RewriteOutcome", "Skip", "Span", "Target"]


@record
class Edit:
    """One rewrite at one place. Subclasses set `targets` and implement `rewrite`."""

    codemod: str
    path: str
    spans: list[Span]
    description: str
    imports: list[str] = field(default_factory=list)   # import statements the rewritten file then needs
    definitions: dict[str, str] = field(default_factory=dict)  # module-level defs it needs: name -> source
    findings: list[Finding] = field(default_factory=list)

    @property
    def key(self) -> tuple[object, ...]:
        """Two plans that produce the same key are the same edit (two findings on one node)."""
        return (self.codemod, self.path, tuple(self.spans), self.description)

    @property
    def first_line(self) -> int:
        return min(s[0] for s in self.spans)

    def targets(self) -> list[Target]:  # pragma: no cover - abstract
        raise NotImplementedError

    def rewrite(self, target: Target, original: cst.CSTNode, updated: cst.CSTNode,
                ctx: RewriteContext) -> cst.CSTNode:  # pragma: no cover - abstract
        raise NotImplementedError

    def absorb(self, other: Edit) -> None:
        """Merge another plan with the same key (default: nothing to merge)."""


@record
class RewriteOutcome:
    """What rewriting one file's source came to (`apply.rewrite_source`)."""

    source: bytes
    new_source: bytes | None = None              # None: nothing to write (no edit applied, or refused)
    applied: list[Edit] = field(default_factory=list)
    refused: list[tuple[Edit, str]] = field(default_factory=list)
    problem: str | None = None                   # why the whole file was refused


@record(frozen=True)
class Example:
    """A tree before and after the codemod (path -> source; one string means `mod.py`).

    `after` lists every file the codemod changes; files it leaves alone are
    checked to be untouched. Settings go in the tree's own pyproject.toml.
    """

    before: str | dict[str, str]
    after: str | dict[str, str]
    note: str = ""
    skipped: tuple[str, ...] = ()   # the reasons of the findings it leaves (libcst's expected_skip), in order

    @staticmethod
    def _tree(value: str | dict[str, str]) -> dict[str, str]:
        return {"mod.py": value} if isinstance(value, str) else dict(value)

    def before_tree(self) -> dict[str, str]:
        return self._tree(self.before)

    def after_tree(self) -> dict[str, str]:
        return self._tree(self.after)


class Codemod:
    """Base class: subclasses set the class attributes and implement `plan`."""

    name: ClassVar[str]
    phase: ClassVar[int]            # plan 001: 1 safety net, 2 domain adoption, 3 strict mode
    order: ClassVar[int]            # position within a pass: earlier codemods claim a node first
    fixes: ClassVar[tuple[str, ...]]
    subjects: ClassVar[tuple[type, ...]]   # the records (`Finding.subject`) it reads: other findings are not its
    doc: ClassVar[str]
    examples: ClassVar[list[Example]] = []

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:  # pragma: no cover
        raise NotImplementedError

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "phase": self.phase, "fixes": list(self.fixes)}
