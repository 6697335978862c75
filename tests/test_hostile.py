"""Hostile input: a corpus generated here (no third-party code) that `scan` and `migrate` must survive.

Every broken file is reported with its path, a line and a one-line reason; no traceback; no symbolic
link is followed out of the tree or round a loop; exit codes are the documented ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reply_audit.rules._snippets import BUILDER, CODES
from support import write_tree

BROKEN = {   # file -> source bytes that Python 3.11 rejects: nothing read, or some statements lost
    "syntax/unclosed_paren.py": b"x = (1,\n",
    "syntax/bad_def.py": b"def f(:\n    pass\n",
    "syntax/unterminated.py": b'x = "abc\n',
    "syntax/unterminated_triple.py": b'x = """abc\n',
    "syntax/bad_indent.py": b"if True:\nprint(1)\n",
    "syntax/tab_mix.py": b"if True:\n        x = 1\n\ty = 2\n",
    "syntax/dangling_op.py": b"x = 1 +\n",
    "py2/print.py": b'print "hello"\n',
    "py2/except.py": b"try:\n    pass\nexcept Exception, e:\n    pass\n",
    "py2/backticks.py": b"x = `1`\n",
    "py2/octal.py": b"x = 0777\n",
    "py2/exec.py": b'exec "x = 1"\n',
    "templates/readme.py": b"# Title\n\nSome *text* with `code`.\n\n```python\nx = 1\n```\n",
    "templates/jinja.py": b"{% for x in y %}\n{{ x }}\n{% endfor %}\n",
    "fragments/indented.py": b"    x = 1\n    y = 2\n",
    "encoding/not_utf8.py": b"x = '\xff\xfe'\n",
    "encoding/bom_and_latin1_cookie.py": b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nx = 1\n",
    "encoding/unknown_cookie.py": b"# -*- coding: klingon -*-\nx = 1\n",
    "encoding/not_a_text_codec.py": b"# coding: hex\nx = 1  # reply-audit: ignore\n",
    "encoding/codec_that_fails.py": b"# coding: undefined\nx = 1  # reply-audit: ignore\n",
    "nul/nul.py": b"x = 1\x00\n",
    "deep/parens.py": b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n",
    "deep/blocks.py": b"".join(b"    " * i + b"if x:\n" for i in range(120)) + b"    " * 120 + b"pass\n",
    "deep/sum.py": b"Y = " + b"+".join([b"1"] * 3000) + b"\n",
}

FINE = {   # files that must scan without a problem
    "fine/empty.py": b"",
    "fine/blank.py": b"\n\n   \n",
    "fine/comments.py": b"# only a comment\n",
    "fine/bom.py": b"\xef\xbb\xbfx = 'WA-RES-S-001'\n",
    "fine/crlf.py": b"x = 1\r\ny = 2\r\n",
    "fine/mixed.py": b"x = 1\r\ny = 2\nz = 3\r",
    "fine/latin1.py": "# -*- coding: latin-1 -*-\nx = 'é'\n".encode("latin-1"),
}
NEWER = {   # Python 3.12 syntax: scanned by a 3.12 interpreter, listed as skipped statements by an older one
    "newer/py312.py": b'x = f"{\'a\' if True else "b"}"\ntype Alias = int\ny = 1\n',
}


