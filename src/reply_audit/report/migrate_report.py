"""What `migrate` says: the summary table (stderr) and the JSON document (`--format json`).

JSON schema `reply-audit-migrate/1` is documented in docs/migrate.md; like the
scan report it is deterministic (sorted, no absolute paths, no clock).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .. import __version__
from ..migrate import MigrateResult
from .json_text import dumps

SCHEMA = "reply-audit-migrate/1"
MAX_SKIPPED_SHOWN = 40


WRAPPER_WORDS = {
    "passthrough": "passes raw results through; handlers are wrapped as they are",
    "autowrap": "wraps raw results as a Success (legacy auto-wrap); handlers are wrapped as they are",
    "reject": "turns raw results into Errors; a handler is wrapped only together with the conversion of all its "
              "returns",
    "unknown": "what it does with raw results is not known; a handler is wrapped only together with the "
               "conversion of all its returns (set [migrate] wrapper to say)",
}


def counts_table(headers: list[str], rows: list[list[Any]]) -> str:
    """ROWS of a name and whole numbers under HEADERS, as tabulate's `simple` format draws them (names to the
    left, numbers to the right, two spaces between columns, two more beside each header); drawn here because
    importing tabulate takes longer than a `migrate` that rewrites nothing."""
    widths = [max([len(h) + 2, *(len(str(row[i])) for row in rows)]) for i, h in enumerate(headers)]

    def line(cells: list[Any]) -> str:
        return "  ".join(str(c).ljust(w) if i == 0 or not rows else str(c).rjust(w)   # (no rows: no numbers)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(row) for row in rows)])


def render_summary(result: MigrateResult, applied: bool, display_root: str) -> str:
    rows = [[name, c["phase"], c["files"], c["rewrites"], c["skipped"], c["refused"]]
            for name, c in result.counts().items()]
    parts = [counts_table(["codemod", "phase", "files", "rewrites", "skipped", "refused"], rows)]
    changed = result.written if applied else result.changed
    verb = "rewrote" if applied else "would rewrite"
    parts.append("")
    parts.append(f"{display_root}: {verb} {len(changed)} file(s) with {len(result.done)} rewrite(s) "
                 f"in {result.passes} pass(es)" + ("" if applied or not changed else "; run with --apply to write"))
    if not result.converged:
        parts.append(f"warning: still rewriting after {result.passes} passes; run migrate again and report a bug")
    if result.wrapper is not None:
        words = WRAPPER_WORDS[result.wrapper.behaviour]
        if result.legacy_wrap and result.wrapper.behaviour in ("reject", "unknown"):
            words = words.split(";")[0] + "; phase 1 puts the legacy auto-wrap (@_legacy_reply) below it"
        parts.append(f"safety wrapper {result.wrapper.name}: {words} ({result.wrapper.detail})")
    if result.removed_temporaries:
        parts.append(f"removed {len(result.removed_temporaries)} stale temporary file(s) of an interrupted run: "
                     + ", ".join(result.removed_temporaries[:5]))
    parts += decision_lines(result)
    if result.skipped:
        reasons = Counter((s.codemod, s.finding.rule, s.reason) for s in result.skipped)
        parts += ["", f"skipped ({len(result.skipped)} finding(s), a human decides):"]
        shown = 0
        for (codemod, rule, reason), n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
            where = [f"{s.finding.path}:{s.finding.line}" for s in result.skipped
                     if (s.codemod, s.finding.rule, s.reason) == (codemod, rule, reason)]
            parts.append(f"  {codemod} {rule} ×{n}: {reason}  [{', '.join(where[:3])}"
                         f"{', …' if len(where) > 3 else ''}]")
            shown += 1
            if shown >= MAX_SKIPPED_SHOWN:
                parts.append(f"  … {len(reasons) - shown} more reasons (see --format json)")
                break
    if result.refused:
        parts += ["", f"refused ({len(result.refused)}):"]
        parts += [f"  {r.path}:{r.line}: {r.codemod}: {r.reason}" for r in result.refused]
    return "\n".join(parts) + "\n"


def decision_lines(result: MigrateResult) -> list[str]:
    """What was decided for the converted returns: types, codes chosen by evidence or marked, the decisions file."""
    decided = result.decided
    if not decided and result.decisions_file is None:
        return []
    types = Counter(d.type for d in decided)
    order = ["S", "I", "D", "E", "runtime"]
    told = sum(d.reviewed for d in decided)
    lines = [f"decisions: {len(decided)} converted return(s): "
             + ", ".join(f"{types[t]} {t}" for t in order if types[t])
             + f"; {sum(not d.marked for d in decided)} code(s) chosen, {sum(d.marked for d in decided)} marked "
             f"default-code for review; {sum(d.type_confidence == 'low' for d in decided)} type(s) of low confidence"
             + (f"; {told} from reviewed choices" if told else "")]
    file = result.decisions_file
    if file is not None:
        unclaimed = sum(d.origin == "proposed" for d in decided)
        if unclaimed:
            lines.append(f"  {unclaimed} converted return(s) have no row in {file.path.as_posix()}: "
                         "their proposals were used")
        for row in file.stale:
            lines.append(f"  stale row {row['where']} ({row['path']}:{row['line']} {row['function']}): no site "
                         "has its fingerprint any more; not applied")
    return lines


def build_document(result: MigrateResult, applied: bool, display_root: str) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "tool": {"name": "reply-audit", "version": __version__},
        "root": display_root,
        "applied": applied,
        "passes": result.passes,
        "converged": result.converged,
        "codemods": result.counts(),
        "files": [
            {"path": path, "rewrites": [
                {"codemod": a.codemod, "line": a.line, "rules": a.rules, "description": a.description,
                 "pass": a.pass_no}
                for a in sorted(result.applied, key=lambda a: (a.pass_no, a.line, a.codemod)) if a.path == path]}
            for path in result.changed
        ],
        "written": sorted(result.written),
        "wrapper": None if result.wrapper is None else {
            "name": result.wrapper.name, "behaviour": result.wrapper.behaviour, "detail": result.wrapper.detail},
        "removed_temporaries": sorted(result.removed_temporaries),
        "skipped": sorted(({"codemod": s.codemod, "rule": s.finding.rule, "path": s.finding.path,
                            "line": s.finding.line, "reason": s.reason, "fingerprint": s.finding.fingerprint}
                           for s in result.skipped), key=lambda d: (d["path"], d["line"], d["rule"])),
        "refused": sorted(({"codemod": r.codemod, "path": r.path, "line": r.line, "reason": r.reason}
                           for r in result.refused), key=lambda d: (d["path"], d["line"], d["codemod"])),
        "decisions": [{**d.as_row(), "origin": d.origin} for d in result.decided],
        "decisions_file": None if result.decisions_file is None else {
            "path": result.decisions_file.path.as_posix(),
            "stale": [row for row in sorted(result.decisions_file.stale, key=lambda r: r["where"])]},
    }


def render_json(result: MigrateResult, applied: bool, display_root: str) -> str:
    return dumps(build_document(result, applied, display_root)) + "\n"
