"""What migrate must never do, pinned case by case: wrap a handler its wrapper will break, write a call that
raises, put an import where it fails, turn a failure into a success, leave a tree half written."""

from __future__ import annotations

import json
import os
import shutil
import stat
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from reply_audit.cli import app
from reply_audit.codemods.apply import add_imports
from reply_audit.codemods.context import PlanContext
from reply_audit.codemods.imports import ImportFinder
from reply_audit.engine import evaluate
from reply_audit.facts.model import Signature, WrapperFact
from reply_audit.journal import FOLDER, Journal
from reply_audit.profile import load_profile
from reply_audit.scan import scan
from support import CliRunner, facts_of, write_tree

RUNNER = CliRunner()


def cli(*args):
    return RUNNER.invoke(app, [str(a) for a in args])


# ------------------------------------------------------------------------------------------ the wrapper
@pytest.mark.parametrize("source,behaviour,detail,requires", [
    ('''
def mcp_safe_tool(func: Callable[P, Reply]) -> Callable[P, dict]:
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        if not isinstance(result, Reply):
            error = Reply.error(code="MCP-SYS-E-003", message="not a reply")
            return error.to_dict()
        return result.to_dict()
    return wrapper
''', "reject", "line 5: a result that is not a Reply becomes a reply of type E", "Reply"),
    ('''
def mcp_safe_tool(func: Callable[..., Any]):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        if isinstance(result, Reply):
            return replace(result, trace_id="t")
        return Reply("S", "MCP-SYS-S-900", "legacy", {"payload": result})
    return wrapper
''', "autowrap", "line 6: a result that is not a Reply is wrapped as a Success", None),
    ('''
def mcp_safe_tool(func):
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        if isinstance(result, dict):
            raise TypeError("return a Reply")
        return result
    return wrapper
''', "reject", "line 5: a result that is not a dict becomes an exception", None),
    ('''
def mcp_safe_tool(func):
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            return Reply("E", "MCP-SYS-E-001", str(exc))
    return wrapper
''', "passthrough", "the result is returned without a check", None),
    ('''
def mcp_safe_tool(func):
    return func
''', "passthrough", "it returns func itself", None),
    ('''
def mcp_safe_tool(func):
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        return replace(result, trace_id="t")
    return wrapper
''', "unknown", "the result is used without a check of its type", None),
])
def test_the_safety_wrapper_is_classified_by_what_it_does_with_a_raw_result(profile, source, behaviour, detail,
                                                                              requires):
    facts = facts_of(source, profile)
    assert facts.wrappers == [WrapperFact(name="mcp_safe_tool", line=2, behaviour=behaviour, detail=detail,
                                          evidence_line=facts.wrappers[0].evidence_line, requires=requires)]


def test_builder_signatures_are_read(profile):
    facts = facts_of('''
class ReplyBuilder:
    def __init__(self, trace_info, tool: str, layer: str = "MCP", *, strict=True, contract):
        pass

    def success(self, code: str, data: dict, message: str | None = None) -> Reply:
        pass

    def invalid(self, code, data=None, **extra) -> "Reply":
        pass
''', profile)
    builder = facts.builders[0]
    assert builder.init == Signature(params=["trace_info", "tool", "layer"], required=["trace_info", "tool", "contract"],
                                     keyword_only=["strict", "contract"], returns=None)
    assert builder.signatures["success"] == Signature(params=["code", "data", "message"], required=["code", "data"],
                                                      returns="Reply")
    assert builder.signatures["invalid"].accepts("message") and not builder.signatures["success"].accepts("extra")


# ------------------------------------------------------------------------------- calls that would raise
SAFETY = '''
from replies import Reply


def mcp_safe_tool(func):
    return func


class ReplyBuilder:
    def __init__(self, trace_info, tool):
        self.trace_info, self.tool = trace_info, tool

    def success(self, code, data, message=None) -> Reply:
        return Reply()

    def invalid(self, code, data, message=None) -> Reply:
        return Reply()

    def denied(self, code, data, message=None) -> Reply:
        return Reply()

    def error(self, code, data, message=None) -> Reply:
        return Reply()
'''
REPLIES = "class Reply:\n    pass\n"
SETUP = '[tool.reply-audit.migrate]\nbuilder-setup = ["{name} = {builder}(None, tool=\\"{tool}\\")"]\n'
SERVER = '''
from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def notes_read(path: str) -> dict:
    return {"path": path}
'''


@pytest.mark.parametrize("setup,reason", [
    ('["{name} = {builder}(tool=\\"{tool}\\")"]',
     "ReplyBuilder() requires trace_info, which [migrate] builder-setup does not pass: set [migrate] builder-setup"),
    ('["{name} = {builder}(None, tool=\\"{tool}\\", colour=1)"]',
     "ReplyBuilder() takes no argument 'colour': set [migrate] builder-setup"),
    ('["{name} = {builder}(1, 2, 3)"]',
     "ReplyBuilder() takes 2 positional argument(s); [migrate] builder-setup passes 3"),
    ('["{name} = {builder}(*ARGS)"]',
     "[migrate] builder-setup passes *args/**kwargs to ReplyBuilder(): it cannot be checked"),
])
def test_a_builder_construction_that_would_raise_is_never_written(tmp_path, setup, reason):
    write_tree(tmp_path, {"safety.py": SAFETY, "replies.py": REPLIES, "server.py": SERVER,
                          "pyproject.toml": f"[tool.reply-audit.migrate]\nbuilder-setup = {setup}\n"})
    doc = json.loads(cli("migrate", tmp_path, "-f", "json").stdout)
    assert doc["files"] == [] and [(s["rule"], s["line"], s["reason"]) for s in doc["skipped"]] == [
        ("RA306", 8, reason)]


def test_a_builder_outside_the_tree_is_not_constructed(tmp_path):
    write_tree(tmp_path, {"server.py": "from safety import mcp_safe_tool\n" + SERVER.split("\n", 2)[2],
                          "pyproject.toml": '[tool.reply-audit.migrate]\nbuilder-class = "ReplyBuilder"\n'})
    doc = json.loads(cli("migrate", tmp_path, "-f", "json").stdout)
    assert [s["reason"] for s in doc["skipped"]] == [
        "ReplyBuilder is not defined in the scanned tree (or defined twice): its constructor and methods cannot be "
        "checked, so no call to it is written"]


# ------------------------------------------------------------------------------------------- imports
def test_new_imports_follow_the_sys_path_setup_they_need():
    module = cst.parse_module(textwrap.dedent('''
        import sys
        from pathlib import Path


        def check():
            pass


        ROOT = Path(__file__).parent / "src"
        if ROOT.exists():
            sys.path.insert(0, str(ROOT))

        from core.db import connect
        from core.log import log

        VALUE = 1
        '''))
    code = add_imports(module, ["from safety import mcp_safe_tool"]).code
    assert code.split("from core.log import log\n")[1].startswith("from safety import mcp_safe_tool\n\nVALUE = 1")


def test_a_script_gets_no_relative_import(tmp_path):
    result = scan(write_tree(tmp_path, {
        "tools/__init__.py": "",
        "tools/safety.py": "def mcp_safe_tool(f):\n    return f\n",
        "tools/server.py": "def main():\n    pass\n\n\nif __name__ == '__main__':\n    main()\n",
        "tools/other.py": "x = 1\n",
    }), load_profile(None, tmp_path))
    finder = ImportFinder(result)
    assert finder.statement_for("mcp_safe_tool", "tools/other.py") == "from .safety import mcp_safe_tool"
    assert finder.statement_for("mcp_safe_tool", "tools/server.py") is None


