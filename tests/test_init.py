"""`reply-audit init`: the proposed section fits the code it was written from, loads as a profile, and a
scan with it finds what the hand-written profile finds."""

from __future__ import annotations

import shutil

from typer.testing import CliRunner

from support import REPO
from reply_audit.cli import app
from reply_audit.engine import evaluate
from reply_audit.profile import load_profile
from reply_audit.scan import scan

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
        'register_calls = ["register_action"]  # register_action called 10 time(s), e.g. arche_lite/engine.py:8\n'
        "register_function_position = 1  # where the function is passed to register_action\n"
        "register_name_position = 0  # where its name is passed\n")


def test_init_on_the_canonical_example_finds_handler_and_safety_decorators():
    text = _init(REPO / "examples" / "legacy_mcp")
    assert 'profile = "canonical"' in text
    assert 'decorators = ["mcp.tool"]' in text and 'safety_decorator = "mcp_safe_tool"' in text
    assert "builder.functions" not in text   # the builder class is found: no reply functions proposed


def test_init_finds_reply_functions_envelope_classes_enums_and_dispatch_tables():
    # the code's keyword and its position are learnt from the calls of an imported function
    assert _init(CONVENTIONS / "function_builders") == HEADER + (
        'profile = "canonical"  # 0 returned dicts carry a "reflection", 0 strings look like LAYER-AREA-TYPE-NNN '
        "codes\n\n[tool.reply-audit.handlers]\n"
        'decorators = ["server.tool"]  # server.tool on 1 function(s), e.g. server.py:7\n'
        'safety_decorator = ""  # none found; name yours to have RA308 check it\n'
        "\n[tool.reply-audit.builder.functions]\n"
        'error_response = { type = "E", code_keyword = "error_code", code_position = 1 }  # server.py:9\n'
        'success_response = { type = "S", code_position = -1 }  # server.py:16\n'
        "\n[tool.reply-audit.builder]\n"
        'code_required = ["E"]  # replies built by functions; success replies usually carry no code\n')
    envelope = _init(CONVENTIONS / "envelope_class")
    assert 'ToolResponse = { type_keyword = "success", type_values = { true = "S", false = "E" }, ' \
           'code_keyword = "error_code", code_position = -1 }' in envelope
    enums = _init(CONVENTIONS / "enum_codes")
    assert 'enums = ["ErrorCode", "ToolErrorName"]' in enums
    dispatch = _init(CONVENTIONS / "decorators_and_dispatch")
    assert 'decorators = ["server.tool", "mcp.tool", "tool_handler"]' in dispatch
    assert 'dispatch_tables = ["TOOLS"]' in dispatch


def test_init_write_appends_a_section_that_a_scan_then_uses(tmp_path):
    root = tmp_path / "svc"
    shutil.copytree(CONVENTIONS / "envelope_class", root)
    (root / "profile.toml").unlink()
    (root / "pyproject.toml").write_text('[project]\nname = "svc"\n', encoding="utf-8")
    first = runner.invoke(app, ["init", str(root), "--write"])
    assert first.exit_code == 0, first.output
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith('[project]\nname = "svc"\n\n# Written by `reply-audit init`')
    result = scan(root, load_profile(None, root))
    found = [(f.rule, f.line) for f in evaluate(result, select=["RA311", "RA306"]).findings]
    assert found == [("RA311", 7), ("RA306", 13)]   # the code keyword was learnt from the calls
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
    assert 'register_calls = ["register"]' in text          # register_key is handed no function of the tree
    assert "register_function_position = 0" in text and "register_name_position = 1" in text


def test_init_quotes_keys_toml_needs_quoted_and_refuses_an_inline_section(tmp_path):
    (tmp_path / "server.py").write_text(
        "@mcp.tool\ndef run(x):\n    return Réponse(success=False, error_code=\"E\")\n", encoding="utf-8")
    assert '"Réponse" = { type_keyword = "success"' in _init(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool]\nreply-audit = { profile = "canonical" }\n', encoding="utf-8")
    refused = runner.invoke(app, ["init", str(tmp_path), "--write"])
    assert refused.exit_code == 2 and "already has a [tool.reply-audit] section" in refused.output
