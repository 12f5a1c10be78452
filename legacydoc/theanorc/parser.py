"""Config-file text -> sections, options and problems, line by line, exactly as the
``configparser`` Theano uses would read it, but without stopping at the first error.

Theano builds ``ConfigParser`` (Python 3) or ``SafeConfigParser`` (Python 2) with the
library's defaults, so the rules are the standard library's:

* Python 3 (``py3``; ``py310`` for 3.10+, where a section name may contain ``]``):
  full-line comments start with ``#`` or ``;`` (after optional whitespace);
  there are NO inline comments, so ``floatX = float32  # x`` keeps ``  # x`` in the value;
  a line indented deeper than the option line continues its value; section names are
  case-sensitive, option names are lower-cased; ``=`` or ``:`` separates an option from
  its value; strict mode makes a repeated section or option in one file an error;
  options before any ``[section]`` are an error; a line that is none of these is a
  parsing error reported after the whole file is read.
* Python 2: comments only when ``#``/``;`` is the first character (or a ``rem`` line),
  ``value ; comment`` is cut at `` ;``, ``""`` means empty, any indented line continues,
  repeats are allowed (the later one wins).

tests/test_theanorc_parser.py checks this module against the running Python's own
configparser on the whole corpus.
"""

from __future__ import annotations

import re
from typing import Optional

from legacydoc.structs import field, struct

DEFAULT_SECTION = "DEFAULT"
# The standard library's patterns (configparser.RawConfigParser.SECTCRE/_OPT_TMPL; the
# Python 2 module's SECTCRE/OPTCRE), restated.
_SECTION_PY3 = re.compile(r"\[(?P<header>[^]]+)\]")  # Python 3.0 - 3.9
_SECTION_PY310 = re.compile(r"\[(?P<header>.+)\]")  # Python 3.10+: ']' allowed inside
_OPTION_PY3 = re.compile(r"(?P<option>.*?)\s*(?P<vi>[=:])\s*(?P<value>.*)$")
_SECTION_PY2 = re.compile(r"\[(?P<header>[^]]+)\]")
# Python 2 parses bytes: only ASCII whitespace counts (a UTF-8 no-break space does not).
_OPTION_PY2 = re.compile(r"(?P<option>[^:=\s][^:=]*)\s*(?P<vi>[:=])\s*(?P<value>.*)$", re.ASCII)
_WS2 = " \t\n\r\x0b\x0c"
_NONSPACE = re.compile(r"\S")


@struct
class Entry:
    """One ``option = value`` line (plus its continuation lines)."""

    section: Optional[str]  # as written; None before any [section]
    option: str  # lower-cased, as ConfigParser stores it
    raw_option: str  # as written
    value_lines: list[str]
    line: int  # 1-based
    text: str  # the line as written, without its line break
    end_line: int = 0
    py2: bool = False  # Python 2 joins continuation lines without a final rstrip()

    @property
    def value(self) -> str:
        """The value ConfigParser stores (before interpolation)."""
        joined = "\n".join(self.value_lines)
        return joined if self.py2 else joined.rstrip()

    @property
    def continued(self) -> bool:
        return self.end_line > self.line


@struct
class Issue:
    """A line configparser refuses. ``fatal_now``: raised at that line (duplicates,
    missing header); otherwise collected and raised at the end of the file."""

    kind: str  # missing-section-header | duplicate-section | duplicate-option | parse-error
    line: int
    text: str
    section: Optional[str] = None
    option: Optional[str] = None
    first_line: Optional[int] = None  # where the duplicated section/option first appeared
    fatal_now: bool = False


@struct
class ParsedText:
    """A .theanorc read the way Theano's configparser reads it."""

    entries: list[Entry] = field(default_factory=list)
    sections: list[tuple[str, int]] = field(default_factory=list)  # (name, line), in order
    issues: list[Issue] = field(default_factory=list)
    dialect: str = "py3"

    @property
    def fatal(self) -> Optional[Issue]:
        """What reading this file raises first (None: it reads fine)."""
        for issue in self.issues:
            if issue.fatal_now:
                return issue
        return self.issues[0] if self.issues else None

    def values(self) -> dict[str, dict[str, Entry]]:
        """{section: {option: entry}} as a non-strict parser ends up with: a later line wins.
        Lines before the first section header are left out (no parser keeps them)."""
        out: dict[str, dict[str, Entry]] = {}
        for entry in self.entries:
            if entry.section is not None:
                out.setdefault(entry.section, {})[entry.option] = entry
        return out

    def section_names(self) -> list[str]:
        return [name for name, _ in self.sections]


