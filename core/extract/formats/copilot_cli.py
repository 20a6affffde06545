"""GitHub Copilot CLI session events (`~/.copilot/session-state/<id>/events.jsonl`).

One event a line: `{type, data, id, timestamp, parentId}`. `session.start` opens the
file (`data.context.cwd` names the working directory). `user.message` is the person
(`data.content`; `transformedContent` is the same words with the instructions Copilot
adds, not read); `assistant.message` the assistant (`content`, plus `toolRequests`:
tool calls; with a `parentToolCallId` it is a sub-agent's); `tool.execution_complete`
a tool result; `session.compaction_complete` the summary of earlier context. Reasoning,
turn boundaries, usage and other session events carry no one's words: skipped and
counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.extract.formats.common import (
    head_lines,
    iter_records,
    message,
    render_tool_call,
    text_of,
)
from memdesk.core.extract.messages import Message, ReadStats

NAME = "copilot-cli"
LINE_BASED = True
DESCRIPTION = "GitHub Copilot CLI events.jsonl"

_EVENT = re.compile(
    rb'"type"\s*:\s*"(?:session\.(?:start|resume|info|model_change)|user\.message|'
    rb'assistant\.(?:message|turn_start|reasoning)|tool\.execution_(?:start|complete))"'
)


def sniff(path: Path, head: bytes) -> bool:
    for line in head_lines(head, 4):
        prefix = line[:4096]
        if prefix.startswith(b"{") and _EVENT.search(prefix) and b'"data"' in prefix:
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
    session = path.parent.name if path.name == "events.jsonl" else path.stem
    for number, record in iter_records(path, stats, start_offset, start_line, complete_lines_only):
        if not isinstance(record, dict) or not isinstance(record.get("data"), dict):
            stats.ignored += 1
            continue
        data: dict[str, Any] = record["data"]
        kind = record.get("type")
        if kind == "session.start":
            session = str(data.get("sessionId") or session)
        where = {
            "session": session,
            "stamp": str(record.get("timestamp") or ""),
            "locator": f"{path}:{number}",
        }
        found = list(_event_messages(str(kind), data, where))
        if not found:
            stats.ignored += 1
        yield from found


def _event_messages(kind: str, data: dict[str, Any], where: dict[str, str]) -> Iterator[Message]:
    if kind == "user.message":
        text = text_of(data.get("content"))
        if text.strip():
            yield message("person", text, **where)
    elif kind == "assistant.message":
        sub = bool(data.get("parentToolCallId"))
        text = text_of(data.get("content"))
        if text.strip():
            yield message("subagent" if sub else "assistant", text, role="assistant", **where)
        for call in data.get("toolRequests") or []:
            if isinstance(call, dict):
                line = render_tool_call(str(call.get("name") or "tool"), call.get("arguments"))
                yield message("tool", line, kind="tool_use", role="assistant", **where)
    elif kind == "tool.execution_complete":
        result = data.get("result")
        text = text_of(result.get("content")) if isinstance(result, dict) else text_of(result)
        if text.strip():
            yield message("tool", text, kind="tool_result", **where)
    elif kind == "session.compaction_complete":
        text = text_of(data.get("summaryContent") or data.get("summary"))
        if text.strip():
            yield message("compaction", text, **where)
