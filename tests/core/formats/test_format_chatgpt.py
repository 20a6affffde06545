"""The ChatGPT export (conversations.json)."""

from __future__ import annotations

import json
from pathlib import Path

from format_helpers import read_all, write_text


def node(nid: str, parent: str | None, role: str, text: str, **meta: object) -> dict[str, object]:
    return {
        "id": nid,
        "parent": parent,
        "children": [],
        "message": {
            "author": {"role": role},
            "content": {"content_type": "text", "parts": [text]},
            "create_time": 1704067200,
            "metadata": meta,
        },
    }


def test_export(tmp_path: Path) -> None:
    conversation = {
        "id": "conv-123",
        "title": "Branches",
        "current_node": "d",
        "mapping": {
            "s": node("s", None, "system", "You are ChatGPT"),
            "h": node(
                "h", "s", "user", "custom instructions", is_visually_hidden_from_conversation=True
            ),
            "a": node("a", "h", "user", "I prefer tabs over spaces"),
            "b": node("b", "a", "assistant", "abandoned reply"),
            "c": node("c", "a", "assistant", "Noted: tabs."),
            "d": node("d", "c", "tool", "tool output"),
        },
    }
    path = write_text(tmp_path / "conversations.json", json.dumps([conversation]))
    fmt, messages, _ = read_all(path)
    assert fmt == "chatgpt"
    assert [(m.origin, m.role, m.text) for m in messages] == [
        ("injected", "system", "You are ChatGPT"),
        ("injected", "system", "custom instructions"),
        ("person", "user", "I prefer tabs over spaces"),
        ("assistant", "assistant", "Noted: tabs."),
        ("tool", "tool", "tool output"),
    ]
    assert messages[2].locator == f"{path}#0#2" and messages[2].session_id == "conv-123"
