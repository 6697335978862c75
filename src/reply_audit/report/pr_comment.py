"""The pull-request scorecard: a compact GitHub comment, its JSON form, and annotations for new findings.

The comment leads with a verdict and a small table of counts by severity at
base and head, then the findings the PR introduces and resolves (linked to
the lines when a repository URL is known), the scorecard rows that changed,
and the full tables folded in `<details>`. It starts with a hidden marker so
a CI job can find and update its own comment. It always fits GitHub's limit
(65,536 characters): the longest lists are cut first, each saying how many
it left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from .. import __version__
from ..delta import Delta, Side, counts
from ..engine import failing
from ..errors import SEVERITIES
from ..rules.base import Finding
from .json_text import dumps

if TYPE_CHECKING:  # pragma: no cover
    from ..compliance import Requirement

MARKER = "<!-- reply-audit-scorecard -->"
GITHUB_LIMIT = 65536
ICON = {"critical": "🔴", "high": "🟠", "medium": "🟡", "low": "⚪"}
SCHEMA = "reply-audit-scorecard/1"


def verdict(delta: Delta, fail_on: str) -> tuple[str, str]:
    """(short word, headline) of what the PR does to reply compliance."""
    new, gone = len(delta.introduced), len(delta.resolved)
    blocking = failing(delta.introduced, fail_on)
    if blocking:
        fewer = len(delta.head.findings) < len(delta.base.findings)   # say so: the headline agrees with the totals
        return "worse", (f"❌ Reply compliance: {new} new finding{'s' * (new != 1)} ({len(blocking)} at or above "
                         f"{fail_on}), although {gone} resolved bring the total down" if fewer else
                         f"❌ Reply compliance gets worse: {new} new finding{'s' * (new != 1)} "
                         f"({len(blocking)} at or above {fail_on})" + (f", {gone} resolved" if gone else ""))
    if new and gone:
        return "mixed", f"⚠️ Reply compliance: {gone} resolved, {new} new (below {fail_on})"
    if new:
        return "worse", f"⚠️ Reply compliance: {new} new finding{'s' * (new != 1)} (below {fail_on})"
    if gone:
        return "better", f"✅ Reply compliance gets better: {gone} finding{'s' * (gone != 1)} resolved, none new"
    return "same", "➖ Reply compliance unchanged: no finding introduced or resolved"


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~>-])")


def _cell(text: str) -> str:
    """TEXT from the scanned code, shown as itself: HTML and Markdown in it are escaped (a reply code such as
    `<img src=x onerror=…>` or `__init__` must neither render nor run), on one line."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


class _Links:
    def __init__(self, delta: Delta, repo_url: str | None) -> None:
        self.url = repo_url.rstrip("/") if repo_url else None
        self.prefix = delta.prefix

    def at(self, f: Finding, sha: str) -> str:
        place = (f"{f.path}:{f.line}" if f.line else f.path).replace("`", "'")   # it is shown as code
        if not self.url:
            return f"`{place}`"
        anchor = f"#L{f.line}" if f.line else ""
        target = quote(f"{self.prefix}{f.path}", safe="/")   # a space, `<` or `)` in a path never ends the link
        return f"[`{place}`]({self.url}/blob/{quote(sha, safe='')}/{target}{anchor})"


def _finding_line(f: Finding, link: str) -> str:
    return f"- {ICON[f.severity]} **{f.rule}** {f.name} — {link}: {_cell(f.message)}"


def _list(findings: list[Finding], shown: int, line: Callable[[Finding], str]) -> list[str]:
    out = [line(f) for f in findings[:shown]]
    if len(findings) > shown:
        out.append(f"- … and {len(findings) - shown} more not shown (the comment must fit GitHub's limit; "
                   "`--format json` has them all)")
    return out


def render_comment(delta: Delta, fail_on: str = "high", repo_url: str | None = None,
                   limit: int = GITHUB_LIMIT) -> str:
    """The comment, cut to LIMIT characters by shortening the longest lists first."""
    sizes = {"introduced": len(delta.introduced), "resolved": len(delta.resolved),
             "head": len(delta.head.findings)}
    shown = dict(sizes)
    while True:
        text = _render(delta, fail_on, _Links(delta, repo_url), shown)
        if len(text) <= limit:
            return text
        longest = max(shown, key=lambda k: shown[k])
        if shown[longest] == 0:  # nothing left to cut: the fixed parts alone are too long
            return text[:limit - 200] + f"\n\n… cut to fit GitHub's limit ({limit} characters).\n"
        shown[longest] //= 2