LINK = "broken or looping symbolic link"
UNPARSEABLE_ON_311 = {
    "a.py": (1, LINK), "b.py": (1, LINK), "dangling.py": (1, LINK),
    "deep/blocks.py": (101, "too many levels of indentation"),
    "deep/parens.py": (1, "too many nested parentheses"),
    "deep/sum.py": (1, "nested too deeply to parse"),
    "encoding/bom_and_latin1_cookie.py": (1, "encoding problem: iso-8859-1 with BOM"),
    "encoding/not_utf8.py": (1, "(unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start "
                                "byte"),
    "encoding/unknown_cookie.py": (1, "unknown encoding: klingon"),
    "encoding/not_a_text_codec.py": (1, "'hex' is not a text encoding; use codecs.decode() to handle arbitrary "
                                        "codecs"),
    "encoding/codec_that_fails.py": (1, "decoding with 'undefined' codec failed (UnicodeError: undefined encoding)"),
    "fragments/indented.py": (1, "unexpected indent"),
    "nul/nul.py": (1, "file contains NUL bytes"),
    "pipe.py": (1, "not a regular file (a pipe, socket or device): not read"),
    "py2/backticks.py": (1, "invalid syntax"),
    "py2/except.py": (3, "multiple exception types must be parenthesized"),
    "py2/exec.py": (1, "Missing parentheses in call to 'exec'. Did you mean exec(...)?"),
    "py2/octal.py": (1, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
                        "integers"),
    "py2/print.py": (1, "Missing parentheses in call to 'print'. Did you mean print(...)?"),
    "syntax/bad_def.py": (1, "invalid syntax"),
    "syntax/dangling_op.py": (1, "invalid syntax"),
    "syntax/tab_mix.py": (3, "inconsistent use of tabs and spaces in indentation"),
    "syntax/unclosed_paren.py": (1, "'(' was never closed"),
    "syntax/unterminated.py": (1, "unterminated string literal (detected at line 1)"),
    "syntax/unterminated_triple.py": (1, "unterminated triple-quoted string literal (detected at line 1)"),
}
FALLBACK_ON_311 = {
    "newer/py312.py": (1, "line 1 (a statement) not read, this Python rejects line 1: f-string: expecting '}'"),
    # a real syntax error: the statements Python's tokenizer finds around it are read, each loss listed
    "syntax/bad_indent.py": (1, "line 1 (a statement) not read, this Python rejects line 1: expected an indented "
                                "block after 'if' statement on line 1"),
    "templates/jinja.py": (1, "line 1 (a statement) not read, this Python rejects line 1: invalid syntax"),
    "templates/readme.py": (3, "line 3 (a statement) not read, this Python rejects line 3: invalid syntax"),
}


def build_corpus(root: Path, outside: Path) -> None:
    write_tree(root, {"builder.py": BUILDER.replace("def __init__(self):", "def __init__(self, tool=None):"),
                      "codes.py": CODES, "server.py": '''
        from builder import ReplyBuilder


        def mcp_safe_tool(func):
            return func


        @mcp.tool()
        def notes_read(path):
            return {"success": True, "path": path}
        '''})
    for rel, data in {**BROKEN, **FINE, **NEWER}.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (root / "huge.py").write_bytes(b"".join(b"X_%d = %d\n" % (i, i) for i in range(100_000)))  # ~1.3 MB, 100,000 lines
    (root / "weird\ndir").mkdir()
    (root / "weird\ndir" / "mod.py").write_text("x = 1\n")
    (root / "pkg.py").mkdir()                                   # a directory named like a module
    (root / "pkg.py" / "inner.py").write_text("y = 2\n")
    (root / "loop").symlink_to(root, target_is_directory=True)  # a directory link round to the root
    (root / "a.py").symlink_to(root / "b.py")                   # a file link loop
    (root / "b.py").symlink_to(root / "a.py")
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    outside.mkdir(exist_ok=True)
    (outside / "secret.py").write_text('rb.info("WA-READ-S-001", {})\n')
    (root / "outside").symlink_to(outside, target_is_directory=True)
    (root / "outside_file.py").symlink_to(outside / "secret.py")
    os.mkfifo(root / "pipe.py")                                 # reading it would block forever
    sub = root / "vendor" / "broken_submodule"
    sub.mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../../.git/modules/broken_submodule\n")


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "reply_audit", *map(str, args)], capture_output=True,
                          text=True, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    root = base / "tree"
    root.mkdir()
    build_corpus(root, base / "outside")
    return root


