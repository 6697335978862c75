"""One file's bytes in, one `FileFacts` out: the unit of work a pool runs or a cache keeps.

Never raises on bad input: a file that cannot be read, parsed or analysed
becomes facts with a `problem` (a line and a reason).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .directives import comment_directives, may_hold_directives
from .discovery import is_test_path
from .facts.model import FileFacts, ParseProblem
from .parsing import parse_source
from .profile import Profile

if TYPE_CHECKING:  # pragma: no cover
    from .facts.extract import FactsExtractor


def facts_for_source(source: bytes, rel: str, profile: Profile, extractor: FactsExtractor | None = None) -> FileFacts:
    is_test = is_test_path(rel, profile.scan_list("test_paths"))
    versions = extractor.versions if extractor is not None else None
    if versions is not None and not may_hold_directives(source):   # (directives are read near a whole tree)
        facts = FileFacts(path=rel, is_test=is_test)
        try:
            if versions.read(source, facts, rel):
                return facts
        except Exception:   # (nested too deeply, or anything else: read whole below, as a scan reads it)
            pass
    facts = FileFacts(path=rel, is_test=is_test)
    facts.lone_cr = b"\r" in source and b"\r" in source.replace(b"\r\n", b"")
    parsed = parse_source(source, rel)
    # (with Python's parse of the whole file, only the lines near each directive are tokenized)
    facts.suppressions, facts.markers = comment_directives(source, parsed.tree if parsed.parser == "ast" else None)
    facts.parser = parsed.parser
    facts.skipped = parsed.skipped
    if parsed.tree is None:
        facts.problem = parsed.problem
        return facts
    if extractor is None:
        extractor = new_extractor(profile)
    try:
        return extractor.extract(parsed.tree, source, facts)
    except RecursionError:
        return FileFacts(path=rel, is_test=facts.is_test, parser="none",
                         problem=ParseProblem(1, 0, "nested too deeply to analyse"))


def unreadable_facts(rel: str, profile: Profile, exc: OSError) -> FileFacts:
    """The facts of a file that could not be read: a problem entry, never an exception."""
    return FileFacts(path=rel, is_test=is_test_path(rel, profile.scan_list("test_paths")), parser="none",
                     problem=ParseProblem(1, 0, f"cannot read file: {exc.strerror or exc}"))


def new_extractor(profile: Profile, across_versions: bool = False) -> FactsExtractor:
    """An extractor for PROFILE (ACROSS_VERSIONS: for many versions of the same files, `history`). The extraction
    code is imported here, when a file is first parsed: a scan whose facts all come from the cache never loads
    it."""
    from .facts.extract import FactsExtractor

    return FactsExtractor(profile, across_versions)
