"""Where legacydoc's own data lives, found one way whether installed or run from a checkout.

``rules/`` sits at the top of the repository (it is data people edit) and ships inside
the wheel as the ``legacydoc.rules`` package: the rule packs, ``knowledge/`` and
``theano_schema/``. The scripts sent to a target interpreter are plain files inside
their packages. Everything TOML is read through :func:`read_toml`, so every data file
fails the same way: one line naming the file.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, Callable, Optional

from legacydoc.errors import UsageError


class TomlError(ValueError):
    """Text that is not TOML legacydoc can read; the message is the parser's, on one line."""

# Rule packs and knowledge tables are tens of KiB; a user's --rules pack is no bigger.
MAX_DATA_FILE_BYTES = 8 * 1024 * 1024


@functools.lru_cache(maxsize=1)
def rules_dir() -> Path:
    """rules/ inside the installed wheel (legacydoc.rules), or the checkout's rules/."""
    here = Path(__file__).resolve().parent
    # A plain folder is read directly: importlib.resources costs 8 ms to import, a
    # twentieth of a replayed check. It stays the fallback; rules/ must be a real folder
    # all the same (a zipped install is not supported: the rule packs are listed by path).
    if (here / "rules" / "__init__.py").is_file():
        return here / "rules"
    if (here.parent / "pyproject.toml").is_file() and (here.parent / "rules" / "__init__.py").is_file():
        return here.parent / "rules"  # a checkout
    try:
        from importlib import resources

        root = Path(str(resources.files("legacydoc.rules")))
        if root.is_dir():
            return root
    except (ImportError, TypeError, ValueError):
        pass
    return here.parent / "rules"


def knowledge_dir() -> Path:
    return rules_dir() / "knowledge"


def theano_schema_dir() -> Path:
    return rules_dir() / "theano_schema"


def package_file_text(package: str, name: str) -> str:
    """A file shipped inside one of legacydoc's packages (the target scripts)."""
    import importlib

    origin = getattr(importlib.import_module(package), "__file__", None)
    if origin:  # a plain folder: read beside the module, as rules_dir() does
        beside = Path(origin).parent / name
        if beside.is_file():
            return beside.read_text(encoding="utf-8")
    from importlib import resources

    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def _tomllib() -> Any:
    """The TOML reader, imported on first use: with the parse cache warm a probing check
    parses nothing, and the import costs 4 ms."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        # tomli is installed only below 3.11 (a conditional dependency), so the environment
        # mypy runs in may not have it; unused-ignore for one that does.
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    return tomllib


def loads_toml(text: str) -> dict[str, Any]:
    """TOML text -> dict; raises TomlError (callers word the error) and RecursionError.
    A ValueError is the parser's too: an integer of more than 4,300 digits is refused by
    int() itself (Python's limit on converting text to int), not by a TOMLDecodeError."""
    try:
        parsed: dict[str, Any] = _tomllib().loads(text)
    except ValueError as exc:  # TOMLDecodeError is a ValueError
        raise TomlError(" ".join(str(exc).split())) from None
    return parsed


def read_toml(path: Path, what: str, error: Callable[[str], UsageError] = UsageError) -> dict[str, Any]:
    """A data file as a dict; any problem is ``error("<path>: <what> ...")``, one line."""
    return read_toml_stored(path, what, error)[0]


def read_toml_stored(
    path: Path, what: str, error: Callable[[str], UsageError] = UsageError
) -> tuple[dict[str, Any], Optional[bytes]]:
    """:func:`read_toml`, and the JSON the parse cache holds the data as (None when it
    holds none): what a validator's verdict on the data is keyed by."""
    from legacydoc import parsecache
    from legacydoc.safe_io import read_regular

    try:
        raw = read_regular(Path(path), MAX_DATA_FILE_BYTES, what)
        text = raw.decode("utf-8")
    except UsageError as exc:
        raise error(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise error("%s: not UTF-8 (byte %d)" % (path, exc.start)) from None
    cached = parsecache.load_stored(raw)
    if cached is not None:
        return cached
    try:
        parsed = loads_toml(text)
        return parsed, parsecache.store(raw, parsed)
    except TomlError as exc:
        raise error("%s: not valid TOML (%s)" % (path, exc)) from None
    except RecursionError:
        raise error("%s: not valid TOML (nested too deeply to read)" % path) from None


@functools.lru_cache(maxsize=None)
def target_script(package: str, name: str) -> str:
    """A script to run inside the target interpreter with ``python -c``, as sent: full-line
    comments and blank lines dropped, because Windows limits a whole command line to
    32767 characters."""
    text = package_file_text(package, name)
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return "\n".join(lines) + "\n"
