"""`reply-audit init`: the proposed section fits the code it was written from, loads as a profile, and a
scan with it finds what the hand-written profile finds."""

from __future__ import annotations

import shutil

import pytest

from reply_audit.cli import app
from reply_audit.engine import evaluate
from reply_audit.profile import load_profile
from reply_audit.scan import scan
from support import REPO, CliRunner

CONVENTIONS = REPO / "tests" / "fixtures" / "conventions"
runner = CliRunner()


def _init(path) -> str:
    result = runner.invoke(app, ["init", str(path)])
    assert result.exit_code == 0, result.output
    return result.stdout


HEADER = ("# Written by `reply-audit init` from what it found in the code; check each key, then run\n"
          "# `reply-audit scan`. docs/profiles.md explains every key.\n[tool.reply-audit]\n")


def test_init_on_the_iar_example_proposes_the_iar_profile_and_register_calls():
    assert _init(REPO / "examples" / "iar_actions") == HEADER + (
        'profile = "iar"  # 13 returned dicts carry a "reflection", 0 strings look like LAYER-AREA-TYPE-NNN codes\n'
        "\n[tool.reply-audit.handlers]\n"
        "decorators = []  # no handler-like decorator found\n"
        'register-calls = ["register_action"]  # register_action called 10 time(s), e.g. arche_lite/engine.py:8\n'
        "register-function-position = 1  # where the function is passed to register_action\n"
        "register-name-position = 0  # where its name is passed\n")


def test_init_on_the_canonical_example_finds_handler_and_safety_decorators():
    text = _init(REPO / "examples" / "legacy_mcp")
    assert 'profile = "canonical"' in text
    assert 'decorators = ["mcp.tool"]' in text and 'safety-decorator = "mcp_safe_tool"' in text
    assert "builder.functions" not in text   # the builder class is found: no reply functions proposed


def test_init_finds_reply_functions_envelope_classes_enums_and_dispatch_tables():
    # the code's keyword and its position are learnt from the calls of an imported function
    assert _init(CONVENTIONS / "function_builders") == HEADER + (
        'profile = "canonical"  # 0 returned dicts carry a "reflection", 0 strings look like LAYER-AREA-TYPE-NNN '
        "codes\n\n[tool.reply-audit.handlers]\n"
        'decorators = ["server.tool"]  # server.tool on 1 function(s), e.g. server.py:7\n'
        'safety-decorator = ""  # none found; name yours to have RA308 check it\n'
        "\n[tool.reply-audit.builder.functions]\n"
        # declared, error_response would report its call without a code (server.py:13), which the built-in
        # profile does not: the key stays a comment that says so
        "# left out, it adds 1 finding(s) the built-in profile does not give (RA311 ×1); uncomment it to see them:\n"
        '# error_response = { type = "E", code-keyword = "error_code", code-position = 1 }  # server.py:9\n'
        'success_response = { type = "S", code-position = -1 }  # server.py:16\n'
        "\n[tool.reply-audit.builder]\n"
        'code-required = ["E"]  # replies built by functions; success replies usually carry no code\n')
    envelope = _init(CONVENTIONS / "envelope_class")
    assert '# ToolResponse = { type-keyword = "success", type-values = { true = "S", false = "E" }, ' \
           'code-keyword = "error_code", code-position = -1 }' in envelope
    enums = _init(CONVENTIONS / "enum_codes")
    assert 'enums = ["ErrorCode", "ToolErrorName"]' in enums
    dispatch = _init(CONVENTIONS / "decorators_and_dispatch")
    assert 'decorators = ["server.tool", "mcp.tool", "tool_handler"]' in dispatch
    assert 'dispatch-tables = ["TOOLS"]' in dispatch


