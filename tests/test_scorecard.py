"""`reply-audit scorecard`: two revisions of a git repository built here, compared from the object database."""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from reply_audit.cli import app
from reply_audit.report.pr_comment import GITHUB_LIMIT, MARKER
from reply_audit.rules._snippets import BUILDER, CODES
from support import CliRunner, write_tree

RUNNER = CliRunner()
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t"}

SERVER = '''
def notes_write(rb: ReplyBuilder, path):
    if path.startswith("/sys"):
        rb.denied("EN-WRITE-D-001", {})
    return rb.success("WA-RES-S-001", {})


def notes_read(rb: ReplyBuilder):
    return rb.info("WA-READ-S-001", {})
'''


# the PR of several tests: fixes rb.info() (RA203, RA204), adds an Invalid in a broad except (RA304)
FIX_ONE_BREAK_ONE = SERVER.replace("rb.info(", "rb.success(") + '''

def notes_delete(rb: ReplyBuilder, store, path):
    try:
        del store[path]
    except Exception:
        return rb.invalid("WA-RES-I-001", {})
    return rb.success("WA-RES-S-001", {})
'''


def git(root, *args) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=ENV).stdout.strip()


def commit(root, files: dict[str, str], message: str) -> str:
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    commit(root, {"builder.py": BUILDER, "codes.py": CODES, "server.py": SERVER}, "base")
    return root


def card(root, *args):
    result = RUNNER.invoke(app, ["scorecard", str(root), *args])
    return result


def delta(root, base, head="HEAD", *args):
    result = card(root, "--base", base, "--head", head, "-f", "json", *args)
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    return doc, result.exit_code


def rules(findings):
    return sorted((f["rule"], f["path"], f["line"]) for f in findings)


def test_a_pure_line_shift_changes_nothing(repo):
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, {"server.py": '"""Notes tools."""\n\nimport os\n\n# moved down\n' + SERVER}, "shift")
    doc, code = delta(repo, base)
    # RA303, RA203 and RA204 (the builder has no info()) in server.py, RA501 for the repository
    assert (doc["introduced"], doc["resolved"], doc["unchanged"], doc["moved"], code) == ([], [], 4, 0, 0)
    assert doc["verdict"] == "same"


def test_renaming_the_enclosing_function_is_no_new_finding(repo):
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, {"server.py": SERVER.replace("def notes_write", "def write_note")}, "rename")
    doc, _ = delta(repo, base)
    assert (doc["introduced"], doc["resolved"], doc["unchanged"], doc["moved"]) == ([], [], 3, 1)


def test_introduced_and_resolved_exactly(repo):
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, {"server.py": FIX_ONE_BREAK_ONE}, "fix one, break one")
    doc, code = delta(repo, base)
    assert rules(doc["introduced"]) == [("RA304", "server.py", 16)]
    assert rules(doc["resolved"]) == [("RA203", "server.py", 9), ("RA204", "server.py", 9)]
    assert (doc["verdict"], code) == ("worse", 1)
    assert (doc["base"]["by_severity"]["high"], doc["head"]["by_severity"]["high"]) == (2, 2)
    assert (doc["base"]["by_severity"]["critical"], doc["head"]["by_severity"]["critical"]) == (1, 0)
    _, lenient = delta(repo, base, "HEAD", "--fail-on", "critical")
    assert lenient == 0
    annotations = card(repo, "--base", base, "-f", "github")
    assert annotations.stdout.splitlines() == [
        "::error file=server.py,line=16,col=16,title=RA304 broad-except-invalid::rb.invalid() inside a broad "
        "except: a system failure must be an Error"]
    both = card(repo, "--base", base, "--out", str(repo.parent / "card.md"), "--annotate")
    assert (both.stdout, both.exit_code) == (annotations.stdout, 1)
    assert (repo.parent / "card.md").read_text() == card(repo, "--base", base).stdout
    refused = card(repo, "--base", base, "--annotate")
    assert (refused.exit_code, refused.stderr) == (
        2, "reply-audit: error: --annotate prints annotations on stdout: write the report with --out FILE\n")


def test_the_working_tree_is_never_touched(repo):
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, {"server.py": SERVER.replace("rb.info(", "rb.success(")}, "fix")
    (repo / "server.py").write_text("uncommitted = True\n")
    (repo / "new.py").write_text("x = 1\n")
    before = git(repo, "status", "--porcelain")
    doc, _ = delta(repo, base)
    assert rules(doc["resolved"]) == [("RA203", "server.py", 9), ("RA204", "server.py", 9)]  # from the commit
    assert git(repo, "status", "--porcelain") == before and git(repo, "rev-parse", "HEAD") != base


