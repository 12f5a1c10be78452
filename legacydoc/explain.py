"""`legacydoc explain`: from the error message the user already has to its likely causes.

The log is scanned against the error catalogue (rules/messages/, legacydoc.messages). For
each message found: what it means, its causes in order, the facts that tell them apart
and the fix. Without facts nothing is claimed about the machine: each cause names the
`legacydoc check` finding that would settle it. With --facts, each of those findings is
evaluated on the record: confirmed, ruled out, or still unknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from legacydoc.engine import Rule
from legacydoc.i18n import N_
from legacydoc.messages import Message, by_id, catalogue
from legacydoc.structs import field, replace, struct

CONFIRMED = N_("confirmed")  # the rule's condition holds on the facts
RULED_OUT = N_("ruled out")  # the facts contradict it, or it is about another Theano era
UNKNOWN = N_("unknown")  # the facts (or their absence) cannot say


@struct(frozen=True)
class RuleRef:
    id: str
    name: str
    status: str


@struct(frozen=True)
class CauseView:
    cause: str
    text: str
    rules: tuple[RuleRef, ...]


@struct(frozen=True)
class Found:
    message: Message
    line: int
    text: str
    causes: tuple[CauseView, ...]


@struct
class Explanation:
    source: str
    encoding: str
    lines: int
    truncated: bool
    found: list[Found]
    facts_source: str = ""  # where the facts came from; "" when there were none
    points_at: list[RuleRef] = field(default_factory=list)  # what the messages alone are evidence for

    @property
    def recognised(self) -> bool:
        return bool(self.found)

    def exit_code(self) -> int:
        return 0 if self.found else 1


def in_reader_language(message: Message) -> Message:
    """The message with its meaning, causes, tells_apart and fixes in the reader's language
    (rules/i18n/<lang>-messages/); the pattern, example and sources stay as printed."""
    from legacydoc.i18n import message_field

    texts = message_field(message.id, "causes", tuple(c.text for c in message.causes))
    return replace(
        message,
        meaning=message_field(message.id, "meaning", message.meaning),
        causes=tuple(replace(c, text=t) for c, t in zip(message.causes, texts)),
        tells_apart=message_field(message.id, "tells_apart", message.tells_apart),
        fixes=message_field(message.id, "fixes", message.fixes),
    )


def rule_status(rule: Optional[Rule], facts: Optional[Mapping[str, Any]]) -> str:
    if rule is None or facts is None:
        return UNKNOWN
    from legacydoc.engine.evaluation import fires, lookup, truth

    applies = truth(rule.applies, facts)
    if rule.for_each:
        # Decided per item (a config finding, a GPU): confirmed when one item matches.
        items = lookup(facts, rule.for_each, None)
        if not isinstance(items, list):
            return RULED_OUT if applies is False else UNKNOWN
        answers = [truth(rule.when, facts, item) for item in items]
        if applies is not False and True in answers:
            return CONFIRMED if applies is True else UNKNOWN
        return RULED_OUT if applies is False or all(a is False for a in answers) else UNKNOWN
    if fires(rule, facts) == "facts":  # the facts alone, not the log
        return CONFIRMED
    when = None if rule.log_only else truth(rule.when, facts)
    return RULED_OUT if applies is False or when is False else UNKNOWN


def explain(
    log_table: Mapping[str, Any],
    rules: Sequence[Rule],
    record: Optional[Mapping[str, Any]] = None,
    facts_source: str = "",
) -> Explanation:
    """What the messages of this ``log`` table (legacydoc.logscan.log_table) mean; with a
    facts ``record``, each cause's rules are evaluated on it."""
    known = by_id(catalogue())
    rules_by_id = {rule.id: rule for rule in rules}
    facts: Optional[Mapping[str, Any]] = None
    if record is not None:
        from legacydoc.derive import enrich

        with_log = dict(record)
        with_log["log"] = dict(log_table)
        facts = enrich(with_log)

    def ref(rule_id: str) -> RuleRef:
        rule = rules_by_id.get(rule_id)
        return RuleRef(rule_id, rule.name if rule else "(not in this rule pack)", rule_status(rule, facts))

    found = []
    for match in log_table.get("matches", []) or []:
        message = known.get(str(match.get("id")))
        if message is None:
            continue
        message = in_reader_language(message)
        causes = tuple(
            CauseView(c.cause, c.text, tuple(ref(r) for r in c.rules)) for c in message.causes if c.text
        )
        found.append(Found(message, int(match.get("line", 0) or 0), str(match.get("text", "")), causes))
    points: list[str] = []
    for item in found:
        points += [r for r in item.message.rules if r not in points]
    return Explanation(
        source=str(log_table.get("source", "")),
        encoding=str(log_table.get("encoding", "")),
        lines=int(log_table.get("lines", 0) or 0),
        truncated=bool(log_table.get("truncated")),
        found=found,
        facts_source=facts_source,
        points_at=[ref(r) for r in points],
    )
