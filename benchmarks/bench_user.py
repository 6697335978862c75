"""Benchmark: speed as a user feels it, every case a whole process, as ratios measured in one run.

    python benchmarks/bench_user.py PATH [--copies 15] [--repo GIT_DIR] [--migrate TREE] [--repeat N] [--json FILE]

PATH is a tree to scan (a repository's head, ck3raven 27013af for the published figures). The benchmark copies
it into a scratch folder (and builds a tree of COPIES copies of it there), so nothing in PATH is touched. Each
case runs as `python -m reply_audit ...`, the way a user, a hook or CI runs it, with the bytecode of the
package already written (the first, discarded run writes it). Cases are run in turns (A B A B ...), N times
each, and the medians compared, so the machine's load falls on both sides of a ratio alike.

The floor is `ast.parse` of every file the scan reads, in one process (`floor`): no tool can check a file
without reading and parsing it. `ruff check --select ALL --no-cache` on the same files is shown beside it when
ruff is installed.

Cases and targets (issue 19):
* warm: a rescan with nothing changed (the report memo holds its report): <= 0.3 s;
* one-file: a rescan after one file changed: <= 0.4 s;
* cold -j 1: no cache, one process: <= 2x the floor;
* cold default: the default number of jobs, never slower than -j 1;
* the COPIES-copy tree, cold, default jobs: <= 1.0x the single-process floor, <= 400 MB for all its processes;
* migrate (the diff): <= a scan (both with the tree's cache) plus libcst parsing only the files it rewrites
  (a process that only starts Python is taken off once); shown too for a first run, whose cache holds the
  tree's files but not the sources migrate makes of them;
* with --repo: `history` of the whole history, <= 10x one cold scan (no cache), both run N times in turns,
  and again (once) after a first run filled its facts cache.
Nothing here asserts a time; it prints the figures and, with --json, writes them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from reply_audit.api import cache_folder
from reply_audit.discovery import discover
from reply_audit.profile import load_profile

PY = sys.executable
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"NO_COLOR": "1", "CI": "1"}

FLOOR = """
import ast, sys
root = sys.argv[1]
for rel in open(sys.argv[2], encoding="utf-8").read().splitlines():
    try:
        with open(root + "/" + rel, "rb") as f:
            compile(f.read(), rel, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, OSError, RecursionError):
        pass
"""

LIBCST = """
import sys, libcst
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        libcst.parse_module(f.read()).code
"""


def _tree_rss(pid: int) -> int:
    """Resident memory of PID and every process below it, in KB (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") // 1024
    total, todo = 0, [pid]
    while todo:
        one = todo.pop()
        total += rss.get(one, 0)
        todo += children.get(one, [])
    return total


def run(argv: list[str], cwd: Path | None = None, memory: bool = False) \
        -> tuple[float, int, subprocess.CompletedProcess[bytes]]:
    """(seconds, peak KB of the whole process tree, the finished process) of ARGV. The peak is sampled (every
    20 ms, reading /proc, about a tenth of a CPU) only with MEMORY, in a run whose time is not counted: it would
    take that CPU from the run it times; without MEMORY it is 0."""
    peak = [0]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True) if memory else None
    if sampler is not None:
        sampler.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    done.set()
    if sampler is not None:
        sampler.join()
    return seconds, peak[0], subprocess.CompletedProcess(argv, proc.returncode, out, err)


def reply_audit(*args: str | Path) -> list[str]:
    return [PY, "-m", "reply_audit", *map(str, args)]


