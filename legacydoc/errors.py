"""Errors that reach the user as one line and exit code 2."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with control characters (newlines from a hostile file name or key among
    them) written as escapes, so a message stays one line."""
    return _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 256 else "\\u%04x" % ord(m.group()),
                        text)


def flat_line(value: object, limit: int = 200) -> str:
    """A log excerpt from a record (a report zip may be hostile) as one short line: no line
    breaks to forge a heading in markdown, no escape codes to reach the terminal."""
    return one_line(" ".join(str(value).split()))[:limit]


class UsageError(Exception):
    """Bad usage or unreadable input. The message names the file and the problem; it is
    always one line (see :func:`one_line`)."""

    exit_code = 2

    def __init__(self, message: object = "") -> None:
        super().__init__(one_line(str(message)))
