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


def test_the_inbox_reports_an_unrecognised_file_and_reads_a_live_session(tmp_path: Path) -> None:
    from memdesk.core.extract.inbox import inbox_dir, ingest_path
    from memdesk.core.store import Store

    store = Store.init(tmp_path)
    inbox = inbox_dir(store)
    inbox.mkdir(parents=True, exist_ok=True)
    odd = write_text(inbox / "metrics.jsonl", '{"cpu": 0.4}\n')
    result = ingest_path(store, odd)
    assert result.error and str(odd.resolve()) in result.error and "tried:" in result.error
    session = write_jsonl(
        inbox / "rollout.jsonl",
        [
            {"timestamp": "t", "type": "session_meta", "payload": {"id": "r", "cwd": "/p"}},
            {
                "timestamp": "t",
                "type": "event_msg",
                "payload": {
                    "type": "user_message",
                    "message": "remember: releases are manual only",
                },
            },
        ],
    )
    first = ingest_path(store, session)
    assert not first.error and first.messages == 1
    with session.open("a", encoding="utf-8") as handle:
        handle.write(
            json.dumps(
                {
                    "timestamp": "t",
                    "type": "event_msg",
                    "payload": {
                        "type": "user_message",
                        "message": "we always deploy from the main branch",
                    },
                }
            )
            + "\n"
        )
    second = ingest_path(store, session)
    assert second.messages == 1 and second.from_offset == first.to_offset
