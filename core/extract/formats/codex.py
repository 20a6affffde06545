"""Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`).

One record a line: `{timestamp, type, payload}`. `session_meta` opens the file (its
`payload.cwd` names the working directory), `turn_context` records settings,
`response_item` holds what the model saw and said (`message` with role user /
assistant / developer, `function_call` and its `function_call_output`, `reasoning`),
`event_msg` what the UI showed (`user_message`, `agent_message`, token counts ...),
and `compacted` the summary that replaced earlier context. Older rollouts have no
envelope: the first line is the session (`id`, `instructions`) and the items follow.

The same words usually arrive twice — a `response_item` message and an `event_msg`
(`user_message` / `agent_message`) — and are read once. Who wrote them: a user
message is the person's except the blocks Codex puts in itself — the AGENTS.md
instructions (`# AGENTS.md instructions for ...`, `<user_instructions>`),
`<environment_context>`, the IDE context before `## My request for Codex:` — which are
"injected"; developer messages are "injected"; reasoning is skipped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.extract.formats.common import (
    head_lines,
    iter_records,
    message,
    render_tool_call,
    split_tagged,
    text_of,
)
from memdesk.core.extract.messages import Message, ReadStats

NAME = "codex"
LINE_BASED = True
DESCRIPTION = "Codex CLI rollout JSONL"

_ENVELOPE = re.compile(
    rb'"type"\s*:\s*"(?:session_meta|response_item|event_msg|turn_context|compacted)"'
)
_LEGACY_SESSION = re.compile(rb'^\{"id"\s*:\s*"[^"]+"\s*,\s*"timestamp"\s*:')
_RECORD_TYPE = re.compile(rb'"record_type"\s*:\s*"state"')
TAGS: dict[str, str] = {
    "user_instructions": "injected",
    "environment_context": "injected",
    "user_shell_command": "command",
    "turn_aborted": "injected",
    "instructions": "injected",
}
_AGENTS_MD = re.compile(r"^#\s*AGENTS\.md instructions\b", re.IGNORECASE)
_IDE_CONTEXT = re.compile(r"^#\s*Context from my IDE setup:", re.IGNORECASE)
_IDE_REQUEST = re.compile(r"^##\s*My request for Codex:\s*$", re.IGNORECASE | re.MULTILINE)


def sniff(path: Path, head: bytes) -> bool:
    lines = head_lines(head, 4)
    if not lines:
        return False
    first = lines[0][:4096]
    if first.startswith(b"{") and _ENVELOPE.search(first) and b'"payload"' in first:
        return True
    return bool(_LEGACY_SESSION.match(first)) and any(_RECORD_TYPE.search(x) for x in lines)


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    session = ""
    # Words seen once from one channel and not yet from the other: (channel, origin, text).
    pending: Counter[tuple[str, str, str]] = Counter()
    for number, record in iter_records(path, stats, start_offset, start_line, complete_lines_only):
        locator = f"{path}:{number}"
        if not isinstance(record, dict):
            stats.warn(number, "not a rollout record")
            continue
        kind = record.get("type")
        payload = record.get("payload")
        stamp = str(record.get("timestamp") or "")
        if kind == "session_meta" and isinstance(payload, dict):
            session = str(payload.get("id") or session)
            stats.ignored += 1
            continue
        if kind is None and "instructions" in record and "id" in record:
            session = str(record.get("id") or session)  # an old rollout's first line
            stats.ignored += 1
            continue
        if kind in ("response_item", "event_msg", "compacted") and isinstance(payload, dict):
            channel = "event" if kind == "event_msg" else "item"
            item = payload if kind != "compacted" else {"type": "compacted", **payload}
        elif isinstance(kind, str) and "payload" not in record and "role" in record:
            channel, item = "item", record  # an old rollout: items without an envelope
        else:
            stats.ignored += 1  # turn_context, state lines, types newer than this reader
            continue
        found = _item_messages(item, channel)
        if not found:
            stats.ignored += 1
        for origin, text, kind_of in found:
            if origin in ("person", "assistant", "injected") and kind_of == "text":
                key = (channel, origin, text.strip())
                other = ("item" if channel == "event" else "event", origin, text.strip())
                if pending[other]:
                    pending[other] -= 1
                    continue  # the same words from the other channel: read once
                pending[key] += 1
            yield message(
                origin,
                text,
                session=session,
                stamp=stamp,
                locator=locator,
                kind=kind_of,
                record=f"{kind or 'item'}:{item.get('type')}",
            )


def _item_messages(item: dict[str, Any], channel: str) -> list[tuple[str, str, str]]:
    """(origin, text, kind) of one response item or event."""
    kind = item.get("type")
    if channel == "event":
        if kind == "user_message":
            return [(o, t, "text") for o, t in user_pieces(str(item.get("message") or ""))]
        if kind == "agent_message":
            text = str(item.get("message") or "")
            return [("assistant", text, "text")] if text.strip() else []
        return []
    if kind == "message":
        role = item.get("role")
        text = text_of(item.get("content"))
        if not text.strip():
            return []
        if role == "user":
            return [(o, t, "text") for o, t in user_pieces(text)]
        if role == "assistant":
            return [("assistant", text, "text")]
        return [("injected", text, "text")]  # developer / system instructions
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        name = str(item.get("name") or kind)
        data = item.get("arguments", item.get("input", item.get("action")))
        return [("tool", render_tool_call(name, data), "tool_use")]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        if isinstance(output, dict):
            output = output.get("content") or output.get("output") or ""
        return [("tool", text_of(output) if not isinstance(output, str) else output, "tool_result")]
    if kind == "compacted":
        text = str(item.get("message") or "")
        return [("compaction", text, "text")] if text.strip() else []
    return []  # reasoning, web_search_call ... carry no one's stated words


def user_pieces(text: str) -> list[tuple[str, str]]:
    """(origin, text) of a user message: the person's words and what Codex injected."""
    stripped = text.strip()
    if _AGENTS_MD.match(stripped):
        return [("injected", stripped)]
    if _IDE_CONTEXT.match(stripped):
        request = _IDE_REQUEST.search(stripped)
        if request is None:
            return [("injected", stripped)]
        head, asked = stripped[: request.start()], stripped[request.end() :]
        return [("injected", head.strip())] + split_tagged(asked, TAGS, "person")
    return split_tagged(stripped, TAGS, "person")
