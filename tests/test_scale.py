"""Scale: the process pool gives the same output as one process; the cache parses only what changed."""

from __future__ import annotations

import json

import pytest

from reply_audit.api import evaluate
from reply_audit.cache import SCHEMA, FactsCache, key_of
from reply_audit.cli import app
from reply_audit.facts.model import CodeLiteral, FileFacts
from reply_audit.profile import load_profile
from reply_audit.report.json_report import render_json
from reply_audit.scan import scan
from reply_audit.workers import extract_all
from support import EXAMPLE, CliRunner, write_tree

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


def test_a_pool_gets_the_largest_files_first(monkeypatch):
    """A pool's batches go out largest file first, so that the last ones are small and no worker waits long for
    the other at the end; the facts come back in the files' order all the same."""
    import concurrent.futures

    from reply_audit import workers
    from reply_audit.file_facts import new_extractor

    profile = load_profile(None, EXAMPLE)
    sent = []

    class InProcess:   # the pool's interface, run here: what it is given is what a pool would be given
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def map(self, fn, batches):
            for batch in batches:
                sent.append([rel for rel, _ in batch])
                yield fn(batch)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", InProcess)
    monkeypatch.setattr(workers, "_WORKER", (profile, new_extractor(profile), None))
    sources = [(f"m{n:02d}.py", b"x = 1\n" * (n % 7 + 1) + b"y = 2\n" * n) for n in range(1, 40)]
    facts, stats = workers.extract_sources(sources, profile, jobs=2)
    sizes = [len(dict(sources)[rel]) for batch in sent for rel in batch]
    assert sizes == sorted(sizes, reverse=True) and [len(batch) for batch in sent] == [16, 16, 7]
    assert [f.path for f in facts] == [rel for rel, _ in sources] and (stats.jobs, stats.parsed) == (2, 39)


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


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_pool_workers_keep_the_facts_they_make(tmp_path, start_method):
    """With a pool, each worker writes the facts it made to the cache (the caller writes none): the next scan
    parses nothing and reports the same."""
    cache = tmp_path / "cache"
    profile = load_profile(None, EXAMPLE)
    rels = sorted(p.relative_to(EXAMPLE).as_posix() for p in EXAMPLE.rglob("*.py"))
    facts_cache = FactsCache(cache, profile.digest)
    pooled, stats = extract_all(EXAMPLE, rels, profile, jobs=2, cache=facts_cache, start_method=start_method)
    assert (stats.jobs, stats.parsed) == (2, 13)
    again, stats = extract_all(EXAMPLE, rels, profile, jobs=1, cache=facts_cache)
    assert (stats.parsed, stats.cached, again) == (0, 13, pooled)


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
    forged = FileFacts.from_row(foreign["facts"])
    forged.code_literals.append(CodeLiteral(code="EN-FAKE-D-001", line=1, col=0, function=None))
    foreign["facts"] = forged.to_row()
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


def test_one_cache_at_the_project_root_whatever_part_is_scanned(tmp_path):
    repo = write_tree(tmp_path / "repo", {"src/pkg/a.py": 'X = "WA-RES-I-001"\n', "tools/b.py": "Y = 1\n"})
    (repo / ".git").mkdir()
    for target in (repo / "src", repo / "src" / "pkg" / "a.py", repo / "tools", repo):
        assert RUNNER.invoke(app, ["scan", str(target), "--fail-on", "none"]).exit_code == 0
    assert sorted(p.relative_to(repo).as_posix() for p in repo.rglob(".reply-audit-cache")) == [".reply-audit-cache"]
    (repo / "src" / "pyproject.toml").write_text("[tool.reply-audit.rules]\nfail-on = \"none\"\n")
    assert RUNNER.invoke(app, ["scan", str(repo / "src" / "pkg")]).exit_code == 0
    assert (repo / "src" / ".reply-audit-cache" / "CACHEDIR.TAG").exists()   # the configuration's folder
    cleared = RUNNER.invoke(app, ["cache", "clear", str(repo / "src" / "pkg")])
    assert cleared.stdout.startswith(f"reply-audit: removed {repo.resolve() / 'src' / '.reply-audit-cache'} (")


def _git(root, *args):
    import os
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


HANDLER = '''
@mcp.tool()
def notes_read(path):
    if not path:
        return {"error": "no path"}
    return {"success": True, "path": path}
'''


