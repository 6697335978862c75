"""The command line: formats, determinism, exit codes and one-line errors."""

from __future__ import annotations

import json

import pytest

from reply_audit import __version__
from reply_audit.cli import app
from support import CliRunner, write_tree

runner = CliRunner()

TREE = {
    "pkg/codes.py": '''
        class Codes:
            WA_RES_I_001 = ReplyCode("WA-RES-I-001")
            MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001")
    ''',
    "pkg/server.py": '''
        @mcp_safe_tool
        def tool(rb: ReplyBuilder):
            return rb.invalid("WA-RES-I-001", {})
    ''',
    "pkg/builder.py": '''
        class ReplyBuilder:
            def success(self, code, data=None): ...
            def invalid(self, code, data=None): ...
    ''',
}


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"reply-audit {__version__}\n"
    for args in (["--version", "scan"], ["--version", "bogus"], ["--", "--version"]):   # it wins, as it always did
        assert (runner.invoke(app, args).exit_code, runner.invoke(app, args).output) == (0, result.output), args


def test_a_group_names_its_commands_and_suggests_one():
    for args, message in ((["profile", "shwo"], "no such command 'shwo'; did you mean 'show'? "
                                                "(see `reply-audit profile --help`)"),
                          (["cache", "bogus"], "no such command 'bogus' (see `reply-audit cache --help`)")):
        done = runner.invoke(app, args)
        assert (done.exit_code, done.stderr) == (2, f"reply-audit: error: {message}\n"), args
    alone = runner.invoke(app, ["profile"])
    assert alone.exit_code == 2 and alone.stdout.startswith("usage: reply-audit profile [-h] COMMAND ...")


