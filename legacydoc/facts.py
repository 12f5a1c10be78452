"""The facts record: a plain nested mapping, saved as TOML, replayable anywhere.

Layout: ``schema``, ``legacydoc_version``, ``collected_at``, ``redacted`` (whether
:mod:`legacydoc.redact` replaced user, host and home; absent in older files), then one
table per area (:data:`TABLES`). TOML has no null, so absent facts are absent keys: :func:`prune`
drops None values before saving, which is what makes a save/load round trip lossless.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from legacydoc import __version__, locate
from legacydoc.areas import TABLE_NAMES
from legacydoc.errors import UsageError
from legacydoc.factschema.kinds import is_int
from legacydoc.i18n import N_, tr

SCHEMA = 1
# A real record is 5-50 KiB. The cap keeps check under 100 MB of memory on any record it
# accepts (parsed TOML takes about 20 times its size); a report zip's facts.toml too.
MAX_FILE_BYTES = 2 * 1024 * 1024
TABLES: tuple[str, ...] = TABLE_NAMES
_MISSING = object()


class NotAFactsFile(UsageError):
    """A TOML file that is no facts record at all (a folder scan skips it; named, it is an error)."""


def prune(value: Any) -> Any:
    """Drop None (TOML cannot hold it), turn tuples into lists and keys into strings."""
    if isinstance(value, Mapping):
        return {str(k): prune(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [prune(v) for v in value if v is not None]
    if isinstance(value, Path):
        return str(value)
    return value


def new_record(tables: Mapping[str, Any], collected_at: Optional[_dt.datetime] = None) -> dict[str, Any]:
    """A complete record: header fields first, then every table (empty when not probed)."""
    when = collected_at or _dt.datetime.now(_dt.timezone.utc)
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "legacydoc_version": __version__,
        "collected_at": when.replace(microsecond=0).isoformat(),
        # False until legacydoc.redact replaces user, host and home by placeholders.
        "redacted": False,
    }
    for name in TABLES:
        record[name] = prune(tables.get(name, {}))
    return record


def dumps(record: Mapping[str, Any]) -> str:
    import tomli_w

    return tomli_w.dumps(prune(record))


def save(record: Mapping[str, Any], path: Path) -> None:
    """Write the record through the one safe writer (legacydoc.safe_io)."""
    from legacydoc.safe_io import replace_file

    replace_file(Path(path), dumps(record).encode("utf-8"))


def loads(text: str, source: str = "<facts>") -> dict[str, Any]:
    """Parse and check a facts record; every problem is a one-line UsageError."""
    try:
        data = locate.loads_toml(text)
    except locate.TomlError as exc:
        raise UsageError(tr("%s: not a TOML facts file (%s)") % (source, exc)) from None
    except RecursionError:
        raise UsageError(tr("%s: not a facts file: nested too deeply to read") % source) from None
    schema = data.get("schema", _MISSING)
    if schema is _MISSING:
        raise NotAFactsFile("%s: not a legacydoc facts file (no 'schema' key)" % source)
    if isinstance(schema, bool) or schema != SCHEMA:  # true == 1 in Python, not in a schema
        raise UsageError(_schema_message(source, schema, data.get("legacydoc_version", "an unknown version")))
    if not isinstance(data.get("redacted", False), bool):
        raise UsageError(tr("%s: 'redacted' must be true or false") % source)
    for name in TABLES:
        if name in data and not isinstance(data[name], dict):
            raise UsageError(tr("%s: '%s' must be a table, found %s") % (source, name, type(data[name]).__name__))
    check_shape(data, source)
    for name in TABLES:
        data.setdefault(name, {})
    return data


def check_shape(record: Mapping[str, Any], source: str) -> None:
    """The rules see a record that matches the schema of facts, or none at all: a value of
    the wrong kind (a number where a list belongs) is refused with its dotted name."""
    from legacydoc.factschema import validate

    problems = validate(record)
    if problems:
        more = " (and %d more)" % (len(problems) - 1) if len(problems) > 1 else ""
        raise UsageError(tr("%s: not a valid facts record: %s%s") % (source, problems[0], more))


def _schema_message(source: str, schema: Any, writer: Any) -> str:
    """Which version wrote the file, and what to do about it."""
    head = "%s: facts schema %r (written by legacydoc %s)" % (source, schema, writer)
    if is_int(schema) and schema > SCHEMA:
        return head + " is newer than this legacydoc's schema %d: upgrade legacydoc to read it" % SCHEMA
    if is_int(schema) and schema < SCHEMA:
        return head + " is older than this legacydoc's schema %d: probe that machine again with this version" % SCHEMA
    return head + "; this legacydoc reads schema %d" % SCHEMA


def load(path: Path) -> dict[str, Any]:
    from legacydoc.safe_io import read_regular

    path = Path(path)
    raw = read_regular(path, MAX_FILE_BYTES, N_("facts file"))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(tr("%s: not a TOML facts file (not UTF-8 at byte %d)") % (path, exc.start)) from None
    return loads(text, source=str(path))


def get(record: Mapping[str, Any], dotted: str, default: Any = None) -> Any:
    """``get(record, "gpu.nvidia_smi.rc")``: walk a dotted name; default when absent."""
    node: Any = record
    for part in dotted.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return default
    return node


def text(value: Any) -> Optional[str]:
    """``value`` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def effective_setting(record: Mapping[str, Any], name: str) -> Optional[Mapping[str, Any]]:
    """The Theano config model's answer for option ``name`` ({value, source, ...} at
    config.effective.<name>), if it was computed."""
    setting = get(record, "config.effective." + name)
    return setting if isinstance(setting, Mapping) else None


def user_setting(record: Mapping[str, Any], name: str) -> Optional[str]:
    """The value of an option the user set (a config file or THEANO_FLAGS), as the config
    model computed it; None when it is at its default or was not computed."""
    setting = effective_setting(record, name)
    if setting is not None and setting.get("source", "default") != "default":
        return text(setting.get("value"))
    return None


def explicit_compiledir(record: Mapping[str, Any]) -> Optional[str]:
    """compiledir set outright (as the probe found it, else as the config model computed it):
    Theano then compiles there, and base_compiledir and compiledir_format play no part."""
    return text(get(record, "theano_config.compiledir.compiledir_setting")) or user_setting(record, "compiledir")


def env_variable(record: Mapping[str, Any], name: str) -> tuple[bool, Optional[str]]:
    """(known, value) of an environment variable: known and None when the whole environment
    was recorded without it (what the probe writes); unknown when the environment was not
    recorded, or only in part (env.partial: a report that quotes a few variables)."""
    variables = get(record, "env.variables")
    if not isinstance(variables, Mapping):
        return False, None
    if name in variables:
        value = variables[name]
        return True, value if isinstance(value, str) else None
    return get(record, "env.partial") is not True, None
