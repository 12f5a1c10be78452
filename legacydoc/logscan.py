"""Finding the catalogue's messages in a log someone pasted or saved.

Logs arrive mangled the way consoles mangle them: any Windows console encoding (GBK
included), CRLF, ANSI colour codes, lines wrapped at the console's width, a BOM; quoted
in a blog post, with typographic quotes and full-width colons. The text
is decoded and cleaned once, then every pattern is searched in three views of it: the
lines as they are, and the whole text with line breaks removed (a hard wrap inside a
word) and replaced by spaces (a wrap between words). A message is reported once, at the
first line it was found on.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Sequence
from typing import Any, Optional

from legacydoc.messages import Message, catalogue
from legacydoc.structs import struct

# A log is a few KiB to a few MiB; Theano's "compilation failed" dumps are the long ones.
MAX_LOG_BYTES = 4 * 1024 * 1024
MAX_MATCHES = 200
JOINED_CHARS = 1024 * 1024
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# A pasted command line that starts a program: what separates one run's output from the
# next when a user pastes several attempts (device=gpu, then device=cuda) into one report.
# An optional "(env)" and shell prompt ("user@host:~$", "C:\\x>", "PS C:\\x>", "%"), then
# NAME=value assignments and wrappers (env, sudo, nohup, time), then the interpreter or test
# runner, by name or path. The interpreter must be given a script, a module or an option
# (a traceback's "    py = ..." line or conda's "python  3.6.2" row is no command), or
# stand alone after a prompt (the interactive interpreter).
_PROMPT = r"(?:\(\S{1,80}\)[ \t]{0,4})?(?:PS [^\n>]{1,200}>|[^\n$#%>]{0,120}[$#%>])[ \t]{0,4}"
_PREFIX = r"(?:(?:env|sudo|nohup|time|exec)[ \t]+|[A-Za-z_][A-Za-z0-9_]{0,40}=\S{0,400}[ \t]+){0,8}"
_PROGRAM = r"(?:[^\s$#%>]{0,200}[\\/])?(?:python[\d.]{0,5}m?|ipython\d?|py|nosetests|pytest)(?:\.exe)?"
_RUN_START = re.compile(
    rf"^[ \t]{{0,8}}(?:{_PROMPT})?{_PREFIX}{_PROGRAM}[ \t]+(?:-\S|\S{{0,300}}\.py\b)"
    rf"|^[ \t]{{0,8}}{_PROMPT}{_PREFIX}{_PROGRAM}[ \t]*$",
    re.MULTILINE,
)
MAX_RUNS = 50
_ENCODINGS = ("utf-8", "gbk", "cp1252", "latin-1")  # latin-1 decodes anything: the last resort


@struct
class Match:
    id: str
    line: int  # 1-based, in the cleaned text
    text: str  # the matched text, one line, bounded
    groups: dict[str, str]


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) for a log's bytes: a BOM decides; else UTF-8, then GBK (a Chinese
    Windows console), then cp1252 and Latin-1. Never raises."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8):].decode("utf-8", errors="replace"), "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace"), "utf-16"
    for name in _ENCODINGS:
        try:
            return data.decode(name), name
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace"), "utf-8/replace"  # pragma: no cover - latin-1 always decodes


# A message quoted in a blog post or a word processor (Chinese ones most of all) comes back
# with typographic quotes and full-width punctuation: "AttributeError：module ‘configparser’".
# Folded to what the program printed; gcc's own ‘ ’ quotes fold too, and no pattern needs them.
_TYPOGRAPHY = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\uff1a": ":", "\uff08": "(", "\uff09": ")", "\uff0c": ",", "\uff1d": "=",
    "\u3000": " ", "\u00a0": " ",
})


def clean(text: str) -> str:
    """CRLF and lone CR become LF, ANSI colour and cursor codes go, NULs go, typographic
    quotes and full-width punctuation become the ASCII the program printed."""
    text = _ANSI.sub("", text).translate(_TYPOGRAPHY)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _joined(text: str, sep: str) -> tuple[str, list[int]]:
    """The text with line breaks replaced by ``sep``, and for each line its start offset in
    the joined text (to map a match back to a line)."""
    lines = text.split("\n")
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + len(sep)
    return sep.join(lines), starts


def _line_from_starts(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if starts[mid] <= offset:
            low = mid
        else:
            high = mid - 1
    return low + 1


def scan(text: str, messages: Optional[Sequence[Message]] = None) -> list[Match]:
    """Every catalogue message in ``text`` (already decoded), in the order they appear."""
    messages = messages if messages is not None else catalogue()
    text = clean(text)
    views: list[tuple[str, Optional[list[int]]]] = [(text, None)]
    # A wrapped message sits near the start of a log or near the traceback's end: the
    # joined views cover the first and last MiB (the plain view covers everything).
    edges = text if len(text) <= 2 * JOINED_CHARS else text[:JOINED_CHARS] + "\n" + text[-JOINED_CHARS:]
    for sep in ("", " "):
        joined, starts = _joined(edges, sep)
        views.append((joined, starts))
    found: dict[str, Match] = {}
    for message in messages:
        for view, line_starts in views:
            hit = message.pattern.search(view)
            if hit is None:
                continue
            line = (_line_of(view, hit.start()) if line_starts is None
                    else _line_from_starts(line_starts, hit.start()))
            if line_starts is not None and edges is not text and line > edges.count("\n", 0, JOINED_CHARS) + 1:
                line += text.count("\n", 0, len(text) - JOINED_CHARS) - edges.count("\n", 0, JOINED_CHARS) - 1
            shown = " ".join(hit.group(0).split())[:300]
            groups = {k: " ".join(v.split())[:200] for k, v in hit.groupdict().items() if isinstance(v, str)}
            found[message.id] = Match(message.id, line, shown, groups)
            break
    ordered = sorted(found.values(), key=lambda m: (m.line, m.id))
    return ordered[:MAX_MATCHES]


def run_starts(text: str) -> list[int]:
    """Lines (1-based) of the pasted command lines that start a program, at most MAX_RUNS.
    ``text`` is what scan() reads (clean() applied), so the lines match its matches'."""
    lines: list[int] = []
    line, counted = 1, 0
    for hit in itertools.islice(_RUN_START.finditer(text), MAX_RUNS):
        line += text.count("\n", counted, hit.start())
        counted = hit.start()
        lines.append(line)
    return lines


def log_table(data: bytes, source: str, messages: Optional[Sequence[Message]] = None) -> dict[str, Any]:
    """The ``log`` table of a facts record: what a log said, as facts for the rules."""
    text, encoding = decode(data[:MAX_LOG_BYTES])
    table = text_table(text, source, encoding, messages)
    if len(data) > MAX_LOG_BYTES:
        table["truncated"] = True
    return table


def text_table(
    text: str, source: str, encoding: str, messages: Optional[Sequence[Message]] = None
) -> dict[str, Any]:
    """The ``log`` table of already decoded text (legacydoc.logfile bounds and decodes)."""
    matches = scan(text, messages)
    table: dict[str, Any] = {
        "source": source,
        "encoding": encoding,
        "lines": text.count("\n") + 1,
        "ids": [m.id for m in matches],
        "runs": run_starts(clean(text)),
        "matches": [
            {"id": m.id, "line": m.line, "text": m.text, **({"groups": m.groups} if m.groups else {})}
            for m in matches
        ],
    }
    return table