# ---------------------------------------------------------------------------- failures stay failures
def test_a_failed_iar_result_never_gets_error_none(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.reply-audit]\nprofile = "iar"\n', "actions.py": '''
        def fetch(url):
            if not url:
                return {"status": "error", "message": "no url"}
            try:
                body = download(url)
            except Exception as e:
                return {"result": None, "note": f"download failed: {e}"}
            if body is None:
                return {"status": "Failed", "url": url}
            if len(body) > 10:
                return {"success": False, "reason": "too big", "error": None}
            return {"status": "ok", "body": body}


        registry.register_action("fetch", fetch)
        '''})
    assert cli("migrate", tmp_path, "--apply").exit_code == 0
    returns = [line.strip() for line in (tmp_path / "actions.py").read_text().splitlines()
               if line.strip().startswith("return")]
    errors = [r.split('"data"')[0] for r in returns]
    assert errors == [
        'return {"error": {"code": "RES-ERR-ACTN-0001", "message": "no url", "details": {}}, ',
        'return {"error": {"code": "RES-ERR-ACTN-0001", "message": "failed (returned from an except); the result '
        'says no more", "details": {}}, ',
        'return {"error": {"code": "RES-ERR-ACTN-0001", "message": "failed (status \'Failed\'); the result says no '
        'more", "details": {}}, ',
        'return {"error": {"code": "RES-ERR-ACTN-0001", "message": "too big", "details": {}}, ',
        'return {"error": None, ']
    doc = json.loads(cli("scan", tmp_path, "-f", "json", "--fail-on", "none").stdout)
    assert doc["results"]["errors_by_shape"] == {"bare_string": 0, "none": 1, "object": 4, "other": 0}


# ------------------------------------------------------------------------------------------------ files
def _two_file_tree(tmp_path):
    body = SERVER.replace("notes_read", "{name}")
    return write_tree(tmp_path, {"safety.py": SAFETY, "replies.py": REPLIES,
                                 "a.py": body.replace("{name}", "a_read"), "b.py": body.replace("{name}", "b_read"),
                                 "pyproject.toml": SETUP})


def test_read_only_files_are_refused_unless_forced(tmp_path):
    root = _two_file_tree(tmp_path)
    os.chmod(root / "a.py", 0o444)
    done = cli("migrate", root, "--apply", "-f", "json")
    doc = json.loads(done.stdout)
    assert done.exit_code == 1 and doc["written"] == ["b.py"]
    assert [(r["path"], r["reason"]) for r in doc["refused"]] == [
        ("a.py", "not written: is read-only (mode 0444): pass --force to rewrite it")]
    forced = cli("migrate", root, "--apply", "--force", "-f", "json")
    assert forced.exit_code == 0 and json.loads(forced.stdout)["written"] == ["a.py"]
    assert stat.S_IMODE(os.stat(root / "a.py").st_mode) == 0o444 and "rb.success(" in (root / "a.py").read_text()


def test_stale_temporaries_of_ours_are_removed_and_nothing_else(tmp_path):
    root = _two_file_tree(tmp_path)
    (root / ".a.py.k2j4h1x9.reply-audit.tmp").write_text("half")
    (root / ".a.py.k2j4h1x9.tmp").write_text("someone else's")
    doc = json.loads(cli("migrate", root, "--apply", "-f", "json").stdout)
    assert doc["removed_temporaries"] == [".a.py.k2j4h1x9.reply-audit.tmp"]
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".a")) == [".a.py.k2j4h1x9.tmp"]


def test_an_interrupted_apply_is_recorded_then_resumed_or_rolled_back(tmp_path):
    root = _two_file_tree(tmp_path)
    old = {n: (root / n).read_bytes() for n in ("a.py", "b.py")}
    shown = json.loads(cli("migrate", root, "-f", "json").stdout)
    assert [f["path"] for f in shown["files"]] == ["a.py", "b.py"]
    # a run killed after the journal and the first file: simulate it with the journal's own API
    from reply_audit.codemods import select_codemods
    from reply_audit.migrate import migrate

    result = migrate(scan(root, load_profile(None, root)), select_codemods(None, None))
    new = {p: result.sources[p] for p in ("a.py", "b.py")}
    Journal.begin(root, [(p, old[p], new[p], 0o644) for p in ("a.py", "b.py")])
    (root / "a.py").write_bytes(new["a.py"])

    refused = cli("migrate", root, "--apply")
    assert refused.exit_code == 2 and refused.stderr.strip() == (
        f"reply-audit: error: an interrupted `migrate --apply` left its journal in {root.as_posix()}/{FOLDER} "
        "(2 file(s)): run with --resume to finish it or --rollback to undo it")
    dry = cli("migrate", root)
    assert dry.exit_code == 0 and dry.stderr.startswith("reply-audit: warning: an interrupted")

    back = cli("migrate", root, "--rollback")
    assert back.exit_code == 0 and "rolled back the interrupted migrate: 1 file(s) written, 1 already done" in \
        back.stderr
    assert {n: (root / n).read_bytes() for n in old} == old and not (root / FOLDER).exists()

    Journal.begin(root, [(p, old[p], new[p], 0o644) for p in ("a.py", "b.py")])
    (root / "a.py").write_bytes(new["a.py"])
    ahead = cli("migrate", root, "--resume")
    assert ahead.exit_code == 0 and "finished the interrupted migrate: 1 file(s) written, 1 already done" in \
        ahead.stderr
    assert {n: (root / n).read_bytes() for n in old} == new and not (root / FOLDER).exists()
    assert cli("migrate", root, "--check").exit_code == 0


def _write_failing_on_b(root, monkeypatch, failure: BaseException):
    """Write the migration of ROOT with the replacement of b.py failing with FAILURE; the migrate result."""
    import reply_audit.migrate as migrate_module

    real = migrate_module.replace

    def replace(path, data, mode, durable=True):
        if path.name == "b.py":
            raise failure
        real(path, data, mode, durable)

    result = migrate_module.migrate(scan(root, load_profile(None, root)))
    monkeypatch.setattr(migrate_module, "replace", replace)
    try:
        migrate_module.write(result, allow_dirty=True)
    finally:
        monkeypatch.undo()
    return result


def test_a_run_stopped_between_two_files_leaves_its_journal(tmp_path, monkeypatch):
    """The process dies (here: an exception nothing catches) after the first file is replaced."""
    root = _two_file_tree(tmp_path)
    old = {n: (root / n).read_bytes() for n in ("a.py", "b.py")}
    with pytest.raises(KeyboardInterrupt):
        _write_failing_on_b(root, monkeypatch, KeyboardInterrupt())
    assert (root / "a.py").read_bytes() != old["a.py"] and (root / "b.py").read_bytes() == old["b.py"]
    assert [e["path"] for e in Journal.find(root).entries] == ["a.py", "b.py"]
    assert cli("migrate", root, "--apply").exit_code == 2
    assert cli("migrate", root, "--resume").exit_code == 0
    assert (root / "b.py").read_bytes() != old["b.py"] and not (root / FOLDER).exists()
    assert cli("migrate", root, "--check").exit_code == 0


def test_a_write_that_fails_in_the_middle_undoes_the_run(tmp_path, monkeypatch):
    from reply_audit.safe_write import WriteRefused

    root = _two_file_tree(tmp_path)
    old = {n: (root / n).read_bytes() for n in ("a.py", "b.py")}
    result = _write_failing_on_b(root, monkeypatch, WriteRefused("cannot write: No space left on device"))
    assert result.written == [] and {n: (root / n).read_bytes() for n in old} == old
    assert sorted((r.path, r.reason) for r in result.refused) == [
        ("a.py", "not written: undone, because b.py could not be written (cannot write: No space left on device)"),
        ("b.py", "not written: cannot write: No space left on device")]
    assert not (root / FOLDER).exists()


def test_a_file_changed_since_the_interruption_is_left_alone(tmp_path):
    root = _two_file_tree(tmp_path)
    old = {n: (root / n).read_bytes() for n in ("a.py", "b.py")}
    Journal.begin(root, [(p, old[p], old[p] + b"# new\n", 0o644) for p in ("a.py", "b.py")])
    (root / "b.py").write_bytes(b"edited by hand\n")
    done = cli("migrate", root, "--resume")
    assert done.exit_code == 2 and done.stderr.strip().endswith(
        f"reply-audit: error: changed since the interrupted run, left alone: b.py (the journal stays in {FOLDER})")
    assert (root / "a.py").read_bytes() == old["a.py"] + b"# new\n" and (root / FOLDER).exists()
    assert cli("migrate", root, "--resume", "--rollback").exit_code == 2
    back = cli("migrate", root, "--rollback")
    assert back.exit_code == 2 and (root / "a.py").read_bytes() == old["a.py"]
    assert (root / "b.py").read_bytes() == b"edited by hand\n"


def test_resume_without_a_journal_is_a_usage_error(tmp_path):
    root = _two_file_tree(tmp_path)
    done = cli("migrate", root, "--resume")
    assert done.exit_code == 2 and "no interrupted migrate to resume" in done.stderr


def test_the_summary_names_the_wrapper_behaviour(tmp_path):
    root = _two_file_tree(tmp_path)
    ctx = PlanContext(scan(root, load_profile(None, root)))
    assert (ctx.wrapper.behaviour, ctx.wrapper.detail) == ("passthrough", "safety.py:5: it returns func itself")
    done = cli("migrate", root)
    assert "safety wrapper mcp_safe_tool: passes raw results through; handlers are wrapped as they are " \
           "(safety.py:5: it returns func itself)" in done.stderr


def test_written_functions_follow_the_files_line_endings(tmp_path):
    """The run-time classifier's docstring spans two lines: in a CRLF file they end in CRLF too."""
    server = SERVER.replace('return {"path": path}', 'result = {"path": path}\n    return result')
    write_tree(tmp_path, {"safety.py": SAFETY, "replies.py": REPLIES,
                          "pyproject.toml": SETUP})
    (tmp_path / "server.py").write_bytes(textwrap.dedent(server).replace("\n", "\r\n").encode())
    assert cli("migrate", tmp_path, "--apply").exit_code == 0
    data = (tmp_path / "server.py").read_bytes()
    assert b"def _reply_from_legacy(" in data and data.count(b"\n") == data.count(b"\r\n")


# ------------------------------------------------------------------------------ which failure it is
DECISION_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def notes_write(path: str, reason: str) -> dict:
    if path.startswith("/system"):
        return {"allowed": False, "error": reason}
    if path.startswith("/locked"):
        return {"decision": "DENY", "path": path}
    return {"success": True, "path": path}


@mcp.tool()
@mcp_safe_tool
def db_query(sql: str, limit: str) -> dict:
    if not sql.startswith("SELECT"):
        return {"success": False, "error": "Only SELECT queries allowed"}
    if sql == "SELECT mode":
        return {"error": "Allowed modes: fast, slow"}
    try:
        n = int(limit)
    except ValueError:
        return {"error": f"limit is not a number: {limit}"}
    try:
        rows = run(sql, n)
    except Exception as exc:
        return {"error": str(exc)}
    if rows is None:
        return {"error": "Daemon not running"}
    return {"rows": rows}
'''
DECISION_REPLIES = '''class Reply:
    pass


class Codes:
    MCP_SYS_S_001 = "MCP-SYS-S-001"
    MCP_SYS_I_001 = "MCP-SYS-I-001"
    MCP_SYS_E_001 = "MCP-SYS-E-001"
    EN_WRITE_D_001 = "EN-WRITE-D-001"
    EN_DB_D_001 = "EN-DB-D-001"
'''


