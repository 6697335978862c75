"""Benchmark: `migrate` against `scan` of the same tree, in one process.

    python benchmarks/bench_migrate.py PATH [--repeat N] [--profile FILE]

`scan` is the full scan with rule evaluation (what `reply-audit scan` does
before it writes a report); `migrate` is what `reply-audit migrate` does
without `--apply`: the scan, the plan, libcst parsing of only the files that
have fixable findings, the rewrite passes to a fixpoint and the unified diff.
Nothing is written. Runs alternate scan / migrate N times and report the
medians, their ratio, how many files libcst parsed and the peak memory.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

from reply_audit.engine import evaluate
from reply_audit.migrate import migrate
from reply_audit.profile import load_profile
from reply_audit.scan import scan


def timed_scan(root: Path, profile) -> float:
    start = time.perf_counter()
    evaluate(scan(root, profile))
    return time.perf_counter() - start


def timed_migrate(root: Path, profile):
    start = time.perf_counter()
    scanned = scan(root, profile)
    result = migrate(scanned)
    result.diff()
    return time.perf_counter() - start, result, len(scanned.files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", default=None, help="profile name or file, as for the CLI")
    args = parser.parse_args()
    profile = load_profile(args.profile, args.path)
    timed_scan(args.path, profile)  # warm imports and the OS file cache
    scans, migrates = [], []
    result, files = None, 0
    for _ in range(args.repeat):
        scans.append(timed_scan(args.path, profile))
        seconds, result, files = timed_migrate(args.path, profile)
        migrates.append(seconds)
    scan_s, migrate_s = statistics.median(scans), statistics.median(migrates)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    parsed = len(result.originals) if result else 0
    print(f"files: {files}  rewritten: {len(result.changed)}  rewrites: {len(result.applied)}  "
          f"passes: {result.passes}  repeat: {args.repeat}")
    print(f"files parsed with libcst: {parsed} of {files}")
    print(f"scan    (median): {scan_s:.3f} s")
    print(f"migrate (median): {migrate_s:.3f} s")
    print(f"ratio migrate / scan: {migrate_s / scan_s:.2f}x")
    print(f"peak RSS of this process: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
