"""Finding, reading and validating the knowledge tables (rules/knowledge/*.toml)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Union

from legacydoc import locate
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
        result[name] = validate(name, origin, data)
    return result


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

