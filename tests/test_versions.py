"""`facts.versions`: every version of a file read a top-level statement at a time, the statements an earlier version
shared taken from what was kept of them. Each version's facts must be those a fresh extraction gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from reply_audit.facts.extract import FactsExtractor
from reply_audit.facts.versions import VersionReader
from reply_audit.file_facts import facts_for_source
from reply_audit.profile import load_profile

ROOT = Path(__file__).resolve().parents[1]


def _read(versions: list[bytes], profile_name: str = "canonical", path: str = "tools.py") \
        -> tuple[VersionReader, list[list[int]]]:
    """Read VERSIONS in order with one extractor across versions, checking each against a fresh extraction;
    the reader, and (pieces kept, pieces read) after each version."""
    profile = load_profile(profile_name)
    across = FactsExtractor(profile, across_versions=True)
    reader = across.versions
    assert reader is not None
    counts = []
    for source in versions:
        assert facts_for_source(source, path, profile, across).to_row() == \
            facts_for_source(source, path, profile).to_row()
        counts.append([reader.pieces_kept, reader.pieces_read])
    return reader, counts


_TOOLS = b'''from replies import ReplyBuilder

rb = ReplyBuilder()


@mcp.tool()
def find(path: str) -> dict:
    if not path:
        return rb.invalid("WA-RES-I-001", message="no path")
    return {"success": True}


@mcp.tool()
def remove(path: str) -> dict:
    return rb.denied("EN-WRITE-D-001")
'''


def test_statements_a_version_shares_are_kept_and_moved():
    """A comment above everything is a piece of its own: the four pieces below it are kept, one line lower."""
    profile = load_profile("canonical")
    across = FactsExtractor(profile, across_versions=True)
    first = facts_for_source(_TOOLS, "tools.py", profile, across)
    second = facts_for_source(b"# a new first line\n" + _TOOLS, "tools.py", profile, across)
    assert (across.versions.pieces_kept, across.versions.pieces_read) == (4, 5)   # type: ignore[union-attr]
    assert [c.line for c in first.calls] == [9, 15] and [c.line for c in second.calls] == [10, 16]
    assert [r.call for h in second.handlers for r in h.returns] == [0, None, 1]
    assert second.instantiations == [("ReplyBuilder", 4)]


def test_a_statement_is_read_anew_when_a_name_it_looked_up_changes():
    """The handlers resolve `rb` in the module's bindings: when `rb` is bound to another callee they are read
    again; the import above them is kept."""
    second = b"# a new first line\n" + _TOOLS
    _, counts = _read([_TOOLS, second, second.replace(b"rb = ReplyBuilder()", b"rb = make_other()")])
    assert counts == [[0, 4], [4, 5], [6, 8]]


def test_a_binding_that_moves_is_found_where_it_now_is():
    """Only the binding's callee and kind are part of what a handler looked up: its line is read at the end."""
    moved = _TOOLS.replace(b"rb = ReplyBuilder()\n", b"\n\nrb = ReplyBuilder()\n")
    _, counts = _read([_TOOLS, moved])
    assert counts == [[0, 4], [3, 5]]


def test_an_alias_a_statement_reads_changes_what_it_is():
    aliased = b"from safety import safe_tool as tool\n\n@tool\ndef find(path):\n    return {'success': True}\n"
    plain = aliased.replace(b" as tool", b"")
    _, counts = _read([aliased, plain, aliased], "canonical")
    assert counts == [[0, 2], [0, 4], [2, 4]]   # the third is the first again: both its pieces kept


_TABLE = b'''LEGACY_TO_CANONICAL = {
    "OLD_ONE": "WA-RES-I-001",
    "OLD_THREE": "WA-RES-I-003",
}
LEGACY_TO_CANONICAL["OLD_TWO"] = "WA-RES-I-002"


def tool():
    return {"error": "OLD_ONE"}
'''


