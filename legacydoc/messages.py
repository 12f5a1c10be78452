"""The error catalogue: every message legacydoc recognises in a log, as data
(rules/messages/*.toml).

Each ``[[message]]`` has an ``id``, a ``pattern`` (a Python regex, searched with
re.MULTILINE; named groups capture the variable parts), a real ``example`` it must match,
the ``tool`` and ``releases`` that print it, the ``source`` line that raises it, what it
``means``, its ``causes`` in order (each ``{ cause, text, rules }``), what ``tells_apart``
those causes, the ``fixes``, public ``reports`` that quote it, and ``rules``: the rules the
message alone is evidence for (the rule fires on it unless the facts contradict it), and
``shows``: what the message proves about the machine where the record is silent (SHOWS).
``informational = true`` marks a message healthy runs print too (a start-up banner, a
compile lock taken over): ``check --log`` never lists it as a failure left unexplained.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from legacydoc import locate
from legacydoc.errors import UsageError
from legacydoc.structs import field, struct

REQUIRED = ("id", "pattern", "example", "tool", "source", "meaning", "causes")
OPTIONAL = ("releases", "tells_apart", "fixes", "reports", "rules", "within", "note", "shows", "informational")
# What a message can prove about the machine it was printed on. Only the module that prints
# it decides: theano.gpuarray's messages exist only when that back-end was chosen, and
# "pygpu was configured but could not be imported" means `import pygpu` failed there.
SHOWS = {
    "gpuarray-backend": "Theano ran with the new GPU back-end (theano.gpuarray, pygpu)",
    "old-backend": "Theano ran with the old GPU back-end (theano.sandbox.cuda, device=gpu*)",
    "pygpu-import-failed": "`import pygpu` failed in the interpreter that printed the log",
    # Printed by init_dev after its pygpu/libgpuarray version checks and pygpu.init()
    # (Theano rel-0.9.0 .. rel-1.0.5 theano/gpuarray/__init__.py).
    "pygpu-context-created": "pygpu passed that Theano's version checks and opened a GPU context",
    "old-backend-removed": "the Theano that printed it no longer has the old back-end (0.10 and later)",
    "no-gxx": "the Theano that printed it found no C++ compiler",
}
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class CatalogueError(UsageError):
    """A catalogue file that cannot be used: one line naming the file and the message."""


@struct(frozen=True)
class Cause:
    """One possible cause of a message, and the rules that decide it."""

    cause: str  # a short name ("driver-too-old-for-cuda")
    text: str
    rules: tuple[str, ...] = ()


@struct(frozen=True)
class Message:
    """A catalogued error message: how to recognise it and what it means."""

    id: str
    pattern: "re.Pattern[str]"
    example: str
    tool: str
    source: str
    meaning: str
    causes: tuple[Cause, ...]
    releases: str = ""
    tells_apart: tuple[str, ...] = ()
    fixes: tuple[str, ...] = ()
    reports: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()  # what the message alone is evidence for
    within: tuple[str, ...] = ()  # messages this one is usually wrapped in (the umbrellas)
    shows: tuple[str, ...] = ()  # what the message proves about the machine (SHOWS)
    informational: bool = False  # healthy runs print it too: evidence, never a failure to explain
    origin: str = field(default="", compare=False)

    def all_rules(self) -> list[str]:
        """Every rule the message points at: its evidence first, then its causes'."""
        out = list(self.rules)
        for cause in self.causes:
            out.extend(r for r in cause.rules if r not in out)
        return out


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise CatalogueError("%s: '%s' must be a string or a list of strings" % (where, key))


def message_from_table(table: Any, origin: str) -> Message:
    if not isinstance(table, Mapping):
        raise CatalogueError("%s: each [[message]] must be a table" % origin)
    where = "%s: message %s" % (origin, table.get("id", "<no id>"))
    unknown = set(table) - set(REQUIRED) - set(OPTIONAL)
    if unknown:
        raise CatalogueError("%s: unknown key '%s'" % (where, sorted(unknown)[0]))
    for key in REQUIRED:
        if key not in table:
            raise CatalogueError("%s: missing key '%s'" % (where, key))
    for key in ("id", "pattern", "example", "tool", "source", "meaning"):
        if not isinstance(table[key], str) or not table[key].strip():
            raise CatalogueError("%s: '%s' must be a non-empty string" % (where, key))
    if not _ID.match(table["id"]):
        raise CatalogueError("%s: id must be lower-case words joined by '-'" % where)
    try:
        pattern = re.compile(table["pattern"], re.MULTILINE)
    except re.error as exc:
        raise CatalogueError("%s: bad pattern (%s)" % (where, exc)) from None
    if not pattern.search(table["example"]):
        raise CatalogueError("%s: the pattern does not match its own example" % where)
    causes = []
    if not isinstance(table["causes"], list) or not table["causes"]:
        raise CatalogueError("%s: 'causes' must be a non-empty list" % where)
    for entry in table["causes"]:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("text"), str):
            raise CatalogueError("%s: each cause is a table with 'text' (and 'cause', 'rules')" % where)
        causes.append(Cause(str(entry.get("cause", "")), entry["text"],
                            _strings(entry.get("rules", []), "rules", where)))
    shows = _strings(table.get("shows", []), "shows", where)
    for name in shows:
        if name not in SHOWS:
            raise CatalogueError("%s: 'shows' has unknown '%s' (known: %s)" % (where, name, ", ".join(sorted(SHOWS))))
    informational = table.get("informational", False)
    if not isinstance(informational, bool):
        raise CatalogueError("%s: 'informational' must be true or false" % where)
    return Message(
        id=table["id"],
        pattern=pattern,
        example=table["example"],
        tool=table["tool"],
        source=table["source"],
        meaning=table["meaning"],
        causes=tuple(causes),
        releases=str(table.get("releases", "")),
        tells_apart=_strings(table.get("tells_apart", []), "tells_apart", where),
        fixes=_strings(table.get("fixes", []), "fixes", where),
        reports=_strings(table.get("reports", []), "reports", where),
        rules=_strings(table.get("rules", []), "rules", where),
        within=_strings(table.get("within", []), "within", where),
        shows=shows,
        informational=informational,
        origin=origin,
    )


def load_catalogue(directory: Optional[Path] = None) -> list[Message]:
    directory = directory or locate.rules_dir() / "messages"
    messages: list[Message] = []
    seen: dict[str, str] = {}
    for path in sorted(Path(directory).glob("*.toml")):
        data = locate.read_toml(path, "message catalogue", CatalogueError)
        unknown = set(data) - {"message"}
        if unknown:
            raise CatalogueError("%s: unknown top-level key '%s'" % (path, sorted(unknown)[0]))
        for table in data.get("message", []):
            message = message_from_table(table, str(path))
            if message.id in seen:
                raise CatalogueError("%s: message %s: duplicate id (also in %s)" % (path, message.id, seen[message.id]))
            seen[message.id] = str(path)
            messages.append(message)
    return messages


@functools.lru_cache(maxsize=1)
def catalogue() -> tuple[Message, ...]:
    """The built-in catalogue, loaded once."""
    return tuple(load_catalogue())


def by_id(messages: Sequence[Message]) -> dict[str, Message]:
    return {m.id: m for m in messages}


def shown_by_log(record: Mapping[str, Any]) -> dict[str, str]:
    """What the messages found in the record's log prove (SHOWS name -> message id)."""
    ids = record.get("log", {}).get("ids") if isinstance(record.get("log"), Mapping) else None
    if not isinstance(ids, list):
        return {}
    known = by_id(catalogue())
    out: dict[str, str] = {}
    for message_id in ids:
        message = known.get(str(message_id))
        if message is not None:
            for name in message.shows:
                out.setdefault(name, message.id)
    return out