def _render(delta: Delta, fail_on: str, links: _Links, shown: dict[str, int]) -> str:
    base, head = delta.base, delta.head
    _, headline = verdict(delta, fail_on)
    b_counts, h_counts = counts(base.findings), counts(head.findings)
    out = [MARKER, f"### {headline}", "",
           f"`{base.revision.sha[:7]}` → `{head.revision.sha[:7]}` · {len(delta.introduced)} introduced · "
           f"{len(delta.resolved)} resolved · {delta.unchanged + delta.moved} unchanged"
           + (f" · {head.evaluation.baselined} in the baseline" if head.evaluation.baselined else ""), "",
           "| severity | base | head | Δ |", "| --- | ---: | ---: | ---: |"]
    for severity in SEVERITIES:
        b, h = b_counts.get(severity, 0), h_counts.get(severity, 0)
        out.append(f"| {ICON[severity]} {severity} | {b} | {h} | {h - b:+d} |" if h != b else
                   f"| {ICON[severity]} {severity} | {b} | {h} | 0 |")
    total_b, total_h = len(base.findings), len(head.findings)
    out.append(f"| **total** | **{total_b}** | **{total_h}** | **{total_h - total_b:+d}** |" if total_h != total_b
               else f"| **total** | **{total_b}** | **{total_h}** | **0** |")
    out.append("")
    if delta.introduced:
        out += [f"#### Introduced ({len(delta.introduced)})", ""]
        out += _list(delta.introduced, shown["introduced"],
                     lambda f: _finding_line(f, links.at(f, head.revision.sha)))
        out.append("")
    if delta.resolved:
        out += [f"#### Resolved ({len(delta.resolved)})", ""]
        out += _list(delta.resolved, shown["resolved"],
                     lambda f: _finding_line(f, links.at(f, base.revision.sha)))
        out.append("")
    changed = delta.changed_requirements
    if changed:
        out += ["#### Scorecard rows that changed", "", "| requirement | base | head |", "| --- | --- | --- |"]
        for before, after in changed:
            out.append(f"| {_cell(_name(before, after))} | {_status(before)} | {_status(after)} |")
        out.append("")
    fixable = sum(1 for f in head.findings if f.fixable)
    if fixable:
        out += [f"{fixable} finding{'s' * (fixable != 1)} at head can be fixed by `reply-audit migrate`.", ""]
    out += ["<details><summary>All findings at head "
            f"({len(head.findings)})</summary>", ""]
    if head.findings:
        out += ["| rule | severity | where | finding |", "| --- | --- | --- | --- |"]
        out += [f"| {f.rule} | {f.severity} | {links.at(f, head.revision.sha)} | {_cell(f.message)} |"
                for f in head.findings[:shown["head"]]]
        if len(head.findings) > shown["head"]:
            out.append(f"| … | | | {len(head.findings) - shown['head']} more not shown |")
    else:
        out.append("_None._")
    out += ["", "</details>", "", "<details><summary>Compliance scorecard at head</summary>", "",
            "| requirement | status | counts |", "| --- | --- | --- |"]
    out += [f"| {_cell(r.name)} | {r.status_icon} | {r.counts} |" for r in head.requirements]
    out += ["", "</details>", "",
            f"<sub>reply-audit {__version__} · profile {head.result.profile.name} · "
            f"`{base.revision.ref}` ({base.revision.sha[:7]}) → `{head.revision.ref}` ({head.revision.sha[:7]})</sub>",
            ""]
    return "\n".join(out)


def _name(base: Requirement | None, head: Requirement | None) -> str:
    """The name of a scorecard row that changed (it exists in one revision at least)."""
    return cast("Requirement", head or base).name


def _status(r: Requirement | None) -> str:
    return f"{r.status_icon} {r.counts}" if r is not None else "—"


# ---------------------------------------------------------------------------
# JSON and annotations
# ---------------------------------------------------------------------------
def build_document(delta: Delta, fail_on: str = "high") -> dict[str, Any]:
    word, headline = verdict(delta, fail_on)

    def side(s: Side) -> dict[str, Any]:
        c = counts(s.findings)
        return {"ref": s.revision.ref, "sha": s.revision.sha, "findings": len(s.findings),
                "by_severity": {sev: c.get(sev, 0) for sev in SEVERITIES},
                "fixable": sum(1 for f in s.findings if f.fixable)}

    return {
        "schema": SCHEMA,
        "tool": {"name": "reply-audit", "version": __version__},
        "path": delta.prefix or ".",
        "verdict": word,
        "headline": headline,
        "fail_on": fail_on,
        "base": side(delta.base),
        "head": side(delta.head),
        "introduced": [f.to_dict() for f in delta.introduced],
        "resolved": [f.to_dict() for f in delta.resolved],
        "unchanged": delta.unchanged,
        "moved": delta.moved,
        "scorecard_changes": [
            {"requirement": _name(b, h),
             "base": None if b is None else b.to_dict(),
             "head": None if h is None else h.to_dict()}
            for b, h in delta.changed_requirements],
    }


def render_json(delta: Delta, fail_on: str = "high") -> str:
    return dumps(build_document(delta, fail_on)) + "\n"


def render_annotations(delta: Delta) -> str:
    from .annotations import github_annotations

    return github_annotations(delta.introduced, delta.prefix)
