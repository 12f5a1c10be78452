"""The few Theano settings the probes need before the whole record exists (``cuda.root``
to find a toolkit, ``dnn.*`` to find cuDNN, ``base_compiledir`` to find the compile
cache), read by the one config model.

The probes run concurrently, so the installed Theano release is not known yet: the
schema is Theano 1.0.5's, or Theano-PyMC 1.1.2's when THEANO_FLAGS uses its ``a__b``
spelling (both spell these options' file sections the same way).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from legacydoc.theanorc.effective import effective_config

# The interpolation values Theano gives its ConfigParser, when the environment has them.
INTERPOLATION_VARIABLES = ("USER", "LSCRATCH", "TMPDIR", "TEMP", "TMP", "THEANORC", "THEANO_FLAGS")


def inputs_record(
    family: str,
    files: Sequence[Mapping[str, Any]],
    flags: Optional[str],
    theanorc: Optional[str],
    environ: Mapping[str, str],
    home: Optional[str] = None,
) -> dict[str, Any]:
    """The part of a facts record the config model reads, from what a probe saw."""
    config: dict[str, Any] = {"files": [dict(f) for f in files], "flags": {}}
    if flags is not None:
        config["flags"]["THEANO_FLAGS"] = flags
    if theanorc is not None:
        config["theanorc_env"] = theanorc
    record: dict[str, Any] = {
        "system": {"os": family},
        "theano_config": config,
        "env": {"variables": {k: v for k, v in environ.items() if k in INTERPOLATION_VARIABLES}},
    }
    if "USER" not in environ and home:
        # Theano's %(USER)s: $USER, else the last part of the home folder
        record["env"]["variables"]["USER"] = home.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    if flags and any("__" in item.split("=", 1)[0] for item in flags.split(",")):
        record["packages"] = {"theano-pymc": {"name": "Theano-PyMC", "version": "1.1.2"}}
    return record


def explicit_settings(record: Mapping[str, Any], names: Sequence[str]) -> dict[str, dict[str, str]]:
    """{name: {"value": <what Theano uses>, "source": <file path> | "THEANO_FLAGS",
    "typed": <the flag as typed, when Theano's parsing of THEANO_FLAGS changed it>}}
    for each of ``names`` that a config file or THEANO_FLAGS sets."""
    config = effective_config(record)
    lost = {key: typed for key, typed, _received in config.flags.backslashes_lost}
    out: dict[str, dict[str, str]] = {}
    for name in names:
        setting = config.get(name)
        if setting is None or setting.is_default or setting.value is None:
            continue
        entry = {"value": setting.value, "source": setting.origin.file or setting.origin.source}
        if setting.origin.source == "THEANO_FLAGS" and setting.key in lost:
            entry["typed"] = lost[setting.key]
        out[name] = entry
    return out
