"""The option schema of each Theano release (rules/theano_schema/*.toml) and which one
applies to a facts record.

A schema lists every option in the order the release registers them (which is also the
order Theano validates them at import, so the first bad value in that order is the one
that stops ``import theano``). Each option carries ``name`` (its THEANO_FLAGS key in that
release), ``section``/``option`` (where a config file holds it) and the validation data
:mod:`legacydoc.theanorc.validate` reads.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from packaging.version import Version

from legacydoc import locate
from legacydoc.probes.target_script import normalise
from legacydoc.readiness import OLD_BACKEND_GONE, release_label_unreliable
from legacydoc.structs import field, struct
from legacydoc.versions import parse_version

DEFAULT_SCHEMA = "theano-1.0.5"
SCHEMA_IDS = ("theano-0.8.2", "theano-0.9.0", "theano-1.0.5", "theano-pymc-1.1.2")


def schema_dir() -> Path:
    return locate.theano_schema_dir()


def _read_toml(path: Path) -> dict[str, Any]:
    return locate.read_toml(path, "Theano option schema")


@struct(frozen=True)
class Schema:
    """The options one Theano release knows, with their defaults and filters."""

    id: str
    package: str
    flavour: str
    version: str
    name_style: str  # "dot" (a.b) or "dunder" (a__b, Theano-PyMC >= 1.0.12)
    source: str
    options: tuple[dict[str, Any], ...]
    by_name: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_canonical: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_place: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    @property
    def dunder(self) -> bool:
        return self.name_style == "dunder"

    def file_option(self, section: str, option: str) -> Optional[dict[str, Any]]:
        """The option a config file line sets: sections match exactly, option names
        without case (ConfigParser lower-cases them)."""
        return self.by_place.get((section, option.lower()))

    def flag_option(self, key: str) -> Optional[dict[str, Any]]:
        """The option a THEANO_FLAGS key sets (exact, case-sensitive)."""
        return self.by_name.get(key)

    def get(self, canonical: str) -> Optional[dict[str, Any]]:
        """An option by its dotted name ("blas.ldflags"), whatever this release calls it."""
        return self.by_canonical.get(canonical)


def canonical_name(option: Mapping[str, Any]) -> str:
    return option.get("canonical") or option["name"]


_FORMAT_KEY = re.compile(r"%\((\w+)\)s")


def is_compiledir_format(option: Mapping[str, Any], text: str) -> bool:
    """A compiledir_format whose %(key)s names are all Theano's own format keys (the list
    its doc gives: hostname, short_platform, ...). ConfigParser cannot fill them, so Theano
    reads the line raw and formats it itself: the failed interpolation is expected."""
    if canonical_name(option) != "compiledir_format":
        return False
    listed = re.search(r"Available keys: ([\w, ]+)\.", str(option.get("doc", "")))
    keys = _FORMAT_KEY.findall(text)
    if listed is None or not keys:
        return False
    return set(keys) <= {k.strip() for k in listed.group(1).split(",")}


@functools.lru_cache(maxsize=None)
def load_schema(schema_id: str) -> Schema:
    data = _read_toml(schema_dir() / (schema_id + ".toml"))
    options = tuple(data.get("option", []))
    schema = Schema(
        id=schema_id,
        package=data["package"],
        flavour=data["flavour"],
        version=data["version"],
        name_style=data.get("name_style", "dot"),
        source=data.get("source", ""),
        options=options,
    )
    for opt in options:
        schema.by_name[opt["name"]] = opt
        schema.by_canonical[canonical_name(opt)] = opt
        schema.by_place[(opt["section"], opt["option"].lower())] = opt
    return schema


@functools.lru_cache(maxsize=None)
def load_advice() -> dict[str, Any]:
    """Curated knowledge: renamed/never-existing names people copy from blogs."""
    return _read_toml(schema_dir() / "advice.toml")


# --- which release is installed ---------------------------------------------------------


@struct(frozen=True)
class Release:
    """The Theano release a record holds, and the schema chosen for it."""

    flavour: str  # "theano" or "theano-pymc"
    version: Optional[str]  # the installed version; None when none is installed
    schema_id: str
    reason: str  # one line: why this schema
    # Installed, but the record does not say which release (a ticket, a partial replay):
    # only what holds for every candidate release may be claimed (CANDIDATE_SCHEMAS).
    version_unknown: bool = False

    @property
    def label(self) -> str:
        name = "Theano-PyMC" if self.flavour == "theano-pymc" else "Theano"
        if self.version:
            return "%s %s" % (name, self.version)
        return "%s (release not recorded)" % name if self.version_unknown else "%s (not installed)" % name


# The schemas of the releases that still have the old back-end (device=gpu).
OLD_BACKEND_SCHEMAS = frozenset({"theano-0.8.2", "theano-0.9.0"})
# The releases an installed Theano of unknown version may be, oldest first, newest last.
CANDIDATE_SCHEMAS: dict[str, tuple[str, ...]] = {
    "theano": ("theano-0.8.2", "theano-0.9.0", "theano-1.0.5"),
    "theano-pymc": ("theano-1.0.5", "theano-pymc-1.1.2"),
}


def _version_of(table: Any) -> Optional[str]:
    if isinstance(table, Mapping) and isinstance(table.get("version"), str):
        return table["version"]
    return None


def schema_for(flavour: str, version: Optional[str]) -> str:
    parsed = parse_version(version) if version else None
    if parsed is None:
        return DEFAULT_SCHEMA
    if flavour == "theano-pymc":
        # Dotted names became double underscores in Theano-PyMC 1.0.12.
        return "theano-pymc-1.1.2" if parsed >= Version("1.0.12") else "theano-1.0.5"
    if parsed < Version("0.9"):
        return "theano-0.8.2"
    if parsed < Version(OLD_BACKEND_GONE):
        return "theano-0.9.0"
    # 0.10.0 development builds and betas: 1.0's configuration (no device=gpu, no lib.cnmem)
    return "theano-1.0.5"


def select_release(record: Mapping[str, Any]) -> Release:
    """The release whose rules apply: the distribution that owns the ``theano`` package
    Python would import, else the only one installed, else Theano 1.0.5."""
    found = record.get("packages")
    packages: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    theano_v = _version_of(packages.get("theano"))
    pymc_v = _version_of(packages.get("theano-pymc"))
    claimed = [normalise(str(n)) for n in packages.get("theano_claimed_by") or [] if isinstance(n, str)]
    text_v = packages.get("theano_version_text") if isinstance(packages.get("theano_version_text"), str) else None
    if pymc_v and (not theano_v or ("theano-pymc" in claimed and "theano" not in claimed)):
        flavour, version, why = "theano-pymc", pymc_v, "installed Theano-PyMC %s" % pymc_v
    elif theano_v and release_label_unreliable(record, theano_v):
        return Release("theano", None, DEFAULT_SCHEMA,
                       "Theano labelled %s is a git build, and master kept that label after the release "
                       "(with and without the old back-end): only what every candidate release would say "
                       "is claimed" % theano_v, version_unknown=True)
    elif theano_v:
        flavour, version, why = "theano", theano_v, "installed Theano %s" % theano_v
        if pymc_v:
            why += " (Theano-PyMC %s is installed too; Theano owns the theano folder)" % pymc_v
    elif text_v:
        parsed = parse_version(text_v)
        # Only Theano-PyMC has 1.1.x; a 1.0.x text cannot tell the two apart.
        flavour = "theano-pymc" if parsed is not None and parsed >= Version("1.1") else "theano"
        version, why = text_v, "theano %s found on sys.path without package metadata" % text_v
    elif isinstance(packages.get("theano-pymc"), Mapping) or isinstance(packages.get("theano"), Mapping):
        flavour = "theano" if isinstance(packages.get("theano"), Mapping) else "theano-pymc"
        return Release(flavour, None, DEFAULT_SCHEMA,
                       "%s is installed but its release was not recorded: only what every release "
                       "would say is claimed" % ("Theano" if flavour == "theano" else "Theano-PyMC"),
                       version_unknown=True)
    else:
        return Release("theano", None, DEFAULT_SCHEMA,
                       "no Theano installed in the target interpreter: Theano 1.0.5 rules assumed")
    return Release(flavour, version, schema_for(flavour, version), why)
