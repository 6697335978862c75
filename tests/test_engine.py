"""Running rules: exit codes, selection, suppression comments, baselines and the output formats."""

from __future__ import annotations

import csv
import io
import json

from reply_audit.cli import app
from support import CliRunner, write_tree

runner = CliRunner()

TREE = {
    "codes.py": '''
        class Codes:
            WA_RES_I_001 = ReplyCode("WA-RES-I-001")
            WA_RES_S_001 = ReplyCode("WA-RES-S-001")
            MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001")
    ''',
    "builder.py": '''
        class ReplyBuilder:
            def __init__(self):
                self._frozen = False
            def _guard(self, code):
                if self._frozen:
                    raise RuntimeError(code)
                validate_code_format(code)
            def success(self, code, data=None):
                self._guard(code)
            def invalid(self, code, data=None):
                self._guard(code)
                self._frozen = True
            def error(self, code, data=None):
                self._guard(code)
                self._frozen = True
    ''',
    "server.py": '''
        @mcp_safe_tool
        def notes_read(rb: ReplyBuilder, path):
            try:
                text = open(path).read()
            except Exception:
                return rb.invalid("WA-RES-I-001", {})
            if not text:
                rb.error("MCP-SYS-E-001", {})  # reply-audit: ignore[RA303]
            return rb.success("WA-RES-S-001", {"text": text})
    ''',
    ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: reply-audit\n",
}


def _scan(root, *args):
    return runner.invoke(app, ["scan", str(root), *args])


def test_exit_codes_follow_fail_on(tmp_path):
    root = write_tree(tmp_path, TREE)
    assert _scan(root, "-f", "json").exit_code == 1            # RA304 is high, the default threshold
    assert _scan(root, "-f", "json", "--fail-on", "critical").exit_code == 0
    assert _scan(root, "-f", "json", "--fail-on", "none").exit_code == 0
    assert _scan(root, "-f", "json", "--ignore", "RA304").exit_code == 0


def test_suppression_comment_and_listing(tmp_path):
    root = write_tree(tmp_path, TREE)
    doc = json.loads(_scan(root, "-f", "json").output)
    assert [(f["rule"], f["line"]) for f in doc["findings"]] == [("RA304", 7)]
    assert [(f["rule"], f["line"]) for f in doc["suppressed"]] == [("RA303", 9)]
    shown = _scan(root, "--show-suppressed", "--fail-on", "none")
    assert "suppressed:" in shown.output and "server.py:9: RA303" in shown.output


def test_select_and_ignore_and_config(tmp_path):
    root = write_tree(tmp_path, TREE)
    selected = json.loads(_scan(root, "-f", "json", "--select", "RA3").output)["rules"]
    assert selected == ["RA301", "RA302", "RA303", "RA304", "RA305", "RA306", "RA307", "RA308", "RA309", "RA310",
                        "RA311"]
    (tmp_path / "pyproject.toml").write_text('[tool.reply-audit.rules]\nignore = ["RA304"]\n'
                                             '[tool.reply-audit.rules.severity]\nRA501 = "low"\n')
    doc = json.loads(_scan(root, "-f", "json").output)
    assert doc["findings"] == [] and "RA304" not in doc["rules"]
    bad = _scan(root, "--select", "RA999")
    assert bad.exit_code == 2 and "unknown rule 'RA999'" in bad.output


def test_baseline_hides_known_findings_only(tmp_path):
    root = write_tree(tmp_path, TREE)
    base = tmp_path / "baseline.json"
    written = _scan(root, "--write-baseline", str(base))
    assert written.exit_code == 0
    assert json.loads(base.read_text())["schema"] == "reply-audit-baseline/1"
    clean = _scan(root, "-f", "json", "--baseline", str(base))
    assert clean.exit_code == 0 and json.loads(clean.output)["summary"]["findings"]["baselined"] == 1
    # a line shift does not revive the finding; a new violation is reported
    server = tmp_path / "server.py"
    server.write_text("\n\n" + server.read_text().replace(
        'return rb.success("WA-RES-S-001", {"text": text})',
        'return rb.success("WA-RES-I-001", {"text": text})'))
    doc = json.loads(_scan(root, "-f", "json", "--baseline", str(base)).output)
    assert [(f["rule"], f["line"]) for f in doc["findings"]] == [("RA302", 12)]
    assert _scan(root, "--baseline", str(tmp_path / "nope.json")).exit_code == 2


def test_sarif_github_and_csv(tmp_path):
    root = write_tree(tmp_path, TREE)
    sarif = json.loads(_scan(root, "-f", "sarif").output)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    [result] = run["results"]
    assert result["ruleId"] == "RA304" and rule_ids[result["ruleIndex"]] == "RA304"
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "server.py", "uriBaseId": "SRCROOT"},
                                                          "region": {"startLine": 7, "startColumn": 16}}
    github = _scan(root, "-f", "github").output
    assert github.startswith("::error file=server.py,line=7,col=16,title=RA304 broad-except-invalid::rb.invalid()")
    rows = list(csv.DictReader(io.StringIO(_scan(root, "-f", "csv").output)))
    assert [(r["rule"], r["line"], r["severity"]) for r in rows] == [("RA304", "7", "high")]


def test_rules_command(tmp_path):
    listed = runner.invoke(app, ["rules"])
    assert listed.exit_code == 0 and "RA204" in listed.output and "undefined-builder-method" in listed.output
    one = runner.invoke(app, ["rules", "ra204"])
    assert one.exit_code == 0 and one.output.startswith("RA204 undefined-builder-method\nseverity: critical")
    unknown = runner.invoke(app, ["rules", "RA999"])
    assert unknown.exit_code == 2 and "unknown rule 'RA999'" in unknown.output


def test_a_suppression_on_its_own_line_covers_the_next_line_only(tmp_path):
    """`# reply-audit: ignore[RULE]` alone on a line silences that rule on the line below it (ruff's own-line
    form is not noqa, but the audit accepts it); a trailing comment covers its own line, and neither reaches the
    line after."""
    from reply_audit.directives import comment_directives

    source = (b"x = 1\n"
              b"# reply-audit: ignore[RA303]\n"
              b"rb.error('MCP-SYS-E-001', {})\n"
              b"rb.error('MCP-SYS-E-001', {})  # reply-audit: ignore[ra303, RA304]\n"
              b"rb.error('MCP-SYS-E-001', {})\n")
    suppressions, markers = comment_directives(source)
    assert suppressions == {"2": ["RA303"], "3": ["RA303"], "4": ["RA303", "RA304"]}
    assert markers == {}
    tree = dict(TREE)
    tree["server.py"] = TREE["server.py"].replace(
        '                rb.error("MCP-SYS-E-001", {})  # reply-audit: ignore[RA303]',
        '                # reply-audit: ignore[RA303]\n                rb.error("MCP-SYS-E-001", {})')
    root = write_tree(tmp_path, tree)
    doc = json.loads(_scan(root, "-f", "json").output)
    assert [(f["rule"], f["line"]) for f in doc["suppressed"]] == [("RA303", 10)]
    assert ("RA303", 10) not in [(f["rule"], f["line"]) for f in doc["findings"]]


def test_out_reports_are_written_with_the_usual_permissions(tmp_path):
    """--out writes atomically through a private temporary file, but the report ends with the mode any new file
    gets (0666 less the umask), not the temporary's 0600."""
    import os
    import stat

    root = write_tree(tmp_path, TREE)
    old = os.umask(0o022)
    try:
        out = tmp_path / "reports" / "audit.json"
        assert _scan(root, "-f", "json", "--out", str(out), "--fail-on", "none").exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
