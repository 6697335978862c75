#!/usr/bin/env python3
"""Check what `reply-audit migrate` does to a real tree, the way a reviewer would, and print the figures.

Usage: python scripts/check_migration.py TREE [--pyright CMD] [--json]

TREE is a git work tree (committed, clean). It is copied twice to a temporary folder; one copy gets
`migrate --phase 1 --apply`, the other `migrate --apply` (all phases). Both are scanned again and read:

* phase 1 alone: handlers wrapped by the safety decorator that still return something other than a reply;
* all phases: raw dict returns left in handlers, each with the reason migrate gave; wrapped handlers still
  annotated as returning a dict; builder calls whose literal `data=` holds the code key; converted returns
  whose legacy dict had error or message text, and how many of them pass it on (`message=`, or the run-time
  classifier, which does); every changed file compiles; a second run changes nothing; the diff of the first
  run applies with `git apply` to a fresh copy;
* with --pyright CMD (e.g. `npx pyright`): the errors pyright reports in the changed files, before and after.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TEXT_KEYS = ("error", "message", "reason")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True)


def tool(*args: str) -> subprocess.CompletedProcess:
    return run(sys.executable, "-m", "reply_audit", *args)


def copy(tree: Path, where: Path) -> Path:
    shutil.copytree(tree, where, symlinks=True, ignore=shutil.ignore_patterns(".reply-audit-cache"))
    return where


def scan(tree: Path) -> dict:
    done = tool("scan", str(tree), "-f", "json", "--fail-on", "none", "--no-cache")
    if done.returncode != 0:
        raise SystemExit(f"scan failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def wrapped(handler: dict, safety: str) -> bool:
    return any(d == safety or d.endswith("." + safety) for d in handler["decorators"])


def literal_returns(tree: Path, doc: dict) -> dict[tuple[str, int], set[str]]:
    """(path, line) of each literal dict a handler returns -> its keys with a value that is not None."""
    out = {}
    for h in doc["handlers"]:
        for r in h["returns"]:
            if r["kind"] == "dict" and r["literal"]:
                out[(h["path"], r["line"])] = {k for k, v in r["key_values"].items() if v != "none"}
    return out


def calls_after(tree: Path, paths: set[str], helper: str) -> tuple[list[tuple[str, int, ast.Call]], int]:
    """Every returned call in the changed files (path, line, call), and how many pass `code` inside data=."""
    found, code_in_data = [], 0
    for rel in sorted(paths):
        module = ast.parse((tree / rel).read_bytes())
        for node in ast.walk(module):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                found.append((rel, node.lineno, node.value))
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "data" and isinstance(kw.value, ast.Dict) and any(
                            isinstance(k, ast.Constant) and k.value == "code" for k in kw.value.keys):
                        code_in_data += 1
    return found, code_in_data


def line_map(old: Path, new: Path) -> dict[int, int]:
    """Old line number -> new line number, from a line diff (a changed line maps to its replacement's start)."""
    import difflib

    a = old.read_text(encoding="utf-8", errors="replace").splitlines()
    b = new.read_text(encoding="utf-8", errors="replace").splitlines()
    out = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for i in range(i1, i2):
            out[i + 1] = (j1 + min(i - i1, max(j2 - j1 - 1, 0)) if tag != "equal" else j1 + i - i1) + 1
    return out


def pyright_errors(cmd: str, tree: Path, files: list[str]) -> int:
    done = run(*cmd.split(), "--outputjson", *files, cwd=tree)
    try:
        return json.loads(done.stdout)["summary"]["errorCount"]
    except (ValueError, KeyError):
        raise SystemExit(f"pyright gave no JSON: {done.stderr.strip()[-300:]}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--pyright", default=None, help="a pyright command, e.g. 'npx pyright'")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="check-migration-"))
    try:
        figures = check(args.tree.resolve(), work, args.pyright)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")


