"""The fleet scorecard: many repositories' JSON reports merged into one table.

Each repository's CI job writes `reply-audit scan . --format json` (schema
`reply-audit/1`); `merge` reads those reports (the CI system's matrix is the
distributed engine, not reply-audit) and gives one row per repository with
its findings by severity, fixable findings, legacy codes, active registries,
builders, raw dict returns and the compliance score, plus a total row. A
report that is not a reply-audit report is a clear error; two reports for
the same repository name are told apart by their file names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .errors import SEVERITIES, UserError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

SCAN_SCHEMA = "reply-audit/1"
COLUMNS = ["repository", "findings", *SEVERITIES, "fixable", "legacy_codes", "registries", "builders",
           "raw_dict_returns", "score"]


def _score(doc: dict[str, Any]) -> float | None:
    rows = [r for r in doc.get("scorecard", []) if r.get("total")]   # the same score as `history`
    if not rows:
        return None
    return cast(float, round(100 * sum(r["ok"] / r["total"] for r in rows) / len(rows), 1))


def row_of(doc: dict[str, Any], name: str) -> dict[str, Any]:
    s = doc["summary"]
    findings = s["findings"]
    return {
        "repository": name,
        "findings": findings["total"],
        **{sev: findings["by_severity"].get(sev, 0) for sev in SEVERITIES},
        "fixable": findings.get("fixable", 0),
        "legacy_codes": s["registries"]["legacy_codes"],
        "registries": sum(n for role, n in s["registries"]["by_role"].items() if role in ("canonical", "legacy")),
        "builders": s["builders"]["total"],
        "raw_dict_returns": findings["by_rule"].get("RA306", 0),
        "score": _score(doc),
    }


def load(paths: list[Path]) -> pd.DataFrame:
    """The fleet table (pandas), one row per report, sorted by repository, and a total row."""
    import pandas as pd

    if not paths:
        raise UserError("give the JSON reports to merge (reply-audit scan PATH --format json --out REPORT.json)")
    rows = []
    names: dict[str, int] = {}
    for path in paths:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UserError(f"report {str(path)!r} does not exist") from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UserError(f"report {str(path)!r} is not JSON: {exc}") from None
        if not isinstance(doc, dict) or doc.get("schema") != SCAN_SCHEMA:
            raise UserError(f"report {str(path)!r} is not a {SCAN_SCHEMA} report (reply-audit scan --format json)")
        name = str(doc.get("root") or path.stem)
        if name in ("", "."):
            name = path.stem
        names[name] = names.get(name, 0) + 1
        rows.append((name, path, doc))
    out = []
    for name, path, doc in rows:
        out.append(row_of(doc, f"{name} ({path.name})" if names[name] > 1 else name))
    table = pd.DataFrame(out, columns=COLUMNS).sort_values("repository", kind="stable").reset_index(drop=True)
    total = {c: table[c].sum() for c in COLUMNS[1:-1]}
    scores = table["score"].dropna()
    total.update(repository=f"total ({len(table)} repositories)",
                 score=round(float(scores.mean()), 1) if len(scores) else None)
    return pd.concat([table, pd.DataFrame([total], columns=COLUMNS)], ignore_index=True)


def markdown(table: pd.DataFrame) -> str:
    from tabulate import tabulate

    shown = table.astype(object).where(table.notna(), "—")
    body = tabulate(shown.values.tolist(), headers=list(table.columns), tablefmt="github")
    last = len(table) - 1
    lines = body.splitlines()
    lines[2 + last] = "| " + " | ".join(f"**{v}**" for v in shown.iloc[last]) + " |"
    return "# Fleet reply-compliance scorecard\n\n" + "\n".join(lines) + "\n"
