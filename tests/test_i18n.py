"""Simplified Chinese: the catalogue beside the rules, how the language is chosen, and the
check output in Chinese. Lists what is not translated yet (falls back to English)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_rules import firing_diagnoses, paste_problems

from conftest import REPO
from legacydoc import i18n
from legacydoc.areas import AREAS
from legacydoc.engine import load_rules
from legacydoc.render.check_markdown import STATUS_WORDS

RULES = load_rules()
ZH = i18n.catalogue("zh")
PLACEHOLDER = re.compile(r"\{([a-z_][\w.-]*)(?:\|[^{}]*)?\}")
SEED = REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"


def _names(text: object) -> set[str]:
    texts = text if isinstance(text, (list, tuple)) else [text]
    return {m.group(1) for t in texts for m in PLACEHOLDER.finditer(str(t))}


def _tr_literals() -> set[str]:
    """Every string literal passed to tr(...), or marked with N_(...), in legacydoc/."""
    found = set()
    for path in (REPO / "legacydoc").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("tr", "N_"):
                for arg in node.args:
                    # tr("Fix:") or tr({"error": "ERROR", ...}[severity]): the strings shown
                    if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Dict):
                        candidates = list(arg.value.values)
                    else:
                        candidates = [arg]
                    found.update(c.value for c in candidates
                                 if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return found


def test_every_translated_rule_exists_and_keeps_its_placeholders() -> None:
    by_id = {r.id: r for r in RULES}
    for rule_id, entry in ZH["rules"].items():
        assert rule_id in by_id, rule_id
        rule = by_id[rule_id]
        assert set(entry) <= {"title", "why", "fix"}, rule_id
        for field in entry:
            english = getattr(rule, field)
            assert _names(entry[field]) == _names(english), (rule_id, field)
            if field == "fix":
                assert len(entry[field]) == len(english), rule_id


def test_every_rule_title_and_interface_string_is_translated() -> None:
    missing_titles = [r.id for r in RULES if "title" not in ZH["rules"].get(r.id, {})]
    assert missing_titles == []
    used = _tr_literals() | {a.title for a in AREAS} | {w for w in STATUS_WORDS.values() if not w.startswith("*")}
    used |= _advice_whys()  # shown through tr(row["why"])
    used.discard("")
    assert sorted(used - set(ZH["ui"])) == []
    assert sorted(set(ZH["ui"]) - used) == []  # no stale entries


def test_every_rule_why_and_fix_is_translated(capsys) -> None:
    """Why and fix fall back to English where the catalogue has none: say which (none now)."""
    missing = {field: [r.id for r in RULES if field not in ZH["rules"].get(r.id, {})] for field in ("why", "fix")}
    with capsys.disabled():
        for field, ids in missing.items():
            print("\nzh: %d of %d rules have no translated %s: %s" % (len(ids), len(RULES), field, " ".join(ids)))
    assert missing == {"why": [], "fix": []}


def test_chinese_templates_fill_on_every_firing_example() -> None:
    i18n.use("zh")
    try:
        for rule, diag in firing_diagnoses():
            assert "{" not in diag.title and re.search(r"[\u4e00-\u9fff]", diag.title), (rule.id, diag.title)
    finally:
        i18n.use("en")


def test_chinese_config_lines_paste_as_they_are() -> None:
    i18n.use("zh")
    try:
        assert paste_problems() == []
    finally:
        i18n.use("en")


@pytest.mark.parametrize("environ, platform, expected", [
    ({"LANG": "zh_CN.UTF-8"}, "linux", "zh"),
    ({"LANG": "zh_TW.UTF-8"}, "linux", "zh"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "linux", "en"),
    ({"LC_ALL": "zh_CN.GBK", "LANG": "C"}, "linux", "zh"),
    ({"LANG": "C.UTF-8"}, "linux", "en"),
    ({}, "linux", "en"),
])
def test_the_locale_decides_when_nothing_else_does(environ: dict, platform: str, expected: str) -> None:
    assert i18n.from_locale(environ, platform) == expected
    assert i18n.choose(None, environ) == expected if platform == sys.platform else True


def test_the_option_beats_the_variable_which_beats_the_locale() -> None:
    assert i18n.choose("zh", {"LEGACYDOC_LANG": "en"}) == "zh"
    assert i18n.choose(None, {"LEGACYDOC_LANG": "zh", "LANG": "en_US.UTF-8"}) == "zh"
    assert i18n.choose("auto", {"LEGACYDOC_LANG": "en", "LANG": "zh_CN.UTF-8"}) == "zh"
    assert i18n.choose("zh_CN", {}) == "zh"


def _cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("LEGACYDOC_LANG", "LANG", "LC_ALL", "LC_MESSAGES")}
    full.update(env)
    full["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "legacydoc", *args], cwd=str(REPO), env=full,
                          capture_output=True, timeout=120)


def test_check_in_chinese_from_the_locale_and_from_the_option() -> None:
    by_locale = _cli("check", "--facts", str(SEED), env={"LANG": "zh_CN.UTF-8"})
    by_option = _cli("check", "--facts", str(SEED), "--lang", "zh", env={"LANG": "C.UTF-8"})
    english = _cli("check", "--facts", str(SEED), env={"LANG": "C.UTF-8"})
    assert by_locale.stdout == by_option.stdout != english.stdout
    text = by_option.stdout.decode("utf-8")
    assert "结论：" in text and "发现的问题（根本原因在前）：" in text and "显卡与驱动" in text
    assert "libgpuarray 会查找" in text  # LD303's title
    assert by_option.returncode == english.returncode == 1


def test_the_markdown_report_in_chinese(tmp_path: Path) -> None:
    proc = _cli("--lang", "zh", "check", "--facts", str(SEED), "--format", "markdown", env={})
    text = proc.stdout.decode("utf-8")
    assert "**结论：**" in text and "| 方面 | 状态 | 找到的 | 检查数 |" in text


def test_a_bad_language_is_one_line_exit_2() -> None:
    proc = _cli("check", "--facts", str(SEED), "--lang", "fr", env={})
    assert proc.returncode == 2 and b"--lang: must be one of en, zh or auto" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = _cli("check", "--facts", str(SEED), env={"LEGACYDOC_LANG": "klingon"})
    assert proc.returncode == 2 and b"LEGACYDOC_LANG" in proc.stderr


def test_config_findings_explain_themselves_in_chinese() -> None:
    # the why of a config finding is the config model's own message, made in the reader's language
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--facts", str(SEED), "--lang", "zh"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    block = proc.stdout[proc.stdout.index("[LD510 config-unknown-option]"):]
    assert "不起作用" in block.split("解决办法")[0] and " 第 5 行" in block.split("解决办法")[0]
    english = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--facts", str(SEED), "--lang", "en"],
                             capture_output=True, text=True, timeout=120).stdout
    assert ".theanorc line 5: `compiler = g++` does nothing" in english


def test_interface_translations_keep_their_format_specifiers_in_order() -> None:
    # tr(template) % args: a translation with other specifiers would raise or misplace values
    spec = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.\d+)?[sdrifgGeExXc%]")
    bad = [en for en, zh in ZH["ui"].items() if spec.findall(en) != spec.findall(zh)]
    assert bad == []


def test_theanorc_shows_the_config_in_chinese() -> None:
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "theanorc", "--facts", str(SEED), "--lang", "zh"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "配置文件，按读取顺序" in proc.stdout and "你设置的：" in proc.stdout
    assert "  警告 " in proc.stdout and "Set by you" not in proc.stdout


# What a translated explanation must keep as it is: code, addresses, versions, flags, rule ids.
KEPT = re.compile(r"`[^`]+`|https?://[^\s]*[^\s.,;:)]|\bLD\d{3}\b|\d+(?:\.\d+)+|(?<![\w-])--?[A-Za-z][\w=/-]*")
MESSAGE_FIELDS = ("meaning", "causes", "tells_apart", "fixes")


def _message_english(message) -> dict:
    return {"meaning": message.meaning, "causes": [c.text for c in message.causes],
            "tells_apart": list(message.tells_apart), "fixes": list(message.fixes)}


def test_every_catalogue_message_is_explained_in_chinese() -> None:
    from legacydoc.messages import catalogue

    zh = i18n.message_catalogue("zh")
    missing = []
    for message in catalogue():
        entry = zh.get(message.id)
        if not isinstance(entry, dict):
            missing.append(message.id)
            continue
        for name, english in _message_english(message).items():
            found = entry.get(name)
            if english and (found is None or (isinstance(english, list) and len(found) != len(english))):
                missing.append("%s.%s" % (message.id, name))
    print("explanations not in Chinese yet (%d): %s" % (len(missing), ", ".join(missing)))
    assert not missing


def test_chinese_explanations_keep_code_versions_and_addresses() -> None:
    from legacydoc.messages import catalogue

    zh = i18n.message_catalogue("zh")
    english = {m.id: _message_english(m) for m in catalogue()}
    assert set(zh) <= set(english), "translations of unknown messages: %s" % sorted(set(zh) - set(english))
    lost = []
    for message_id, entry in zh.items():
        assert set(entry) <= set(MESSAGE_FIELDS), "%s: unknown field %s" % (message_id, sorted(set(entry) - set(MESSAGE_FIELDS)))
        for name, translated in entry.items():
            pairs = [(english[message_id][name], translated)] if name == "meaning" else \
                zip(english[message_id][name], translated)
            for en, text in pairs:
                lost += ["%s.%s: %s" % (message_id, name, kept) for kept in KEPT.findall(en) if kept not in text]
    assert not lost, "\n".join(lost)


def test_explain_speaks_chinese() -> None:
    env = dict(os.environ, LEGACYDOC_LANG="zh")
    text = "WARNING (theano.tensor.blas): Using NumPy C-API based implementation for BLAS functions."
    out = _cli("explain", "--text", text, env=env)
    assert out.returncode == 0, out.stderr
    shown = out.stdout.decode("utf-8")
    meaning = i18n.message_catalogue("zh")["theano-blas-numpy-c-api-fallback"]["meaning"]
    assert meaning in shown
    assert "Using NumPy C-API based implementation for BLAS functions" in shown  # quoted as printed
    assert "可能的原因" in shown and "likely causes" not in shown


def _advice_whys() -> set[str]:
    from legacydoc.theanorc.schema import load_advice

    advice = load_advice()
    return {row["why"] for kind in ("rename", "removed") for row in advice.get(kind, []) if row.get("why")}


def test_every_config_advice_is_translated() -> None:
    whys = _advice_whys()
    missing = sorted(whys - set(ZH["ui"]))
    assert whys and not missing, missing


def test_refusals_are_one_line_in_chinese_too(tmp_path: Path) -> None:
    folder = _cli("check", "--facts", str(tmp_path), env={"LEGACYDOC_LANG": "zh"})
    timeout = _cli("check", "--lang", "zh", "--timeout", "0", env={})
    for out in (folder, timeout):
        err = out.stderr.decode("utf-8").strip()
        assert out.returncode == 2 and len(err.splitlines()) == 1, err
    assert "这是一个文件夹" in folder.stderr.decode("utf-8")
    assert "必须大于 0" in timeout.stderr.decode("utf-8")


def test_triage_and_diff_speak_chinese() -> None:
    other = REPO / "fixtures" / "tickets" / "gh-libgpuarray-474" / "facts.toml"
    env = {"LEGACYDOC_LANG": "zh"}
    triage = _cli("triage", str(SEED), str(other), env=env)
    diff = _cli("diff", str(SEED), str(other), env=env)
    assert triage.returncode == 0 and diff.returncode in (0, 1), (triage.stderr, diff.stderr)
    assert i18n.catalogue("zh")["ui"]["Root cause (first error or warning)"] in triage.stdout.decode("utf-8")
    english = _cli("diff", str(SEED), str(other), env={})
    assert diff.stdout != english.stdout and "LD303" in diff.stdout.decode("utf-8")


def test_a_written_theanorc_stays_ascii_in_chinese(tmp_path: Path) -> None:
    # Theano reads .theanorc in the locale's encoding (GBK on a Chinese Windows): the
    # comments legacydoc writes must not carry the reader's language into the file.
    target = tmp_path / "theanorc"
    proc = _cli("theanorc", "--facts", str(SEED), "--write", str(target), "--yes", "--lang", "zh", env={})
    assert proc.returncode == 0, proc.stderr
    text = target.read_bytes()
    assert text.isascii() and b"libgpuarray cannot load an NVRTC library" in text


def test_triage_data_stays_english_under_chinese(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("schema = 1\n[gpu\n")
    zh = _cli("triage", "--format", "json", str(SEED), str(broken), env={"LEGACYDOC_LANG": "zh"})
    en = _cli("triage", "--format", "json", str(SEED), str(broken), env={})
    import json

    assert json.loads(zh.stdout) == json.loads(en.stdout)
    shown = _cli("triage", str(SEED), str(broken), env={"LEGACYDOC_LANG": "zh"}).stdout.decode("utf-8")
    assert "不是 TOML 格式的事实记录文件" in shown
