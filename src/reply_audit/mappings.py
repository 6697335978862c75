"""Mapping files: legacy → canonical tables kept outside the code.

Two formats, chosen by extension:

* TOML: a `[mapping]` table (or top-level keys) of `"LEGACY" = "CANONICAL"`;
  the value `"RETIRED"` (or any of the profile's retired values, or `""`)
  retires the code explicitly.
* CSV: a header with `legacy` and `canonical` columns (extra columns are
  ignored); an empty, `null`, `None` or retired value retires the code.

A TOML file may also carry per-handler codes for `reply-audit migrate`
(`dict-returns`): a `[tools.HANDLER]` table of builder method -> code, e.g.
`success = "WA-READ-S-001"`, and per-site choices, so one handler can use several
codes for one method: `[[tools.HANDLER.sites]]` tables with `match` (a pattern of
the return's message) or `fingerprint` (from a decisions file), and a `type`
and/or a `code`.

Every key must look like a code; a bad file is a user error (exit 2).
"""

from __future__ import annotations

import csv
import io
import re
import tomllib
from pathlib import Path
from typing import Any

from .errors import UserError
from .facts.model import MappingEntry, MappingFact
from .profile import Profile

NULL_WORDS = frozenset({"", "null", "none", "None", "NULL"})


def _target(value: object, profile: Profile, origin: str, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise UserError(f"{origin}: value of {key!r} must be a code string or \"RETIRED\"")
    value = value.strip()
    if value in NULL_WORDS or value in profile.retired_values:
        return None
    return value


def load_mapping_file(path: Path, profile: Profile, display: str | None = None) -> MappingFact:
    origin = display or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"mapping file {origin!r} does not exist") from None
    except OSError as exc:
        raise UserError(f"mapping file {origin!r} cannot be read: {exc.strerror or exc}") from None
    return load_mapping_bytes(raw, path.suffix, profile, origin)