def test_history_counts_every_commit_exactly(tmp_path):
    from reply_audit.history import history
    from reply_audit.rules._snippets import BUILDER, CODES

    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    steps = [
        ({"server.py": HANDLER}, "raw dicts"),
        ({"README.md": "notes\n"}, "docs only"),
        ({"builder.py": BUILDER, "codes.py": CODES, "server.py": HANDLER.replace(
            "def notes_read(path):", "@mcp_safe_tool\ndef notes_read(path):\n    rb = ReplyBuilder()").replace(
            'return {"error": "no path"}', 'return rb.invalid("WA-RES-I-001", {})').replace(
            'return {"success": True, "path": path}', 'return rb.success("WA-RES-S-001", {"path": path})')},
         "builder calls"),
        ({".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: reply-audit\n"},
         "guard hook"),
    ]
    for files, message in steps:
        write_tree(root, files)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", message)
    table = history(root, "", load_profile("canonical"), jobs=1)
    got = table[["subject", "files", "findings", "raw_dict_returns", "registries", "builders", "medium",
                 "fixable"]].to_dict("records")
    # RA306 x2 and RA308 (nothing to fix them with: no builder, no wrapper), then RA501 until the guard hook
    assert got == [
        {"subject": "raw dicts", "files": 1, "findings": 4, "raw_dict_returns": 2, "registries": 0, "builders": 0,
         "medium": 4, "fixable": 0},
        {"subject": "docs only", "files": 1, "findings": 4, "raw_dict_returns": 2, "registries": 0, "builders": 0,
         "medium": 4, "fixable": 0},
        {"subject": "builder calls", "files": 3, "findings": 1, "raw_dict_returns": 0, "registries": 1,
         "builders": 1, "medium": 1, "fixable": 0},
        {"subject": "guard hook", "files": 3, "findings": 0, "raw_dict_returns": 0, "registries": 1,
         "builders": 1, "medium": 0, "fixable": 0},
    ]
    assert table.attrs["stats"] == {"commits": 4, "blobs": 4, "cached": 0, "evaluated": 3}
    assert history(root, "", load_profile("canonical"), jobs=2).equals(table)
    last_two = history(root, "", load_profile("canonical"), max_commits=2, jobs=1)
    assert list(last_two["subject"]) == ["builder calls", "guard hook"]
    ranged = history(root, "", load_profile("canonical"), rev_range="HEAD~2..HEAD~1", jobs=1)
    assert list(ranged["subject"]) == ["builder calls"]


def test_history_evaluates_its_commits_without_the_cyclic_collector_and_turns_it_on_again(tmp_path, monkeypatch):
    import gc

    import reply_audit.history as history_module

    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    for n in range(2):
        write_tree(root, {"server.py": HANDLER + f"\n# {n}\n"})
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"step {n}")
    row, collecting = history_module._row, []

    def watched(*args, **kwargs):
        collecting.append(gc.isenabled())
        return row(*args, **kwargs)

    monkeypatch.setattr(history_module, "_row", watched)
    assert gc.isenabled()
    table = history_module.history(root, "", load_profile("canonical"), jobs=1)
    assert list(table["findings"]) == [4, 4] and collecting == [False, False] and gc.isenabled()


def test_history_counts_each_commit_as_a_scan_of_it_when_a_package_init_comes_later(tmp_path):
    """A relative import of a package finds its `__init__.py` from the commit that adds it on, in history as in
    a scan of each commit: the import map history carries from commit to commit kept the first answer (none)."""
    from reply_audit.history import _row, history

    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    steps = [
        {"app/server.py": "from .legacy import OLD\n",
         "app/codes.py": 'class Codes:\n    A = ReplyCode("WA-RES-I-001")\n    B = ReplyCode("MCP-SYS-E-001")\n',
         "app/legacy/util.py": "X = 1\n"},
        {"app/legacy/__init__.py": 'OLD = {"FILE-OP-S-001": "x", "FILE-OP-E-001": "y"}\n'},
        {"app/z.py": "Z = 1\n"},
        {"app/z.py": "Z = 2\n"},
    ]
    profile = load_profile("canonical")
    scanned = []
    for n, files in enumerate(steps):
        write_tree(root, files)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"step {n}")
        result = scan(root, profile)
        scanned.append(_row(profile, result.files, result.tooling)["findings"])
    table = history(root, "", profile, jobs=1)
    assert scanned == [1, 2, 2, 2] and list(table["findings"]) == scanned


