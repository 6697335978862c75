"""Writing rewritten source files so that a reader never sees half of one.

`check` refuses, before anything is written, a file that is a symbolic link,
not a regular file, outside the root, changed on disk since it was read,
read-only (unless forced), or in a directory the process cannot write. `replace` then writes the new bytes
to a temporary file in the same directory, flushes them to disk, gives it the
old file's permission bits and renames it over the old file in one atomic
step. The bytes are written as given: the rewriter has kept the file's
encoding, BOM and line endings.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class WriteRefused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def check(root: Path, rel: str, expected: bytes, force: bool = False) -> int:
    """Refuse (WriteRefused) unless ROOT/REL can be replaced safely; return its permission bits. A read-only
    file is refused unless FORCE (it keeps its mode)."""
    path = root / rel
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise WriteRefused(f"cannot stat: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise WriteRefused("is a symbolic link: rewrite its target instead")
    if not stat.S_ISREG(info.st_mode):
        raise WriteRefused("is not a regular file")
    if not path.resolve().is_relative_to(root.resolve()):
        raise WriteRefused("lies outside the tree")
    try:
        current = path.read_bytes()
    except OSError as exc:
        raise WriteRefused(f"cannot read: {exc.strerror or exc}") from None
    if current != expected:
        raise WriteRefused("changed on disk since it was read")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise WriteRefused("its directory is not writable")
    if not force and not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteRefused(f"is read-only (mode {stat.S_IMODE(info.st_mode):04o}): pass --force to rewrite it")
    return stat.S_IMODE(info.st_mode)


def replace(path: Path, data: bytes, mode: int, durable: bool = True) -> None:
    """Atomically replace PATH with DATA, giving it MODE; DURABLE: on disk before the rename (fsync).
    The temporary file never outlives a failure."""
    tmp = None
    try:
        import tempfile  # only a write needs it

        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".reply-audit.tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        raise WriteRefused(f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(root: Path, rel: str, expected: bytes, data: bytes) -> None:
    """Replace ROOT/REL, which must still hold EXPECTED, with DATA."""
    replace(root / rel, data, check(root, rel, expected))