def test_scan_reports_every_broken_file_and_nothing_else(corpus):
    done = run("scan", corpus, "-f", "json", "--fail-on", "none", "--no-cache")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    problems = {p["path"]: p for p in doc["files"]["unparseable"]}
    # a file read in part keeps the statements this Python understands; the others are listed, with line
    skipped = {f["path"]: f["skipped"][0] for f in doc["files"]["fallback"]}
    expected = set(BROKEN) | {"pipe.py", "a.py", "b.py", "dangling.py"}
    if sys.version_info < (3, 12):
        expected |= set(NEWER)
    assert set(problems) | set(skipped) == expected and not set(problems) & set(skipped)
    for p in [*problems.values(), *skipped.values()]:
        assert p["line"] >= 1 and p["message"] and "\n" not in p["message"] and len(p["message"]) <= 200
    if sys.version_info[:2] == (3, 11):   # CI's Python: the parser's own messages are those of 3.11
        assert {path: (p["line"], p["message"]) for path, p in problems.items()} == UNPARSEABLE_ON_311
        assert {path: (p["line"], p["message"]) for path, p in skipped.items()} == FALLBACK_ON_311
    assert problems["pipe.py"]["message"] == "not a regular file (a pipe, socket or device): not read"
    assert problems["a.py"]["message"] == "broken or looping symbolic link"
    assert skipped["syntax/bad_indent.py"]["line"] == 1
    assert problems["nul/nul.py"]["message"] == "file contains NUL bytes"
    scanned = doc["files"]["scanned"]
    # the good files, the example files, huge.py, the newline directory, pkg.py/inner.py; no link outside
    # + builder.py, codes.py, server.py, huge.py, the module in "weird\ndir", pkg.py/inner.py
    assert scanned == len(BROKEN) + len(FINE) + len(NEWER) + 6
    assert not any(f["path"].startswith(("outside", "loop")) for f in doc["findings"])
    assert {f["path"] for f in doc["findings"] if f["rule"] == "RA306"} == {"server.py"}


def test_migrate_finishes_rewrites_what_it_can_and_touches_nothing_else(corpus, tmp_path):
    before = {p: p.read_bytes() for p in corpus.rglob("*.py") if p.is_file() and not p.is_symlink()
              and "loop" not in p.parts and "outside" not in p.parts and not p.is_fifo()}
    done = run("migrate", corpus, "--apply", "--select", "dict-returns")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    changed = sorted(p.relative_to(corpus).as_posix() for p, data in before.items() if p.read_bytes() != data)
    assert changed == ["server.py"]
    assert (corpus.parent / "outside" / "secret.py").read_text() == 'rb.info("WA-READ-S-001", {})\n'
    again = run("migrate", corpus, "--check")
    assert again.returncode == 0, again.stderr[-1000:]


@pytest.mark.parametrize("args,files,message", [
    (["scan", "{root}"], {"pyproject.toml": "[tool.reply-audit\n"}, "not valid TOML"),
    (["scan", "{root}", "--profile", "nope"], {}, "unknown profile 'nope'"),
    (["scan", "{root}", "--select", "RA999"], {}, "unknown rule 'RA999'"),
    (["scan", "{root}", "--mapping", "{root}/m.toml"], {"m.toml": "[mapping]\nnot-a-code = 1\n"},
     "must be a code string"),
    (["scan", "{root}", "--mapping", "{root}/missing.toml"], {}, "does not exist"),
    (["scan", "{root}/nowhere"], {}, "does not exist"),
    (["scan", "{root}"], {"pyproject.toml": "[tool.reply-audit.rules]\nfail-on = 'sometimes'\n"}, "fail-on"),
    (["scan", "{root}"], {"pyproject.toml": "[tool.reply-audit]\nbogus = 1\n"}, "unknown key 'bogus'"),
    (["migrate", "{root}", "--select", "nope"], {}, "unknown codemod 'nope'"),
    (["scorecard", "{root}", "--base", "nope"], {}, "not a git repository"),
    (["history", "{root}"], {}, "not a git repository"),
    (["merge", "{root}/x.json"], {"x.json": "[]"}, "is not a reply-audit/1 report"),
    (["rules", "RA999"], {}, "unknown rule 'RA999'"),
    (["scan", "{root}", "-f", "xml"], {}, "'xml' is not one of 'table', 'json', 'md', 'sarif', 'github', 'csv'."),
    (["scan"], {}, "missing argument PATH (see `reply-audit scan --help`)"),
    (["scna"], {}, "no such command 'scna'; did you mean 'scan'? (see `reply-audit --help`)"),
    (["scan", "{root}", "--bogus"], {}, "no such option: --bogus (see `reply-audit scan --help`)"),
    (["migrate", "{root}"], {}, "no Python files in "),
    (["cache", "clear", "{root}/nowhere"], {}, "is not a directory"),
    (["hook", "--root", "{root}", "{root}/gone.py"], {}, "no such file: "),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, files, message):
    root = tmp_path / "t"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text)
    done = run(*[a.format(root=root) for a in args])
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and message in lines[0], done.stderr
    assert lines[0].startswith("reply-audit: error: ")