def check(tree: Path, work: Path, pyright: str | None) -> dict:
    before = scan(tree)
    safety = before["profile"].get("handlers", {}).get("safety_decorator", "") if isinstance(
        before.get("profile"), dict) else ""
    safety = safety or "mcp_safe_tool"
    figures: dict = {"handlers": len(before["handlers"]),
                     "raw dict returns before": sum(r["kind"] == "dict" for h in before["handlers"]
                                                    for r in h["returns"])}

    phase1 = copy(tree, work / "phase1")
    tool("migrate", str(phase1), "--phase", "1", "--apply", "--allow-dirty")
    after1 = scan(phase1)
    figures["phase 1: wrapped handlers returning something other than a reply"] = sum(
        1 for h in after1["handlers"] if wrapped(h, safety)
        and any(r["kind"] not in ("builder", "reply") for r in h["returns"]))

    full = copy(tree, work / "all")
    shown = tool("migrate", str(full), "-f", "json")
    diff = tool("migrate", str(full)).stdout
    done = tool("migrate", str(full), "--apply", "--allow-dirty", "-f", "json")
    report = json.loads(done.stdout)
    plan = json.loads(shown.stdout)
    changed = {f["path"] for f in report["files"]}
    after = scan(full)
    left = [(h["path"], r["line"]) for h in after["handlers"] for r in h["returns"] if r["kind"] == "dict"]
    reasons = {(s["path"], s["line"]): s["reason"] for s in report["skipped"] if s["rule"] == "RA306"}
    figures["all phases: raw dict returns left in handlers"] = len(left)
    figures["  ...each with its reason"] = sorted({reasons.get(where, "(no reason given)") for where in left})
    figures["wrapped handlers still annotated as returning a dict"] = sum(
        1 for h in after["handlers"] if wrapped(h, safety)
        and (h.get("annotation") or "").split("[")[0] in ("dict", "Dict", "typing.Dict"))
    helper = "_reply_from_legacy"
    calls, code_in_data = calls_after(full, changed, helper)
    figures["builder calls with a code key inside data="] = code_in_data
    texts = literal_returns(tree, before)
    by_line: dict[str, dict[int, ast.Call]] = {}
    for rel, line, call in calls:
        by_line.setdefault(rel, {})[line] = call
    maps = {rel: line_map(tree / rel, full / rel) for rel in changed}
    with_text = passed = 0
    missing = []
    for (rel, line), keys in texts.items():
        if not keys & set(TEXT_KEYS) or rel not in changed:
            continue
        call = by_line.get(rel, {}).get(maps[rel].get(line, -1))
        if call is None:
            continue
        name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
        with_text += 1
        if name == helper or any(kw.arg == "message" for kw in call.keywords):
            passed += 1
        else:
            missing.append(f"{rel}:{line}")
    figures["converted returns whose dict had error/message text"] = with_text
    figures["  ...passing it on as the reply's message"] = (
        f"{passed} ({100 * passed / with_text:.0f}%)" if with_text else "n/a")
    figures["  ...not passing it on"] = missing
    figures["changed files that compile"] = f"{sum(_compiles(full / p) for p in changed)}/{len(changed)}"
    again = tool("migrate", str(full), "-f", "json")
    figures["second run changes"] = len(json.loads(again.stdout)["files"])
    fresh = copy(tree, work / "fresh")
    patch = work / "migrate.diff"
    patch.write_text(diff, encoding="utf-8")
    applied = run("git", "apply", str(patch), cwd=fresh)
    figures["diff applies with git apply"] = applied.returncode == 0 and len(plan["files"]) == len(changed)
    if pyright:
        files = sorted(changed)
        figures["pyright errors in changed files, before"] = pyright_errors(pyright, tree, files)
        figures["pyright errors in changed files, after"] = pyright_errors(pyright, full, files)
    return figures


def _compiles(path: Path) -> bool:
    try:
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


if __name__ == "__main__":
    main()
