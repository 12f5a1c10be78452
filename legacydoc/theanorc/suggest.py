"""Did-you-mean: which real option an unknown section/option or flag key was meant to be.

In order: the curated renames (rules/theano_schema/advice.toml: blog advice such as
``[cudnn] enable``), an option of the same name in another section, a section written in
the wrong case, the other name style (``a.b`` vs Theano-PyMC's ``a__b``), then the
closest spelling.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Optional, cast

from legacydoc.i18n import tr
from legacydoc.structs import struct
from legacydoc.theanorc.schema import Schema, canonical_name, load_advice, load_schema


@struct(frozen=True)
class Suggestion:
    """The real option a mistyped or misplaced one most likely meant."""

    option: Mapping[str, Any]  # the schema record meant
    why: str  # one clause explaining the real option
    value: Optional[str] = None  # the value to write, when it must change (True for true)
    how: str = "close"  # advice | moved | case | style | close | removed

    @property
    def canonical(self) -> str:
        return canonical_name(self.option)


def _advice_renames() -> dict[str, Mapping[str, Any]]:
    out = {}
    for rename in load_advice().get("rename", []):
        wrote = rename.get("wrote", [])
        for name in [wrote] if isinstance(wrote, str) else wrote:
            out[name.lower()] = rename
    return out


def removed_info(canonical: str) -> Optional[Mapping[str, Any]]:
    for entry in load_advice().get("removed", []):
        if entry.get("name") == canonical:
            return entry
    return None


def old_backend_only(canonical: str) -> bool:
    return canonical in load_advice().get("old_backend_only", [])


def removed_in(canonical: str, schema: Schema) -> Optional[str]:
    """'Theano 1.0' when an older release had this option and ``schema`` does not."""
    if schema.get(canonical) is not None:
        return None
    if schema.flavour == "theano-pymc" and load_schema("theano-1.0.5").get(canonical) is not None:
        return "Theano-PyMC 1.1"
    for older, when in (("theano-0.9.0", "Theano 1.0"), ("theano-0.8.2", "Theano 0.9")):
        if load_schema(older).get(canonical) is not None:
            return when
    return None


def map_value(value: str, rename: Mapping[str, Any]) -> Optional[str]:
    table = rename.get("values")
    if isinstance(table, str):
        table = load_advice().get(table, {})
    if isinstance(table, Mapping):
        mapped = table.get(value.strip())
        if mapped is not None and mapped != value:
            return str(mapped)
    return None


def _names(schema: Schema) -> list[str]:
    return [canonical_name(o) for o in schema.options]


def suggest_file(section: str, option: str, value: str, schema: Schema) -> Optional[Suggestion]:
    """For a config-file line Theano ignores: what it was meant to be."""
    option = option.lower()
    dotted = "%s.%s" % (section.lower(), option)
    rename = _advice_renames().get(dotted)
    meant = schema.get(rename["means"]) if rename is not None else None
    if rename is not None and meant is not None:
        return Suggestion(meant, tr(rename.get("why", "")), map_value(value, rename), "advice")
    removed = removed_info(dotted if section != "global" else option)
    replacement = schema.get(removed["replacement"]) if removed and removed.get("replacement") else None
    if removed and replacement is not None:
        return Suggestion(replacement, tr(removed.get("why", "")), None, "removed")
    # the other name style: [dnn.conv] on Theano-PyMC >= 1.0.12, [dnn__conv] on Theano
    other = section.replace(".", "__") if schema.dunder else section.replace("__", ".")
    styled = schema.file_option(other, option) if other != section else None
    if styled is not None:
        return Suggestion(styled, tr("this release spells the section [%s]") % other, None, "style")
    # the same option name in another section
    same = [o for o in schema.options if o["option"].lower() == option]
    if same:
        best = sorted(
            same, key=lambda o: -difflib.SequenceMatcher(None, o["section"].lower(), section.lower()).ratio())[0]
        how = "case" if best["section"].lower() == section.lower() else "moved"
        why = (tr("section names are case-sensitive") if how == "case"
               else tr("%s lives in [%s]") % (best["option"], best["section"]))
        return Suggestion(best, why, None, how)
    # The close matches below are drawn from the schema's own options, so the lookups
    # that turn them back into option records always find one.
    # a section in the wrong case with a close option
    for sec in {o["section"] for o in schema.options}:
        if sec.lower() == section.lower() and sec != section:
            close = difflib.get_close_matches(
                option, [o["option"].lower() for o in schema.options if o["section"] == sec], 1, 0.75)
            if close:
                return Suggestion(cast(dict[str, Any], schema.file_option(sec, close[0])),
                                  tr("section names are case-sensitive"), None, "case")
    # closest spelling, within the section first, then anywhere
    in_section = [o["option"].lower() for o in schema.options if o["section"] == section]
    close = difflib.get_close_matches(option, in_section, 1, 0.75)
    if close:
        return Suggestion(cast(dict[str, Any], schema.file_option(section, close[0])),
                          tr("closest option name in [%s]") % section, None, "close")
    wanted = option if section == "global" else dotted
    names = {n.lower(): n for n in _names(schema)}
    close = difflib.get_close_matches(wanted, list(names), 1, 0.8)
    if close:
        return Suggestion(cast(dict[str, Any], schema.get(names[close[0]])), tr("closest option name"), None, "close")
    return None


def suggest_flag(key: str, value: str, schema: Schema) -> Optional[Suggestion]:
    """For a THEANO_FLAGS key Theano does not recognise."""
    stripped = key.strip()
    unspaced = schema.flag_option(stripped) if stripped != key else None
    if unspaced is not None:
        return Suggestion(unspaced, tr("no spaces around '=' in THEANO_FLAGS"), None, "style")
    other = stripped.replace(".", "__") if schema.dunder else stripped.replace("__", ".")
    styled = schema.flag_option(other) if other != stripped else None
    if styled is not None:
        why = (
            tr("Theano-PyMC >= 1.0.12 names flags with double underscores") if schema.dunder
            else tr("this release names flags with dots")
        )
        return Suggestion(styled, why, None, "style")
    if stripped.lower().startswith("global.") or stripped.lower().startswith("global__"):
        rest = stripped[len("global."):] if stripped.lower().startswith("global.") else stripped[len("global__"):]
        found = schema.flag_option(rest) or next((o for o in schema.options if o["name"].lower() == rest.lower()), None)
        if found is not None:
            return Suggestion(found, tr("options of [global] have no section prefix in THEANO_FLAGS"), None, "style")
    for option in schema.options:
        if option["name"].lower() == stripped.lower():
            return Suggestion(option, tr("THEANO_FLAGS keys are case-sensitive"), None, "case")
    section, _, option_name = stripped.replace("__", ".").rpartition(".")
    hit = suggest_file(section or "global", option_name, value, schema)
    if hit is not None:
        return hit
    names = {o["name"].lower(): o for o in schema.options}
    close = difflib.get_close_matches(stripped.lower(), list(names), 1, 0.8)
    if close:
        return Suggestion(names[close[0]], tr("closest option name"), None, "close")
    return None
