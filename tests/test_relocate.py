"""`facts.relocate`: records moved by a number of lines, every field that holds a line named."""

from __future__ import annotations

from dataclasses import is_dataclass
from typing import get_args

import pytest

from reply_audit.facts import relocate
from reply_audit.facts.model import (
    BuilderFact,
    CallFact,
    FileFacts,
    HandlerFact,
    MappingEntry,
    MappingFact,
    ParseProblem,
    ReturnFact,
    Signature,
    WrapperFact,
    _plan,
)
from reply_audit.facts.relocate import OutsideTheStatement, Within, moved
from reply_audit.record_class import record


def _call(line: int = 3) -> CallFact:
    return CallFact(line=line, col=4, end_line=line + 1, end_col=2, receiver="rb", binding="ReplyBuilder",
                    binding_kind="assign", method="error", code="E-1", code_ref=None, returned=True,
                    in_except=True, except_kind="broad", function="tool", in_builder=False, guards=["x > 1"],
                    except_line=line - 1)


def _dataclasses_in(tp: object) -> list[type]:
    if isinstance(tp, type) and is_dataclass(tp):
        return [tp]
    return [found for arg in get_args(tp) for found in _dataclasses_in(arg)]


def test_every_record_a_file_holds_can_be_moved_but_the_safety_decorator():
    """Every class reachable from FileFacts has a mover: each of its number fields is named a line or not one."""
    seen: set[type] = set()
    todo: list[type] = [FileFacts]
    while todo:
        for _, ftype in _plan(todo.pop()):
            for inner in _dataclasses_in(ftype):
                if inner not in seen:
                    seen.add(inner)
                    todo.append(inner)
    # (a parse problem belongs to no statement: a file read in pieces has none)
    assert seen - {ParseProblem} == {*relocate.MOVABLE, *relocate.UNMOVABLE}
    for cls in relocate.MOVABLE:
        relocate._mover(cls)
    with pytest.raises(TypeError, match="WrapperFact cites its lines in its text"):
        moved(WrapperFact(name="safe", line=3, behaviour="reject"), 2)


def test_a_number_field_nobody_named_is_refused():
    @record(slots=True)
    class Added:
        line: int
        depth: int

    relocate.LINES[(Added, "line")] = "line"
    try:
        with pytest.raises(TypeError, match=r"Added\.depth holds a number that relocate names neither"):
            moved(Added(1, 2), 5)
    finally:
        del relocate.LINES[(Added, "line")]


def test_a_call_moves_its_lines_not_its_columns():
    assert moved(_call(), 10) == _call(13)


def test_zero_and_none_say_no_line():
    fact = HandlerFact(name="tool", qualname="tool", line=5, end_line=0, first_line=0)
    assert moved(fact, 7) == HandlerFact(name="tool", qualname="tool", line=12, end_line=0, first_line=0)
    call = _call()
    call.except_line = None
    assert moved(call, 2).except_line is None


def test_spans_maps_and_call_indexes_move():
    ret = ReturnFact(line=4, kind="call", call=2, value_span=[4, 11, 5, 3], end_line=5)
    handler = HandlerFact(name="t", qualname="t", line=2, end_line=9, first_line=1, returns=[ret],
                          top_calls={"rb": ["ReplyBuilder", 3]})
    got = moved(handler, 100, calls=7)
    assert (got.line, got.end_line, got.first_line, got.top_calls) == (102, 109, 101, {"rb": ["ReplyBuilder", 103]})
    assert (got.returns[0].line, got.returns[0].call, got.returns[0].value_span) == (104, 9, [104, 11, 105, 3])
    builder = BuilderFact(name="RB", qualname="RB", line=1, kind="builder", methods={"error": 4, "success": 9},
                          signatures={"error": Signature(params=["code"])})
    assert moved(builder, -0).methods == {"error": 4, "success": 9}
    assert moved(builder, 3).methods == {"error": 7, "success": 12}
    mapping = MappingFact(name="LEGACY", line=2, entries=[MappingEntry("OLD", "NEW", 3, value_span=[3, 9, 3, 14])])
    assert moved(mapping, 1).entries == [MappingEntry("OLD", "NEW", 4, value_span=[4, 9, 4, 14])]


def test_a_copy_shares_no_list_or_dict_with_its_original():
    handler = HandlerFact(name="t", qualname="t", line=2, returns=[ReturnFact(line=3, kind="dict", keys=["ok"])],
                          top_calls={"rb": ["ReplyBuilder", 3]}, decorators=["mcp.tool"])
    copy = moved(handler, 0)
    copy.returns[0].keys.append("error")
    copy.top_calls["rb"][0] = "Other"
    copy.decorators.append("x")
    assert handler.returns[0].keys == ["ok"] and handler.top_calls == {"rb": ["ReplyBuilder", 3]}
    assert handler.decorators == ["mcp.tool"]


def test_a_record_citing_a_line_outside_its_statement_is_refused():
    within = Within(last_line=4, calls=1)
    assert moved(_call(3), 0, within=within) == _call(3)
    with pytest.raises(OutsideTheStatement, match="line 5 is outside lines 1 to 4"):
        moved(_call(4), 0, within=within)   # (its end line)
    with pytest.raises(OutsideTheStatement, match="call 1 is outside the statement's 1"):
        moved(ReturnFact(line=2, kind="call", call=1), 0, within=within)
