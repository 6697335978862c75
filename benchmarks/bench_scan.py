"""Benchmark: `scan` against the `ast.parse` floor of the same files, in one process.

    python benchmarks/bench_scan.py PATH [--repeat N] [--profile NAME|FILE]

The floor reads and parses every file the scan would read (same discovery,
same bytes) and does nothing else; the scan does everything `reply-audit scan
--format json` does, including writing the JSON document to memory. Runs
alternate floor / scan N times and report the median of each and their ratio,
so machine load affects both sides alike. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import ast
import resource
import statistics
import sys
import time
from pathlib import Path

from reply_audit.discovery import discover
from reply_audit.profile import load_profile
from reply_audit.report.json_report import render_json
from reply_audit.scan import scan


def ast_floor(root: Path, files: list[str]) -> float:
    start = time.perf_counter()
    for rel in files:
        try:
            source = (root / rel).read_bytes()
            compile(source, rel, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError, OSError, RecursionError):
            pass
    return time.perf_counter() - start


def full_scan(root: Path, profile) -> float:
    start = time.perf_counter()
    render_json(scan(root, profile))
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", default=None, help="built-in profile or file (default: the tree's own)")
    args = parser.parse_args()
    profile = load_profile(args.profile, args.path)
    found = discover(args.path, profile.scan_list("include"), profile.scan_list("exclude"))
    size = sum((found.root / f).stat().st_size for f in found.files)
    floors, scans = [], []
    full_scan(args.path, profile)  # warm imports (pandas is not used by JSON) and the OS file cache
    for _ in range(args.repeat):
        floors.append(ast_floor(found.root, found.files))
        scans.append(full_scan(args.path, profile))
    floor, cold = statistics.median(floors), statistics.median(scans)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"files: {len(found.files)}  bytes: {size}  repeat: {args.repeat}")
    print(f"ast.parse floor (median): {floor:.3f} s")
    print(f"scan            (median): {cold:.3f} s")
    print(f"ratio scan / floor: {cold / floor:.2f}x  (target <= 2x)")
    print(f"peak RSS of this process: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
