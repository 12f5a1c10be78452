"""The renderer registry: every format is reachable from the CLI, renders, and is redacted
the way its row says."""

from __future__ import annotations

import json

import pytest

from conftest import REPO
from legacydoc import replay
from legacydoc.diagnose import diagnose
from legacydoc.engine import load_rules
from legacydoc.errors import UsageError
from legacydoc.redact import Redactor
from legacydoc.render import registry
from test_cli import run_cli

SEED_002 = REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"


def _result():
    record = replay.load(SEED_002).record
    redactor = Redactor(users=["alice"], homes=["/home/alice"])
    return diagnose(record, load_rules(), redactor, "/home/alice/facts.toml"), redactor


@pytest.mark.parametrize("name", list(registry.CHECK_FORMATS))
def test_every_check_format_renders_through_the_cli(name: str) -> None:
    done = run_cli("check", "--facts", str(SEED_002), "--format", name)
    out = done.stdout
    assert done.returncode == 1 and not done.stderr
    assert "LD303" in out  # the seed's root cause, whatever the format
    if registry.CHECK_FORMATS[name].redaction == "json":
        json.loads(out)


def test_a_json_format_stays_valid_json_after_redaction() -> None:
    result, redactor = _result()
    text = registry.CHECK_FORMATS["json"].render(result, redactor)
    data = json.loads(text)
    assert data["source"] == "<home>/facts.toml"


def test_unknown_format_is_one_line_naming_the_choices() -> None:
    with pytest.raises(UsageError, match="must be one of text, json, markdown, got 'xml'"):
        registry.choose(registry.CHECK_FORMATS, "xml")
    assert registry.choose(registry.CHECK_FORMATS, "JSON").name == "json"


def test_every_row_points_at_a_real_renderer() -> None:
    for formats in (registry.CHECK_FORMATS, registry.BENCH_FORMATS):
        for fmt in formats.values():
            assert fmt.redaction in ("text", "json")
            assert callable(fmt.renderer())
