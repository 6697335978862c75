"""The cross-file index: joins per-file facts into one inventory.

Resolves what one file cannot know alone: which module an import names, which
builder class a receiver was bound from (through imports and factory
functions), the role of each registry (canonical or legacy), `Codes.X`
references, duplicate codes, and which registries are imported at runtime.
Legacy classification lives in `classify`; this module builds its inputs and
the inventory it is part of.
"""

from __future__ import annotations

import fnmatch
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import field
from functools import cache
from typing import Any, TypeVar, cast

from .facts.model import BuilderFact, CallFact, FileFacts, ImportFact, MappingFact, RegistryFact
from .facts.model import MappingEntry as MappingEntryFact
from .profile import Profile
from .record_class import record
from .records import (
    Builder,
    Call,
    CodeLiteral,
    Duplicate,
    Envelope,
    Fallback,
    Handler,
    HandlerRegistration,
    KeyNotLegacy,
    LegacyCode,
    Mapping,
    MappingEntry,
    Marker,
    MessageBranch,
    Place,
    Registration,
    Registry,
    RegistryCode,
    RegistryImport,
    Return,
    SharedCode,
    SkippedLines,
    Unparseable,
    copied,
)

# ---------------------------------------------------------------------------
# modules
# ---------------------------------------------------------------------------
_Made = TypeVar("_Made")
_Key = tuple[str, str, int, tuple[str, ...]]   # (the importer's folder for a relative import, module, level, names)


@cache
def _stem(path: str) -> str:
    """PATH without its suffix: the name a relative import looks for it by (`a/b` for `a/b.py`)."""
    return path[:-3] if path.endswith(".py") else path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path


def _package(path: str) -> str:
    """The target a relative import finds PATH by when it is a package's `__init__.py` (`a/b` for
    `a/b/__init__.py`), else its stem."""
    return path[:-len("/__init__.py")] if path.endswith("/__init__.py") else _stem(path)


@cache
def _suffixes(path: str) -> tuple[str, ...]:
    """The dotted names an absolute import may find PATH by: `b.c` and `c` for `a/b/c.py`, a package by its
    folder (`a/b/__init__.py` is `a.b` and `b`). Kept per path: `history` maps the same paths commit after
    commit."""
    parts = _stem(path).split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return tuple(".".join(parts[i:]) for i in range(len(parts)))


