"""The compliance scorecard never claims what it did not check: one definition of every status, each rule on a
row and in a plan chunk, N/A with the reason, unknown items never counted as ok."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reply_audit.compliance import CHUNKS, REQUIREMENTS, Requirement, execution_plan, requirements
from reply_audit.engine import evaluate
from reply_audit.profile import load_profile
from reply_audit.rules import all_rules
from reply_audit.rules._snippets import BUILDER, CODES
from reply_audit.rules.base import RuleContext
from support import scan_tree


def _rows(root, files, profile_text: str = "") -> dict[str, Requirement]:
    if profile_text:
        files = {**files, "pyproject.toml": profile_text}
    result = scan_tree(root, files)
    if profile_text:
        from reply_audit.scan import scan
        result = scan(root, load_profile(None, root))
    ev = evaluate(result)
    return {r.id: r for r in requirements(RuleContext(result.inventory, result.profile, result.tooling), ev)}


# ------------------------------------------------------------------------------------------ one definition
@given(st.integers(-5, 50), st.integers(-5, 80), st.integers(-5, 50), st.booleans(), st.text(max_size=3))
def test_ok_is_never_negative_nor_above_total(total, failing, unknown, binary, na):
    r = Requirement("x", "x", total, failing, unknown, ("RA000",), "items", binary, na)
    assert 0 <= r.ok <= r.total
    assert r.ok + r.failing + r.unknown == r.total
    assert r.status in ("PASS", "PARTIAL", "FAIL", "UNKNOWN", "N/A")
    if r.status == "PASS":
        assert r.total > 0 and r.failing == 0 and r.unknown == 0 and r.ok == r.total
    if r.failing:
        assert r.status in ("PARTIAL", "FAIL")   # a finding is never hidden behind N/A
    if r.status == "N/A":
        assert r.counts == r.reason != ""


def test_a_finding_without_a_counted_item_fails_the_row_instead_of_going_below_zero():
    r = Requirement("x", "Specific codes", total=0, failing=6, unit="calls with a code")
    assert (r.status, r.ok, r.total, r.counts) == ("FAIL", 0, 6, "0/6 calls with a code")


def test_unknown_items_are_shown_and_never_ok():
    r = Requirement("x", "Handlers return replies", total=5, failing=0, unknown=2, unit="handler returns")
    assert (r.status, r.ok, r.counts) == ("UNKNOWN", 3, "3/5 handler returns (2 unknown)")


def test_every_rule_names_its_row_and_its_chunk():
    for rule in all_rules():
        assert getattr(rule, "requirement", None) in REQUIREMENTS, rule.id
        assert getattr(rule, "chunk", None) in CHUNKS, rule.id
    rows = {rule.requirement for rule in all_rules()}
    assert rows == set(REQUIREMENTS) - {"compliance-level"}   # it sums the rows of the RA60x rules


def test_reply_without_code_counts_against_registered_codes_and_a_plan_chunk(tmp_path):
    files = {"codes.py": CODES, "builder.py": BUILDER,
             "server.py": "def f(rb: ReplyBuilder):\n    return rb.success(data={})\n"}
    result = scan_tree(tmp_path, files)
    ev = evaluate(result)
    assert [f.rule for f in ev.findings if f.rule == "RA311"] == ["RA311"]
    rows = {r.id: r for r in requirements(RuleContext(result.inventory, result.profile, result.tooling), ev)}
    assert (rows["registered-codes"].status, rows["registered-codes"].counts) == ("FAIL", "0/1 builder calls")
    chunk = next(c for c in execution_plan(ev) if "RA311" in {i[0] for i in c.items})
    assert chunk.title == "Call-site corrections"


# ------------------------------------------------------------------------------------------ N/A with a reason
def test_no_registry_means_nothing_was_checked_against_one(tmp_path):
    """Before: 'Registered codes PASS 66/66' on a codebase with no code registry at all."""
    rows = _rows(tmp_path, {"builder.py": BUILDER, "server.py": (
        "def f(rb: ReplyBuilder):\n    return rb.success('WA-READ-S-001', {})\n\n"
        "def g(rb: ReplyBuilder):\n    return rb.invalid('WA-READ-I-001', {})\n")})
    for rid in ("registered-codes", "registry-well-formed", "layer-ownership", "one-registry",
                "method-matches-type"):
        assert (rows[rid].status, rows[rid].reason) == ("N/A", "no code registry found: nothing to check codes "
                                                               "against" if rid != "one-registry" else
                                                        "no code registry found"), rid


def test_opaque_returns_are_unknown_not_compliant(tmp_path):
    """Before: 'Handlers return replies PASS 621/621' where every return was `return asdict(...)`."""
    rows = _rows(tmp_path, {"server.py": """
        from dataclasses import asdict

        @mcp.tool()
        @mcp_safe_tool
        def a(x):
            return asdict(x)

        @mcp.tool()
        @mcp_safe_tool
        def b(x):
            return make(x)
        """})
    r = rows["handlers-return-replies"]
    assert (r.status, r.ok, r.unknown, r.counts) == ("UNKNOWN", 0, 2, "0/2 handler returns (2 unknown)")


def test_a_safety_check_switched_off_is_not_a_pass(tmp_path):
    """Before: 'Every handler behind the safety wrapper PASS' with safety-decorator = ""."""
    rows = _rows(tmp_path, {"server.py": "@mcp.tool()\ndef a(x):\n    return x\n"},
                 '[tool.reply-audit.handlers]\nsafety-decorator = ""\n')
    r = rows["handlers-wrapped"]
    assert (r.status, r.counts) == ("N/A", 'the check is off ([handlers] safety-decorator = "")')


def test_function_builders_have_no_builder_class_to_count(tmp_path):
    """Before: 'Exactly one builder FAIL' on every codebase that builds its replies with functions."""
    rows = _rows(tmp_path, {"server.py": "def a():\n    return error_response('gone', error_code='E1')\n"},
                 '[tool.reply-audit.builder.functions]\nerror_response = { type = "E", code-keyword = '
                 '"error_code" }\n')
    for rid in ("one-builder", "builder-frozen"):
        assert (rows[rid].status, rows[rid].reason) == \
            ("N/A", "replies are built by functions ([builder.functions]): no builder class"), rid


def test_a_compliant_tree_passes_only_what_it_shows(tmp_path):
    rows = _rows(tmp_path, {"codes.py": CODES, "builder.py": BUILDER, "server.py": """
        @mcp.tool()
        @mcp_safe_tool
        def read(rb: ReplyBuilder, path):
            return rb.success("WA-READ-S-001", {})
        """})
    assert rows["registered-codes"].status == "PASS" and rows["registered-codes"].counts == "1/1 builder calls"
    assert rows["handlers-return-replies"].status == "PASS"
    assert rows["except-error"].status == "N/A" and rows["except-error"].reason == \
        "nothing to check: no replies built in except found"


# ------------------------------------------------------------------------------ registries checked like a type
PLAIN_CLASS = """
class ErrorCodes:
    READ_OK = "WA-READ-S-001"
    READ_MISSING = "WA-READ-I-001"
    READ_BROKE = "WA-READ-E-001"

