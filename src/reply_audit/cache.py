"""The facts cache: a file's `FileFacts`, kept between scans.

A file's facts depend only on its bytes, its path (is it a test?) and the
profile, so an entry is keyed by a SHA-256 of the path and the content and
filed under the tool version and the profile digest:
`CACHE_DIR/<version>-<profile digest>/<key[:2]>/<key>.json`. An entry is JSON
(never pickle: a cache directory may come from anywhere) carrying its schema
and its key, the facts as rows (`FileFacts.to_row`: each record its values in
field order, which the folder's digest of the record shapes pins); anything
that does not parse, names another key or does not rebuild is ignored and
overwritten, never trusted. Writes are atomic; a cache that cannot be written
(read-only tree) is simply not kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .safe_write import WriteRefused, replace

if TYPE_CHECKING:  # pragma: no cover
    from .facts.model import FileFacts

SCHEMA = "reply-audit-cache/2"   # 2: facts as rows (each record its values in field order)
DEFAULT_DIR = ".reply-audit-cache"


def key_of(rel: str, source: bytes) -> str:
    digest = hashlib.sha256(rel.encode("utf-8", errors="surrogateescape"))
    digest.update(b"\x00")
    digest.update(source)
    return digest.hexdigest()


def interpreter() -> str:
    """The Python that parses: its version and the settings that change what it accepts (another Python reads a
    file otherwise)."""
    return f"{sys.version}\0{sys.flags}\0{sys.get_int_max_str_digits()}"


class FactsCache:
    def __init__(self, directory: Path, profile_digest: str) -> None:
        """The cache of facts under DIRECTORY for the profile of PROFILE_DIGEST, in the folder this code and this
        Python name."""
        self._use(directory / f"{__version__}-{profile_digest}-{facts_schema()}")

    @classmethod
    def in_folder(cls, folder: Path) -> FactsCache:
        """The cache whose entries are in FOLDER, as another process named it: a pool worker files its facts
        exactly where its caller reads them, whatever the worker's own interpreter settings."""
        cache = cls.__new__(cls)
        cache._use(folder)
        return cache

    def _use(self, folder: Path) -> None:
        self.folder = folder
        self._prefix = os.fspath(folder) + os.sep   # entry paths built as text: a warm scan builds one a file
        self.writable = True

    def _path(self, key: str) -> Path:
        return Path(self._file(key))

    def _file(self, key: str) -> str:
        return f"{self._prefix}{key[:2]}{os.sep}{key}.json"

    def get(self, key: str) -> FileFacts | None:
        from .facts.model import FileFacts  # here, not at the top: naming the cache folder needs no records

        try:
            with open(self._file(key), "rb") as entry:
                data = json.loads(entry.read())
            if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("key") != key:
                return None
            return FileFacts.from_row(data["facts"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None   # missing, corrupt or foreign: rebuilt by the caller

    def find(self, rel: str, source: bytes) -> tuple[str, FileFacts | None]:
        """The key of REL with SOURCE, and the facts the cache holds for them (None: none)."""
        key = key_of(rel, source)
        found = self.get(key)
        return key, found if found is not None and found.path == rel else None

    def put(self, key: str, facts: FileFacts) -> None:
        if not self.writable:
            return
        target = self._path(key)
        try:
            data = json.dumps({"schema": SCHEMA, "key": key, "facts": facts.to_row()}, separators=(",", ":"))
        except (ValueError, TypeError, RecursionError):
            return   # facts JSON cannot hold (an integer of more digits than Python prints): not kept, rebuilt
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            replace(target, data.encode("utf-8"), 0o600, durable=False)
        except (OSError, WriteRefused):
            self.writable = False   # read-only tree or full disk: scan on without a cache


def clear(directory: Path) -> int:
    """Remove a cache directory; the number of entries it held."""
    if not directory.exists():
        return 0
    if not (directory / "CACHEDIR.TAG").exists() and not any(directory.glob("*-*/*/*.json")):
        raise ValueError(f"{directory} does not look like a reply-audit cache")
    count = sum(1 for _ in directory.glob("*-*/*/*.json"))
    import shutil  # only clearing needs it

    shutil.rmtree(directory)
    return count


def facts_schema() -> str:
    """8 hex digits of the facts record's shape (every dataclass, field and type), of the code that extracts it
    and of the Python that parses (its version and settings): a change to what extraction records, or to how,
    is a new cache folder even within one version (a facts cache must never outlive the code that filled it)."""
    from dataclasses import fields, is_dataclass

    from .facts import model

    parts = []
    for name in sorted(dir(model)):
        cls = getattr(model, name)
        if isinstance(cls, type) and is_dataclass(cls):
            parts.append(name + ":" + ",".join(f"{f.name}={f.type}" for f in fields(cls)))
    parts.append(interpreter())
    digest = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape"))
    package = Path(__file__).parent
    for source in sorted([*package.joinpath("facts").glob("*.py"), package / "parsing.py", package / "file_facts.py",
                          package / "directives.py", package / "names.py", package / "profile.py",
                          package / "discovery.py"]):   # the extraction and what it asks
        try:
            digest.update(source.read_bytes())
        except OSError:
            continue
    return digest.hexdigest()[:8]


def opened(directory: Path | None, profile_digest: str) -> FactsCache | None:
    """The facts cache in DIRECTORY (tagged as a cache) for the profile of PROFILE_DIGEST; None without one."""
    if directory is None:
        return None
    tag(directory)
    return FactsCache(directory, profile_digest)


def tag(directory: Path) -> None:
    """Mark the cache directory so backup tools skip it and `clear` recognises it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tag_file = directory / "CACHEDIR.TAG"
        if not tag_file.exists():
            tag_file.write_text("Signature: 8a477f597d28d172789f06886806bc55\n"
                                "# This directory is a cache of reply-audit (facts per file); safe to delete.\n")
        ignore = directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
    except OSError:
        pass
