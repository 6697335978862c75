"""The record of one `migrate --apply` over several files, so an interrupted run is never left unexplained.

Before the first file is replaced, `Journal.begin` writes, under ROOT/.reply-audit-journal/,
every file's old and new bytes and then `journal.json` (each written durably):
from that moment the run can be finished or undone whatever happens to the
process. After the last file is written, `finish` removes the folder. A run
that was killed in between leaves the folder; the next `--apply` refuses to
start, and `resume()` (write what is still old) or `rollback()` (restore
what is already new) settles it. A file whose bytes are neither the old nor
the new ones changed since: it is left alone and named.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import field
from pathlib import Path
from typing import Any

from .record_class import record
from .safe_write import WriteRefused, replace

FOLDER = ".reply-audit-journal"
SCHEMA = "reply-audit-journal/1"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@record
class Settled:
    """What resume or rollback did: files written, files already as wanted, files changed by someone else."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


class Journal:
    def __init__(self, root: Path, entries: list[dict[str, Any]]) -> None:
        self.root = root
        self.entries = entries

    @property
    def folder(self) -> Path:
        return self.root / FOLDER

    @staticmethod
    def find(root: Path) -> Journal | None:
        """The journal an interrupted run left in ROOT, or None. An unreadable one is an error."""
        path = root / FOLDER / "journal.json"
        if not (root / FOLDER).exists():
            return None
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("schema") != SCHEMA:
                raise ValueError("unknown schema")
            return Journal(root, list(doc["files"]))
        except (OSError, ValueError, KeyError, TypeError):
            # the run died while writing the journal itself: no file had been replaced yet
            return Journal(root, [])

    @classmethod
    def begin(cls, root: Path, changes: list[tuple[str, bytes, bytes, int]]) -> Journal:
        """Record CHANGES (path, old bytes, new bytes, mode) durably before anything is replaced."""
        folder = root / FOLDER
        folder.mkdir(exist_ok=False)
        entries = []
        for number, (path, old, new, mode) in enumerate(changes):
            replace(folder / f"{number}.old", old, 0o600)
            replace(folder / f"{number}.new", new, 0o600)
            entries.append({"path": path, "mode": mode, "old": _sha(old), "new": _sha(new), "blob": number})
        doc = {"schema": SCHEMA, "files": entries}
        replace(folder / "journal.json", json.dumps(doc, indent=1).encode("utf-8"), 0o600)
        return cls(root, entries)

    def finish(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _settle(self, wanted: str) -> Settled:
        """Bring every file to its WANTED side (old | new) where it is on the other one."""
        done = Settled()
        other = "old" if wanted == "new" else "new"
        for entry in self.entries:
            target = self.root / entry["path"]
            try:
                current = _sha(target.read_bytes())
            except OSError:
                done.conflicts.append(entry["path"])
                continue
            if current == entry[wanted]:
                done.unchanged.append(entry["path"])
                continue
            if current != entry[other]:
                done.conflicts.append(entry["path"])
                continue
            data = (self.folder / f"{entry['blob']}.{wanted}").read_bytes()
            if _sha(data) != entry[wanted]:
                done.conflicts.append(entry["path"])
                continue
            try:
                replace(target, data, int(entry["mode"]))
            except WriteRefused:
                done.conflicts.append(entry["path"])
                continue
            done.written.append(entry["path"])
        if not done.conflicts:
            self.finish()
        return done

    def resume(self) -> Settled:
        """Finish the interrupted run: write the new bytes of every file still old."""
        return self._settle("new")

    def rollback(self) -> Settled:
        """Undo the interrupted run: restore the old bytes of every file already new."""
        return self._settle("old")


def stale_temporaries(folders: set[Path]) -> list[Path]:
    """Temporary files an interrupted atomic write of ours left in FOLDERS (`.NAME.XXXXXXXX.reply-audit.tmp`,
    regular files only): nothing else matches the name."""
    found = []
    for folder in sorted(folders):
        try:
            names = [e for e in folder.iterdir() if e.name.startswith(".") and e.name.endswith(".reply-audit.tmp")]
        except OSError:
            continue
        for entry in names:
            if entry.is_file() and not entry.is_symlink():
                found.append(entry)
    return found
