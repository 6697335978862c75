"""Benchmark: scan speed and memory at scale, as ratios measured in one run.

    python benchmarks/bench_scale.py PATH [--repo GIT_DIR] [--repeat N]

PATH is a tree to scan (for example a repository's head). Measured, medians
of N alternating runs in this process unless said otherwise:

* cold scan (facts extracted, no cache, one process) vs the `ast.parse`
  floor of the same files;
* warm scan (every file's facts from the cache) vs cold scan, and how many
  files the warm scan parsed (it should be 0);
* `-j 2` vs `-j 1` (cold, no cache);
* with --repo: `history` of the whole git history (once, `-j 2`) vs one cold
  scan, with its counts of commits, unique blobs and evaluated commits;
* peak resident memory of this process and of its worker processes.

Every scan here includes the rules (`evaluate`), as `reply-audit scan` does.
Nothing asserts a time.
"""

from __future__ import annotations

import argparse
import ast
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from reply_audit.discovery import discover
from reply_audit.engine import evaluate
from reply_audit.profile import load_profile
from reply_audit.scan import scan


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def floor(root: Path, files: list[str]) -> None:
    for rel in files:
        try:
            compile((root / rel).read_bytes(), rel, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError, OSError, RecursionError):
            pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--repo", type=Path, default=None, help="a git repository for the history measurement")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    profile = load_profile(None, args.path)
    found = discover(args.path, profile.scan_list("include"), profile.scan_list("exclude"))
    cache = Path(tempfile.mkdtemp(prefix="reply-audit-bench-"))
    try:
        evaluate(scan(args.path, profile, jobs=1))   # imports and the OS file cache
        evaluate(scan(args.path, profile, jobs=1, cache_dir=cache))   # fill the cache
        floors, colds, warms, twos = [], [], [], []
        parsed_warm = None
        for _ in range(args.repeat):
            floors.append(timed(lambda: floor(found.root, found.files))[0])
            colds.append(timed(lambda: evaluate(scan(args.path, profile, jobs=1)))[0])
            seconds, result = timed(lambda: scan(args.path, profile, jobs=1, cache_dir=cache))
            seconds += timed(lambda result=result: evaluate(result))[0]
            warms.append(seconds)
            parsed_warm = result.stats.parsed
            twos.append(timed(lambda: evaluate(scan(args.path, profile, jobs=2)))[0])
        f, cold, warm, two = (statistics.median(x) for x in (floors, colds, warms, twos))
        print(f"files: {len(found.files)}  repeat: {args.repeat}")
        print(f"ast.parse floor {f:.3f} s | cold scan {cold:.3f} s | warm scan {warm:.3f} s "
              f"(parsed {parsed_warm}) | -j 2 {two:.3f} s")
        print(f"cold / floor: {cold / f:.2f}x   (target <= 2x)")
        print(f"warm / cold:  {warm / cold:.1%}   (target <= 15 %, and <= 0.3 s: {warm:.3f} s)")
        print(f"-j 2 / -j 1:  {two / cold:.2f}x")
        if args.repo is not None:
            from reply_audit.gitrev import prefix_of
            from reply_audit.history import history

            seconds, table = timed(lambda: history(args.repo, prefix_of(args.repo), profile, jobs=2))
            stats = table.attrs["stats"]
            print(f"history: {stats['commits']} commits, {stats['blobs']} unique blobs, {stats['evaluated']} "
                  f"evaluated: {seconds:.1f} s = {seconds / cold:.1f}x one cold scan   (target <= 25x)")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS: this process {own:.0f} MB, largest worker {children:.0f} MB   (target <= 200 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
