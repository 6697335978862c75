"""From findings to edits: the one place that decides what is fixable.

`plan(result, findings, codemods)` asks, for each finding, the codemods that
fix its rule (in pass order) until one answers with an edit; a finding no
codemod can fix keeps the reasons it was skipped. It marks each finding it
can fix `fixable`, with the codemod's name: `scan` reports exactly what
`migrate` would do. Two findings on one node share one edit.

`choose(edits)` keeps, per file, edits whose spans do not overlap, earlier
codemods first; the rest wait for the next pass (on the rewritten source).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import field

from ..engine import evaluate
from ..record_class import record
from ..rules.base import Evaluation, Finding
from ..scan import ScanResult
from .base import Codemod, Edit, Skip, Span
from .context import PlanContext
from .decisions import DecisionsFile


@record
class Skipped:
    finding: Finding
    codemod: str
    reason: str


@record
class Plan:
    edits: list[Edit] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def plan(result: ScanResult, findings: list[Finding], codemods: list[Codemod] | tuple[Codemod, ...],
         decisions: DecisionsFile | None = None) -> Plan:
    ctx = PlanContext(result, frozenset(c.name for c in codemods), decisions)
    by_rule: dict[str, list[Codemod]] = {}
    for codemod in codemods:
        for rule in codemod.fixes:
            by_rule.setdefault(rule, []).append(codemod)
    edits: dict[tuple[object, ...], Edit] = {}
    out = Plan()
    for finding in findings:
        skip: Skipped | None = None
        unfit = _unfit(finding.path, ctx) if by_rule.get(finding.rule) else None
        if unfit:
            out.skipped.append(Skipped(finding, by_rule[finding.rule][0].name, unfit))
            continue
        for codemod in by_rule.get(finding.rule, []):
            if finding.subject is None:
                break
            if not isinstance(finding.subject, codemod.subjects):
                continue   # a finding about another kind of record: not this codemod's
            answer = codemod.plan(finding, ctx)
            if answer is None:
                continue
            if isinstance(answer, Skip):
                skip = skip or Skipped(finding, codemod.name, answer.reason)
                continue
            edit = edits.get(answer.key)
            if edit is None:
                edits[answer.key] = edit = answer
            else:
                edit.absorb(answer)
            edit.findings.append(finding)
            finding.fixable, finding.fix = True, codemod.name
            skip = None
            break
        if skip is not None:
            out.skipped.append(skip)
    out.edits = list(edits.values())
    return out


def _unfit(path: str, ctx: PlanContext) -> str | None:
    """Why no finding of the file at PATH can be fixed in place, or None."""
    if path in ctx.result.links:
        return "the file is a symbolic link: its target is fixed where it is scanned"
    facts = ctx.files.get(path)
    if facts is not None and facts.lone_cr:
        return "the file ends lines with a lone \\r (old Mac), which libcst cannot rewrite byte for byte"
    return None


def mark_fixable(result: ScanResult, findings: list[Finding]) -> None:
    from . import all_codemods

    plan(result, findings, all_codemods())


def evaluate_fixable(result: ScanResult, select: list[str] | None = None, ignore: list[str] | None = None,
                     baseline: Counter[str] | None = None) -> Evaluation:
    """`engine.evaluate`, with each finding a codemod would fix marked (`Finding.fixable`, `Finding.fix`)."""
    evaluation = evaluate(result, select, ignore, baseline)
    mark_fixable(result, evaluation.findings)
    return evaluation


def _overlap(a: Span, b: Span) -> bool:
    return ((a[0], a[1]) < (b[2], b[3]) and (b[0], b[1]) < (a[2], a[3])) or a[:2] == b[:2]


def choose(edits: list[Edit], order: dict[str, int]) -> tuple[list[Edit], list[Edit]]:
    """(edits to apply now, edits that overlap an earlier one and wait for the next pass)."""
    now: list[Edit] = []
    later: list[Edit] = []
    taken: dict[str, list[Span]] = {}
    for edit in sorted(edits, key=lambda e: (order.get(e.codemod, 99), e.path, e.first_line)):
        spans = taken.setdefault(edit.path, [])
        if any(_overlap(s, t) for s in edit.spans for t in spans):
            later.append(edit)
        else:
            spans.extend(edit.spans)
            now.append(edit)
    return now, later
