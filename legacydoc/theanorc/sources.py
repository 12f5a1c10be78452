"""Each config file in Theano's list, as Theano gets it: skipped silently (missing, a
folder, unreadable), failing to decode in the target's locale, or parsed.

Python 3's ConfigParser opens the files with ``open(path)`` in the locale's encoding and
skips any file that raises OSError; a UnicodeDecodeError or a parsing error, on the
other hand, propagates and makes ``import theano`` fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.structs import struct
from legacydoc.theanorc import machine
from legacydoc.theanorc.parser import ParsedText, dialect_for, parse_text, split_lines

_GBK_FAMILY = ("gbk", "cp936", "gb2312", "gb18030", "ms936")


@struct
class DecodeProblem:
    """Text in a config file that Theano cannot decode (a BOM, bytes that are not UTF-8)."""

    kind: str  # "bom" | "undecodable"
    fatal: bool  # import theano certainly fails
    line: Optional[int]
    message: str


@struct
class SourceFile:
    """One config file Theano would read: whether it could, and what it holds."""

    path: str
    origin: str  # "default" or "THEANORC"
    fact: Mapping[str, Any]
    status: str  # read | missing | not-a-file | unreadable | no-text
    reason: str = ""  # why Theano skips it, in words
    parsed: Optional[ParsedText] = None
    decode: Optional[DecodeProblem] = None
    truncated: bool = False
    partial: bool = False  # an excerpt: the options it does not show are unknown, not unset

    @property
    def read(self) -> bool:
        return self.status == "read"

    @property
    def fatal(self) -> Optional[str]:
        """The error reading this file raises in Theano (None: it reads fine)."""
        if self.decode is not None and self.decode.fatal:
            return self.decode.message
        if self.parsed is not None and self.parsed.fatal is not None:
            issue = self.parsed.fatal
            return "%s at line %d" % (FATAL_NAMES[issue.kind], issue.line)
        return None


FATAL_NAMES = {
    "missing-section-header": "configparser.MissingSectionHeaderError",
    "duplicate-section": "configparser.DuplicateSectionError",
    "duplicate-option": "configparser.DuplicateOptionError",
    "parse-error": "configparser.ParsingError",
}


def _line_of_offset(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, offset)) + 1


def _first_line(text: str, predicate) -> Optional[int]:
    for number, line in enumerate(split_lines(text), start=1):
        if predicate(line):
            return number
    return None


def _gbk_fails(line: str) -> bool:
    try:
        line.encode("utf-8").decode("gbk")
        return False
    except UnicodeDecodeError:
        return True


def decode_problem(fact: Mapping[str, Any], text: str, locale: Optional[str], py2: bool) -> Optional[DecodeProblem]:
    """What the target's locale makes of this file's bytes (see module docstring)."""
    encoding = fact.get("encoding", "utf-8")
    where = "the target's locale (%s)" % locale if locale else "the Windows ANSI code page"
    if encoding == "utf-8-sig":
        return DecodeProblem(
            "bom", True, 1,
            "the file starts with a UTF-8 byte-order mark (BOM); ConfigParser keeps it as part of the first "
            "line, so import theano fails with MissingSectionHeaderError",
        )
    if encoding == "utf-16":
        return DecodeProblem(
            "undecodable", True, 1,
            "the file is saved as UTF-16 (Notepad's \"Unicode\"); Theano reads it as %s text and import theano "
            "fails" % ("8-bit" if py2 else (
                "UTF-8" if locale and locale.lower().replace("_", "-") == "utf-8" else "locale")),
        )
    if py2:
        return None  # Python 2 reads bytes: no decoding step
    norm = (locale or "").lower().replace("_", "-")
    if encoding == "undecodable":
        line = (_first_line(text, lambda row: "\ufffd" in row)
                or _line_of_offset(text, int(fact.get("undecodable_offset", 0))))
        if norm in _GBK_FAMILY and fact.get("gbk_decodable"):
            return None
        if locale is not None:
            return DecodeProblem(
                "undecodable", True, line,
                "line %d is not UTF-8 (probably GBK/ANSI text); Python 3 reads .theanorc in %s, so import theano "
                "fails with UnicodeDecodeError" % (line, where),
            )
        if fact.get("gbk_decodable"):
            return DecodeProblem(
                "undecodable", False, line,
                "line %d is GBK/ANSI text, not UTF-8: it reads only where the Windows code page is GBK (Chinese "
                "Windows); anywhere else import theano fails with UnicodeDecodeError" % line,
            )
        return DecodeProblem(
            "undecodable", False, line,
            "line %d is neither UTF-8 nor GBK text; unless the Windows code page happens to decode it, import "
            "theano fails with UnicodeDecodeError" % line,
        )
    if any(ord(c) > 127 for c in text):
        line = _first_line(text, lambda row: any(ord(c) > 127 for c in row)) or 1
        if locale is None:
            bad_gbk = _first_line(text, _gbk_fails)
            if bad_gbk is not None:
                return DecodeProblem(
                    "undecodable", False, bad_gbk,
                    "line %d holds non-ASCII UTF-8 text; Python 3 on Windows reads .theanorc in the ANSI code page, "
                    "and on a Chinese Windows (GBK) this line makes import theano fail with UnicodeDecodeError"
                    % bad_gbk,
                )
            return DecodeProblem(
                "undecodable", False, line,
                "line %d holds non-ASCII UTF-8 text; Python 3 on Windows reads .theanorc in the ANSI code page, "
                "where it turns into other characters" % line,
            )
        if norm not in ("utf-8", "utf8"):
            try:
                text.encode("utf-8").decode(locale)
            except (UnicodeDecodeError, LookupError):
                bad = _first_line(text, lambda row: _fails_in(row, locale)) or line
                return DecodeProblem(
                    "undecodable", True, bad,
                    "line %d holds UTF-8 text that does not decode in %s: import theano fails with "
                    "UnicodeDecodeError" % (bad, where),
                )
    return None


def _fails_in(line: str, encoding: str) -> bool:
    try:
        line.encode("utf-8").decode(encoding)
        return False
    except (UnicodeDecodeError, LookupError):
        return True


def view_file(fact: Mapping[str, Any], record: Mapping[str, Any]) -> SourceFile:
    path = str(fact.get("path", ""))
    source = SourceFile(path=path, origin=str(fact.get("from", "default")), fact=fact, status="read")
    # Each state needs its fact recorded as such: a ticket that names a file without saying
    # whether it could be read says nothing about it (its text was not recorded).
    if fact.get("exists") is False or (fact.get("exists") is None and fact.get("is_symlink")):
        source.status = "missing"
        if fact.get("is_symlink"):
            source.reason = "a dangling symbolic link (to %s)" % fact.get("symlink_target", "?")
        elif fact.get("stat_error"):
            source.reason = "cannot be looked at (%s)" % fact["stat_error"]
        else:
            source.reason = "does not exist"
        return source
    if fact.get("kind") not in (None, "file"):
        source.status, source.reason = "not-a-file", "is a %s, not a file" % fact.get("kind")
        return source
    if fact.get("readable") is False:
        source.status = "unreadable"
        source.reason = "cannot be read (%s)" % (fact.get("read_error") or fact.get("error") or "permission denied")
        return source
    text = fact.get("text")
    if not isinstance(text, str):
        source.status, source.reason = "no-text", "its text was not recorded"
        return source
    dialect = dialect_for(machine.python_version_info(record))
    py2 = dialect == "py2"
    if fact.get("text_truncated"):
        source.truncated = True
        cut = max(text.rfind("\n"), text.rfind("\r"))
        text = text[: cut + 1] if cut >= 0 else ""  # the last line may be cut in half
    source.partial = fact.get("text_partial") is True
    source.decode = decode_problem(fact, text, machine.locale_encoding(record), py2)
    source.parsed = parse_text(text, dialect)
    return source


def view_files(record: Mapping[str, Any]) -> list[SourceFile]:
    files = (record.get("theano_config") or {}).get("files") or []
    return [view_file(f, record) for f in files if isinstance(f, Mapping)]
