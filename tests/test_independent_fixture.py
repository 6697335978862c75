"""A second, independently written fixture, checked against its own hand count.

tests/fixtures/independent_notes was written from the brief alone by someone
who did not read the scanner, who then counted its inventory by hand into
EXPECTED.md. These tests parse the tables of EXPECTED.md and compare them with
the scan, so the hand count (not the tool) is the source of truth.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reply_audit.engine import evaluate
from reply_audit.profile import load_profile
from reply_audit.scan import scan

FIXTURE = Path(__file__).parent / "fixtures" / "independent_notes"
PKG = "src/notesvc"


def _rows(section: str, columns: int) -> list[list[str]]:
    """Data rows (cells stripped of ** and `) of the tables under a `## section` heading of EXPECTED.md."""
    text = (FIXTURE / "EXPECTED.md").read_text(encoding="utf-8")
    body = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    rows = []
    lines = body.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip().replace("**", "").replace("`", "") for c in line.strip().strip("|").split("|")]
        is_separator = set(line.replace("|", "").strip()) <= set("-: ")
        is_header = i + 1 < len(lines) and lines[i + 1].startswith("| ---")
        if line.startswith("|") and len(cells) == columns and not is_separator and not is_header:
            rows.append(cells)
    return rows


@pytest.fixture(scope="module")
def result():
    return scan(FIXTURE, load_profile("canonical"))


def test_registry_codes_match_the_hand_count(result):
    regs = {r.name: r for r in result.inventory.registries}
    legacy = [(int(r[0]), r[1]) for r in _rows("Registries", 6) if r[0].isdigit()]
    canonical = [(int(r[0]), r[2]) for r in _rows("Registries", 7) if r[0].isdigit()]
    assert sorted((c.line, c.code) for c in regs["_LEGACY_CODES"].codes) == legacy
    assert sorted((c.line, c.code) for c in regs["Codes"].codes) == canonical
    assert (regs["_LEGACY_CODES"].role, regs["Codes"].role) == ("legacy", "canonical")
    assert [(d.code, d.lines) for d in result.inventory.duplicates] == [("NOTES-OP-E-001", [22, 41])]


def test_legacy_classes_match_the_hand_count(result):
    expected = {r[0]: r[2] for r in _rows("Classification of every legacy code", 4)}
    assert len(expected) == 19
    assert {c.code: c.cls for c in result.inventory.legacy_codes} == expected
    assert [k.legacy for k in result.inventory.mapping_keys_not_legacy] == ["OLD-THING-S-001"]


def test_builder_calls_match_the_hand_count(result):
    def norm_except(cell: str) -> str | None:
        word = cell.split()[0]
        return None if word == "—" else word

    expected = sorted(
        (f"{PKG}/{r[1].removeprefix('PKG/')}", int(r[2]), r[4], None if r[5] == "var" else r[5].split()[0],
         r[6] == "yes", norm_except(r[7]), r[8] == "yes")
        for r in _rows("Builder calls", 10)
    )
    assert len(expected) == 34
    got = sorted((c.path, c.line, c.method, c.code, c.returned, c.except_kind, c.in_builder)
                 for c in result.inventory.calls)
    assert got == expected


def test_handlers_match_the_hand_count(result):
    expected = {r[1]: {k: int(n) for k, n in zip(("builder", "reply", "dict", "other"), r[3:7]) if int(n)}
                for r in _rows("Handlers", 7)}
    assert {h.name: h.returns_by_kind for h in result.inventory.handlers} == expected


def test_rules_agree_with_the_stated_defects(result):
    fired = {(f.rule, f.line) for f in evaluate(result).findings if f.path == f"{PKG}/replies/codes.py"}
    # "Spec violations in the canonical registry — exactly two, both AREA"
    assert {(rule, line) for rule, line in fired if rule.startswith("RA10") and rule < "RA106"} == {
        ("RA105", 74), ("RA104", 82)}
    # "empty state in a status query → Invalid" (builder call #22 of the hand count)
    assert [(f.path, f.line, f.confidence) for f in evaluate(result, select=["RA305"]).findings] == [
        (f"{PKG}/server.py", 105, "high")]
