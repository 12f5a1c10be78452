"""The effective config: every option's value as the installed Theano would see it, and
where that value came from (built-in default, which file and line, THEANO_FLAGS).

Precedence, as in Theano's ``fetch_val_for_key``: THEANO_FLAGS, then the config files
(all read into one ConfigParser, a later file overriding an earlier one), then the
default. A file value is interpolated like ConfigParser does (``%(USER)s``, ``%(PID)s``
...); when interpolation fails Theano falls back to the raw text, and so do we.

``effective_config(record)`` is pure: it reads the facts record only, so a facts file from
another machine gives the answers for that machine.
"""

from __future__ import annotations

import configparser
from collections import ChainMap
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc import readiness
from legacydoc.structs import field, struct
from legacydoc.theanorc import machine
from legacydoc.theanorc.defaults import computed_default, expanduser, warn_default
from legacydoc.theanorc.flags import FlagItem, ParsedFlags, parse_flags
from legacydoc.theanorc.parser import DEFAULT_SECTION, Entry, dialect_for
from legacydoc.theanorc.schema import (
    Release,
    Schema,
    canonical_name,
    load_schema,
    select_release,
)
from legacydoc.theanorc.setting import Origin, Setting
from legacydoc.theanorc.sources import FATAL_NAMES, SourceFile, view_files
from legacydoc.theanorc.validate import Check, check_value

# What the process id will be is not knowable from the facts.
PID_PLACEHOLDER = "<PID>"


@struct
class EffectiveConfig:
    """The configuration Theano ends up with: files, flags and defaults merged in its order."""

    release: Release
    schema: Schema
    files: list[SourceFile]
    flags: ParsedFlags
    settings: dict[str, Setting]
    unknown_flags: list[FlagItem]
    import_error: Optional[str] = None  # what makes import theano fail, first one only
    import_error_at: str = ""  # where: a file:line, THEANO_FLAGS or an option name
    import_error_type: str = ""  # the exception class Theano raises (ValueError, ParsingError...)
    interpolation: dict[str, str] = field(default_factory=dict)  # %(NAME)s values used
    dialect: str = "py3"

    def __getitem__(self, name: str) -> Setting:
        return self.settings[name]

    def get(self, name: str) -> Optional[Setting]:
        return self.settings.get(name)

    def user_settings(self) -> list[Setting]:
        return [s for s in self.settings.values() if not s.is_default]

    @property
    def gpu_backend(self) -> bool:
        """Whether import theano will try the GPU (theano/__init__.py's test)."""
        def starts(name: str) -> bool:
            setting = self.get(name)
            return bool(setting and isinstance(setting.value, str) and setting.value.startswith(("cuda", "opencl")))

        contexts = self.get("contexts")
        return starts("device") or starts("init_gpu_device") or bool(contexts and contexts.value)


# --- interpolation ------------------------------------------------------------------


def interpolation_defaults(record: Mapping[str, Any]) -> dict[str, str]:
    """The defaults Theano gives its ConfigParser: USER, LSCRATCH, TMPDIR, TEMP, TMP, PID.
    USER falls back to the home folder's name, as Theano does; variables the env probe
    did not keep are taken as unset, except TEMP/TMP on Windows, which always exist."""
    home = machine.home(record) or ""
    user = machine.env(record, "USER")
    if user is None:
        user = machine.pathmod(record).basename(home.rstrip("/\\")) if home else "<USER>"
    values = {"USER": user, "PID": PID_PLACEHOLDER}
    for name in ("LSCRATCH", "TMPDIR", "TEMP", "TMP"):
        value = machine.env(record, name)
        if value is None:
            value = "<%s>" % name if machine.is_windows(record) and name in ("TEMP", "TMP") else ""
        values[name] = value
    return values


def interpolate(
    value: str, section_values: Mapping[str, str], defaults: Mapping[str, str], section: str, option: str
) -> tuple[str, Optional[str]]:
    """(text Theano uses, why interpolation failed or None). The standard library's
    BasicInterpolation does the work; on InterpolationError Theano reads the raw text."""
    chain = ChainMap(dict(section_values), {k.lower(): v for k, v in defaults.items()})
    try:
        interpolation = configparser.BasicInterpolation()
        return interpolation.before_get(configparser.ConfigParser(), section, option, value, chain), None
    except configparser.InterpolationError as exc:
        return value, "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0])


# --- the model --------------------------------------------------------------------------


def _file_values(
    files: list[SourceFile],
) -> tuple[dict[str, dict[str, tuple[Entry, SourceFile]]], dict[tuple[str, str], list[Origin]]]:
    """Merged {section: {option: (entry, file)}} (a later file wins) and every place each
    (section, option) is set, in reading order."""
    merged: dict[str, dict[str, tuple[Entry, SourceFile]]] = {}
    places: dict[tuple[str, str], list[Origin]] = {}
    for source in files:
        if not source.read or source.parsed is None:
            continue
        for name, _line in source.parsed.sections:
            merged.setdefault(name, {})
        for entry in source.parsed.entries:
            if entry.section is None:
                continue
            merged.setdefault(entry.section, {})[entry.option] = (entry, source)
            places.setdefault((entry.section, entry.option), []).append(
                Origin("file", source.path, entry.line, entry.text, entry.value, entry.section, entry.raw_option)
            )
    return merged, places


