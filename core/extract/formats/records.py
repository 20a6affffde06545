"""Generic message records: `{role, content}` objects and the shapes that wrap them.

Shared by the generic JSONL and JSON readers and by `memdesk flush` (messages on
stdin). A record is a `{role, content}` message (content a string or a list of parts),
a Claude Code session line, an OpenAI conversation (`mapping` tree), an object with a
`messages` list, or a ready-made candidate (an object with a `summary`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from memdesk.core.extract.formats import chatgpt, claude_code
from memdesk.core.extract.messages import Message, ReadStats

# Agent log records that carry no conversation: skipped without a warning.
IGNORED_TYPES = frozenset(
    {"summary", "system", "file-history-snapshot", "queue-operation", "progress", "result"}
)
# Who wrote a generic record's words, from its role, when the record does not say.
ORIGIN_OF_ROLE = {"user": "person", "assistant": "assistant", "tool": "tool", "system": "injected"}


def record_messages(record: Any, locator: str, stats: ReadStats) -> list[Message] | None:
    """Messages in one decoded record; [] for known metadata, None when unrecognised."""
    if not isinstance(record, dict):
        return None
    kind = record.get("type")
    if isinstance(kind, str) and isinstance(record.get("message"), dict):
        return claude_code.record_to_messages(record, locator, stats)
    if isinstance(kind, str) and kind in IGNORED_TYPES:
        stats.ignored += 1
        return []
    if isinstance(record.get("mapping"), dict):
        return list(chatgpt.conversation_messages(record, locator))
    if isinstance(record.get("messages"), list):
        return list(_conversation_messages(record, locator, stats))
    if isinstance(record.get("summary"), str) and "role" not in record:
        # A ready-made candidate in the entry format (e.g. dropped into the inbox).
        text = json.dumps(record, ensure_ascii=False, default=str)
        return [
            Message("note", text, str(record.get("session_id") or ""), "", locator, "candidate")
        ]
    found = Message.from_obj(record, locator=locator)
    return None if found is None else [found]


def with_origin(found: Message) -> list[Message]:
    """A generic message with its origin filled in from its role when the record had none;
    a person's message is cut where the harness put tagged blocks (reminders,
    command wrappers) into it."""
    if found.origin or found.kind == "candidate":
        return [found]
    found.origin = ORIGIN_OF_ROLE.get(found.role, "")
    if found.origin != "person" or "<" not in found.text:
        return [found]
    pieces = claude_code.person_pieces(found.text)
    if len(pieces) == 1 and pieces[0][0] == "person":
        return [found]
    return [
        Message(
            found.role if origin == "person" else "system",
            piece,
            found.session_id,
            found.timestamp,
            found.locator,
            found.kind,
            origin,
        )
        for origin, piece in pieces
    ]


def _conversation_messages(
    record: dict[str, Any], locator: str, stats: ReadStats
) -> Iterator[Message]:
    session = str(
        record.get("session_id")
        or record.get("conversation_id")
        or record.get("id")
        or record.get("title")
        or ""
    )
    for index, item in enumerate(record["messages"]):
        where = f"{locator}#{index}"
        found = record_messages(item, where, stats) if isinstance(item, dict) else None
        if found is None:
            stats.warn(where.rsplit(":", 1)[-1], "message without role/content")
            continue
        for one in found:
            one.session_id = one.session_id or session
            yield one