def test_the_history_command_writes_table_and_chart(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    write_tree(root, {"server.py": HANDLER})
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one")
    out = tmp_path / "out"
    done = RUNNER.invoke(app, ["history", str(root), "--out", str(out), "-j", "1"])
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in out.iterdir()) == ["history.csv", "history.json", "history.png", "history.svg"]
    assert (out / "history.png").read_bytes().startswith(b"\x89PNG")
    header = (out / "history.csv").read_text().splitlines()[0]
    assert header.startswith("commit,date,subject,files,findings,critical,high,medium,low")
    bad = RUNNER.invoke(app, ["history", str(root), "--rev-range", "nope..HEAD", "--out", str(out)])
    assert bad.exit_code == 2 and "cannot read the history" in bad.stderr
    (root / "sub").mkdir()
    default = RUNNER.invoke(app, ["history", str(root / "sub"), "-j", "1"])   # from a subfolder: the root's
    assert default.exit_code == 0, default.output
    assert default.stdout.endswith(f"wrote {(root / 'reply-audit-history').resolve().as_posix()}/history.csv, "
                                   ".json, .png, .svg\n")
    assert not (root / "sub" / "reply-audit-history").exists()


def test_merge_gives_one_row_per_repository_and_totals(tmp_path):
    small = write_tree(tmp_path / "small", {"server.py": HANDLER})
    reports = []
    for name, root in (("example", EXAMPLE), ("small", small)):
        done = RUNNER.invoke(app, ["scan", str(root), "-f", "json", "--fail-on", "none", "--no-cache",
                                   "-o", str(tmp_path / f"{name}.json")])
        assert done.exit_code == 0
        reports.append(str(tmp_path / f"{name}.json"))
    csv = RUNNER.invoke(app, ["merge", *reports, "-f", "csv"])
    assert csv.exit_code == 0
    assert RUNNER.invoke(app, ["merge", reports[0], "-f", "csv", reports[1]]).stdout == csv.stdout   # intermixed
    rows = [line.split(",") for line in csv.stdout.splitlines()]
    assert rows[0] == ["repository", "findings", "critical", "high", "medium", "low", "fixable", "legacy_codes",
                       "registries", "builders", "raw_dict_returns", "score"]
    example = json.loads((tmp_path / "example.json").read_text())
    by_name = {r[0]: r for r in rows[1:]}
    assert [r[0] for r in rows[1:]] == sorted([str(EXAMPLE), str(small)]) + ["total (2 repositories)"]
    assert by_name[str(EXAMPLE)][1] == str(example["summary"]["findings"]["total"])
    assert by_name[str(small)][1] == "4" and by_name[str(small)][10] == "2"     # RA306 x2, RA308, RA501
    assert int(by_name["total (2 repositories)"][1]) == int(by_name[str(EXAMPLE)][1]) + 4
    md = RUNNER.invoke(app, ["merge", *reports])
    assert md.stdout.startswith("# Fleet reply-compliance scorecard") and "| **total (2 repositories)** |" in md.stdout
    (tmp_path / "other.json").write_text('{"schema": "something-else/1"}')
    bad = RUNNER.invoke(app, ["merge", str(tmp_path / "other.json")])
    assert bad.exit_code == 2 and "is not a reply-audit/1 report" in bad.stderr


