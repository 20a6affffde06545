"""GitHub Copilot CLI events.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

from format_helpers import read_all, said, write_jsonl


def ev(kind: str, data: dict[str, object], n: int) -> dict[str, object]:
    return {
        "type": kind,
        "data": data,
        "id": f"e{n}",
        "timestamp": f"2025-12-13T16:26:{n:02}Z",
        "parentId": None,
    }


def test_events(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "session-state/abc/events.jsonl",
        [
            ev(
                "session.start",
                {"sessionId": "abc", "context": {"cwd": "/proj"}, "copilotVersion": "0.0.400"},
                1,
            ),
            ev("session.info", {"infoType": "folder_trust", "message": "Folder trusted"}, 2),
            ev(
                "user.message",
                {
                    "content": "use pytest, not unittest",
                    "transformedContent": "<rules/> use pytest, not unittest",
                    "attachments": [],
                },
                3,
            ),
            ev("assistant.turn_start", {"turnId": "0"}, 4),
            ev("assistant.reasoning", {"reasoningId": "r", "content": "thinking aloud"}, 5),
            ev(
                "assistant.message",
                {
                    "messageId": "m1",
                    "content": "Switching to pytest.",
                    "toolRequests": [
                        {"toolCallId": "t1", "name": "bash", "arguments": {"command": "pytest -q"}}
                    ],
                },
                6,
            ),
            ev(
                "tool.execution_start", {"toolCallId": "t1", "toolName": "bash", "arguments": {}}, 7
            ),
            ev(
                "tool.execution_complete",
                {"toolCallId": "t1", "success": True, "result": {"content": "3 passed"}},
                8,
            ),
            ev(
                "assistant.message",
                {"messageId": "m2", "content": "Sub-agent report", "parentToolCallId": "t9"},
                9,
            ),
            ev("session.compaction_complete", {"summaryContent": "Earlier: moved to pytest"}, 10),
            ev("session.future_event", {"x": 1}, 11),
        ],
    )
    fmt, messages, stats = read_all(path)
    assert fmt == "copilot-cli"
    assert said(messages, "person") == ["use pytest, not unittest"]
    assert said(messages, "assistant") == ["Switching to pytest."]
    assert said(messages, "tool") == ["$ pytest -q", "3 passed"]
    assert said(messages, "subagent") == ["Sub-agent report"]
    assert said(messages, "compaction") == ["Earlier: moved to pytest"]
    assert not any("thinking aloud" in m.text for m in messages)
    assert messages[0].session_id == "abc" and messages[0].locator == f"{path}:3"
    assert stats.warnings == [] and stats.ignored == 6


def test_older_session_object(tmp_path: Path) -> None:
    path = tmp_path / "history-session-state/session_1.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {
                "sessionId": "old-1",
                "startTime": "2025-09-30T10:00:00Z",
                "chatMessages": [
                    {"role": "system", "content": "You are Copilot"},
                    {"role": "user", "content": "deploy with the Makefile target"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {
                                    "name": "bash",
                                    "arguments": '{"command": "make deploy"}',
                                },
                            }
                        ],
                    },
                    {"role": "tool", "content": "ok", "tool_call_id": "c"},
                ],
                "timeline": [],
            },
            indent=2,
        )
    )
    fmt, messages, _ = read_all(path)
    assert fmt == "copilot-cli"
    assert [(m.origin, m.text) for m in messages] == [
        ("injected", "You are Copilot"),
        ("person", "deploy with the Makefile target"),
        ("tool", "$ make deploy"),
        ("tool", "ok"),
    ]
