"""THEANO_FLAGS as Theano splits it, and the ways that splitting surprises people.

Theano (every release from 0.8 to Theano-PyMC 1.1.2) reads the variable with
``shlex.shlex(text, posix=True)``, ``whitespace=","`` and ``whitespace_split=True``, strips
each item and splits it at the first ``=``. So: keys are full dotted (or, in Theano-PyMC
>= 1.0.12, double-underscore) names; spaces around ``=`` become part of the key or the
value; an item without ``=`` is dropped with a warning; a later item wins; shell quotes
are removed (``gcc.cxxflags="-O3,-g"`` keeps its comma) but so are unquoted backslashes
(``C:\\CUDA`` arrives as ``C:CUDA``; ``C:\\\\CUDA`` arrives as the ``C:\\CUDA`` it means);
``#`` starts a comment that runs to the end of the line; an unclosed quote makes
``import theano`` fail.
"""

from __future__ import annotations

import shlex
from typing import Optional

from legacydoc.structs import field, struct


@struct
class FlagItem:
    """One item of THEANO_FLAGS as Theano splits it."""

    index: int  # 0-based position among the items Theano sees
    text: str  # the item after shlex and strip()
    key: Optional[str] = None  # None: no '=' (dropped by Theano)
    value: Optional[str] = None


@struct
class ParsedFlags:
    """THEANO_FLAGS as Theano reads it, with what it silently drops."""

    raw: str
    items: list[FlagItem] = field(default_factory=list)
    error: Optional[str] = None  # shlex failed: import theano raises this
    comment_dropped: str = ""  # text a '#' made Theano ignore
    backslashes_lost: list[tuple[str, str, str]] = field(default_factory=list)  # (key, typed, received)

    @property
    def values(self) -> dict[str, str]:
        """{key: value} as Theano ends up with (later items win)."""
        out: dict[str, str] = {}
        for item in self.items:
            if item.key is not None:
                out[item.key] = item.value or ""
        return out

    def last_item(self, key: str) -> Optional[FlagItem]:
        found = None
        for item in self.items:
            if item.key == key:
                found = item
        return found

    def items_for(self, key: str) -> list[FlagItem]:
        return [item for item in self.items if item.key == key]

    @property
    def dropped(self) -> list[FlagItem]:
        return [item for item in self.items if item.key is None]


def _split(text: str, comments: bool = True, escapes: bool = True) -> list[str]:
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace = ","
    lexer.whitespace_split = True
    if not comments:
        lexer.commenters = ""
    if not escapes:
        lexer.escape = ""
    return list(lexer)


def _items(tokens: list[str]) -> list[FlagItem]:
    items: list[FlagItem] = []
    for token in tokens:
        token = token.strip()
        if not token:
            continue
        item = FlagItem(len(items), token)
        if "=" in token:
            item.key, item.value = token.split("=", 1)
        items.append(item)
    return items


def _lone_backslash_items(text: str) -> Optional[list[bool]]:
    """For each item as shlex would split it, whether an unquoted backslash not doubled
    was eaten: '\\\\' outside quotes is an escaped backslash,
    the way to write one; inside single quotes nothing is escaped, inside double quotes only
    '\\' and '"' are. None when the text does not scan (shlex raises for it anyway)."""
    items: list[tuple[str, bool]] = []
    token: list[str] = []
    lone = False
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if not quote and char == ",":
            items.append(("".join(token), lone))
            token, lone = [], False
        elif not quote and char == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif not quote and char in "'\"":
            quote = char
            token.append(char)
        elif quote and char == quote:
            quote = ""
            token.append(char)
        elif char == "\\" and quote != "'":
            following = text[i + 1:i + 2]
            if not following:
                return None
            if not quote and following not in "\\'\",# \t\n":
                lone = True
            token.append(text[i:i + 2])
            i += 2
            continue
        else:
            token.append(char)
        i += 1
    if quote:
        return None
    items.append(("".join(token), lone))
    return [was_lone for typed, was_lone in items if typed.strip()]


def parse_flags(text: str) -> ParsedFlags:
    """Parse THEANO_FLAGS. Never raises."""
    parsed = ParsedFlags(raw=text)
    try:
        parsed.items = _items(_split(text))
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        parsed.error = "ValueError: %s" % exc
        return parsed
    # Compare with lexers that keep '#' and '\' to name what was silently lost.
    try:
        no_comment = _items(_split(text, comments=False))
        if [i.text for i in no_comment] != [i.text for i in parsed.items] and "#" in text:
            parsed.comment_dropped = text[text.find("#"):]
    except ValueError:
        pass
    scanned = _lone_backslash_items(text)
    if scanned is None or len(scanned) != len(parsed.items):
        return parsed
    try:
        literal = _items(_split(text, escapes=False))
    except ValueError:
        return parsed
    if len(literal) != len(parsed.items):
        return parsed
    for item, typed, lone in zip(parsed.items, literal, scanned):
        # doubled backslashes arrive single, as meant (C:\\CUDA is C:\CUDA): only a lone one is lost
        if item.key and lone and typed.value is not None:
            parsed.backslashes_lost.append((item.key, typed.value, item.value or ""))
    return parsed
