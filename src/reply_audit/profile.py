"""Profiles: the reply specification as data.

A profile is a TOML document (built-ins live in `reply_audit/profiles/`). This
module owns loading a built-in or a file, layering a repository's
`[tool.reply-audit]` table on top, validating the result, and exposing it as a
`Profile` with typed accessors. No rule value of the spec lives in Python: the
accessors only read what the TOML says.

Layering rules (like ruff's `extend-*`): a table merges key by key, a scalar or
list replaces the base value, and a key spelt `extend-NAME` appends its list to
the base list `NAME`.

Spelling: settings are written in kebab-case (`fail-on`, `[migrate.dict-returns]`),
as ruff writes its own; the old snake_case spelling still works, with a
deprecation warning. Inside, and in the built-in files, keys are snake_case:
`_normalize` reads what a user wrote, `_spelt` writes what `profile show` prints.
Keys of the open tables are the author's data and are never respelt.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tomllib
from dataclasses import field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import UserError
from .record_class import record

if TYPE_CHECKING:  # pragma: no cover
    from .names import Names
    from .records import Call

BUILTIN_FOLDER = Path(__file__).with_name("profiles")   # shipped in the package (never zipped: pip unpacks wheels)
DEFAULT_PROFILE = "canonical"
PYPROJECT_TABLE = ("tool", "reply-audit")

# Tables whose keys are data chosen by the profile author (a new layer, a new
# area, a new builder method), not settings of the tool: any key is accepted.
OPEN_TABLES = frozenset({
    "layers", "areas", "types.names", "builder.methods", "builder.forbidden_methods", "builder.functions",
    "rules.severity", "migrate.remap", "result.values", "result.ranges", "result.helpers", "compliance.levels",
    "result.key_aliases",
    "migrate.codes.area_words", "migrate.codes.concepts", "migrate.codes.layer_words",
})
# Keys of [tool.reply-audit] that are not profile keys.
META_KEYS = frozenset({"profile", "extends"})
# Named groups a code pattern may have; a rule about a part (layer, area, type, number) applies only to
# codes whose pattern names it (codes that are Enum members may use a pattern with no group at all).
CODE_GROUPS = ("layer", "area", "type", "number")


def builtin_names() -> list[str]:
    """Names of the profiles shipped with reply-audit."""
    return sorted(p.name[:-5] for p in BUILTIN_FOLDER.iterdir() if p.name.endswith(".toml"))


def _read_toml(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{origin}: not valid TOML ({exc}); fix the syntax and run again") from None


def _load_builtin(name: str) -> dict[str, Any]:
    if name not in builtin_names():
        raise UserError(
            f"unknown profile {name!r}; built-in profiles are: {', '.join(builtin_names())} "
            "(or pass a path to a .toml profile file)"
        )
    text = BUILTIN_FOLDER.joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return _read_toml(text, f"built-in profile {name!r}")


def _load_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"profile file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"profile file {str(path)!r} cannot be read: {exc}") from None
    return _read_toml(text, f"profile file {str(path)!r}")


def merge(base: dict[str, Any], override: dict[str, Any], where: str = "") -> dict[str, Any]:
    """Layer `override` on `base` (neither is modified)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        dotted = f"{where}.{key}" if where else key
        if key.startswith("extend-"):
            target = key[len("extend-"):]
            current = out.get(target, [])
            table = f"[{_kebab(where)}] " if where else ""
            if not isinstance(value, list):
                raise UserError(f"{table}{_kebab(key)} must be a list, e.g. {_kebab(key)} = [{_toml_value(value)}]")
            if not isinstance(current, list):
                raise UserError(f"{table}{_kebab(key)}: extend- works only on lists, and {_kebab(target)} is not one")
            out[target] = current + [v for v in value if v not in current]
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value, dotted)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _normalize(data: dict[str, Any], origin: str, notes: list[str] | None, where: str = "") -> dict[str, Any]:
    """DATA as written by a user (kebab-case, or the old snake_case) in the internal spelling; NOTES gets one
    deprecation line per old spelling (None: a built-in, no notes). Both spellings of one key are refused."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if where in OPEN_TABLES:   # the author's own names (a layer, a method, a rule id): as written
            new, dotted = key, f"{where}.*"
        else:
            prefix = "extend-" if key.startswith("extend-") else ""
            name = key[len(prefix):]
            new = prefix + name.replace("-", "_")
            dotted = f"{where}.{new[len(prefix):]}" if where else new[len(prefix):]
            if "_" in name and notes is not None:
                table = f"[{where.replace('.*', '')}] " if where else ""
                notes.append(f"{origin}: {table}`{key}` is the old spelling of `{prefix}{_kebab(name)}` "
                              "(it still works; the snake_case spellings will go in a later release)")
        if new in out:
            raise UserError(f"{origin}: `{key}` is given twice, in kebab-case and in snake_case: keep one")
        out[new] = _normalize(value, origin, notes, dotted) if isinstance(value, dict) else value
    return out


def _setting_names(data: dict[str, Any], where: str = "") -> set[str]:
    """Every setting name of DATA (the keys of its non-open tables, and of the entries of open ones)."""
    names: set[str] = set()
    for key, value in data.items():
        if where in OPEN_TABLES:
            if isinstance(value, dict):
                names |= _setting_names(value, f"{where}.*")
            continue
        names.add(key)
        if isinstance(value, dict):
            names |= _setting_names(value, f"{where}.{key}" if where else key)
    return names | _FUNCTION_KEYS


def _spell_message(message: str, data: dict[str, Any]) -> str:
    """MESSAGE (a validation error) with the settings it names in their documented spelling: `[migrate.codes]
    stop_words` reads `[migrate.codes] stop-words`. Quoted values are left as they are."""
    names = {n for n in _setting_names(data) if "_" in n}
    parts = re.split(r"""('[^']*'|"[^"]*")""", message)
    word = re.compile(r"(?<![\w-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w-])")
    for i in range(0, len(parts), 2):   # the even parts are outside quotes
        parts[i] = word.sub(lambda m: _kebab(m.group()) if m.group() in names else m.group(), parts[i])
    return "".join(parts)


