"""Cross-file joins: builder resolution, registry roles, legacy classification, runtime imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from reply_audit.errors import UserError
from reply_audit.profile import load_profile
from reply_audit.records import Duplicate, SharedCode
from reply_audit.scan import scan
from support import scan_tree, write_tree

LEGACY = '''
    from dataclasses import dataclass

    @dataclass
    class LegacyCode:
        code: str
        layer: str

    _CODES = [
        LegacyCode(code="FILE-OP-S-001", layer="FILE"),     # mapped
        LegacyCode(code="FILE-OP-D-001", layer="FILE"),     # mapped_to_forbidden
        LegacyCode(code="FILE-OP-E-001", layer="FILE"),     # mapped_to_unknown
        LegacyCode(code="GIT-HOOK-S-001", layer="GIT"),     # retired explicitly
        LegacyCode(code="LEARN-DIFF-S-001", layer="LEARN"), # retired by rule: layer outside the set
        LegacyCode(code="MCP-SYS-D-902", layer="MCP"),      # retired by rule: D outside EN
        LegacyCode(code="MCP-SYS-E-001", layer="MCP"),      # identical
        LegacyCode(code="WA-RES-E-009", layer="WA"),        # unmapped: a gap
        LegacyCode(code="WA-RES-E-009", layer="WA"),        # ... defined twice
    ]

    def get_message(code):
        return code
'''

CANONICAL = '''
    class Codes:
        WA_WRITE_S_001 = ReplyCode("WA-WRITE-S-001", "WA", "WRITE", "S", 1)
        WA_RES_I_001 = ReplyCode("WA-RES-I-001", "WA", "RES", "I", 1)
        MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001", "MCP", "SYS", "E", 1)

    LEGACY_TO_CANONICAL = {
        "FILE-OP-S-001": Codes.WA_WRITE_S_001,
        "FILE-OP-D-001": "WA-WRITE-D-001",
        "FILE-OP-E-001": "WA-WRITE-E-042",
        "GIT-HOOK-S-001": None,
        "OLD-THING-S-001": "WA-RES-I-001",
    }
'''


@pytest.fixture()
def tree(tmp_path: Path):
    return write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/core/__init__.py": "",
        "pkg/core/legacy_registry.py": LEGACY,
        "pkg/replies/__init__.py": "",
        "pkg/replies/codes.py": CANONICAL,
        "pkg/safety.py": '''
            from .replies.codes import Codes
            from pkg.core.legacy_registry import get_message

            class ReplyBuilder:
                def success(self, code, data=None): return (code, data)
                def invalid(self, code, data=None): return (code, data)
                def denied(self, code, data=None): return (code, data)
                def error(self, code, data=None): return (code, data)

            def make_builder(tool) -> "ReplyBuilder":
                return ReplyBuilder()
        ''',
        "pkg/server.py": '''
            import logging
            from .safety import ReplyBuilder, make_builder

            log = logging.getLogger(__name__)

            @mcp_safe_tool
            def notes_read(path):
                rb = make_builder("notes_read")
                log.error("not a builder call")
                if not path:
                    return rb.invalid("WA-RES-I-001", {})
                return rb.success("WA-WRITE-S-001", {})

            @mcp_safe_tool
            def notes_write(path):
                rb = ReplyBuilder()
                return {"success": True}
        ''',
        "tests/test_codes.py": '''
            from pkg.replies.codes import Codes
            FIXTURE = {"WA-RES-I-001": 1, "WA-RES-S-001": 2}
        ''',
    })


def test_registry_roles_from_mapping_evidence(tree):
    inv = scan(tree, load_profile("canonical")).inventory
    assert [(r.path, r.name, r.style, r.role, r.definitions, r.distinct) for r in inv.registries] == [
        ("pkg/core/legacy_registry.py", "_CODES", "list", "legacy", 9, 8),
        ("pkg/replies/codes.py", "Codes", "class", "canonical", 3, 3),
        ("tests/test_codes.py", "FIXTURE", "dict", "test", 2, 2),
    ]
    assert inv.duplicates == [Duplicate(registry="pkg/core/legacy_registry.py::_CODES", code="WA-RES-E-009",
                                        count=2, lines=[17, 18])]
    assert inv.shared_codes == [SharedCode(code="MCP-SYS-E-001", registries=[
        "pkg/core/legacy_registry.py::_CODES", "pkg/replies/codes.py::Codes"])]


def test_every_legacy_class(tree):
    inv = scan(tree, load_profile("canonical")).inventory
    got = {c.code: (c.cls, c.target) for c in inv.legacy_codes}
    assert got == {
        "FILE-OP-S-001": ("mapped", "WA-WRITE-S-001"),     # resolved from Codes.WA_WRITE_S_001
        "FILE-OP-D-001": ("mapped_to_forbidden", "WA-WRITE-D-001"),
        "FILE-OP-E-001": ("mapped_to_unknown", "WA-WRITE-E-042"),
        "GIT-HOOK-S-001": ("retired", None),
        "LEARN-DIFF-S-001": ("retired", None),
        "MCP-SYS-D-902": ("retired", None),
        "MCP-SYS-E-001": ("identical", None),
        "WA-RES-E-009": ("unmapped", None),
    }
    reasons = {c.code: c.reason for c in inv.legacy_codes if c.cls == "retired"}
    assert reasons == {"GIT-HOOK-S-001": "retired explicitly",
                       "LEARN-DIFF-S-001": "layer LEARN is outside the closed set",
                       "MCP-SYS-D-902": "type D is forbidden for layer MCP"}
    assert [(k.legacy, k.line) for k in inv.mapping_keys_not_legacy] == [("OLD-THING-S-001", 12)]


def test_builder_resolution_through_imports_and_factories(tree):
    inv = scan(tree, load_profile("canonical")).inventory
    assert [(c.path, c.line, c.builder, c.method, c.code) for c in inv.calls] == [
        ("pkg/server.py", 12, "pkg/safety.py::ReplyBuilder", "invalid", "WA-RES-I-001"),
        ("pkg/server.py", 13, "pkg/safety.py::ReplyBuilder", "success", "WA-WRITE-S-001"),
    ]
    [b] = inv.builders
    # the factory's own `return ReplyBuilder()`; line 9 through the factory; line 17 constructs it and never calls
    # it: still an instantiation
    assert [(p.path, p.line) for p in b.instantiated_at] == [("pkg/safety.py", 12), ("pkg/server.py", 9),
                                                             ("pkg/server.py", 17)]
    assert b.calls == 2 and b.missing_methods == [] and b.forbidden_methods == []
    assert [(h.name, h.returns_by_kind) for h in inv.handlers] == [
        ("notes_read", {"builder": 2}), ("notes_write", {"dict": 1})]


def test_runtime_imports_of_registry_modules(tree):
    inv = scan(tree, load_profile("canonical")).inventory
    got = [(i.path, i.line, i.registry_path, i.roles, i.runtime) for i in inv.registry_imports]
    assert got == [
        ("pkg/safety.py", 2, "pkg/replies/codes.py", ["canonical"], True),
        ("pkg/safety.py", 3, "pkg/core/legacy_registry.py", ["legacy"], True),
        ("tests/test_codes.py", 2, "pkg/replies/codes.py", ["canonical"], False),
    ]


def test_mapping_file_overrides_code_table(tree, tmp_path):
    mapping = tmp_path / "extra.toml"
    mapping.write_text('[mapping]\n"WA-RES-E-009" = "MCP-SYS-E-001"\n"FILE-OP-E-001" = "RETIRED"\n')
    csv = tmp_path / "more.csv"
    csv.write_text("legacy,canonical,note\nLEARN-DIFF-S-001,WA-RES-I-001,x\n")
    inv = scan(tree, load_profile("canonical"), [mapping, csv]).inventory
    got = {c.code: (c.cls, c.target) for c in inv.legacy_codes}
    assert got["WA-RES-E-009"] == ("mapped", "MCP-SYS-E-001")
    assert got["FILE-OP-E-001"] == ("retired", None)
    assert got["LEARN-DIFF-S-001"] == ("mapped", "WA-RES-I-001")


@pytest.mark.parametrize("name,text,message", [
    ("bad.toml", "[mapping\n", "is not valid TOML"),
    ("bad.csv", "old,new\nA,B\n", "needs the columns legacy and canonical"),
    ("bad.toml", '"not-a-code" = "WA-RES-I-001"\n', "does not look like a code"),
    ("bad.txt", "x", "use a .toml or .csv file"),
])
def test_bad_mapping_files_are_user_errors(tree, tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        scan(tree, load_profile("canonical"), [path])


def test_explicit_roles_from_profile(tmp_path):
    files = {
        "a.py": 'A = {"WA-RES-I-001": 1, "WA-RES-S-001": 2}\n',
        "b.py": 'B = {"WA-RES-E-001": 1, "WA-RES-S-002": 2}\n',
        "pyproject.toml": '[tool.reply-audit.registries]\nlegacy = ["a.py::A"]\n',
    }
    inv = scan_tree(tmp_path, files).inventory
    assert [(r.name, r.role) for r in inv.registries] == [("A", "legacy"), ("B", "canonical")]
    assert [c.cls for c in inv.legacy_codes] == ["unmapped", "unmapped"]


def test_receiver_names_survive_unhelpful_annotations(tmp_path):
    inv = scan_tree(tmp_path, {"m.py": '''
        from typing import Any

        def enforce(rb: Any, mode: str):
            return rb.denied("EN-GATE-D-001", {})

        def other(log: Logger):
            log.error("WA-RES-E-001")
    '''}).inventory
    assert [(c.line, c.receiver, c.builder, c.method) for c in inv.calls] == [(5, "rb", None, "denied")]


def test_a_registry_a_package_init_imports_is_loaded_by_every_import_of_that_package(tmp_path):
    """core/__init__.py imports the legacy registry: `from core.trace import …` at module scope loads it
    (through the __init__), an import inside the package does not add a line, and a package whose __init__
    imports nothing loads nothing."""
    write_tree(tmp_path, {
        "core/__init__.py": "from core.legacy_registry import REGISTRY\n",
        "core/legacy_registry.py": 'REGISTRY = {"FILE-OP-S-001": "ok", "FILE-OP-E-001": "failed"}\n',
        "core/trace.py": "from core.util import helper\n",
        "core/util.py": "def helper():\n    return 1\n",
        "tools/__init__.py": "",
        "tools/plain.py": "X = 1\n",
        "server.py": "from core.trace import helper\nfrom tools.plain import X\n",
    })
    inv = scan(tmp_path, load_profile("canonical")).inventory
    assert [(i.path, i.line, i.registry_path, i.via, i.runtime) for i in inv.registry_imports] == [
        ("core/__init__.py", 1, "core/legacy_registry.py", None, True),
        ("server.py", 1, "core/legacy_registry.py", "core/__init__.py", True),
    ]


def test_import_targets_are_kept_per_list_of_imports_and_path_not_per_copy():
    """`history` copies a version's facts to another path at every commit (`dataclasses.replace`, the same
    list of imports): one entry serves each (version, path), however many commits copy it."""
    from dataclasses import replace

    from reply_audit.facts.model import FileFacts, ImportFact
    from reply_audit.index import ModuleMap

    modules = ModuleMap(["pkg/__init__.py", "pkg/a.py", "pkg/b.py", "other/b.py"])
    facts = FileFacts(path="pkg/a.py", imports=[ImportFact(module="b", level=1, names=["x"], line=1, in_function=False, type_checking=False)])
    assert modules.targets(facts) == [["pkg/b.py"]]
    for _ in range(50):
        moved = replace(facts, path="other/a.py")
        assert modules.targets(moved) == [["other/b.py"]]   # relative: from the copy's own folder
    assert len(modules._targets) == 2
    changed = replace(facts, imports=[ImportFact(module="pkg.b", level=0, names=[], line=1, in_function=False, type_checking=False)])
    assert modules.targets(changed) == [["pkg/b.py"]] and len(modules._targets) == 3


KEPT_BUILDER = '''
class ReplyBuilder:
    def success(self, code, message):
        return {"code": code}

    def invalid(self, code, message):
        return {"code": code}
'''

KEPT_NO_BUILDER = '''
class ReplyBuilder:
    def success(self, code, message):
        return {"code": code}
'''

KEPT_TOOLS = '''
from .builder import ReplyBuilder

def mcp_safe_tool(fn):
    return fn

@mcp_safe_tool
def read_file(path):
    out = ReplyBuilder()
    if not path:
        return out.invalid("WA-RES-I-001", "no path")
    return out.success("WA-RES-S-001", "read")
'''


def test_records_kept_from_the_tree_before_serve_only_where_the_answers_across_files_are_the_same():
    """`history` indexes tree after tree with one FileRecords: a file's records are made again when the index
    answers otherwise for it (here the builder its calls resolve to, once the builder loses a method), and each
    inventory is the one a fresh index gives."""
    from reply_audit.file_facts import facts_for_source
    from reply_audit.index import FileRecords, build_inventory
    from reply_audit.report.json_text import as_dict

    profile = load_profile("canonical")
    tools = facts_for_source(KEPT_TOOLS.encode(), "pkg/tools.py", profile)
    builder = facts_for_source(KEPT_BUILDER.encode(), "pkg/builder.py", profile)
    lesser = facts_for_source(KEPT_NO_BUILDER.encode(), "pkg/builder.py", profile)
    kept = FileRecords()
    seen = []
    for tree in ([builder, tools], [builder, tools], [lesser, tools], [builder, tools]):
        inventory = build_inventory(profile, tree, [], kept=kept)
        assert as_dict(inventory) == as_dict(build_inventory(profile, tree, []))
        seen.append(inventory)
    builds = ["pkg/builder.py::ReplyBuilder"] * 2
    assert [[c.builder for c in inv.calls] for inv in seen] == [builds, builds, [], builds]
    assert [[r.kind for r in inv.handlers[0].returns] for inv in seen] == [
        ["builder", "builder"], ["builder", "builder"], ["other", "other"], ["builder", "builder"]]
    # the same facts and answers: the very records of the tree before; other answers: made again
    assert seen[1].calls[0] is seen[0].calls[0] and seen[1].handlers[0] is seen[0].handlers[0]
    assert seen[2].handlers[0] != seen[1].handlers[0] and seen[3].calls[0] is not seen[1].calls[0]
    assert seen[3].calls[0] == seen[0].calls[0] and seen[3].handlers[0] == seen[0].handlers[0]


def test_a_mapping_by_reference_is_resolved_in_each_tree_and_its_facts_are_left_as_read():
    """The index resolves `Codes.X` in the tree it indexes. `history` indexes the same facts of an unchanged
    mapping module in tree after tree: the code the reference names in the next tree counts there."""
    from reply_audit.file_facts import facts_for_source
    from reply_audit.index import FileRecords, build_inventory
    from reply_audit.report.json_text import as_dict

    profile = load_profile("canonical")
    codes = '''
class Codes:
    WA_WRITE_S_001 = ReplyCode("{}", "WA", "WRITE", "S", 1)
    WA_RES_I_001 = ReplyCode("WA-RES-I-001", "WA", "RES", "I", 1)
'''
    mapping = facts_for_source(b'from .codes import Codes\n\nLEGACY_TO_CANONICAL = {\n'
                               b'    "FILE-OP-S-001": Codes.WA_WRITE_S_001,\n}\n', "pkg/mapping.py", profile)
    first = facts_for_source(codes.format("WA-WRITE-S-001").encode(), "pkg/codes.py", profile)
    renumbered = facts_for_source(codes.format("WA-WRITE-S-002").encode(), "pkg/codes.py", profile)
    tools = facts_for_source(b'from .codes import Codes\n\ndef write(rb):\n    return rb.success(Codes.WA_WRITE_S_001, {})\n',
                             "pkg/tools.py", profile)
    kept = FileRecords()
    got = []
    for tree in ([first, mapping, tools], [renumbered, mapping, tools], [first, mapping, tools]):
        inventory = build_inventory(profile, tree, [], kept=kept)
        assert as_dict(inventory) == as_dict(build_inventory(profile, tree, []))
        got.append([(e.legacy, e.canonical) for m in inventory.mappings for e in m.entries])
    assert got == [[("FILE-OP-S-001", "WA-WRITE-S-001")], [("FILE-OP-S-001", "WA-WRITE-S-002")],
                   [("FILE-OP-S-001", "WA-WRITE-S-001")]]
    assert [(e.canonical, e.canonical_ref) for e in mapping.mappings[0].entries] == [(None, "Codes.WA_WRITE_S_001")]


def test_a_kept_import_map_forgets_a_relative_import_of_a_package_whose_init_comes_or_goes():
    """`from .legacy import OLD` finds `app/legacy/__init__.py` once it exists: the map of the commit that adds
    it must not keep the answer of the commit before (nothing), nor the map of a later commit the answer it
    took over."""
    from reply_audit.index import ModuleMap

    before = ["app/legacy/util.py", "app/server.py"]
    first = ModuleMap(before)
    assert first.resolve("app/server.py", "legacy", 1, ["OLD"]) == []
    added = ModuleMap([*before, "app/legacy/__init__.py"], first)
    assert added.resolve("app/server.py", "legacy", 1, ["OLD"]) == ["app/legacy/__init__.py"]
    later = ModuleMap([*before, "app/legacy/__init__.py", "app/z.py"], added)
    assert later.resolve("app/server.py", "legacy", 1, ["OLD"]) == ["app/legacy/__init__.py"]
    removed = ModuleMap([*before, "app/z.py"], later)
    assert removed.resolve("app/server.py", "legacy", 1, ["OLD"]) == []
