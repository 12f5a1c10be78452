"""Checks on the values Theano will use: what a file line or THEANO_FLAGS item really
sets, values the filters reject or misread, and the same option set in several places."""

from __future__ import annotations

import re
from typing import Optional

from legacydoc.i18n import tr
from legacydoc.theanorc.checks.base import (
    Context,
    _fix_for,
    _fix_for_option,
    _place,
    _quote,
    _repair_value,
    _strip_inline_comment,
    _unquoted,
    _where_option,
)
from legacydoc.theanorc.effective import Setting
from legacydoc.theanorc.parser import Entry
from legacydoc.theanorc.schema import is_compiledir_format
from legacydoc.theanorc.suggest import (
    old_backend_only,
    removed_in,
    removed_info,
    suggest_file,
    suggest_flag,
)


def value_problems(ctx: Context, setting: Setting, entry: Optional[Entry] = None) -> None:
    value = setting.value or ""
    origin = setting.origin
    in_file = origin.source == "file"
    where = "%s: %s" % (_place(origin.file, origin.line), _quote(origin.text or "")) if in_file else (
        "THEANO_FLAGS item %s" % _quote(origin.text or "%s=%s" % (setting.key, value)))
    fields = dict(file=origin.file if in_file else "THEANO_FLAGS", line=origin.line, section=setting.option["section"],
                  option=origin.raw_option or setting.option["option"], value=value)
    comment_free = _strip_inline_comment(origin.value or "") if in_file and ctx.py3 else None
    unquoted = _unquoted(value)
    if comment_free is not None:
        fixed = ctx._checked(setting, comment_free)
        ctx.add(
            "inline-comment", "error" if not setting.ok else "warning",
            tr("%s: on Python 3 a comment after a value is part of the value, so %s is %r%s. Put the comment on a "
            "line of its own.") % (where, setting.name, value,
                                   " and import theano fails" if not setting.ok else ", not %r" % comment_free),
            _fix_for(setting, fixed if fixed is not None else comment_free), import_fails=not setting.ok, **fields,
        )
        return
    if unquoted is not None and in_file:
        fixed = ctx._checked(setting, unquoted)
        ctx.add(
            "quoted-value", "error" if not setting.ok else "warning",
            tr("%s: quotes are not removed in a .theanorc, so %s is %s%s. Write the value without quotes.") % (
                where, setting.name, value, " and import theano fails" if not setting.ok else ""),
            _fix_for(setting, fixed if fixed is not None else unquoted), import_fails=not setting.ok, **fields,
        )
        return
    if not setting.ok:
        if setting.check.old_backend:
            fixed = _repair_value(setting.option, value) or "cuda"
            ctx.add(
                "old-gpu-backend", "error",
                tr("%s: device=%s selects the old GPU backend, which was removed in Theano 0.10 (its betas) and 1.0; "
                "import theano fails with \"You are tring to use the old GPU back-end\". The GPU is device=cuda "
                "(cuda0, cuda1... for a given card) with pygpu installed.") % (where, value),
                _fix_for(setting, fixed), import_fails=True, **fields,
            )
            return
        fixed = _repair_value(setting.option, value)
        ctx.add(
            "invalid-value", "error",
            tr("%s: %s; import theano fails with ValueError.%s") % (
                where, setting.check.message,
                " Values are case-sensitive." if fixed and fixed.lower() == value.lower() else ""),
            _fix_for(setting, fixed) if fixed is not None else "", import_fails=True, **fields,
        )
        return
    # valid values that still do not do what people expect
    name = setting.name
    modern = ctx.schema.id in ("theano-1.0.5", "theano-pymc-1.1.2")
    if name == "device" and isinstance(setting.typed, str) and setting.typed.startswith("gpu") and not modern:
        if ctx.schema.id == "theano-0.9.0":
            ctx.add(
                "old-gpu-backend", "warning",
                tr("%s: device=%s uses the old GPU backend, deprecated in Theano 0.9 and removed from 0.10 on; "
                "switch to device=cuda (the gpuarray backend, needs pygpu).") % (where, value),
                _fix_for(setting, "cuda" + value[3:]), **fields,
            )
    if name == "force_device" and setting.typed is True and modern:
        ctx.add(
            "force-device-no-effect", "warning",
            tr("%s: force_device has no effect in %s: when the GPU cannot be initialised Theano logs \"Could not "
            "initialize pygpu, support disabled\" and carries on on the CPU. Check theano.config.device or "
            "theano.gpuarray.pygpu_activated in your script instead, and delete the line.") % (where, ctx.release_name),
            "", **fields,
        )
    if old_backend_only(name) and not modern and ctx._device_startswith(("cuda", "opencl")):
        hit = suggest_file(setting.option["section"], setting.option["option"], value, ctx.schema)
        ctx.add(
            "option-no-effect", "warning",
            tr("%s: %s only configures the old device=gpu backend; with device=%s it does nothing.%s") % (
                where, name, ctx.config["device"].value,
                tr(" Use %s instead.") % _where_option(hit.option, ctx.schema.dunder)
                if hit and hit.how == "advice" else ""),
            _fix_for_option(hit.option, value) if hit and hit.how == "advice" else "", **fields,
        )


