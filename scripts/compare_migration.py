#!/usr/bin/env python3
"""Compare a tree migrated by `reply-audit migrate` with a reference migration (the one a team did by hand),
site by site: which reply type and code each converted return got, against the reference's.

Usage: python scripts/compare_migration.py OURS REFERENCE [--files GLOB ...] [--json]

Both trees are read with `ast`. In every function defined in both, each returned builder call of OURS
(`return rb.invalid(CODE, data={...}, message=...)`) is matched to one returned builder call of the
reference in the same function (or in the helper `_F_internal` the reference split it into), by the
literal keys of its data (less success flags and message keys, which a migration drops or keeps at will)
and the words and interpolated expressions of its texts (one-to-one, best pairs first, a pair needs half
its evidence in common and, where both have a text (the message, or the data's error, message or reason),
a quarter of its words and expressions; never by type or code). Returns OURS classifies at run time (a call to
the run-time classifier) are counted apart: they have no type until the code runs; their Success code is
compared with the Success codes the reference writes in the same function. Printed: matched sites,
reply-type and code agreement, builder calls that carry the default-code marker, and every disagreement.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

WORD = re.compile(r"[a-z0-9]+")
MARKER = "reply-audit: default-code"


@dataclass
class Site:
    path: str
    function: str
    line: int
    type: str            # S | I | D | E, or "runtime"
    code: str | None     # for a run-time site, the Success code it was given
    keys: frozenset[str]
    words: frozenset[str]
    marked: bool = False


def _text(node: ast.AST | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return ""


def _tokens(node: ast.AST | None) -> frozenset[str]:
    """A message's evidence: its literal words, plus each interpolated or computed expression as one token
    (`f"Unknown command: {command}"` -> unknown, command, {command}; `str(e)` -> {str(e)})."""
    if node is None:
        return frozenset()
    out = set(WORD.findall(_text(node).lower()))
    if isinstance(node, ast.JoinedStr):
        out |= {"{" + ast.unparse(v.value) + "}" for v in node.values if isinstance(v, ast.FormattedValue)}
    elif not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        out.add("{" + ast.unparse(node) + "}")
    return frozenset(out)


def _texts(data: ast.AST | None) -> frozenset[str]:
    """The words of a data dict's own texts (its error, message and reason values)."""
    if not isinstance(data, ast.Dict):
        return frozenset()
    return frozenset(w for k, v in zip(data.keys, data.values)
                     if isinstance(k, ast.Constant) and k.value in ("error", "message", "reason") for w in _tokens(v))


def sites(root: Path, globs: list[str], methods: dict[str, str], helper: str,
          ignored: frozenset[str] = frozenset()) -> dict[tuple[str, str], list[Site]]:
    """(path, function) -> the returned reply calls of that function, in source order. IGNORED: data keys that
    say nothing about a site (success flags and message keys: a migration drops or keeps them at will)."""
    out: dict[tuple[str, str], list[Site]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if globs and not any(fnmatch.fnmatch(rel, g) for g in globs):
            continue
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = source.splitlines()
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            found = []
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Return) and isinstance(node.value, ast.Call)):
                    continue
                call = node.value
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                end = lines[(node.end_lineno or node.lineno) - 1] if lines else ""
                if name in methods:
                    code = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
                    data = next((k.value for k in call.keywords if k.arg == "data"),
                                call.args[1] if len(call.args) > 1 else None)
                    message = next((k.value for k in call.keywords if k.arg == "message"), None)
                    keys = frozenset(k.value for k in getattr(data, "keys", []) or []
                                     if isinstance(k, ast.Constant) and isinstance(k.value, str))
                    found.append(Site(rel, fn.name, node.lineno, methods[name], code, keys - ignored,
                                      _tokens(message) | _texts(data), MARKER in end))
                elif name == helper:
                    data = call.args[0] if call.args else None
                    keys = frozenset(k.value for k in getattr(data, "keys", []) or []
                                     if isinstance(k, ast.Constant) and isinstance(k.value, str))
                    words = _texts(data)
                    success = call.args[2].value if len(call.args) > 2 and isinstance(call.args[2], ast.Constant) \
                        else None
                    found.append(Site(rel, fn.name, node.lineno, "runtime", success, keys - ignored, words,
                                      MARKER in end))
            if found:
                out.setdefault((rel, fn.name), []).extend(found)
    return out


