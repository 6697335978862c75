"""The Markdown audit's sections for profiles with a [result] table (IAR): actions, results, error
shapes and compliance levels. They replace the builder-centred sections 1-4 of the canonical audit."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tabulate import tabulate

from ..records import Registration
from ..results import ResultsOverview, action_names

MAX_ROWS = 200


def _table(rows: list[list[Any]], headers: list[str]) -> str:
    if not rows:
        return "_none_\n"
    return str(tabulate(rows, headers=headers, tablefmt="github")) + "\n"


def _loc(path: str, line: int) -> str:
    return f"`{path}:{line}`"


def result_sections(res: ResultsOverview, regs: list[Registration]) -> str:
    """Sections 1-4 from the judged actions (RES) and the registrations (REGS, in report order)."""
    actions = res.actions
    out: list[str] = []
    add = out.append

    add("## 1. Actions\n")
    resolved = [r for r in regs if r.handler]
    names = {r.name for r in regs if r.name}
    by_via = Counter(r.via for r in regs)
    add(f"{len(regs)} registrations ({', '.join(f'{n} by `{v}`' for v, n in sorted(by_via.items())) or 'none'}) "
        f"of {len(names)} distinct names; {len(resolved)} resolve to a function in the tree, "
        f"{len(regs) - len(resolved)} {'does' if len(regs) - len(resolved) == 1 else 'do'} not. "
        f"{len(actions)} actions are checked "
        f"(registered or decorated functions, tests aside).\n")
    unresolved = [r for r in regs if not r.handler]
    if unresolved:
        add("Registrations whose function is not in the tree:\n")
        add(_table([[_loc(r.path, r.line), r.name or "—", f"`{r.target}`"] for r in unresolved],
                   ["Registered at", "Name", "Function"]))

    add("## 2. Results\n")
    v = res.returns_by_verdict
    total = sum(v.values())
    add(f"{total} returns: **{v['envelope']}** carry the envelope, {v['helper']} come from a result builder, "
        f"**{v['partial']}** carry only part of it, **{v['missing']}** none of it (raw dicts, None, bare "
        f"values), and {v['unknown']} cannot be known statically (calls to other functions, names).\n")
    lacking = [(a, r) for a in actions for r in a.returns if r.verdict in ("partial", "missing")]
    add("### Returns lacking the envelope\n")
    add(_table([[_loc(a.handler.path, r.line), ", ".join(action_names(a)) or a.handler.qualname, r.verdict,
                 ", ".join(r.missing)] for a, r in lacking[:MAX_ROWS]],
               ["Return", "Action", "Verdict", "Missing keys"]))
    if len(lacking) > MAX_ROWS:
        add(f"_{len(lacking) - MAX_ROWS} more in the JSON report._\n")

    add("## 3. Error shapes\n")
    e = res.errors_by_shape
    add(_table([["null", e["none"]], ["object", e["object"]], ["bare string", e["bare_string"]],
                ["other (a name or a call)", e["other"]]], ["Error value in returns", "Count"]))
    problems = Counter(p.kind for a in actions for r in a.returns for p in r.problems)
    add(_table([[kind, n] for kind, n in sorted(problems.items())], ["Problem in literal results", "Count"]))

    add("## 4. Compliance levels\n")
    order = res.level_order
    levels = res.actions_by_level
    add(_table([[name, ", ".join(f"`{c}`" for c in res.level_checks[name]) or "—", levels.get(name, 0)]
                for name in order] + [["below " + (order[0] if order else "L0"), "—", levels.get("below", 0)]],
               ["Level", "Adds the checks", "Actions"]))
    add("An action is at the highest level whose checks, and those of every lower level, hold for all its "
        "returns (docs/profiles.md lists the checks).\n")
    add(_table([[_loc(a.handler.path, a.handler.line), ", ".join(action_names(a)) or "—",
                 f"`{a.handler.qualname}`", a.level or "—", len(a.returns),
                 sum(1 for r in a.returns if r.verdict in ("envelope", "helper")),
                 sum(1 for r in a.returns if r.verdict == "unknown"),
                 ", ".join(a.failed) or "—"] for a in actions[:MAX_ROWS]],
               ["Action", "Names", "Function", "Level", "Returns", "Enveloped", "Unknown", "Fails for next level"]))
    if len(actions) > MAX_ROWS:
        add(f"_{len(actions) - MAX_ROWS} more in the JSON report._\n")
    return "\n".join(out)
