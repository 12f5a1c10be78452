"""The exact, typed shape of the facts record: every table and key the probes write, the
computed namespaces rules read (``derived``, ``config``, ``bench``) and each value's kind.

Kinds: ``"str"``, ``"int"``, ``"number"`` (int or float, never bool), ``"bool"``,
``list_of(kind)`` (a list of scalars), :class:`Table` (known keys), :class:`ListOf` (an array
of tables) and :class:`MapOf` (keys are open-ended names matching a pattern). A key written
only when it applies is declared all the same: absent is always fine, a wrong kind never is.
Rule loading asks :func:`is_known`, :func:`is_list` and :func:`is_item_field`; :func:`validate`
checks a record. Undeclared keys are allowed (older and newer writers) and listed by
:func:`undeclared_keys`. ``# new`` marks facts declared before the probes write them.

The package: :mod:`.kinds` (the vocabulary), :mod:`.tables` (what the probes write),
:mod:`.computed` (derived, config, bench), :mod:`.names` (what rules may name),
:mod:`.walk` (checking a record).
"""

from __future__ import annotations

from legacydoc.factschema.kinds import (
    ANY,
    BOOL,
    INT,
    NUMBER,
    STR,
    Kind,
    ListKind,
    ListOf,
    MapOf,
    Table,
    list_of,
)
from legacydoc.factschema.names import (
    COMPUTED,
    FACT_TABLES,
    RECORD,
    declared_names,
    enumerates,
    is_item_field,
    is_known,
    is_list,
    leaf_names,
)
from legacydoc.factschema.walk import prune, undeclared_keys, validate

__all__ = [
    "ANY", "BOOL", "COMPUTED", "FACT_TABLES", "INT", "NUMBER", "RECORD", "STR", "Kind", "ListKind", "ListOf",
    "MapOf", "Table", "declared_names", "enumerates", "prune", "is_item_field", "is_known", "is_list", "leaf_names",
    "list_of", "undeclared_keys", "validate",
]