def test_a_subdirectory_is_compared_and_linked_from_the_repository_root(repo):
    base = commit(repo, {"svc/builder.py": BUILDER, "svc/codes.py": CODES, "svc/server.py": SERVER}, "svc")
    commit(repo, {"svc/server.py": SERVER.replace('rb.denied("EN', 'return rb.denied("EN')}, "return")
    result = card(repo / "svc", "--base", base, "--repo-url", "https://github.com/o/r")
    assert result.exit_code == 0
    sha = git(repo, "rev-parse", base)
    assert f"(https://github.com/o/r/blob/{sha}/svc/server.py#L4)" in result.stdout
    doc, _ = delta(repo / "svc", base)
    assert rules(doc["resolved"]) == [("RA303", "server.py", 4)] and doc["path"] == "svc/"


def test_bad_revisions_and_paths_exit_2(repo, tmp_path):
    missing = card(repo, "--base", "no-such-branch")
    assert missing.exit_code == 2 and "git revision 'no-such-branch' does not exist" in missing.stderr
    assert card(repo).exit_code == 2 and "--base is required" in card(repo).stderr
    (tmp_path / "plain").mkdir()
    outside = card(tmp_path / "plain", "--base", "HEAD")
    assert outside.exit_code == 2 and "not a git repository" in outside.stderr.lower()


def test_the_comment_renders_as_github_would_show_it(repo):
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, {"server.py": FIX_ONE_BREAK_ONE}, "change")
    text = card(repo, "--base", base, "--repo-url", "https://github.com/o/r").stdout
    assert text.startswith(MARKER + "\n### ❌ Reply compliance: 1 new finding (1 at or above high), although 2 "
                           "resolved bring the total down")
    table = text[text.index("| severity | base | head | Δ |"):].split("\n\n")[0].splitlines()
    assert table == ["| severity | base | head | Δ |", "| --- | ---: | ---: | ---: |", "| 🔴 critical | 1 | 0 | -1 |",
                     "| 🟠 high | 2 | 2 | 0 |", "| 🟡 medium | 1 | 1 | 0 |", "| ⚪ low | 0 | 0 | 0 |",
                     "| **total** | **4** | **3** | **-1** |"]
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    assert html.startswith(MARKER)                                     # a comment: nothing shows
    assert html.count("<table>") == 4        # severities, scorecard changes, head findings, scorecard
    assert "<th>severity</th>" in html and '<td align="right">-1</td>' in html   # numbers right-aligned
    assert len(re.findall(r"<details><summary>", html)) == 2 and "open" not in html.split("<details>")[1][:10]
    head_sha = git(repo, "rev-parse", "HEAD")
    assert f'<a href="https://github.com/o/r/blob/{head_sha}/server.py#L16"><code>server.py:16</code></a>' in html
    assert "<h4>Introduced (1)</h4>" in html and "<h4>Resolved (2)</h4>" in html


def test_a_huge_delta_still_fits_a_github_comment(repo):
    base = git(repo, "rev-parse", "HEAD")
    many = "\n".join(f'def f{i}(rb: ReplyBuilder):\n    return rb.info("WA-READ-S-001", {{"n": {i}}})\n'
                     for i in range(1500))
    commit(repo, {"more.py": many}, "many")
    text = card(repo, "--base", base, "--repo-url", "https://github.com/some-organisation/some-repository").stdout
    assert len(text) <= GITHUB_LIMIT and text.startswith(MARKER)
    shown = re.search(r"- … and (\d+) more not shown", text)
    listed = text.count("\n- 🟠 **RA203**") + text.count("\n- 🔴 **RA204**")
    assert shown and listed + int(shown.group(1)) == 3000       # RA203 and RA204 for each of 1500 calls
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    assert html.count("</details>") == 2


def test_integration_files_are_wired_to_real_commands():
    import yaml

    from support import REPO

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["reply-audit"]
    assert hooks[0]["entry"] == "reply-audit hook" and hooks[0]["language"] == "python"
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    scripts = "\n".join(step.get("run", "") for step in action["runs"]["steps"])
    assert "reply-audit scorecard" in scripts and "GITHUB_STEP_SUMMARY" in scripts
    assert "reply_audit.github_comment" in scripts
    for name, spec in action["inputs"].items():
        assert spec.get("description"), name
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert subprocess.run(["bash", "-n"], input=textwrap.dedent(step["run"]), text=True).returncode == 0