def test_an_ascii_locale_or_a_closed_stdout_costs_no_output_and_no_traceback(tmp_path):
    """Text is written as UTF-8 whatever the locale (a rule page, a path with accents); a closed stdout is
    silently skipped, as before."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    page = subprocess.run([sys.executable, "-m", "reply_audit", "rules", "RA101", "-f", "md"], capture_output=True,
                          env=env, timeout=120)
    assert (page.returncode, page.stderr) == (0, b"") and "enforces: spec 000 §6".encode() in page.stdout
    ascii_out = {**os.environ, "PYTHONIOENCODING": "ascii"}
    missing = subprocess.run([sys.executable, "-m", "reply_audit", "scan", str(tmp_path / "nonexïst")],
                             capture_output=True, env=ascii_out, timeout=120)
    assert (missing.returncode, missing.stderr.decode("utf-8")) == (
        2, f"reply-audit: error: path '{tmp_path / 'nonexïst'}' does not exist\n")
    closed = subprocess.run(f"{sys.executable} -m reply_audit --version >&-", shell=True, capture_output=True,
                            timeout=120)
    assert (closed.returncode, closed.stderr) == (0, b"")


def test_help_on_every_command():
    for args in (["--help"], ["scan", "--help"], ["profile", "--help"], ["profile", "show", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, args
        assert result.output.startswith(f"usage: reply-audit {' '.join(args[:-1])}".rstrip() + " [-h]")


def test_json_is_deterministic_and_versioned(tmp_path):
    root = write_tree(tmp_path / "repo", TREE)
    first = runner.invoke(app, ["scan", str(root), "--format", "json"])
    second = runner.invoke(app, ["scan", str(root), "--format", "json"])
    assert first.exit_code == 0
    assert first.output == second.output
    doc = json.loads(first.output)
    for key in ("schema", "profile", "files", "registries", "mappings", "legacy_codes", "builders", "calls",
                "handlers", "findings"):
        assert key in doc
    assert doc["schema"] == "reply-audit/1"
    assert [(f["rule"], f["path"], f["line"]) for f in doc["findings"]] == [
        ("RA501", ".pre-commit-config.yaml", 0),
        ("RA205", "pkg/builder.py", 2),
        ("RA206", "pkg/builder.py", 2),
    ]
    assert [(c["path"], c["line"], c["method"], c["code"], c["builder"]) for c in doc["calls"]] == [
        ("pkg/server.py", 4, "invalid", "WA-RES-I-001", "pkg/builder.py::ReplyBuilder")]
    assert doc["registries"][0]["coverage"]["WA"] == {"S": 0, "I": 1, "D": 0, "E": 0}


def test_out_file_and_markdown_sections(tmp_path):
    root = write_tree(tmp_path / "repo", TREE)
    out = tmp_path / "reports" / "inventory.md"
    result = runner.invoke(app, ["scan", str(root), "--format", "md", "--out", str(out)])
    assert result.exit_code == 0 and result.output == ""
    text = out.read_text()
    for heading in ("## 1. Wire shape", "## 2. Registries", "### Layer × type coverage — Codes (canonical)",
                    "### Migration gaps", "### Runtime import status", "## 3. Behavioural invariants",
                    "### 3.1 Exception handlers", "### 3.2 Return discipline", "## 4. Builder enforcement",
                    "## 5. Findings summary", "## 6. Compliance scorecard", "## 7. Execution plan"):
        assert heading in text, heading
    assert "| WA      |   0 |   1 |   0 |   0 |       1 |" in text


def test_table_format(tmp_path):
    root = write_tree(tmp_path / "repo", TREE)
    result = runner.invoke(app, ["scan", str(root)])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "Found 3 findings (3 medium) in 3 files."
    verbose = runner.invoke(app, ["scan", str(root), "--verbose"])   # the inventory: registries, builders...
    assert "pkg/codes.py:2" in verbose.stdout and verbose.stdout.startswith("reply-audit ")
    assert "· profile canonical ·" in verbose.stdout.splitlines()[0]


def test_errors_are_one_line_with_exit_2(tmp_path):
    missing = runner.invoke(app, ["scan", str(tmp_path / "nope")])
    assert missing.exit_code == 2
    assert missing.output.strip().splitlines() == [f"reply-audit: error: path '{tmp_path / 'nope'}' does not exist"]
    bad_profile = runner.invoke(app, ["scan", str(tmp_path), "--profile", "nope"])
    assert bad_profile.exit_code == 2 and "unknown profile 'nope'" in bad_profile.output
    assert "Traceback" not in bad_profile.output
    bad_mapping = runner.invoke(app, ["scan", str(tmp_path), "--mapping", str(tmp_path / "m.toml")])
    assert bad_mapping.exit_code == 2 and "does not exist" in bad_mapping.output
    (tmp_path / "pyproject.toml").write_text("[tool.reply-audit]\nbogus = 1\n")
    bad_config = runner.invoke(app, ["scan", str(tmp_path)])
    assert bad_config.exit_code == 2 and "unknown key 'bogus'" in bad_config.output


def test_profile_show_prints_effective_toml(tmp_path):
    import tomllib

    (tmp_path / "pyproject.toml").write_text('[tool.reply-audit.handlers]\ndecorators = ["server.tool"]\n')
    result = runner.invoke(app, ["profile", "show", "--path", str(tmp_path)])
    assert result.exit_code == 0
    header, _, body = result.output.partition("\n")
    assert header.startswith("# profile canonical from canonical + ")
    data = tomllib.loads(body)
    assert data["handlers"]["decorators"] == ["server.tool"]
    assert data["layers"]["EN"]["forbidden"] == ["I"]
    listed = runner.invoke(app, ["profile", "list"])
    assert listed.exit_code == 0 and listed.output.startswith("canonical\t")


def test_a_scan_imports_neither_pandas_nor_libcst(tmp_path):
    """A scan marks fixable findings from the facts: libcst (a second to import) is for rewriting, pandas for the
    Markdown coverage table and history. The example has fixable findings, so the planner runs."""
    import subprocess
    import sys

    from support import REPO

    root = REPO / "examples" / "legacy_mcp"
    code = ("import sys; from reply_audit.cli import app; "
            f"code = app(['scan', {str(root)!r}, '--format', 'json', '--no-cache', '--fail-on', 'none', "
            f"'--out', {str(tmp_path / 'o.json')!r}])\n"
            "print(code, 'pandas' in sys.modules, 'libcst' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "False", "False"]
    assert any(f["fixable"] for f in json.loads((tmp_path / "o.json").read_text())["findings"])


# ---------------------------------------------------------------------------- files not (fully) read
def test_every_format_shows_unparseable_and_partly_read_files(tmp_path):
    """A file no parser reads and a class that loses one method on this Python (libcst reads it): table, JSON,
    Markdown, SARIF (tool execution notifications), GitHub annotations and CSV each say so, with the line."""
    import csv
    import io
    import sys

    write_tree(tmp_path, {"broken.py": "def f(:\n    pass\n",
                          "newer.py": 'class A:\n    def ok(self):\n        return 1\n\n'
                                      '    def new(self, x):\n        return f"{x + "!"}"\n'
                                      if sys.version_info < (3, 12) else 'x = (1 +\n'})
    partly = sys.version_info < (3, 12)
    lost = "lines 5-6 (A.new) not read, this Python rejects line 6: f-string: expecting '}'"

    def out(fmt: str) -> str:
        done = runner.invoke(app, ["scan", str(tmp_path), "--format", fmt, "--fail-on", "none", "--no-cache"])
        assert done.exit_code == 0, done.output
        return done.stdout

    assert "broken.py:1: invalid syntax" in out("table")
    doc = json.loads(out("json"))
    assert (doc["files"]["unparseable"][0]["path"], doc["files"]["unparseable"][0]["line"]) == ("broken.py", 1)
    md = out("md")
    assert "| `broken.py:1` | invalid syntax |" in md
    sarif = json.loads(out("sarif"))
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notes[0] == {"level": "warning", "descriptor": {"id": "unparseable"},
                        "message": {"text": "not read, nothing in this file was checked: invalid syntax"},
                        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "broken.py", "uriBaseId": "SRCROOT"},
                                                            "region": {"startLine": 1, "startColumn": 7}}}]}
    github = out("github")
    assert "::warning file=broken.py,line=1,col=7,title=reply-audit unparseable::not read, nothing in this file " \
           "was checked: invalid syntax" in github
    rows = [r for r in csv.DictReader(io.StringIO(out("csv"))) if not r["rule"]]   # after the findings
    assert (rows[0]["name"], rows[0]["path"], rows[0]["line"], rows[0]["message"]) == (
        "unparseable", "broken.py", "1", "not read, nothing in this file was checked: invalid syntax")
    if partly:
        assert f"newer.py:6: {lost}" in out("table")
        assert f"| `newer.py:6` | {lost} |" in md
        assert notes[1]["descriptor"] == {"id": "partly-read"} and notes[1]["message"]["text"] == \
            f"read only in part: {lost}"
        assert f"::warning file=newer.py,line=6,col=24,title=reply-audit partly-read::read only in part: " \
               f"{lost}" in github
        assert (rows[1]["name"], rows[1]["line"], rows[1]["message"]) == ("partly-read", "6",
                                                                          f"read only in part: {lost}")


def test_help_loses_no_word_to_markup():
    """Help text is plain text: `[default: …]` and `[tool.reply-audit]` stay as written."""
    from reply_audit.cli import app as _app
    from support import CliRunner as _Runner

    scan_help = " ".join(_Runner().invoke(_app, ["scan", "--help"]).output.split())
    assert "severity remains (the profile's own level, when it sets one). [default: high]" in scan_help
    assert "[default: one per CPU, for large trees]" in scan_help
    init_help = " ".join(_Runner().invoke(_app, ["init", "--help"]).output.split())
    assert "Propose a starter [tool.reply-audit] section" in init_help
    hook_help = " ".join(_Runner().invoke(_app, ["hook", "--help"]).output.split())
    assert "[default: the profile's]" in hook_help


def test_a_subfolder_or_one_file_is_scanned_with_the_repository_config(tmp_path):
    """The closest pyproject.toml with a [tool.reply-audit] section up to the repository root counts, as ruff
    finds its config; above the repository root nothing does."""
    import json as _json

    from reply_audit.cli import app as _app
    from support import CliRunner as _Runner
    from support import write_tree

    root = tmp_path / "outer" / "repo"
    write_tree(root, {"src/pkg/tools.py": "@custom_tool\ndef run(q):\n    return {\"error\": \"no\"}\n",
                      "pyproject.toml": '[project]\nname = "x"\n[tool.reply-audit.handlers]\n'
                                        'decorators = ["custom_tool"]\nsafety-decorator = ""\n'})
    (root / ".git").mkdir()
    (tmp_path / "outer" / "pyproject.toml").write_text('[tool.reply-audit]\nprofile = "iar"\n')

    def rules(target):
        result = _Runner().invoke(_app, ["scan", str(target), "--format", "json", "--fail-on", "none",
                                         "--no-cache"])
        assert result.exit_code == 0, result.output
        return sorted({f["rule"] for f in _json.loads(result.stdout)["findings"]} - {"RA501"})

    assert rules(root) == rules(root / "src") == rules(root / "src" / "pkg" / "tools.py") == ["RA306"]
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')   # no section: the search stops at .git
    assert rules(root / "src") == []


def test_config_names_the_settings_file_and_profile_show_says_where_each_value_came_from(tmp_path):
    write_tree(tmp_path, {"src/tools.py": "@custom_tool\ndef run(q):\n    return {\"error\": \"no\"}\n",
                          "pyproject.toml": '[tool.reply-audit.rules]\nfail-on = "critical"\n',
                          "ci/reply-audit.toml": '[handlers]\ndecorators = ["custom_tool"]\nsafety-decorator = ""\n'
                                                 '[scan]\nextend-exclude = ["gen"]\n',
                          "ci/pyproject.toml": '[project]\nname = "x"\n'})

    def rules(*extra):
        result = runner.invoke(app, ["scan", str(tmp_path / "src"), "--format", "json", "--fail-on", "none",
                                     "--no-cache", *extra])
        assert result.exit_code == 0, result.output
        return sorted({f["rule"] for f in json.loads(result.stdout)["findings"]} - {"RA501"})

    assert rules() == []
    assert rules("--config", str(tmp_path / "ci" / "reply-audit.toml")) == ["RA306"]
    shown = runner.invoke(app, ["profile", "show", "--path", str(tmp_path)])
    assert shown.exit_code == 0
    config = tmp_path / "pyproject.toml"
    assert [line for line in shown.stdout.splitlines() if "  # from " in line] == [f'fail-on = "critical"  # from {config}']
    other = tmp_path / "ci" / "reply-audit.toml"
    shown = runner.invoke(app, ["profile", "show", "--config", str(other)])
    assert [line for line in shown.stdout.splitlines() if "  # from " in line] == [
        f'decorators = [  # from {other}', f'safety-decorator = ""  # from {other}',
        f'exclude = [  # from {other} (extended)']
    for name, message in (("nope.toml", "does not exist"), ("ci/pyproject.toml", "has no [tool.reply-audit] table")):
        refused = runner.invoke(app, ["scan", str(tmp_path / "src"), "--config", str(tmp_path / name)])
        assert (refused.exit_code, refused.output) == (
            2, f"reply-audit: error: --config {str(tmp_path / name)!r} {message}\n")


def test_gitignored_files_are_not_scanned_and_an_empty_folder_is_an_error(tmp_path):
    import subprocess as _sp

    from reply_audit.cli import app as _app
    from support import CliRunner as _Runner
    from support import write_tree

    handler = '@mcp.tool()\ndef run(q):\n    return {"error": "no"}\n'
    write_tree(tmp_path / "repo", {"src/tools.py": handler, "generated/tools.py": handler, "scratch.py": handler,
                                   ".gitignore": "generated/\nscratch.py\n"})
    _sp.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    result = _Runner().invoke(_app, ["scan", str(tmp_path / "repo"), "--format", "csv", "--fail-on", "none",
                                     "--no-cache"])
    assert result.exit_code == 0, result.output
    assert {line.split(",")[4] for line in result.stdout.splitlines()[1:]} == {".pre-commit-config.yaml",
                                                                                "src/tools.py"}
    (tmp_path / "empty").mkdir()
    empty = _Runner().invoke(_app, ["scan", str(tmp_path / "empty")])
    assert empty.exit_code == 2
    assert empty.output.strip().splitlines()[-1].startswith("reply-audit: error: no Python files in ")


def test_exclude_extend_exclude_and_force_exclude(tmp_path):
    handler = '@mcp.tool()\ndef run(q):\n    return {"error": "no"}\n'
    write_tree(tmp_path, {"src/tools.py": handler, "gen/tools.py": handler, "legacy/old.py": handler})

    def paths(*extra, target=tmp_path):
        result = runner.invoke(app, ["scan", str(target), "--format", "csv", "--fail-on", "none", "--no-cache",
                                     *extra])
        assert result.exit_code == 0, result.output
        return sorted({line.split(",")[4] for line in result.stdout.splitlines()[1:]} - {".pre-commit-config.yaml"})

    assert paths() == ["gen/tools.py", "legacy/old.py", "src/tools.py"]
    assert paths("--extend-exclude", "gen,legacy/*.py") == ["src/tools.py"]
    assert paths("--exclude", "src", "--exclude", "gen") == ["legacy/old.py"]   # replaces the profile's
    shown = runner.invoke(app, ["scan", str(tmp_path / "gen"), "--exclude", "gen", "--format", "csv", "--no-cache",
                                "--fail-on", "none"])
    assert shown.exit_code == 0   # a folder named as PATH is scanned: the excludes apply below it
    one = tmp_path / "gen" / "tools.py"
    assert paths("--extend-exclude", "gen", target=one) == ["tools.py"]   # named on the command line: scanned
    forced = runner.invoke(app, ["scan", str(one), "--extend-exclude", "gen", "--force-exclude"])
    assert (forced.exit_code, forced.stdout, forced.stderr) == (
        0, "", f"reply-audit: {one.as_posix()} is excluded (--force-exclude): nothing to check\n")


def test_force_exclude_honours_a_gitignored_folder(tmp_path):
    """A file inside a folder that a .gitignore names is left out with --force-exclude (git check-ignore decides),
    as a gitignored file pattern is; without the flag, a file named on the command line is scanned."""
    import subprocess as _sp

    write_tree(tmp_path, {".gitignore": "scratch/\n*_gen.py\n", "scratch/broken.py": "def (:\n",
                          "src/tools_gen.py": "x = 1\n", "src/tools.py": "x = 1\n"})
    _sp.run(["git", "-C", str(tmp_path), "init", "-q"], check=True)
    for rel in ("scratch/broken.py", "src/tools_gen.py"):
        forced = runner.invoke(app, ["scan", str(tmp_path / rel), "--force-exclude", "--no-cache"])
        assert (forced.exit_code, forced.stdout) == (0, ""), rel
        assert "is excluded (--force-exclude)" in forced.stderr
    kept = runner.invoke(app, ["scan", str(tmp_path / "src/tools.py"), "--force-exclude", "--no-cache",
                               "--fail-on", "none"])
    assert kept.exit_code == 0 and "is excluded" not in kept.stderr
    named = runner.invoke(app, ["scan", str(tmp_path / "scratch/broken.py"), "--no-cache", "--fail-on", "none",
                                "-f", "csv"])
    assert "unparseable" in named.stdout


def test_the_terminal_report_puts_findings_first(tmp_path, monkeypatch):
    write_tree(tmp_path, {**TREE, "pkg/extra.py": "def f(rb: ReplyBuilder):\n    rb.invalid(\"WA-RES-I-001\", {})\n",
                          "pkg/broken.py": "def (:\n"})

    def scan(*extra):
        result = runner.invoke(app, ["scan", ".", "--fail-on", "none", "--no-cache", *extra])
        assert result.exit_code == 0, result.output
        return result.stdout

    monkeypatch.chdir(tmp_path)
    lines = [".pre-commit-config.yaml:0:1: RA501 [medium] no pre-commit configuration, so no reply-code guard",
             "pkg/builder.py:2:1: RA205 [medium] ReplyBuilder does not freeze after a terminal reply",
             "pkg/builder.py:2:1: RA206 [medium] ReplyBuilder does not validate layer ownership",
             "pkg/extra.py:2:5: RA303 [high] [*] terminal rb.invalid() is not returned"]
    assert scan() == "\n".join([
        *lines, "",
        "Found 4 findings (1 high, 3 medium) in 5 files, 1 of them unparseable (not checked). [*] 1 fixable with "
        "`reply-audit migrate` (see the diff first; --apply writes).", "",
        "unparseable (not checked):", "  pkg/broken.py:1: invalid syntax", ""])
    assert scan("--quiet") == "\n".join([*lines, "pkg/broken.py:1: unparseable: invalid syntax", ""])
    assert scan("--statistics").splitlines()[:5] == [
        "  count  rule    severity      fixable  name",
        "      1  RA205   medium                 builder-not-frozen",
        "      1  RA206   medium                 builder-no-layer-validation",
        "      1  RA303   high                1  terminal-not-returned",
        "      1  RA501   medium                 no-precommit-guard"]
    verbose = scan("--verbose").splitlines()
    assert verbose[0].startswith("reply-audit ") and verbose.index(lines[0]) > 10
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert scan("-q").splitlines()[3] == ("\x1b[1mpkg/extra.py:2:5:\x1b[0m \x1b[31mRA303\x1b[0m [high] \x1b[32m[*] "
                                          "\x1b[0mterminal rb.invalid() is not returned")
    monkeypatch.setenv("NO_COLOR", "1")
    assert scan("-q").splitlines()[3] == lines[3]
    both = runner.invoke(app, ["scan", str(tmp_path), "-q", "--statistics"])
    assert (both.exit_code, both.stderr) == (2, "reply-audit: error: --statistics, --verbose and --quiet exclude "
                                                "each other\n")


def test_terminal_paths_exist_from_the_working_directory(tmp_path, monkeypatch):
    """As ruff prints them: a subfolder or one file scanned from above shows paths from the working directory; a
    tree outside it shows absolute paths."""
    write_tree(tmp_path, {**TREE, "pkg/extra.py": "def f(rb: ReplyBuilder):\n    rb.invalid(\"WA-RES-I-001\", {})\n"})
    monkeypatch.chdir(tmp_path)

    def last(*args):
        result = runner.invoke(app, ["scan", *args, "--fail-on", "none", "--no-cache", "-q", "--select", "RA303"])
        return result.stdout.splitlines()

    line = ":2:5: RA303 [high] [*] terminal rb.invalid() is not returned"
    assert last("pkg") == ["pkg/extra.py" + line]
    assert last("pkg/extra.py") == ["pkg/extra.py" + line]
    monkeypatch.chdir(tmp_path / "pkg")
    assert last("extra.py") == ["extra.py" + line]
    assert last(str(tmp_path)) == [f"{tmp_path.resolve().as_posix()}/pkg/extra.py" + line]   # above: absolute
    monkeypatch.chdir(tmp_path.parent)
    assert last(tmp_path.name) == [f"{tmp_path.name}/pkg/extra.py" + line]


def test_a_subfolder_scan_names_paths_that_exist_from_the_repository_root(tmp_path):
    import json as _json
    import shutil as _shutil
    import subprocess as _sp

    from reply_audit.cli import app as _app
    from support import EXAMPLE
    from support import CliRunner as _Runner

    repo = tmp_path / "repo"
    _shutil.copytree(EXAMPLE, repo / "services" / "notes", ignore=_shutil.ignore_patterns(".reply-audit-cache"))
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    _sp.run(["git", "init", "-q", str(repo)], check=True)
    _sp.run(["git", "-C", str(repo), "add", "-A"], check=True)
    _sp.run(["git", "-C", str(repo), "commit", "-qm", "x"], check=True, env=env)
    sub = repo / "services" / "notes"
    github = _Runner().invoke(_app, ["scan", str(sub), "-f", "github", "--fail-on", "none", "--no-cache"]).stdout
    files = {line.split("file=")[1].split(",")[0] for line in github.splitlines() if "file=" in line}
    assert files and all((repo / f).exists() for f in files if not f.endswith("pre-commit-config.yaml"))
    sarif = _json.loads(_Runner().invoke(_app, ["scan", str(sub), "-f", "sarif", "--fail-on", "none",
                                                "--no-cache"]).stdout)
    run = sarif["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.resolve().as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert all(u.startswith("services/notes/") for u in uris)
    diff = tmp_path / "m.diff"
    assert _Runner().invoke(_app, ["migrate", str(sub), "--out", str(diff)]).exit_code == 0
    check = _sp.run(["git", "-C", str(repo), "apply", "--check", str(diff)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    # the repository's pre-commit file counts for a scan of one of its folders: no false RA501
    (repo / ".pre-commit-config.yaml").write_text("repos:\n  - repo: local\n    hooks:\n      - id: reply-audit\n")
    csv_out = _Runner().invoke(_app, ["scan", str(sub), "-f", "csv", "--fail-on", "none", "--no-cache"]).stdout
    assert "RA501" not in csv_out


def test_the_progress_bar_waits_a_second_and_only_on_a_terminal(monkeypatch):
    import sys

    from reply_audit.console import Progress

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    quick = Progress()
    with quick as update:
        update("parsing", 1, 10)
    assert quick.bar is None   # under a second: nothing drawn
    monkeypatch.setattr(Progress, "DELAY", 0.0)
    slow = Progress()
    with slow as update:
        update("parsing", 1, 10)
        update("parsing", 2, 10)
        assert slow.bar is not None and slow.bar.tasks[0].completed == 2
    monkeypatch.setenv("CI", "true")
    logged = Progress()
    with logged as update:
        update("parsing", 1, 10)
    assert logged.bar is None   # a CI log gets no bar


def test_every_help_names_values_readably(monkeypatch):
    """Metavars say what goes there (FILE, DIR, RULES, N, REV) or list the choices; no Python type shows."""
    import re

    monkeypatch.setenv("COLUMNS", "80")   # help wraps at the terminal's width

    commands = [["scan"], ["migrate"], ["hook"], ["scorecard"], ["history"], ["merge"], ["init"], ["rules"],
                ["codemods"], ["cache", "clear"], ["profile", "show"]]
    for command in commands:
        text = runner.invoke(app, [*command, "--help"]).stdout
        assert re.findall(r"<(?![a-z]+(?:\|[a-z]+)+>)[^>]*>", text) == [], command   # only <a|b|c> choices
    scan_help = runner.invoke(app, ["scan", "--help"]).stdout
    assert scan_help.startswith("usage: reply-audit scan [-h] [--format {table,json,md,sarif,github,csv}]")
    assert "[--statistics] [--verbose] [--quiet]\n                        PATH\n" in scan_help
    for shown in ("--out FILE", "--profile NAME|FILE", "--select RULES", "--jobs N", "--cache-dir DIR",
                  "--exclude PATTERN", "--config FILE"):
        assert shown in scan_help, shown
    assert "[--config FILE]\n                        [FILE ...]\n" in runner.invoke(app, ["hook", "--help"]).stdout


def test_the_changelog_the_package_and_the_pinned_docs_agree_on_the_version():
    import re

    from support import REPO

    project = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M).group(1)
    newest = re.search(r"^## (\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)$", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert project == __version__ == newest.group(1)
    for doc in ("README.md", "docs/ci.md"):
        pins = set(re.findall(r"(?:rev: |reply-audit@)v(\d+\.\d+\.\d+)", (REPO / doc).read_text()))
        assert pins == {project}, doc


def test_the_python_api_gives_what_the_command_line_prints(tmp_path):
    """`reply_audit.api` is the command line's work: the audit it returns renders the very report `scan` prints,
    with the same exit code, and its findings are the report's."""
    import json as _json

    from reply_audit import api

    write_tree(tmp_path, {**TREE, "pkg/extra.py": "def f(rb: ReplyBuilder):\n    rb.invalid(\"WA-RES-I-001\", {})\n"})
    printed = runner.invoke(app, ["scan", str(tmp_path), "-f", "json", "--no-cache"])
    audit = api.audit(tmp_path, no_cache=True)
    assert api.render(audit, "json") == printed.stdout
    assert audit.exit_code == printed.exit_code == 1
    assert [(f.path, f.line, f.rule) for f in audit.evaluation.findings] == [
        (f["path"], f["line"], f["rule"]) for f in _json.loads(printed.stdout)["findings"]]
    assert [f.fixable for f in audit.evaluation.findings if f.rule == "RA303"] == [True]
    result = api.scan(tmp_path)
    assert [f.rule for f in api.evaluate(result, select=["RA303"]).findings] == ["RA303"]


