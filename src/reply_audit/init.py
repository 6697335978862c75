"""`reply-audit init`: a starter `[tool.reply-audit]` section written from what the code shows.

One `ast` walk per file collects the evidence a profile needs: which decorators sit on
functions that look like tool handlers, which calls register functions by name, which
dicts dispatch by name, which functions build replies (and where their code argument is),
which Enum classes or `Literal[...]` aliases hold codes, which classes are returned as
envelopes, whether returns carry an IAR reflection, and whether codes look canonical.
`propose` turns the evidence into profile keys, each with a comment saying what it rests
on; the text is checked by loading it as a profile before anyone sees it.
"""

from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .discovery import discover
from .errors import UserError
from .facts.registries import ENUM_BASES, dotted_name, last_name, str_value
from .profile import load_profile

HANDLER_WORDS = re.compile(r"(?:^|[._])(?:tool|action|handler|endpoint)s?(?:$|[._])", re.IGNORECASE)
NOT_HANDLERS = frozenset({"property", "staticmethod", "classmethod", "dataclass", "lru_cache", "cache",
                          "cached_property", "wraps", "abstractmethod", "contextmanager", "overload", "override",
                          "pytest.fixture", "fixture", "functools.wraps", "functools.lru_cache"})
BUILDER_NAME = re.compile(r"^_?(?:make_|build_|create_)?(?P<kind>success|ok|error|fail|failure|invalid|denied)"
                          r"_?(?:response|reply|result)?$", re.IGNORECASE)
KIND_TYPE = {"success": "S", "ok": "S", "error": "E", "fail": "E", "failure": "E", "invalid": "I", "denied": "D"}
CANONICAL_CODE = re.compile(r"^[A-Z][A-Z0-9]*-[A-Z][A-Z0-9]*-[SIDE]-[0-9]{3}$")
CODE_NAME = re.compile(r"code|error", re.IGNORECASE)


@dataclass
class Evidence:
    files: int = 0
    unparseable: int = 0
    decorators: Counter = field(default_factory=Counter)
    decorator_at: dict[str, str] = field(default_factory=dict)
    register_calls: Counter = field(default_factory=Counter)
    register_at: dict[str, str] = field(default_factory=dict)
    register_name_positions: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    register_args: dict[str, list] = field(default_factory=lambda: defaultdict(list))  # (position, name)
    functions: set = field(default_factory=set)   # names of every function defined in the tree
    dispatch_tables: dict[str, str] = field(default_factory=dict)
    builders: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # name -> (letter, code kw, pos)
    builder_at: dict[str, str] = field(default_factory=dict)
    enums: dict[str, str] = field(default_factory=dict)
    envelope_classes: dict[str, str] = field(default_factory=dict)
    envelope_codes: dict[str, str] = field(default_factory=dict)   # class -> its code keyword
    reflection_returns: int = 0
    canonical_codes: int = 0
    builder_methods: int = 0


def _code_like(node: ast.AST) -> bool:
    """An argument that looks like a code: `ErrorCode.X`, `Codes.X`, or a string such as "NOT_FOUND"."""
    if isinstance(node, ast.Attribute):
        return bool(CODE_NAME.search(dotted_name(node) or ""))
    text = str_value(node)
    return text is not None and re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+", text) is not None \
        and (text.isupper() or text.islower())


