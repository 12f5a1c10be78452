"""What every check shares: the Finding record, the finding kinds, the context a check
runs in, and the small text helpers that build messages and corrected lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.i18n import tr
from legacydoc.structs import struct
from legacydoc.theanorc.effective import EffectiveConfig, Setting
from legacydoc.theanorc.schema import canonical_name, load_schema
from legacydoc.theanorc.suggest import load_advice

KINDS: dict[str, str] = {
    "unknown-option": "an option or section Theano does not have: ignored without a word",
    "removed-option": "an option an older Theano had: ignored by this release",
    "dotted-key-in-global": "a dotted name under [global]: ignored (the part before the last dot is the section)",
    "invalid-value": "a value the option's filter rejects: import theano fails",
    "inline-comment": "a '# comment' or '; comment' after a value is part of the value on Python 3",
    "quoted-value": "quotes are kept as part of the value",
    "old-gpu-backend": "device = gpu*: the old backend (removed in Theano 0.10 and 1.0)",
    "option-no-effect": "an option that only configured the old device=gpu backend, used with device=cuda",
    "force-device-no-effect": "force_device has no effect in Theano 1.0",
    "gpu-device-name": "device = cuda<not a number> (or a malformed opencl name): pygpu cannot parse it",
    "cuda-without-pygpu": "device = cuda* but pygpu is not usable: Theano runs on the CPU",
    "cuda-without-gpu": "device = cuda* but no working NVIDIA GPU was found",
    "cuda-without-compiler": "device = cuda* but no C++ compiler: the gpuarray backend refuses to start",
    "float64-on-gpu": "floatX = float64 with a GPU device",
    "cuda-root-bin": "cuda.root points at the toolkit's bin folder",
    "cuda-root-missing": "cuda.root points at a folder that does not exist",
    "dnn-path-missing": "a [dnn] path that does not exist",
    "blas-ldflags-needed": "blas.ldflags unset with a numpy whose build info Theano cannot read: import fails",
    "unread-theanorc": "a .theanorc Theano will not read (project or current folder)",
    "theanorc-hides-home": "THEANORC is set, so ~/.theanorc is not read",
    "theanorc-file-missing": "THEANORC names a file that does not exist",
    "unreadable-theanorc": "a config file Theano skips because it cannot open it",
    "flags-syntax": "a THEANO_FLAGS item Theano reads differently than written",
    "conflicting-values": "the same option set to different values in several places",
    "duplicate-option": "an option twice in one section: import theano fails (Python 3)",
    "duplicate-section": "a section twice in one file: import theano fails (Python 3)",
    "missing-section-header": "options before any [section]: import theano fails",
    "parse-error": "a line that is neither a section, an option nor a comment: import theano fails",
    "continuation-line": "an indented line that ConfigParser glues onto the previous value",
    "bom": "a UTF-8 byte-order mark: import theano fails",
    "undecodable": "text that does not decode in the locale Theano reads the file with",
    "file-truncated": "a config file too big to be recorded whole",
    "file-partial": "a config file of which the record holds only an excerpt",
    "default-section": "a [DEFAULT] section: its options apply to every section",
    "interpolation": "a %(NAME)s reference ConfigParser cannot resolve: used as written",
    "placeholder-value": "an install guide's placeholder ([Python directory], <path to ...>) left in a value",
    "cxxflags-other-python": "gcc.cxxflags links another Python version's library (-lpython34 on Python 2.7)",
}


@struct
class Finding:
    """One problem the config model found, with the line that fixes it."""

    kind: str
    severity: str  # error | warning | info
    message: str
    fix_line: str = ""
    file: Optional[str] = None  # a path, "THEANO_FLAGS", or None
    line: Optional[int] = None
    section: Optional[str] = None
    option: Optional[str] = None
    value: Optional[str] = None
    did_you_mean: Optional[str] = None  # a dotted option name
    import_fails: bool = False

    def to_fact(self) -> dict[str, Any]:
        """TOML-ready: no None values."""
        out: dict[str, Any] = {
            "kind": self.kind, "severity": self.severity, "message": self.message, "fix_line": self.fix_line}
        for key in ("file", "line", "section", "option", "value", "did_you_mean"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["import_fails"] = self.import_fails
        return out


# --- small text helpers ------------------------------------------------------------------


def config_lines(section: str, option: str, value: str) -> str:
    return ("[%s]\n%s = %s" % (section, option, value)).rstrip()


def _place(file: Optional[str], line: Optional[int]) -> str:
    return tr("%s line %d") % (file, line) if line else str(file)


def _quote(text: str) -> str:
    return "`%s`" % text.strip()


def _where_option(option: Mapping[str, Any], schema_dunder: bool) -> str:
    return "[%s] %s" % (option["section"], option["option"])


def _fix_for(setting: Setting, value: str) -> str:
    """The corrected line in the form the user used (config file or THEANO_FLAGS)."""
    if setting.origin.source == "THEANO_FLAGS":
        return "%s=%s" % (setting.key, value)
    option = setting.option
    raw = setting.origin.raw_option or option["option"]
    return config_lines(option["section"], raw if raw.lower() == option["option"].lower() else option["option"], value)


def _fix_for_option(option: Mapping[str, Any], value: str) -> str:
    return config_lines(option["section"], option["option"], value)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _strip_inline_comment(value: str) -> Optional[str]:
    """The value before a whitespace-preceded '#' or ';' (None: there is none)."""
    for index, char in enumerate(value):
        if char in "#;" and index > 0 and value[index - 1].isspace():
            return value[:index].rstrip()
    return None


def _unquoted(value: str) -> Optional[str]:
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return None


def _repair_value(option: Mapping[str, Any], value: str) -> Optional[str]:
    """A valid value close to an invalid one: the right case of an enum or mode name,
    a bool spelling Theano accepts, the gpu -> cuda rename."""
    from legacydoc.theanorc.validate import check_value

    candidates = []
    kind = option.get("kind")
    stripped = value.strip()
    if stripped != value:
        candidates.append(stripped)
    if kind in ("enum", "mode", "vm_lazy"):
        candidates += [v for v in option.get("values", []) if v.lower() == stripped.lower()]
        candidates += [v for v in option.get("values", [])
                       if v.lower().replace("_", "") == stripped.lower().replace("_", "")]
    if kind == "bool" or (kind == "enum" and "True" in option.get("values", [])):
        mapped = load_advice().get("bool_words", {}).get(stripped)
        if mapped:
            candidates.append(mapped)
    if kind == "device":
        lowered = stripped.lower()
        candidates.append(lowered)
        if lowered.startswith("gpu"):
            candidates.append("cuda" + lowered[3:])
    for candidate in candidates:
        if check_value(option, candidate).ok:
            return candidate
    return None


class Context:
    """What every check needs: the record, its effective config, and the list the
    findings go to."""

    def __init__(self, record: Mapping[str, Any], config: EffectiveConfig) -> None:
        self.record = record
        self.config = config
        self.schema = config.schema
        self.py3 = config.dialect != "py2"
        self.out: list[Finding] = []
        self.release_name = config.release.label if config.release.version else "Theano %s" % self.schema.version

    def add(self, kind: str, severity: str, message: str, fix_line: str = "", **fields: Any) -> None:
        self.out.append(Finding(kind, severity, message, fix_line, **fields))

    def _written(self, section: str, option: str) -> str:
        return "[%s] %s" % (section, option)

    def _by_canonical_ci(self, name: str) -> Optional[Mapping[str, Any]]:
        found = self.schema.get(name)
        if found is not None:
            return found
        lowered = name.lower()
        for option in self.schema.options:
            if canonical_name(option).lower() == lowered:
                return option
        return None

    def _canonical_ci(self, name: str) -> str:
        """The spelling of an old option name as its release had it (Theano-PyMC's lower
        case section names match the dotted ones of Theano without case)."""
        for schema_id in ("theano-0.9.0", "theano-0.8.2", "theano-1.0.5"):
            for option in load_schema(schema_id).options:
                if canonical_name(option).lower() == name.lower():
                    return canonical_name(option)
        return name

    def _checked(self, setting: Setting, candidate: str) -> Optional[str]:
        from legacydoc.theanorc.validate import check_value

        if check_value(setting.option, candidate).ok:
            return candidate
        return _repair_value(setting.option, candidate)

    def _device_startswith(self, prefixes: tuple[str, ...]) -> bool:
        device = self.config.get("device")
        return bool(device and isinstance(device.value, str) and device.value.startswith(prefixes))

    def _where_setting(self, setting: Setting) -> str:
        if setting.origin.source == "file":
            return "%s: %s" % (_place(setting.origin.file, setting.origin.line), _quote(setting.origin.text or ""))
        if setting.origin.source == "THEANO_FLAGS":
            return "THEANO_FLAGS item %s" % _quote(setting.origin.text or "")
        return "%s (default: %s)" % (setting.name, setting.note or "computed")

    def _fields(self, setting: Setting) -> dict[str, Any]:
        return dict(file=setting.origin.file if setting.origin.source == "file" else setting.origin.source,
                    line=setting.origin.line, section=setting.option["section"], option=setting.option["option"],
                    value=setting.value)

    def _fix_anywhere(self, setting: Setting, value: str) -> str:
        if setting.is_default:
            # the default came from an environment variable: set the option instead
            return _fix_for_option(setting.option, value)
        return _fix_for(setting, value)
