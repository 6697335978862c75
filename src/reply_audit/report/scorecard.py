"""The compliance scorecard and the execution plan, computed from facts and findings.

Each requirement counts what complies and what does not; its status is PASS
(nothing fails), FAIL (nothing complies, or the requirement is absent) or
PARTIAL; N/A when there is nothing to count (no builder, no serializer). The plan groups findings into chunks in dependency order, as the hand
audit's execution plan does; a chunk appears only when it has findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Requirement:
    name: str
    ok: int
    total: int
    rules: tuple[str, ...]
    unit: str = ""
    binary: bool = False   # one thing that is there or not (a hook, a freeze): no PARTIAL

    @property
    def status(self) -> str:
        bad = self.total - self.ok
        if self.total == 0:
            return "N/A"
        if bad == 0:
            return "PASS"
        if self.binary or self.ok == 0:
            return "FAIL"
        return "PARTIAL"

    @property
    def status_icon(self) -> str:
        return {"PASS": "✅ PASS", "PARTIAL": "⚠️ PARTIAL", "FAIL": "❌ FAIL", "N/A": "— N/A"}[self.status]

    @property
    def counts(self) -> str:
        return f"{self.ok}/{self.total} {self.unit}".strip()


def requirements(ctx, evaluation) -> list[Requirement]:
    inv, profile = ctx.inventory, ctx.profile
    n = {r.id: 0 for r in evaluation.rules}
    for f in evaluation.findings:
        n[f.rule] = n.get(f.rule, 0) + 1
    calls = ctx.non_test_calls()
    canonical = [c for r in ctx.canonical_registries() for c in r["codes"]]
    builders = ctx.instance_builders()
    factories = {f"{b['path']}::{b['qualname']}" for b in inv.builders if b["kind"] == "factory"}
    terminal = [c for c in calls if profile.call_type(c) in profile.terminal_types
                and c["builder"] not in factories]
    in_except = [c for c in calls if c["in_except"]]
    coded = [c for c in calls if c["code"] and profile.is_code(c["code"])]
    handlers = [h for h in inv.handlers if not ctx.is_test(h["path"])]
    returns = [r for h in handlers for r in h["returns"]]
    literals = [c for c in inv.code_literals if not ctx.is_test(c["path"])]
    legacy = inv.legacy_codes
    envelope_fields = len(profile.section("envelope").get("fields", []))
    letters = set(profile.type_letters)
    out = [
        Requirement("Four reply types only (S/I/D/E), no info/warn/fail",
                    len(canonical) + len(calls) - sum(1 for c in canonical if c["type"] not in letters) - n.get("RA203", 0),
                    len(canonical) + len(calls), ("RA203",), "codes and calls"),
        Requirement("Exactly one builder, defining the canonical methods only",
                    max(len(builders) - n.get("RA201", 0) - sum(1 for b in builders if b["forbidden_methods"]
                                                                or b["missing_methods"]), 0)
                    if n.get("RA204", 0) == 0 else 0,
                    1 if not builders else len(builders), ("RA201", "RA202", "RA204"), "builders"),
        Requirement("Terminal replies returned immediately", len(terminal) - n.get("RA303", 0), len(terminal),
                    ("RA303",), "terminal calls"),
        Requirement("Builder frozen after a terminal reply", sum(1 for b in builders if b["frozen_after_terminal"]),
                    len(builders), ("RA205",), "builders", binary=len(builders) <= 1),
        Requirement("Layer ownership (registry codes and builder validation)",
                    len(canonical) - n.get("RA103", 0) + sum(1 for b in builders if b["validates_layer"]),
                    len(canonical) + len(builders), ("RA103", "RA206"), "codes and builders"),
        Requirement("Registered codes, not ad-hoc ones", len(coded) - n.get("RA301", 0) - sum(
            1 for c in coded if c["code"] in inv.legacy_code_set and c["code"] not in inv.canonical_codes),
                    len(coded), ("RA301", "RA108"), "calls with a code"),
        Requirement("Exception → Error, never Invalid", len(in_except) - n.get("RA304", 0), len(in_except),
                    ("RA304",), "replies built in except"),
        Requirement("Empty results → Success (heuristic)",
                    len([c for c in calls if profile.call_type(c) == "I"]) - n.get("RA305", 0),
                    len([c for c in calls if profile.call_type(c) == "I"]), ("RA305",), "Invalid replies"),
        Requirement("Standard envelope shape", envelope_fields * len(inv.envelopes) - n.get("RA401", 0),
                    envelope_fields * len(inv.envelopes), ("RA401", "RA402"), "envelope fields"),
        Requirement("One active registry", 1 if n.get("RA107", 0) == 0 and ctx.canonical_registries() else 0, 1,
                    ("RA107",), binary=True),
        Requirement("Legacy codes mapped or retired", sum(1 for c in legacy if c["class"] in (
            "mapped", "identical", "retired")), len(legacy), ("RA109", "RA110", "RA111"), "legacy codes"),
        Requirement("Handlers return replies, not raw dicts", len(returns) - n.get("RA306", 0), len(returns),
                    ("RA306",), "handler returns"),
        Requirement("Every handler behind the safety wrapper", len(handlers) - n.get("RA308", 0), len(handlers),
                    ("RA308",), "handlers"),
        Requirement("Codes emitted by the layer that owns their type", len(literals) - n.get("RA309", 0),
                    len(literals), ("RA309",), "code literals"),
        Requirement("Specific codes, no migration defaults left", len(coded) - n.get("RA310", 0), len(coded),
                    ("RA310",), "calls with a code"),
        Requirement("No branching on message text", 0 if n.get("RA307", 0) else 1, 1, ("RA307",), binary=True),
        Requirement("Pre-commit guard for reply rules", 0 if n.get("RA501", 0) else 1, 1, ("RA501",), binary=True),
    ]
    out += _result_requirements(ctx, n)
    return [r for r in out if any(rule in n for rule in r.rules)]


def _result_requirements(ctx, n: dict[str, int]) -> list[Requirement]:
    """Rows for profiles with a [result] table (IAR): envelope, reflection, errors, levels."""
    from ..results import UNKNOWN, analyse

    analysed = analyse(ctx)
    if not analysed:
        return []
    judged = [r for res in analysed for r in res.returns if r.verdict != UNKNOWN]
    errors = [r for r in judged if r.error_shape not in (None, "none")]
    bad_errors = sum(1 for r in errors if any(p.kind in ("bare-error", "error-object", "error-code")
                                              for p in r.problems))
    order = list(ctx.profile.section("compliance").get("order", []))
    target = str(ctx.profile.section("compliance").get("target", order[-1] if order else ""))
    wanted = order[order.index(target):] if target in order else []
    registrations = [r for r in ctx.inventory.registrations if not ctx.is_test(r["path"])]
    return [
        Requirement("Every action result carries the envelope", len(judged) - n.get("RA601", 0), len(judged),
                    ("RA601",), "returns known statically"),
        Requirement("Reflections complete, in vocabulary and range",
                    len(judged) - len({(id(r)) for r in judged for p in r.problems
                                       if p.kind in ("nested-missing", "value", "range")}),
                    len(judged), ("RA602", "RA603", "RA606"), "returns"),
        Requirement("Errors are objects with a valid code", len(errors) - bad_errors, len(errors),
                    ("RA604", "RA605", "RA607"), "returned errors"),
        Requirement(f"Actions at compliance {target} or above", sum(1 for res in analysed if res.level in wanted),
                    len(analysed), ("RA601", "RA602", "RA603", "RA604", "RA605", "RA606", "RA607"), "actions"),
        Requirement("Registrations name a function in the tree",
                    sum(1 for r in registrations if r["handler"]), len(registrations), ("RA609",), "registrations"),
        Requirement("Reflections reviewed, no migration defaults left", len(judged) - n.get("RA608", 0),
                    len(judged), ("RA608",), "returns"),
    ]


@dataclass
class Chunk:
    letter: str
    title: str
    why: str
    rules: tuple[str, ...]
    after: tuple[str, ...] = ()
    items: list[tuple[str, str, int, list[tuple[str, int]]]] = field(default_factory=list)


CHUNKS = (
    ("Safety net", "Put every handler behind the safety wrapper (plan phase 1): trace ids, crashes as Error "
     "replies, raw payloads auto-wrapped while the rest migrates.", ("RA308",), ()),
    ("Spec reconciliation: the envelope", "Decide first whether code adopts the spec's envelope or the spec "
     "follows the code: the answer ripples into every later chunk.", ("RA401", "RA402"), ()),
    ("One builder", "Remove the shadow builder (its factory returns the primary one), delete forbidden methods "
     "and fix calls that would crash; every call then passes the primary builder's validation.",
     ("RA204", "RA201", "RA202", "RA203", "RA206"), ("Spec reconciliation: the envelope",)),
    ("Frozen builder", "Freeze after invalid/denied/error and raise on any later call; add a test for it.",
     ("RA205",), ("One builder",)),
    ("Call-site corrections", "Return terminal replies, Error in broad excepts, Success for empty states, "
     "methods that match their code's type, registered codes.",
     ("RA303", "RA304", "RA302", "RA305", "RA301", "RA309"), ("One builder",)),
    ("Registry consolidation", "Map or retire every legacy code, fix mapping targets, stop importing the legacy "
     "registry at runtime, clean the canonical registry's codes.",
     ("RA109", "RA110", "RA111", "RA108", "RA107", "RA101", "RA102", "RA103", "RA104", "RA105", "RA106"),
     ("One builder",)),
    ("Strict mode: handlers return replies", "Turn raw dict returns into builder calls, pick the specific code "
     "wherever migrate left a default, and stop branching on message text; then the safety wrapper's legacy "
     "auto-wrap can go (plan phase 3).",
     ("RA306", "RA310", "RA307"), ("Call-site corrections",)),
    ("Guard hook", "Wire reply-audit into pre-commit so none of this comes back.", ("RA501",), ()),
    ("Find every action", "Make every registration name a function the scan can see, so no action's results "
     "go unchecked.", ("RA609",), ()),
    ("Envelope every result", "Return the result envelope from every action (`reply-audit migrate --select "
     "result-envelope` wraps literal dicts), then review each reflection migrate wrote.",
     ("RA601", "RA608"), ("Find every action",)),
    ("Reflection vocabulary", "Complete each reflection and use the profile's values: status, alignment and a "
     "confidence in range.", ("RA606", "RA602", "RA603"), ("Envelope every result",)),
    ("Error objects and codes", "Return errors as objects with a code of a known family, a message and "
     "details.", ("RA604", "RA605", "RA607"), ("Envelope every result",)),
)


def execution_plan(evaluation) -> list[Chunk]:
    from ..rules import get_rule

    by_rule: dict[str, list] = {}
    for f in evaluation.findings:
        by_rule.setdefault(f.rule, []).append(f)
    chunks: list[Chunk] = []
    present: set[str] = set()
    for title, why, rules, after in CHUNKS:
        items = [(rid, get_rule(rid).name, len(by_rule[rid]), [(f.path, f.line) for f in by_rule[rid]])
                 for rid in rules if by_rule.get(rid)]
        if items:
            present.add(title)
            chunks.append(Chunk("", title, why, rules, after, items))
    for i, chunk in enumerate(chunks):
        chunk.letter = chr(ord("A") + i)
    letters = {c.title: c.letter for c in chunks}
    for chunk in chunks:
        chunk.after = tuple(f"{letters[t]} ({t})" for t in chunk.after if t in present)
    return chunks
