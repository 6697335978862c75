"""The bundled example's exact inventory, and the reports kept in reports/.

Expected values are read off examples/legacy_mcp by hand (its README lists the
patterns); a change in the example or the scanner that moves any of them fails.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reply_audit.profile import load_profile
from reply_audit.report.json_report import build_document
from reply_audit.scan import scan
from support import EXAMPLE, REPO

PKG = "src/notesvc"
SERVER = f"{PKG}/server.py"
SHADOW = f"{PKG}/tools/legacy_tools.py"
SAFETY = f"{PKG}/safety.py"
RB = f"{SAFETY}::ReplyBuilder"
SB = f"{SHADOW}::_make_builder._ShadowBuilder"
REPLY = f"{PKG}/replies/reply.py::Reply"


@pytest.fixture(scope="module")
def doc():
    return build_document(scan(EXAMPLE, load_profile(None, EXAMPLE), display_root="examples/legacy_mcp"))


def test_registries(doc):
    assert [(r["path"], r["line"], r["name"], r["style"], r["role"], r["definitions"], r["distinct"])
            for r in doc["registries"]] == [
        (f"{PKG}/core/legacy_registry.py", 20, "_LEGACY_CODES", "list", "legacy", 18, 17),
        (f"{PKG}/replies/codes.py", 47, "Codes", "class", "canonical", 22, 22),
    ]
    legacy, canonical = doc["registries"]
    assert legacy["coverage"]["MCP"] == {"S": 1, "I": 0, "D": 1, "E": 1}
    assert legacy["coverage"]["NOTES"] == {"S": 1, "I": 0, "D": 0, "E": 2}
    assert canonical["coverage"] == {
        "WA": {"S": 4, "I": 1, "D": 0, "E": 1}, "EN": {"S": 1, "I": 0, "D": 2, "E": 1},
        "CT": {"S": 1, "I": 2, "D": 1, "E": 1}, "MCP": {"S": 2, "I": 1, "D": 0, "E": 3},
        "STORE": {"S": 0, "I": 0, "D": 0, "E": 1},
    }
    first = canonical["codes"][0]
    assert first == {"code": "WA-RES-S-001", "line": 48, "layer": "WA", "area": "RES", "type": "S", "number": 1,
                     "attr": "WA_RES_S_001", "declared_layer": None, "declared_type": None, "text": "RESOLVED"}
    assert doc["duplicates"] == [{"registry": f"{PKG}/core/legacy_registry.py::_LEGACY_CODES",
                                  "code": "NOTES-OP-E-001", "count": 2, "lines": [22, 39]}]
    assert [s["code"] for s in doc["shared_codes"]] == ["MCP-SYS-E-001", "MCP-SYS-S-900", "WA-RES-I-001"]


def test_mapping_and_legacy_classes(doc):
    [table] = doc["mappings"]
    assert (table["path"], table["line"], table["name"]) == (f"{PKG}/replies/codes.py", 87, "LEGACY_TO_CANONICAL")
    assert [(e["legacy"], e["canonical"], e["class"], e["legacy_known"]) for e in table["entries"]] == [
        ("NOTES-OP-S-001", "WA-READ-S-001", "mapped", True),
        ("NOTES-OP-E-001", "MCP-SYS-E-001", "mapped", True),
        ("FILE-OP-S-001", "WA-WRITE-S-001", "mapped", True),        # via Codes.WA_WRITE_S_001.code
        ("FILE-OP-D-001", "WA-WRITE-D-001", "mapped_to_forbidden", True),
        ("FILE-OP-I-001", "WA-RES-I-007", "mapped_to_unknown", True),
        ("SESSION-OP-I-001", "CT-CLOSE-I-001", "mapped", True),
        ("GIT-CMD-E-001", None, "retired", True),
        ("OLD-THING-S-001", "WA-RES-S-001", "mapped", False),
    ]
    classes = {c["code"]: c["class"] for c in doc["legacy_codes"]}
    assert classes == {
        "NOTES-OP-S-001": "mapped", "NOTES-OP-E-001": "mapped", "FILE-OP-S-001": "mapped",
        "SESSION-OP-I-001": "mapped",
        "FILE-OP-D-001": "mapped_to_forbidden", "FILE-OP-I-001": "mapped_to_unknown",
        "GIT-CMD-E-001": "retired", "LEARN-DIFF-S-001": "retired", "DB-CONN-E-001": "retired",
        "MCP-SYS-D-902": "retired", "WA-RES-D-004": "retired", "EN-WRITE-I-003": "retired",
        "MCP-SYS-E-001": "identical", "MCP-SYS-S-900": "identical", "WA-RES-I-001": "identical",
        "WA-READ-E-002": "unmapped", "CT-GATE-E-003": "unmapped",
    }
    assert doc["summary"]["legacy_classes"] == {"mapped": 4, "identical": 3, "retired": 6, "unmapped": 2,
                                                "mapped_to_unknown": 1, "mapped_to_forbidden": 1}
    assert [(k["legacy"], k["line"]) for k in doc["mapping_keys_not_legacy"]] == [("OLD-THING-S-001", 95)]


def test_builders(doc):
    got = [(b["path"], b["line"], b["qualname"], b["kind"], b["methods"], b["forbidden_methods"],
            b["missing_methods"], b["validates_format"], b["validates_layer"], b["frozen_after_terminal"],
            b["instantiated_at"], b["calls"]) for b in doc["builders"]]
    server_sites = [{"path": SERVER, "line": n} for n in (21, 49, 62, 75, 87, 103, 113)]
    assert got == [
        (f"{PKG}/replies/reply.py", 10, "Reply", "factory", ["denied", "error", "invalid", "success"], [], [],
         False, False, False, [], 9),
        (SAFETY, 33, "ReplyBuilder", "builder", ["denied", "error", "invalid", "success"], [], [],
         True, True, False, server_sites, 17),
        (SHADOW, 12, "_make_builder._ShadowBuilder", "builder", ["denied", "error", "info", "success"], ["info"],
         ["invalid"], False, False, False,
         [{"path": SHADOW, "line": 25}, {"path": SHADOW, "line": 29}, {"path": SHADOW, "line": 39}], 6),
    ]


def test_calls(doc):
    got = [(c["path"], c["line"], c["builder"], c["method"], c["code"], c["returned"], c["except_kind"],
            c["in_builder"]) for c in doc["calls"]]
    assert got == [
        (SAFETY, 24, REPLY, "error", "MCP-SYS-E-001", True, "broad", False),    # returned inside replace(...)
        (SAFETY, 48, REPLY, "success", None, True, None, True),
        (SAFETY, 52, REPLY, "invalid", None, True, None, True),
        (SAFETY, 56, REPLY, "denied", None, True, None, True),
        (SAFETY, 60, REPLY, "error", None, True, None, True),
        (SERVER, 23, RB, "invalid", "WA-RES-I-001", True, None, False),
        (SERVER, 24, RB, "success", "WA-READ-S-001", True, None, False),          # Codes.WA_READ_S_001.code
        (SERVER, 51, RB, "denied", "EN-WRITE-D-001", False, None, False),        # terminal, not returned
        (SERVER, 55, RB, "invalid", "MCP-SYS-I-001", True, "broad", False),      # broad except -> Invalid
        (SERVER, 56, RB, "success", "EN-WRITE-S-001", True, None, False),
        (SERVER, 66, RB, "invalid", "WA-RES-I-001", True, "narrow", False),
        (SERVER, 68, RB, "error", "MCP-SYS-E-001", True, "broad", False),
        (SERVER, 69, RB, "success", "WA-WRITE-S-001", True, None, False),
        (SERVER, 77, RB, "success", "WA-RES-I-001", True, None, False),          # success with an I code
        (SERVER, 79, RB, "error", "NOTES-OP-E-001", True, None, False),          # a legacy code
        (SERVER, 81, RB, "success", "WA-READ-S-099", True, None, False),         # an unregistered code
        (SERVER, 90, RB, "invalid", "CT-CLOSE-I-001", True, None, False),        # empty state -> Invalid
        (SERVER, 91, RB, "success", "CT-GATE-S-001", True, None, False),
        (SERVER, 106, RB, "invalid", "WA-RES-I-001", True, None, False),
        (SERVER, 108, RB, "success", "WA-WRITE-S-001", True, None, False),
        (SERVER, 115, RB, "denied", "WA-WRITE-D-001", True, None, False),        # a denial from the wrong layer
        (SERVER, 117, RB, "success", "MCP-SYS-S-001", True, None, False),        # a default left by migrate
        (SHADOW, 14, REPLY, "success", None, True, None, True),
        (SHADOW, 17, REPLY, "info", None, True, None, True),                    # Reply has no info()
        (SHADOW, 20, REPLY, "denied", None, True, None, True),
        (SHADOW, 23, REPLY, "error", None, True, None, True),
        (SHADOW, 31, SB, "invalid", "WA-RES-I-001", True, None, False),          # _ShadowBuilder has no invalid()
        (SHADOW, 33, SB, "info", "MCP-SYS-S-001", True, None, False),
        (SHADOW, 35, SB, "success", "WA-READ-S-001", True, None, False),
        (SHADOW, 41, SB, "invalid", "WA-RES-I-001", True, None, False),
        (SHADOW, 44, SB, "invalid", "WA-RES-I-001", True, None, False),
        (SHADOW, 47, SB, "success", "WA-WRITE-S-001", True, None, False),
    ]


def test_handlers_imports_and_messages(doc):
    assert [(h["line"], h["name"], h["returns_by_kind"]) for h in doc["handlers"]] == [
        (20, "notes_read", {"builder": 2}),
        (29, "notes_search", {"dict": 2}),
        (38, "notes_stats", {"dict": 1}),          # the nested largest() return does not count
        (48, "notes_write", {"builder": 2}),
        (61, "notes_delete", {"builder": 3}),
        (74, "session_open", {"builder": 3}),
        (86, "session_status", {"builder": 2}),
        (96, "notes_export", {"other": 1}),
        (102, "notes_copy", {"builder": 2}),
        (112, "notes_lock", {"builder": 2}),       # registered without @mcp_safe_tool
    ]
    search = doc["handlers"][1]["returns"]
    assert [(r["line"], r["keys"]) for r in search] == [(31, ["error"]), (33, ["success", "results", "count"])]
    assert [(i["path"], i["line"], i["registry_path"].rsplit("/", 1)[-1], i["runtime"])
            for i in doc["registry_imports"]] == [
        (SAFETY, 10, "legacy_registry.py", True), (SAFETY, 11, "codes.py", True),
        (SERVER, 7, "legacy_registry.py", True), (SERVER, 9, "codes.py", True),
        (SHADOW, 7, "legacy_registry.py", True),
    ]
    assert [(m["path"], m["line"], m["kind"], m["text"]) for m in doc["message_branches"]] == [
        (SERVER, 105, "compare", "found.message")]
    assert doc["files"] == {"scanned": 13, "unparseable": [], "fallback": []}


def test_mapping_file_settles_the_gaps():
    result = scan(EXAMPLE, load_profile(None, EXAMPLE), [REPO / "mappings" / "legacy_mcp.retirements.toml"])
    classes = {c.code: (c.cls, c.target) for c in result.inventory.legacy_codes}
    assert classes["WA-READ-E-002"] == ("mapped", "WA-RES-E-001")
    assert classes["CT-GATE-E-003"] == ("retired", None)


@pytest.mark.parametrize("example,fmt,name", [("legacy_mcp", "md", "legacy_mcp.audit.md"),
                                              ("legacy_mcp", "json", "legacy_mcp.json"),
                                              ("iar_actions", "md", "iar_actions.audit.md")])
def test_kept_reports_are_current(example, fmt, name):
    """reports/ holds the examples' audits; regenerate with `reply-audit scan examples/NAME -f FMT`."""
    out = subprocess.run([sys.executable, "-m", "reply_audit", "scan", f"examples/{example}", "--format", fmt,
                          "--fail-on", "none"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out == (REPO / "reports" / name).read_text(encoding="utf-8")


def test_json_report_round_trips(doc):
    assert json.loads(json.dumps(doc)) == doc


def test_example_scorecard_and_plan():
    from reply_audit.compliance import execution_plan, requirements
    from reply_audit.engine import evaluate
    from reply_audit.rules.base import RuleContext

    result = scan(EXAMPLE, load_profile(None, EXAMPLE))
    ev = evaluate(result)
    found = requirements(RuleContext(result.inventory, result.profile, result.tooling), ev)
    rows = {r.name: (r.status, r.ok, r.total) for r in found}
    by_id = {r.id: r for r in found}
    assert rows["Terminal replies returned immediately"] == ("PARTIAL", 11, 12)  # 9 in server.py + 3 shadow
    assert rows["Exception → Error, never Invalid"] == ("PARTIAL", 3, 4)  # server.py 55, 66, 68; safety.py 24
    assert rows["Builder frozen after a terminal reply"] == ("FAIL", 0, 2)
    assert rows["One active registry"] == ("FAIL", 0, 1)
    # 3 raw dicts; notes_export returns a helper's result the scan cannot see: unknown, never counted as ok
    assert rows["Handlers return replies, not raw dicts"] == ("PARTIAL", 16, 20)
    assert by_id["handlers-return-replies"].unknown == 1 and by_id["handlers-return-replies"].counts == \
        "16/20 handler returns (1 unknown)"
    # four canonical codes (MCP-SYS-E-000, STORE-…, AREA CLOSE, AREA NOTES) and one legacy duplicate
    assert rows["Registry codes well formed (format, layer, area, unique)"] == ("PARTIAL", 35, 40)
    assert by_id["registry-well-formed"].rules == ("RA101", "RA102", "RA104", "RA105", "RA106")
    assert rows["Legacy codes mapped or retired"] == ("PARTIAL", 13, 17)
    assert rows["Every handler behind the safety wrapper"] == ("PARTIAL", 9, 10)  # notes_lock is not wrapped
    assert rows["Specific codes, no migration defaults left"][0] == "PARTIAL"
    assert [c.title for c in execution_plan(ev)] == [
        "Safety net", "Spec reconciliation: the envelope", "One builder", "Frozen builder", "Call-site corrections",
        "Registry consolidation", "Strict mode: handlers return replies", "Guard hook"]


def test_kept_migration_diff_is_current():
    """reports/legacy_mcp.migrate.diff: what `reply-audit migrate examples/legacy_mcp` shows (README command 1)."""
    run = subprocess.run([sys.executable, "-m", "reply_audit", "migrate", "examples/legacy_mcp"], cwd=REPO,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == (REPO / "reports" / "legacy_mcp.migrate.diff").read_text(encoding="utf-8")
    assert "would rewrite 3 file(s) with 9 rewrite(s) in 1 pass(es)" in run.stderr


def test_ci_runs_exactly_the_readme_commands():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Setup and use", 1)[1]
    commands = [block.split("```", 1)[0].strip() for block in setup.split("```sh\n")[1:3]]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert all(command in ci for command in commands) and len(commands) == 2
