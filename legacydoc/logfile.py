"""Reading a user's log safely: a file, or standard input ("-").

A training log can be gigabytes; the messages that matter sit near its start (import
errors, the GPU banner) and near its end (the traceback). Past MAX_LOG_BYTES only the first
and the last half of that are kept, with a marker between them. Anything that is not a
regular file or a stream (a folder, a device) is refused with one line, never read.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Optional

from legacydoc.logscan import MAX_LOG_BYTES
from legacydoc.safe_io import Refused

HALF = MAX_LOG_BYTES // 2 - 128  # head, marker and tail together stay within MAX_LOG_BYTES
CHUNK = 1 << 16


@dataclass(frozen=True)
class LogInput:
    data: bytes
    source: str  # what to call it in the output ("stdin", the file name)
    truncated: bool
    size: int  # bytes in the input, all of them


def _keep_ends(stream: BinaryIO) -> tuple[bytes, bool, int]:
    """The first and last HALF bytes of a stream (all of it when it is small)."""
    head = bytearray()
    tail: deque[bytes] = deque()
    tail_size = total = 0
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if len(head) < HALF:
            take = chunk[: HALF - len(head)]
            head += take
            chunk = chunk[len(take):]
        if chunk:
            tail.append(chunk)
            tail_size += len(chunk)
            while tail and tail_size - len(tail[0]) >= HALF:
                tail_size -= len(tail.popleft())
    rest = b"".join(tail)
    if total <= MAX_LOG_BYTES:
        return bytes(head) + rest, False, total
    skipped = total - len(head) - min(len(rest), HALF)
    marker = b"\n[... legacydoc skipped %d bytes of the middle ...]\n" % skipped
    return bytes(head) + marker + rest[-HALF:], True, total


def read_log(name: str, stdin: Optional[BinaryIO] = None) -> LogInput:
    """The log called ``name`` ('-' for standard input); Refused with one line otherwise."""
    if name == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data, truncated, size = _keep_ends(stream)
        return LogInput(data, "stdin", truncated, size)
    path = Path(name)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise Refused("%s: cannot read the log: %s" % (path, exc.strerror or exc)) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise Refused("%s: cannot read the log: %s (give a file, or - for standard input)" % (path, kind))
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped after the stat
                raise Refused("%s: cannot read the log: not a regular file" % path)
            data, truncated, size = _keep_ends(handle)
    except OSError as exc:
        raise Refused("%s: cannot read the log: %s" % (path, exc.strerror or exc)) from None
    return LogInput(data, str(path), truncated, size)


def log_text(log: LogInput) -> str:
    """The log as text: decoded (any console encoding), colour codes and CRs removed."""
    from legacydoc import logscan

    return logscan.clean(logscan.decode(log.data)[0])


def log_facts(log: LogInput) -> dict:
    """The record's ``log`` table for this input (legacydoc.logscan.log_table)."""
    from legacydoc import logscan

    table = logscan.log_table(log.data, source=log.source)
    if log.truncated:
        table["truncated"] = True
    return table
