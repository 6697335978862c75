"""Rewrites of real Python files, cut down (`codemods.hollow`) and whole: they must be the same.

    python scripts/cut_differential.py DIR [DIR ...] [--files N] [--seed S]

Takes up to N Python files under the DIRs (a seeded sample), and in each plans
edits of every kind the rewriter knows, at places chosen by the seed: up to
three functions get a setup statement, a decorator and each of their returns
wrapped in a call (with a comment on the statement); up to two method calls
are renamed and two string literals replaced. Each file is rewritten by
`apply.rewrite_source` as `migrate` does, and again with cutting turned off;
the new bytes, the edits applied, the refusals and their reasons, and the
file-level problem must be equal. One difference is expected and counted
apart: a file libcst cannot handle whole (syntax it does not parse, an
expression nested too deeply for it to print, in a part no edit touches) is
refused whole and rewritten cut, the part kept as it is.
Prints one line per file that differs otherwise and the counts; exits 1 when
any does.
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
from dataclasses import field
from pathlib import Path
from typing import Any

import libcst as cst

import reply_audit.codemods.apply as apply_module
from reply_audit.codemods.base import Edit
from reply_audit.codemods.convert import _insert_setup
from reply_audit.codemods.edits import ReplaceCode, RewriteCall, returning
from reply_audit.codemods.ftypes import Refused, Target
from reply_audit.codemods.hollow import hollow
from reply_audit.record_class import record


@record
class WrapReturns(Edit):
    """A setup statement and a decorator on one function, and each of its returns wrapped: `return wrap(X, "X")`."""

    function: str = ""
    line: int = 0
    returns: list[tuple[int, int, int, int]] = field(default_factory=list)

    def targets(self) -> list[Target]:
        return [Target("return", span) for span in self.returns] + [Target("def", (self.function, self.line))]

    def rewrite(self, target: Target, original: Any, updated: Any, ctx: Any) -> Any:
        if target.kind == "def":
            node = _insert_setup(updated, ["rb = Builder()"])
            return node.with_changes(decorators=[*node.decorators, cst.Decorator(cst.Name("wrapped"))])
        if updated.value is None:
            raise Refused("a bare return")
        ctx.comment_statement("wrapped")
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return returning(updated, cst.Call(func=cst.Name("wrap"), args=[cst.Arg(updated.value, comma=comma),
                                                                         cst.Arg(ctx.string("X"))]))


def plan(path: str, source: bytes, rng: random.Random) -> list[Edit]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    edits: list[Edit] = []
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for function in rng.sample(functions, min(3, len(functions))):
        inner = {id(r) for scope in ast.walk(function) if scope is not function
                 and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for r in ast.walk(scope)}
        spans = [(r.lineno, r.col_offset, r.end_lineno or r.lineno, r.end_col_offset or 0)
                 for r in ast.walk(function) if isinstance(r, ast.Return) and id(r) not in inner][:6]
        edits.append(WrapReturns("wrap", path, spans or [(function.lineno, 0, function.lineno, 0)], function.name,
                                 imports=["from wrapping import wrap, Builder"],
                                 definitions={"wrapped": "def wrapped(f):\n    return f\n"},
                                 function=function.name, line=function.lineno, returns=spans))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
    for call in rng.sample(calls, min(2, len(calls))):
        assert isinstance(call.func, ast.Attribute)
        edits.append(RewriteCall("call", path, [(call.lineno, call.col_offset, call.end_lineno or call.lineno,
                                                 call.end_col_offset or 0)], f"call {call.lineno}",
                                 method=call.func.attr, new_method=call.func.attr + "_x"))
    strings = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
               and n.lineno == n.end_lineno and len(n.value) < 30 and not set(n.value) & set("\\'\"\n")]
    for string in rng.sample(strings, min(2, len(strings))):
        edits.append(ReplaceCode("string", path, [(string.lineno, string.col_offset, string.lineno,
                                                   string.end_col_offset or 0)], f"string {string.lineno}",
                                 old=str(string.value), new=f"{string.value}-X"))
    return edits


def outcome(result: Any) -> tuple[object, ...]:
    return (result.new_source, [e.description for e in result.applied],
            [(e.description, reason) for e, reason in result.refused], result.problem)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    files = sorted(p for d in args.dirs for p in d.rglob("*.py") if p.is_file())
    files = rng.sample(files, min(args.files, len(files)))
    counts = {"files": 0, "cut": 0, "differ": 0, "rewritten only cut": 0, "applied": 0, "refused": 0,
              "problems": 0, "raised": 0}
    cut_down = apply_module.hollow
    for path in files:
        try:
            source = path.read_bytes()
        except OSError:
            continue
        edits = plan(str(path), source, rng)
        if not edits:
            continue
        counts["files"] += 1
        lines = [apply_module._lines(t) for e in edits for t in e.targets()]
        counts["cut"] += hollow(source, lines) is not None
        answers = []
        for cutting in (cut_down, lambda source, lines, tree=None: None):
            apply_module.hollow = cutting   # type: ignore[assignment]
            try:
                answers.append(outcome(apply_module.rewrite_source(source, edits)))
            except Exception as exc:   # an edit that raises: it must raise the same either way
                answers.append(("raised", type(exc).__name__, str(exc)))
            finally:
                apply_module.hollow = cut_down
        if answers[0][0] == "raised":
            counts["raised"] += 1
        else:
            counts["applied"] += len(answers[0][1])
            counts["refused"] += len(answers[0][2])
            counts["problems"] += answers[0][3] is not None
        whole_problem = str(answers[1][3]) if answers[1][0] != "raised" else ""
        if answers[0] != answers[1] and answers[0][3] is None and whole_problem.startswith(
                ("libcst cannot parse", "nested too deeply for libcst")):
            counts["rewritten only cut"] += 1
        elif answers[0] != answers[1]:
            counts["differ"] += 1
            print(f"differs: {path}")
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
