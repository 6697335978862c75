"""Handler results judged against a profile's `[result]` table, and each handler's compliance level.

Dialects such as IAR (seed 004) do not build replies with a builder: every handler
returns a dict that must carry an envelope (`{error, data, reflection}`), whose
reflection values and error objects follow fixed shapes. This module owns that
judgement. It reads the shapes extraction recorded for each return (dotted key ->
[kind, literal]) and says, per return, whether the envelope is there, missing, or
cannot be known statically, and which values break the profile; per handler, the
highest `[compliance]` level all its returns reach. Rules RA6xx and the reports
read `analyse(ctx)`; nothing here walks a syntax tree.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Protocol

from .names import Names
from .profile import Profile
from .record_class import record
from .records import Handler, Return

# Verdicts of one return.
ENVELOPE = "envelope"    # a dict carrying every required key
HELPER = "helper"        # a call to a [result] builders function: a whole result by construction
PARTIAL = "partial"      # a dict with some required keys
MISSING = "missing"      # a dict without any, None, or a literal of another type
UNKNOWN = "unknown"      # a call or a name whose value is not known statically

# The checks a compliance level may require: profile.COMPLIANCE_CHECKS (the profile validates them).


@record
class Problem:
    kind: str        # value | range | bare-error | error-object | error-code | nested-missing
    key: str         # the dotted key it is about
    detail: str


@record
class ReturnCheck:
    line: int
    verdict: str
    missing: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    record: Return = field(kw_only=True, repr=False)   # the return judged
    error_shape: str | None = None   # none | object | bare_string | other; None when the return has no error key


@record
class HandlerResult:
    handler: Handler
    returns: list[ReturnCheck]
    level: str | None
    failed: list[str]            # checks that kept the handler below the next level

    @property
    def ident(self) -> str:
        return f"{self.handler.path}::{self.handler.qualname}"


def enabled(profile: Profile) -> bool:
    return bool(profile.section("result").get("required_keys"))


def _heads(paths: list[str]) -> list[str]:
    out: list[str] = []
    for path in paths:
        head = path.split(".", 1)[0]
        if head not in out:
            out.append(head)
    return out


class ResultJudge:
    """Applies one profile's [result] and [compliance] tables."""

    def __init__(self, profile: Profile) -> None:
        result = profile.section("result")
        self.profile = profile
        self.required = list(result.get("required_keys", []))
        self.builders = Names(result.get("builders", []))   # names or globs (`make_*_result`)
        self.nested = list(result.get("required_nested", []))
        self.nested_heads = _heads(self.nested)
        self.values = {k: list(v) for k, v in result.get("values", {}).items()}
        self.ranges = {k: (float(v[0]), float(v[1])) for k, v in result.get("ranges", {}).items()}
        self.error_key = str(result.get("error_key", "error"))
        self.error_keys = list(result.get("error_object_keys", []))
        self.code_key = str(result.get("error_code_key", "code"))
        compliance = profile.section("compliance")
        self.order = list(compliance.get("order", []))
        self.levels = {k: list(v) for k, v in compliance.get("levels", {}).items()}

    # -- one return ---------------------------------------------------------------
    def check_return(self, record: Return) -> ReturnCheck:
        shape: dict[str, list[Any]] = record.shape or {}
        kind = record.kind
        callee = record.callee
        line = record.line
        if callee and callee.rsplit(".", 1)[-1] in self.builders:
            return ReturnCheck(line, HELPER, record=record)
        if "?" in shape:
            return ReturnCheck(line, UNKNOWN, record=record)
        if kind in ("dict",) or shape:
            keys = set(record.keys or []) | {p for p in shape if "." not in p}
            missing = [k for k in self.required if k not in keys]
            if missing and "**" in shape:   # a spread may bring them
                check = ReturnCheck(line, UNKNOWN, record=record)
                self._problems(shape, check)
                return check
            verdict = ENVELOPE if not missing else (PARTIAL if len(missing) < len(self.required) else MISSING)
            check = ReturnCheck(line, verdict, missing, record=record)
            self._problems(shape, check)
            return check
        if kind == "none":
            return ReturnCheck(line, MISSING, list(self.required), record=record)
        if kind in ("builder", "reply"):
            return ReturnCheck(line, MISSING, list(self.required), record=record)
        return ReturnCheck(line, UNKNOWN, record=record)

    def _problems(self, shape: dict[str, list[Any]], check: ReturnCheck) -> None:
        for head in self.nested_heads:
            present = shape.get(head)
            if present is None or present[0] != "dict":   # a helper call fills what its signature does not show
                continue
            missing = [p[len(head) + 1:] for p in self.nested if p.startswith(head + ".") and p not in shape]
            if missing and f"{head}.**" not in shape:
                check.problems.append(Problem("nested-missing", head, f"{head} lacks {', '.join(missing)}"))
        for path, allowed in self.values.items():
            value = shape.get(path)
            if value and value[0] in ("str", "bool", "number") and value[1] not in allowed:
                check.problems.append(Problem("value", path, f"{path} is {value[1]!r}, not one of "
                                              f"{', '.join(map(str, allowed))}"))
            elif value and value[0] in ("dict", "list", "fstring"):
                check.problems.append(Problem("value", path, f"{path} is a {value[0]}, not one of "
                                              f"{', '.join(map(str, allowed))}"))
        for path, (low, high) in self.ranges.items():
            value = shape.get(path)
            if not value:
                continue
            if value[0] == "number" and not low <= value[1] <= high:
                check.problems.append(Problem("range", path, f"{path} is {value[1]!r}, outside {low:g}..{high:g}"))
            elif value[0] in ("str", "bool"):
                check.problems.append(Problem("range", path, f"{path} is {value[1]!r}, not a number in "
                                              f"{low:g}..{high:g}"))
        error = shape.get(self.error_key)
        if error is None:
            return
        check.error_shape = "none" if error[0] == "none" else "object" if error[0] == "dict" else "other"
        if error[0] in ("str", "fstring") or (error[0] == "call" and error[1] in ("str", "repr", "format")):
            check.error_shape = "bare_string"
            check.problems.append(Problem("bare-error", self.error_key, f"{self.error_key} is a bare string, "
                                          f"not an object with {', '.join(self.error_keys) or 'a code'}"))
        elif error[0] == "dict":
            prefix = self.error_key + "."
            missing = [k for k in self.error_keys if prefix + k not in shape]
            if missing and prefix + "**" not in shape:
                check.problems.append(Problem("error-object", self.error_key,
                                              f"{self.error_key} object lacks {', '.join(missing)}"))
            code = shape.get(prefix + self.code_key)
            if code and code[0] == "str":
                problem = self.code_problem(code[1])
                if problem:
                    check.problems.append(Problem("error-code", prefix + self.code_key, problem))

    def code_problem(self, code: str) -> str | None:
        """Why CODE is not a valid error code of this profile, or None."""
        profile = self.profile
        parts = profile.parse_code(code)
        fmt = profile.section("codes").get("format", "the [codes] pattern")
        if parts is None:
            return f"{code!r} is not {fmt}"
        if parts.layer is not None and profile.layers and parts.layer not in profile.layers:
            return f"{code}: {parts.layer} is not one of {', '.join(profile.layers)}"
        if parts.area is not None and profile.areas and parts.area not in profile.areas:
            return f"{code}: family {parts.area} is not one of {', '.join(sorted(profile.areas))}"
        if not profile.number_valid(parts):
            codes = profile.section("codes")
            return f"{code}: number outside {codes.get('number_min')}..{codes.get('number_max')}"
        return None

    # -- one handler -----------------------------------------------------------------
    def passes(self, check_name: str, returns: list[ReturnCheck]) -> bool:
        if check_name == "returns":
            return bool(returns)
        if check_name == "reflection":
            return bool(returns) and all(
                r.verdict == HELPER or (r.verdict in (ENVELOPE, PARTIAL, MISSING)
                                        and r.record.kind != "none"
                                        and not any(h in r.missing for h in self.nested_heads))
                for r in returns)
        if check_name == "envelope":
            return all(r.verdict in (ENVELOPE, HELPER) for r in returns)
        if check_name == "reflection_fields":
            return not any(p.kind == "nested-missing" for r in returns for p in r.problems)
        if check_name == "reflection_values":
            return not any(p.kind in ("value", "range") for r in returns for p in r.problems)
        if check_name == "error_objects":
            return not any(p.kind in ("bare-error", "error-object") for r in returns for p in r.problems)
        if check_name == "error_codes":
            return not any(p.kind == "error-code" for r in returns for p in r.problems)
        if check_name.startswith("has:"):
            key = check_name[4:]
            return all(r.verdict == HELPER or key in r.record.shape for r in returns)
        if check_name == "verifiable":
            return not any(r.verdict == UNKNOWN for r in returns)
        raise KeyError(check_name)

    def judge(self, handler: Handler) -> HandlerResult:
        returns = [self.check_return(r) for r in handler.returns]
        level = None
        failed: list[str] = []
        for name in self.order:
            failed = [c for c in self.levels.get(name, []) if not self.passes(c, returns)]
            if failed:
                break
            level = name
        else:
            failed = []
        return HandlerResult(handler, returns, level, failed)


