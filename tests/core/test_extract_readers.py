"""Readers: every supported format streams into Messages with provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.core.extract.formats import jsonstream
from memdesk.core.extract.messages import ReadStats
from memdesk.core.extract.readers import detect_format, read_messages


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def test_generic_jsonl_with_string_and_parts_content(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "chat.jsonl",
        [
            {"session_id": "s1", "role": "user", "content": "记住：用 uv", "timestamp": "t1"},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}, "done"]},
            {"role": "human", "content": [{"type": "text", "text": "hi"}]},
        ],
    )
    messages = list(read_messages(path))
    assert [(m.role, m.text) for m in messages] == [
        ("user", "记住：用 uv"),
        ("assistant", "ok\ndone"),
        ("user", "hi"),
    ]
    assert messages[0].session_id == "s1" and messages[0].timestamp == "t1"
    assert messages[0].locator == f"{path}:1"
    assert messages[2].locator == f"{path}:3"


def test_malformed_and_unknown_lines_are_skipped_with_counted_warnings(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"role": "user", "content": "first"}\n{not json\n\n[1, 2]\n{"role": "user", "content": "last"}\n',
        "utf-8",
    )
    stats = ReadStats(str(path))
    messages = list(read_messages(path, stats=stats))
    assert [m.text for m in messages] == ["first", "last"]
    assert stats.skipped == 2
    assert stats.warnings[0].startswith(f"{path}:2: malformed JSON")
    assert stats.warnings[1].startswith(f"{path}:4: ")


def test_claude_code_session_lines(tmp_path: Path) -> None:
    common = {"sessionId": "cc-1", "timestamp": "2025-06-01T10:00:00Z"}
    path = write_jsonl(
        tmp_path / "session.jsonl",
        [
            {"type": "summary", "summary": "Fix tests", "leafUuid": "x"},
            {
                "type": "user",
                "message": {"role": "user", "content": "remember: run uv sync first"},
                **common,
            },
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "maybe it is the cache"},
                        {"type": "text", "text": "Running the tests."},
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Bash",
                            "input": {"command": "uv run pytest -x"},
                        },
                    ],
                },
                **common,
            },
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [{"type": "text", "text": "3 passed"}],
                        }
                    ],
                },
                **common,
            },
            {
                "type": "user",
                "isMeta": True,
                "message": {"role": "user", "content": "<local-command-caveat>"},
                **common,
            },
        ],
    )
    stats = ReadStats(str(path))
    messages = list(read_messages(path, stats=stats))
    assert [(m.role, m.kind, m.text) for m in messages] == [
        ("user", "text", "remember: run uv sync first"),
        ("assistant", "text", "Running the tests."),
        ("assistant", "tool_use", "$ uv run pytest -x"),
        ("tool", "tool_result", "3 passed"),
        ("system", "text", "<local-command-caveat>"),
    ]
    assert all(m.session_id == "cc-1" for m in messages)
    assert stats.skipped == 0 and stats.ignored == 1
    assert not any("maybe it is the cache" in m.text for m in messages)


def openai_export() -> list[dict[str, object]]:
    def node(nid: str, parent: str | None, role: str, text: str, t: float) -> dict[str, object]:
        return {
            "id": nid,
            "parent": parent,
            "children": [],
            "message": {
                "author": {"role": role},
                "content": {"content_type": "text", "parts": [text]},
                "create_time": t,
            },
        }

    return [
        {
            "title": "Deploy",
            "conversation_id": "conv-1",
            "current_node": "c",
            "mapping": {
                "root": {"id": "root", "parent": None, "children": ["a"], "message": None},
                "a": node("a", "root", "user", "We decided to deploy with musl", 1.0),
                "b": node("b", "a", "assistant", "abandoned branch", 2.0),
                "c": node("c", "a", "assistant", "OK, musl it is", 3.0),
            },
        },
        {"title": "Empty", "id": "conv-2", "mapping": {}},
    ]


def test_openai_export_follows_the_current_thread(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(openai_export()), "utf-8")
    assert detect_format(path) == "chatgpt"  # the ChatGPT export has its own reader
    messages = list(read_messages(path))
    assert [(m.role, m.text) for m in messages] == [
        ("user", "We decided to deploy with musl"),
        ("assistant", "OK, musl it is"),
    ]
    assert messages[0].session_id == "conv-1"
    assert messages[0].timestamp.startswith("1970-01-01T00:00:01")


def test_json_array_streams_elements_across_small_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonstream, "CHUNK", 7)  # split elements and UTF-8 sequences
    records = [{"role": "user", "content": f"第{i}条消息：记住 ünïcödé {i}"} for i in range(30)]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), "utf-8")
    messages = list(read_messages(path))
    assert [m.text for m in messages] == [r["content"] for r in records]
    assert messages[3].locator == f"{path}#3"


def test_json_object_with_messages(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(
        json.dumps({"id": "s9", "messages": [{"role": "user", "content": "hello there"}]}), "utf-8"
    )
    messages = list(read_messages(path))
    assert [(m.role, m.text, m.session_id) for m in messages] == [("user", "hello there", "s9")]


def test_markdown_chat_log(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    path.write_text(
        "# Session notes\n\n## User\n记住：测试库叫 tidepool_test\n\n## Assistant\n好的。\n\n"
        "**User:** also use ruff\n\n```\nUser: not a marker inside code\n```\nAssistant: done\n",
        "utf-8",
    )
    messages = list(read_messages(path))
    assert [(m.role, m.text) for m in messages] == [
        ("user", "记住：测试库叫 tidepool_test"),
        ("assistant", "好的。"),
        ("user", "also use ruff\n\n```\nUser: not a marker inside code\n```"),
        ("assistant", "done"),
    ]
    assert messages[0].locator == f"{path}:3"


def test_openclaw_daily_log_lines_are_notes(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    path = folder / "2025-06-05.md"
    path.write_text(
        "# 2025-06-05\n\n## 10:30 deploy\n- kestrel 装在 /opt/kestrel/bin\n- User: gwadmin\n",
        "utf-8",
    )
    messages = list(read_messages(path))
    assert [(m.role, m.text) for m in messages] == [
        ("note", "- kestrel 装在 /opt/kestrel/bin"),
        ("note", "- User: gwadmin"),
    ]
    assert messages[0].session_id == "2025-06-05"
    assert messages[0].timestamp == "2025-06-05T10:30"


def test_incremental_read_resumes_and_leaves_a_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_text('{"role": "user", "content": "one"}\n', "utf-8")
    first = ReadStats(str(path))
    assert [m.text for m in read_messages(path, stats=first, complete_lines_only=True)] == ["one"]
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"role": "user", "content": "two"}\n{"role": "user", "con')
    second = ReadStats(str(path))
    got = read_messages(
        path,
        stats=second,
        start_offset=first.end_offset,
        start_line=first.end_line,
        complete_lines_only=True,
    )
    assert [(m.text, m.locator) for m in got] == [("two", f"{path}:2")]
    with path.open("a", encoding="utf-8") as handle:
        handle.write('tent": "three"}\n')
    third = ReadStats(str(path))
    got = read_messages(
        path,
        stats=third,
        start_offset=second.end_offset,
        start_line=second.end_line,
        complete_lines_only=True,
    )
    assert [(m.text, m.locator) for m in got] == [("three", f"{path}:3")]
    assert third.end_offset == path.stat().st_size


def test_format_detection_by_content(tmp_path: Path) -> None:
    jsonl = tmp_path / "log"
    jsonl.write_text('{"role": "user", "content": "x"}\n', "utf-8")
    array = tmp_path / "dump"
    array.write_text('  [{"role": "user", "content": "x"}]', "utf-8")
    text = tmp_path / "notes"
    text.write_text("User: hi\n", "utf-8")
    assert [detect_format(p) for p in (jsonl, array, text)] == ["jsonl", "json", "markdown"]
