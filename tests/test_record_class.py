"""`record` behaves as `dataclass`: each behaviour it replaces is compared with the dataclass's own, on twin
classes declared both ways."""

from __future__ import annotations

import ast
import copy
import pickle
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields, is_dataclass, replace
from pathlib import Path

import pytest

from reply_audit.record_class import record

# -- twins: the same class body under both decorators (module level, so pickle finds them) ----------------------


@record(frozen=True)
class FrozenRec:
    name: str
    line: int
    tags: tuple[str, ...] = ()
    note: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)
    weight: float = field(default=0.0, hash=False)


@dataclass(frozen=True)
class FrozenDc:
    name: str
    line: int
    tags: tuple[str, ...] = ()
    note: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)
    weight: float = field(default=0.0, hash=False)


@record
class MutableRec:
    items: list[int] = field(default_factory=list)
    label: str | None = None


@dataclass
class MutableDc:
    items: list[int] = field(default_factory=list)
    label: str | None = None


@record(slots=True)
class SlotsRec:
    a: int
    b: object = None


@dataclass(slots=True)
class SlotsDc:
    a: int
    b: object = None


@record(frozen=True)
class OneRec:
    only: float


@dataclass(frozen=True)
class OneDc:
    only: float


@record(frozen=True)
class EmptyRec:
    pass


@dataclass(frozen=True)
class EmptyDc:
    pass


@record(frozen=True)
class ChildRec(FrozenRec):
    extra: int = 0


@dataclass(frozen=True)
class ChildDc(FrozenDc):
    extra: int = 0


def _name_swapped(text: str) -> str:
    return text.replace("Rec(", "X(").replace("Dc(", "X(")


TWINS = [
    (FrozenRec("f", 3, ("a", "b"), "n", "s", 1.5), FrozenDc("f", 3, ("a", "b"), "n", "s", 1.5)),
    (MutableRec([1, 2], "x"), MutableDc([1, 2], "x")),
    (SlotsRec(1, "two"), SlotsDc(1, "two")),
    (OneRec(2.5), OneDc(2.5)),
    (EmptyRec(), EmptyDc()),
    (ChildRec("c", 1, extra=7), ChildDc("c", 1, extra=7)),
]


@pytest.mark.parametrize(("ours", "theirs"), TWINS, ids=lambda pair: type(pair).__name__)
def test_repr_is_the_dataclass_repr(ours: object, theirs: object) -> None:
    assert _name_swapped(repr(ours)) == _name_swapped(repr(theirs))


def test_repr_exact() -> None:
    assert repr(FrozenRec("f", 3, ("a",), "n", "s", 1.5)) == \
        "FrozenRec(name='f', line=3, tags=('a',), note='n', weight=1.5)"
    assert repr(MutableRec()) == "MutableRec(items=[], label=None)"
    assert repr(EmptyRec()) == "EmptyRec()"


def test_repr_of_a_cycle_shows_dots_as_the_dataclass_does() -> None:
    ours, theirs = SlotsRec(1), SlotsDc(1)
    ours.b, theirs.b = ours, theirs
    assert repr(ours) == "SlotsRec(a=1, b=...)"
    assert _name_swapped(repr(ours)) == _name_swapped(repr(theirs))


@pytest.mark.parametrize(("ours", "theirs"), TWINS, ids=lambda pair: type(pair).__name__)
def test_hash_is_the_dataclass_hash(ours: object, theirs: object) -> None:
    if theirs.__hash__ is None:
        assert ours.__hash__ is None
        with pytest.raises(TypeError, match="unhashable"):
            hash(ours)
    else:
        assert hash(ours) == hash(theirs)


def test_equality_compares_compared_fields_of_the_same_class() -> None:
    a = FrozenRec("f", 3, note="one", weight=1.0)
    assert a == FrozenRec("f", 3, note="two", weight=1.0)           # note: compare=False
    assert a != FrozenRec("f", 4, note="one", weight=1.0)
    assert a != FrozenRec("f", 3, note="one", weight=2.0)           # hash=False still compares
    assert hash(a) == hash(FrozenRec("f", 3, weight=2.0))           # ... but is not hashed
    assert a != ChildRec("f", 3, note="one", weight=1.0)            # a subclass is another class
    assert ChildRec("f", 3) != FrozenRec("f", 3)
    assert a.__eq__(("f", 3)) is NotImplemented
    assert FrozenDc("f", 3).__eq__(("f", 3)) is NotImplemented
    assert MutableRec([1]) == MutableRec([1]) and MutableRec([1]) != MutableRec([2])
    assert EmptyRec() == EmptyRec()
    assert {a, FrozenRec("f", 3, note="other", weight=1.0)} == {a}


