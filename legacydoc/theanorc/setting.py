"""One option's effective value and where it came from: what the config model computes
per option (legacydoc.theanorc.effective) and what its defaults and checks read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.structs import field, struct
from legacydoc.theanorc.validate import Check


@struct
class Origin:
    """One place that sets an option."""

    source: str  # "default" | "file" | "THEANO_FLAGS"
    file: Optional[str] = None
    line: Optional[int] = None
    text: Optional[str] = None  # the line or flag item as written
    value: Optional[str] = None  # its value text, before interpolation
    section: Optional[str] = None  # as written in the file
    raw_option: Optional[str] = None  # as written in the file or flags

    @property
    def label(self) -> str:
        if self.source == "file":
            return "%s:%s" % (self.file, self.line)
        return self.source


@struct
class Setting:
    """One option as Theano will see it: its value, where it came from, and whether it is valid."""

    name: str  # dotted name ("blas.ldflags"), the same in every release
    key: str  # this release's THEANO_FLAGS key ("blas__ldflags" in Theano-PyMC 1.1)
    option: Mapping[str, Any]  # the schema record
    value: Optional[str]  # the text Theano filters; None: a computed default we cannot know
    origin: Origin
    check: Check
    note: str = ""  # how a default is computed, interpolation notes
    raw: Optional[str] = None  # the text before interpolation, when interpolation changed it
    others: list[Origin] = field(default_factory=list)  # lower-precedence places setting it

    @property
    def ok(self) -> bool:
        return self.check.ok

    @property
    def typed(self) -> Any:
        return self.check.typed

    @property
    def is_default(self) -> bool:
        return self.origin.source == "default"
