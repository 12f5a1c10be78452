"""The support desk's overview: many reports and facts files at once.

``legacydoc triage DIR|ZIP|TOML ...`` diagnoses every record it finds, exactly as
``check --facts`` would, and counts them by root cause and by the versions a desk sorts
tickets by (GPU, driver, CUDA, Python, Theano). A file that cannot be read (not a record,
a hostile zip, a broken TOML) is refused on its own, with its one-line reason, and the rest
go on. A value the record does not hold is counted as "unknown", never as absent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from legacydoc import i18n
from legacydoc.errors import UsageError
from legacydoc.facts import NotAFactsFile, get
from legacydoc.i18n import N_, tr
from legacydoc.structs import field, struct

# What a desk sorts by, in the order they are printed (titles shown through tr).
DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("root_cause", N_("Root cause (first error or warning)")),
    ("gpu", "GPU"),
    ("driver", N_("Driver")),
    ("cuda", N_("CUDA toolkit (nvcc)")),
    ("python", "Python"),
    ("theano", "Theano"),
)
SUFFIXES = (".zip", ".toml")
MAX_FILES = 10_000  # a desk folder, not a file system walk without end
UNKNOWN = N_("unknown")
NO_SUCH_FILE = N_("no such file or folder")


@struct
class Entry:
    """One record read and diagnosed."""

    path: str
    errors: int
    warnings: int
    values: dict[str, str]  # dimension -> value (English: the JSON, the CSV and the counts)
    shown: dict[str, str] = field(default_factory=dict)  # dimension -> value in the reader's language


@struct
class Refused:
    path: str
    why: str
    shown: str = ""  # why in the reader's language, where it differs


@struct
class Triage:
    entries: list[Entry] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    skipped: int = 0  # files beyond MAX_FILES
    other_files: int = 0  # TOML files in a searched folder that are no facts record

    def shown_values(self) -> dict[tuple[str, str], str]:
        """(dimension, value) -> the value in the reader's language."""
        return {(name, value): e.shown.get(name, value) for e in self.entries for name, value in e.values.items()}

    def counts(self) -> dict[str, list[tuple[str, int]]]:
        """Per dimension, (value, count) most frequent first, ties by value."""
        out: dict[str, list[tuple[str, int]]] = {}
        for name, _title in DIMENSIONS:
            tally = Counter(e.values[name] for e in self.entries)
            out[name] = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))
        return out


def collect(paths: Sequence[Path]) -> tuple[list[Path], set[Path], list[Refused], int]:
    """The files to read: each file named, and the .zip/.toml files under each folder
    (sorted, symlinks not followed), with the set of those found by searching a folder.
    Names that do not exist are refused."""
    files: list[Path] = []
    searched: set[Path] = set()
    refused: list[Refused] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*")
                           if p.suffix.lower() in SUFFIXES and p.is_file() and not p.is_symlink())
            files.extend(found)
            searched.update(found)
        elif path.exists():
            files.append(path)
        else:
            refused.append(Refused(str(path), NO_SUCH_FILE, tr(NO_SUCH_FILE)))
    unique = list(dict.fromkeys(files))
    return unique[:MAX_FILES], searched - set(paths), refused, max(0, len(unique) - MAX_FILES)


Said = tuple[str, str]  # a value in English and in the reader's language


def _said(template: str, *values: Any) -> Said:
    return (template % values, tr(template) % values) if values else (template, tr(template))


def _plain(value: Any) -> Said:
    return str(value), str(value)


def _major_minor(version: Any) -> Said:
    parts = str(version).split(".")
    return _plain(".".join(parts[:2])) if parts and parts[0].isdigit() else _said(UNKNOWN)


def _gpu(facts: Mapping[str, Any]) -> Said:
    devices = get(facts, "gpu.devices")
    if isinstance(devices, list) and devices:
        first = devices[0] if isinstance(devices[0], Mapping) else {}
        name = _plain(first["name"]) if first.get("name") else _said(N_("GPU of unrecorded name"))
        if len(devices) == 1:
            return name
        more = len(devices) - 1
        return "%s (+%d more)" % (name[0], more), tr("%s (+%d more)") % (name[1], more)
    if get(facts, "gpu.nvidia_smi.found") is False:
        return _said(N_("no NVIDIA driver"))
    if isinstance(devices, list) and get(facts, "gpu.nvidia_smi.rc") == 0:
        return _said(N_("none found"))
    return _said(UNKNOWN)


