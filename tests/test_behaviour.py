"""migrate keeps behaviour: every handler of a fixture server is called before and after, in-process, with the
fixture's own wrapper and builder, and each reply must carry the meaning of the legacy dict it replaces.

tests/fixtures/behaviour/strict holds a server whose wrapper turns any result that is not a Reply into an Error
and whose builder needs the wrapper's trace; the lenient variant (built here from it) wraps raw results as a
Success, as plan 001's phase 1 does. calls.py lists the calls and, counted by hand, what each legacy dict means.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO

FIXTURE = REPO / "tests" / "fixtures" / "behaviour"
STRICT_BRANCH = 'return Reply("E", "MCP-SYS-E-003", describe("MCP-SYS-E-003"), {"returned": type(result).__name__})'
LENIENT_BRANCH = 'return Reply("S", "MCP-SYS-S-900", "Legacy tool returned raw payload.", dict(result))'
TYPED = "def mcp_safe_tool(func: Callable[..., Reply]) -> Callable[..., Reply]:"
sys.path.insert(0, str(FIXTURE / "strict"))
from calls import CALLS, MEANING  # noqa: E402
from replies import LEGACY_TO_CANONICAL  # noqa: E402

sys.path.remove(str(FIXTURE / "strict"))
for _name in ("calls", "replies"):
    sys.modules.pop(_name, None)


def tree(tmp_path: Path, name: str, lenient: bool = False, typed: bool = False) -> Path:
    """The strict fixture; LENIENT: its wrapper auto-wraps raw results and takes any function (unless TYPED:
    its parameter still demands functions that return a Reply)."""
    root = tmp_path / name
    shutil.copytree(FIXTURE / "strict", root, ignore=shutil.ignore_patterns("__pycache__", ".*cache*"))
    if lenient:
        safety = root / "safety.py"
        text = safety.read_text(encoding="utf-8")
        assert STRICT_BRANCH in text and TYPED in text
        text = text.replace(STRICT_BRANCH, LENIENT_BRANCH)
        if not typed:
            text = text.replace(TYPED, TYPED.replace("func: Callable[..., Reply]", "func: Callable[..., Any]"))
        safety.write_text(text, encoding="utf-8")
    return root


def probe(root: Path) -> list[dict]:
    done = subprocess.run([sys.executable, str(FIXTURE / "probe.py"), str(root)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def migrate(root: Path, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "reply_audit", "migrate", str(root), "--apply", "-f", "json", *args],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def legacy_payload(legacy: dict, reply: dict, text: str | None) -> dict:
    """What the reply's data must be: the legacy dict without its success flags and the key whose text became
    the message; a legacy code is either the reply's code (mapped) or kept as legacy_code."""
    payload = {k: v for k, v in legacy.items() if k not in ("success", "ok")}
    spoken = next((k for k in ("error", "message", "reason") if legacy.get(k)), None)
    if text is not None and spoken is not None:
        payload.pop(spoken)
    if "code" in payload:
        code = payload.pop("code")
        if reply["code"] != LEGACY_TO_CANONICAL.get(code):
            payload["legacy_code"] = code
    return payload


def check_meaning(before: list[dict], after: list[dict]) -> None:
    assert len(before) == len(after) == len(CALLS) == len(MEANING)
    for (name, args, _), old, new, (outcome, text) in zip(CALLS, before, after, MEANING):
        legacy, reply = old["raw"], new["reply"]
        where = f"{name}{args}"
        assert reply["type"] in ({"S"} if outcome == "ok" else {"I", "E"}), where
        if text is not None:
            assert reply["message"] == text, where
        assert reply["data"] == legacy_payload(legacy, reply, text), where


def test_strict_wrapper_every_reply_carries_the_legacy_meaning(tmp_path):
    before = probe(tree(tmp_path, "before"))
    assert all("raw" in r for r in before)
    after_root = tree(tmp_path, "after")
    doc = migrate(after_root)
    assert doc["refused"] == [] and doc["skipped"] == []
    assert doc["wrapper"] == {"name": "mcp_safe_tool", "behaviour": "reject",
                              "detail": "safety.py:21: line 27: a result that is not a Reply becomes a reply of type E"}
    after = probe(after_root)
    check_meaning(before, after)
    assert [r["reply"]["code"] for r in after].count("MCP-SYS-E-003") == 0   # no raw result reached the wrapper


