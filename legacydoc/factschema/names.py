"""Which dotted names a rule may read: declared tables and keys, map keys by pattern, and
the fields of the items of each list of tables."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from legacydoc.factschema.computed import BENCH, CONFIG, DERIVED, LOG, PLAN, PROJECT
from legacydoc.factschema.kinds import ANY, Kind, ListKind, ListOf, MapOf, Table
from legacydoc.factschema.tables import FACT_TABLES, HEADER

COMPUTED: dict[str, Table] = {"derived": DERIVED, "config": CONFIG, "bench": BENCH, "plan": PLAN, "project": PROJECT}
# Not probed: what the user hands over (check --log FILE), saved with the record.
INPUTS: dict[str, Table] = {"log": LOG}
RECORD = Table({**HEADER, **FACT_TABLES, **INPUTS, **COMPUTED})


# --- names ----------------------------------------------------------------------------------------
MAX_NAME_PARTS = 64  # far beyond any declared path; bounds the work on hostile names


def _resolve(root: Kind, name: str) -> list[Kind]:
    """Every kind a dotted ``name`` can end at below ``root`` (several only through dotted keys)."""
    parts = name.split(".")
    if len(parts) > MAX_NAME_PARTS or not all(parts):
        return []
    found: list[Kind] = []
    work: list[tuple[Kind | None, int]] = [(root, 0)]
    while work:
        kind, at = work.pop()
        if at == len(parts) or kind == ANY:  # "any" holds whatever lies below it
            found.append(kind)  # type: ignore[arg-type]
            continue
        if isinstance(kind, Table):
            if parts[at] in kind.fields:
                work.append((kind.fields[parts[at]], at + 1))
                continue
            kind = kind.extra  # a fixed field wins over a map key of the same name
        if isinstance(kind, MapOf):
            for end in range(at + 1, len(parts) + 1) if kind.dotted else (at + 1,):
                if kind.matches(".".join(parts[at:end])):
                    work.append((kind.value, end))
    return found


@lru_cache(maxsize=8192)
def _kinds_of(name: str) -> tuple[Kind, ...]:
    return tuple(_resolve(RECORD, name))


def is_known(name: str) -> bool:
    """Whether a rule may read ``name``: a path through tables and maps to a leaf, a list or a
    table ("gpu.nvidia_smi", "packages.pygpu.version", "env.variables.PATH")."""
    return isinstance(name, str) and bool(_kinds_of(name))


def is_list(name: str) -> bool:
    """Whether ``name`` is an array of tables (what for_each / some / none iterate)."""
    return isinstance(name, str) and any(isinstance(k, ListOf) for k in _kinds_of(name))


def enumerates(name: str) -> bool:
    """Whether the list ``name`` holds every recorded thing of one kind (see ListOf)."""
    return isinstance(name, str) and any(isinstance(k, ListOf) and k.enumerates for k in _kinds_of(name))


@lru_cache(maxsize=4096)
def _item_field(list_name: str, field: str) -> bool:
    return any(_resolve(k.item, field) for k in _kinds_of(list_name) if isinstance(k, ListOf))


def is_item_field(list_name: str, field: str) -> bool:
    """Whether ``field`` (dotted: "lock_dir.age_s", "command.rc") is in the items of ``list_name``."""
    return isinstance(list_name, str) and isinstance(field, str) and _item_field(list_name, field)


def declared_names(kind: Kind = RECORD, path: str = "") -> Iterator[tuple[str, Kind]]:
    """Every declared path with its kind, in declaration order; a map key reads ``<name>``,
    a list's items ``[]`` ("packages.<name>.copies[].version")."""
    if path:
        yield path, kind
    children = list(kind.fields.items()) if isinstance(kind, Table) else []
    mapped = kind.extra if isinstance(kind, Table) else kind
    if isinstance(mapped, MapOf):
        children.append(("<name>", mapped.value))
    for key, value in children:
        yield from declared_names(value, _join(path, key))
    if isinstance(kind, ListOf):
        yield from declared_names(kind.item, path + "[]")


def leaf_names() -> list[str]:
    """The declared leaf facts: scalars and lists of scalars."""
    return [path for path, kind in declared_names() if isinstance(kind, (str, ListKind))]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
