"""The yardstick script (scripts/compare_migration.py): which of our sites it pairs with a reference migration's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "compare_migration.py"

OURS = '''\
def tool_a(rb, x):
    if not x:
        return rb.invalid("MCP-SYS-I-001", data={"field": "x"}, message="x required")  # reply-audit: default-code
    return rb.success("WA-READ-S-001", data={"rows": 1}, message="Read 1 row")


def tool_b(rb):
    return rb.denied("EN-EXEC-D-001", data={"allowed": False, "output": None}, message="Token validation failed")
'''

# the reference split tool_a into a thin tool_a and `_tool_a_internal`, and replaced tool_b's denial by an
# unrelated error with the same data keys
REFERENCE = '''\
def tool_a(rb, x):
    return _tool_a_internal(rb, x)


def _tool_a_internal(rb, x):
    if not x:
        return rb.invalid("WA-READ-I-001", data={"field": "x"}, message="x is required")
    return rb.success("WA-READ-S-001", data={"rows": 1}, message="Read 1 row")


def tool_b(rb):
    return rb.error("MCP-SYS-E-001", data={"allowed": True, "output": None}, message="Command timed out")
'''


def test_pairs_through_a_split_helper_and_never_by_data_keys_alone(tmp_path: Path) -> None:
    (tmp_path / "ours").mkdir()
    (tmp_path / "ref").mkdir()
    (tmp_path / "ours" / "server.py").write_text(OURS)
    (tmp_path / "ref" / "server.py").write_text(REFERENCE)
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "ours"), str(tmp_path / "ref"), "--json"],
                         capture_output=True, text=True, check=True)
    figures = json.loads(out.stdout)
    assert figures["matched sites"] == 2
    assert figures["type agrees"] == "2/2"
    assert figures["code agrees"] == "1/2"
    assert figures["builder calls written with the default-code marker"] == "1/3"
    assert figures["disagreements"] == [{"path": "server.py", "function": "tool_a", "line": 3,
                                         "ours": ["I", "MCP-SYS-I-001"], "reference": ["I", "WA-READ-I-001"],
                                         "reference_line": 7}]
