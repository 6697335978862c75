"""The terminal report, the way ruff prints: the findings first, one line each, then a one-line summary and
whatever could not be read. `statistics` gives a count per rule instead of the lines; `verbose` puts the
inventory (registries, legacy classes, builders, handlers, actions) before them; `quiet` prints only the lines
(and the files not read). Colour only when asked (a terminal without NO_COLOR)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .. import __version__
from ..classify import CLASSES
from ..index import Inventory
from ..results import action_names, overview
from ..rules.base import Evaluation, Finding, RuleContext
from ..scan import ScanResult
from .json_report import ordered
from .summary import summarize

MODES = ("findings", "statistics", "verbose", "quiet")
SEVERITY_COLOUR = {"critical": "1;31", "high": "31", "medium": "33", "low": "36"}


def _paint(text: str, code: str, colour: bool) -> str:
    return f"\033[{code}m{text}\033[0m" if colour and code else text


def shown_from(root: Path) -> str:
    """The prefix that makes a path below ROOT one that exists from the working directory, as ruff prints paths:
    relative to it when ROOT lies below it ('' for the working directory itself), else absolute."""
    full = root.resolve()
    try:
        rel = full.relative_to(Path.cwd().resolve()).as_posix()
    except (ValueError, OSError):
        return full.as_posix().rstrip("/") + "/"
    return "" if rel == "." else rel + "/"


def finding_line(f: Finding, colour: bool = False, prefix: str = "") -> str:
    """`path:line:col: RULE [severity] [*] message`, the column 1-based (as editors and ruff count); PREFIX
    (`shown_from`) puts the path where the working directory finds it."""
    where = _paint(f"{prefix}{f.path}:{f.line}:{f.col + 1}:", "1", colour)
    rule = _paint(f.rule, SEVERITY_COLOUR.get(f.severity, ""), colour)
    fix = _paint("[*] ", "32", colour) if f.fixable else ""
    return f"{where} {rule} [{f.severity}] {fix}{f.message}"


def render_table(result: ScanResult, evaluation: Evaluation | None = None, show_suppressed: bool = False,
                 mode: str = "findings", colour: bool = False) -> str:
    findings = evaluation.findings if evaluation else []
    parts = _inventory(result) + [""] if mode == "verbose" else []
    prefix = shown_from(result.root)
    if mode == "statistics":
        parts += _statistics(findings)
    else:
        parts += [finding_line(f, colour, prefix) for f in findings]
    if mode != "quiet":
        if parts and parts[-1] != "":
            parts.append("")
        parts.append(_summary(result.inventory, findings, colour))
        if show_suppressed and evaluation and evaluation.suppressed:
            parts += ["", "suppressed:"] + [f"  {prefix}{f.path}:{f.line}: {f.rule} {f.message}"
                                            for f in evaluation.suppressed]
    parts += _not_read(result.inventory, mode == "quiet", prefix)
    return "\n".join(parts) + "\n" if parts else ""


def _summary(inv: Inventory, findings: list[Finding], colour: bool) -> str:
    scanned = f"{inv.files_scanned} file{'s' if inv.files_scanned != 1 else ''}"
    if inv.unparseable:
        scanned += f", {len(inv.unparseable)} of them unparseable (not checked)"
    if not findings:
        return _paint(f"No findings in {scanned}.", "32", colour)
    severities = Counter(f.severity for f in findings)
    counts = ", ".join(f"{n} {name}" for name in ("critical", "high", "medium", "low") if (n := severities[name]))
    text = f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} ({counts}) in {scanned}."
    fixable = sum(1 for f in findings if f.fixable)
    if fixable:
        text += f" [*] {fixable} fixable with `reply-audit migrate` (see the diff first; --apply writes)."
    return text


def _statistics(findings: list[Finding]) -> list[str]:
    from tabulate import tabulate  # only these two modes draw tables

    if not findings:
        return []
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    rows = sorted(by_rule.items(), key=lambda item: (-len(item[1]), item[0]))
    return str(tabulate([[len(group), rule, group[0].severity, sum(1 for f in group if f.fixable) or "", group[0].name]
                         for rule, group in rows],
                        headers=["count", "rule", "severity", "fixable", "name"], tablefmt="plain")).splitlines()


def _not_read(inv: Inventory, quiet: bool, prefix: str = "") -> list[str]:
    """Unparseable files and lines read only in part: in every mode, quiet included (never hidden)."""
    lines = []
    for u in ordered(inv.unparseable, "path", "line"):
        lines.append(f"{prefix}{u.path}:{u.line}: unparseable: {u.message}" if quiet
                     else f"  {prefix}{u.path}:{u.line}: {u.message}")
    if lines and not quiet:
        lines = ["", "unparseable (not checked):"] + lines
    partly = [(f.path, lost) for f in ordered(inv.fallback, "path") for lost in f.skipped]
    if partly and quiet:
        lines += [f"{prefix}{path}:{lost.line}: read only in part: {lost.message}" for path, lost in partly]
    elif partly:
        lines += ["", "read only in part (this Python rejects these lines; the rest was checked):"] + \
            [f"  {prefix}{path}:{lost.line}: {lost.message}" for path, lost in partly]
    return lines


def _inventory(result: ScanResult) -> list[str]:
    from tabulate import tabulate  # only these two modes draw tables

    inv: Inventory = result.inventory
    s = summarize(inv)
    parts = [
        f"reply-audit {__version__} · profile {result.profile.name} · {result.display_root}",
        f"{s['files']['scanned']} files scanned, {s['files']['unparseable']} unparseable",
        "",
        tabulate([[f"{r.path}:{r.line}", r.name, r.style, r.role, r.definitions, r.distinct]
                  for r in ordered(inv.registries, "path", "line", "name")] or [["—"] * 6],
                 headers=["registry", "name", "style", "role", "defs", "distinct"], tablefmt="simple"),
        "",
        tabulate([[c, s["legacy_classes"][c]] for c in CLASSES], headers=["legacy class", "codes"],
                 tablefmt="simple"),
        "",
        tabulate([[f"{b.path}:{b.line}", b.qualname, ",".join(b.methods),
                   ",".join(b.forbidden_methods) or "-", ",".join(b.missing_methods) or "-", b.calls]
                  for b in ordered(inv.builders, "path", "line", "qualname")] or [["—"] * 6],
                 headers=["builder", "name", "methods", "forbidden", "missing", "calls"], tablefmt="simple"),
        "",
        tabulate([["builder calls", s["calls"]["total"]], ["handlers", s["handlers"]["total"]],
                  ["handler returns", ", ".join(f"{k}={v}" for k, v in s["handlers"]["returns_by_kind"].items())
                   or "-"],
                  ["runtime registry imports", s["registry_imports"]["runtime"]],
                  ["message branches", s["message_branches"]]], tablefmt="plain"),
    ]
    res = overview(RuleContext(inv, result.profile, result.tooling))
    if res:
        parts += ["", tabulate([[f"{a.handler.path}:{a.handler.line}", ", ".join(action_names(a)) or a.handler.qualname,
                                 a.level or "-", len(a.returns),
                                 sum(1 for r in a.returns if r.verdict in ("envelope", "helper"))]
                                for a in res.actions] or [["—"] * 5],
                               headers=["action", "names", "level", "returns", "enveloped"], tablefmt="simple"),
                  "", "returns: " + ", ".join(f"{k}={v}" for k, v in res.returns_by_verdict.items()),
                  "levels: " + ", ".join(f"{k}={v}" for k, v in res.actions_by_level.items()),
                  f"registrations: {len(inv.registrations)}, unresolved "
                  f"{sum(1 for r in inv.registrations if not r.handler)}"]
    return parts
