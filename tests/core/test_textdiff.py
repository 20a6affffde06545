"""Side-by-side diff for Chinese, English and mixed text (core/textdiff.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from memdesk.core.textdiff import diff_tokens, side_by_side, similarity, value_text


def _changed(spans) -> list[str]:
    return [s.text for s in spans if s.changed]


def test_english_differs_by_whole_words() -> None:
    left, right = side_by_side("use pnpm for the web UI", "use npm for the web UI")
    assert _changed(left) == ["pnpm"] and _changed(right) == ["npm"]


def test_chinese_differs_by_characters() -> None:
    left, right = side_by_side("模板引擎用 Tera", "模板引擎用 MiniJinja")
    assert _changed(left) == ["Tera"] and _changed(right) == ["MiniJinja"]
    left, right = side_by_side("周末在学日语", "周末在学英语")
    assert _changed(left) == ["日"] and _changed(right) == ["英"]


def test_mixed_text_and_full_width_punctuation() -> None:
    assert diff_tokens("草稿（draft）只在") == ["草", "稿", "（", "draft", "）", "只", "在"]


@given(st.text(), st.text())
def test_spans_reassemble_both_texts(a: str, b: str) -> None:
    left, right = side_by_side(a, b)
    assert "".join(s.text for s in left) == a
    assert "".join(s.text for s in right) == b
    assert "".join(diff_tokens(a)) == a


def test_identical_texts_have_no_changes() -> None:
    left, right = side_by_side("同じ text", "同じ text")
    assert not _changed(left) and not _changed(right)
    assert similarity("same", "same") == 1.0


def test_value_text_renders_lists_and_tables() -> None:
    assert value_text(["a", "b"]) == "- a\n- b"
    assert value_text({"origin": "cli", "files": ["x.py"], "excerpt": ""}) == (
        'origin: cli\nfiles: ["x.py"]'
    )
    assert value_text(None) == ""
