"""Generic {role, content} JSONL/JSON, and files no reader recognises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from format_helpers import read_all, write_jsonl, write_text
from memdesk.core.extract.readers import UnrecognisedFormat, detect_format


def test_generic_jsonl_origins_follow_roles(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "transcript.jsonl",
        [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "use ruff <system-reminder>be brief</system-reminder>"},
            {"role": "assistant", "content": "ok"},
            {"role": "tool", "content": "exit 0"},
            {"role": "user", "content": "written by a sub-agent", "origin": "subagent"},
        ],
    )
    fmt, messages, _ = read_all(path)
    assert fmt == "jsonl"
    assert [(m.origin, m.text) for m in messages] == [
        ("injected", "You are a coding agent."),
        ("person", "use ruff"),
        ("injected", "be brief"),
        ("assistant", "ok"),
        ("tool", "exit 0"),
        ("subagent", "written by a sub-agent"),
    ]


def test_generic_json_array(tmp_path: Path) -> None:
    path = write_text(tmp_path / "chat.json", json.dumps([{"role": "user", "content": "hi"}]))
    fmt, messages, _ = read_all(path)
    assert fmt == "json" and [(m.origin, m.text) for m in messages] == [("person", "hi")]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("data.jsonl", '{"foo": 1}\n{"bar": 2}\n'),
        ("table.csv", "a,b\n1,2\n"),
        ("numbers.json", "[1, 2, 3]"),
    ],
)
def test_unrecognised_files_name_the_file_and_the_formats_tried(
    tmp_path: Path, name: str, text: str
) -> None:
    path = write_text(tmp_path / name, text)
    with pytest.raises(UnrecognisedFormat) as caught:
        detect_format(path)
    message = str(caught.value)
    assert str(path) in message and "claude-code" in message and "jsonl" in message


def test_an_empty_session_file_is_recognised_and_has_no_messages(tmp_path: Path) -> None:
    path = write_text(tmp_path / "new.jsonl", "")
    fmt, messages, _ = read_all(path)
    assert fmt == "jsonl" and messages == []


def test_pretty_printed_json_in_a_jsonl_file(tmp_path: Path) -> None:
    path = write_text(
        tmp_path / "export.jsonl",
        json.dumps({"id": "s", "messages": [{"role": "user", "content": "prefer tabs"}]}, indent=2),
    )
    fmt, messages, _ = read_all(path)
    assert fmt == "json" and [(m.origin, m.text) for m in messages] == [("person", "prefer tabs")]