def test_init_write_appends_a_section_that_a_scan_then_uses(tmp_path):
    root = tmp_path / "svc"
    shutil.copytree(CONVENTIONS / "envelope_class", root)
    (root / "profile.toml").unlink()
    (root / "pyproject.toml").write_text('[project]\nname = "svc"\n', encoding="utf-8")
    first = runner.invoke(app, ["init", str(root), "--write"])
    assert first.exit_code == 0, first.output
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith('[project]\nname = "svc"\n\n# Written by `reply-audit init`')
    assert "# left out, it adds 1 finding(s) the built-in profile does not give (RA311 ×1)" in text
    builtin = [(f.rule, f.line) for f in evaluate(scan(root, load_profile("canonical"))).findings]
    written = [(f.rule, f.line) for f in evaluate(scan(root, load_profile(None, root))).findings]
    assert written == [("RA501", 0), ("RA306", 13)] and set(written) <= set(builtin)
    # uncommented, the key finds the reply built without a code: the code keyword was learnt from the calls
    (root / "pyproject.toml").write_text(text.replace("# ToolResponse", "ToolResponse"), encoding="utf-8")
    result = scan(root, load_profile(None, root))
    found = [(f.rule, f.line) for f in evaluate(result, select=["RA311", "RA306"]).findings]
    assert found == [("RA311", 7), ("RA306", 13)]
    again = runner.invoke(app, ["init", str(root), "--write"])
    assert again.exit_code == 2 and "already has a [tool.reply-audit] section" in again.output