END_NOW = """
import atexit, sys, threading
from reply_audit import ending

class Freed:
    def __del__(self):
        sys.stdout.write("freed\\n")

kept = Freed()
atexit.register(lambda: sys.stdout.write("exit handler\\n"))
if sys.argv[1] == "thread":
    busy = threading.Event()
    worker = threading.Thread(target=busy.wait, args=(20,))   # (never left waiting long)
    worker.start()
    ending.end_now(3)
    sys.stdout.write("went on\\n")
    busy.set()
else:
    sys.stdout.write("report")   # (not flushed yet)
    ending.end_now(int(sys.argv[1]))
    sys.stdout.write("went on\\n")
"""


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(("how", "code", "printed"), [
    ("3", 3, "reportexit handler\n"),         # ended: flushed, handlers run, nothing freed, nothing after it
    ("0", 0, "reportexit handler\n"),
    ("thread", 0, "went on\nexit handler\nfreed\n"),   # a thread still runs: Python's own exit, later
])
def test_end_now_flushes_runs_the_exit_handlers_and_frees_nothing(how, code, printed, unbuffered):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", END_NOW, how], capture_output=True, text=True, timeout=60,
                          env=_environment(unbuffered))
    assert (done.returncode, done.stdout, done.stderr) == (code, printed, "")


