"""The decisions of a migration: one record per converted site, and the file a human reviews them in.

For every return `dict-returns` converts, `migrate` decides a reply type and a code,
each with its evidence and a confidence (`Decision`). `migrate --decisions FILE`
writes them as TOML, one `[[site]]` per return; a human edits `type` and `code` (or
sets `reviewed = true` to accept a proposal as it is, or `type = "skip"` to leave the
return alone), and `migrate --decisions FILE` then applies exactly those choices
(`Choice`). Rows are matched by fingerprint, a hash of the handler, the dict's literal
keys and texts and where it was caught, so lines may move; a row that no site matches
any more is reported as stale, never guessed onto another site.

Mapping files give choices too: `[[tools.HANDLER.sites]]` tables pick a type and a
code for the returns whose message matches a pattern, so one handler can use several
codes for the same builder method.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import field
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..record_class import record
from ..records import Handler, Return

LETTERS = ("S", "I", "D", "E")
RUNTIME = "runtime"
SKIP = "skip"
VERSION = 1


@record
class Decision:
    """What migrate decided (or was told) for one converted return."""

    fingerprint: str
    path: str
    function: str
    line: int
    type: str                                # S | I | D | E | runtime
    code: str
    message: str = ""
    failure_type: str = ""                   # runtime: the type of a failure
    failure_code: str = ""
    refused_code: str = ""                   # runtime: the Denied code of a result that refuses ("" = none)
    type_confidence: str = "medium"
    type_evidence: tuple[str, ...] = ()
    type_alternative: str | None = None
    code_confidence: str = "low"
    code_evidence: tuple[str, ...] = ()
    alternatives: tuple[str, ...] = ()       # candidate codes, best first
    marked: bool = False                     # the code is the placeholder, marked for review
    origin: str = "proposed"                 # proposed, or where the choice came from (FILE:LINE)
    reviewed: bool = False                   # a human chose it (a changed or accepted row, a mapping site)

    def as_row(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "fingerprint": self.fingerprint, "path": self.path, "function": self.function, "line": self.line,
            "type": self.type, "code": self.code,
        }
        if self.type == RUNTIME:
            row.update(failure_type=self.failure_type, failure_code=self.failure_code)
            if self.refused_code:
                row["refused_code"] = self.refused_code
        row.update(reviewed=False, proposed_type=self.type, proposed_code=self.code, marked=self.marked,
                   message=self.message, type_confidence=self.type_confidence,
                   type_evidence=list(self.type_evidence), code_confidence=self.code_confidence,
                   code_evidence=list(self.code_evidence), alternatives=list(self.alternatives))
        if self.type_alternative:
            row["type_alternative"] = self.type_alternative
        if self.type == RUNTIME:
            row["proposed_failure_code"] = self.failure_code
            if self.refused_code:
                row["proposed_refused_code"] = self.refused_code
        return row


@record(frozen=True)
class Choice:
    """A human's choice for one site: from a decisions file row or a mapping file's site table."""

    origin: str                              # "FILE:LINE" of the row or table
    type: str | None = None                  # S I D E, runtime, skip; None: keep the proposal's
    code: str | None = None
    failure_type: str | None = None
    failure_code: str | None = None
    refused_code: str | None = None
    unmarked: bool = True                    # written without the default-code marker
    reviewed: bool = True                    # the human changed the row or accepted it (reviewed = true)

    @property
    def skip(self) -> bool:
        return self.type == SKIP


@record
class DecisionsFile:
    """A decisions file as read: choices by fingerprint, and the rows no site claimed (filled in by migrate)."""

    path: Path
    choices: dict[str, Choice] = field(default_factory=dict)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def take(self, fingerprint: str) -> Choice | None:
        found = self.choices.get(fingerprint)
        if found is not None:
            self.used.add(fingerprint)
        return found

    @property
    def stale(self) -> list[dict[str, Any]]:
        """Rows whose site is gone (or changed): never applied to another site."""
        return [row for fp, row in self.rows.items() if fp not in self.used]


def fingerprint(handler: Handler, ret: Return, ordinal: int) -> str:
    """A site's identity that survives moved lines: the handler, what the dict literally says (keys, their kinds
    and texts), where it was caught, and its rank among identical returns of the handler."""
    parts = [handler.path, handler.qualname, ret.kind,
             json.dumps(ret.key_values, sort_keys=True), json.dumps(ret.texts, sort_keys=True),
             str(ret.code), str(bool(ret.in_except)), ",".join(ret.except_types or []),
             str(ordinal)]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def site_identity(handler: Handler, ret: Return) -> str:
    """The fingerprint without the ordinal: returns that share it are told apart by their order."""
    return fingerprint(handler, ret, 0)


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)   # a TOML basic string is a JSON string


HEADER = """\
# reply-audit migrate: the decisions of this migration, one site table per converted return.
#
# Review each site, then run `reply-audit migrate --apply --decisions THIS_FILE`:
#   type      S, I, D or E (a return classified when it runs: "runtime", with failure_type and failure_code,
#             and refused_code for a result that refuses by policy);
#             "skip" leaves the return as it is (its handler is then converted only if the wrapper allows)
#   code      a registered code of that type
#   reviewed  true accepts the proposal as it is (written without the default-code marker)
# A row whose type or code differs from its proposal is a reviewed choice. Rows are matched to sites by
# fingerprint, so lines may move; a row no site matches is reported as stale and never applied.
# The other keys say what migrate proposed and why; they are not read back.
"""


def render(decisions: list[Decision]) -> str:
    lines = [HEADER, f"version = {VERSION}", ""]
    for decision in sorted(decisions, key=lambda d: (d.path, d.line, d.fingerprint)):
        lines.append("[[site]]")
        for key, value in decision.as_row().items():
            lines.append(f"{key} = {_toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------
def _text(row: dict[str, Any], key: str, where: str) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise UserError(f"{where}: {key} must be a string")
    return value.strip()


def read(path: Path) -> DecisionsFile:
    """The choices of a decisions file (UserError for a file that cannot be read or makes no sense)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"decisions file {str(path)!r} cannot be read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"decisions file {str(path)!r} is not valid TOML: {exc}") from None
    if data.get("version") != VERSION:
        raise UserError(f"decisions file {str(path)!r}: version = {VERSION} expected (write a new one with "
                        "`migrate --decisions` on a missing file)")
    sites = data.get("site", [])
    if not isinstance(sites, list) or not all(isinstance(r, dict) for r in sites):
        raise UserError(f"decisions file {str(path)!r}: [[site]] tables expected")
    starts = [n for n, line in enumerate(text.splitlines(), start=1) if line.strip() == "[[site]]"]
    out = DecisionsFile(path=path)
    for number, row in enumerate(sites):
        where = f"{path}:{starts[number] if number < len(starts) else 1}"
        fp = _text(row, "fingerprint", where)
        if not fp:
            raise UserError(f"{where}: a [[site]] needs its fingerprint")
        if fp in out.choices:
            raise UserError(f"{where}: fingerprint {fp} appears twice")
        kind = _text(row, "type", where) or ""
        if kind not in (*LETTERS, RUNTIME, SKIP):
            raise UserError(f"{where}: type {kind!r} must be one of S, I, D, E, runtime, skip")
        code = _text(row, "code", where)
        failure_type = _text(row, "failure_type", where)
        failure_code = _text(row, "failure_code", where)
        refused_code = _text(row, "refused_code", where)
        if kind == RUNTIME and failure_type not in ("I", "D", "E"):
            raise UserError(f"{where}: a runtime site needs failure_type I, D or E")
        changed = kind != row.get("proposed_type") or code != row.get("proposed_code") \
            or (kind == RUNTIME and failure_code != row.get("proposed_failure_code")) \
            or (kind == RUNTIME and refused_code != row.get("proposed_refused_code"))
        reviewed = row.get("reviewed", False)
        if not isinstance(reviewed, bool):
            raise UserError(f"{where}: reviewed must be true or false")
        unmarked = changed or reviewed or not row.get("marked", False)
        out.choices[fp] = Choice(origin=where, type=kind, code=code, failure_type=failure_type,
                                 failure_code=failure_code, refused_code=refused_code, unmarked=unmarked,
                                 reviewed=changed or reviewed)
        out.rows[fp] = {"fingerprint": fp, "where": where, "path": row.get("path"), "function": row.get("function"),
                        "line": row.get("line")}
    return out


def mapping_choice(sites: list[dict[str, Any]], handler: Handler, ret: Return, fp: str,
                   said: str) -> Choice | None:
    """The first site table of HANDLER matching this return (by fingerprint, or its pattern in SAID)."""
    for row in sites:
        if row["handler"] != handler.name:
            continue
        if row.get("fingerprint") == fp or ("match" in row and re.search(row["match"], said, re.IGNORECASE)):
            return Choice(origin=f"{row['origin']} [[tools.{row['handler']}.sites]]", type=row.get("type"),
                          code=row.get("code"))
    return None
