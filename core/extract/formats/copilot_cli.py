"""GitHub Copilot CLI session events (`~/.copilot/session-state/<id>/events.jsonl`).

One event a line: `{type, data, id, timestamp, parentId}`. `session.start` opens the
file (`data.context.cwd` names the working directory). `user.message` is the person
(`data.content`; `transformedContent` is the same words with the instructions Copilot
adds, not read); `assistant.message` the assistant (`content`, plus `toolRequests`:
tool calls; with a `parentToolCallId` it is a sub-agent's); `tool.execution_complete`
a tool result; `session.compaction_complete` the summary of earlier context. Reasoning,
turn boundaries, usage and other session events carry no one's words: skipped and
counted.

Older versions kept one JSON object a session (`history-session-state/*.json`:
`{sessionId, startTime, chatMessages: [{role, content, tool_calls}], timeline}`); it
is read too, by role (user: the person; system: injected).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.extract.formats.common import (
    first_byte,
    head_lines,
    iter_records,
    message,
    read_head,
    render_tool_call,
    text_of,
)
from memdesk.core.extract.formats.jsonstream import iter_json_values
from memdesk.core.extract.messages import Message, ReadStats

NAME = "copilot-cli"
LINE_BASED = True  # events.jsonl; the older one-object JSON is always read whole
DESCRIPTION = "GitHub Copilot CLI events.jsonl (and the older session JSON)"

_CHAT_MESSAGES = re.compile(rb'"chatMessages"\s*:\s*\[')
_ORIGIN_OF_ROLE = {"user": "person", "assistant": "assistant", "tool": "tool", "system": "injected"}
_EVENT = re.compile(
    rb'"type"\s*:\s*"(?:session\.(?:start|resume|info|model_change)|user\.message|'
    rb'assistant\.(?:message|turn_start|reasoning)|tool\.execution_(?:start|complete))"'
)


def sniff(path: Path, head: bytes) -> bool:
    if first_byte(head) == b"{" and _CHAT_MESSAGES.search(head):
        return True
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
    if _CHAT_MESSAGES.search(read_head(path, 8192)):
        yield from _read_history_object(path, stats)
        return
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
        for one in found:
            one.record = str(kind)
            yield one


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


def _read_history_object(path: Path, stats: ReadStats) -> Iterator[Message]:
    """The older one-object session: `chatMessages` in OpenAI chat shape."""
    with path.open("rb") as handle:
        for _, value in iter_json_values(handle, stats):
            if not isinstance(value, dict):
                stats.warn(1, "not a Copilot CLI session object")
                continue
            session = str(value.get("sessionId") or path.stem)
            stamp = str(value.get("startTime") or "")
            for index, item in enumerate(value.get("chatMessages") or []):
                if not isinstance(item, dict) or item.get("role") not in _ORIGIN_OF_ROLE:
                    stats.ignored += 1
                    continue
                where = {
                    "session": session,
                    "stamp": stamp,
                    "locator": f"{path}#chatMessages[{index}]",
                }
                role = str(item["role"])
                text = text_of(item.get("content"))
                if text.strip():
                    kind = "tool_result" if role == "tool" else "text"
                    yield message(_ORIGIN_OF_ROLE[role], text, kind=kind, **where)
                for call in item.get("tool_calls") or []:
                    function = call.get("function") if isinstance(call, dict) else None
                    if isinstance(function, dict):
                        line = render_tool_call(
                            str(function.get("name") or "tool"), function.get("arguments")
                        )
                        yield message("tool", line, kind="tool_use", role="assistant", **where)
        stats.end_offset = handle.tell()
