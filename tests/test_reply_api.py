"""dict-returns onto a project's own reply API ([migrate.reply-api]): a model or function call per reply type,
checked against the callee's definition before anything is written."""

from __future__ import annotations

import shutil
import subprocess
import sys

from reply_audit.cli import app
from support import REPO, CliRunner, write_tree

FIXTURE = REPO / "tests" / "fixtures" / "conventions" / "model_replies"
RUNNER = CliRunner()


def _migrate(root):
    result = RUNNER.invoke(app, ["migrate", str(root), "--apply"])
    assert result.exit_code == 0, result.output
    return result


def test_a_model_based_service_migrates_onto_its_own_model_and_its_tests_still_pass(tmp_path):
    root = tmp_path / "svc"
    shutil.copytree(FIXTURE, root)
    before = (root / "app" / "server.py").read_text()
    _migrate(root)
    after = (root / "app" / "server.py").read_text()
    marker = "  # reply-audit: default-code"
    assert after == before.replace(
        "def search_books(query: str) -> dict[str, Any]:", "def search_books(query: str) -> MCPResponse:").replace(
        'return {"success": False, "error": "query is required"}',
        'return MCPResponse(success=False, error="query is required", error_code="INVALID_INPUT", data={})'
        + marker).replace(
        'return {"success": True, "results": hits, "count": len(hits)}',
        'return MCPResponse(success=True, data={"results": hits, "count": len(hits)})').replace(
        "def count_pages(book_id: str) -> dict[str, Any]:", "def count_pages(book_id: str) -> MCPResponse:").replace(
        'return {"success": False, "error": f"unknown book {book_id}"}',
        'return MCPResponse(success=False, error=f"unknown book {book_id}", error_code="INTERNAL", data={})'
        + marker).replace(
        'return {"success": True, "pages": pages}', 'return MCPResponse(success=True, data={"pages": pages})')
    # the service's own tests pass on the migrated code, and a second run changes nothing
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                           capture_output=True, text=True)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "3 passed" in tests.stdout
    assert "rewrote 0 file(s)" in _migrate(root).output
    typed = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "app"], cwd=root, capture_output=True,
                           text=True)
    assert typed.returncode == 0, typed.stdout


SERVER = '''from models import Reply


@mcp.tool()
def notes_read(name: str) -> dict:
    if not name:
        return {"success": False, "error": "name is required"}
    if name == "x":
        return {"success": False}
    result = fetch(name)
    return result
'''
MODELS = '''from dataclasses import dataclass


@dataclass
class Reply:
    ok: bool
    text: str
    code: str | None = None
    payload: dict | None = None
'''
SETUP = '''[tool.reply-audit.builder.functions]
Reply = {{ type-keyword = "ok", type-values = {{ true = "S", false = "I" }}, code-keyword = "code", code-position = -1 }}
Answer = {{ type = "I" }}
[tool.reply-audit.handlers]
decorators = ["mcp.tool"]
safety-decorator = ""
[tool.reply-audit.migrate.dict-returns]
invalid-code = "MCP-SYS-I-001"
[tool.reply-audit.migrate.reply-api]
I = "{template}"
'''
CODES = 'class Codes:\n    A = "MCP-SYS-I-001"\n    B = "MCP-SYS-S-001"\n'


def _skips(tmp_path, template: str) -> str:
    write_tree(tmp_path, {"server.py": SERVER, "models.py": MODELS, "codes.py": CODES,
                          "pyproject.toml": SETUP.format(template=template.replace('"', '\\\\"'))})
    result = RUNNER.invoke(app, ["migrate", str(tmp_path), "--apply"])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_template_that_does_not_fit_its_callee_writes_nothing(tmp_path):
    out = _skips(tmp_path / "a", "Reply(ok=False, txt={message}, code={code}, payload={data})")
    assert (tmp_path / "a" / "server.py").read_text() == SERVER   # nothing written
    assert "[migrate.reply-api] I: Reply() has no parameter txt" in out
    out = _skips(tmp_path / "b", "Reply(ok=False, code={code}, payload={data})")
    assert "[migrate.reply-api] I: Reply() requires text, which the template does not pass" in out
    out = _skips(tmp_path / "c", "Answer(ok=False, text={message}, code={code}, payload={data})")
    assert "Answer is not defined in the scanned tree" in out
    out = _skips(tmp_path / "d", "Reply(ok=False, text={message}, code={code})")
    assert "[migrate.reply-api] I has no {data}" in out


