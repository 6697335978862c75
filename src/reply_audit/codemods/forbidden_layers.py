"""forbidden-layers: a code whose TYPE its LAYER may not emit -> the owning layer's registered code."""

from __future__ import annotations

from ..records import Call, CodeLiteral, ForbiddenTarget
from ..rules._snippets import BUILDER
from ..rules.base import Finding
from .base import Codemod, Edit, Example, Skip
from .context import PlanContext
from .edits import ReplaceCode, span_of

_CODES = '''
class Codes:
    WA_RES_S_001 = ReplyCode("WA-RES-S-001")
    EN_WRITE_D_001 = ReplyCode("EN-WRITE-D-001")
    EN_VIS_D_003 = ReplyCode("EN-VIS-D-003")
    WA_VAL_I_001 = ReplyCode("WA-VAL-I-001")
    CT_VAL_I_001 = ReplyCode("CT-VAL-I-001")

LEGACY_TO_CANONICAL = {
    "FILE-OP-D-001": "WA-WRITE-D-001",  # a denial is EN's
    "FILE-OP-S-001": "WA-RES-S-001",
}
'''


class ForbiddenLayers(Codemod):
    name = "forbidden-layers"
    phase = 2
    order = 30
    fixes = ("RA309", "RA111", "RA301", "RA108")
    subjects = (CodeLiteral, ForbiddenTarget, Call)
    doc = ("Rewrites a code whose TYPE is forbidden for its LAYER (a D outside EN, an I from EN) to the owning "
           "layer's code: in builder calls and other product code (RA309, and RA301/RA108 when that is why the "
           "code is unknown or legacy) and in `LEGACY_TO_CANONICAL` values in the code (RA111). [migrate.remap] "
           "names the owning layers of each TYPE; the target is the registered code of an owning layer with the "
           "same AREA, TYPE and number, else the only registered code of an owning layer with the same AREA and "
           "TYPE. No target, or more than one, is reported, never guessed; so are mapping files (edit them).")
    examples = [Example(
        before={"builder.py": BUILDER, "codes.py": _CODES, "server.py": '''
def notes_hide(rb: ReplyBuilder, path):
    if path.startswith("/private"):
        return rb.denied("WA-VIS-D-003", {"path": path})   # hidden by policy
    if path.startswith("/system"):
        return rb.denied('WA-WRITE-D-001', {"path": path})
    if not path:
        return rb.invalid("EN-VAL-I-001", {})
    return rb.success("WA-RES-S-001", {"path": path})
'''},
        after={"codes.py": _CODES.replace('"FILE-OP-D-001": "WA-WRITE-D-001"', '"FILE-OP-D-001": "EN-WRITE-D-001"'),
               "server.py": '''
def notes_hide(rb: ReplyBuilder, path):
    if path.startswith("/private"):
        return rb.denied("EN-VIS-D-003", {"path": path})   # hidden by policy
    if path.startswith("/system"):
        return rb.denied('EN-WRITE-D-001', {"path": path})
    if not path:
        return rb.invalid("EN-VAL-I-001", {})
    return rb.success("WA-RES-S-001", {"path": path})
'''},
        note="EN-VAL-I-001 has two candidate owners (WA-VAL-I-001, CT-VAL-I-001): reported, left alone",
        skipped=("EN-VAL-I-001: no single WA/CT/MCP-VAL-I code to move it to "
                 "(registered: CT-VAL-I-001, WA-VAL-I-001)",) * 2,
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        subject = finding.subject
        if isinstance(subject, ForbiddenTarget):   # RA111: a mapping table's target
            entry, mapping = subject.entry, subject.mapping
            if mapping.source != "code" or not entry.value_span or entry.canonical is None:
                return Skip(f"{entry.legacy} -> {entry.canonical} is set in a mapping file or by reference: "
                            "edit it there")
            target = self.target(entry.canonical, ctx)
            if not isinstance(target, str):
                return target
            line, col, end_line, end_col = entry.value_span
            return ReplaceCode(codemod=self.name, path=mapping.path, spans=[(line, col, end_line, end_col)],
                               description=f"{entry.canonical} -> {target}", old=entry.canonical, new=target)
        if isinstance(subject, Call):   # RA301: a call's code, through the literal in it
            found = ctx.literal_in_call(subject, subject.code) if subject.code else None
            if found is None or self.target(found.code, ctx) is None:
                return None
            lit = found
        elif isinstance(subject, CodeLiteral):   # RA108, RA309: the literal itself
            lit = subject
        else:
            return None
        target = self.target(lit.code, ctx)
        if not isinstance(target, str):
            return target
        if (why := ctx.not_editable(lit)) is not None:
            return why
        return ReplaceCode(codemod=self.name, path=lit.path, spans=[span_of(lit)],
                           description=f"{lit.code} -> {target}", old=lit.code, new=target)

    @staticmethod
    def target(code: str, ctx: PlanContext) -> str | Skip | None:
        """The owning layer's code for CODE; a Skip when there is none or several; None when CODE is legal."""
        profile = ctx.profile
        parts = profile.parse_code(code)
        if parts is None or not profile.layer_known(parts) or profile.type_allowed(parts):
            return None
        owners = profile.migrate_value("remap").get(parts.type, [])
        owners = [owners] if isinstance(owners, str) else list(owners)
        if not owners:
            return Skip(f"{code}: [migrate.remap] names no layer that owns {parts.type}")
        if not ctx.canonical:
            return Skip(f"{code}: no canonical registry to find the {'/'.join(owners)} code in")
        family = []
        for known in sorted(ctx.canonical):
            p = profile.parse_code(known)
            if p and p.layer in owners and p.area == parts.area and p.type == parts.type:
                family.append(p)
        same = [p.code for p in family if p.number == parts.number]
        if len(same) == 1:
            return same[0]
        if len(family) == 1 and not same:
            return family[0].code
        found = ", ".join(p.code for p in family) or "none"
        return Skip(f"{code}: no single {'/'.join(owners)}-{parts.area}-{parts.type} code to move it to "
                    f"(registered: {found})")