def split_lines(text: str) -> list[str]:
    """Lines as Python's text files give them: \\r\\n, \\r and \\n all end a line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


DIALECTS = ("py2", "py3", "py310")


def dialect_for(version_info: Optional[tuple[int, ...]]) -> str:
    """py2, py3 (3.0-3.9) or py310 (3.10+, whose section headers may contain ']').
    Unknown: py3, the Pythons Theano was made for."""
    if not version_info:
        return "py3"
    if version_info[0] == 2:
        return "py2"
    return "py310" if tuple(version_info[:2]) >= (3, 10) else "py3"


def parse_text(text: str, dialect: str = "py3") -> ParsedText:
    """Parse a config file's text with the rules of ``dialect``. Never raises."""
    lines = split_lines(text)
    if dialect == "py2":
        return _parse_py2(lines)
    return _parse_py3(lines, _SECTION_PY310 if dialect == "py310" else _SECTION_PY3, dialect)


def _parse_py3(lines: list[str], section_re: "re.Pattern[str]", dialect: str) -> ParsedText:
    result = ParsedText(dialect=dialect)
    seen_sections: dict[str, int] = {}
    seen_options: dict[tuple[str, str], int] = {}
    section: Optional[str] = None
    in_section = False  # a header (or an orphan line we keep going after) was seen
    current: Optional[Entry] = None
    indent_level = 0
    for number, line in enumerate(lines, start=1):
        is_comment = line.strip().startswith(("#", ";"))
        value = "" if is_comment else line.strip()
        if not value:
            # a blank line inside a value is kept (configparser's empty_lines_in_values);
            # the final rstrip drops the trailing ones
            if not is_comment and current is not None and current.option and current.section is not None:
                current.value_lines.append("")
            continue
        match = _NONSPACE.search(line)
        indent = match.start() if match else 0
        # an option named "" never takes continuation lines (configparser tests `optname`)
        if current is not None and current.option and indent > indent_level:
            current.value_lines.append(value)
            current.end_line = number
            continue
        indent_level = indent
        header = section_re.match(value)
        if header:
            name = header.group("header")
            if name in seen_sections and name != DEFAULT_SECTION:
                result.issues.append(
                    Issue("duplicate-section", number, line, section=name, first_line=seen_sections[name],
                          fatal_now=True)
                )
            else:
                seen_sections.setdefault(name, number)
            result.sections.append((name, number))
            section, in_section, current = name, True, None
            continue
        option = _OPTION_PY3.match(value)
        if not in_section:
            result.issues.append(Issue("missing-section-header", number, line, fatal_now=True))
            if option:  # kept so the findings can say where it belongs
                current = Entry(None, option.group("option").rstrip().lower(), option.group("option").rstrip(),
                                [option.group("value").strip()], number, line, number)
                result.entries.append(current)
            continue
        if not option:
            result.issues.append(Issue("parse-error", number, line, section=section))
            continue  # configparser keeps the previous option open for continuations
        raw_name = option.group("option").rstrip()
        name = raw_name.lower()
        if not raw_name:
            result.issues.append(Issue("parse-error", number, line, section=section))
        key = (section or "", name)
        if key in seen_options:
            result.issues.append(
                Issue("duplicate-option", number, line, section=section, option=name, first_line=seen_options[key],
                      fatal_now=True)
            )
        else:
            seen_options[key] = number
        current = Entry(section, name, raw_name, [option.group("value").strip()], number, line, number)
        result.entries.append(current)
    for entry in result.entries:
        entry.end_line = max(entry.end_line, entry.line)
    return result


def _parse_py2(lines: list[str]) -> ParsedText:
    result = ParsedText(dialect="py2")
    section: Optional[str] = None
    current: Optional[Entry] = None
    for number, line in enumerate(lines, start=1):
        if line.strip(_WS2) == "" or line[0] in "#;":
            continue
        first_word = line.strip(_WS2).split(" ", 1)[0].split("\t", 1)[0]
        if first_word.lower() == "rem" and line[0] in "rR":
            continue  # a DOS-style "REM" comment line
        if line[0] in _WS2 and section is not None and current is not None:
            value = line.strip(_WS2)
            if value:
                current.value_lines.append(value)
                current.end_line = number
            continue
        header = _SECTION_PY2.match(line)
        if header:
            name = header.group("header")
            result.sections.append((name, number))
            section, current = name, None
            continue
        if section is None:
            result.issues.append(Issue("missing-section-header", number, line, fatal_now=True))
            return result  # Python 2 raises here and reads nothing more
        option = _OPTION_PY2.match(line)
        if not option:
            result.issues.append(Issue("parse-error", number, line, section=section))
            continue
        raw_name = option.group("option").rstrip(_WS2)
        value = option.group("value")
        if ";" in value:
            pos = value.find(";")
            if pos > 0 and value[pos - 1] in _WS2:
                value = value[:pos]  # Python 2 cuts "value ; comment" (but not "# comment")
        value = value.strip(_WS2)
        if value == '""':
            value = ""
        current = Entry(section, raw_name.lower(), raw_name, [value], number, line, number, py2=True)
        result.entries.append(current)
    return result
