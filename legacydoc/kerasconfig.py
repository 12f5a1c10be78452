"""Which backend and image layout the installed Keras runs with (``derived.keras``).

From keras-team/keras keras/backend/__init__.py and common.py at tags 1.0.8, 1.1.0,
1.2.2, 2.0.0 and 2.1.3, and load_backend.py at 2.2.0 and 2.3.1:

* the backend: KERAS_BACKEND when set, else keras.json's "backend", else the release's
  default: 'theano' up to 1.0.8, 'tensorflow' from 1.1.0 on;
* the layout: Keras 2 reads only "image_data_format" (default 'channels_last'); Keras
  1.1-1.2 read "image_dim_ordering" ('th' or 'tf', default 'tf'); 1.0.x default 'th'.
  A Keras 1 file's image_dim_ordering is ignored by Keras 2.

Unknown stays unknown: without the Keras version, a file that lacks a key, or a record
without the file's facts, nothing is derived.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.facts import get

_DIM_ORDERING = {"th": "channels_first", "tf": "channels_last"}
_LAYOUTS = ("channels_first", "channels_last")


def _release(version: Any) -> Optional[tuple[int, int]]:
    match = re.match(r"(\d+)\.(\d+)", version) if isinstance(version, str) else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def _backend(config: Mapping[str, Any], release: Optional[tuple[int, int]],
             variables: Any) -> tuple[Optional[str], str]:
    if isinstance(variables, Mapping) and isinstance(variables.get("KERAS_BACKEND"), str):
        return variables["KERAS_BACKEND"], "KERAS_BACKEND"
    if not isinstance(variables, Mapping):
        return None, ""  # the environment was not recorded: KERAS_BACKEND may override the file
    if isinstance(config.get("backend"), str) and not config.get("error"):
        return config["backend"], "keras.json"
    if config.get("exists") is False or (config.get("exists") is True and not config.get("error")):
        if release is not None:
            return ("theano" if release < (1, 1) else "tensorflow"), "default"
    return None, ""


def _layout(config: Mapping[str, Any], release: Optional[tuple[int, int]]) -> tuple[Optional[str], str]:
    if release is None or config.get("error") or not isinstance(config.get("exists"), bool):
        return None, ""
    if release >= (2, 0):
        value = config.get("image_data_format") if config["exists"] else None
        if value is None:
            return "channels_last", "default"
        return (value, "image_data_format") if value in _LAYOUTS else (None, "")
    value = config.get("image_dim_ordering") if config["exists"] else None
    if value is None:
        return ("channels_first" if release < (1, 1) else "channels_last"), "default"
    return (_DIM_ORDERING[value], "image_dim_ordering") if value in _DIM_ORDERING else (None, "")


def keras_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``derived.keras``: backend, layout and where each came from, as far as known."""
    keras = get(facts, "packages.keras")
    config = get(facts, "packages.keras_config")
    if not isinstance(keras, Mapping) or not isinstance(config, Mapping):
        return {}
    release = _release(keras.get("version"))
    out: dict[str, Any] = {}
    backend, source = _backend(config, release, get(facts, "env.variables"))
    if backend is not None:
        out["backend"], out["backend_source"] = backend, source
    layout, key = _layout(config, release)
    if layout is not None:
        out["layout"], out["layout_source"] = layout, key
    if isinstance(config.get("path"), str):
        out["config_path"] = config["path"]
    return out
