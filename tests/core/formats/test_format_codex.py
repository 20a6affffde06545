"""Codex CLI rollouts: injected blocks, and words carried twice read once."""

from __future__ import annotations

from pathlib import Path

from format_helpers import read_all, said, write_jsonl


def item(payload: dict[str, object]) -> dict[str, object]:
    return {"timestamp": "2025-09-19T09:02:12Z", "type": "response_item", "payload": payload}


def event(payload: dict[str, object]) -> dict[str, object]:
    return {"timestamp": "2025-09-19T09:02:13Z", "type": "event_msg", "payload": payload}


def user_item(text: str) -> dict[str, object]:
    return item(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )


def rollout(tmp_path: Path) -> Path:
    ide = (
        "# Context from my IDE setup:\n\n## Open tabs:\n- go.mod\n\n"
        "## My request for Codex:\n請把 go 版本統一成 1.24\n"
    )
    return write_jsonl(
        tmp_path / "sessions/2025/09/19/rollout-2025-09-19T09-02-12-0199.jsonl",
        [
            {
                "timestamp": "2025-09-19T09:02:12Z",
                "type": "session_meta",
                "payload": {
                    "id": "0199",
                    "cwd": "/proj",
                    "originator": "codex_cli_rs",
                    "instructions": None,
                },
            },
            user_item(
                "# AGENTS.md instructions for /proj\n\n<INSTRUCTIONS>\nUse uv.\n</INSTRUCTIONS>"
            ),
            user_item("<environment_context>\n  <cwd>/proj</cwd>\n</environment_context>"),
            user_item(ide),
            event({"type": "user_message", "message": ide, "images": []}),
            {"timestamp": "t", "type": "turn_context", "payload": {"cwd": "/proj"}},
            event({"type": "agent_message", "message": "I'll update go.mod."}),
            item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}]}),
            item(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "I'll update go.mod."}],
                }
            ),
            item(
                {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": '{"command": ["bash", "-lc", "cat go.mod"]}',
                    "call_id": "c1",
                }
            ),
            item(
                {"type": "function_call_output", "call_id": "c1", "output": '{"output": "go 1.22"}'}
            ),
            event({"type": "token_count", "info": None}),
            event(
                {
                    "type": "user_message",
                    "message": "and keep .python-version at 3.10",
                    "images": [],
                }
            ),
            user_item("and keep .python-version at 3.10"),
            item(
                {
                    "type": "message",
                    "role": "developer",
                    "content": [{"type": "input_text", "text": "sandbox rules"}],
                }
            ),
            {
                "timestamp": "t",
                "type": "compacted",
                "payload": {"message": "Summary: go.mod updated"},
            },
        ],
    )


def test_detected_and_the_person_said_each_thing_once(tmp_path: Path) -> None:
    fmt, messages, stats = read_all(rollout(tmp_path))
    assert fmt == "codex"
    assert said(messages, "person") == [
        "請把 go 版本統一成 1.24",
        "and keep .python-version at 3.10",
    ]
    assert said(messages, "assistant") == ["I'll update go.mod."]
    assert stats.warnings == []
    assert all(m.session_id == "0199" for m in messages)


def test_injected_blocks_and_tools(tmp_path: Path) -> None:
    _, messages, _ = read_all(rollout(tmp_path))
    injected = said(messages, "injected")
    assert injected[0].startswith("# AGENTS.md instructions for /proj")
    assert "<cwd>/proj</cwd>" in injected[1]
    assert injected[2].startswith("# Context from my IDE setup:")
    assert injected[3] == "sandbox rules"
    assert len(injected) == 4  # the IDE context came twice (item and event): read once
    assert said(messages, "tool") == ["$ bash -lc cat go.mod", '{"output": "go 1.22"}']
    assert said(messages, "compaction") == ["Summary: go.mod updated"]
    assert not any(m.is_person for m in messages if m.origin != "person")


def test_legacy_rollout_without_envelope(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-old.jsonl",
        [
            {"id": "abc", "timestamp": "2025-05-01T10:00:00Z", "instructions": ""},
            {"record_type": "state"},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "use pnpm"}],
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}],
            },
        ],
    )
    fmt, messages, _ = read_all(path)
    assert fmt == "codex"
    assert [(m.origin, m.text, m.session_id) for m in messages] == [
        ("person", "use pnpm", "abc"),
        ("assistant", "ok", "abc"),
    ]


def test_messages_name_their_record_type(tmp_path: Path) -> None:
    _, messages, _ = read_all(rollout(tmp_path))
    by_text = {m.text: m.record for m in messages}
    assert by_text["and keep .python-version at 3.10"] == "event_msg:user_message"
    assert by_text["I'll update go.mod."] == "event_msg:agent_message"
    assert by_text["sandbox rules"] == "response_item:message"
