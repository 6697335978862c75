"""Which files `reply-audit init` may take as evidence, and which trees it proposes to leave out of every scan.

Evidence comes from the code that runs: never from tests, examples, backup copies, vendored code, virtual
environments or a second copy of a tree. Backups, vendored trees and virtual environments are also proposed as
`[scan] exclude` entries, each with the reason; an exclude names the directory's own path (or a glob that matches
no directory init read evidence from), so it can never reach code of the project's own. Two identical trees
neither of which is named like a backup are only named in a comment: which one is stale is for a human to say.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from dataclasses import field
from pathlib import Path

from .record_class import record

# a directory named like a copy kept aside: the whole name a backup word (`old`, `backups`, `archive`), or a name
# that ends in one (`server.bak`, `app_old`, `tools-backup`), or a backup word beside a date or a number
# (`ArchE_backup_20250905_084638`, `backup2`); not a package named with such a word (`archive_service`, `old_api`)
BACKUP_WORDS = r"(?:backups?|bak|bkp|old|orig|copy|archived?|deprecated|attic|obsolete)"
BACKUP_NAME = re.compile(rf"^\.?{BACKUP_WORDS}$|[._\-]{BACKUP_WORDS}$", re.IGNORECASE)
BACKUP_WITH_NUMBER = re.compile(rf"(?:^|[._\-]){BACKUP_WORDS}(?:[._\-]?\d|$)", re.IGNORECASE)
VENDOR_NAME = re.compile(r"^_?(?:vendor|vendored|third_party|thirdparty)$", re.IGNORECASE)
EXAMPLE_NAME = re.compile(r"^(?:examples?|samples?|demos?|docs?|tutorials?)$", re.IGNORECASE)
# the smallest copy worth naming: a directory with fewer Python files may share them by chance (`__init__.py`)
SMALLEST_COPY = 3


@record
class Scope:
    """Of a tree's Python files: those init reads, and the directories it leaves out, with the reason."""

    evidence: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)     # directory or file -> why (not proposed)
    excludes: dict[str, str] = field(default_factory=dict)     # directory path or glob -> why (proposed)
    copies: dict[str, str] = field(default_factory=dict)       # a tree -> the identical tree (named, not excluded)


def _dirs(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _name(directory: str) -> str:
    return directory.rsplit("/", 1)[-1]


def _kind(directory: str, root: Path) -> str:
    """Why DIRECTORY holds no code of the project's own, or ''."""
    name = _name(directory)
    if (root / directory / "pyvenv.cfg").is_file() or name == "site-packages":
        return "a virtual environment"
    if VENDOR_NAME.match(name):
        return "vendored code"
    if BACKUP_NAME.search(name) or BACKUP_WITH_NUMBER.search(name):
        return "a backup or retired copy (by its name)"
    return ""


def _glob(directory: str, siblings: list[str], kept: set[str]) -> str:
    """The exclude entry for DIRECTORY: a glob on its name when several backups share it (`ArchE_backup_*`) and it
    matches no directory in KEPT (those evidence came from), else the directory's own path."""
    name = _name(directory)
    match = BACKUP_WITH_NUMBER.search(name)
    if match is None:
        return directory
    glob = name[:match.start()] + re.sub(r"\d.*$", "*", name[match.start():])
    if glob == name or not glob.rstrip("*") or sum(fnmatch.fnmatchcase(_name(s), glob) for s in siblings) < 2 \
            or any(fnmatch.fnmatchcase(_name(d), glob) for d in kept):
        return directory
    return glob


def _hashes(files: list[str], root: Path) -> dict[str, str]:
    out = {}
    for rel in files:
        try:
            out[rel] = hashlib.sha1((root / rel).read_bytes()).hexdigest()
        except OSError:
            continue
    return out


def _copies(files: list[str], root: Path) -> dict[str, str]:
    """Trees whose every Python file, SMALLEST_COPY or more, is byte-identical to the file at the same place in
    one other tree: the copy (the longer path) -> the tree it copies."""
    digest = _hashes(files, root)
    folders = sorted({d for rel in digest for d in _dirs(rel)}, key=lambda d: (len(d), d))
    content: dict[str, dict[str, str]] = {}   # folder -> {path below it: hash}
    for rel, h in digest.items():
        for d in _dirs(rel):
            content.setdefault(d, {})[rel[len(d) + 1:]] = h
    by_content: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for d in folders:
        if len(content.get(d, {})) >= SMALLEST_COPY:
            by_content.setdefault(tuple(sorted(content[d].items())), []).append(d)
    out: dict[str, str] = {}
    for same in by_content.values():
        original = same[0]
        for copy in same[1:]:
            if not any(copy.startswith(c + "/") for c in out):   # the outermost copy only
                out[copy] = original
    return out


def scope(files: list[str], root: Path, test_paths: list[str]) -> Scope:
    """FILES (relative paths under ROOT) split into evidence and what is left out."""
    found = Scope()
    kinds = {d: _kind(d, root) for rel in files for d in _dirs(rel)}
    aside: dict[str, str] = {}    # outermost directory set aside -> why
    taken: set[str] = set()
    for rel in files:
        outer = next((d for d in _dirs(rel) if kinds[d]), None)
        if outer is not None:
            aside.setdefault(outer, kinds[outer])
            taken.add(rel)
        elif any(fnmatch.fnmatchcase(rel, p) for p in test_paths):
            found.left_out.setdefault(_first_test_dir(rel), "tests")
            taken.add(rel)
        elif any(EXAMPLE_NAME.match(_name(d)) for d in _dirs(rel)):
            outer = next(d for d in _dirs(rel) if EXAMPLE_NAME.match(_name(d)))
            found.left_out.setdefault(outer + "/", "examples or documentation")
            taken.add(rel)
    if aside and not [rel for rel in files if rel not in taken]:
        # everything is in folders named like backups (`old/` holding the project): those names mean nothing here
        taken -= {rel for rel in files if any(rel.startswith(d + "/") for d in aside)}
        aside = {}
    kept = {d for rel in files if rel not in taken for d in _dirs(rel)}
    for directory, why in sorted(aside.items()):
        parent = directory.rpartition("/")[0]
        siblings = [d for d in aside if d.rpartition("/")[0] == parent]
        found.excludes.setdefault(_glob(directory, siblings, kept), f"{why}, e.g. {directory}/")
    for copy, original in sorted(_copies([rel for rel in files if rel not in taken], root).items()):
        found.copies[copy] = original
        taken |= {rel for rel in files if rel.startswith(copy + "/")}
    found.evidence = [rel for rel in files if rel not in taken]
    return found


def _first_test_dir(rel: str) -> str:
    for d in _dirs(rel):
        if _name(d) in ("tests", "test"):
            return d + "/"
    return rel
