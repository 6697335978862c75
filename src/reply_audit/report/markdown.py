"""The Markdown audit: the hand audit's sections, every number computed.

Sections: wire shape, registries (counts, layers, coverage, duplicates,
migration gaps, runtime imports), behavioural invariants (excepts, return
discipline, empty results, forbidden and undefined methods, raw dicts,
message branching), builder enforcement, findings summary, compliance
scorecard, execution plan, and the inventory details. Tables by tabulate;
the coverage matrix by pandas, imported only here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from tabulate import tabulate

from ..classify import CLASSES
from ..compliance import execution_plan, requirements
from ..results import overview
from ..rules.base import Evaluation, Finding, RuleContext
from ..rules.ra303_terminal_not_returned import TerminalNotReturned
from ..rules.ra304_broad_except_invalid import BroadExceptInvalid
from ..rules.ra401_envelope_field_missing import envelope_diff
from .json_report import finding_counts, ordered
from .results_md import result_sections
from .summary import coverage, summarize

if TYPE_CHECKING:  # pragma: no cover
    from ..scan import ScanResult

MAX_LOCATIONS = 5


def _table(rows: list[list[Any]], headers: list[str]) -> str:
    if not rows:
        return "_none_\n"
    return str(tabulate(rows, headers=headers, tablefmt="github")) + "\n"


def _loc(path: str, line: int | None) -> str:
    return f"`{path}:{line}`" if line else f"`{path}`"


def _locs(items: list[tuple[str, int]]) -> str:
    shown = ", ".join(_loc(p, line) for p, line in items[:MAX_LOCATIONS])
    return shown + (f" +{len(items) - MAX_LOCATIONS} more" if len(items) > MAX_LOCATIONS else "")


def _coverage_frame(cells: dict[str, dict[str, int]]) -> str:
    """A registry's layer × type coverage (CELLS, from summary.coverage) with totals, via pandas."""
    import pandas as pd

    if not any(any(row.values()) for row in cells.values()):
        return "_no parseable codes_\n"
    table = pd.DataFrame.from_dict(cells, orient="index")
    table["Total"] = table.sum(axis=1)
    table.loc["Total"] = table.sum(axis=0)
    rows = [[idx, *[int(v) for v in row]] for idx, row in table.iterrows()]
    return _table(rows, ["Layer", *table.columns])


