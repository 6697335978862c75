"""The facts of one version of a file from the top-level statements it shares with versions read before (`history`
reads every version of every file, and most of a new version is the old one).

A version is cut into pieces of whole top-level statements (`top_level`); a piece whose bytes were parsed alone
before is not parsed again. What a piece says to the rest of the module (the names and import aliases it binds,
what its statements bind to calls, its functions, a main guard) is kept by its bytes. A piece is read alone, its
lines counted from its first (`FactsExtractor.read_alone`), and what reading it adds is kept by its bytes, the
lines of it the file's probes found, whether statements follow it and the file-wide switches, together with the
names of the module's context the reading looked up and what it found (import aliases, top-level bindings, the
mapping tables above it): a later version whose context gives the same answers for those names gets the kept
facts moved to the piece's new lines (`relocate`), without parsing or reading it. The module's bindings' own
lines are read at the end, from the version's context. A piece that defines the safety decorator (its facts
cite a line in their text) or adds entries to a mapping table above it is read in place, never kept. The file's
facts are those a whole read gives: `tests/test_versions.py` compares random edits with one.
"""

from __future__ import annotations

import ast
import hashlib
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any, Protocol

from ..record_class import record
from .expressions import BindingStep, _is_main_guard, _module_names, fold_bindings, top_level_functions
from .model import FileFacts, MappingFact
from .relocate import OutsideTheStatement, Within, moved, moved_line
from .scopes import Looked, Tally
from .top_level import Piece, parsed, statements

# the lists of FileFacts that reading a statement appends to (all but wrappers are moved)
LISTS = ("registries", "mappings", "builders", "factories", "calls", "handlers", "registrations", "code_literals",
         "imports", "message_uses", "envelopes", "wrappers")
KEPT_PIECES = 20_000   # pieces kept (both kinds): cleared when full (versions come in order)
CONTEXTS_KEPT = 4      # what a piece added, kept for at most this many contexts


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class PieceExtractor(Protocol):
    """What a reader of pieces asks of the extractor (`FactsExtractor`): its steps, and the state they keep."""

    facts: FileFacts
    tally: Tally
    hot_lines: list[int]
    mapping_by_name: dict[str, MappingFact]
    want_codes: bool
    want_calls: bool
    want_messages: bool
    walrus: bool

    def begin(self, source: bytes, facts: FileFacts) -> None: ...

    def module_context(self, body: list[ast.stmt] | None, names: set[str], aliases: dict[str, str],
                       bindings: dict[str, tuple[str, str, int]] | None = None,
                       constructions: set[tuple[str, int]] | None = None) -> None: ...

    def read_part(self, body: list[ast.stmt], more_after: bool) -> None: ...

    def read_alone(self, body: list[ast.stmt], text: bytes, spots: list[int], more_after: bool) \
        -> tuple[FileFacts, Tally, Looked] | None: ...

    def finish(self, script: bool, functions: list[str], params: dict[str, list[str]]) -> None: ...

    def binding_steps(self, body: list[ast.stmt], args: ast.arguments | None) -> Iterator[BindingStep]: ...


@record(slots=True)
class _Said:
    """What a piece says to the rest of its module, its lines counted from its first (1)."""

    names: set[str]
    aliases: dict[str, str]
    steps: list[BindingStep]   # in order, for `fold_bindings`
    script: bool
    functions: list[str]
    params: dict[str, list[str]]


@record(slots=True)
class _Added:
    """What reading a piece added to the file's facts, its lines counted from its first (1), its call indexes
    from its first call (0)."""

    lists: dict[str, list[Any]]
    tally: Tally


@record(frozen=True, slots=True)
class _Context:
    """The names of the module's context a reading of a piece looked up, each with what it found: the import alias
    (None: none), the top-level binding's callee and kind (its line is read at the end, not by the piece), and
    whether a mapping table of that name was defined above the piece."""

    aliases: tuple[tuple[str, str | None], ...]
    bindings: tuple[tuple[str, tuple[str, str] | None], ...]
    tables: tuple[tuple[str, bool], ...]


def _bound(bindings: dict[str, tuple[str, str, int]], name: str) -> tuple[str, str] | None:
    found = bindings.get(name)
    return None if found is None else (found[0], found[1])


