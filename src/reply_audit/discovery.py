"""Finding the Python files of a scan, and reading them once.

Walks the tree below a root, in sorted order, skipping the profile's excluded
directory names; it never follows a symbolic link to a directory (no loops,
nothing outside the tree) and takes a linked file only when its target lies
inside the root. Unreadable directories are reported, not fatal. In a git work tree,
what its `.gitignore` files ignore is left out too (`gitignored`).
`read_sources` reads each file found once: the facts cache, the extraction
and the report memo all work from those bytes.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import field
from functools import lru_cache
from pathlib import Path

from .errors import UserError
from .record_class import record


@record
class Discovered:
    root: Path
    files: list[str] = field(default_factory=list)        # relative POSIX paths
    problems: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)
    links: set[str] = field(default_factory=set)          # files that are symbolic links (to files in the tree)


def _matches(rel: str, patterns: list[str]) -> bool:
    """REL, or its last part, matches one of the glob PATTERNS (as fnmatch.fnmatchcase)."""
    if not patterns:
        return False
    either = _one_pattern(tuple(patterns))
    return either.match(rel) is not None or either.match(rel.rsplit("/", 1)[-1]) is not None


@lru_cache(maxsize=64)
def _one_pattern(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """The glob PATTERNS as one regular expression: a scan matches every path against them."""
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def select(paths: list[str], include: list[str], exclude: list[str]) -> list[str]:
    """Of relative PATHS (a git revision's file list), those a scan of the tree would read."""
    out = []
    for rel in paths:
        parts = rel.split("/")
        dirs = ["/".join(parts[:i]) for i in range(1, len(parts))]
        if any(d.rsplit("/", 1)[-1] in exclude or _matches(d, exclude) for d in dirs):
            continue
        if _matches(rel, include) and not _matches(rel, exclude):
            out.append(rel)
    return sorted(out)


def excluded(path: Path, exclude: list[str]) -> bool:
    """Whether a file named on the command line lies under EXCLUDE (a folder name or pattern on its way from the
    project's root, or from the filesystem's when it is in no project; or its own name or path), or a .gitignore
    covers it: what --force-exclude skips."""
    from .profile import project_anchor

    full = path.resolve()
    root = project_anchor(full.parent)
    rel = full.relative_to(root).as_posix() if root is not None else full.as_posix().lstrip("/")
    parts = rel.split("/")
    dirs = ["/".join(parts[:i]) for i in range(1, len(parts))]
    if any(d.rsplit("/", 1)[-1] in exclude or _matches(d, exclude) for d in dirs) or _matches(rel, exclude):
        return True
    return _git_ignores(full)


def _git_ignores(path: Path) -> bool:
    """Whether a .gitignore (or .git/info/exclude) covers PATH, itself or a folder on its way, as git says."""
    from .gitrev import run

    done = run(path.parent, "check-ignore", "-q", "--", path.name, timeout=30)
    return done is not None and done.returncode == 0


def is_test_path(rel: str, patterns: list[str]) -> bool:
    """Does REL match one of the glob PATTERNS (as `fnmatch.fnmatchcase`)? One compiled pattern for all."""
    return bool(patterns) and _one_pattern(tuple(patterns)).match(rel) is not None


def repo_prefix(root: Path) -> str:
    """ROOT's place in its git repository (`src/`, '' at the top), so that reported paths exist from the
    repository's root, where CI and `git apply` read them; outside a repository, ROOT's place below the working
    directory; '' when it lies elsewhere."""
    import os

    from .gitrev import run

    folder = root if root.is_dir() else root.parent
    done = run(folder, "rev-parse", "--show-prefix", timeout=30)
    if done is not None and done.returncode == 0:
        return done.stdout.decode("utf-8", errors="surrogateescape").strip()
    try:
        rel = Path(os.path.relpath(folder.resolve(), Path.cwd().resolve())).as_posix()
    except ValueError:   # another drive
        return ""
    return "" if rel == "." or rel.startswith("..") else rel + "/"


def gitignored(root: Path) -> frozenset[str]:
    """What git ignores under ROOT, as paths relative to it (folders with a trailing `/`): untracked files and
    folders a `.gitignore` names. Empty when ROOT is not in a git work tree or git is missing."""
    from .gitrev import run

    folder = root if root.is_dir() else root.parent
    done = run(folder, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
    if done is None or done.returncode != 0:
        return frozenset()
    return frozenset(p.decode("utf-8", errors="surrogateescape") for p in done.stdout.split(b"\0") if p)


def discover(root: Path, include: list[str], exclude: list[str],
             ignored: frozenset[str] = frozenset()) -> Discovered:
    if not root.exists():
        raise UserError(f"path {str(root)!r} does not exist")
    found = Discovered(root=root)
    if root.is_file():
        found.root = root.parent
        found.files.append(root.name)
        return found
    real_root = root.resolve()
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        directory = os.path.join(root, rel_dir) if rel_dir else root
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            found.problems.append((rel_dir or ".", f"cannot list directory: {exc.strerror or exc}"))
            continue
        subdirs = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                found.problems.append((rel, f"cannot stat: {exc.strerror or exc}"))
                continue
            if is_dir:
                if entry.name not in exclude and not _matches(rel, exclude) and rel + "/" not in ignored:
                    subdirs.append(rel)
                continue
            if not _matches(rel, include) or _matches(rel, exclude) or rel in ignored:
                continue
            if is_link:
                try:
                    target = Path(entry.path).resolve(strict=True)
                except (OSError, RuntimeError):
                    found.problems.append((rel, "broken or looping symbolic link"))
                    continue
                if target.is_dir() or not target.is_relative_to(real_root):
                    continue
                found.links.add(rel)
            try:
                regular = entry.is_file(follow_symlinks=True)
            except OSError as exc:
                found.problems.append((rel, f"cannot stat: {exc.strerror or exc}"))
                continue
            if not regular:   # a FIFO, socket or device named like a source file: reading it could block
                found.problems.append((rel, "not a regular file (a pipe, socket or device): not read"))
                continue
            found.files.append(rel)
        stack.extend(reversed(subdirs))
    found.files.sort()
    return found


Source = tuple[str, "bytes | OSError"]   # a file's relative path and its bytes, or why they could not be read


def read_sources(root: Path, rels: list[str]) -> list[Source]:
    """The bytes of each of RELS below ROOT, in their order; a file that cannot be read carries the error."""
    out: list[Source] = []
    base = os.fspath(root)
    for rel in rels:
        try:
            with open(os.path.join(base, rel), "rb") as file:   # (a `Path` per file costs a third of the read)
                out.append((rel, file.read()))
        except OSError as exc:
            out.append((rel, exc))
    return out


@record
class Gathered:
    """What a scan reads of a tree: the files found and their bytes (SOURCES, in the order of FOUND.files)."""

    found: Discovered
    sources: list[Source]


def gather(root: Path, include: list[str], exclude: list[str]) -> Gathered:
    """The Python files below ROOT (or ROOT itself) that INCLUDE takes and neither EXCLUDE nor git ignores,
    read."""
    found = discover(root, include, exclude, gitignored(root) if root.is_dir() else frozenset())
    return Gathered(found, read_sources(found.root, found.files))


PRECOMMIT_FILES = (".pre-commit-config.yaml", ".pre-commit-config.yml")


def precommit_path(root: Path) -> Path | None:
    """The pre-commit configuration a scan of ROOT reads: ROOT's own, else (a subfolder scan) the repository's,
    found up to its root; None when there is none."""
    for name in PRECOMMIT_FILES:
        path = root / name
        if path.is_file():
            return path
        folder = root.resolve()
        for parent in folder.parents if not (folder / ".git").exists() else ():
            if (parent / name).is_file():
                return parent / name
            if (parent / ".git").exists():
                break
    return None