def _spelt(data: dict[str, Any], where: str = "") -> dict[str, Any]:
    """The internal DATA in the documented spelling (kebab-case settings, open tables' keys as they are)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if where in OPEN_TABLES:
            new, dotted = key, f"{where}.*"
        else:
            new, dotted = _kebab(key), (f"{where}.{key}" if where else key)
        out[new] = _spelt(value, dotted) if isinstance(value, dict) else value
    return out


def _check_keys(base: dict[str, Any], override: dict[str, Any], origin: str, where: str = "",
                kinds: list[str] | None = None) -> None:
    """Refuse keys the base profile does not know (typos), except in open tables. KINDS gets a value of another
    kind than the base's: a string where the base has a list (`exclude = "build"` would be read letter by
    letter), a scalar where it has a table; it is refused after validation, whose messages say more."""
    for key, value in override.items():
        name = key[len("extend-"):] if key.startswith("extend-") else key
        dotted = f"{where}.{name}" if where else name
        if where in OPEN_TABLES:
            continue
        if name not in base:
            known = ", ".join(sorted(_kebab(k) for k in base)) or "(none)"
            raise UserError(f"{origin}: unknown key {_kebab(dotted)!r}; known keys here: {known}")
        shown = _kebab(key)
        table = f"[{_kebab(where)}] " if where else ""
        if kinds is not None and isinstance(base[name], list) and not isinstance(value, list):
            kinds.append(f"{origin}: {table}{shown} must be a list, e.g. {shown} = [{_toml_value(value)}]")
        if kinds is not None and isinstance(base[name], dict) and not isinstance(value, dict):
            kinds.append(f"{origin}: {table}{shown} must be a table ([{_kebab(dotted)}]), not a single value")
        if isinstance(value, dict) and isinstance(base[name], dict):
            _check_keys(base[name], value, origin, dotted, kinds)


def _toml_value(value: Any) -> str:
    return json.dumps(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) \
        else str(value)


@record(frozen=True)
class LayerRule:
    name: str
    allowed: frozenset[str]
    forbidden: frozenset[str]


@record(frozen=True)
class CodeParts:
    """A code string split by the profile's pattern."""

    code: str
    layer: str | None
    area: str | None
    type: str | None
    number: int | None


