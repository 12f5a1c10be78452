"""Checking a record against the schema, iteratively (a hostile record nested 10,000 deep
gets an answer, not a RecursionError)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from legacydoc.factschema.kinds import ANY, BOOL, INT, NUMBER, STR, Kind, ListKind, ListOf, MapOf, Table
from legacydoc.factschema.names import RECORD, _join

# --- validation -----------------------------------------------------------------------------------
MAX_PROBLEMS = 500  # a record of garbage gets a readable answer, not a million lines
_CONTAINERS = (Mapping, list, tuple)


def _kind_text(kind: Kind) -> str:
    if isinstance(kind, (ListKind, ListOf)):
        return "a list of " + (kind.item if isinstance(kind, ListKind) else "tables")
    return "a table" if isinstance(kind, (Table, MapOf)) else kind


def _value_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return "a table"
    return "a list" if isinstance(value, (list, tuple)) else type(value).__name__


_TYPES: dict[str, Any] = {STR: str, INT: int, NUMBER: (int, float), BOOL: bool, ANY: object}


def _fits(kind: str, value: Any) -> bool:
    return isinstance(value, _TYPES[kind]) and not (kind in (INT, NUMBER) and isinstance(value, bool))


def _key_text(key: str) -> str:
    # TOML's spelling of a key with dots in it: libraries.winner.cudart."libcudart.so.10"
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else '"{}"'.format(key.replace('"', '\\"'))


def _child_kind(kind: Kind, key: str) -> Kind | None:
    if isinstance(kind, Table) and key in kind.fields:
        return kind.fields[key]
    mapped = kind.extra if isinstance(kind, Table) else kind  # a fixed field wins over a map key
    return mapped.value if isinstance(mapped, MapOf) and mapped.matches(key) else None


class _Walk:
    """One iterative pass over a record. Each object is checked once per kind, so shared or
    cyclic references cannot make it loop; nesting stops at ``max_depth``."""
    def __init__(self, max_depth: int, undeclared: list[str] | None) -> None:
        self.max_depth = max_depth
        self.undeclared = undeclared
        self.problems: list[str] = []
        self.seen: set[tuple[int, int]] = set()
        # (path, value, kind or None when undeclared, depth)
        self.work: list[tuple[str, Any, Kind | None, int]] = []

    def run(self, record: Any) -> list[str]:
        self.work.append(("", record, RECORD, 0))
        while self.work and len(self.problems) <= MAX_PROBLEMS:
            path, value, kind, depth = self.work.pop()
            try:
                self.check(path, value, kind, depth)
            except Exception as exc:  # noqa: BLE001 - a hostile Mapping must not stop the rest
                self.note(f"{path or 'record'}: cannot be read ({type(exc).__name__})")
        if len(self.problems) > MAX_PROBLEMS:
            self.problems[MAX_PROBLEMS:] = [f"record: more problems not listed (stopped after {MAX_PROBLEMS})"]
        return self.problems

    def note(self, problem: str) -> None:
        if len(self.problems) <= MAX_PROBLEMS:  # one past the limit marks the cut
            self.problems.append(problem)

    def fail(self, path: str, expected: str, value: Any) -> None:
        self.note(f"{path or 'record'}: expected {expected}, found {_value_text(value)}")

    def check(self, path: str, value: Any, kind: Kind | None, depth: int) -> None:
        if isinstance(value, _CONTAINERS):
            if depth > self.max_depth:
                self.note(f"{path}: nested deeper than {self.max_depth} levels")
                return
            if (id(value), id(kind)) in self.seen:
                return
            self.seen.add((id(value), id(kind)))
        if isinstance(kind, str):
            if not _fits(kind, value):
                self.fail(path, kind, value)
        elif isinstance(kind, (ListKind, ListOf)):
            self.check_list(path, value, kind, depth)
        elif kind is None:  # undeclared: only how deep it goes is checked
            if depth == 1:
                self.note(f"{path}: not a table of the facts record")
            pairs = (value.items() if isinstance(value, Mapping)
                     else enumerate(value) if isinstance(value, _CONTAINERS) else ())
            self.work.extend(reversed([
                (_join(path, _key_text(k)) if isinstance(k, str) else f"{path}[{k!r:.40}]", c, None, depth + 1)
                for k, c in pairs if isinstance(c, _CONTAINERS)
            ]))
        elif not isinstance(value, Mapping):
            self.fail(path, "a table", value)
        else:
            self.check_table(path, value, kind, depth)

    def check_list(self, path: str, value: Any, kind: ListKind | ListOf, depth: int) -> None:
        if not isinstance(value, (list, tuple)):
            self.fail(path, _kind_text(kind), value)
            return
        items = []
        for index, item in enumerate(value):
            where = f"{path}[{index}]"
            if isinstance(kind, ListKind):
                if not _fits(kind.item, item):
                    self.fail(where, kind.item, item)
            elif not isinstance(item, Mapping):
                self.fail(where, "a table", item)
            else:
                items.append((where, item, kind.item, depth + 1))
        self.work.extend(reversed(items))

    def check_table(self, path: str, value: Mapping, kind: Kind, depth: int) -> None:
        children = []
        for key, child in value.items():
            if not isinstance(key, str):
                self.note(f"{path or 'record'}: key {repr(key)[:40]} is not a string")
                continue
            where = _join(path, _key_text(key))
            child_kind = _child_kind(kind, key)
            if child_kind is None and path and self.undeclared is not None:
                self.undeclared.append(where)
            children.append((where, child, child_kind, depth + 1))
        self.work.extend(reversed(children))


def _run(record: Any, max_depth: int, undeclared: list[str] | None) -> list[str]:
    try:
        return _Walk(max_depth, undeclared).run(record)
    except Exception as exc:  # noqa: BLE001 - validation reports, it never crashes
        return [f"record: validation failed ({type(exc).__name__})"]


def validate(record: Mapping[str, Any], max_depth: int = 32) -> list[str]:
    """Every place ``record`` disagrees with the schema, one line each naming the dotted path
    ("gpu.devices: expected a list of tables, found int"), plus nesting deeper than
    ``max_depth`` and unknown top-level tables. Undeclared keys in a known table are
    allowed. Never raises."""
    return _run(record, max_depth, None)


def undeclared_keys(record: Mapping[str, Any], max_depth: int = 32) -> list[str]:
    """Paths of the keys this schema does not declare (allowed, but worth declaring when a
    probe gains a fact). Never raises."""
    found: list[str] = []
    _run(record, max_depth, found)
    return found


def prune(record: dict[str, Any], max_depth: int = 32) -> list[str]:
    """Remove from ``record``, in place, every value of the wrong kind (and anything nested
    deeper than ``max_depth``); returns what was removed, one line each. For what the probes
    bring back from the machine (a target interpreter's report may hold anything): the rules
    then see a record that matches the schema, and the removals are facts themselves."""
    removed: list[str] = []
    # (container, key or index, path, kind, depth)
    work: list[tuple[Any, Any, str, Kind | None, int]] = [
        (record, key, key, _child_kind(RECORD, key), 1) for key in list(record) if isinstance(key, str)
    ]
    while work and len(removed) <= MAX_PROBLEMS:
        container, key, path, kind, depth = work.pop()
        value = container[key]
        bad = ""
        if isinstance(value, _CONTAINERS) and depth > max_depth:
            bad = "nested deeper than %d levels" % max_depth
        elif kind is None:
            continue  # undeclared: kept as written (older or newer writers)
        elif isinstance(kind, str):
            bad = "" if _fits(kind, value) else "expected %s, found %s" % (kind, _value_text(value))
        elif isinstance(kind, (ListKind, ListOf)):
            if not isinstance(value, list):
                bad = "expected %s, found %s" % (_kind_text(kind), _value_text(value))
            else:
                scalar = kind.item if isinstance(kind, ListKind) else None
                kept = [item for item in value
                        if (_fits(scalar, item) if scalar is not None else isinstance(item, Mapping))]
                if len(kept) != len(value):
                    removed.append("%s: %d item(s) of the wrong kind" % (path, len(value) - len(kept)))
                    container[key] = value = kept
                if isinstance(kind, ListOf):
                    work.extend((value, i, "%s[%d]" % (path, i), kind.item, depth + 1) for i in range(len(value)))
        elif not isinstance(value, dict):
            bad = "expected a table, found %s" % _value_text(value)
        else:
            for child in list(value):
                if not isinstance(child, str):
                    del value[child]
                    removed.append("%s: a key that is not a string" % path)
                    continue
                work.append((value, child, _join(path, _key_text(child)), _child_kind(kind, child), depth + 1))
        if bad:
            del container[key]
            removed.append("%s: %s" % (path, bad))
    return removed
