"""Classes of named fields, like dataclasses, without their start-up cost (issue #14).

``dataclasses`` writes each class's ``__init__``, ``__repr__`` and ``__eq__`` (and, frozen,
``__setattr__``, ``__delattr__`` and ``__hash__``) as source text and compiles it when the
module is imported: 0.4 to 1.3 ms a class on CPython 3.11, for the 47 classes a check
imports about a sixth of its wall time. ``@struct`` gives a class the same methods, shared
by every struct: they read the class's field list instead of being compiled for it.

What is kept of dataclasses: fields are the class's annotations in order (a base class's
first); ``field(default=..., default_factory=..., repr=False, compare=False)``; ``frozen``;
``eq``; a method the class writes itself is not replaced; ``replace`` and ``asdict``. What
dataclasses would do otherwise is refused at class creation (a ``ClassVar`` or ``InitVar``
annotation, ``__post_init__``, a list, dict or set as a default); ordering, slots,
keyword-only fields and ``__match_args__`` are not provided. Type checkers read ``@struct``
as a dataclass (PEP 681).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_kwargs: Any) -> Callable[[Any], Any]:
        return lambda decorated: decorated

T = TypeVar("T")
C = TypeVar("C", bound=type)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen struct."""


class Field:
    """What ``field()`` returns, read once by ``@struct``."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare  # in __eq__ and __hash__


@overload
def field(*, default: T, repr: bool = True, compare: bool = True) -> T: ...
@overload
def field(*, default_factory: Callable[[], T], repr: bool = True, compare: bool = True) -> T: ...
@overload
def field(*, repr: bool = True, compare: bool = True) -> Any: ...
def field(  # noqa: E302
    *, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True, compare: bool = True
) -> Any:
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("a field cannot have both a default and a default_factory")
    return Field(default, default_factory, repr, compare)


def _fields_of(cls: type) -> tuple[Field, ...]:
    # What dataclasses would do differently is refused, so that it fails loudly.
    if "__post_init__" in cls.__dict__:
        raise TypeError("%s: a struct has no __post_init__ (it would never be called)" % cls.__name__)
    fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in getattr(base, "__struct_fields__", ()):
            fields[inherited.name] = inherited
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if str(annotation).strip("\"' ").split("[")[0].rsplit(".", 1)[-1] in ("ClassVar", "InitVar"):
            raise TypeError("%s.%s: ClassVar and InitVar are not struct fields" % (cls.__name__, name))
        # getattr, as dataclasses: a field annotated again in a subclass keeps its default.
        value = getattr(cls, name, MISSING)
        if isinstance(value, (list, dict, set)):
            raise ValueError("%s.%s: a mutable default would be shared by every instance; use "
                             "field(default_factory=...)" % (cls.__name__, name))
        spec = value if isinstance(value, Field) else Field(value, MISSING, True, True)
        spec.name = name
        # As dataclasses does: a plain default stays a class attribute, a factory's goes.
        if spec.default is MISSING:
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, spec.default)
        fields[name] = spec  # an overridden field keeps its place, as in dataclasses
    return tuple(fields.values())


class _InitPlan:
    """What ``__init__`` needs of a struct's fields, worked out once per class."""

    __slots__ = ("names", "known", "required", "defaults", "factories")

    def __init__(self, fields: tuple[Field, ...]) -> None:
        self.names = tuple(spec.name for spec in fields)
        self.known = frozenset(self.names)
        self.required = frozenset(s.name for s in fields if s.default is MISSING and s.default_factory is MISSING)
        self.defaults = {s.name: s.default for s in fields if s.default is not MISSING}
        self.factories = tuple((s.name, s.default_factory) for s in fields if s.default_factory is not MISSING)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    # Writes the instance's __dict__ at once: as fast as a compiled __init__ can be
    # without compiling one, and a frozen struct's __setattr__ is not in the way.
    plan = type(self).__struct_init__
    if args:
        if len(args) > len(plan.names):
            raise TypeError("%s() takes %d positional arguments but %d were given"
                            % (type(self).__name__, len(plan.names), len(args)))
        positional = dict(zip(plan.names, args))
        twice = positional.keys() & kwargs.keys()
        if twice:
            raise TypeError("%s() got multiple values for argument '%s'" % (type(self).__name__, sorted(twice)[0]))
        kwargs.update(positional)
    if not plan.known.issuperset(kwargs):
        unknown = sorted(set(kwargs) - plan.known)[0]
        raise TypeError("%s() got an unexpected keyword argument '%s'" % (type(self).__name__, unknown))
    if not plan.required.issubset(kwargs):
        missing = sorted(plan.required - set(kwargs))[0]
        raise TypeError("%s() missing required argument: '%s'" % (type(self).__name__, missing))
    values = self.__dict__
    values.update(plan.defaults)
    for name, factory in plan.factories:
        if name not in kwargs:
            values[name] = factory()
    values.update(kwargs)


