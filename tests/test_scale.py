"""Scale: the process pool gives the same output as one process; the cache parses only what changed."""

from __future__ import annotations

import json
import textwrap

import pytest
from typer.testing import CliRunner

from support import EXAMPLE, write_tree
from reply_audit.cache import SCHEMA, FactsCache, key_of
from reply_audit.cli import app
from reply_audit.engine import evaluate
from reply_audit.profile import load_profile
from reply_audit.report.json_report import render_json
from reply_audit.scan import scan
from reply_audit.workers import extract_all

RUNNER = CliRunner()


def report(root, **kwargs):
    result = scan(root, load_profile(None, root), **kwargs)
    return render_json(result, evaluate(result)), result.stats


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_pool_gives_exactly_the_output_of_one_process(start_method):
    profile = load_profile(None, EXAMPLE)
    rels = sorted(p.relative_to(EXAMPLE).as_posix() for p in EXAMPLE.rglob("*.py"))
    alone, one = extract_all(EXAMPLE, rels, profile, jobs=1)
    pooled, two = extract_all(EXAMPLE, rels, profile, jobs=2, start_method=start_method)
    assert pooled == alone and (one.jobs, two.jobs, two.parsed) == (1, 2, len(rels))


def test_jobs_do_not_change_the_report():
    assert report(EXAMPLE, jobs=1)[0] == report(EXAMPLE, jobs=2)[0]


def test_a_warm_scan_parses_nothing_and_an_edit_reparses_only_that_file(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    for path in EXAMPLE.rglob("*.py"):
        target = root / path.relative_to(EXAMPLE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    cache = tmp_path / "cache"
    cold, stats = report(root, cache_dir=cache)
    assert (stats.parsed, stats.cached) == (13, 0)
    warm, stats = report(root, cache_dir=cache)
    assert (stats.parsed, stats.cached, warm) == (0, 13, cold)
    server = root / "src" / "notesvc" / "server.py"
    server.write_text(server.read_text() + "\n# edited\n")
    edited, stats = report(root, cache_dir=cache)
    assert (stats.parsed, stats.cached) == (1, 12)
    assert edited == report(root)[0]             # the same as a scan without cache


def test_corrupt_and_foreign_cache_entries_are_rebuilt_not_trusted(tmp_path):
    root = write_tree(tmp_path / "tree", {"a.py": 'X = "WA-RES-I-001"\n', "b.py": "def f():\n    pass\n"})
    cache_dir = tmp_path / "cache"
    first, _ = report(root, cache_dir=cache_dir)
    profile = load_profile(None, root)
    cache = FactsCache(cache_dir, profile.digest)
    entry_a = cache._path(key_of("a.py", (root / "a.py").read_bytes()))
    entry_b = cache._path(key_of("b.py", (root / "b.py").read_bytes()))
    entry_a.write_text("{ not json")
    foreign = json.loads(entry_b.read_text())
    foreign["key"] = "0" * 64                    # an entry that is not the one asked for
    foreign["facts"]["code_literals"] = [{"code": "EN-FAKE-D-001", "line": 1, "col": 0, "function": None}]
    entry_b.write_text(json.dumps(foreign))
    again, stats = report(root, cache_dir=cache_dir)
    assert (stats.parsed, stats.cached, again) == (2, 0, first)
    assert json.loads(entry_a.read_text())["schema"] == SCHEMA      # rewritten
    assert report(root, cache_dir=cache_dir)[1].cached == 2


def test_the_cli_caches_by_default_and_clears(tmp_path):
    root = write_tree(tmp_path, {"a.py": 'X = "WA-RES-I-001"\n'})
    assert RUNNER.invoke(app, ["scan", str(root), "--fail-on", "none"]).exit_code == 0
    assert (root / ".reply-audit-cache" / "CACHEDIR.TAG").exists()
    assert RUNNER.invoke(app, ["scan", str(root), "--no-cache", "-j", "1", "--fail-on", "none"]).exit_code == 0
    cleared = RUNNER.invoke(app, ["cache", "clear", str(root)])
    assert cleared.exit_code == 0 and "(1 entries)" in cleared.stdout
    assert not (root / ".reply-audit-cache").exists()
    assert "no cache" in RUNNER.invoke(app, ["cache", "clear", str(root)]).stdout
    (tmp_path / "notacache").mkdir()
    (tmp_path / "notacache" / "precious.txt").write_text("keep")
    refused = RUNNER.invoke(app, ["cache", "clear", "--cache-dir", str(tmp_path / "notacache")])
    assert refused.exit_code == 2 and (tmp_path / "notacache" / "precious.txt").exists()
