"""The messages of a ``--log`` that no finding of ``check`` explains.

A log that shows Theano failing is a fact, even when the record lacks what would tell its
causes apart (a reconstructed record, a probe that timed out). ``check`` then found no
problem among the facts it has, but it must not let the log pass in silence: each such
message is listed with the checks that would settle it and why they could not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from legacydoc.engine import Rule
from legacydoc.errors import flat_line
from legacydoc.facts import get

MAX_SHOWN = 5  # what text and markdown show; a long log repeats itself
MAX_FACTS = 4  # the unknown facts named per message (a "..." says there were more)
MAX_TEXT = 200


def unsettled_messages(facts: Mapping[str, Any], rules: Sequence[Rule], fired: set[str],
                       lacking: Mapping[str, list[str]], found_problems: bool = True) -> list[dict[str, Any]]:
    """For each catalogue message found in the log whose rules none fired: its id, line,
    text, and the rules that could not decide (``undecided``: the facts they need are
    unknown, named in ``unknown_facts``), were ruled out by the facts (``ruled_out``), or
    fire only on another message that is not in the log (``need_another_message``).
    ``lacking``: each undecided rule and the facts it lacked (the areas' ``undecided``).
    A message no rule stands behind (a failed cuDNN kernel, a full disk, the wrapper of a
    failed compile) is listed only where ``check`` found no problem (``found_problems``
    false): there it is all that keeps a failure in the log from passing in silence; beside
    a finding it is mostly the wrapper of what that finding names."""
    matches = get(facts, "log.matches")
    if not isinstance(matches, list) or not matches:
        return []
    from legacydoc.explain import RULED_OUT, UNKNOWN, rule_status
    from legacydoc.messages import by_id, catalogue

    known = by_id(catalogue())
    by_rule = {rule.id: rule for rule in rules}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for match in matches:
        if not isinstance(match, Mapping):
            continue
        message = known.get(str(match.get("id")))
        if message is None or message.informational or message.id in seen:
            continue
        seen.add(message.id)
        pointed = message.all_rules()
        if fired.intersection(pointed) or (not pointed and found_problems):
            continue
        states = {rule_id: rule_status(by_rule.get(rule_id), facts) for rule_id in pointed}
        undecided = [r for r, s in states.items() if s == UNKNOWN]
        # A rule only a log message fires is not waiting for a fact: another message would.
        by_log = [r for r in undecided if r in by_rule and by_rule[r].log_only and r not in lacking]
        undecided = [r for r in undecided if r not in by_log]
        needs: list[str] = []
        for rule_id in undecided:
            needs += [f for f in lacking.get(rule_id, []) if f not in needs]
        # What a record can say first: the derived facts follow from those.
        needs.sort(key=lambda fact: fact.startswith("derived."))
        out.append({
            "message": message.id,
            "line": match["line"] if type(match.get("line")) is int else 0,
            "text": flat_line(match.get("text", ""), MAX_TEXT),
            "undecided": undecided,
            "unknown_facts": needs[:MAX_FACTS] + (["..."] if len(needs) > MAX_FACTS else []),
            "ruled_out": [r for r, s in states.items() if s == RULED_OUT],
            "need_another_message": by_log,
        })
    return out

