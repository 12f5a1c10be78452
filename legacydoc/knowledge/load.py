"""Finding, reading and validating the knowledge tables (rules/knowledge/*.toml)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Optional, Union

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
        data = locate.read_toml(entry, "knowledge table", KnowledgeError)
        name = entry.name[: -len(".toml")]
        result[name] = _validated(name, origin, data)
    return result


@functools.lru_cache(maxsize=1)
def validator_id() -> str:
    """What decides a table's validity: the schema's own source, the packaging library
    that parses its versions and specifiers, and the Python whose re compiles its
    patterns. Empty when the schema's source cannot be read: then nothing is cached."""
    import sys

    import packaging

    try:
        source = Path(schema.__file__).read_bytes()
    except (OSError, TypeError):
        return ""
    return "knowledge %s packaging %s python %d.%d" % (
        parsecache.digest(source), packaging.__version__, *sys.version_info[:2])


def _validated(name: str, origin: str, data: dict[str, Any]) -> Table:
    """Validate a table, or trust a verdict this validator gave on the same table before:
    validating every table takes 18 ms, a tenth of a replayed check. The verdict is kept
    for the parsed data under its name (the schema depends on both), not for the file's
    bytes: data read back from the parse cache is what is vouched for."""
    checker = validator_id()
    key = _verdict_key(checker, name, data) if checker else None
    if key is not None and parsecache.known_valid(checker, key):
        return schema.accepted(name, origin, data)
    table = validate(name, origin, data)
    if key is not None:
        parsecache.remember_valid(checker, key)
    return table


def _verdict_key(checker: str, name: str, data: dict[str, Any]) -> Optional[bytes]:
    """The table's name and its data as canonical JSON; None (no verdict kept) for data
    JSON cannot hold exactly, such as TOML dates."""
    import json

    try:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return name.encode("utf-8") + b"\0" + text.encode("utf-8")


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

