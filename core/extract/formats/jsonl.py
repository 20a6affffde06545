"""Generic JSONL: one message record a line (`{role, content}`, see `records`).

The hot loop of every large transcript: bytes go straight to `json.loads` (no decode
step), and plain `{role, content: "text"}` records skip the general dispatcher. Who
wrote a message comes from its `origin` field when the record has one, else from its
role (user: the person; assistant; tool; system: injected).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.extract.formats.common import head_records, iter_records
from memdesk.core.extract.formats.records import ORIGIN_OF_ROLE, record_messages, with_origin
from memdesk.core.extract.messages import Message, ReadStats, normalise_role

NAME = "jsonl"
LINE_BASED = True
DESCRIPTION = "generic JSONL of {role, content} messages"


def sniff(path: Path, head: bytes) -> bool:
    """A JSON-object line that is a message record (role/content, messages, mapping,
    a candidate's summary)."""
    for record in head_records(head):
        if normalise_role(record.get("role") or record.get("speaker") or record.get("author")):
            return True
        if any(isinstance(record.get(k), list | dict) for k in ("messages", "mapping")):
            return True
        if isinstance(record.get("summary"), str):
            return True
    return False


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    where = f"{path}:"
    records = iter_records(path, stats, start_offset, start_line, complete_lines_only)
    for number, record in records:
        if record is None:  # a JSON `null` line: nothing to read
            continue
        found = _plain_message(record, where, number)
        if found is None:
            found = record_messages(record, f"{where}{number}", stats)
        if found is None:
            stats.warn(number, "not a message record (no role/content, type or mapping)")
        else:
            for one in found:
                yield from with_origin(one)


def _plain_message(record: Any, where: str, number: int) -> list[Message] | None:
    """Fast path for the common generic record; None sends it to `record_messages`."""
    if type(record) is not dict:
        return None
    content = record.get("content")
    if type(content) is not str or "summary" in record or "type" in record:
        return None
    role = normalise_role(record.get("role"))
    if role is None or "<" in content or "origin" in record:
        return None
    session = record.get("session_id") or record.get("sessionId") or ""
    stamp = record.get("timestamp") or record.get("time") or record.get("created_at") or ""
    return [
        Message(
            role,
            content,
            session if type(session) is str else str(session),
            stamp if type(stamp) is str else str(stamp),
            f"{where}{number}",
            record.get("kind") or "text",
            ORIGIN_OF_ROLE.get(role, ""),
        )
    ]
