"""Gemini CLI chat recordings (`~/.gemini/tmp/<project hash>/chats/session-*.json[l]`).

Two shapes, one reader:

- JSON: one object `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`;
- JSONL (newer): a first line with the same metadata, then one message record a line
  (`{id, timestamp, type, content, ...}`; a message updated later — tokens, tool calls —
  is written again with the same `id`), `{"$set": {...}}` metadata patches (a `$set` of
  `messages` replaces the list) and `{"$rewindTo": id}` lines.

Messages: `type` user is the person (in a sub-agent's recording, `kind: "subagent"`, it
is the main agent's prompt: "subagent"); text after `--- Content from referenced
files ---` is file content the CLI pasted in ("injected"); `gemini` is the assistant,
its `toolCalls` are tool calls and results; info / error / warning lines and thoughts
are skipped. Each message id is read once, the first time it has text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.extract.formats.common import (
    first_byte,
    iter_records,
    message,
    render_tool_call,
    text_of,
)
from memdesk.core.extract.formats.jsonstream import iter_json_values
from memdesk.core.extract.messages import Message, ReadStats
from memdesk.core.jsonfile import loads

NAME = "gemini-cli"
LINE_BASED = True  # the JSONL shape; the JSON shape is always read whole
DESCRIPTION = "Gemini CLI chat recording (JSON session or JSONL with $set patches)"

_SESSION_KEYS = re.compile(rb'"(?:sessionId|projectHash)"\s*:')
_GEMINI_TYPE = re.compile(rb'"type"\s*:\s*"gemini"')
_REFERENCED = "--- Content from referenced files ---"


def sniff(path: Path, head: bytes) -> bool:
    if first_byte(head) != b"{":
        return False
    start = head[:8192]
    if b'"projectHash"' in start and _SESSION_KEYS.search(start):
        return True
    return b'"messages"' in start and _GEMINI_TYPE.search(head) is not None


class _Session:
    """What one recording has said so far (ids already read, session kind)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.session = ""
        self.subagent = False
        self.done: set[str] = set()
        self.tools_done: set[str] = set()

    def meta(self, record: dict[str, Any]) -> None:
        self.session = str(record.get("sessionId") or self.session)
        if "kind" in record:
            self.subagent = record.get("kind") == "subagent"

    def messages(self, item: Any, locator: str, stats: ReadStats) -> Iterator[Message]:
        for one in self._messages(item, locator, stats):
            one.record = str(item.get("type") or "")
            yield one

    def _messages(self, item: Any, locator: str, stats: ReadStats) -> Iterator[Message]:
        if not isinstance(item, dict):
            stats.ignored += 1
            return
        key = str(item.get("id") or locator)
        kind = item.get("type")
        stamp = str(item.get("timestamp") or "")
        if kind == "gemini":
            for call in item.get("toolCalls") or []:
                if isinstance(call, dict):
                    yield from self._tool(call, key, stamp, locator)
        if key in self.done:
            return
        text = text_of(item.get("content"))
        if kind not in ("user", "gemini"):
            stats.ignored += 1  # info, error, warning lines from the CLI itself
            return
        if not text.strip():
            return
        self.done.add(key)
        if kind == "gemini":
            origin = "subagent" if self.subagent else "assistant"
            yield message(
                origin, text, session=self.session, stamp=stamp, locator=locator, role="assistant"
            )
            return
        said, _, pasted = text.partition(_REFERENCED)
        origin = "subagent" if self.subagent else "person"
        if said.strip():
            yield message(origin, said.strip(), session=self.session, stamp=stamp, locator=locator)
        if pasted.strip():
            yield message(
                "injected", pasted.strip(), session=self.session, stamp=stamp, locator=locator
            )

    def _tool(self, call: dict[str, Any], key: str, stamp: str, locator: str) -> Iterator[Message]:
        call_id = f"{key}/{call.get('id') or call.get('name')}"
        if call_id in self.tools_done:
            return
        name = str(call.get("name") or "tool")
        if call.get("result") is None and call.get("status") not in (None, "success", "error"):
            return  # still running: read once it has its result
        self.tools_done.add(call_id)
        where = {"session": self.session, "stamp": stamp, "locator": locator}
        yield message(
            "tool",
            render_tool_call(name, call.get("args")),
            kind="tool_use",
            role="assistant",
            **where,
        )
        result = _result_text(call.get("result"))
        if result:
            yield message("tool", result, kind="tool_result", **where)


def _result_text(value: Any) -> str:
    if isinstance(value, list):
        pieces = []
        for part in value:
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"].get("response")
                if isinstance(response, dict):
                    response = response.get("output", response)
                pieces.append(
                    response if isinstance(response, str) else json.dumps(response, default=str)
                )
            else:
                pieces.append(text_of(part))
        return "\n".join(p for p in pieces if p)
    return text_of(value)


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    state = _Session(path)
    if _is_whole_json(path):
        yield from _read_json(path, stats, state)
        return
    for number, record in iter_records(path, stats, start_offset, start_line, complete_lines_only):
        locator = f"{path}:{number}"
        if not isinstance(record, dict):
            stats.warn(number, "not a recording line")
        elif isinstance(record.get("$set"), dict):
            patch = record["$set"]
            state.meta(patch)
            for index, item in enumerate(patch.get("messages") or []):
                yield from state.messages(item, f"{locator}#{index}", stats)
            if "messages" not in patch:
                stats.ignored += 1
        elif "$rewindTo" in record:
            stats.ignored += 1  # what was rewound stays read: the person did say it
        elif "id" in record and "type" in record:
            yield from state.messages(record, locator, stats)
        elif "sessionId" in record:
            state.meta(record)
            stats.ignored += 1
        else:
            stats.ignored += 1


def _is_whole_json(path: Path) -> bool:
    """The JSON shape: the first line alone is not a complete JSON object."""
    with path.open("rb") as handle:
        first = handle.readline()
        while first and not first.strip():
            first = handle.readline()
    try:
        return not isinstance(loads(first, str(path)), dict)
    except ValueError:
        return True


def _read_json(path: Path, stats: ReadStats, state: _Session) -> Iterator[Message]:
    with path.open("rb") as handle:
        for _, value in iter_json_values(handle, stats):
            if not isinstance(value, dict):
                stats.warn(1, "not a Gemini CLI session object")
                continue
            state.meta(value)
            for index, item in enumerate(value.get("messages") or []):
                yield from state.messages(item, f"{path}#messages[{index}]", stats)
        stats.end_offset = handle.tell()