def _repr(self: Any) -> str:
    shown = ("%s=%r" % (spec.name, getattr(self, spec.name)) for spec in type(self).__struct_fields__ if spec.repr)
    return "%s(%s)" % (type(self).__qualname__, ", ".join(shown))


def _compared(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, spec.name) for spec in type(self).__struct_fields__ if spec.compare)


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError("cannot assign to field '%s'" % name)


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError("cannot delete field '%s'" % name)


def _put(cls: type, name: str, method: Any) -> None:
    setattr(cls, name, method)  # a name in a variable: type checkers keep out of it


def _set_unless_written(cls: type, name: str, method: Any) -> None:
    if name not in cls.__dict__:
        _put(cls, name, method)


@overload
def struct(cls: C, /) -> C: ...
@overload
def struct(*, frozen: bool = False, eq: bool = True) -> Callable[[C], C]: ...
@dataclass_transform(field_specifiers=(field,))  # noqa: E302
def struct(cls: Optional[C] = None, /, *, frozen: bool = False, eq: bool = True) -> Any:
    def make(cls: C) -> C:
        cls.__struct_fields__ = _fields_of(cls)  # type: ignore[attr-defined]
        cls.__struct_init__ = _InitPlan(cls.__struct_fields__)  # type: ignore[attr-defined]
        _set_unless_written(cls, "__init__", _init)
        _set_unless_written(cls, "__repr__", _repr)
        if eq:
            # Python set __hash__ to None when the body wrote __eq__; a __hash__ the
            # body wrote is kept, as in dataclasses.
            explicit_hash = cls.__dict__.get("__hash__", MISSING) not in (MISSING, None)
            _set_unless_written(cls, "__eq__", _eq)
            if not explicit_hash:
                _put(cls, "__hash__", _hash if frozen else None)
        if frozen:
            if "__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__:
                raise TypeError("a frozen struct cannot write its own __setattr__ or __delattr__")
            _put(cls, "__setattr__", _frozen_setattr)
            _put(cls, "__delattr__", _frozen_delattr)
        return cls

    return make if cls is None else make(cls)


def is_struct(obj: Any) -> bool:
    return hasattr(type(obj), "__struct_fields__")


def replace(obj: T, **changes: Any) -> T:
    """A copy of the struct ``obj`` with ``changes`` (its class's __init__ checks them)."""
    values = {spec.name: getattr(obj, spec.name) for spec in type(obj).__struct_fields__}  # type: ignore[attr-defined]
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError("%s has no field '%s'" % (type(obj).__name__, sorted(unknown)[0]))
    values.update(changes)
    return type(obj)(**values)


def asdict(obj: Any) -> dict[str, Any]:
    """The struct as a dict, structs inside it too; other values deep-copied."""
    if not is_struct(obj):
        raise TypeError("asdict() should be called on struct instances")
    return _as_plain(obj)


def _as_plain(value: Any) -> Any:
    if is_struct(value):
        return {spec.name: _as_plain(getattr(value, spec.name)) for spec in type(value).__struct_fields__}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*[_as_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_as_plain(v) for v in value)
    if isinstance(value, dict):
        return type(value)((_as_plain(k), _as_plain(v)) for k, v in value.items())
    return copy.deepcopy(value)