def f(rb: ReplyBuilder):
    return rb.invalid(ErrorCodes.READ_MISSING, {})

def g(rb: ReplyBuilder):
    return rb.invalid(ErrorCodes.READ_GONE, {})

def h(rb: ReplyBuilder):
    return rb.error("GEN-E-001", {})

def k(rb: ReplyBuilder, c):
    return rb.error(pick(c), {})
"""


def test_a_plain_class_registry_is_checked_like_a_type_without_any_profile_key(tmp_path):
    """Before: 'Registered codes PASS 46/46' while calls used ErrorCodes.X attributes the class does not define,
    and a malformed `GEN-E-001` was dropped silently."""
    result = scan_tree(tmp_path, {"server.py": PLAIN_CLASS})
    ev = evaluate(result)
    assert [(f.line, f.message) for f in ev.findings if f.rule == "RA301"] == [
        (11, "ErrorCodes.READ_GONE: registry ErrorCodes defines no READ_GONE (an AttributeError at run time)"),
        (14, "'GEN-E-001' is not a well-formed code (the profile's code pattern) and no registry defines it")]
    rows = {r.id: r for r in requirements(RuleContext(result.inventory, result.profile, result.tooling), ev)}
    r = rows["registered-codes"]
    assert (r.status, r.ok, r.failing, r.unknown) == ("PARTIAL", 1, 2, 1)   # pick(c): known only at run time


# ------------------------------------------------------------------------------------------ except blocks
def test_the_except_section_counts_blocks_not_calls(tmp_path):
    """One `except` building two replies is one block (non-compliant: its Invalid is under a broad except);
    a narrow except is another block, compliant."""
    from reply_audit.report.markdown import render_markdown

    result = scan_tree(tmp_path, {"replies.py": BUILDER + CODES, "tool.py": '''
from replies import ReplyBuilder


def tool(rb: ReplyBuilder, db):
    try:
        rows = db.query()
    except ValueError:
        return rb.invalid("WA-RES-I-001", {})
    except Exception as exc:
        if "locked" in str(exc):
            return rb.invalid("WA-RES-I-001", {})
        return rb.error("MCP-SYS-E-001", {})
    return rb.success("WA-RES-S-001", {"rows": rows})
''', "bare.py": '''
from replies import ReplyBuilder


def other(rb: ReplyBuilder, db):
    try:
        rows = db.query()
    except:
        return rb.invalid("WA-RES-I-001", {})
    return rb.success("WA-RES-S-001", {"rows": rows})
'''})
    ev = evaluate(result)
    section = render_markdown(result, ev).split("### 3.1 Exception handlers: Invalid vs Error\n", 1)[1].split("\n- ")[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.strip().splitlines()[2:]]
    assert rows == [["`bare.py`", "1", "1", "0", "1"], ["`tool.py`", "2", "3", "1", "1"],
                    ["**Total**", "3", "4", "1", "2"]]   # a bare except catches everything: non-compliant
    assert sorted((f.path, f.line, f.message) for f in ev.findings if f.rule == "RA304") == [
        ("bare.py", 9, "rb.invalid() inside a bare except: a system failure must be an Error"),
        ("tool.py", 12, "rb.invalid() inside a broad except: a system failure must be an Error")]
