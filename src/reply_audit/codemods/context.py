"""What a codemod may consult while planning: the inventory, indexed for look-ups.

Built once per scan (`PlanContext(result)`), it answers the questions every
codemod asks: is this code registered, what does a legacy code map to, which
builder does a call use, which code literal sits inside a call, what does a
reference `Codes.X.code` become for another code, which builder class would a
handler construct, and which import statement brings a name into a file.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..facts.model import BuilderFact, FileFacts, HandlerFact, WrapperFact
from ..records import Builder, Call, CodeLiteral, Handler, LegacyCode
from ..scan import ScanResult
from .decisions import DecisionsFile
from .ftypes import Skip
from .imports import ImportFinder

if TYPE_CHECKING:  # pragma: no cover
    from .code_choice import CodeIndex, RankVocabulary


class PlanContext:
    def __init__(self, result: ScanResult, selected: frozenset[str] = frozenset(),
                 decisions: DecisionsFile | None = None) -> None:
        self.result = result
        self.decisions = decisions        # a reviewed decisions file: its choices win over the proposals
        self.selected = selected          # the names of the codemods of this run
        self.profile = result.profile
        self.inventory = result.inventory
        self.files: dict[str, FileFacts] = {f.path: f for f in result.files}
        self.canonical = result.inventory.canonical_codes
        self.imports = ImportFinder(result)

    # -- codes ------------------------------------------------------------------
    @cached_property
    def legacy(self) -> dict[str, LegacyCode]:
        """Legacy code -> its classification record (class, target, reason)."""
        return {c.code: c for c in self.inventory.legacy_codes}

    @staticmethod
    def not_editable(lit: CodeLiteral) -> Skip | None:
        """Why a code literal cannot be rewritten as one string, or None."""
        if not lit.plain:
            return Skip(f"{lit.code} is part of an f-string or of implicitly concatenated strings: edit it by hand")
        return None

    def registered(self, code: str) -> bool:
        """Is CODE defined by a canonical registry? (True for any code when the tree has none.)"""
        return not self.canonical or code in self.canonical

    @cached_property
    def _literals_by_line(self) -> dict[tuple[str, int], list[CodeLiteral]]:
        out: dict[tuple[str, int], list[CodeLiteral]] = defaultdict(list)
        for lit in self.inventory.code_literals:
            out[(lit.path, lit.line)].append(lit)
        return out

    def literal_in_call(self, call: Call, code: str) -> CodeLiteral | None:
        """The literal CODE among the arguments of CALL (the first one, in source order)."""
        for line in range(call.line, call.end_line + 1):
            for lit in self._literals_by_line.get((call.path, line), []):
                if lit.code == code and (lit.line, lit.col) > (call.line, call.col) \
                        and (lit.end_line, lit.end_col) <= (call.end_line, call.end_col):
                    return lit
        return None

    @cached_property
    def _calls_by_path(self) -> dict[str, list[Call]]:
        out: dict[str, list[Call]] = defaultdict(list)
        for call in self.inventory.calls:
            out[call.path].append(call)
        return out

    def call_with_literal(self, lit: CodeLiteral) -> Call | None:
        """The innermost builder call whose code argument is the literal LIT."""
        inside = [c for c in self._calls_by_path.get(lit.path, [])
                  if c.code == lit.code and (c.line, c.col) < (lit.line, lit.col)
                  and (lit.end_line, lit.end_col) <= (c.end_line, c.end_col)]
        return max(inside, key=lambda c: (c.line, c.col), default=None)

    @cached_property
    def _attrs(self) -> dict[tuple[str, str], str]:
        """(registry name, code) -> attribute name, for class and enum registries."""
        out: dict[tuple[str, str], str] = {}
        for reg in self.inventory.registries:
            if reg.role == "canonical":
                for c in reg.codes:
                    if c.attr:
                        out.setdefault((reg.name, c.code), c.attr)
        return out

    def code_expression(self, reference: str | None, code: str) -> str | None:
        """`Codes.X.code` becomes `Codes.Y.code` for CODE when the same registry names it; else None."""
        if not reference:
            return None
        parts = reference.split(".")
        suffix = [parts.pop()] if len(parts) > 2 and parts[-1] in ("code", "value") else []
        if len(parts) < 2:
            return None
        attr = self._attrs.get((parts[-2], code))
        return ".".join([*parts[:-1], attr, *suffix]) if attr else None

    # -- builders ---------------------------------------------------------------
    @cached_property
    def builders(self) -> dict[str, Builder]:
        return {b.ident: b for b in self.inventory.builders}

    def builder_has(self, call: Call, method: str) -> bool:
        """Does the builder CALL resolves to define METHOD? (True when it is not resolved.)"""
        builder = self.builders.get(call.builder or "")
        return builder is None or method in builder.methods

    @cached_property
    def primary_builder(self) -> str | None:
        """The class `dict-returns` constructs: [migrate] builder-class, or the canonical builder found."""
        configured = str(self.profile.migrate_value("builder_class") or "")
        if configured:
            return configured
        canonical = set(self.profile.builder_methods)
        candidates = [b for b in self.inventory.builders
                      if b.kind == "builder" and not b.nested_in and canonical <= set(b.methods)
                      and not self.inventory.test_files.__contains__(b.path)]
        if not candidates:
            return None
        ranked = sorted(candidates, key=lambda b: (-b.calls, b.path, b.line))
        names = Counter(b.name for b in candidates)
        best = ranked[0]
        return best.name if names[best.name] == 1 else None

    # -- per-handler codes ------------------------------------------------------
    @cached_property
    def tool_codes(self) -> dict[str, dict[str, str]]:
        return self.result.tool_codes

    # -- signatures and the safety wrapper -------------------------------------------
    def builder_fact(self, name: str) -> BuilderFact | None:
        """The typed facts of the builder class NAME (a top-level class outside tests, the only one so named)."""
        found = [b for f in self.result.files if not f.is_test for b in f.builders
                 if b.name == name and not b.nested_in]
        return found[0] if len(found) == 1 else None

    def handler_fact(self, handler: Handler) -> HandlerFact | None:
        facts = self.files.get(handler.path)
        return next((h for h in facts.handlers if h.name == handler.name and h.line == handler.line),
                    None) if facts else None

    @cached_property
    def safety_decorator(self) -> str:
        return self.profile.safety_decorator

    @cached_property
    def wrapper(self) -> WrapperFact:
        """What the safety decorator does with a result that is not a reply: [migrate] wrapper, else read from
        its definition in the tree (`unknown` when it is not there, or two definitions disagree)."""
        name = self.safety_decorator.rpartition(".")[2]
        configured = str(self.profile.migrate_value("wrapper") or "auto")
        found = [(f.path, w) for f in self.result.files if not f.is_test for w in f.wrappers if w.name == name]
        requires = found[0][1].requires if len({w.requires for _, w in found}) == 1 else None
        if configured != "auto":
            return WrapperFact(name=name, line=0, behaviour=configured, detail="[migrate] wrapper says so",
                               requires=requires)
        if not found:
            return WrapperFact(name=name, line=0, behaviour="unknown",
                               detail=f"{name} is not defined in the scanned tree")
        if len({w.behaviour for _, w in found}) > 1:
            where = ", ".join(f"{p}:{w.line} ({w.behaviour})" for p, w in found)
            return WrapperFact(name=name, line=0, behaviour="unknown", detail=f"{name} is defined differently: {where}",
                               requires=requires)
        path, fact = found[0]
        return WrapperFact(name=name, line=fact.line, behaviour=fact.behaviour,
                           detail=f"{path}:{fact.line}: {fact.detail}" if fact.detail else f"{path}:{fact.line}",
                           evidence_line=fact.evidence_line, requires=requires)

    @property
    def wrapper_takes_dicts(self) -> bool:
        """Does a wrapped handler that returns a raw dict keep working (passed through or auto-wrapped)?"""
        return self.wrapper.behaviour in ("passthrough", "autowrap")

    @cached_property
    def code_map(self) -> dict[str, str]:
        """Legacy code -> canonical code, from the mapping tables in code and the mapping files (files win)."""
        out: dict[str, str] = {}
        for mapping in self.inventory.mappings:
            for entry in mapping.entries:
                if entry.canonical:
                    out[entry.legacy] = entry.canonical
        return out

    @cached_property
    def code_texts(self) -> dict[str, str]:
        """Canonical code -> the words its registry entry carries (message key, description)."""
        out: dict[str, str] = {}
        for reg in self.inventory.registries:
            if reg.role == "canonical":
                for c in reg.codes:
                    if c.text:
                        out.setdefault(c.code, c.text)
        return out

    @cached_property
    def site_choices(self) -> list[dict[str, Any]]:
        """[[tools.HANDLER.sites]] tables of the mapping files, in file order."""
        return [row for fact in self.result.mapping_facts for row in fact.sites]

    @cached_property
    def code_index(self) -> CodeIndex:
        """The registry's codes as documents for ranking (code_choice): their registry text, plus the messages
        and places of the compliant builder calls that already use them."""
        from .code_choice import CodeIndex

        marked = {(m.path, m.line) for m in self.inventory.markers}   # a default a human has yet to review
        uses = [(c.code, c.path, (c.function or "").rsplit(".", 1)[-1], c.message or "")
                for c in self.inventory.calls
                if c.code and c.code in self.canonical and not c.in_builder
                and c.path not in self.inventory.test_files
                and not any((c.path, n) in marked for n in range(c.line, c.end_line + 1))]
        stop = frozenset(w.lower() for w in self.profile.migrate_value("codes.stop_words"))
        return CodeIndex.build(self.code_texts, uses, stop)

    @cached_property
    def rank_vocabulary(self) -> RankVocabulary:
        """What code ranking reads of the profile and the registry, once per plan (code_choice.rank)."""
        from .code_choice import RankVocabulary

        return RankVocabulary.of(self)

