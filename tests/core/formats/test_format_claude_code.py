"""Claude Code session JSONL: who wrote each message, and every record type."""

from __future__ import annotations

from pathlib import Path

from format_helpers import read_all, said, write_jsonl
from memdesk.core.extract.messages import ReadStats
from memdesk.core.extract.readers import read_messages

BASE = {"sessionId": "s1", "cwd": "/p", "version": "2.0.1", "userType": "external"}


def user(text: object, **extra: object) -> dict[str, object]:
    return {"type": "user", "message": {"role": "user", "content": text}, **BASE, **extra}


def assistant(blocks: list[object], **extra: object) -> dict[str, object]:
    return {
        "type": "assistant",
        "message": {"role": "assistant", "content": blocks},
        **BASE,
        **extra,
    }


def session(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "3f2a.jsonl",
        [
            {"type": "queue-operation", "operation": "enqueue", "sessionId": "s1"},
            {"type": "summary", "summary": "Setup", "leafUuid": "u0"},
            {
                "type": "file-history-snapshot",
                "messageId": "m",
                "snapshot": {},
                "isSnapshotUpdate": False,
            },
            user(
                "<command-message>init is analyzing…</command-message>\n<command-name>/init</command-name>"
            ),
            user([{"type": "text", "text": "Please analyze this codebase"}], isMeta=True),
            user(
                "<command-name>/review</command-name>\n<command-args>use pnpm, never npm</command-args>"
            ),
            user(
                [
                    {
                        "type": "text",
                        "text": "We deploy with Fly.io.\n<system-reminder>Todo list is empty</system-reminder>",
                    }
                ]
            ),
            assistant(
                [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "I'll check the config."},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "fly status"},
                    },
                ]
            ),
            user([{"type": "tool_result", "tool_use_id": "t1", "content": "app running"}]),
            user("Explore the repo and list every package.json", isSidechain=True),
            assistant([{"type": "text", "text": "Found 3 packages."}], isSidechain=True),
            user(
                "This session is being continued from a previous conversation that ran out of context.",
                isCompactSummary=True,
            ),
            user([{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
            {
                "type": "attachment",
                "attachment": {
                    "type": "queued_command",
                    "prompt": [{"type": "text", "text": "also keep the API on port 8080"}],
                    "commandMode": "prompt",
                },
                **BASE,
            },
            {"type": "attachment", "attachment": {"type": "todo_reminder", "content": []}, **BASE},
            {"type": "ai-title", "aiTitle": "Deploy", "sessionId": "s1"},
            {"type": "last-prompt", "lastPrompt": "We deploy with Fly.io.", "sessionId": "s1"},
            {"type": "custom-title", "customTitle": "x", "sessionId": "s1"},
            {
                "type": "system",
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                **BASE,
            },
            {"type": "brand-new-record-type", "sessionId": "s1", "payload": 1},
        ],
    )


def test_detected_and_every_record_type_read_or_skipped_silently(tmp_path: Path) -> None:
    fmt, messages, stats = read_all(session(tmp_path))
    assert fmt == "claude-code"
    assert stats.skipped == 0 and stats.warnings == []
    # queue-operation, summary, snapshot, todo attachment, ai-title, last-prompt,
    # custom-title, system and the unknown type: counted, never warned.
    assert stats.ignored == 9
    assert all(m.session_id == "s1" for m in messages)


def test_only_the_persons_words_are_person(tmp_path: Path) -> None:
    _, messages, _ = read_all(session(tmp_path))
    assert said(messages, "person") == [
        "use pnpm, never npm",
        "We deploy with Fly.io.",
        "also keep the API on port 8080",
    ]
    assert all(m.role == "user" and m.is_person for m in messages if m.origin == "person")
    assert not any(m.is_person for m in messages if m.origin != "person")


def test_other_origins(tmp_path: Path) -> None:
    _, messages, _ = read_all(session(tmp_path))
    assert said(messages, "command") == ["init is analyzing…\n/init", "/review"]
    assert said(messages, "injected") == [
        "Please analyze this codebase",
        "Todo list is empty",
        "[Request interrupted by user for tool use]",
    ]
    assert said(messages, "subagent") == [
        "Explore the repo and list every package.json",
        "Found 3 packages.",
    ]
    assert said(messages, "compaction")[0].startswith("This session is being continued")
    assert said(messages, "assistant") == ["I'll check the config."]
    assert said(messages, "tool") == ["$ fly status", "app running"]
    assert not any("hmm" in m.text for m in messages)  # thinking is never read


def test_locators_name_file_and_line(tmp_path: Path) -> None:
    path = session(tmp_path)
    _, messages, _ = read_all(path)
    queued = next(m for m in messages if "8080" in m.text)
    assert queued.locator == f"{path}:14"


def test_resumes_from_an_offset(tmp_path: Path) -> None:
    path = session(tmp_path)
    first = ReadStats(str(path))
    head = [m.text for m in read_messages(path, stats=first, complete_lines_only=True)]
    assert first.end_offset == path.stat().st_size
    with path.open("a", encoding="utf-8") as handle:
        handle.write(
            '{"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "ok ship it"}}\n'
        )
    second = ReadStats(str(path))
    more = list(
        read_messages(path, stats=second, start_offset=first.end_offset, start_line=first.end_line)
    )
    assert head and [(m.text, m.origin) for m in more] == [("ok ship it", "person")]
    assert more[0].locator == f"{path}:{first.end_line + 1}"


def test_stream_json_output(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "transcript.jsonl",
        [
            {"type": "system", "subtype": "init", "session_id": "x9", "cwd": "/p", "tools": []},
            {
                "type": "user",
                "session_id": "x9",
                "parent_tool_use_id": None,
                "message": {"role": "user", "content": "the tests live in snapshot-tests/"},
            },
            {
                "type": "assistant",
                "session_id": "x9",
                "parent_tool_use_id": "toolu_1",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "sub-agent here"}],
                },
            },
            {"type": "result", "subtype": "success", "session_id": "x9", "result": "done"},
        ],
    )
    fmt, messages, stats = read_all(path)
    assert fmt == "claude-code"
    assert [(m.origin, m.text) for m in messages] == [
        ("person", "the tests live in snapshot-tests/"),
        ("subagent", "sub-agent here"),
    ]
    assert stats.ignored == 2 and stats.warnings == []


def test_messages_name_their_record_type(tmp_path: Path) -> None:
    _, messages, _ = read_all(session(tmp_path))
    queued = next(m for m in messages if "8080" in m.text)
    assert queued.record == "attachment:queued_command"
    assert queued.to_json()["record"] == "attachment:queued_command"
    assert {m.record for m in messages if m.origin == "assistant"} == {"assistant"}
