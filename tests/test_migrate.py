"""`reply-audit migrate`: the CLI, safe writes, encodings, passes, refusals, and the example end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import libcst as cst
import pytest

from reply_audit.api import evaluate
from reply_audit.cli import app
from reply_audit.codemods.apply import add_imports, rewrite_source
from reply_audit.codemods.base import Edit, Target
from reply_audit.codemods.edits import ReplaceCode
from reply_audit.profile import load_profile
from reply_audit.rules._snippets import BUILDER, CODES
from reply_audit.safe_write import WriteRefused, write_atomic
from reply_audit.scan import scan
from support import EXAMPLE, CliRunner, write_tree

RUNNER = CliRunner()

SERVER = '''
def notes_list(rb: ReplyBuilder, notes):
    if not notes:
        return rb.info("WA-READ-S-001", {"notes": []})
    return rb.success("WA-READ-S-001", {"notes": notes})
'''
TREE = {"builder.py": BUILDER, "codes.py": CODES, "server.py": SERVER}


def cli(*args):
    return RUNNER.invoke(app, [str(a) for a in args])


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def git_repo(root, files):
    write_tree(root, files)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


# ---------------------------------------------------------------------------- CLI
def test_diff_by_default_changes_nothing_and_the_diff_applies(tmp_path):
    root = git_repo(tmp_path / "a", TREE)
    shown = cli("migrate", root)
    assert shown.exit_code == 0, shown.output
    assert (root / "server.py").read_text() == textwrap.dedent(SERVER)
    diff = shown.stdout
    assert "-        return rb.info(\"WA-READ-S-001\"" in diff and "+        return rb.success(\"WA-READ-S-001\"" in diff
    (tmp_path / "fix.patch").write_text(diff)
    git(root, "apply", str(tmp_path / "fix.patch"))
    applied_by_patch = (root / "server.py").read_text()
    other = git_repo(tmp_path / "b", TREE)
    assert cli("migrate", other, "--apply").exit_code == 0
    assert (other / "server.py").read_text() == applied_by_patch
    assert "1 rewrite(s)" in shown.stderr


def test_each_pass_keeps_the_rewritten_facts_in_the_tree_cache(tmp_path, monkeypatch):
    """The pass after a rewrite reads the new source's facts from the cache the scan used, or adds them: run
    again on the same tree, migrate parses no file at all."""
    import reply_audit.scan as scanning
    from reply_audit import api
    from reply_audit.cache import FactsCache

    root = git_repo(tmp_path / "a", TREE)
    first = api.migrate(root)
    rewritten = first.result.sources["server.py"]
    digest = load_profile(None, root).digest
    cached = FactsCache(api.cache_folder(root), digest).find("server.py", rewritten)[1]
    assert cached is not None and cached.path == "server.py"
    parsed = []
    real = scanning.facts_for_source
    monkeypatch.setattr(scanning, "facts_for_source", lambda source, rel, *a: parsed.append(rel) or real(source, rel, *a))
    again = api.migrate(root)
    assert (parsed, again.result.sources, again.result.passes) == ([], first.result.sources, 1)


def test_check_apply_and_exit_codes(tmp_path):
    root = write_tree(tmp_path, TREE)
    assert cli("migrate", root, "--check").exit_code == 1
    assert cli("migrate", root, "--check", "--apply").exit_code == 2
    done = cli("migrate", root, "--apply")
    assert done.exit_code == 0 and done.stdout == "" and "rewrote 1 file(s)" in done.stderr
    assert cli("migrate", root, "--check").exit_code == 0


@pytest.mark.parametrize("args,message", [
    (["--select", "no-such"], "unknown codemod 'no-such'"),
    (["--phase", "4"], "--phase 4: use 1"),
    (["--profile", "nope"], "unknown profile 'nope'"),
])
def test_bad_arguments_exit_2_with_one_line(tmp_path, args, message):
    root = write_tree(tmp_path, TREE)
    result = cli("migrate", root, *args)
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


def test_missing_path_exits_2(tmp_path):
    result = cli("migrate", tmp_path / "nowhere")
    assert result.exit_code == 2 and "does not exist" in result.stderr


def test_phase_and_select(tmp_path):
    files = {**TREE, "app.py": '''
        @mcp.tool()
        def ping(rb: ReplyBuilder):
            return rb.success("MCP-SYS-S-001", {})

        def mcp_safe_tool(f):
            return f
        '''}
    root = write_tree(tmp_path, files)
    doc = json.loads(cli("migrate", root, "--phase", "1", "-f", "json").stdout)
    assert [(f["path"], [r["codemod"] for r in f["rewrites"]]) for f in doc["files"]] == [
        ("app.py", ["safety-wrapper"])]
    doc = json.loads(cli("migrate", root, "--select", "forbidden-methods,safety-wrapper", "-f", "json").stdout)
    assert sorted((f["path"], r["codemod"]) for f in doc["files"] for r in f["rewrites"]) == [
        ("app.py", "safety-wrapper"), ("server.py", "forbidden-methods")]


def test_dirty_files_are_refused_unless_allowed(tmp_path):
    root = git_repo(tmp_path, TREE)
    (root / "server.py").write_text(textwrap.dedent(SERVER) + "# local edit\n")
    refused = cli("migrate", root, "--apply")
    assert refused.exit_code == 2 and "uncommitted changes in server.py" in refused.stderr
    assert "rb.info(" in (root / "server.py").read_text()
    assert cli("migrate", root, "--apply", "--allow-dirty").exit_code == 0
    assert "rb.info(" not in (root / "server.py").read_text()


def test_json_report(tmp_path):
    root = write_tree(tmp_path, {**TREE, "server.py": SERVER + '''
@mcp.tool()
def count(n):
    total = {"n": n}
    return total
'''})
    doc = json.loads(cli("migrate", root, "-f", "json", "--select", "forbidden-methods,dict-returns").stdout)
    assert doc["schema"] == "reply-audit-migrate/1" and doc["applied"] is False and doc["passes"] == 1
    assert doc["files"] == [{"path": "server.py", "rewrites": [
        {"codemod": "forbidden-methods", "description": "rb.info() -> success()", "line": 4, "pass": 1,
         "rules": ["RA203"]}]}]
    assert [(s["codemod"], s["rule"], s["line"], s["reason"]) for s in doc["skipped"]] == [
        ("dict-returns", "RA306", 10, "MCP-SYS-I-001 ([migrate.dict-returns] invalid-code) is not in the canonical registry")]


# ------------------------------------------------------------------ safe writes
def test_encoding_bom_line_endings_and_mode_are_kept(tmp_path):
    write_tree(tmp_path, {"builder.py": BUILDER, "codes.py": CODES})
    crlf = "\ufeffdef f(rb: ReplyBuilder):\r\n    return rb.info(\"WA-READ-S-001\", {})\r\n"
    (tmp_path / "server.py").write_bytes(crlf.encode("utf-8"))
    latin = '# -*- coding: latin-1 -*-\ndef g(rb: ReplyBuilder):\n    x = "é"; return rb.fail("MCP-SYS-E-001", {})\n'
    (tmp_path / "other.py").write_bytes(latin.encode("latin-1"))
    os.chmod(tmp_path / "server.py", 0o640)
    assert cli("migrate", tmp_path, "--apply").exit_code == 0
    assert (tmp_path / "server.py").read_bytes() == crlf.replace("rb.info", "rb.success").encode("utf-8")
    assert (tmp_path / "other.py").read_bytes() == latin.replace("rb.fail", "rb.error").encode("latin-1")
    assert (tmp_path / "server.py").stat().st_mode & 0o777 == 0o640


def test_write_refuses_symlinks_and_files_changed_since_read(tmp_path):
    (tmp_path / "real.py").write_text("x = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    with pytest.raises(WriteRefused, match="symbolic link"):
        write_atomic(tmp_path, "link.py", b"x = 1\n", b"x = 2\n")
    with pytest.raises(WriteRefused, match="changed on disk"):
        write_atomic(tmp_path, "real.py", b"x = 0\n", b"x = 2\n")
    write_atomic(tmp_path, "real.py", b"x = 1\n", b"x = 2\n")
    assert (tmp_path / "real.py").read_text() == "x = 2\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# ------------------------------------------------------------------ the rewriter
class _Garble(Edit):
    def targets(self):
        return [Target("call", self.spans[0])]

    def rewrite(self, target, original, updated, ctx):
        return updated.with_changes(func=cst.Name("in"))


def test_a_rewrite_that_would_not_parse_is_refused():
    source = b"def f(rb):\n    return rb.info('A-B-S-001')\n"
    outcome = rewrite_source(source, [_Garble("x", "m.py", [(2, 11, 2, 31)], "garble")])
    assert outcome.new_source is None and outcome.applied == []
    assert outcome.problem == "the rewritten file would not parse with this Python"


def test_an_edit_whose_node_is_gone_is_dropped_and_the_rest_applies():
    source = b'A = "X-Y-S-001"\nB = "X-Y-S-002"\n'
    good = ReplaceCode("legacy-codes", "m.py", [(2, 4, 2, 15)], "b", old="X-Y-S-002", new="X-Y-S-003")
    stale = ReplaceCode("legacy-codes", "m.py", [(1, 4, 1, 15)], "a", old="X-Y-S-009", new="X-Y-S-010")
    outcome = rewrite_source(source, [stale, good])
    assert outcome.new_source == b'A = "X-Y-S-001"\nB = "X-Y-S-003"\n'
    assert [(e.description, reason.split(",")[0]) for e, reason in outcome.refused] == [
        ("a", "expected the string 'X-Y-S-009' there")]


def test_imports_join_an_existing_statement_or_follow_the_import_block():
    module = cst.parse_module('"""Doc."""\nfrom .safety import (\n    ReplyBuilder,\n)\nimport os\n\nX = 1\n')
    out = add_imports(module, ["from .safety import mcp_safe_tool", "from pkg.codes import Codes",
                               "import os"]).code
    assert out == ('"""Doc."""\nfrom .safety import (\n    ReplyBuilder,\n    mcp_safe_tool,\n)\nimport os\n'
                   'from pkg.codes import Codes\n\nX = 1\n')


def test_overlapping_fixes_take_two_passes_and_then_nothing(tmp_path):
    root = write_tree(tmp_path, {**TREE, "server.py": '''
        def run(rb: ReplyBuilder, job):
            try:
                job()
            except Exception:
                rb.invalid("MCP-SYS-I-001", {})
        '''})
    doc = json.loads(cli("migrate", root, "--apply", "-f", "json").stdout)
    assert doc["passes"] == 2
    assert [(r["codemod"], r["pass"]) for r in doc["files"][0]["rewrites"]] == [
        ("except-to-error", 1), ("terminal-return", 2)]
    assert (root / "server.py").read_text().splitlines()[5] == '        return rb.error("MCP-SYS-E-001", {})'
    assert json.loads(cli("migrate", root, "-f", "json").stdout)["files"] == []


# ------------------------------------------------------------------ dict-returns in detail
JANUARY = '''
"""Tools, as they were before any reply system: raw dicts everywhere."""
from pathlib import Path

mcp = FastMCP("notes")


@mcp.tool()
def notes_close(force: bool = False) -> dict:
    """
    Close the store.

    Returns:
        {"success": bool, "message": str}
    """
    global _store

    try:
        _store = None
        if force: return {"success": True, "forced": True}  # fast path
        return (
            {
                "success": True,
                "message": "closed",   # shown to the agent
            }
        )
    except Exception as e:
        return {
            "success": False,
            "error": str(e),
        }


@mcp.tool()
def notes_find(pattern: str) -> dict:
    rb = 0
    return {"error": "not yet"}
'''
JANUARY_AFTER = '''
"""Tools, as they were before any reply system: raw dicts everywhere."""
from pathlib import Path
from .safety import mcp_safe_tool, ReplyBuilder, get_current_trace_info
from .reply import Reply

mcp = FastMCP("notes")


@mcp.tool()
@mcp_safe_tool
def notes_close(force: bool = False) -> Reply:
    """
    Close the store.

    Returns:
        {"success": bool, "message": str}
    """
    global _store
    trace_info = get_current_trace_info()
    rb = ReplyBuilder(trace_info, tool="notes_close")

    try:
        _store = None
        if force: return rb.success("WA-WRITE-S-001", data={"forced": True})  # fast path
        return (
            rb.success("WA-WRITE-S-001", data={
                   # shown to the agent
            }, message="closed")
        )
    except Exception as e:
        return rb.error("MCP-SYS-E-001", data={}, message=str(e))


@mcp.tool()
def notes_find(pattern: str) -> dict:
    rb = 0
    return {"error": "not yet"}
'''
JANUARY_SAFETY = '''
"""The reply core the team adopted: a strict wrapper and a builder that needs the wrapper's trace."""
from .reply import Reply