def test_end_now_leaves_a_profiled_or_traced_process_to_pythons_own_exit(monkeypatch):
    """A profiler (`python -m cProfile -m reply_audit`) or a tracer (coverage, a debugger) writes its results
    at the exit: the process is not ended under it."""
    import os
    import sys

    from reply_audit import ending

    monkeypatch.setattr(os, "_exit", lambda code: pytest.fail("ended at once"))
    for install in (sys.setprofile, sys.settrace):
        before = sys.getprofile() if install is sys.setprofile else sys.gettrace()
        install(lambda *args: None)
        try:
            assert ending.end_now(0) is None
        finally:
            install(before)


def _environment(unbuffered: bool) -> dict[str, str]:
    """The test process's environment, with or without PYTHONUNBUFFERED (the streams' writes differ)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return env | {"PYTHONUNBUFFERED": "1"} if unbuffered else env


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", [["scan", "-f", "json"], ["scan"], ["rules"]])
def test_a_reader_that_stops_reading_ends_the_command_quietly_with_141(tmp_path, command, unbuffered):
    """`reply-audit scan . | head`: the rest of the report goes nowhere, with no traceback, and the exit code
    is a command's that SIGPIPE ended (128 + 13)."""
    import os
    import subprocess
    import sys

    write_tree(tmp_path, TREE)
    where = [str(tmp_path), "--no-cache"] if command[0] == "scan" else []
    run = [sys.executable, "-m", "reply_audit", *command, *where]
    read, write = os.pipe()
    os.close(read)   # the reader is gone before the first byte
    try:
        done = subprocess.run(run, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120,
                              env=_environment(unbuffered))
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_reader_that_stops_reading_in_the_middle_ends_the_command_with_141(tmp_path, unbuffered):
    """The reader goes after ten bytes of a report longer than the pipe holds: unbuffered, a write then takes
    only part of the report, and the next one meets the closed pipe."""
    import fcntl
    import os
    import subprocess
    import sys

    write_tree(tmp_path, {**TREE, **{f"pkg/more_{n}.py": TREE["pkg/server.py"] for n in range(40)}})
    run = [sys.executable, "-m", "reply_audit", "scan", str(tmp_path), "-f", "json", "--no-cache"]
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)   # (a pipe smaller than the output: the writer waits on it)
    reading = subprocess.Popen(run, stdout=write, stderr=subprocess.PIPE, env=_environment(unbuffered))
    os.close(write)
    assert len(os.read(read, 10)) == 10
    os.close(read)   # the reader goes after ten bytes
    assert reading.stderr is not None
    assert (reading.wait(timeout=120), reading.stderr.read()) == (141, b"")


