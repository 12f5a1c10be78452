"""The reader's language: English, or Simplified Chinese (most of the people who revive
these Theano projects read Chinese first).

The language comes from ``--lang``, else ``LEGACYDOC_LANG``, else the locale (LC_ALL,
LC_MESSAGES, LANG starting with ``zh``; on Windows the user's UI language). Translations
live beside the rules, in ``rules/i18n/zh.toml``: ``[ui]`` maps each English interface
string to its translation; ``[rules.LDxxx]`` gives a rule's ``title``, ``why`` and ``fix``
with the same ``{placeholders}``. Anything not translated falls back to English, and
``tests/test_i18n.py`` lists what is missing.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from legacydoc.errors import UsageError

LANGS = ("en", "zh")
_current = "en"


def from_locale(environ: Mapping[str, str], platform: str = sys.platform) -> str:
    """'zh' when the locale says Chinese, else 'en'."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:  # the first one set decides, as in POSIX
            return "zh" if value.lower().startswith("zh") else "en"
    if platform == "win32":
        try:
            import ctypes

            language = ctypes.windll.kernel32.GetUserDefaultUILanguage()  # type: ignore[attr-defined]
            return "zh" if language & 0x3FF == 0x04 else "en"  # LANG_CHINESE is primary id 4
        except (AttributeError, OSError):
            return "en"
    return "en"


def choose(option: Optional[str], environ: Mapping[str, str] = os.environ) -> str:
    """The language for this run; a bad --lang (or LEGACYDOC_LANG) is a usage error."""
    for value, where in ((option, "--lang"), (environ.get("LEGACYDOC_LANG"), "LEGACYDOC_LANG")):
        if value:
            lang = value.lower().split("_")[0].split("-")[0]
            if lang == "auto":
                break
            if lang not in LANGS:
                raise UsageError("%s: must be one of en, zh or auto, got %r" % (where, value))
            return lang
    return from_locale(environ)


def use(lang: str) -> None:
    global _current
    _current = lang if lang in LANGS else "en"


def current() -> str:
    return _current


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Within the block, tr() answers in ``lang``: English for what must stay ASCII (a
    .theanorc Theano reads in the locale's encoding) or stay data (triage's JSON)."""
    global _current
    before = _current
    use(lang)
    try:
        yield
    finally:
        _current = before


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, Any]:
    if lang == "en":
        return {}
    from legacydoc import locate

    path = locate.rules_dir() / "i18n" / ("%s.toml" % lang)
    return locate.read_toml(path, "translation catalogue", UsageError)


def N_(text: str) -> str:
    """Marks an interface string that is translated later, where it is shown (a plan step's
    title is made once and rendered in the reader's language). Returns it unchanged."""
    return text


def tr(text: str) -> str:
    """An interface string in the reader's language (English when not translated)."""
    if _current == "en":
        return text
    found = catalogue(_current).get("ui", {}).get(text)
    return found if isinstance(found, str) else text


def rule_text(rule_id: str, field: str, english: Any) -> Any:
    """A rule's title, why (strings) or fix (list of strings) in the reader's language."""
    if _current == "en":
        return english
    entry = catalogue(_current).get("rules", {}).get(rule_id, {})
    found = entry.get(field) if isinstance(entry, Mapping) else None
    if field == "fix":
        from legacydoc.shells import validate_step

        ok = isinstance(found, list) and all(not validate_step(step) for step in found)
        return found if ok else english
    return found if isinstance(found, str) else english


@functools.lru_cache(maxsize=None)
def message_catalogue(lang: str) -> dict[str, Any]:
    """The error catalogue's explanations in ``lang``: ``rules/i18n/<lang>-messages/*.toml``,
    one table per message id (its file named like the English one), merged."""
    if lang == "en":
        return {}
    from legacydoc import locate

    merged: dict[str, Any] = {}
    folder = locate.rules_dir() / "i18n" / ("%s-messages" % lang)
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
        merged.update(locate.read_toml(path, "translation catalogue", UsageError))
    return merged


def message_field(message_id: str, field: str, english: Any) -> Any:
    """A catalogue message's meaning (a string), or its causes, tells_apart or fixes (lists
    of strings, one per English item, in the same order), in the reader's language. A list
    whose length differs from the English one falls back to English as a whole."""
    if _current == "en":
        return english
    entry = message_catalogue(_current).get(message_id, {})
    found = entry.get(field) if isinstance(entry, Mapping) else None
    if isinstance(english, str):
        return found if isinstance(found, str) and found.strip() else english
    if not isinstance(found, list) or len(found) != len(english):
        return english
    ok = all(isinstance(f, str) and (f.strip() or not e.strip()) for f, e in zip(found, english))
    return tuple(found) if ok else english
