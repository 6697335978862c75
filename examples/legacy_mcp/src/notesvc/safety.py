"""The safety wrapper around every tool, and the ReplyBuilder tools use."""

from __future__ import annotations

import functools
import uuid
from dataclasses import replace
from typing import Any, Callable

from .core.legacy_registry import get_message
from .replies.codes import validate_code_format
from .replies.reply import Reply


def mcp_safe_tool(func: Callable[..., Any]) -> Callable[..., Reply]:
    """Give every reply a trace id; wrap raw payloads; turn crashes into Error replies."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Reply:
        trace_id = uuid.uuid4().hex[:12]
        try:
            result = func(*args, **kwargs)
        except Exception as exc:  # the safety net: a crash is always an Error
            return replace(Reply.error("MCP-SYS-E-001", {"error": str(exc)}), trace_id=trace_id)
        if not isinstance(result, Reply):
            # Phase 1 only: legacy tools still return raw payloads.
            return Reply("S", "MCP-SYS-S-900", "Legacy tool returned raw payload.", {"payload": result}, trace_id)
        return replace(result, trace_id=trace_id)

    return wrapper


class ReplyBuilder:
    """Builds the replies of one tool call."""

    def __init__(self, tool: str) -> None:
        self.tool = tool

    def _check(self, code: str, expected: str) -> None:
        ok, problem = validate_code_format(code)
        if not ok:
            raise ValueError(f"{self.tool}: {problem}")
        if code.split("-")[2] != expected:
            raise ValueError(f"{self.tool}: {code} is not a {expected} code")

    def success(self, code: str, data: dict[str, Any] | None = None) -> Reply:
        self._check(code, "S")
        return Reply.success(code, data, get_message(code, **(data or {})))

    def invalid(self, code: str, data: dict[str, Any] | None = None) -> Reply:
        self._check(code, "I")
        return Reply.invalid(code, data, get_message(code, **(data or {})))

    def denied(self, code: str, data: dict[str, Any] | None = None) -> Reply:
        self._check(code, "D")
        return Reply.denied(code, data, get_message(code, **(data or {})))

    def error(self, code: str, data: dict[str, Any] | None = None) -> Reply:
        self._check(code, "E")
        return Reply.error(code, data, get_message(code, **(data or {})))
