"""What the rule engine works with: a rule (validated data) and a diagnosis (a fired rule,
its text filled from the facts)."""

from __future__ import annotations

from typing import Any

from legacydoc.errors import UsageError
from legacydoc.shells import Step
from legacydoc.structs import field, struct

# The order an expert debugs in: a root cause in an earlier layer explains later ones.
LAYERS: tuple[str, ...] = ("versions", "drivers", "libraries", "compilers", "config", "performance")
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")


class RuleError(UsageError):
    """A rule file that cannot be used: one line naming the file and the rule."""


@struct(frozen=True)
class Rule:
    """A rule as loaded from a pack: when it fires, what it says, and which eras it covers."""

    id: str
    name: str
    area: str
    layer: str
    severity: str
    title: str
    why: str
    fix: tuple[Step, ...]  # text, or one line per shell (legacydoc.shells)
    when: Any
    source: str
    references: tuple[str, ...] = ()
    explains: tuple[str, ...] = ()
    for_each: str = ""
    evidence: tuple[str, ...] = ()
    # Example facts (dotted name -> value) on which the rule must fire / stay quiet;
    # the test suite runs every one, and `rules explain` shows them.
    fires: tuple[dict, ...] = ()
    quiet: tuple[dict, ...] = ()
    # The Theano releases and back-ends the rule is about, as a condition (see load.py);
    # what it says in words, for `rules explain`.
    applies: Any = ()
    applies_text: str = "any Theano, any back-end"
    # Fires only on a message in the log (nothing in the facts could show this cause)...
    log_only: bool = False
    # ...unless this holds: the record shows the cause gone (the log came from before). On a
    # rule with a 'when', it stops only the log from firing it.
    unless: Any = ()
    # A per-item rule whose condition is about each item itself (a GPU's architecture):
    # where every recorded item contradicts it, a log line does not fire it. Not for an
    # item field measured against something else (in_nvcc_range: the nvcc on PATH may not
    # be what compiled the failing kernel).
    items_decide: bool = False


@struct
class Diagnosis:
    """A rule that fired on a record: its texts filled in, with evidence and fix."""

    id: str
    name: str
    area: str
    layer: str
    severity: str
    title: str
    why: str
    fix: list[str]
    evidence: dict[str, Any]
    references: list[str] = field(default_factory=list)
    explains: list[str] = field(default_factory=list)  # ids of folded diagnoses
    folded: list["Diagnosis"] = field(default_factory=list)
    # Fired on a message of the log that these other rules fired on too, none of them
    # decided by the facts: one of them is the cause, the record does not say which.
    alternatives: list[str] = field(default_factory=list)
    alternatives_message: str = ""  # the message's id

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "area": self.area,
            "severity": self.severity,
            "layer": self.layer,
            "title": self.title,
            "why": self.why,
            "fix": list(self.fix),
            "evidence": dict(self.evidence),
            "references": list(self.references),
            "explains": list(self.explains),
            "alternatives": list(self.alternatives),
            "alternatives_message": self.alternatives_message,
        }
