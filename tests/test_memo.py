"""The report memo: an unchanged scan answers from it, and a change to any input of the report misses it."""

from __future__ import annotations

import json
import shutil

import pytest

from reply_audit import api, memo
from reply_audit.cli import app
from support import EXAMPLE, CliRunner

RUNNER = CliRunner()
LEGACY_MAPPING = '[mapping]\n"WA-RES-E-009" = "MCP-SYS-E-001"\n'


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "map.toml").write_text(LEGACY_MAPPING)
    return root


def fresh(root, **options):
    """The report as a scan without any cache makes it."""
    return api.report(root, no_cache=True, **options)


def test_an_unchanged_tree_is_answered_from_the_memo(tree):
    first = api.report(tree, mapping=[tree / "map.toml"])
    second = api.report(tree, mapping=[tree / "map.toml"])
    assert (first.remembered, second.remembered) == (False, True)
    assert (second.text, second.exit_code) == (first.text, first.exit_code)
    expected = fresh(tree, mapping=[tree / "map.toml"])
    assert (first.text, first.exit_code) == (expected.text, expected.exit_code) and expected.exit_code == 1
    assert "RA301" in first.text


def _edit_file(root):
    path = root / "src" / "notesvc" / "server.py"
    path.write_text(path.read_text() + '\n\ndef late(rb):\n    return rb.error("WA-NOPE-E-999", {})\n')


def _add_file(root):
    (root / "src" / "notesvc" / "extra.py").write_text('def extra(rb):\n    return rb.error("WA-XTRA-E-001", {})\n')


def _remove_file(root):
    (root / "src" / "notesvc" / "safety.py").unlink()


def _edit_profile(root):
    (root / "pyproject.toml").write_text('[tool.reply-audit.rules]\nignore = ["RA301"]\n')


def _edit_mapping(root):
    (root / "map.toml").write_text('[mapping]\n"WA-RES-E-009" = "MCP-NOPE-E-404"\n')   # a target no registry has


def _add_precommit(root):
    (root / ".pre-commit-config.yaml").write_text("repos:\n  - hooks:\n      - id: reply-code-guard\n")


def _touch_code(monkeypatch):
    monkeypatch.setattr(memo, "code_digest", lambda: "another build of reply-audit")


CHANGES = {
    "a file's bytes": _edit_file,
    "a new file": _add_file,
    "a file gone": _remove_file,
    "the profile": _edit_profile,
    "a mapping file": _edit_mapping,
    "the pre-commit configuration": _add_precommit,
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=list(CHANGES))
def test_a_change_to_what_the_scan_reads_misses_the_memo(tree, change):
    api.report(tree, mapping=[tree / "map.toml"])
    before = api.report(tree, mapping=[tree / "map.toml"])
    change(tree)
    after = api.report(tree, mapping=[tree / "map.toml"])
    expected = fresh(tree, mapping=[tree / "map.toml"])
    assert (before.remembered, after.remembered) == (True, False)
    assert (after.text, after.exit_code) == (expected.text, expected.exit_code)
    assert after.text != before.text


OPTIONS = {
    "format": {"format": "json"},
    "select": {"select": ["RA1"]},
    "ignore": {"ignore": ["RA301"]},
    "fail-on": {"fail_on": "none"},
    "mode": {"mode": "statistics"},
    "show-suppressed": {"show_suppressed": True},
    "colour": {"colour": True},
    "exclude": {"extend_exclude": ["legacy_tools.py"]},
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=list(OPTIONS))
def test_another_option_is_another_report(tree, options):
    plain = api.report(tree)
    other = api.report(tree, **options)
    again = api.report(tree, **options)
    assert (plain.remembered, other.remembered, again.remembered) == (False, False, True)
    expected = fresh(tree, **options)
    assert (other.text, other.exit_code) == (again.text, again.exit_code) == (expected.text, expected.exit_code)


