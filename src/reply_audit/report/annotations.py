"""GitHub workflow annotations (`::error file=…,line=…::message`) and CSV rows of findings."""

from __future__ import annotations

import csv
import io

COMMAND = {"critical": "error", "high": "error", "medium": "warning", "low": "notice"}


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result, evaluation) -> str:
    return github_annotations(evaluation.findings)


def github_annotations(findings, prefix: str = "") -> str:
    """One workflow command per finding; PREFIX puts paths relative to the repository root."""
    lines = []
    for f in findings:
        lines.append(f"::{COMMAND[f.severity]} file={_prop(prefix + f.path)},line={max(f.line, 1)},col={f.col + 1},"
                     f"title={_prop(f.rule + ' ' + f.name)}::{_escape(f.message)}")
    return "\n".join(lines) + ("\n" if lines else "")


CSV_FIELDS = ("rule", "name", "severity", "category", "path", "line", "column", "message", "function",
              "confidence", "fixable", "fingerprint")


def render_csv(result, evaluation) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for f in evaluation.findings:
        writer.writerow(f.to_dict())
    return out.getvalue()
