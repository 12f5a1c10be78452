"""Text in terminal columns (legacydoc.render.columns): Chinese takes two columns a
character and may break anywhere; English is wrapped exactly as textwrap does."""

from __future__ import annotations

import textwrap

from hypothesis import given
from hypothesis import strategies as st

from legacydoc.render.columns import ljust, unfold, width, wrap

CHINESE = "日志显示程序是用 `THEANO_FLAGS=... python ...` 启动的，这是 Linux 和 macOS 的 shell 为单条命令设置变量的写法。" * 3


def test_a_chinese_character_takes_two_columns() -> None:
    assert width("ab中文") == 6 and width("") == 0
    assert width(ljust("中文", 7)) == 7


def test_english_is_wrapped_as_textwrap_wraps_it() -> None:
    text = "Theano reads THEANO_FLAGS from its own process's environment, once, at import. " * 4
    assert wrap(text, 60, "   ", "   ") == textwrap.wrap(text, width=60, initial_indent="   ", subsequent_indent="   ")


@given(st.integers(min_value=12, max_value=100))
def test_chinese_lines_fit_the_columns_and_lose_nothing(columns: int) -> None:
    lines = wrap(CHINESE, columns, "   ", "   ")
    # only a single word longer than the line (a long command) may overflow it
    assert len(lines) > 1 and all(width(line) <= columns or len(line.split()) == 1 for line in lines)
    assert "".join(line.strip() for line in lines).replace(" ", "") == CHINESE.replace(" ", "")


def test_a_broken_chinese_line_is_joined_without_a_space() -> None:
    assert unfold("第一行的结尾\n第二行的开头") == "第一行的结尾第二行的开头"
    assert unfold("two English\nlines") == "two English lines"
    assert unfold("一个 Linux\nshell") == "一个 Linux shell"
    assert unfold("cmd 会把\nTHEANO_FLAGS 当成") == "cmd 会把 THEANO_FLAGS 当成"
    assert unfold("  ") == ""
