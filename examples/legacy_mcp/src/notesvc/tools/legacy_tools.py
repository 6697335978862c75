"""Export tools, still on the builder they were written with."""

from __future__ import annotations

from typing import Any

from ..core.legacy_registry import get_message
from ..replies.reply import Reply


def _make_builder(tool: str):
    class _ShadowBuilder:
        def success(self, code: str, data: dict[str, Any]) -> Reply:
            return Reply.success(code, data, get_message(code, **data))

        def info(self, code: str, data: dict[str, Any]) -> Reply:
            return Reply.info(code, data, get_message(code, **data))

        def denied(self, code: str, data: dict[str, Any]) -> Reply:
            return Reply.denied(code, data, get_message(code, **data))

        def error(self, code: str, data: dict[str, Any]) -> Reply:
            return Reply.error(code, data, get_message(code, **data))

    return _ShadowBuilder()


def export_notes(notes: dict[str, str], fmt: str) -> Reply:
    rb = _make_builder("notes_export")
    if fmt not in ("md", "txt"):
        return rb.invalid("WA-RES-I-001", {"path": fmt})
    if not notes:
        return rb.info("MCP-SYS-S-001", {"exported": 0})
    text = "\n\n".join(f"# {name}\n{body}" for name, body in sorted(notes.items()))
    return rb.success("WA-READ-S-001", {"text": text, "format": fmt})


def import_notes(notes: dict[str, str], text: str) -> Reply:
    rb = _make_builder("notes_import")
    if not text.strip():
        return rb.invalid("WA-RES-I-001", {"path": "<empty>"})
    for block in text.split("\n\n"):
        if not block.startswith("# "):
            return rb.invalid("WA-RES-I-001", {"path": block[:20]})
        name, _, body = block[2:].partition("\n")
        notes[name] = body
    return rb.success("WA-WRITE-S-001", {"imported": len(notes)})