def _cuda(facts: Mapping[str, Any]) -> Said:
    if get(facts, "cuda.nvcc.found") is True:
        version = get(facts, "cuda.nvcc.version")
        return _plain(version) if version else _said(N_("nvcc of unrecorded version"))
    if get(facts, "cuda.nvcc.found") is False:
        return _said(N_("no nvcc"))
    return _said(UNKNOWN)


def _theano(facts: Mapping[str, Any]) -> Said:
    flavour = get(facts, "derived.theano.flavour")
    if flavour == "none":
        return _said(N_("not installed"))
    if flavour not in ("theano", "theano-pymc"):
        return _said(UNKNOWN)
    name = "Theano-PyMC" if flavour == "theano-pymc" else "Theano"
    version = get(facts, "derived.theano.version")
    return _plain("%s %s" % (name, version)) if version else _said(N_("%s (release not recorded)"), name)


def _root_cause(result: Any) -> Said:
    for diag in result.diagnoses:
        if diag.severity in ("error", "warning"):
            return _plain("%s %s" % (diag.id, diag.name))
    return _said(N_("none (no error or warning)"))


def _values(result: Any) -> dict[str, Said]:
    facts = result.facts
    python = get(facts, "python.version")
    driver = get(facts, "gpu.driver_version")
    return {
        "root_cause": _root_cause(result),
        "gpu": _gpu(facts),
        "driver": _plain(driver) if driver else _said(UNKNOWN),
        "cuda": _cuda(facts),
        "python": _major_minor(python) if python else _said(UNKNOWN),
        "theano": _theano(facts),
    }


def values_of(result: Any) -> dict[str, str]:
    """Each dimension's value, in English (as the JSON and the CSV have it)."""
    return {name: said[0] for name, said in _values(result).items()}


def read_one(path: Path, rules: Sequence[Any], redactor_for: Any) -> Entry:
    """Diagnose one record as ``check --facts`` does (a UsageError names what is wrong)."""
    from legacydoc.diagnose import diagnose_file

    result = diagnose_file(path, rules, redactor_for)
    values = _values(result)
    return Entry(str(path), result.count("error"), result.count("warning"),
                 {name: said[0] for name, said in values.items()}, {name: said[1] for name, said in values.items()})


def triage(paths: Sequence[Path], rules: Sequence[Any], redactor_for: Any,
           progress: Optional[Any] = None) -> Triage:
    files, searched, refused, skipped = collect(paths)
    out = Triage(refused=refused, skipped=skipped)
    for number, path in enumerate(files, 1):
        if progress is not None:
            progress(number, len(files), path)
        try:
            out.entries.append(read_one(path, rules, redactor_for))
        except NotAFactsFile as exc:
            if path in searched:  # a ticket's notes beside its record, say: not a record
                out.other_files += 1
            else:
                out.refused.append(_refused(path, exc, rules, redactor_for))
        except UsageError as exc:
            out.refused.append(_refused(path, exc, rules, redactor_for))
        except (OSError, ValueError, RecursionError, MemoryError) as exc:
            # One hostile file never stops the desk: it is refused with its reason.
            out.refused.append(Refused(str(path), "%s: %s" % (type(exc).__name__, str(exc)[:200])))
    return out


def _refused(path: Path, exc: Exception, rules: Sequence[Any], redactor_for: Any) -> Refused:
    """The refusal in English (the JSON and CSV are data) and as the reader was told it:
    the file is read again in English to get the same message in English."""
    shown = _reason(str(exc), path)
    if i18n.current() == "en":
        return Refused(str(path), shown)
    english = shown
    with i18n.speaking("en"):
        try:
            read_one(path, rules, redactor_for)
        except UsageError as again:  # NotAFactsFile is one
            english = _reason(str(again), path)
    return Refused(str(path), english, shown)


def _reason(message: str, path: Path) -> str:
    """The error without the path it starts with (the path is shown beside it); in Chinese
    the path is followed by a full-width colon."""
    for prefix in ("%s: " % path, "%s：" % path):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message