def test_entries_added_to_a_table_above_are_read_in_place_every_time():
    _, counts = _read([_TABLE, b"# moved\n" + _TABLE, _TABLE])
    # the assignment to the table's entry is read in each version (in place, never kept); the table and the
    # function are kept, the new comment above them is a piece of its own
    assert counts == [[0, 3], [2, 5], [4, 6]]


def test_the_safety_decorators_definition_is_read_in_place():
    """Its facts cite a line in their text: it is never moved."""
    source = b'''from replies import Reply

def mcp_safe_tool(fn):
    def wrapped(*args):
        result = fn(*args)
        if not isinstance(result, Reply):
            raise TypeError("not a reply")
        return result
    return wrapped
'''
    _, counts = _read([source, b"\n\n" + source])
    assert counts == [[0, 2], [1, 4]]   # the blank lines above the import are a piece: the import is kept


def test_module_constants_count_as_a_registry_across_pieces():
    """Three code constants make a registry (min_codes), two are literals: the tally of constants is the file's.
    A statement that becomes the last one is read again (whether statements follow is part of its key)."""
    three = b'NOT_FOUND = "WA-RES-I-001"\nDENIED = "EN-WRITE-D-001"\nFAILED = "MCP-SYS-E-001"\n'
    two = three.replace(b'FAILED = "MCP-SYS-E-001"\n', b"")
    _, counts = _read([three, two, three])
    assert counts == [[0, 3], [1, 4], [4, 4]]


def test_a_main_guard_and_functions_are_the_files():
    source = b"def main(a, b=1):\n    pass\n\n\nif __name__ == '__main__':\n    main(1)\n"
    reader, _ = _read([source, source.replace(b"main(1)", b"main(2)")])
    assert (reader.pieces_kept, reader.pieces_read) == (1, 3)


def test_a_file_with_a_directive_is_read_whole():
    """Suppressions are read near the tree's statements: such a file is not read in pieces."""
    source = _TOOLS.replace(b'message="no path")', b'message="no path")  # reply-audit: ignore[RA101]')
    reader, _ = _read([source, b"\n" + source])
    assert (reader.pieces_kept, reader.pieces_read) == (0, 0)


@pytest.mark.parametrize("source", [
    b"def f(:\n    pass\n",                                       # a syntax error: the fallback parser's problem
    b"x = (" * 400 + b")" * 400 + b"\n",                          # nested too deeply
    b"",
    b"\xef\xbb\xbfx = 1\n",
    b"from __future__ import annotations\n\xef\xbb\xbfx = 1\n",   # a mark below the first line: an error
    b'rb = ReplyBuilder()\r\nreply = rb.error \\\r\n("WA-RES-E-001")\r\n',   # one call, over two lines
    b'NOT_FOUND = "WA-RES-" \\\r\n"I-001"\r\n',
])
def test_a_file_the_pieces_cannot_read_gives_what_a_whole_read_gives(source):
    _read([source, source + b"y = 2\n", source])


def _mutations(source: bytes, rng: random.Random, count: int) -> list[bytes]:
    """COUNT versions of SOURCE, each a random edit of the one before: lines deleted, duplicated, moved, blank or
    comment lines inserted, a line changed, an indented line dedented (a syntax error, sometimes)."""
    versions = [source]
    lines = source.splitlines(keepends=True)
    for _ in range(count):
        kind = rng.randrange(7)
        i = rng.randrange(len(lines) + 1)
        j = min(len(lines), i + rng.randrange(1, 12))
        if kind == 0 and lines:
            del lines[i:j]
        elif kind == 1:
            lines[i:i] = lines[i:j]
        elif kind == 2:
            lines[i:i] = [b"\n"] * rng.randrange(1, 4)
        elif kind == 3:
            lines[i:i] = [b"# a comment\n"]
        elif kind == 4 and i < len(lines):
            lines[i] = lines[i].replace(b"return", b"return None or", 1)
        elif kind == 5 and i < len(lines):
            lines[i] = lines[i].lstrip()
        elif kind == 6 and lines:
            block = lines[i:j]
            del lines[i:j]
            at = rng.randrange(len(lines) + 1)
            lines[at:at] = block
        versions.append(b"".join(lines))
    return versions


