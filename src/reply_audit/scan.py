"""The scan pipeline: discover files, extract facts per file, index them.

`file_facts.facts_for_source` is the unit of work (one file's bytes in, one
plain `FileFacts` out), so it runs in a pool or comes from a cache
(`workers`); `scan` strings the steps together and never stops on one bad
file: a file that cannot be read or parsed becomes an `unparseable` entry
with a line and a reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from .discovery import PRECOMMIT_FILES, Gathered, gather, precommit_path
from .facts.model import FileFacts, MappingFact
from .file_facts import facts_for_source, new_extractor
from .index import FileRecords, Inventory, ModuleMap, build_inventory
from .mappings import load_mapping_file
from .profile import Profile
from .record_class import record
from .records import Unparseable

if TYPE_CHECKING:  # pragma: no cover
    from .facts.extract import FactsExtractor


@record
class ScanResult:
    root: Path
    display_root: str
    profile: Profile
    files: list[FileFacts]
    inventory: Inventory
    mapping_files: list[str] = field(default_factory=list)
    tooling: dict[str, object] = field(default_factory=dict)
    mapping_facts: list[MappingFact] = field(default_factory=list)
    discovery_problems: list[tuple[str, str]] = field(default_factory=list)
    links: set[str] = field(default_factory=set)   # scanned files that are symbolic links: never rewritten
    stats: object = None                           # workers.ExtractStats: files parsed, from the cache, jobs

    @property
    def tool_codes(self) -> dict[str, dict[str, str]]:
        """Per-handler codes for `migrate` from mapping files ([tools.HANDLER]); later files win."""
        out: dict[str, dict[str, str]] = {}
        for fact in self.mapping_facts:
            for handler, codes in fact.tools.items():
                out.setdefault(handler, {}).update(codes)
        return out


def tooling_facts(root: Path, profile: Profile, texts: dict[str, str] | None = None) -> dict[str, object]:
    """Repository-level facts: is a reply-code guard wired into pre-commit? (TEXTS: the files' contents at a
    git revision, instead of reading ROOT.)"""
    patterns = [p.lower() for p in profile.setting("tooling", "guard_patterns")]
    if texts is not None:
        found = next(((name, texts[name]) for name in PRECOMMIT_FILES if texts.get(name) is not None), None)
    else:
        path = precommit_path(root)
        try:
            found = (path.name, path.read_text(encoding="utf-8", errors="replace")) if path else None
        except OSError:
            found = None
    if found is None:
        return {"precommit_config": None, "guard_hooks": []}
    name, text = found
    hooks = [
        {"line": n, "text": line.strip()}
        for n, line in enumerate(text.splitlines(), start=1)
        if re.match(r"\s*-?\s*(id|name|entry)\s*:", line) and any(p in line.lower() for p in patterns)
    ]
    return {"precommit_config": name, "guard_hooks": hooks}


def load_mappings(root: Path, profile: Profile, extra: list[Path]) -> tuple[list[MappingFact], list[str]]:
    facts, names = [], []
    for rel in profile.section("mappings").get("files", []):
        path = root / rel
        facts.append(load_mapping_file(path, profile, display=rel))
        names.append(rel)
    for path in extra:
        facts.append(load_mapping_file(path, profile, display=str(path)))
        names.append(str(path))
    return facts, names


def scan(root: Path, profile: Profile, mapping_paths: list[Path] | None = None,
         display_root: str | None = None, jobs: int | None = 1, cache_dir: Path | None = None,
         progress: Callable[[str, int, int], None] | None = None, gathered: Gathered | None = None) -> ScanResult:
    """Scan ROOT. JOBS: processes for extraction (1: this one; None: one per CPU for a large tree).
    CACHE_DIR: keep and reuse facts per file there (None: no cache). PROGRESS(stage, done, total). GATHERED:
    ROOT's files as already read (`discovery.gather`)."""
    from .cache import opened
    from .workers import extract_sources

    if gathered is None:
        gathered = gather(root, profile.scan_list("include"), profile.scan_list("exclude"))
    found = gathered.found
    mapping_facts, mapping_names = load_mappings(found.root, profile, list(mapping_paths or []))
    files, stats = extract_sources(gathered.sources, profile, jobs, opened(cache_dir, profile.digest),
                                   progress=progress)
    return ScanResult(root=found.root, display_root=display_root or str(root), profile=profile, files=files,
                      inventory=_inventory(profile, files, mapping_facts, found.problems),
                      mapping_files=mapping_names, tooling=tooling_facts(found.root, profile),
                      mapping_facts=mapping_facts, discovery_problems=list(found.problems), links=found.links,
                      stats=stats)


def scan_sources(sources: dict[str, bytes], profile: Profile, display_root: str,
                 mapping_facts: list[MappingFact] | None = None, tooling: dict[str, object] | None = None,
                 mapping_names: list[str] | None = None,
                 problems: list[tuple[str, str]] | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> ScanResult:
    """The scan of files held in memory (a git revision's blobs): relative path -> bytes, already selected;
    PROBLEMS lists files that could not be read, with the reason. PROGRESS(stage, done, total)."""
    extractor = new_extractor(profile)
    files = []
    for rel in sorted(sources):
        files.append(facts_for_source(sources[rel], rel, profile, extractor))
        if progress:
            progress(f"parsing {display_root}", len(files), len(sources))
    facts = list(mapping_facts or [])
    return ScanResult(root=Path(display_root), display_root=display_root, profile=profile, files=files,
                      inventory=_inventory(profile, files, facts, list(problems or [])),
                      mapping_files=list(mapping_names or []), tooling=dict(tooling or {}), mapping_facts=facts,
                      discovery_problems=list(problems or []))


def _inventory(profile: Profile, files: list[FileFacts], mapping_facts: list[MappingFact],
               problems: list[tuple[str, str]], modules: ModuleMap | None = None,
               kept: FileRecords | None = None) -> Inventory:
    inventory = build_inventory(profile, files, mapping_facts, modules, kept)
    for rel, reason in problems:
        inventory.unparseable.append(Unparseable(path=rel, line=1, col=0, message=reason))
    inventory.unparseable.sort(key=lambda u: (u.path, u.line))
    return inventory


def rescan(result: ScanResult, changed: dict[str, bytes], cache_dir: Path | None = None) -> ScanResult:
    """The scan of RESULT's tree with some files' contents replaced (in memory): only those are re-read, or
    taken from the facts cache in CACHE_DIR when it holds that content."""
    from .cache import FactsCache

    cache = FactsCache(cache_dir, result.profile.digest) if cache_dir is not None else None
    extractor: FactsExtractor | None = None   # made when a file must be parsed: the hook's are mostly cached

    def facts(rel: str, source: bytes) -> FileFacts:
        nonlocal extractor
        key, found = cache.find(rel, source) if cache is not None else ("", None)
        if found is None:
            extractor = extractor or new_extractor(result.profile)
            found = facts_for_source(source, rel, result.profile, extractor)
            if cache is not None:
                cache.put(key, found)
        return found

    files = [facts(f.path, changed[f.path]) if f.path in changed else f for f in result.files]
    return ScanResult(root=result.root, display_root=result.display_root, profile=result.profile, files=files,
                      inventory=_inventory(result.profile, files, result.mapping_facts, result.discovery_problems),
                      mapping_files=result.mapping_files, tooling=result.tooling,
                      mapping_facts=result.mapping_facts, discovery_problems=result.discovery_problems,
                      links=result.links)