@record(frozen=True)
class Profile:
    """An effective profile: merged data plus typed accessors."""

    name: str
    data: dict[str, Any]
    sources: tuple[str, ...] = field(default=())
    # where each value was set: dotted key path -> its source (built-in profile, profile file, pyproject)
    origins: dict[tuple[str, ...], str] = field(default_factory=dict, compare=False, repr=False)
    warnings: tuple[str, ...] = field(default=(), compare=False, repr=False)   # old spellings read

    # -- identity -------------------------------------------------------------
    @cached_property
    def digest(self) -> str:
        blob = json.dumps(self.data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]

    def section(self, name: str) -> dict[str, Any]:
        value = self.data.get(name, {})
        return value if isinstance(value, dict) else {}

    # -- codes ----------------------------------------------------------------
    @cached_property
    def code_re(self) -> re.Pattern[str]:
        return re.compile(self.section("codes")["pattern"])

    @cached_property
    def code_search_re(self) -> re.Pattern[bytes]:
        """An unanchored byte pattern: can this file contain a code at all?"""
        body = self.section("codes")["pattern"].lstrip("^").rstrip("$")
        body = re.sub(r"\(\?P<[a-z_]+>", "(", body)
        return re.compile(body.encode("utf-8"))

    @cached_property
    def _parsed(self) -> dict[str, CodeParts | None]:
        return {}

    def parse_code(self, text: str) -> CodeParts | None:
        """TEXT split by the code pattern (memoized: the same codes come back all the time)."""
        try:
            return self._parsed[text]
        except KeyError:
            parts = self._parsed[text] = self._parse_code(text)
            return parts

    def _parse_code(self, text: str) -> CodeParts | None:
        m = self.code_re.match(text)
        if not m:
            return None
        groups = {g: m.groupdict().get(g) for g in CODE_GROUPS}
        number = None
        if groups["number"] is not None:
            try:
                number = int(groups["number"])
            except ValueError:
                return None
        return CodeParts(text, groups["layer"], groups["area"], groups["type"], number)

    def is_code(self, text: str) -> bool:
        return self.code_re.match(text) is not None

    def code_type(self, text: str) -> str | None:
        """The TYPE letter of TEXT when it is a code of a known type, else None."""
        parts = self.parse_code(text)
        return parts.type if parts is not None and parts.type in self.type_letters else None

    @cached_property
    def layers(self) -> dict[str, LayerRule]:
        out = {}
        for name, rule in self.section("layers").items():
            out[name] = LayerRule(name, frozenset(rule.get("allowed", [])), frozenset(rule.get("forbidden", [])))
        return out

    @cached_property
    def areas(self) -> frozenset[str]:
        return frozenset(self.section("areas"))

    @cached_property
    def type_letters(self) -> tuple[str, ...]:
        return tuple(self.section("types").get("letters", []))

    @cached_property
    def terminal_types(self) -> frozenset[str]:
        return frozenset(self.section("types").get("terminal", []))

    def layer_known(self, parts: CodeParts) -> bool:
        return parts.layer in self.layers

    def type_allowed(self, parts: CodeParts) -> bool:
        """True when the code's TYPE is a known letter allowed for its (known) LAYER."""
        rule = self.layers.get(parts.layer) if parts.layer is not None else None
        if rule is None or parts.type not in self.type_letters:
            return False
        if parts.type in rule.forbidden:
            return False
        return not rule.allowed or parts.type in rule.allowed

    def number_valid(self, parts: CodeParts) -> bool:
        codes = self.section("codes")
        if parts.number is None:
            return "number" not in self.code_re.groupindex
        return int(codes.get("number_min", 0)) <= parts.number <= int(codes.get("number_max", 999))

    def obeys_layer_rules(self, code: str) -> bool:
        """Closed layer set and allowed type: what makes a mapping target legal. A rule about a part the code
        pattern does not name does not apply (`NOT_FOUND` has no layer: any well-formed code obeys)."""
        parts = self.parse_code(code)
        if parts is None:
            return False
        groups = self.code_re.groupindex
        if "layer" not in groups:
            return True
        return self.layer_known(parts) and ("type" not in groups or self.type_allowed(parts))

    def code_compliant(self, code: str) -> bool:
        """What a migration may write: a code that obeys the layer rules and whose AREA the [areas] table lists
        (a code the scan would flag, RA104, is no candidate)."""
        parts = self.parse_code(code)
        return self.obeys_layer_rules(code) and parts is not None and (
            not self.areas or not parts.area or parts.area in self.areas)

    # -- builder ----------------------------------------------------------------
    @cached_property
    def builder_methods(self) -> dict[str, str]:
        """Method -> the TYPE letter it builds (`success = "S"`, or `success = { type = "S", … }`)."""
        return {m: spec if isinstance(spec, str) else spec["type"]
                for m, spec in self.section("builder").get("methods", {}).items()}

    def method_code_argument(self, method: str) -> tuple[str, int]:
        """(keyword, position) of METHOD's code argument: its own ([builder.methods] `error = { type = "E",
        code-position = 0 }`; -1: it takes no code positionally), else [builder] code-keyword and code_position.
        A forbidden method takes its replacement's."""
        methods = self.section("builder").get("methods", {})
        spec = methods.get(method, methods.get(self.forbidden_methods.get(method, ""), ""))
        spec = spec if isinstance(spec, dict) else {}
        return (str(spec.get("code_keyword", self.code_keyword)), int(spec.get("code_position", self.code_position)))

    @cached_property
    def forbidden_methods(self) -> dict[str, str]:
        return dict(self.section("builder").get("forbidden_methods", {}))

    @cached_property
    def all_builder_methods(self) -> frozenset[str]:
        return frozenset(self.builder_methods) | frozenset(self.forbidden_methods)

    @cached_property
    def builder_functions(self) -> dict[str, dict[str, Any]]:
        """Functions (and envelope classes) that build a reply: name -> {type | type_keyword, code_keyword,
        code_position}; a plain string value is the TYPE letter."""
        out = {}
        for name, spec in self.section("builder").get("functions", {}).items():
            spec = {"type": spec} if isinstance(spec, str) else dict(spec)
            spec.setdefault("code_keyword", self.code_keyword)
            spec.setdefault("code_position", self.code_position)
            out[name] = spec
        return out

    @cached_property
    def builder_function_names(self) -> Names:
        """The [builder.functions] keys as a name matcher (a key may be a glob: `"*Response"`)."""
        from .names import Names

        return Names(self.builder_functions)

    @cached_property
    def code_required_types(self) -> frozenset[str]:
        """TYPE letters whose replies must carry a code (RA311)."""
        return frozenset(self.section("builder").get("code_required", self.type_letters))

    @cached_property
    def code_scope(self) -> str:
        """Where a string spelled like a code is one ([codes] scope): "everywhere", or only at code "positions"
        (a reply call's code argument, a `*code*` keyword or dict key, a comparison with a `*code*` name, a
        registry or mapping that such a position uses). "auto" (the default): everywhere when the pattern names
        parts (LAYER-AREA-TYPE-NNN is no accident), at positions when it is a bare spelling (UPPER_SNAKE is also
        how environment variables and template ids are spelled)."""
        scope = str(self.section("codes").get("scope", "auto"))
        if scope != "auto":
            return scope
        return "everywhere" if self.code_re.groupindex else "positions"

    @cached_property
    def member_registries(self) -> frozenset[str]:
        """Enum classes and `Literal[...]` aliases whose members *are* the codes, whatever their spelling."""
        return frozenset(self.section("codes").get("enums", []))

    def method_type(self, method: str) -> str | None:
        """The TYPE letter a builder method builds (forbidden ones via their replacement)."""
        if method in self.builder_methods:
            return self.builder_methods[method]
        if method in self.builder_functions:
            return self.builder_functions[method].get("type")
        glob = self.builder_function_names.key(method)
        if glob is not None:   # `"*Response" = { type = "E" }`
            return self.builder_functions[glob].get("type")
        target = self.forbidden_methods.get(method)
        return self.builder_methods.get(target) if target else None

    def call_type(self, call: Call) -> str | None:
        """The TYPE letter a reply call site builds: its own (function builders with a type keyword) or its
        method's."""
        return call.type or self.method_type(call.method)

    def builder_list(self, key: str) -> list[str]:
        value = self.section("builder").get(key, [])
        return list(value) if isinstance(value, list) else [value]

    def setting(self, section: str, key: str) -> Any:
        """[SECTION] KEY of the effective profile. A profile built by hand that leaves the key out gets the built-in
        canonical profile's value: defaults live in canonical.toml alone, never beside a call."""
        table = self.section(section)
        return table[key] if key in table else _builtin_setting(section, key)


    @cached_property
    def code_keyword(self) -> str:
        """The keyword a builder method takes its code by ([builder] code-keyword)."""
        return str(self.setting("builder", "code_keyword"))

    @cached_property
    def code_position(self) -> int:
        """The position a builder method takes its code at ([builder] code-position)."""
        return int(self.setting("builder", "code_position"))

    @cached_property
    def safety_decorator(self) -> str:
        """The safety wrapper's name ([handlers] safety-decorator), "" for none."""
        return str(self.setting("handlers", "safety_decorator") or "")

    @cached_property
    def envelope_fields(self) -> list[str]:
        return list(self.setting("envelope", "fields"))

    # -- other sections ---------------------------------------------------------
    @cached_property
    def handler_decorators(self) -> tuple[str, ...]:
        return tuple(self.section("handlers").get("decorators", []))

    @cached_property
    def message_attributes(self) -> frozenset[str]:
        return frozenset(self.section("messages").get("attributes", []))

    @cached_property
    def mapping_table_names(self) -> frozenset[str]:
        return frozenset(self.section("mappings").get("table_names", []))

    @cached_property
    def retired_values(self) -> frozenset[str]:
        return frozenset(self.section("mappings").get("retired_values", []))

    def migrate_value(self, key: str) -> Any:
        """A key of [migrate], or of one of its sub-tables with a dotted key (`dict_returns.success_code`). A
        profile that leaves the key out gets the built-in canonical profile's value, as setting() does."""
        memo = self._migrate_values   # (a plan asks thousands of times for a few dozen keys)
        if key not in memo:
            found = _dotted(self.section("migrate"), key)
            memo[key] = found[0] if found else _builtin_setting("migrate", key)
        return memo[key]

    @cached_property
    def _migrate_values(self) -> dict[str, Any]:
        return {}

    def method_for_type(self, letter: str) -> str | None:
        """The canonical builder method that builds TYPE letter (`E` -> `error`)."""
        return next((m for m, t in self.builder_methods.items() if t == letter), None)


    def scan_list(self, key: str) -> list[str]:
        return list(self.section("scan").get(key, []))

    def to_toml(self, origins: bool = False) -> str:
        """The profile as TOML; with ORIGINS, each value set above the built-in base says where, in a comment."""
        import tomli_w

        text = tomli_w.dumps(_spelt(self.data))
        if not origins or not self.sources:
            return text
        return _annotate(text, self.origins)


