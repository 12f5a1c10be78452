"""What a finding says when it is one of several causes a log message points at equally."""

from __future__ import annotations

from legacydoc.engine import Diagnosis
from legacydoc.i18n import message_field, tr


def alternatives_note(diag: Diagnosis) -> str:
    """One sentence: which other findings this one is an alternative to, and why."""
    if not diag.alternatives:
        return ""
    return tr("One of the possible causes: the log's message %s points at this and at %s, "
              "and the record does not say which.") % (diag.alternatives_message, ", ".join(diag.alternatives))


def telling_apart(diag: Diagnosis) -> list[str]:
    """What tells the alternatives apart (the message's own list, in the reader's language)."""
    if not diag.alternatives:
        return []
    from legacydoc.messages import by_id, catalogue

    message = by_id(catalogue()).get(diag.alternatives_message)
    if message is None:
        return []
    return list(message_field(message.id, "tells_apart", message.tells_apart))
