"""legacydoc.structs: the same behaviour as dataclasses for what legacydoc uses of them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from legacydoc.structs import FrozenInstanceError, asdict, field, replace, struct


def _pair(frozen: bool = False, eq: bool = True) -> tuple[Any, Any]:
    """One class written twice: as a struct and as a dataclass."""

    def body() -> dict[str, Any]:
        return {
            "__annotations__": {"name": "str", "count": "int", "tags": "list", "note": "str"},
            "count": 0,
            "tags": None,  # replaced below: a factory
            "note": "",
        }

    made = []
    for decorate, make_field in ((struct, field), (dataclasses.dataclass, dataclasses.field)):
        namespace = body()
        namespace["tags"] = make_field(default_factory=list)
        namespace["note"] = make_field(default="", repr=False, compare=False)
        cls = type("Item", (), namespace)
        made.append(decorate(frozen=frozen, eq=eq)(cls))  # type: ignore[operator]
    return made[0], made[1]


def test_init_repr_and_eq_match_dataclasses() -> None:
    ours, theirs = _pair()
    for args, kwargs in [(("a",), {}), (("a", 2), {"tags": ["x"]}), ((), {"name": "b", "note": "hidden"})]:
        mine, reference = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(mine) == repr(reference)
        assert vars(mine) == vars(reference)
    assert ours("a", 1) == ours("a", 1, note="different: not compared")
    assert ours("a", 1) != ours("a", 2)
    assert ours("a") != theirs("a")  # another class is never equal, as in dataclasses


def test_factories_give_each_instance_its_own_value() -> None:
    ours, _ = _pair()
    first, second = ours("a"), ours("b")
    first.tags.append("x")
    assert second.tags == []


def test_bad_arguments_are_type_errors_like_dataclasses() -> None:
    ours, theirs = _pair()
    for cls in (ours, theirs):
        with pytest.raises(TypeError):
            cls()  # name is required
        with pytest.raises(TypeError):
            cls("a", 1, [], "", "one too many")
        with pytest.raises(TypeError):
            cls("a", colour="red")
        with pytest.raises(TypeError):
            cls("a", name="twice")


def test_frozen_refuses_assignment_and_hashes_by_value() -> None:
    ours, theirs = _pair(frozen=True)
    item = ours("a", 1, ("t",))
    with pytest.raises(FrozenInstanceError):
        item.count = 2
    with pytest.raises(AttributeError):  # what callers of dataclasses catch
        del item.name
    assert hash(item) == hash(ours("a", 1, ("t",), note="not compared"))
    assert {item, ours("a", 1, ("t",))} == {item}
    assert hash(theirs("a", 1, ("t",))) == hash(item)  # the same tuple of compared fields


def test_mutable_eq_struct_is_unhashable_and_eq_false_keeps_identity() -> None:
    mutable, _ = _pair()
    with pytest.raises(TypeError):
        hash(mutable("a"))
    plain, _ = _pair(eq=False)
    first, second = plain("a"), plain("a")
    assert first != second and first == first
    assert len({first, second}) == 2


def test_methods_the_class_writes_are_kept() -> None:
    @struct(frozen=True)
    class Version:
        major: int
        minor: int = 0

        def __repr__(self) -> str:
            return "%d.%d" % (self.major, self.minor)

    assert repr(Version(1, 2)) == "1.2"
    assert Version(1) == Version(1, 0)


def test_a_subclass_adds_fields_after_its_base_and_overrides_in_place() -> None:
    @struct
    class Base:
        a: int
        b: str = "base"

    @struct
    class Child(Base):
        b: str = "child"
        c: float = 0.5

    child = Child(1)
    assert (child.a, child.b, child.c) == (1, "child", 0.5)
    assert repr(child) == "test_a_subclass_adds_fields_after_its_base_and_overrides_in_place.<locals>.Child(a=1, b='child', c=0.5)"
    assert Child(1, "x", 2.0).b == "x"  # b keeps its place from Base


def test_replace_copies_and_checks_its_fields() -> None:
    ours, _ = _pair(frozen=True)
    item = ours("a", 1, ["t"])
    changed = replace(item, count=5)
    assert (changed.name, changed.count, changed.tags) == ("a", 5, ["t"]) and item.count == 1
    with pytest.raises(TypeError):
        replace(item, colour="red")


def test_asdict_recurses_and_copies() -> None:
    @struct
    class Inner:
        values: list = field(default_factory=list)

    @struct
    class Outer:
        inner: Inner
        many: list = field(default_factory=list)

    outer = Outer(Inner([1]), [Inner([2])])
    plain = asdict(outer)
    assert plain == {"inner": {"values": [1]}, "many": [{"values": [2]}]}
    plain["inner"]["values"].append(9)
    assert outer.inner.values == [1]
    with pytest.raises(TypeError):
        asdict({"not": "a struct"})


def test_a_field_takes_a_default_or_a_factory_not_both() -> None:
    with pytest.raises(ValueError):
        field(default=[], default_factory=list)


def test_what_dataclasses_would_do_differently_is_refused() -> None:
    with pytest.raises(ValueError, match="default_factory"):
        @struct
        class Shared:
            items: list = []  # noqa: RUF012 - the point of the test

    with pytest.raises(TypeError, match="ClassVar"):
        @struct
        class Counted:
            total: "ClassVar[int]" = 0  # noqa: F821

    with pytest.raises(TypeError, match="__post_init__"):
        @struct
        class Checked:
            value: int

            def __post_init__(self) -> None:
                pass


def test_a_field_annotated_again_in_a_subclass_keeps_its_default() -> None:
    @struct
    class Base:
        a: int = 1

    @struct
    class Child(Base):
        a: int

    assert Child().a == 1 and Child(5).a == 5
