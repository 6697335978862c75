"""Canonical reply codes: LAYER-AREA-TYPE-NNN.

LAYER is who decided (WA, EN, CT, MCP), AREA what it concerns, TYPE what it
means (S, I, D, E). Layer ownership: WA, CT and MCP never deny; EN never
answers Invalid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Layer(str, Enum):
    WA = "WA"
    EN = "EN"
    CT = "CT"
    MCP = "MCP"


class ReplyType(str, Enum):
    S = "S"
    I = "I"  # noqa: E741
    D = "D"
    E = "E"


LAYER_ALLOWED_TYPES: dict[str, frozenset[str]] = {
    "WA": frozenset("SIE"),
    "EN": frozenset("SDE"),
    "CT": frozenset("SIE"),
    "MCP": frozenset("SIE"),
}


@dataclass(frozen=True)
class ReplyCode:
    code: str
    layer: Layer
    area: str
    reply_type: ReplyType
    number: int
    message_key: str


class Codes:
    WA_RES_S_001 = ReplyCode("WA-RES-S-001", Layer.WA, "RES", ReplyType.S, 1, "RESOLVED")
    WA_RES_I_001 = ReplyCode("WA-RES-I-001", Layer.WA, "RES", ReplyType.I, 1, "PATH_NOT_FOUND")
    WA_RES_E_001 = ReplyCode("WA-RES-E-001", Layer.WA, "RES", ReplyType.E, 1, "RESOLUTION_FAILED")
    WA_READ_S_001 = ReplyCode("WA-READ-S-001", Layer.WA, "READ", ReplyType.S, 1, "READ_OK")
    WA_WRITE_S_001 = ReplyCode("WA-WRITE-S-001", Layer.WA, "WRITE", ReplyType.S, 1, "WRITE_OK")
    WA_NOTES_S_001 = ReplyCode("WA-NOTES-S-001", Layer.WA, "NOTES", ReplyType.S, 1, "NOTES_LISTED")
    EN_WRITE_S_001 = ReplyCode("EN-WRITE-S-001", Layer.EN, "WRITE", ReplyType.S, 1, "WRITE_ALLOWED")
    EN_WRITE_D_001 = ReplyCode("EN-WRITE-D-001", Layer.EN, "WRITE", ReplyType.D, 1, "WRITE_DENIED")
    EN_GATE_D_001 = ReplyCode("EN-GATE-D-001", Layer.EN, "GATE", ReplyType.D, 1, "GATE_DENIED")
    EN_SYS_E_001 = ReplyCode("EN-SYS-E-001", Layer.EN, "SYS", ReplyType.E, 1, "POLICY_ENGINE_FAILED")
    CT_GATE_S_001 = ReplyCode("CT-GATE-S-001", Layer.CT, "GATE", ReplyType.S, 1, "SESSION_OPENED")
    CT_GATE_I_001 = ReplyCode("CT-GATE-I-001", Layer.CT, "GATE", ReplyType.I, 1, "SESSION_REQUEST_INVALID")
    CT_CLOSE_I_001 = ReplyCode("CT-CLOSE-I-001", Layer.CT, "CLOSE", ReplyType.I, 1, "NO_ACTIVE_SESSION")
    CT_GATE_E_001 = ReplyCode("CT-GATE-E-001", Layer.CT, "GATE", ReplyType.E, 1, "SESSION_STORE_FAILED")
    MCP_SYS_S_001 = ReplyCode("MCP-SYS-S-001", Layer.MCP, "SYS", ReplyType.S, 1, "OK")
    MCP_SYS_S_900 = ReplyCode("MCP-SYS-S-900", Layer.MCP, "SYS", ReplyType.S, 900, "LEGACY_WRAP")
    MCP_SYS_I_001 = ReplyCode("MCP-SYS-I-001", Layer.MCP, "SYS", ReplyType.I, 1, "BAD_ARGUMENTS")
    MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001", Layer.MCP, "SYS", ReplyType.E, 1, "SYS_CRASH")
    MCP_SYS_E_002 = ReplyCode("MCP-SYS-E-002", Layer.MCP, "SYS", ReplyType.E, 2, "SERIALIZATION_FAILED")
    # added by the storage team
    MCP_SYS_E_000 = ReplyCode("MCP-SYS-E-000", Layer.MCP, "SYS", ReplyType.E, 0, "UNKNOWN_FAILURE")
    STORE_SYS_E_001 = ReplyCode("STORE-SYS-E-001", "STORE", "SYS", ReplyType.E, 1, "STORE_UNAVAILABLE")
    CT_GATE_D_001 = ReplyCode("CT-GATE-D-001", Layer.CT, "GATE", ReplyType.D, 1, "SESSION_REFUSED")


_CODE_PATTERN = re.compile(r"^(WA|EN|CT|MCP)-([A-Z]+)-([SIDE])-(\d{3})$")


def validate_code_format(code: str) -> tuple[bool, str]:
    match = _CODE_PATTERN.match(code)
    if not match:
        return False, f"{code!r} is not LAYER-AREA-TYPE-NNN"
    layer, _area, kind, _number = match.groups()
    if kind not in LAYER_ALLOWED_TYPES[layer]:
        return False, f"layer {layer} may not emit {kind}"
    return True, ""


# Legacy code -> canonical code. None retires a code.
LEGACY_TO_CANONICAL: dict[str, str | None] = {
    "NOTES-OP-S-001": "WA-READ-S-001",
    "NOTES-OP-E-001": "MCP-SYS-E-001",
    "FILE-OP-S-001": Codes.WA_WRITE_S_001.code,
    "FILE-OP-D-001": "WA-WRITE-D-001",
    "FILE-OP-I-001": "WA-RES-I-007",
    "SESSION-OP-I-001": "CT-CLOSE-I-001",
    "GIT-CMD-E-001": None,
    "OLD-THING-S-001": "WA-RES-S-001",
}
