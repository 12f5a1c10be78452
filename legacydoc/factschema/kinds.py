"""The vocabulary of the facts schema: scalar kinds, lists, tables, maps."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Union

from legacydoc.structs import struct

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10+; the annotation is never evaluated
    from typing import TypeGuard

STR, INT, NUMBER, BOOL = "str", "int", "number", "bool"
ANY = "any"  # a free-form value nobody validates (unused so far: say why wherever it is used)
SCALARS = frozenset({STR, INT, NUMBER, BOOL, ANY})


def is_int(value: Any) -> TypeGuard[int]:
    """A TOML/JSON integer: Python's bool is an int too, and a recorded true is not a count."""
    return isinstance(value, int) and not isinstance(value, bool)


@struct(frozen=True, eq=False)
class ListKind:
    """A list of scalars: ``list_of(STR)``."""
    item: str


def list_of(kind: str) -> ListKind:
    if kind not in SCALARS:
        raise ValueError(f"list_of takes a scalar kind, not {kind!r} (ListOf(Table) is for tables)")
    return ListKind(kind)


@struct(frozen=True, eq=False)
class MapOf:
    """A table keyed by names (env variables, distributions) that match ``key_pattern``.
    ``dotted``: keys hold dots (library file names), so a dotted fact name is split wherever
    the key part matches the pattern and the rest fits the value."""
    value: Kind
    key_pattern: str = r"[^.]+"
    dotted: bool = False

    def matches(self, key: str) -> bool:
        return re.fullmatch(self.key_pattern, key) is not None  # re caches the compiled pattern


@struct(frozen=True, eq=False)
class Table:
    """A table with known keys; ``extra`` types the other keys that match it."""
    fields: Mapping[str, Kind]
    extra: MapOf | None = None


@struct(frozen=True, eq=False)
class ListOf:
    """An array of tables (what for_each / some / none iterate). ``enumerates``: each item is
    one recorded thing of a single kind (a GPU), so a per-item rule may say its items decide
    (items_decide); a list of findings of many kinds (config.findings) says nothing of a
    kind it lacks."""
    item: Table
    enumerates: bool = False


Kind = Union[str, ListKind, MapOf, Table, ListOf]


# Every fact table may say why its probe failed or overran (probes/__init__.py).
PROBE_FIELDS: dict[str, Kind] = {
    "probe_error": STR, "probe_timed_out": BOOL, "probe_duration_s": NUMBER,
    "probe_dropped": ListKind(STR),  # values of the wrong kind the probe brought back, removed
}


def fact_table(fields: Mapping[str, Kind], extra: MapOf | None = None) -> Table:
    """A top-level table filled by a probe: its fields plus the probe runner's."""
    return Table({**fields, **PROBE_FIELDS}, extra)
