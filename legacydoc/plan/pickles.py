"""Whether a file is a pickle written by Python 2: projects of the Theano years saved their
parameters and datasets that way, and Python 3 reads them only with encoding='latin1'.

Read, never loaded: ``pickletools.genops`` walks the opcodes without running any of them.
Python 2 writes its byte strings with the STRING, BINSTRING and SHORT_BINSTRING opcodes,
which Python 3 never writes (its bytes pickle as BINBYTES, or as a call to
``_codecs.encode`` below protocol 3), so one of them marks a Python 2 writer. A numpy array
pickled by Python 2 starts with one (the 'b' of ``_reconstruct``), so the first bytes of a
file are enough. Plain pickles, gzip-compressed ones (mnist.pkl.gz) and .npy files holding
objects are read.
"""

from __future__ import annotations

import io
import zlib
from typing import Optional

# How much of each file is read (and, for .gz, decompressed).
HEAD_BYTES = 1 << 20
SUFFIXES = (".pkl", ".pickle", ".p", ".pkl.gz", ".pickle.gz", ".npy")
PYTHON2_OPCODES = frozenset({"STRING", "BINSTRING", "SHORT_BINSTRING"})
NPY_MAGIC = b"\x93NUMPY"


def is_candidate(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def written_by_python2(name: str, head: bytes) -> bool:
    """``head``: the first bytes of the file called ``name``."""
    data: Optional[bytes] = head
    lower = name.lower()
    if lower.endswith(".gz"):
        data = _gunzip_head(head)
    elif lower.endswith(".npy"):
        data = _npy_object_payload(head)
    return data is not None and _has_python2_strings(data)


def _has_python2_strings(data: bytes) -> bool:
    import pickletools

    try:
        for opcode, _arg, _pos in pickletools.genops(io.BytesIO(data)):
            if opcode.name in PYTHON2_OPCODES:
                return True
    except (ValueError, UnicodeDecodeError):  # not a pickle, or cut off at HEAD_BYTES
        return False
    return False


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