def _forward_slashes(path: str) -> str:
    """A Windows path as THEANO_FLAGS keeps it: each run of backslashes one '/', except
    that a network path (\\\\server\\share) starts with '//'."""
    unc = path.startswith("\\\\")
    slashed = re.sub(r"\\+", "/", path)
    return "/" + slashed if unc else slashed


def check_flags(ctx: Context) -> None:
    flags = ctx.config.flags
    if not flags.raw:
        return
    if flags.error:
        ctx.add(
            "flags-syntax", "error",
            tr("THEANO_FLAGS=%s cannot be split (%s): an unclosed quote or a trailing backslash makes import theano "
            "fail. Quote whole values only, e.g. gcc.cxxflags=\"-O3,-g\".") % (flags.raw, flags.error),
            "THEANO_FLAGS=%s" % flags.raw.replace('"', "").replace("'", "").rstrip("\\"), file="THEANO_FLAGS",
            import_fails=True,
        )
        return
    if flags.comment_dropped:
        ctx.add(
            "flags-syntax", "warning",
            tr("THEANO_FLAGS: '#' starts a comment in Theano's parser, so %r is ignored; THEANO_FLAGS cannot hold "
            "comments.") % flags.comment_dropped,
            "THEANO_FLAGS=%s" % ",".join(i.text for i in flags.items), file="THEANO_FLAGS",
        )
    for key, typed, received in flags.backslashes_lost:
        ctx.add(
            "flags-syntax", "warning",
            tr("THEANO_FLAGS: %s=%s arrives as %s=%s: Theano's parser removes unquoted backslashes. Write the path "
            "with forward slashes.") % (key, typed, key, received),
            "%s=%s" % (key, _forward_slashes(typed)), file="THEANO_FLAGS", option=key, value=received,
        )
    for item in flags.dropped:
        words = item.text.split(None, 1)
        fix = "%s=%s" % (words[0], words[1]) if len(words) == 2 and ctx.schema.flag_option(words[0]) else ""
        ctx.add(
            "flags-syntax", "warning",
            tr("THEANO_FLAGS item %r has no '=', so Theano drops it (\"Config key '%s' has no value, ignoring "
               "it\").") % (
                item.text, item.text),
            fix, file="THEANO_FLAGS", option=item.text,
        )
    for item in ctx.config.unknown_flags:
        unknown_flag(ctx, item.key or "", item.value or "", item.text)
    for setting in ctx.config.settings.values():
        if setting.origin.source != "THEANO_FLAGS":
            continue
        value = setting.value or ""
        if value != value.strip() and not setting.ok and _repair_value(setting.option, value.strip()) is not None:
            ctx.add(
                "flags-syntax", "error",
                tr("THEANO_FLAGS item %s: the space after '=' is part of the value, so %s is %r and import theano "
                "fails. Write no spaces around '='.") % (_quote(setting.origin.text or ""), setting.key, value),
                "%s=%s" % (setting.key, _repair_value(setting.option, value.strip())), file="THEANO_FLAGS",
                option=setting.key, value=value, import_fails=True,
            )
            continue
        value_problems(ctx, setting)