def test_strict_wrapper_phase_one_alone_wraps_nothing_that_still_returns_dicts(tmp_path):
    root = tree(tmp_path, "phase1")
    before = probe(root)
    doc = migrate(root, "--phase", "1")
    assert doc["files"] == [] and len(doc["skipped"]) == 9
    assert doc["skipped"][0]["reason"] == (
        "mcp_safe_tool turns a result that is not a reply into an Error (safety.py:21: line 27: a result that is "
        "not a Reply becomes a reply of type E), and 1 return(s) of notes_ping are not replies yet (line 28): it "
        "is wrapped together with their conversion (dict-returns, phase 3), or under [migrate] legacy-wrap")
    assert probe(root) == before


def test_lenient_wrapper_phase_one_wraps_and_all_phases_convert(tmp_path):
    before = probe(tree(tmp_path, "before", lenient=True))
    root = tree(tmp_path, "phase1", lenient=True)
    doc = migrate(root, "--phase", "1")
    assert doc["wrapper"]["behaviour"] == "autowrap" and doc["skipped"] == []
    assert sum(len(f["rewrites"]) for f in doc["files"]) == 9
    wrapped = probe(root)   # the team's wrapper: every legacy dict arrives whole, as MCP-SYS-S-900
    assert [(r["reply"]["code"], r["reply"]["data"]) for r in wrapped] == [
        ("MCP-SYS-S-900", old["raw"]) for old in before]
    migrate(root)
    check_meaning(before, probe(root))


def test_the_legacy_auto_wrap_keeps_meaning_in_phase_one_and_goes_in_phase_three(tmp_path):
    before = probe(tree(tmp_path, "before"))
    root = tree(tmp_path, "legacy")
    with open(root / "pyproject.toml", "a", encoding="utf-8") as handle:
        handle.write("legacy-wrap = true\n")
    doc = migrate(root, "--phase", "1")
    assert doc["skipped"] == [] and sum(len(f["rewrites"]) for f in doc["files"]) == 9
    text = (root / "server.py").read_text(encoding="utf-8")
    assert text.count("@mcp_safe_tool\n@_legacy_reply\ndef ") == 9
    check_meaning(before, probe(root))
    migrate(root)
    text = (root / "server.py").read_text(encoding="utf-8")
    assert "@_legacy_reply\n" not in text and text.count("@mcp_safe_tool\ndef ") == 9
    check_meaning(before, probe(root))
    checked = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "m"),
                              "server.py"], cwd=root, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout


def test_a_wrapper_typed_for_replies_is_not_put_on_a_handler_that_returns_dicts(tmp_path):
    root = tree(tmp_path, "typed", lenient=True, typed=True)
    doc = migrate(root, "--phase", "1")
    assert doc["files"] == [] and {s["reason"] for s in doc["skipped"]} == {
        f"mcp_safe_tool takes only functions that return Reply; {name} would still return raw dicts, a type "
        "error: convert all its returns first (phase 3), or widen the wrapper's annotation"
        for name in {c[0] for c in CALLS}}
    migrate(root)   # all phases: converted and wrapped in one edit, no type error
    checked = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "m"),
                              "server.py"], cwd=root, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout


@pytest.mark.parametrize("lenient", [False, True])
def test_a_second_run_changes_nothing_and_mypy_finds_no_new_error(tmp_path, lenient):
    root = tree(tmp_path, "t", lenient=lenient)
    mypy = [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "mypy"), "server.py"]
    clean = subprocess.run(mypy, cwd=root, capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout
    migrate(root)
    assert migrate(root)["files"] == []
    checked = subprocess.run(mypy, cwd=root, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout
    text = (root / "server.py").read_text(encoding="utf-8")
    assert text.count("-> Reply:") == 10 and "-> dict" not in text.split("def notes_ping")[1]


def test_the_bundled_example_gains_no_type_error(tmp_path):
    """mypy on examples/legacy_mcp reports the example's two planted defects before migrate, and nothing more
    after it (a `-> dict` over replies, a wrapper typed for replies, a call with a wrong argument would show)."""
    from support import EXAMPLE

    root = tmp_path / "legacy_mcp"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".*cache*"))

    def errors():
        done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "m"),
                               "src/notesvc"], cwd=root, capture_output=True, text=True)
        return sorted(line for line in done.stdout.splitlines() if ": error:" in line)

    planted = ['src/notesvc/replies/codes.py:69: error: Argument 2 to "ReplyCode" has incompatible type "str"; '
               'expected "Layer"  [arg-type]',
               'src/notesvc/tools/legacy_tools.py:17: error: "type[Reply]" has no attribute "info"  [attr-defined]']
    assert errors() == planted
    assert migrate(root)["refused"] == []
    assert errors() == planted
