"""legacydoc's value validation against the REAL filters' answers.

tests/data/theanorc/filters/<release>.json holds, for every option of the release, what
its own filter (imported from the real package by tools/gen_theano_schema.py) did with a
battery of ~70 strings plus each enum value in several cases: accepted or rejected, and
the converted value. check_value must agree on every single one, with no venv needed.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from legacydoc.theanorc.schema import SCHEMA_IDS, load_schema
from legacydoc.theanorc.validate import check_value

TRUTH = Path(__file__).parent / "data" / "theanorc" / "filters"


def _trials(schema_id: str):
    data = json.loads((TRUTH / (schema_id + ".json")).read_text(encoding="utf-8"))
    for name, table in data["options"].items():
        values = table["extra"] if table.get("no_battery") else data["battery"] + table["extra"]
        assert len(values) == len(table["ok"])
        for value, ok in zip(values, table["ok"]):
            yield name, value, ok == "1", table.get("result", {}).get(value)


@pytest.mark.parametrize("schema_id", SCHEMA_IDS)
def test_check_value_agrees_with_the_real_filters(schema_id: str) -> None:
    schema = load_schema(schema_id)
    wrong = []
    count = 0
    for name, value, ok, result in _trials(schema_id):
        option = schema.by_name[name]
        got = check_value(option, value)
        count += 1
        if got.ok != ok:
            wrong.append("%s = %r: real %s, legacydoc %s" % (name, value, ok, got.ok))
        elif ok and result is not None and option["kind"] != "removed":
            try:
                expected = ast.literal_eval(result)
            except (ValueError, SyntaxError):
                continue  # e.g. inf/nan reprs
            if expected != got.typed:
                wrong.append("%s = %r: real %r, legacydoc %r" % (name, value, expected, got.typed))
    assert not wrong, "\n".join(wrong[:40])
    assert count > 5000


def test_known_messages() -> None:
    schema = load_schema("theano-1.0.5")
    assert check_value(schema.get("device"), "gpu0").old_backend
    assert "valid values are" in check_value(schema.get("mode"), "fast_run").message
    assert check_value(schema.get("floatX"), "32").typed == "float32"
    assert check_value(schema.get("vm.lazy"), "None").ok and check_value(schema.get("vm.lazy"), "None").typed is None
    assert not check_value(load_schema("theano-pymc-1.1.2").get("floatX"), "32").ok  # no alias in 1.1.2
    assert check_value(load_schema("theano-0.9.0").get("device"), "gpu0").ok  # the old backend still exists
