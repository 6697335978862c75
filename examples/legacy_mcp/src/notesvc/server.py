"""The notes tools."""

from __future__ import annotations

from typing import Any

from .core.legacy_registry import get_message
from .mcp_app import mcp
from .replies.codes import Codes
from .replies.reply import Reply
from .safety import ReplyBuilder, mcp_safe_tool
from .tools import legacy_tools

NOTES: dict[str, str] = {}
SESSION: dict[str, Any] = {}


@mcp.tool()
@mcp_safe_tool
def notes_read(path: str) -> Reply:
    rb = ReplyBuilder(tool="notes_read")
    if path not in NOTES:
        return rb.invalid("WA-RES-I-001", {"path": path})
    return rb.success(Codes.WA_READ_S_001.code, {"path": path, "text": NOTES[path]})


@mcp.tool()
@mcp_safe_tool
def notes_search(query: str) -> dict[str, Any]:
    if not query:
        return {"error": "query must not be empty"}
    hits = [name for name, body in NOTES.items() if query in body]
    return {"success": True, "results": hits, "count": len(hits)}


@mcp.tool()
@mcp_safe_tool
def notes_stats() -> dict[str, Any]:
    def largest() -> dict[str, Any]:
        name = max(NOTES, key=lambda n: len(NOTES[n]), default=None)
        return {"name": name}

    return dict(ok=True, count=len(NOTES), largest=largest())


@mcp.tool()
@mcp_safe_tool
def notes_write(path: str, text: str) -> Reply:
    rb = ReplyBuilder(tool="notes_write")
    if path.startswith("/system"):
        rb.denied("EN-WRITE-D-001", {"path": path})
    try:
        NOTES[path] = text.strip()
    except Exception as exc:
        return rb.invalid("MCP-SYS-I-001", {"error": str(exc)})
    return rb.success("EN-WRITE-S-001", {"path": path, "size": len(text)})


@mcp.tool()
@mcp_safe_tool
def notes_delete(path: str) -> Reply:
    rb = ReplyBuilder(tool="notes_delete")
    try:
        del NOTES[path]
    except KeyError:
        return rb.invalid("WA-RES-I-001", {"path": path})
    except Exception as exc:
        return rb.error("MCP-SYS-E-001", {"error": str(exc)})
    return rb.success("WA-WRITE-S-001", {"path": path})


@mcp.tool()
@mcp_safe_tool
def session_open(user: str) -> Reply:
    rb = ReplyBuilder(tool="session_open")
    if not user:
        return rb.success("WA-RES-I-001", {"user": user})
    if SESSION.get("user"):
        return rb.error("NOTES-OP-E-001", {"error": "session already open"})
    SESSION["user"] = user
    return rb.success("WA-READ-S-099", {"user": user})


@mcp.tool()
@mcp_safe_tool
def session_status() -> Reply:
    rb = ReplyBuilder(tool="session_status")
    if not SESSION.get("user"):
        # no active session: nothing to report
        return rb.invalid("CT-CLOSE-I-001", {})
    return rb.success("CT-GATE-S-001", {"user": SESSION["user"]})


@mcp.tool()
@mcp_safe_tool
def notes_export(fmt: str = "md") -> Reply:
    return legacy_tools.export_notes(NOTES, fmt)


@mcp.tool()
@mcp_safe_tool
def notes_copy(src: str, dst: str) -> Reply:
    rb = ReplyBuilder(tool="notes_copy")
    found = notes_read(src)
    if found.message == get_message("WA-RES-I-001", path=src):
        return rb.invalid("WA-RES-I-001", {"path": src})
    NOTES[dst] = found.data["text"]
    return rb.success("WA-WRITE-S-001", {"path": dst})


@mcp.tool()
def notes_lock(path: str) -> Reply:
    rb = ReplyBuilder(tool="notes_lock")
    if path.startswith("/system"):
        return rb.denied("WA-WRITE-D-001", {"path": path})  # the world adapter refusing: the wrong layer
    SESSION.setdefault("locked", []).append(path)
    return rb.success("MCP-SYS-S-001", data={"path": path})  # reply-audit: default-code


def _snapshot() -> dict[str, Any]:
    return {"notes": dict(NOTES), "session": dict(SESSION)}
