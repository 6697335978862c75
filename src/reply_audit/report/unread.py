"""The files a scan could not read, or read only in part: one list that every report format shows.

A file is `unparseable` when no parser gave it a tree (nothing in it was checked), `partly-read` when the
fallback parser kept the statements this Python understands and lost the others (one entry per lost unit,
at the line this Python rejects)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..record_class import record

if TYPE_CHECKING:  # pragma: no cover
    from ..index import Inventory


@record(frozen=True)
class Unread:
    path: str
    line: int
    col: int
    kind: str        # unparseable | partly-read
    message: str

    @property
    def text(self) -> str:
        if self.kind == "unparseable":
            return f"not read, nothing in this file was checked: {self.message}"
        return f"read only in part: {self.message}"


def unread_files(inventory: Inventory) -> list[Unread]:
    """Every unparseable file and every unit a partly read file lost, by path and line."""
    out = [Unread(u.path, max(u.line, 1), u.col, "unparseable", u.message) for u in inventory.unparseable]
    out += [Unread(f.path, max(s.line, 1), s.col, "partly-read", s.message)
            for f in inventory.fallback for s in f.skipped]
    return sorted(out, key=lambda u: (u.path, u.line, u.kind))
