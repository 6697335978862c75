"""Running the rules: selection, severity overrides, suppression comments and baselines.

`evaluate` turns a `ScanResult` into an `Evaluation`: the findings that count,
those silenced by `# reply-audit: ignore[RA101]`, and how many a baseline hid.
Selection follows ruff: ids or id prefixes, `ALL`; the command line replaces
the profile's `[rules] select/ignore`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from .errors import EXIT_FINDINGS, EXIT_OK, SEVERITIES, UserError
from .profile import Profile
from .rules import all_rules
from .rules.base import Evaluation, Finding, Rule, RuleContext
from .scan import ScanResult

BASELINE_SCHEMA = "reply-audit-baseline/1"


def _matches(rule_id: str, patterns: list[str]) -> bool:
    return any(p.upper() == "ALL" or rule_id.startswith(p.upper()) for p in patterns)


def check_patterns(patterns: list[str], origin: str) -> None:
    ids = [r.id for r in all_rules()]
    for pattern in patterns:
        if pattern.upper() != "ALL" and not any(i.startswith(pattern.upper()) for i in ids):
            raise UserError(f"{origin}: unknown rule {pattern!r}; `reply-audit rules` lists them (e.g. RA101, RA3)")


def select_rules(profile: Profile, select: list[str] | None, ignore: list[str] | None) -> list[Rule]:
    config = profile.section("rules")
    chosen = list(select) if select else list(config.get("select", ["ALL"]))
    dropped = list(ignore) if ignore else list(config.get("ignore", []))
    check_patterns(chosen, "--select" if select else "[rules] select")
    check_patterns(dropped, "--ignore" if ignore else "[rules] ignore")
    return [r for r in all_rules() if _matches(r.id, chosen) and not _matches(r.id, dropped)]


def _severity_overrides(profile: Profile) -> dict[str, str]:
    overrides = dict(profile.section("rules").get("severity", {}))
    for rule_id, level in overrides.items():
        if level not in SEVERITIES:
            raise UserError(f"[rules.severity] {rule_id} = {level!r}: use one of {', '.join(SEVERITIES)}")
    return overrides


def load_baseline(path: Path) -> Counter[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"baseline {str(path)!r} does not exist (write one with --write-baseline)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"baseline {str(path)!r} is not a reply-audit baseline: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != BASELINE_SCHEMA:
        raise UserError(f"baseline {str(path)!r} is not a {BASELINE_SCHEMA} file")
    return Counter({k: int(v) for k, v in data.get("fingerprints", {}).items()})


def baseline_text(findings: list[Finding]) -> str:
    counts = Counter(f.fingerprint for f in findings)
    return json.dumps({"schema": BASELINE_SCHEMA, "fingerprints": dict(sorted(counts.items()))}, indent=2) + "\n"


def evaluate(result: ScanResult, select: list[str] | None = None, ignore: list[str] | None = None,
             baseline: Counter[str] | None = None) -> Evaluation:
    """Findings that count (`codemods.planner.evaluate_fixable` also marks those a codemod would fix)."""
    rules = select_rules(result.profile, select, ignore)
    overrides = _severity_overrides(result.profile)
    ctx = RuleContext(inventory=result.inventory, profile=result.profile, tooling=result.tooling)
    suppressions = {f.path: f.suppressions for f in result.files if f.suppressions}
    out = Evaluation(rules=rules)
    remaining = Counter(baseline or {})
    raw: list[Finding] = []
    for rule in rules:
        for finding in rule.check(ctx):
            if rule.id in overrides:
                finding.severity = overrides[rule.id]
            raw.append(finding)
    raw.sort(key=lambda f: (f.path, f.line, f.col, f.rule, f.message))
    for finding in raw:
        ids = suppressions.get(finding.path, {}).get(str(finding.line))
        if ids is not None and (not ids or finding.rule in ids):
            out.suppressed.append(finding)
        elif remaining and remaining[finding.fingerprint] > 0:   # (no baseline: no fingerprint to work out)
            remaining[finding.fingerprint] -= 1
            out.baselined += 1
        else:
            out.findings.append(finding)
    return out


def failing(findings: list[Finding], fail_on: str) -> list[Finding]:
    """The findings at or above FAIL_ON (none when it is "none"): what makes a run exit 1."""
    if fail_on == "none":
        return []
    from .rules.base import at_least

    return [f for f in findings if at_least(f.severity, fail_on)]


def exit_code(evaluation: Evaluation, fail_on: str) -> int:
    return EXIT_FINDINGS if failing(evaluation.findings, fail_on) else EXIT_OK
