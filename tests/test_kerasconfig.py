"""Keras's backend and image layout (legacydoc/kerasconfig.py), and LD122/LD143 through a
real `legacydoc check` whose target interpreter has Keras installed and a keras.json at
home."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from legacydoc.kerasconfig import keras_facts
from test_cli import run_cli

HOME_FILE = "/home/u/.keras/keras.json"
ENV = {"PATH": "/usr/bin"}  # the environment was recorded, without KERAS_BACKEND


def record(version: str | None, config: dict[str, Any] | None, env: dict[str, str] | None = ENV) -> dict[str, Any]:
    keras: dict[str, Any] = {"name": "Keras"}
    if version:
        keras["version"] = version
    facts: dict[str, Any] = {"packages": {"keras": keras}}
    if config is not None:
        facts["packages"]["keras_config"] = {"path": HOME_FILE, "from": "home", **config}
    if env is not None:
        facts["env"] = {"variables": env}
    return facts


@pytest.mark.parametrize("version, config, env, backend, layout", [
    # Keras 2: the file's values
    ("2.3.1", {"exists": True, "backend": "theano", "image_data_format": "channels_first"}, ENV,
     ("theano", "keras.json"), ("channels_first", "image_data_format")),
    # Keras 2 ignores a Keras 1 key: its default layout stands
    ("2.0.8", {"exists": True, "backend": "theano", "image_dim_ordering": "th"}, ENV,
     ("theano", "keras.json"), ("channels_last", "default")),
    # Keras 1.1-1.2 read image_dim_ordering; the default backend is tensorflow
    ("1.2.2", {"exists": True, "image_dim_ordering": "th"}, ENV,
     ("tensorflow", "default"), ("channels_first", "image_dim_ordering")),
    # Keras 1.0.x: theano and 'th' by default; no file yet
    ("1.0.8", {"exists": False}, ENV, ("theano", "default"), ("channels_first", "default")),
    # KERAS_BACKEND wins over the file
    ("2.3.1", {"exists": True, "backend": "tensorflow"}, {"KERAS_BACKEND": "theano"},
     ("theano", "KERAS_BACKEND"), ("channels_last", "default")),
    # the environment not recorded: KERAS_BACKEND may override the file
    ("2.3.1", {"exists": True, "backend": "theano"}, None, None, ("channels_last", "default")),
    # the Keras version unknown: its defaults and the key it reads are unknown
    (None, {"exists": True, "backend": "theano"}, ENV, ("theano", "keras.json"), None),
    (None, {"exists": False}, ENV, None, None),
    # a file that could not be read says nothing
    ("2.3.1", {"exists": True, "error": "not JSON: x"}, ENV, None, None),
    # a value Keras would refuse is not a layout
    ("2.3.1", {"exists": True, "image_data_format": "sideways"}, ENV, ("tensorflow", "default"), None),
    # Keras 2.4+ is tf.keras: the file's backend means nothing
    ("2.4.3", {"exists": True, "backend": "theano", "image_data_format": "channels_first"}, ENV,
     ("tensorflow", "release"), None),
    # an empty KERAS_BACKEND is ignored (load_backend.py at 2.3.1: `if _backend:`)
    ("2.3.1", {"exists": True, "backend": "theano"}, {"KERAS_BACKEND": ""}, ("theano", "keras.json"),
     ("channels_last", "default")),
    # Keras 1.0.0-1.0.3 read no layout key at all
    ("1.0.3", {"exists": True, "image_dim_ordering": "tf"}, ENV, ("theano", "default"), ("channels_first", "default")),
    ("1.0.4", {"exists": True, "image_dim_ordering": "tf"}, ENV, ("theano", "default"),
     ("channels_last", "image_dim_ordering")),
    # a report quoting one key of the file (whether it was read whole is not recorded): the
    # key's own value decides; what a missing key would default to stays unknown
    ("1.2.0", {"image_dim_ordering": "tf"}, ENV, None, ("channels_last", "image_dim_ordering")),
    ("2.1.6", {"backend": "theano"}, ENV, ("theano", "keras.json"), None),
    ("2.1.6", {"image_dim_ordering": "th"}, ENV, None, None),
])
def test_backend_and_layout_as_the_installed_keras_decides(version, config, env, backend, layout) -> None:
    derived = keras_facts(record(version, config, env))
    assert (derived.get("backend"), derived.get("backend_source")) == (backend or (None, None))
    assert (derived.get("layout"), derived.get("layout_source")) == (layout or (None, None))


def test_a_partial_environment_leaves_keras_backend_unknown() -> None:
    """A report quoting another variable says nothing of KERAS_BACKEND, which may override the file."""
    facts = record("2.3.1", {"exists": True, "backend": "theano"}, {"OMP_NUM_THREADS": "2"})
    assert keras_facts(facts)["backend"] == "theano"  # the whole environment: the file decides
    facts["env"]["partial"] = True
    assert "backend" not in keras_facts(facts)
    facts["env"]["variables"]["KERAS_BACKEND"] = "tensorflow"  # quoted: known
    assert keras_facts(facts)["backend"] == "tensorflow"


def test_nothing_without_keras_or_without_the_files_facts() -> None:
    assert keras_facts({"packages": {"keras_config": {"exists": True, "backend": "theano"}}}) == {}
    assert keras_facts(record("2.3.1", None)) == {}


def _dist_info(site: Path, name: str, version: str) -> None:
    meta = site / ("%s-%s.dist-info" % (name, version))
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n" % (name, version))


@pytest.mark.parametrize("keras_json, fires, quiet", [
    ('{"backend": "theano", "image_data_format": "channels_last"}', "LD143", ("LD122",)),
    ('{"backend": "tensorflow", "image_data_format": "channels_first"}', "LD122", ("LD143",)),
    ('{"backend": "theano", "image_data_format": "channels_first"}', None, ("LD122", "LD143")),
])
def test_check_reads_the_keras_json_of_the_target(tmp_path: Path, keras_json: str, fires: str | None,
                                                  quiet: tuple[str, ...]) -> None:
    site = tmp_path / "site"
    _dist_info(site, "Keras", "2.1.6")
    _dist_info(site, "Theano", "1.0.5")
    home = tmp_path / "home"
    (home / ".keras").mkdir(parents=True)
    (home / ".keras" / "keras.json").write_text(keras_json)
    proc = run_cli("check", "--python", sys.executable, "--format", "json", "--timeout", "60",
                   env={"HOME": str(home), "PYTHONPATH": str(site), "LEGACYDOC_LANG": "en"})
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    ids = [d["id"] for d in report["diagnoses"]]
    assert not set(quiet) & set(ids), ids
    if fires:
        assert fires in ids, ids
        found = next(d for d in report["diagnoses"] if d["id"] == fires)
        if fires == "LD143":
            assert "keras.json" in json.dumps(found["fix"])
