"""Finding, reading and validating the knowledge tables (rules/knowledge/*.toml)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Union

from legacydoc import locate, parsecache
from legacydoc.knowledge import schema
from legacydoc.knowledge.lookups import Knowledge
from legacydoc.knowledge.schema import KnowledgeError, Table, validate


def knowledge_dir() -> Path:
    return locate.knowledge_dir()


def load_tables(directory: Union[str, Path, Any, None] = None) -> dict[str, Table]:
    """Load and validate every ``*.toml`` in ``directory`` (default: ``knowledge_dir()``).
    Not cached; use ``tables()`` for the cached built-in set."""
    root = knowledge_dir() if directory is None else directory
    if isinstance(root, str):
        root = Path(root)
    try:
        entries = sorted((e for e in root.iterdir() if e.name.endswith(".toml")), key=lambda e: e.name)
    except OSError as exc:
        raise KnowledgeError("%s: cannot list knowledge tables (%s)" % (root, exc.strerror or exc)) from None
    result: dict[str, Table] = {}
    for entry in entries:
        origin = str(entry)
        if not entry.is_file():
            continue
        raw, data = locate.read_toml_bytes(entry, "knowledge table", KnowledgeError)
        name = entry.name[: -len(".toml")]
        result[name] = _validated(name, origin, raw, data)
    return result


@functools.lru_cache(maxsize=1)
def validator_id() -> str:
    """What decides a table's validity: the schema's own source, the packaging library
    that parses its versions and specifiers, and the Python whose re compiles its
    patterns. Empty when the schema's source cannot be read: then nothing is cached."""
    import hashlib
    import sys

    import packaging

    try:
        source = Path(schema.__file__).read_bytes()
    except (OSError, TypeError):
        return ""
    return "knowledge %s packaging %s python %d.%d" % (
        hashlib.sha256(source).hexdigest(), packaging.__version__, *sys.version_info[:2])


def _validated(name: str, origin: str, raw: bytes, data: dict[str, Any]) -> Table:
    """Validate a table, or trust a verdict this validator gave on the same bytes before:
    validating every table takes 18 ms, a tenth of a replayed check."""
    checker = validator_id()
    if checker and parsecache.known_valid(checker, raw):
        return schema.accepted(name, origin, data)
    table = validate(name, origin, data)
    if checker:
        parsecache.remember_valid(checker, raw)
    return table


@functools.lru_cache(maxsize=1)
def tables() -> dict[str, Table]:
    """The built-in tables, loaded once."""
    return load_tables()


@functools.lru_cache(maxsize=1)
def default() -> "Knowledge":
    return Knowledge(tables())


def clear_cache() -> None:
    tables.cache_clear()
    default.cache_clear()

