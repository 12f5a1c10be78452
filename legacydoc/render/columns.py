"""Text in terminal columns, for English and Chinese alike: a wide (CJK) character takes
two columns, and a line of Chinese may break before any wide character. All-narrow text
goes through textwrap exactly as the English output always has."""

from __future__ import annotations

import functools
import re
import textwrap

WIDE_FROM = 0x1100  # Hangul Jamo onwards: the CJK blocks and full-width forms


@functools.lru_cache(maxsize=1)
def _tokens() -> re.Pattern[str]:
    """A wide character on its own (a line may break before it), or a run of narrow ones,
    or spaces; opening and closing punctuation stay with what they open and close.
    Compiled on first use: the character ranges take 3 ms, and English text never needs it."""
    return re.compile(r"[（《「『]*(?:\s+|[^\s\u1100-\U0010ffff]+|[\u1100-\U0010ffff])[，。；：、！？）》」』]*")


def is_wide(ch: str) -> bool:
    return ord(ch) >= WIDE_FROM


def width(text: str) -> int:
    """Terminal columns: a CJK character takes two."""
    return sum(2 if is_wide(ch) else 1 for ch in text)


def ljust(text: str, columns: int) -> str:
    return text + " " * (columns - width(text))


def unfold(paragraph: str) -> str:
    """A paragraph's lines as one line, spaces collapsed: joined by a space, except between
    two Chinese characters (Chinese puts no space between words)."""
    out = ""
    for line in paragraph.splitlines():
        words = " ".join(line.split())
        if not words:
            continue
        joined = not out or (is_wide(out[-1]) and is_wide(words[0]))
        out += words if joined else " " + words
    return out


def wrap(text: str, columns: int, initial: str = "", subsequent: str = "") -> list[str]:
    """textwrap.wrap for narrow text; text with wide characters gets lines of at most
    ``columns`` terminal columns, broken between words or before a wide character."""
    if width(text) == len(text):
        # Paths, package names and options are copied from here: never broken at a hyphen
        # or inside a word (a long path runs past the margin instead).
        return textwrap.wrap(text, width=columns, initial_indent=initial, subsequent_indent=subsequent,
                             break_on_hyphens=False, break_long_words=False)
    lines: list[str] = []
    line = initial
    for token in _tokens().findall(" ".join(text.split())):
        if line.strip() and width(line) + width(token.rstrip()) > columns:
            lines.append(line.rstrip())
            line = subsequent
            if token.isspace():
                continue
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines
