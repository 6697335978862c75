"""Per-file facts: every registry style, mappings, builders, calls, handlers, literals, imports."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from support import facts_of


def _codes(reg):
    return [(c.code, c.line) for c in reg.codes]


# --------------------------------------------------------------------- registries
def test_dict_registry_keyed_by_codes(profile):
    f = facts_of('''
        REGISTRY = {
            "WA-RES-I-001": "Path {path} not found",
            "EN-WRITE-D-001": "Write denied",
        }
    ''', profile)
    [reg] = f.registries
    assert (reg.name, reg.style, reg.line) == ("REGISTRY", "dict", 2)
    assert _codes(reg) == [("WA-RES-I-001", 3), ("EN-WRITE-D-001", 4)]
    assert f.code_literals == []  # definitions are not "uses"


def test_list_registry_with_code_keyword_and_declared_layer(profile):
    f = facts_of('''
        _CODES: list = [
            Code(code="MCP-SYS-D-902", reply_type="D", layer="MCP", message="x"),
            Code(code="DB-CONN-S-001", reply_type="S", layer=Layer.DB),
            Code("not a code"),
        ]
    ''', profile)
    [reg] = f.registries
    assert reg.style == "list"
    assert [(c.code, c.declared_layer, c.declared_type) for c in reg.codes] == [
        ("MCP-SYS-D-902", "MCP", "D"), ("DB-CONN-S-001", "DB", "S")]


def test_tuple_registry_with_positional_code(profile):
    f = facts_of('''
        ALL = (Code("WA-RES-S-001", "ok"), Code("WA-RES-E-001", "boom"))
    ''', profile)
    assert [(r.style, len(r.codes)) for r in f.registries] == [("tuple", 2)]


def test_class_registry_attributes_are_calls(profile):
    f = facts_of('''
        class Codes:
            """All codes."""
            WA_RES_I_001 = ReplyCode("WA-RES-I-001", Layer.WA, Area.RES, ReplyType.I, 1, "PATH_NOT_FOUND")
            EN_WRITE_D_001 = ReplyCode("EN-WRITE-D-001", Layer.EN, Area.WRITE, ReplyType.D, 1, "DENIED")
            helper = "not a code"
    ''', profile)
    [reg] = f.registries
    assert (reg.name, reg.style) == ("Codes", "class")
    assert [(c.code, c.attr, c.line) for c in reg.codes] == [
        ("WA-RES-I-001", "WA_RES_I_001", 4), ("EN-WRITE-D-001", "EN_WRITE_D_001", 5)]


def test_enum_registry_and_literal_alias(profile):
    f = facts_of('''
        from enum import Enum
        from typing import Literal

        class ErrorCode(str, Enum):
            NOT_FOUND = "WA-RES-I-001"
            CRASH = "MCP-SYS-E-001"

        KnownCode = Literal["WA-RES-I-001", "MCP-SYS-E-001", "CT-GATE-S-001"]
        Layer = Literal["WA", "EN"]
    ''', profile)
    assert [(r.name, r.style, len(r.codes)) for r in f.registries] == [
        ("ErrorCode", "enum", 2), ("KnownCode", "literal", 3)]


def test_module_constants_form_a_registry_only_when_enough(profile):
    many = facts_of('''
        NOT_FOUND = "WA-RES-I-001"
        CRASH = "MCP-SYS-E-001"
    ''', profile)
    assert [(r.name, r.style, _codes(r)) for r in many.registries] == [
        ("(module constants)", "constants", [("WA-RES-I-001", 2), ("MCP-SYS-E-001", 3)])]
    one = facts_of('DEFAULT = "MCP-SYS-E-001"\n', profile)
    assert one.registries == []
    assert [(c.code, c.line) for c in one.code_literals] == [("MCP-SYS-E-001", 1)]


def test_collections_inside_functions_are_not_registries(profile):
    f = facts_of('''
        def f():
            table = {"WA-RES-I-001": 1, "WA-RES-E-001": 2}
            return table
    ''', profile)
    assert f.registries == []
    assert [c.code for c in f.code_literals] == ["WA-RES-I-001", "WA-RES-E-001"]


# ----------------------------------------------------------------------- mappings
def test_named_mapping_table_with_retired_refs_and_item_assignment(profile):
    f = facts_of('''
        LEGACY_TO_CANONICAL: dict[str, str | None] = {
            "FILE-OP-S-001": "WA-WRITE-S-001",
            "GIT-HOOK-E-001": None,
            "LEARN-DIFF-S-001": "RETIRED",
            "JRN-S-001": Codes.WA_LOG_S_001,
        }
        LEGACY_TO_CANONICAL["DB-CONN-S-001"] = "WA-DB-S-001"
    ''', profile)
    [m] = f.mappings
    assert m.name == "LEGACY_TO_CANONICAL"
    assert [(e.legacy, e.canonical, e.canonical_ref, e.line) for e in m.entries] == [
        ("FILE-OP-S-001", "WA-WRITE-S-001", None, 3),
        ("GIT-HOOK-E-001", None, None, 4),
        ("LEARN-DIFF-S-001", None, None, 5),
        ("JRN-S-001", None, "Codes.WA_LOG_S_001", 6),
        ("DB-CONN-S-001", "WA-DB-S-001", None, 8),
    ]
    assert f.registries == []


def test_mapping_detected_by_shape(profile):
    f = facts_of('''
        OLD_NEW = {"FILE-OP-S-001": "WA-WRITE-S-001", "FILE-OP-E-001": "MCP-SYS-E-001"}
    ''', profile)
    assert [(m.name, len(m.entries)) for m in f.mappings] == [("OLD_NEW", 2)]
    assert f.registries == []


# ----------------------------------------------------------------------- builders
BUILDER = '''
    class ReplyBuilder:
        def __init__(self, tool):
            self.tool = tool
            self._done = False

        def _check(self, code):
            ok, err = validate_code_format(code)
            if not ok:
                raise ValueError(err)

        def _guard(self):
            if self._done:
                raise RuntimeError("frozen")

        def success(self, code, data=None):
            self._guard()
            return Reply.success(code=code, data=data)

        def invalid(self, code, data=None):
            self._guard()
            self._done = True
            return Reply.invalid(code=code, data=data)

        def denied(self, code, data=None):
            self._done = True
            return Reply.denied(code=code, data=data)

        def error(self, code, data=None):
            self._done = True
            return Reply.error(code=code, data=data)
'''


def test_builder_with_validation_and_frozen_state(profile):
    f = facts_of(BUILDER, profile)
    [b] = f.builders
    assert (b.name, b.kind, b.line) == ("ReplyBuilder", "builder", 2)
    assert sorted(b.methods) == ["denied", "error", "invalid", "success"]
    assert (b.validates_format, b.validates_layer, b.frozen_after_terminal) == (True, True, True)
    # the builder's own delegation to Reply is recorded, marked as inside a builder
    assert {(c.receiver, c.method, c.in_builder) for c in f.calls} == {
        ("Reply", m, True) for m in ("success", "invalid", "denied", "error")}


def test_builder_without_freeze_or_validation(profile):
    f = facts_of('''
        def _make(tool):
            class _Shadow:
                def success(self, code, data): return Reply.success(code=code, data=data)
                def info(self, code, data): return Reply.info(code=code, data=data)
                def error(self, code, data): return Reply.error(code=code, data=data)
            return _Shadow()
    ''', profile)
    [b] = f.builders
    assert (b.qualname, b.nested_in, b.kind) == ("_make._Shadow", "_make", "builder")
    assert sorted(b.methods) == ["error", "info", "success"]
    assert (b.validates_format, b.validates_layer, b.frozen_after_terminal) == (False, False, False)
    assert [(x.name, x.returns) for x in f.factories] == [("_make", "_Shadow")]


def test_a_validator_that_never_reads_the_reply_type_does_not_validate_layer(profile):
    """The class tests layer and type, but of the code only: the type each method passes is dropped, so
    `denied("WA-RES-I-001")` would pass. With the parameter read, the same class validates."""
    source = '''
        class B:
            def _check(self, code, expected_type):
                layer, kind = code.split("-")[0], code.split("-")[2]
                if layer == "WA" and kind == "D":
                    raise ValueError(code)
                return code
            def success(self, code): return self._check(code, "S")
            def denied(self, code): return self._check(code, expected_type="D")
    '''
    [b] = facts_of(source, profile).builders
    assert (b.validates_layer, b.type_ignored_by) == (False, "_check(expected_type)")
    [b] = facts_of(source.replace("return code\n", "return code, expected_type\n"), profile).builders
    assert (b.validates_layer, b.type_ignored_by) == (True, None)


def test_explicit_layer_test_counts_as_layer_validation(profile):
    f = facts_of('''
        class B:
            def success(self, code): return code
            def error(self, code):
                layer, kind = code.split("-")[0], code.split("-")[2]
                if layer == "WA" and kind == "D":
                    raise ValueError(code)
                return code
    ''', profile)
    assert [(b.validates_layer, b.validates_format) for b in f.builders] == [(True, False)]


def test_reply_class_with_classmethod_factories_is_a_factory_builder(profile):
    f = facts_of('''
        class Reply:
            @classmethod
            def success(cls, code, data=None): return cls("S", code, data)
            @classmethod
            def error(cls, code, data=None): return cls("E", code, data)
    ''', profile)
    assert [(b.name, b.kind) for b in f.builders] == [("Reply", "factory")]


def test_logger_is_not_a_builder(profile):
    f = facts_of('''
        class Logger:
            def info(self, msg): print(msg)
            def warn(self, msg): print(msg)
            def error(self, msg): print(msg)
        log = Logger()
        log.error("WA-RES-E-001")
    ''', profile)
    assert f.builders == []


# -------------------------------------------------------------------------- calls
def test_call_sites_bindings_returns_and_excepts(profile):
    f = facts_of('''
        import logging
        logger = logging.getLogger(__name__)

        def handler(path, rb: ReplyBuilder):
            b2 = ReplyBuilder(tool="x")
            try:
                data = load(path)
            except KeyError:
                return b2.invalid("WA-RES-I-001", {"path": path})
            except Exception as exc:
                logger.error("boom")
                return rb.invalid("MCP-SYS-I-001", {"err": str(exc)})
            except:
                rb.error("MCP-SYS-E-001")
            if not data:
                b2.denied(code="EN-READ-D-001")
            return rb.success(Codes.WA_READ_S_001, data) if data else rb.error("MCP-SYS-E-002")
    ''', profile)
    got = [(c.line, c.receiver, c.binding, c.binding_kind, c.method, c.code, c.code_ref, c.returned,
            c.except_kind, c.function) for c in f.calls]
    assert got == [
        (10, "b2", "ReplyBuilder", "assign", "invalid", "WA-RES-I-001", None, True, "narrow", "handler"),
        # a candidate only: the index drops it, getLogger resolves to no builder (see test_index)
        (12, "logger", "getLogger", "assign", "error", "boom", None, False, "broad", "handler"),
        (13, "rb", "ReplyBuilder", "annotation", "invalid", "MCP-SYS-I-001", None, True, "broad", "handler"),
        (15, "rb", "ReplyBuilder", "annotation", "error", "MCP-SYS-E-001", None, False, "bare", "handler"),
        (17, "b2", "ReplyBuilder", "assign", "denied", "EN-READ-D-001", None, False, None, "handler"),
        (18, "rb", "ReplyBuilder", "annotation", "success", None, "Codes.WA_READ_S_001", True, None, "handler"),
        (18, "rb", "ReplyBuilder", "annotation", "error", "MCP-SYS-E-002", None, True, None, "handler"),
    ]
    # every construction of a class bound to a name is a candidate, called later or not; a function's result
    # is one only when a builder method is called on it; the index keeps the builders
    assert f.instantiations == [("getLogger", 3), ("ReplyBuilder", 6)]


def test_self_attribute_and_name_only_receivers(profile):
    f = facts_of('''
        class Tool:
            def __init__(self):
                self.replies = ReplyBuilder("t")

            def run(self, rb):
                if self.replies.success("WA-RES-S-001"):
                    return rb.error("MCP-SYS-E-001")
                other.success("WA-RES-S-001")
    ''', profile)
    assert [(c.receiver, c.binding, c.binding_kind) for c in f.calls] == [
        ("self.replies", "ReplyBuilder", "self_attr"), ("rb", None, "name")]
    assert [(c.function) for c in f.calls] == ["Tool.run", "Tool.run"]


# ----------------------------------------------------------------------- handlers
def test_handlers_and_return_kinds(profile):
    f = facts_of('''
        @mcp.tool()
        @mcp_safe_tool
        def notes_read(path: str):
            rb = ReplyBuilder(tool="notes_read")
            def helper():
                return {"nested": True}
            if not path:
                return {"success": False, "error": "no path"}
            if path == "x":
                return dict(ok=True, path=path)
            if path == "y":
                return Reply(reply_type="S", code="WA-READ-S-001")
            if path == "z":
                return None
            reply = rb.success("WA-READ-S-001", {"path": path})
            if path == "w":
                return reply
            return helper()

        @app.tool
        def not_a_handler():
            return {"a": 1}

        @safety.mcp_safe_tool
        def wrapped():
            return {"b": 2}
    ''', profile)
    assert [(h.name, h.decorators) for h in f.handlers] == [
        ("notes_read", ["mcp.tool", "mcp_safe_tool"]), ("wrapped", ["safety.mcp_safe_tool"])]
    first = f.handlers[0]
    assert [(r.line, r.kind, r.keys) for r in first.returns] == [
        (9, "dict", ["success", "error"]),
        (11, "dict", ["ok", "path"]),
        (13, "reply", []),
        (15, "none", []),
        (18, "call", []),
        (19, "other", []),
    ]
    assert first.returns[4].call == 0


# ---------------------------------------------------- literals, imports, messages
def test_imports_scopes_and_type_checking(profile):
    f = facts_of('''
        from typing import TYPE_CHECKING
        from ck3.core.reply_registry import get_message
        from . import codes
        import os.path
        if TYPE_CHECKING:
            from .replies.codes import Codes
        def f():
            from ..legacy import REG
    ''', profile)
    assert [(i.module, i.level, i.names, i.line, i.in_function, i.type_checking) for i in f.imports] == [
        ("typing", 0, ["TYPE_CHECKING"], 2, False, False),
        ("ck3.core.reply_registry", 0, ["get_message"], 3, False, False),
        ("", 1, ["codes"], 4, False, False),
        ("os.path", 0, [], 5, False, False),
        ("replies.codes", 1, ["Codes"], 7, False, True),
        ("legacy", 2, ["REG"], 9, True, False),
    ]


def test_message_branching(profile):
    f = facts_of('''
        def f(reply, entries):
            if reply.message == "Path not found":
                return 1
            if "denied" in reply.message.lower():
                return 2
            if reply.message.startswith("Write"):
                return 3
            text = reply.message.lower()
            return text
    ''', profile)
    assert [(m.line, m.kind, m.text) for m in f.message_uses] == [
        (3, "compare", "reply.message"), (5, "contains", "reply.message"), (7, "method", "reply.message.startswith()")]


def test_message_branching_in_any_expression_that_decides(profile):
    """A `.message` read inside a condition or a comparison operand is a branch, whatever wraps it; passed on
    (logged, returned, printed) it is not."""
    f = facts_of('''
        import re

        def f(reply, entries):
            if re.search(r"denied", reply.message):
                return 1
            if (reply.message or "")[:4] == "Path":
                return 2
            kept = [e for e in entries if e in reply.message]
            short = 3 if reply.message else 4
            assert not reply.message.endswith("!")
            while reply.message:
                break
            match reply.message:
                case "x":
                    pass
            print(reply.message)
            log = {"message": reply.message}
            return len(reply.message) > 10
    ''', profile)
    assert [(m.line, m.col, m.kind, m.text) for m in f.message_uses] == [
        (5, 28, "test", "reply.message"), (7, 7, "compare", "reply.message"), (9, 34, "contains", "reply.message"),
        (10, 17, "test", "reply.message"), (11, 15, "method", "reply.message.endswith()"),
        (12, 10, "test", "reply.message"), (14, 10, "test", "reply.message"), (19, 11, "compare", "reply.message")]


def test_facts_are_plain_data_that_round_trip(profile):
    import json
    from dataclasses import fields

    from reply_audit.facts.model import FileFacts

    f = facts_of(BUILDER + '''
        LEGACY_TO_CANONICAL = {"A-B-S-001": "WA-RES-S-001", "A-B-E-001": None}

        @mcp_safe_tool
        def tool(rb: ReplyBuilder):
            return rb.success("WA-RES-S-001", {})
    ''', profile)
    data = json.loads(json.dumps(f.to_row()))
    assert FileFacts.from_row(data) == f
    assert data[0] == "mod.py" and len(data) == len(fields(FileFacts))   # values by position, no keys
    with pytest.raises(ValueError, match="a FileFacts row has"):
        FileFacts.from_row(data[:-1])                                   # another shape is refused, never guessed


def test_bindings_through_conditional_or_walrus_and_unpacking(profile):
    """`rb = make() if t else None` (and `or`, `:=`, tuple unpacking) binds rb to the construction: the call on it
    is resolved, and a construction only passed on (`helper(rb=rb)`) is still an instantiation."""
    f = facts_of('''
        def a(trace):
            rb = ReplyBuilder(trace) if trace else None
            if rb:
                return rb.invalid("WA-RES-I-001", {})

        def b(given):
            rb = given or ReplyBuilder()
            return rb.info("WA-RES-S-001", {})

        def c():
            if (rb := ReplyBuilder()) is not None:
                return rb.error("MCP-SYS-E-001", {})

        def d():
            n, rb = 1, ReplyBuilder()
            return rb.success("WA-RES-S-001", {})

        def e():
            rb = ReplyBuilder()
            return helper(rb=rb)
    ''', profile)
    assert [(c.line, c.receiver, c.binding, c.binding_kind, c.method) for c in f.calls] == [
        (5, "rb", "ReplyBuilder", "assign", "invalid"),
        (9, "rb", "ReplyBuilder", "assign", "info"),
        (13, "rb", "ReplyBuilder", "assign", "error"),
        (17, "rb", "ReplyBuilder", "assign", "success")]
    assert f.instantiations == [("ReplyBuilder", 3), ("ReplyBuilder", 8), ("ReplyBuilder", 12),
                                ("ReplyBuilder", 16), ("ReplyBuilder", 20)]


def test_one_extractor_keeps_nothing_of_the_files_before():
    """A worker extracts thousands of files with one extractor: what it learns about a file's functions goes
    with the file, or every syntax tree would stay in memory (15 copies of ck3raven took 512 MB in one process,
    185 MB without)."""
    from reply_audit.facts.extract import FactsExtractor
    from reply_audit.file_facts import facts_for_source
    from reply_audit.profile import load_profile

    profile = load_profile("canonical")
    extractor = FactsExtractor(profile)
    source = (b"@mcp.tool()\ndef tool(rb, path):\n    p = path.strip()\n    try:\n        open(p)\n"
              b"    except OSError:\n        return rb.invalid('WA-RES-I-001')\n")
    facts_for_source(source, "a.py", profile, extractor)
    # the try block of a handler reads a local passed on from a parameter: the function's locals were traced
    assert [f.qualname for f, _ in extractor._derived_cache.values()] == ["tool"]
    facts_for_source(source.replace(b"def tool", b"def other"), "b.py", profile, extractor)
    assert [f.qualname for f, _ in extractor._derived_cache.values()] == ["other"]


@dataclass(slots=True)
class _Inner:
    a: int


@dataclass(slots=True)
class _Shapes:
    pair: tuple[str, _Inner]
    many: tuple[_Inner, ...] = ()
    plain: tuple[str, int] = ("x", 1)
    maybe: tuple[int, _Inner] | None = None
    table: dict[str, list[_Inner]] = field(default_factory=dict)


def test_rows_rebuild_every_shape_of_field_exactly():
    """Tuples of fixed length are rebuilt position by position (a record in the second place is a record), tuples
    of any length item by item, Optional and nested containers as they were."""
    import json

    from reply_audit.facts.model import _decoder, _encoder

    value = _Shapes(("k", _Inner(1)), (_Inner(2), _Inner(3)), ("y", 2), (5, _Inner(6)), {"t": [_Inner(7)]})
    row = json.loads(json.dumps(_encoder(_Shapes)(value)))
    assert row == [["k", [1]], [[2], [3]], ["y", 2], [5, [6]], {"t": [[7]]}]
    assert _decoder(_Shapes)(row) == value
    with pytest.raises(ValueError, match="a tuple of 2 items has 3"):
        _decoder(_Shapes)([["k", [1], "extra"], [], ["y", 2], None, {}])


# ------------------------------------------------------------- across versions
_VERSION_1 = b'''import os

@mcp.tool()
def notes_read(path: str, limit: str):
    n = int(limit)
    rows = path.split(",")
    try:
        data = open(rows[0]).read(n)
    except OSError:
        return {"success": False, "error": "cannot read"}
    return {"success": True, "data": data}
'''
# the same handler three lines lower, then with one line changed
_VERSION_2 = b"# a\n# b\n# c\n" + _VERSION_1
_VERSION_3 = _VERSION_2.replace(b"rows = path.split", b"chunk = 1\n    rows = limit.split")


def test_an_extractor_across_versions_gives_the_facts_a_fresh_one_gives():
    """`history` reads every version of a file with one extractor that keeps what a function's own text decides
    (local names, locals passed on from parameters): each version's facts are those of a fresh extraction."""
    from reply_audit.facts.extract import FactsExtractor
    from reply_audit.file_facts import facts_for_source
    from reply_audit.profile import load_profile

    profile = load_profile("canonical")
    across = FactsExtractor(profile, across_versions=True)
    for source in (_VERSION_1, _VERSION_2, _VERSION_3, _VERSION_1):
        kept = facts_for_source(source, "tools.py", profile, across)
        assert kept.to_row() == facts_for_source(source, "tools.py", profile).to_row()
    assert across._texts is not None and len(across._texts) == 4   # two texts of the handler, two answers each
    [handler] = kept.handlers
    assert handler.local_names == ["data", "limit", "n", "path", "rows"]
    assert [r.try_reads for r in handler.returns] == ["direct", ""]   # `rows` passes `path` on


def test_the_same_bytes_under_another_coding_are_read_anew():
    """`\\xc3\\xaa` is `ê` in UTF-8 and `Ãª` in Latin-1 (`Ãa` once Python normalises the name): the same handler
    bytes under a coding declaration name another local."""
    from reply_audit.facts.extract import FactsExtractor
    from reply_audit.file_facts import facts_for_source
    from reply_audit.profile import load_profile

    profile = load_profile("canonical")
    across = FactsExtractor(profile, across_versions=True)
    body = b"\n@mcp.tool()\ndef tool(path):\n    \xc3\xaa = path\n    return {'success': True}\n"
    utf8 = facts_for_source(b"# one\n" + body, "t.py", profile, across)
    latin = facts_for_source(b"# -*- coding: latin-1 -*-\n" + body, "t.py", profile, across)
    assert utf8.handlers[0].local_names == ["path", "ê"]
    assert latin.handlers[0].local_names == ["path", "Ãa"]


def test_a_decorator_above_the_first_statement_is_part_of_what_a_body_is_known_by():
    """The locals passed on from parameters are traced through the whole body, the decorators of its first
    statement too (written above it): a version that changes only that decorator is traced anew."""
    from reply_audit.facts.extract import FactsExtractor
    from reply_audit.file_facts import facts_for_source
    from reply_audit.profile import load_profile

    profile = load_profile("canonical")
    first = (b"@mcp.tool()\ndef handler(items):\n    @register([x for x in items])\n    def inner():\n"
             b"        pass\n    try:\n        run(x)\n    except Exception:\n        return {'error': 'failed'}\n")
    second = first.replace(b"@register([x for x in items])", b"@register([])")
    across = FactsExtractor(profile, across_versions=True)
    reads = [facts_for_source(v, "t.py", profile, across).handlers[0].returns[0].try_reads for v in (first, second)]
    assert reads == ["indirect", ""]   # `x` passes `items` on only where the decorator binds it


def test_a_rewrite_of_a_file_nested_too_deeply_to_print_is_refused_not_raised():
    from reply_audit.codemods.apply import rewrite_source

    source = ("x = " + "[" * 300 + "]" * 300 + "\n").encode()
    outcome = rewrite_source(source, [])
    assert (outcome.problem, outcome.new_source) == ("nested too deeply for libcst to rewrite", None)


def test_a_number_python_will_not_print_is_no_traceback(profile):
    """An integer of more than 4,300 decimal digits parses, but Python refuses to print it: a handler's return
    annotation or a guard holding one is read, the number written `...`."""
    huge = "0x" + "f" * 4000
    f = facts_of(f'''
        @mcp.tool()
        def tool(x) -> {huge}:
            if x > {huge}:
                return {{"success": False, "error": "too big"}}
            return {{"success": True}}
    ''', profile)
    [handler] = f.handlers
    assert handler.annotation == "..."
    assert [r.guards for r in handler.returns] == [["x > ..."], []]


def test_a_statement_of_a_class_the_parser_does_not_make_is_read_as_its_base(profile):
    """Statements are handed on by their exact class; a subclass (a tree some tool built) goes where its base
    goes, so its returns, guards and calls are read as the parser's own statements' are."""
    import ast

    from reply_audit.facts.extract import FactsExtractor
    from reply_audit.facts.model import FileFacts

    source = (b"@mcp.tool()\ndef tool(rb, x):\n    if x:\n        return rb.invalid('WA-RES-I-001')\n"
              b"    for y in x:\n        pass\n    return {'success': True}\n")

    class MyIf(ast.If):
        pass

    class MyReturn(ast.Return):
        pass

    def rebuilt(tree: ast.Module) -> ast.Module:
        for node in ast.walk(tree):
            for name in ("body", "orelse"):
                block = getattr(node, name, None)
                if isinstance(block, list):
                    for i, stmt in enumerate(block):
                        kind = {ast.If: MyIf, ast.Return: MyReturn}.get(type(stmt))
                        if kind is not None:
                            block[i] = kind(**{f: getattr(stmt, f) for f in (*stmt._fields, *stmt._attributes)})
        return tree

    plain = FactsExtractor(profile).extract(ast.parse(source), source, FileFacts(path="t.py"))
    built = FactsExtractor(profile).extract(rebuilt(ast.parse(source)), source, FileFacts(path="t.py"))
    assert built.to_row() == plain.to_row()
    assert [(r.line, r.kind, r.guards) for r in built.handlers[0].returns] == [(4, "call", ["x"]), (7, "dict", [])]