class VersionReader:
    """Reads versions of files with one extractor (`FactsExtractor(..., across_versions=True)`), keeping what
    each piece said and added."""

    def __init__(self, extractor: PieceExtractor) -> None:
        self.extractor = extractor
        self.said: dict[bytes, _Said] = {}
        self.added: dict[bytes, list[tuple[_Context, _Added]]] = {}
        self.failed: set[bytes] = set()   # the digests of pieces that do not parse alone
        self.pieces_read = 0      # pieces read anew (for tests and benchmarks)
        self.pieces_kept = 0      # pieces whose facts were moved from an earlier version

    def read(self, source: bytes, facts: FileFacts, path: str) -> bool:
        """Fill FACTS with SOURCE's facts, as `FactsExtractor.extract` would; False when the file is to be read
        whole instead (it cannot be cut into pieces that parse alone): FACTS may then be partly filled, and is
        dropped."""
        if len(self.said) > KEPT_PIECES or len(self.added) > KEPT_PIECES or len(self.failed) > KEPT_PIECES:
            self.said.clear()
            self.added.clear()
            self.failed.clear()
        found = statements(source, path, _digest, self.said, self.failed)
        if found is None:
            return False
        ex = self.extractor
        ex.begin(source, facts)
        # every tree read stays alive until the file is done: the extractor keeps nodes by their ids
        alive = [body for _, _, body in found if body is not None]
        for _, key, body in found:
            if body is not None and key not in self.said:
                self.said[key] = self._said(body)
        said = [self.said[key] for _, key, _ in found]
        names: set[str] = set()
        aliases: dict[str, str] = {}
        steps: list[BindingStep] = []
        for (piece, _, _), one in zip(found, said):
            names |= one.names
            aliases.update(one.aliases)
            lines = piece.first - 1
            steps += [(name, (callee, kind, line + lines), always, made)
                      for name, (callee, kind, line), always, made in one.steps]
        constructions: set[tuple[str, int]] = set()
        bindings = fold_bindings(steps, constructions)
        ex.module_context(None, names, aliases, bindings, constructions)
        switches = repr((ex.want_codes, ex.want_calls, ex.want_messages, ex.walrus)).encode()
        last = len(found) - 1
        for i, (piece, key, body) in enumerate(found):
            more_after = i < last
            spots = self._spots(piece)
            added_key = _digest(b"\0".join([switches, key, repr((more_after, spots)).encode()]))
            kept = self._kept(added_key, aliases, bindings)
            if kept is None:
                if body is None:   # (its bytes parsed alone before, so they do again)
                    body = parsed(source, piece, path)
                    if body is None:
                        return False
                    alive.append(body)
                self.pieces_read += 1
                alone = self._read_alone(body, source[piece.start:piece.end], spots, piece, more_after)
                if alone is None:   # read where it is, and not kept
                    body = parsed(source, piece, path, in_place=True)
                    if body is None:
                        return False
                    alive.append(body)
                    self.extractor.read_part(body, more_after)   # (its facts go to the file's, not kept)
                    continue
                kept, looked = alone
                known = self.added.setdefault(added_key, [])
                if len(known) < CONTEXTS_KEPT:
                    known.append((self._context_of(looked, aliases, bindings), kept))
            else:
                self.pieces_kept += 1
            self._replay(kept, piece)
        params: dict[str, list[str]] = {}
        for one in said:   # (copies: the file's lists are not the kept ones)
            params.update((name, list(names)) for name, names in one.params.items())
        ex.finish(any(one.script for one in said), [f for one in said for f in one.functions], params)
        return True

    def _said(self, body: list[ast.stmt]) -> _Said:
        """What a piece says to its module. Kept by its bytes alone, though the binding steps are read with the
        file's `walrus` switch: bytes without `:=` hold no assignment expression, and with them the switch is on
        in every file."""
        names, aliases = _module_names(body)
        steps = list(self.extractor.binding_steps(body, None))
        functions, params = top_level_functions(body)
        return _Said(names, aliases, steps, any(_is_main_guard(s) for s in body), functions, params)

    def _spots(self, piece: Piece) -> list[int]:
        """The lines of PIECE the file's probes found, counted from its first."""
        hot = self.extractor.hot_lines
        lines = piece.first - 1
        return [h - lines for h in hot[bisect_left(hot, piece.first):bisect_right(hot, piece.last)]]

    def _read_alone(self, body: list[ast.stmt], text: bytes, spots: list[int], piece: Piece, more_after: bool) \
            -> tuple[_Added, Looked] | None:
        """What reading a piece adds, its lines counted from its first, and what of the module's context the
        reading looked up; None when it must be read in place."""
        alone = self.extractor.read_alone(body, text, spots, more_after)
        if alone is None:
            return None
        facts, tally, looked = alone
        added = _Added({name: getattr(facts, name) for name in LISTS}, tally)
        try:   # (a record citing a line outside its piece could not be moved with it)
            return _moved(added, 0, 0, Within(piece.last - piece.first + 1, len(facts.calls))), looked
        except OutsideTheStatement:
            return None

    def _context_of(self, looked: Looked, aliases: dict[str, str], bindings: dict[str, tuple[str, str, int]]) \
            -> _Context:
        """What a reading looked up of the module's context, with what it found there (before the piece)."""
        tables = self.extractor.mapping_by_name
        return _Context(tuple((n, aliases.get(n)) for n in sorted(looked.aliases.looked)),
                        tuple((n, _bound(bindings, n)) for n in sorted(looked.bindings.looked)),
                        tuple((n, n in tables) for n in sorted(looked.tables.looked)))

    def _kept(self, added_key: bytes, aliases: dict[str, str], bindings: dict[str, tuple[str, str, int]]) \
            -> _Added | None:
        """What reading a piece added, kept under ADDED_KEY for a context that agrees with this file's on every
        name that reading looked up (it read nothing else of it, so it would add the same again)."""
        tables = self.extractor.mapping_by_name
        for context, added in self.added.get(added_key, ()):
            if all(aliases.get(n) == v for n, v in context.aliases) \
                    and all(_bound(bindings, n) == v for n, v in context.bindings) \
                    and all((n in tables) == v for n, v in context.tables):
                return added
        return None

    def _replay(self, kept: _Added, piece: Piece) -> None:
        ex = self.extractor
        facts = ex.facts
        here = _moved(kept, piece.first - 1, len(facts.calls))
        for name in LISTS:
            getattr(facts, name).extend(here.lists[name])
        for mapping in here.lists["mappings"]:
            ex.mapping_by_name[mapping.name] = mapping
        ex.tally.add(here.tally)


def _moved(added: _Added, lines: int, calls: int, within: Within | None = None) -> _Added:
    """ADDED moved LINES lines and CALLS calls on (WITHIN: checked to stay inside its piece)."""
    tally = added.tally
    return _Added({name: [moved(r, lines, calls, within) for r in records] for name, records in added.lists.items()},
                  Tally({(callee, moved_line(n, lines, within)) for callee, n in tally.instantiated},
                        set(tally.position_refs), set(tally.module_reads), tally.module_touched,
                        [(name, moved_line(n, lines, within), moved_line(v, lines, within), col, text)
                         for name, n, v, col, text in tally.constants]))
