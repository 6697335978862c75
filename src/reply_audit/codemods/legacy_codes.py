"""legacy-codes: legacy code literals -> their mapped canonical codes."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..records import CodeLiteral
from .base import Codemod, Edit, Example, Skip
from .edits import ReplaceCode, span_of

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Finding
    from .context import PlanContext

_REGISTRIES = {
    "legacy.py": 'OLD = {"NOTES-OP-S-001": "Notes read.", "NOTES-OP-E-001": "Backend failed.", '
                 '"GIT-CMD-E-001": "git failed."}\n',
    "codes.py": ('class Codes:\n    WA_READ_S_001 = ReplyCode("WA-READ-S-001")\n'
                 '    MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001")\n\n'
                 'LEGACY_TO_CANONICAL = {"NOTES-OP-S-001": "WA-READ-S-001", "NOTES-OP-E-001": "MCP-SYS-E-001",\n'
                 '                       "GIT-CMD-E-001": None}\n'),
}


class LegacyCodes(Codemod):
    name = "legacy-codes"
    phase = 2
    order = 20
    fixes = ("RA108",)
    subjects = (CodeLiteral,)
    doc = ("Rewrites each legacy code literal in product code (RA108) to the canonical code its mapping gives "
           "(a `LEGACY_TO_CANONICAL` table in the code, or a `--mapping` file, which wins). Only codes classed "
           "`mapped` are rewritten; a retired, unmapped, or badly mapped code is reported with its class and never "
           "guessed. Inside a builder call the target must have the TYPE the method builds. Every literal is "
           "rewritten, comparisons too (`if reply.code == \"NOTES-OP-E-001\"`): where such a comparison matches "
           "codes sent by another system that still speaks the legacy vocabulary, suppress the finding there. "
           "Quotes and string prefixes are kept; a code inside an f-string or split over concatenated strings "
           "is reported.")
    examples = [Example(
        before={**_REGISTRIES, "server.py": '''
def notes_read(rb: ReplyBuilder, path):
    if path == "":
        return rb.error('NOTES-OP-E-001', {})  # backend
    if path == "git":
        return rb.error("GIT-CMD-E-001", {})
    return rb.success(
        "NOTES-OP-S-001",   # the legacy read code
        {"path": path},
    )
'''},
        after={"server.py": '''
def notes_read(rb: ReplyBuilder, path):
    if path == "":
        return rb.error('MCP-SYS-E-001', {})  # backend
    if path == "git":
        return rb.error("GIT-CMD-E-001", {})
    return rb.success(
        "WA-READ-S-001",   # the legacy read code
        {"path": path},
    )
'''},
        note="GIT-CMD-E-001 is retired in the table: reported, left alone",
        skipped=("GIT-CMD-E-001 is retired (retired explicitly): choose a canonical code by hand",),
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        lit = cast(CodeLiteral, finding.subject)   # the planner hands it only findings about a CodeLiteral
        entry = ctx.legacy.get(lit.code)
        if entry is None:
            return None
        cls, target = entry.cls, entry.target
        if cls == "retired":
            return Skip(f"{lit.code} is retired ({entry.reason or 'by the layer rules'}): choose a canonical "
                        "code by hand")
        if cls == "unmapped":
            return Skip(f"{lit.code} has no mapping: add it to LEGACY_TO_CANONICAL or a mapping file")
        if cls == "mapped_to_unknown":
            return Skip(f"{lit.code} maps to {target}, which no canonical registry defines")
        if cls == "mapped_to_forbidden":
            return Skip(f"{lit.code} maps to {target}, which breaks the layer rules")
        if cls != "mapped" or not target:
            return None
        if (why := ctx.not_editable(lit)) is not None:
            return why
        call = ctx.call_with_literal(lit)
        if call is not None:
            wanted = ctx.profile.call_type(call)
            parts = ctx.profile.parse_code(target)
            if wanted and parts and parts.type != wanted:
                return Skip(f"{lit.code} maps to {target} ({parts.type}), but {call.receiver}."
                            f"{call.method}() builds {wanted}")
        return ReplaceCode(codemod=self.name, path=lit.path, spans=[span_of(lit)],
                           description=f"{lit.code} -> {target}", old=lit.code, new=target)
