"""The facts record: header, lossless round trip, one-line errors for bad files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from legacydoc import __version__, facts
from legacydoc.errors import UsageError

SAMPLE_TABLES = {
    "gpu": {
        "nvidia_smi": {"found": True, "rc": 255, "output": "Failed to initialize NVML: Unknown Error"},
        "devices": [{"index": 0, "name": "GeForce GTX 1660 SUPER", "memory_total_mib": 6144}],
        "driver_version": None,  # absent fact: must vanish, TOML has no null
    },
    "path": {"entries": [{"index": 0, "entry": "C:\\CUDA\\v10.2\\bin", "exists": False}], "duplicates": 0},
    "system": {"logical_cores": 8, "memory_total_mib": 16281, "cpu_flags": ["avx", "avx2"], "ratio": 0.5},
    "theano_config": {"files": [{"path": "~/.theanorc", "text": "[global]\nfloatX = float32\n# 中文注释\n"}]},
}


def test_new_record_has_header_and_every_table() -> None:
    when = dt.datetime(2026, 12, 2, 12, 0, 0, 123, tzinfo=dt.timezone.utc)
    record = facts.new_record(SAMPLE_TABLES, collected_at=when)
    assert list(record)[:3] == ["schema", "legacydoc_version", "collected_at"]
    assert record["schema"] == 1
    assert record["legacydoc_version"] == __version__
    assert record["collected_at"] == "2026-12-02T12:00:00+00:00"
    assert set(facts.TABLES) <= set(record)
    assert "driver_version" not in record["gpu"]
    assert record["cuda"] == {}


def test_round_trip_is_lossless(tmp_path: Path) -> None:
    record = facts.new_record(SAMPLE_TABLES)
    target = tmp_path / "facts.toml"
    facts.save(record, target)
    assert facts.load(target) == record
    assert not (tmp_path / "facts.toml.tmp").exists()


def test_get_walks_dotted_names() -> None:
    record = facts.new_record(SAMPLE_TABLES)
    assert facts.get(record, "gpu.nvidia_smi.rc") == 255
    assert facts.get(record, "gpu.nvidia_smi.missing", "d") == "d"
    assert facts.get(record, "gpu.devices.0") is None


def test_other_schema_is_refused_naming_the_file_and_writer(tmp_path: Path) -> None:
    target = tmp_path / "old.toml"
    target.write_text('schema = 7\nlegacydoc_version = "9.9"\n')
    with pytest.raises(UsageError) as err:
        facts.load(target)
    message = str(err.value)
    assert str(target) in message and "schema 7" in message and "9.9" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"this is = = not toml", "not a TOML facts file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not a TOML facts file"),
        (b"[gpu]\nrc = 1\n", "no 'schema' key"),
        (b"schema = 1\ngpu = 3\n", "'gpu' must be a table"),
        (b"", "no 'schema' key"),
    ],
)
def test_bad_files_give_one_line_errors(tmp_path: Path, content: bytes, expected: str) -> None:
    target = tmp_path / "bad.toml"
    target.write_bytes(content)
    with pytest.raises(UsageError) as err:
        facts.load(target)
    assert expected in str(err.value)
    assert str(target) in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read facts file"):
        facts.load(tmp_path / "nope.toml")


def test_unwritable_target_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write .*the folder .* does not exist"):
        facts.save(facts.new_record({}), tmp_path / "no-such-dir" / "f.toml")