def _key(name: str) -> str:
    """NAME as a TOML key: bare when it can be, quoted otherwise."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _where(path: str, node: ast.AST) -> str:
    return f"{path}:{getattr(node, 'lineno', 0)}"


class _Collector:
    def __init__(self, evidence: Evidence, path: str) -> None:
        self.ev = evidence
        self.path = path

    def module(self, tree: ast.Module) -> None:
        functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.ev.functions |= functions
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function(node)
            elif isinstance(node, ast.ClassDef):
                self._class(node)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._assign(node, functions)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and CANONICAL_CODE.match(node.value):
                self.ev.canonical_codes += 1
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
                if any(str_value(k) == "reflection" for k in node.value.keys if k is not None):
                    self.ev.reflection_returns += 1

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for dec in node.decorator_list:
            name = dotted_name(dec.func if isinstance(dec, ast.Call) else dec)
            if name and name not in NOT_HANDLERS:
                self.ev.decorators[name] += 1
                self.ev.decorator_at.setdefault(name, _where(self.path, node))
        match = BUILDER_NAME.match(node.name)
        if match and node.col_offset == 0:
            params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
            keyword = next((p for p in params + [a.arg for a in node.args.kwonlyargs] if "code" in p.lower()), "")
            position = params.index(keyword) if keyword in params else -1
            self.ev.builders.setdefault(node.name, (KIND_TYPE[match.group("kind").lower()], keyword, position))
            self.ev.builder_at.setdefault(node.name, _where(self.path, node))

    def _class(self, node: ast.ClassDef) -> None:
        bases = {last_name(b) for b in node.bases}
        members = [s for s in node.body if isinstance(s, ast.Assign)]
        if bases & ENUM_BASES and len(members) >= 2 and CODE_NAME.search(node.name):
            self.ev.enums.setdefault(node.name, _where(self.path, node))
        fields = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        if {"success", "error"} <= fields:
            self.ev.envelope_classes.setdefault(node.name, _where(self.path, node))
        methods = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if len(methods & {"success", "invalid", "denied", "error"}) >= 3:
            self.ev.builder_methods += 1

    def _call(self, node: ast.Call) -> None:
        name = last_name(node.func)
        if not name:
            return
        keywords = [kw.arg for kw in node.keywords if kw.arg]
        code_keyword = next((k for k in keywords if "code" in k.lower()), "")
        match = BUILDER_NAME.match(name) if isinstance(node.func, ast.Name) else None
        position = next((i for i, a in enumerate(node.args) if _code_like(a)), -1)
        if match and name not in self.ev.builders:   # a reply function imported from elsewhere
            self.ev.builders[name] = (KIND_TYPE[match.group("kind").lower()], code_keyword, position)
            self.ev.builder_at[name] = _where(self.path, node)
        elif match:
            letter, keyword, known = self.ev.builders[name]
            self.ev.builders[name] = (letter, keyword or code_keyword, known if known >= 0 else position)
        if name[:1].isupper() and "success" in keywords:   # ToolResponse(success=..., error=...)
            self.ev.envelope_classes.setdefault(name, _where(self.path, node))
            if code_keyword:
                self.ev.envelope_codes[name] = code_keyword
        if not name.startswith("register") or len(node.args) < 2:
            return
        named = next((i for i, a in enumerate(node.args) if str_value(a) is not None), None)
        seen = False
        for i, arg in enumerate(node.args):
            target = arg.args[0] if isinstance(arg, ast.Call) and arg.args else arg
            if isinstance(target, (ast.Name, ast.Attribute)):
                seen = True
                self.ev.register_args[name].append((i, last_name(target)))
        if seen:
            self.ev.register_calls[name] += 1
            self.ev.register_at.setdefault(name, _where(self.path, node))
            if named is not None:
                self.ev.register_name_positions[name][named] += 1

    def _assign(self, node: ast.Assign, functions: set[str]) -> None:
        target = last_name(node.targets[0])
        value = node.value
        if target and isinstance(value, ast.Dict) and len(value.keys) >= (1 if HANDLER_WORDS.search(target) else 2) \
                and all(
                str_value(k) is not None for k in value.keys) and all(
                isinstance(v, ast.Name) and v.id in functions for v in value.values):
            self.ev.dispatch_tables.setdefault(target, _where(self.path, node))
        if isinstance(value, ast.Subscript) and last_name(value.value) == "Literal" and target \
                and CODE_NAME.search(target):
            self.ev.enums.setdefault(target, _where(self.path, node))


def collect(root: Path) -> Evidence:
    found = discover(root, ["*.py"], [".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist",
                                      "site-packages", ".tox", ".reply-audit-cache"])
    ev = Evidence()
    for rel in found.files:
        try:
            source = (found.root / rel).read_bytes()
            tree = ast.parse(source, rel)
        except (OSError, SyntaxError, ValueError, RecursionError):
            ev.unparseable += 1
            continue
        ev.files += 1
        _Collector(ev, rel).module(tree)
    return ev


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"


def propose(ev: Evidence) -> str:
    """The starter section, every key with the evidence it rests on."""
    lines = ["# Written by `reply-audit init` from what it found in the code; check each key, then run",
             "# `reply-audit scan`. docs/profiles.md explains every key.", "[tool.reply-audit]"]
    iar = ev.reflection_returns > 0 and ev.reflection_returns >= ev.canonical_codes
    base = "iar" if iar else "canonical"
    lines.append(f'profile = "{base}"  # {ev.reflection_returns} returned dicts carry a "reflection", '
                 f"{ev.canonical_codes} strings look like LAYER-AREA-TYPE-NNN codes")
    safety = [name for name, _ in ev.decorators.most_common() if re.search(r"safe|guard", name, re.IGNORECASE)]
    handler_decorators = [name for name, n in ev.decorators.most_common()
                          if HANDLER_WORDS.search(name) and name not in safety]
    handler_lines = []
    if handler_decorators:
        handler_lines.append(f"decorators = {_toml_list(handler_decorators)}  # " + "; ".join(
            f"{name} on {ev.decorators[name]} function(s), e.g. {ev.decorator_at[name]}"
            for name in handler_decorators[:4]))
        if safety:
            handler_lines.append(f'safety_decorator = "{safety[0]}"  # on {ev.decorators[safety[0]]} function(s), '
                                 f"e.g. {ev.decorator_at[safety[0]]}")
        elif base == "canonical":
            handler_lines.append('safety_decorator = ""  # none found; name yours to have RA308 check it')
    elif base == "iar":
        handler_lines.append("decorators = []  # no handler-like decorator found")
    # a register call counts when it is handed functions defined in the tree (not API keys or plugins' names)
    registers = [name for name, _ in ev.register_calls.most_common() if any(target in ev.functions for _, target in ev.register_args[name])]
    if registers:
        top = registers[0]
        # the position that most often holds a function defined in the tree
        scores = Counter(i for i, target in ev.register_args[top] if target in ev.functions)
        position = scores.most_common(1)[0][0]
        handler_lines.append(f"register_calls = {_toml_list(registers)}  # " + "; ".join(
            f"{name} called {ev.register_calls[name]} time(s), e.g. {ev.register_at[name]}" for name in registers[:3]))
        handler_lines.append(f"register_function_position = {position}  # where the function is passed to {top}")
        if ev.register_name_positions[top]:
            named = ev.register_name_positions[top].most_common(1)[0][0]
            handler_lines.append(f"register_name_position = {named}  # where its name is passed")
    if ev.dispatch_tables:
        handler_lines.append(f"dispatch_tables = {_toml_list(sorted(ev.dispatch_tables))}  # " + "; ".join(
            f"{name} at {at}" for name, at in sorted(ev.dispatch_tables.items())[:3]))
    if handler_lines:
        lines += ["", "[tool.reply-audit.handlers]", *handler_lines]
    if ev.enums:
        lines += ["", "[tool.reply-audit.codes]",
                  f"enums = {_toml_list(sorted(ev.enums))}  # " + "; ".join(
                      f"{name} at {at}" for name, at in sorted(ev.enums.items())[:3]),
                  "# pattern = '...'  # set it to the spelling of your codes (docs/profiles.md)"]
    functions: dict[str, str] = {}
    for name, (letter, keyword, position) in sorted(ev.builders.items()):
        if base == "iar" or ev.builder_methods:   # a builder class is there: replies come from its methods
            break
        if name in ev.envelope_classes:
            continue
        spec = f'{{ type = "{letter}"'
        spec += f', code_keyword = "{keyword}"' if keyword else ""
        spec += f", code_position = {position}"
        functions[name] = f"{_key(name)} = {spec} }}  # {ev.builder_at[name]}"
    for name, at in sorted(ev.envelope_classes.items()):
        if base == "iar":
            break
        code = f'code_keyword = "{ev.envelope_codes[name]}", ' if name in ev.envelope_codes else ""
        functions[name] = (f'{_key(name)} = {{ type_keyword = "success", type_values = {{ true = "S", false = "E" }}, '
                           f"{code}code_position = -1 }}  # constructed with success=..., {at}")
    functions = list(functions.values())
    if functions:
        lines += ["", "[tool.reply-audit.builder.functions]", *functions]
        if not ev.builder_methods:
            lines += ["", "[tool.reply-audit.builder]",
                      'code_required = ["E"]  # replies built by functions; success replies usually carry no code']
    text = "\n".join(lines) + "\n"
    _check(text)
    return text


def _check(text: str) -> None:
    """The proposal must load as a profile: a key init writes that the profile refuses is a bug here."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "pyproject.toml").write_text(text, encoding="utf-8")
        load_profile(None, Path(tmp))


def write_section(root: Path, text: str) -> Path:
    """Append TEXT to ROOT/pyproject.toml (created if missing); refuse when a section is already there."""
    import tomllib

    pyproject = root / "pyproject.toml"
    current = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
    try:
        existing = tomllib.loads(current)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{pyproject} is not valid TOML ({exc}); fix it before adding a section") from None
    if "reply-audit" in existing.get("tool", {}):
        raise UserError(f"{pyproject} already has a [tool.reply-audit] section; edit it, or print a proposal "
                        "with `reply-audit init` (without --write) and merge by hand")
    separator = "" if not current or current.endswith("\n\n") else ("\n" if current.endswith("\n") else "\n\n")
    pyproject.write_text(current + separator + text, encoding="utf-8")
    return pyproject