def load_mapping_bytes(raw: bytes, suffix: str, profile: Profile, origin: str) -> MappingFact:
    """A mapping file's content (read from disk or from a git revision)."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"mapping file {origin!r} is not UTF-8 text") from None
    suffix = suffix.lower()
    tools: dict[str, dict[str, str]] = {}
    sites: list[dict[str, Any]] = []
    if suffix == ".toml":
        entries, tools, sites = _toml_entries(text, profile, origin)
    elif suffix == ".csv":
        entries = _csv_entries(text, profile, origin)
    else:
        raise UserError(f"mapping file {origin!r}: use a .toml or .csv file")
    for entry in entries:
        if not profile.is_code(entry.legacy):
            raise UserError(
                f"{origin}:{entry.line}: key {entry.legacy!r} does not look like a code "
                f"({profile.section('codes').get('format', 'see [codes] pattern')})"
            )
    return MappingFact(name=origin, line=1, entries=entries, tools=tools, sites=sites)


def _site_choices(raw: Any, handler: str, origin: str) -> list[dict[str, Any]]:
    """`[[tools.HANDLER.sites]]` of a mapping file: {match | fingerprint, type?, code?} tables, checked."""
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise UserError(f"mapping file {origin!r}: [[tools.{handler}.sites]] must be tables")
    out = []
    for row in raw:
        unknown = set(row) - {"match", "fingerprint", "type", "code"}
        if unknown:
            raise UserError(f"mapping file {origin!r}: [[tools.{handler}.sites]] has unknown key(s) "
                            f"{', '.join(sorted(unknown))} (match, fingerprint, type, code)")
        if not (isinstance(row.get("match"), str) or isinstance(row.get("fingerprint"), str)):
            raise UserError(f"mapping file {origin!r}: each [[tools.{handler}.sites]] needs match (a pattern of "
                            "the return's message) or fingerprint")
        if "match" in row:
            try:
                re.compile(row["match"])
            except re.error as exc:
                raise UserError(f"mapping file {origin!r}: [[tools.{handler}.sites]] match {row['match']!r} "
                                f"is not a regular expression: {exc}") from None
        if "type" in row and row["type"] not in ("S", "I", "D", "E", "skip"):
            raise UserError(f"mapping file {origin!r}: [[tools.{handler}.sites]] type must be S, I, D, E or skip")
        if not isinstance(row.get("code", ""), str) or not ("code" in row or "type" in row):
            raise UserError(f"mapping file {origin!r}: [[tools.{handler}.sites]] needs a code (a string) or a type")
        out.append({"handler": handler, **row, "origin": origin})
    return out



def _tool_codes(value: object, profile: Profile, origin: str) -> tuple[dict[str, dict[str, str]], list[dict[str, Any]]]:
    """`[tools.HANDLER]` tables: the codes `migrate` uses for that handler's raw dict returns, and its
    `[[tools.HANDLER.sites]]` choices."""
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise UserError(f"mapping file {origin!r}: [tools] must hold [tools.HANDLER] tables of method = \"CODE\"")
    out: dict[str, dict[str, str]] = {}
    sites: list[dict[str, Any]] = []
    for handler, codes in value.items():
        codes = dict(codes)
        for row in _site_choices(codes.pop("sites"), handler, origin) if "sites" in codes else []:
            code = row.get("code")
            parts = profile.parse_code(code) if code else None
            if code is not None and (parts is None or ("type" in row and parts.type != row["type"])):
                raise UserError(f"mapping file {origin!r}: [[tools.{handler}.sites]] code {code!r} must be a "
                                f"code{' of type ' + row['type'] if 'type' in row else ''}")
            sites.append(row)
        for method, code in codes.items():
            letter = profile.builder_methods.get(method)
            if letter is None:
                raise UserError(f"mapping file {origin!r}: [tools.{handler}] {method!r} is not a builder method "
                                f"({', '.join(profile.builder_methods)})")
            parts = profile.parse_code(code) if isinstance(code, str) else None
            if parts is None or parts.type != letter:
                raise UserError(f"mapping file {origin!r}: [tools.{handler}] {method} = {code!r} must be a "
                                f"{letter} code")
        out[handler] = {m: c for m, c in codes.items()}
    return out, sites


def _toml_entries(text: str, profile: Profile, origin: str) \
        -> tuple[list[MappingEntry], dict[str, dict[str, str]], list[dict[str, Any]]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"mapping file {origin!r} is not valid TOML: {exc}") from None
    tools, sites = _tool_codes(data.pop("tools"), profile, origin) if "tools" in data else ({}, [])
    table = data.get("mapping", data)
    if not isinstance(table, dict):
        raise UserError(f"mapping file {origin!r}: [mapping] must be a table of \"LEGACY\" = \"CANONICAL\"")
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith('"') and '=' in stripped:
            lines.setdefault(stripped.split('"')[1], number)
    entries = []
    for key, value in table.items():
        if isinstance(value, dict):
            raise UserError(f"mapping file {origin!r}: unexpected table [{key}]; expected \"LEGACY\" = \"CANONICAL\"")
        entries.append(MappingEntry(legacy=key, canonical=_target(value, profile, origin, key),
                                    line=lines.get(key, 1)))
    return entries, tools, sites


def _csv_entries(text: str, profile: Profile, origin: str) -> list[MappingEntry]:
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in (reader.fieldnames or [])]
    if "legacy" not in fields or "canonical" not in fields:
        raise UserError(f"mapping file {origin!r}: the CSV header needs the columns legacy and canonical")
    reader.fieldnames = fields
    entries = []
    for row in reader:
        legacy = (row.get("legacy") or "").strip()
        if not legacy:
            continue
        entries.append(MappingEntry(legacy=legacy, canonical=_target(row.get("canonical"), profile, origin, legacy),
                                    line=reader.line_num))
    return entries