def _validate(data: dict[str, Any], origin: str) -> None:
    codes = data.get("codes", {})
    pattern = codes.get("pattern")
    if not isinstance(pattern, str):
        raise UserError(f"{origin}: [codes] pattern must be a string regular expression")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise UserError(f"{origin}: [codes] pattern is not a valid regular expression: {exc}") from None
    unknown = [g for g in compiled.groupindex if g not in CODE_GROUPS]
    if unknown:
        raise UserError(f"{origin}: [codes] pattern has unknown named group(s) {', '.join(unknown)}; "
                        f"use {', '.join(CODE_GROUPS)}")
    letters = data.get("types", {}).get("letters", [])
    for name, rule in data.get("layers", {}).items():
        if not isinstance(rule, dict):
            raise UserError(f"{origin}: [layers.{name}] must be a table with allowed/forbidden lists")
        for key in ("allowed", "forbidden"):
            bad = [t for t in rule.get(key, []) if t not in letters]
            if bad:
                raise UserError(f"{origin}: [layers.{name}] {key} has unknown type letter(s) {bad}; known: {letters}")
    methods = data.get("builder", {}).get("methods", {})
    for method, spec in methods.items():
        letter = spec
        if isinstance(spec, dict):
            extra = sorted(set(spec) - {"type", "code_keyword", "code_position"})
            if extra or "type" not in spec:
                raise UserError(f"{origin}: [builder.methods] {method}: a table takes type (required), code_keyword "
                                f"and code_position" + (f", not {', '.join(extra)}" if extra else ""))
            if not isinstance(spec.get("code_keyword", ""), str) or not isinstance(spec.get("code_position", 0), int) \
                    or isinstance(spec.get("code_position", 0), bool):
                raise UserError(f"{origin}: [builder.methods] {method}: code_keyword is a string, code_position an "
                                "integer (-1: never positional)")
            letter = spec["type"]
        if letter not in letters:
            raise UserError(f"{origin}: [builder.methods] {method} = {letter!r} is not a type letter {letters}")
    for method, target in data.get("builder", {}).get("forbidden_methods", {}).items():
        if target not in methods:
            raise UserError(f"{origin}: [builder.forbidden-methods] {method} = {target!r} is not a builder method")
    _validate_functions(data, origin, letters)
    _validate_key_types(data, origin)
    _validate_results(data, origin)
    _validate_migrate(data, origin, compiled, letters)


_FUNCTION_KEYS = {"type", "type_keyword", "type_values", "code_keyword", "code_position", "code"}


def _validate_functions(data: dict[str, Any], origin: str, letters: list[str]) -> None:
    for name, spec in data.get("builder", {}).get("functions", {}).items():
        where = f"{origin}: [builder.functions] {name}"
        if isinstance(spec, str):
            spec = {"type": spec}
        if not isinstance(spec, dict):
            raise UserError(f"{where} must be a type letter or a table")
        bad = sorted(set(spec) - _FUNCTION_KEYS)
        if bad:
            raise UserError(f"{where}: unknown key(s) {bad}; known: {sorted(_FUNCTION_KEYS)}")
        if not isinstance(spec.get("code", ""), str):
            raise UserError(f"{where}: code must be a string (the one code the function always emits)")
        if "type" in spec and spec["type"] not in letters:
            raise UserError(f"{where}: type {spec['type']!r} is not a type letter {letters}")
        if "type" not in spec and "type_keyword" not in spec:
            raise UserError(f"{where} needs `type` (a letter) or `type_keyword` with `type_values`")
        values = spec.get("type_values", {})
        if not isinstance(values, dict) or any(v not in letters for v in values.values()):
            raise UserError(f"{where}: type_values must map literal values (true, false, \"x\") to type letters "
                            f"{letters}")
        for key in ("type_keyword", "code_keyword"):
            if key in spec and not isinstance(spec[key], str):
                raise UserError(f"{where}: {key} must be a string")
        if not isinstance(spec.get("code_position", 0), int) or isinstance(spec.get("code_position", 0), bool):
            raise UserError(f"{where}: code_position must be an integer (-1: never positional)")


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The checks a compliance level may require (docs/profiles.md, [compliance.levels]); results.py judges them.
COMPLIANCE_CHECKS = {
    "returns": "the handler returns a value on every path it returns",
    "reflection": "every return carries the reflection (`required_nested` heads)",
    "envelope": "every return carries every `required_keys` key",
    "reflection_fields": "every literal reflection has every `required_nested` key",
    "reflection_values": "no literal value breaks [result.values] or [result.ranges]",
    "error_objects": "no error is a bare string; every literal error object has `error_object_keys`",
    "error_codes": "every literal error code matches [codes] pattern, area list and number range",
    "verifiable": "no return is a call or name whose value cannot be known statically",
    "has:KEY": "every return carries the dotted KEY (e.g. has:reflection.telemetry)",
}


