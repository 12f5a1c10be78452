"""The parsed-data cache: keyed by the file's bytes, used by read_toml, never in the way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from legacydoc import locate, parsecache


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("LEGACYDOC_CACHE_DIR", str(folder))
    return folder


def test_a_parsed_file_is_read_back_from_the_cache(cache: Path, tmp_path: Path, monkeypatch) -> None:
    source = tmp_path / "r.toml"
    source.write_text('[[rule]]\nid = "LD999"\nfix = ["a", { bash = "b" }]\n')
    first = locate.read_toml(source, "rule pack")
    assert len(list(cache.iterdir())) == 1

    def no_parsing(_text: str) -> dict:
        raise AssertionError("parsed again")

    monkeypatch.setattr(locate, "loads_toml", no_parsing)
    assert locate.read_toml(source, "rule pack") == first


def test_an_edited_file_is_another_entry(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = 1\n")
    assert locate.read_toml(source, "x") == {"a": 1}
    source.write_text("a = 2\n")
    assert locate.read_toml(source, "x") == {"a": 2}
    assert len(list(cache.iterdir())) == 2


def test_a_damaged_entry_is_ignored_and_replaced(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = 1\n")
    locate.read_toml(source, "x")
    [entry] = list(cache.iterdir())
    entry.write_text("{not json")
    assert locate.read_toml(source, "x") == {"a": 1}
    assert entry.read_text() == '{"a": 1}'


def test_what_json_cannot_hold_is_not_cached(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("when = 2017-04-13\n")
    assert str(locate.read_toml(source, "x")["when"]) == "2017-04-13"
    assert not cache.exists() or list(cache.iterdir()) == []


def test_no_cache_when_switched_off_or_unwritable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = 1\n")
    monkeypatch.setenv("LEGACYDOC_CACHE_DIR", "")
    assert parsecache.cache_dir() is None and locate.read_toml(source, "x") == {"a": 1}
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("LEGACYDOC_CACHE_DIR", str(blocker / "sub"))
    assert locate.read_toml(source, "x") == {"a": 1}  # cannot create the folder: nothing happens


def test_a_broken_file_is_still_one_line(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = \n")
    with pytest.raises(Exception, match="not valid TOML"):
        locate.read_toml(source, "x")


# --- validation verdicts: the knowledge tables are validated once per content ---------

def _counting_validate(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from legacydoc.knowledge import load as knowledge_load

    calls: list[str] = []
    real = knowledge_load.validate

    def counted(name: str, origin: str, data: dict):
        calls.append(name)
        return real(name, origin, data)

    monkeypatch.setattr(knowledge_load, "validate", counted)
    return calls


def test_an_accepted_table_is_not_validated_again(cache: Path, tmp_path: Path, monkeypatch) -> None:
    from legacydoc.knowledge import load_tables

    shutil.copy(locate.knowledge_dir() / "cudnn.toml", tmp_path / "cudnn.toml")
    calls = _counting_validate(monkeypatch)
    first = load_tables(tmp_path)
    second = load_tables(tmp_path)
    assert calls == ["cudnn"]
    assert second["cudnn"].data == first["cudnn"].data and second["cudnn"].source == first["cudnn"].source
    (tmp_path / "cudnn.toml").write_bytes((tmp_path / "cudnn.toml").read_bytes() + b"\n# a comment\n")
    load_tables(tmp_path)
    assert calls == ["cudnn"]  # the same data: the verdict stands
    (tmp_path / "cudnn.toml").write_bytes((tmp_path / "cudnn.toml").read_bytes() + b"\nextra = 1\n")
    load_tables(tmp_path)
    assert calls == ["cudnn", "cudnn"]  # other data: validated again


def test_another_validator_validates_again(cache: Path, tmp_path: Path, monkeypatch) -> None:
    from legacydoc.knowledge import load as knowledge_load

    shutil.copy(locate.knowledge_dir() / "cudnn.toml", tmp_path / "cudnn.toml")
    calls = _counting_validate(monkeypatch)
    knowledge_load.load_tables(tmp_path)
    monkeypatch.setattr(knowledge_load, "validator_id", lambda: "knowledge edited-schema")
    knowledge_load.load_tables(tmp_path)
    assert calls == ["cudnn", "cudnn"]


def test_a_rejected_table_is_rejected_every_time(cache: Path, tmp_path: Path) -> None:
    from legacydoc.knowledge import KnowledgeError, load_tables

    (tmp_path / "t.toml").write_text('source = "x"\n[[rows]]\npattern = "(unclosed"\n')
    for _ in range(2):
        with pytest.raises(KnowledgeError, match="not a valid regular expression"):
            load_tables(tmp_path)
    assert not [p for p in cache.iterdir() if p.suffix == ".valid"]


def test_no_verdicts_kept_with_the_cache_off(tmp_path: Path, monkeypatch) -> None:
    from legacydoc.knowledge import load_tables

    monkeypatch.setenv("LEGACYDOC_CACHE_DIR", "")
    shutil.copy(locate.knowledge_dir() / "cudnn.toml", tmp_path / "cudnn.toml")
    calls = _counting_validate(monkeypatch)
    load_tables(tmp_path)
    load_tables(tmp_path)
    assert calls == ["cudnn", "cudnn"]


def test_a_verdict_is_for_one_table_name(cache: Path, tmp_path: Path) -> None:
    # the schema depends on the file's name: the same bytes under another name are
    # validated again (here: cudnn.toml needs [[library]] rows that scratch.toml does not)
    from legacydoc.knowledge import KnowledgeError, load_tables

    text = 'source = "a test table"\n[[build]]\ncudnn = "7.6.5"\n'
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    (first / "scratch.toml").write_text(text)
    assert "scratch" in load_tables(first)
    (second / "cudnn.toml").write_text(text)
    with pytest.raises(KnowledgeError, match="cudnn.toml"):
        load_tables(second)


def test_a_verdict_vouches_for_the_data_not_for_a_forged_parse_cache_entry(cache: Path, tmp_path: Path) -> None:
    from legacydoc.knowledge import KnowledgeError, load_tables

    shutil.copy(locate.knowledge_dir() / "cudnn.toml", tmp_path / "cudnn.toml")
    load_tables(tmp_path)  # parsed, validated, both remembered
    [entry] = [p for p in cache.iterdir() if p.suffix == ".json"]
    entry.write_text('{"source": "x", "build": "not a list"}')
    with pytest.raises(KnowledgeError):
        load_tables(tmp_path)


# --- verdicts on rule packs --------------------------------------------------------------


def _counting_rule_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from legacydoc.engine import load as rule_load

    calls: list[str] = []
    real = rule_load._check_rule_table

    def counting(table, source):
        calls.append(str(table.get("id")))
        return real(table, source)

    monkeypatch.setattr(rule_load, "_check_rule_table", counting)
    return calls


def test_a_rule_pack_accepted_once_is_built_the_same_without_checks(cache: Path, monkeypatch) -> None:
    from legacydoc.engine import load_rules

    calls = _counting_rule_checks(monkeypatch)
    first = load_rules()
    assert len(calls) == len(first)  # every rule checked once...
    assert [p for p in cache.iterdir() if p.suffix == ".valid"]
    second = load_rules()
    assert len(calls) == len(first)  # ...and not again
    assert second == first  # the same rules, field by field


def test_a_rule_pack_verdict_vouches_for_its_data_only(cache: Path, tmp_path: Path, monkeypatch) -> None:
    from legacydoc.engine import RuleError, load_rules
    from legacydoc.engine import load as rule_load

    pack = tmp_path / "pack"
    pack.mkdir()
    good = (locate.rules_dir() / "cache.toml").read_text(encoding="utf-8")
    (pack / "cache.toml").write_text(good, encoding="utf-8")
    load_rules([pack], include_builtin=False)  # parsed, checked, both remembered
    # a forged parse-cache entry for the same bytes: its data has no verdict, so it is checked
    [entry] = [p for p in cache.iterdir() if p.suffix == ".json"]
    entry.write_text('{"rule": [{"id": "LD999"}]}')
    with pytest.raises(RuleError, match="LD999"):
        load_rules([pack], include_builtin=False)
    # another validator (an edited fact schema) checks again
    entry.unlink()
    calls = _counting_rule_checks(monkeypatch)
    monkeypatch.setattr(rule_load, "validator_id", lambda: "rules edited-schema")
    load_rules([pack], include_builtin=False)
    assert calls


def test_a_rejected_rule_pack_is_rejected_every_time(cache: Path, tmp_path: Path) -> None:
    from legacydoc.engine import RuleError, load_rules

    (tmp_path / "bad.toml").write_text(
        '[[rule]]\nid = "LD999"\nname = "x"\narea = "python"\nlayer = "versions"\nseverity = "error"\n'
        'title = "t"\nwhy = "w"\nfix = ["f"]\napplies = { theano = "any", backend = "any" }\n'
        'when = { fact = "no.such.fact", exists = true }\n')
    for _ in range(2):
        with pytest.raises(RuleError, match="no.such.fact"):
            load_rules([tmp_path], include_builtin=False)
    assert not [p for p in cache.iterdir() if p.suffix == ".valid"]


def test_the_rule_validator_names_what_decides_validity(monkeypatch: pytest.MonkeyPatch) -> None:
    import packaging

    from legacydoc.engine import load as rule_load

    rule_load.validator_id.cache_clear()
    first = rule_load.validator_id()
    monkeypatch.setattr(packaging, "__version__", "21.0")  # LegacySpecifier still there
    rule_load.validator_id.cache_clear()
    try:
        assert rule_load.validator_id() != first and "packaging 21.0" in rule_load.validator_id()
    finally:
        rule_load.validator_id.cache_clear()