def test_a_nan_field_compares_as_the_dataclass_does() -> None:
    nan = float("nan")
    assert (OneRec(nan) == OneRec(nan)) == (OneDc(nan) == OneDc(nan))
    assert (OneRec(float("nan")) == OneRec(float("nan"))) == (OneDc(float("nan")) == OneDc(float("nan")))


def test_methods_the_body_defines_are_kept() -> None:
    @record(frozen=True)
    class Own:
        x: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 5

    assert repr(Own(1)) == "own" and Own(1) == Own(2) and hash(Own(1)) == 5

    @record(frozen=True)
    class EqOnly:           # the dataclass's rule: an __eq__ alone leaves no hash, so a field hash is added
        x: int

        def __eq__(self, other: object) -> bool:
            return False

    @dataclass(frozen=True)
    class EqOnlyDc:
        x: int

        def __eq__(self, other: object) -> bool:
            return False

    assert EqOnly(1) != EqOnly(1) and hash(EqOnly(4)) == hash(EqOnlyDc(4))

    @record
    class MutableOwnHash:
        x: int

        def __hash__(self) -> int:
            return 9

    assert hash(MutableOwnHash(1)) == 9


def test_the_dataclass_machinery_is_unchanged() -> None:
    rec = FrozenRec("f", 3)
    assert is_dataclass(rec)
    assert [f.name for f in fields(rec)] == [f.name for f in fields(FrozenDc)]
    assert asdict(rec) == asdict(FrozenDc("f", 3))
    assert replace(rec, line=4) == FrozenRec("f", 4)
    with pytest.raises(FrozenInstanceError):
        rec.line = 5  # type: ignore[misc]
    assert not hasattr(SlotsRec(1), "__dict__") and SlotsRec.__slots__ == SlotsDc.__slots__
    assert MutableRec().items is not MutableRec().items
    assert FrozenRec.__match_args__ == FrozenDc.__match_args__
    for value in (rec, MutableRec([3]), SlotsRec(2, "x"), ChildRec("c", 1, extra=2)):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value


def test_every_data_class_of_the_package_is_a_record() -> None:
    """No module goes back to `@dataclass`: each one compiled per class is startup time for every command."""
    package = Path(__file__).resolve().parents[1] / "src" / "reply_audit"
    plain = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if isinstance(target, ast.Name) and target.id == "dataclass":
                        plain.append(f"{path.relative_to(package)}:{node.lineno}")
    assert plain == []


TYPED = '''
from dataclasses import field

from reply_audit.record_class import record


@record(frozen=True)
class Point:
    x: int
    tags: list[str] = field(default_factory=list)
    label: str = field(default="", init=False)
    owner: str = field(kw_only=True, default="")


@record
class Needs:
    a: int
    b: str = field(kw_only=True)


p = Point(1, ["a"], owner="me")
p.x = 2
Point(1, ["a"], "label")
Needs(1)
Needs(1, "b")
Needs(1, b="b")
'''


def test_type_checkers_read_a_record_as_a_dataclass(tmp_path: Path) -> None:
    """Frozen fields, `init=False` and `kw_only=True` fields are checked as they are for `@dataclass`: mypy
    finds the same errors in the same source under either decorator."""
    import os
    import subprocess
    import sys

    (tmp_path / "as_record.py").write_text(TYPED, encoding="utf-8")
    (tmp_path / "as_dataclass.py").write_text(
        TYPED.replace("from reply_audit.record_class import record", "from dataclasses import dataclass")
        .replace("@record", "@dataclass"), encoding="utf-8")
    src = Path(__file__).resolve().parents[1] / "src"
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                           str(tmp_path / "cache"), "--python-version", "3.11", "as_record.py", "as_dataclass.py"],
                          cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(src)})
    found: dict[str, list[str]] = {"as_record.py": [], "as_dataclass.py": []}
    for line in done.stdout.splitlines():
        if " error: " in line:
            name, number, _ = line.split(":", 2)
            found[name].append(f"{number}: {line.split(' error: ')[1]}")
    assert found["as_record.py"] == [
        '22: Property "x" defined in "Point" is read-only  [misc]',
        '23: Too many positional arguments for "Point"  [call-arg]',
        '24: Missing named argument "b" for "Needs"  [call-arg]',
        '25: Too many positional arguments for "Needs"  [call-arg]',
    ], done.stdout
    assert found["as_dataclass.py"] == found["as_record.py"]
