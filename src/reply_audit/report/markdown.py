"""The Markdown inventory report (tables by tabulate, the coverage matrix by pandas).

Sections follow the hand audit's inventory parts: registries and their code
counts, layer × type coverage, duplicates, mapping tables, legacy
classification and migration gaps, builders, builder calls, handlers, runtime
imports of the registries, branching on message text, and files that could not
be parsed. pandas is imported only here, when a Markdown report is asked for.
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from ..classify import CLASSES
from .json_report import build_document


def _table(rows: list[list[Any]], headers: list[str]) -> str:
    if not rows:
        return "_none_\n"
    return tabulate(rows, headers=headers, tablefmt="github") + "\n"


def _loc(path: str, line: int | None) -> str:
    return f"`{path}:{line}`" if line else f"`{path}`"


def _coverage_frame(registry: dict[str, Any], layers: list[str], letters: list[str]) -> str:
    import pandas as pd

    codes = [c for c in registry["codes"] if c["layer"]]
    if not codes:
        return "_no parseable codes_\n"
    frame = pd.DataFrame(codes)
    table = pd.crosstab(frame["layer"], frame["type"])
    order = layers + sorted(l for l in table.index if l not in layers)
    cols = letters + sorted(t for t in table.columns if t not in letters)
    table = table.reindex(index=order, columns=cols, fill_value=0)
    table["Total"] = table.sum(axis=1)
    table.loc["Total"] = table.sum(axis=0)
    rows = [[idx, *[int(v) for v in row]] for idx, row in table.iterrows()]
    return _table(rows, ["Layer", *cols, "Total"])


def render_markdown(result) -> str:
    doc = build_document(result)
    s = doc["summary"]
    profile = result.profile
    layers = list(profile.layers)
    letters = list(profile.type_letters)
    out: list[str] = []
    add = out.append
    add(f"# Reply system inventory — `{doc['root']}`\n")
    add(f"Profile **{doc['profile']['name']}** ({', '.join(doc['profile']['sources'])}); "
        f"{s['files']['scanned']} Python files scanned, {s['files']['unparseable']} unparseable"
        f"{', ' + str(s['files']['fallback']) + ' parsed by the libcst fallback' if s['files']['fallback'] else ''}.\n")

    add("## Summary\n")
    add(_table([
        ["Registries (canonical / legacy / test)",
         f"{s['registries']['total']} ({s['registries']['by_role'].get('canonical', 0)} / "
         f"{s['registries']['by_role'].get('legacy', 0)} / {s['registries']['by_role'].get('test', 0)})"],
        ["Distinct canonical codes", s["registries"]["canonical_codes"]],
        ["Distinct legacy codes", s["registries"]["legacy_codes"]],
        ["Codes defined twice in one registry", s["registries"]["duplicates"]],
        ["Codes defined in more than one registry", s["registries"]["shared_codes"]],
        ["Mapping tables / entries", f"{s['mappings']['tables']} / {s['mappings']['entries']}"],
        ["Builders", s["builders"]["total"]],
        ["Builder calls (outside builders)", s["calls"]["total"]],
        ["Handlers", s["handlers"]["total"]],
        ["Code literals outside registries", s["code_literals"]],
        ["Runtime imports of registry modules", s["registry_imports"]["runtime"]],
        ["Branches on message text", s["message_branches"]],
    ], ["What", "Count"]))

    add("## Registries\n")
    add(_table([[_loc(r["path"], r["line"]), r["name"], r["style"], r["role"], r["definitions"], r["distinct"]]
                for r in doc["registries"]],
               ["Location", "Name", "Style", "Role", "Definitions", "Distinct codes"]))
    for r in doc["registries"]:
        if r["role"] == "test":
            continue
        add(f"### Layer × type coverage — {r['name']} ({r['role']}, `{r['path']}`)\n")
        add(_coverage_frame(r, layers, letters))

    add("## Duplicate codes\n")
    add(_table([[d["registry"], d["code"], d["count"], ", ".join(map(str, d["lines"]))] for d in doc["duplicates"]],
               ["Registry", "Code", "Times", "Lines"]))
    add("### Codes defined in more than one registry\n")
    add(_table([[d["code"], "<br>".join(d["registries"])] for d in doc["shared_codes"]], ["Code", "Registries"]))

    add("## Mapping tables\n")
    rows = []
    for m in doc["mappings"]:
        counts = {c: 0 for c in ("mapped", "retired", "mapped_to_unknown", "mapped_to_forbidden")}
        for e in m["entries"]:
            counts[e["class"]] += 1
        rows.append([_loc(m["path"], m["line"]) if m["source"] == "code" else f"`{m['path']}`", m["name"],
                     len(m["entries"]), *counts.values(), sum(1 for e in m["entries"] if not e["legacy_known"])])
    add(_table(rows, ["Location", "Name", "Entries", "Mapped", "Retired", "To unknown", "To forbidden",
                      "Keys not legacy"]))

    add("## Legacy code classification\n")
    add(_table([[c, s["legacy_classes"][c]] for c in CLASSES], ["Class", "Codes"]))
    gaps = [c for c in doc["legacy_codes"] if c["class"] != "mapped" and c["class"] != "identical"]
    add("### Migration gaps and retirements\n")
    add(_table([[c["code"], c["class"], c["target"] or "", c["reason"] or ""] for c in gaps],
               ["Legacy code", "Class", "Target", "Why"]))
    if doc["mapping_keys_not_legacy"]:
        add("### Mapping keys that are not legacy codes\n")
        add(_table([[k["legacy"], _loc(k["path"], k["line"]), k["mapping"]] for k in doc["mapping_keys_not_legacy"]],
                   ["Key", "Location", "Mapping"]))

    add("## Builders\n")
    add(_table([[_loc(b["path"], b["line"]), b["qualname"], b["kind"], ", ".join(b["methods"]),
                 ", ".join(b["forbidden_methods"]) or "—", ", ".join(b["missing_methods"]) or "—",
                 "yes" if b["validates_layer"] else "no", "yes" if b["frozen_after_terminal"] else "no",
                 len(b["instantiated_at"]), b["calls"]] for b in doc["builders"]],
               ["Location", "Builder", "Kind", "Methods", "Forbidden", "Missing", "Validates layer", "Frozen",
                "Instantiated", "Calls"]))

    add("## Builder calls by file\n")
    per_file: dict[str, dict[str, int]] = {}
    for c in doc["calls"]:
        if c["in_builder"]:
            continue
        row = per_file.setdefault(c["path"], {})
        row[c["method"]] = row.get(c["method"], 0) + 1
    methods = sorted({m for row in per_file.values() for m in row})
    add(_table([[f"`{p}`", *[row.get(m, 0) for m in methods], sum(row.values())] for p, row in sorted(per_file.items())],
               ["File", *methods, "Total"]))
    terminal = [c for c in doc["calls"] if not c["in_builder"]
                and profile.method_type(c["method"]) in profile.terminal_types]
    add(f"Terminal calls (Invalid/Denied/Error and their forbidden aliases): {len(terminal)}, "
        f"returned directly: {sum(1 for c in terminal if c['returned'])}; "
        f"calls inside `except`: {sum(1 for c in doc['calls'] if c['in_except'] and not c['in_builder'])}.\n")

    add("## Handlers\n")
    kinds = sorted({k for h in doc["handlers"] for k in h["returns_by_kind"]})
    add(_table([[_loc(h["path"], h["line"]), h["qualname"], *[h["returns_by_kind"].get(k, 0) for k in kinds]]
                for h in doc["handlers"]], ["Location", "Handler", *kinds]))

    add("## Runtime imports of registry modules\n")
    add(_table([[_loc(i["path"], i["line"]), i["module"], ", ".join(i["names"]) or "—", f"`{i['registry_path']}`",
                 "/".join(i["roles"]), i["scope"], "yes" if i["runtime"] else "no"]
                for i in doc["registry_imports"]],
               ["Location", "Module", "Names", "Registry file", "Role", "Scope", "Runtime"]))

    add("## Branching on message text\n")
    add(_table([[_loc(m["path"], m["line"]), m["kind"], f"`{m['text']}`", m["function"] or ""]
                for m in doc["message_branches"]], ["Location", "Kind", "Expression", "Function"]))

    add("## Files that could not be parsed\n")
    add(_table([[_loc(u["path"], u["line"]), u["message"]] for u in doc["files"]["unparseable"]],
               ["Location", "Reason"]))
    return "\n".join(out)