def render_markdown(result: ScanResult, evaluation: Evaluation, show_suppressed: bool = False) -> str:
    inv = result.inventory
    s = summarize(inv)
    counted = finding_counts(evaluation)
    profile = result.profile
    ctx = RuleContext(inv, profile, result.tooling)
    results = overview(ctx)
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for f in evaluation.findings:
        by_rule[f.rule].append(f)
    calls = ctx.non_test_calls()
    out: list[str] = []
    add = out.append

    add(f"# Reply system audit — `{result.display_root}`\n")
    add(f"Profile **{profile.name}** ({', '.join(profile.sources)}). "
        f"{s['files']['scanned']} Python files scanned, {s['files']['unparseable']} unparseable"
        f"{', ' + str(s['files']['fallback']) + ' read in part' if s['files']['fallback'] else ''}. "
        f"{counted['total']} findings: " + ", ".join(f"{n} {sev}" for sev, n in counted["by_severity"].items()) +
        (f"; {counted['suppressed']} suppressed" if counted["suppressed"] else "") +
        (f"; {counted['baselined']} in the baseline" if counted["baselined"] else "") +
        (f"; {counted['fixable']} fixable by `reply-audit migrate`" if counted["fixable"] else "")
        + ".\n")

    if results:
        add(result_sections(results, ordered(inv.registrations, "path", "line")))
    else:
        # 1 -------------------------------------------------------------- wire shape
        add("## 1. Wire shape\n")
        if not inv.envelopes:
            add("_No serializer (`" + "`, `".join(profile.setting("envelope", "serializers")) +
                "`) of a Reply class was found._\n")
        for env in sorted(inv.envelopes, key=lambda e: (e.path, e.line, e.cls)):
            add(f"From `{env.cls}.{env.method}()` at {_loc(env.path, env.line)}:\n")
            missing, misplaced, extra = envelope_diff(ctx, env)
            rows: list[list[Any]] = []
            for field in profile.envelope_fields:
                if field in missing:
                    rows.append([f"`{field}`", "required", "missing", "❌ missing"])
                elif field in misplaced:
                    rows.append([f"`{field}`", "required", f"at `{misplaced[field]}`", "❌ wrong location"])
                else:
                    rows.append([f"`{field}`", "required", "present", "✅"])
            rows += [[f"`{field}`", "not in spec", "present", "⚠️ in code, not in spec"] for field in extra]
            add(_table(rows, ["Field", "Spec", "Code", "Status"]))

        # 2 -------------------------------------------------------------- registries
        add("## 2. Registries\n")
        add("### Code counts\n")
        registries = ordered(inv.registries, "path", "line", "name")
        add(_table([[r.role, _loc(r.path, r.line), r.name, r.style, r.definitions, r.distinct,
                     ", ".join(sorted({c.layer for c in r.codes if c.layer}))] for r in registries],
                   ["Role", "Location", "Name", "Style", "Definitions", "Distinct codes", "Layers used"]))
        for r in registries:
            if r.role != "test":
                add(f"### Layer × type coverage — {r.name} ({r.role})\n")
                add(_coverage_frame(coverage(r, list(profile.layers), list(profile.type_letters))))
        add("### Duplicate and shared codes\n")
        add(_table([[d.registry, d.code, d.count, ", ".join(map(str, d.lines))]
                    for d in ordered(inv.duplicates, "registry", "code")], ["Registry", "Code", "Times", "Lines"]))
        shared = ordered(inv.shared_codes, "code")
        add(f"{len(shared)} codes are defined in more than one registry"
            + (": " + ", ".join(f"`{c.code}`" for c in shared[:12]) +
               (" …" if len(shared) > 12 else "") if shared else "") + ".\n")
        add("### Migration gaps\n")
        add(_table([[c, s["legacy_classes"][c]] for c in CLASSES], ["Legacy class", "Codes"]))
        gap_classes = ("unmapped", "mapped_to_unknown", "mapped_to_forbidden")
        gaps = [c for c in ordered(inv.legacy_codes, "code") if c.cls in gap_classes]
        add(_table([[f"`{c.code}`", c.cls, c.target or "—"] for c in gaps],
                   ["Legacy code", "Class", "Target"]))
        add("### Runtime import status\n")
        add(_table([[_loc(i.path, i.line), f"`{i.module}`", ", ".join(i.names) or "—",
                     "/".join(i.roles), f"`{i.registry_path}`" + (f" through `{i.via}`" if i.via else ""),
                     i.scope, "yes" if i.runtime else "no (tests / TYPE_CHECKING)"]
                    for i in ordered(inv.registry_imports, "path", "line", "registry_path")],
                   ["Importer", "Module", "Names", "Registry role", "Registry loaded", "Scope", "Active at runtime"]))

        # 3 -------------------------------------------------------------- invariants
        add("## 3. Behavioural invariants\n")
        add("### 3.1 Exception handlers: Invalid vs Error\n")
        # one row per file: except blocks that build replies (a block counts once, however many calls it holds)
        blocks: dict[str, dict[int, bool]] = defaultdict(dict)   # path -> except line -> non-compliant
        built: dict[str, int] = defaultdict(int)
        for c in calls:
            if c.in_except:
                bad = BroadExceptInvalid.applies(c, profile)
                at = c.except_line or c.line
                blocks[c.path][at] = blocks[c.path].get(at, False) or bad
                built[c.path] += 1
        rows = [[f"`{p}`", len(b), built[p], sum(not v for v in b.values()), sum(b.values())]
                for p, b in sorted(blocks.items())]
        if rows:
            rows.append(["**Total**", *(sum(r[i] for r in rows) for i in range(1, 5))])
        add(_table(rows, ["File", "Except blocks building replies", "Replies built in them", "Compliant blocks",
                          "Non-compliant blocks"]))
        add(_findings_list(by_rule["RA304"]))
        add("### 3.2 Return discipline\n")
        terminal: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for c in TerminalNotReturned.judged(ctx):
            terminal[c.path][0] += 1
            terminal[c.path][1] += c.returned
        add(_table([[f"`{p}`", n, ok, n - ok] for p, (n, ok) in sorted(terminal.items())] +
                   ([["**Total**", sum(v[0] for v in terminal.values()), sum(v[1] for v in terminal.values()),
                      sum(v[0] - v[1] for v in terminal.values())]] if terminal else []),
                   ["File", "Terminal calls", "Returned immediately", "Violations"]))
        add(_findings_list(by_rule["RA303"]))
        add("### 3.3 Empty results (heuristic)\n")
        add(_table([[_loc(f.path, f.line), f.function or "", f.confidence, f.message] for f in by_rule["RA305"]],
                   ["Location", "Function", "Confidence", "Finding"]))
        add("### 3.4 Forbidden and undefined builder methods\n")
        builders = ordered(inv.builders, "path", "line", "qualname")
        rows = [[_loc(b.path, b.line), b.qualname, ", ".join(b.forbidden_methods),
                 sum(1 for c in inv.calls if c.builder == b.ident and c.method in b.forbidden_methods)]
                for b in builders if b.forbidden_methods]
        add(_table(rows, ["Builder", "Name", "Forbidden methods defined", "Calls to them"]))
        add(_findings_list(by_rule["RA204"] + by_rule["RA203"]))
        add("### 3.5 Handlers returning raw dicts\n")
        add(_table([[_loc(h.path, h.line), h.name, *[h.returns_by_kind.get(k, 0) for k in
                                                     ("builder", "reply", "dict", "none", "other")]]
                    for h in ordered(inv.handlers, "path", "line", "qualname") if not ctx.is_test(h.path)],
                   ["Handler", "Name", "builder", "reply", "dict", "none", "other"]))
        add("### 3.6 Branching on message text\n")
        add(_findings_list(by_rule["RA307"], empty="_none_\n"))

        # 4 -------------------------------------------------------------- builders
        add("## 4. Builder enforcement\n")
        add(_table([[_loc(b.path, b.line), b.qualname, b.kind, ", ".join(b.methods),
                     ", ".join(b.missing_methods) or "—", "✅" if b.validates_format else "❌",
                     "✅" if b.validates_layer else "❌", "✅" if b.frozen_after_terminal else "❌",
                     len(b.instantiated_at), b.calls] for b in builders],
                   ["Location", "Builder", "Kind", "Methods", "Missing", "Validates format", "Validates layer",
                    "Frozen", "Instantiated", "Calls"]))

    # 5 -------------------------------------------------------------- findings
    add("## 5. Findings summary\n")
    rows = []
    for rule in evaluation.rules:
        found = by_rule.get(rule.id, [])
        if found:
            fixable = sum(1 for f in found if f.fixable)
            rows.append([rule.id, rule.name, rule.category, rule.severity, len(found), fixable or "",
                         _locs([(f.path, f.line) for f in found])])
    add(_table(rows, ["Rule", "Finding", "Category", "Severity", "Count", "Fixable", "Locations"]))

    # 6 -------------------------------------------------------------- scorecard
    add("## 6. Compliance scorecard\n")
    add(_table([[r.name, r.status_icon, r.counts, ", ".join(r.rules)] for r in requirements(ctx, evaluation)],
               ["Requirement", "Status", "Counts", "Rules"]))

    # 7 -------------------------------------------------------------- plan
    add("## 7. Execution plan\n")
    plan = execution_plan(evaluation)
    if not plan:
        add("_Nothing to do: no findings._\n")
    for chunk in plan:
        add(f"### Chunk {chunk.letter} — {chunk.title}\n")
        add(f"{chunk.why} Depends on: {', '.join(chunk.after) or 'nothing'}.\n")
        fixes = Counter(f.fix for f in evaluation.findings if f.fix and f.rule in {i[0] for i in chunk.items})
        if fixes:
            add("Automated: " + "; ".join(f"`reply-audit migrate --select {name}` fixes {n}"
                                           for name, n in sorted(fixes.items())) + ".\n")
        add(_table([[rid, name, n, _locs(locs)] for rid, name, n, locs in chunk.items],
                   ["Rule", "What", "Findings", "Where"]))

    # appendix --------------------------------------------------------------
    add("## Appendix: inventory\n")
    add("### Builder calls by file\n")
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for c in calls:
        counts[c.path][c.method] += 1
    methods = sorted({m for row in counts.values() for m in row})
    add(_table([[f"`{p}`", *[row.get(m, 0) for m in methods], sum(row.values())] for p, row in sorted(counts.items())],
               ["File", *methods, "Total"]))
    add("### Mapping tables\n")
    add(_table([[_loc(m.path, m.line) if m.source == "code" else f"`{m.path}`", m.name,
                 len(m.entries), *[sum(1 for e in m.entries if e.cls == k) for k in
                                   ("mapped", "retired", "mapped_to_unknown", "mapped_to_forbidden")],
                 sum(1 for e in m.entries if not e.legacy_known)]
                for m in ordered(inv.mappings, "path", "line", "name")],
               ["Location", "Name", "Entries", "Mapped", "Retired", "To unknown", "To forbidden", "Keys not legacy"]))
    add("### Files that could not be parsed\n")
    add(_table([[_loc(u.path, u.line), u.message] for u in ordered(inv.unparseable, "path", "line")],
               ["Location", "Reason"]))
    add("### Files read only in part\n")
    add(_table([[_loc(f.path, lost.line), lost.message] for f in ordered(inv.fallback, "path") for lost in f.skipped],
               ["Location", "Lost (this Python rejects it; the rest of the file was checked)"]))
    if show_suppressed:
        add("### Suppressed findings\n")
        add(_table([[f.rule, _loc(f.path, f.line), f.message] for f in evaluation.suppressed],
                   ["Rule", "Location", "Finding"]))
    return "\n".join(out)


def _findings_list(findings: list[Finding], empty: str = "") -> str:
    if not findings:
        return empty
    return "".join(f"- {_loc(f.path, f.line)} {f.rule}: {f.message}\n" for f in findings) + "\n"
