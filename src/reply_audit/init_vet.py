"""Vetting `reply-audit init`'s proposal before anyone sees it: it must load, and it must not add findings.

Two checks, each of which turns a key line into a comment saying why rather than failing:

* the section must load as a profile. A key the profile refuses (a reply function named like a builder
  method, say) is commented out with the profile's own one-line reason, so init never exits 2 on a tree;
* a scan of the tree with the section must not find more than the built-in profile on the same tree. The
  proposed scope (backups and copies left out) may only lower the count; every other key may add no finding
  at all to what the scan with that scope gives. A key that adds some is commented out with the count of what
  it adds, by rule, for the user to weigh.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import field
from pathlib import Path

from .errors import UserError
from .profile import DEFAULT_PROFILE, load_profile
from .record_class import record

KEY_LINE = re.compile(r"^(?P<key>[A-Za-z0-9_\"-][^=]*?)\s*=\s*\S")


@record
class Vetted:
    text: str
    left_out: list[str] = field(default_factory=list)   # one line per key commented out, with the reason
    baseline: int = 0                                     # findings with the built-in profile
    findings: int = 0                                     # findings with the proposal
    scope_added: int = 0                                  # findings the scope alone adds (in the code that stays)
    scope_removed: int = 0                                # findings the scope alone removes
    default: int | None = None                            # findings with the default profile, when not the base


def _key_lines(lines: list[str]) -> list[int]:
    """Indexes of the lines that set a key, below the top table's `profile = …` (the base is not negotiable)."""
    out = []
    table = ""
    for i, line in enumerate(lines):
        if line.startswith("["):
            table = line.strip()
        elif KEY_LINE.match(line) and table != "[tool.reply-audit]":
            out.append(i)
    return out


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _comment(lines: list[str], i: int, why: str) -> list[str]:
    return [*lines[:i], f"# left out, {_one_line(why)}:", f"# {lines[i]}", *lines[i + 1:]]


def _loads(text: str) -> str:
    """'' when TEXT loads as a profile, else the reason."""
    try:
        load_profile(None, Path("."), pyproject_text=text)
    except UserError as exc:
        return exc.message
    return ""


def _loadable(lines: list[str], left_out: list[str]) -> list[str]:
    """LINES with each key line the profile refuses commented out (the first whose removal makes it load)."""
    for _ in range(len(lines)):
        problem = _loads("\n".join(lines) + "\n")
        if not problem:
            return lines
        culprit = next((i for i in _key_lines(lines)
                        if not _loads("\n".join(lines[:i] + lines[i + 1:]) + "\n")), None)
        if culprit is None:   # no single key: keep the base alone, and say so (init never exits 2 on a tree)
            end = next((i for i, line in enumerate(lines) if line.startswith("profile =")), 2)
            top = lines[:end + 1]
            left_out.append(f"the whole section: {problem}")
            return [*top, f"# init could not write a section that loads ({_one_line(problem)}); please report this"]
        left_out.append(f"{lines[culprit].split('#')[0].strip()}: {problem}")
        lines = _comment(lines, culprit, f"the profile refuses it ({problem})")
    return lines


def _findings(root: Path, text: str | None, base: str) -> Counter[tuple[str, str, int]]:
    """(rule, path, line) of every finding of a scan of ROOT with the section TEXT (None: the built-in BASE)."""
    from .engine import evaluate
    from .scan import scan

    profile = load_profile(base) if text is None else load_profile(None, root, pyproject_text=text)
    return Counter((f.rule, f.path, f.line) for f in evaluate(scan(root, profile, jobs=None)).findings)


def _tables(lines: list[str]) -> dict[str, list[int]]:
    """Table header -> indexes of its lines (the header's own included)."""
    out: dict[str, list[int]] = {}
    table = ""
    for i, line in enumerate(lines):
        if line.startswith("["):
            table = line.strip()
        out.setdefault(table, []).append(i)
    return out


def _added(found: Counter[tuple[str, str, int]], reference: Counter[tuple[str, str, int]]) \
        -> Counter[tuple[str, str, int]]:
    return found - reference


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def vet(text: str, root: Path, base: str, check_findings: bool = True) -> Vetted:
    """TEXT made safe to write for ROOT, whose built-in profile is BASE.

    The scope ([scan] exclude) is judged first, by count: leaving out backups and copies removes their findings,
    and may let the scan resolve what the copies made ambiguous in the code that stays (new findings there). It
    stays when the total does not grow. Every other key is judged against the scan with that scope: it may add no
    finding at all."""
    left_out: list[str] = []
    lines = _loadable(text.rstrip("\n").split("\n"), left_out)
    if not check_findings:
        return Vetted(_text(lines), left_out)
    baseline = _findings(root, None, base)
    reference = baseline
    scope_added = scope_removed = 0
    scope_rows = [i for i in _tables(lines).get("[tool.reply-audit.scan]", []) if KEY_LINE.match(lines[i])]
    if scope_rows:
        top = _tables(lines).get("[tool.reply-audit]", [])
        scoped = _findings(root, _text([lines[i] for i in top] + ["[tool.reply-audit.scan]"]
                                       + [lines[i] for i in scope_rows]), base)
        if sum(scoped.values()) > sum(baseline.values()):
            for i in scope_rows:
                left_out.append(f"{lines[i].split('#')[0].strip()[:60]}: more findings than without it")
                lines = _comment(lines, i, f"the scan finds more with it ({sum(scoped.values())}) than without "
                                           f"({sum(baseline.values())})")
        else:
            reference = scoped
            scope_added, scope_removed = sum((scoped - baseline).values()), sum((baseline - scoped).values())
    found = _findings(root, _text(lines), base)
    while _added(found, reference):
        added = sum(_added(found, reference).values())
        gains = []
        for i in _key_lines(lines):
            if i in scope_rows:
                continue
            trial = lines[:i] + lines[i + 1:]
            if _loads(_text(trial)):
                continue
            without = _findings(root, _text(trial), base)
            gain = added - sum(_added(without, reference).values())
            if gain > 0:
                gains.append((gain, i, found - without))
        if not gains:
            break   # no single key adds them: they come from the keys together (never seen so far)
        for gain, i, extra in sorted(gains, key=lambda g: -g[1]):   # from the bottom: indexes stay valid
            rules = Counter(rule for rule, _, _ in extra.elements())
            what = ", ".join(f"{rule} ×{n}" for rule, n in sorted(rules.items()))
            left_out.append(f"{lines[i].split('#')[0].strip()[:60]}: adds {gain} finding(s) ({what})")
            lines = _comment(lines, i, f"it adds {gain} finding(s) the built-in profile does not give ({what}); "
                                       f"uncomment it to see them")
        found = _findings(root, _text(lines), base)
    default = None if base == DEFAULT_PROFILE else sum(_findings(root, None, DEFAULT_PROFILE).values())
    return Vetted(_text(lines), left_out, sum(baseline.values()), sum(found.values()), scope_added, scope_removed,
                  default)