def test_a_baseline_is_read_for_the_key(tree, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert RUNNER.invoke(app, ["scan", str(tree), "--write-baseline", str(baseline)]).exit_code == 0
    hidden = api.report(tree, baseline=baseline)
    assert hidden.exit_code == 0 and api.report(tree, baseline=baseline).remembered
    baseline.write_text(json.dumps({"schema": "reply-audit-baseline/1", "fingerprints": {}}))
    shown = api.report(tree, baseline=baseline)
    assert not shown.remembered and shown.exit_code == 1


def test_new_code_or_another_working_directory_misses_the_memo(tree, tmp_path, monkeypatch):
    twin = tmp_path / "twin"
    shutil.copytree(tree, twin)
    cache = tmp_path / "shared-cache"
    monkeypatch.chdir(tree)
    here = api.report(tree.relative_to(tree), cache_dir=cache)
    assert api.report(tree.relative_to(tree), cache_dir=cache).remembered
    monkeypatch.chdir(twin)   # the same bytes under the same relative path, elsewhere: nothing is assumed
    there = api.report(twin.relative_to(twin), cache_dir=cache)
    assert not there.remembered and there.text == here.text
    _touch_code(monkeypatch)
    rebuilt = api.report(twin.relative_to(twin), cache_dir=cache)
    assert not rebuilt.remembered and rebuilt.text == here.text


def test_a_corrupt_or_foreign_entry_is_ignored_and_replaced(tree):
    first = api.report(tree)
    entries = list((tree / ".reply-audit-cache").glob("*-reports/*.json"))
    assert len(entries) == 1
    entries[0].write_text("{ not json")
    assert not api.report(tree).remembered
    data = json.loads(entries[0].read_text())
    assert data["schema"] == memo.SCHEMA
    data["key"], data["text"] = "0" * 64, "forged: no findings\n"
    entries[0].write_text(json.dumps(data))
    again = api.report(tree)
    assert not again.remembered and again.text == first.text


def test_only_the_newest_reports_are_kept(tree, monkeypatch):
    monkeypatch.setattr(memo, "KEEP", 2)
    for level in ("critical", "high", "medium", "low"):
        api.report(tree, fail_on=level)
    assert len(list((tree / ".reply-audit-cache").glob("*-reports/*.json"))) == 2


def test_no_cache_keeps_no_memo_and_the_command_line_prints_the_same(tree):
    cold = RUNNER.invoke(app, ["scan", str(tree), "--no-cache"])
    assert not (tree / ".reply-audit-cache").exists()
    first = RUNNER.invoke(app, ["scan", str(tree)])
    second = RUNNER.invoke(app, ["scan", str(tree)])
    assert (cold.exit_code, first.exit_code, second.exit_code) == (1, 1, 1)
    assert cold.stdout == first.stdout == second.stdout
    assert len(list((tree / ".reply-audit-cache").glob("*-reports/*.json"))) == 1


def test_a_remembered_report_loads_neither_facts_nor_rules(tree):
    """What makes a warm rescan fast: answering from the memo reads the tree and hashes it, and never imports the
    records, the index, the rules or the planner."""
    import subprocess
    import sys

    code = ("import sys; from reply_audit.cli import app; "
            f"code = app(['scan', {str(tree)!r}, '--out', {str(tree / 'report.txt')!r}])\n"
            "print(code, *sorted(m for m in sys.modules if m.startswith('reply_audit.')))")
    cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    warm = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert cold[0] == warm[0] == "1"
    assert {"reply_audit.records", "reply_audit.index", "reply_audit.engine"} <= set(cold)
    heavy = [m for m in warm if m.startswith(("reply_audit.records", "reply_audit.facts", "reply_audit.index",
                                              "reply_audit.rules", "reply_audit.engine", "reply_audit.codemods"))]
    assert heavy == []


def test_where_git_puts_the_tree_is_part_of_the_key(tree, tmp_path, monkeypatch):
    """The github, csv and sarif formats give paths from the repository's root: a `.git` made above the tree
    changes them, and the memo must not print the old ones; a symbolic link to the tree, pointed elsewhere, is
    another tree."""
    import subprocess

    outer = tmp_path / "outer"
    shutil.move(tree, outer / "proj")
    monkeypatch.chdir(outer)
    cache = tmp_path / "cache"
    before = api.report(outer / "proj", format="github", cache_dir=cache)
    subprocess.run(["git", "init", "-q", str(outer / "proj")], check=True)
    after = api.report(outer / "proj", format="github", cache_dir=cache)
    assert "file=proj/" in before.text and not after.remembered and "file=proj/" not in after.text
    assert after.text == fresh(outer / "proj", format="github").text

    twin = outer / "twin"   # the same bytes: only the paths shown from the working directory differ
    shutil.copytree(outer / "proj", twin, ignore=shutil.ignore_patterns(".git", ".reply-audit-cache"))
    (outer / "current").symlink_to(outer / "proj")
    first = api.report(outer / "current", cache_dir=cache)
    (outer / "current").unlink()
    (outer / "current").symlink_to(twin)
    second = api.report(outer / "current", cache_dir=cache)
    assert not second.remembered and second.text == fresh(outer / "current").text != first.text


def test_a_working_directory_that_is_gone_scans_without_the_memo(tree, tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    done = api.report(tree)
    assert (done.exit_code, done.remembered) == (1, False) and "RA301" in done.text
    assert not list((tree / ".reply-audit-cache").glob("*-reports/*.json"))


def test_a_memo_entry_nested_past_the_recursion_limit_is_ignored(tree):
    api.report(tree)
    entry = next((tree / ".reply-audit-cache").glob("*-reports/*.json"))
    entry.write_text("[" * 200_000)
    again = api.report(tree)
    assert not again.remembered and again.exit_code == 1


def test_pruning_keeps_the_reports_last_used_and_drops_leftovers(tree, monkeypatch):
    import os
    import time

    monkeypatch.setattr(memo, "KEEP", 2)
    cache = tree / ".reply-audit-cache"
    api.report(tree, fail_on="critical")
    api.report(tree, fail_on="high")
    old = cache / "0.0.1-reports"
    old.mkdir()
    (old / "x.json").write_text("{}")
    folder = next(cache.glob(f"{memo.__version__}-reports"))
    leftover = folder / ".abc.json.123.reply-audit.tmp"
    leftover.write_text("half")
    hour_ago = time.time() - 2 * memo.STALE_TEMPORARY
    for age, entry in enumerate([leftover, *sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)]):
        os.utime(entry, (hour_ago + age, hour_ago + age))   # "critical" the oldest, "high" after it
    assert api.report(tree, fail_on="critical").remembered   # used: kept ahead of "high", not asked for since
    api.report(tree, fail_on="medium")
    assert not old.exists() and not leftover.exists() and len(list(folder.glob("*.json"))) == 2
    assert api.report(tree, fail_on="critical").remembered and not api.report(tree, fail_on="high").remembered


def test_the_dependencies_in_the_key_are_the_projects():
    import re
    import tomllib

    from support import REPO

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert sorted(memo.DEPENDENCIES) == sorted(re.split(r"[<>=!~ ]", d)[0].replace("-", "_") for d in declared)