def test_the_pre_commit_hook_reports_changed_files_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # pre-commit runs hooks at the repository's root: paths are shown from there
    write_tree(tmp_path, {"builder.py": BUILDER, "codes.py": CODES, "server.py": SERVER,
                          "other.py": 'def f(rb: ReplyBuilder):\n    rb.invalid("WA-RES-I-001", {})\n'})
    only = RUNNER.invoke(app, ["hook", "--root", str(tmp_path), str(tmp_path / "other.py")])
    assert only.exit_code == 1
    assert only.stdout.splitlines() == [
        "other.py:2:5: RA303 [high] [*] terminal rb.invalid() is not returned",
        "1 finding(s) in 1 file(s); 1 fixable with `reply-audit migrate`"]
    clean = RUNNER.invoke(app, ["hook", "--root", str(tmp_path), str(tmp_path / "codes.py")])
    assert (clean.exit_code, clean.stdout) == (0, "")
    outside = RUNNER.invoke(app, ["hook", "--root", str(tmp_path / "nope")])
    assert outside.exit_code == 2


def _fake_github(comments: list[dict], calls: list[tuple[str, str]], read_only: bool = False):
    """A fake GitHub API on localhost: the workflow token's rules (GET /user is 403; READ_ONLY: every write
    is 403, as for a fork's pull request)."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Fake(BaseHTTPRequestHandler):
        def _reply(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            calls.append(("GET", self.path))
            assert self.headers["Authorization"] == "Bearer t0k"
            if self.path == "/user":
                self._reply(403, {"message": "Resource not accessible by integration"})
            else:
                self._reply(200, comments if "page=1" in self.path else [])

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            calls.append(("POST", self.path))
            if read_only:
                return self._reply(403, {"message": "Resource not accessible by integration"})
            comments.append({"id": 8, "body": body["body"], "user": {"login": "github-actions[bot]"}})
            self._reply(201, comments[-1])

        def do_PATCH(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            calls.append(("PATCH", self.path))
            next(c for c in comments if c["id"] == int(self.path.rsplit("/", 1)[1]))["body"] = body["body"]
            self._reply(200, {})

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Fake)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_the_sticky_comment_is_created_once_then_updated_and_never_another_users(tmp_path, monkeypatch):
    from reply_audit import github_comment

    planted = {"id": 6, "body": MARKER + "\nsomeone else's, carrying the marker", "user": {"login": "mallory"}}
    comments: list[dict] = [{"id": 7, "body": "an unrelated comment", "user": {"login": "alice"}}, planted]
    calls: list[tuple[str, str]] = []
    server = _fake_github(comments, calls)
    try:
        monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{server.server_port}")
        monkeypatch.setenv("GITHUB_TOKEN", "t0k")
        body = tmp_path / "comment.md"
        body.write_text(MARKER + "\nfirst\n")
        assert github_comment.main(["--repo", "o/r", "--pr", "5", "--body-file", str(body)]) == 0
        body.write_text(MARKER + "\nsecond\n")
        assert github_comment.main(["--repo", "o/r", "--pr", "5", "--body-file", str(body)]) == 0
    finally:
        server.shutdown()
    assert [c for c in calls if c[0] != "GET"] == [("POST", "/repos/o/r/issues/5/comments"),
                                                   ("PATCH", "/repos/o/r/issues/comments/8")]
    assert [c["body"] for c in comments] == ["an unrelated comment", MARKER + "\nsomeone else's, carrying the marker",
                                             MARKER + "\nsecond\n"]
    monkeypatch.delenv("GITHUB_TOKEN")
    assert github_comment.main(["--repo", "o/r", "--pr", "5", "--body-file", str(body)]) == 2


def test_a_read_only_token_is_a_warning_not_a_failed_job(tmp_path, monkeypatch, capsys):
    from reply_audit import github_comment

    calls: list[tuple[str, str]] = []
    server = _fake_github([], calls, read_only=True)
    try:
        monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{server.server_port}")
        monkeypatch.setenv("GITHUB_TOKEN", "t0k")
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        body = tmp_path / "comment.md"
        body.write_text("the scorecard\n")
        capsys.readouterr()
        assert github_comment.main(["--repo", "o/r", "--pr", "5", "--body-file", str(body)]) == 0
    finally:
        server.shutdown()
    assert capsys.readouterr().err == (
        "::warning::reply-audit: cannot comment on o/r#5 (POST /repos/o/r/issues/5/comments: HTTP 403 Forbidden): "
        "the token may not write, as on a pull request from a fork; the scorecard is in the job summary\n")


def test_the_base_is_where_the_branch_left_it_not_the_base_branch_tip(repo):
    """A docs-only branch that left main before main fixed a finding is no worse: it is compared with the
    merge-base (BASE...HEAD). --base-tip compares with main's tip, as before."""
    start = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "feature")
    commit(repo, {"README.md": "docs only\n"}, "docs")
    git(repo, "checkout", "-q", "-")
    main = git(repo, "rev-parse", "--abbrev-ref", "HEAD")
    commit(repo, {"server.py": FIX_ONE_BREAK_ONE.replace("except Exception:", "except KeyError:")}, "fix on main")
    doc, code = delta(repo, main, "feature")
    assert (doc["introduced"], doc["resolved"], code) == ([], [], 0)
    assert (doc["base"]["sha"], doc["base"]["ref"]) == (start, f"{main}...feature")
    tip, tip_code = delta(repo, main, "feature", "--base-tip")
    assert rules(tip["introduced"]) and tip_code == 1


