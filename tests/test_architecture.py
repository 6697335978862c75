"""The shape of the house: modules import only downwards, and no import cycle exists.

Every module of src/reply_audit belongs to one layer below. A module may import
from its own layer or a lower one, never from a higher one; and the import graph
(every `from . import`, at module level, inside functions or under
TYPE_CHECKING alike) has no cycle. A new module must be given a layer here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "reply_audit"

# Lowest first. A module is named by its dotted path below reply_audit; a name ending in ".*" takes a package.
LAYERS: list[tuple[str, set[str]]] = [
    ("foundations", {"errors", "names", "safe_write", "plugins", "gitrev", "journal", "directives", "records", "lazy",
                     "cst_positions", "record_class",
                     "__init__"}),
    ("the profile: the spec as data", {"profile"}),
    ("vocabulary read from the profile", {"results", "classify", "meaning", "discovery", "mappings", "parsing",
                                          "init_scope", "facts.model", "facts.__init__"}),
    ("facts of one file", {"facts.registries", "facts.signatures", "facts.builders", "facts.expressions",
                           "facts.scopes", "facts.registrations_reader", "facts.result_shapes", "facts.envelopes",
                           "facts.walking", "facts.line_probe", "facts.top_level", "facts.relocate", "facts.versions",
                           "facts.extract",
                           "file_facts"}),
    ("the scan: cache, pool, index, report memo", {"cache", "workers", "index", "scan", "memo"}),
    ("rules and compliance", {"rules.*", "compliance"}),
    ("evaluation", {"engine"}),
    ("plan and codemods", {"codemods.*"}),
    ("commands' work", {"migrate", "delta", "history", "init", "init_vet", "fleet"}),
    ("reports", {"report.*"}),
    ("the public API and GitHub", {"api", "github_comment"}),
    ("the command line", {"cli", "cli_options", "console", "ending", "__main__"}),
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        out[path.relative_to(SRC).with_suffix("").as_posix().replace("/", ".")] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    for rank, (_, names) in enumerate(LAYERS):
        for name in names:
            if name == module or (name.endswith(".*") and module.startswith(name[:-1])):
                return rank
    raise AssertionError(f"src/reply_audit/{module.replace('.', '/')}.py has no layer in tests/test_architecture.py")


def _imports(module: str) -> set[str]:
    """The modules of the package that MODULE imports, anywhere in its body."""
    path = MODULES[module]
    package = module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
            elif (node.module or "").split(".")[0] == "reply_audit":
                base = []
            else:
                continue
            stem = [*base, *(node.module.split(".") if node.module else [])]
            if not node.level:
                stem = stem[1:]
            for alias in node.names:
                for candidate in (".".join([*stem, alias.name]), ".".join(stem) or "__init__",
                                  ".".join([*stem, "__init__"])):
                    if candidate in MODULES:
                        found.add(candidate)
                        break
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "reply_audit" and ".".join(parts[1:]) in MODULES:
                    found.add(".".join(parts[1:]))
    found.discard(module)
    return found


GRAPH = {m: _imports(m) for m in MODULES}


def test_every_module_has_a_layer():
    for module in MODULES:
        _layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_or_across_never_up(module):
    upward = sorted(f"{t} ({LAYERS[_layer(t)][0]})" for t in GRAPH[module] if _layer(t) > _layer(module))
    assert not upward, f"{module} ({LAYERS[_layer(module)][0]}) imports upward: {', '.join(upward)}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle():
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_function_level_and_type_checking_imports():
    assert "report.json_report" in GRAPH["api"]       # imported inside render(), at call time
    assert "rules.base" in GRAPH["codemods.base"]     # imported under TYPE_CHECKING
    assert "file_facts" in GRAPH["workers"] and "scan" not in GRAPH["workers"]
    assert "codemods.planner" not in GRAPH["engine"]  # evaluate no longer loads the codemods


def test_the_command_line_only_parses_and_prints():
    """cli.py stays small: the work of every command is in `api`, its options in `cli_options`."""
    lines = (SRC / "cli.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"cli.py has {len(lines)} lines"
    assert "subprocess" not in "\n".join(lines) and "safe_write" not in "\n".join(lines)
