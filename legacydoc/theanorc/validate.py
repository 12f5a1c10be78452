"""Does the installed Theano accept this text for this option? The rules of each
parameter class, driven by the schema record (rules/theano_schema/*.toml).

The real filters are the reference: tools/gen_theano_schema.py asks each one about a
battery of values and tests/test_theanorc_validate.py checks that :func:`check_value`
agrees on every answer. Python's own ``int()``/``float()`` are used because Theano's
IntParam/FloatParam are those casts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

from legacydoc.structs import struct

# What Theano's BoolParam accepts, exactly (case matters: TRUE is rejected).
BOOL_TRUE = ("True", "true", "1")
BOOL_FALSE = ("False", "false", "0")


@struct(frozen=True)
class Check:
    """Whether a Theano release accepts one option's value, and the value it ends up with."""

    ok: bool
    typed: Any = None  # the value Theano ends up with (bool, int, float, str, None)
    message: str = ""  # why it is rejected, in our words
    old_backend: bool = False  # device=gpu* on a release without the old backend


def _bad(option: Mapping[str, Any], text: str, why: str) -> Check:
    shown = text.replace("\n", "\\n")  # a value glued from continuation lines
    return Check(False, None, '%s = "%s" is rejected: %s' % (option["name"], shown, why))


def _number_constraints(option: Mapping[str, Any], value: Union[int, float], text: str) -> Check:
    allowed = option.get("int_in")
    if allowed is not None and value not in allowed:
        return _bad(option, text, "allowed values are %s" % ", ".join(str(a) for a in allowed))
    # written as "not >=" so that nan fails, as it does in Theano's lambdas
    if "min" in option and not value >= option["min"]:
        return _bad(option, text, "must be >= %s" % option["min"])
    if "min_exclusive" in option and not value > option["min_exclusive"]:
        return _bad(option, text, "must be > %s" % option["min_exclusive"])
    return Check(True, value)


def _check_enum(option: Mapping[str, Any], text: str) -> Check:
    value = option.get("aliases", {}).get(text, text)
    values = option.get("values", [])
    if value in values:
        return Check(True, value)
    return _bad(option, text, "valid values are %s (exact case)" % ", ".join(values))


def _check_bool(option: Mapping[str, Any], text: str) -> Check:
    if text in BOOL_TRUE:
        value = True
    elif text in BOOL_FALSE:
        value = False
    else:
        return _bad(option, text, "a boolean must be one of True, true, 1, False, false, 0")
    if option.get("must_be_true") and not value:
        return _bad(option, text, "this deprecated option must stay True")
    return Check(True, value)


def _check_str(option: Mapping[str, Any], text: str) -> Check:
    check = option.get("check")
    if check == "int_or_random" and text != "random":
        try:
            int(text)
        except ValueError:
            return _bad(option, text, 'must be an integer or "random"')
    if check == "colon_list":
        allowed = option.get("list_values", [])
        wrong = [part for part in text.split(":") if part not in allowed]
        if wrong:
            return _bad(option, text, "%r is not one of %s" % (wrong[0], ", ".join(a for a in allowed if a)))
    return Check(True, text)


def _check_device(option: Mapping[str, Any], text: str) -> Check:
    prefixes = option.get("prefixes", ["cuda", "opencl"])
    if text == option.get("default") or text.startswith(tuple(prefixes)):
        return Check(True, text)
    if text.startswith("gpu"):
        check = _bad(option, text, "the old GPU backend (device=gpu*) was removed in Theano 0.10 and 1.0; use cuda*")
        return Check(False, None, check.message, old_backend=True)
    allowed = ['"%s"' % option.get("default", "")] + ['"%s*"' % p for p in prefixes]
    return _bad(option, text, "must be %s" % " or ".join(allowed))


def _check_contexts(option: Mapping[str, Any], text: str) -> Check:
    if text == "":
        return Check(True, text)
    for part in text.split(";"):
        pieces = part.split("->")
        if len(pieces) != 2:
            return _bad(option, text, "malformed context map entry %r (want name->device)" % part)
        if pieces[0] == "cpu" or pieces[0].startswith(("cuda", "opencl")):
            return _bad(option, text, "%r cannot be a context name" % pieces[0])
    return Check(True, text)


def _check_listed(option: Mapping[str, Any], text: str) -> Check:
    values = option.get("values", [])
    if text not in values:
        return _bad(option, text, "valid values are %s (exact case)" % ", ".join(values))
    if option["kind"] == "vm_lazy":
        return Check(True, {"None": None, "True": True, "False": False}.get(text, text))
    return Check(True, text)


def _check_nvcc_flags(option: Mapping[str, Any], text: str) -> Check:
    flags = [flag for flag in text.split(" ") if flag]
    if any(not flag.startswith("-") for flag in flags):
        return _bad(option, text, "every flag must start with '-' (write --machine=64, not --machine 64)")
    return Check(True, " ".join(flags))


def check_value(option: Mapping[str, Any], text: str) -> Check:
    """Would the release's filter for ``option`` accept ``text`` (a string, exactly as
    Theano receives it: from a file after interpolation, or from THEANO_FLAGS)?"""
    kind = option.get("kind", "str")
    if kind == "enum":
        return _check_enum(option, text)
    if kind == "bool":
        return _check_bool(option, text)
    if kind in ("int", "float"):
        cast = int if kind == "int" else float
        try:
            value = cast(text)
        except ValueError:
            return _bad(option, text, "not a%s %s" % (
                "n" if kind == "int" else "", "integer" if kind == "int" else "number"))
        return _number_constraints(option, value, text)
    if kind == "str":
        return _check_str(option, text)
    if kind == "device":
        return _check_device(option, text)
    if kind == "contexts":
        return _check_contexts(option, text)
    if kind in ("mode", "vm_lazy"):
        return _check_listed(option, text)
    if kind == "removed":
        if text:
            return _bad(option, text, "this option was removed; setting it makes import theano fail")
        return Check(True, text)
    if kind == "nvcc_flags":
        return _check_nvcc_flags(option, text)
    return Check(True, text)  # path and anything unknown: Theano takes the text as is
