"""Whether a file is a pickle that Python 3 cannot load as it is: one written by Python 2
whose byte strings go beyond ASCII (numpy arrays almost always do), which Python 3's
pickle decodes as ASCII unless given encoding='latin1'.

Read, never loaded: ``pickletools.genops`` walks the opcodes without running any of them.
Python 2 writes its byte strings with the STRING, BINSTRING and SHORT_BINSTRING opcodes,
which Python 3 never writes (its bytes pickle as BINBYTES, or as a call to
``_codecs.encode`` below protocol 3). A Python 2 pickle whose strings are all ASCII loads
in Python 3 and is not reported. Plain pickles (several in one file, as consecutive dumps
write them), gzip-compressed ones (mnist.pkl.gz) and .npy files holding objects are read.
"""

from __future__ import annotations

import io
import zlib
from typing import Optional

# How much of each file is read (and, for .gz, decompressed).
HEAD_BYTES = 1 << 20
SUFFIXES = (".pkl", ".pickle", ".pkl.gz", ".pickle.gz", ".npy")
PYTHON2_STRINGS = frozenset({"STRING", "BINSTRING", "SHORT_BINSTRING"})
NPY_MAGIC = b"\x93NUMPY"
MAX_PICKLES_PER_FILE = 100  # consecutive dumps in one file


def is_candidate(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def needs_latin1(name: str, head: bytes) -> bool:
    """``head``: the first bytes of the file called ``name`` (at most HEAD_BYTES)."""
    data: Optional[bytes] = head
    lower = name.lower()
    if lower.endswith(".gz"):
        data = _gunzip_head(head)
    elif lower.endswith(".npy"):
        data = _npy_object_payload(head)
    return data is not None and _python2_strings_beyond_ascii(data)


def _python2_strings_beyond_ascii(data: bytes) -> bool:
    # Imported here: only a project scan that meets a pickle needs it.
    import pickletools

    stream = io.BytesIO(data)
    for _ in range(MAX_PICKLES_PER_FILE):
        if stream.tell() >= len(data):
            return False
        start = stream.tell()
        try:
            for opcode, arg, _pos in pickletools.genops(stream):
                if opcode.name in PYTHON2_STRINGS and isinstance(arg, str) and max(arg, default="\0") > "\x7f":
                    return True
                start = stream.tell()
        except UnicodeDecodeError:
            # Protocol 0: pickletools reads a STRING's argument as ASCII, and fails on the
            # very bytes Python 3 would.
            return data[start:start + 1] == b"S"
        except ValueError:  # not a pickle, or cut off at HEAD_BYTES (a weight matrix is larger)
            # Only a binary pickle (protocol 2: PROTO first) counts: a text file that merely
            # starts like protocol 0 must not pass on one stray byte.
            return data[:1] == b"\x80" and start > 0 and _cut_string_beyond_ascii(data, start)
    return False


def _cut_string_beyond_ascii(data: bytes, start: int) -> bool:
    """A BINSTRING or SHORT_BINSTRING cut off by the read: what of it was read decides."""
    offset = {b"T": 5, b"U": 2}.get(data[start:start + 1])
    return offset is not None and any(byte > 0x7F for byte in data[start + offset:])


def _gunzip_head(head: bytes) -> Optional[bytes]:
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
    except zlib.error:
        return None


def _npy_object_payload(head: bytes) -> Optional[bytes]:
    """The pickle after a .npy header whose dtype is object ('|O'); None otherwise."""
    if not head.startswith(NPY_MAGIC) or len(head) < 10:
        return None
    major = head[6]
    size_bytes = 2 if major == 1 else 4
    start = 8 + size_bytes
    header_len = int.from_bytes(head[8:start], "little")
    header = head[start:start + header_len]
    if b"'|O'" not in header:
        return None
    return head[start + header_len:]
