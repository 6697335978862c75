"""The compliance scorecard and the execution plan, computed from facts and findings.

Every requirement is one row with one definition of its status: it counts the
items it covers (`total`), those a finding of its rules is about (`failing`)
and those the scan could not verify (`unknown`: an opaque return, a code known
only at run time), never as compliant. PASS only when something was counted and
every item was verified; UNKNOWN when nothing failed but something could not be
verified; N/A, with the reason, when the check is off or there was nothing to
check. 0 <= ok <= total always.

Each rule names its row (`requirement`) and its plan chunk (`chunk`) on its own
class; rows and chunks are built from the rules, not from lists of ids.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import field
from typing import Any

from .record_class import record
from .rules.base import Evaluation, Finding, RuleContext
from .rules.ra303_terminal_not_returned import TerminalNotReturned


@record(frozen=True)
class Requirement:
    id: str
    name: str
    total: int
    failing: int = 0
    unknown: int = 0
    rules: tuple[str, ...] = ()
    unit: str = ""
    binary: bool = False   # one thing that is there or not (a hook, a freeze): no PARTIAL
    na: str = ""           # why nothing was checked; ignored when a finding fails the row

    def __post_init__(self) -> None:
        failing = max(self.failing, 0)
        total = max(self.total, failing)   # a finding is always about something counted
        object.__setattr__(self, "failing", failing)
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "unknown", min(max(self.unknown, 0), total - failing))

    @property
    def ok(self) -> int:
        return self.total - self.failing - self.unknown

    @property
    def reason(self) -> str:
        """Why the row is N/A ('' when it is not)."""
        if self.failing:
            return ""
        if self.na:
            return self.na
        return f"nothing to check: no {self.unit or 'item'} found" if self.total == 0 else ""

    @property
    def status(self) -> str:
        if self.reason:
            return "N/A"
        if self.failing == 0:
            return "PASS" if self.unknown == 0 else "UNKNOWN"
        if self.binary or self.ok == 0:
            return "FAIL"
        return "PARTIAL"

    @property
    def status_icon(self) -> str:
        return {"PASS": "✅ PASS", "PARTIAL": "⚠️ PARTIAL", "FAIL": "❌ FAIL", "UNKNOWN": "❔ UNKNOWN",
                "N/A": "— N/A"}[self.status]

    @property
    def counts(self) -> str:
        if self.status == "N/A":
            return self.reason
        text = f"{self.ok}/{self.total} {self.unit}".strip()
        return text + (f" ({self.unknown} unknown)" if self.unknown else "")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "requirement": self.name, "status": self.status, "ok": self.ok, "total": self.total,
                "failing": self.failing, "unknown": self.unknown, "reason": self.reason, "rules": list(self.rules)}


@record(frozen=True)
class Tally:
    """What one requirement counted: its items, those that could not be verified, and why it is N/A."""

    total: int
    unknown: int = 0
    na: str = ""
    failing: int | None = None   # None: the distinct places of its rules' findings


# id -> (the row's name, the unit it counts, binary)
REQUIREMENTS: dict[str, tuple[str, str, bool]] = {
    "reply-types": ("Four reply types only (S/I/D/E), no info/warn/fail", "codes and calls", False),
    "one-builder": ("Exactly one builder, defining the canonical methods only", "builders", False),
    "terminal-returned": ("Terminal replies returned immediately", "terminal calls", False),
    "builder-frozen": ("Builder frozen after a terminal reply", "builders", False),
    "layer-ownership": ("Layer ownership (registry codes and builder validation)", "codes and builders", False),
    "registry-well-formed": ("Registry codes well formed (format, layer, area, unique)", "registered codes", False),
    "registered-codes": ("Registered codes, not ad-hoc ones", "builder calls", False),
    "method-matches-type": ("Each call's method builds its code's type", "calls with a registered code", False),
    "except-error": ("Exception → Error, never Invalid", "replies built in except", False),
    "empty-success": ("Empty results → Success (heuristic)", "Invalid replies", False),
    "envelope-shape": ("Standard envelope shape", "envelope fields", False),
    "one-registry": ("One active registry", "", True),
    "legacy-mapped": ("Legacy codes mapped or retired", "legacy codes", False),
    "handlers-return-replies": ("Handlers return replies, not raw dicts", "handler returns", False),
    "handlers-wrapped": ("Every handler behind the safety wrapper", "handlers", False),
    "layer-emits": ("Codes emitted by the layer that owns their type", "code literals", False),
    "specific-codes": ("Specific codes, no migration defaults left", "calls with a code", False),
    "no-message-branching": ("No branching on message text", "", True),
    "guard-hook": ("Pre-commit guard for reply rules", "", True),
    "result-envelope": ("Every action result carries the envelope", "returns", False),
    "reflections": ("Reflections complete, in vocabulary and range", "returns", False),
    "error-objects": ("Errors are objects with a valid code", "returned errors", False),
    "compliance-level": ("Actions at compliance {target} or above", "actions", False),
    "registrations-resolve": ("Registrations name a function in the tree", "registrations", False),
    "reflections-reviewed": ("Reflections reviewed, no migration defaults left", "returns", False),
}
# rows that also count the findings of other rows' rules
_ALSO: dict[str, tuple[str, ...]] = {"compliance-level": ("result-envelope", "reflections", "error-objects")}


def _flagged(findings: list[Finding], rules: tuple[str, ...]) -> int:
    return len({(f.path, f.line, f.rule if f.line <= 0 else "") for f in findings if f.rule in rules})


def requirements(ctx: RuleContext, evaluation: Evaluation) -> list[Requirement]:
    """The scorecard rows of the rules that ran, in the order of REQUIREMENTS."""
    ran: dict[str, list[str]] = {}
    for rule in evaluation.rules:
        ran.setdefault(getattr(rule, "requirement", ""), []).append(rule.id)
    tallies = {**_tallies(ctx, evaluation), **_result_tallies(ctx)}
    names = {"compliance-level": _level_name(ctx)}
    out = []
    for rid, (name, unit, binary) in REQUIREMENTS.items():
        rules = tuple(sorted({*ran.get(rid, []), *(r for other in _ALSO.get(rid, ()) for r in ran.get(other, []))}))
        if not rules or rid not in tallies:
            continue
        tally = tallies[rid]()
        failing = _flagged(evaluation.findings, rules) if tally.failing is None else tally.failing
        out.append(Requirement(rid, names.get(rid, name), tally.total, failing, tally.unknown, rules, unit, binary,
                               tally.na))
    return out


def _tallies(ctx: RuleContext, evaluation: Evaluation) -> dict[str, Callable[[], Tally]]:
    """How each requirement of the reply system counts its items."""
    inv, profile = ctx.inventory, ctx.profile
    calls = ctx.non_test_calls()
    registries = ctx.canonical_registries()
    canonical = [c for r in registries for c in r.codes]
    builders = ctx.instance_builders()
    functions = bool(profile.section("builder").get("functions"))
    no_registry = "" if registries else "no code registry found: nothing to check codes against"
    no_builder = "" if builders else ("replies are built by functions ([builder.functions]): no builder class"
                                      if functions else "no builder class found")
    letters = set(profile.type_letters)
    groups = profile.code_re.groupindex   # a code without a layer or type part leaves those rules nothing to check
    no_layer = "" if "layer" in groups else "the code pattern names no layer: layer rules do not apply"
    no_type = "" if "type" in groups else "the code pattern names no type: a code says nothing of its reply's type"
    typed = canonical if "type" in groups else []
    terminal = TerminalNotReturned.judged(ctx)
    coded = [c for c in calls if c.code and profile.is_code(c.code)]
    registered = [c for c in coded if c.code in inv.canonical_codes]
    handlers = [h for h in inv.handlers if not ctx.is_test(h.path)]
    returns = [(h, r) for h in handlers for r in h.returns]
    raw = {(f.path, f.line) for f in evaluation.findings if f.rule == "RA306"}
    opaque = [r for h, r in returns if r.kind in ("other", "none") and (h.path, r.line) not in raw]
    code_findings = {(f.path, f.line) for f in evaluation.findings if f.rule in ("RA301", "RA311", "RA108")}
    unresolved = [c for c in calls if c.has_code and not c.code
                  and (c.path, c.line) not in code_findings]
    literals = [c for c in inv.code_literals if not ctx.is_test(c.path)]
    safety = profile.safety_decorator
    envelope_fields = len(profile.envelope_fields)
    rules_ran = {r.id for r in evaluation.rules}
    found = Counter(f.rule for f in evaluation.findings)
    flagged = {rid: found[rid] for rid in rules_ran}
    return {
        "reply-types": lambda: Tally(len(typed) + len(calls), failing=sum(
            1 for c in typed if c.type not in letters) + flagged.get("RA203", 0)),
        "one-builder": lambda: Tally(len(builders), na=no_builder, failing=(len(builders) if flagged.get("RA204")
                                     else min(len(builders), flagged.get("RA201", 0) + sum(
                                         1 for b in builders if b.forbidden_methods or b.missing_methods)))),
        "terminal-returned": lambda: Tally(len(terminal)),
        "builder-frozen": lambda: Tally(len(builders), na=no_builder,
                                        failing=sum(1 for b in builders if not b.frozen_after_terminal)),
        "layer-ownership": lambda: Tally(
            len(canonical) + len(builders), na=no_layer or no_registry,
            failing=flagged.get("RA103", 0) + sum(1 for b in builders if not b.validates_layer)),
        "registry-well-formed": lambda: Tally(sum(len(r.codes) for r in ctx.active_registries()),
                                              na=no_registry),
        "registered-codes": lambda: Tally(len(calls), unknown=len(unresolved), na=no_registry),
        "method-matches-type": lambda: Tally(len(registered), na=no_type or no_registry),
        "except-error": lambda: Tally(sum(1 for c in calls if c.in_except)),
        "empty-success": lambda: Tally(sum(1 for c in calls if profile.call_type(c) == "I")),
        "envelope-shape": lambda: Tally(envelope_fields * len(inv.envelopes),
                                        na="" if inv.envelopes else "no envelope class found"),
        "one-registry": lambda: Tally(1 if inv.registries else 0, na="" if inv.registries else "no code registry "
                                      "found", failing=1 if flagged.get("RA107") else 0),
        "legacy-mapped": lambda: Tally(len(inv.legacy_codes), failing=sum(
            1 for c in inv.legacy_codes if c.cls not in ("mapped", "identical", "retired"))),
        "handlers-return-replies": lambda: Tally(len(returns), unknown=len(opaque),
                                                 na="" if handlers else "no handler found"),
        "handlers-wrapped": lambda: Tally(len(handlers), na="the check is off ([handlers] safety-decorator = \"\")"
                                          if not safety else ("" if handlers else "no handler found")),
        "layer-emits": lambda: Tally(len(literals), na=no_layer or (no_registry if not literals else "")),
        "specific-codes": lambda: Tally(len(coded)),
        "no-message-branching": lambda: Tally(1 if inv.files_scanned else 0),
        "guard-hook": lambda: Tally(1),
    }


def _level_name(ctx: RuleContext) -> str:
    target = str(ctx.profile.setting("compliance", "target"))
    return REQUIREMENTS["compliance-level"][0].format(target=target)


def _result_tallies(ctx: RuleContext) -> dict[str, Callable[[], Tally]]:
    """How the rows of profiles with a [result] table (IAR) count: envelope, reflection, errors, levels. A return
    whose value the scan cannot see counts as unknown, never as carrying the envelope."""
    from .results import UNKNOWN, analyse

    analysed = analyse(ctx)
    if not analysed:
        return {}
    returns = [r for res in analysed for r in res.returns]
    judged = [r for r in returns if r.verdict != UNKNOWN]
    unseen = len(returns) - len(judged)
    errors = [r for r in judged if r.error_shape not in (None, "none")]
    bad_errors = sum(1 for r in errors if any(p.kind in ("bare-error", "error-object", "error-code")
                                              for p in r.problems))
    order = list(ctx.profile.setting("compliance", "order"))
    target = str(ctx.profile.setting("compliance", "target"))
    wanted = order[order.index(target):] if target in order else []
    registrations = [r for r in ctx.inventory.registrations if not ctx.is_test(r.path)]
    incomplete = len({id(r) for r in judged for p in r.problems if p.kind in ("nested-missing", "value", "range")})
    return {
        "result-envelope": lambda: Tally(len(returns), unknown=unseen),
        "reflections": lambda: Tally(len(returns), unknown=unseen, failing=incomplete),
        "error-objects": lambda: Tally(len(errors), failing=bad_errors),
        "compliance-level": lambda: Tally(len(analysed), failing=sum(1 for res in analysed
                                                                     if res.level not in wanted)),
        "registrations-resolve": lambda: Tally(len(registrations)),
        "reflections-reviewed": lambda: Tally(len(returns), unknown=unseen),
    }


@record
class Chunk:
    letter: str
    title: str
    why: str
    rules: tuple[str, ...]
    after: tuple[str, ...] = ()
    items: list[tuple[str, str, int, list[tuple[str, int]]]] = field(default_factory=list)


# id -> (title, why, the chunks it comes after)
CHUNKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "safety-net": ("Safety net", "Put every handler behind the safety wrapper (plan phase 1): trace ids, crashes as "
                   "Error replies, raw payloads auto-wrapped while the rest migrates.", ()),
    "envelope-spec": ("Spec reconciliation: the envelope", "Decide first whether code adopts the spec's envelope or "
                      "the spec follows the code: the answer ripples into every later chunk.", ()),
    "one-builder": ("One builder", "Remove the shadow builder (its factory returns the primary one), delete "
                    "forbidden methods and fix calls that would crash; every call then passes the primary builder's "
                    "validation.", ("envelope-spec",)),
    "frozen-builder": ("Frozen builder", "Freeze after invalid/denied/error and raise on any later call; add a test "
                       "for it.", ("one-builder",)),
    "call-sites": ("Call-site corrections", "Return terminal replies, Error in broad excepts, Success for empty "
                   "states, methods that match their code's type, registered codes on every reply.",
                   ("one-builder",)),
    "registry": ("Registry consolidation", "Map or retire every legacy code, fix mapping targets, stop importing the "
                 "legacy registry at runtime, clean the canonical registry's codes.", ("one-builder",)),
    "strict-mode": ("Strict mode: handlers return replies", "Turn raw dict returns into builder calls, pick the "
                    "specific code wherever migrate left a default, and stop branching on message text; then the "
                    "safety wrapper's legacy auto-wrap can go (plan phase 3).", ("call-sites",)),
    "guard-hook": ("Guard hook", "Wire reply-audit into pre-commit so none of this comes back.", ()),
    "find-actions": ("Find every action", "Make every registration name a function the scan can see, so no "
                     "action's results go unchecked.", ()),
    "envelope-results": ("Envelope every result", "Return the result envelope from every action (`reply-audit "
                         "migrate --select result-envelope` wraps literal dicts), then review each reflection "
                         "migrate wrote.", ("find-actions",)),
    "reflection-vocabulary": ("Reflection vocabulary", "Complete each reflection and use the profile's values: "
                              "status, alignment and a confidence in range.", ("envelope-results",)),
    "error-objects": ("Error objects and codes", "Return errors as objects with a code of a known family, a "
                      "message and details.", ("envelope-results",)),
}


def execution_plan(evaluation: Evaluation) -> list[Chunk]:
    """The chunks that have findings, in dependency order, each listing its rules' findings."""
    by_rule: dict[str, list[Finding]] = {}
    for f in evaluation.findings:
        by_rule.setdefault(f.rule, []).append(f)
    chunks: list[Chunk] = []
    present: set[str] = set()
    for cid, (title, why, after) in CHUNKS.items():
        rules = [r for r in evaluation.rules if getattr(r, "chunk", "") == cid]
        items = [(r.id, r.name, len(by_rule[r.id]), [(f.path, f.line) for f in by_rule[r.id]])
                 for r in rules if by_rule.get(r.id)]
        if items:
            present.add(cid)
            chunks.append(Chunk("", title, why, tuple(r.id for r in rules), after, items))
    for i, chunk in enumerate(chunks):
        chunk.letter = chr(ord("A") + i)
    letters = {cid: c.letter for cid, c in zip([c for c in CHUNKS if c in present], chunks)}
    for chunk in chunks:
        chunk.after = tuple(f"{letters[t]} ({CHUNKS[t][0]})" for t in chunk.after if t in present)
    return chunks