@pytest.mark.parametrize("path, profile_name", [
    ("examples/legacy_mcp/src/notesvc/server.py", "canonical"),
    ("examples/legacy_mcp/src/notesvc/replies/codes.py", "canonical"),
    ("tests/fixtures/decisions/lending/server.py", "canonical"),
    ("tests/fixtures/independent_notes/src/notesvc/server.py", "iar"),
    ("src/reply_audit/facts/extract.py", "canonical"),
])
def test_random_edits_give_the_facts_a_fresh_extraction_gives(path, profile_name):
    rng = random.Random(path)
    _read(_mutations((ROOT / path).read_bytes(), rng, 40), profile_name, path)


def test_a_byte_order_mark_seen_alone_is_no_piece_below_the_first_line():
    """Bytes opening with a mark parse alone only at the start of a file: known from one version, they are not
    a piece lower down in another."""
    _read([b"\xef\xbb\xbfx = 1\n", b"y = 2\n\xef\xbb\xbfx = 1\n"])
    _read([b"\xef\xbb\xbf", b"x = 1\n\xef\xbb\xbf"])


def test_a_table_extended_then_replaced_in_one_statement_is_read_in_place():
    """The entry goes to the table above, then the name is bound to a new table: reading it alone would lose the
    entry, so it is read where it is every time."""
    source = b'''LEGACY_TO_CANONICAL = {"WA-RES-I-001": "WA-RES-I-002"}
if EXTRA:
    LEGACY_TO_CANONICAL["WA-RES-I-003"] = "WA-RES-I-004"
else:
    LEGACY_TO_CANONICAL = {"WA-RES-I-005": "WA-RES-I-006"}
'''
    _, counts = _read([source, source, b'T = {"A": "B"}\nT["X"] = "Y"; T = {"C": "D"}\n'], "iar")
    assert counts == [[0, 2], [1, 3], [1, 5]]


def test_how_deep_the_reader_is_does_not_decide_a_binding():
    """A binding is read where the walk meets it (deep) in a whole read, and where a piece's context is worked
    out (shallow) in pieces: the construction it binds is found without recursion, through any depth of
    conditional expressions, so the two never differ by how much stack is left."""
    import ast

    from reply_audit.facts.expressions import _constructed

    call = ast.Call(func=ast.Name("C"), args=[], keywords=[])
    value: ast.expr = call
    for _ in range(5000):
        value = ast.IfExp(test=ast.Name("t"), body=ast.Name("a"), orelse=value)
    assert _constructed(value) is call
    assert _constructed(ast.BoolOp(op=ast.Or(), values=[ast.Name("x"), call, ast.Call(ast.Name("D"), [], [])])) \
        is call


def test_a_piece_that_failed_to_parse_alone_is_not_parsed_again():
    from reply_audit.facts import top_level

    source = b"TABLE = [\n1,\n2,\n]\nx = 1\n"
    failed: set[bytes] = set()
    first = top_level.statements(source, "m.py", lambda b: b, set(), failed)
    assert first is not None and failed == {b"TABLE = [\n", b"TABLE = [\n1,\n"}
    parses = []
    real = top_level.parsed
    try:
        top_level.parsed = lambda *args, **kw: parses.append(args[1]) or real(*args, **kw)   # type: ignore[assignment]
        again = top_level.statements(source, "m.py", lambda b: b, set(), failed)
        assert again is not None and [(p, k) for p, k, _ in again] == [(p, k) for p, k, _ in first]
    finally:
        top_level.parsed = real
    assert [(p.first, p.last) for p in parses] == [(1, 4), (5, 5)]   # the joined piece and the next, once each