class _Inventory(Protocol):
    """What `analyse` reads and memoizes on `index.Inventory` (a higher layer: not imported here)."""

    result_checks: list[Any] | None
    result_judge: Any

    @property
    def handlers(self) -> list[Handler]: ...


class _RuleContext(Protocol):
    """What the functions below read of `rules.base.RuleContext` (a higher layer: not imported here)."""

    @property
    def inventory(self) -> _Inventory: ...

    @property
    def profile(self) -> Profile: ...

    def is_test(self, path: str) -> bool: ...


def analyse(ctx: _RuleContext) -> list[HandlerResult]:
    """Every product handler's results (memoized on the rule context's inventory)."""
    inv = ctx.inventory
    if inv.result_checks is not None:
        return inv.result_checks
    out: list[HandlerResult] = []
    if enabled(ctx.profile):
        inv.result_judge = ResultJudge(ctx.profile)
        out = [inv.result_judge.judge(h) for h in inv.handlers if not ctx.is_test(h.path)]
    inv.result_checks = out
    return out


@record(frozen=True)
class ResultsOverview:
    """Every action's results in report order, with the counts by verdict, by error shape and by level."""

    actions: list[HandlerResult]
    returns_by_verdict: dict[str, int]
    errors_by_shape: dict[str, int]
    actions_by_level: dict[str, int]
    level_order: list[str]
    level_checks: dict[str, list[str]]

    def to_json(self) -> dict[str, Any]:
        """The `results` key of the JSON report."""
        actions = []
        for res in self.actions:
            h = res.handler
            actions.append({
                "path": h.path, "line": h.line, "function": h.qualname,
                "names": action_names(res),
                "registered_at": [{"path": reg.path, "line": reg.line} for reg in h.registered],
                "decorators": h.decorators,
                "level": res.level, "missing_for_next": res.failed,
                "returns": [{"line": r.line, "verdict": r.verdict, "missing": r.missing,
                             "problems": [{"kind": p.kind, "key": p.key, "detail": p.detail} for p in r.problems]}
                            for r in res.returns],
            })
        return {"actions": actions, "returns_by_verdict": self.returns_by_verdict,
                "errors_by_shape": self.errors_by_shape, "actions_by_level": self.actions_by_level,
                "level_order": self.level_order, "level_checks": self.level_checks}