_TYPE_CHECKS = {
    "lists": (_strings, "a list of strings"),
    "strings": (lambda v: isinstance(v, str), "a string"),
    "integers": (_integer, "an integer"),
    "tables": (lambda v: isinstance(v, dict), "a table"),
}


def _expect(table: dict[str, Any], where: str, origin: str, **keys: tuple[str, ...]) -> None:
    """Type checks of one table's keys, by kind (lists=, strings=, integers=, tables=): a wrong type is a
    one-line error naming the key."""
    if not isinstance(table, dict):
        raise UserError(f"{origin}: [{where}] must be a table")
    for kind, names in keys.items():
        check, what = _TYPE_CHECKS[kind]
        for key in names:
            if key in table and not check(table[key]):
                raise UserError(f"{origin}: [{where}] {key} must be {what}")


def _validate_key_types(data: dict[str, Any], origin: str) -> None:
    """Types of the keys of [handlers], [codes] and [builder]."""
    _expect(data.get("handlers", {}), "handlers", origin,
            lists=("decorators", "register_calls", "dispatch_tables", "register_function_keywords",
                   "register_name_keywords", "name_patterns", "dispatch_functions"),
            strings=("safety_decorator",), integers=("register_name_position", "register_function_position"))
    _expect(data.get("rules", {}), "rules", origin, lists=("select", "ignore"))   # `select = "RA3"`: one line
    scope = data.get("codes", {}).get("scope", "auto")
    if scope not in ("auto", "positions", "everywhere"):
        raise UserError(f"{origin}: [codes] scope must be \"auto\", \"positions\" or \"everywhere\", not "
                        f"{scope!r}")
    _expect(data.get("codes", {}), "codes", origin, lists=("enums",), strings=("format", "pattern", "scope"),
            integers=("number_min", "number_max"))
    builder = data.get("builder", {})
    _expect(builder, "builder", origin, lists=("code_required", "receiver_names", "reply_classes"),
            strings=("code_keyword",), integers=("code_position", "min_methods"), tables=("functions",))
    letters = data.get("types", {}).get("letters", [])
    bad = [t for t in builder.get("code_required", []) if t not in letters]
    if bad:
        raise UserError(f"{origin}: [builder] code-required has unknown type letter(s) {bad}; known: {letters}")
    from .names import Names

    methods = set(builder.get("methods", {})) | set(builder.get("forbidden_methods", {}))
    functions = Names(builder.get("functions", {}))
    clash = sorted(m for m in methods if m in functions)
    if clash:
        raise UserError(f"{origin}: [builder.functions] {', '.join(functions.key(m) or m for m in clash)} is also "
                        f"a builder method name ({', '.join(clash)}); a name is either a function or a method")
    for where, names in (("[builder.functions]", builder.get("functions", {})),
                         ("[builder] reply-classes", builder.get("reply_classes", [])),
                         ("[result] builders", data.get("result", {}).get("builders", []))):
        broad = [n for n in names if isinstance(n, str) and Names([n]).matches_anything()]
        if broad:
            raise UserError(f"{origin}: {where} {broad[0]!r} matches every name: every call would be a reply; "
                            "name the pattern's fixed part (\"*Response\")")


def _validate_results(data: dict[str, Any], origin: str) -> None:
    result = data.get("result", {})
    _expect(result, "result", origin, lists=("required_keys", "builders", "required_nested", "error_object_keys"),
            strings=("error_key", "error_code_key"), tables=("values", "ranges", "helpers"))
    for key, allowed in result.get("values", {}).items():
        if not isinstance(allowed, list):
            raise UserError(f"{origin}: [result.values] {key} must be a list of allowed values")
    for key, bounds in result.get("ranges", {}).items():
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(
                isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds) and bounds[0] <= bounds[1]):
            raise UserError(f"{origin}: [result.ranges] {key} must be [low, high], two numbers with low <= high")
    for old, new in result.get("key_aliases", {}).items():
        if not isinstance(new, str) or old.rpartition(".")[0] != new.rpartition(".")[0] or old == new:
            raise UserError(f"{origin}: [result.key-aliases] {old} = {new!r} must name another key of the same "
                            "parent (a dotted string)")
    for name, helper in result.get("helpers", {}).items():
        where = f"result.helpers.{name}"
        if not isinstance(helper, dict):
            raise UserError(f"{origin}: [{where}] must be a table")
        unknown = sorted(set(helper) - {"positional", "keywords", "fills"})
        if unknown:
            raise UserError(f"{origin}: [{where}] unknown key(s) {unknown}; known: fills, keywords, positional")
        _expect(helper, where, origin, lists=("positional",), tables=("keywords", "fills"))
        if not all(isinstance(v, str) for v in helper.get("keywords", {}).values()):
            raise UserError(f"{origin}: [{where}] keywords must map keyword names to result keys (strings)")
    compliance = data.get("compliance", {})
    _expect(compliance, "compliance", origin, lists=("order",), strings=("target",), tables=("levels",))
    order = compliance.get("order", [])
    levels = compliance.get("levels", {})
    for name in order:
        if name not in levels:
            raise UserError(f"{origin}: [compliance] order names {name!r}, which [compliance.levels] does not define")
    for name, checks in levels.items():
        if name not in order:
            raise UserError(f"{origin}: [compliance.levels] {name} is not in [compliance] order {order}")
        if not _strings(checks):
            raise UserError(f"{origin}: [compliance.levels] {name} must be a list of check names")
        bad = [c for c in checks if c not in COMPLIANCE_CHECKS and not (c.startswith("has:") and len(c) > 4)]
        if bad:
            known = ", ".join(k for k in COMPLIANCE_CHECKS if k != "has:KEY")
            raise UserError(f"{origin}: [compliance.levels] {name} names unknown check(s) {bad}; known: {known}, "
                            "has:KEY")
    target = compliance.get("target", "")
    if target and target not in order:
        raise UserError(f"{origin}: [compliance] target {target!r} is not in order {order}")
    _validate_result_templates(data.get("migrate", {}).get("result", {}), origin)