def _returned_calls(root, server: str, replies: str) -> list[str]:
    """Migrate SERVER (with REPLIES and the builder of SAFETY) and give its `return rb.…` lines."""
    write_tree(root, {"server.py": server, "safety.py": SAFETY, "replies.py": replies, "pyproject.toml": SETUP})
    assert cli("migrate", root, "--apply").exit_code == 0
    return [line.strip() for line in (root / "server.py").read_text().splitlines()
            if line.strip().startswith("return rb.")]


def test_a_failure_is_denied_invalid_or_error_by_what_it_says(tmp_path):
    """Refusals by policy are Denied from the layer that owns D, with the registered D code whose AREA the
    handler's name says (the only D code of the only area named: written unmarked); bad input caught narrowly
    is Invalid; the system failing is Error; "Allowed modes" is not a refusal. The registry has no S, I or E code
    of any area the names or messages mention: each gets the fallback code of its type, unmarked where a sign
    decided the type (a Success, an Invalid on a parameter, "not running" an Error); a failure whose type is the
    classifier's default ("Allowed modes") keeps the marker: its type and code wait for a human together."""
    written = _returned_calls(tmp_path, DECISION_SERVER, DECISION_REPLIES)
    marker = "  # reply-audit: default-code"
    assert written == [
        'return rb.denied("EN-WRITE-D-001", data={"allowed": False, "error": reason})',
        'return rb.denied("EN-WRITE-D-001", data={"decision": "DENY", "path": path})',
        'return rb.success("MCP-SYS-S-001", data={"path": path})',   # no area with S codes named: the fallback
        'return rb.denied("EN-DB-D-001", data={}, message="Only SELECT queries allowed")',
        'return rb.invalid("MCP-SYS-I-001", data={}, message="Allowed modes: fast, slow")' + marker,
        'return rb.invalid("MCP-SYS-I-001", data={}, message=f"limit is not a number: {limit}")',
        'return rb.error("MCP-SYS-E-001", data={}, message=str(exc))',   # a broad except: except_to_error's code
        'return rb.error("MCP-SYS-E-001", data={}, message="Daemon not running")',
        'return rb.success("MCP-SYS-S-001", data={"rows": rows})']


def test_a_narrow_except_on_a_value_the_caller_passed_is_invalid_on_a_computed_one_an_error(tmp_path):
    """`parts = tags.split(",")` is still the caller's input: its ValueError is Invalid, with its type's fallback
    code (no area named). `payload or DEFAULT` may be the system's own value, and `fetch_price(...)` is the
    system's work on the caller's value: their ValueErrors may be either side's, so they are Errors of low
    confidence (alternative Invalid), marked for a human."""
    server = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def notes_tag(tags: str, payload: str) -> dict:
    parts = tags.split(",")
    try:
        kinds = [Kind(p) for p in parts]
    except ValueError as exc:
        return {"error": f"bad tag: {exc}"}
    source = payload or DEFAULT_PAYLOAD
    try:
        body = json.loads(source)
    except ValueError:
        return {"error": "payload is corrupt"}
    try:
        price = float(fetch_price(parts[0]))
    except ValueError:
        return {"error": "backend returned a bad price"}
    return {"kinds": kinds, "body": body, "price": price}
'''
    marker = "  # reply-audit: default-code"
    assert _returned_calls(tmp_path, server, DECISION_REPLIES) == [
        'return rb.invalid("MCP-SYS-I-001", data={}, message=f"bad tag: {exc}")',
        'return rb.error("MCP-SYS-E-001", data={}, message="payload is corrupt")' + marker,
        'return rb.error("MCP-SYS-E-001", data={}, message="backend returned a bad price")' + marker,
        'return rb.success("MCP-SYS-S-001", data={"kinds": kinds, "body": body, "price": price})']


def test_a_bad_pattern_is_one_line(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.reply-audit.migrate.dict-returns]\ndenied-patterns = ['(']\n"})
    done = cli("migrate", tmp_path)
    assert done.exit_code == 2 and done.stderr.strip().endswith(
        "[migrate.dict-returns] denied-patterns: '(' is not a regular expression (missing ), unterminated "
        "subpattern at position 0)")


# ------------------------------------------------------------------------------- which code it gets
def _registry(entries: str) -> str:
    """A replies.py whose `Codes` class holds ENTRIES (`NAME = ReplyCode("CODE", "KEY", "text")` lines)."""
    return REGISTRY_HEAD + textwrap.indent(textwrap.dedent(entries).strip() + "\n", "    ")


REGISTRY_HEAD = '''class Reply:
    pass


class ReplyCode:
    def __init__(self, code, key, text):
        self.code = code


class Codes:
'''


CODES_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def notes_read(name: str, command: str) -> dict:
    if command not in ("show", "raw"):
        return {"error": f"Unknown command: {command}"}
    if name not in NOTES:
        return {"error": f"Note {name} not found"}
    return {"text": NOTES[name]}


@mcp.tool()
@mcp_safe_tool
def db_stats(table: str) -> dict:
    if not table:
        return {"error": "a table name is required"}
    return {"rows": 3}


@mcp.tool()
@mcp_safe_tool
def notes_tidy() -> dict:
    return {"removed": 0}
'''
CODES_REPLIES = _registry('''
MCP_SYS_S_001 = ReplyCode("MCP-SYS-S-001", "DONE", "Done")
MCP_SYS_I_001 = ReplyCode("MCP-SYS-I-001", "BAD_REQUEST", "Bad request")
MCP_SYS_I_002 = ReplyCode("MCP-SYS-I-002", "COMMAND_UNKNOWN", "Unknown command for tool")
MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001", "SYS_CRASH", "System failure")
WA_RES_I_001 = ReplyCode("WA-RES-I-001", "PATH_NOT_FOUND", "Path not found")
WA_RES_I_002 = ReplyCode("WA-RES-I-002", "NOTE_NOT_FOUND", "Note not found in the store")
WA_READ_S_001 = ReplyCode("WA-READ-S-001", "READ_OK", "Read complete")
WA_DB_S_001 = ReplyCode("WA-DB-S-001", "DB_OK", "Database operation complete")
WA_DB_I_001 = ReplyCode("WA-DB-I-001", "DB_INPUT_MISSING", "Required database input missing")
''')