def test_a_killed_apply_leaves_every_file_old_or_new(tmp_path):
    """SIGKILL at growing delays: each file is the original or the finished rewrite, never a mix; a tree with
    some files old and some new has its journal (a kill that lands while files are written; the journal itself
    is tested deterministically in test_migrate_trust)."""
    import shutil
    import signal
    import time

    from reply_audit.rules._snippets import BUILDER, CODES

    template = tmp_path / "template"
    files = {"builder.py": BUILDER, "codes.py": CODES}
    body = "".join(f'\ndef f{i}(rb: ReplyBuilder):\n    return rb.info("WA-READ-S-001", {{"n": {i}}})\n'
                   for i in range(40))
    for n in range(150):
        files[f"pkg/m{n:03d}.py"] = body
    write_tree(template, files)
    old = {rel: (template / rel).read_bytes() for rel in files}
    new = {rel: data.replace(b"rb.info(", b"rb.success(") for rel, data in old.items()}
    interrupted = 0
    for delay in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0):
        tree = tmp_path / f"run{delay}"
        shutil.copytree(template, tree)
        proc = subprocess.Popen([sys.executable, "-m", "reply_audit", "migrate", str(tree), "--apply",
                                 "--allow-dirty", "-f", "json"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            interrupted += 1
        proc.wait(timeout=60)
        states = {rel: (tree / rel).read_bytes() for rel in files}
        assert all(states[rel] in (old[rel], new[rel]) for rel in files), f"a partial file after {delay} s"
        for rel in files:
            compile(states[rel], rel, "exec")
        if proc.returncode == 0:
            assert states == new
        mixed = len({states[rel] == new[rel] for rel in files if old[rel] != new[rel]}) > 1
        journal = (tree / ".reply-audit-journal").exists()
        assert journal or not mixed, f"half migrated with no record after {delay} s"
        if journal:   # killed while writing: --resume finishes, and the next --apply leaves no temporary file
            settled = subprocess.run([sys.executable, "-m", "reply_audit", "migrate", str(tree), "--resume"],
                                     capture_output=True, text=True)
            assert settled.returncode == 0 and {rel: (tree / rel).read_bytes() for rel in files} == new
            subprocess.run([sys.executable, "-m", "reply_audit", "migrate", str(tree), "--apply", "--allow-dirty"],
                           capture_output=True, check=True)
            assert not list(tree.rglob("*.reply-audit.tmp")) and not (tree / ".reply-audit-journal").exists()
    assert interrupted >= 1, "the run always finished before the kill: make the tree larger"


def test_an_unreadable_file_is_reported_and_the_scan_goes_on(tmp_path, monkeypatch):
    """chmod 000 does not stop root (CI runs as root), so the read itself is made to fail."""
    from reply_audit import discovery
    from reply_audit.cli import app
    from support import CliRunner

    write_tree(tmp_path, {"ok.py": 'X = "WA-RES-I-001"\n', "locked.py": "Y = 1\n"})

    def opened(path, *args, **kwargs):   # the tree is read by `open` in discovery
        if Path(path).name == "locked.py":
            raise PermissionError(13, "Permission denied")
        return open(path, *args, **kwargs)

    monkeypatch.setattr(discovery, "open", opened, raising=False)
    done = CliRunner().invoke(app, ["scan", str(tmp_path), "-f", "json", "--fail-on", "none", "--no-cache"])
    assert done.exit_code == 0 and done.exception is None
    doc = json.loads(done.stdout)
    assert doc["files"]["unparseable"] == [{"path": "locked.py", "line": 1, "col": 1,
                                            "message": "cannot read file: Permission denied"}]
    assert doc["files"]["scanned"] == 2
