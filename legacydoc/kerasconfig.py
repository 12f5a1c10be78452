"""Which backend and image layout the installed Keras runs with (``derived.keras``).

From keras-team/keras keras/backend/__init__.py and common.py at tags 1.0.3, 1.0.4, 1.0.8,
1.1.0, 1.2.2, 2.0.0, 2.1.3 and 2.2.0, load_backend.py at 2.3.1, and keras/backend.py at 2.4.0:

* the backend: KERAS_BACKEND when set (2.3 ignores it when empty), else keras.json's
  "backend", else the release's default: 'theano' up to 1.0.8, 'tensorflow' from 1.1.0 on;
  from 2.4.0 Keras is a wrapper around tf.keras and never runs on Theano, whatever it says;
* the layout: Keras 2 reads only "image_data_format" (default 'channels_last'); Keras
  1.0.4-1.2 read "image_dim_ordering" ('th' or 'tf'; default 'th' up to 1.0.8, 'tf' from
  1.1.0); 1.0.0-1.0.3 read no layout key (Theano's, channels_first). A Keras 1 file's
  image_dim_ordering is ignored by Keras 2.

Unknown stays unknown: without the Keras version, a file that lacks a key, or a record
without the file's facts, nothing is derived.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from packaging.version import Version

from legacydoc.facts import env_variable, get
from legacydoc.versions import parse_version

_DIM_ORDERING = {"th": "channels_first", "tf": "channels_last"}
_LAYOUTS = ("channels_first", "channels_last")
TF_KERAS = Version("2.4.0")  # keras/backend.py: `from tensorflow.keras.backend import *`
KERAS_2 = Version("2.0.0")
TF_DEFAULT = Version("1.1.0")  # tensorflow and 'tf' ordering become the defaults
LAYOUT_KEY = Version("1.0.4")  # image_dim_ordering is read from keras.json


def _file_read(config: Mapping[str, Any]) -> bool:
    """The file's state is known: absent, or present and read. What a key the file lacks
    means (its default) is known only then; a key's own value, recorded, is decisive without
    it (a report that quotes one line of keras.json)."""
    return isinstance(config.get("exists"), bool) and not config.get("error")


def _backend(config: Mapping[str, Any], release: Optional[Version],
             variable: tuple[bool, Optional[str]]) -> tuple[Optional[str], str]:
    if release is not None and release >= TF_KERAS:
        return "tensorflow", "release"  # tf.keras underneath: neither variable nor file matters
    known, value = variable
    if not known:
        return None, ""  # the environment was not recorded (or only in part): KERAS_BACKEND may override the file
    if value:
        return value, "KERAS_BACKEND"
    if isinstance(config.get("backend"), str) and not config.get("error"):
        return config["backend"], "keras.json"
    if not _file_read(config) or release is None:
        return None, ""
    return ("theano" if release < TF_DEFAULT else "tensorflow"), "default"


def _layout(config: Mapping[str, Any], release: Optional[Version]) -> tuple[Optional[str], str]:
    if release is None or release >= TF_KERAS:
        return None, ""
    if release < LAYOUT_KEY:
        return "channels_first", "default"  # no layout setting yet: the file does not matter
    key = "image_data_format" if release >= KERAS_2 else "image_dim_ordering"
    value = config.get(key)
    if value is not None and not config.get("error"):
        if key == "image_data_format":
            return (value, key) if value in _LAYOUTS else (None, "")
        return (_DIM_ORDERING[value], key) if value in _DIM_ORDERING else (None, "")
    if not _file_read(config):
        return None, ""
    if release >= KERAS_2:
        return "channels_last", "default"
    return ("channels_first" if release < TF_DEFAULT else "channels_last"), "default"


def keras_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``derived.keras``: backend, layout and where each came from, as far as known."""
    keras = get(facts, "packages.keras")
    config = get(facts, "packages.keras_config")
    if not isinstance(keras, Mapping) or not isinstance(config, Mapping):
        return {}
    release = parse_version(keras.get("version"))
    out: dict[str, Any] = {}
    backend, source = _backend(config, release, env_variable(facts, "KERAS_BACKEND"))
    if backend is not None:
        out["backend"], out["backend_source"] = backend, source
    layout, key = _layout(config, release)
    if layout is not None:
        out["layout"], out["layout_source"] = layout, key
    if isinstance(config.get("path"), str):
        out["config_path"] = config["path"]
    return out
