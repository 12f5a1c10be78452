"""Reading a user's log safely: a file, or standard input ("-").

A training log can be gigabytes; the messages that matter sit near its start (import
errors, the GPU banner) and near its end (the traceback). Past MAX_LOG_BYTES only the first
and the last part are kept, each cut at a line boundary and decoded on its own (so a
character split by the cut cannot turn the whole log into mojibake), with a marker
between them. Anything that is not a regular file or a stream (a folder, a device) is
refused with one line, never read.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from pathlib import Path
from typing import BinaryIO, Optional

from legacydoc.i18n import tr
from legacydoc.logscan import MAX_LOG_BYTES, clean, decode
from legacydoc.safe_io import Refused
from legacydoc.structs import struct

HALF = MAX_LOG_BYTES // 2 - 256  # head, marker and tail together stay within MAX_LOG_BYTES
CHUNK = 1 << 16


@struct(frozen=True)
class LogInput:
    text: str  # decoded, colour codes and CRs removed
    encoding: str
    source: str  # what to call it in the output ("stdin", the file name)
    truncated: bool
    size: int  # bytes in the input, all of them



def _keep_ends(stream: BinaryIO) -> tuple[bytes, Optional[bytes], int]:
    """(head, tail, total): all of a small stream as head (tail None); of a large one the
    first and the last HALF bytes."""
    head = bytearray()
    tail: deque[bytes] = deque()
    tail_size = total = 0
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if len(head) < MAX_LOG_BYTES:
            take = chunk[: MAX_LOG_BYTES - len(head)]
            head += take
            chunk = chunk[len(take):]
        if chunk:
            tail.append(chunk)
            tail_size += len(chunk)
            while tail and tail_size - len(tail[0]) >= HALF:
                tail_size -= len(tail.popleft())
    if total <= MAX_LOG_BYTES:
        return bytes(head), None, total
    rest = bytes(head[HALF:]) + b"".join(tail)  # what follows the head, then the kept tail
    return bytes(head[:HALF]), rest[-HALF:], total


def _join_ends(head: bytes, tail: bytes, total: int) -> tuple[str, str]:
    """Decode head and tail apart, each cut at a line boundary, with a marker between."""
    if not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        # Cut the bytes at a newline first: a multibyte character split by the cut would
        # make a strict UTF-8 decode fail and the whole log read as cp1252.
        head = head[: head.rfind(b"\n") + 1] or head
        tail = tail[tail.find(b"\n") + 1:] if b"\n" in tail else tail
    head_text, encoding = decode(head)
    codec = "utf-16-le" if encoding == "utf-16" and head.startswith(b"\xff\xfe") else (
        "utf-16-be" if encoding == "utf-16" else encoding.split("/")[0].replace("-sig", ""))
    if codec.startswith("utf-16") and len(tail) % 2:
        tail = tail[1:]  # keep the code units aligned
    try:
        tail_text = tail.decode(codec, errors="replace")
    except LookupError:
        tail_text = tail.decode("utf-8", errors="replace")
    head_text = head_text[: head_text.rfind("\n") + 1] or head_text
    tail_text = tail_text[tail_text.find("\n") + 1:] if "\n" in tail_text else tail_text
    marker = "[... legacydoc skipped the middle of this %d-byte log ...]\n" % total
    return head_text + marker + tail_text, encoding


def _from_stream(stream: BinaryIO, source: str) -> LogInput:
    head, tail, total = _keep_ends(stream)
    if tail is None:
        text, encoding = decode(head)
        return LogInput(clean(text), encoding, source, False, total)
    text, encoding = _join_ends(head, tail, total)
    return LogInput(clean(text), encoding, source, True, total)


def shown_name(name: str) -> str:
    """A file name as text that can always be printed and encoded (undecodable bytes of a
    POSIX name become U+FFFD)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_log(name: str, stdin: Optional[BinaryIO] = None) -> LogInput:
    """The log called ``name`` ('-' for standard input); Refused with one line otherwise."""
    if name == "-":
        stream = stdin
        if stream is None:
            if sys.stdin is None or not hasattr(sys.stdin, "buffer"):
                raise Refused(tr("-: cannot read the log: standard input is closed"))
            stream = sys.stdin.buffer
        try:
            return _from_stream(stream, "stdin")
        except (OSError, ValueError) as exc:
            raise Refused(tr("-: cannot read the log from standard input: %s") % exc) from None
    path = Path(name)
    shown = shown_name(str(path))
    try:
        st = os.stat(path)
    except OSError as exc:
        raise Refused(tr("%s: cannot read the log: %s") % (shown, exc.strerror or exc)) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise Refused(tr("%s: cannot read the log: %s (give a file, or - for standard input)") % (shown, kind))
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped after the stat
                raise Refused(tr("%s: cannot read the log: not a regular file") % shown)
            return _from_stream(handle, shown)
    except OSError as exc:
        raise Refused(tr("%s: cannot read the log: %s") % (shown, exc.strerror or exc)) from None


def log_facts(log: LogInput) -> dict:
    """The record's ``log`` table for this input (legacydoc.logscan.text_table)."""
    from legacydoc import logscan

    table = logscan.text_table(log.text, log.source, log.encoding)
    if log.truncated:
        table["truncated"] = True
    return table