def test_a_code_is_chosen_from_the_registry_only_when_the_evidence_is_clear(tmp_path):
    """The message's words against each registered code's own text, the handler's name against its AREA:
    a clear winner is written unmarked (for a Success, the only S code of the only area the name points to);
    a "required" message says input is missing (DB_INPUT_MISSING); notes_tidy names no domain at all: the
    fallback code of its type, unmarked (read_db, below, names two and stays marked)."""
    written = _returned_calls(tmp_path, CODES_SERVER, CODES_REPLIES)
    assert written == [
        'return rb.invalid("MCP-SYS-I-002", data={}, message=f"Unknown command: {command}")',
        'return rb.invalid("WA-RES-I-002", data={}, message=f"Note {name} not found")',
        'return rb.success("WA-READ-S-001", data={"text": NOTES[name]})',
        'return rb.invalid("WA-DB-I-001", data={}, message="a table name is required")',
        'return rb.success("WA-DB-S-001", data={"rows": 3})',
        'return rb.success("MCP-SYS-S-001", data={"removed": 0})']


MEDIA_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def playlist_show(name: str) -> dict:
    if not name:
        return {"error": "name required"}
    return {"tracks": []}


@mcp.tool()
@mcp_safe_tool
def db_rows(table: str) -> dict:
    if not table:
        return {"error": "No table provided"}
    return {"rows": 3}


@mcp.tool()
@mcp_safe_tool
def library_ping() -> dict:
    return {"pong": True}


@mcp.tool()
@mcp_safe_tool
def fetch_cover(url: str) -> dict:
    if not url:
        return {"error": "url required"}
    return {"cover": url}


@mcp.tool()
@mcp_safe_tool
def playlist_load(name: str) -> dict:
    result = load(name)
    return result


@mcp.tool()
@mcp_safe_tool
def db_vacuum() -> dict:
    if not vacuum():
        return {"error": "vacuum timed out"}
    if not archive():
        return {"error": "the visibility index timed out"}
    return {"done": True}


@mcp.tool()
@mcp_safe_tool
def track_count() -> dict:
    return {"n": 1}
'''
MEDIA_REPLIES = _registry('''
MCP_SYS_S_001 = ReplyCode("MCP-SYS-S-001", "SYS_OP_OK", "System operation complete")
MCP_SYS_I_001 = ReplyCode("MCP-SYS-I-001", "INPUT_INVALID", "Tool input validation failed")
MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001", "SYS_CRASH", "Unexpected exception")
WA_VIS_S_001 = ReplyCode("WA-VIS-S-001", "PLAYLIST_SAVED", "Shelf or playlist saved")
WA_VIS_I_001 = ReplyCode("WA-VIS-I-001", "PLAYLIST_EMPTY", "No track on the shelf")
WA_VIS_E_001 = ReplyCode("WA-VIS-E-001", "SHELF_ERROR", "Shelf failure")
WA_DB_S_001 = ReplyCode("WA-DB-S-001", "DB_OP_OK", "Database operation complete")
WA_DB_I_001 = ReplyCode("WA-DB-I-001", "DB_INPUT_MISSING", "Required database input missing")
WA_DB_I_002 = ReplyCode("WA-DB-I-002", "DB_QUERY_INVALID", "Invalid query or bad table")
WA_DB_E_001 = ReplyCode("WA-DB-E-001", "DB_ERROR", "Database failure")
MCP_DB_S_001 = ReplyCode("MCP-DB-S-001", "DB_OP_OK", "System-owned database operation complete")
MCP_DB_S_002 = ReplyCode("MCP-DB-S-002", "DB_PREVIEW_OK", "System-owned database preview complete")
''')


def test_registry_words_generic_codes_concepts_and_the_fallback(tmp_path):
    """playlist_show: `playlist` is a word of message keys only area VIS has, so the name names VIS: its
    Success is VIS's only S code; "name required" there is no database input (a concept's words never spell a
    message key), and VIS has an I code whose text is not generic: marked. db_rows: DB has S codes in two
    layers; the generic one (a text of only its area and generic words, in the one layer that is not the
    fallback's) is WA-DB-S-001; "No table provided" means required input is missing (DB_INPUT_MISSING).
    library_ping and fetch_cover name no area: the fallback code of each type, unmarked; "url required" shares
    one word with DB_INPUT_MISSING's text, too little to read like it. track_count: `track` is a word of one
    description ("No track on the shelf"), no message key: too weak to choose VIS's code, enough to keep the
    fallback from being written unmarked. playlist_load's result is seen only at run time: its Success is VIS's only S code,
    its failure's code is marked (PLAYLIST_EMPTY is no generic text). db_vacuum: an Error whose message names
    no area takes the generic E code of the area the name names (quiet_area_types); one whose message names
    another area (VIS) is left to a human."""
    written = _returned_calls(tmp_path, MEDIA_SERVER, MEDIA_REPLIES)
    marker = "  # reply-audit: default-code"
    assert written == [
        'return rb.invalid("MCP-SYS-I-001", data={}, message="name required")' + marker,
        'return rb.success("WA-VIS-S-001", data={"tracks": []})',
        'return rb.invalid("WA-DB-I-001", data={}, message="No table provided")',
        'return rb.success("WA-DB-S-001", data={"rows": 3})',
        'return rb.success("MCP-SYS-S-001", data={"pong": True})',
        'return rb.invalid("MCP-SYS-I-001", data={}, message="url required")',
        'return rb.success("MCP-SYS-S-001", data={"cover": url})',
        'return rb.error("WA-DB-E-001", data={}, message="vacuum timed out")',
        'return rb.error("MCP-SYS-E-001", data={}, message="the visibility index timed out")' + marker,
        'return rb.success("WA-DB-S-001", data={"done": True})',
        'return rb.success("MCP-SYS-S-001", data={"n": 1})' + marker]
    assert '    return _reply_from_legacy(result, rb.success, "WA-VIS-S-001", rb.invalid, "MCP-SYS-I-001")' + marker \
        + "\n" in (tmp_path / "server.py").read_text()


def test_mark_fallback_keeps_the_marker_on_sites_that_name_no_domain(tmp_path):
    setup = SETUP + "[tool.reply-audit.migrate.codes]\nmark-fallback = true\n"
    write_tree(tmp_path, {"server.py": MEDIA_SERVER, "safety.py": SAFETY, "replies.py": MEDIA_REPLIES,
                          "pyproject.toml": setup})
    assert cli("migrate", tmp_path, "--apply").exit_code == 0
    text = (tmp_path / "server.py").read_text()
    assert '    return rb.success("MCP-SYS-S-001", data={"pong": True})  # reply-audit: default-code\n' in text
    assert '    return rb.success("WA-DB-S-001", data={"rows": 3})\n' in text


@pytest.mark.parametrize("table,message", [
    ("mark-fallback = 1", "[migrate.codes] mark-fallback must be true or false"),
    ("quiet-area-types = 'E'", "[migrate.codes] quiet-area-types must be a list of type letters (of ['S', 'I', "
                               "'D', 'E'])"),
    ("sole-area-types = ['Success']", "[migrate.codes] sole-area-types must be a list of type letters (of ['S', "
                                      "'I', 'D', 'E'])"),
    ("key-weight = 'x'", "[migrate.codes] key-weight must be a number"),
    ("usage-weight = true", "[migrate.codes] usage-weight must be a number"),
    ("stop-words = 'the'", "[migrate.codes] stop-words must be a list of strings"),
    ("concepts = {all = ['']}", "[migrate.codes.concepts] 'all': an empty pattern matches every message"),
    ("layer-words = {CT = 'contract'}", "[migrate.codes.layer-words] CT must be a list of strings"),
    ("concepts = 3", "[migrate.codes.concepts] must be a table"),
    ("concepts = {missing = 'x'}", "[migrate.codes.concepts] 'missing' must be a list of regular expressions"),
    ("concepts = {missing = ['(']}", "[migrate.codes.concepts] 'missing': '(' is not a regular expression "
                                     "(missing ), unterminated subpattern at position 0)"),
])
def test_a_bad_codes_setting_is_one_line(tmp_path, table, message):
    write_tree(tmp_path, {"pyproject.toml": f"[tool.reply-audit.migrate.codes]\n{table}\n"})
    done = cli("migrate", tmp_path)
    assert done.exit_code == 2 and done.stderr.strip().endswith(message), done.stderr


def test_the_report_lists_the_candidates_of_a_marked_code(tmp_path):
    """read_db names two areas with a Success code each: no winner, both listed for the reviewer."""
    server = CODES_SERVER + '''

@mcp.tool()
@mcp_safe_tool
def read_db() -> dict:
    return {"rows": 4}
'''
    write_tree(tmp_path, {"server.py": server, "safety.py": SAFETY, "replies.py": CODES_REPLIES,
                          "pyproject.toml": SETUP})
    doc = json.loads(cli("migrate", tmp_path, "-f", "json").stdout)
    assert [r["description"] for f in doc["files"] for r in f["rewrites"]] == [
        "notes_read: 3 return(s) -> rb calls, -> Reply",
        "db_stats: 2 return(s) -> rb calls, -> Reply",
        "notes_tidy: 1 return(s) -> rb calls, -> Reply",
        "read_db: 1 return(s) -> rb calls, -> Reply, candidates for the marked codes: line 31: WA-DB-S-001 | "
        "WA-READ-S-001"]


def test_a_dict_with_a_spread_is_classified_at_run_time(tmp_path):
    """`**base` may hold a flag, an error or a code that the literal keys do not show."""
    server = SERVER.replace('return {"path": path}', 'return {**BASE, "success": True, "path": path}')
    write_tree(tmp_path, {"safety.py": SAFETY, "replies.py": REPLIES, "server.py": server, "pyproject.toml": SETUP})
    assert cli("migrate", tmp_path, "--apply").exit_code == 0
    assert '    return _reply_from_legacy({**BASE, "success": True, "path": path}, rb.success, "MCP-SYS-S-001", ' \
           'rb.invalid, "MCP-SYS-I-001")  # reply-audit: default-code\n' in (tmp_path / "server.py").read_text()


# ------------------------------------------------------------------------------- refusals at run time
def _helper(**builder):
    from reply_audit.codemods.convert import helper_source

    profile = load_profile(None, None)
    namespace = {"Reply": tuple}
    exec(helper_source("_reply_from_legacy", "Reply", profile, message=True), namespace)
    return namespace["_reply_from_legacy"]


def _method(letter):
    return lambda code, data, message=None: (letter, code, data, message)


@pytest.mark.parametrize("result,refused,expected", [
    ({"allowed": False, "reason": "not yours"}, True, ("D", "EN-X-D-001", {"allowed": False}, "not yours")),
    ({"allowed": False, "reason": "not yours"}, False, ("I", "MCP-SYS-I-001", {"allowed": False}, "not yours")),
    ({"decision": "DENY", "path": "/x"}, True, ("D", "EN-X-D-001", {"decision": "DENY", "path": "/x"}, None)),
    ({"decision": "ALLOW", "path": "/x"}, True, ("S", "MCP-SYS-S-001", {"decision": "ALLOW", "path": "/x"}, None)),
    ({"success": True, "rows": 1}, True, ("S", "MCP-SYS-S-001", {"rows": 1}, None)),
    ({"success": False, "error": "boom"}, True, ("I", "MCP-SYS-I-001", {}, "boom")),
])
def test_the_run_time_classifier_never_takes_a_refusal_for_a_success(result, refused, expected):
    """A dict seen only at run time that refuses by policy is a failure, and Denied when the Denied method is
    given; before, `{"allowed": False}` without an error key came out a Success."""
    classify = _helper()
    extra = {"refused": _method("D"), "refused_code": "EN-X-D-001"} if refused else {}
    assert classify(result, _method("S"), "MCP-SYS-S-001", _method("I"), "MCP-SYS-I-001", **extra) == expected


POLICY_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def files_write(path: str) -> dict:
    if path.startswith("/system"):
        return {"allowed": False, "error": "system files are read-only"}
    result = enforce(path)
    return result


@mcp.tool()
@mcp_safe_tool
def files_count() -> dict:
    result = count()
    return result
'''


def _handler_returns(root, server: str) -> list[str]:
    _returned_calls(root, server, DECISION_REPLIES)
    return [line.strip() for line in (root / "server.py").read_text().splitlines()
            if line.strip().startswith("return rb.") or line.strip().startswith("return _reply_from_legacy(")]


def test_a_handler_that_speaks_policy_gives_its_run_time_results_the_denied_method(tmp_path):
    """files_write refuses by policy in a literal dict, so what enforce() returns may be a refusal too; files_count
    speaks no policy and its call stays as it was."""
    assert _handler_returns(tmp_path, POLICY_SERVER) == [
        'return rb.denied("EN-WRITE-D-001", data={"allowed": False}, message="system files are read-only")',
        'return _reply_from_legacy(result, rb.success, "MCP-SYS-S-001", rb.invalid, "MCP-SYS-I-001", '
        'refused=rb.denied, refused_code="EN-WRITE-D-001")  # reply-audit: default-code',
        'return _reply_from_legacy(result, rb.success, "MCP-SYS-S-001", rb.invalid, "MCP-SYS-I-001")  '
        '# reply-audit: default-code']   # a failure seen only at run time: its type is a guess, so is its code


def test_an_older_classifier_without_refused_is_never_passed_it(tmp_path):
    """A module whose classifier an earlier run wrote (five parameters) gets calls it accepts."""
    older = ('\n\ndef _reply_from_legacy(result, success, success_code, failure, failure_code):\n'
             '    return success(success_code, data=result)\n')
    written = _handler_returns(tmp_path, POLICY_SERVER.replace("\n\n@mcp.tool()", older + "\n\n@mcp.tool()", 1))
    assert written[1] == ('return _reply_from_legacy(result, rb.success, "MCP-SYS-S-001", rb.invalid, '
                          '"MCP-SYS-I-001")  # reply-audit: default-code')


def test_a_plural_in_the_name_names_the_area_of_its_singular(tmp_path):
    """`users_show` names area USER (`users` -> `user`): its Success is the only S code of USER, not the fallback."""
    replies = '''class Reply:
    pass


class Codes:
    MCP_SYS_S_001 = "MCP-SYS-S-001"
    MCP_SYS_I_001 = "MCP-SYS-I-001"
    WA_USER_S_001 = "WA-USER-S-001"
'''
    server = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def users_show() -> dict:
    return {"rows": []}
'''
    setup = SETUP + '[tool.reply-audit.areas]\nUSER = "User accounts"\nSYS = "Fallback system semantics"\n'
    write_tree(tmp_path, {"server.py": server, "safety.py": SAFETY, "replies.py": replies, "pyproject.toml": setup})
    assert cli("migrate", tmp_path, "--apply").exit_code == 0
    assert '    return rb.success("WA-USER-S-001", data={"rows": []})\n' in (tmp_path / "server.py").read_text()


LENDING = Path(__file__).parent / "fixtures" / "decisions"
HOSTILE_LENDING = '''from lending.replies import ReplyBuilder
from lending.safety import mcp_safe_tool

LOANS: dict[str, dict] = {}


@mcp.tool()
@mcp_safe_tool
def return_loan(loan_id: str) -> dict:
    if not loan_id:
        return {"success": False}
    return {"success": True}


@mcp.tool()
@mcp_safe_tool
def record_visit(card: str) -> dict:
    return {"card": card}


@mcp.tool()
@mcp_safe_tool
def reserve(card: str) -> dict:
    if card in LOANS:
        return {"success": False, "code": "LOAN_MAX", "error": "Too many items held"}
    if len(card) > 9:
        return {"success": False, "error": "Borrower already holds too many items"}
    return {"success": True}


@mcp.tool()
@mcp_safe_tool
def renew_loan(loan_id: str) -> dict:
    if not send_reminder(loan_id):
        return {"success": False, "error": "Reminder e-mail relay timed out"}
    return {"success": True}


@mcp.tool()
@mcp_safe_tool
def contract_close(contract_id: str) -> dict:
    return {"closed": contract_id}


@mcp.tool()
@mcp_safe_tool
def fetch_shelf(path: str) -> dict:
    if not find(path):
        return {"allowed": False, "error": f"Path not found: {path}"}
    return {"shelf": path}
