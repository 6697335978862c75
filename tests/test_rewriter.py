"""The helper process `migrate` rewrites files in (`codemods.rewriter`): the same answers as this process, and
this process's own answers whenever the helper cannot give them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reply_audit.codemods.apply import rewrite_source
from reply_audit.codemods.base import Edit, Target
from reply_audit.codemods.edits import ReplaceCode
from reply_audit.codemods.rewriter import Rewriter
from reply_audit.migrate import migrate
from reply_audit.profile import load_profile
from reply_audit.scan import scan
from support import write_tree
from test_hollow import _examples, _hostile, _outcome

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the helper is forked")

ROOT = Path(__file__).resolve().parents[1]
SOURCE = b'CODE = "OLD-1"\n\n\ndef f():\n    return "OLD-2"\n'


def _edits() -> list[Edit]:
    return [ReplaceCode("legacy-codes", "mod.py", [(1, 7, 1, 14)], "one", old="OLD-1", new="NEW-1"),
            ReplaceCode("legacy-codes", "mod.py", [(5, 11, 5, 18)], "two", old="OLD-X", new="NEW-2")]


def _answer(outcome) -> tuple[object, ...]:
    return (outcome.source, outcome.new_source, [e.description for e in outcome.applied],
            [(e.description, reason) for e, reason in outcome.refused], outcome.problem)


def test_the_helper_answers_as_this_process_with_this_processs_edits() -> None:
    edits = _edits()
    with Rewriter.start(helper=True) as rewriter:
        assert rewriter.helped
        outcome = rewriter.rewrite(SOURCE, edits)
        assert rewriter.helped   # (it answered: nothing was rewritten here instead)
    assert _answer(outcome) == _answer(rewrite_source(SOURCE, _edits())) == (
        SOURCE, b'CODE = "NEW-1"\n\n\ndef f():\n    return "OLD-2"\n', ["one"],
        [("two", "expected the string 'OLD-X' there, found \"OLD-2\"")], None)
    assert outcome.applied[0] is edits[0] and outcome.refused[0][0] is edits[1]


@pytest.mark.parametrize("name,tree", [pytest.param(n, t, id=n) for n, t in _examples() + _hostile()][::4]
                         + [pytest.param(*_hostile()[0], id="hostile")])
def test_migrate_through_the_helper_is_migrate_here(tmp_path: Path, name: str, tree: dict[str, str]) -> None:
    write_tree(tmp_path, tree)
    here = _outcome(migrate(scan(tmp_path, load_profile(None, tmp_path))))
    with Rewriter.start(helper=True) as rewriter:
        helped = _outcome(migrate(scan(tmp_path, load_profile(None, tmp_path)), rewriter=rewriter))
        assert rewriter.helped   # it answered every request (a failure would have sent the rest here)
    assert helped == here


def test_a_helper_that_died_leaves_the_rewrite_to_this_process() -> None:
    rewriter = Rewriter.start(helper=True)
    assert rewriter.pid is not None
    os.kill(rewriter.pid, signal.SIGKILL)
    os.waitpid(rewriter.pid, 0)
    outcome = rewriter.rewrite(SOURCE, _edits())
    assert not rewriter.helped
    assert _answer(outcome) == _answer(rewrite_source(SOURCE, _edits()))
    rewriter.close()


class _Local(Edit):   # a class the helper cannot unpickle by name: the request fails to pickle
    def targets(self) -> list[Target]:
        return [Target("string", (1, 7, 1, 14))]

    def rewrite(self, target, original, updated, ctx):
        raise RuntimeError("a codemod's own bug")


def test_an_edit_that_breaks_in_the_helper_breaks_here_the_same_way() -> None:
    with Rewriter.start(helper=True) as rewriter:
        with pytest.raises(RuntimeError, match="a codemod's own bug"):
            rewriter.rewrite(SOURCE, [_Local("local", "mod.py", [(1, 7, 1, 14)], "local")])
        assert not rewriter.helped   # the helper answered that it failed; the rest is rewritten here


def test_a_request_that_does_not_pickle_is_rewritten_here() -> None:
    class Unpicklable(ReplaceCode):   # defined in a function: pickle cannot name it
        pass

    edit = Unpicklable("legacy-codes", "mod.py", [(1, 7, 1, 14)], "one", old="OLD-1", new="NEW-1")
    with Rewriter.start(helper=True) as rewriter:
        outcome = rewriter.rewrite(SOURCE, [edit])
    assert outcome.new_source == b'CODE = "NEW-1"\n\n\ndef f():\n    return "OLD-2"\n'
    assert outcome.applied == [edit]


def test_closing_does_not_wait_for_processes_forked_since() -> None:
    rewriter = Rewriter.start(helper=True)
    holder = os.fork()   # as a pool's worker would be: it holds the helper's pipes and outlives the close
    if holder == 0:
        time.sleep(30)
        os._exit(0)
    try:
        started = time.monotonic()
        rewriter.close()
        assert time.monotonic() - started < 10
    finally:
        os.kill(holder, signal.SIGKILL)
        os.waitpid(holder, 0)


def test_no_helper_where_libcst_is_imported_already_or_when_told() -> None:
    assert "libcst" in sys.modules   # (this test module imported the rewriter's apply)
    assert not Rewriter.start().helped
    assert not Rewriter.start(helper=False).helped


COUNTING = """
import os, sys
forks = []
fork = os.fork
os.fork = lambda: forks.append(1) or fork()
if sys.argv[2] == "preloaded":
    import libcst
