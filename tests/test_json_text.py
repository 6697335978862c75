"""report.json_text writes what json.dumps(indent=2, sort_keys=True, ensure_ascii=False) writes, and as_dict makes
what dataclasses.asdict makes."""

from __future__ import annotations

import enum
import json
from collections import namedtuple
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

from reply_audit.report.json_text import as_dict, dumps


class Level(enum.IntEnum):
    HIGH = 3


class Ratio(float):
    pass


Pair = namedtuple("Pair", "left right")

VALUES: dict[str, Any] = {
    "scalars": [None, True, False, 0, -7, 10**30, 1.5, -0.0, 1e-9, 3.0, "", "é日本\u2028\n\t\"\\", "\x00\x1f"],
    "special floats": [float("nan"), float("inf"), -float("inf")],
    "subclasses": [Level.HIGH, Ratio(0.25), True],
    "empty containers": {"a": [], "b": {}, "c": (), "d": [[], [{}]]},
    "nested": {"z": {"y": [1, {"x": None, "w": [True, "s"]}], "v": ()}, "a": [[[]]], "m": {"k": {"j": {}}}},
    "tuples and named tuples": [(1, 2), Pair(1, "b"), [Pair([], {})]],
    "keys of every kind": {"b": 1, "a": 2, "": 3, "é": 4},
    "int keys": {3: "c", 1: "a", 20: "b"},
    "float keys": {1.5: 1, -2.0: 2, float("inf"): 3},
    "bool keys": {True: 1, False: 0},
    "a top-level string": "just text",
    "a top-level number": 42,
    "a record-like list": [{"path": f"p{i}.py", "line": i, "col": 0, "ok": i % 2 == 0, "note": None} for i in range(5)],
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_dumps_is_the_standard_librarys_indented_text(name: str) -> None:
    value = VALUES[name]
    assert dumps(value) == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def test_dumps_refuses_what_the_standard_library_refuses() -> None:
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        dumps({"a": {1, 2}})
    with pytest.raises(TypeError):
        dumps({(1, 2): "tuple key"})
    with pytest.raises(TypeError):
        dumps({1: "a", "b": 2})   # keys that do not sort together, as json.dumps(sort_keys=True)


@dataclass(frozen=True)
class Inner:
    name: str
    tags: tuple[str, ...] = ()


@dataclass
class Outer:
    path: str
    line: int
    inner: Inner
    items: list[Inner] = field(default_factory=list)
    table: dict[str, list[int]] = field(default_factory=dict)
    pair: Any = None
    loose: Any = None


def test_as_dict_is_asdict_and_copies_what_asdict_copies() -> None:
    record = Outer("a.py", 3, Inner("x", ("t",)), [Inner("y"), Inner("z", ("u", "v"))], {"k": [1, 2]},
                   Pair(Inner("p"), [1]), {"set": {1, 2}})
    made = as_dict(record)
    assert made == asdict(record)
    assert type(made["inner"]["tags"]) is tuple and type(made["pair"]) is Pair
    assert made["table"]["k"] is not record.table["k"]               # containers are new
    assert made["loose"]["set"] is not record.loose["set"]           # an unknown leaf is deep-copied


def test_the_json_report_is_the_same_text_as_the_standard_librarys(tmp_path) -> None:
    from pathlib import Path

    from reply_audit import api
    from reply_audit.report.json_report import build_document, one_based

    example = Path(__file__).resolve().parents[1] / "examples" / "legacy_mcp"
    audit = api.audit(example, no_cache=True)
    document = one_based(build_document(audit.result, audit.evaluation))
    assert dumps(document) == json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
    assert len(document["handlers"]) > 0
