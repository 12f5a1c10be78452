"""The one definition of tables, probes and areas, and everything that derives from it."""

from __future__ import annotations

import importlib

from legacydoc import areas, facts
from legacydoc.engine import load_rules
from legacydoc.probes import PROBE_MODULES
from legacydoc.render.summary import DESCRIBE


def test_every_probe_module_exists_and_has_collect() -> None:
    for name in areas.PROBE_MODULES:
        module = importlib.import_module("legacydoc.probes." + name)
        assert callable(module.collect), name


def test_the_probe_runner_and_the_record_use_the_one_list() -> None:
    assert PROBE_MODULES == areas.PROBE_MODULES
    assert facts.TABLES == areas.TABLE_NAMES
    record = facts.new_record({})
    assert [k for k in record if k in areas.TABLE_NAMES] == list(areas.TABLE_NAMES)


def test_every_table_has_a_summary_and_every_area_rests_on_known_tables() -> None:
    assert set(DESCRIBE) == set(areas.TABLE_NAMES)
    for area in areas.AREAS:
        assert area.tables and set(area.tables) <= set(areas.TABLE_NAMES), area


def test_every_built_in_rule_names_a_defined_area_and_every_area_has_rules() -> None:
    rules = load_rules()
    used = {rule.area for rule in rules}
    assert used <= set(areas.AREA_NAMES)
    assert set(areas.AREA_NAMES) <= used


def test_target_fills_two_tables() -> None:
    assert areas.tables_of_probe("target") == ("python", "packages")
    assert areas.tables_of_probe("nonexistent") == ()


def test_every_package_folder_ships_in_the_wheel() -> None:
    """pyproject.toml lists packages by hand (rules/ is mapped in): a new subpackage that
    is not listed would be missing from the installed tool."""
    from conftest import REPO
    from legacydoc.locate import loads_toml

    listed = set(loads_toml((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "legacydoc").rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)
    assert "legacydoc.rules" in listed