def test_an_output_that_is_no_regular_file_is_written_to_and_a_link_is_kept(tmp_path):
    """`-o` onto a device or a named pipe writes to it, never replacing it with a file (as root, `-o
    /dev/null` replaced the device); onto a symbolic link it replaces the file the link names."""
    import os
    import stat
    import threading

    write_tree(tmp_path / "tree", TREE)
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = runner.invoke(app, ["scan", str(tmp_path / "tree"), "-f", "json", "--no-cache", "-o", str(fifo)])
    reader.join(timeout=60)
    printed = runner.invoke(app, ["scan", str(tmp_path / "tree"), "-f", "json", "--no-cache"])
    assert done.exit_code == printed.exit_code
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received == [printed.stdout.encode("utf-8")]
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old", encoding="utf-8")
    link.symlink_to(target)
    runner.invoke(app, ["scan", str(tmp_path / "tree"), "-f", "json", "--no-cache", "-o", str(link)])
    assert link.is_symlink() and target.read_text(encoding="utf-8") == printed.stdout


def test_a_broken_pipe_that_is_not_standard_output_is_no_closed_reader(tmp_path, monkeypatch):
    """Only the console's writer says the reader stopped reading: a broken pipe to another process (a helper,
    git) is not hidden behind a quiet 141."""
    from reply_audit import api

    def broken(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    write_tree(tmp_path, TREE)
    monkeypatch.setattr(api, "report", broken)
    with pytest.raises(BrokenPipeError):
        app(["scan", str(tmp_path), "--no-cache"])


@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
@pytest.mark.parametrize("command", ["scan", "migrate"])
def test_a_command_started_with_a_standard_stream_closed_runs_as_it_would(tmp_path, command, closed):
    """`reply-audit scan . >&-` or `2>&-`: nothing is written to the closed stream, the other gets what it
    would, and the exit code is the command's own."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    tree = tmp_path / "tree"
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "legacy_mcp", tree)
    run = [sys.executable, "-m", "reply_audit", command, str(tree), *(["--no-cache"] if command == "scan" else [])]
    usual = subprocess.run(run, capture_output=True, timeout=120)
    done = subprocess.run(run, capture_output=True, timeout=120, preexec_fn=lambda: os.close(closed))
    kept = usual.stderr if closed == 1 else usual.stdout
    assert (done.returncode, done.stderr if closed == 1 else done.stdout) == (usual.returncode, kept)
    assert usual.stdout   # (findings, a diff: what the closed stdout would have shown)


def test_end_now_leaves_a_failed_flush_to_pythons_own_exit(monkeypatch):
    """A reader that stopped reading (a closed pipe): end_now returns, and the usual exit reports it."""
    import os
    import sys

    from reply_audit import ending

    class Closed:
        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    monkeypatch.setattr(os, "_exit", lambda code: pytest.fail("ended at once"))
    assert ending.end_now(0) is None


def test_a_scan_process_runs_without_the_cyclic_collector_and_a_longer_command_with_it(monkeypatch):
    """`scan` and `hook` end the process after one scan, whose objects hold no reference cycle: the collector
    is turned off for them; `migrate`, `history` and the rest keep it. Every command's process ends at once
    when the command returns (`end_now`)."""
    import gc
    import sys

    import pytest

    from reply_audit import cli

    turned_off, ended = [], []
    monkeypatch.setattr(gc, "disable", lambda: turned_off.append(True))
    monkeypatch.setattr(cli, "app", lambda argv=None: 0)
    monkeypatch.setattr(cli, "end_now", ended.append)   # (the real one would end the test's process)
    for argv, off in ((["scan", "."], True), (["hook", "a.py"], True), (["migrate", "."], False),
                      (["history", "."], False), (["--version"], False), ([], False)):
        turned_off.clear()
        ended.clear()
        monkeypatch.setattr(sys, "argv", ["reply-audit", *argv])
        with pytest.raises(SystemExit) as done:
            cli.main()
        assert (done.value.code, bool(turned_off), ended) == (0, off, [0]), argv
