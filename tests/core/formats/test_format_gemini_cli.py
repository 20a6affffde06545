"""Gemini CLI recordings: the JSON session object and the JSONL form with $set patches."""

from __future__ import annotations

import json
from pathlib import Path

from format_helpers import read_all, said, write_jsonl, write_text

META = {"sessionId": "g-1", "projectHash": "ab14", "startTime": "t0", "lastUpdated": "t0"}


def gemini(mid: str, text: str, **extra: object) -> dict[str, object]:
    return {"id": mid, "timestamp": "t", "type": "gemini", "content": text, "model": "m", **extra}


def test_json_session_object(tmp_path: Path) -> None:
    session = {
        **META,
        "messages": [
            {
                "id": "u1",
                "type": "user",
                "content": [
                    {
                        "text": "開發者的資訊放在 CONTRIBUTING.md\n--- Content from referenced files ---\nREADME body"
                    }
                ],
            },
            gemini(
                "g1",
                "",
                toolCalls=[
                    {
                        "id": "c1",
                        "name": "read_file",
                        "args": {"absolute_path": "/p/README.md"},
                        "status": "success",
                        "result": [
                            {
                                "functionResponse": {
                                    "id": "c1",
                                    "name": "read_file",
                                    "response": {"output": "# Title"},
                                }
                            }
                        ],
                    }
                ],
                thoughts=[{"subject": "plan", "description": "secret thinking"}],
            ),
            {"id": "i1", "type": "info", "content": "Request cancelled."},
            gemini("g2", "已經整理好 CONTRIBUTING.md"),
        ],
    }
    path = write_text(
        tmp_path / "chats/session-2026-03-27T10-19-8a20.json", json.dumps(session, indent=2)
    )
    fmt, messages, stats = read_all(path)
    assert fmt == "gemini-cli"
    assert said(messages, "person") == ["開發者的資訊放在 CONTRIBUTING.md"]
    assert said(messages, "injected") == ["README body"]
    assert said(messages, "assistant") == ["已經整理好 CONTRIBUTING.md"]
    assert said(messages, "tool") == ["[read_file] /p/README.md", "# Title"]
    assert messages[0].locator == f"{path}#messages[0]" and messages[0].session_id == "g-1"
    assert not any("secret thinking" in m.text for m in messages)
    assert stats.ignored == 1  # the info line


def test_jsonl_with_rewritten_messages_and_set_patches(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "chats/session-2026-04-01T08-00-g1.jsonl",
        [
            {**META, "kind": "main"},
            {
                "id": "u1",
                "timestamp": "t",
                "type": "user",
                "content": [{"text": "always run npm test before commit"}],
            },
            {"$set": {"lastUpdated": "t1"}},
            gemini("g1", "Noted."),
            gemini("g1", "Noted.", tokens={"input": 5}),  # the same message, updated: read once
            {"$set": {"summary": "testing rules"}},
            {
                "$set": {
                    "messages": [
                        {
                            "id": "u1",
                            "type": "user",
                            "content": [{"text": "always run npm test before commit"}],
                        },
                        gemini("g1", "Noted."),
                        {
                            "id": "s1",
                            "type": "user",
                            "content": [{"text": "the deploy target is Cloud Run"}],
                        },
                    ]
                }
            },
            {"$rewindTo": "s1"},
        ],
    )
    fmt, messages, stats = read_all(path)
    assert fmt == "gemini-cli"
    assert [(m.origin, m.text) for m in messages] == [
        ("person", "always run npm test before commit"),
        ("assistant", "Noted."),
        ("person", "the deploy target is Cloud Run"),
    ]
    assert messages[2].locator == f"{path}:7#2"
    assert stats.warnings == []


def test_subagent_recording(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "chats/parent/sub-1.jsonl",
        [
            {**META, "kind": "subagent"},
            {"id": "u1", "type": "user", "content": "Investigate the build failure"},
            gemini("g1", "The build fails on lint."),
        ],
    )
    _, messages, _ = read_all(path)
    assert [m.origin for m in messages] == ["subagent", "subagent"]
    assert not any(m.is_person for m in messages)
