"""Writing a rewritten source file so that a reader never sees half of it.

The new bytes go to a temporary file in the same directory, are flushed to
disk, take the old file's permission bits, and replace the old file with one
atomic rename. The bytes are written as given: the rewriter has kept the
file's encoding, BOM and line endings. A file that changed on disk since it
was read, a symbolic link, or a path outside the root is refused, never
written through.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class WriteRefused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def write_atomic(root: Path, rel: str, expected: bytes, data: bytes) -> None:
    """Replace ROOT/REL, which must still hold EXPECTED, with DATA."""
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
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".reply-audit.tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise WriteRefused(f"cannot write: {exc.strerror or exc}") from None
        raise
