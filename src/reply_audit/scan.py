"""The scan pipeline: discover files, extract facts per file, index them.

`facts_for_file` is the unit of work (one file in, one plain `FileFacts`
out), so it can later run in a pool or come from a cache; `scan` strings the
steps together and never stops on one bad file: a file that cannot be read
or parsed becomes an `unparseable` entry with a line and a reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .discovery import discover, is_test_path
from .facts.extract import FactsExtractor
from .facts.model import FileFacts, MappingFact, ParseProblem
from .index import Inventory, build_inventory
from .mappings import load_mapping_file
from .parsing import parse_source
from .profile import Profile


@dataclass
class ScanResult:
    root: Path
    display_root: str
    profile: Profile
    files: list[FileFacts]
    inventory: Inventory
    mapping_files: list[str] = field(default_factory=list)


def facts_for_source(source: bytes, rel: str, profile: Profile, extractor: FactsExtractor | None = None) -> FileFacts:
    facts = FileFacts(path=rel, is_test=is_test_path(rel, profile.scan_list("test_paths")))
    parsed = parse_source(source, rel)
    facts.parser = parsed.parser
    facts.skipped = parsed.skipped
    if parsed.tree is None:
        facts.problem = parsed.problem
        return facts
    extractor = extractor or FactsExtractor(profile)
    try:
        return extractor.extract(parsed.tree, source, facts)
    except RecursionError:
        empty = FileFacts(path=rel, is_test=facts.is_test, parser="none",
                          problem=ParseProblem(1, 0, "nested too deeply to analyse"))
        return empty


def facts_for_file(root: Path, rel: str, profile: Profile, extractor: FactsExtractor | None = None) -> FileFacts:
    try:
        source = (root / rel).read_bytes()
    except OSError as exc:
        return FileFacts(path=rel, is_test=is_test_path(rel, profile.scan_list("test_paths")), parser="none",
                         problem=ParseProblem(1, 0, f"cannot read file: {exc.strerror or exc}"))
    return facts_for_source(source, rel, profile, extractor)


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
         display_root: str | None = None) -> ScanResult:
    found = discover(root, profile.scan_list("include"), profile.scan_list("exclude"))
    mapping_facts, mapping_names = load_mappings(found.root, profile, list(mapping_paths or []))
    extractor = FactsExtractor(profile)
    files = [facts_for_file(found.root, rel, profile, extractor) for rel in found.files]
    inventory = build_inventory(profile, files, mapping_facts)
    for rel, reason in found.problems:
        inventory.unparseable.append({"path": rel, "line": 1, "col": 0, "message": reason})
    inventory.unparseable.sort(key=lambda u: (u["path"], u["line"]))
    return ScanResult(root=found.root, display_root=display_root or str(root), profile=profile, files=files,
                      inventory=inventory, mapping_files=mapping_names)