def test_the_default_jobs_start_a_pool_only_for_enough_source(tmp_path, monkeypatch):
    """Below AUTO_POOL_MIN_BYTES of source to parse, starting workers costs more than they save: the default
    parses in this process; above it, with more than one CPU, in a pool. Asked for, -j 2 always pools."""
    import reply_audit.workers as workers

    monkeypatch.setattr(workers, "default_jobs", lambda: 2)
    profile = load_profile("canonical")
    small = write_tree(tmp_path / "small", {f"m{i}.py": "def f():\n    return {}\n" for i in range(40)})
    files = sorted(p.name for p in small.iterdir())
    assert extract_all(small, files, profile)[1].jobs == 1
    assert extract_all(small, files, profile, jobs=2)[1].jobs == 2
    body = "def f():\n    return {}\n" + "x = 1\n" * (workers.AUTO_POOL_MIN_BYTES // 6 // 4)
    big = write_tree(tmp_path / "big", {f"m{i}.py": body for i in range(5)})
    assert extract_all(big, sorted(p.name for p in big.iterdir()), profile)[1].jobs == 2


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="reads /proc")
def test_workers_end_when_their_parent_is_killed(tmp_path):
    """A scan killed outright (SIGKILL, the OOM killer) cannot stop its pool; its workers notice and end instead
    of sleeping forever on their pipe."""
    import os
    import signal
    import subprocess
    import sys
    import time

    body = "def f(a):\n    if a:\n        return {'ok': a}\n    return None\n" * 400
    root = write_tree(tmp_path / "t", {f"m{i}.py": body for i in range(400)})
    proc = subprocess.Popen([sys.executable, "-m", "reply_audit", "scan", str(root), "-j", "2", "--no-cache"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def children() -> list[int]:
        """The scan's pool workers (forked: the scan's own command line), not a passing `git` call."""
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    parent = int(f.read().rsplit(b")", 1)[1].split()[1])
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if parent == proc.pid and b"reply_audit" in f.read():
                        found.append(int(entry))
            except (OSError, ValueError):
                continue
        return found

    deadline = time.monotonic() + 60
    while len(workers := children()) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(workers) >= 2, "the pool did not start"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 15
    while any(os.path.exists(f"/proc/{pid}") and not _zombie(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in workers if os.path.exists(f"/proc/{pid}") and not _zombie(pid)] == []


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


def test_a_huge_job_count_is_capped_not_forked_or_a_traceback(tmp_path, monkeypatch):
    """`-j 100000` would fork 100,000 processes and `-j 99999999999999999999` ended in an OverflowError: the pool
    takes at most MAX_JOBS_PER_CPU per CPU."""
    import reply_audit.workers as workers

    monkeypatch.setattr(workers, "default_jobs", lambda: 2)
    assert [workers.pool_size(j) for j in (None, 1, 3, 16, 17, 10**20)] == [2, 1, 3, 16, 16, 16]
    root = write_tree(tmp_path / "t", {f"m{i}.py": "def f():\n    return {}\n" for i in range(3)})
    done = RUNNER.invoke(app, ["scan", str(root), "-j", str(10**20), "--no-cache", "--fail-on", "none", "-q"])
    assert (done.exit_code, done.exception) == (0, None)


def test_commits_are_listed_by_their_tree_objects_exactly_as_ls_tree_lists_them(tmp_path):
    """History reads each commit's files by walking tree objects (a folder shared by commits is read once): the
    same files, blobs and exclusions (links, submodules) as `git ls-tree -r`, below a prefix too."""
    import os

    from reply_audit.gitrev import list_commits_files, list_files

    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    steps = [
        {"a.py": "A = 1\n", "pkg/b.py": "B = 2\n", "pkg/deep/c.py": "C = 3\n", "doc with space.md": "x\n"},
        {"pkg/b.py": "B = 20\n", "tool.sh": "echo\n"},
        {"pkg/deep/d.py": "D = 4\n", "empty/.keep": ""},
    ]
    for n, files in enumerate(steps):
        write_tree(root, files)
        if n == 1:
            (root / "tool.sh").chmod(0o755)
            os.symlink("a.py", root / "link.py")
        if n == 2:
            (root / "a.py").unlink()
            _git(root, "update-index", "--add", "--cacheinfo", "160000," + "1" * 40 + ",vendored")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"step {n}")
    shas = _git(root, "log", "--format=%H", "--reverse").split()
    for prefix in ("", "pkg/", "pkg/deep/", "missing/"):
        listed = list_commits_files(root, shas, prefix)
        assert listed == [list_files(root, sha, prefix) for sha in shas]
    assert sorted(list_commits_files(root, shas[-1:], "")[0]) == [
        "doc with space.md", "empty/.keep", "pkg/b.py", "pkg/deep/c.py", "pkg/deep/d.py", "tool.sh"]
    assert list_commits_files(root, shas, "pkg/deep/")[0] == {"c.py": list_files(root, shas[0], "pkg/deep/")["c.py"]}


def test_tree_modes_are_read_as_numbers_and_deep_folders_need_no_recursion(tmp_path):
    """An old or hand-made tree may write a folder's mode `040000` and a file's `100664`: git ls-tree lists them
    as a folder and a file, and so does the walk. A chain of folders deeper than Python's recursion limit is
    flattened too."""
    import subprocess

    from reply_audit.gitrev import _children_first, _tree_entries, list_commits_files, list_files

    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")

    def git(*args, data=b""):
        return subprocess.run(["git", "-C", str(root), *args], input=data, capture_output=True,
                              check=True).stdout.decode().strip()

    def tree(*entries):
        raw = b"".join(mode + b" " + name + b"\0" + bytes.fromhex(oid) for mode, name, oid in entries)
        return git("hash-object", "-w", "-t", "tree", "--literally", "--stdin", data=raw)

    blob = git("hash-object", "-w", "--stdin", data=b"x = 1\n")
    inner = tree((b"100644", b"m.py", blob))
    top = tree((b"100664", b"group.py", blob), (b"040000", b"padded", inner), (b"100644", b"plain.py", blob),
               (b"40000", b"src", inner))
    commit = _git(root, "commit-tree", top, "-m", "odd modes").strip()
    assert list_commits_files(root, [commit], "") == [list_files(root, commit, "")]
    assert sorted(list_commits_files(root, [commit], "")[0]) == ["group.py", "padded/m.py", "plain.py", "src/m.py"]
    assert _tree_entries(b"040000 d\0" + b"\1" * 20, 20) == [(0o040000, "d", "01" * 20)]

    depth = 5000
    entries = {f"t{i}": [(0o040000, "d", f"t{i + 1}")] for i in range(depth)}
    entries[f"t{depth}"] = [(0o100000, "m.py", "b")]
    order = _children_first(["t0"], entries)
    assert order[0] == f"t{depth}" and order[-1] == "t0" and len(order) == depth + 1


def test_history_keeps_each_file_versions_facts_and_a_second_run_parses_none(tmp_path):
    """The facts of every file version go to the cache as a scan's do: a second history, with one job or a
    pool, parses nothing and gives the same table; `--no-cache` writes no cache."""
    from reply_audit.history import history

    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    for n in range(3):
        write_tree(root, {"server.py": HANDLER + f"\nVERSION = {n}\n", "util.py": "X = 1\n"})
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"step {n}")
    profile = load_profile("canonical")
    for filling in (1, 2):   # the facts kept by this process, or by the pool's workers
        cache = tmp_path / f"cache-{filling}"
        first = history(root, "", profile, jobs=filling, cache_dir=cache)
        assert first.attrs["stats"] == {"commits": 3, "blobs": 4, "cached": 0, "evaluated": 3}
        for jobs in (1, 2):
            again = history(root, "", profile, jobs=jobs, cache_dir=cache)
            assert again.attrs["stats"]["cached"] == 4 and again.equals(first)
    assert RUNNER.invoke(app, ["history", str(root), "--no-cache", "--out", str(tmp_path / "out")]).exit_code == 0
    assert not (root / ".reply-audit-cache").exists()
    assert RUNNER.invoke(app, ["history", str(root), "--out", str(tmp_path / "out")]).exit_code == 0
    assert (root / ".reply-audit-cache" / "CACHEDIR.TAG").exists()


def test_spawned_workers_file_facts_where_their_caller_reads_them(tmp_path):
    """A worker started by spawn runs without its caller's interpreter settings (`-X int_max_str_digits`), which
    are part of the cache folder's name: it files its facts in the caller's folder all the same."""
    import subprocess
    import sys

    code = ("import sys; from pathlib import Path\n"
            "from reply_audit.cache import FactsCache\n"
            "from reply_audit.profile import load_profile\n"
            "from reply_audit.workers import extract_all\n"
            "if __name__ == '__main__':\n"
            f"    root, cache = Path({str(EXAMPLE)!r}), Path({str(tmp_path / 'cache')!r})\n"
            "    profile = load_profile(None, root)\n"
            "    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob('*.py'))\n"
            "    for _ in range(2):\n"
            "        _, stats = extract_all(root, rels, profile, jobs=2, cache=FactsCache(cache, profile.digest),\n"
            "                               start_method='spawn')\n"
            "        print(stats.parsed, stats.cached)\n")
    script = tmp_path / "run.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, "-X", "int_max_str_digits=1000", str(script)], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["13", "0", "0", "13"]
    assert len([p for p in (tmp_path / "cache").iterdir() if p.is_dir()]) == 1


def test_every_version_of_a_path_goes_to_the_worker_that_read_its_first():
    """Each history worker keeps the statements the versions it read share (facts.versions): a path stays with
    its worker, and a path not seen yet goes to the worker sent the fewest bytes."""
    from reply_audit.history import _BlobFacts

    blobs = object.__new__(_BlobFacts)
    blobs.wanted, blobs.owner, blobs.load = 2, {}, [0, 0]
    assert blobs._assign([("a.py", b"x" * 10), ("b.py", b"y" * 5), ("a.py", b"x" * 11), ("c.py", b"z")]) == \
        [[0, 2], [1, 3]]
    assert blobs._assign([("c.py", b"z" * 40), ("d.py", b"w"), ("b.py", b"")]) == [[1], [0, 2]]
    assert blobs.load == [22, 46]