'''


def test_what_a_hostile_review_found_stays_marked_or_right(tmp_path):
    """Each return here once got a wrong code without the marker. return_loan's bare failure: LOAN's only I codes
    are specific (LOAN_LIMIT_REACHED, LOAN_UNKNOWN), so the area does not decide it. record_visit: `record` is a
    description word ("Member record updated"), no message key: no code of MEMBER, and no unmarked fallback. reserve: a legacy code naming LOAN,
    and a message reading like LOAN_LIMIT_REACHED: no fallback. renew_loan: LOAN_STORE_DOWN is no generic Error
    text, so a timed-out relay is not the loan store's. contract_close: this registry has no contract code at
    all, so the fallback. fetch_shelf: `allowed: False` with "Path not found" is Invalid, not Denied."""
    shutil.copytree(LENDING, tmp_path / "tree")
    root = tmp_path / "tree"
    (root / "lending" / "server.py").write_text(HOSTILE_LENDING)
    (root / "member_admin.mapping.toml").unlink()
    assert cli("migrate", root, "--apply").exit_code == 0
    marker = "  # reply-audit: default-code"
    assert [line.strip() for line in (root / "lending" / "server.py").read_text().splitlines()
            if line.strip().startswith("return rb.")] == [
        'return rb.invalid("MCP-SYS-I-001", data={})' + marker,
        'return rb.success("WA-LOAN-S-001", data={})',
        'return rb.success("MCP-SYS-S-001", data={"card": card})' + marker,
        'return rb.invalid("MCP-SYS-I-001", data={"legacy_code": "LOAN_MAX"}, message="Too many items held")' + marker,
        'return rb.invalid("MCP-SYS-I-001", data={}, message="Borrower already holds too many items")' + marker,
        'return rb.success("MCP-SYS-S-001", data={})',
        'return rb.error("MCP-SYS-E-001", data={}, message="Reminder e-mail relay timed out")' + marker,
        'return rb.success("WA-LOAN-S-001", data={})',
        'return rb.success("MCP-SYS-S-001", data={"closed": contract_id})',
        'return rb.invalid("MCP-SYS-I-001", data={"allowed": False}, message=f"Path not found: {path}")',
        'return rb.success("MCP-SYS-S-001", data={"shelf": path})']


@pytest.mark.parametrize("guards,message,word", [
    (["not api_token"], None, "token"),
    (["launcher_db is None"], None, "db"),
    ([], "No database connection", "connection"),
    ([], "CK3 launcher database not found", "database"),
    ([], "No rows in that db table", None),      # the rows are missing, not the database
    (["x > 3"], "the token expired", None),
])
def test_a_precondition_is_what_is_missing_not_a_word_mentioned(guards, message, word):
    from reply_audit.meaning import precondition

    assert precondition(guards, message, load_profile("canonical")) == word


def test_a_handler_that_names_a_layer_is_not_given_another_layers_code_on_the_area_alone(tmp_path):
    """`contract` names area GATE (area_words) and layer CT (layer_words): GATE's only Success code is EN's
    ("precondition check passed"), which is no contract's reply (spec 000: CT-GATE-S-*), so it stays marked;
    a Denied is EN's whatever the name says (only EN denies), so the contract's refusal gets EN-GATE-D-001."""
    replies = _registry('''
MCP_SYS_S_001 = ReplyCode("MCP-SYS-S-001", "SYS_OP_OK", "System operation complete")
MCP_SYS_I_001 = ReplyCode("MCP-SYS-I-001", "INPUT_INVALID", "Tool input validation failed")
EN_GATE_S_001 = ReplyCode("EN-GATE-S-001", "GATE_OK", "Precondition check passed")
EN_GATE_D_001 = ReplyCode("EN-GATE-D-001", "GATE_DENIED", "Precondition not met (governance)")
CT_VAL_S_001 = ReplyCode("CT-VAL-S-001", "TERMS_VALID", "Terms validation passed")
''')
    server = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def contract_close(contract_id: str) -> dict:
    if contract_id.startswith("x"):
        return {"allowed": False, "error": "not authorized by the capability matrix"}
    return {"closed": contract_id}
'''
    assert _returned_calls(tmp_path, server, replies) == [
        'return rb.denied("EN-GATE-D-001", data={"allowed": False}, message="not authorized by the capability '
        'matrix")',
        'return rb.success("MCP-SYS-S-001", data={"closed": contract_id})  # reply-audit: default-code']


SECOND_REVIEW_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def notes_write(user: str) -> dict:
    if user not in ACL:
        return {"allowed": False, "error": "unknown user may not write"}
    if not policy.allows(user):
        return {"allowed": False, "reason": policy.reason or "unknown reason"}
    return {"success": True}


@mcp.tool()
@mcp_safe_tool
def db_pages(limit: str, amount: str, field: str, item: str) -> dict:
    try:
        rows = fetch_rows(int(limit))
    except ValueError:
        return {"error": "limit must be a number"}
    try:
        total = round(parse(amount), 2)
    except ValueError:
        return {"error": "bad amount"}
    try:
        ordered = sorted(ITEMS, key=lambda i: i[field])
    except KeyError:
        return {"error": "no such field"}
    try:
        price = float(client.fetch_price(item))
    except ValueError:
        return {"error": "backend returned a bad price"}
    if disk_full():
        return {"error": "Database disk is full"}
    return {"rows": rows, "total": total, "ordered": ordered, "price": price}


@mcp.tool()
@mcp_safe_tool
def db_wait(timeout: int) -> dict:
    if timeout <= 0:
        return {"error": f"timeout must be positive, got {timeout}"}
    return {"waited": timeout}


@mcp.tool()
@mcp_safe_tool
def db_tables_list(schema: str) -> dict:
    db_tables = list_tables(schema)
    if not db_tables:
        return {"error": "No table in that schema"}
    return {"tables": db_tables}
'''


def test_what_a_second_hostile_review_found(tmp_path):
    """notes_write: "may not" and "unknown reason" are policy refusals (Denied), not requests naming what does
    not exist (NOTE is no AREA of the profile, so the Denied code waits for a human). db_pages: `int(limit)`
    inside `fetch_rows(...)` is still the caller's value (Invalid); `parse(amount)` and
    `client.fetch_price(item)` are the system's work on it (Error of low confidence, marked); a KeyError from
    `i[field]` is the caller asking for a field that is not there (Invalid); "Database disk is full" is Invalid
    only by default, and DB_INPUT_MISSING's text does not confirm it: marked. db_wait: `if timeout <= 0`
    checks the parameter itself, whatever "timeout" the text says (Invalid). db_tables_list: `if not db_tables`
    misses tables, not the database: no precondition but an empty state (Success?), of low confidence,
    marked."""
    replies = MEDIA_REPLIES.replace("WA_VIS_S_001", 'EN_NOTE_D_001 = ReplyCode("EN-NOTE-D-001", "NOTE_REFUSED", '
                                    '"Note refused by policy")\n    WA_VIS_S_001', 1)
    marker = "  # reply-audit: default-code"
    assert _returned_calls(tmp_path, SECOND_REVIEW_SERVER, replies) == [
        'return rb.denied("EN-NOTE-D-001", data={"allowed": False}, message="unknown user may not write")' + marker,
        'return rb.denied("EN-NOTE-D-001", data={"allowed": False}, message=str(policy.reason or "unknown '
        'reason"))' + marker,
        'return rb.success("MCP-SYS-S-001", data={})',
        'return rb.invalid("MCP-SYS-I-001", data={}, message="limit must be a number")' + marker,
        'return rb.error("MCP-SYS-E-001", data={}, message="bad amount")' + marker,
        'return rb.invalid("MCP-SYS-I-001", data={}, message="no such field")' + marker,
        'return rb.error("MCP-SYS-E-001", data={}, message="backend returned a bad price")' + marker,
        'return rb.invalid("MCP-SYS-I-001", data={}, message="Database disk is full")' + marker,
        'return rb.success("WA-DB-S-001", data={"rows": rows, "total": total, "ordered": ordered, "price": price})',
        'return rb.invalid("MCP-SYS-I-001", data={}, message=f"timeout must be positive, got {timeout}")' + marker,
        'return rb.success("WA-DB-S-001", data={"waited": timeout})',
        'return rb.invalid("MCP-SYS-I-001", data={}, message="No table in that schema")' + marker,
        'return rb.success("WA-DB-S-001", data={"tables": db_tables})']


def test_generic_codes_and_area_subjects_are_what_the_registry_text_says(tmp_path):
    """RESTORE_FAILED is no generic Error of RES (no prefix matching), nor DB_IN_USE of DB (`in use` says
    something); LOG_ERROR is. `done` (a generic word) names no area: mark_done gets the fallback; `updated` (one
    entry's word) chooses no code but keeps updated_since from an unmarked fallback; `playlist`, the subject of
    two VIS keys, names VIS, whose two Success codes each say something else. resolve_path names RES, which has
    no Success code here: the fallback for its Success."""
    replies = _registry('''
        MCP_SYS_S_001 = ReplyCode("MCP-SYS-S-001", "SYS_OP_OK", "System operation complete")
        MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001", "SYS_CRASH", "Unexpected exception")
        WA_RES_E_001 = ReplyCode("WA-RES-E-001", "RESTORE_FAILED", "Restore failed")
        WA_DB_E_001 = ReplyCode("WA-DB-E-001", "DB_IN_USE", "Database in use")
        WA_LOG_E_001 = ReplyCode("WA-LOG-E-001", "LOG_ERROR", "Log operation error")
        WA_VIS_S_001 = ReplyCode("WA-VIS-S-001", "PLAYLIST_SAVED", "Playlist saved")
        WA_VIS_S_002 = ReplyCode("WA-VIS-S-002", "PLAYLIST_DONE", "Playlist complete")
        WA_CFG_S_001 = ReplyCode("WA-CFG-S-001", "MEMBER_UPDATED", "Member updated")
    ''')
    server = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def resolve_path(p: str) -> dict:
    if not restore():
        return {"error": "timed out"}
    return {"p": p}


@mcp.tool()
@mcp_safe_tool
def db_backup() -> dict:
    if not backup():
        return {"error": "timed out"}
    return {}


@mcp.tool()
@mcp_safe_tool
def log_tail() -> dict:
    if not tail():
        return {"error": "timed out"}
    return {}


@mcp.tool()
@mcp_safe_tool
def mark_done() -> dict:
    return {"n": 1}


@mcp.tool()
@mcp_safe_tool
def updated_since() -> dict:
    return {"n": 1}


@mcp.tool()
@mcp_safe_tool
def playlist_count() -> dict:
    return {"n": 2}
'''
    marker = "  # reply-audit: default-code"
    assert _returned_calls(tmp_path, server, replies) == [
        'return rb.error("MCP-SYS-E-001", data={}, message="timed out")' + marker,
        'return rb.success("MCP-SYS-S-001", data={"p": p})',
        'return rb.error("MCP-SYS-E-001", data={}, message="timed out")' + marker,
        'return rb.success("MCP-SYS-S-001", data={})',
        'return rb.error("WA-LOG-E-001", data={}, message="timed out")',
        'return rb.success("MCP-SYS-S-001", data={})',
        'return rb.success("MCP-SYS-S-001", data={"n": 1})',
        'return rb.success("MCP-SYS-S-001", data={"n": 1})' + marker,
        'return rb.success("MCP-SYS-S-001", data={"n": 2})' + marker]


