"""RA105: a canonical registry code whose AREA is a tool name."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


def tool_words(ctx: RuleContext) -> set[str]:
    """Upper-cased words of the handler names (notes_read -> NOTES), minus verbs and the listed AREAs."""
    stop = {w.lower() for w in ctx.profile.setting("registries", "tool_name_stopwords")}
    words = set()
    for h in ctx.inventory.handlers:
        for part in h.name.split("_"):
            if part and part.lower() not in stop:
                words.add(part.upper())
    return words - set(ctx.profile.areas)


class AreaIsToolName(Rule):
    id = "RA105"
    name = "area-is-tool-name"
    severity = "medium"
    category = "registry"
    requirement = "registry-well-formed"
    chunk = "registry"
    spec = "spec 000 §5"
    doc = ("AREA describes the domain, never the tool: tool identity belongs in structured data. An AREA that "
           "matches a word of a handler's name (PLAYSET for ck3_playset, NOTES for notes_read; verbs such as close "
           "or search are not tool names, see [registries] tool-name-stopwords) names a tool.")
    fix = ("Use the domain AREA (READ, WRITE, RES, ...) and put the tool name in data.")
    valid = [Example({
        "codes.py": 'class Codes:\n    A = ReplyCode("WA-READ-S-001")\n    B = ReplyCode("WA-RES-I-001")\n',
        "server.py": "@mcp.tool()\ndef notes_read(path):\n    return None\n",
    })]
    invalid = [Example({
        "codes.py": 'class Codes:\n    A = ReplyCode("WA-NOTES-S-001")\n    B = ReplyCode("WA-RES-I-001")\n',
        "server.py": "@mcp.tool()\ndef notes_read(path):\n    return None\n",
    },
        findings=[
            ("codes.py", 2, 1, "WA-NOTES-S-001: AREA NOTES is a tool name"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        words = tool_words(ctx)
        for reg in ctx.canonical_registries():
            for c in reg.codes:
                if c.area and c.area in words:
                    yield self.finding(reg.path, c.line, f"{c.code}: AREA {c.area} is a tool name",
                                       key=c.code)