import atexit
import reply_audit.cli as cli
sys.argv = ["reply-audit", "migrate", sys.argv[1]]
# (the command's exit runs it; the helper never does: it ends where it serves, without exit handlers)
atexit.register(lambda: sys.stderr.write(f"forks: {len(forks)}\\n"))
cli.main()
"""


def test_the_command_line_migrates_through_its_helper(tmp_path: Path) -> None:
    """A `migrate` process starts without libcst: it forks its helper, and prints the diff a process that has
    libcst already (and so no helper) prints."""
    example = str(ROOT / "examples" / "legacy_mcp")
    helped = subprocess.run([sys.executable, "-c", COUNTING, example, "cold"], capture_output=True, timeout=120,
                            cwd=tmp_path)
    here = subprocess.run([sys.executable, "-c", COUNTING, example, "preloaded"], capture_output=True, timeout=120,
                          cwd=tmp_path)
    assert (helped.returncode, here.returncode) == (0, 0)
    assert helped.stdout == here.stdout and helped.stdout.startswith(b"--- a/")
    assert helped.stderr.splitlines()[-1] == b"forks: 1"
    assert here.stderr.splitlines()[-1] == b"forks: 0"


def test_a_file_expected_ahead_is_rewritten_as_any_other(tmp_path: Path) -> None:
    """The helper parses an expected file ahead, and uses that tree only for the same bytes: a request that brings
    the file changed since (a line fewer: its tree would cut the return away), or a file never expected, gets
    what this process answers."""
    ahead = b'CODE = "OLD-1"\n\n\ndef f():\n    a = 1\n    b = 2\n    return "OLD-2"\n'
    changed = ahead.replace(b"    b = 2\n", b"")

    def edits(line: int) -> list[Edit]:
        return [ReplaceCode("legacy-codes", "mod.py", [(1, 7, 1, 14)], "one", old="OLD-1", new="NEW-1"),
                ReplaceCode("legacy-codes", "mod.py", [(line, 11, line, 18)], "two", old="OLD-2", new="NEW-2")]

    expected = tmp_path / "mod.py"
    expected.write_bytes(ahead)
    with Rewriter.start(helper=True) as rewriter:
        rewriter.expect(expected)
        rewriter.expect(tmp_path / "missing.py")
        same = rewriter.rewrite(ahead, edits(7))
        rewriter.expect(expected)
        other = rewriter.rewrite(changed, edits(6))
        assert rewriter.helped
    assert _answer(same) == _answer(rewrite_source(ahead, edits(7)))
    assert same.new_source == ahead.replace(b"OLD", b"NEW")
    assert _answer(other) == _answer(rewrite_source(changed, edits(6)))
    assert other.new_source == changed.replace(b"OLD", b"NEW")


def test_an_answer_to_another_request_is_not_taken() -> None:
    """An answer is taken only for the request it names: one left unread (a request interrupted before its
    answer came) makes the next request's answer not match, and the file is rewritten here."""
    from reply_audit.codemods import rewriter as module

    edits = _edits()
    with Rewriter.start(helper=True) as rewriter:
        assert rewriter._requests is not None
        module._send(rewriter._requests, ("rewrite", 99, SOURCE.replace(b"OLD-1", b"OLD-9"), _edits()))
        outcome = rewriter.rewrite(SOURCE, edits)   # reads the answer to request 99 first: not this request's
        assert not rewriter.helped
    assert _answer(outcome) == _answer(rewrite_source(SOURCE, _edits()))
    assert outcome.applied == [edits[0]]