def test_text_from_the_scanned_code_never_renders_in_the_comment(repo):
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, {"server.py": SERVER + '\n\n@mcp.tool()\ndef notes_img():\n'
                                        '    return {"<img src=x onerror=alert(1)>": 1, "__init__": 2}\n'},
           "a hostile key")
    text = card(repo, "--base", base).stdout
    assert "returns a raw dict \\(\\{&lt;img src=x onerror=alert\\(1\\)&gt;, \\_\\_init\\_\\_\\}\\)" in text
    assert "<img" not in text


def test_a_linked_path_with_html_or_spaces_is_one_link_and_never_renders(repo):
    """The action always links findings (GITHUB_REPOSITORY): the path in the link's target is percent-encoded, so a
    space or `<img …>` in a folder name neither ends the link nor becomes HTML."""
    base = git(repo, "rev-parse", "HEAD")
    hostile = "<img src=x onerror=alert(1)> dir/m.py"
    commit(repo, {hostile: 'def f(rb: ReplyBuilder):\n    return rb.info("WA-READ-S-001", {})\n'}, "a hostile path")
    text = card(repo, "--base", base, "--repo-url", "https://github.com/o/r").stdout
    sha = git(repo, "rev-parse", "HEAD")
    target = f"(https://github.com/o/r/blob/{sha}/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E%20dir/m.py#L2)"
    assert target in text
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    assert "<img" not in html
    assert html.count(f'href="https://github.com/o/r/blob/{sha}/%3Cimg') == 4   # RA203 and RA204, introduced and at head


def test_the_hook_fails_only_on_what_the_change_introduces(repo, tmp_path, monkeypatch):
    """A finding already at HEAD does not fail a commit that only touches a comment; a new one does (and only it
    is reported; --all reports both); a file outside --root is not the hook's business."""
    monkeypatch.chdir(repo)
    (tmp_path / "elsewhere.md").write_text("notes\n")
    commit(repo, {"other.py": 'def f(rb: ReplyBuilder):\n    rb.invalid("WA-RES-I-001", {})\n'}, "old finding")
    write_tree(repo, {"other.py": '# a comment\ndef f(rb: ReplyBuilder):\n    rb.invalid("WA-RES-I-001", {})\n'})
    comment_only = RUNNER.invoke(app, ["hook", "--root", str(repo), str(repo / "other.py"),
                                       str(tmp_path / "elsewhere.md")])
    assert (comment_only.exit_code, comment_only.stdout) == (0, "")
    write_tree(repo, {"other.py": '# a comment\ndef f(rb: ReplyBuilder):\n    rb.invalid("WA-RES-I-001", {})\n\n\n'
                                  'def g(rb: ReplyBuilder):\n    rb.denied("EN-WRITE-D-001", {})\n'})
    new = RUNNER.invoke(app, ["hook", "--root", str(repo), str(repo / "other.py")])
    assert new.exit_code == 1
    assert new.stdout.splitlines() == [
        "other.py:7:5: RA303 [high] [*] terminal rb.denied() is not returned",
        "1 finding(s) in 1 file(s); 1 fixable with `reply-audit migrate`"]
    every = RUNNER.invoke(app, ["hook", "--all", "--root", str(repo), str(repo / "other.py")])
    assert [line.split(": ")[0] for line in every.stdout.splitlines()[:-1]] == ["other.py:3:5", "other.py:7:5"]