def _score(a: Site, b: Site) -> float:
    parts = []
    if a.keys or b.keys:
        parts.append(len(a.keys & b.keys) / len(a.keys | b.keys))
    if a.words and b.words:   # a message only one side has (one a migration added) says nothing either way
        shared = len(a.words & b.words) / len(a.words | b.words)
        if shared < 0.25:
            return 0.0        # two texts with next to nothing in common are two situations, whatever their data
        parts.append(shared)
    return sum(parts) / len(parts) if parts else 0.0


def match(ours: list[Site], theirs: list[Site]) -> list[tuple[Site, Site]]:
    """One-to-one pairs, best evidence first; between equal evidence (two `message=str(e)` in one function),
    the pair whose places in their functions are closest."""
    def place(i: int, n: int) -> float:
        return i / (n - 1) if n > 1 else 0.0

    pairs = sorted(((_score(a, b), -abs(place(i, len(ours)) - place(j, len(theirs))), i, j)
                    for i, a in enumerate(ours) for j, b in enumerate(theirs)), reverse=True)
    used_a: set[int] = set()
    used_b: set[int] = set()
    out = []
    for score, _, i, j in pairs:
        if score < 0.5 or i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        out.append((ours[i], theirs[j]))
    return sorted(out, key=lambda p: p[0].line)


def _with_split_helpers(theirs: dict[tuple[str, str], list[Site]],
                        ours: dict[tuple[str, str], list[Site]]) -> dict[tuple[str, str], list[Site]]:
    """A migration often splits a handler F into a thin F and a helper `_F_internal` (`_F_impl`, `_F_core`)
    that holds the returns. A reference function named `_F_WORD` (one more word, no more) whose F is a function of
    OURS counts as part of F."""
    out = {key: list(group) for key, group in theirs.items()}
    for (path, name), group in theirs.items():
        stem, _, word = name.lstrip("_").rpartition("_")
        if name.startswith("_") and stem and word and (path, stem) in ours and (path, name) not in ours:
            out.setdefault((path, stem), []).extend(group)
    return out


def compare(ours_root: Path, ref_root: Path, globs: list[str]) -> dict:
    from reply_audit.profile import load_profile

    profile = load_profile(None, ours_root)
    methods = dict(profile.builder_methods)
    helper = str(profile.migrate_value("dict_returns.helper"))
    ignored = frozenset(profile.migrate_value("dict_returns.success_flags") or []) \
        | frozenset(profile.migrate_value("dict_returns.message_keys") or [])
    ours = sites(ours_root, globs, methods, helper, ignored)
    theirs = _with_split_helpers(sites(ref_root, globs, methods, helper, ignored), ours)
    pairs = [p for key in sorted(ours) if key in theirs for p in match(ours[key], theirs[key])]
    static = [(a, b) for a, b in pairs if a.type != "runtime"]
    calls = [s for group in ours.values() for s in group if s.type != "runtime"]
    disagreements = [{"path": a.path, "function": a.function, "line": a.line, "ours": [a.type, a.code],
                      "reference": [b.type, b.code], "reference_line": b.line}
                     for a, b in static if (a.type, a.code) != (b.type, b.code)]
    # a result classified at run time (`_reply_from_legacy(result, rb.success, S, …)`) against the Success codes
    # the reference writes in the same function: the reference usually splits it into one call per outcome
    runtime = [(s, {t.code for t in theirs.get(key, []) if t.type == "S" and t.code})
               for key, group in sorted(ours.items()) for s in group if s.type == "runtime"]
    runtime = [(s, codes) for s, codes in runtime if codes]
    return {
        "run-time sites whose Success code the reference writes in the same function":
            f"{sum(s.code in codes for s, codes in runtime)}/{len(runtime)}",
        "matched sites": len(pairs),
        "matched sites classified at run time": len(pairs) - len(static),
        "type agrees": f"{sum(a.type == b.type for a, b in static)}/{len(static)}",
        "code agrees": f"{sum(a.code == b.code for a, b in static)}/{len(static)}",
        "builder calls written with the default-code marker": f"{sum(s.marked for s in calls)}/{len(calls)}",
        "disagreements": disagreements,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ours", type=Path)
    parser.add_argument("reference", type=Path)
    parser.add_argument("--files", nargs="*", default=[], help="globs of the files to compare (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = compare(args.ours, args.reference, args.files)
    if args.json:
        json.dump(figures, sys.stdout, indent=2)
        print()
        return
    for key, value in figures.items():
        if key != "disagreements":
            print(f"{key}: {value}")
    for d in figures["disagreements"]:
        print(f"  {d['path']}:{d['line']} {d['function']}: ours {d['ours'][0]} {d['ours'][1]}, "
              f"reference {d['reference'][0]} {d['reference'][1]} (line {d['reference_line']})")


if __name__ == "__main__":
    main()