def get_current_trace_info():
    return "trace"


def mcp_safe_tool(func):
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        if not isinstance(result, Reply):
            return Reply.error(code="MCP-SYS-E-003", message="not a Reply")
        return result
    return wrapper


class ReplyBuilder:
    def __init__(self, trace_info, tool: str, layer: str = "MCP"):
        self.trace_info, self.tool = trace_info, tool

    def success(self, code: str, data: dict, message: str | None = None) -> Reply:
        return Reply.success(code=code, message=message or "", data=data)

    def invalid(self, code: str, data: dict, message: str | None = None) -> Reply:
        return Reply.invalid(code=code, message=message or "", data=data)

    def denied(self, code: str, data: dict, message: str | None = None) -> Reply:
        return Reply.denied(code=code, message=message or "", data=data)

    def error(self, code: str, data: dict, message: str | None = None) -> Reply:
        return Reply.error(code=code, message=message or "", data=data)
'''
JANUARY_PROFILE = '''
[tool.reply-audit.migrate]
builder-class = "ReplyBuilder"
builder-setup = ["trace_info = get_current_trace_info()", '{name} = {builder}(trace_info, tool="{tool}")']
builder-imports = ["from .safety import ReplyBuilder, get_current_trace_info"]
safety-imports = ["from .safety import mcp_safe_tool"]