def _validate_result_templates(table: dict[str, Any], origin: str) -> None:
    """[migrate.result] templates must fill in to Python expressions."""
    import ast

    _expect(table, "migrate.result", origin, lists=("imports", "status_keys", "failure_values"),
            strings=("template", "default_reflection", "error_object"))
    samples = {"template": {"error": "None", "data": "{}", "reflection": "{}"},
               "default_reflection": {"status": "ok"}, "error_object": {"message": "'m'"}}
    for key, fields in samples.items():
        text = table.get(key, "")
        if not text:
            continue
        try:
            ast.parse(text.format(**fields), mode="eval")
        except (KeyError, IndexError, ValueError) as exc:
            raise UserError(f"{origin}: [migrate.result] {key} is not a valid template (fields: "
                            f"{', '.join('{' + f + '}' for f in fields)}): {exc}") from None
        except SyntaxError as exc:
            raise UserError(f"{origin}: [migrate.result] {key} does not fill in to a Python expression: "
                            f"{exc.msg}") from None


# What [migrate] wrapper may say the safety decorator does with a result that is not a reply ("auto": read it).
WRAPPER_BEHAVIOURS = ("auto", "passthrough", "autowrap", "reject")


def _validate_migrate(data: dict[str, Any], origin: str, compiled: re.Pattern[str], letters: list[str]) -> None:
    migrate = data.get("migrate", {})
    layers = data.get("layers", {})
    for letter, owners in migrate.get("remap", {}).items():
        if letter not in letters:
            raise UserError(f"{origin}: [migrate.remap] {letter} is not a type letter {letters}")
        owners = [owners] if isinstance(owners, str) else owners
        bad = [o for o in owners if o not in layers] if isinstance(owners, list) else [owners]
        if bad:
            raise UserError(f"{origin}: [migrate.remap] {letter} names unknown layer(s) {bad}; known: {list(layers)}")
    api = migrate.get("reply_api", {})
    for key, value in api.items():
        if key == "imports":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UserError(f"{origin}: [migrate.reply-api] imports must be a list of import statements")
        elif not isinstance(value, str):
            raise UserError(f"{origin}: [migrate.reply-api] {key} must be a call template (a string)")
        elif value and key not in letters:
            raise UserError(f"{origin}: [migrate.reply-api] {key} is not a type letter {letters}")
    wanted = {("except_to_error", "code"): "E", ("dict_returns", "success_code"): "S",
              ("dict_returns", "invalid_code"): "I", ("dict_returns", "error_code"): "E"}
    for (table, key), letter in wanted.items():
        code = migrate.get(table, {}).get(key)
        if code is None:
            continue
        if code == "":
            continue
        match = compiled.match(code) if isinstance(code, str) else None
        wrong_type = letter in letters and "type" in compiled.groupindex and match is not None \
            and match.group("type") != letter
        # A code in another format is no load error (a dialect may leave the canonical defaults in place):
        # the codemods skip it, saying it is not registered.
        if not isinstance(code, str) or wrong_type:
            raise UserError(f"{origin}: [migrate.{table}] {key} = {code!r} must be a {letter} code in the "
                            "[codes] format")
    for key in ("builder_setup", "builder_imports", "safety_imports", "reply_imports"):
        value = migrate.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UserError(f"{origin}: [migrate] {key} must be a list of strings")
    if not isinstance(migrate.get("legacy_wrap", False), bool):
        raise UserError(f"{origin}: [migrate] legacy-wrap must be true or false")
    wrapper = migrate.get("wrapper", "auto")
    if wrapper not in WRAPPER_BEHAVIOURS:
        raise UserError(f"{origin}: [migrate] wrapper = {wrapper!r} must be one of {list(WRAPPER_BEHAVIOURS)}")
    _expect(migrate.get("dict_returns", {}), "migrate.dict_returns", origin,
            lists=("success_flags", "error_keys", "status_keys", "failure_values", "message_keys", "denied_flags",
                   "decision_keys", "denied_values", "denied_patterns", "input_exceptions", "error_patterns",
                   "invalid_patterns", "refusal_patterns", "lookup_exceptions", "failure_prefixes",
                   "unsupported_patterns", "error_flags", "doubtful_failure_values"),
            strings=("legacy_code_key", "helper", "denied_code"))
    for key in ("denied_patterns", "error_patterns", "invalid_patterns", "refusal_patterns", "unsupported_patterns"):
        for pattern in migrate.get("dict_returns", {}).get(key, []):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise UserError(f"{origin}: [migrate.dict-returns] {key}: {pattern!r} is not a regular expression "
                                f"({exc})") from None
    codes = migrate.get("codes", {})
    _expect(codes, "migrate.codes", origin, tables=("area_words",))
    for key in ("area_weight", "text_weight", "legacy_weight", "key_weight", "usage_weight", "threshold", "margin"):
        if key in codes and (isinstance(codes[key], bool) or not isinstance(codes[key], (int, float))):
            raise UserError(f"{origin}: [migrate.codes] {key} must be a number")
    for key in ("stop_words", "generic_words"):
        if key in codes and (not isinstance(codes[key], list) or not all(isinstance(w, str) for w in codes[key])):
            raise UserError(f"{origin}: [migrate.codes] {key} must be a list of strings")
    for table in ("area_words", "layer_words"):
        if not isinstance(codes.get(table, {}), dict):
            raise UserError(f"{origin}: [migrate.codes.{table}] must be a table")
        known = data.get("areas" if table == "area_words" else "layers", {})
        for name, words in codes.get(table, {}).items():
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise UserError(f"{origin}: [migrate.codes.{table}] {name} must be a list of strings")
            if known and name not in known:
                what = "AREA" if table == "area_words" else "LAYER"
                raise UserError(f"{origin}: [migrate.codes.{table}] {name} is no {what} of the profile; known: "
                                f"{', '.join(sorted(known))}")
    for key in ("sole_area_types", "quiet_area_types"):
        if key in codes and (not isinstance(codes[key], list) or not all(isinstance(t, str) for t in codes[key])
                             or (letters and not set(codes[key]) <= set(letters))):
            raise UserError(f"{origin}: [migrate.codes] {key} must be a list of type letters (of {letters})")
    if "mark_fallback" in codes and not isinstance(codes["mark_fallback"], bool):
        raise UserError(f"{origin}: [migrate.codes] mark-fallback must be true or false")
    concepts = codes.get("concepts", {})
    if not isinstance(concepts, dict):
        raise UserError(f"{origin}: [migrate.codes.concepts] must be a table")
    for phrase, patterns in concepts.items():
        if not isinstance(patterns, list) or not all(isinstance(x, str) for x in patterns):
            raise UserError(f"{origin}: [migrate.codes.concepts] {phrase!r} must be a list of regular expressions")
        for pattern in patterns:
            if not pattern:
                raise UserError(f"{origin}: [migrate.codes.concepts] {phrase!r}: an empty pattern matches every "
                                "message")
            try:
                re.compile(pattern)
            except re.error as exc:
                raise UserError(f"{origin}: [migrate.codes.concepts] {phrase!r}: {pattern!r} is not a regular "
                                f"expression ({exc})") from None
    helper = migrate.get("dict_returns", {}).get("helper")
    if helper is not None and not str(helper).isidentifier():
        raise UserError(f"{origin}: [migrate.dict-returns] helper = {helper!r} must be a Python name")


