"""The report memo: the whole report of a `scan`, kept under a digest of everything that made it.

A warm rescan of an unchanged tree parses nothing (the facts cache), yet it
still rebuilds every file's facts, indexes them and runs the rules. The memo
keeps what such a scan printed and its exit code, filed under one SHA-256 of
all its inputs (`ReportKey`):

- this package's code and data files, its dependencies' (tabulate draws
  tables, pandas the Markdown coverage, libcst reads what `ast` rejects),
  the Python version and its settings (a new rule, a fixed rule, another
  `ast`, another limit on integer literals);
- the effective profile: its name, the files it came from and its data;
- the command's options that decide what is checked and how it is shown,
  the path as given and the working directory, and where each really is
  (symbolic links resolved); for the formats that give paths from the
  repository's root, where git says the tree lies in its repository;
- the bytes of every file the scan reads: each Python file (its path and
  content, or why it could not be read), every problem discovery met, which
  files are links, the mapping files, the baseline and the pre-commit
  configuration.

Any change to any of them is another key, so an entry can be missed but
never outlive what it describes. Entries are JSON (never pickle), written
atomically, checked for their schema and key when read (anything else is
ignored), and only the `KEEP` last used are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path

from . import __version__
from .cache import interpreter
from .discovery import Gathered
from .record_class import record
from .safe_write import WriteRefused, replace

SCHEMA = "reply-audit-report/1"
KEEP = 16   # reports kept per cache (each option set, format and tree state is one)
DEPENDENCIES = ("libcst", "pandas", "tabulate", "tomli_w", "rich")   # pyproject's, by module (a test checks)
STALE_TEMPORARY = 3600   # seconds after which a temporary file of an interrupted write is removed


@record(frozen=True)
class Remembered:
    """A report as a scan printed it, and the exit code it ended with."""

    text: str
    exit_code: int


@cache
def code_digest() -> str:
    """SHA-256 of the Python version and settings, and of the name, size and modification time of every file
    of this package that can change a report (its modules and built-in profiles) and of each dependency's
    top module: what Python itself checks before it trusts a module's cached bytecode."""
    from importlib.util import find_spec

    digest = hashlib.sha256(f"{__version__}\0{interpreter()}\0".encode())
    for name, size, mtime in sorted(_package_files(os.path.dirname(os.path.abspath(__file__)), "")):
        digest.update(f"{name}\0{size}\0{mtime}\0".encode("utf-8", "surrogateescape"))
    for module in DEPENDENCIES:
        try:
            spec = find_spec(module)
            origin = spec.origin if spec is not None else None
            stat = os.stat(origin) if origin else None
        except (ImportError, ValueError, OSError):
            stat = None
        digest.update(f"{module}\0{origin if stat else None}\0{stat and stat.st_size}\0"
                      f"{stat and stat.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _package_files(folder: str, prefix: str) -> list[tuple[str, int, int]]:
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                found += _package_files(entry.path, f"{prefix}{entry.name}/")
            elif entry.name.endswith((".py", ".toml")):
                stat = entry.stat()
                found.append((prefix + entry.name, stat.st_size, stat.st_mtime_ns))
    return found


class ReportKey:
    """The digest of a report's inputs, fed part by part; each part is tagged and length-prefixed, so no two
    different sequences of parts give the same bytes."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256(f"{SCHEMA}\0{code_digest()}".encode())

    def add(self, tag: str, value: bytes | str) -> None:
        data = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value
        self._digest.update(f"\0{tag}\0{len(data)}\0".encode())
        self._digest.update(data)

    def add_json(self, tag: str, value: object) -> None:
        self.add(tag, json.dumps(value, sort_keys=True, default=str))

    def add_file(self, tag: str, path: Path | None) -> None:
        """PATH's bytes (or that it is absent or unreadable, and why)."""
        if path is None:
            self.add(tag, "none")
            return
        try:
            self.add(tag + ":" + os.fspath(path), path.read_bytes())
        except OSError as exc:
            self.add(tag + ":" + os.fspath(path) + ":unreadable", str(exc.strerror or exc))

    def add_tree(self, gathered: Gathered) -> None:
        """Every file the scan reads of the tree (path and bytes, or the error), the problems discovery met and
        the linked files."""
        found = gathered.found
        self.add("root", os.fspath(found.root))
        for rel, source in gathered.sources:
            if isinstance(source, OSError):
                self.add("unreadable:" + rel, f"{type(source).__name__}:{source.errno}:{source.strerror or source}")
            else:
                self.add("file:" + rel, source)
        self.add_json("problems", found.problems)
        self.add_json("links", sorted(found.links))

    def hexdigest(self) -> str:
        return self._digest.hexdigest()


class ReportMemo:
    """The reports kept in a cache directory (`CACHE_DIR/<version>-reports/<key>.json`)."""

    def __init__(self, directory: Path) -> None:
        self.folder = directory / f"{__version__}-reports"

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str) -> Remembered | None:
        path = self._path(key)
        try:
            data = json.loads(path.read_bytes())
            if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("key") != key:
                return None
            text, code = data["text"], data["exit_code"]
            if not isinstance(text, str) or type(code) is not int:
                return None
            os.utime(path)   # used: kept ahead of reports not asked for since
            return Remembered(text, code)
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return None   # missing, corrupt or foreign: the scan runs

    def put(self, key: str, remembered: Remembered) -> None:
        data = json.dumps({"schema": SCHEMA, "key": key, "text": remembered.text,
                           "exit_code": remembered.exit_code}, separators=(",", ":"))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            replace(self._path(key), data.encode("utf-8", "surrogateescape"), 0o600, durable=False)
            self._prune()
        except (OSError, WriteRefused):
            pass   # a read-only tree or a full disk: no memo, the next scan runs in full

    def _prune(self) -> None:
        """Keep only the KEEP reports last written or used; remove the temporary files of writes a killed
        process left, and the reports of other versions of reply-audit (none of their keys can come again)."""
        import shutil
        import time

        entries, stale = [], time.time() - STALE_TEMPORARY
        for entry in os.scandir(self.folder):
            try:
                when = entry.stat().st_mtime
            except OSError:
                continue
            if entry.name.endswith(".json"):
                entries.append((when, entry.path))
            elif entry.name.endswith(".tmp") and when < stale:
                _unlink(entry.path)
        for _, path in sorted(entries, reverse=True)[KEEP:]:
            _unlink(path)
        for entry in os.scandir(self.folder.parent):
            if entry.name.endswith("-reports") and entry.name != self.folder.name and entry.is_dir():
                shutil.rmtree(entry.path, ignore_errors=True)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