def turns(cases: dict[str, list[str] | tuple[list[str], object]], repeat: int,
          memory: tuple[str, ...] = ()) -> dict[str, dict[str, float]]:
    """Each case run REPEAT times in turns; per case the median seconds, and for the cases MEMORY names the
    peak KB, from one more run that is not timed. A case may be (argv, before) where BEFORE is called ahead of
    each run (to change a file, say)."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    peaks: dict[str, int] = dict.fromkeys(cases, 0)
    for turn in range(repeat + 1):
        for name, case in cases.items():
            sampled = turn == repeat
            if sampled and name not in memory:
                continue
            argv, before = case if isinstance(case, tuple) else (case, None)
            if callable(before):
                before()
            seconds, peak, done = run(argv, memory=sampled)
            if done.returncode not in (0, 1):
                raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr.decode()[-800:]}")
            if sampled:
                peaks[name] = peak
            else:
                times[name].append(seconds)
    return {name: {"seconds": statistics.median(times[name]), "peak_mb": peaks[name] / 1024} for name in cases}


def copy_tree(source: Path, target: Path, copies: int = 1) -> Path:
    """SOURCE copied to TARGET (COPIES times side by side, in copy-N folders, when more than one); a git work
    tree becomes a plain folder with one pyproject.toml at the top."""
    ignore = shutil.ignore_patterns(".git", ".reply-audit-cache", "__pycache__")
    if copies == 1:
        shutil.copytree(source, target, ignore=ignore, symlinks=True)
        return target
    target.mkdir(parents=True)
    if (source / "pyproject.toml").exists():
        shutil.copy(source / "pyproject.toml", target / "pyproject.toml")
    for n in range(copies):
        shutil.copytree(source, target / f"copy-{n:02d}", ignore=ignore, symlinks=True)
    return target


def files_of(root: Path) -> list[str]:
    profile = load_profile(None, root)
    return discover(root, profile.scan_list("include"), profile.scan_list("exclude")).files


def measure(path: Path, copies: int, repo: Path | None, repeat: int,
            migrate_path: Path | None = None) -> dict[str, object]:
    scratch = Path(tempfile.mkdtemp(prefix="reply-audit-bench-"))
    figures: dict[str, object] = {}
    try:
        tree = copy_tree(path, scratch / "tree")
        listing = scratch / "files.txt"
        files = files_of(tree)
        listing.write_text("\n".join(files), encoding="utf-8")
        cache = scratch / "cache"
        scan = ["scan", tree, "--fail-on", "none", "-f", "json", "-o", os.devnull]
        changed = tree / files[len(files) // 2]
        original = changed.read_bytes()
        edits = iter(range(10**6))

        def change_one() -> None:   # a real change: new bytes every time, so no cache can hold it
            changed.write_bytes(original + f"\n# edit {next(edits)}\n".encode())

        def restore() -> None:      # the tree as the kept report saw it: nothing changed since
            changed.write_bytes(original)

        rescan = reply_audit("scan", tree, "--fail-on", "none", "--cache-dir", cache)
        run(reply_audit(*scan, "--cache-dir", cache))   # bytecode written, facts cache filled
        run(rescan)                                     # and the report of the unchanged tree kept
        cases: dict[str, list[str] | tuple[list[str], object]] = {
            "floor": [PY, "-c", FLOOR, str(tree), str(listing)],
            "cold -j 1": reply_audit(*scan, "--no-cache", "-j", "1"),
            "cold default": reply_audit(*scan, "--no-cache"),
            "warm": (rescan, restore),
            "one-file": (rescan, change_one),
        }
        if shutil.which("ruff"):
            cases["ruff --select ALL"] = ["ruff", "check", "--select", "ALL", "--no-cache", "--exit-zero", "-q",
                                          str(tree)]
        one = turns(cases, repeat)
        changed.write_bytes(original)
        figures["tree"] = {"files": len(files), **one}

        mig = copy_tree(migrate_path or path, scratch / "migrate")
        # the cache migrate uses is at the project's root: the folder of the tree's configuration, else of a .git
        # above it (outside the scratch folder when the tree has no configuration and the temporary folder is in
        # a repository: the entries the benchmark adds there are removed at the end)
        mig_cache = cache_folder(mig)
        assert mig_cache is not None   # (None only when the cache is turned off)

        def cache_entries() -> set[Path]:
            return set(mig_cache.rglob("*.json"))

        foreign = cache_entries()
        run(reply_audit("scan", mig, "--fail-on", "none"))   # the tree's cache holds the facts of its files
        entries = cache_entries()
        migrate = run(reply_audit("migrate", mig))   # and now of the rewritten sources too
        rewritten = sorted({line[6:].split("\t")[0] for line in migrate[2].stdout.decode().splitlines()
                            if line.startswith("+++ b/")})
        parse = [PY, "-c", LIBCST, *(str(mig / rel) for rel in rewritten)]
        run(reply_audit("scan", mig, "--fail-on", "none"))

        def forget_rewrites() -> None:   # a first migrate: the cache knows the tree, not what migrate makes of it
            for entry in cache_entries() - entries:
                entry.unlink()

        migrate_cases = {"migrate": reply_audit("migrate", mig),
                         "migrate, first run": (reply_audit("migrate", mig), forget_rewrites),
                         "scan": reply_audit("scan", mig, "--fail-on", "none"),
                         "libcst on rewritten files": parse, "python": [PY, "-c", "pass"]}
        figures["migrate"] = {"rewritten files": len(rewritten), **turns(migrate_cases, repeat)}
        for entry in cache_entries() - foreign if scratch not in mig_cache.parents else ():
            entry.unlink()

        if copies > 1:
            big = copy_tree(path, scratch / "big", copies)
            big_listing = scratch / "big-files.txt"
            big_files = files_of(big)
            big_listing.write_text("\n".join(big_files), encoding="utf-8")
            big_scan = ["scan", big, "--fail-on", "none", "-f", "json", "-o", os.devnull, "--no-cache"]
            big_cases: dict[str, list[str] | tuple[list[str], object]] = {
                "floor": [PY, "-c", FLOOR, str(big), str(big_listing)],
                "cold -j 1": reply_audit(*big_scan, "-j", "1"),
                "cold default": reply_audit(*big_scan),
            }
            if shutil.which("ruff"):
                big_cases["ruff --select ALL"] = ["ruff", "check", "--select", "ALL", "--no-cache", "--exit-zero",
                                                  "-q", str(big)]
            figures["copies"] = {"copies": copies, "files": len(big_files),
                                 **turns(big_cases, repeat, memory=("cold default",))}
            shutil.rmtree(big, ignore_errors=True)
        if repo is not None:   # cold (no cache) in turns with a cold scan, then again with a cache filled once
            history = reply_audit("history", repo, "--out", scratch / "history")
            paired = turns({"cold default": reply_audit(*scan, "--no-cache"), "history": [*history, "--no-cache"]},
                           repeat)
            kept = [*history, "--cache-dir", str(scratch / "history-cache")]
            for _ in range(2):   # the first run fills the cache, the second is timed
                seconds, _, done = run(kept)
                if done.returncode != 0:
                    raise SystemExit(f"history: exit {done.returncode}: {done.stderr.decode()[-800:]}")
            figures["history"] = {"seconds": paired["history"]["seconds"],
                                  "cold scan seconds": paired["cold default"]["seconds"], "warm_seconds": seconds,
                                  "summary": done.stdout.decode().strip().splitlines()[-1:]}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return figures


def report(figures: dict[str, object]) -> list[str]:
    tree: dict = figures["tree"]   # type: ignore[assignment]
    t = {k: v["seconds"] for k, v in tree.items() if isinstance(v, dict)}
    lines = [f"tree: {tree['files']} files; medians of whole processes, seconds",
             "  " + " | ".join(f"{k} {v:.3f}" for k, v in t.items()),
             f"  warm rescan          {t['warm']:.3f} s   (target <= 0.3 s)",
             f"  one-file rescan      {t['one-file']:.3f} s   (target <= 0.4 s)",
             f"  cold -j 1 / floor    {t['cold -j 1'] / t['floor']:.2f}x   (target <= 2x)",
             f"  default / -j 1       {t['cold default'] / t['cold -j 1']:.2f}x   (target <= 1.0x)"]
    if "ruff --select ALL" in t:
        lines.append(f"  ruff --select ALL    {t['ruff --select ALL']:.3f} s = "
                     f"{t['ruff --select ALL'] / t['floor']:.2f}x the floor")
    m: dict = figures["migrate"]   # type: ignore[assignment]
    budget = m["scan"]["seconds"] + m["libcst on rewritten files"]["seconds"] - m["python"]["seconds"]
    lines.append(f"  migrate (diff)       {m['migrate']['seconds']:.3f} s against scan + libcst on its "
                 f"{m['rewritten files']} rewritten file(s) {budget:.3f} s = {m['migrate']['seconds'] / budget:.2f}x"
                 "   (target <= 1.0x)")
    if "migrate, first run" in m:
        first = m["migrate, first run"]["seconds"]
        lines.append(f"  migrate, first run   {first:.3f} s = {first / budget:.2f}x   (the rewritten sources' facts "
                     "not cached yet)")
    if "copies" in figures:
        c: dict = figures["copies"]   # type: ignore[assignment]
        lines += [f"{c['copies']} copies: {c['files']} files",
                  f"  cold default / floor {c['cold default']['seconds'] / c['floor']['seconds']:.2f}x "
                  f"({c['cold default']['seconds']:.2f} s against {c['floor']['seconds']:.2f} s)   (target <= 1.0x)",
                  f"  cold -j 1 / floor    {c['cold -j 1']['seconds'] / c['floor']['seconds']:.2f}x",
                  *([f"  ruff --select ALL    {c['ruff --select ALL']['seconds']:.2f} s = "
                     f"{c['ruff --select ALL']['seconds'] / c['floor']['seconds']:.2f}x the floor"]
                    if "ruff --select ALL" in c else []),
                  f"  peak memory, all processes: {c['cold default']['peak_mb']:.0f} MB   (target <= 400 MB)"]
    if "history" in figures:
        h: dict = figures["history"]   # type: ignore[assignment]
        cold = h["cold scan seconds"]
        lines.append(f"history: {h['seconds']:.1f} s = {h['seconds'] / cold:.1f}x one cold scan ({cold:.2f} s, in "
                     f"the same turns) (target <= 10x); again with its facts cache {h['warm_seconds']:.1f} s = "
                     f"{h['warm_seconds'] / cold:.1f}x; {' '.join(h['summary'])}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--copies", type=int, default=15, help="copies in the large tree (1: none)")
    parser.add_argument("--repo", type=Path, default=None, help="a git repository for the history case")
    parser.add_argument("--migrate", type=Path, default=None,
                        help="a tree for the migrate case, one not migrated yet [default: PATH]")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    figures = measure(args.path, args.copies, args.repo, args.repeat, args.migrate)
    print("\n".join(report(figures)))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