def unknown_flag(ctx: Context, key: str, value: str, text: str) -> None:
    hit = suggest_flag(key, value, ctx.schema)
    warned = tr("Theano warns \"Theano does not recognise this flag: %s\" and ignores it") % key
    if hit is not None and hit.how in ("style", "case") or key != key.strip():
        fixed_value = (hit.value if hit else None) or value.strip()
        target = hit.option["name"] if hit else key.strip()
        ctx.add(
            "flags-syntax", "warning",
            "THEANO_FLAGS item %r: %s (%s)." % (text, warned, hit.why if hit else "no spaces around '='"),
            "%s=%s" % (target, fixed_value), file="THEANO_FLAGS", option=key, value=value,
            did_you_mean=hit.canonical if hit else None,
        )
        return
    gone = removed_in(key.replace("__", "."), ctx.schema)
    if gone:
        info = removed_info(key.replace("__", ".")) or {}
        ctx.add(
            "removed-option", "warning",
            tr("THEANO_FLAGS item %r: %s was removed in %s%s; %s.") % (
                text, key, gone, " (%s)" % info["why"] if info.get("why") else "", warned),
            "%s=%s" % (hit.option["name"], hit.value or value) if hit else "", file="THEANO_FLAGS", option=key,
            value=value, did_you_mean=hit.canonical if hit else None,
        )
        return
    ctx.add(
        "unknown-option", "warning",
        "THEANO_FLAGS item %r: %s.%s" % (text, warned, " The flag is %s%s." % (
            hit.option["name"], " (%s)" % hit.why if hit.why else "") if hit else ""),
        "%s=%s" % (hit.option["name"], hit.value or value) if hit else "", file="THEANO_FLAGS", option=key,
        value=value, did_you_mean=hit.canonical if hit else None,
    )


def check_conflicts(ctx: Context) -> None:
    for setting in ctx.config.settings.values():
        if setting.is_default or not setting.others:
            continue
        others = [o for o in setting.others if (o.value or "").strip() != (setting.origin.value or "").strip()]
        if ctx.py3:  # the same file twice is a duplicate-option error, reported as such
            others = [o for o in others if not (o.source == "file" and o.file == setting.origin.file)]
        if not others:
            continue
        places = ", ".join("%s (%s)" % (o.label, o.value) for o in others)
        if setting.origin.source == "THEANO_FLAGS":
            because = ("a later THEANO_FLAGS item overrides an earlier one"
                       if all(o.source == "THEANO_FLAGS" for o in others)
                       else "THEANO_FLAGS overrides the config files")
        else:
            because = ("a later file overrides an earlier one" if ctx.py3
                       else "a later line or file overrides an earlier one")
        ctx.add(
            "conflicting-values", "info",
            tr("%s is set in several places: %s; %s (%s) wins because %s. Keep one setting so the files say "
               "what Theano does.") % (setting.name, places, setting.origin.label, setting.value, because),
            _fix_for(setting, setting.origin.value or ""), file=setting.origin.file if setting.origin.source == "file"
            else "THEANO_FLAGS", line=setting.origin.line, section=setting.option["section"],
            option=setting.option["option"], value=setting.value,
        )


def check_interpolation(ctx: Context) -> None:
    for setting in ctx.config.settings.values():
        if setting.is_default or not setting.value:
            continue
        # $ORIGIN is the linker's own rpath token, meant to stay as written
        shell = re.search(r"%[A-Za-z_][A-Za-z0-9_]*%|\$\{?(?!ORIGIN\b)[A-Za-z_][A-Za-z0-9_]*\}?", setting.value)
        if shell and setting.option.get("kind") in ("str", "path"):
            ctx.add(
                "interpolation", "warning",
                tr("%s: Theano does not expand environment variables such as %s; the text is used as written (only a "
                "leading ~ is expanded, and only in the compile folder options). Write the full path.") % (
                    ctx._where_setting(setting), shell.group(0)),
                "", **ctx._fields(setting),
            )
            continue
        if is_compiledir_format(setting.option, setting.value):
            continue  # Theano formats these keys itself (a per-host compile cache: LD545)
        if setting.origin.source == "file" and "interpolation failed" in setting.note and "%(" in (setting.value or ""):
            ctx.add(
                "interpolation", "warning",
                tr("%s: %s, so Theano uses the text as written (%r). The names ConfigParser knows are %s.") % (
                    ctx._where_setting(setting), setting.note.split(";")[0], setting.value,
                    ", ".join("%%(%s)s" % n for n in ctx.config.interpolation)),
                "", **ctx._fields(setting),
            )