def action_names(res: HandlerResult) -> list[str]:
    """The names an action is registered under, sorted."""
    return sorted({reg.name for reg in res.handler.registered if reg.name})


def overview(ctx: _RuleContext) -> ResultsOverview | None:
    """The results of every action, counted; None when the profile judges no results."""
    analysed = analyse(ctx)
    if not analysed:
        return None
    judge = ctx.inventory.result_judge
    verdicts: dict[str, int] = {v: 0 for v in (ENVELOPE, HELPER, PARTIAL, MISSING, UNKNOWN)}
    errors = {"none": 0, "object": 0, "bare_string": 0, "other": 0}
    levels: dict[str, int] = {name: 0 for name in judge.order}
    levels["below"] = 0
    actions = sorted(analysed, key=lambda r: (r.handler.path, r.handler.line))
    for res in actions:
        for r in res.returns:
            verdicts[r.verdict] += 1
            if r.error_shape is not None:
                errors[r.error_shape] += 1
        levels[res.level or "below"] += 1
    return ResultsOverview(actions, verdicts, errors, levels, list(judge.order),
                           {name: judge.levels.get(name, []) for name in judge.order})


def summary(ctx: _RuleContext) -> dict[str, Any]:
    """The results of every action in JSON-ready form (the `results` key of the JSON report; {} without any)."""
    found = overview(ctx)
    return found.to_json() if found else {}
