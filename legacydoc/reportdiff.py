"""What changed between a user's first and second report: ``legacydoc diff OLD NEW``.

Both records are diagnosed as ``check --facts`` would. Findings are matched by rule id:
fixed (only in OLD), new (only in NEW), remaining (in both, with NEW's wording). Facts are
compared leaf by leaf; a fact one record holds and the other does not is "not recorded" on
that side, not "removed": a partial record says nothing about what it lacks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from legacydoc.structs import field, struct

# Bookkeeping, not facts about the machine.
IGNORED = ("schema", "legacydoc_version", "collected_at", "redacted", "log", "probe_seconds", "probes")
# Facts that say how a record was made, not what the machine has: an older record lacks them.
IGNORED_FACTS = ("packages.watched",)
MAX_CHANGES = 300
MAX_VALUE = 160


@struct
class Side:
    source: str
    verdict: str
    findings: list[dict[str, str]]  # id, severity, title (top level, root causes first)
    facts: dict[str, Any]  # flattened record


@struct
class FactChange:
    name: str
    old: Any  # None: not recorded in OLD
    new: Any  # None: not recorded in NEW


@struct
class Diff:
    old: Side
    new: Side
    fixed: list[dict[str, str]] = field(default_factory=list)
    added: list[dict[str, str]] = field(default_factory=list)
    remaining: list[dict[str, str]] = field(default_factory=list)
    changes: list[FactChange] = field(default_factory=list)
    changes_left_out: int = 0


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted leaves; lists stay whole (a GPU list is one fact)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if not prefix and key in IGNORED:
            continue
        name = prefix + str(key)
        if name in IGNORED_FACTS:
            continue
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    text = text.replace("\n", "\\n")
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 3] + "..."


def side(path: Path, rules: Sequence[Any], redactor_for: Any) -> Side:
    from legacydoc.diagnose import diagnose_file

    result = diagnose_file(path, rules, redactor_for)
    findings = [{"id": d.id, "severity": d.severity, "title": d.title} for d in result.diagnoses]
    return Side(result.source, result.verdict(), findings, flatten(result.record))


def compare(old: Side, new: Side) -> Diff:
    diff = Diff(old, new)
    old_ids = {f["id"] for f in old.findings}
    new_ids = {f["id"] for f in new.findings}
    diff.fixed = [f for f in old.findings if f["id"] not in new_ids]
    diff.added = [f for f in new.findings if f["id"] not in old_ids]
    diff.remaining = [f for f in new.findings if f["id"] in old_ids]
    changes = []
    for name in sorted(set(old.facts) | set(new.facts)):
        before, after = old.facts.get(name), new.facts.get(name)
        if before != after:
            changes.append(FactChange(name, before, after))
    diff.changes = changes[:MAX_CHANGES]
    diff.changes_left_out = max(0, len(changes) - MAX_CHANGES)
    return diff


def diff_files(old: Path, new: Path, rules: Sequence[Any], redactor_for: Any) -> Diff:
    return compare(side(old, rules, redactor_for), side(new, rules, redactor_for))
