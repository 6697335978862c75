"""Reply codes of the first reply system (before the canonical registry existed).

Codes here use tool and subsystem prefixes as layers. New code should use
notesvc.replies.codes; this module is still imported for message text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LegacyCode:
    code: str
    reply_type: str
    layer: str
    message: str


_LEGACY_CODES: list[LegacyCode] = [
    LegacyCode(code="NOTES-OP-S-001", reply_type="S", layer="NOTES", message="Notes read."),
    LegacyCode(code="NOTES-OP-E-001", reply_type="E", layer="NOTES", message="Notes backend failed: {error}"),
    LegacyCode(code="FILE-OP-S-001", reply_type="S", layer="FILE", message="File written."),
    LegacyCode(code="FILE-OP-D-001", reply_type="D", layer="FILE", message="File write refused."),
    LegacyCode(code="FILE-OP-I-001", reply_type="I", layer="FILE", message="Bad file name {name}."),
    LegacyCode(code="SESSION-OP-I-001", reply_type="I", layer="SESSION", message="No active session."),
    LegacyCode(code="GIT-CMD-E-001", reply_type="E", layer="GIT", message="git failed: {error}"),
    LegacyCode(code="LEARN-DIFF-S-001", reply_type="S", layer="LEARN", message="Diff learned."),
    LegacyCode(code="DB-CONN-E-001", reply_type="E", layer="DB", message="Database unavailable."),
    LegacyCode(code="MCP-SYS-D-902", reply_type="D", layer="MCP", message="Missing fields: {missing}"),
    LegacyCode(code="WA-RES-D-004", reply_type="D", layer="WA", message="Path hidden by policy."),
    LegacyCode(code="EN-WRITE-I-003", reply_type="I", layer="EN", message="Write request malformed."),
    LegacyCode(code="MCP-SYS-E-001", reply_type="E", layer="MCP", message="Unhandled exception: {error}"),
    LegacyCode(code="MCP-SYS-S-900", reply_type="S", layer="MCP", message="Legacy tool returned raw payload."),
    LegacyCode(code="WA-RES-I-001", reply_type="I", layer="WA", message="Path {path} does not exist."),
    LegacyCode(code="WA-READ-E-002", reply_type="E", layer="WA", message="Read failed: {error}"),
    LegacyCode(code="CT-GATE-E-003", reply_type="E", layer="CT", message="Session gate failed."),
    # re-added during a merge
    LegacyCode(code="NOTES-OP-E-001", reply_type="E", layer="NOTES", message="Notes backend failed: {error}"),
]

LEGACY_REGISTRY: dict[str, LegacyCode] = {c.code: c for c in _LEGACY_CODES}


def get_message(code: str, **params: object) -> str:
    entry = LEGACY_REGISTRY.get(code)
    if entry is None:
        return f"Unknown code: {code}"
    try:
        return entry.message.format(**params)
    except KeyError:
        return entry.message