THIRD_REVIEW_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def job_wait(job_id: str, timeout: float) -> dict:
    if timeout <= 0:
        return {"error": f"timeout must be positive, got {timeout}"}
    if time.monotonic() - START > timeout:
        return {"error": "Operation timed out waiting for the worker"}
    if not connect(job_id):
        return {"error": "SSH handshake failed"}
    return {"job": job_id}


@mcp.tool()
@mcp_safe_tool
def notes_write(token: str, path: str) -> dict:
    if not token:
        return {"allowed": False, "error": "API token not found in request"}
    if path not in ALLOWLIST:
        return {"allowed": False, "reason": f"{path} not found in the write allowlist"}
    if not USER.is_admin:
        return {"error": "Admins only"}
    return {"status": "rejected", "reason": "queue full"}


@mcp.tool()
@mcp_safe_tool
def tasks_run(item_id: str, page: int, tags: str) -> dict:
    try:
        resp = pricing.fetch(item_id)
        price = resp["price"]
    except KeyError:
        return {"error": "Pricing backend returned a malformed response"}
    try:
        row = PAGES[page]
    except IndexError:
        return {"error": "page out of range"}
    names = [t.strip() for t in tags.split(",")]
    try:
        kinds = [Kind(n) for n in names]
    except ValueError:
        return {"error": "bad tag"}
    if EXPORTERS.get(tags) is None:
        return {"error": f"Export format '{tags}' not implemented"}
    return {"isError": True, "content": [price, row, kinds]}


@mcp.tool()
@mcp_safe_tool
def notes_status() -> dict:
    return {"message": "Error: database unavailable"}


@mcp.tool()
@mcp_safe_tool
def notes_old(name: str) -> dict:
    if not name:
        return {"error": "name required"}, 400
    return {"name": name}
'''


def test_what_a_third_hostile_review_found_about_reply_types(tmp_path):
    """Types by meaning, case by case: a test on a parameter makes Invalid only a text that speaks of it ("timed
    out waiting" under `elapsed > timeout` is the system's); `connect(job_id)` hands the value to the system, so
    "SSH handshake failed" is Invalid only by default (marked); a refusal flag whose text names a token or an
    allowlist stays Denied; "Admins only" is a policy; a `status` of "rejected", `isError: True` and a message
    starting "Error:" are failures, never Successes; a KeyError beside `resp["price"]` may be the system's own
    data (marked); `PAGES[page]` out of range and a tag the caller passed are the caller's; a format the caller
    chose that is "not implemented" is the caller's choice; a `return {...}, 400` is left to a human, since the
    run-time classifier would raise on a tuple."""
    write_tree(tmp_path, {"server.py": THIRD_REVIEW_SERVER, "safety.py": SAFETY, "replies.py": DECISION_REPLIES,
                          "pyproject.toml": SETUP})
    doc = json.loads(cli("migrate", tmp_path, "-f", "json").stdout)
    assert [(d["function"], d["line"], d["type"], d["code"], d["marked"]) for d in doc["decisions"]] == [
        ("job_wait", 8, "I", "MCP-SYS-I-001", False),
        ("job_wait", 10, "E", "MCP-SYS-E-001", False),
        ("job_wait", 12, "I", "MCP-SYS-I-001", True),
        ("job_wait", 13, "S", "MCP-SYS-S-001", False),
        ("notes_write", 20, "D", "EN-WRITE-D-001", False),
        ("notes_write", 22, "D", "EN-WRITE-D-001", False),
        ("notes_write", 24, "D", "EN-WRITE-D-001", False),
        ("notes_write", 25, "I", "MCP-SYS-I-001", True),
        ("tasks_run", 35, "E", "MCP-SYS-E-001", True),
        ("tasks_run", 39, "I", "MCP-SYS-I-001", False),
        ("tasks_run", 44, "I", "MCP-SYS-I-001", False),
        ("tasks_run", 46, "I", "MCP-SYS-I-001", False),
        ("tasks_run", 47, "I", "MCP-SYS-I-001", True),
        ("notes_status", 53, "E", "MCP-SYS-E-001", False),
        ("notes_old", 61, "S", "MCP-SYS-S-001", False)]
    assert [(s["line"], s["reason"]) for s in doc["skipped"]] == [
        (60, "it returns a tuple, which is no dict (`return {...}, 400`?): the run-time classifier would raise "
             "TypeError on it; decide what it should say")]


@pytest.mark.parametrize("result,expected", [
    ({"success": "false", "n": 1}, "I"), ({"success": "0"}, "I"), ({"ok": "yes"}, "S"),
    ({"status": "error", "reason": "queue full"}, "I"), ({"isError": True, "content": []}, "I"),
    ({"message": "Error: database unavailable"}, "I"), ({"failed": False, "n": 1}, "S"),
    # a count, a list, an absent flag, "Error: none": no failure; a doubtful status ("rejected" may be the value an
    # order_reject reports) is left to the static decision, which marks it
    ({"failed": 3, "passed": 10}, "S"), ({"failed": ["t1"]}, "S"), ({"success": None, "rows": []}, "S"),
    ({"message": "Error: none"}, "S"), ({"isError": "false"}, "S"), ({"status": "rejected"}, "S"),
])
def test_the_run_time_classifier_reads_failures_the_way_the_static_one_does(result, expected):
    """A flag spelled as a string ("false"), a failing status, MCP's `isError`, a message starting "Error:": a
    result seen only at run time is a failure for the same reasons a literal dict is."""
    classify = _helper()
    assert classify(result, _method("S"), "MCP-SYS-S-001", _method("I"), "MCP-SYS-I-001")[0] == expected


FOURTH_REVIEW_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def write_user(name: str, role: str = "") -> dict:
    if not role:
        return {"error": "role is required"}
    if locked(name):
        return {"error": "note is blocked by another writer"}
    return {"name": name}


@mcp.tool()
@mcp_safe_tool
def rows_get(table: str, max_rows: int, timeout: int) -> dict:
    if timeout <= 0:
        return {"error": "Timeout must be positive"}
    if max_rows > 1000:
        return {"error": "Too many rows: the connection limit is 1000"}
    return {"table": table}


@mcp.tool()
@mcp_safe_tool
def email_validate(email: str) -> dict:
    if "@" not in email:
        return {"email": email, "status": "invalid", "reason": f"{email} has no @"}
    return {"email": email, "failed": "none", "isError": "false"}


@mcp.tool()
@mcp_safe_tool
def lint_run(path: str) -> dict:
    return {"path": path, "message": "Error: none"}
'''


