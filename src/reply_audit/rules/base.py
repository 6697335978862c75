"""What a rule is: a small class with an id, a severity, the spec section it
enforces, a doc paragraph, VALID/INVALID examples, and a `check` that reads the
inventory (never a syntax tree) and yields findings.

Examples are source trees (one module as a string, or a dict path -> source);
the test-suite scans every example and checks that VALID ones give no finding
of the rule and INVALID ones give exactly the stated number.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import SEVERITIES
from ..record_class import record
from ..records import Builder, Call, Registry, Subject

if TYPE_CHECKING:  # pragma: no cover
    from ..index import Inventory
    from ..profile import Profile

SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}


def at_least(severity: str, threshold: str) -> bool:
    """Is SEVERITY at or above THRESHOLD (critical > high > medium > low)?"""
    return SEVERITY_RANK[severity] <= SEVERITY_RANK[threshold]


@record(frozen=True)
class Example:
    """A tree a rule is run on. An INVALID example pins every finding it gives, in order, as (path, line, column
    counted from 1, message): Fixit's range and message, checked by tests/test_rules.py."""

    files: str | dict[str, str]
    note: str = ""
    findings: list[tuple[str, int, int, str]] = field(default_factory=list)

    def tree(self) -> dict[str, str]:
        return {"mod.py": self.files} if isinstance(self.files, str) else dict(self.files)


@record
class Finding:
    rule: str
    name: str
    severity: str
    category: str
    path: str
    line: int
    col: int
    message: str
    function: str | None = None
    key: str = ""                 # what makes this finding itself, beyond its place (a code, a method)
    confidence: str | None = None  # for heuristic rules: high | medium
    fixable: bool = False
    fix: str | None = None        # the codemod that fixes it (set by the planner), e.g. "legacy-codes"
    subject: Subject | None = field(default=None, repr=False, compare=False)  # the inventory record it is about

    @property
    def normal_key(self) -> str:
        """The key with its whitespace normalized (a reformatted line is the same finding)."""
        return re.sub(r"\s+", " ", self.key).strip()

    @property
    def fingerprint(self) -> str:
        """Stable across line shifts: rule, path, enclosing function and the finding's key."""
        blob = "\x1f".join((self.rule, self.path, self.function or "", self.normal_key))
        return hashlib.sha256(blob.encode("utf-8", "surrogateescape")).hexdigest()[:20]   # a path may not be UTF-8

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule, "name": self.name, "severity": self.severity, "category": self.category,
            "path": self.path, "line": self.line, "column": self.col + 1, "message": self.message,
            "function": self.function, "confidence": self.confidence, "fixable": self.fixable,
            "fix": self.fix, "fingerprint": self.fingerprint,
        }


@record
class RuleContext:
    """What a rule may read: the inventory, the profile and repository-level facts."""

    inventory: Inventory
    profile: Profile
    tooling: dict[str, Any] = field(default_factory=dict)

    def is_test(self, path: str) -> bool:
        return path in self.inventory.test_files

    def non_test_calls(self) -> list[Call]:
        """Builder calls in product code (not tests, not a builder delegating to Reply)."""
        return [c for c in self.inventory.calls if not c.in_builder and not self.is_test(c.path)]

    def active_registries(self) -> list[Registry]:
        return [r for r in self.inventory.registries if r.role in ("canonical", "legacy")]

    def canonical_registries(self) -> list[Registry]:
        return [r for r in self.inventory.registries if r.role == "canonical"]

    def instance_builders(self) -> list[Builder]:
        return [b for b in self.inventory.builders if b.kind == "builder"]

    def factory_builders(self) -> frozenset[str]:
        """`path::qualname` of every Reply class whose classmethods build replies (`Reply.success(...)`): calls of
        those build a value, not a builder's terminal state."""
        return frozenset(b.ident for b in self.inventory.builders if b.kind == "factory")


@record
class Evaluation:
    """What `engine.evaluate` makes of a scan: the findings that count, those suppressed by a comment, how many a
    baseline hid, and the rules that ran."""

    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    baselined: int = 0
    rules: list[Rule] = field(default_factory=list)


class Rule:
    """Base class: subclasses set the class attributes and implement `check`."""

    id: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[str]
    category: ClassVar[str]        # registry | builder | call | envelope | tooling
    requirement: ClassVar[str]     # the scorecard row it counts against (compliance.py REQUIREMENTS)
    chunk: ClassVar[str]           # the execution-plan chunk that fixes it (compliance.py CHUNKS)
    fix: ClassVar[str]             # how to fix a finding, by hand (the codemods that fix some say so in the docs)
    spec: ClassVar[str]            # the spec section enforced
    doc: ClassVar[str]             # what, why, how to fix
    heuristic: ClassVar[bool] = False
    profile: ClassVar[str] = "canonical"  # the built-in profile its examples are scanned with
    valid: ClassVar[list[Example]] = []
    invalid: ClassVar[list[Example]] = []

    def check(self, ctx: RuleContext) -> Iterable[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    def finding(self, path: str, line: int, message: str, *, col: int = 0, function: str | None = None,
                key: str = "", confidence: str | None = None, subject: Subject | None = None) -> Finding:
        return Finding(rule=self.id, name=self.name, severity=self.severity, category=self.category,
                       path=path, line=line, col=col, message=message, function=function, key=key,
                       confidence=confidence, subject=subject)