class ModuleMap:
    """Which files an import statement can name."""

    def __init__(self, paths: list[str], kept: ModuleMap | None = None) -> None:
        """KEPT: the map of another set of paths (`history`'s commit before): what it worked out that the
        change of paths cannot alter is taken over (see `_take`)."""
        self.paths = set(paths)
        self._memo: dict[_Key, list[str]] = {}
        self._reads: dict[_Key, tuple[str, ...]] = {}   # the names each entry's files were looked up by
        self._inits: dict[str, list[str]] = {}
        self._targets: dict[tuple[int, str], tuple[list[ImportFact], list[list[str]], list[_Key]]] = {}
        self._asked: set[_Key] = set()              # the answers and files' targets asked for of this map: the
        self._asked_targets: set[tuple[int, str]] = set()   # next map takes over only those (see `_take`)
        self.by_suffix: dict[str, list[str]] = defaultdict(list)
        for path in sorted(paths):
            for name in _suffixes(path):
                self.by_suffix[name].append(path)
        if kept is not None:
            self._take(kept)

    def _take(self, other: ModuleMap) -> None:
        """Keep the answers asked of OTHER that the paths added or removed since cannot change. A relative
        import's files are the paths among `{target}.py` and `{target}/__init__.py` (it read the targets), an
        absolute one's are those found by its dotted names (it read those names): an answer stands when no
        changed path has one of the names it read as its target (`a/b` names `a/b.py` and `a/b/__init__.py`) or
        its dotted name. The `__init__` files a path runs stand when no `__init__.py` changed."""
        changed = self.paths ^ other.paths
        touched = {name for path in changed for name in (_stem(path), *_suffixes(path), _package(path))}
        asked = set(other._asked)   # (a file's targets served from a kept entry asked its answers too)
        for where in other._asked_targets:
            asked.update(other._targets[where][2])
        for key in asked:
            if touched.isdisjoint(other._reads[key]):
                self._memo[key], self._reads[key] = other._memo[key], other._reads[key]
        for where in other._asked_targets:
            entry = other._targets[where]
            if all(key in self._memo for key in entry[2]):
                self._targets[where] = entry
        if not any(path.endswith("/__init__.py") or path == "__init__.py" for path in changed):
            self._inits = dict(other._inits)

    def package_inits(self, path: str) -> list[str]:
        """The `__init__.py` files in the tree that importing PATH runs: its own folder's and every enclosing
        package's up to the first folder that is no package, outermost first (memoized)."""
        hit = self._inits.get(path)
        if hit is None:
            folders, inits = path.split("/")[:-1], []
            while folders and (init := "/".join(folders) + "/__init__.py") in self.paths:
                inits.append(init)
                folders = folders[:-1]
            hit = self._inits[path] = inits[::-1]
        return hit

    def targets(self, facts: FileFacts) -> list[list[str]]:
        """For each import of FACTS, the files it may load, kept per list of imports and path: `history` indexes
        the same facts commit after commit, some copied to another path each time with the same list (a file's
        facts are never changed once extracted), so one entry serves a (file version, path) pair."""
        imports = facts.imports
        where = (id(imports), facts.path)
        self._asked_targets.add(where)
        kept = self._targets.get(where)
        if kept is None or kept[0] is not imports:
            keys = [self._key(facts.path, imp.module, imp.level, imp.names) for imp in imports]
            kept = self._targets[where] = (imports, [self._found(key) for key in keys], keys)
        return kept[1]

    def resolve(self, importer: str, module: str, level: int, names: list[str]) -> list[str]:
        """Files that `from <level dots><module> import <names>` or `import <module>` may load (memoized)."""
        return self._found(self._key(importer, module, level, names))

    @staticmethod
    def _key(importer: str, module: str, level: int, names: list[str]) -> _Key:
        return importer.rpartition("/")[0] if level else "", module, level, tuple(names)

    def _found(self, key: _Key) -> list[str]:
        self._asked.add(key)
        hit = self._memo.get(key)
        if hit is None:
            hit, self._reads[key] = self._resolve(*key)
            self._memo[key] = hit
        return hit

    def _resolve(self, folder: str, module: str, level: int, names: tuple[str, ...]) \
            -> tuple[list[str], tuple[str, ...]]:
        """The files, and the names they were looked up by (targets, or dotted names)."""
        candidates: list[str] = []
        if level:
            parts = folder.split("/") if folder else []
            up = level - 1
            base = parts[:len(parts) - up] if up <= len(parts) else []
            stem = "/".join(base + (module.split(".") if module else []))
            targets = [stem] + [f"{stem}/{n}" if stem else n for n in names]
            for target in targets:
                if not target:
                    continue
                for path in (f"{target}.py", f"{target}/__init__.py"):
                    if path in self.paths:
                        candidates.append(path)
            return candidates, tuple(targets)
        dotted = [module] + [f"{module}.{n}" for n in names]
        for name in dotted:
            hits = self.by_suffix.get(name, [])
            if hits:
                best = min(h.count("/") for h in hits)
                candidates.extend(h for h in hits if h.count("/") == best or name.count(".") > 0)
        return sorted(set(candidates)), tuple(dotted)


class FileRecords:
    """What the index made of each file the last time it indexed that path, to serve again: `history` indexes
    tree after tree, and most files are the same facts (the same objects) as in the tree before.

    A part's records depend on one file's facts and on ANSWERS the index worked out across files (the builder a
    call resolves to, the registrations of a handler). They are made again unless the path's facts are the very
    object they were made from and the answers compare equal. The records are frozen and shared between the
    inventories; nothing changes them."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], tuple[FileFacts, object, Any]] = {}

    def get(self, part: str, facts: FileFacts, answers: object, make: Callable[..., _Made], *args: Any) -> _Made:
        """PART's records of FACTS: those kept, if made of FACTS with equal ANSWERS, else `make(*args)`."""
        kept = self._kept.get((part, facts.path))
        if kept is not None and kept[0] is facts and kept[1] == answers:
            return cast(_Made, kept[2])
        made = make(*args)
        self._kept[part, facts.path] = (facts, answers, made)
        return made


class _MakeAgain(FileRecords):
    """No records kept: each part is made (a scan indexes its tree once)."""

    def get(self, part: str, facts: FileFacts, answers: object, make: Callable[..., _Made], *args: Any) -> _Made:
        return make(*args)


