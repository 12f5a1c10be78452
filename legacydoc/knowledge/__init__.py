"""Knowledge tables: what we know about CUDA, drivers, cuDNN, compilers, GPUs and Theano.

The tables are TOML data under ``rules/knowledge/`` (shipped as ``legacydoc.rules`` in the
wheel), one file per table, each with a ``source`` line naming where its figures come
from. :mod:`.schema` says what shape each table must have, :mod:`.load` finds, validates
and caches them, :mod:`.lookups` answers questions over them. ``default()`` is the
lookups over the built-in tables: ``knowledge.default().min_driver("10.2", "linux")``.
"""

from __future__ import annotations

from legacydoc.knowledge.load import clear_cache, default, knowledge_dir, load_tables, tables
from legacydoc.knowledge.lookups import Knowledge, driver_key
from legacydoc.knowledge.schema import KnowledgeError, Table, validate

__all__ = [
    "Knowledge",
    "KnowledgeError",
    "Table",
    "clear_cache",
    "default",
    "driver_key",
    "knowledge_dir",
    "load_tables",
    "tables",
    "validate",
]
