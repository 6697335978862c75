"""The Reply object every tool returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reply:
    reply_type: str
    code: str
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    trace_id: str | None = None

    @classmethod
    def success(cls, code: str, data: dict[str, Any] | None = None, message: str = "") -> "Reply":
        return cls("S", code, message, dict(data or {}))

    @classmethod
    def invalid(cls, code: str, data: dict[str, Any] | None = None, message: str = "") -> "Reply":
        return cls("I", code, message, dict(data or {}))

    @classmethod
    def denied(cls, code: str, data: dict[str, Any] | None = None, message: str = "") -> "Reply":
        return cls("D", code, message, dict(data or {}))

    @classmethod
    def error(cls, code: str, data: dict[str, Any] | None = None, message: str = "") -> "Reply":
        return cls("E", code, message, dict(data or {}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "reply_type": self.reply_type,
            "code": self.code,
            "message": self.message,
            "data": self.data,
            "trace": {"trace_id": self.trace_id},
        }
