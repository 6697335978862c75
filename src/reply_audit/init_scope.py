"""Which files `reply-audit init` may take as evidence, and which trees it proposes to leave out of every scan.

Evidence comes from the code that runs: never from tests, examples, backup copies, vendored code, virtual
environments or a second copy of a tree. The last four are also proposed as `[scan] exclude` entries, each with
the reason it was found (a scan of them reports the same code twice, or code nobody runs).
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

# a directory named like a copy kept aside: `ArchE_backup_2024_05`, `old`, `server.bak`, `archive`, `deprecated`
BACKUP_NAME = re.compile(r"(?:^|[._\-\s])(?:backups?|bak|bkp|old|orig|copy|archived?|deprecated|attic|obsolete)"
                         r"(?:$|[._\-\s\d])", re.IGNORECASE)
DATED_NAME = re.compile(r"(?:19|20)\d\d[-_]?[01]\d[-_]?[0-3]\d")   # `tools_20240501`, `v2-2025-01-03`
VENDOR_NAME = re.compile(r"^_?(?:vendor|vendored|third_party|thirdparty|external|extern)$", re.IGNORECASE)
EXAMPLE_NAME = re.compile(r"^(?:examples?|samples?|demos?|docs?|tutorials?)$", re.IGNORECASE)
# the smallest copy worth naming: a directory with fewer Python files may share them by chance (`__init__.py`)
SMALLEST_COPY = 3


@dataclass
class Scope:
    """Of a tree's Python files: those init reads, and the directories it leaves out, with the reason."""

    evidence: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)     # directory or file -> why (not proposed)
    excludes: dict[str, str] = field(default_factory=dict)     # directory name or glob -> why (proposed)


def _dirs(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _kind(directory: str, root: Path) -> str:
    """Why DIRECTORY holds no evidence, or ''."""
    name = directory.rsplit("/", 1)[-1]
    if (root / directory / "pyvenv.cfg").is_file() or name == "site-packages":
        return "a virtual environment"
    if VENDOR_NAME.match(name):
        return "vendored code"
    if BACKUP_NAME.search(name) or DATED_NAME.search(name):
        return "a backup or retired copy (by its name)"
    return ""


def _copies(files: list[str], root: Path, taken: set[str]) -> dict[str, str]:
    """Directories every one of whose (SMALLEST_COPY or more) Python files is byte-identical to a file of one other
    directory: the copy -> the directory it copies. Of two copies, the one with the longer path is the copy."""
    digest: dict[str, str] = {}
    for rel in files:
        if rel in taken:
            continue
        try:
            digest[rel] = hashlib.sha1((root / rel).read_bytes()).hexdigest()
        except OSError:
            continue
    by_dir: dict[str, dict[str, str]] = {}
    for rel, h in digest.items():
        folder, _, name = rel.rpartition("/")
        by_dir.setdefault(folder, {})[name] = h
    owners: dict[str, list[str]] = {}
    for folder, entries in by_dir.items():
        for name, h in entries.items():
            owners.setdefault(f"{name}:{h}", []).append(folder)
    out: dict[str, str] = {}
    for folder, entries in sorted(by_dir.items(), key=lambda item: (-len(item[0]), item[0])):
        if not folder or len(entries) < SMALLEST_COPY or folder in out:
            continue
        others: set[str] | None = None
        for name, h in entries.items():
            found = {f for f in owners[f"{name}:{h}"] if f != folder and f not in out}
            others = found if others is None else others & found
            if not others:
                break
        if others:
            original = min(others, key=lambda f: (len(f), f))
            if (len(original), original) < (len(folder), folder):
                out[folder] = original
    return out


def scope(files: list[str], root: Path, test_paths: list[str]) -> Scope:
    """FILES (relative paths under ROOT) split into evidence and what is left out."""
    found = Scope()
    kinds: dict[str, str] = {}
    for rel in files:
        for d in _dirs(rel):
            if d not in kinds:
                kinds[d] = _kind(d, root)
    taken: set[str] = set()
    for rel in files:
        outer = next((d for d in _dirs(rel) if kinds[d]), None)
        if outer is not None:
            name = outer.rsplit("/", 1)[-1]
            glob = re.sub(r"\d.*$", "*", name) if DATED_NAME.search(name) or re.search(r"\d", name) \
                and BACKUP_NAME.search(name) else name   # `app_backup_2024_05_01` -> `app_backup_*`
            found.excludes.setdefault(glob, f"{kinds[outer]}, e.g. {outer}/")
            taken.add(rel)
        elif any(fnmatch.fnmatchcase(rel, p) for p in test_paths):
            found.left_out.setdefault(_first_test_dir(rel, test_paths), "tests")
            taken.add(rel)
        elif any(EXAMPLE_NAME.match(d.rsplit("/", 1)[-1]) for d in _dirs(rel)):
            outer = next(d for d in _dirs(rel) if EXAMPLE_NAME.match(d.rsplit("/", 1)[-1]))
            found.left_out.setdefault(outer + "/", "examples or documentation")
            taken.add(rel)
    for copy, original in sorted(_copies(files, root, taken).items()):
        found.excludes.setdefault(copy, f"a copy: every Python file is also in {original}/")
        taken |= {rel for rel in files if rel.startswith(copy + "/")}
    found.evidence = [rel for rel in files if rel not in taken]
    return found


def _first_test_dir(rel: str, test_paths: list[str]) -> str:
    for d in _dirs(rel):
        if d.rsplit("/", 1)[-1] in ("tests", "test"):
            return d + "/"
    return rel
