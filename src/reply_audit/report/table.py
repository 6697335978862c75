"""The terminal report: the headline counts and the registry and builder tables, plain text."""

from __future__ import annotations

from tabulate import tabulate

from ..classify import CLASSES
from .json_report import build_document


def render_table(result, evaluation=None, show_suppressed: bool = False) -> str:
    doc = build_document(result, evaluation)
    s = doc["summary"]
    parts = [
        f"reply-audit {doc['tool']['version']} · profile {doc['profile']['name']} · {doc['root']}",
        f"{s['files']['scanned']} files scanned, {s['files']['unparseable']} unparseable",
        "",
        tabulate([[f"{r['path']}:{r['line']}", r["name"], r["style"], r["role"], r["definitions"], r["distinct"]]
                  for r in doc["registries"]] or [["—"] * 6],
                 headers=["registry", "name", "style", "role", "defs", "distinct"], tablefmt="simple"),
        "",
        tabulate([[c, s["legacy_classes"][c]] for c in CLASSES], headers=["legacy class", "codes"],
                 tablefmt="simple"),
        "",
        tabulate([[f"{b['path']}:{b['line']}", b["qualname"], ",".join(b["methods"]),
                   ",".join(b["forbidden_methods"]) or "-", ",".join(b["missing_methods"]) or "-", b["calls"]]
                  for b in doc["builders"]] or [["—"] * 6],
                 headers=["builder", "name", "methods", "forbidden", "missing", "calls"], tablefmt="simple"),
        "",
        tabulate([["builder calls", s["calls"]["total"]], ["handlers", s["handlers"]["total"]],
                  ["handler returns", ", ".join(f"{k}={v}" for k, v in s["handlers"]["returns_by_kind"].items())
                   or "-"],
                  ["runtime registry imports", s["registry_imports"]["runtime"]],
                  ["message branches", s["message_branches"]]], tablefmt="plain"),
    ]
    if doc["results"]:
        res = doc["results"]
        levels = res["actions_by_level"]
        parts += ["", tabulate([[f"{a['path']}:{a['line']}", ", ".join(a["names"]) or a["function"],
                                 a["level"] or "-", len(a["returns"]),
                                 sum(1 for r in a["returns"] if r["verdict"] in ("envelope", "helper"))]
                                for a in res["actions"]] or [["—"] * 5],
                               headers=["action", "names", "level", "returns", "enveloped"], tablefmt="simple"),
                  "", "returns: " + ", ".join(f"{k}={v}" for k, v in res["returns_by_verdict"].items()),
                  "levels: " + ", ".join(f"{k}={v}" for k, v in levels.items()),
                  f"registrations: {len(doc['registrations'])}, unresolved "
                  f"{sum(1 for r in doc['registrations'] if not r['handler'])}"]
    findings = evaluation.findings if evaluation else []
    parts += ["", f"{len(findings)} findings" + (":" if findings else "")]
    parts += [f"  {f.path}:{f.line}:{f.col + 1}: {f.rule} [{f.severity}] {'[*] ' if f.fixable else ''}{f.message}"
              for f in findings]
    fixable = sum(1 for f in findings if f.fixable)
    if fixable:
        parts += ["", f"[*] {fixable} fixable with `reply-audit migrate` (see the diff first; --apply writes)"]
    if show_suppressed and evaluation and evaluation.suppressed:
        parts += ["", "suppressed:"] + [f"  {f.path}:{f.line}: {f.rule} {f.message}" for f in evaluation.suppressed]
    if doc["files"]["unparseable"]:
        parts += ["", "unparseable:"] + [f"  {u['path']}:{u['line']}: {u['message']}"
                                         for u in doc["files"]["unparseable"]]
    partly = [(f["path"], s) for f in doc["files"]["fallback"] for s in f["skipped"]]
    if partly:
        parts += ["", "read only in part (this Python rejects these lines; the rest was checked):"] + \
            [f"  {path}:{s['line']}: {s['message']}" for path, s in partly]
    return "\n".join(parts) + "\n"