[tool.reply-audit.mappings]
files = ["tools.toml"]
'''


def test_dict_returns_on_a_codebase_without_builder_or_wrapper(tmp_path):
    """The January pattern: configured builder and imports, docstring and `global` first, one-line ifs,
    parenthesized returns, comments inside the dict; a handler whose `rb` is taken is reported."""
    root = write_tree(tmp_path, {"tools/server.py": JANUARY, "pyproject.toml": JANUARY_PROFILE,
                                 "tools/safety.py": JANUARY_SAFETY,
                                 "tools.toml": '[tools.notes_close]\nsuccess = "WA-WRITE-S-001"\n'})
    doc = json.loads(cli("migrate", root, "--apply", "-f", "json").stdout)
    assert (root / "tools" / "server.py").read_text() == textwrap.dedent(JANUARY_AFTER)
    taken = "'rb' already names something else in notes_find: set [migrate] builder-name / builder-setup"
    # the wrapper turns raw results into Errors: notes_find, which cannot be converted, is not wrapped either
    # (lines of the file as it was: the decorated handler at 34, its return at 37)
    assert [(s["codemod"], s["line"], s["reason"]) for s in doc["skipped"]] == [
        ("safety-wrapper", 34, taken), ("dict-returns", 37, taken)]
    again = cli("migrate", root, "--check")
    assert again.exit_code == 0
    result = scan(root, load_profile(None, root))
    rules = sorted((f.rule, f.line, f.fixable) for f in evaluate(result).findings if f.rule.startswith("RA3"))
    assert rules == [("RA306", 38, False), ("RA308", 35, False)]   # no default code left: the Error of the
    # broad except takes [migrate.except_to_error] code


# ------------------------------------------------------------------ one detection logic, end to end
def test_scan_marks_exactly_what_migrate_fixes():
    result = scan(EXAMPLE, load_profile(None, EXAMPLE))
    fixable = sorted((f.rule, f.line, f.fix) for f in evaluate(result).findings if f.fixable)
    assert fixable == [
        ("RA108", 79, "legacy-codes"),
        ("RA111", 91, "forbidden-layers"),
        ("RA203", 33, "forbidden-methods"),
        ("RA301", 115, "forbidden-layers"),
        ("RA303", 51, "terminal-return"),
        ("RA304", 55, "except-to-error"),
        ("RA306", 31, "dict-returns"),
        ("RA306", 33, "dict-returns"),
        ("RA306", 43, "dict-returns"),
        ("RA308", 111, "safety-wrapper"),      # on @mcp.tool(), where the wrapper goes
        ("RA309", 115, "forbidden-layers"),
    ]


def test_the_example_migrates_cleanly_and_its_tests_still_pass(tmp_path):
    root = tmp_path / "legacy_mcp"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    before = scan(root, load_profile(None, root))
    fixable = [f for f in evaluate(before).findings if f.fixable]
    done = cli("migrate", root, "--apply")
    assert done.exit_code == 0, done.output
    after = evaluate(scan(root, load_profile(None, root))).findings
    assert [f for f in after if f.fixable] == []
    gone = {f.fingerprint for f in fixable} - {f.fingerprint for f in after}
    assert len(gone) == len(fixable)
    assert cli("migrate", root, "--check").exit_code == 0
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                           capture_output=True, text=True)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "6 passed" in tests.stdout


DICT_TREE = {"builder.py": BUILDER.replace("def __init__(self):", "def __init__(self, tool=None):"),
             "codes.py": CODES + '    MCP_SYS_I_001 = ReplyCode("MCP-SYS-I-001")\n',
             "safety.py": "def mcp_safe_tool(func):\n    return func\n"}


@pytest.mark.parametrize("returned,expected", [
    ('{"success": True}', 'rb.success("MCP-SYS-S-001", data={})'),
    ('{"n": 1, "success": True}', 'rb.success("MCP-SYS-S-001", data={"n": 1})'),
    ('{"success": True, "n": 1,}', 'rb.success("MCP-SYS-S-001", data={"n": 1,})'),
    # a failure with no sign of its kind: Invalid by default, so its fallback code waits for a human with it
    ("{'ok': False, 'error': 'no'}", "rb.invalid('MCP-SYS-I-001', data={'error': 'no'})  # reply-audit: default-code"),
    ('{"error": None, "rows": []}', 'rb.success("MCP-SYS-S-001", data={"error": None, "rows": []})'),
    ("dict(success=True)", 'rb.success("MCP-SYS-S-001", data=dict())'),
    ("dict(rows=[], ok=True)", 'rb.success("MCP-SYS-S-001", data=dict(rows=[]))'),
])
def test_dict_shapes(tmp_path, returned, expected):
    server = f"from builder import ReplyBuilder\nfrom safety import mcp_safe_tool\n\n\n@mcp.tool()\ndef h(base):\n" \
             f"    return {returned}\n"
    write_tree(tmp_path, {**DICT_TREE, "server.py": server})
    assert cli("migrate", tmp_path, "--apply", "--select", "dict-returns").exit_code == 0
    lines = (tmp_path / "server.py").read_text().splitlines()
    assert lines[5:] == ["@mcp_safe_tool", "def h(base):", '    rb = ReplyBuilder(tool="h")',
                         f"    return {expected}"]   # h names no domain: the fallback code


@pytest.mark.parametrize("returned,reason", [
    ('{"success": True, "error": "it broke"}', "the success flag says True but 'error' says it failed"),
    ('{"success": True, "ok": False}', "the success flags disagree"),
    ('{"success": result.ok, "n": 1}', "ReplyBuilder's methods declare no return type: the handler's annotation "
                                       "and the run-time check cannot name the reply class"),
    ('{**result, "success": True}', "ReplyBuilder's methods declare no return type: the handler's annotation "
                                    "and the run-time check cannot name the reply class"),
])
def test_dict_shapes_left_to_a_human(tmp_path, returned, reason):
    server = f"from builder import ReplyBuilder\nfrom safety import mcp_safe_tool\n\n@mcp.tool()\ndef h(result):\n" \
             f"    return {returned}\n"
    write_tree(tmp_path, {**DICT_TREE, "server.py": server})
    doc = json.loads(cli("migrate", tmp_path, "-f", "json", "--select", "dict-returns").stdout)
    assert doc["files"] == [] and [s["reason"] for s in doc["skipped"]] == [reason]


@pytest.mark.parametrize("server,reason", [
    ("import json as rb\n\n@mcp.tool()\ndef a(x):\n    return {'text': rb.dumps(x)}\n",
     "'rb' is a module-level name in server.py that the builder would shadow"),
    ("@mcp.tool()\ndef a(x):\n    match x:\n        case {'a': rb}:\n            return {'v': rb}\n    return {}\n",
     "'rb' already names something else in a"),
    ("@mcp.tool()\ndef a(x):\n    ReplyBuilder = None\n    return {'v': x}\n",
     "'ReplyBuilder' already names something else in a"),
])
def test_dict_returns_never_shadow_a_name(tmp_path, server, reason):
    write_tree(tmp_path, {**DICT_TREE, "server.py": "from builder import ReplyBuilder\nfrom safety import mcp_safe_tool\n"
                                                    + server})
    doc = json.loads(cli("migrate", tmp_path, "-f", "json", "--select", "dict-returns").stdout)
    assert doc["files"] == [] and {s["reason"].split(":")[0] for s in doc["skipped"]} == {reason}


def test_imports_under_aliases_and_type_checking(tmp_path):
    write_tree(tmp_path, {**DICT_TREE, "safety.py": "def mcp_safe_tool(f):\n    return f\n", "server.py": '''
        from typing import TYPE_CHECKING

        from builder import ReplyBuilder as RB
        from safety import mcp_safe_tool as safe

        if TYPE_CHECKING:
            from builder import ReplyBuilder


        @mcp.tool()
        def a(x):
            return {"v": x}


        @mcp.tool()
        @safe
        def b(x):
            return RB(tool="b").success("MCP-SYS-S-001", data={})
        '''})
    assert cli("migrate", tmp_path, "--apply").exit_code == 0
    text = (tmp_path / "server.py").read_text()
    assert "from builder import ReplyBuilder as RB, ReplyBuilder\n" in text
    assert text.count("@safe\n") == 2 and "mcp_safe_tool\n" not in text.split("as safe")[1]
    assert '    rb = ReplyBuilder(tool="a")\n' in text
    assert cli("migrate", tmp_path, "--check").exit_code == 0


LEGACY_TREE = {**TREE, "legacy.py": 'OLD = {"NOTES-OP-S-001": "a", "NOTES-OP-E-001": "b"}\n',
               "codes.py": CODES + '\nLEGACY_TO_CANONICAL = {"NOTES-OP-S-001": "WA-READ-S-001", '
                                   '"NOTES-OP-E-001": "MCP-SYS-E-001"}\n'}


def test_what_scan_marks_fixable_migrate_fixes_and_the_rest_is_reported(tmp_path):
    write_tree(tmp_path, {**LEGACY_TREE, "server.py": '''
        def a(rb: ReplyBuilder, x):
            if x == 1:
                return rb.success(f"NOTES-OP-S-001", {})
            if x == 2:
                return rb.error("NOTES-OP-" "E-001", {})
            if x == 3:
                (rb.denied("EN-WRITE-D-001", {}))
            return rb.success(R"NOTES-OP-S-001", {})


        @mcp.tool()
        def b(x): return {"v": x}
        '''})
    before = {(f.rule, f.line): f.fixable for f in evaluate(scan(tmp_path, load_profile(None, tmp_path))).findings
              if f.rule in ("RA108", "RA303", "RA306")}
    assert before == {("RA108", 4): False, ("RA108", 6): False, ("RA303", 8): True, ("RA108", 9): True,
                      ("RA306", 13): False}
    done = cli("migrate", tmp_path, "--apply", "-f", "json")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["refused"] == [] and sorted(r["codemod"] for f in doc["files"] for r in f["rewrites"]) == [
        "legacy-codes", "terminal-return"]
    assert sorted((s["line"], s["reason"].split(":")[0]) for s in doc["skipped"] if s["rule"] != "RA308") == [
        (4, "NOTES-OP-S-001 is part of an f-string or of implicitly concatenated strings"),
        (6, "NOTES-OP-E-001 is part of an f-string or of implicitly concatenated strings"),
        (13, "the body of b is on its def line")]
    lines = (tmp_path / "server.py").read_text().splitlines()
    assert lines[7:9] == ['        return (rb.denied("EN-WRITE-D-001", {}))',
                          '    return rb.success(R"WA-READ-S-001", {})']
    assert cli("migrate", tmp_path, "--check").exit_code == 0


def test_the_diff_applies_to_latin1_and_bom_files(tmp_path):
    files = {"builder.py": BUILDER, "codes.py": CODES}
    latin = '# -*- coding: latin-1 -*-\ndef g(rb: ReplyBuilder):\n    x = "é"; return rb.fail("MCP-SYS-E-001", {})\n'
    bom = "\ufeffdef f(rb: ReplyBuilder): return rb.info('WA-READ-S-001', {})\r\n"
    for name in ("a", "b"):
        write_tree(tmp_path / name, files)
        (tmp_path / name / "latin.py").write_bytes(latin.encode("latin-1"))
        (tmp_path / name / "bom.py").write_bytes(bom.encode("utf-8"))
        git(tmp_path / name, "init", "-q")
        git(tmp_path / name, "add", "-A")
        git(tmp_path / name, "commit", "-qm", "base")
    shown = cli("migrate", tmp_path / "a")
    (tmp_path / "fix.patch").write_bytes(shown.stdout_bytes)
    git(tmp_path / "a", "apply", str(tmp_path / "fix.patch"))
    assert cli("migrate", tmp_path / "b", "--apply").exit_code == 0
    for name in ("latin.py", "bom.py"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "b" / "bom.py").read_bytes().startswith(b"\xef\xbb\xbfdef f(rb: ReplyBuilder): return rb.success")


def test_a_file_that_cannot_be_written_is_refused_before_any_write(tmp_path, monkeypatch):
    import reply_audit.safe_write as safe_write

    write_tree(tmp_path, {**TREE, "locked/server.py": SERVER})
    real = os.access
    monkeypatch.setattr(safe_write.os, "access", lambda p, mode: not str(p).endswith("locked") and real(p, mode))
    done = cli("migrate", tmp_path, "--apply", "-f", "json")
    doc = json.loads(done.stdout)
    assert done.exit_code == 1 and doc["written"] == ["server.py"]
    assert [(r["path"], r["reason"]) for r in doc["refused"]] == [
        ("locked/server.py", "not written: its directory is not writable")]
    assert "rb.info(" in (tmp_path / "locked" / "server.py").read_text()
    assert "rewrote 1 file(s)" in done.stderr


def test_git_that_cannot_answer_is_an_error_not_a_clean_tree(tmp_path, monkeypatch):
    root = git_repo(tmp_path / "repo", TREE)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text("#!/bin/sh\necho 'fatal: detected dubious ownership in repository' >&2\nexit 128\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    done = cli("migrate", root, "--apply")
    assert done.exit_code == 2 and "git: fatal: detected dubious ownership" in done.stderr
    assert "rb.info(" in (root / "server.py").read_text()
    assert cli("migrate", root, "--apply", "--allow-dirty").exit_code == 0


def test_out_must_be_a_writable_file(tmp_path):
    root = write_tree(tmp_path / "t", TREE)
    done = cli("migrate", root, "--out", tmp_path)
    assert done.exit_code == 2 and "is a directory" in done.stderr


def test_deep_nesting_is_reported_not_a_traceback(tmp_path):
    root = write_tree(tmp_path, TREE)
    (root / "deep.py").write_text("Y = " + "+".join(["1"] * 3000) + "\n")
    done = cli("scan", root, "-f", "json", "--fail-on", "none")
    assert done.exit_code == 0, done.output
    problems = json.loads(done.stdout)["files"]["unparseable"]
    assert problems == [{"path": "deep.py", "line": 1, "col": 1, "message": "nested too deeply to parse"}]
    assert cli("migrate", root, "--apply").exit_code == 0


def test_a_linked_file_is_not_fixable_its_target_is(tmp_path):
    root = write_tree(tmp_path, TREE)
    (root / "alias.py").symlink_to(root / "server.py")
    findings = [(f.path, f.fixable) for f in evaluate(scan(root, load_profile(None, root))).findings
                if f.rule == "RA203"]
    assert findings == [("alias.py", False), ("server.py", True)]
    done = cli("migrate", root, "--apply")
    assert done.exit_code == 0 and "rewrote 1 file(s) with 1 rewrite(s)" in done.stderr
    assert (root / "alias.py").is_symlink() and "rb.success(" in (root / "alias.py").read_text()


def test_a_comment_on_a_dropped_flag_is_kept():
    from reply_audit.codemods.convert import _drop

    def rewrite(src):
        node = cst.parse_expression(src)
        items, carried = _drop(list(node.elements), ("success",))
        node = node.with_changes(elements=items)
        if carried is not None:
            node = node.with_changes(lbrace=node.lbrace.with_changes(whitespace_after=carried))
        return cst.Module(body=[]).code_for_node(node)

    assert rewrite('{\n    "success": True,  # the flag\n    "a": 1,\n}') == '{  # the flag\n    "a": 1,\n}'
    assert rewrite('{\n    "a": 1,\n    "success": True,  # the flag\n    "b": 2,\n}') == \
        '{\n    "a": 1,  # the flag\n    "b": 2,\n}'
    assert rewrite('{\n    "a": 1,\n    "success": True,  # the flag\n}') == '{\n    "a": 1,  # the flag\n}'


def test_a_merged_import_leaves_comments_on_their_names():
    module = cst.parse_module("from .safety import (\n    ReplyBuilder,  # the builder\n)\n")
    assert add_imports(module, ["from .safety import mcp_safe_tool"]).code == (
        "from .safety import (\n    ReplyBuilder,  # the builder\n    mcp_safe_tool,\n)\n")


def test_old_mac_line_endings_are_scanned_and_never_altered(tmp_path):
    write_tree(tmp_path, {"builder.py": BUILDER, "codes.py": CODES})
    source = b'def f(rb: ReplyBuilder):\r    x = 1\r    return rb.info("WA-READ-S-001", {})  # reply-audit: ignore\r'
    (tmp_path / "server.py").write_bytes(source)
    result = scan(tmp_path, load_profile(None, tmp_path))
    assert [(c.line, c.method) for c in result.inventory.calls if c.path == "server.py"] == [(3, "info")]
    assert {(f.rule, f.line) for f in evaluate(result).suppressed} >= {("RA203", 3)}
    (tmp_path / "server.py").write_bytes(source.replace(b"  # reply-audit: ignore", b""))
    assert [f.fixable for f in evaluate(scan(tmp_path, load_profile(None, tmp_path))).findings
            if f.rule == "RA203"] == [False]
    done = cli("migrate", tmp_path, "--apply", "-f", "json")
    assert done.exit_code == 0 and json.loads(done.stdout)["skipped"][0]["reason"].startswith(
        "the file ends lines with a lone \\r (old Mac)")
    refused = rewrite_source(source, [ReplaceCode("x", "server.py", [(3, 19, 3, 34)], "d", old="WA-READ-S-001",
                                                  new="WA-READ-S-002")])
    assert refused.new_source is None and refused.problem == (
        "libcst cannot reproduce this file byte for byte: not rewritten")
    assert (tmp_path / "server.py").read_bytes() == source.replace(b"  # reply-audit: ignore", b"")


def test_judgment_calls_after_review(tmp_path):
    """A generator's terminal call is left alone; a dict's own registered code is used; RA308 sits on the
    registration decorator, so a suppression there works."""
    write_tree(tmp_path, {**DICT_TREE, "server.py": '''
        from builder import ReplyBuilder


        def rows(rb: ReplyBuilder, items):
            for item in items:
                yield item
            rb.invalid("WA-RES-I-001", {})


        @mcp.tool()  # reply-audit: ignore[RA308]
        def read(path):
            if not path:
                return {"success": False, "code": "WA-RES-I-001", "path": path}
            return {"success": True, "code": "WA-READ-S-001"}
        '''})
    result = scan(tmp_path, load_profile(None, tmp_path))
    evaluation = evaluate(result)
    assert [(f.rule, f.line) for f in evaluation.suppressed] == [("RA308", 11)]
    doc = json.loads(cli("migrate", tmp_path, "--apply", "-f", "json").stdout)
    assert [(s["rule"], s["reason"]) for s in doc["skipped"]] == [
        ("RA303", "the function is a generator: a returned reply would end the iteration unseen")]
    assert (tmp_path / "server.py").read_text().splitlines()[12:16] == [
        '    rb = ReplyBuilder(tool="read")',
        "    if not path:",
        '        return rb.invalid("WA-RES-I-001", data={"path": path})',
        '    return rb.success("WA-READ-S-001", data={})']


@pytest.mark.parametrize("rows", [
    [["safety-wrapper", 1, 0, 0, 0, 0], ["forbidden-methods", 2, 10, 123456789, 0, 3]],
    [["a-very-long-codemod-name-indeed", 3, 1, 2, 3, 4]],
    [],
])
def test_the_counts_table_is_drawn_as_tabulate_draws_it(rows) -> None:
    from tabulate import tabulate

    from reply_audit.report.migrate_report import counts_table

    headers = ["codemod", "phase", "files", "rewrites", "skipped", "refused"]
    assert counts_table(headers, rows) == tabulate(rows, headers=headers, tablefmt="simple")