def effective_config(record: Mapping[str, Any], release: Optional[Release] = None) -> EffectiveConfig:
    """Every option of the installed release (or of ``release``), its value and where it
    comes from."""
    release = release or select_release(record)
    schema = load_schema(release.schema_id)
    files = view_files(record)
    flags = parse_flags(machine.theano_flags(record) or "")
    defaults = interpolation_defaults(record)
    merged, places = _file_values(files)
    file_defaults = {k: e.value for k, (e, _s) in merged.get(DEFAULT_SECTION, {}).items()}
    config = EffectiveConfig(
        release=release,
        schema=schema,
        files=files,
        flags=flags,
        settings={},
        unknown_flags=[],
        interpolation=defaults,
        dialect=dialect_for(machine.python_version_info(record)),
    )
    flag_values = flags.values
    for option in schema.options:
        name = canonical_name(option)
        key = option["name"]
        section, opt = option["section"], option["option"].lower()
        others = list(places.get((section, opt), []))
        raw: Optional[str] = None
        note = ""
        if key in flag_values:
            item = flags.last_item(key)
            value: Optional[str] = flag_values[key]
            origin = Origin("THEANO_FLAGS", text=item.text if item else None, value=value, raw_option=key)
            others += [Origin("THEANO_FLAGS", text=i.text, value=i.value, raw_option=key)
                       for i in flags.items_for(key)[:-1]]
        elif section in merged and section != DEFAULT_SECTION and (opt in merged[section] or opt in file_defaults):
            entry, source = merged[section][opt] if opt in merged[section] else merged[DEFAULT_SECTION][opt]
            if opt not in merged[section]:
                note = "from the [DEFAULT] section"
            section_values = {k: e.value for k, (e, _s) in merged[section].items()}
            # one DEFAULT mapping: the file's [DEFAULT] lines override Theano's USER, PID...
            lookups = {**{k.lower(): v for k, v in defaults.items()}, **file_defaults}
            value, failed = interpolate(entry.value, section_values, lookups, section, opt)
            if failed:
                note = "interpolation failed (%s); Theano uses the text as written" % failed
            elif value != entry.value:
                raw = entry.value
            origin = Origin("file", source.path, entry.line, entry.text, entry.value, entry.section, entry.raw_option)
            others = [o for o in others if not (o.file == origin.file and o.line == origin.line)]
        else:
            origin = Origin("default")
            if "computed" in option:
                value, note = computed_default(name, option, record, config.settings)
            else:
                value = warn_default(option, config.settings) or option.get("default", "")
        check = _check(option, value, config.settings, record)
        if origin.source == "default" and not check.ok:
            # a built-in default is what Theano uses, even where its text would not pass the
            # filter (gpuarray.sync's default is the boolean False, not the string "False")
            check = Check(True, value)
        if check.ok and option.get("kind") == "path" and isinstance(value, str):
            check = Check(True, expanduser(record, value))
        config.settings[name] = Setting(name, key, option, value, origin, check, note, raw, others)
    known = set(schema.by_name)
    config.unknown_flags = [item for item in flags.items if item.key is not None and item.key not in known]
    _import_error(config, record)
    return config


def _check(
    option: Mapping[str, Any], value: Optional[str], settings: Mapping[str, Setting], record: Mapping[str, Any]
) -> Check:
    if value is None:
        return Check(True, None)
    if canonical_name(option) == "linker" and option.get("values_without_cxx"):
        cxx = settings.get("cxx")
        if (cxx is not None and cxx.value == "") or readiness.theano_cxx(record) == "":
            option = dict(option, values=option["values_without_cxx"])
    return check_value(option, value)


def _import_error(config: EffectiveConfig, record: Mapping[str, Any]) -> None:
    """The first thing that stops import theano, in the order Theano does things:
    THEANO_FLAGS is split, the files are read, each set option is filtered in the order
    the release registers them, and only then (theano.tensor.blas) is the blas.ldflags
    default computed."""
    if config.flags.error:
        config.import_error, config.import_error_at = "THEANO_FLAGS: %s" % config.flags.error, "THEANO_FLAGS"
        config.import_error_type = "ValueError"
        return
    for source in config.files:
        if source.read and source.fatal:
            config.import_error, config.import_error_at = "%s: %s" % (source.path, source.fatal), source.path
            if source.decode is not None and source.decode.fatal:
                bom = source.decode.kind == "bom"
                config.import_error_type = "MissingSectionHeaderError" if bom else "UnicodeDecodeError"
            elif source.parsed is not None and source.parsed.fatal is not None:
                config.import_error_type = FATAL_NAMES[source.parsed.fatal.kind].split(".")[-1]
            return
    for setting in config.settings.values():
        if not setting.ok and not setting.is_default:
            config.import_error = "%s: %s" % (setting.origin.label, setting.check.message)
            config.import_error_at = setting.origin.label
            config.import_error_type = "RuntimeError" if setting.option.get("kind") == "removed" else "ValueError"
            return
    if blas_default_fails(config, record):
        config.import_error = (
            "AttributeError: module 'numpy.distutils.__config__' has no attribute 'blas_opt_info' "
            "(computing the blas.ldflags default)"
        )
        config.import_error_at = "blas.ldflags"
        config.import_error_type = "AttributeError"


def blas_default_fails(config: EffectiveConfig, record: Mapping[str, Any]) -> bool:
    """numpy >= 1.22 wheels keep numpy.distutils.__config__ but drop blas_opt_info, and
    Theano's blas.ldflags default reads it at import unless blas.ldflags is set."""
    setting = config.get("blas.ldflags")
    if setting is None or not setting.is_default:
        return False
    blas = machine.numpy_blas(record)
    return blas["distutils_config"] is True and blas["blas_opt_info"] is False
