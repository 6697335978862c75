"""GitHub workflow annotations (`::error file=…,line=…::message`) and CSV rows of findings, each followed by
the files the scan could not read or read only in part."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .unread import Unread, unread_files

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Evaluation, Finding
    from ..scan import ScanResult

COMMAND = {"critical": "error", "high": "error", "medium": "warning", "low": "notice"}


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: ScanResult, evaluation: Evaluation) -> str:
    from ..discovery import repo_prefix

    return github_annotations(evaluation.findings, repo_prefix(result.root), unread=unread_files(result.inventory))


def github_annotations(findings: Sequence[Finding], prefix: str = "", unread: Sequence[Unread] = ()) -> str:
    """One workflow command per finding, then a warning per file not read or read in part; PREFIX puts paths
    relative to the repository root."""
    lines = []
    for f in findings:
        lines.append(f"::{COMMAND[f.severity]} file={_prop(prefix + f.path)},line={max(f.line, 1)},col={f.col + 1},"
                     f"title={_prop(f.rule + ' ' + f.name)}::{_escape(f.message)}")
    for u in unread:
        lines.append(f"::warning file={_prop(prefix + u.path)},line={u.line},col={u.col + 1},"
                     f"title={_prop('reply-audit ' + u.kind)}::{_escape(u.text)}")
    return "\n".join(lines) + ("\n" if lines else "")


CSV_FIELDS = ("rule", "name", "severity", "category", "path", "line", "column", "message", "function",
              "confidence", "fixable", "fingerprint")


def render_csv(result: ScanResult, evaluation: Evaluation) -> str:
    from ..discovery import repo_prefix

    prefix = repo_prefix(result.root)   # paths from the repository's root
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for f in evaluation.findings:
        writer.writerow({**f.to_dict(), "path": prefix + f.path})
    for u in unread_files(result.inventory):   # no rule: the file itself was not (fully) checked
        writer.writerow({"rule": "", "name": u.kind, "severity": "", "category": "file", "path": prefix + u.path,
                         "line": u.line, "column": u.col + 1, "message": u.text})
    return out.getvalue()