Origins = dict[tuple[str, ...], str]


def _leaves(data: dict[str, Any], source: str, path: tuple[str, ...] = ()) -> Origins:
    """Every value of DATA (a table's scalars and lists; a table is its values) set by SOURCE."""
    out: Origins = {}
    for key, value in data.items():
        if key.startswith("extend-"):
            out[(*path, key[len("extend-"):])] = f"{source} (extended)"
        elif isinstance(value, dict) and value:
            out.update(_leaves(value, source, (*path, key)))
        else:
            out[(*path, key)] = source
    return out


def _annotate(text: str, origins: Origins) -> str:
    """TEXT (tomli_w's TOML) with `# from SOURCE` after every key whose value no built-in profile set."""
    origins = {tuple(part.replace("-", "_") for part in path): source for path, source in origins.items()}
    lines: list[str] = []
    table: tuple[str, ...] = ()
    key_line = re.compile(r'^("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+) = ')
    for line in text.splitlines():
        if line.startswith("[") and not line.startswith("[["):
            parsed: Any = tomllib.loads(line)
            table = ()
            while isinstance(parsed, dict) and len(parsed) == 1:
                name = next(iter(parsed))
                table, parsed = (*table, name), parsed[name]
        else:
            found = key_line.match(line)
            if found:
                key = found.group(1)
                key = json.loads(key) if key.startswith('"') else key
                source = origins.get(tuple(part.replace("-", "_") for part in (*table, key)))
                if source and not source.startswith("built-in profile"):
                    line = f"{line}  # from {source}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _resolve_base(spec: str, relative_to: Path | None, seen: tuple[str, ...] = (),
                  notes: list[str] | None = None, kinds: list[str] | None = None,
                  ) -> tuple[dict[str, Any], str, Origins]:
    """A profile named by a built-in name or a path to a TOML file (which may extend another), and where each of
    its values was set; NOTES gets the old spellings the files use."""
    looks_like_path = spec.endswith(".toml") or "/" in spec or "\\" in spec
    if not looks_like_path:
        data = _load_builtin(spec)
        return data, spec, _leaves(data, f"built-in profile {spec!r}")
    path = Path(spec)
    if relative_to is not None and not path.is_absolute():
        path = relative_to / path
    key = str(path.resolve())
    if key in seen:
        raise UserError(f"profile file {str(path)!r} extends itself (through {len(seen)} file(s)): "
                        "break the `extends` cycle")
    seen = (*seen, key)
    raw = _load_file(path)
    parent = raw.pop("extends", None)
    if isinstance(raw.get("profile"), str):  # `profile = "canonical"` also names the base
        parent = parent or raw.pop("profile")
    if not isinstance(parent or DEFAULT_PROFILE, str):
        raise UserError(f"profile file {str(path)!r}: `extends` must name a profile")
    base, _, origins = _resolve_base(parent or DEFAULT_PROFILE, path.parent, seen, notes, kinds)
    origin = f"profile file {str(path)!r}"
    raw = _normalize(raw, origin, notes)
    _check_keys(base, raw, origin, kinds=kinds)
    return merge(base, raw), str(path), {**origins, **_leaves(raw, str(path))}


