"""SARIF 2.1.0: findings with rule metadata, for code-scanning UIs; files not read, or read in part, as tool
execution notifications of the run's invocation."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..rules import all_rules
from .unread import unread_files

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Evaluation
    from ..scan import ScanResult

LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note"}
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(result: ScanResult, evaluation: Evaluation) -> str:
    from pathlib import Path

    from ..discovery import repo_prefix

    prefix = repo_prefix(result.root)   # URIs from the repository's root, whatever folder was scanned
    top = Path(result.root).resolve()
    for _ in prefix.strip("/").split("/") if prefix else ():
        top = top.parent
    rules = [r for r in all_rules() if r in evaluation.rules]
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for f in evaluation.findings:
        location = {"physicalLocation": {
            "artifactLocation": {"uri": prefix + f.path, "uriBaseId": "SRCROOT"},
            "region": {"startLine": max(f.line, 1), "startColumn": f.col + 1},
        }}
        item: dict[str, Any] = {
            "ruleId": f.rule, "ruleIndex": index[f.rule], "level": LEVEL[f.severity],
            "message": {"text": f.message}, "locations": [location],
            "partialFingerprints": {"replyAudit/v1": f.fingerprint},
            "properties": {"severity": f.severity, "category": f.category},
        }
        if f.confidence:
            item["properties"]["confidence"] = f.confidence
        if f.fix:
            item["properties"]["fix"] = f"reply-audit migrate --select {f.fix}"
        results.append(item)
    doc = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "reply-audit", "version": __version__,
                "rules": [{
                    "id": r.id, "name": r.name,
                    "shortDescription": {"text": r.doc.split(". ")[0].rstrip(".") + "."},
                    "fullDescription": {"text": r.doc},
                    "defaultConfiguration": {"level": LEVEL[r.severity]},
                    "properties": {"severity": r.severity, "category": r.category, "spec": r.spec,
                                   "heuristic": r.heuristic},
                } for r in rules],
            }},
            "invocations": [{
                "executionSuccessful": True,
                "toolExecutionNotifications": [{
                    "level": "warning", "message": {"text": u.text},
                    "descriptor": {"id": u.kind},
                    "locations": [{"physicalLocation": {
                        "artifactLocation": {"uri": prefix + u.path, "uriBaseId": "SRCROOT"},
                        "region": {"startLine": u.line, "startColumn": u.col + 1}}}],
                } for u in unread_files(result.inventory)],
            }],
            "originalUriBaseIds": {"SRCROOT": {"uri": top.as_uri() + "/"}},
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