def test_init_on_a_missing_path_is_a_usage_error(tmp_path):
    result = runner.invoke(app, ["init", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "is not a directory" in result.output


def test_init_learns_where_register_calls_take_the_function_and_the_name(tmp_path):
    (tmp_path / "app.py").write_text(
        "def search(q):\n    return q\n\n\ndef fetch(u):\n    return u\n\n\n"
        'registry.register(search, "search")\nregistry.register(fetch, "fetch")\n'
        'registry.register_key(API_KEY, "k")\n', encoding="utf-8")
    text = _init(tmp_path)
    assert 'register-calls = ["register"]' in text          # register_key is handed no function of the tree
    assert "register-function-position = 0" in text and "register-name-position = 1" in text


def test_init_quotes_keys_toml_needs_quoted_and_refuses_an_inline_section(tmp_path):
    (tmp_path / "server.py").write_text(
        "@mcp.tool\ndef run(x):\n    return Réponse(success=False, error_code=\"E\")\n", encoding="utf-8")
    assert '"Réponse" = { type-keyword = "success"' in _init(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool]\nreply-audit = { profile = "canonical" }\n', encoding="utf-8")
    refused = runner.invoke(app, ["init", str(tmp_path), "--write"])
    assert refused.exit_code == 2 and "already has a [tool.reply-audit] section" in refused.output


# ------------------------------------------------------------------------------ a conservative init
APP = '''import click
from enum import Enum


class VSCodeCommand(str, Enum):
    OPEN_FILE = "open_file"
    CLOSE = "close"


class ErrorCodes(str, Enum):
    NOT_FOUND = "not_found"
    BAD_QUERY = "bad_query"


def fail(message, code=None):
    return {"success": False, "error": message, "code": code}


@mcp.tool()
def search(query: str):
    if not query:
        return fail("query is required", code=ErrorCodes.BAD_QUERY)
    return {"success": True, "rows": []}


@click.command()
def main_tool():
    pass


def factory():
    @mcp.tool()
    def inner(x):
        return x
    return inner


LOOKUP_EXECUTORS = {"a": search, "b": search}
'''
TEST = '''def fail(msg):
    raise AssertionError(msg)


@mcp.tool()
def test_a():
    fail("x")
'''


def _messy_tree(root):
    from support import write_tree

    files = {"app/server.py": APP, "app/util.py": "X = 1\n", "app/db.py": "Y = 2\n", "tests/test_app.py": TEST}
    for copy in ("app_backup_2024_05_01", "app_backup_2024_06_01", "mirror_app"):   # backups, and a copy
        files.update({name.replace("app/", copy + "/"): text for name, text in files.items()
                      if name.startswith("app/")})
    write_tree(root, files)


def test_init_reads_only_the_code_that_runs_and_comments_out_what_it_cannot_stand_behind(tmp_path):
    """Tests, backups and copies are no evidence; the backups (two, so a glob) are proposed as scan excludes, the
    copy is named in a comment (which of two identical trees is stale is for a human to say). `fail` is
    returned by a handler, but the profile refuses it (a builder method's name): a comment with the profile's
    reason, exit 0. ErrorCodes is passed where a code goes, VSCodeCommand never is; LOOKUP_EXECUTORS is named for
    nothing a handler is; closures and click commands are no handlers."""
    _messy_tree(tmp_path)
    result = runner.invoke(app, ["init", str(tmp_path)])
    assert result.exit_code == 0, result.output
    excludes = load_profile("canonical").scan_list("exclude")
    listed = ", ".join(f'"{name}"' for name in [*excludes, "app_backup_*"])
    assert result.stdout == HEADER + (
        'profile = "canonical"  # 0 returned dicts carry a "reflection", 0 strings look like LAYER-AREA-TYPE-NNN '
        "codes\n\n[tool.reply-audit.scan]\n"
        f"exclude = [{listed}]\n"
        "# app_backup_*: a backup or retired copy (by its name), e.g. app_backup_2024_05_01/\n"
        "# mirror_app/ is an identical copy of app/ (every Python file, byte for byte): exclude the stale one\n"
        "\n[tool.reply-audit.handlers]\n"
        'decorators = ["mcp.tool"]  # mcp.tool on 1 function(s), e.g. app/server.py:20\n'
        'safety-decorator = ""  # none found; name yours to have RA308 check it\n'
        "\n[tool.reply-audit.codes]\n"
        'enums = ["ErrorCodes"]  # ErrorCodes at app/server.py:10\n'
        "pattern = '^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$'  # all 2 string values of these code lists are lower "
        "snake_case\n"
        "\n[tool.reply-audit.builder.functions]\n"
        "# left out, the profile refuses it (canonical + pyproject.toml: [builder.functions] fail is also a builder "
        "method name (fail); a name is either a function or a method):\n"
        '# fail = { type = "E", code-keyword = "code", code-position = 1 }  # app/server.py:15\n'
        "\n[tool.reply-audit.builder]\n"
        'code-required = ["E"]  # replies built by functions; success replies usually carry no code\n'
        "\n# Seen but not proposed (one sign is not enough):\n"
        "# - VSCodeCommand at app/server.py:5: named like a code list, but none of its members is passed where a "
        "code goes\n")
    assert result.stderr.splitlines()[-3:] == [
        "reply-audit: looked at 3 Python files (0 unparseable; 1 test or example folder(s) not taken as evidence)",
        "reply-audit: findings with the built-in canonical profile 13, with this section 3; 1 key(s) left out as "
        "comments",
        "reply-audit: the proposed excludes leave out 6 finding(s) and find 0 more in the code that stays (what the "
        "copies had made ambiguous)"]


@pytest.mark.parametrize("root", [
    *sorted(p for p in (REPO / "tests" / "fixtures").glob("*/*") if p.is_dir()),
    *sorted(p for p in (REPO / "tests" / "fixtures").glob("*") if p.is_dir()),
    REPO / "tests", REPO / "examples" / "legacy_mcp", REPO / "examples" / "iar_actions",
], ids=lambda p: str(p.relative_to(REPO)))
def test_init_exits_0_and_its_section_adds_no_finding_on_every_fixture_root(root, tmp_path):
    copy = tmp_path / "tree"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("pyproject.toml", "profile.toml", "__pycache__"))
    result = runner.invoke(app, ["init", str(copy), "--write"])
    assert result.exit_code == 0, result.output
    base = "iar" if 'profile = "iar"' in (copy / "pyproject.toml").read_text() else "canonical"
    key = lambda f: (f.rule, f.path, f.line)   # noqa: E731
    builtin = {key(f) for f in evaluate(scan(copy, load_profile(base))).findings}
    written = {key(f) for f in evaluate(scan(copy, load_profile(None, copy))).findings}
    assert written <= builtin


HANDLER = '@mcp.tool()\ndef run(q: str):\n    return {"success": False, "error": "q is required"}\n'


def _scope_of(tmp_path, files):
    from reply_audit.discovery import discover
    from reply_audit.init_scope import scope
    from support import write_tree

    write_tree(tmp_path, files)
    found = discover(tmp_path, ["*.py"], load_profile("canonical").scan_list("exclude"))
    return scope(found.files, tmp_path, load_profile("canonical").scan_list("test_paths"))


def test_packages_named_with_a_backup_word_are_code_and_an_exclude_never_reaches_code_init_read(tmp_path):
    found = _scope_of(tmp_path, {
        "archive_service/server.py": HANDLER, "backup_service/server.py": HANDLER, "old_api/server.py": HANDLER,
        "services/api_v3/server.py": HANDLER, "services/api_v2_old/conf.py": "X = 1\n",
        "app/server.py": HANDLER, "app.bak/server.py": HANDLER, "ArchE_backup_20250905_0718/a.py": "A = 1\n",
        "ArchE_backup_20250906_0930/a.py": "A = 2\n"})
    assert found.evidence == ["app/server.py", "archive_service/server.py", "backup_service/server.py",
                              "old_api/server.py", "services/api_v3/server.py"]
    assert found.excludes == {
        "ArchE_backup_*": "a backup or retired copy (by its name), e.g. ArchE_backup_20250905_0718/",
        "app.bak": "a backup or retired copy (by its name), e.g. app.bak/",
        "services/api_v2_old": "a backup or retired copy (by its name), e.g. services/api_v2_old/"}


def test_a_tree_all_in_a_folder_named_old_is_read_and_a_copy_is_only_named(tmp_path):
    only_old = _scope_of(tmp_path / "a", {"old/server.py": HANDLER, "old/util.py": "X = 1\n"})
    assert only_old.evidence == ["old/server.py", "old/util.py"] and only_old.excludes == {}
    # src layout beside a stale copy at the root: both identical, neither named like a backup; a package whose
    # three files match another's but which holds one more file below is no copy
    three = {"__init__.py": "", "a.py": "A = 1\n", "b.py": "B = 1\n"}
    files = {f"src/svc/tools/{k}": v for k, v in three.items()} | {f"tools/{k}": v for k, v in three.items()}
    boiler = {"__init__.py": "", "config.py": "C = 1\n", "constants.py": "K = 1\n"}
    files |= {f"plugins/alpha/{k}": v for k, v in boiler.items()} | {f"plugins/beta/{k}": v for k, v in boiler.items()}
    files["plugins/beta/handlers/server.py"] = HANDLER
    found = _scope_of(tmp_path / "b", files)
    assert found.excludes == {} and found.copies == {"src/svc/tools": "tools"}
    assert "plugins/beta/handlers/server.py" in found.evidence and "plugins/alpha/config.py" in found.evidence


def test_init_escapes_names_toml_cannot_hold_as_they_are(tmp_path):
    from support import write_tree

    write_tree(tmp_path, {"src/server.py": HANDLER, "a\nx = 1_old/a.py": "A = 1\n", 'b "q"_old/a.py': "A = 1\n",
                          "src2/server.py": HANDLER})
    result = runner.invoke(app, ["init", str(tmp_path), "--write"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "pyproject.toml").read_text()
    assert '"a\\nx = 1_old"' in text and '"b \\"q\\"_old"' in text and "# left out" not in text


def test_init_write_keeps_line_endings_and_refuses_a_file_it_would_break(tmp_path):
    from support import write_tree

    write_tree(tmp_path / "a", {"server.py": HANDLER})
    (tmp_path / "a" / "pyproject.toml").write_bytes(b'[project]\r\nname = "a"\r\n')
    assert runner.invoke(app, ["init", str(tmp_path / "a"), "--write"]).exit_code == 0
    data = (tmp_path / "a" / "pyproject.toml").read_bytes()
    assert data.startswith(b'[project]\r\nname = "a"\r\n\r\n# Written by') and data.count(b"\n") == data.count(b"\r\n")
    write_tree(tmp_path / "b", {"server.py": HANDLER, "pyproject.toml": "tool = { black = { line-length = 100 } }\n"})
    result = runner.invoke(app, ["init", str(tmp_path / "b"), "--write"])
    assert result.exit_code == 2 and "the section cannot be appended" in result.output
    assert (tmp_path / "b" / "pyproject.toml").read_text() == "tool = { black = { line-length = 100 } }\n"


def test_init_finds_dispatchers_and_plain_code_classes_by_two_signs(tmp_path):
    """A function branching on a parameter's literal names, each branch returning a call, is a dispatcher when its
    name or decorator says it dispatches tool calls (`@app.call_tool()` marks it, and no handler; a plain `route`
    or `dispatch` does not); a plain class of strings named like
    codes is a code list when its members are passed where a code goes. Each key is then vetted: showing the
    dispatched handlers adds findings, so it stays a comment that counts them."""
    conventions = REPO / "tests" / "fixtures" / "conventions"
    dispatch = tmp_path / "dispatch"
    shutil.copytree(conventions / "name_dispatch", dispatch, ignore=shutil.ignore_patterns("profile.toml"))
    text = _init(dispatch)
    assert "app.call_tool" not in text.split("[tool.reply-audit.handlers]")[1].split("\n")[1]
    assert ("# left out, it adds 4 finding(s) the built-in profile does not give (RA306 ×4); uncomment it to see "
            "them:\n# dispatch-functions = [\"call_tool\"]  # call_tool at server.py:5: 3 branches on a name\n"
            'safety-decorator = ""  # none found; name yours to have RA308 check it\n') in text
    # a function named route, dispatch or main that branches on names is no tool dispatcher: not proposed
    assert '"route"' not in text
    plain = tmp_path / "plain"
    shutil.copytree(conventions / "plain_constants", plain, ignore=shutil.ignore_patterns("profile.toml"))
    text = _init(plain)
    assert ('[tool.reply-audit.registries]\ncanonical = ["codes.py::ErrorCodes"]  # ErrorCodes at codes.py:4, its '
            "members passed where a code goes\n") in text


def test_init_writes_no_path_toml_cannot_hold_and_escapes_glob_characters(tmp_path):
    from support import write_tree

    code_class = 'class ErrorCodes:\n    NOT_FOUND = "NOT_FOUND"\n    GONE = "GONE"\n'
    server = ('from codes import ErrorCodes\n\n\n@mcp.tool()\ndef run(q: str):\n'
              '    return error_response("no", code=ErrorCodes.NOT_FOUND)\n')
    write_tree(tmp_path, {"pk[1]/codes.py": code_class, "pk[1]/server.py": server})
    odd = tmp_path / "pk\udcffg"   # a folder name that is not UTF-8
    odd.mkdir()
    (odd / "codes.py").write_text(code_class)
    (odd / "server.py").write_text(server)
    result = runner.invoke(app, ["init", str(tmp_path), "--write"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "pyproject.toml").read_text()
    assert 'canonical = ["pk[[]1]/codes.py::ErrorCodes"]' in text
    written = scan(tmp_path, load_profile(None, tmp_path))
    assert "pk[1]/codes.py" in [r.path for r in written.inventory.registries if r.role == "canonical"]


def test_a_catch_all_glob_is_refused(tmp_path):
    from reply_audit.errors import UserError

    for text in ('[builder.functions]\n"*" = "E"\n', '[builder]\nreply-classes = ["?*"]\n',
                 '[result]\nbuilders = ["**"]\n', '[builder.functions]\n"f*" = "E"\n'):
        path = tmp_path / "p.toml"
        path.write_text(text)
        with pytest.raises(UserError, match=r"matches every name|is also a builder method name"):
            load_profile(str(path))