def _nearest_config(start: Path) -> tuple[Path, str] | None:
    """The closest pyproject.toml with a `[tool.reply-audit]` table, from START up to the repository's root (the
    first folder holding `.git`) or the filesystem's, as ruff finds its configuration: a scan of a subfolder, or
    of one file, uses the repository's section."""
    folder = (start if start.is_dir() else start.parent).resolve()
    for candidate in (folder, *folder.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                text = pyproject.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            if "reply-audit" in text and _has_table(text):
                return pyproject, text
        if (candidate / ".git").exists():
            return None
    return None


def project_root(start: Path) -> Path:
    """Where a project's own files go (the facts cache, history's output): the folder of the nearest
    pyproject.toml with a `[tool.reply-audit]` table, else the repository's root (the first folder up holding
    `.git`), else START's folder. A scan of `src/` and one of the whole repository share one cache there."""
    folder = (start if start.is_dir() else start.parent).resolve()
    return project_anchor(folder) or folder


def project_anchor(folder: Path) -> Path | None:
    """The folder of the nearest configuration, else of `.git`, at or above FOLDER; None when there is neither."""
    found = _nearest_config(folder)
    if found is not None:
        return found[0].parent
    return next((c for c in (folder, *folder.parents) if (c / ".git").exists()), None)


def with_excludes(profile: Profile, exclude: list[str] | None, extend: list[str] | None) -> Profile:
    """PROFILE with `[scan] exclude` replaced by EXCLUDE and/or extended by EXTEND (--exclude, --extend-exclude);
    the same profile when neither is given."""
    if not exclude and not extend:
        return profile
    data = copy.deepcopy(profile.data)
    scan = data.setdefault("scan", {})
    current = list(exclude) if exclude else list(scan.get("exclude", []))
    scan["exclude"] = current + [p for p in extend or [] if p not in current]
    origins = {**profile.origins, ("scan", "exclude"): "--exclude" if exclude else "--extend-exclude"}
    return Profile(name=profile.name, data=data, sources=(*profile.sources, "the command line"), origins=origins,
                   warnings=profile.warnings)


def _has_table(text: str) -> bool:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True   # broken: let the reader say so, in one line
    table: Any = data
    for key in PYPROJECT_TABLE:
        table = table.get(key) if isinstance(table, dict) else None
    return isinstance(table, dict)


def read_config(config: Path) -> dict[str, Any]:
    """The settings of a file given with --config: a pyproject.toml's `[tool.reply-audit]` table, or a whole
    TOML file holding what that table would (`reply-audit.toml`)."""
    try:
        text = config.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"--config {str(config)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--config {str(config)!r} cannot be read: {exc}") from None
    data = _read_toml(text, str(config))
    table: Any = data
    for key in PYPROJECT_TABLE:
        table = table.get(key) if isinstance(table, dict) else None
    if isinstance(table, dict):
        return table
    if config.name == "pyproject.toml":
        raise UserError(f"--config {str(config)!r} has no [tool.reply-audit] table")
    return data


def read_pyproject_table(root: Path, text: str | None = None) -> tuple[dict[str, Any] | None, Path | None]:
    """The `[tool.reply-audit]` table of ROOT/pyproject.toml (or of TEXT, that file's content at a git
    revision), if any."""
    pyproject = root / "pyproject.toml"
    if text is None:
        found = _nearest_config(root)
        if found is None:
            return None, None
        pyproject, text = found
    data = _read_toml(text, str(pyproject))
    table: Any = data
    for key in PYPROJECT_TABLE:
        table = table.get(key) if isinstance(table, dict) else None
    if not isinstance(table, dict):
        return None, None
    return table, pyproject


def load_profile(spec: str | None = None, root: Path | None = None, pyproject_text: str | None = None,
                 config: Path | None = None) -> Profile:
    """The effective profile.

    `spec` (from --profile) names a built-in or a TOML file; without it the
    repository's `[tool.reply-audit] profile` key or the default is used. The
    repository's `[tool.reply-audit]` table (the nearest one above ROOT, or
    CONFIG's when --config names a file) is layered on top.
    """
    sources: list[str] = []
    table: dict[str, Any] | None
    pyproject: Path | None
    if config is not None:
        table, pyproject = read_config(config), config
    else:
        table, pyproject = (read_pyproject_table(root, pyproject_text) if root is not None else (None, None))
    base_spec = spec or (table or {}).get("profile") or (table or {}).get("extends") or DEFAULT_PROFILE
    if not isinstance(base_spec, str):
        raise UserError(f"{pyproject}: [tool.reply-audit] profile must be a string")
    relative = pyproject.parent if (pyproject and not spec) else None
    notes: list[str] = []
    kinds: list[str] = []
    data, origin, origins = _resolve_base(base_spec, relative, notes=notes, kinds=kinds)
    sources.append(origin)
    if table:
        overrides = {k: v for k, v in table.items() if k not in META_KEYS}
        if overrides:
            where = f"{pyproject} [tool.reply-audit]"
            overrides = _normalize(overrides, str(pyproject), notes)
            _check_keys(data, overrides, where, kinds=kinds)
            data = merge(data, overrides)
            sources.append(str(pyproject))
            origins.update(_leaves(overrides, str(pyproject)))
    name = data.get("profile", {}).get("name", base_spec)
    try:
        _validate(data, " + ".join(sources))
    except UserError as exc:
        raise UserError(_spell_message(exc.message, data)) from None
    if kinds:
        raise UserError(kinds[0])
    return Profile(name=name, data=data, sources=tuple(sources), origins=origins,
                   warnings=tuple(dict.fromkeys(notes)))


@cache
def _builtin_setting(section: str, key: str) -> Any:
    """[SECTION] KEY of the built-in canonical profile (KEY may be dotted); a KeyError names a setting no
    profile defines (a bug)."""
    found = _dotted(_load_builtin(DEFAULT_PROFILE)[section], key)
    if not found:
        raise KeyError(f"[{section}] {key}")
    return found[0]


def _dotted(table: Any, key: str) -> tuple[Any] | tuple[()]:
    """(value,) of the dotted KEY in TABLE, or () when a part of it is missing."""
    for part in key.split("."):
        if not isinstance(table, dict) or part not in table:
            return ()
        table = table[part]
    return (table,)