def test_what_a_fourth_review_found_about_words_that_look_like_failures(tmp_path):
    """"role is required" on an empty `role` parameter is the caller's (no policy); "blocked by another writer"
    is no policy either (only by default Invalid, marked); "Timeout must be positive" and "Too many rows" speak of
    the `timeout` and `max_rows` parameters their tests check (any case, any word of the name); a validator that
    answers `status: "invalid"` may be reporting a value: its type waits (marked); `failed: "none"`,
    `isError: "false"` and "Error: none" report no failure."""
    write_tree(tmp_path, {"server.py": FOURTH_REVIEW_SERVER, "safety.py": SAFETY, "replies.py": DECISION_REPLIES,
                          "pyproject.toml": SETUP})
    doc = json.loads(cli("migrate", tmp_path, "-f", "json").stdout)
    assert [(d["function"], d["line"], d["type"], d["marked"], d["type_confidence"]) for d in doc["decisions"]] == [
        ("write_user", 8, "I", False, "high"),
        ("write_user", 10, "I", True, "medium"),
        ("write_user", 11, "S", False, "medium"),
        ("rows_get", 18, "I", False, "high"),
        ("rows_get", 20, "I", False, "high"),
        ("rows_get", 21, "S", False, "medium"),
        ("email_validate", 28, "I", True, "low"),
        ("email_validate", 29, "S", False, "medium"),
        ("lint_run", 35, "S", False, "medium")]


# ------------------------------------------------------------------------------ conditional dict returns
FALLBACK_SERVER = '''from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def notes_run(name: str):
    result = engine(name)
    return result if isinstance(result, dict) else {"success": False, "message": str(result)}


@mcp.tool()
@mcp_safe_tool
def notes_peek(name: str):
    result = engine(name)
    return result if looks_ok(result) else {"success": False, "message": "bad"}
'''


def _migrated_returns(root) -> list[str]:
    """Migrate ROOT (--apply) and give the return lines of its server.py from notes_run on."""
    assert cli("migrate", root, "--apply").exit_code == 0
    source = (root / "server.py").read_text()
    return [line.strip() for line in source[source.index("def notes_run"):].splitlines()
            if line.strip().startswith("return ")]


def test_a_dict_on_every_branch_of_a_conditional_is_a_raw_dict_and_is_classified_at_run_time(tmp_path):
    """`x if isinstance(x, dict) else {...}` is a dict on both branches: a raw dict return (RA306), converted whole
    by the run-time classifier. A conditional whose other branch may be anything (`looks_ok(result)`) is not
    counted and not touched."""
    write_tree(tmp_path, {"server.py": FALLBACK_SERVER, "safety.py": SAFETY, "replies.py": DECISION_REPLIES,
                          "pyproject.toml": SETUP})
    found = [(f.rule, f.line, f.message) for f in evaluate(scan(tmp_path, load_profile(None, tmp_path)),
                                                           select=["RA306"]).findings]
    assert found == [("RA306", 8, "handler notes_run returns a raw dict ({success, message})")]
    assert _migrated_returns(tmp_path) == [
        'return _reply_from_legacy(result if isinstance(result, dict) else {"success": False, "message": '
        'str(result)}, rb.success, "MCP-SYS-S-001", rb.invalid, "MCP-SYS-I-001")  # reply-audit: default-code',
        'return result if looks_ok(result) else {"success": False, "message": "bad"}']


def test_a_conditional_whose_dict_refuses_is_classified_with_the_denied_method(tmp_path):
    server = FALLBACK_SERVER.replace('{"success": False, "message": str(result)}',
                                     '{"allowed": False, "error": "blocked by policy"}')
    replies = DECISION_REPLIES
    write_tree(tmp_path, {"server.py": server, "safety.py": SAFETY, "replies.py": replies, "pyproject.toml": SETUP})
    assert _migrated_returns(tmp_path)[0] == ('return _reply_from_legacy(result if isinstance(result, dict) else {"allowed": False, "error": '
                    '"blocked by policy"}, rb.success, "MCP-SYS-S-001", rb.invalid, "MCP-SYS-I-001", refused=rb.denied, '
                    'refused_code="EN-DB-D-001")  # reply-audit: default-code')


def test_a_rewrite_that_leaves_its_finding_is_refused_not_reported_as_done(tmp_path):
    """A codemod whose edit applies but does not remove the finding it was planned for (a codemod bug) is
    reported as refused, with the reason, so a run never claims a fix it did not make."""
    from dataclasses import dataclass

    from reply_audit.codemods.base import Codemod
    from reply_audit.codemods.edits import RewriteCall, span_of
    from reply_audit.migrate import migrate
    from reply_audit.records import Call
    from reply_audit.rules._snippets import BUILDER, CODES

    @dataclass
    class KeepsTheCall(RewriteCall):
        def rewrite(self, target, original, updated, ctx):
            return updated.with_changes(whitespace_before_args=cst.SimpleWhitespace(" "))   # changes, fixes nothing

    class Broken(Codemod):
        name, phase, order, fixes, doc = "broken", 3, 99, ("RA203",), "renames nothing"
        subjects = (Call,)

        def plan(self, finding, ctx):
            call = finding.subject
            return KeepsTheCall(codemod=self.name, path=call.path, spans=[span_of(call)],
                                description="does nothing useful", method=call.method)

    root = write_tree(tmp_path, {"builder.py": BUILDER, "codes.py": CODES,
                                 "server.py": 'def f(rb: ReplyBuilder):\n    return rb.info("WA-READ-S-001", {})\n'})
    done = migrate(scan(root, load_profile(None, root)), [Broken()])
    assert [(r.codemod, r.path, r.line, r.reason) for r in done.refused] == [
        ("broken", "server.py", 2, "rewritten, but the finding is still there: please report this")]


# ------------------------------------------------------------------------------------------ libcst's own checks
def test_a_return_written_without_its_space_gets_one_instead_of_a_traceback(tmp_path):
    from reply_audit.codemods import all_codemods

    example = next(c for c in all_codemods() if c.name == "dict-returns").examples[0]
    tree = {p: textwrap.dedent(s) for p, s in example.before_tree().items()}
    tree["server.py"] = '''from replies import Reply
from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
def notes_count(x) -> dict:
    if x:
        return{"success": False, "error": "no"}
    return{"success": True, "count": 1}
'''
    write_tree(tmp_path, tree)
    done = cli("migrate", tmp_path, "--apply", "--allow-dirty")
    assert done.exit_code == 0, done.output
    assert (tmp_path / "server.py").read_text() == '''from replies import Reply
from safety import ReplyBuilder, mcp_safe_tool


@mcp.tool()
@mcp_safe_tool
def notes_count(x) -> Reply:
    rb = ReplyBuilder(tool="notes_count")
    if x:
        return rb.invalid("MCP-SYS-I-001", data={}, message="no")
    return rb.success("MCP-SYS-S-001", data={"count": 1})
'''


def test_a_node_libcst_will_not_build_refuses_its_edit_not_the_run():
    from reply_audit.codemods.apply import rewrite_source
    from reply_audit.codemods.base import Edit, Target

    class Unbuildable(Edit):
        def targets(self):
            return [Target("return", (2, 4, 2, 12))]

        def rewrite(self, target, original, updated, ctx):
            return updated.with_changes(whitespace_after_return=cst.SimpleWhitespace(""))   # `returnx`

    outcome = rewrite_source(b"def f(x):\n    return x\n", [Unbuildable("unbuildable", "mod.py", [(2, 4, 2, 12)], "")])
    assert (outcome.new_source, outcome.applied) == (None, [])
    assert [reason for _edit, reason in outcome.refused] == [
        "libcst cannot build the rewritten code: Must have at least one space after 'return'."]