# ---------------------------------------------------------------------------
# the inventory
# ---------------------------------------------------------------------------
@record
class Inventory:
    """Everything `scan` knows about a tree, in JSON-ready form (see docs/json-schema.md)."""

    files_scanned: int = 0
    unparseable: list[Unparseable] = field(default_factory=list)
    fallback: list[Fallback] = field(default_factory=list)
    registries: list[Registry] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    shared_codes: list[SharedCode] = field(default_factory=list)
    mappings: list[Mapping] = field(default_factory=list)
    legacy_codes: list[LegacyCode] = field(default_factory=list)
    mapping_keys_not_legacy: list[KeyNotLegacy] = field(default_factory=list)
    builders: list[Builder] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    handlers: list[Handler] = field(default_factory=list)
    registrations: list[Registration] = field(default_factory=list)  # register calls / dispatch tables
    code_literals: list[CodeLiteral] = field(default_factory=list)
    registry_imports: list[RegistryImport] = field(default_factory=list)
    message_branches: list[MessageBranch] = field(default_factory=list)
    envelopes: list[Envelope] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)  # `# reply-audit: default-code` left by migrate
    # not serialized: joined objects for rules and reports
    canonical_codes: set[str] = field(default_factory=set)
    test_files: set[str] = field(default_factory=set)
    legacy_code_set: set[str] = field(default_factory=set)
    result_checks: list[Any] | None = None   # results.analyse(), computed on first use
    result_judge: Any = None


def _union(targets: list[list[str]]) -> frozenset[str]:
    """The files any of a file's imports may load."""
    return frozenset(path for found in targets for path in found)