def test_a_return_without_the_message_a_callee_requires_and_a_run_time_value_are_left_with_the_reason(tmp_path):
    out = _skips(tmp_path, "Reply(ok=False, text={message}, code={code}, payload={data})")
    source = (tmp_path / "server.py").read_text()
    assert 'return Reply(ok=False, text="name is required", code="MCP-SYS-I-001", payload={})' in source
    assert 'return {"success": False}\n' in source and "return result\n" in source
    assert "Reply requires text, and this return has no message to give it" in out
    assert "has no run-time classifier: convert it by hand" in out
    assert "def notes_read(name: str) -> dict | Reply:" in source   # two returns stay dicts


def test_a_model_named_as_builder_class_is_refused_with_the_key_to_use(tmp_path):
    root = tmp_path / "svc"
    shutil.copytree(FIXTURE, root)
    text = (root / "pyproject.toml").read_text()
    text = text[:text.index("[tool.reply-audit.migrate.reply-api]")] + \
        '[tool.reply-audit.migrate]\nbuilder-class = "MCPResponse"\n'
    (root / "pyproject.toml").write_text(text)
    before = (root / "app" / "server.py").read_text()
    result = _migrate(root)
    assert (root / "app" / "server.py").read_text() == before
    assert "MCPResponse is no builder class (it defines no builder methods): name the project's own reply API in " \
           "[migrate.reply-api] instead of [migrate] builder-class" in result.output


MODEL_VARIANTS = {
    "kw_only": "from dataclasses import dataclass\n\n\n@dataclass(kw_only=True)\nclass Reply:\n    ok: bool\n"
               "    text: str\n    code: str | None = None\n    payload: dict | None = None\n",
    "plain": "class Reply:\n    ok: bool\n    text: str\n    code: str | None = None\n    payload: dict | None = None\n",
    "instance_method": "class Reply:\n    def make(self, ok, text, code=None, payload=None):\n        return 1\n",
}


def test_templates_that_would_raise_are_refused_before_anything_is_written(tmp_path):
    """A call that raises at run time is never written: a keyword-only dataclass called positionally, a class
    whose constructor takes nothing, an instance method called on the class, a keyword given twice or both by
    position and keyword, a positional {message} (arguments would shift) and a placeholder inside an expression
    (it would be emptied)."""
    cases = [
        ("kw_only", "Reply(False, text={message}, code={code}, payload={data})",
         "Reply() takes 0 positional argument(s), the template passes 1"),
        ("plain", "Reply(ok=False, text={message}, code={code}, payload={data})",
         "Reply() has no parameter ok, text, code, payload"),
        ("instance_method", "Reply.make(ok=False, text={message}, code={code}, payload={data})",
         "Reply.make is an instance method: called on the class, it raises"),
        ("kw_only", "Reply(ok=False, text={message}, code={code}, payload={data}, payload=None)",
         "the keyword payload is given twice"),
        (None, "Reply(False, ok=False, text={message}, code={code}, payload={data})",
         "Reply() would get ok both by position and by keyword"),
        (None, "Reply(ok=False, text=str({message}), code={code}, payload={data})",
         "{message} must be an argument of the call itself"),
        (None, "Reply({data}, {message}, ok=False, code={code})",
         "pass {message} by keyword"),
    ]
    for i, (variant, template, reason) in enumerate(cases):
        root = tmp_path / str(i)
        models = MODEL_VARIANTS[variant] if variant else MODELS
        callee = "Reply.make" if variant == "instance_method" else "Reply"
        write_tree(root, {"server.py": SERVER, "models.py": models, "codes.py": CODES,
                          "pyproject.toml": SETUP.format(template=template.replace('"', '\\\\"')).replace(
                              "\nReply = ", f"\n{callee!r} = ".replace("'", '"'))})
        result = RUNNER.invoke(app, ["migrate", str(root), "--apply"])
        assert result.exit_code == 0, result.output
        assert (root / "server.py").read_text() == SERVER, template
        assert reason in " ".join(result.output.split()), (template, result.output)