def _role_matches(path: str, name: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        glob, _, wanted = pattern.partition("::")
        if fnmatch.fnmatchcase(path, glob) and (not wanted or wanted == name):
            return True
    return False


class IndexBuilder:
    def __init__(self, profile: Profile, files: list[FileFacts], mapping_files: list[MappingFact],
                 modules: ModuleMap | None = None, kept: FileRecords | None = None) -> None:
        """KEPT: the records made of the files of another tree, served again where they hold (`FileRecords`)."""
        self.profile = profile
        self.kept = kept if kept is not None else _MakeAgain()
        self.receiver_names = frozenset(profile.builder_list("receiver_names"))
        self.files = sorted(files, key=lambda f: f.path)
        self.by_path = {f.path: f for f in self.files}
        self.mapping_files = mapping_files
        paths = [f.path for f in self.files]
        self.modules = modules if modules is not None and modules.paths == set(paths) else ModuleMap(paths)
        self.builders: dict[str, list[tuple[str, BuilderFact]]] = defaultdict(list)
        self.factories: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.imported_by: dict[str, frozenset[str]] = {}   # path -> the files its imports may load
        self.targets_of: dict[str, list[list[str]]] = {}    # path -> the files each of its imports may load
        self.resolved_refs: dict[int, str | None] = {}       # id of a mapping entry -> the code its reference names

    # -- builders -----------------------------------------------------------------
    def _collect(self) -> None:
        for f in self.files:
            for b in f.builders:
                self.builders[b.name].append((f.path, b))
            for fac in f.factories:
                self.factories[fac.name].append((f.path, fac.returns))
            targets = self.targets_of[f.path] = self.modules.targets(f)
            imported = self.kept.get("imported", f, targets, _union, targets)
            if imported:   # (a file that imports nothing of the tree gets no entry)
                self.imported_by[f.path] = imported

    def resolve_builder(self, name: str | None, from_path: str, depth: int = 0) -> tuple[str, BuilderFact] | None:
        if not name or depth > 3:
            return None
        hits = self.builders.get(name)
        if hits:
            if len(hits) == 1:
                return hits[0]
            for path, b in hits:
                if path == from_path:
                    return path, b
            imported = self.imported_by.get(from_path, frozenset())
            for path, b in hits:
                if path in imported:
                    return path, b
            return hits[0]
        for path, returns in self.factories.get(name, []):
            if path == from_path or path in self.imported_by.get(from_path, ()) or len(self.factories[name]) == 1:
                found = self.resolve_builder(returns, path, depth + 1)
                if found:
                    return found
        return None

    # -- registries -----------------------------------------------------------------
    def _roles(self, registries: list[tuple[str, RegistryFact, bool]], mappings: list[MappingFact]) -> list[str]:
        explicit_canon = list(self.profile.setting("registries", "canonical"))
        explicit_legacy = list(self.profile.setting("registries", "legacy"))
        share = float(self.profile.setting("registries", "canonical_share"))
        keys = {e.legacy for m in mappings for e in m.entries}
        targets = {code for m in mappings for e in m.entries if (code := self._canonical(e))}
        roles = []
        for path, reg, in_tests in registries:
            codes = {c.code for c in reg.codes}
            if _role_matches(path, reg.name, explicit_canon) or reg.name in self.profile.member_registries:
                roles.append("canonical")
            elif _role_matches(path, reg.name, explicit_legacy):
                roles.append("legacy")
            elif in_tests:
                roles.append("test")
            else:
                canon_votes, legacy_votes = len(codes & targets), len(codes & keys)
                if canon_votes != legacy_votes:
                    roles.append("canonical" if canon_votes > legacy_votes else "legacy")
                else:
                    good = sum(1 for c in codes if self.profile.obeys_layer_rules(c))
                    roles.append("canonical" if codes and good / len(codes) >= share else "legacy")
        return roles

    def _used_registries(self, regs: list[tuple[str, RegistryFact, bool]],
                         mappings: list[MappingFact]) -> list[tuple[str, RegistryFact, bool]]:
        """[codes] scope = positions: the registries the profile names, and those a code position uses (a reply
        call passes one of their codes or members, a mapping table maps one). A class of environment variable
        names spelled like codes is no registry."""
        explicit = [*self.profile.setting("registries", "canonical"), *self.profile.setting("registries", "legacy")]
        used = {c.code for f in self.files for c in f.calls if c.code}
        used |= {lit.code for f in self.files for lit in f.code_literals if lit.at_position}
        used |= {x for m in mappings for e in m.entries for x in (e.legacy, e.canonical) if x}
        refs = []   # `ErrorCodes.NOT_FOUND`, `ErrorCode.NOT_FOUND.value` -> (["ErrorCodes"], "NOT_FOUND")
        for f in self.files:
            for ref in [c.code_ref for c in f.calls] + list(f.position_refs):
                parts = (ref or "").split(".")
                while len(parts) > 1 and parts[-1] in ("value", "code"):
                    parts.pop()
                if parts[-1]:
                    refs.append((parts[:-1], parts[-1]))
        out = []
        for path, reg, in_tests in regs:
            members = {c.attr for c in reg.codes if c.attr}
            named = any(member in members and (not owner or reg.name in owner) for owner, member in refs)
            if _role_matches(path, reg.name, explicit) or reg.name in self.profile.member_registries \
                    or named or used & {c.code for c in reg.codes}:
                out.append((path, reg, in_tests))
        return out

    # -- build ----------------------------------------------------------------------
    def build(self) -> Inventory:
        from .classify import classify_legacy, classify_mapping_entry

        self._collect()
        inv = Inventory(files_scanned=len(self.files), test_files={f.path for f in self.files if f.is_test})
        code_mappings = [(f.path, m) for f in self.files for m in f.mappings]
        all_mappings = [m for _, m in code_mappings] + list(self.mapping_files)

        regs = [(f.path, r, f.is_test) for f in self.files for r in f.registries]
        if self.profile.code_scope == "positions":
            regs = self._used_registries(regs, all_mappings)
        attr_codes: dict[str, str] = {}
        for _path, reg, _ in regs:
            for c in reg.codes:
                if c.attr:
                    attr_codes.setdefault(f"{reg.name}.{c.attr}", c.code)
                    attr_codes.setdefault(c.attr, c.code)
        self.attr_codes = attr_codes
        for m in all_mappings:
            for e in m.entries:
                if e.canonical is None and e.canonical_ref:
                    self.resolved_refs[id(e)] = self.resolve_ref(e.canonical_ref)
        roles = self._roles(regs, all_mappings)

        code_regs: dict[str, list[str]] = defaultdict(list)
        for (path, reg, _), role in zip(regs, roles):
            layer_type: dict[str, int] = defaultdict(int)
            seen: dict[str, int] = defaultdict(int)
            codes_out = []
            for c in reg.codes:
                parts = self.profile.parse_code(c.code)
                seen[c.code] += 1
                if parts:
                    layer_type[f"{parts.layer}-{parts.type}"] += 1
                codes_out.append(RegistryCode(
                    code=c.code, line=c.line, layer=parts.layer if parts else None,
                    area=parts.area if parts else None, type=parts.type if parts else None,
                    number=parts.number if parts else None, attr=c.attr, declared_layer=c.declared_layer,
                    declared_type=c.declared_type, text=c.text))
            ident = f"{path}::{reg.name}"
            for code, n in sorted(seen.items()):
                if n > 1:
                    inv.duplicates.append(Duplicate(registry=ident, code=code, count=n,
                                                    lines=sorted(c.line for c in reg.codes if c.code == code)))
            inv.registries.append(Registry(path=path, line=reg.line, name=reg.name, style=reg.style, role=role,
                                           definitions=len(reg.codes), distinct=len(seen), codes=codes_out,
                                           names=reg.names))
            if role in ("canonical", "legacy"):
                for code in seen:
                    code_regs[code].append(ident)
                if role == "canonical":
                    inv.canonical_codes.update(seen)
                else:
                    inv.legacy_code_set.update(seen)
        for code, idents in sorted(code_regs.items()):
            if len(idents) > 1:
                inv.shared_codes.append(SharedCode(code=code, registries=sorted(idents)))

        # mappings: user files override tables found in code
        for path, m in code_mappings + [(m.name, m) for m in self.mapping_files]:
            inv.mappings.append(Mapping(
                path=path, line=m.line, name=m.name, source="code" if m not in self.mapping_files else "file",
                entries=[MappingEntry(legacy=e.legacy, canonical=self._canonical(e), line=e.line,
                                      value_span=e.value_span,
                                      cls=classify_mapping_entry(self.profile, self._canonical(e), inv.canonical_codes),
                                      legacy_known=e.legacy in inv.legacy_code_set)
                         for e in m.entries]))
        chosen: dict[str, tuple[str | None, str]] = {}
        for path, m in code_mappings:
            for e in m.entries:
                chosen.setdefault(e.legacy, (self._canonical(e), f"{path}::{m.name}"))
        for m in self.mapping_files:
            for e in m.entries:
                chosen[e.legacy] = (self._canonical(e), m.name)
        inv.legacy_codes = classify_legacy(self.profile, inv.legacy_code_set, inv.canonical_codes, chosen, code_regs)
        for mapping in inv.mappings:
            for entry in mapping.entries:
                if not entry.legacy_known:
                    inv.mapping_keys_not_legacy.append(KeyNotLegacy(legacy=entry.legacy, path=mapping.path,
                                                                    line=entry.line, mapping=mapping.name))

        self._builders_and_calls(inv)
        self._envelopes(inv)
        self._imports(inv, regs, roles)
        positions_only = self.profile.code_scope == "positions"
        for f in self.files:
            if f.problem is not None:
                inv.unparseable.append(Unparseable(path=f.path, line=f.problem.line, col=f.problem.col,
                                                   message=f.problem.message))
            if f.parser == "fallback":
                inv.fallback.append(Fallback(path=f.path, skipped=[
                    SkippedLines(line=s.line, col=s.col, message=s.message) for s in f.skipped]))
            if not f.code_literals and not f.markers and not f.message_uses:
                continue
            literals, markers, branches = self.kept.get("literals", f, positions_only, self._literals, f,
                                                        positions_only)
            inv.code_literals.extend(literals)
            inv.markers.extend(markers)
            inv.message_branches.extend(branches)
        return inv

    @staticmethod
    def _literals(f: FileFacts, positions_only: bool) -> tuple[list[CodeLiteral], list[Marker], list[MessageBranch]]:
        """F's code literals (with POSITIONS_ONLY, those at a code position), `reply-audit:` markers and branches
        on a reply's message."""
        literals = [CodeLiteral(path=f.path, line=lit.line, col=lit.col, code=lit.code, function=lit.function,
                                end_line=lit.end_line, end_col=lit.end_col, plain=lit.plain)
                    for lit in f.code_literals if lit.at_position or not positions_only]
        markers = [Marker(path=f.path, line=int(line), marker=name) for line, names in f.markers.items()
                   for name in names]
        return literals, markers, [copied(MessageBranch, use, path=f.path) for use in f.message_uses]

    def _canonical(self, entry: MappingEntryFact) -> str | None:
        """The code a mapping entry maps to: its value, or the code its `Codes.X` reference resolves to in this
        tree (kept here, not in the facts: `history` indexes the same facts in other trees)."""
        return self.resolved_refs.get(id(entry), entry.canonical)

    def resolve_ref(self, ref: str) -> str | None:
        parts = ref.split(".")
        if parts and parts[-1] in ("code", "value"):
            parts = parts[:-1]
        for i in range(len(parts)):
            hit = self.attr_codes.get(".".join(parts[i:]))
            if hit:
                return hit
        return None

    def _registrations(self, inv: Inventory) -> dict[tuple[str, str], list[HandlerRegistration]]:
        """Resolve every registration to the function it names; (path, qualname) -> registrations."""
        by_file: dict[str, dict[str, Any]] = {}
        by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for f in self.files:
            names = {}
            for h in f.handlers:
                names[h.qualname] = h
                by_name[h.name].append((f.path, h.qualname))
            by_file[f.path] = names
        out: dict[tuple[str, str], list[HandlerRegistration]] = defaultdict(list)
        for f in self.files:
            for reg in f.registrations:
                hit = self._resolve_target(f, reg, by_file, by_name)
                inv.registrations.append(copied(Registration, reg, path=f.path,
                                                handler=f"{hit[0]}::{hit[1]}" if hit else None))
                if hit:
                    out[hit].append(HandlerRegistration(path=f.path, line=reg.line, name=reg.name, via=reg.via))
        return out

    def _method_of(self, f: FileFacts, cls: str, method: str, by_file: dict[str, dict[str, Any]],
                   by_name: dict[str, list[tuple[str, str]]]) -> tuple[str, str] | None:
        """`cls.method` for an object built from CLS in F (CLS "": unknown): in F, in the module F imports CLS
        from, else the only method of that name in the tree."""
        wanted = f"{cls.rsplit('.', 1)[-1]}.{method}" if cls else None
        if wanted and wanted in by_file.get(f.path, {}):
            return f.path, wanted
        original = f.import_aliases.get(cls, cls)
        for imp in f.imports if wanted else ():
            if original in imp.names:
                for path in self.modules.resolve(f.path, imp.module, imp.level, [original]):
                    if f"{original}.{method}" in by_file.get(path, {}):
                        return path, f"{original}.{method}"
        hits = [h for h in by_name.get(method, []) if "." in h[1] and (not wanted or h[1].endswith("." + wanted))]
        return hits[0] if len(hits) == 1 else None

    def _exported(self, path: str, name: str, by_file: dict[str, dict[str, Any]],
                  depth: int = 0) -> tuple[str, str] | None:
        """The function NAME of module PATH: defined there, or re-exported by it (`from .search import search as
        search_tool`, `from .files import *` in a package's `__init__`), followed three imports deep. Of two
        imports binding the name, the last wins, as in Python (memoized: star imports may form cycles)."""
        if name in by_file.get(path, {}):
            return path, name
        memo: dict[tuple[str, str, int], tuple[str, str] | None] = self.__dict__.setdefault("_exports", {})
        key = (path, name, depth)
        if key in memo:
            return memo[key]
        memo[key] = None   # a cycle back here finds nothing
        facts = self.by_path.get(path)
        if facts is None or depth >= 3:
            return None
        original = facts.import_aliases.get(name, name)
        for imp in reversed(facts.imports):
            if imp.in_function or not (original in imp.names or "*" in imp.names):
                continue
            for found in self.modules.resolve(path, imp.module, imp.level, [original]):
                if found != path and (hit := self._exported(found, original, by_file, depth + 1)):
                    memo[key] = hit
                    return hit
        return None

    def _resolve_target(self, f: FileFacts, reg: Any, by_file: dict[str, dict[str, Any]],
                        by_name: dict[str, list[tuple[str, str]]]) -> tuple[str, str] | None:
        """The (path, qualname) of the function a registration names: in the same module, through an
        import, a method of the registering class (`self.fn`), or, for `obj.fn` on an object of unknown
        class, the only function of that name in the tree. Anything else (a closure, a function of a module
        outside the tree, a lambda) is unresolved."""
        target = reg.target
        parts = target.split(".")
        last = parts[-1]
        local = by_file.get(f.path, {})
        if target == "<lambda>":
            return None
        if len(parts) == 1:
            if reg.scope and any(q.startswith(reg.scope + ".") for q in local):
                return None   # possibly a function defined inside the registering function: a closure
            if target in local:
                return f.path, target
        if parts[0] in ("self", "cls") and len(parts) == 2:
            owner = (reg.scope or "").rsplit(".", 1)[0] if reg.scope and "." in reg.scope else None
            wanted = f"{owner}.{last}" if owner else None
            return (f.path, wanted) if wanted in local else None
        if len(parts) > 1 and target in local:  # Class.method
            return f.path, target
        if len(parts) == 2 and reg.receiver is not None:   # a local object, whatever module shares its name
            return self._method_of(f, reg.receiver, last, by_file, by_name)
        head = parts[0]
        original = f.import_aliases.get(head, head)
        imported_from_outside = False
        for imp in f.imports:
            if len(parts) == 1 and original in imp.names:
                files = self.modules.resolve(f.path, imp.module, imp.level, [original])
                for path in files:
                    hit = self._exported(path, original, by_file)
                    if hit:
                        return hit
                imported_from_outside = not files
            elif len(parts) > 1 and (original in imp.names or imp.module == original
                                     or imp.module.split(".")[-1] == original or
                                     imp.module == ".".join(parts[:-1])):
                files = self.modules.resolve(f.path, imp.module, imp.level, imp.names)
                for path in files:
                    for qual in (".".join(parts[1:]), last):
                        if qual in by_file.get(path, {}):
                            return path, qual
                    hit = self._exported(path, last, by_file) if len(parts) == 2 else None
                    if hit:
                        return hit
                if not files:
                    imported_from_outside = True
        if len(parts) == 1 or imported_from_outside:
            return None
        hits = by_name.get(last, [])
        if len(hits) == 1:
            return hits[0]
        top = [h for h in hits if h[1] == last]
        return top[0] if len(top) == 1 else None

    def _builders_and_calls(self, inv: Inventory) -> None:
        registered_at = self._registrations(inv)
        instantiated: dict[str, set[tuple[str, int]]] = defaultdict(set)
        for f in self.files:
            for callee, line in f.instantiations:
                if callee not in self.builders and callee not in self.factories:
                    continue   # (no class of the tree that builds replies: most constructions)
                found = self.resolve_builder(callee, f.path)
                # a class whose classmethods build replies (kind factory) is a reply, not a builder, when constructed
                if found and found[1].kind == "builder":
                    instantiated[f"{found[0]}::{found[1].qualname}"].add((f.path, line))
        for f in self.files:
            if not f.calls and not f.handlers:
                continue
            resolved = [self._resolved(call, f.path) for call in f.calls]
            registered = [registered_at.get((f.path, h.qualname), []) for h in f.handlers]
            calls, handlers = self.kept.get("calls", f, (resolved, registered), self._calls_and_handlers, f,
                                            resolved, registered)
            inv.calls.extend(calls)
            inv.handlers.extend(handlers)
        canonical = self.profile.builder_methods
        forbidden = self.profile.forbidden_methods
        calls_through = Counter(c.builder for c in inv.calls)
        for f in self.files:
            for b in f.builders:
                ident = f"{f.path}::{b.qualname}"
                inv.builders.append(Builder(
                    path=f.path, line=b.line, name=b.name, qualname=b.qualname, kind=b.kind, nested_in=b.nested_in,
                    methods=sorted(b.methods), forbidden_methods=sorted(m for m in b.methods if m in forbidden),
                    missing_methods=sorted(m for m in canonical if m not in b.methods),
                    validates_format=b.validates_format, validates_layer=b.validates_layer,
                    type_ignored_by=b.type_ignored_by, frozen_after_terminal=b.frozen_after_terminal,
                    instantiated_at=[Place(path=p, line=n) for p, n in sorted(instantiated.get(ident, ()))],
                    calls=calls_through[ident]))

    def _resolved(self, call: CallFact, path: str) -> tuple[str | None, str | None] | None:
        """(the builder, the code) of a reply call of the file at PATH; None for a call that is no reply call:
        its receiver resolves to no builder and is not named like one."""
        found = self.resolve_builder(call.binding, path) if call.binding else None
        named = call.binding_kind in ("name", "function") \
            or call.receiver.rsplit(".", 1)[-1] in self.receiver_names
        if found is None and not named:
            return None
        code = call.code or (self.resolve_ref(call.code_ref) if call.code_ref else None)
        return f"{found[0]}::{found[1].qualname}" if found else None, code

    @staticmethod
    def _calls_and_handlers(f: FileFacts, resolved: list[tuple[str | None, str | None] | None],
                            registered: list[list[HandlerRegistration]]) -> tuple[list[Call], list[Handler]]:
        """The records of F's reply calls and handlers, given what the index resolved for each call (`_resolved`)
        and each handler's registrations. A candidate handler nobody registers is left out."""
        calls = [copied(Call, call, path=f.path, code=joined[1], guards=list(call.guards), builder=joined[0],
                        type=call.reply_type)
                 for call, joined in zip(f.calls, resolved) if joined is not None]
        replies = {i for i, joined in enumerate(resolved) if joined is not None}
        handlers = []
        for h, registrations in zip(f.handlers, registered):
            if h.candidate and not registrations:
                continue
            counts: dict[str, int] = defaultdict(int)
            returns: list[Return] = []
            for r in h.returns:
                kind = r.kind
                if kind == "call":
                    kind = "builder" if r.call in replies else "other"
                counts[kind] += 1
                returns.append(copied(Return, r, kind=kind))
            handlers.append(copied(Handler, h, path=f.path, returns_by_kind=dict(sorted(counts.items())),
                                   returns=returns, registered=registrations))
        return calls, handlers

    def _envelopes(self, inv: Inventory) -> None:
        """The wire shape of each Reply class: its serializer's keys, nested serializers flattened (a.b)."""
        by_class: dict[str, tuple[str, Any]] = {}
        for f in self.files:
            for env in f.envelopes:
                by_class.setdefault(env.cls, (f.path, env))

        def flatten(cls: str, prefix: str, depth: int) -> list[str]:
            env = by_class[cls][1]
            out = []
            for key in env.keys:
                out.append(prefix + key)
                inner = env.nested.get(key)
                if inner and inner in by_class and depth < 3:
                    out.extend(flatten(inner, f"{prefix}{key}.", depth + 1))
            return out

        from .names import Names

        reply_classes = Names(self.profile.builder_list("reply_classes"))
        for name in sorted(n for n in by_class if n in reply_classes):
            if name in by_class:
                path, env = by_class[name]
                inv.envelopes.append(Envelope(path=path, line=env.line, cls=name, method=env.method,
                                              fields=flatten(name, "", 0)))

    def _imports(self, inv: Inventory, regs: list[tuple[str, RegistryFact, bool]], roles: list[str]) -> None:
        role_of_file: dict[str, set[str]] = defaultdict(set)
        names_of_file: dict[str, set[str]] = defaultdict(set)
        for (path, reg, _), role in zip(regs, roles):
            if role in ("canonical", "legacy"):
                role_of_file[path].add(role)
                names_of_file[path].add(reg.name)
        # a package's __init__ runs whenever one of its modules is imported: the registries it imports at
        # module scope are loaded by every such import too (`from pkg.trace import x` loads pkg/__init__.py)
        init_loads: dict[str, set[str]] = defaultdict(set)
        for f in self.files:
            if f.path.endswith("__init__.py"):
                for imp, targets in zip(f.imports, self.targets_of[f.path]):
                    if not imp.in_function and not imp.type_checking:
                        init_loads[f.path].update(t for t in targets if t in role_of_file and t != f.path)
        if not role_of_file:
            return   # no registry file: no import loads one
        # whether importing a file can load a registry: it is one, or a package __init__ it runs imports one
        reaches: dict[str, bool] = {}
        for f in self.files:
            for imp, targets in zip(f.imports, self.targets_of[f.path]):
                if not targets:
                    continue
                for target in targets:
                    if target not in reaches:
                        reaches[target] = target in role_of_file or any(
                            init_loads.get(init) for init in self.modules.package_inits(target))
                if not any(reaches[target] for target in targets):
                    continue
                loaded: dict[str, str | None] = {t: None for t in targets if t in role_of_file and t != f.path}
                for target in targets:
                    for init in self.modules.package_inits(target):
                        for registry in sorted(init_loads.get(init, ())):
                            if registry != f.path and not f.path.startswith(init[:-len("__init__.py")]):
                                # (a module of that package runs its __init__ first anyway)
                                loaded.setdefault(registry, init)
                for target, via in loaded.items():
                    inv.registry_imports.append(RegistryImport(
                        path=f.path, line=imp.line, module="." * imp.level + imp.module, names=list(imp.names),
                        registry_path=target, roles=sorted(role_of_file[target]),
                        scope="function" if imp.in_function else "module", via=via, type_checking=imp.type_checking,
                        in_tests=f.is_test, runtime=not f.is_test and not imp.type_checking))


def build_inventory(profile: Profile, files: list[FileFacts], mapping_files: list[MappingFact],
                    modules: ModuleMap | None = None, kept: FileRecords | None = None) -> Inventory:
    """The inventory; MODULES, a ModuleMap of the same paths, is reused (with its resolutions) when given, and
    KEPT's records of the files wherever they hold (`FileRecords`)."""
    return IndexBuilder(profile, files, mapping_files, modules, kept).build()
